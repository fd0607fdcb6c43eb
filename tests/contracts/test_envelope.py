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
    "recover": {"restore", "coverage", "segment", "boundary", "snapshot", "backup"},
    "stats": {"session"},
    "plan": {"plan", "binding", "plan-edit"},
    "whoami": {"identity"},
    "agents": {"session", "run", "agent"},
    "files": {"bucket", "dir", "file", "mutation", "boundary"},
    "image": {"image", "extract"},
    "verbatim": {"turn", "compaction_boundary", "collapsed_agents"},
    "status": {"verdict"},
    "archive": {"file"},
    "cache": {"facet"},
}
#: row kinds that name a transcript and must carry the trio (wire-format §0.2); agents rows
#: name theirs by session_id / agent_id alone (checked below)
TRIO_KINDS = {"session", "exchange", "record", "block", "plan", "binding", "bucket", "dir",
              "file", "mutation", "boundary", "coverage", "segment", "snapshot", "image",
              "extract", "turn", "collapsed_agents"}
# status carries the trio in its header; archive's rows are files of a session_id
NO_TRIO_COMMANDS = {"agents", "status", "archive", "cache"}
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
    ("recover", "--file", "/home/ada/src/orbit/src/orbit/tle.py"),
    ("recover", "--file", "src/orbit/cli.py", "--coverage"),
    ("recover", "--file", "cli.py", "--patches"),
    ("recover", f"@{LONG}", "--file", "cli.py", "--at", "@turn:3"),
    ("recover", "--file", "/home/ada/src/orbit/pyproject.toml", "--salvage"),
    ("recover", "--file", "/nowhere/at/all.py", "--dry-run"),
    ("recover", "--file", "/home/ada/src/orbit/src/orbit/tle.py", "--list-backups"),
    ("verbatim", f"@{LONG}"),
    ("verbatim", f"@{LONG}", "--budget", "3000", "--agent-msgs", "all"),
    ("verbatim", f"@{LONG}", "--subagents", "--turn", "-3.."),
    ("image",),
    ("image", f"@{LONG}", "--no-subagents", "--id", "1"),
    ("image", "--since", "2026-10-07"),
    ("status", f"@{LONG}"),
    ("status", f"@{EXPLORE}"),
    ("status", f"@{LONG}", "--background-since", "2026-10-06", "--no-subagents"),
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


@pytest.mark.parametrize("args", INVOCATIONS, ids=" ".join)
def test_envelope(cli, demo_home: Path, monkeypatch: pytest.MonkeyPatch,
                  args: tuple[str, ...]) -> None:
    if args[0] in CALLING:
        monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", LONG)
    result = cli("--claude-home", str(demo_home), *args, "--format", "json")
    _check_envelope(result, args[0])


@pytest.mark.parametrize("args", [(), (f"@{LONG}",), ("--dry-run",), (f"@{EXPLORE}",)],
                         ids=lambda a: " ".join(("archive", "DEST", *a)))
def test_archive_envelope(cli, demo_home: Path, tmp_path: Path, args: tuple[str, ...]) -> None:
    for _ in range(2):  # a first run copies, a second finds everything archived
        result = cli("--claude-home", str(demo_home), "archive", str(tmp_path / "arc"), *args,
                     "--format", "json")
        rows = _check_envelope(result, "archive")
        assert len(rows) == rows[0]["files_in_scope"] + 2


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


def test_image_extraction_envelope(cli, demo_home: Path, tmp_path: Path) -> None:
    result = cli("--claude-home", str(demo_home), "image", f"@{LONG}", "--out",
                 str(tmp_path / "imgs"), "--format", "json")
    assert result.code == 0, result.stderr
    rows = result.json_rows()
    assert [r["kind"] for r in rows] == ["header", "extract", "summary"]
    assert rows[0] == {"kind": "header", "command": "image"}
    assert tuple(rows[1][k] for k in TRIO) == (LONG, False, LONG)
    assert set(rows[2]) == {"kind", "extracted", "url_skipped", "no_bytes_skipped",
                            "failed", "skipped_lines", "unreadable"}


def test_status_header_carries_the_trio(cli, demo_home: Path) -> None:
    rows = cli("--claude-home", str(demo_home), "status", f"@{EXPLORE}", "--format",
               "json").json_rows()
    assert {k: rows[0][k] for k in TRIO} == {"session_id": EXPLORE, "is_subagent": True,
                                            "parent_session_id": LONG}
    assert set(rows[-1]) == {"kind", "verdict", "unreadable"}


def test_wait_prints_one_bare_object(cli, demo_home: Path) -> None:
    """wait is the one command without the envelope (wire-format §0.1): a single
    ``{"kind":"wait"}`` object, on a fired condition and on a timeout alike."""
    for until, code in (("verdict:waiting-hitl", 0), ("tool:Nothing", 124)):
        result = cli("--claude-home", str(demo_home), "wait", f"@{LONG}", "--until", until,
                     "--timeout", "0.2", "--format", "json")
        assert result.code == code, result.stderr
        rows = result.json_rows()
        assert len(rows) == 1 and rows[0]["kind"] == "wait"
        for where, obj in _walk(rows[0]):
            for key in [k for k in obj if k.endswith("_utc")]:
                assert key[: -len("_utc")] + "_local" in obj, where


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


@pytest.mark.parametrize("args, reason", [
    (("--file", "/home/ada/src/orbit/pyproject.toml"), "invalidated"),
    (("--file", "/nowhere/at/all.py"), "no-history"),
])
def test_recover_error_paths_close_the_envelope(cli, demo_home: Path, args: tuple[str, ...],
                                                reason: str) -> None:
    """A restore that fails still prints header, its restore row and the summary before
    the non-zero exit (wire-format §8)."""
    result = cli("--claude-home", str(demo_home), "recover", *args, "--format", "json")
    assert result.code == 1
    kinds = [r["kind"] for r in result.json_rows()]
    assert kinds == ["header", "restore", "summary"]
    assert result.json_rows("restore")[0]["reason"] == reason
    assert result.summary()["sessions"] == 0


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
