"""The lane model: a subagent transcript's own lifecycle, read from its two ends."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from builders import (
    Session,
    assistant,
    assistant_split,
    attachment,
    hook_progress,
    last_prompt,
    parse_iso,
    stop_hook_feedback,
    stop_hook_summary,
    task_notification,
    teammate_message,
    text,
    thinking,
    to_jsonl,
    tool_result,
    tool_use,
    user,
)
from pysift.core.lanes import (
    ASYNC_CHILD_TAIL,
    AWAITING_EXECUTION,
    COMPLETED,
    ESCALATION_BLOCKED,
    GENERATING,
    IN_FLIGHT,
    RUNNING,
    SETTLED,
    SYNC_TOOL_RESULT,
    UNKNOWN,
    WORKFLOW_JOURNAL,
    classify_pending,
    digest,
    duration_label,
    holding_hook,
    lane_state,
    lifecycle,
    read_lane,
    returned_message,
)

SID = "5b2d7e10-3c4a-4f8e-9d61-0a7c3e9b1f24"
HEX = "a1b2c3d4e5f60718"
PROMPT = "Find every caller of propagate() and report the file:line list."


def _lane(*records, **kw) -> bytes:
    s = Session(SID, cwd="/home/ada/src/orbit", agent_id=HEX, **kw)
    for r in records:
        s.add(r)
    return s.lines()


def test_a_lane_that_ends_on_its_answer_is_completed() -> None:
    buf = _lane(user(PROMPT),
                assistant(tool_use("Grep", {"pattern": "propagate("}, id="g1")),
                tool_result("g1", "orbit/sgp4.py:88"),
                assistant(thinking("that is the only one")),
                assistant("One caller: orbit/sgp4.py:88."))
    facts = read_lane(buf, want_tail_text=True)
    assert facts.ends_with_text and facts.pending is None
    assert facts.started == "2026-10-05T09:00:00.000Z"
    assert facts.last_activity == "2026-10-05T09:00:20.000Z"
    assert facts.tail_text == "One caller: orbit/sgp4.py:88."
    assert facts.seed_digest == digest(PROMPT)
    assert facts.last_stop_reason == "end_turn"
    life = lifecycle(facts, "2026-10-05T09:00:01.000Z")
    assert life.status == COMPLETED
    assert life.completed == facts.last_activity
    assert life.duration == "19s"  # from the trigger, not the start


def test_a_subagent_stop_hook_after_the_answer_holds_the_lane() -> None:
    """The hook records past the lane's last words are read (they sit on lines the tail
    walk passed over undecoded): a running hook keeps the lane `running` (in flight for
    status), a block too (generating), and the harness's return ends it whatever they say."""
    check = "./check.sh"
    answer = (user(PROMPT), assistant("One caller: orbit/sgp4.py:88."))
    now = datetime(2026, 10, 5, 9, 0, 20, tzinfo=UTC)
    running = read_lane(_lane(*answer, hook_progress("SubagentStop", check)))
    assert running.stop_hook is not None and running.stop_hook.state == "running"
    assert running.stop_hook.detail == check and running.stop_hook.event == "SubagentStop"
    assert lifecycle(running, None).status == RUNNING
    assert lane_state(running, now) == IN_FLIGHT
    assert lifecycle(running, None, returned=True).status == COMPLETED
    assert holding_hook(running, returned=True) is None
    blocked = read_lane(_lane(*answer, hook_progress("SubagentStop", check),
                              stop_hook_feedback(check, "no report"),
                              stop_hook_summary([(check, 300)])))
    assert blocked.stop_hook is not None and blocked.stop_hook.state == "blocked"
    assert lifecycle(blocked, None).status == RUNNING
    assert lane_state(blocked, now) == GENERATING
    over = read_lane(_lane(*answer, hook_progress("SubagentStop", check),
                           stop_hook_summary([(check, 300)])))
    assert over.stop_hook is None and lifecycle(over, None).status == COMPLETED


def test_a_lane_ending_on_a_synthetic_api_error_is_told_apart() -> None:
    """Claude Code writes an API failure as assistant text (``isApiErrorMessage``): the
    lane is `completed` as csift's status set has it, and the facts say it stopped on
    the error, which `agents` notes; a real answer is no error."""
    error = assistant("API Error: 529 Overloaded")
    error["isApiErrorMessage"] = True
    error["message"]["model"] = "<synthetic>"
    facts = read_lane(_lane(user(PROMPT), error))
    assert facts.ends_with_text and facts.ends_with_api_error
    assert lifecycle(facts, None).status == COMPLETED
    answered = read_lane(_lane(user(PROMPT), error, assistant("One caller: sgp4.py:88.")))
    assert answered.ends_with_text and not answered.ends_with_api_error


def test_a_lane_frozen_on_a_call_is_running_whatever_it_said_before() -> None:
    # the text before the call reads like a finish; the unanswered call is the last word
    buf = _lane(user(PROMPT),
                *assistant_split("All done, cleaning up the scratch dir.",
                                 tool_use("Bash", {"command": 'rm -rf "$SCRATCH/"*'}, id="b9")),
                attachment("hook_success", {"hookName": "PostToolUse"}))
    facts = read_lane(buf)
    assert not facts.ends_with_text
    assert facts.pending is not None
    assert (facts.pending.tool_use_id, facts.pending.tool_name) == ("b9", "Bash")
    assert facts.pending.classification == ESCALATION_BLOCKED
    life = lifecycle(facts, None)
    assert life.status == RUNNING and life.completed is None and life.duration is None
    assert life.pending is facts.pending
    assert life.trigger == facts.started  # no spawning call: the trigger is the start


def test_a_frozen_slow_tool_awaits_execution() -> None:
    buf = _lane(user(PROMPT), assistant(tool_use("WebFetch", {"url": "https://x"}, id="w1")))
    facts = read_lane(buf)
    assert facts.pending is not None and facts.pending.classification == AWAITING_EXECUTION
    assert facts.pending.since == facts.last_activity


def test_a_held_call_is_preferred_among_parallel_calls_of_one_record() -> None:
    buf = _lane(user(PROMPT), assistant(tool_use("Read", {"file_path": "a"}, id="r1"),
                                        tool_use("Bash", {"command": "rmdir $D/"}, id="b1")))
    pending = read_lane(buf).pending
    assert pending is not None and pending.tool_use_id == "b1"


def test_classification_is_bash_only() -> None:
    assert classify_pending("Bash", "rm -rf $X/*") == ESCALATION_BLOCKED
    assert classify_pending("PowerShell", "rm -rf $X/*") == AWAITING_EXECUTION
    assert classify_pending("Bash", "ls") == AWAITING_EXECUTION
    assert classify_pending("Bash", None) == AWAITING_EXECUTION


def test_a_lane_waiting_on_its_next_step_is_running() -> None:
    buf = _lane(user(PROMPT), assistant("Looking."), assistant(tool_use("Read", {"file_path": "a"}, id="r1")),
                tool_result("r1", "x = 1"))
    facts = read_lane(buf)
    assert not facts.ends_with_text and facts.pending is None
    assert lifecycle(facts, None).status == RUNNING


def test_a_call_answered_by_a_meta_flagged_result_is_no_frozen_call() -> None:
    """Some writers flag the tool-result carrier ``isMeta`` (tier-2 fixture of 2.1.207):
    passed over as a harness notice, its call read unanswered, so the lane said PENDING
    `awaiting-execution` "frozen since" a call whose result is on disk."""
    answer = tool_result("r1", "x = 1")
    answer["isMeta"] = True
    facts = read_lane(_lane(user(PROMPT), assistant(tool_use("Read", {"file_path": "a"},
                                                                id="r1")), answer))
    assert facts.pending is None and not facts.ends_with_text
    assert lifecycle(facts, None).status == RUNNING


def _shutdown_lane(approve: bool = True) -> bytes:
    """A teammate asked to shut down answers with SendMessage; its lane ends on the
    result (real K3RN lanes a152316, a8b07f4, a8e4bae: agents called them running)."""
    verdict = ("Shutdown approved. Sent confirmation to team-lead. Agent cards-api-agent is "
               "now exiting." if approve else "Shutdown rejected. Sent reason to team-lead.")
    echo = {"success": True, "message": verdict,
            "request_id": "shutdown-1770805503993@cards-api-agent"}
    return _lane(
        teammate_message("team-lead", '{"type":"shutdown_request","requestId":'
                         '"shutdown-1770805503993@cards-api-agent","from":"team-lead",'
                         '"reason":"Mission complete!"}'),
        assistant(tool_use("SendMessage", {"type": "shutdown_response",
                                           "request_id": "shutdown-1770805503993@cards-api-agent",
                                           "approve": approve}, id="sd1"), stop_reason=None),
        tool_result("sd1", [text(json.dumps(echo, indent=2))], tool_use_result=echo))


def test_a_teammate_that_approved_its_shutdown_has_exited() -> None:
    facts = read_lane(_shutdown_lane())
    life = lifecycle(facts, None)
    assert life.status == COMPLETED and life.completed == facts.last_activity
    now = parse_iso(facts.last_activity or "") + timedelta(seconds=5)
    assert lane_state(facts, now) == SETTLED  # not "generating" for 300 s


def test_a_teammate_that_refused_its_shutdown_runs_on() -> None:
    facts = read_lane(_shutdown_lane(approve=False))
    assert lifecycle(facts, None).status == RUNNING


def test_notices_and_metadata_are_not_the_last_word() -> None:
    buf = _lane(user(PROMPT), assistant("Answer: 3."),
                task_notification("b1", "completed", "shell done"),
                teammate_message("lead", "thanks"),
                last_prompt("Find every caller"))
    facts = read_lane(buf)
    assert facts.ends_with_text
    assert lifecycle(facts, None).status == COMPLETED


def test_no_timestamp_is_unknown_and_never_frozen() -> None:
    lines = [b'{"type":"user","message":{"role":"user","content":"go"}}',
             b'{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use",'
             b'"id":"t1","name":"Read","input":{}}]}}']
    facts = read_lane(b"\n".join(lines) + b"\n")
    assert facts.started is None and facts.pending is not None
    life = lifecycle(facts, None)
    assert life.status == UNKNOWN and life.pending is None and life.last_activity is None


def test_a_journal_result_wins_over_the_tail() -> None:
    buf = _lane(user(PROMPT), assistant(tool_use("StructuredOutput", {"x": 1}, id="s1")))
    life = lifecycle(read_lane(buf), None, journal_result=True)
    assert life.status == COMPLETED and life.pending is None
    assert life.completed == life.last_activity


def test_fork_clone_has_no_seed() -> None:
    ref = {"type": "fork-context-ref", "agentId": HEX, "parentSessionId": SID,
           "parentLastUuid": "c0ffee00-0000-4000-8000-000000000001", "contextLength": 41}
    buf = to_jsonl([ref]) + _lane(user("the parent's own request"), assistant("Done."))
    facts = read_lane(buf)
    assert facts.fork is not None
    assert facts.fork.parent_last_uuid == "c0ffee00-0000-4000-8000-000000000001"
    assert facts.fork.context_length == 41
    assert facts.seed_digest is None


def test_a_teammate_seed_is_its_wrapped_prompt() -> None:
    buf = _lane(teammate_message("team-lead", PROMPT, summary="task spawn"), assistant("ok"))
    assert read_lane(buf).seed_digest == digest(PROMPT)


def test_malformed_lines_count_once_in_the_read_windows() -> None:
    body = _lane(user(PROMPT), assistant("Answer."))
    first, second = body.splitlines()
    buf = b"\n".join([b'{"type":"user","mess', first, b"between, never read", second,
                      b"not json at all"]) + b"\n"
    facts = read_lane(buf)
    assert facts.skipped_lines == 2  # the head's torn line and the tail's; not the middle
    assert facts.ends_with_text
    # a file of nothing but garbage: both reads walk all of it, each line counts once
    only_garbage = b"<<<<<<< HEAD\n=======\n>>>>>>> theirs\n"
    facts = read_lane(only_garbage)
    assert facts.skipped_lines == 3 and not facts.has_records
    assert lifecycle(facts, None).status == UNKNOWN


def test_tail_text_found_deep_below_the_last_word() -> None:
    records = [user(PROMPT), assistant("First finding: 3 callers.")]
    for i in range(40):
        records += [assistant(tool_use("Read", {"file_path": f"f{i}"}, id=f"r{i}")),
                    tool_result(f"r{i}", "x")]
    facts = read_lane(_lane(*records), want_tail_text=True)
    assert facts.tail_text == "First finding: 3 callers."
    assert not facts.ends_with_text


def test_returned_message_three_ways() -> None:
    assert returned_message(workflow=True, result_text=None, launch_ack=False, tail_text="t",
                            journal_payload={"area": "loader"}, has_journal_result=True) == (
        '{"area":"loader"}', WORKFLOW_JOURNAL)
    assert returned_message(workflow=True, result_text=None, launch_ack=False,
                            tail_text="t") == (None, None)
    assert returned_message(workflow=False, result_text="Relay tests added.", launch_ack=False,
                            tail_text="t") == ("Relay tests added.", SYNC_TOOL_RESULT)
    assert returned_message(workflow=False, result_text="Async agent launched successfully.",
                            launch_ack=True, tail_text="Coverage report.") == (
        "Coverage report.", ASYNC_CHILD_TAIL)
    # a launch acknowledged but the lane never spoke: no return yet (the acknowledgement
    # read as the child's `sync-tool-result`)
    assert returned_message(workflow=False, result_text="Async agent launched", launch_ack=True,
                            tail_text=None) == (None, None)
    assert returned_message(workflow=False, result_text=None, launch_ack=False,
                            tail_text="tail") == ("tail", ASYNC_CHILD_TAIL)


def test_duration_labels() -> None:
    assert duration_label("2026-10-05T09:00:00Z", "2026-10-05T09:14:20Z") == "14m20s"
    assert duration_label("2026-10-05T09:00:00Z", "2026-10-05T11:05:59Z") == "2h05m"
    assert duration_label("2026-10-05T09:00:00Z", "2026-10-05T08:00:00Z") == "0s"
    assert duration_label(None, "2026-10-05T08:00:00Z") is None
    # whole seconds of each end: 18.6 s -> 35.1 s is 17 s, as csift counts it
    assert duration_label("2026-10-05T09:03:18.600Z", "2026-10-05T09:03:35.100Z") == "17s"


def test_lane_states() -> None:
    now = datetime(2026, 10, 5, 9, 5, tzinfo=UTC)
    recent = _lane(user(PROMPT), assistant(thinking("hmm"), stop_reason=None))
    facts = read_lane(recent)
    assert lane_state(facts, now) == GENERATING
    assert lane_state(facts, now + timedelta(hours=1)) == SETTLED
    assert lane_state(facts, now, settled=True) == SETTLED
    done = read_lane(_lane(user(PROMPT), assistant("Answer.")))
    assert lane_state(done, now) == SETTLED  # ended its turn
    frozen = read_lane(_lane(user(PROMPT), assistant(tool_use("Read", {}, id="r"))))
    assert lane_state(frozen, now + timedelta(days=3)) == IN_FLIGHT


def test_empty_buffer() -> None:
    facts = read_lane(b"")
    assert not facts.has_records
    assert lifecycle(facts, None).status == UNKNOWN


def test_text_block_list_content() -> None:
    buf = _lane(user(PROMPT), assistant(text("  "), text("Final words.")))
    facts = read_lane(buf, want_tail_text=True)
    assert facts.ends_with_text and facts.tail_text == "Final words."
