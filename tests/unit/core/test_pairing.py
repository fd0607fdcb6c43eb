"""The tool_use <-> tool_result join (SPEC §4.5, `--count-by pairing`), on transcripts
written the ways the real corpus shows: progress lines that name a Task and embed its
subagent's results, a result written above its call, a provider record holding both."""

from __future__ import annotations

import orjson

import builders as b
from pysift.core.pairing import pair
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
