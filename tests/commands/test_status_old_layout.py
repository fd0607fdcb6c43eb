"""``status`` and ``wait`` over old-layout lanes: the ``agent-<id>.jsonl`` files Claude Code
2.0.x and older wrote beside the sessions, each record naming its session's
``sessionId``. They are the session's children as a ``<uuid>/subagents/`` lane is, with
the same states; their return is read from the main transcript by the agent's id (2.0.x)
or, when the Task result names no agent (1.x), by the spawning call's prompt. A file
naming another session or none, and 2.0.x's start-up "Warmup" ping, are never the
children this session waits on."""

from __future__ import annotations

import io
from datetime import timedelta
from pathlib import Path

from builders import (
    ClaudeHome,
    Session,
    assistant,
    subagent_return,
    text,
    to_line,
    tool_result,
    tool_use,
    user,
)
from livekit import ManualClock, live_env
from pysift.commands.scope import ScopeArgs
from pysift.commands.status import StatusOptions
from pysift.commands.status import run as run_status
from pysift.commands.wait import WaitOptions
from pysift.commands.wait import run as run_wait
from pysift.live.background import Lens

SID = "3f6c1e2a-8b4d-4c7e-9a15-2d8e0b7f4c61"
OTHER = "7a2d9c4e-1f3b-4e6a-8c5d-9b0e2f4a6c83"
CWD = "/home/ada/src/orbit"
LANE = "a1b2c3d4"


def _old_lane(home: ClaudeHome, agent_id: str, session_id: str, start, *records) -> Path:  # type: ignore[no-untyped-def]
    """``agent-<id>.jsonl`` beside the sessions, every record naming ``session_id``."""
    lane = Session(session_id, cwd=CWD, agent_id=agent_id, start=start)
    for r in records:
        lane.add(r)
    path = home.project_dir(CWD) / f"agent-{agent_id}.jsonl"
    path.write_bytes(lane.lines())
    return path


def _status(home: ClaudeHome, s: Session, *, after: float, target: str = f"@{SID}") -> dict:
    home.session(CWD, SID, s)
    env = live_env(home.root, s.now + timedelta(seconds=after))
    report = run_status(StatusOptions(scope=ScopeArgs(targets=(target,)), lens=Lens()), env)
    row = report.rows[0]
    out = io.StringIO()
    assert report.text is not None
    report.text(out)
    row["_text"] = out.getvalue()
    return row


def _surfaces(row: dict) -> dict[str, str]:
    return {e["surface"]: e["value"] for e in row["evidence"]}


def _spawned(*records) -> Session:  # type: ignore[no-untyped-def]
    """A 2.0.x-era session that spawned a Task subagent with the prompt "audit the deps"."""
    s = Session(SID, cwd=CWD, version="2.0.37")
    s.add(user("check the dependencies"))
    s.add(assistant(tool_use("Task", {"prompt": "audit the deps", "description": "audit",
                                      "subagent_type": "general-purpose"}, id="task1")))
    for r in records:
        s.add(r)
    return s


def test_an_old_layout_lane_with_an_open_call_is_an_in_flight_child(home: ClaudeHome) -> None:
    """Before: the lane was not read at all, and the session (its main turn ended) read
    idle-eot while its subagent was mid-call."""
    s = _spawned()
    _old_lane(home, LANE, SID, s.now, user("audit the deps"),
              assistant(tool_use("Bash", {"command": "npm audit"}, id="b1")))
    row = _status(home, s, after=20)
    assert row["verdict"] == "running"  # the main's Task call is open too
    assert row["children"] == [{"session_id": LANE, "state": "in-flight",
                                "detail": "unanswered Bash call for 15s"}]
    assert _surfaces(row)["children"] == "1 lane(s), 1 live"


def test_an_old_layout_lane_writing_is_generating(home: ClaudeHome) -> None:
    s = _spawned()
    _old_lane(home, LANE, SID, s.now, user("audit the deps"),
              assistant(text("Reading the lockfile."), stop_reason=None))
    row = _status(home, s, after=20)
    assert row["children"][0]["session_id"] == LANE
    assert row["children"][0]["state"] == "generating"


def test_an_old_layout_lane_returned_by_its_agent_id_is_settled(home: ClaudeHome) -> None:
    """2.0.x: the Task result's toolUseResult names the agent (and its footer line)."""
    s = _spawned()
    start = s.now
    s.add(subagent_return("task1", "no vulnerable deps", agent_id=LANE,
                          agent_type="general-purpose", prompt="audit the deps"))
    s.add(assistant("the deps are clean"))
    _old_lane(home, LANE, SID, start, user("audit the deps"),
              assistant(text("no vulnerable deps"), stop_reason=None))
    row = _status(home, s, after=5)
    assert row["verdict"] == "idle-eot"
    assert row["children"] == [] and row["settled_children"] == 1
    assert "child     1 settled lane(s) folded" in row["_text"]


def _one_x_return(answer: str = "no vulnerable deps", call: str = "task1") -> dict:
    """A Claude Code 1.x Task result: the answer, no agentId anywhere."""
    return tool_result(call, [text(answer)], tool_use_result={
        "content": [text(answer)], "totalDurationMs": 9000, "totalTokens": 1200,
        "totalToolUseCount": 2})


def test_an_old_layout_lane_returned_by_its_prompt_is_settled(home: ClaudeHome) -> None:
    s = _spawned()
    start = s.now
    s.add(_one_x_return())
    s.add(assistant("the deps are clean"))
    _old_lane(home, LANE, SID, start, user("audit the deps"),
              assistant(text("no vulnerable deps"), stop_reason=None))
    row = _status(home, s, after=5)
    assert row["verdict"] == "idle-eot"
    assert row["children"] == [] and row["settled_children"] == 1


def test_a_prompt_two_lanes_share_with_one_return_settles_neither(home: ClaudeHome) -> None:
    """Which of the two returned cannot be told: each is read from its tail."""
    s = _spawned()
    start = s.now
    s.add(assistant(tool_use("Task", {"prompt": "audit the deps", "description": "again"},
                             id="task2")))
    s.add(_one_x_return())
    for lane in (LANE, "a9f8e7d6"):
        _old_lane(home, lane, SID, start, user("audit the deps"),
                  assistant(text("still reading"), stop_reason=None))
    row = _status(home, s, after=5)
    assert [c["state"] for c in row["children"]] == ["generating", "generating"]


def test_a_result_naming_another_agent_is_not_paired_by_prompt(home: ClaudeHome) -> None:
    s = _spawned()
    start = s.now
    s.add(subagent_return("task1", "done", agent_id="a0000001", agent_type="general-purpose",
                          prompt="audit the deps"))
    _old_lane(home, LANE, SID, start, user("audit the deps"),
              assistant(text("still reading"), stop_reason=None))
    row = _status(home, s, after=5)
    assert [c["session_id"] for c in row["children"]] == [LANE]
    assert row["children"][0]["state"] == "generating"


def test_the_warmup_ping_at_session_start_is_no_child_to_wait_on(home: ClaudeHome) -> None:
    """2.0.x pinged its search agent with "Warmup" as a session began; its reply carries no
    stop_reason (a subagent's), so by the generic rule the session read waiting-children
    for 300 s."""
    s = Session(SID, cwd=CWD, version="2.0.31")
    _old_lane(home, "c3d572ee", SID, s.now, user("Warmup"),
              assistant(text("I'm ready to help you search."), stop_reason=None))
    s.add(user("fix the build"))
    s.add(assistant("fixed"))
    row = _status(home, s, after=5)
    assert row["verdict"] == "idle-eot"
    assert row["children"] == [] and row["settled_children"] == 1


def test_the_warmup_ping_as_the_target_has_ended(home: ClaudeHome) -> None:
    """`status @<the Warmup agent>`: its reply carries no stop_reason and no call spawned
    it, so nothing ever reports it returned; it read `unknown`. It answered the ping and
    ended, as the children rows say."""
    s = Session(SID, cwd=CWD, version="2.0.31")
    _old_lane(home, "c3d572ee", SID, s.now, user("Warmup"),
              assistant(text("I'm ready to help you search."), stop_reason=None))
    s.add(user("fix the build"))
    s.add(assistant("fixed"))
    row = _status(home, s, after=5, target="@c3d572ee")
    assert row["verdict"] == "idle-eot"
    assert ("this lane is Claude Code's start-up Warmup ping: no call spawned it, and it "
            "answered") in row["notes"]
    busy = Session(SID, cwd=CWD, version="2.0.31")
    _old_lane(home, "c3d572ef", SID, busy.now, user("Warmup"),
              assistant(tool_use("Grep", {"pattern": "x"}, id="g1")))
    assert _status(home, busy, after=5, target="@c3d572ef")["verdict"] != "idle-eot"


def test_a_warmup_lane_is_never_paired_by_its_prompt(home: ClaudeHome) -> None:
    """A Task call that happens to carry the prompt "Warmup" does not return the ping: it
    is settled as the ping, never said returned."""
    from pysift.live import children
    from pysift.live.session import LiveSession, resolve_target

    s = Session(SID, cwd=CWD, version="2.0.31")
    start = s.now
    s.add(user("ping it"))
    s.add(assistant(tool_use("Task", {"prompt": "Warmup"}, id="tw")))
    s.add(_one_x_return("ok", call="tw"))
    home.session(CWD, SID, s)
    _old_lane(home, "c3d572ee", SID, start, user("Warmup"), assistant(text("ready"),
                                                                     stop_reason=None))
    env = live_env(home.root, s.now + timedelta(seconds=5))
    live = LiveSession(resolve_target([f"@{SID}"], env, "status"), env, subagents=True,
                       lens=Lens(), robust=False)
    live.load()
    kids = live.surfaces(env.now()).children
    assert isinstance(kids, children.ChildrenReport)
    assert [(c.state, c.detail) for c in kids.children] == [
        ("settled", "Claude Code's start-up Warmup ping: no call spawned it")]


def test_old_layout_files_of_another_session_or_none_are_not_children(home: ClaudeHome) -> None:
    s = _spawned()
    _old_lane(home, "b0000001", OTHER, s.now, user("audit the deps"),
              assistant(tool_use("Bash", {"command": "npm audit"}, id="b1")))
    rootless = home.project_dir(CWD) / "agent-b0000002.jsonl"  # no sessionId anywhere
    rootless.write_bytes(to_line({"type": "user", "isSidechain": True,
                                  "message": {"role": "user", "content": "audit the deps"}}))
    s.add(assistant("waiting on it"))
    row = _status(home, s, after=5)
    assert row["children"] == [] and row.get("settled_children", 0) == 0
    assert "children" not in _surfaces(row) or _surfaces(row)["children"].startswith("0 lane")


def test_an_old_layout_lane_target_returned_by_its_prompt_ended_its_turn(
        home: ClaudeHome) -> None:
    s = _spawned()
    start = s.now
    s.add(_one_x_return())
    _old_lane(home, LANE, SID, start, user("audit the deps"),
              assistant(text("no vulnerable deps"), stop_reason=None))
    row = _status(home, s, after=5, target=f"@{LANE}")
    assert row["verdict"] == "idle-eot"
    assert any(n.startswith("this lane returned (its spawning call's result is in the main "
                            "transcript (the call found by the lane's prompt") for n in row["notes"])


def test_an_old_layout_agent_naming_no_session_says_so(home: ClaudeHome) -> None:
    """Its parent id is its own (SPEC §3): status pointed at `status @<itself>` for its
    children and said `<its id>.jsonl`, a file it never had, "is not there"."""
    s = _spawned(assistant("waiting"))
    home.session(CWD, SID, s)
    rootless = home.project_dir(CWD) / "agent-b0000002.jsonl"
    rootless.write_bytes(to_line({"type": "user", "isSidechain": True,
                                  "timestamp": "2026-03-01T09:00:00Z",
                                  "message": {"role": "user", "content": "audit the deps"}}))
    env = live_env(home.root, s.now + timedelta(seconds=5))
    row = run_status(StatusOptions(scope=ScopeArgs(targets=("@b0000002",)), lens=Lens()),
                     env).rows[0]
    assert any("names no session" in n for n in row["notes"])
    assert not any("status @b0000002" in n or "b0000002.jsonl is not there" in n
                   for n in row["notes"])


# -- wait ------------------------------------------------------------------------------------


def _append(path: Path, s: Session, *records: dict) -> None:
    with path.open("ab") as fh:
        for r in records:
            fh.write(to_line(s.stamp(r)))


def test_wait_stop_fires_when_an_old_layout_lanes_prompt_return_lands(home: ClaudeHome) -> None:
    """The lane is born after the start (zero baseline) and ends without a stop_reason;
    the main then writes the Task result (1.x: no agentId) and ends its turn."""
    s = _spawned()
    path = home.session(CWD, SID, s)
    clock = ManualClock(s.now + timedelta(seconds=2))
    start = s.now
    steps = {
        1: lambda: _old_lane(home, LANE, SID, start, user("audit the deps"),
                             assistant(text("no vulnerable deps"), stop_reason=None)),
        3: lambda: _append(path, s, _one_x_return(), assistant("the deps are clean")),
    }
    count = [0]
    original = clock.sleep

    def sleep(seconds: float) -> None:
        original(seconds)
        count[0] += 1
        step = steps.get(count[0])
        if step is not None:
            step()

    clock.sleep = sleep  # type: ignore[method-assign]
    env = live_env(home.root, clock.now(), None, clock=clock)
    report = run_wait(WaitOptions(scope=ScopeArgs(targets=(f"@{SID}",)), until=("stop",),
                                  timeout_s=30, interval_ms=None, watch=False,
                                  on_ready=lambda _l: None), env)
    obj = report.bare_json
    assert obj["fired"] == "stop" and obj["verdict"] == "idle-eot"
    assert count[0] >= 3
    assert obj["activity"]["lanes"] == 2  # the main and the old-layout lane
