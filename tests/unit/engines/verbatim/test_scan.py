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


def test_a_multi_line_opener_of_every_kind_names_the_lines_its_cut_elides(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A peer message, a rejection's instruction and an AskUserQuestion exchange over the
    user cap printed `[+K chars]` with no line count (their bodies were composed, so the
    newlines of the original were not kept), though a long inbound teammate message of
    the real corpus (agent-abf98c3, 42 lines) lost 845 characters over many lines."""
    from pysift.disk.layout import transcript_from_path
    from pysift.engines.verbatim.geometry import render_body
    from pysift.engines.verbatim.scan import scan_session

    long_lines = "\n".join(f"step {i:02d}: migrate the lab pages to the new store" for i in range(40))
    s = b.Session(SID, cwd="/w/p")
    s.add(b.teammate_message("team-lead", long_lines))
    s.add(b.assistant("On it."))
    s.add(b.assistant(b.tool_use("Edit", {"file_path": "/w/p/a.py"}, id="toolu_01rejectrejectreject01")))
    s.add(b.rejection("toolu_01rejectrejectreject01", long_lines))
    s.add(b.assistant("Understood."))
    path = b.ClaudeHome(tmp_path).session("/w/p", SID, s)
    scan = scan_session(transcript_from_path(path))
    openers = [t.user for t in scan.turns if t.user is not None]
    assert len(openers) == 2
    for unit in openers:
        body = render_body(unit)
        assert body.truncated and body.elided_lines > 0, unit.text[:40]
        assert f", {body.elided_lines} lines elided] … " in body.text


def test_the_rejection_opening_a_turn_is_no_failure_of_its_agent_messages(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A tool rejection carrying the user's instruction opens a turn; its errored result
    answers the previous turn's call, so the first agent message after it made no failed
    call (9fc1e192 L377 printed `[1 agent message, 0 tool calls, 1 failed]`)."""
    from pysift.disk.layout import transcript_from_path
    from pysift.engines.verbatim.scan import scan_session

    s = b.Session(SID, cwd="/w/p")
    s.add(b.user("edit a.py"))
    s.add(b.assistant(b.tool_use("Edit", {"file_path": "/w/p/a.py"}, id="toolu_01rejectrejectreject02")))
    s.add(b.rejection("toolu_01rejectrejectreject02", "read b.py first"))
    s.add(b.assistant("ok"))
    s.add(b.assistant(b.tool_use("Read", {"file_path": "/w/p/b.py"}, id="toolu_01readreadreadread0003")))
    s.add(b.tool_result("toolu_01readreadreadread0003", "boom", is_error=True))
    s.add(b.assistant("b.py holds the parser."))
    path = b.ClaudeHome(tmp_path).session("/w/p", SID, s)
    scan = scan_session(transcript_from_path(path))
    turn = scan.turns[1]
    assert turn.user is not None and turn.user.text == "read b.py first"
    assert [(a.tool_calls, a.failed) for a in turn.agents] == [(0, 0), (1, 1)]


def test_an_image_id_of_the_second_half_names_the_files_line() -> None:
    """A big file is read in two halves (two processes), each counting lines from its
    own start: an agent message's unnumbered image in the second half was named by the
    half's line (`L2i1` for the record on line 4 of the file)."""
    s = b.Session(SID, cwd="/w/p")
    s.add(b.user("look"))
    s.add(b.assistant(b.text("first")))
    s.add(b.user("and now"))
    s.add(b.assistant(b.text("here it is"), b.image()))
    s.add(b.attachment("queued_command", {"prompt": [b.image()], "commandMode": "prompt"}))
    lines = [b.to_line(r) for r in s.records]
    buf = b"".join(lines)
    whole = scan_range(buf, subagent=False)
    cut = len(lines[0]) + len(lines[1])
    first = scan_range(buf, 0, cut, subagent=False)
    second = scan_range(buf, cut, len(buf), subagent=False).shifted(first.lines)
    assert [a[4] for a in whole.agents if a[4]] == [("L4i1",)]
    assert [a[4] for a in second.agents if a[4]] == [("L4i1",)]
    # an image pasted while the agent worked (a queued_command attachment) likewise
    assert [q[2] for q in whole.queued_images] == [q[2] for q in second.queued_images] == [
        ("L5i1",)]
