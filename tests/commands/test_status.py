"""``status``: the seven verdicts in their precedence, each with its evidence, and every
degradation said. Homes are built with tests/builders.py; the process table and the clock
are the test's."""

from __future__ import annotations

import io
import json
from datetime import timedelta
from pathlib import Path

import pytest

from builders import (
    DEFAULT_START,
    ClaudeHome,
    Session,
    assistant,
    attachment,
    auq_answer,
    auq_use,
    elicitation_pending,
    hook_progress,
    interrupt,
    iso,
    journal_started,
    local_command_stdout,
    rejection,
    slash_command,
    stop_hook_feedback,
    stop_hook_summary,
    subagent_return,
    teammate_message,
    text,
    thinking,
    tool_result,
    tool_use,
    user,
)
from livekit import (
    Processes,
    asctime,
    async_agent_launch,
    bg_shell,
    bg_shell_receipt,
    live_env,
    pulse,
)
from pysift.commands.scope import ScopeArgs
from pysift.commands.status import StatusOptions, run
from pysift.errors import TargetError, UsageError
from pysift.live.background import Lens

SID = "3f6c1e2a-8b4d-4c7e-9a15-2d8e0b7f4c61"
OTHER = "7a2d9c4e-1f3b-4e6a-8c5d-9b0e2f4a6c83"
CWD = "/home/ada/src/orbit"
PID = 4242
BORN = DEFAULT_START - timedelta(hours=1)


def _session(*records) -> Session:  # type: ignore[no-untyped-def]
    s = Session(SID, cwd=CWD)
    s.add(user("make the release"))
    for r in records:
        s.add(r)
    return s


def _status(home: ClaudeHome, s: Session, *, processes: Processes | None = None,
            after: float = 30, lens: Lens | None = None, target: str = f"@{SID}",
            subagents: bool = True) -> dict:
    home.session(CWD, SID, s)
    env = live_env(home.root, s.now + timedelta(seconds=after), processes)
    report = run(StatusOptions(scope=ScopeArgs(targets=(target,), subagents=subagents),
                              lens=lens or Lens()), env)
    row = report.rows[0]
    out = io.StringIO()
    assert report.text is not None
    report.text(out)
    row["_text"] = out.getvalue()
    row["_header"] = report.header
    return row


def _alive() -> Processes:
    return Processes(alive={PID: BORN.timestamp()})


def _row(home: ClaudeHome, status: str | None = "idle", **fields) -> None:  # type: ignore[no-untyped-def]
    fields.setdefault("procStart", asctime(BORN))
    home.registry_row(PID, SID, status, **fields)


def _surfaces(row: dict) -> dict[str, str]:
    return {e["surface"]: e["value"] for e in row["evidence"]}


# -- the verdicts, in precedence order ------------------------------------------------------


def test_dead_owner_is_stale_dead_even_with_a_call_open(home: ClaudeHome) -> None:
    _row(home, "busy")
    row = _status(home, _session(assistant(tool_use("Bash", {"command": "make"}, id="b1"))),
                  processes=Processes())
    assert row["verdict"] == "stale-dead"
    assert _surfaces(row)["pid"] == "dead"
    assert any("died in the middle of a tool call" in n for n in row["notes"])


def test_a_dead_owners_live_looking_lanes_are_said_to_run_no_more(home: ClaudeHome) -> None:
    """Subagent lanes run inside the session's process: with it dead, a lane frozen on a
    call is where its transcript stops. Status says so beside its in-flight row, and
    agents, which probes no process, says what its `running` rests on (the two read the
    same lane; agents listed it `running` with no word)."""
    _row(home, "busy")
    s = _session(assistant(tool_use("Agent", {"description": "Audit", "prompt": "audit",
                                              "subagent_type": "general-purpose"},
                                    id="toolu_ag")))
    lane = Session(SID, cwd=CWD, agent_id=LANE, start=s.now)
    lane.add(user("audit"))
    lane.add(assistant(tool_use("Bash", {"command": "npm audit"}, id="b1")))
    path = home.session(CWD, SID, s)
    home.subagent(path, LANE, lane)
    row = _status(home, s, processes=Processes())
    assert row["verdict"] == "stale-dead"
    assert [c["state"] for c in row["children"]] == ["in-flight"]
    assert any(n.startswith("1 subagent lane(s) read live from their transcripts ran in "
                            "that process and run no more") for n in row["notes"])
    status, notes = _agents_status(home)
    assert status == "running"
    assert any(n.startswith("note: 1 lane(s) read `running` from their transcripts alone")
               and "`pysift status @<session>` says whether it still runs" in n
               for n in notes)


def test_reused_pid_is_stale_dead(home: ClaudeHome) -> None:
    _row(home, "idle")
    later = Processes(alive={PID: BORN.timestamp() + 7200})
    row = _status(home, _session(assistant("done")), processes=later)
    assert row["verdict"] == "stale-dead"
    assert _surfaces(row)["pid"] == "pid reused by another process"


def test_registry_waiting_is_hitl(home: ClaudeHome) -> None:
    _row(home, "waiting")
    row = _status(home, _session(assistant("shall I?")), processes=_alive())
    assert row["verdict"] == "waiting-hitl"
    assert _surfaces(row)["registry"] == f"status waiting (pid {PID})"


def test_sidecar_pending_ask_is_hitl_and_listed(home: ClaudeHome) -> None:
    s = _session(assistant("let me ask"))
    path = home.session(CWD, SID, s)
    ask = s.stamp(assistant(auq_use([{"question": "Publish to PyPI?", "header": "Where",
                                      "multiSelect": False, "options": []}], id="ask9")),
                  commit=False)
    home.sidecar(path, [elicitation_pending(ask, "ask9")])
    row = _status(home, s)
    assert row["verdict"] == "waiting-hitl"
    assert row["pending"] == ["AskUserQuestion"]
    assert _surfaces(row)["sidecar"] == "pending elicitation: AskUserQuestion: Publish to PyPI?"


def test_unanswered_ask_at_the_tail_is_hitl(home: ClaudeHome) -> None:
    ask = auq_use([{"question": "A or B?", "header": "Pick", "multiSelect": False,
                    "options": []}, {"question": "Now?", "header": "When",
                                     "multiSelect": False, "options": []}], id="ask1")
    row = _status(home, _session(assistant(ask)))
    assert row["verdict"] == "waiting-hitl"
    assert row["tail_state"].startswith("in a AskUserQuestion call for 30s")


def test_open_call_is_running(home: ClaudeHome) -> None:
    _row(home, "busy")
    row = _status(home, _session(assistant(tool_use("Bash", {"command": "pytest"}, id="b1"))),
                  processes=_alive(), after=34)
    assert row["verdict"] == "running"
    assert row["tail_state"] == "in a Bash call for 34s"
    assert _surfaces(row)["pid"] == "alive (start-time guard matched)"
    assert any(e["surface"] == "tail" and e["age_secs"] == 34 for e in row["evidence"])


def test_registry_busy_alone_is_running(home: ClaudeHome) -> None:
    _row(home, "busy")
    row = _status(home, _session(assistant(text("thinking"), stop_reason=None)),
                  processes=_alive())
    assert row["verdict"] == "running"


def _turn_ended_then_side_lane(home: ClaudeHome, lane_id: str, prompt: str,
                               *replies) -> dict:  # type: ignore[no-untyped-def]
    """The main turn ends; Claude Code then writes a lane of its own harness side call,
    a second later, whose reply (a subagent's) carries no stop_reason."""
    s = _session(assistant("the release is tagged"))
    path = home.session(CWD, SID, s)
    lane = Session(SID, cwd=CWD, agent_id=lane_id, start=s.now + timedelta(seconds=1))
    lane.add(user(prompt))
    for reply in replies:
        lane.add(reply)
    home.subagent(path, lane_id, lane)
    return _status(home, s, after=10)


def test_a_prompt_suggestion_after_the_turn_is_no_child_to_wait_on(home: ClaudeHome) -> None:
    """Real 4ee0e48e: after each end of turn a prompt-suggestion lane read `generating`
    for 300 s, so the session read waiting-children and `wait --until stop` hung."""
    row = _turn_ended_then_side_lane(
        home, "aprompt_suggestion-0e2fb6",
        "[SUGGESTION MODE: Suggest what the user might naturally type next into Claude Code.]",
        assistant(thinking("They just tagged the release; nothing obvious follows."),
                  stop_reason=None))
    assert row["verdict"] == "idle-eot"
    assert row["children"] == [] and row["settled_children"] == 1


def test_a_compaction_lane_is_live_until_its_summary_is_written(home: ClaudeHome) -> None:
    row = _turn_ended_then_side_lane(
        home, "acompact-b688ee", "Your task is to create a detailed summary of the conversation",
        assistant(thinking("Let me analyze the conversation chronologically."),
                  stop_reason=None))
    assert row["verdict"] == "waiting-children"
    assert row["children"][0]["state"] == "generating"


def test_a_compaction_lane_with_its_summary_is_settled(home: ClaudeHome) -> None:
    row = _turn_ended_then_side_lane(
        home, "acompact-b688ee", "Your task is to create a detailed summary of the conversation",
        assistant(thinking("Let me analyze the conversation chronologically."),
                  stop_reason=None),
        assistant("<analysis>the release work</analysis><summary>1. Primary request: tag the "
                  "release</summary>", stop_reason=None))
    assert row["verdict"] == "idle-eot"
    assert row["children"] == [] and row["settled_children"] == 1


def test_an_agents_text_without_a_return_still_reads_generating(home: ClaudeHome) -> None:
    """The rule is the side calls' alone: a subagent writes text mid-message."""
    row = _turn_ended_then_side_lane(home, "a0123456789abcdef", "audit the deps",
                                     assistant("Looking at the lockfile first.",
                                               stop_reason=None))
    assert row["verdict"] == "waiting-children"


def test_live_child_is_waiting_children(home: ClaudeHome) -> None:
    s = _session(assistant(tool_use("Agent", {"prompt": "audit", "run_in_background": True},
                                    id="sp1")))
    s.add(tool_result("sp1", "Async agent launched successfully.\nagentId: a0123456789abcdef",
                      tool_use_result={"status": "async_launched", "agentId": "a0123456789abcdef"}))
    s.add(assistant("started it"))
    path = home.session(CWD, SID, s)
    lane = Session(SID, cwd=CWD, agent_id="a0123456789abcdef", start=s.now)
    lane.add(user("audit"))
    lane.add(assistant(tool_use("Bash", {"command": "npm audit"}, id="lb1")))
    home.subagent(path, "a0123456789abcdef", lane)
    row = _status(home, s, after=20)
    assert row["verdict"] == "waiting-children"
    assert row["children"] == [{"session_id": "a0123456789abcdef", "state": "in-flight",
                                "detail": "unanswered Bash call for 15s"}]
    assert row["settled_children"] == 0
    assert _surfaces(row)["children"] == "1 lane(s), 1 live"
    assert "child     a0123456789abcdef  in-flight" in row["_text"]


def test_open_background_task_after_end_turn(home: ClaudeHome) -> None:
    _row(home, "shell")
    s = _session(bg_shell("npm run dev", "Start the dev server", "toolu_dev"),
                 bg_shell_receipt("toolu_dev", "b7k2m9x1p"), assistant("the server is up"))
    row = _status(home, s, processes=_alive())
    assert row["verdict"] == "idle-background-open"
    bg = row["background"]
    assert bg["open"] == 1 and bg["tasks"][0]["id"] == "b7k2m9x1p"
    assert bg["tasks"][0]["launched_local"] is not None
    assert "bg        shell   b7k2m9x1p " in row["_text"]
    assert '"Start the dev server"' in row["_text"]


def test_a_dev_server_stopped_with_taskstop_ends_in_idle_eot(home: ClaudeHome) -> None:
    """Claude Code writes no task notification after a TaskStop: its result is the word."""
    _row(home, "idle")
    s = _session(bg_shell("npm run dev", "Start the dev server", "toolu_dev"),
                 bg_shell_receipt("toolu_dev", "b7k2m9x1p"),
                 assistant(tool_use("TaskStop", {"task_id": "b7k2m9x1p"}, id="toolu_stop")),
                 tool_result("toolu_stop", "Successfully stopped task: b7k2m9x1p (npm run dev)",
                             tool_use_result={
                                 "message": "Successfully stopped task: b7k2m9x1p (npm run dev)",
                                 "task_id": "b7k2m9x1p", "task_type": "local_bash"}),
                 assistant("stopped the server"))
    row = _status(home, s, processes=_alive())
    assert row["verdict"] == "idle-eot"
    assert (row["background"]["open"], row["background"]["stopped"]) == (0, 1)


def _background_workflow(home: ClaudeHome, manifest_status: str | None) -> dict:
    """A Workflow run launched in the background; Claude Code writes its run manifest
    (``<uuid>/workflows/wf_*.json``) when the run ends. The transcript stops before any
    task notification (the session was closed, or the pulse was never delivered)."""
    s = _session(
        assistant(tool_use("Workflow", {"script": "export const meta = {name: 'review'}"},
                           id="toolu_wf")),
        tool_result("toolu_wf", "Workflow launched in background. Task ID: task_rv01",
                    tool_use_result={"isAsync": True, "status": "async_launched",
                                     "runId": "wf_rv01", "taskId": "task_rv01"}),
        assistant("the review runs in the background"))
    path = home.session(CWD, SID, s)
    if manifest_status is not None:
        home.workflow_run(path, "wf_rv01", {
            "runId": "wf_rv01", "taskId": "task_rv01", "status": manifest_status,
            "workflowName": "review", "timestamp": iso(s.now), "agentCount": 2})
    _row(home, "idle")
    return _status(home, s, processes=_alive())


def test_a_background_workflow_whose_run_manifest_says_completed_is_closed(
        home: ClaudeHome) -> None:
    row = _background_workflow(home, "completed")
    assert row["verdict"] == "idle-eot"
    assert (row["background"]["open"], row["background"]["completed"]) == (0, 1)
    assert any("run manifest" in n for n in row["background"]["notes"])


def test_a_background_workflow_without_its_manifest_stays_open(home: ClaudeHome) -> None:
    row = _background_workflow(home, None)
    assert row["verdict"] == "idle-background-open"
    assert row["background"]["tasks"][0]["id"] == "task_rv01"


def test_a_manifest_with_no_final_status_closes_nothing(home: ClaudeHome) -> None:
    row = _background_workflow(home, "running")
    assert row["verdict"] == "idle-background-open"


@pytest.mark.parametrize(("ending", "why"), [
    ((assistant(tool_use("Bash", {"command": "make deploy"}, id="b9")),
      tool_result("b9", "The user doesn't want to proceed with this tool use.", is_error=True),
      interrupt(for_tool_use=True)), "the user interrupted it"),
    ((assistant("Reading the release notes", stop_reason=None), interrupt()),
     "the user interrupted it"),
    ((assistant("Tagged.", stop_reason=None), slash_command("exit"),
      local_command_stdout("See ya!")), "a local command ran"),
    ((assistant("Session limit reached \u2219 resets 11pm", stop_reason="stop_sequence",
                isApiErrorMessage=True),), "an API error Claude Code wrote ended it"),
])
def test_a_turn_the_harness_ended_is_idle_without_a_registry_row(
        home: ClaudeHome, ending: tuple, why: str) -> None:
    """No end_turn (older builds write none; an interrupt, a local command or a final API
    error writes none either), no registry row: the marker the harness wrote is the word.
    Real sessions 04053218, cf400a9d and others read `unknown`, so `wait --until stop`
    ran to its timeout."""
    row = _status(home, _session(*ending))
    assert row["verdict"] == "idle-eot"
    assert any(n.startswith(f"the main turn ended: {why}") for n in row["notes"])
    assert row["tail_state"].startswith(f"idle (the turn ended: {why}")  # not generating


def test_a_local_command_run_while_the_model_works_ends_no_turn(home: ClaudeHome) -> None:
    row = _status(home, _session(assistant(tool_use("Read", {"file_path": "CHANGELOG.md"},
                                                    id="r1")),
                                 tool_result("r1", "## 1.4.0"), slash_command("cost"),
                                 local_command_stdout("Total cost: $0.42")), after=5)
    assert row["verdict"] == "unknown"


def test_a_prompt_after_the_interrupt_is_a_new_turn(home: ClaudeHome) -> None:
    row = _status(home, _session(assistant("Reading", stop_reason=None), interrupt(),
                                 user("no, deploy to staging first")), after=5)
    assert row["verdict"] == "unknown"


def test_the_lens_turns_it_into_idle_eot(home: ClaudeHome) -> None:
    from pysift.live.conditions import compile_exact

    _row(home, "shell")
    s = _session(bg_shell("npm run dev", "Start the dev server", "toolu_dev"),
                 bg_shell_receipt("toolu_dev", "b7k2m9x1p"), assistant("the server is up"))
    lens = Lens(ignore=(("npm run dev", compile_exact("npm run dev", "x")),))
    row = _status(home, s, processes=_alive(), lens=lens)
    assert row["verdict"] == "idle-eot"
    assert row["background"]["ignored"] == 1
    assert row["background"]["tasks"][0]["ignored_by"] == "matches --ignore-background npm run dev"
    assert "[ignored: matches --ignore-background npm run dev]" in row["_text"]
    assert any("registry status shell" in n and "does not count" in n for n in row["notes"])


def test_background_since_now_excludes_older_launches(home: ClaudeHome) -> None:
    s = _session(bg_shell("npm run dev", "dev", "toolu_dev"),
                 bg_shell_receipt("toolu_dev", "b7k2m9x1p"), assistant("up"))
    lens = Lens(since=s.now + timedelta(seconds=30), since_raw="now")
    row = _status(home, s, lens=lens)
    assert row["verdict"] == "idle-eot"
    assert row["background"]["tasks"][0]["ignored_by"] == "launched before --background-since now"


def test_clean_end_turn_is_idle_eot(home: ClaudeHome) -> None:
    _row(home, "idle")
    row = _status(home, _session(assistant("done")), processes=_alive())
    assert row["verdict"] == "idle-eot"
    assert any("permission prompt" in n and "status idle" in n for n in row["notes"])


def test_registry_shell_without_an_open_task_reads_idle_eot(home: ClaudeHome) -> None:
    _row(home, "shell")
    row = _status(home, _session(assistant(text("done"), stop_reason=None)),
                  processes=_alive(), after=600)
    assert row["verdict"] == "idle-eot"
    assert any("registry status shell" in n for n in row["notes"])


def test_unranked_tail_is_unknown_and_says_why(home: ClaudeHome) -> None:
    row = _status(home, _session(assistant(text("hm"), stop_reason=None)), after=900)
    assert row["verdict"] == "unknown"
    assert any("cannot be ranked" in n for n in row["notes"])
    assert any("no registry row names this session" in n and "transcript alone" in n
               for n in row["notes"])


def test_unranked_tail_mid_reply_says_a_reply_may_come(home: ClaudeHome) -> None:
    row = _status(home, _session(assistant(tool_use("Read", {"file_path": "a"}, id="r1")),
                                 tool_result("r1", "text")), after=12)
    assert row["verdict"] == "unknown"
    assert row["tail_state"].startswith("generating (last record 12s ago")
    assert any("a reply may be on its way" in n for n in row["notes"])


# -- degradations ----------------------------------------------------------------------------


def test_foreign_pid_domain_is_said_not_probed(home: ClaudeHome) -> None:
    _row(home, "idle", pidDomain="win32:DESKTOP-7")
    table = Processes()
    row = _status(home, _session(assistant("done")), processes=table)
    assert _surfaces(row)["pid"] == "row from another pid domain (win32:DESKTOP-7)"
    assert table.probes == 0
    assert any("another pid domain" in n for n in row["notes"])


def test_skipped_reuse_guard_is_said(home: ClaudeHome) -> None:
    home.registry_row(PID, SID, "idle")  # no procStart
    row = _status(home, _session(assistant("done")), processes=_alive())
    assert _surfaces(row)["pid"] == "alive (pid only)"
    assert any("pid-reuse guard was skipped" in n for n in row["notes"])


def test_claude_p_row(home: ClaudeHome) -> None:
    _row(home, None, entrypoint="sdk-cli")
    row = _status(home, _session(assistant("done")), processes=_alive())
    assert _surfaces(row)["registry"].startswith("status null (pid 4242; a claude -p row")
    assert row["verdict"] == "idle-eot"


def test_registry_row_not_json_is_said(home: ClaudeHome) -> None:
    (home.root / "sessions").mkdir(parents=True)
    (home.root / "sessions" / "4242.json").write_text('{"pid": 4242, "sessionId": "3f6c1e')
    row = _status(home, _session(assistant("done")))
    assert any("4242.json: not JSON" in n for n in row["notes"])


def test_unknown_registry_status_is_not_a_signal(home: ClaudeHome) -> None:
    _row(home, "compacting")
    row = _status(home, _session(assistant("done")), processes=_alive())
    assert row["verdict"] == "idle-eot"
    assert any("outside the known set" in n for n in row["notes"])


# -- sections ----------------------------------------------------------------------------------


def test_settled_children_fold_and_returns_settle(home: ClaudeHome) -> None:
    s = _session(*async_agent_launch("toolu_ag", "a1b2c3d4e5f607182", "Audit"))
    s.add(user(pulse("a1b2c3d4e5f607182", "completed", 'Agent "Audit" completed',
                     tool_use_id="toolu_ag"), origin={"kind": "task-notification"}))
    s.add(assistant("all done"))
    path = home.session(CWD, SID, s)
    lane = Session(SID, cwd=CWD, agent_id="a1b2c3d4e5f607182", start=s.now - timedelta(seconds=20))
    lane.add(user("Audit"))
    lane.add(assistant(text("mid-message"), stop_reason=None))
    home.subagent(path, "a1b2c3d4e5f607182", lane)
    old = Session(SID, cwd=CWD, agent_id="aold0000000000001", start=s.now - timedelta(days=2))
    old.add(user("x"))
    old.add(assistant("y"))
    home.subagent(path, "aold0000000000001", old)
    row = _status(home, s, after=5)
    assert row["verdict"] == "idle-eot"
    assert row["children"] == [] and row["settled_children"] == 2
    assert "child     2 settled lane(s) folded" in row["_text"]


def _returned_lane(home: ClaudeHome, *, worked_after: bool) -> Session:
    """A session whose Task call's result names its lane, the lane ending with a null
    stop_reason (as subagents normally do); ``worked_after``: the lane went on after."""
    s = _session(assistant(tool_use("Task", {"prompt": "look", "description": "look"},
                                    id="task1")))
    path = home.session(CWD, SID, s)
    lane = Session(SID, cwd=CWD, agent_id="a5555555555555555", start=s.now)
    lane.add(user("look"))
    lane.add(assistant(text("found it"), stop_reason=None))
    s.add(subagent_return("task1", "found it", agent_id="a5555555555555555",
                          agent_type="Explore", prompt="look"))
    if worked_after:
        lane.at(s.now + timedelta(seconds=10))
        lane.add(user("and the tests too"))
        lane.add(assistant(text("looking"), stop_reason=None))
    home.subagent(path, "a5555555555555555", lane)
    return s


def test_sync_return_settles_a_generating_lane(home: ClaudeHome) -> None:
    s = _returned_lane(home, worked_after=False)
    s.add(assistant("the agent found it"))
    row = _status(home, s, after=5)
    assert row["children"] == [] and row["settled_children"] == 1
    assert row["verdict"] == "idle-eot"


def test_journal_agent_in_flight(home: ClaudeHome) -> None:
    s = _session(assistant("launched the workflow"))
    path = home.session(CWD, SID, s)
    home.journal(path, "wf_run1", [journal_started("aw1", "k1")])
    row = _status(home, s)
    assert row["verdict"] == "waiting-children"
    assert _surfaces(row)["children"] == "0 lane(s), 1 live (1 workflow agent(s) in flight by the journal)"


def test_agents_of_a_workflow_run_that_ended_are_not_in_flight(home: ClaudeHome) -> None:
    """The run was killed: its manifest (written when a run ends) says so, while its
    journal keeps an agent started without a result and that agent's lane stays on the
    call it was killed in. Neither is work in flight."""
    s = _session(assistant("launched the workflow"))
    path = home.session(CWD, SID, s)
    home.journal(path, "wf_run1", [journal_started("aw1", "k1"),
                                   journal_started("aw2", "k2")])
    lane = Session(SID, cwd=CWD, agent_id="aw2", start=s.now)
    lane.add(user("review the parser"))
    lane.add(assistant(tool_use("Read", {"file_path": "parser.py"}, id="rp")))
    home.subagent(path, "aw2", lane, workflow="wf_run1")
    home.workflow_run(path, "wf_run1", {"runId": "wf_run1", "status": "killed",
                                        "workflowName": "review"})
    row = _status(home, s)
    assert row["verdict"] == "idle-eot"
    assert _surfaces(row)["children"] == "1 lane(s), 0 live"
    # agents keeps its lane `running` (the status set has no "stopped unfinished" word)
    # and says that its run ended (it read `running` silently)
    status, notes = _agents_status(home, "aw2")
    assert status == "running"
    assert (f"note: agent aw2 of session {SID}: its workflow run wf_run1 has ended (its "
            "manifest says killed) without its result in the journal: it runs no more, and "
            "`running` is where its transcript stops (`status` reads the lane settled)"
            ) in notes


@pytest.mark.parametrize("manifest", [("wf_other", "completed"), ("wf_run1", "running")])
def test_a_run_without_its_final_manifest_keeps_its_agents_in_flight(
        home: ClaudeHome, manifest: tuple[str, str]) -> None:
    s = _session(assistant("launched the workflow"))
    path = home.session(CWD, SID, s)
    home.journal(path, "wf_run1", [journal_started("aw1", "k1")])
    home.workflow_run(path, manifest[0], {"runId": manifest[0], "status": manifest[1]})
    row = _status(home, s)
    assert row["verdict"] == "waiting-children"


def test_tasks_section_merges_both_dir_forms(home: ClaudeHome) -> None:
    home.task(SID, "1", "Write the parser", "completed")
    home.task(SID, "3", "Ship it", "pending", blocked_by=["2"])
    home.task(f"session-{SID[:8]}", "2", "Test the parser", "in_progress")
    row = _status(home, _session(assistant("done")))
    assert row["tasks"] == [
        {"id": "2", "subject": "Test the parser", "status": "in_progress", "blocked_by": []},
        {"id": "3", "subject": "Ship it", "status": "pending", "blocked_by": ["2"]}]
    assert row["tasks_completed"] == 1
    assert "  task      #3 pending  Ship it  (blocked by #2)\n" in row["_text"]
    assert "  tasks     2 open ; 1 completed\n" in row["_text"]


def test_no_task_dir_is_null_and_an_empty_one_is_empty(home: ClaudeHome) -> None:
    row = _status(home, _session(assistant("done")))
    assert row["tasks"] is None and row["tasks_completed"] is None
    (home.root / "tasks" / SID).mkdir(parents=True)
    row = _status(home, _session(assistant("done")))
    assert row["tasks"] == [] and row["tasks_completed"] == 0


def test_last_messages_are_excerpts(home: ClaudeHome) -> None:
    s = _session(assistant("x" * 450))
    row = _status(home, s)
    agent = row["last"]["agent"]
    assert agent["truncated"] is True
    assert agent["text"] == "x" * 400 + "… (+50 chars)"
    assert row["last"]["user"]["text"] == "make the release"
    assert "partial view of the final state" in row["_text"]


def test_last_human_prompt_below_the_window(home: ClaudeHome) -> None:
    s = _session()
    for i in range(150):
        s.add(assistant(tool_use("Read", {"file_path": f"f{i}"}, id=f"r{i}")))
        s.add(tool_result(f"r{i}", "y" * 5000))
    s.add(assistant("read them all"))
    row = _status(home, s)
    assert row["last"]["user"]["text"] == "make the release"


def _string_reply(words: str) -> dict:  # type: ignore[type-arg]
    """An assistant record whose ``message.content`` is a string (csift §3.4)."""
    record = assistant("placeholder")
    record["message"]["content"] = words
    return record


def test_last_agent_message_reads_a_string_content(home: ClaudeHome) -> None:
    """The newest assistant words are a string ``content`` as list reads them: status
    passed over it for an older text block (SPEC §11c, §6)."""
    row = _status(home, _session(assistant("Deploy FAILED: missing credentials."),
                                 user("I added them, retry"),
                                 _string_reply("Deploy succeeded.")))
    assert row["last"]["agent"]["text"] == "Deploy succeeded."
    assert row["last"]["user"]["text"] == "I added them, retry"


def test_last_agent_string_content_below_the_window(home: ClaudeHome) -> None:
    """Below the tail window a string content is no ``"text"`` key: the byte gate must
    still let its line be decoded."""
    s = _session(assistant("an older reply"), _string_reply("the newest reply"))
    for i in range(150):
        s.add(assistant(tool_use("Read", {"file_path": f"f{i}"}, id=f"r{i}")))
        s.add(tool_result(f"r{i}", "y" * 5000))
    row = _status(home, s)
    assert row["last"]["agent"]["text"] == "the newest reply"


QUESTION = {"question": "Which entity?", "header": "Entity", "options": ["alpha", "beta"]}


def test_last_human_message_is_an_askuserquestion_answer(home: ClaudeHome) -> None:
    """An AskUserQuestion answer is the human's latest turn (csift §4.4), rendered as list
    and search render it: status showed the older typed prompt."""
    row = _status(home, _session(assistant(auq_use([QUESTION], id="toolu_q")),
                                 auq_answer("toolu_q", {"Which entity?": "beta, and stop"}),
                                 assistant("Using beta.")))
    assert row["last"]["user"]["text"] == (
        "[AskUserQuestion · 1 question] Q1 (Entity): Which entity? options: alpha | beta "
        "A1: beta, and stop")


def test_last_human_message_is_a_typed_rejection(home: ClaudeHome) -> None:
    """A rejection's typed words are the human's latest turn, with the plan pointer list
    gives an ExitPlanMode rejection."""
    plan = "/home/ada/.claude/plans/quiet.md"
    row = _status(home, _session(
        assistant(tool_use("ExitPlanMode", {"plan": "# p", "planFilePath": plan},
                           id="toolu_exit")),
        rejection("toolu_exit", "smaller please"),
        assistant("Trimming it.")))
    assert row["last"]["user"]["text"] == f"smaller please [plan: {plan}]"


def test_last_messages_agree_with_list(cli, home: ClaudeHome) -> None:
    """status's last ◂ / last ▸ are list's: one reading of the same records."""
    s = _session(assistant(auq_use([QUESTION], id="toolu_q")),
                 auq_answer("toolu_q", {"Which entity?": "alpha"}),
                 _string_reply("Done with alpha."))
    row = _status(home, s)
    (listed,) = cli("--claude-home", str(home.root), "list", f"@{SID}", "--format",
                    "json").json_rows("session")
    assert row["last"]["user"]["text"] == listed["last_user"]["excerpt"]
    assert row["last"]["agent"]["text"] == listed["last_agent"]["excerpt"]
    assert row["last"]["user"]["ts_utc"] == listed["last_user"]["ts_utc"]
    assert row["last"]["agent"]["ts_utc"] == listed["last_agent"]["ts_utc"]


def test_header_is_the_session_trio(home: ClaudeHome) -> None:
    row = _status(home, _session(assistant("done")))
    assert row["_header"] == {"session_id": SID, "is_subagent": False, "parent_session_id": SID}


def _grepping_lane(home: ClaudeHome) -> tuple[Session, Path]:
    """A session whose subagent a9999999999999999 is inside a Grep call; the session and
    its transcript's path."""
    s = _session(assistant("done"))
    path = home.session(CWD, SID, s)
    lane = Session(SID, cwd=CWD, agent_id="a9999999999999999", start=s.now)
    lane.add(user("dig"))
    lane.add(assistant(tool_use("Grep", {"pattern": "x"}, id="g1")))
    home.subagent(path, "a9999999999999999", lane)
    return s, path


def test_subagent_target_reads_its_own_tail_and_its_parents_process(home: ClaudeHome) -> None:
    s, _ = _grepping_lane(home)
    _row(home, "idle")
    row = _status(home, s, target="@a9999999999999999", processes=_alive())
    assert row["_header"]["is_subagent"] is True
    assert row["verdict"] == "running"
    assert any("the parent session's" in n for n in row["notes"])
    assert any("belong to its session" in n for n in row["notes"])


def test_a_subagent_whose_session_has_no_transcript_points_where_an_answer_is(
        home: ClaudeHome) -> None:
    """The lane's session has no transcript of its own (only its subagents remain):
    `status @<session>` is refused there, so the note names the session and the listing
    that answers, not that refused command."""
    s, path = _grepping_lane(home)
    path.unlink()
    env = live_env(home.root, s.now + timedelta(seconds=30), _alive())
    report = run(StatusOptions(scope=ScopeArgs(targets=("@a9999999999999999",))), env)
    [note] = [n for n in report.rows[0]["notes"] if "belong to its session" in n]
    assert f"pysift status @{SID}" not in note
    assert f"{SID}, which has no transcript of its own here (pysift list @{SID}" in note


def test_a_subagent_target_that_returned_ended_its_turn(home: ClaudeHome) -> None:
    s = _returned_lane(home, worked_after=False)
    row = _status(home, s, target="@a5555555555555555", after=600)
    assert row["verdict"] == "idle-eot"
    assert "this lane returned (its spawning call's result is in the main transcript)" \
        in row["notes"]


def test_an_async_agent_stopped_with_taskstop_says_how_it_ended(home: ClaudeHome) -> None:
    """The main stops a background agent with TaskStop: no pulse follows, and the lane's
    note names the stop, not a completion pulse that is not there."""
    s = _session(*async_agent_launch("sp1", "a0123456789abcdef", "Audit the deps"))
    s.add(assistant(tool_use("TaskStop", {"task_id": "a0123456789abcdef"}, id="stop1")))
    s.add(tool_result("stop1", "Successfully stopped task: a0123456789abcdef (Audit the deps)",
                      tool_use_result={
                          "message": "Successfully stopped task: a0123456789abcdef (Audit "
                                     "the deps)",
                          "task_id": "a0123456789abcdef", "task_type": "local_agent"}))
    path = home.session(CWD, SID, s)
    lane = Session(SID, cwd=CWD, agent_id="a0123456789abcdef",
                   start=s.now - timedelta(minutes=2))  # it worked before the stop
    lane.add(user("audit"))
    lane.add(assistant("Reading the lockfile.", stop_reason=None))
    home.subagent(path, "a0123456789abcdef", lane)
    row = _status(home, s, target="@a0123456789abcdef", after=5)
    assert row["verdict"] == "idle-eot"
    assert "this lane returned (a task tool stopped it)" in row["notes"]


def _teammate_that_exited(home: ClaudeHome) -> Session:
    """The lead ended its turn; its teammate approved the shutdown request a moment ago
    (a real K3RN shape: the lane ends on the SendMessage result)."""
    s = _session(assistant("shutting the team down"))
    path = home.session(CWD, SID, s)
    lane = Session(SID, cwd=CWD, agent_id="a0123456789abcdef", start=s.now)
    lane.add(teammate_message("team-lead", '{"type":"shutdown_request","requestId":'
                              '"shutdown-1@cards-api-agent","from":"team-lead"}'))
    lane.add(assistant(tool_use("SendMessage", {"type": "shutdown_response",
                                                "request_id": "shutdown-1@cards-api-agent",
                                                "approve": True}, id="sd1"), stop_reason=None))
    echo = {"success": True, "message": "Shutdown approved. Sent confirmation to team-lead. "
            "Agent cards-api-agent is now exiting.", "request_id": "shutdown-1@cards-api-agent"}
    lane.add(tool_result("sd1", json.dumps(echo), tool_use_result=echo))
    home.subagent(path, "a0123456789abcdef", lane)
    return s


def test_a_teammate_that_exited_is_no_live_child(home: ClaudeHome) -> None:
    row = _status(home, _teammate_that_exited(home), after=10)
    assert row["verdict"] == "idle-eot"
    assert row["children"] == [] and row["settled_children"] == 1


def test_a_teammate_target_that_exited_ended_its_turn(home: ClaudeHome) -> None:
    row = _status(home, _teammate_that_exited(home), target="@a0123456789abcdef", after=10)
    assert row["verdict"] == "idle-eot"
    assert "this lane returned (it approved its shutdown request and exited)" in row["notes"]


def test_a_returned_subagent_target_is_not_said_to_be_generating(home: ClaudeHome) -> None:
    """Its null stop_reason and a record younger than 300 s read "generating" from the tail
    alone; the return the verdict reads says it ended, and tail_state says so too."""
    s = _returned_lane(home, worked_after=False)
    row = _status(home, s, target="@a5555555555555555", after=20)
    assert row["verdict"] == "idle-eot"
    assert not row["tail_state"].startswith("generating")
    assert row["tail_state"].startswith("idle (returned: its spawning call's result is in "
                                        "the main transcript; last stop_reason (none), "
                                        "last record ")


def test_a_subagent_whose_session_transcript_is_gone_does_not_claim_no_return(
        home: ClaudeHome) -> None:
    """Its return would be in its session's main transcript; with that file gone, "no
    return of this lane is in its session's main transcript" states an absence never
    looked for."""
    s = _returned_lane(home, worked_after=False)
    path = home.session(CWD, SID, s)
    env = live_env(home.root, s.now + timedelta(seconds=600), None)
    path.unlink()
    report = run(StatusOptions(scope=ScopeArgs(targets=(str(next(
        (path.parent / SID / "subagents").glob("agent-*.jsonl"))),))), env)
    row = report.rows[0]
    assert row["verdict"] == "unknown"
    assert not any("no return of this lane is in" in n for n in row["notes"])
    assert any("its session's main transcript" in n and "is not there" in n
               for n in row["notes"])


def test_a_subagent_target_that_worked_after_its_return_is_not_settled(home: ClaudeHome
                                                                        ) -> None:
    s = _returned_lane(home, worked_after=True)
    row = _status(home, s, target="@a5555555555555555", after=600)
    assert row["verdict"] == "unknown"
    assert not any("this lane returned" in n for n in row["notes"])


# -- targets -------------------------------------------------------------------------------------


def test_no_target_is_a_usage_error(home: ClaudeHome) -> None:
    home.session(CWD, SID, _session(assistant("done")))
    with pytest.raises(UsageError, match="needs a target"):
        run(StatusOptions(), live_env(home.root, DEFAULT_START))


def test_two_targets_are_refused(home: ClaudeHome) -> None:
    with pytest.raises(UsageError, match="exactly one session per call; got 2"):
        run(StatusOptions(scope=ScopeArgs(targets=("@a", "@b"))),
            live_env(home.root, DEFAULT_START))


def test_a_project_with_two_sessions_is_refused_naming_them(home: ClaudeHome) -> None:
    home.session(CWD, SID, _session(assistant("done")))
    other = Session(OTHER, cwd=CWD)
    other.add(user("hi"))
    home.session(CWD, OTHER, other)
    project = home.projects / "-home-ada-src-orbit"
    with pytest.raises(TargetError, match=f"names 2 sessions .*{OTHER}"):
        run(StatusOptions(scope=ScopeArgs(targets=(str(project),))),
            live_env(home.root, DEFAULT_START))


def test_no_subagents_says_children_were_not_read(home: ClaudeHome) -> None:
    row = _status(home, _session(assistant("done")), subagents=False)
    assert any("--no-subagents" in n for n in row["notes"])


def test_pending_list_is_empty_without_sidecar(home: ClaudeHome) -> None:
    row = _status(home, _session(assistant("done")))
    assert row["pending"] == []


def test_subagent_background_is_its_own_launches(home: ClaudeHome) -> None:
    s = _session(bg_shell("npm run dev", "main's server", "toolu_main"),
                 bg_shell_receipt("toolu_main", "bmain0001"), assistant("up"))
    path = home.session(CWD, SID, s)
    lane = Session(SID, cwd=CWD, agent_id="a8888888888888888", start=s.now)
    lane.add(user("watch the tests"))
    lane.add(bg_shell("pytest -f", "lane's watcher", "toolu_lane"))
    lane.add(bg_shell_receipt("toolu_lane", "blane0001"))
    lane.add(assistant("watching"))
    home.subagent(path, "a8888888888888888", lane)
    s.add(user(pulse("blane0001", "completed", 'Background command "lane\'s watcher" done'),
               origin={"kind": "task-notification"}))
    row = _status(home, s, target="@a8888888888888888")
    bg = row["background"]
    assert (bg["open"], bg["completed"]) == (0, 1)  # the main's open server is not the lane's
    assert row["verdict"] == "idle-eot"


def test_a_subagent_s_records_in_the_main_transcript_are_not_the_human_s(
        home: ClaudeHome) -> None:
    """Claude Code 1.x wrote a Task subagent's prompt and replies into the session file
    (``isSidechain:true``): the newest human message is still the operator's prompt, and
    the Task call they serve is still in flight (the subagent's prompt bounds no turn, its
    end_turn ends none)."""
    _row(home, "busy")
    s = _session(assistant(tool_use("Task", {"prompt": "find the configs"}, id="task1")))
    s.add(user("find the configs", isSidechain=True), parent=None)
    s.add(assistant("Found .ruff.toml", isSidechain=True))
    row = _status(home, s, processes=_alive(), after=34)
    assert row["last"]["user"]["text"] == "make the release"
    assert row["verdict"] == "running"
    assert row["tail_state"].startswith("in a Task call")


# -- a Stop hook holds the end of the turn ----------------------------------------------------

CHECK = "./scripts/check.sh"


def test_a_stop_hook_still_running_after_end_turn_is_running(home: ClaudeHome) -> None:
    """Builds up to ~2.1.4x write a hook_progress as each Stop hook starts and a
    stop_hook_summary once all returned: a hook started with no summary after it is
    still running, and the turn is not over (it read idle-eot, and `wait --until stop`
    fired while the hook could still send the agent back to work)."""
    s = _session(assistant("the release is tagged"), hook_progress("Stop", CHECK))
    row = _status(home, s, after=12)
    assert row["verdict"] == "running"
    assert row["tail_state"] == f"in a Stop hook ({CHECK}) for 12s"
    assert _surfaces(row)["tail"] == "no pending call; last stop_reason end_turn; a Stop hook running"
    assert any(n.startswith(f"a Stop hook is running after the turn's last message ({CHECK})")
               for n in row["notes"])
    # no registry row backs it: said, as for an open call
    assert any("a session abandoned in this state reads the same" in n for n in row["notes"])


def test_a_stop_hook_that_returned_ends_the_turn(home: ClaudeHome) -> None:
    s = _session(assistant("the release is tagged"), hook_progress("Stop", CHECK),
                 attachment("hook_success", {"hookName": "Stop", "hookEvent": "Stop",
                                             "command": CHECK, "exitCode": 0}),
                 stop_hook_summary([(CHECK, 800)]))
    row = _status(home, s)
    assert row["verdict"] == "idle-eot"
    assert row["tail_state"].startswith("idle (last stop_reason end_turn")


def test_a_stop_hook_that_blocked_sends_the_agent_back_to_work(home: ClaudeHome) -> None:
    """Exit 2 / decision "block": Claude Code writes the reason as an isMeta user record
    and the agent goes on; the end_turn before it ends nothing."""
    s = _session(assistant("the release is tagged"), hook_progress("Stop", CHECK),
                 stop_hook_feedback(CHECK, "3 tests fail\nfix them first"),
                 stop_hook_summary([(CHECK, 900)], hookErrors=[f"[{CHECK}]: 3 tests fail"],
                                   hasOutput=True))
    row = _status(home, s, after=5)
    assert row["verdict"] == "running"
    assert row["tail_state"] == ("generating (a Stop hook blocked the end of the turn 10s ago: "
                                 f"[{CHECK}]: 3 tests fail)")
    assert any(n.startswith(f"a Stop hook blocked the end of the turn ([{CHECK}]: 3 tests fail)")
               for n in row["notes"])


def test_a_blocking_error_attachment_of_a_stop_hook_is_a_block(home: ClaudeHome) -> None:
    s = _session(assistant("done"),
                 attachment("hook_blocking_error", {
                     "hookName": "Stop", "hookEvent": "Stop", "toolUseID": "toolu_h",
                     "blockingError": {"blockingError": "lint failed", "command": CHECK}}),
                 stop_hook_summary([(CHECK, 900)], hookErrors=["lint failed"]))
    row = _status(home, s)
    assert row["verdict"] == "running"
    assert "blocked the end of the turn" in row["tail_state"] and "lint failed" in row["tail_state"]


def test_a_stop_hook_that_prevented_continuation_stopped_the_agent(home: ClaudeHome) -> None:
    """preventedContinuation is a hook's `continue: false`: it STOPS the agent (and
    outranks a block), so the turn is over; the opposite of a block."""
    s = _session(assistant("done"), hook_progress("Stop", CHECK),
                 stop_hook_feedback(CHECK, "also blocked"),
                 attachment("hook_stopped_continuation", {
                     "message": "budget spent", "hookName": "Stop", "hookEvent": "Stop"}),
                 stop_hook_summary([(CHECK, 900)], preventedContinuation=True,
                                   stopReason="budget spent"))
    row = _status(home, s)
    assert row["verdict"] == "idle-eot"


def test_a_non_blocking_stop_hook_error_ends_the_turn(home: ClaudeHome) -> None:
    """hookErrors also holds a non-blocking error's stderr: that alone is no block."""
    s = _session(assistant("done"),
                 attachment("hook_non_blocking_error", {
                     "hookName": "Stop", "hookEvent": "Stop", "stderr": "oops",
                     "exitCode": 1, "command": CHECK}),
                 stop_hook_summary([(CHECK, 75)], hookErrors=["oops"], hasOutput=True))
    assert _status(home, s)["verdict"] == "idle-eot"


def test_the_agents_reply_after_a_block_is_the_turns_word(home: ClaudeHome) -> None:
    s = _session(assistant("done"), stop_hook_feedback(CHECK, "3 tests fail"),
                 stop_hook_summary([(CHECK, 900)], hookErrors=["3 tests fail"]),
                 assistant("fixed the tests; all pass"))
    row = _status(home, s)
    assert row["verdict"] == "idle-eot"


def test_a_live_owners_idle_row_newer_than_the_hook_outranks_it(home: ClaudeHome) -> None:
    s = _session(assistant("done"), hook_progress("Stop", CHECK))
    written = int((s.now + timedelta(seconds=2)).timestamp() * 1000)
    _row(home, "idle", statusUpdatedAt=written, updatedAt=written)
    row = _status(home, s, processes=_alive())
    assert row["verdict"] == "idle-eot"
    assert row["tail_state"].startswith("idle (last stop_reason end_turn")


def test_an_idle_row_older_than_the_hook_does_not(home: ClaudeHome) -> None:
    s = _session(assistant("done"), hook_progress("Stop", CHECK))
    written = int((s.now - timedelta(seconds=2)).timestamp() * 1000)
    _row(home, "idle", statusUpdatedAt=written, updatedAt=written)
    row = _status(home, s, processes=_alive())
    assert row["verdict"] == "running"


def test_a_hook_progress_of_another_event_is_no_stop_hook(home: ClaudeHome) -> None:
    s = _session(assistant("done"), hook_progress("SessionStart", CHECK))
    assert _status(home, s)["verdict"] == "idle-eot"


def test_status_over_an_archive_says_its_live_state_was_not_archived(
        home: ClaudeHome, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`pysift archive` copies the transcripts, not `sessions/` or `tasks/`: over the
    archive the open task and the live owner read as none, with nothing saying why
    (SPEC §11c, §14; thirty-second session)."""
    from pysift.commands.archive import ArchiveOptions
    from pysift.commands.archive import run as archive_run

    s = _session(assistant("done"))
    home.task(SID, "1", "Ship it", "pending")
    _row(home)
    live = _status(home, s, processes=_alive())
    assert live["tasks"] is not None and not any("archive" in n for n in live["notes"])
    dest = tmp_path / "kept"
    archive_run(ArchiveOptions(dest=str(dest)), live_env(home.root, s.now))
    env = live_env(dest, s.now + timedelta(seconds=30), _alive())
    report = run(StatusOptions(scope=ScopeArgs(targets=(f"@{SID}",))), env)
    row = report.rows[0]
    assert row["tasks"] is None and "registry" not in _surfaces(row)
    [note] = [n for n in row["notes"] if "archive" in n]
    assert note.startswith(f"this Claude home is an archive of {home.root} made by "
                           f"`pysift archive`")
    assert "not the registry (sessions/) or the task lists (tasks/)" in note
    out = io.StringIO()
    assert report.text is not None
    report.text(out)
    assert f"  note: {note}\n" in out.getvalue()


# -- per-hook attachments: a hook's return, never its start ----------------------------------


def _returned(command: str, event: str = "Stop", kind: str = "hook_success") -> dict:
    """The attachment Claude Code writes when one hook has returned (exit code, duration)."""
    return attachment(kind, {"hookName": event, "hookEvent": event, "toolUseID": "toolu_h",
                             "command": command, "exitCode": 0, "durationMs": 800})


def test_a_stop_hooks_written_return_settles_its_start_without_a_summary(
        home: ClaudeHome) -> None:
    """IDE, desktop and SDK sessions write the stop_hook_summary only with the next prompt;
    a hook whose own return is written has ended, summary or not (it read running until
    the next prompt, and `wait --until stop` hung)."""
    s = _session(assistant("the release is tagged"), hook_progress("Stop", CHECK),
                 _returned(CHECK))
    row = _status(home, s)
    assert row["verdict"] == "idle-eot"
    assert row["tail_state"].startswith("idle (last stop_reason end_turn")


def test_of_two_stop_hooks_the_one_not_returned_still_runs(home: ClaudeHome) -> None:
    s = _session(assistant("the release is tagged"), hook_progress("Stop", CHECK),
                 hook_progress("Stop", "./notify.sh"), _returned(CHECK))
    row = _status(home, s, after=12)
    assert row["verdict"] == "running"
    assert row["tail_state"] == "in a Stop hook (./notify.sh) for 17s"  # started 5s before


def test_a_stop_hooks_return_attachment_alone_is_no_running_hook(home: ClaudeHome) -> None:
    """What a finished turn of a newer build looks like until the next prompt: the hook's
    return, no summary (it lands later), no start record at all."""
    s = _session(assistant("the release is tagged"), _returned(CHECK))
    assert _status(home, s)["verdict"] == "idle-eot"


def test_a_subagent_stop_record_in_the_main_holds_no_main_turn(home: ClaudeHome) -> None:
    """A SubagentStop hook is a lane's: its record never keeps the main turn open."""
    s = _session(assistant("the release is tagged"), hook_progress("SubagentStop", CHECK))
    assert _status(home, s)["verdict"] == "idle-eot"


# -- a lane's SubagentStop hook ---------------------------------------------------------------

LANE = "a0123456789abcdef"


def _lane_ending(home: ClaudeHome, *tail, returned: bool = False, **kw) -> dict:  # type: ignore[no-untyped-def]
    """The main launched a background agent and ended its turn; the lane ended its own
    turn (end_turn) and then wrote ``tail`` (its SubagentStop hook's records); with
    ``returned`` its completion pulse is in the main. ``kw`` goes to ``_status``."""
    s = _session(*async_agent_launch("toolu_ag", LANE, "Audit the deps"))
    s.add(assistant("started it"))
    lane = Session(SID, cwd=CWD, agent_id=LANE, start=s.now)
    lane.add(user("audit"))
    lane.add(assistant("2 advisories, both fixed upstream", stop_reason="end_turn"))
    for record in tail:
        lane.add(record)
    if returned:
        s.at(lane.now + timedelta(seconds=1))
        s.add(user(pulse(LANE, "completed", 'Agent "Audit the deps" completed',
                         tool_use_id="toolu_ag"), origin={"kind": "task-notification"}))
    path = home.session(CWD, SID, s)
    home.subagent(path, LANE, lane)
    return _status(home, s, **kw)


def test_a_lane_that_ended_its_turn_without_a_hook_is_settled(home: ClaudeHome) -> None:
    row = _lane_ending(home, after=5)
    assert row["children"] == [] and row["settled_children"] == 1


def test_a_lanes_subagent_stop_hook_still_running_keeps_it_in_flight(home: ClaudeHome) -> None:
    """Claude Code runs a subagent's SubagentStop hooks in its own loop and writes their
    records into its transcript; its return waits for them (the lane read settled on its
    end_turn, and the session idle, while the hook could still send the agent back)."""
    row = _lane_ending(home, hook_progress("SubagentStop", CHECK), after=9)
    assert row["verdict"] == "waiting-children"
    [child] = row["children"]
    assert child["state"] == "in-flight"
    assert child["detail"].startswith(f"in a SubagentStop hook ({CHECK}) for ")


def test_a_lanes_subagent_stop_hook_that_returned_settles_it(home: ClaudeHome) -> None:
    for tail in ((hook_progress("SubagentStop", CHECK), stop_hook_summary([(CHECK, 400)])),
                 (hook_progress("SubagentStop", CHECK), _returned(CHECK, "SubagentStop")),
                 (_returned(CHECK, "SubagentStop"),)):
        row = _lane_ending(home, *tail, after=5)
        assert row["children"] == [] and row["settled_children"] == 1, tail


def test_a_lanes_subagent_stop_hook_that_blocked_sends_it_back_to_work(
        home: ClaudeHome) -> None:
    row = _lane_ending(home, hook_progress("SubagentStop", CHECK),
                       stop_hook_feedback(CHECK, "no report written"),
                       stop_hook_summary([(CHECK, 400)], hookErrors=["no report written"]),
                       after=5)
    assert row["verdict"] == "waiting-children"
    [child] = row["children"]
    assert child["state"] == "generating"
    assert child["detail"].startswith("a SubagentStop hook blocked the end of its turn ")
    assert child["detail"].endswith(f": [{CHECK}]: no report written")


def test_a_lanes_blocking_error_attachment_is_a_block(home: ClaudeHome) -> None:
    block = attachment("hook_blocking_error", {
        "hookName": "SubagentStop", "hookEvent": "SubagentStop", "toolUseID": "toolu_h",
        "blockingError": {"blockingError": "no report written", "command": CHECK}})
    row = _lane_ending(home, block, after=5)
    [child] = row["children"]
    assert child["state"] == "generating" and child["detail"].endswith(": no report written")


def test_a_lanes_subagent_stop_hook_that_stopped_it_settles_it(home: ClaudeHome) -> None:
    row = _lane_ending(home, hook_progress("SubagentStop", CHECK),
                       stop_hook_summary([(CHECK, 400)], preventedContinuation=True),
                       after=5)
    assert row["children"] == [] and row["settled_children"] == 1


def test_the_lanes_reply_after_a_block_is_its_word(home: ClaudeHome) -> None:
    row = _lane_ending(home, stop_hook_feedback(CHECK, "no report written"),
                       assistant("wrote the report", stop_reason="end_turn"), after=5)
    assert row["children"] == [] and row["settled_children"] == 1


def test_a_lanes_return_settles_it_whatever_its_hook_records_say(home: ClaudeHome) -> None:
    """A stale hook record never holds a lane the harness reported returned."""
    row = _lane_ending(home, hook_progress("SubagentStop", CHECK), returned=True, after=5)
    assert row["children"] == [] and row["settled_children"] == 1
    assert row["verdict"] == "idle-eot"


# -- agents and status agree on whether a lane's turn is over -----------------------------------


def _agents_status(home: ClaudeHome, lane: str = LANE) -> tuple[str, list[str]]:
    """The lane's ``agents`` status and the notes it prints (a pure read of the home)."""
    from pysift.commands.agents import AgentsOptions
    from pysift.commands.agents import run as agents_run

    env = live_env(home.root, DEFAULT_START)
    report = agents_run(AgentsOptions(scope=ScopeArgs(targets=(f"@{SID}",))), env)
    [row] = [r for r in report.json_rows() if r.get("kind") == "agent"
             and r["agent_id"] == lane]
    return row["status"], report.notes


_HOOK_TAILS = {
    "no hook": ((), False, "settled", "completed"),
    "running": ((hook_progress("SubagentStop", CHECK),), False, "in-flight", "running"),
    "returned (summary)": ((hook_progress("SubagentStop", CHECK),
                            stop_hook_summary([(CHECK, 400)])), False, "settled", "completed"),
    "returned (attachment)": ((hook_progress("SubagentStop", CHECK),
                               _returned(CHECK, "SubagentStop")), False, "settled", "completed"),
    "blocked": ((hook_progress("SubagentStop", CHECK),
                 stop_hook_feedback(CHECK, "no report written"),
                 stop_hook_summary([(CHECK, 400)], hookErrors=["no report written"])),
                False, "generating", "running"),
    "blocking error": ((attachment("hook_blocking_error", {
        "hookName": "SubagentStop", "hookEvent": "SubagentStop", "toolUseID": "toolu_h",
        "blockingError": {"blockingError": "no report written", "command": CHECK}}),),
        False, "generating", "running"),
    "stopped it": ((hook_progress("SubagentStop", CHECK),
                    stop_hook_summary([(CHECK, 400)], preventedContinuation=True)),
                   False, "settled", "completed"),
    "replied after a block": ((stop_hook_feedback(CHECK, "no report written"),
                               assistant("wrote the report", stop_reason="end_turn")),
                              False, "settled", "completed"),
    "running, returned": ((hook_progress("SubagentStop", CHECK),), True, "settled",
                          "completed"),
    "blocked, returned": ((stop_hook_feedback(CHECK, "no report written"),), True,
                          "settled", "completed"),
}


@pytest.mark.parametrize("case", list(_HOOK_TAILS))
def test_agents_and_status_agree_on_a_lanes_subagent_stop_hook(home: ClaudeHome,
                                                               case: str) -> None:
    """`agents` read the lane's end_turn text as `completed` while `status` read its
    SubagentStop hook as holding the turn (thirty-second session): both now read the
    hook records by ``core.stophooks`` and judge them by ``core.lanes.holding_hook``, and
    the harness's return (here a completion pulse) settles the lane for both."""
    tail, returned, live, listed = _HOOK_TAILS[case]
    row = _lane_ending(home, *tail, returned=returned, after=5)
    state = row["children"][0]["state"] if row["children"] else "settled"
    assert state == live
    status, notes = _agents_status(home)
    assert status == listed
    hook_notes = [n for n in notes if n.startswith(f"note: agent {LANE}")
                  and "SubagentStop hook" in n]
    assert bool(hook_notes) == (listed == "running"), notes


def test_agents_reads_a_sync_return_as_the_end_of_a_lanes_hook(home: ClaudeHome) -> None:
    """A synchronous spawn's result naming the lane is written only after its hooks: the
    lane is over (`completed` in agents, settled in status) whatever its hook records say."""
    s = _session(assistant(tool_use("Agent", {"description": "Audit the deps",
                                              "prompt": "audit",
                                              "subagent_type": "general-purpose"},
                                    id="toolu_ag")))
    lane = Session(SID, cwd=CWD, agent_id=LANE, start=s.now)
    lane.add(user("audit"))
    lane.add(assistant("2 advisories, both fixed upstream", stop_reason="end_turn"))
    lane.add(hook_progress("SubagentStop", CHECK))
    s.at(lane.now + timedelta(seconds=1))
    s.add(subagent_return("toolu_ag", "2 advisories", agent_id=LANE,
                          agent_type="general-purpose", prompt="audit"))
    path = home.session(CWD, SID, s)
    home.subagent(path, LANE, lane)
    row = _status(home, s, after=5)
    assert row["children"] == [] and row["settled_children"] == 1
    assert _agents_status(home)[0] == "completed"


def test_a_return_before_the_lane_was_resumed_ends_neither_reading(home: ClaudeHome) -> None:
    """A lane resumed (SendMessage) after its return works on: its new turn's hook holds it
    for both commands (the return is older than its newest record by more than 2 s)."""
    s = _session(*async_agent_launch("toolu_ag", LANE, "Audit the deps"))
    lane = Session(SID, cwd=CWD, agent_id=LANE, start=s.now)
    lane.add(user("audit"))
    lane.add(assistant("2 advisories, both fixed upstream", stop_reason="end_turn"))
    s.at(lane.now + timedelta(seconds=1))
    s.add(user(pulse(LANE, "completed", 'Agent "Audit the deps" completed',
                     tool_use_id="toolu_ag"), origin={"kind": "task-notification"}))
    lane.at(s.now + timedelta(seconds=30))
    lane.add(user("and the dev deps?"))
    lane.add(assistant("none there", stop_reason="end_turn"))
    lane.add(hook_progress("SubagentStop", CHECK))
    path = home.session(CWD, SID, s)
    home.subagent(path, LANE, lane)
    row = _status(home, s, after=40)
    assert [c["state"] for c in row["children"]] == ["in-flight"]
    assert _agents_status(home)[0] == "running"


def test_agents_names_the_hook_that_keeps_a_lane_running(home: ClaudeHome) -> None:
    _lane_ending(home, hook_progress("SubagentStop", CHECK), after=5)
    status, notes = _agents_status(home)
    assert status == "running"
    [note] = [n for n in notes if n.startswith(f"note: agent {LANE}")]
    assert note.startswith(f"note: agent {LANE} of session {SID}: a SubagentStop hook "
                           f"({CHECK}) started after its last message (since ")
    assert "`running` until it returns (`status` reads the lane in-flight)" in note


def test_a_subagent_target_in_its_subagent_stop_hook_is_running(home: ClaudeHome) -> None:
    row = _lane_ending(home, hook_progress("SubagentStop", CHECK), target=f"@{LANE}", after=9)
    assert row["verdict"] == "running"
    assert row["tail_state"].startswith(f"in a SubagentStop hook ({CHECK}) for ")
    assert _surfaces(row)["tail"] == ("no pending call; last stop_reason end_turn; "
                                      "a SubagentStop hook running")
    assert any(n.startswith(f"a SubagentStop hook is running after the turn's last message "
                            f"({CHECK})") for n in row["notes"])


def test_a_subagent_target_that_returned_is_over_whatever_its_hook_records_say(
        home: ClaudeHome) -> None:
    row = _lane_ending(home, hook_progress("SubagentStop", CHECK), returned=True,
                       target=f"@{LANE}", after=9)
    assert row["verdict"] == "idle-eot"
