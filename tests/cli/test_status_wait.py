"""``status`` and ``wait`` through the CLI: flags, help, bad input as one clear line."""

from __future__ import annotations

import pytest

from builders import ClaudeHome, Session, assistant, user

SID = "3f6c1e2a-8b4d-4c7e-9a15-2d8e0b7f4c61"
CWD = "/home/ada/src/orbit"


@pytest.fixture
def done_home(home: ClaudeHome) -> ClaudeHome:
    s = Session(SID, cwd=CWD)
    s.add(user("hi"))
    s.add(assistant("done"))
    home.session(CWD, SID, s)
    return home


def _one_line_error(result, code: int = 2) -> str:  # type: ignore[no-untyped-def]
    assert result.code == code, (result.code, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("pysift: error: ")
    assert "Traceback" not in result.stderr
    return lines[0]


def test_status_json_envelope(cli, done_home: ClaudeHome) -> None:
    result = cli("--claude-home", str(done_home.root), "status", f"@{SID}", "--format", "json")
    assert result.code == 0, result.stderr
    rows = result.json_rows()
    assert [r["kind"] for r in rows] == ["header", "verdict", "summary"]
    assert rows[0] == {"kind": "header", "command": "status", "session_id": SID,
                       "is_subagent": False, "parent_session_id": SID}
    assert rows[2] == {"kind": "summary", "verdict": "idle-eot", "unreadable": 0}
    assert set(rows[1]) == {"kind", "verdict", "evidence", "children", "settled_children",
                            "tasks", "tasks_completed", "pending", "background", "last",
                            "tail_state", "notes"}


def test_status_text_head(cli, done_home: ClaudeHome) -> None:
    result = cli("--claude-home", str(done_home.root), "status", f"@{SID[:8]}")
    assert result.code == 0
    assert result.stdout.startswith(f"STATUS  {SID}\nverdict  idle-eot\n\n  tail      ")


def test_status_without_target(cli, done_home: ClaudeHome) -> None:
    line = _one_line_error(cli("--claude-home", str(done_home.root), "status"))
    assert "status needs a target" in line


def test_status_with_two_targets(cli, done_home: ClaudeHome) -> None:
    line = _one_line_error(cli("--claude-home", str(done_home.root), "status", f"@{SID}",
                               f"@{SID}"))
    assert "exactly one session per call" in line


def test_status_bad_background_since(cli, done_home: ClaudeHome) -> None:
    line = _one_line_error(cli("--claude-home", str(done_home.root), "status", f"@{SID}",
                               "--background-since", "tomorrowish"))
    assert "--background-since" in line


def test_status_bad_ignore_regex(cli, done_home: ClaudeHome) -> None:
    line = _one_line_error(cli("--claude-home", str(done_home.root), "status", f"@{SID}",
                               "--ignore-background", "a(b"))
    assert "--ignore-background: bad regex `a(b`" in line


def test_status_unknown_session(cli, done_home: ClaudeHome) -> None:
    result = cli("--claude-home", str(done_home.root), "status", "@deadbeef")
    assert result.code == 1 and "Traceback" not in result.stderr


def test_wait_without_timeout(cli, done_home: ClaudeHome) -> None:
    line = _one_line_error(cli("--claude-home", str(done_home.root), "wait", f"@{SID}",
                               "--until", "stop"))
    assert "wait needs --timeout SECONDS" in line and "never to return" in line


def test_wait_unknown_condition_names_the_set(cli, done_home: ClaudeHome) -> None:
    line = _one_line_error(cli("--claude-home", str(done_home.root), "wait", f"@{SID}",
                               "--until", "finished", "--timeout", "5"))
    assert ("unknown condition `finished`; the conditions are stop | hitl | auq | "
            "notification[:RE] | tool:NAME[:RE] | write:PATH_RE[:LINE_RE] | verdict:V") in line


def test_wait_bad_regex(cli, done_home: ClaudeHome) -> None:
    line = _one_line_error(cli("--claude-home", str(done_home.root), "wait", f"@{SID}",
                               "--until", "write:[a-", "--timeout", "5"))
    assert "--until write: bad regex `[a-`" in line


@pytest.mark.parametrize("value", ["0", "-3", "soon", "inf", "nan"])
def test_wait_bad_timeout(cli, done_home: ClaudeHome, value: str) -> None:
    line = _one_line_error(cli("--claude-home", str(done_home.root), "wait", f"@{SID}",
                               "--until", "stop", f"--timeout={value}"))
    assert "--timeout" in line


def test_wait_without_condition(cli, done_home: ClaudeHome) -> None:
    line = _one_line_error(cli("--claude-home", str(done_home.root), "wait", f"@{SID}",
                               "--timeout", "5"))
    assert "at least one --until" in line


def test_wait_fires_and_prints_readiness_on_stderr(cli, done_home: ClaudeHome) -> None:
    result = cli("--claude-home", str(done_home.root), "wait", f"@{SID}", "--until", "stop",
                 "--timeout", "5", "--format", "json")
    assert result.code == 0, result.stderr
    assert result.stderr.startswith("pysift: watching 1 file(s) from byte offsets; "
                                    "conditions: stop; timeout 5s")
    rows = result.json_rows()
    assert len(rows) == 1 and rows[0]["kind"] == "wait" and rows[0]["fired"] == "stop"


def test_wait_timeout_exits_124_with_the_report(cli, done_home: ClaudeHome) -> None:
    result = cli("--claude-home", str(done_home.root), "wait", f"@{SID}", "--until",
                 "tool:Bash", "--timeout", "0.3", "--background-since", "now")
    assert result.code == 124
    assert result.stdout.startswith("fired    timeout\nverdict  idle-eot\nwaited   0s\n")
    assert "; lens --background-since now" in result.stderr


@pytest.mark.parametrize("command", ["status", "wait"])
def test_help_has_examples_and_schema(cli, command: str) -> None:
    result = cli(command, "--help")
    assert result.code == 0
    assert "EXAMPLES" in result.stdout and "JSON" in result.stdout
    assert f"pysift {command} @" in result.stdout


def test_commands_are_registered_in_spec_order(cli) -> None:
    result = cli("--help")
    text = result.stdout
    assert text.index("plan") < text.index("status") < text.index("wait")


def test_a_workflow_agent_with_a_journal_result_is_done_whatever_its_tail(
        cli, home: ClaudeHome) -> None:
    """Its last call (StructuredOutput) is never answered in the lane; the journal holds
    its result. `status` said `running` (a hook waiting on it would wait forever), while
    `agents` and the session's own status called it completed."""
    from builders import journal_result, journal_started, tool_use

    s = Session(SID, cwd=CWD)
    s.add(user("run the workflow"))
    s.add(assistant("started"))
    path = home.session(CWD, SID, s)
    lane = "ffff6666ffff6666f"
    home.subagent(path, lane, user("wf prompt"),
                  assistant(tool_use("StructuredOutput", {"ok": True}, id="toolu_so")),
                  workflow="wf_1")
    home.journal(path, "wf_1", [journal_started(lane, "k1"),
                                journal_result(lane, "k1", {"ok": True})])
    result = cli("--claude-home", str(home.root), "status", f"@{lane}", "--format", "json")
    assert result.code == 0
    [row] = result.json_rows("verdict")
    assert row["verdict"] == "idle-eot"
    assert any("the workflow journal holds its result" in n for n in row["notes"])
