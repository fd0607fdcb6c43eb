"""``pysift agents`` through the real argv path: the tree, the flat rows, the filters, the
lifecycle of every lane shape, and bad input."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from builders import (
    ClaudeHome,
    Session,
    assistant,
    journal_result,
    journal_started,
    subagent_return,
    teammate_message,
    text,
    thinking,
    to_jsonl,
    tool_result,
    tool_use,
    user,
    write_result,
)

SID = "7c1e5a20-9f3b-4d6e-8a14-3b2f0c9d1e57"
CWD = "/home/ada/src/orbit"
EXPLORE = "a1e1e1e1e1e1e1e1e"
ASYNC = "a2a2a2a2a2a2a2a2a"
NESTED = "a3a3a3a3a3a3a3a3a"
MATE = "avega-0123456789abcdef"
WF1 = "a4a4a4a4a4a4a4a4a"
WF2 = "a5a5a5a5a5a5a5a5a"
FORK = "a6a6a6a6a6a6a6a6a"
RUN = "wf_r1"
T0 = datetime(2026, 10, 5, 9, 0, 0, tzinfo=UTC)
ALL = [WF1, WF2, EXPLORE, ASYNC, NESTED, MATE, FORK]


def _lane(agent: str, start_s: float, *records) -> Session:
    s = Session(SID, cwd=CWD, agent_id=agent, start=T0 + timedelta(seconds=start_s), step=2.0)
    for r in records:
        s.add(r)
    return s


def build_home(root: Path) -> tuple[ClaudeHome, Path]:
    """One session with every lane shape: a sync Task, an async Agent that spawns a nested
    agent (frozen on a held rm), a teammate frozen on SendMessage, a workflow run with a
    finished and an unfinished agent, and a /fork clone."""
    h = ClaudeHome(root)
    main = Session(SID, cwd=CWD, step=5.0)
    main.add(user("map the propagator, review the cache, audit the passes"))
    main.add(assistant(tool_use("Task", {"description": "Map callers", "subagent_type": "Explore",
                                         "prompt": "map the callers"}, id="t1")))  # 09:00:05
    main.add(subagent_return("t1", "Three callers.", agent_id=EXPLORE, agent_type="Explore",
                             prompt="map the callers"))
    main.add(assistant(tool_use("Agent", {"description": "Review cache", "prompt": "review it",
                                          "subagent_type": "general-purpose",
                                          "run_in_background": True}, id="t2")))  # 09:00:15
    main.add(tool_result("t2", f"Async agent launched successfully.\nagentId: {ASYNC} (internal)",
                         tool_use_result={"status": "async_launched", "agentId": ASYNC}))
    main.add(assistant(tool_use("Agent", {"description": "QA the relay", "name": "vega",
                                          "team_name": "orbit-team", "subagent_type": "qa-tester",
                                          "prompt": "qa"}, id="t4")))  # 09:00:25
    main.add(tool_result("t4", "Spawned successfully.",
                         tool_use_result={"status": "teammate_spawned", "name": "vega"}))
    main.add(assistant(tool_use("Workflow", {"script": "x"}, id="w1")))  # 09:00:35
    main.add(tool_result("w1", "Workflow launched in background. Task ID: task_r1",
                         tool_use_result={"status": "async_launched", "runId": RUN,
                                          "taskId": "task_r1"}))
    main_path = h.session(CWD, SID, main)

    h.subagent(main_path, EXPLORE, _lane(
        EXPLORE, 6, user("map the callers"),
        assistant(tool_use("Write", {"file_path": f"{CWD}/callers.md", "content": "3"}, id="wr1")),
        tool_result("wr1", f"File created successfully at: {CWD}/callers.md",
                    tool_use_result=write_result(f"{CWD}/callers.md", "3")),
        assistant("Three callers.")),
               meta={"agentType": "Explore", "description": "Map callers", "toolUseId": "t1"})
    h.subagent(main_path, ASYNC, _lane(
        ASYNC, 17, user("review it"),
        assistant(tool_use("Task", {"description": "Dig into locks", "subagent_type": "Explore",
                                    "prompt": "dig"}, id="t3")),
        tool_result("t3", "Locks are fine."),
        assistant("Async report: the cache is safe.")),
        meta={"agentType": "general-purpose", "description": "Review cache", "toolUseId": "t2"})
    h.subagent(main_path, NESTED, _lane(
        NESTED, 20, user("dig"),
        assistant(text("Cleaning up.")),
        assistant(tool_use("Bash", {"command": 'rm -rf "$OUT/"*'}, id="b1"))),
        meta={"agentType": "Explore", "description": "Dig into locks", "toolUseId": "t3"})
    h.subagent(main_path, MATE, _lane(
        MATE, 27, teammate_message("team-lead", "qa"),
        assistant(tool_use("SendMessage", {"to": "team-lead", "message": "done?"}, id="s1"))),
        meta={"agentType": "vega", "name": "vega", "teamName": "orbit-team",
              "taskKind": "in_process_teammate", "description": "QA the relay"})
    h.subagent(main_path, WF1, _lane(WF1, 40, user("audit greenwich"), assistant("ok")),
               meta={"agentType": "workflow-subagent"}, workflow=RUN)
    h.subagent(main_path, WF2, _lane(WF2, 41, user("audit svalbard"),
                                     assistant(tool_use("Read", {"file_path": "x"}, id="r9"))),
               meta={"agentType": "workflow-subagent"}, workflow=RUN)
    h.journal(main_path, RUN, [journal_started(WF1, "k1"), journal_started(WF2, "k2"),
                               journal_result(WF1, "k1", "greenwich: 14 passes, consistent")])
    h.workflow_run(main_path, RUN, {"runId": RUN, "taskId": "task_r1", "workflowName": "pass-audit",
                                    "status": "completed", "agentCount": 2, "durationMs": 84000,
                                    "totalTokens": 303, "totalToolCalls": 9,
                                    "defaultModel": "claude-sonnet-4-6",
                                    "timestamp": "2026-10-05T09:00:36.000Z"})
    # a /fork clone of the main thread: it opens on a fork-context-ref and carries a copy of
    # the main thread's Task call t1, which must not make it EXPLORE's parent
    ref = {"type": "fork-context-ref", "agentId": FORK, "parentSessionId": SID,
           "parentLastUuid": "c0ffee00-0000-4000-8000-000000000001", "contextLength": 12}
    fork = _lane(FORK, 50, user("map the propagator, review the cache, audit the passes"),
                 assistant(tool_use("Task", {"prompt": "map the callers"}, id="t1")),
                 assistant("Forked answer."))
    path = h.subagent(main_path, FORK, fork, meta={"agentType": "fork", "isFork": True})
    path.write_bytes(to_jsonl([ref]) + path.read_bytes())
    return h, main_path


@pytest.fixture
def rich(tmp_path: Path) -> ClaudeHome:
    return build_home(tmp_path / "claude")[0]


def _run(cli, home: ClaudeHome, *args: str):
    return cli("--claude-home", str(home.root), "agents", *args)


def _agents(result) -> dict[str, dict]:
    return {r["agent_id"]: r for r in result.json_rows("agent")}


def test_the_flat_rows_in_tree_preorder(cli, rich: ClaudeHome) -> None:
    result = _run(cli, rich, f"@{SID}", "--format", "json")
    assert result.code == 0, result.stderr
    rows = result.json_rows()
    assert rows[0] == {"kind": "header", "command": "agents"}
    assert [(r["kind"], r.get("agent_id") or r.get("run_id") or r.get("session_id"))
            for r in rows[1:-1]] == [
        ("session", SID), ("run", RUN), ("agent", WF1), ("agent", WF2),
        ("agent", EXPLORE), ("agent", ASYNC), ("agent", NESTED), ("agent", MATE),
        ("agent", FORK)]
    assert rows[1] == {"kind": "session", "session_id": SID, "runs": 1, "agents": 7}
    assert result.summary() == {"kind": "summary", "sessions": 1, "runs": 1, "agents": 7,
                                "unreadable": 0}


def test_every_lane_joined_to_its_spawning_call(cli, rich: ClaudeHome) -> None:
    agents = _agents(_run(cli, rich, f"@{SID}", "--format", "json"))
    spawn = {a: (r["spawn_tool_use_id"], r["spawn_tool"], r["parent_agent_id"], r["depth"])
             for a, r in agents.items()}
    assert spawn == {
        EXPLORE: ("t1", "Task", None, 0),  # the clone's copy of t1 does not re-parent it
        ASYNC: ("t2", "Agent", None, 0),
        NESTED: ("t3", "Task", ASYNC, 1),  # spawned from inside ASYNC's transcript
        MATE: ("t4", "Agent", None, 0),  # by the teammate name
        WF1: ("w1", "Workflow", None, 0),  # by the run the Workflow call launched
        WF2: ("w1", "Workflow", None, 0),
        FORK: (None, None, None, 0),
    }
    assert agents[EXPLORE]["trigger_utc"] == "2026-10-05T09:00:05.000Z"
    assert agents[EXPLORE]["started_utc"] == "2026-10-05T09:00:06.000Z"
    # a workflow agent is triggered when it starts, not when the run was launched
    assert agents[WF1]["trigger_utc"] == agents[WF1]["started_utc"] == "2026-10-05T09:00:40.000Z"


def test_lifecycle_and_frozen_lanes(cli, rich: ClaudeHome) -> None:
    agents = _agents(_run(cli, rich, f"@{SID}", "--format", "json"))
    status = {a: (r["status"], r["pending_classification"], r["pending_tool_name"])
              for a, r in agents.items()}
    assert status == {
        EXPLORE: ("completed", None, None), ASYNC: ("completed", None, None),
        NESTED: ("running", "escalation-blocked", "Bash"),
        MATE: ("running", "awaiting-execution", "SendMessage"),
        WF1: ("completed", None, None),  # the journal's result
        WF2: ("running", "awaiting-execution", "Read"),
        FORK: ("completed", None, None)}
    nested = agents[NESTED]
    assert nested["completed_utc"] is None and nested["duration"] is None
    assert nested["pending_since_utc"] == nested["last_activity_utc"]
    assert nested["pending_tool_use_id"] == "b1"
    explore = agents[EXPLORE]
    assert explore["completed_utc"] == explore["last_activity_utc"] == "2026-10-05T09:00:12.000Z"
    assert explore["duration"] == "7s"  # trigger 09:00:05 -> completion 09:00:12
    assert "returned_message" not in explore


def test_shapes_teammate_and_fork_fields(cli, rich: ClaudeHome) -> None:
    agents = _agents(_run(cli, rich, f"@{SID}", "--format", "json"))
    assert {a: r["shape"] for a, r in agents.items()} == {
        EXPLORE: "builtin-task", ASYNC: "builtin-task", NESTED: "builtin-task",
        MATE: "teammate", WF1: "workflow", WF2: "workflow", FORK: "builtin-task"}
    mate = agents[MATE]
    assert (mate["name"], mate["team_name"], mate["agent_type"]) == ("vega", "orbit-team",
                                                                      "qa-tester")
    assert "SendMessage" in mate["control_hint"] and "shutdown_request" in mate["control_hint"]
    assert all("control_hint" not in r for a, r in agents.items() if a != MATE)
    assert agents[EXPLORE]["name"] is None and agents[EXPLORE]["team_name"] is None
    fork = agents[FORK]
    assert fork["fork_parent_last_uuid"] == "c0ffee00-0000-4000-8000-000000000001"
    assert fork["fork_context_length"] == 12 and fork["agent_type"] == "fork"
    assert agents[WF1]["workflow_id"] == RUN and agents[EXPLORE]["workflow_id"] is None


def test_returned_messages_three_ways(cli, rich: ClaudeHome) -> None:
    agents = _agents(_run(cli, rich, f"@{SID}", "--returned-message", "--format", "json"))
    got = {a: (r["returned_message_source"], (r["returned_message"] or "")[:30])
           for a, r in agents.items()}
    assert got[EXPLORE] == ("sync-tool-result", "Three callers.\nagentId: a1e1e1")
    assert got[ASYNC] == ("async-child-tail", "Async report: the cache is saf")
    assert got[WF1] == ("workflow-journal", "greenwich: 14 passes, consiste")
    assert got[WF2] == (None, "")  # no journal result: unresolved, never the tail
    assert got[NESTED] == ("sync-tool-result", "Locks are fine.")
    assert got[MATE] == (None, "")  # no tail text yet: the spawn ack is no return


def test_the_text_tree(cli, rich: ClaudeHome) -> None:
    result = _run(cli, rich, f"@{SID}", "--returned-message")
    assert result.code == 0, result.stderr
    out = result.stdout
    assert out.startswith(f"SESSION  {SID}\n  WORKFLOW  {RUN}  [pass-audit]  completed\n"
                          "      agents     2\n      duration   1m24s\n      tokens     303\n"
                          "      model      claude-sonnet-4-6\n"
                          f"    {WF1}  workflow  ({RUN})  [workflow-subagent]  completed\n")
    assert f"\n  {ASYNC}  builtin-task  [general-purpose]  completed\n" in out
    assert f"\n    {NESTED}  builtin-task  [Explore]  running\n" in out  # under ASYNC
    assert "      PENDING    escalation-blocked · Bash (b1) · frozen since 2026-10-05 " in out
    assert "held" not in out and "Claude Code holds for a human yes" in out
    assert "    team       orbit-team  (@vega)\n" in out
    assert "    forked-at  c0ffee00-0000-4000-8000-000000000001 (context 12)\n" in out
    assert ("returned   (sync-tool-result · history — predates the still-open lane, NOT the "
            "outcome) Locks are fine.") in out
    assert "      returned   (unresolved)\n" in out  # WF2
    assert "    last-seen" not in out.split(f"  {NESTED}")[1].split("\n  a")[0]  # frozen: PENDING
    assert out.endswith("\n7 subagent(s)  ·  kind=all  ·  window-axis=trigger\n\n"
                        "note: teammate rows are in-process agents: steer one BY NAME (the "
                        "`(@name)` shown) with SendMessage, and end it with SendMessage "
                        '`message:{"type":"shutdown_request"}`.\n'
                        "      TaskStop (a background-task tool) and pkill do not reach a "
                        "teammate: the aName-<hex> id above is a transcript id, not a task id, "
                        "and a teammate runs inside its orchestrator's process.\n")


def test_order_by_sorts_and_windows_on_its_axis(cli, rich: ClaudeHome) -> None:
    def ids(*args: str) -> list[str]:
        return [r["agent_id"] for r in _run(cli, rich, f"@{SID}", *args, "--format",
                                            "json").json_rows("agent")]

    # trigger: EXPLORE 09:00:05, ASYNC :15, MATE :25 (NESTED rides under ASYNC)
    assert ids("--shape", "builtin-task", "--shape", "teammate") == [EXPLORE, ASYNC, NESTED,
                                                                     MATE, FORK]
    # window on the trigger axis: NESTED was triggered at ASYNC's call t3 (09:00:19)
    assert ids("--since", "2026-10-05T09:00:18Z", "--until", "2026-10-05T09:00:30Z") == [
        NESTED, MATE]
    # completion axis = the instant a completed lane completed: a lane still running or
    # frozen has none, so it sorts last (MATE after FORK) and a bounded window never
    # admits it (NESTED froze at :24, MATE at :29, WF2 is running: all outside)
    assert ids("--order-by", "completion") == [WF1, WF2, EXPLORE, ASYNC, NESTED, FORK, MATE]
    assert ids("--order-by", "completion", "--since", "2026-10-05T09:00:20Z",
               "--until", "2026-10-05T09:00:45Z") == [WF1, ASYNC]
    assert ids("--order-by", "completion", "--until", "2026-10-05T09:01:00Z") == [
        WF1, EXPLORE, ASYNC, FORK]
    assert ids("--order-by", "start", "--shape", "workflow") == [WF1, WF2]


def test_agent_type_filter(cli, rich: ClaudeHome) -> None:
    rows = _run(cli, rich, f"@{SID}", "--agent-type", "fork", "--format", "json").json_rows("agent")
    assert [r["agent_id"] for r in rows] == [FORK]


def test_one_agent_grab(cli, rich: ClaudeHome) -> None:
    result = _run(cli, rich, "--agent", NESTED[:10], "--shape", "workflow", "--format", "json")
    assert result.code == 0, result.stderr
    rows = result.json_rows()
    assert [r["kind"] for r in rows] == ["header", "session", "agent", "summary"]
    assert rows[2]["agent_id"] == NESTED and rows[2]["parent_agent_id"] == ASYNC
    assert rows[2]["returned_message"] == "Locks are fine."
    text_out = _run(cli, rich, "--agent", f"@agent-{NESTED}").stdout
    assert text_out.startswith(f"  {NESTED}  builtin-task  [Explore]  running\n")
    assert "SESSION" not in text_out and "returned   (sync-tool-result · history" in text_out


def test_an_upper_cased_agent_id_is_grabbed_as_the_target_resolver_takes_it(
        cli, rich: ClaudeHome) -> None:
    """A pasted id in capitals: `@A80FB2E…` resolved as a target while `--agent A80FB2E…`
    answered "matches no subagent in scope" (exit 1) for a lane that is there."""
    for ident in (NESTED.upper(), NESTED[:10].upper(), f"@agent-{NESTED.upper()}"):
        result = _run(cli, rich, "--agent", ident, "--format", "json")
        assert result.code == 0, result.stderr
        assert [r["agent_id"] for r in result.json_rows("agent")] == [NESTED]
    target = _run(cli, rich, f"@{NESTED.upper()}", "--format", "json")
    assert [r["agent_id"] for r in target.json_rows("agent")] == [NESTED]


def test_an_agent_target_lists_it_and_its_descendants(cli, rich: ClaudeHome) -> None:
    rows = _run(cli, rich, f"@{ASYNC}", "--format", "json").json_rows("agent")
    assert [(r["agent_id"], r["depth"]) for r in rows] == [(ASYNC, 0), (NESTED, 1)]


def test_a_session_without_subagents(cli, home: ClaudeHome) -> None:
    home.session(CWD, SID, user("hi"), assistant("hello"))
    result = cli("--claude-home", str(home.root), "agents", f"@{SID}")
    assert (result.code, result.stdout) == (0, "no subagents found\n")
    json_out = cli("--claude-home", str(home.root), "agents", "--format", "json")
    assert json_out.summary() == {"kind": "summary", "sessions": 0, "runs": 0, "agents": 0,
                                  "unreadable": 0}


def test_filters_that_leave_nothing_say_so(cli, rich: ClaudeHome) -> None:
    result = _run(cli, rich, f"@{SID}", "--since", "2030-01-01")
    assert result.stdout == "no subagents found\n"
    assert "no subagent passed the filters" in result.stderr and "trigger axis" in result.stderr


# -- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("args", "code", "words"), [
    (("--shape", "monitor"), 2, "builtin-task, workflow, teammate"),
    (("--order-by", "end"), 2, "trigger, start, completion"),
    (("--agent", "ffffffffffff"), 1, "matches no subagent"),
    (("--agent", "a!b"), 2, "not an agent id"),
    (("--agent", "a"), 1, "AMBIGUOUS"),
    (("--no-subagents",), 2, "takes no --no-subagents"),
    (("--subagents",), 2, "takes no --subagents"),
    (("--format", "yaml"), 2, "text, json"),
    # a second --agent silently replaced the first (click keeps the last value)
    (("--agent", EXPLORE, "--agent", ASYNC), 2, "takes one agent id, got 2"),
    # an empty type matched no lane and read as "no subagent passed the filters"
    (("--agent-type", ""), 2, "--agent-type is empty"),
    (("--agent-type", " "), 2, "--agent-type is empty"),
])
def test_bad_flags_are_one_line_naming_the_valid_forms(cli, rich: ClaudeHome, args, code,
                                                        words) -> None:
    result = _run(cli, rich, *args)
    assert result.code == code, result.stderr
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], lines


def test_a_session_whose_own_transcript_is_gone_says_so(cli, tmp_path: Path) -> None:
    # a session file pruned (or never copied) beside its subagents: every lane is listed,
    # triggered at its start, returning its own last text; that no spawn call could be
    # read was said nowhere, so the start read as the true trigger
    home, main = build_home(tmp_path / "claude")
    main.unlink()
    result = cli("--claude-home", str(home.root), "agents", f"@{SID}", "--format", "json")
    assert result.code == 0, result.stderr
    agents = _agents(result)
    assert sorted(agents) == sorted(ALL)
    assert (agents[ASYNC]["spawn_tool_use_id"], agents[ASYNC]["spawn_tool"]) == ("t2", None)
    assert agents[ASYNC]["trigger_utc"] == agents[ASYNC]["started_utc"]
    assert agents[NESTED]["spawn_tool_use_id"] == "t3"  # ASYNC's own call: still read
    assert (f"session {SID} has no transcript of its own on disk (only its subagents'): the "
            "calls it spawned them with are unknown") in result.stderr
    assert "has no transcript of its own" not in _run(cli, build_home(tmp_path / "h2")[0]).stderr


def test_a_session_whose_own_transcript_is_empty_says_so(cli, tmp_path: Path) -> None:
    """A 0-byte session file beside its subagents (real: 2c5941bd, b23cbd1d, 1ca217c4)
    holds no spawn call either: its lanes' starts read as their true triggers, unsaid."""
    home, main = build_home(tmp_path / "claude")
    main.write_bytes(b"")
    result = cli("--claude-home", str(home.root), "agents", f"@{SID}", "--format", "json")
    assert result.code == 0, result.stderr
    assert _agents(result)[ASYNC]["trigger_utc"] == _agents(result)[ASYNC]["started_utc"]
    assert (f"session {SID}'s own transcript is empty (only its subagents' hold records): "
            "the calls it spawned them with are unknown") in result.stderr


def test_broken_side_files_never_drop_a_lane(cli, tmp_path: Path) -> None:
    home, main = build_home(tmp_path / "claude")
    subagents = main.with_suffix("") / "subagents"
    (subagents / f"agent-{EXPLORE}.meta.json").write_text("{not json")
    (main.with_suffix("") / "workflows" / f"{RUN}.json").write_text('{"runId": "wf_r1"}')
    (subagents / f"agent-{ASYNC}.meta.json").write_text(json.dumps(
        {"agentType": "general-purpose", "toolUseId": "toolu_ghost"}))
    result = cli("--claude-home", str(home.root), "agents", f"@{SID}", "--format", "json")
    assert result.code == 0, result.stderr
    agents = _agents(result)
    assert sorted(agents) == sorted(ALL)
    # the broken meta: still joined by the result that names it
    assert agents[EXPLORE]["spawn_tool_use_id"] == "t1" and agents[EXPLORE]["agent_type"] == "Explore"
    assert f"agent {EXPLORE} of session {SID}: its meta.json is not JSON" in result.stderr
    # a spawn id that points nowhere: said, and the result join still finds the call
    assert agents[ASYNC]["spawn_tool_use_id"] == "t2"
    assert "toolu_ghost, which is in no transcript of the session" in result.stderr
    # a manifest with the fields missing: the run stands, its fields null
    [run] = result.json_rows("run")
    assert run["run_id"] == RUN and run["workflow_name"] is None and run["agent_count"] is None


@pytest.mark.parametrize("shape", ["fifo", "dir"])
def test_a_run_manifest_that_is_no_file_is_said(cli, tmp_path: Path, shape: str) -> None:
    # a FIFO (or a dir) in the manifest's slot: the run stood with null fields and nothing
    # said why, as if the run were still going with no manifest written yet
    import os

    home, main = build_home(tmp_path / "claude")
    manifest = main.with_suffix("") / "workflows" / f"{RUN}.json"
    manifest.unlink()
    os.mkfifo(manifest) if shape == "fifo" else manifest.mkdir()
    result = cli("--claude-home", str(home.root), "agents", f"@{SID}", "--format", "json")
    assert result.code == 0, result.stderr
    [run] = result.json_rows("run")
    assert run["run_id"] == RUN and run["workflow_name"] is None
    assert (f"workflow run {RUN} of session {SID}: its manifest cannot be read (not a regular "
            "file)") in result.stderr


def test_a_parent_cycle_is_listed_after_the_tree(cli, home: ClaudeHome) -> None:
    main = home.session(CWD, SID, user("go"), assistant("ok"))
    for agent, parent in (("aaaa0000000000001", "aaaa0000000000002"),
                          ("aaaa0000000000002", "aaaa0000000000001"),
                          ("aaaa0000000000003", None)):
        meta = {"agentType": "Explore"} | ({"parentAgentId": parent} if parent else {})
        home.subagent(main, agent, user("x"), assistant("y"), meta=meta)
    result = cli("--claude-home", str(home.root), "agents", "--format", "json")
    assert result.code == 0, result.stderr
    rows = result.json_rows("agent")
    assert [r["agent_id"] for r in rows] == ["aaaa0000000000003", "aaaa0000000000001",
                                             "aaaa0000000000002"]
    assert "parent cycle aaaa0000000000001 -> aaaa0000000000002 -> aaaa0000000000001" in result.stderr
    text_out = cli("--claude-home", str(home.root), "agents").stdout
    assert text_out.count("builtin-task") == 3


def test_unreadable_lane_is_listed_unknown(cli, rich: ClaudeHome,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from pysift.core import topology as engine
    from pysift.errors import SourceError

    real = engine.open_buffer

    def vanished(path):  # the lane was deleted between the listing and the read
        if str(path).endswith(f"agent-{EXPLORE}.jsonl"):
            raise SourceError(f"cannot read {path}: No such file or directory")
        return real(path)

    monkeypatch.setattr(engine, "open_buffer", vanished)
    result = _run(cli, rich, f"@{SID}", "--format", "json")
    assert result.code == 0, result.stderr
    agents = _agents(result)
    assert sorted(agents) == sorted(ALL)
    assert agents[EXPLORE]["status"] == "unknown" and agents[EXPLORE]["spawn_tool_use_id"] == "t1"
    assert f"agent {EXPLORE} of session {SID}: cannot read" in result.stderr


def test_help(cli) -> None:
    result = cli("agents", "--help")
    assert result.code == 0
    for needle in ("EXAMPLES", '"kind":"agent"', "parent_agent_id", "--order-by",
                   "escalation-blocked", "sync-tool-result"):
        assert needle in result.stdout


def test_many_lane_notes_are_counted_past_the_cap(cli, home: ClaudeHome) -> None:
    from pysift.engines.agents import LANE_NOTES_SHOWN

    main = home.session(CWD, SID, user("go"), assistant("ok"))
    lanes = [f"b{i:016x}" for i in range(LANE_NOTES_SHOWN + 3)]
    for agent in lanes:
        home.subagent(main, agent, user("x"), assistant("y"),
                      meta={"agentType": "Explore", "toolUseId": f"gone_{agent}"})
    result = cli("--claude-home", str(home.root), "agents")
    assert result.code == 0 and result.stdout.count("builtin-task") == len(lanes)
    notes = result.stderr.strip().splitlines()
    assert len(notes) == LANE_NOTES_SHOWN + 1
    assert notes[-1].startswith("pysift: note: 3 more lane note(s) like these not shown")
    one = cli("--claude-home", str(home.root), "agents", "--agent", lanes[-1])
    assert f"gone_{lanes[-1]}" in one.stderr


def test_with_files(cli, rich: ClaudeHome) -> None:
    result = _run(cli, rich, f"@{SID}", "--with-files", "--format", "json")
    assert result.code == 0, result.stderr
    agents = _agents(result)
    assert agents[EXPLORE]["files_changed"] == [
        {"path": f"{CWD}/callers.md", "op": "write", "is_create": True}]
    assert agents[ASYNC]["files_changed"] == []
    assert all("files_changed" not in r for r in _agents(_run(cli, rich, f"@{SID}", "--format",
                                                              "json")).values())
    out = _run(cli, rich, "--agent", EXPLORE, "--with-files").stdout
    assert f"    files      1 changed\n      create       {CWD}/callers.md\n" in out
    assert "    files      (none)\n" in _run(cli, rich, "--agent", ASYNC, "--with-files").stdout


def test_two_transcripts_with_one_agent_id_are_both_listed(cli, home: ClaudeHome) -> None:
    main = home.session(CWD, SID, user("go"), assistant("ok"))
    home.subagent(main, "a77777777777777777", user("x"), assistant("first"),
                  meta={"agentType": "Explore"})
    legacy = home.project_dir(CWD) / "agent-a77777777777777777.jsonl"  # a copied old layout
    legacy.write_bytes(_lane("a77777777777777777", 9, user("x"), assistant("second")).lines())
    result = cli("--claude-home", str(home.root), "agents", f"@{SID}", "--format", "json")
    assert result.code == 0, result.stderr
    rows = result.json_rows("agent")
    assert [r["agent_id"] for r in rows] == ["a77777777777777777"] * 2
    assert "carries agent id a77777777777777777 too" in result.stderr
    grab = cli("--claude-home", str(home.root), "agents", "--agent", "a77777777777777777",
               "--format", "json")
    assert len(grab.json_rows("agent")) == 2


def test_a_lane_that_stopped_on_an_api_error_is_noted(cli, tmp_path: Path) -> None:
    """Its last word is Claude Code's synthetic API error: `completed` in csift's status
    set, and a lane note says it stopped on that error, not on a reply."""
    home = ClaudeHome(tmp_path / "claude")
    sid = "5e55e55e-0000-4000-8000-000000000001"
    s = Session(sid, cwd="/w/api")
    s.add(user("audit the deps"))
    path = home.session("/w/api", sid, s)
    lane = Session(sid, cwd="/w/api", agent_id="a0000000000000001")
    lane.add(user("audit the deps"))
    error = assistant("API Error: 529 Overloaded")
    error["isApiErrorMessage"] = True
    lane.add(error)
    home.subagent(path, "a0000000000000001", lane)
    result = cli("--claude-home", str(home.root), "agents", f"@{sid}")
    assert result.code == 0
    assert "a0000000000000001  builtin-task  completed" in result.stdout
    assert (f"note: agent a0000000000000001 of session {sid}: its last word is an API error "
            "Claude Code wrote, not the agent's reply") in result.stderr


def test_a_prompt_suggestion_that_suggested_nothing_is_over(cli, tmp_path: Path) -> None:
    """Claude Code's prompt suggestion (``aprompt_suggestion-*``, one message, no tools, run
    when a main turn ends) that chose silence writes a thinking-only reply: it read
    `running` forever (real: 7502bc4d), where `status` calls the same lane settled. It is
    completed at that reply, unresolved, and a lane note says it suggested nothing."""
    home = ClaudeHome(tmp_path / "claude")
    sid = "5e55e55e-0000-4000-8000-000000000002"
    lane_id = "aprompt_suggestion-627f64"
    s = Session(sid, cwd="/w/hi")
    s.add(user("hello"))
    s.add(assistant("Hello! What can I do?"))
    path = home.session("/w/hi", sid, s)
    lane = Session(sid, cwd="/w/hi", agent_id=lane_id, start=T0, step=4.0)
    lane.add(user("[SUGGESTION MODE: Suggest what the user might naturally type next.]"))
    lane.add(assistant(thinking("No obvious next step: stay silent."), stop_reason=None))
    home.subagent(path, lane_id, lane)
    result = cli("--claude-home", str(home.root), "agents", f"@{sid}", "--format", "json",
                 "--returned-message")
    assert result.code == 0
    row = result.json_rows("agent")[0]
    assert (row["status"], row["completed_utc"], row["last_activity_utc"]) == (
        "completed", "2026-10-05T09:00:04.000Z", "2026-10-05T09:00:04.000Z")
    assert (row["returned_message"], row["returned_message_source"]) == (None, None)
    assert (f"note: agent {lane_id} of session {sid}: a prompt suggestion Claude Code makes "
            "when a turn ends; its reply holds no text (it suggested nothing)") in result.stderr


def test_an_ordinary_lane_on_a_thinking_only_reply_still_runs(cli, tmp_path: Path) -> None:
    """The rule is the suggestion's alone: a worker lane whose newest record is thinking
    may be mid-reply."""
    home = ClaudeHome(tmp_path / "claude")
    sid = "5e55e55e-0000-4000-8000-000000000003"
    s = Session(sid, cwd="/w/hi")
    s.add(user("hello"))
    path = home.session("/w/hi", sid, s)
    lane = Session(sid, cwd="/w/hi", agent_id="a0000000000000002", start=T0, step=4.0)
    lane.add(user("look around"))
    lane.add(assistant(thinking("Where to start?"), stop_reason=None))
    home.subagent(path, "a0000000000000002", lane)
    result = cli("--claude-home", str(home.root), "agents", f"@{sid}", "--format", "json")
    assert result.json_rows("agent")[0]["status"] == "running"


def test_an_unknown_lanes_sync_result_is_its_outcome_not_history(cli, tmp_path: Path) -> None:
    """A sync spawn whose child transcript is empty (status `unknown`): the orchestrator's
    tool result is written when the child ends, so it is the outcome; it was branded
    "history — predates the still-open lane, NOT the outcome"."""
    h = ClaudeHome(tmp_path / "claude")
    main = Session(SID, cwd=CWD, step=5.0)
    main.add(user("map the callers"))
    main.add(assistant(tool_use("Task", {"description": "Map callers", "subagent_type": "Explore",
                                         "prompt": "map the callers"}, id="t1")))
    main.add(subagent_return("t1", "Three callers.", agent_id=EXPLORE, agent_type="Explore",
                             prompt="map the callers"))
    main_path = h.session(CWD, SID, main)
    h.subagent(main_path, EXPLORE, meta={"agentType": "Explore"})
    result = _run(cli, h, f"@{SID}", "--returned-message")
    assert result.code == 0, result.stderr
    assert f"  {EXPLORE}  builtin-task  [Explore]  unknown\n" in result.stdout
    assert "returned   (sync-tool-result) Three callers." in result.stdout
    assert "history —" not in result.stdout
