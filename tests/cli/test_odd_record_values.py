"""Transcript values of another JSON type than the one Claude Code writes (a tool name or
a call id that is an object or a list): each is read as absent, the rest of the session
is answered, and no command prints a traceback (the record fuzz of the fz29 session)."""

from __future__ import annotations

from pathlib import Path

import pytest

import builders as b
from builders import ClaudeHome, Session

SID = "5e55a0ad-0d00-4d00-8d00-00000000f001"
CWD = "/home/ada/src/orbit"
MAIN = f"{CWD}/main.py"


def _home(tmp_path: Path, *odd: dict) -> Path:
    """A session that writes main.py, then the ``odd`` records, then edits main.py (an odd
    value is set once the record is stamped: the stamper reads the ids itself)."""
    s = Session(SID, cwd=CWD)
    s.add(b.user("write main.py"))
    s.add(b.assistant(b.tool_use("Write", {"file_path": MAIN, "content": "a\n"}, id="toolu_w")))
    s.add(b.tool_result("toolu_w", f"File created successfully at: {MAIN}",
                        tool_use_result=b.write_result(MAIN, "a\n")))
    for record in odd:
        value = record.pop("odd_use_id", None)
        stamped = s.add(record)
        if value is not None:
            stamped["message"]["content"][0]["tool_use_id"] = value
    s.add(b.assistant(b.tool_use("Edit", {"file_path": MAIN, "old_string": "a\n",
                                          "new_string": "b\n"}, id="toolu_e")))
    s.add(b.tool_result("toolu_e", f"The file {MAIN} has been updated.",
                        tool_use_result=b.edit_result(MAIN, "a\n", "b\n", "a\n")))
    home = ClaudeHome(tmp_path / "claude")
    home.session(CWD, SID, s)
    return home.root


def _call_named(name: object) -> dict:
    call = b.tool_use("Bash", {"command": f"cat {MAIN}"}, id="toolu_odd")
    call["name"] = name
    return b.assistant(call)


def _result_for(use_id: object) -> dict:
    record = b.tool_result("toolu_odd", "a", tool_use_result=b.read_result(MAIN, "a\n"))
    record["odd_use_id"] = use_id
    return record


ODD = [{"Task": "Agent"}, ["Bash"], {"Edit": "Write"}, {}]


@pytest.mark.parametrize("name", ODD)
@pytest.mark.parametrize("args", [
    ("recover", "--file", MAIN),
    ("verbatim", f"@{SID}", "--fold-index"),
    ("plan", f"@{SID}", "--audit"),
])
def test_a_tool_call_whose_name_is_no_string_names_no_tool(cli, tmp_path: Path, name: object,
                                                           args: tuple[str, ...]) -> None:
    """A name of another type had been looked up in the tool sets (unhashable: a
    TypeError), in recover's calls, the fold index's shell commands and plan's audit."""
    root = _home(tmp_path, _call_named(name), b.tool_result("toolu_odd", "a"))
    result = cli("--claude-home", str(root), *args)
    assert result.code == 0, result.stderr
    assert "Traceback" not in result.stderr


def test_recover_reads_past_a_result_whose_call_id_is_no_string(cli, tmp_path: Path) -> None:
    root = _home(tmp_path, _call_named("Read"), _result_for({"id": "toolu_odd"}))
    result = cli("--claude-home", str(root), "recover", "--file", MAIN)
    assert result.code == 0, result.stderr
    assert result.stdout == "b\n"


@pytest.mark.parametrize("args", [("search", "found"), ("status", f"@{SID}"),
                                  ("agents", f"@{SID}")])
def test_a_spawn_result_whose_status_is_no_string_is_a_return(cli, tmp_path: Path,
                                                              args: tuple[str, ...]) -> None:
    """A Task result whose ``toolUseResult.status`` was a list had been looked up in the
    launch statuses (a TypeError in the spawn scan every search of the session runs, and
    in status's returned lanes)."""
    task = b.assistant(b.tool_use("Task", {"description": "look", "prompt": "find it",
                                           "subagent_type": "general-purpose"}, id="toolu_t"))
    back = b.subagent_return("toolu_t", "found it", agent_id="a0123456789abcdef",
                             agent_type="general-purpose", prompt="find it")
    back["toolUseResult"]["status"] = ["completed"]
    root = _home(tmp_path, task, back)
    home = ClaudeHome(root)
    home.subagent(home.project_dir(CWD) / f"{SID}.jsonl", "a0123456789abcdef",
                  b.user("find it"), b.assistant("found it"),
                  meta={"agentType": "general-purpose", "description": "look"})
    result = cli("--claude-home", str(root), *args)
    assert result.code == 0, result.stderr
    assert "Traceback" not in result.stderr


CUT_ID = "toolu_01Cut\ud83d"  # an id cut inside a surrogate pair: the file holds "\ud83d"


@pytest.mark.parametrize("label", ["agent.tool.use", "agent.tool.result"])
def test_a_call_id_holding_a_lone_surrogate_is_paired_by_its_escape(cli, tmp_path: Path,
                                                                    label: str) -> None:
    """The id was encoded strictly for the byte search of its partner (a
    UnicodeEncodeError); it is searched as the file spells it, so the pair still joins."""
    call = b.assistant(b.tool_use("Read", {"file_path": MAIN}, id=CUT_ID))
    back = b.tool_result(CUT_ID, "1\tfound a", tool_use_result=b.read_result(MAIN, "a\n"))
    root = _home(tmp_path, call, back)
    assert b"\\ud83d" in next((root / "projects").rglob("*.jsonl")).read_bytes()
    result = cli("--claude-home", str(root), "search", "found|main", "-t", label,
                 "--format", "json")
    assert result.code == 0, result.stderr
    hits = [hit for row in result.json_rows("exchange") for hit in row["hits"]
            if hit["tool_use_id"] == "toolu_01Cut\\ud83d"]
    assert [hit["pairing"] for hit in hits] == ["paired"]


def test_recover_reads_past_a_result_whose_call_id_holds_a_lone_surrogate(cli, tmp_path: Path
                                                                          ) -> None:
    """The result names no path: it is found by its call's id, which orjson refused to
    spell (a TypeError)."""
    call = b.assistant(b.tool_use("Read", {"file_path": MAIN}, id=CUT_ID))
    root = _home(tmp_path, call, b.tool_result(CUT_ID, "1\ta"))
    result = cli("--claude-home", str(root), "recover", "--file", MAIN)
    assert result.code == 0, result.stderr
    assert result.stdout == "b\n"

