"""whoami: the env identity and the @trap ancestry walk (SPEC §6.3, §6.3a)."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import ClaudeHome, assistant, tool_use, user
from pysift.engines.whoami import ancestry, whoami_from_env, whoami_from_trap
from pysift.errors import TargetError
from pysift.model.env import Env

S1 = "11111111-1111-4111-8111-111111111111"
AGENT = "a4ca7529859c158c2"
CHILD = "a0e6e567ae29721a6"
GRANDCHILD = "a52886dc180afb356"
MATE = "aReviewer-68a2a1661c9390c1"
MARKER = "CopperLanternMoss5820"
CWD = "/w/proj"


def shell(command: str, id: str = "toolu_sh") -> dict:  # noqa: A002
    return assistant(tool_use("Bash", {"command": command}, id=id))


def spawn(id: str, name: str | None = None) -> dict:  # noqa: A002
    payload = {"description": "go", "prompt": "do it", "subagent_type": "general-purpose"}
    if name:
        payload["name"] = name
    return assistant(tool_use("Task", payload, id=id))


def env_for(home: ClaudeHome, cwd: str = "/nowhere", **environ: str) -> Env:
    return Env(claude_home=home.root, environ=environ, cwd=Path(cwd))


def nested_home(home: ClaudeHome) -> Path:
    """main -> AGENT (toolUseId) -> CHILD (toolUseId) -> GRANDCHILD (parentAgentId)."""
    main = home.session(CWD, S1, user("start"), spawn("toolu_a"))
    home.subagent(main, AGENT, user("task"), spawn("toolu_c"), meta={"toolUseId": "toolu_a"})
    home.subagent(main, CHILD, user("sub task"), meta={"toolUseId": "toolu_c"})
    home.subagent(main, GRANDCHILD, user("deep"), shell(f"pysift whoami @trap:{MARKER}"),
                  meta={"parentAgentId": CHILD})
    return main


def test_env_form_reads_the_variable_and_leaves_the_lane_unknown(home: ClaudeHome) -> None:
    main = home.session(CWD, S1, user("hi"))
    answer = whoami_from_env(env_for(home, CLAUDE_CODE_SESSION_ID=S1))
    [only] = answer.identities
    assert (only.session_id, only.path) == (S1, main)
    assert (only.is_subagent, only.parent_session_id, only.depth) == (None, None, None)
    assert answer.source == "CLAUDE_CODE_SESSION_ID"
    assert not answer.found_in_cwd_project


def test_env_form_prefers_the_canonical_variable_and_finds_the_cwd_project(
        home: ClaudeHome, tmp_path: Path) -> None:
    cwd = tmp_path / "w" / "proj"
    cwd.mkdir(parents=True)
    home.session(str(cwd), S1, user("hi"))
    answer = whoami_from_env(env_for(home, str(cwd), CLAUDE_CODE_SESSION_ID=S1,
                                     CODEX_COMPANION_SESSION_ID="22222222-2222-4222-8222-222222222222"))
    assert answer.identities[0].session_id == S1
    assert answer.found_in_cwd_project
    alias = whoami_from_env(env_for(home, CODEX_COMPANION_SESSION_ID=S1))
    assert alias.source == "CODEX_COMPANION_SESSION_ID"


def test_env_form_without_a_file_keeps_the_id_and_no_path(home: ClaudeHome) -> None:
    home.session(CWD, S1, user("hi"))
    other = "33333333-3333-4333-8333-333333333333"
    [only] = whoami_from_env(env_for(home, CLAUDE_CODE_SESSION_ID=other)).identities
    assert (only.session_id, only.path) == (other, None)


def test_env_form_never_guesses(home: ClaudeHome) -> None:
    home.session(CWD, S1, user("hi"))
    with pytest.raises(TargetError, match="Do NOT trust the most-recent-mtime"):
        whoami_from_env(env_for(home))


def test_trap_walks_up_to_the_root_self_first(home: ClaudeHome) -> None:
    main = nested_home(home)
    answer = whoami_from_trap(MARKER, env_for(home, CLAUDE_CODE_SESSION_ID=S1))
    rows = [(i.session_id, i.is_subagent, i.parent_session_id, i.depth) for i in answer.identities]
    assert rows == [(GRANDCHILD, True, S1, 0), (CHILD, True, S1, 1), (AGENT, True, S1, 2),
                    (S1, False, S1, 3)]
    assert answer.identities[-1].path == main
    assert answer.identities[0].path is not None and answer.identities[0].path.name == (
        f"agent-{GRANDCHILD}.jsonl")


def test_a_teammate_is_linked_by_its_spawn_name(home: ClaudeHome) -> None:
    main = home.session(CWD, S1, user("start"), spawn("toolu_a"))
    home.subagent(main, AGENT, user("task"), spawn("toolu_m", name="Reviewer"),
                  meta={"toolUseId": "toolu_a"})
    home.subagent(main, MATE, user("review"), shell(f"pysift whoami @trap:{MARKER}"),
                  meta={"name": "Reviewer"})
    ids = [i.session_id for i in whoami_from_trap(MARKER, env_for(
        home, CLAUDE_CODE_SESSION_ID=S1)).identities]
    assert ids == [MATE, AGENT, S1]


def test_a_spawn_the_main_thread_issued_is_not_a_subagent_parent(home: ClaudeHome) -> None:
    # a /fork clone copies its parent's spawn: the id is in the sibling AND in main
    main = home.session(CWD, S1, user("start"), spawn("toolu_a"))
    home.subagent(main, AGENT, user("fork copy"), spawn("toolu_a"), meta={"agentType": "fork"})
    home.subagent(main, CHILD, user("x"), shell(f"pysift whoami @trap:{MARKER}"),
                  meta={"toolUseId": "toolu_a"})
    ids = [i.session_id for i in whoami_from_trap(MARKER, env_for(
        home, CLAUDE_CODE_SESSION_ID=S1)).identities]
    assert ids == [CHILD, S1]


def test_trap_on_the_main_transcript_is_the_session_alone(home: ClaudeHome) -> None:
    home.session(CWD, S1, user("start"), shell(f"pysift whoami @trap:{MARKER}"))
    answer = whoami_from_trap(MARKER, env_for(home, CLAUDE_CODE_SESSION_ID=S1))
    assert [(i.session_id, i.is_subagent, i.depth) for i in answer.identities] == [(S1, False, 0)]
    assert answer.notes and "TOP-LEVEL" in answer.notes[0]


@pytest.mark.parametrize(("declared", "said"), [
    (AGENT, f"names parent agent {AGENT}, which has no transcript"),
    (CHILD, f"agent {CHILD}: its meta.json names the agent itself as its parent"),
])
def test_a_parent_agent_the_walk_cannot_reach_is_said_not_skipped(
        home: ClaudeHome, declared: str, said: str) -> None:
    """The meta names a parent agent the session holds no transcript of, or the agent
    itself: the chain went straight from the agent to the session (`^ top-level root
    (depth 1)`) and said nothing, as if the session had spawned it; `agents` notes that
    lane."""
    main = home.session(CWD, S1, user("start"))
    home.subagent(main, CHILD, user("sub task"), shell(f"pysift whoami @trap:{MARKER}"),
                  meta={"parentAgentId": declared})
    answer = whoami_from_trap(MARKER, env_for(home, CLAUDE_CODE_SESSION_ID=S1))
    assert [(i.session_id, i.depth) for i in answer.identities] == [(CHILD, 0), (S1, 1)]
    assert any(said in note for note in answer.notes or ())


def test_a_found_parent_agent_adds_no_note(home: ClaudeHome) -> None:
    nested_home(home)
    answer = whoami_from_trap(MARKER, env_for(home, CLAUDE_CODE_SESSION_ID=S1))
    assert not any("no transcript" in note for note in answer.notes or ())


def test_ancestry_stops_on_a_cycle(home: ClaudeHome) -> None:
    main = home.session(CWD, S1, user("start"))
    home.subagent(main, AGENT, user("a"), meta={"parentAgentId": CHILD})
    home.subagent(main, CHILD, user("b"), meta={"parentAgentId": AGENT})
    from pysift.disk.layout import Unreadable, subagent_transcripts

    agent = next(t for t in subagent_transcripts(main, unread=Unreadable())
                 if t.session_id == AGENT)
    assert [t.session_id for t in ancestry(agent)] == [AGENT, CHILD, S1]


def test_metas_naming_a_loop_are_said(home: ClaudeHome) -> None:
    """CHILD names AGENT, AGENT names CHILD: the walk stops at the loop (never spins) and
    says the links above are unknown."""
    main = home.session(CWD, S1, user("start"))
    home.subagent(main, AGENT, user("task"), meta={"parentAgentId": CHILD})
    home.subagent(main, CHILD, user("sub task"), shell(f"pysift whoami @trap:{MARKER}"),
                  meta={"parentAgentId": AGENT})
    answer = whoami_from_trap(MARKER, env_for(home, CLAUDE_CODE_SESSION_ID=S1))
    assert [(i.session_id, i.depth) for i in answer.identities] == [
        (CHILD, 0), (AGENT, 1), (S1, 2)]
    assert any(f"agent {AGENT}: its spawner {CHILD} is already in the chain" in note
               for note in answer.notes or ())
