"""commands.whoami: rows, lane honesty, notes, the refused inputs (SPEC §6.3, §6.3a)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from builders import ClaudeHome, assistant, tool_use, user
from pysift.commands.whoami import WhoamiOptions, run
from pysift.errors import TargetError
from pysift.model.env import Env

S1 = "11111111-1111-4111-8111-111111111111"
AGENT = "a4ca7529859c158c2"
MARKER = "VelvetOtterQuarry3917"
CWD = "/w/proj"


def env_of(home: ClaudeHome, **environ: str) -> Env:
    return Env(claude_home=home.root, environ=environ, cwd=Path("/nowhere"))


def text_of(report) -> str:
    out = io.StringIO()
    report.text(out)
    return out.getvalue()


def test_env_form_row_and_text(home: ClaudeHome) -> None:
    path = home.session(CWD, S1, user("hi"))
    report = run(WhoamiOptions(), env_of(home, CLAUDE_CODE_SESSION_ID=S1))
    assert report.rows == [{"kind": "identity", "session_id": S1, "is_subagent": None,
                            "parent_session_id": None, "depth": None, "path": str(path)}]
    assert report.summary == {"identities": 1}
    assert report.exit_code == 0
    text = text_of(report)
    assert text.startswith(f"session  {S1}\nlane     unknown from the environment alone")
    assert text.endswith(f"path     {path}\n")
    assert any("TOP-LEVEL" in n for n in report.notes)
    assert any("found by scanning every project dir" in n for n in report.notes)


def test_a_session_in_two_project_dirs_is_the_one_written_last_and_both_are_named(
        home: ClaudeHome) -> None:
    """A copied project holds the session twice: the copy Claude Code is writing is the
    caller's, and the other one is named, not passed over in silence."""
    import os

    live = home.session("/w/zz-new", S1, user("hi"))
    stale = home.session("/w/aa-old", S1, user("hi"))
    os.utime(stale, ns=(1_000_000_000, 1_000_000_000))  # the stale copy sorts first
    report = run(WhoamiOptions(), env_of(home, CLAUDE_CODE_SESSION_ID=S1))
    assert report.rows[0]["path"] == str(live)
    assert any(f"1 other copy(ies) of it: {stale}" in n for n in report.notes)


def test_at_main_is_the_env_form_with_the_main_lane_note(home: ClaudeHome) -> None:
    home.session(CWD, S1, user("hi"))
    report = run(WhoamiOptions(token="@main"), env_of(home, CLAUDE_CODE_SESSION_ID=S1))
    assert report.rows[0]["session_id"] == S1 and report.rows[0]["depth"] is None
    assert report.notes[0].startswith("note: @main resolved the TOP-LEVEL session via env")


def test_unknown_id_prints_the_identity_and_succeeds(home: ClaudeHome) -> None:
    home.session(CWD, S1, user("hi"))
    other = "33333333-3333-4333-8333-333333333333"
    report = run(WhoamiOptions(), env_of(home, CLAUDE_CODE_SESSION_ID=other))
    assert report.exit_code == 0
    assert report.rows[0]["path"] is None
    assert "path     <not found under" in text_of(report)
    assert any("check --claude-home" in n for n in report.notes)


def test_no_variable_is_an_actionable_error(home: ClaudeHome) -> None:
    home.session(CWD, S1, user("hi"))
    with pytest.raises(TargetError, match="pysift will not guess") as caught:
        run(WhoamiOptions(), env_of(home))
    assert "pysift search" in str(caught.value)
    with pytest.raises(TargetError, match="neither CLAUDE_CODE_SESSION_ID"):
        run(WhoamiOptions(token=f"@trap:{MARKER}"), env_of(home))


def test_a_non_uuid_variable_is_refused(home: ClaudeHome) -> None:
    with pytest.raises(TargetError, match="is not a session uuid"):
        run(WhoamiOptions(), env_of(home, CLAUDE_CODE_SESSION_ID="SECURITYSESSION"))


@pytest.mark.parametrize("token", [f"@{S1}", "@1111", ".", "/w/proj", "x.jsonl"])
def test_other_targets_are_refused(home: ClaudeHome, token: str) -> None:
    with pytest.raises(TargetError, match="whoami takes no target but `@main` or `@trap"):
        run(WhoamiOptions(token=token), env_of(home, CLAUDE_CODE_SESSION_ID=S1))


@pytest.mark.parametrize("marker", ["JollyShinyBrook4283", "Short1234x", "TwoWords5819",
                                    "AlphaBetaGamma1234", "HTMLParserFlow5812"])
def test_a_marker_breaking_the_grammar_is_refused(home: ClaudeHome, marker: str) -> None:
    with pytest.raises(TargetError, match="@trap"):
        run(WhoamiOptions(token=f"@trap:{marker}"), env_of(home, CLAUDE_CODE_SESSION_ID=S1))


def test_trap_rows_and_text(home: ClaudeHome) -> None:
    main = home.session(CWD, S1, user("go"), assistant(tool_use("Task", {"prompt": "p"}, id="tk")))
    agent = home.subagent(main, AGENT, user("task"),
                          assistant(tool_use("Bash", {"command": f"pysift whoami @trap:{MARKER}"})),
                          meta={"toolUseId": "tk"})
    report = run(WhoamiOptions(token=f"@trap:{MARKER}"), env_of(home, CLAUDE_CODE_SESSION_ID=S1))
    assert report.rows == [
        {"kind": "identity", "session_id": AGENT, "is_subagent": True, "parent_session_id": S1,
         "depth": 0, "path": str(agent)},
        {"kind": "identity", "session_id": S1, "is_subagent": False, "parent_session_id": S1,
         "depth": 1, "path": str(main)},
    ]
    assert text_of(report) == (
        f"subagent {AGENT}  <- you (@trap:{MARKER})\n"
        f"session  {S1}  ^ top-level root (depth 1)\n"
        f"path     {agent}\n"
    )


def test_trap_matching_two_lanes_is_ambiguous(home: ClaudeHome) -> None:
    main = home.session(CWD, S1, user("go"))
    for agent in (AGENT, "a0e6e567ae29721a6"):
        home.subagent(main, agent, assistant(tool_use(
            "Bash", {"command": f"pysift whoami @trap:{MARKER}"})))
    with pytest.raises(TargetError, match="AMBIGUOUS"):
        run(WhoamiOptions(token=f"@trap:{MARKER}"), env_of(home, CLAUDE_CODE_SESSION_ID=S1))
