"""The background-task scan: launches of three kinds, completions on three carriers, the
lens, whole-file and incremental reads agreeing."""

from __future__ import annotations

from datetime import timedelta

import pytest

from builders import (
    DEFAULT_START,
    Session,
    assistant,
    attachment,
    queue_op,
    to_jsonl,
    tool_result,
    tool_use,
    user,
)
from livekit import (
    async_agent_launch,
    bg_shell,
    bg_shell_receipt,
    monitor_arm,
    monitor_receipt,
    pulse,
)
from pysift.live.background import (
    AGENT,
    MONITOR,
    NOT_PROOF,
    SHELL,
    Lens,
    Scanner,
    delivered_pulses,
)
from pysift.live.conditions import compile_exact

SID = "3f6c1e2a-8b4d-4c7e-9a15-2d8e0b7f4c61"
NOW = DEFAULT_START + timedelta(hours=1)


def _session() -> Session:
    s = Session(SID, cwd="/home/ada/src/web")
    s.add(user("start the dev server and watch the build"))
    s.add(bg_shell("npm run dev", "Start the dev server", "toolu_dev"))
    s.add(bg_shell_receipt("toolu_dev", "b7k2m9x1p"))
    s.add(bg_shell("npm test", "Run the tests", "toolu_test"))
    s.add(bg_shell_receipt("toolu_test", "b3n8q2w5z"))
    s.add(monitor_arm("tail -f build.log", "Watch the build", "toolu_mon"))
    s.add(monitor_receipt("toolu_mon", "b9c4d1e7f"))
    s.add(async_agent_launch("toolu_ag", "a1b2c3d4e5f607182", "Audit the deps"))
    return s


def _scan(s: Session, *, incremental: bool = False) -> Scanner:
    data = to_jsonl(s.records)
    scanner = Scanner()
    if incremental:
        lines, offset = [], 0
        for line in data.split(b"\n")[:-1]:
            lines.append((offset, line))
            offset += len(line) + 1
        scanner.feed(lines, SID, is_main=True, key="main")
    else:
        scanner.scan(data, SID, is_main=True, key="main")
        scanner.task_tool_words([data])
    return scanner


@pytest.mark.parametrize("incremental", [False, True])
def test_launches_of_three_kinds(incremental: bool) -> None:
    report = _scan(_session(), incremental=incremental).report(Lens(), NOW, stat=lambda p: None)
    by_kind = {t.kind: t for t in report.tasks}
    assert {t.tool_use_id for t in report.tasks} == {"toolu_dev", "toolu_test", "toolu_mon",
                                                     "toolu_ag"}
    assert report.open_counted == 4
    assert by_kind[MONITOR].id == "b9c4d1e7f" and by_kind[MONITOR].command == "tail -f build.log"
    assert by_kind[AGENT].id == "a1b2c3d4e5f607182"
    assert by_kind[AGENT].output_file == "/tmp/claude/tasks/a1b2c3d4e5f607182.output"
    shells = [t for t in report.tasks if t.kind == SHELL]
    assert {t.id for t in shells} == {"b7k2m9x1p", "b3n8q2w5z"}
    assert all(t.output_file and t.output_file.endswith(".output") for t in shells)
    assert NOT_PROOF in report.notes


@pytest.mark.parametrize("incremental", [False, True])
def test_completions_on_the_three_carriers(incremental: bool) -> None:
    s = _session()
    # idle delivery: a user record; mid-turn: a queue enqueue line and an attachment
    s.add(user(pulse("b3n8q2w5z", "completed", 'Background command "Run the tests" '
                     "completed (exit code 0)", tool_use_id="toolu_test"),
               origin={"kind": "task-notification"}))
    s.add(queue_op("enqueue", pulse("b9c4d1e7f", "", 'Monitor "Watch the build" timed out',
                                    event="[Monitor timed out after 3600s]")))
    s.add(attachment("queued_command", {"prompt": pulse(
        "a1b2c3d4e5f607182", "failed", 'Agent "Audit the deps" failed'),
        "commandMode": "task-notification"}))
    report = _scan(s, incremental=incremental).report(Lens(), NOW, stat=lambda p: None)
    state = {t.tool_use_id: t.state for t in report.tasks}
    assert state == {"toolu_dev": "open", "toolu_test": "completed", "toolu_mon": "timed-out",
                     "toolu_ag": "failed"}
    assert (report.open_counted, report.count("completed"), report.count("failed"),
            report.count("timed-out")) == (1, 1, 1, 1)
    assert report.returned_agents == {"a1b2c3d4e5f607182"}
    assert report.summary_line() == ("1 open; 1 completed, 1 failed, 0 killed, 0 stopped, "
                                     "1 timed out")


def test_monitor_event_pulse_does_not_close_it() -> None:
    s = _session()
    s.add(user(pulse("b9c4d1e7f", "", 'Monitor "Watch the build"', event="build 3 ok"),
               origin={"kind": "task-notification"}))
    report = _scan(s).report(Lens(), NOW, stat=lambda p: None)
    assert next(t for t in report.tasks if t.kind == MONITOR).is_open


def test_completions_from_a_subagent_lane_are_not_read() -> None:
    lane = Session(SID, cwd="/x", agent_id="a77")
    lane.add(user("sub work"))
    lane.add(bg_shell("make watch", "Watch", "toolu_sub"))
    lane.add(bg_shell_receipt("toolu_sub", "bsub00001"))
    lane.add(user(pulse("bsub00001", "completed", "done"), origin={"kind": "task-notification"}))
    scanner = Scanner()
    scanner.scan(to_jsonl(lane.records), "a77", is_main=False, key="lane")
    report = scanner.report(Lens(), NOW, stat=lambda p: None)
    assert [(t.lane, t.state) for t in report.tasks] == [("a77", "open")]


def test_orphan_reconciliation_stops_tasks_and_says_so() -> None:
    s = _session()
    s.add(user("<task-notification>\n<task-id>b7k2m9x1p</task-id>\n<task-id>b3n8q2w5z</task-id>"
               "\n<task-id>__orphan_summary__:shell</task-id>\n<status>stopped</status>\n"
               "<summary>2 background tasks may have been stopped</summary>\n"
               "</task-notification>", origin={"kind": "task-notification"}))
    report = _scan(s).report(Lens(), NOW, stat=lambda p: None)
    assert report.count("stopped") == 2
    assert any("reconciliation" in n for n in report.notes)


def test_agents_stopped_notice_is_noted() -> None:
    s = _session()
    s.add(user("1 background agents were stopped by the user: Audit the deps",
               origin={"kind": "task-notification"}))
    report = _scan(s).report(Lens(), NOW, stat=lambda p: None)
    assert any("names no id" in n for n in report.notes)
    assert next(t for t in report.tasks if t.kind == AGENT).is_open


def test_unknown_status_is_counted_completed_and_said() -> None:
    s = _session()
    s.add(user(pulse("b7k2m9x1p", "vanished", "?", tool_use_id="toolu_dev"),
               origin={"kind": "task-notification"}))
    report = _scan(s).report(Lens(), NOW, stat=lambda p: None)
    assert report.count("completed") == 1
    assert any("vanished" in n for n in report.notes)


def test_launch_refused_at_once_is_failed() -> None:
    s = Session(SID, cwd="/x")
    s.add(user("go"))
    s.add(bg_shell("rm -rf /", "nope", "toolu_no"))
    s.add(tool_result("toolu_no", "permission denied", is_error=True))
    report = _scan(s).report(Lens(), NOW, stat=lambda p: None)
    assert report.count("failed") == 1 and report.open_counted == 0
    assert any("failed at once" in n for n in report.notes)


def test_plain_bash_and_false_flag_are_no_tasks() -> None:
    s = Session(SID, cwd="/x")
    s.add(user("go"))
    s.add(assistant(tool_use("Bash", {"command": "ls", "run_in_background": False}, id="t1")))
    s.add(tool_result("t1", "a b"))
    assert _scan(s).report(Lens(), NOW).tasks == []


def test_the_lens_excludes_and_marks() -> None:
    scanner = _scan(_session())
    lens = Lens(since=DEFAULT_START + timedelta(seconds=12), since_raw="2026-10-05T09:00:12Z",
                ignore=(("npm run", compile_exact("npm run", "--ignore-background")),))
    report = scanner.report(lens, NOW, stat=lambda p: None)
    marks = {t.tool_use_id: t.ignored_by for t in report.tasks}
    assert marks["toolu_dev"] == "launched before --background-since 2026-10-05T09:00:12Z"
    assert marks["toolu_mon"] is None and marks["toolu_ag"] is None
    assert report.open_ignored >= 1
    # counted tasks first, then ignored ones
    ranks = [t.ignored_by is not None for t in report.tasks if t.is_open]
    assert ranks == sorted(ranks)


def test_ignore_pattern_is_case_sensitive() -> None:
    lens = Lens(ignore=(("NPM", compile_exact("NPM", "--ignore-background")),))
    report = _scan(_session()).report(lens, NOW, stat=lambda p: None)
    assert report.open_ignored == 0


def test_output_file_is_stated() -> None:
    report = _scan(_session()).report(
        Lens(), NOW, stat=lambda p: (2048, NOW.timestamp() - 30))
    shell = next(t for t in report.tasks if t.kind == SHELL)
    assert (shell.output_bytes, shell.output_age_s) == (2048, 30)


def test_result_far_from_its_call_is_paired() -> None:
    s = Session(SID, cwd="/x")
    s.add(user("go"))
    s.add(bg_shell("make", "Build", "toolu_far"))
    for i in range(60):
        s.add(user(f"filler {i} " + "z" * 8000))
    s.add(bg_shell_receipt("toolu_far", "bfar00001"))
    report = _scan(s).report(Lens(), NOW, stat=lambda p: None)
    assert report.tasks[0].id == "bfar00001"


def test_delivered_pulses_skip_queue_removals() -> None:
    from pysift.model.record import Record

    s = Session(SID, cwd="/x")
    text = pulse("b1", "completed", "done")
    enq = s.stamp(queue_op("enqueue", text))
    rem = s.stamp(queue_op("remove", text, reason="absorbed_mid_turn"))
    assert len(delivered_pulses(Record(enq, None))) == 1
    assert delivered_pulses(Record(rem, None)) == []


@pytest.mark.parametrize("incremental", [False, True])
def test_a_human_quoting_the_pulse_tag_closes_no_task(incremental: bool) -> None:
    from pysift.model.record import Record

    s = _session()
    quoted = ("my log shows " + pulse("b7k2m9x1p", "completed", "done",
                                      tool_use_id="toolu_dev") + " -- what is that?")
    s.add(user(quoted))
    report = _scan(s, incremental=incremental).report(Lens(), NOW, stat=lambda p: None)
    assert {t.tool_use_id: t.state for t in report.tasks}["toolu_dev"] == "open"
    assert delivered_pulses(Record(s.records[-1], None)) == []


def test_two_pulses_in_one_record_are_two_sections() -> None:
    from pysift.model.record import Record

    s = Session(SID, cwd="/x")
    both = pulse("b1", "completed", "one") + "\n" + pulse("b2", "failed", "two")
    rec = Record(s.stamp(user(both, origin={"kind": "task-notification"})), None)
    sections = delivered_pulses(rec)
    assert [("<task-id>b1<" in x, "<task-id>b2<" in x) for x in sections] == [
        (True, False), (False, True)]
    assert all(x.startswith("<task-notification>") for x in sections)


# -- the harness's own word through a task tool (no notification written) ------------------


def _stop_result(call_id: str, task_id: str, description: str) -> dict:
    """``TaskStop`` (Claude Code 2.1.x): stopping a task writes this result and, in the real
    corpus, no ``<task-notification>`` at all."""
    return tool_result(call_id, (
        f'{{"message":"Successfully stopped task: {task_id} ({description})",'
        f'"task_id":"{task_id}","task_type":"local_bash"}}'), tool_use_result={
        "message": f"Successfully stopped task: {task_id} ({description})",
        "task_id": task_id, "task_type": "local_bash"})


def _kill_shell_result(call_id: str, shell_id: str, command: str) -> dict:
    """``KillShell`` (Claude Code 2.0.x, before task notifications existed)."""
    return tool_result(call_id, (
        f'{{"message":"Successfully killed shell: {shell_id} ({command})",'
        f'"shell_id":"{shell_id}"}}'), tool_use_result={
        "message": f"Successfully killed shell: {shell_id} ({command})", "shell_id": shell_id})


@pytest.mark.parametrize("incremental", [False, True])
def test_a_task_stopped_or_killed_by_its_tool_is_closed(incremental: bool) -> None:
    s = _session()
    s.add(assistant(tool_use("TaskStop", {"task_id": "b7k2m9x1p"}, id="toolu_stop")))
    s.add(_stop_result("toolu_stop", "b7k2m9x1p", "Start the dev server"))
    s.add(assistant(tool_use("KillShell", {"shell_id": "b3n8q2w5z"}, id="toolu_kill")))
    s.add(_kill_shell_result("toolu_kill", "b3n8q2w5z", "npm test"))
    report = _scan(s, incremental=incremental).report(Lens(), NOW, stat=lambda p: None)
    state = {t.tool_use_id: t.state for t in report.tasks}
    assert state == {"toolu_dev": "stopped", "toolu_test": "killed", "toolu_mon": "open",
                     "toolu_ag": "open"}


@pytest.mark.parametrize("incremental", [False, True])
def test_a_poll_reporting_a_final_status_closes_the_task(incremental: bool) -> None:
    s = _session()
    # TaskOutput (2.1.x) on the test run: completed; on the agent: still running
    s.add(assistant(tool_use("TaskOutput", {"task_id": "b3n8q2w5z", "block": True},
                             id="toolu_out1")))
    s.add(tool_result("toolu_out1", "<retrieval_status>success</retrieval_status>\n\n"
                      "<status>completed</status>", tool_use_result={
                          "retrieval_status": "success", "task": {
                              "task_id": "b3n8q2w5z", "task_type": "local_bash",
                              "status": "completed", "exitCode": 0}}))
    s.add(assistant(tool_use("TaskOutput", {"task_id": "a1b2c3d4e5f607182", "block": False},
                             id="toolu_out2")))
    s.add(tool_result("toolu_out2", "<retrieval_status>not_ready</retrieval_status>",
                      tool_use_result={"retrieval_status": "not_ready", "task": {
                          "task_id": "a1b2c3d4e5f607182", "task_type": "local_agent",
                          "status": "running"}}))
    # BashOutput (2.0.x) on the dev server: it exited
    s.add(assistant(tool_use("BashOutput", {"bash_id": "b7k2m9x1p"}, id="toolu_out3")))
    s.add(tool_result("toolu_out3", "<status>failed</status>", tool_use_result={
        "shellId": "b7k2m9x1p", "command": "npm run dev", "status": "failed",
        "exitCode": 1}))
    report = _scan(s, incremental=incremental).report(Lens(), NOW, stat=lambda p: None)
    state = {t.tool_use_id: t.state for t in report.tasks}
    assert state == {"toolu_dev": "failed", "toolu_test": "completed", "toolu_mon": "open",
                     "toolu_ag": "open"}


def test_a_refused_stop_closes_nothing() -> None:
    s = _session()
    s.add(assistant(tool_use("KillShell", {"shell_id": "b7k2m9x1p"}, id="toolu_kill")))
    s.add(tool_result("toolu_kill", "Shell b7k2m9x1p is not running", is_error=True,
                      tool_use_result="Error: Shell b7k2m9x1p is not running"))
    report = _scan(s).report(Lens(), NOW, stat=lambda p: None)
    assert next(t for t in report.tasks if t.tool_use_id == "toolu_dev").is_open


def test_a_subagent_stopping_its_own_shell_closes_it() -> None:
    lane = Session(SID, cwd="/x", agent_id="a77")
    lane.add(user("sub work"))
    lane.add(bg_shell("make watch", "Watch", "toolu_sub"))
    lane.add(bg_shell_receipt("toolu_sub", "bsub00001"))
    lane.add(assistant(tool_use("TaskStop", {"task_id": "bsub00001"}, id="toolu_stop")))
    lane.add(_stop_result("toolu_stop", "bsub00001", "Watch"))
    scanner = Scanner()
    scanner.scan(to_jsonl(lane.records), "a77", is_main=False, key="lane")
    scanner.task_tool_words([to_jsonl(lane.records)])
    report = scanner.report(Lens(), NOW, stat=lambda p: None)
    assert [(t.lane, t.state) for t in report.tasks] == [("a77", "stopped")]


def test_the_main_stopping_a_lanes_shell_closes_it_though_scanned_first() -> None:
    main = Session(SID, cwd="/x")
    main.add(user("stop the watcher the auditor started"))
    main.add(assistant(tool_use("TaskStop", {"task_id": "bsub00001"}, id="toolu_stop")))
    main.add(_stop_result("toolu_stop", "bsub00001", "Watch"))
    lane = Session(SID, cwd="/x", agent_id="a77")
    lane.add(user("sub work"))
    lane.add(bg_shell("make watch", "Watch", "toolu_sub"))
    lane.add(bg_shell_receipt("toolu_sub", "bsub00001"))
    scanner = Scanner()
    buffers = [to_jsonl(main.records), to_jsonl(lane.records)]
    scanner.scan(buffers[0], SID, is_main=True, key="main")
    scanner.scan(buffers[1], "a77", is_main=False, key="lane")
    scanner.task_tool_words(buffers)
    report = scanner.report(Lens(), NOW, stat=lambda p: None)
    assert [(t.lane, t.state) for t in report.tasks] == [("a77", "stopped")]


def test_no_open_task_no_search() -> None:
    """A session whose tasks all returned reads no line for the task tools."""
    s = Session(SID, cwd="/x")
    s.add(user("run it"))
    s.add(bg_shell("make", "Build", "toolu_b"))
    s.add(bg_shell_receipt("toolu_b", "bbuild001"))
    s.add(user(pulse("bbuild001", "completed", "done", tool_use_id="toolu_b"),
               origin={"kind": "task-notification"}))
    scanner = Scanner()
    scanner.scan(to_jsonl(s.records), SID, is_main=True, key="main")

    class NoRead(bytes):
        def find(self, *args, **kwargs):  # type: ignore[no-untyped-def, override]
            raise AssertionError("searched")

    scanner.task_tool_words([NoRead(to_jsonl(s.records))])
