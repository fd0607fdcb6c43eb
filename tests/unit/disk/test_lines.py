"""Line scanning over bytes and mmap buffers: exact 1-based numbers, torn tails, counts."""

from __future__ import annotations

import mmap
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pysift.disk import lines
from pysift.disk.mapped import open_buffer

line_lists = st.lists(st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"x")), max_size=40)


def _join(parts: list[bytes], trailing: bool) -> bytes:
    data = b"\n".join(parts)
    return data + b"\n" if trailing and parts else data


def _mapped(tmp_path: Path, data: bytes) -> mmap.mmap:
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    with path.open("rb") as fh:
        return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)


@given(line_lists, st.booleans())
def test_prop_iter_lines_numbers_every_line_once(parts: list[bytes], trailing: bool) -> None:
    data = _join(parts, trailing)
    got = list(lines.iter_lines(data))
    expected = list(enumerate(data.split(b"\n"), start=1)) if data else []
    if data.endswith(b"\n"):
        expected = expected[:-1]
    assert got == expected


@given(line_lists, st.booleans())
def test_prop_backward_sees_every_non_blank_line_newest_first(parts: list[bytes],
                                                              trailing: bool) -> None:
    data = _join(parts, trailing)
    forward = [line for _, line in lines.iter_lines(data) if line]
    backward = [line for _, line in lines.iter_backward(data) if line]
    assert backward == forward[::-1]


@given(line_lists, st.booleans(), st.integers(min_value=1, max_value=45))
def test_prop_offset_of_line_points_at_that_line(parts: list[bytes], trailing: bool,
                                                  number: int) -> None:
    data = _join(parts, trailing)
    numbered = dict(lines.iter_lines(data))
    offset = lines.offset_of_line(data, number)
    if number in numbered and offset is not None:
        assert data[offset:].split(b"\n", 1)[0] == numbered[number]
        assert lines.line_of(data, offset) == number
    else:
        assert offset is None or number in numbered


def test_count_in_mmap_matches_bytes(tmp_path: Path) -> None:
    data = b"ab}\n}\n\nxx}\n" * 9 + b"aaaa}\n{"
    buf = _mapped(tmp_path, data)
    for needle in (b"\n", b"}\n", b"x}\n", b"aa", b"}\n{"):
        for start in range(0, len(data), 7):
            assert lines.count_in(buf, needle, start) == data.count(needle, start)
            for end in (start, start + 1, start + 13, len(data) - 1, len(data) + 5):
                assert lines.count_in(buf, needle, start, end) == data.count(needle, start, end)


@given(st.binary(max_size=300) | st.lists(st.sampled_from([b"\n", b"a", b"}", b"{", b"aa"]),
                                           max_size=80).map(b"".join),
       st.sampled_from([b"\n", b"a", b"aa", b"aaa", b"}\n{", b"\n\n"]), st.data())
def test_prop_count_in_is_bytes_count(data: bytes, needle: bytes, draw: st.DataObject) -> None:
    start = draw.draw(st.integers(0, len(data) + 2), label="start")
    end = draw.draw(st.none() | st.integers(0, len(data) + 2), label="end")
    expected = data.count(needle, start) if end is None else data.count(needle, start, end)
    assert lines.count_in(data, needle, start, end) == expected


def test_count_lines_counts_a_torn_tail() -> None:
    assert lines.count_lines(b'{"a":1}\n{"b"') == 2
    assert lines.count_lines(b'{"a":1}\n') == 1
    assert lines.count_lines(b"") == 0


def test_line_counter_handles_out_of_order_offsets() -> None:
    data = b"a\nb\nc\nd\n"
    counter = lines.LineCounter(data)
    assert counter.line_at(6) == 4
    assert counter.line_at(2) == 2  # a rewind recounts rather than going negative


def test_open_buffer_maps_big_files_and_reads_small_ones(tmp_path: Path) -> None:
    small = tmp_path / "small.jsonl"
    small.write_bytes(b'{"a":1}\n')
    assert isinstance(open_buffer(small), bytes)
    big = tmp_path / "big.jsonl"
    big.write_bytes(b'{"a":1}\n' * 40000)
    buf = open_buffer(big)
    assert isinstance(buf, mmap.mmap)
    assert lines.count_lines(buf) == 40000
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert open_buffer(empty) == b""




# -- the SIMD search: the buffer's own find and rfind, never a different answer -----------------

_haystacks = st.lists(st.sampled_from([b"ab", b"a", b"b", b'"type":"user"', b"\n", b"xyz",
                                       b"\xc3\xa9", b"\x00"]), max_size=60).map(b"".join)
_needles = st.sampled_from([b"", b"ab", b"ba", b'"type":"user"', b"a", b"zz", b"b\nx", b"\xa9",
                            b"ab" * 9])


@given(_haystacks, _needles, st.integers(0, 80), st.one_of(st.none(), st.integers(0, 200)))
def test_prop_find_in_and_simd_search_are_the_buffers_own(buf: bytes, needle: bytes,
                                                          start: int, end: int | None) -> None:
    stop = len(buf) if end is None else min(end, len(buf))
    assert lines.find_in(buf, needle, start, end) == buf.find(needle, start, stop)
    with lines.simd_search(buf) as (find, rfind):
        assert find(needle, start, stop) == buf.find(needle, start, stop)
        assert rfind(needle, start, stop) == buf.rfind(needle, start, stop)


def test_find_in_reads_a_mapping_in_place(tmp_path: Path) -> None:
    data = b"." * 40_000 + b"update_types.ts" + b"." * 40
    buf = _mapped(tmp_path, data)
    assert lines.find_in(buf, b"update_types.ts") == 40_000
    assert lines.find_in(buf, b"update_types.ts", 40_001) == -1
    assert lines.find_in(buf, b"update_types.ts", 0, 40_014) == -1
