"""engines.verbatim.scan: a tool call is counted off its bytes only on a record."""

from __future__ import annotations

import builders as b
from pysift.engines.verbatim.scan import scan_range

SID = "7a7a7a7a-1111-4222-8333-944444444444"


def _lines() -> list[bytes]:
    s = b.Session(SID, cwd="/w/p")
    s.add(b.user("write it"))
    s.add(b.assistant(b.tool_use("Write", {"file_path": "/w/p/b.txt", "content": "x"},
                                 id="toolu_01verbatimverbatim0001")))
    s.add(b.assistant(b.text("done")))
    return [b.to_line(r) for r in s.records]


def test_a_call_on_a_record_is_counted_off_its_bytes() -> None:
    facts = scan_range(b"".join(_lines()), subagent=False)
    assert [(n, failed) for _pos, n, failed in facts.calls] == [(1, 0)]
    assert facts.malformed == 0


def test_a_call_on_a_line_broken_inside_is_no_call_and_the_line_is_counted() -> None:
    """Invalid UTF-8 in the call's input: ``verbatim`` printed ``[1 tool calls]`` for a
    line every other command calls malformed, and counted no malformed line."""
    lines = _lines()
    lines[1] = lines[1].replace(b"b.txt", b"b\xfe.txt")
    facts = scan_range(b"".join(lines), subagent=False)
    assert facts.calls == []
    assert facts.malformed == 1
