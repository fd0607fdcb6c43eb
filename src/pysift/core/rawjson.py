"""Byte needles for top-level keys in raw transcript lines, matched to the file's layout.

Claude Code writes compact JSON (`"type":"user"`); re-serialized transcripts (Python
`json.dumps`) space the separators (`"type": "user"`). A file is one or the other, so the
layout is read once off its first record and literal `find`/`rfind` loops (C speed, no
regex match objects) do the rest.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from pysift.disk.lines import Buffer, simd_search


def _record_is_spaced(buf: Buffer, start: int) -> bool | None:
    """Whether the record starting at ``start`` writes `"key": value`; None if unknown."""
    head = buf[start:start + 256].lstrip(b" \t\r").split(b"\n", 1)[0]  # this line only
    if head[:2] != b'{"':
        return None
    close = head.find(b'"', 2)
    if close < 0:
        return None
    return head[close + 1:close + 3] == b": "


_PROBE_LINES = 16  # lines tried at each end for a record (a stray write, a blank line)


def layouts(buf: Buffer) -> tuple[bool, ...]:
    """The separator layouts the file uses (False = compact, True = spaced), read off its
    first and last records: one layout for a normal file, both for a file some other tool
    appended to in the other style. A line that is no record (a merge marker, a blank or
    whitespace line, a torn write) is passed over, up to ``_PROBE_LINES`` at each end."""
    first = last = None
    start = 0
    for _ in range(_PROBE_LINES):
        first = _record_is_spaced(buf, start)
        nl = buf.find(b"\n", start)
        if first is not None or nl < 0:
            break
        start = nl + 1
    end = len(buf)
    for _ in range(_PROBE_LINES):
        line_start = buf.rfind(b"\n", 0, max(0, end - 1)) + 1 if end else 0
        # (a blank line is no record either: no copy of a long last line to strip it,
        # which was most of this function's cost over corpus B)
        last = _record_is_spaced(buf, line_start)
        if last is not None:
            break
        if line_start == 0:
            break
        end = line_start
    found = {x for x in (first, last) if x is not None}
    return tuple(sorted(found)) or (False,)


def type_needle(value: str, spaced: bool) -> bytes:
    sep = b'": "' if spaced else b'":"'
    return b'"type' + sep + value.encode() + b'"'


_NEEDLES: dict[tuple[str, tuple[bool, ...]], tuple[bytes, ...]] = {}


def type_needles(buf: Buffer, value: str, file_layouts: tuple[bool, ...] | None = None
                 ) -> tuple[bytes, ...]:
    """The `"type":"<value>"` key in every layout the file uses (pass ``file_layouts`` when
    the caller already read them). Built once per value and layout set: a listing asks
    for them a few times per file, thousands of files in a row."""
    found = layouts(buf) if file_layouts is None else file_layouts
    key = (value, found)
    needles = _NEEDLES.get(key)
    if needles is None:
        needles = _NEEDLES[key] = tuple(type_needle(value, spaced) for spaced in found)
    return needles


# A JSON string, escapes included (the unrolled loop: no backtracking per character).
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')


def at_top_level(buf: Buffer, start: int, at: int) -> bool:
    """Whether the key at ``at`` is one of the record's own keys: it stands in the line's
    outermost object (the line starts at ``start``), not inside a nested value such as a
    tool_use input or a progress record's embedded message. Claude Code writes a user
    record's own keys before ``message``, so the bytes before such a key hold no ``{`` or
    ``[`` but the record's own brace: two bounded finds. Otherwise the strings of the prefix
    are cut out and its brackets counted (a valid prefix never closes more than it opens)."""
    find = buf.find
    head = find(b"{", start, at)
    if head < 0:
        return False
    if find(b"{", head + 1, at) < 0 and find(b"[", head + 1, at) < 0:
        return True
    bare = _JSON_STRING.sub(b"", buf[head + 1:at])
    return bare.count(b"{") + bare.count(b"[") == bare.count(b"}") + bare.count(b"]")


def iter_key_lines(buf: Buffer, needles: bytes | tuple[bytes, ...], lo: int = 0,
                   hi: int | None = None, *, search: Callable[[bytes, int, int], int] | None = None
                   ) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each line holding one of ``needles`` at or after ``lo``, in file
    order (a line is yielded once however often it holds them). ``search``: the needle
    search over ``buf`` (``find``'s signature), by default ``stringzilla``'s SIMD search
    over the buffer in place (``simd_search``)."""
    if search is None:
        with simd_search(buf) as (find_simd, _):
            yield from iter_key_lines(buf, needles, lo, hi, search=find_simd)
        return
    if isinstance(needles, bytes):
        needles = (needles,)
    size = len(buf)
    stop = size if hi is None else hi
    find, rfind = buf.find, buf.rfind
    seek = search
    if len(needles) == 1:
        needle = needles[0]
        pos = seek(needle, lo, stop)
        while pos >= 0:
            start = rfind(b"\n", 0, pos) + 1
            end = find(b"\n", pos)
            end = size if end < 0 else end
            yield start, end
            pos = seek(needle, end, stop)
        return
    nexts = [seek(n, lo, stop) for n in needles]
    while True:
        live = [p for p in nexts if p >= 0]
        if not live:
            return
        pos = min(live)
        start = rfind(b"\n", 0, pos) + 1
        end = find(b"\n", pos)
        end = size if end < 0 else end
        yield start, end
        nexts = [p if p < 0 or p > end else seek(n, end, stop) for p, n in zip(nexts, needles)]


def iter_key_lines_backward(buf: Buffer, needles: bytes | tuple[bytes, ...],
                            hi: int | None = None, *,
                            search: Callable[[bytes, int, int], int] | None = None
                            ) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each line holding one of ``needles`` below ``hi``, newest first.
    ``search``: the needle search over ``buf`` (``rfind``'s signature), by default
    ``stringzilla``'s SIMD search over the buffer in place (``simd_search``)."""
    if search is None:
        with simd_search(buf) as (_, rfind_simd):
            yield from iter_key_lines_backward(buf, needles, hi, search=rfind_simd)
        return
    if isinstance(needles, bytes):
        needles = (needles,)
    size = len(buf)
    rfind, find = buf.rfind, buf.find
    seek = search
    top = size if hi is None else hi
    if len(needles) == 1:  # one layout: no list of positions per line
        needle = needles[0]
        pos = seek(needle, 0, top)
        while pos >= 0:
            start = rfind(b"\n", 0, pos) + 1
            end = find(b"\n", pos)
            yield start, size if end < 0 else end
            pos = seek(needle, 0, start)
        return
    latest = [seek(n, 0, top) for n in needles]
    while True:
        pos = max(latest)
        if pos < 0:
            return
        start = rfind(b"\n", 0, pos) + 1
        end = find(b"\n", pos)
        yield start, size if end < 0 else end
        latest = [p if p < start else seek(n, 0, start) for p, n in zip(latest, needles)]


_TYPE_KEY = b'"type":"'


def own_type(buf: Buffer, pos: int, end: int) -> bytes | None:
    """The record's own ``"type"`` value read off a compact line ``buf[pos:end)``: the
    first type key when nothing nests before it (Claude Code writes a user record's type
    before its message), else the last one when nothing closes after it (an assistant's
    comes after its message); None when the bytes do not settle it (a spaced layout, an
    escaped value, a key order no writer we know of uses)."""
    find, rfind = buf.find, buf.rfind
    key = find(_TYPE_KEY, pos, end)
    if key > pos + 1 and find(b"{", pos + 1, key) >= 0:
        key = rfind(_TYPE_KEY, key, end)
        if rfind(b"}", key, end - 1) >= 0:
            return None
    if key < 0:
        return None
    value_end = find(b'"', key + 8, end)
    if value_end < 0:
        return None
    kind = buf[key + 8:value_end]
    return None if b"\\" in kind else bytes(kind)
