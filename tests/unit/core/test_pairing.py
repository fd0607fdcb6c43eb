"""The tool_use <-> tool_result join (SPEC §4.5, `--count-by pairing`), on transcripts
written the ways the real corpus shows: progress lines that name a Task and embed its
subagent's results, a result written above its call, a provider record holding both."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

import orjson

import builders as b
from pysift.core.pairing import PlanIndex, pair
from pysift.model import labels as L


def _buffer(*records: dict) -> tuple[bytes, list[int]]:
    lines = [orjson.dumps(r) for r in records]
    starts, pos = [], 0
    for line in lines:
        starts.append(pos)
        pos += len(line) + 1
    return b"\n".join(lines) + b"\n", starts


TASK = b.assistant(b.tool_use("Task", {"prompt": "look around"}, id="toolu_task"))
READ = b.assistant(b.tool_use("Read", {"file_path": "a.py"}, id="toolu_read"))
READ_RESULT = b.tool_result("toolu_read", "print(1)")


def _progress(parent_id: str) -> dict:
    """A progress line: it names the Task as its parent and carries the subagent's own
    tool_use/tool_result traffic (other ids)."""
    inner = b.tool_result("toolu_inner", "inner output")
    return {"type": "progress", "parentToolUseID": parent_id, "toolUseID": "toolu_inner",
            "data": {"message": inner}}


def test_a_task_whose_result_never_came_is_pending() -> None:
    buf, starts = _buffer(b.user("go"), TASK, _progress("toolu_task"), _progress("toolu_task"))
    assert pair(buf, "toolu_task", (L.AGENT_TOOL_USE,), starts[1], L.AGENT_TOOL_USE).state \
        == "pending"


def test_a_result_written_above_its_call_is_paired_both_ways() -> None:
    buf, starts = _buffer(b.user("read it"), READ_RESULT, READ)
    use = pair(buf, "toolu_read", (L.AGENT_TOOL_USE,), starts[2], L.AGENT_TOOL_USE)
    result = pair(buf, "toolu_read", (L.AGENT_TOOL_RESULT,), starts[1], L.AGENT_TOOL_RESULT)
    assert (use.state, use.partner_start) == ("paired", starts[1])
    assert (result.state, result.partner_start) == ("paired", starts[2])


def test_a_result_unit_is_never_pending_on_a_record_that_also_calls() -> None:
    """A provider record holding a tool_use AND a (server tool's) tool_result: the
    result unit's side of the join is its own view, not the record's richest label."""
    both = b.assistant(b.tool_use("Bash", {"command": "ls"}, id="toolu_bash"),
                       {"type": "tool_result", "tool_use_id": "call_srv", "content": "ok"})
    buf, starts = _buffer(b.user("go"), both)
    labels = (L.AGENT_TOOL_USE, L.AGENT_TOOL_RESULT)
    assert pair(buf, "call_srv", labels, starts[1], L.AGENT_TOOL_RESULT).state == "orphan"
    assert pair(buf, "toolu_bash", labels, starts[1], L.AGENT_TOOL_USE).state == "pending"


def test_a_sidecar_unit_looks_at_the_whole_file() -> None:
    buf, _starts = _buffer(READ, READ_RESULT)
    assert pair(buf, "toolu_read", (L.AGENT_TOOL_USE,), None, L.AGENT_TOOL_USE).state \
        == "paired"


# -- blocks without an id (csift §4.5's fallback; SPEC §7 pairing) ------------------------

from pysift.core.classify import units  # noqa: E402
from pysift.core.pairing import pair_unit, tool_name_of_use, with_result_tool_name  # noqa: E402
from pysift.model.record import Record  # noqa: E402

BARE_USE = {"type": "tool_use", "name": "bash", "input": {"command": "ls"}}


def _calling(uuid: str, *blocks: dict) -> dict:
    return {**b.assistant(*blocks), "uuid": uuid}


def _carrier(uuid: str, *, source: str | None = None, source_id: str | None = None,
             result_id: str | None = None, content: str = "ok") -> dict:
    block: dict = {"type": "tool_result", "content": content}
    if result_id is not None:
        block["tool_use_id"] = result_id
    record: dict = {"type": "user", "uuid": uuid,
                    "message": {"role": "user", "content": [block]}}
    if source is not None:
        record["sourceToolAssistantUUID"] = source
    if source_id is not None:
        record["sourceToolUseID"] = source_id
    return record


def _tool_units(buf: bytes, starts: list[int], index: int) -> list[tuple]:
    """``(label, pairing state, partner start, tool name)`` of the tool units of a line."""
    line = buf[starts[index]:buf.index(b"\n", starts[index])]
    rec = Record(orjson.loads(line), index + 1)
    out = []
    for unit in units(rec):
        joined = pair_unit(buf, unit, rec, starts[index])
        named = with_result_tool_name(unit, joined, buf)
        out.append((unit.label, joined.state, joined.partner_start, named.tool_name))
    return out


def test_a_result_without_an_id_pairs_through_the_record_its_carrier_names() -> None:
    """The real corpus' tier2 fixture: a call without an id, two carriers without a
    ``tool_use_id`` naming its record by ``sourceToolAssistantUUID`` (and a
    ``sourceToolUseID`` that names no call). Both sides read ``pairing: null``, which the
    wire format keeps for hits that are no tool hit."""
    buf, starts = _buffer(b.user("go"), _calling("a1", b.text("I'll list."), BARE_USE),
                          _carrier("u2", source="a1", source_id="toolu_nowhere"),
                          _carrier("u3", source="a1", content="no"))
    assert _tool_units(buf, starts, 1) == [
        (L.AGENT_MESSAGE, None, None, None),  # the text block of a calling record: no tool
        (L.AGENT_TOOL_USE, "paired", starts[2], "bash")]
    assert _tool_units(buf, starts, 2) == [(L.AGENT_TOOL_RESULT, "paired", starts[1], "bash")]
    assert _tool_units(buf, starts, 3) == [(L.AGENT_TOOL_RESULT, "paired", starts[1], "bash")]


def test_a_result_without_an_id_pairs_by_its_carriers_source_tool_use_id() -> None:
    buf, starts = _buffer(b.user("go"), READ, _carrier("u2", source_id="toolu_read"))
    assert _tool_units(buf, starts, 2) == [(L.AGENT_TOOL_RESULT, "paired", starts[1], "Read")]


def test_without_any_link_a_call_is_pending_and_a_result_an_orphan() -> None:
    buf, starts = _buffer(b.user("go"), _calling("a1", BARE_USE),
                          _carrier("u2", source="elsewhere"),
                          _carrier("u3", source="a1", result_id="toolu_other"))
    # u3 names the record but answers another call (its own id): no answer to this call
    assert _tool_units(buf, starts, 1) == [(L.AGENT_TOOL_USE, "pending", None, "bash")]
    assert _tool_units(buf, starts, 2) == [(L.AGENT_TOOL_RESULT, "orphan", None, None)]


def test_a_record_that_calls_no_tool_is_no_partner() -> None:
    buf, starts = _buffer(b.user("go"), {**b.assistant(b.text("no call here")), "uuid": "a1"},
                          _carrier("u2", source="a1"))
    assert _tool_units(buf, starts, 2) == [(L.AGENT_TOOL_RESULT, "orphan", None, None)]


def test_a_partner_line_that_does_not_decode_is_no_partner() -> None:
    """By id or through the record: a broken line is malformed, not the other side."""
    buf, starts = _buffer(b.user("go"), READ, READ_RESULT)
    broken = buf.replace(b'"print(1)"', b'"print(1)\xff"')
    assert pair(broken, "toolu_read", (L.AGENT_TOOL_USE,), starts[1],
                L.AGENT_TOOL_USE).state == "pending"
    seen: list[int] = []

    def refusing(start: int, end: int) -> bool:
        seen.append(start)
        return False

    assert pair(buf, "toolu_read", (L.AGENT_TOOL_USE,), starts[1], L.AGENT_TOOL_USE,
                valid=refusing).state == "pending"
    assert seen == [starts[2]]  # the caller's own check (it counts what it refuses)
    buf, starts = _buffer(b.user("go"), _calling("a1", BARE_USE), _carrier("u2", source="a1"))
    torn = buf[:starts[2]] + buf[starts[2]:-3] + b"\n"
    assert _tool_units(torn, starts, 1) == [(L.AGENT_TOOL_USE, "pending", None, "bash")]


def test_a_carrier_naming_no_source_is_joined_to_its_parent_by_its_tool_use_result() -> None:
    """The real corpus' tier2 subagent: a call and a result without ids, the carrier
    naming no source but chained under the calling record and holding the harness's
    ``toolUseResult`` echo. Without it a chained line is no link (a prompt's parent is
    often the record that called, too)."""
    chained = {**_carrier("u2"), "parentUuid": "a1", "toolUseResult": {"stdout": "x"}}
    buf, starts = _buffer(b.user("go"), _calling("a1", BARE_USE), chained)
    assert _tool_units(buf, starts, 1) == [(L.AGENT_TOOL_USE, "paired", starts[2], "bash")]
    assert _tool_units(buf, starts, 2) == [(L.AGENT_TOOL_RESULT, "paired", starts[1], "bash")]
    unechoed = {**_carrier("u2"), "parentUuid": "a1"}
    buf, starts = _buffer(b.user("go"), _calling("a1", BARE_USE), unechoed)
    assert _tool_units(buf, starts, 1) == [(L.AGENT_TOOL_USE, "pending", None, "bash")]
    assert _tool_units(buf, starts, 2) == [(L.AGENT_TOOL_RESULT, "orphan", None, None)]


def test_the_partner_holds_the_block_itself_not_only_its_bytes() -> None:
    """A line that decodes and holds both keys of the join is no partner unless one of its
    own content blocks is the other side: the real corpus' claude-code-log fixture has a
    carrier whose ``"contenst"`` holds the result block (read by no view), and a later
    call can nest a result-shaped object in its input. Both were taken for the partner,
    so the call read ``paired``."""
    misspelled = b.tool_result("toolu_read", "print(1)")
    misspelled["message"] = {"role": "user", "contenst": misspelled["message"]["content"]}
    nested = b.assistant(b.tool_use("Replay", {"blocks": [
        {"type": "tool_result", "tool_use_id": "toolu_read", "content": "print(1)"}]},
        id="toolu_replay"))
    for other in (misspelled, nested):
        buf, starts = _buffer(b.user("read it"), READ, other)
        assert pair(buf, "toolu_read", (L.AGENT_TOOL_USE,), starts[1],
                    L.AGENT_TOOL_USE).state == "pending"
    # the result looking back for its call: a record nesting a call-shaped object
    quoting = b.assistant(b.tool_use("Replay", {"blocks": [
        {"type": "tool_use", "id": "toolu_read", "name": "Read"}]}, id="toolu_quote"))
    buf, starts = _buffer(b.user("read it"), quoting, READ_RESULT)
    assert pair(buf, "toolu_read", (L.AGENT_TOOL_RESULT,), starts[2],
                L.AGENT_TOOL_RESULT).state == "orphan"
    # the real partner past such a line is still found
    buf, starts = _buffer(b.user("read it"), READ, nested, READ_RESULT)
    found = pair(buf, "toolu_read", (L.AGENT_TOOL_USE,), starts[1], L.AGENT_TOOL_USE)
    assert (found.state, found.partner_start) == ("paired", starts[3])


@contextmanager
def _within(seconds: int) -> Iterator[None]:
    """Fail instead of hanging: the searches below had stood still forever."""
    def give_up(signum: int, frame: object) -> None:
        raise TimeoutError(f"still searching after {seconds} s")

    previous = signal.signal(signal.SIGALRM, give_up)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_a_plan_rejection_whose_tool_use_id_is_empty_points_at_no_plan() -> None:
    """A rejection carrier whose block says ``"tool_use_id": ""``: the empty id is found at
    every offset, and the search for its ExitPlanMode call stood still on the first line
    (``list``, ``search``, ``show`` hung on the session)."""
    plan = b.assistant(b.tool_use("ExitPlanMode", {"plan": "# Plan\n1. foo\n"}, id="toolu_plan"))
    buf, _ = _buffer(b.user("plan it"), plan, b.rejection("", "no, foo first"))
    with _within(5):
        assert PlanIndex(buf).get("") is None


def test_an_id_starting_with_a_newline_moves_on_past_each_line() -> None:
    """An id the decoder hands over with a raw newline first is found at each line's own
    end: the forward search had found the same line again and again."""
    buf, starts = _buffer(b.user("read it"), READ, READ_RESULT)
    with _within(5):
        assert pair(buf, "\n{", (L.AGENT_TOOL_USE,), starts[0],
                    L.AGENT_TOOL_USE).state == "pending"
        assert PlanIndex(buf).get("\n{") is None


def test_a_result_joined_through_its_record_names_no_tool_whose_name_is_a_list() -> None:
    """A result without an id takes the name of its calling record's one tool_use block:
    a name that was a list had been put in a set (unhashable: a TypeError in search)."""
    call = b.tool_use("Read", {"file_path": "a.py"}, id="toolu_read")
    call["name"] = ["Read"]
    assert tool_name_of_use(Record(b.assistant(call), 1), "") is None
    call["name"] = "Read"
    assert tool_name_of_use(Record(b.assistant(call), 1), "") == "Read"
