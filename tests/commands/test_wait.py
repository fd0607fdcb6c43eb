"""``wait``: the condition grammar, baseline semantics, first hit wins, the exit report.

The loop runs on a ``ManualClock`` and the timer (no file watcher): each ``sleep`` moves
the clock and lets a scripted writer append to the session, so a whole wait runs in
milliseconds and in the same order every time."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from builders import (
    ClaudeHome,
    Session,
    assistant,
    attachment,
    auq_use,
    elicitation_pending,
    hook_progress,
    queue_op,
    stop_hook_feedback,
    stop_hook_summary,
    text,
    to_jsonl,
    to_line,
    tool_result,
    tool_use,
    torn,
    user,
)
from livekit import ManualClock, Processes, asctime, live_env, pulse
from pysift.commands.scope import ScopeArgs
from pysift.commands.wait import WaitOptions, run
from pysift.errors import UsageError

SID = "3f6c1e2a-8b4d-4c7e-9a15-2d8e0b7f4c61"
CWD = "/home/ada/src/orbit"


class Writer:
    """Appends to the session on given sleeps of the clock (the 1st, the 2nd, …)."""

    def __init__(self, clock: ManualClock) -> None:
        self.clock = clock
        self.steps: dict[int, Callable[[], None]] = {}
        self.count = 0
        original = clock.sleep

        def sleep(seconds: float) -> None:
            original(seconds)
            self.count += 1
            step = self.steps.get(self.count)
            if step is not None:
                step()

        clock.sleep = sleep  # type: ignore[method-assign]

    def at(self, n: int, step: Callable[[], None]) -> None:
        self.steps[n] = step


@pytest.fixture
def setup(home: ClaudeHome):  # type: ignore[no-untyped-def]
    s = Session(SID, cwd=CWD)
    s.add(user("run the tests"))
    s.add(assistant(tool_use("Bash", {"command": "pytest -x"}, id="hist1")))
    s.add(tool_result("hist1", "1 passed"))
    s.add(assistant(text("working on it"), stop_reason=None))
    path = home.session(CWD, SID, s)
    clock = ManualClock(s.now + timedelta(seconds=10))
    return home, s, path, clock, Writer(clock)


def _wait(home: ClaudeHome, clock: ManualClock, *until: str, timeout: float = 30,
          processes: Processes | None = None, interval_ms: int | None = None,
          ready: list[str] | None = None, subagents: bool = True):  # type: ignore[no-untyped-def]
    env = live_env(home.root, clock.now(), processes, clock=clock)
    opts = WaitOptions(scope=ScopeArgs(targets=(f"@{SID}",), subagents=subagents),
                       until=until, timeout_s=timeout, interval_ms=interval_ms, watch=False,
                       on_ready=(ready.append if ready is not None else lambda _l: None))
    report = run(opts, env)
    return report, report.bare_json


def _append(path: Path, s: Session, *records) -> Callable[[], None]:  # type: ignore[no-untyped-def]
    def step() -> None:
        with path.open("ab") as fh:
            for r in records:
                fh.write(to_line(s.stamp(r)) if isinstance(r, dict) else r)
    return step


def test_history_never_fires_and_the_timeout_is_124(setup) -> None:  # type: ignore[no-untyped-def]
    home, _s, _path, clock, _w = setup
    report, obj = _wait(home, clock, "tool:Bash", timeout=5)
    assert obj["fired"] == "timeout" and report.exit_code == 124
    assert obj["waited_secs"] == 5
    assert obj["activity"]["records"] == 0
    assert obj["kind"] == "wait" and set(obj) == {
        "kind", "fired", "verdict", "waited_secs", "at_exit", "activity", "evidence",
        "background", "last", "notes"}


def test_appended_call_fires(setup) -> None:  # type: ignore[no-untyped-def]
    home, s, path, clock, w = setup
    w.at(2, _append(path, s, assistant(tool_use("Bash", {"command": "pytest -q tests"},
                                                id="new1"))))
    report, obj = _wait(home, clock, "tool:Read", "tool:Bash:pytest")
    assert obj["fired"] == "tool:Bash:pytest" and report.exit_code == 0
    assert obj["verdict"] == "running" and obj["at_exit"].startswith("in a Bash call")
    assert obj["activity"]["tools"] == {"Bash": 1}


def test_tool_regex_is_case_sensitive(setup) -> None:  # type: ignore[no-untyped-def]
    home, s, path, clock, w = setup
    w.at(1, _append(path, s, assistant(tool_use("Bash", {"command": "PYTEST"}, id="n2"))))
    _, obj = _wait(home, clock, "tool:Bash:pytest", timeout=3)
    assert obj["fired"] == "timeout"


def test_state_condition_fires_at_the_start(home: ClaudeHome) -> None:
    s = Session(SID, cwd=CWD)
    s.add(user("hi"))
    s.add(assistant("done"))
    home.session(CWD, SID, s)
    clock = ManualClock(s.now + timedelta(seconds=3))
    ready: list[str] = []
    _report, obj = _wait(home, clock, "stop", ready=ready)
    assert obj["fired"] == "stop" and obj["verdict"] == "idle-eot"
    assert clock.sleeps == []  # judged before any wait
    assert ready == ["watching 1 file(s) from byte offsets; conditions: stop; timeout 30s"]


def test_first_hit_wins_in_the_order_given(setup) -> None:  # type: ignore[no-untyped-def]
    home, s, path, clock, w = setup
    w.at(1, _append(path, s, assistant(tool_use("Write", {"file_path": "/r/src/a.py",
                                                          "content": "x = 1\n# TODO later\n"},
                                                id="w1"))))
    _, obj = _wait(home, clock, "write:src/.*\\.py:TODO", "tool:Write")
    assert obj["fired"] == "write:src/.*\\.py:TODO"


def test_write_line_regex_reads_multiedit_edits(setup) -> None:  # type: ignore[no-untyped-def]
    home, s, path, clock, w = setup
    w.at(1, _append(path, s, assistant(tool_use("MultiEdit", {
        "file_path": "/r/lib/b.py",
        "edits": [{"old_string": "a", "new_string": "b"},
                  {"old_string": "c", "new_string": "d\nFIXME: x"}]}, id="m1"))))
    _, obj = _wait(home, clock, "write:lib/b\\.py:^FIXME")
    assert obj["fired"] == "write:lib/b\\.py:^FIXME"


def test_notification_on_a_queue_enqueue_line(setup) -> None:  # type: ignore[no-untyped-def]
    home, s, path, clock, w = setup
    note = pulse("b3n8q2w5z", "failed", 'Background command "e2e" failed with exit code 1')
    w.at(1, _append(path, s, queue_op("remove", note, reason="absorbed_mid_turn")))
    w.at(2, _append(path, s, queue_op("enqueue", note)))
    _, obj = _wait(home, clock, "notification:failed")
    assert obj["fired"] == "notification:failed"
    assert obj["activity"]["notifications"] == 1


def test_notification_in_a_subagent_lane_does_not_fire(setup) -> None:  # type: ignore[no-untyped-def]
    home, s, path, clock, w = setup
    lane = Session(SID, cwd=CWD, agent_id="a1111111111111111", start=s.now)
    lane.add(user("sub"))
    home.subagent(path, "a1111111111111111", lane)
    lane_path = path.with_suffix("") / "subagents" / "agent-a1111111111111111.jsonl"
    w.at(1, _append(lane_path, lane, user(pulse("bx", "completed", "done"),
                                          origin={"kind": "task-notification"})))
    _, obj = _wait(home, clock, "notification", timeout=3)
    assert obj["fired"] == "timeout"


def test_lane_born_after_the_start_joins_with_a_zero_baseline(setup) -> None:  # type: ignore[no-untyped-def]
    home, s, path, clock, w = setup

    def spawn() -> None:
        lane = Session(SID, cwd=CWD, agent_id="a2222222222222222", start=s.now)
        lane.add(user("explore"))
        lane.add(assistant(tool_use("Grep", {"pattern": "TLE"}, id="g1")))
        home.subagent(path, "a2222222222222222", lane)

    w.at(2, spawn)
    _, obj = _wait(home, clock, "tool:Grep")
    assert obj["fired"] == "tool:Grep"
    assert obj["activity"]["lanes"] == 1 and obj["activity"]["records"] == 2


def test_sidecar_born_after_the_start_fires_auq(setup) -> None:  # type: ignore[no-untyped-def]
    home, s, path, clock, w = setup
    ask = s.stamp(assistant(auq_use([{"question": "Which DB?", "header": "DB",
                                      "multiSelect": False, "options": []}], id="ask1")),
                  commit=False)
    w.at(2, lambda: home.sidecar(path, [elicitation_pending(ask, "ask1")]))
    _, obj = _wait(home, clock, "auq")
    assert obj["fired"] == "auq"
    assert obj["verdict"] == "waiting-hitl"
    assert obj["activity"]["records"] == 0  # the sidecar is not the session's own stream


def test_torn_line_fires_only_once_completed(setup) -> None:  # type: ignore[no-untyped-def]
    home, s, path, clock, w = setup
    record = s.stamp(assistant(tool_use("Bash", {"command": "make deploy"}, id="d1")))
    line = to_line(record)
    half = torn(record, keep=0.5)
    w.at(1, _append(path, s, half))
    fired_at: list[int] = []

    def finish() -> None:
        fired_at.append(w.count)
        _append(path, s, line[len(half):])()

    w.at(3, finish)
    _, obj = _wait(home, clock, "tool:Bash:deploy")
    assert obj["fired"] == "tool:Bash:deploy"
    assert fired_at == [3]
    assert obj["activity"]["records"] == 1


def test_registry_flip_fires_hitl(setup) -> None:  # type: ignore[no-untyped-def]
    home, s, _path, clock, w = setup
    born = s.now - timedelta(hours=1)
    table = Processes(alive={4242: born.timestamp()})
    home.registry_row(4242, SID, "busy", procStart=asctime(born))
    w.at(2, lambda: home.registry_row(4242, SID, "waiting", procStart=asctime(born)))
    _, obj = _wait(home, clock, "hitl", processes=table)
    assert obj["fired"] == "hitl" and obj["verdict"] == "waiting-hitl"


def test_stop_waits_out_a_stop_hook_that_sends_the_agent_back(setup) -> None:  # type: ignore[no-untyped-def]
    """The end_turn lands while a Stop hook starts; the hook blocks and the agent goes
    on: `stop` fires on the agent's next end of turn, not on the first (it fired there,
    reading the end_turn as the end while the hook ran)."""
    home, s, path, clock, w = setup
    w.at(1, _append(path, s, assistant("all done"), hook_progress("Stop", "./check.sh")))
    w.at(3, _append(path, s, stop_hook_feedback("./check.sh", "2 tests fail"),
                    stop_hook_summary([("./check.sh", 900)], hookErrors=["2 tests fail"])))
    w.at(5, _append(path, s, assistant("fixed both tests"), hook_progress("Stop", "./check.sh"),
                    stop_hook_summary([("./check.sh", 700)])))
    _, obj = _wait(home, clock, "stop", timeout=30)
    assert obj["fired"] == "stop" and obj["verdict"] == "idle-eot"
    assert w.count == 5  # not before the hook let the turn end
    assert obj["last"]["agent"]["text"] == "fixed both tests"


def _hook_returned(command: str, event: str = "Stop") -> dict:
    return attachment("hook_success", {"hookName": event, "hookEvent": event,
                                       "toolUseID": "toolu_h", "command": command,
                                       "exitCode": 0, "durationMs": 900})


def test_stop_fires_on_a_stop_hooks_written_return_without_a_summary(setup) -> None:  # type: ignore[no-untyped-def]
    """IDE, desktop and SDK sessions write the stop_hook_summary only with the next
    prompt: the hook's own return ends it (the wait ran to its timeout)."""
    home, s, path, clock, w = setup
    w.at(1, _append(path, s, assistant("all done"), hook_progress("Stop", "./check.sh")))
    w.at(3, _append(path, s, _hook_returned("./check.sh")))
    _, obj = _wait(home, clock, "stop", timeout=30)
    assert obj["fired"] == "stop" and obj["verdict"] == "idle-eot"
    assert w.count == 3


def test_stop_on_a_subagent_target_waits_out_its_subagent_stop_hook(setup) -> None:  # type: ignore[no-untyped-def]
    """A lane's SubagentStop hook runs after its end_turn, in its own transcript: `stop`
    fires once the hook has returned, not on the end_turn before it."""
    home, s, path, clock, w = setup
    lane = Session(SID, cwd=CWD, agent_id="a4444444444444444", start=s.now)
    lane.add(user("dig"))
    lane.add(assistant(tool_use("Grep", {"pattern": "lane"}, id="gl")))
    home.subagent(path, "a4444444444444444", lane)
    lane_path = path.with_suffix("") / "subagents" / "agent-a4444444444444444.jsonl"
    w.at(1, _append(lane_path, lane, tool_result("gl", "3 hits"),
                    assistant("found it", stop_reason="end_turn"),
                    hook_progress("SubagentStop", "./report.sh")))
    w.at(4, _append(lane_path, lane, stop_hook_summary([("./report.sh", 900)])))
    env = live_env(home.root, clock.now(), None, clock=clock)
    report = run(WaitOptions(scope=ScopeArgs(targets=("@a4444444444444444",)),
                             until=("stop",), timeout_s=30, watch=False), env)
    obj = report.bare_json
    assert obj["fired"] == "stop" and obj["verdict"] == "idle-eot"
    assert w.count == 4


def test_owner_dying_fires_stop(setup) -> None:  # type: ignore[no-untyped-def]
    home, s, _path, clock, w = setup
    born = s.now - timedelta(hours=1)
    table = Processes(alive={4242: born.timestamp()})
    home.registry_row(4242, SID, "busy", procStart=asctime(born))
    w.at(3, table.alive.clear)
    _, obj = _wait(home, clock, "stop", processes=table)
    assert obj["fired"] == "stop" and obj["verdict"] == "stale-dead"


def test_owner_exiting_with_its_row_removed_fires_stop(setup) -> None:  # type: ignore[no-untyped-def]
    """Claude Code removes its registry row when the session exits: a session quit in the
    middle of a call left its tail "running", and with no row left to name the pid, wait
    never saw the owner go; the pid of the row it saw is probed on."""
    home, s, _path, clock, w = setup
    born = s.now - timedelta(hours=1)
    table = Processes(alive={4242: born.timestamp()})
    home.registry_row(4242, SID, "busy", procStart=asctime(born))

    def exit_() -> None:
        table.alive.clear()
        (home.root / "sessions" / "4242.json").unlink()

    w.at(3, exit_)
    _, obj = _wait(home, clock, "stop", processes=table, timeout=10)
    assert obj["fired"] == "stop" and obj["verdict"] == "stale-dead"
    assert any("4242.json that named this session is gone" in n for n in obj["notes"])


def test_a_row_removed_during_an_event_wait_still_names_the_owner(home: ClaudeHome) -> None:
    """With only event conditions nothing is judged before the exit: the row is taken at
    the start, so the exit report still probes the owner it named."""
    s = Session(SID, cwd=CWD)
    s.add(user("run it"))
    s.add(assistant(tool_use("Bash", {"command": "make"}, id="m1")))
    path = home.session(CWD, SID, s)
    born = s.now - timedelta(hours=1)
    table = Processes(alive={4242: born.timestamp()})
    home.registry_row(4242, SID, "busy", procStart=asctime(born))
    clock = ManualClock(s.now + timedelta(seconds=2))
    w = Writer(clock)

    def exit_() -> None:
        table.alive.clear()
        (home.root / "sessions" / "4242.json").unlink()

    w.at(1, exit_)
    assert path.exists()
    _, obj = _wait(home, clock, "tool:Nothing", processes=table, timeout=4)
    assert obj["fired"] == "timeout" and obj["verdict"] == "stale-dead"


def test_pid_reused_while_watched_fires_stop(setup) -> None:  # type: ignore[no-untyped-def]
    home, s, _path, clock, w = setup
    born = s.now - timedelta(hours=1)
    table = Processes(alive={4242: born.timestamp()})
    home.registry_row(4242, SID, "busy", procStart=asctime(born))

    def reuse() -> None:
        table.alive[4242] = born.timestamp() + 3000

    w.at(2, reuse)
    _, obj = _wait(home, clock, "verdict:stale-dead", processes=table)
    assert obj["fired"] == "verdict:stale-dead"
    assert {"surface": "pid", "value": "pid reused by another process", "age_secs": None} \
        in obj["evidence"]


def test_idle_background_open_never_satisfies_stop(home: ClaudeHome) -> None:
    from livekit import bg_shell, bg_shell_receipt

    s = Session(SID, cwd=CWD)
    s.add(user("serve"))
    s.add(bg_shell("npm run dev", "dev server", "t_dev"))
    s.add(bg_shell_receipt("t_dev", "b7k2m9x1p"))
    s.add(assistant("it runs"))
    home.session(CWD, SID, s)
    clock = ManualClock(s.now + timedelta(seconds=3))
    _, obj = _wait(home, clock, "stop", timeout=4)
    assert obj["fired"] == "timeout" and obj["verdict"] == "idle-background-open"
    assert obj["background"]["open"] == 1


def test_truncated_while_watched_is_said_and_the_watch_goes_on(setup) -> None:  # type: ignore[no-untyped-def]
    home, s, path, clock, w = setup
    w.at(1, lambda: path.write_bytes(to_jsonl(s.records[:2])))
    w.at(3, _append(path, s, assistant(tool_use("Edit", {"file_path": "/r/x.py",
                                                         "old_string": "a",
                                                         "new_string": "b"}, id="e1"))))
    _, obj = _wait(home, clock, "tool:Edit")
    assert obj["fired"] == "tool:Edit"
    assert any("was truncated while watched" in n for n in obj["notes"])


def test_transcript_removed_while_watched_ends_at_the_timeout(setup) -> None:  # type: ignore[no-untyped-def]
    home, _s, path, clock, w = setup
    w.at(1, path.unlink)
    report, obj = _wait(home, clock, "tool:Bash", timeout=3)
    assert report.exit_code == 124 and obj["fired"] == "timeout"


def test_adaptive_interval_backs_off_and_pins(setup) -> None:  # type: ignore[no-untyped-def]
    home, _s, _path, clock, _w = setup
    _wait(home, clock, "tool:Nothing", timeout=8)
    assert clock.sleeps[0] == pytest.approx(0.2)
    assert max(clock.sleeps) == pytest.approx(2.0)
    assert clock.sleeps == sorted(clock.sleeps[:-1]) + clock.sleeps[-1:]
    pinned = ManualClock(clock.now())
    _wait(home, pinned, "tool:Nothing", timeout=2, interval_ms=500)
    assert pinned.sleeps == [0.5, 0.5, 0.5, 0.5]


def test_the_exit_report_census(setup) -> None:  # type: ignore[no-untyped-def]
    home, s, path, clock, w = setup
    w.at(1, _append(path, s, user("also check the docs"),
                    assistant(tool_use("Read", {"file_path": "README.md"}, id="rd1")),
                    tool_result("rd1", "# readme"),
                    assistant(tool_use("Read", {"file_path": "docs/a.md"}, id="rd2")),
                    tool_result("rd2", "# a"),
                    assistant("both read")))
    report, obj = _wait(home, clock, "stop")
    assert obj["fired"] == "stop"
    assert obj["activity"] == {"records": 6, "lanes": 1, "tools": {"Read": 2}, "thinking": 0,
                               "agent_messages": 1, "user_prompts": 1, "notifications": 0}
    out = __import__("io").StringIO()
    report.text(out)
    assert ("activity 6 record(s) in 1 lane(s): tools Read x2 · thinking 0 · messages 1 · "
            "prompts 1 · notifications 0") in out.getvalue()
    assert obj["last"]["agent"]["text"] == "both read"


# -- bad input -----------------------------------------------------------------------------


def test_missing_timeout_is_refused_with_the_reason(setup) -> None:  # type: ignore[no-untyped-def]
    home, _s, _p, clock, _w = setup
    with pytest.raises(UsageError, match="needs --timeout"):
        run(WaitOptions(scope=ScopeArgs(targets=(f"@{SID}",)), until=("stop",)),
            live_env(home.root, clock.now()))


@pytest.mark.parametrize(("cond", "message"), [
    ("stopped", "unknown condition `stopped`; the conditions are stop | hitl"),
    ("tool:", "needs a tool NAME"),
    ("write:", "needs a path regex"),
    ("verdict:done", "unknown verdict `done`"),
    ("tool:Bash:(unclosed", "--until tool: bad regex `(unclosed`"),
    ("notification:", "empty regex"),
])
def test_bad_conditions(setup, cond: str, message: str) -> None:  # type: ignore[no-untyped-def]
    home, _s, _p, clock, _w = setup
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace("|", r"\|")):
        run(WaitOptions(scope=ScopeArgs(targets=(f"@{SID}",)), until=(cond,), timeout_s=1),
            live_env(home.root, clock.now()))


def test_report_is_one_json_object(setup) -> None:  # type: ignore[no-untyped-def]
    home, _s, _p, clock, _w = setup
    report, _obj = _wait(home, clock, "tool:X", timeout=1)
    from pysift.output import envelope

    buf = __import__("io").BytesIO()
    envelope.write(report, buf)
    lines = buf.getvalue().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["kind"] == "wait"


def test_subagent_target_watches_its_own_lane(setup) -> None:  # type: ignore[no-untyped-def]
    home, s, path, clock, w = setup
    lane = Session(SID, cwd=CWD, agent_id="a4444444444444444", start=s.now)
    lane.add(user("dig"))
    lane.add(assistant("looking"))
    home.subagent(path, "a4444444444444444", lane)
    lane_path = path.with_suffix("") / "subagents" / "agent-a4444444444444444.jsonl"
    w.at(1, _append(path, s, assistant(tool_use("Grep", {"pattern": "main"}, id="gm"))))
    w.at(2, _append(lane_path, lane, assistant(tool_use("Grep", {"pattern": "lane"}, id="gl"))))
    env = live_env(home.root, clock.now(), None, clock=clock)
    report = run(WaitOptions(scope=ScopeArgs(targets=("@a4444444444444444",)),
                             until=("tool:Grep",), timeout_s=10, watch=False), env)
    obj = report.bare_json
    assert obj["fired"] == "tool:Grep" and clock.sleeps and len(clock.sleeps) == 2
    assert obj["activity"]["records"] == 1 and obj["activity"]["lanes"] == 1


def test_notification_on_a_subagent_target_is_refused(setup) -> None:  # type: ignore[no-untyped-def]
    """A subagent's background task completes in its session's MAIN transcript, which a
    wait on the lane does not take events from: the condition could never fire, and a
    timeout would read as "nothing came back"."""
    home, s, path, clock, _w = setup
    lane = Session(SID, cwd=CWD, agent_id="a4444444444444444", start=s.now)
    lane.add(user("build it in the background"))
    lane.add(assistant("started"))
    home.subagent(path, "a4444444444444444", lane)
    env = live_env(home.root, clock.now(), None, clock=clock)
    with pytest.raises(UsageError, match=f"notification never fires on a subagent.*@{SID}"):
        run(WaitOptions(scope=ScopeArgs(targets=("@a4444444444444444",)),
                        until=("stop", "notification:build"), timeout_s=10, watch=False), env)
    assert clock.sleeps == []


def test_a_pending_ask_answered_natively_stops_counting(home: ClaudeHome) -> None:
    """The ghost guard while watching: once the native AskUserQuestion lands in the main
    transcript, the sidecar's pending copy no longer holds the session in waiting-hitl."""
    s = Session(SID, cwd=CWD)
    s.add(user("release?"))
    s.add(assistant(text("asking"), stop_reason=None))
    path = home.session(CWD, SID, s)
    questions = [{"question": "Ship?", "header": "Ship", "multiSelect": False, "options": []}]
    ask = s.stamp(assistant(auq_use(questions, id="askN")), commit=False)
    home.sidecar(path, [elicitation_pending(ask, "askN")])
    clock = ManualClock(s.now + timedelta(seconds=2))
    w = Writer(clock)
    w.at(2, _append(path, s, assistant(auq_use(questions, id="askN")),
                    tool_result("askN", "User has answered your questions: Ship?=yes"),
                    assistant("shipping")))
    _, obj = _wait(home, clock, "verdict:idle-eot", timeout=10)
    assert obj["fired"] == "verdict:idle-eot"
    assert not any(e["surface"] == "sidecar" for e in obj["evidence"])


def test_an_ask_answered_before_the_start_stays_answered_when_the_sidecar_grows(
        home: ClaudeHome) -> None:
    """A pending whose native record was in the transcript before the wait (its resolved
    line never landed) is a ghost; a later ask appended to the sidecar made wait re-read
    the sidecar without the transcript, and the ghost held the session in waiting-hitl
    (so `stop` never fired) after the later ask was answered too."""
    s = Session(SID, cwd=CWD)
    s.add(user("release?"))
    first = [{"question": "Ship?", "header": "Ship", "multiSelect": False, "options": []}]
    s.add(assistant(auq_use(first, id="askA")))
    s.add(tool_result("askA", "User has answered your questions: Ship?=yes"))
    s.add(assistant("shipped"))
    path = home.session(CWD, SID, s)
    ghost = s.stamp(assistant(auq_use(first, id="askA")), commit=False)
    home.sidecar(path, [elicitation_pending(ghost, "askA")])
    second = [{"question": "Tag it?", "header": "Tag", "multiSelect": False, "options": []}]
    later = s.stamp(assistant(auq_use(second, id="askB")), commit=False)
    clock = ManualClock(s.now + timedelta(seconds=2))
    w = Writer(clock)
    sidecar = path.parent / SID / "elicitations.jsonl"

    def ask_again() -> None:
        with sidecar.open("ab") as fh:
            fh.write(to_line(elicitation_pending(later, "askB")))

    w.at(1, _append(path, s, user("and tag it")))
    w.at(2, ask_again)
    w.at(3, _append(path, s, assistant(auq_use(second, id="askB")),
                    tool_result("askB", "User has answered your questions: Tag it?=yes"),
                    assistant("tagged")))
    _, obj = _wait(home, clock, "tool:Nothing", timeout=8)
    assert obj["fired"] == "timeout"
    assert obj["verdict"] == "idle-eot"
    assert not any(e["surface"] == "sidecar" for e in obj["evidence"])


def test_wait_over_an_archive_says_its_live_state_was_not_archived(setup) -> None:  # type: ignore[no-untyped-def]
    """The archive's manifest marks the home; wait's report says the registry and task
    lists were not archived, as status does (SPEC §11c)."""
    home, _s, _path, clock, _w = setup
    marker = home.root / ".pysift" / "archive.json"
    marker.parent.mkdir()
    marker.write_text(json.dumps({"homes": ["/home/ada/.claude"]}))
    _report, obj = _wait(home, clock, "tool:Bash", timeout=1)
    assert any(n.startswith("this Claude home is an archive of /home/ada/.claude made by")
               for n in obj["notes"])
