"""core.rawjson: a file's JSON layout is read off its first and last RECORDS, whatever
stray lines stand at its ends."""

from __future__ import annotations

import json
import mmap
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pysift.core.rawjson import iter_key_lines, iter_key_lines_backward, layouts
from pysift.disk.lines import Buffer

RECORDS = [{"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hi"}},
           {"type": "assistant", "uuid": "a1", "message": {"role": "assistant", "content": []}}]


def _file(lines: list[str], final_newline: bool = True) -> bytes:
    return ("\n".join(lines) + ("\n" if final_newline else "")).encode()


@pytest.mark.parametrize("head", [[], ["<<<<<<< HEAD"], ["", "   "], ['{"typ']])
@pytest.mark.parametrize("tail", [[], ["   "], ["", ""], ["=======", ">>>>>>> other"]])
@pytest.mark.parametrize("final_newline", [True, False])
def test_stray_lines_at_either_end_do_not_hide_the_layout(head, tail, final_newline) -> None:
    spaced = [json.dumps(r) for r in RECORDS]
    compact = [json.dumps(r, separators=(",", ":")) for r in RECORDS]
    assert layouts(_file(head + spaced + tail, final_newline)) == (True,)
    assert layouts(_file(head + compact + tail, final_newline)) == (False,)


@pytest.mark.parametrize("stray", [" " * 300, "\t" * 255 + " ", " " * 257 + "x", "x" * 5000,
                                   " " * 300 + json.dumps(RECORDS[0])])
def test_a_long_stray_last_line_is_passed_over_like_a_short_one(stray: str) -> None:
    # the last record's layout is read off its first bytes: a line that does not open as
    # a record there (blank, padded, junk) is passed over whatever its length
    spaced = [json.dumps(r) for r in RECORDS]
    compact = json.dumps(RECORDS[0], separators=(",", ":"))
    assert layouts(_file([compact, *spaced, stray])) == (False, True)


def test_a_file_appended_to_in_the_other_layout_has_both() -> None:
    lines = [json.dumps(RECORDS[0], separators=(",", ":")), json.dumps(RECORDS[1])]
    assert layouts(_file(lines)) == (False, True)


def test_a_file_without_records_defaults_to_compact() -> None:
    assert layouts(b"") == (False,)
    assert layouts(_file(["garbage", "", "more garbage"])) == (False,)


def test_at_top_level_tells_a_records_own_key_from_a_nested_one() -> None:
    from pysift.core.rawjson import at_top_level

    key = b'"type":"user"'
    cases = {
        b'{"a":1,"type":"user"}': True,
        b'  {"cwd":"/w/[x]{y}","t":["}",{"b":"]"}],"type":"user"}': True,  # brackets in strings
        b'{"m":"\\"{[","type":"user"}': True,  # an escaped quote before a bracket
        b'{"m":{"type":"user"}}': False,
        b'{"m":[{"type":"user"}]}': False,
        b'{"m":[{}],"x":{"y":[1,{"z":"w"}]},"type":"user"}': True,
        b'"type":"user"': False,  # no object at all
    }
    for line, own in cases.items():
        assert at_top_level(line, 0, line.index(key)) is own, line


# -- the key-line walks: the SIMD search against the buffer's own -----------------------------

_KEY = b'"type":"image"'
_SPACED_KEY = b'"type": "image"'
# (with the key's tail alone and near misses: a quote-less key, a longer key, an escaped one)
_PIECES = st.sampled_from([_KEY, _SPACED_KEY, b"\n", b'"', b'"type":"', b"image", b"{", b"}",
                           b"x" * 7, b'"type":"imag', b"\xc3\xa9", b"\r\n", b'type":"image"',
                           b'subtype":"image"', b'type": "image"', b'\\"type\\":\\"image\\"'])


@given(st.lists(_PIECES, max_size=60).map(b"".join), st.data(), st.booleans())
def test_prop_the_simd_key_walks_find_what_the_buffers_own_search_finds(
        buf: bytes, data: st.DataObject, mapped: bool) -> None:
    """Forward from any line start to any bound and backward below any bound, with one
    layout's key or both, over bytes and over a mapping: the same lines, in the same
    order, as the buffer's own ``find``/``rfind``."""
    starts = [0] + [i + 1 for i, byte in enumerate(buf) if byte == 0x0A]
    lo = data.draw(st.sampled_from(starts))
    hi = data.draw(st.one_of(st.none(), st.integers(lo, len(buf))))
    needles = data.draw(st.sampled_from([_KEY, (_KEY,), (_KEY, _SPACED_KEY)]))
    with _buffer(buf, mapped) as target:
        assert (list(iter_key_lines(target, needles, lo, hi))
                == list(iter_key_lines(target, needles, lo, hi, search=target.find))
                == _lines_holding(buf, needles, lo, hi))
        assert (list(iter_key_lines_backward(target, needles, hi))
                == list(iter_key_lines_backward(target, needles, hi, search=target.rfind))
                == _lines_holding(buf, needles, 0, hi)[::-1])


def _lines_holding(buf: bytes, needles: bytes | tuple[bytes, ...], lo: int, hi: int | None
                   ) -> list[tuple[int, int]]:
    """The walks' answer, by brute force: every line with a needle that starts at or after
    ``lo`` and ends by ``hi``, in file order, once."""
    stop = len(buf) if hi is None else hi
    found = set()
    for needle in (needles,) if isinstance(needles, bytes) else needles:
        for at in range(lo, stop - len(needle) + 1):
            if buf[at:at + len(needle)] == needle:
                start = buf.rfind(b"\n", 0, at) + 1
                end = buf.find(b"\n", at)
                found.add((start, len(buf) if end < 0 else end))
    return sorted(found)


@contextmanager
def _buffer(data: bytes, mapped: bool) -> Iterator[Buffer]:
    if not mapped or not data:
        yield data
        return
    with tempfile.TemporaryFile() as f:
        f.write(data)
        f.flush()
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as view:
            yield view


def test_a_walk_left_half_way_lets_its_mapping_close() -> None:
    """A caller that stops at the first line (the newest assistant line) leaves the
    walk's search view behind: the mapping can still be closed."""
    data = b'{"type":"image"}\n' * 3
    with tempfile.TemporaryFile() as f:
        f.write(data)
        f.flush()
        view = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        walk = iter_key_lines_backward(view, _KEY)
        assert next(walk) == (34, 50)
        del walk
        view.close()
