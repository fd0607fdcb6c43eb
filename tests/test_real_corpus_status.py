"""``status`` on every top-level session of the real corpus (../shared/corpus/real; skipped
when absent) answers without error. The corpus holds no registry rows, so every verdict is
the transcript's alone, and each says so; a session with an open call or a live lane also
says that nothing confirms its owner is alive."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.real

VERDICTS = {"running", "waiting-children", "waiting-hitl", "idle-background-open", "idle-eot",
            "stale-dead", "unknown"}


def _sessions(home: Path) -> list[Path]:
    return sorted(p for p in (home / "projects").glob("*/*.jsonl")
                  if not p.name.startswith("agent-"))


def test_status_answers_on_every_top_level_session(cli, real_home: Path) -> None:
    sessions = _sessions(real_home)
    assert len(sessions) > 50
    seen: set[str] = set()
    for path in sessions:
        result = cli("--claude-home", str(real_home), "status", str(path), "--format", "json")
        assert result.code == 0, (path, result.stderr)
        assert "Traceback" not in result.stderr
        rows = result.json_rows()
        assert [r["kind"] for r in rows] == ["header", "verdict", "summary"], path
        row = rows[1]
        assert row["verdict"] in VERDICTS
        seen.add(row["verdict"])
        assert any("verdict from the transcript alone" in n for n in row["notes"]), path
        if row["verdict"] in ("running", "waiting-children", "waiting-hitl"):
            assert any("a session abandoned in this state reads the same" in n
                       for n in row["notes"]), path
        if row["verdict"] == "unknown":
            assert any("cannot be ranked" in n or "no record could be read" in n
                       for n in row["notes"]), path
    assert {"idle-eot", "running", "unknown"} <= seen


def test_status_text_on_a_session_with_an_open_dev_server(cli, real_home: Path) -> None:
    """A real session (Claude Code 2.0.x, no task notifications yet) that ended its turn
    with two backgrounded dev servers: `KillShell` killed the first (its result says so),
    the second was never stopped."""
    path = next((p for p in _sessions(real_home) if p.stem.startswith("7acd37a8")), None)
    if path is None:
        pytest.skip("the JSSoundRecorder session is not in this corpus")
    result = cli("--claude-home", str(real_home), "status", str(path))
    assert result.code == 0
    assert "verdict  idle-background-open" in result.stdout
    assert result.stdout.count("\n  bg        shell   ") == 1
    assert "1 open; 0 completed, 0 failed, 1 killed, 0 stopped" in result.stdout


PULSE = re.compile(r"\[[a-z-]+ \S+ [a-z_]+\] ")


def test_status_names_the_last_messages_list_names(cli, real_home: Path) -> None:
    """status's last ◂ / last ▸ are list's, read by the same rules: an AskUserQuestion
    answer is the human's newest message (9ca87404, 0a6ee217: status showed the older
    typed prompt). Where status shows a task-notification pulse list does not preview,
    the pulse is newer than list's human message."""
    listed = cli("--claude-home", str(real_home), "list", "--no-subagents", "--max-count", "0",
                 "--format", "json").json_rows("session")
    answers = 0
    for row in listed:
        result = cli("--claude-home", str(real_home), "status", row["path"], "--format", "json")
        last = result.json_rows("verdict")[0]["last"]
        agent, user = last["agent"], last["user"]
        assert (agent or {}).get("ts_utc") == (row["last_agent"] or {}).get("ts_utc"), row["path"]
        if user is not None and user["text"].startswith("["):
            answers += user["text"].startswith("[AskUserQuestion")
        listed_user = row["last_user"]
        if (user or {}).get("ts_utc") != (listed_user or {}).get("ts_utc"):
            # a pulse (`[agent a67… completed] …`), newer than any human message
            assert user is not None and PULSE.match(user["text"]), row["path"]
            assert listed_user is None or user["ts_utc"] > listed_user["ts_utc"], row["path"]
        elif user is not None:
            assert user["text"][:100] == listed_user["excerpt"][:100], row["path"]
    assert answers >= 2


def test_count_by_pairing_names_the_orphan_beside_a_paired_call(cli, real_home: Path) -> None:
    """A provider's assistant record holding a Bash call and its server tool's result is
    counted under both keys: `--count-by pairing` said `9 paired` and hid the orphan."""
    path = next(real_home.glob("projects/*/ec6c8ba7-5435-45ee-8133-6818b499690a.jsonl"), None)
    if path is None:
        pytest.skip("the ec6c8ba7 session is not in this corpus")
    result = cli("--claude-home", str(real_home), "search", "", str(path), "--count-by",
                 "pairing", "--format", "json")
    assert {r["key"]: r["records"] for r in result.json_rows("census")} == {
        "paired": 9, "orphan": 1}
    assert result.summary()["multi_key_records"] == 1


def test_old_layout_agents_are_their_sessions_children(cli, real_home: Path) -> None:
    """Every session that old-layout ``agent-<id>.jsonl`` files beside it name (Claude
    Code 2.0.x's layout) counts them among its lanes, as `agents` and `list` do; before,
    status read none of them."""
    import json

    named: dict[Path, int] = {}
    for agent in sorted((real_home / "projects").glob("*/agent-*.jsonl")):
        session = None
        for line in agent.read_bytes().splitlines():
            try:
                value = json.loads(line).get("sessionId")
            except (ValueError, AttributeError):
                continue
            if isinstance(value, str):
                session = value
                break
        path = agent.parent / f"{session}.jsonl"
        if session is not None and path.is_file():
            named[path] = named.get(path, 0) + 1
    if not named:
        pytest.skip("no old-layout agent in this corpus names a session of it")
    for path, count in named.items():
        if (path.parent / path.stem / "subagents").exists():
            continue  # (new-layout lanes too: counted by their own tests)
        result = cli("--claude-home", str(real_home), "status", str(path), "--format", "json")
        assert result.code == 0, (path, result.stderr)
        evidence = {e["surface"]: e["value"] for e in result.json_rows()[1]["evidence"]}
        assert evidence["children"].startswith(f"{count} lane(s), "), (path, evidence)
