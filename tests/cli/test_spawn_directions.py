"""The communication directions a session's side files decide (csift §5.2-§5.3, SPEC §4):
each subagent's ``.meta.json`` names the call that spawned it (``toolUseId``), so a spawn
reads ``self ⇨ <child>``, a completion the child's transcript alone names (no ``agentId``
in the record: older Claude Code) is the child's return, a ``<result>`` pulse names its
sender, and a nested lane's prompt names the lane that spawned it, as ``agents`` does."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import (
    ClaudeHome,
    Session,
    assistant,
    task_notification,
    teammate_message,
    text,
    tool_result,
    tool_use,
    user,
)

SID = "3b7d2e10-5c4a-4f8e-9d21-6a0f1e2b3c4d"
CWD = "/home/ada/src/relay"
EXPLORE = "a1b1c1d1e1f1a1b1c"  # a sync Task whose completion carries no agentId
ASYNC = "a2b2c2d2e2f2a2b2c"  # a background Agent that reports by a <result> pulse
NESTED = "a3b3c3d3e3f3a3b3c"  # spawned by ASYNC; its meta names only the call
DECLARED = "a4b4c4d4e4f4a4b4c"  # spawned by ASYNC; its meta names its parent too
MATE = "avega-0123456789abcdef"  # a teammate (name-join: no toolUseId in its meta)


def _old_completion(tool_use_id: str, answer: str, prompt: str) -> dict:
    """A Task completion as Claude Code 1.x/2.0.x wrote it: no agentId anywhere."""
    return tool_result(tool_use_id, [text(answer)], tool_use_result={
        "status": "completed", "prompt": prompt, "content": [text(answer)],
        "totalDurationMs": 6000, "totalTokens": 900, "totalToolUseCount": 1})


def _lane(agent: str, *records: dict) -> Session:
    s = Session(SID, cwd=CWD, agent_id=agent)
    for r in records:
        s.add(r)
    return s


def build(h: ClaudeHome, *, metas: bool = True) -> Path:
    main = Session(SID, cwd=CWD)
    main.add(user("relay the report"))                                                 # L1
    main.add(assistant(tool_use("Task", {"description": "Map callers",
                                         "subagent_type": "Explore",
                                         "prompt": "map the callers"}, id="t1")))     # L2
    main.add(_old_completion("t1", "Three callers.", "map the callers"))              # L3
    main.add(assistant(tool_use("Agent", {"description": "Review cache",
                                          "subagent_type": "general-purpose",
                                          "prompt": "review it",
                                          "run_in_background": True}, id="t2")))      # L4
    main.add(tool_result("t2", "Async agent launched successfully.",
                         tool_use_result={"status": "async_launched"}))               # L5
    main.add(assistant(tool_use("Agent", {"description": "QA", "name": "vega",
                                          "team_name": "relay-team",
                                          "subagent_type": "qa-tester", "prompt": "qa"},
                                id="t5")))                                             # L6
    main.add(tool_result("t5", "Spawned successfully.",
                         tool_use_result={"status": "teammate_spawned", "name": "vega"}))  # L7
    main.add(task_notification("task-1", "completed", 'Agent "Review cache" completed',
                               tool_use_id="t2", result="The cache is safe."))         # L8
    main.add(assistant("Done."))                                                       # L9
    path = h.session(CWD, SID, main)

    def meta(agent: str, **fields: str) -> dict | None:
        return fields if metas else None

    h.subagent(path, EXPLORE, _lane(EXPLORE, user("map the callers"),
                                    assistant("Three callers.")),
               meta=meta(EXPLORE, agentType="Explore", description="Map callers",
                         toolUseId="t1"))
    h.subagent(path, ASYNC, _lane(
        ASYNC, user("review it"),                                                      # L1
        assistant(tool_use("Task", {"description": "Dig", "subagent_type": "Explore",
                                    "prompt": "dig into locks"}, id="t3")),           # L2
        _old_completion("t3", "Locks are fine.", "dig into locks"),                   # L3
        assistant(tool_use("Task", {"description": "Pool", "subagent_type": "Explore",
                                    "prompt": "check the pool"}, id="t4")),           # L4
        _old_completion("t4", "Pool ok.", "check the pool"),                          # L5
        assistant("The cache is safe.")),                                              # L6
        meta=meta(ASYNC, agentType="general-purpose", description="Review cache",
                  toolUseId="t2"))
    h.subagent(path, NESTED, _lane(NESTED, user("dig into locks"), assistant("Locks are fine.")),
               meta=meta(NESTED, agentType="Explore", description="Dig", toolUseId="t3"))
    h.subagent(path, DECLARED, _lane(DECLARED, user("check the pool"), assistant("Pool ok.")),
               meta=meta(DECLARED, agentType="Explore", description="Pool", toolUseId="t4",
                         parentAgentId=ASYNC))
    h.subagent(path, MATE, _lane(MATE, teammate_message("team-lead", "qa"), assistant("ok")),
               meta=meta(MATE, agentType="vega", name="vega", teamName="relay-team",
                         taskKind="in_process_teammate", description="QA"))
    return path


@pytest.fixture
def relay(tmp_path: Path) -> ClaudeHome:
    h = ClaudeHome(tmp_path / "claude")
    build(h)
    return h


def _comms(cli, h: ClaudeHome, *args: str) -> dict[tuple[str, int], tuple[str, str, str]]:
    out = cli("--claude-home", str(h.root), "search", "", "-t", "agent.communication",
              *args, "--format", "json")
    assert out.code == 0, out.stderr
    return {(hit["session_id"], hit["line"]): (hit["label"], hit["from"], hit["to"])
            for ex in out.json_rows("exchange") for hit in ex["hits"]
            if hit["label"].startswith("agent.communication.")}


SENT, INBOX = "agent.communication.sent", "agent.communication.inbox"


def test_a_spawn_names_its_child(cli, relay: ClaudeHome) -> None:
    """Case 1: ``self ⇨ <child>`` by the id-join, else the teammate's name-join."""
    found = _comms(cli, relay)
    assert found[(SID, 2)] == (SENT, "self", EXPLORE)
    assert found[(SID, 4)] == (SENT, "self", ASYNC)
    assert found[(SID, 6)] == (SENT, "self", MATE)
    assert found[(ASYNC, 2)] == (SENT, "self", NESTED)  # a lane's own spawn


def test_a_result_pulse_names_its_sender(cli, relay: ClaudeHome) -> None:
    """Case 2: a background agent's ``<result>`` report, by its ``<tool-use-id>``."""
    assert _comms(cli, relay)[(SID, 8)] == (INBOX, ASYNC, "self")


def test_a_completion_only_the_meta_names_is_a_return(cli, relay: ClaudeHome) -> None:
    """Case 3: no ``agentId`` in the record (older builds): the meta joins it."""
    found = _comms(cli, relay)
    assert found[(SID, 3)] == (INBOX, EXPLORE, "self")
    assert found[(ASYNC, 3)] == (INBOX, NESTED, "self")


def test_a_nested_lanes_prompt_names_its_issuer(cli, relay: ClaudeHome) -> None:
    """Case 4: the lane that spawned it, as ``agents`` links it (the topology join, or
    the meta's ``parentAgentId``); a direct child's prompt names the session."""
    found = _comms(cli, relay)
    assert found[(NESTED, 1)] == (INBOX, ASYNC, "self")
    assert found[(DECLARED, 1)] == (INBOX, ASYNC, "self")
    assert found[(ASYNC, 1)] == (INBOX, SID, "self")


def test_every_direction_names_the_child_or_the_issuer(cli, relay: ClaudeHome) -> None:
    sent, inbox = SENT, INBOX
    assert _comms(cli, relay) == {
        (SID, 2): (sent, "self", EXPLORE),  # id-join on the spawn's tool_use_id
        (SID, 3): (inbox, EXPLORE, "self"),  # a completion only the meta names
        (SID, 4): (sent, "self", ASYNC),
        (SID, 6): (sent, "self", MATE),  # the teammate: name-join
        (SID, 8): (inbox, ASYNC, "self"),  # the <result> pulse: its <tool-use-id>
        (ASYNC, 1): (inbox, SID, "self"),  # a direct child's prompt: the session
        (ASYNC, 2): (sent, "self", NESTED),
        (ASYNC, 3): (inbox, NESTED, "self"),
        (ASYNC, 4): (sent, "self", DECLARED),
        (ASYNC, 5): (inbox, DECLARED, "self"),
        (EXPLORE, 1): (inbox, SID, "self"),
        (NESTED, 1): (inbox, ASYNC, "self"),  # the topology join: ASYNC issued t3
        (DECLARED, 1): (inbox, ASYNC, "self"),  # the meta's parentAgentId
        (MATE, 1): (inbox, "team-lead", "self"),
    }


def test_without_metas_the_directions_fall_back(cli, tmp_path: Path) -> None:
    """No meta.json (older builds wrote none): the spawn name, no return, ``?``; a lane's
    prompt still names its issuer, which the transcripts alone show (``agents``)."""
    h = ClaudeHome(tmp_path / "claude")
    build(h, metas=False)
    found = _comms(cli, h)
    assert found[(SID, 2)] == ("agent.communication.sent", "self", "Explore")
    assert (SID, 3) not in found
    assert found[(SID, 6)] == ("agent.communication.sent", "self", "vega")
    assert found[(SID, 8)] == ("agent.communication.inbox", "?", "self")
    assert found[(NESTED, 1)] == ("agent.communication.inbox", ASYNC, "self")  # prompt join


def test_agents_names_the_same_parents(cli, relay: ClaudeHome) -> None:
    out = cli("--claude-home", str(relay.root), "agents", f"@{SID}", "--format", "json")
    parents = {r["agent_id"]: r["parent_agent_id"] for r in out.json_rows("agent")}
    found = _comms(cli, relay)
    for agent in (EXPLORE, ASYNC, NESTED, DECLARED):
        assert found[(agent, 1)][1] == (parents[agent] or SID)


def test_show_and_text_output_agree(cli, relay: ClaudeHome) -> None:
    root = ("--claude-home", str(relay.root))
    [row] = cli(*root, "show", f"@{SID}", "--line", "3", "--format", "json").json_rows("record")
    assert row["labels"] == ["agent.communication.inbox", "agent.tool.result"]
    assert (row["label"], row["from"], row["to"]) == ("agent.communication.inbox", EXPLORE,
                                                      "self")
    said = cli(*root, "show", f"@{NESTED}", "--line", "1")
    assert f"agent.communication.inbox  {ASYNC} ⇨ self" in said.stdout
    hits = cli(*root, "search", "Map callers", f"@{SID}", "--no-subagents")
    assert f"agent.communication.sent  self ⇨ {EXPLORE}" in hits.stdout


def test_counts_take_the_returns(cli, relay: ClaudeHome) -> None:
    root = ("--claude-home", str(relay.root))
    by_label = cli(*root, "search", "", "@" + SID, "--no-subagents", "-t",
                   "agent.communication.inbox", "--count-by", "label")
    assert by_label.stdout.split() == ["2", "agent.communication.inbox"]  # L3, L8
    counted = cli(*root, "search", "Three callers", "-t", "agent.communication.inbox", "-c")
    assert counted.stdout.split()[-1] == "1"


def test_the_side_files_are_read_only_when_the_answer_can_show_them(
        cli, relay: ClaudeHome, monkeypatch: pytest.MonkeyPatch) -> None:
    """A command that prints no direction and counts no return never lists a session's
    lanes for their metas (list, stats, a count of other leaves); a count that takes
    ``agent.communication.inbox`` does, and so does a printed hit."""
    from pysift.core import spawnlinks

    listed: list[Path] = []
    real = spawnlinks.subagent_transcripts

    def counting(session_path, **kw):  # type: ignore[no-untyped-def]
        listed.append(session_path)
        return real(session_path, **kw)

    monkeypatch.setattr(spawnlinks, "subagent_transcripts", counting)
    root = ("--claude-home", str(relay.root))
    for args in (("list",), ("stats",), ("search", "", "-t", "user", "-c"),
                 ("search", "", "-t", "agent.tool", "-c"), ("search", "Three", "-c", "-t",
                                                            "agent.tool.result"),
                 ("search", "", "-t", "agent.communication.sent", "-l"),
                 ("search", "", "-t", "agent.communication.sent", "--count-by", "label"),
                 ("search", "Task", "-t", "agent.communication.sent", "--raw"),
                 ("verbatim", f"@{SID}")):
        assert cli(*root, *args).code == 0, args
        assert listed == [], args
    assert cli(*root, "search", "", "-t", "agent.communication.inbox", "-c").code == 0
    assert listed  # the returns count: the metas were read
    listed.clear()
    assert cli(*root, "show", f"@{SID}", "--line", "2").code == 0
    assert listed


def test_an_interrupted_spawn_is_no_return(cli, tmp_path: Path) -> None:
    """The meta names the call, but its result is the interruption's error: no child
    spoke. It stayed ``agent.tool.result [error]``, as the record's own echo decides."""
    h = ClaudeHome(tmp_path / "claude")
    main = Session(SID, cwd=CWD)
    main.add(user("go"))
    main.add(assistant(tool_use("Task", {"description": "d", "subagent_type": "Explore",
                                         "prompt": "explore"}, id="t1")))
    main.add(tool_result("t1", "[Request interrupted by user for tool use]", is_error=True))
    main.add(user("stop, do something else"))
    path = h.session(CWD, SID, main)
    lane = Session(SID, cwd=CWD, agent_id=EXPLORE)
    lane.add(user("explore"))
    lane.add(assistant("partial"))
    h.subagent(path, EXPLORE, lane, meta={"agentType": "Explore", "description": "d",
                                          "toolUseId": "t1"})
    shown = cli("--claude-home", str(h.root), "search", "interrupted", f"@{SID}")
    assert shown.code == 0, shown.stderr
    assert "agent.tool.result [error]" in shown.stdout
    assert "agent.communication.inbox" not in shown.stdout
    counted = cli("--claude-home", str(h.root), "search", "", "-t",
                  "agent.communication.inbox", "-c", f"@{SID}", "--no-subagents")
    assert counted.stdout.strip() in ("", "0"), counted.stdout


def test_a_named_lane_its_meta_ties_to_one_call_is_no_other_spawns_child(
        cli, tmp_path: Path) -> None:
    """Two spawns named `reviewer`; the meta of the one lane names the first call. The
    second (refused) spawn read `self ⇨ <that lane>` by the name-join, which `agents`
    makes only for a lane no call id joins (a teammate)."""
    h = ClaudeHome(tmp_path / "claude")
    main = Session(SID, cwd=CWD)
    main.add(user("go"))
    for call, prompt in (("t1", "review A"), ("t2", "review B")):
        main.add(assistant(tool_use("Agent", {"description": prompt, "name": "reviewer",
                                              "subagent_type": "general-purpose",
                                              "prompt": prompt}, id=call)))
        main.add(tool_result(call, "Error: agent limit reached", is_error=call == "t2"))
    path = h.session(CWD, SID, main)
    lane = Session(SID, cwd=CWD, agent_id=EXPLORE)
    lane.add(user("review A"))
    lane.add(assistant("A ok."))
    h.subagent(path, EXPLORE, lane, meta={"agentType": "general-purpose", "name": "reviewer",
                                          "description": "review A", "toolUseId": "t1"})
    shown = cli("--claude-home", str(h.root), "search", "", "-t", "agent.communication.sent",
                f"@{SID}", "--no-subagents")
    sent = [line for line in shown.stdout.splitlines() if "agent.communication.sent " in line]
    assert len(sent) == 2, shown.stdout
    assert f"self ⇨ {EXPLORE}" in sent[0] and "self ⇨ reviewer" in sent[1]


def test_a_count_weighs_a_zero_match_as_the_listing_does(cli, relay: ClaudeHome) -> None:
    """`-c` left the unseen check without the spawn index, so a return only a meta names
    was not the two-label record it is, and the same zero match said DEFINITIVE."""
    args = ("--claude-home", str(relay.root), "search", "Three callers", "-t", "user.message")
    listed, counted = cli(*args), cli(*args, "-c")
    assert "NOT a definitive absence" in listed.stderr
    assert "NOT a definitive absence" in counted.stderr, counted.stderr
