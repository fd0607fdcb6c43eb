"""Every command numbers turns alike: the byte shortcut that skips plain tool_result
carriers (list, show --turn, stats, search -t user / -c) agrees with a full decode
(``search ''``) on the carrier shapes a randomized cross-command fuzz found them to
disagree on."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import (
    REJECTION_PREFIX,
    REJECTION_SAID,
    ClaudeHome,
    Session,
    assistant,
    tool_use,
    user,
)

S1 = "21212121-1111-4111-8111-111111111111"
S2 = "23232323-1111-4111-8111-111111111111"
CWD = "/w/agree"


def _two_block_rejection(session: Session) -> None:
    """A parallel call answered in ONE record: a long Bash output, then a rejection with
    typed text in the second block."""
    session.add(assistant(tool_use("Bash", {"command": "ls"}, id="toolu_a1"),
                          tool_use("Edit", {"file_path": "/x"}, id="toolu_a2")))
    session.add({"type": "user", "message": {"role": "user", "content": [
        {"tool_use_id": "toolu_a1", "type": "tool_result", "content": "line of output\n" * 200},
        {"tool_use_id": "toolu_a2", "type": "tool_result", "is_error": True,
         "content": REJECTION_PREFIX + REJECTION_SAID + "keep the tabs"}]}})
    session.add(assistant("keeping the tabs"))


@pytest.fixture
def home(tmp_path: Path) -> ClaudeHome:
    h = ClaudeHome(tmp_path / "claude")
    s = Session(S1, cwd=CWD)
    s.add(user("reformat the module"))
    _two_block_rejection(s)
    h.session(CWD, S1, s)
    t = Session(S2, cwd=CWD)
    t.add(user("start here"))
    t.add(assistant("ok"))
    t.add(user("tool_result"))  # a prompt that merely reads like a block type
    t.add(assistant("that is a block type"))
    t.add(user("a draft I recalled"), parent=t.last_uuid)
    t.add(user("the message I sent"), parent=t.records[-1]["parentUuid"])
    h.session(CWD, S2, t)
    return h


def test_a_rejection_in_a_second_block_opens_turn_1_everywhere(cli, home: ClaudeHome) -> None:
    root = ("--claude-home", str(home.root))
    full = cli(*root, "search", "", f"@{S1}", "-t", "user", "--format", "json")
    assert [(x["turn_index"], x["hits"][0]["label"]) for x in full.json_rows("exchange")] == [
        (0, "user.message"), (1, "user.rejection")]
    assert cli(*root, "search", "tabs", f"@{S1}", "-t", "user", "-c").stdout.split()[-1] == "1"
    shown = cli(*root, "show", f"@{S1}", "--turn", "1")
    assert shown.code == 0, shown.stderr
    assert "keep the tabs" in shown.stdout
    [row] = cli(*root, "stats", f"@{S1}", "--format", "json").json_rows("session")
    assert row["turns"] == 2
    [listed] = [r for r in cli(*root, "list", "--format", "json").json_rows("session")
                if r["session_id"] == S1]
    assert listed["last_user"]["excerpt"] == "keep the tabs"


def test_a_prompt_reading_tool_result_is_a_human_turn_everywhere(cli, home: ClaudeHome) -> None:
    root = ("--claude-home", str(home.root))
    full = cli(*root, "search", "", f"@{S2}", "-t", "user,user.unsent", "--format", "json")
    hits = [(x["turn_index"], x["hits"][0]["label"]) for x in full.json_rows("exchange")]
    assert hits == [(0, "user.message"), (1, "user.message"), (None, "user.unsent"),
                    (2, "user.message")]
    [row] = cli(*root, "stats", f"@{S2}", "--format", "json").json_rows("session")
    assert row["turns"] == 3
    shown = cli(*root, "show", f"@{S2}", "--turn", "1")
    assert shown.code == 0 and "tool_result" in shown.stdout
    counted = cli(*root, "search", "", f"@{S2}", "-t", "user", "-c")
    assert counted.stdout.split()[-1] == "3"
