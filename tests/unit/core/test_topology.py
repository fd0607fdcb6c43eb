"""Spawn calls, their results, and the links from each subagent to the call that spawned it."""

from __future__ import annotations

import json

import pytest

from builders import (
    Session,
    assistant,
    subagent_return,
    text,
    to_jsonl,
    tool_result,
    tool_use,
    user,
)
from pysift.core.lanes import digest
from pysift.core.topology import (
    LaneKey,
    SpawnCall,
    SpawnResult,
    build_index,
    link_session,
    preorder,
    scan_spawns,
)

SID = "5b2d7e10-3c4a-4f8e-9d61-0a7c3e9b1f24"


def _main(*records) -> bytes:
    s = Session(SID, cwd="/home/ada/src/orbit")
    for r in records:
        s.add(r)
    return s.lines()


def _spawn(tool: str, ident: str | None, **payload) -> dict:
    return tool_use(tool, {"description": "d", "prompt": "p", **payload}, id=ident)


def test_scan_finds_calls_and_pairs_their_results() -> None:
    buf = _main(
        user("map the callers, in parallel"),
        assistant(_spawn("Task", "t1", subagent_type="Explore", prompt="map callers")),
        assistant(_spawn("Agent", "t2", subagent_type="general-purpose", name="reviewer")),
        tool_result("t2", "Async agent launched successfully.\nagentId: a2 (internal ID)",
                    tool_use_result={"status": "async_launched", "agentId": "a2"}),
        subagent_return("t1", "Three callers.", agent_id="a1", agent_type="Explore",
                        prompt="map callers"),
        assistant(_spawn("Workflow", "w1", script="x")),
        tool_result("w1", "Workflow launched in background. Task ID: task_1",
                    tool_use_result={"status": "async_launched", "runId": "wf_1",
                                     "taskId": "task_1"}),
        assistant(_spawn("Task", "t3")),  # never answered
    )
    calls = scan_spawns(buf, want_text=True)
    assert [(c.tool_use_id, c.tool) for c in calls] == [
        ("t1", "Task"), ("t2", "Agent"), ("w1", "Workflow"), ("t3", "Task")]
    t1, t2, w1, t3 = calls
    assert t1.subagent_type == "Explore" and t1.prompt_digest == digest("map callers")
    assert t1.ts == "2026-10-05T09:00:05.000Z"
    assert t1.result is not None and t1.result.agent_ids == ("a1",)
    assert t1.result.text is not None and t1.result.text.startswith("Three callers.")
    assert not t1.result.launch_ack
    assert t2.name == "reviewer"
    assert t2.result is not None and t2.result.launch_ack and t2.result.agent_ids == ("a2",)
    assert w1.result is not None and (w1.result.run_id, w1.result.task_id) == ("wf_1", "task_1")
    assert t3.result is None
    assert all(c.issuer is None for c in calls)
    assert scan_spawns(buf)[0].result.text is None  # type: ignore[union-attr]


def test_scan_reads_spaced_json_and_ignores_copies_nested_in_progress_records() -> None:
    call = assistant(_spawn("Task", "t1"))
    progress = {"type": "progress", "data": {"message": call}, "timestamp": "2026-10-05T09:00:00Z"}
    spaced = json.dumps(_main(call).splitlines() and json.loads(_main(call).splitlines()[0]))
    buf = to_jsonl([progress]) + spaced.encode() + b"\n"
    calls = scan_spawns(buf)
    assert [c.tool_use_id for c in calls] == ["t1"]
    assert calls[0].offset > 0  # the spaced line, not the progress copy


def test_scan_keeps_a_call_without_an_id() -> None:
    call = assistant(tool_use("Task", {"description": "search files"}))
    del call["message"]["content"][0]["id"]  # as a trimmed fixture of the real corpus has it
    buf = _main(user("go"), call)
    calls = scan_spawns(buf)
    assert len(calls) == 1 and calls[0].tool_use_id is None and calls[0].result is None


def test_scan_ignores_other_tools_and_plain_mentions() -> None:
    buf = _main(user('the "Agent" and "Task" words in a prompt'),
                assistant(tool_use("Read", {"file_path": "Task"}, id="r1")))
    assert scan_spawns(buf) == []


def T(minute: int) -> str:
    """The instant ``T<minute>`` the link tests order calls and lane starts by."""
    return f"2026-03-08T09:{minute:02d}:00.000Z"


def _call(ident: str | None, *, issuer: str | None = None, tool: str = "Task", ts: str = T(1),
          agents: tuple[str, ...] = (), name: str | None = None, prompt: str | None = None,
          run: str | None = None) -> SpawnCall:
    result = SpawnResult(None, agents, run_id=run) if (agents or run) else None
    return SpawnCall(ident, tool, ts, 0, name=name, issuer=issuer, result=result,
                     prompt_digest=digest(prompt) if prompt else None)


def _link(lanes, main_calls, lane_calls=None):
    calls = lane_calls or {}
    index = build_index(main_calls, [(lane, calls.get(lane.agent_id, [])) for lane in lanes])
    return link_session(lanes, index)


def test_each_join_in_order_of_strength() -> None:
    lanes = [
        LaneKey("a1", meta={"toolUseId": "t1"}),
        LaneKey("a2", started=T(5)),  # named by its call's result (older builds: no meta id)
        LaneKey("a3", meta={"name": "alice", "taskKind": "in_process_teammate"}, started=T(9)),
        LaneKey("a4", workflow_id="wf_1"),
        LaneKey("a5", seed_digest=digest("find TODOs"), started=T(7)),  # unanswered call
        LaneKey("a6", seed_digest=digest("nobody asked")),
    ]
    main = [_call("t1"), _call("t2", agents=("a2",)), _call("t3", name="alice", ts=T(2)),
            _call("t4", name="alice", ts=T(8)), _call("w1", tool="Workflow", run="wf_1"),
            _call("t5", prompt="find TODOs", ts=T(6))]
    links = _link(lanes, main)
    assert {a: (link.spawn_tool_use_id, link.joined_by) for a, link in links.items()} == {
        "a1": ("t1", "meta"), "a2": ("t2", "result"), "a3": ("t4", "name"),
        "a4": ("w1", "workflow-run"), "a5": ("t5", "prompt"), "a6": (None, None)}
    assert all(link.parent_agent_id is None and link.depth == 0 for link in links.values())
    assert all(not link.notes for link in links.values())


def test_nested_agents_hang_under_the_issuer() -> None:
    lanes = [LaneKey("a1", meta={"toolUseId": "t1"}), LaneKey("a2", meta={"toolUseId": "t2"}),
             LaneKey("a3", meta={"toolUseId": "t3"})]
    links = _link(lanes, [_call("t1")], {"a1": [_call("t2", issuer="a1")],
                                          "a2": [_call("t3", issuer="a2")]})
    assert [(links[a].parent_agent_id, links[a].depth) for a in ("a1", "a2", "a3")] == [
        (None, 0), ("a1", 1), ("a2", 2)]


def test_declared_parent_wins_and_a_self_link_is_dropped() -> None:
    # a /fork clone: its file holds a copy of the call that spawned it
    lanes = [LaneKey("a1", meta={"toolUseId": "t1", "parentAgentId": "a0"}),
             LaneKey("a0"),
             LaneKey("f1", meta={"toolUseId": "tf"}, is_clone=True)]
    links = _link(lanes, [], {"a0": [_call("t1", issuer="a0")], "f1": [_call("tf", issuer="f1")]})
    assert links["a1"].parent_agent_id == "a0"
    assert links["f1"].parent_agent_id is None and links["f1"].spawn is None
    assert links["f1"].spawn_tool_use_id == "tf"
    assert "only its own transcript" in links["f1"].notes[0]


def test_first_wins_keeps_the_real_issuer_over_a_clone_copy() -> None:
    # clone c1 sorts first on disk but is folded after the real issuer b1
    lanes = [LaneKey("c1", is_clone=True), LaneKey("b1"), LaneKey("x", meta={"toolUseId": "t9"})]
    links = _link(lanes, [], {"c1": [_call("t9", issuer="c1")], "b1": [_call("t9", issuer="b1")]})
    assert links["x"].parent_agent_id == "b1"
    # and the main transcript's own call beats any copy
    links = _link(lanes, [_call("t9")], {"c1": [_call("t9", issuer="c1")]})
    assert links["x"].parent_agent_id is None


def test_a_spawn_id_that_points_nowhere_is_said() -> None:
    links = _link([LaneKey("a1", meta={"toolUseId": "ghost"})], [])
    link = links["a1"]
    assert link.spawn is None and link.spawn_tool_use_id == "ghost"
    assert "ghost" in link.notes[0] and "no transcript" in link.notes[0]
    # ... and another join still finds the call when there is one
    links = _link([LaneKey("a1", meta={"toolUseId": "ghost"})], [_call("t1", agents=("a1",))])
    assert links["a1"].spawn_tool_use_id == "t1" and links["a1"].notes


def test_parent_cycle_is_noted_and_depth_stays_finite() -> None:
    lanes = [LaneKey("a", meta={"parentAgentId": "b"}), LaneKey("b", meta={"parentAgentId": "a"}),
             LaneKey("c", meta={"parentAgentId": "a"})]
    links = _link(lanes, [])
    assert links["a"].depth == 1 and links["b"].depth == 1 and links["c"].depth == 2
    assert any("cycle a -> b -> a" in n for n in links["a"].notes)
    order = preorder(["a", "b", "c"], {k: v.parent_agent_id for k, v in links.items()},
                     sort_key=str)
    assert sorted(i for i, _ in order) == ["a", "b", "c"]  # nobody dropped


def test_unknown_declared_parent_is_kept_and_said() -> None:
    links = _link([LaneKey("a", meta={"parentAgentId": "zz"})], [])
    assert links["a"].parent_agent_id == "zz" and links["a"].depth == 1
    assert "zz" in links["a"].notes[0]


def test_one_call_is_never_given_to_two_lanes_by_prompt() -> None:
    lanes = [LaneKey("a1", seed_digest=digest("same"), started=T(3)),
             LaneKey("a2", seed_digest=digest("same"), started=T(5))]
    links = _link(lanes, [_call("t1", prompt="same", ts=T(2)), _call("t2", prompt="same", ts=T(4))])
    assert {links["a1"].spawn_tool_use_id, links["a2"].spawn_tool_use_id} == {"t1", "t2"}


@pytest.mark.parametrize(("stamps", "started"), [
    # 13:30+05:00 is 08:30Z, before the 09:00Z start and after the 08:00Z call
    (("2026-03-08T08:00:00.000Z", "2026-03-08T13:30:00.000+05:00"), "2026-03-08T09:00:00.000Z"),
    # a stamp without milliseconds is the same second's .000, before .500
    (("2026-03-08T08:59:59.000Z", "2026-03-08T09:00:00Z"), "2026-03-08T09:00:00.500Z"),
    # a lane started at 12:00+05:00 (07:00Z): the 10:00Z call came after it
    (("2026-03-08T06:00:00.000Z", "2026-03-08T10:00:00.000Z"), "2026-03-08T12:00:00.000+05:00"),
])
def test_the_call_before_a_lane_started_is_found_by_instant(stamps: tuple[str, str],
                                                            started: str) -> None:
    lanes = [LaneKey("a1", meta={"name": "alice", "taskKind": "in_process_teammate"},
                     started=started)]
    main = [_call(f"t{n}", name="alice", ts=ts) for n, ts in enumerate(stamps, 1)]
    expected = "t1" if started.endswith("+05:00") else "t2"
    assert _link(lanes, main)["a1"].spawn_tool_use_id == expected


def test_a_call_whose_stamp_names_no_instant_is_never_the_latest_before() -> None:
    lanes = [LaneKey("a1", meta={"name": "alice", "taskKind": "in_process_teammate"},
                     started="2026-03-08T09:00:00.000Z")]
    main = [_call("t1", name="alice", ts="2026-03-08T08:00:00.000Z"),
            _call("t2", name="alice", ts="2026-03-08T08:30:00.000")]  # no offset: no instant
    assert _link(lanes, main)["a1"].spawn_tool_use_id == "t1"


def test_preorder() -> None:
    parents = {"r1": None, "r2": None, "k1": "r1", "k2": "r1", "g": "k2", "o": "missing"}
    order = preorder(["k2", "r2", "g", "k1", "r1", "o"], parents, sort_key=str)
    assert order == [("o", 0), ("r1", 0), ("k1", 1), ("k2", 1), ("g", 2), ("r2", 0)]


@pytest.mark.parametrize("payload", [text("agentId: abc123 (use SendMessage)"),
                                     text("done.\nagentId: abc123\n<usage>")])
def test_agent_id_line_in_result_text(payload) -> None:
    buf = _main(user("go"), assistant(_spawn("Task", "t1")), tool_result("t1", [payload]))
    result = scan_spawns(buf)[0].result
    assert result is not None and result.agent_ids == ("abc123",)


# -- never a crash on what a transcript may hold --------------------------------------------------

from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from pysift.core.lanes import read_lane  # noqa: E402

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12)
    | st.sampled_from(["Task", "Agent", "Workflow", "tool_use", "tool_result", "t1"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["type", "id", "name", "input", "content", "tool_use_id", "message",
                         "timestamp", "toolUseResult", "agentId", "prompt", "role", "is_error"]),
        inner, max_size=5),
    max_leaves=20)


def _line(value: object) -> bytes:
    return json.dumps(value).encode()


_records = st.lists(
    st.one_of(
        _json.map(_line),
        st.builds(lambda blocks, ts: _line({"type": "assistant", "timestamp": ts,
                                            "message": {"role": "assistant", "content": blocks}}),
                  st.lists(_json, max_size=3), st.sampled_from([None, "2026-10-05T09:00:00Z", 7])),
        st.builds(lambda blocks, echo: _line({"type": "user", "toolUseResult": echo,
                                              "message": {"role": "user", "content": blocks}}),
                  st.lists(_json, max_size=3), _json),
        st.binary(max_size=30),
    ), max_size=12)


@given(_records)
def test_scan_and_lane_never_raise(lines: list[bytes]) -> None:
    buf = b"\n".join(lines) + b"\n"
    for call in scan_spawns(buf, want_text=True):
        assert call.tool in ("Task", "Agent", "Workflow")
    facts = read_lane(buf, want_tail_text=True)
    assert facts.skipped_lines >= 0


_calls = st.builds(
    lambda name, ident, spaced, nested: (json.dumps if spaced else _compact)(
        {"type": "progress", "data": {"message": _call_record(name, ident)}} if nested
        else _call_record(name, ident)).encode(),
    st.sampled_from(["Task", "Agent", "Workflow", "Bash", "task"]),
    st.one_of(st.none(), st.sampled_from(["t1", "t2"])), st.booleans(), st.booleans())


def _call_record(name: str, ident: str | None) -> dict:
    return {"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "text", "text": f"calling {name}"},
        {"type": "tool_use", "id": ident, "name": name, "input": {"prompt": "p"}}]}}


def _compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


@given(st.lists(st.one_of(_calls, _records.map(b"\n".join)), max_size=10))
def test_scan_finds_every_spawn_call_a_full_decode_finds(chunks: list[bytes]) -> None:
    """The literal searches for the quoted names miss no call: the same calls, in the same
    order, as decoding every line (Python's `json.dumps` spells every name as is)."""
    from pysift.core.decode import decode
    from pysift.model.tools import SPAWN_TOOLS

    lines = b"\n".join(chunks).split(b"\n")
    buf = b"\n".join(lines) + b"\n"
    expected = []
    offset = 0
    for line in lines:
        rec = decode(line, None)
        if rec is not None:
            expected.extend((offset, block.get("name")) for block in rec.blocks_of("tool_use")
                            if isinstance(block.get("name"), str)
                            and block.get("name") in SPAWN_TOOLS)
        offset += len(line) + 1
    assert [(c.offset, c.tool) for c in scan_spawns(buf)] == expected
