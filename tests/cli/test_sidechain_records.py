"""Claude Code 1.x and 2.0.x wrote some subagent records into the MAIN session file, marked
``isSidechain:true``: the "Warmup" agent at session start, a Task subagent's prompt and
replies. They are the subagent's: no turn of the session opens on them and none is the
human's message, so every command numbers the same two turns here and names the same
human prompts; a subagent transcript (every record flagged) reads as it always did."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import ClaudeHome, Session, assistant, tool_result, tool_use, user

SID = "5e5e5e5e-1111-4111-8111-111111111111"
WARM = "6f6f6f6f-1111-4111-8111-111111111111"
CWD = "/w/side"
LANE = "a3c8e1f20b9d4e657"
TASK_PROMPT = "List every lint config"


def _session() -> Session:
    s = Session(SID, cwd=CWD, version="2.0.21")
    s.add(user("Warmup", isSidechain=True), parent=None)                          # L1
    s.add(assistant("I'm ready to help you search the codebase.", isSidechain=True))  # L2
    s.add(user("configure the linter"), parent=None)                              # L3 t0
    s.add(assistant(tool_use("Task", {"subagent_type": "Explore", "description": "configs",
                                      "prompt": TASK_PROMPT}, id="toolu_task")))  # L4
    s.add(user(TASK_PROMPT, isSidechain=True), parent=None)                       # L5
    s.add(assistant(tool_use("Glob", {"pattern": "**/*.toml"}, id="toolu_glob"),
                    isSidechain=True))                                            # L6
    s.add(tool_result("toolu_glob", ".ruff.toml", isSidechain=True))              # L7
    s.add(assistant("Found .ruff.toml", isSidechain=True))                        # L8
    s.add(tool_result("toolu_task", "Found .ruff.toml"))                          # L9
    s.add(assistant("The config is .ruff.toml."))                                 # L10
    s.add(user("now fix the warnings"))                                           # L11 t1
    s.add(assistant("Fixed them."))                                               # L12
    return s


@pytest.fixture
def home(tmp_path: Path) -> ClaudeHome:
    h = ClaudeHome(tmp_path / "claude")
    path = h.session(CWD, SID, _session())
    h.subagent(path, LANE, user("Find the flaky test"), assistant("It is test_clock."),
               user("and fix it"), assistant("Fixed."))
    w = Session(WARM, cwd=CWD, version="2.0.21")
    w.add(user("Warmup", isSidechain=True), parent=None)
    w.add(assistant("I'm ready.", isSidechain=True))
    h.session(CWD, WARM, w)
    return h


def _root(home: ClaudeHome) -> tuple[str, str]:
    return ("--claude-home", str(home.root))


def test_every_command_numbers_the_same_two_turns(cli, home: ClaudeHome) -> None:
    root = _root(home)
    [row] = cli(*root, "stats", f"@{SID}", "--no-subagents", "--format", "json"
                ).json_rows("session")
    assert row["turns"] == 2
    said = cli(*root, "search", "", f"@{SID}", "--no-subagents", "-t", "user",
               "--format", "json")
    assert [(x["turn_index"], h["line"], h["label"]) for x in said.json_rows("exchange")
            for h in x["hits"]] == [(0, 3, "user.message"), (1, 11, "user.message")]
    counted = cli(*root, "search", "", f"@{SID}", "--no-subagents", "-t", "user", "-c")
    assert counted.stdout.split()[-1] == "2"
    shown = cli(*root, "show", f"@{SID}", "--turn", "0..", "--max-count", "0",
                "--format", "json").json_rows("record")
    turns = {r["line"]: r["turn_index"] for r in shown}
    assert turns[1] == turns[5] == turns[9] == 0  # the Task's result stays with its call
    assert turns[11] == 1 and max(turns.values()) == 1
    assert cli(*root, "show", f"@{SID}", "--turn", "2").code != 0  # no third turn
    verbatim = cli(*root, "verbatim", f"@{SID}", "--format", "json").json_rows("turn")
    assert [(t["turn_index"], t["text"]) for t in verbatim if t["role"] == "user"] == [
        (0, "configure the linter"), (1, "now fix the warnings")]
    assert [t["text"] for t in verbatim if t["role"] == "assistant"] == [
        "The config is .ruff.toml.", "Fixed them."]  # not the subagents' words


def test_the_subagent_prompts_are_their_inbox_not_the_human_s(cli, home: ClaudeHome) -> None:
    root = _root(home)
    inbox = cli(*root, "search", "", f"@{SID}", "--no-subagents", "-t",
                "agent.communication.inbox", "--format", "json")
    hits = [h for x in inbox.json_rows("exchange") for h in x["hits"]]
    assert [(h["line"], h["excerpt"], h["from"], h["to"]) for h in hits] == [
        (1, "Warmup", "self", "?"), (5, TASK_PROMPT, "self", "?")]
    census = cli(*root, "search", "", f"@{SID}", "--no-subagents", "--count-by", "label",
                 "--format", "json").json_rows()
    counts = {r["key"]: r["records"] for r in census if r.get("kind") == "census"}
    assert counts["user.message"] == 2 and counts["agent.communication.inbox"] == 2
    [listed] = [r for r in cli(*root, "list", "--format", "json").json_rows("session")
                if r["session_id"] == SID]
    assert (listed["first_user"]["excerpt"], listed["last_user"]["excerpt"]) == (
        "configure the linter", "now fix the warnings")


def test_a_session_of_only_the_warmup_agent_has_no_human_message(cli, home: ClaudeHome) -> None:
    root = _root(home)
    [listed] = [r for r in cli(*root, "list", "--format", "json").json_rows("session")
                if r["session_id"] == WARM]
    assert listed["first_user"] is None and listed["last_user"] is None
    found = cli(*root, "search", "", f"@{WARM}", "-t", "user", "--format", "json")
    assert found.json_rows("exchange") == []
    [row] = cli(*root, "stats", f"@{WARM}", "--format", "json").json_rows("session")
    assert row["turns"] == 1


def test_a_subagent_transcript_reads_as_before(cli, home: ClaudeHome) -> None:
    root = _root(home)
    said = cli(*root, "search", "", f"@{LANE}", "--format", "json")
    hits = [(x["turn_index"], h["line"], h["label"]) for x in said.json_rows("exchange")
            for h in x["hits"]]
    assert hits == [(0, 1, "agent.communication.inbox"), (0, 2, "agent.message"),
                    (1, 3, "user.message"), (1, 4, "agent.message")]
    [row] = cli(*root, "stats", f"@{LANE}", "--format", "json").json_rows("session")
    assert row["turns"] == 2


def test_a_subagents_reply_in_the_main_transcript_is_no_last_agent_message(
        cli, home: ClaudeHome) -> None:
    """A session of only the Warmup agent: its reply was the session's last ▸."""
    root = _root(home)
    [listed] = [r for r in cli(*root, "list", "--format", "json").json_rows("session")
                if r["session_id"] == WARM]
    assert listed["last_agent"] is None
    status = cli(*root, "status", f"@{WARM}", "--format", "json")
    assert "I'm ready." not in status.stdout


def test_agents_says_when_a_session_ran_its_subagents_inside_its_own_transcript(
        cli, tmp_path: Path) -> None:
    """Claude Code 1.x wrote a Task subagent's prompt and replies into the session's own
    file and no subagent transcript: `agents` answered "no subagents found" and nothing
    else (the real 1.0.90 session e1ffaf02 ran four). It still lists lanes only, and says
    how many subagent prompts the transcript holds and where to read them (twenty-third
    session)."""
    h = ClaudeHome(tmp_path / "claude")
    s = Session(SID, cwd=CWD, version="1.0.90")
    s.add(user("Warmup", isSidechain=True), parent=None)  # 2.0.x's start-up ping: no prompt
    s.add(assistant("I'm ready.", isSidechain=True))
    s.add(user("configure the linter"), parent=None)
    for n, prompt in enumerate((TASK_PROMPT, "List every test config")):
        s.add(assistant(tool_use("Task", {"description": "configs", "prompt": prompt},
                                 id=f"toolu_task{n}")))
        s.add(user(prompt, isSidechain=True), parent=None)
        s.add(assistant("Found .ruff.toml", isSidechain=True))
        s.add(tool_result(f"toolu_task{n}", "Found .ruff.toml"))
    s.add(assistant("The config is .ruff.toml."))
    h.session(CWD, SID, s)
    result = cli("--claude-home", str(h.root), "agents", f"@{SID}")
    assert result.code == 0, result.stderr
    assert "no subagents found" in result.stdout
    assert (f"@{SID} holds 2 subagent prompt(s) inside its own transcript" in result.stderr)
    assert f"pysift search @{SID} -t agent.communication" in result.stderr
    as_json = cli("--claude-home", str(h.root), "agents", f"@{SID}", "--format", "json")
    assert as_json.code == 0 and "2 subagent prompt(s)" in as_json.stderr


def test_agents_says_nothing_of_a_session_with_subagent_transcripts(cli, home: ClaudeHome
                                                                    ) -> None:
    """The inline records of a session that has lanes (2.0.x wrote both) add no note."""
    result = cli(*_root(home), "agents", f"@{SID}")
    assert result.code == 0 and LANE in result.stdout
    assert "inside its own transcript" not in result.stderr
