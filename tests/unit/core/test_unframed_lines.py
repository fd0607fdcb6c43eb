"""The malformed-line law's shape check (``unframed_lines``): the spans proved framed by
counts must answer exactly what the per-line loop answered, line for line.

``naive_unframed`` below is the loop ``unframed_lines`` was until the tenth session, kept
verbatim as the reference; every test compares against it or against offsets written out.
"""

from __future__ import annotations

import mmap
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pysift.core.decode import _proof_spans, is_blank, is_framed, proved_spans, unframed_lines

_OPEN, _CLOSE = 0x7B, 0x7D


def _proved_lines(buf: bytes | mmap.mmap, lo: int, stop: int, span: int) -> list[int]:
    """The unframed lines the span-by-span proof finds with spans of about ``span``."""
    return [start for _pos, _end, bad in _proof_spans(buf, lo, stop, span) for start in bad]


def naive_unframed(buf: bytes | mmap.mmap, lo: int = 0, hi: int | None = None) -> list[int]:
    """The reference: one ``find`` per newline and two byte compares, as before."""
    size = len(buf)
    stop = size if hi is None else min(hi, size)
    out: list[int] = []
    find = buf.find
    prev = lo
    whole = stop == size
    nl = find(b"\n", lo) if whole else find(b"\n", lo, stop)
    while nl >= 0:
        if buf[prev] != _OPEN or buf[nl - 1] != _CLOSE:
            line = buf[prev:nl]
            if not is_framed(line) and not is_blank(line):
                out.append(prev)
        prev = nl + 1
        nl = find(b"\n", prev) if whole else find(b"\n", prev, stop)
    if prev < stop:
        line = buf[prev:stop]
        if not is_framed(line) and not is_blank(line):
            out.append(prev)
    return out


USER = b'{"type":"user","message":{"role":"user","content":"hi"},"uuid":"u1"}'
ASSISTANT = (b'{"type":"assistant","message":{"role":"assistant","content":'
             b'[{"type":"text","text":"done: see }\\n{ below"}]}}')
TORN = b'{"type":"user","message":{"role":"user","content":"cut he'

SHAPES = st.sampled_from([
    USER, ASSISTANT,
    b'{"type":"attachment","broken":}',  # framed: only a parse finds it
    TORN,                                # a bad END before a good `{` start: the hard case
    b"<<<<<<< HEAD",                     # a bad start and end
    b"", b" ", b"   ", b"\t", b"\r", b"\t\r", b" \r ",  # blank
    b'  {"a":1}  ', b'\t{"a":1}', b'{"a":1}\t',         # framed once stripped
    USER + b"\r", b'{"a":1}\r\r', b"\r" + USER,         # CRLF and stray CRs
    TORN + b"\r", b'{"a":1 \r', b"x\r",
    b"}", b"{", b"{}", b"}{", b"x}", b"{x", b"{\r", b"}\r", b"{ }", b"\x00",
    b'{"text":"}"}', b'{"a":"b"} x', b'x {"a":"b"}',
])


def joined(lines: list[bytes], final_newline: bool) -> bytes:
    return b"\n".join(lines) + (b"\n" if final_newline and lines else b"")


@st.composite
def buffers(draw: st.DrawFn) -> bytes:
    """Transcript-like bytes: runs of framed lines with the odd shapes among them."""
    lines = draw(st.lists(SHAPES, max_size=40))
    # long framed stretches, so that whole spans are provable between the odd lines
    runs = draw(st.lists(st.tuples(st.integers(0, len(lines)), st.integers(1, 30)),
                         max_size=4))
    for at, n in sorted(runs, reverse=True):
        lines[at:at] = [USER, ASSISTANT] * n
    return joined(lines, draw(st.booleans()))


@given(buffers(), st.data())
def test_prop_proved_spans_answer_what_the_loop_answered(buf: bytes, data: st.DataObject
                                                         ) -> None:
    lo = data.draw(st.integers(0, len(buf)), label="lo")
    stop = data.draw(st.integers(lo, len(buf)), label="stop")
    span = data.draw(st.sampled_from([1, 2, 3, 5, 17, 64, 200, 1 << 20]), label="span")
    assert _proved_lines(buf, lo, stop, span) == naive_unframed(buf, lo, stop)


@given(buffers(), st.data())
def test_prop_proof_spans_tile_the_range_in_whole_lines(buf: bytes, data: st.DataObject
                                                        ) -> None:
    """A walk run span by span behind the proof reads every line once: the spans cover
    the range in order, each ends just after a newline (but a last line without one),
    and each holds its own unframed lines."""
    lo = data.draw(st.sampled_from([0, *(i + 1 for i, b in enumerate(buf) if b == 0x0A)]),
                   label="lo")
    span = data.draw(st.sampled_from([1, 2, 5, 64, 1 << 20]), label="span")
    tiles = list(_proof_spans(buf, lo, len(buf), span))
    pos = lo
    for start, end, bad in tiles:
        assert start == pos and start < end
        assert buf[end - 1] == 0x0A or end == len(buf)
        assert bad == naive_unframed(buf, start, end)
        pos = end
    assert pos == len(buf) or (not tiles and lo == len(buf))
    assert [s for _, _, bad in proved_spans(buf, lo) for s in bad] == naive_unframed(buf, lo)


@given(buffers(), st.data())
def test_prop_unframed_lines_is_the_reference_loop(buf: bytes, data: st.DataObject) -> None:
    # a long framed head puts the range above the size the counts are tried from
    padded = joined([ASSISTANT] * data.draw(st.sampled_from([0, 60, 200]), label="head"),
                    True) + buf
    lo = data.draw(st.one_of(st.just(0), st.integers(0, len(padded))), label="lo")
    hi = data.draw(st.one_of(st.none(), st.integers(-5, len(padded) + 5)), label="hi")
    assert unframed_lines(padded, lo, hi) == naive_unframed(padded, lo, hi)


# -- one test per edge (buffers big enough for the counts) -------------------------------

BIG = joined([USER, ASSISTANT] * 400, True)  # ~55 KB of framed lines


def starts(buf: bytes, line: bytes) -> list[int]:
    out, pos = [], buf.find(line)
    while pos >= 0:
        out.append(pos)
        pos = buf.find(line, pos + 1)
    return out


def test_a_framed_transcript_has_no_unframed_line() -> None:
    assert len(BIG) > 32 << 10
    assert unframed_lines(BIG) == [] == _proved_lines(BIG, 0, len(BIG), 1000)


def test_a_torn_line_before_a_framed_one_is_found() -> None:
    """Its start is a `{`, only its end is wrong: the case no literal search finds."""
    buf = BIG + TORN + b"\n" + BIG
    assert unframed_lines(buf) == [len(BIG)]
    assert _proved_lines(buf, 0, len(buf), 4096) == [len(BIG)]


def test_junk_blank_and_padded_lines() -> None:
    buf = BIG + b"<<<<<<< HEAD\n\n   \n" + b'  {"a":1}  \n' + BIG
    assert unframed_lines(buf) == [len(BIG)] == naive_unframed(buf)


def test_crlf_lines_are_framed_and_crlf_junk_is_not() -> None:
    crlf = BIG.replace(b"\n", b"\r\n")
    assert unframed_lines(crlf) == []
    buf = crlf + b"junk\r\n" + crlf + TORN + b"\r\n" + crlf
    assert unframed_lines(buf) == [len(crlf), 2 * len(crlf) + 6] == naive_unframed(buf)


def test_a_torn_line_ending_in_cr_is_found_at_the_end_of_a_span() -> None:
    for tail in (TORN + b"\r\n", b"{\r\n", b"x}\r\n" , b'{"a":1 \r\n'):
        assert unframed_lines(BIG + tail) == [len(BIG)] == naive_unframed(BIG + tail)
    assert unframed_lines(BIG + USER + b"\r\n") == []


def test_lines_of_one_brace_are_unframed() -> None:
    buf = BIG + b"{\n" + BIG + b"}\n" + BIG + b"{\r\n" + BIG
    expected = [len(BIG), 2 * len(BIG) + 2, 3 * len(BIG) + 4]
    assert unframed_lines(buf) == expected == naive_unframed(buf)


def test_a_last_line_without_its_newline() -> None:
    assert unframed_lines(BIG + USER) == []
    assert unframed_lines(BIG + TORN) == [len(BIG)]
    assert unframed_lines(BIG + b"   ") == []


def test_bounds_cut_where_the_caller_says() -> None:
    buf = BIG + TORN + b"\n" + BIG + b"junk\n" + BIG
    torn, junk = len(BIG), 2 * len(BIG) + len(TORN) + 1
    assert unframed_lines(buf, 0, torn) == []
    assert unframed_lines(buf, torn + len(TORN) + 1) == [junk]
    assert unframed_lines(buf, 0, junk + 2) == [torn, junk]  # `ju`, cut: still not framed
    # a range ending inside a framed line reads its head as the last line, as before
    cut = junk + 5 + 10
    assert unframed_lines(buf, 0, cut) == [torn, junk, junk + 5] == naive_unframed(buf, 0, cut)
    assert unframed_lines(buf, 0, len(buf) + 100) == [torn, junk]
    assert unframed_lines(buf, junk, junk) == []


def test_a_bad_line_on_either_side_of_a_span_edge() -> None:
    for at in (0, 1, 2, 50, 399, 400):
        lines = [USER, ASSISTANT] * 200
        lines.insert(at, TORN)
        buf = joined(lines, True)
        for span in (1, len(USER), len(USER) + 1, 4096, 1 << 20):
            assert _proved_lines(buf, 0, len(buf), span) == starts(buf, TORN + b"\n")


def test_blank_first_and_last_lines_of_a_span() -> None:
    buf = b"\n" + BIG + b"\n\n" + BIG + b"\r\n"
    for span in (1, 7, 1 << 20):
        assert _proved_lines(buf, 0, len(buf), span) == []


def test_a_joint_inside_a_string_is_not_a_line_boundary() -> None:
    """`}\\n{` written raw inside a line cannot be (a raw newline ends the line): the
    escaped form in ASSISTANT is text, and the counts never mistake it for a joint."""
    assert b"}\\n{" in ASSISTANT
    assert unframed_lines(BIG + TORN + b"\n" + BIG) == [len(BIG)]


def test_a_mapped_file_is_read_in_place_and_can_be_closed(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(BIG + TORN + b"\n" + BIG + b"junk")
    with path.open("rb") as fh:
        mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    expected = [len(BIG), 2 * len(BIG) + len(TORN) + 1]
    assert unframed_lines(mapped) == expected == naive_unframed(mapped)
    mapped.close()  # no view of it is left behind
