"""The user lines of a buffer and their carrier verdicts, from SIMD substring searches.

A walk over the user records (the turn map, ``search -t user``, list's first human
message) needs, for each line holding a user type key, whether that line is a plain
tool_result carrier (``turns.is_plain_carrier``): its every ``"type":"tool_result"``
block key looked at.

Here every search is ``stringzilla``'s SIMD substring search, in place on the buffer (a
mapped file is not copied), ~4x the speed of ``bytes.find`` on transcript bytes (a
needle ending in ``"`` stalls CPython's Horspool loop on every quote): the next user key
(in the file's layouts) from the end of the last user line, the line's bounds around it
(``rfind`` back to the previous newline, a newline search forward), the tool_result keys
inside those bounds, and the user keys between the first one and the first tool_result
key. A carrier's body is thus read twice at SIMD speed and a line without a user key once;
the exact carrier test then runs on the collected key positions (``carrier_verdict``):
the bytes near each block key, the bytes before the first one, never the carrier's body.
Over corpus B (1.5 GB, 73,300 user lines) the walk took 0.26 s of CPU, where one RE2 pass
over the key tails took 0.65 s and the ``find`` loops ~0.8 s.

It gives the answers of ``iter_key_lines`` + ``is_plain_carrier`` exactly (same lines,
same verdicts; ``tests/unit/core/test_keyscan.py`` checks both on every line of the demo
home, the real corpus and generated shapes).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from pysift.core.rawjson import at_top_level, layouts
from pysift.disk.lines import Buffer

# Byte markers without which a tool_result carrier cannot open a turn (SPEC §4.1 cases
# 2-4), searched this far before and after each block key (``turns.is_plain_carrier``).
ANSWER = b"answer"
PROCEED = b"want to proceed"
CARRIER_BEFORE = 256
CARRIER_AFTER = 768
CONTENT_ARRAY = b'"content":['
CONTENT_ARRAY_SPACED = b'"content": ['

_OPEN = 0x7B  # "{"
_OPENERS = b"{["  # what opens a nested value
Finder = Callable[..., int]  # ``find(needle, start, end) -> offset or -1``, as ``bytes.find``

# the type keys in each layout set: compact, spaced, or both (``rawjson.type_needle``)
_USER_KEYS: dict[tuple[bool, ...], tuple[bytes, ...]] = {
    (False,): (b'"type":"user"',), (True,): (b'"type": "user"',)}
_RESULT_KEYS: dict[tuple[bool, ...], tuple[bytes, ...]] = {
    (False,): (b'"type":"tool_result"',), (True,): (b'"type": "tool_result"',)}
_BOTH_USER = (b'"type":"user"', b'"type": "user"')
_BOTH_RESULT = (b'"type":"tool_result"', b'"type": "tool_result"')


def carrier_verdict(buf: Buffer, start: int, end: int, users: list[int],
                    results: list[int], find: Finder | None = None,
                    first_of: Finder | None = None) -> bool:
    """``turns.is_plain_carrier`` for the line ``[start, end)`` from its keys: ``users``
    and ``results`` are the offsets (of the opening quote) of the user type keys before
    the first tool_result key (or all of them) and of every tool_result type key of the
    line, in order. ``find``: ``buf.find`` or a faster search with its answers;
    ``first_of``: the first offset of any of some bytes (``stringzilla``'s
    ``find_first_of``), which answers the two bracket searches of a key's prefix at once."""
    if not results:
        return False
    if find is None:
        find = buf.find
    for at in results:
        lo = at - CARRIER_BEFORE if at - CARRIER_BEFORE > start else start
        hi = at + CARRIER_AFTER if at + CARRIER_AFTER < end else end
        if find(ANSWER, lo, hi) >= 0 or find(PROCEED, lo, hi) >= 0:
            return False
    first = results[0]
    if find(CONTENT_ARRAY, start, first) < 0 and find(CONTENT_ARRAY_SPACED, start, first) < 0:
        return False  # no content array opens before it: a nested object, not a block
    for at in users:
        if at >= first:
            break
        # ``rawjson.at_top_level``, its common case inline: nothing opens before the key
        # but the record's own brace (the line's first byte, as a rule)
        head = start if buf[start] == _OPEN else find(b"{", start, at)
        if head >= 0 and (first_of(_OPENERS, head + 1, at) < 0 if first_of is not None else
                          find(b"{", head + 1, at) < 0 and find(b"[", head + 1, at) < 0):
            return True
        if at_top_level(buf, start, at):
            return True
    return False


def user_lines(buf: Buffer, file_layouts: tuple[bool, ...] | None = None, lo: int = 0,
               hi: int | None = None, *, carriers: bool = True
               ) -> Iterator[tuple[int, int, bool]]:
    """``(start, end, carrier)`` of every line holding a user type key (in the file's
    ``file_layouts``, read off the buffer when not given) whose key stands in
    ``[lo, hi)``, in file order; ``carrier``: the line is a plain tool_result carrier.
    ``lo`` and ``hi`` must be line boundaries (``hi`` may be the end): the lines found
    are read whole. ``carriers`` False: the plain carriers are left out (a walk that
    decodes the other lines never reads them; nine user lines in ten over corpus B)."""
    import stringzilla

    if file_layouts is None:
        file_layouts = layouts(buf)
    stop = len(buf) if hi is None else hi
    user_keys = _USER_KEYS.get(file_layouts, _BOTH_USER)
    result_keys = _RESULT_KEYS.get(file_layouts, _BOTH_RESULT)
    with memoryview(buf) as view:  # one view for the walk (the mapping is never copied)
        text = stringzilla.Str(view)
        find: Finder = text.find
        if len(user_keys) == 1:
            yield from _walk(buf, find, text.find_first_of, user_keys[0], result_keys[0], lo,
                             stop, carriers)
        else:  # a file in both layouts
            yield from _walk_layouts(buf, find, user_keys, result_keys, lo, stop, carriers)
        del find, text  # they read through ``view``


def proved_user_lines(buf: Buffer, file_layouts: tuple[bool, ...] | None, lo: int,
                      unframed: list[int], *, carriers: bool = True
                      ) -> Iterator[tuple[int, int, bool]]:
    """``user_lines`` from ``lo`` (a line start) to the end, walked span by span behind
    the malformed-line proof (``decode.proved_spans``), whose unframed line starts are
    appended to ``unframed`` as it goes (whole once the walk is over): each span is
    walked while the proof's counts have it in the cache."""
    from pysift.core.decode import proved_spans

    if file_layouts is None:
        file_layouts = layouts(buf)
    for pos, end, bad in proved_spans(buf, lo):
        unframed.extend(bad)
        yield from user_lines(buf, file_layouts, pos, end, carriers=carriers)


def _walk(buf: Buffer, find: Finder, first_of: Finder, user: bytes, result: bytes, lo: int,
          stop: int, carriers: bool) -> Iterator[tuple[int, int, bool]]:
    """``user_lines`` in one layout (``user``, ``result``: its two keys), the key lists
    built inline (the walk's per-line steps are most of its time)."""
    size = len(buf)
    rfind = buf.rfind
    pos = lo
    while True:
        key = find(user, pos, stop)
        if key < 0:
            return
        start = rfind(b"\n", 0, key) + 1
        end = find(b"\n", key)
        if end < 0:
            end = size
        bound = end if end < stop else stop
        at = find(result, start, bound)
        if at < 0:
            yield start, end, False
        else:
            results = [at]
            at = find(result, at + 1, bound)
            while at >= 0:
                results.append(at)
                at = find(result, at + 1, bound)
            first = results[0]
            # the verdict reads the user keys that start before the first block key
            users = []
            before = first + len(user) - 1
            at = key
            while 0 <= at < first:
                users.append(at)
                at = find(user, at + 1, before)
            if not carrier_verdict(buf, start, end, users, results, find, first_of):
                yield start, end, False
            elif carriers:
                yield start, end, True
        pos = end


def _walk_layouts(buf: Buffer, find: Finder, user_keys: tuple[bytes, ...],
                  result_keys: tuple[bytes, ...], lo: int, stop: int, carriers: bool
                  ) -> Iterator[tuple[int, int, bool]]:
    """``_walk`` for a file in both layouts: each search made for both spellings."""
    size = len(buf)
    rfind = buf.rfind
    pos = lo
    while True:
        key = _first_of(find, user_keys, pos, stop)
        if key < 0:
            return
        start = rfind(b"\n", 0, key) + 1
        end = find(b"\n", key)
        if end < 0:
            end = size
        results = _all_of_each(find, result_keys, start, end if end < stop else stop)
        if not results:
            yield start, end, False
        else:
            first = results[0]
            users = _all_of_each(find, user_keys, key, first, True) if key < first else []
            if not carrier_verdict(buf, start, end, users, results, find):
                yield start, end, False
            elif carriers:
                yield start, end, True
        pos = end


def _all_of(find: Finder, needle: bytes, lo: int, hi: int) -> list[int]:
    """Every offset of ``needle`` in ``[lo, hi)`` (overlapping ones too), in order."""
    found: list[int] = []
    at = find(needle, lo, hi)
    while at >= 0:
        found.append(at)
        at = find(needle, at + 1, hi)
    return found


def _all_of_each(find: Finder, needles: tuple[bytes, ...], lo: int, hi: int,
                 starting: bool = False) -> list[int]:
    """``_all_of`` for each needle, merged in order; ``starting``: every one that starts
    before ``hi`` (it may run past it)."""
    return sorted(at for needle in needles
                  for at in _all_of(find, needle, lo, hi + len(needle) - 1 if starting else hi))


def _first_of(find: Finder, needles: tuple[bytes, ...], lo: int, hi: int) -> int:
    found = [at for needle in needles if (at := find(needle, lo, hi)) >= 0]
    return min(found) if found else -1
