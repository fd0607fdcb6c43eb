"""``recover`` over the real transcript corpus (../shared/corpus/real, skipped when absent).

For every file a session Writes and then Edits, the restore must equal the file obtained
by applying the recorded Write and edits by hand (an independent replay below: string
replacement over the recorded text, no structured patches, no sparse buffer); where the
restore refuses, a boundary or an un-anchorable edit must say why. Files a formatter or
an outside edit touched must name the boundary in ``--coverage``."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.real

RUN_BUDGET_S = 20.0
WRITE_TOOLS = ("Write", "Edit", "MultiEdit")


def _records(path: Path) -> list[dict[str, Any]]:
    out = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict):
            out.append(rec)
    return out


def _blocks(rec: dict[str, Any]) -> list[dict[str, Any]]:
    msg = rec.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _replace(text: str, old: str, new: str, every: bool) -> str | None:
    count = text.count(old)
    if not old or count == 0 or (count > 1 and not every):
        return None
    return text.replace(old, new) if every else text.replace(old, new, 1)


def hand_replay(transcript: Path, path: str) -> str | None:
    """The file after the transcript's successful Write/Edit/MultiEdit calls on ``path``,
    applied as text; None when a step cannot be applied (an edit before any write, an old
    text not found once)."""
    uses: dict[str, tuple[str, dict[str, Any]]] = {}
    text: str | None = None
    for rec in _records(transcript):
        echo = rec.get("toolUseResult")
        for block in _blocks(rec):
            if block.get("type") == "tool_use" and block.get("name") in WRITE_TOOLS:
                tool_input = block.get("input") or {}
                if tool_input.get("file_path") == path:
                    uses[block["id"]] = (block["name"], tool_input)
            if block.get("type") != "tool_result" or block.get("tool_use_id") not in uses:
                continue
            if block.get("is_error"):
                continue
            name, tool_input = uses[block["tool_use_id"]]
            recorded = echo if isinstance(echo, dict) else {}
            if name == "Write":
                content = recorded.get("content")
                text = content if isinstance(content, str) else tool_input["content"]
                continue
            if text is None:
                return None
            if name == "Edit":
                src = recorded if "oldString" in recorded else {
                    "oldString": tool_input["old_string"], "newString": tool_input["new_string"],
                    "replaceAll": tool_input.get("replace_all", False)}
                steps = [(src["oldString"], src["newString"], bool(src.get("replaceAll")))]
            else:
                edits = recorded.get("edits") or tool_input["edits"]
                steps = [(e["old_string"], e["new_string"], bool(e.get("replace_all")))
                         for e in edits]
            for old, new, every in steps:
                text = _replace(text, old, new, every)
                if text is None:
                    return None
    return text


def written_then_edited(home: Path) -> list[tuple[Path, str]]:
    cases = []
    for transcript in sorted((home / "projects").rglob("*.jsonl")):
        first: dict[str, list[str]] = {}
        for rec in _records(transcript):
            for block in _blocks(rec):
                if block.get("type") == "tool_use" and block.get("name") in WRITE_TOOLS:
                    target = (block.get("input") or {}).get("file_path")
                    if isinstance(target, str):
                        first.setdefault(target, []).append(block["name"])
        cases += [(transcript, p) for p, ops in first.items() if ops[0] == "Write" and len(ops) > 1]
    return cases


def _timed(cli, *args: str):
    start = time.monotonic()
    result = cli(*args)
    assert time.monotonic() - start < RUN_BUDGET_S, args
    assert "Traceback" not in result.stderr, result.stderr
    return result


def test_restore_equals_the_hand_applied_history(cli, real_home: Path) -> None:
    cases = written_then_edited(real_home)
    assert len(cases) >= 30
    equal = explained = 0
    for transcript, path in cases:
        result = _timed(cli, "--claude-home", str(real_home), "recover", str(transcript),
                        "--no-subagents", "--file", path, "--format", "json")
        [row] = result.json_rows("restore")
        expected = hand_replay(transcript, path)
        if row["complete"]:
            assert result.code == 0
            if expected is not None:
                assert row["content"] == expected, (transcript, path)
                equal += 1
            continue
        assert result.code == 1
        coverage = _timed(cli, "--claude-home", str(real_home), "recover", str(transcript),
                          "--no-subagents", "--file", path, "--coverage", "--format", "json")
        [cov] = coverage.json_rows("coverage")
        assert cov["hard_boundaries"] or cov["events"]["edit_unanchorable"], (transcript, path)
        explained += 1
    assert equal >= 30 and explained <= 5, (equal, explained)


SESSION_EDUAR = "762cc180-ae9a-436f-9b2e-d6e7763bbb47"
SESSION_DAIN = "326189cf-5676-4237-8cde-1ce80aae4a9f"
SESSION_ACG = "54498eae-fd81-4abc-a9a2-4a8d795f0660"


@pytest.mark.parametrize("session, path, cause, clue", [
    (SESSION_EDUAR, r"C:\Users\eduar\.claude\CLAUDE.md", "external_edit", None),
    (SESSION_DAIN, "/Users/dain/workspace/claude-code-log/test/test_cache.py",
     "read_disagreement", "fmt:ruff (hook)"),
    (SESSION_ACG, r"X:\03_ACG\Custom_Addons\ticket_system\views\hr_department_activities_view.xml",
     "external_write", None),
], ids=["edited_text_file", "formatter-hook", "file-history"])
def test_coverage_names_the_outside_change(cli, real_home: Path, session: str, path: str,
                                           cause: str, clue: str | None) -> None:
    result = _timed(cli, "--claude-home", str(real_home), "recover", f"@{session}", "--file",
                    path, "--coverage", "--format", "json")
    assert result.code == 0, result.stderr
    [row] = result.json_rows("coverage")
    found = [b for b in row["boundaries"] if b["cause"] == cause]
    assert found and found[0]["confidence"] == "authoritative"
    assert row["hard_boundaries"] >= 1 and row["fragments"] == row["hard_boundaries"] + 1
    if clue is not None:
        assert clue in found[0]["detail"]
    refused = _timed(cli, "--claude-home", str(real_home), "recover", f"@{session}", "--file",
                     path)
    assert (refused.code == 1 and cause in refused.stderr + refused.stdout) or \
        "NOT verified against disk" in refused.stderr


def test_batch_over_every_recorded_file(cli, real_home: Path, tmp_path: Path) -> None:
    paths = set()
    for transcript in (real_home / "projects").rglob("*.jsonl"):
        for rec in _records(transcript):
            for block in _blocks(rec):
                if block.get("type") == "tool_use" and block.get("name") in ("Read", *WRITE_TOOLS):
                    target = (block.get("input") or {}).get("file_path")
                    if isinstance(target, str) and target.startswith("/") and ".." not in target:
                        paths.add(target)
    manifest = tmp_path / "all.txt"
    manifest.write_text("\n".join(sorted(paths)) + "\n")
    result = _timed(cli, "--claude-home", str(real_home), "recover", "--files-from",
                    str(manifest), "--out-dir", str(tmp_path / "out"), "--format", "json")
    assert result.code == 0, result.stderr
    rows = result.json_rows("file")
    assert len(rows) == len(paths)
    statuses = {r["status"] for r in rows}
    assert statuses <= {"complete", "partial", "invalidated", "no-history"}
    complete = [r for r in rows if r["status"] == "complete"]
    assert len(complete) >= 100
    for r in complete[:50]:
        assert Path(r["written_to"]).is_file()
