"""Envelope v2 on every command built (SPEC §8.2, wire-format §0.1-§0.3): header first, summary
last, one of each, closed row kinds, the id trio on every spanning row, and every
``*_utc`` paired with its ``*_local``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from builders import ClaudeHome, assistant, tool_use, user
from conftest import DEMO_HOME, EXPLORE, LONG

ROW_KINDS = {
    "list": {"session"},
    "search": {"exchange", "census"},
    "show": {"record", "branch-point", "block"},
    "stats": {"session"},
    "plan": {"plan", "binding", "plan-edit"},
    "whoami": {"identity"},
    "agents": {"session", "run", "agent"},
    "files": {"bucket", "dir", "file", "mutation", "boundary"},
    "cache": {"facet"},
}
#: row kinds that name a transcript and must carry the trio (wire-format §0.2); agents rows
#: name theirs by session_id / agent_id alone (checked below)
TRIO_KINDS = {"session", "exchange", "record", "block", "plan", "binding", "bucket", "dir",
              "file", "mutation", "boundary"}
NO_TRIO_COMMANDS = {"agents", "cache"}
#: row kinds that carry the trio's keys, null where the lane cannot be known (whoami's env
#: form: the environment names the top-level session in every lane)
TRIO_KEYED_KINDS = {"identity"}
#: commands that need the calling session in the environment
CALLING = {"whoami", "plan"}
TRIO = ("session_id", "is_subagent", "parent_session_id")
LOCAL_FORM = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$")

INVOCATIONS = [
    ("list", "--max-count", "0"),
    ("list", "--no-subagents"),
    ("list", "--since", "2026-10-06", "--until", "2026-10-07"),
    ("search", "epoch"),
    ("search", "svalbard", "--siblings"),
    ("search", "published", "-t", "agent.tool.use"),
    ("search", "configurable", f"@{LONG}"),
    ("search", "zzqqxxnothere"),
    ("search", "cProfile", "-t", "user.message"),
    ("search", "epoch", "-c"),
    ("search", "", f"@{LONG}", "--count-by", "label"),
    ("search", "", f"@{LONG}", "--count-by", "turn"),
    ("search", "release", "--max-count", "-2"),
    ("show", f"@{LONG}", "--line", "1..40"),
    ("show", f"@{LONG}", "--turn", "-2.."),
    ("show", f"@{EXPLORE}", "--line", "1.."),
    ("show", f"@{LONG}", "--branch-points"),
    ("show", f"@{LONG}", "--block", "r:toolu_011JGjbLlmMWXdfH65leAzK3"),
    ("stats",),
    ("stats", "--no-subagents", "--max-count", "2"),
    ("stats", f"@{LONG}", "--turn", "1..3"),
    ("stats", "--since", "2026-10-06", "--until", "2026-10-07"),
    ("plan", f"@{LONG}"),
    ("plan", f"@{EXPLORE}"),
    ("plan",),
    ("plan", "--audit"),
    ("plan", "--reverse", str(DEMO_HOME / "plans" / "quiet-orbiting-lovelace.md")),
    ("whoami",),
    ("agents",),
    ("agents", f"@{LONG}", "--returned-message"),
    ("agents", "--agent", EXPLORE),
    ("agents", "--shape", "workflow", "--order-by", "completion"),
    ("agents", "--since", "2030-01-01"),
    ("files",),
    ("files", f"@{LONG}", "--by", "dir"),
    ("files", "--by", "file", "--glob", "**/src/**"),
    ("files", f"@{LONG}", "--by", "timeline", "--turn", "-5.."),
    ("files", "--since", "2026-10-06", "--regex", "zzqqxxnothere"),
    ("cache", "info"),
    ("cache", "clear"),
]


def _walk(obj: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every JSON object inside ``obj`` (itself included), with a readable path."""
    if isinstance(obj, dict):
        yield path, obj
        for key, value in obj.items():
            yield from _walk(value, f"{path}.{key}")
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            yield from _walk(value, f"{path}[{i}]")


@pytest.mark.parametrize("args", INVOCATIONS, ids=lambda a: " ".join(a))
def test_envelope(cli, demo_home: Path, monkeypatch: pytest.MonkeyPatch,
                  args: tuple[str, ...]) -> None:
    if args[0] in CALLING:
        monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", LONG)
    result = cli("--claude-home", str(demo_home), *args, "--format", "json")
    _check_envelope(result, args[0])


def test_whoami_trap_envelope(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The @trap form: one identity row per ancestry link, the lane known on each."""
    home = ClaudeHome(tmp_path / "claude")
    sid, agent, marker = "11111111-1111-4111-8111-111111111111", "a4ca7529859c158c2", \
        "AmberFinchHollow6271"
    main = home.session("/w/proj", sid, user("go"),
                        assistant(tool_use("Task", {"prompt": "p"}, id="tk")))
    home.subagent(main, agent, user("task"),
                  assistant(tool_use("Bash", {"command": f"pysift whoami @trap:{marker}"})),
                  meta={"toolUseId": "tk"})
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", sid)
    result = cli("--claude-home", str(home.root), "whoami", f"@trap:{marker}", "--format",
                 "json")
    rows = _check_envelope(result, "whoami")
    assert [r["is_subagent"] for r in rows if r["kind"] == "identity"] == [True, False]


def _check_envelope(result: Any, command: str) -> list[dict[str, Any]]:
    assert result.code == 0, result.stderr
    rows = result.json_rows()
    kinds = [r.get("kind") for r in rows]
    assert kinds[0] == "header" and kinds[-1] == "summary"
    assert kinds.count("header") == 1 and kinds.count("summary") == 1
    assert rows[0]["command"] == command
    for row in rows[1:-1]:
        assert row["kind"] in ROW_KINDS[command], row["kind"]
        if command in NO_TRIO_COMMANDS:
            continue
        if row["kind"] in TRIO_KINDS | TRIO_KEYED_KINDS:
            for key in TRIO:
                assert key in row, (row["kind"], key)
        if row["kind"] in TRIO_KINDS or row.get("is_subagent") is not None:
            assert isinstance(row["is_subagent"], bool)
            if not row["is_subagent"]:
                assert row["session_id"] == row["parent_session_id"]
    for row in rows:
        for where, obj in _walk(row):
            for key in [k for k in obj if k.endswith("_utc")]:
                local = key[: -len("_utc")] + "_local"
                assert local in obj, f"{where}.{key} has no {local}"
                if obj[key] is None:
                    assert obj[local] is None
                else:
                    assert LOCAL_FORM.match(obj[local]), (where, obj[local])
    return rows


def test_hits_and_siblings_carry_the_trio(cli, demo_home: Path) -> None:
    result = cli("--claude-home", str(demo_home), "search", "svalbard", "--siblings",
                 "--format", "json")
    checked = 0
    for ex in result.json_rows("exchange"):
        for obj in [*ex["hits"], *ex.get("siblings", [])]:
            assert tuple(obj[k] for k in TRIO) == tuple(ex[k] for k in TRIO)
            assert "kind" not in obj  # hit objects are not envelope rows
            checked += 1
    assert checked > 5


def test_count_only_json_is_header_and_summary(cli, demo_home: Path) -> None:
    result = cli("--claude-home", str(demo_home), "search", "epoch", "-c", "--format", "json")
    rows = result.json_rows()
    assert [r["kind"] for r in rows] == ["header", "summary"]
    assert set(rows[1]) == {"kind", "matched", "unreadable"}


def test_agents_rows_name_their_session_not_the_trio(cli, demo_home: Path) -> None:
    """agents rows carry ``session_id`` (session, run) or ``agent_id`` + ``parent_session_id``
    (agent), never the trio (wire-format §0.2), and every session row counts what follows."""
    rows = cli("--claude-home", str(demo_home), "agents", "--format", "json").json_rows()
    sessions = [r for r in rows if r["kind"] == "session"]
    assert sessions and all(set(r) == {"kind", "session_id", "runs", "agents"} for r in sessions)
    for row in rows:
        if row["kind"] == "agent":
            assert "session_id" not in row and "is_subagent" not in row
            assert row["agent_id"] and row["parent_session_id"]
    agents = [r for r in rows if r["kind"] == "agent"]
    runs = [r for r in rows if r["kind"] == "run"]
    assert sum(r["agents"] for r in sessions) == len(agents) == rows[-1]["agents"]
    assert sum(r["runs"] for r in sessions) == len(runs) == rows[-1]["runs"]
