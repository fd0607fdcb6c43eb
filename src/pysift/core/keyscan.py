"""The user lines of a buffer and their carrier verdicts, from ONE RE2 pass over the keys.

A walk over the user records (the turn map, ``search -t user``, list's first human
message) needs, for each line holding a user type key, whether that line is a plain
tool_result carrier (``turns.is_plain_carrier``): its every ``"type":"tool_result"``
block key looked at. Searched with ``find``, that test reads each carrier's body twice
(once for the next block key, once more for the next user key) at ~2.8 GB/s.

Here one compiled RE2 pattern for the key TAIL (``ype":"(?:user|tool_result)"``, in the
file's layouts) runs over the buffer: RE2 skips to the rare ``y`` and confirms the rest,
so the scan runs ~2x faster than the ``find`` loops, and every key of both kinds comes
out in file order. A hit is a key only when the two bytes before it are ``"t`` (the
byte before the closing quote tells the two keys apart); a user key opens its line at
the previous newline, the line ends at the next one (``memchr``), and the tool_result
keys met inside those bounds are the line's block keys. The exact carrier test then runs
on the collected key positions (``carrier_verdict``): the bytes near each block key,
the bytes before the first one, never the carrier's body.

It gives the answers of ``iter_key_lines`` + ``is_plain_carrier`` exactly (same lines,
same verdicts; ``tests/unit/core/test_keyscan.py`` checks both on every line of the demo
home, the real corpus and generated shapes).
"""

from __future__ import annotations

from collections.abc import Iterator

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

_TAIL_LEN = len(b'ype":"')  # where the value starts in a compact hit
_PATTERNS: dict[tuple[bool, ...], object] = {}


def _pattern(file_layouts: tuple[bool, ...]):  # type: ignore[no-untyped-def]
    """The compiled key-tail pattern of a layout set: compact ``":"``, spaced ``": "``, or
    both (one space at most, as ``rawjson.type_needle`` spells them)."""
    found = _PATTERNS.get(file_layouts)
    if found is None:
        import re2

        seps: dict[tuple[bool, ...], bytes] = {(False,): b'":"', (True,): b'": "'}
        sep = seps.get(file_layouts, b'": ?"')
        options = re2.Options()
        options.log_errors = False
        found = _PATTERNS[file_layouts] = re2.compile(
            b"ype" + sep + b"(?:user|tool_result)\"", options)
    return found


def _raw_match(file_layouts: tuple[bool, ...]):  # type: ignore[no-untyped-def]
    """``(match, anchor)``: RE2::Match of the wrapper, called as ``match(anchor, buf, pos,
    end)[0] -> (start, end)`` ((-1, -1): no hit), with no generator or match object per
    hit; None when the wrapper does not expose it."""
    import re2

    raw = getattr(_pattern(file_layouts), "_regexp", None)
    anchor = getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)
    if raw is None or anchor is None:
        return None
    return raw.Match, anchor


def _slow_match(file_layouts: tuple[bool, ...]):  # type: ignore[no-untyped-def]
    """RE2::Match's calling shape over the wrapper's ``search`` (no ``_regexp``)."""
    search = _pattern(file_layouts).search

    def match(_anchor: object, buf: Buffer, pos: int, end: int) -> list[tuple[int, int]]:
        found = search(buf, pos, end)
        return [(-1, -1) if found is None else found.span()]
    return match


def carrier_verdict(buf: Buffer, start: int, end: int, users: list[int],
                    results: list[int]) -> bool:
    """``turns.is_plain_carrier`` for the line ``[start, end)`` from its keys: ``users``
    and ``results`` are the offsets (of the opening quote) of every user and tool_result
    type key of the line, in order."""
    if not results:
        return False
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
        # but the record's own brace
        head = find(b"{", start, at)
        if head >= 0 and find(b"{", head + 1, at) < 0 and find(b"[", head + 1, at) < 0:
            return True
        if at_top_level(buf, start, at):
            return True
    return False


def user_lines(buf: Buffer, file_layouts: tuple[bool, ...] | None = None, lo: int = 0,
               hi: int | None = None) -> Iterator[tuple[int, int, bool]]:
    """``(start, end, carrier)`` of every line holding a user type key (in the file's
    ``file_layouts``, read off the buffer when not given) whose key stands in
    ``[lo, hi)``, in file order; ``carrier``: the line is a plain tool_result carrier.
    ``hi`` must be a line boundary (or the end): the lines it closes are read whole."""
    if file_layouts is None:
        file_layouts = layouts(buf)
    size = len(buf)
    stop = size if hi is None else hi
    find, rfind = buf.find, buf.rfind
    # the open line: its bounds and keys (end -1: none open)
    start = end = -1
    users: list[int] = []
    results: list[int] = []
    loose: list[int] = []  # tool_result keys on no open line (an assistant's, or before a user key)
    fast = _raw_match(file_layouts)
    match, anchor = fast if fast is not None else (_slow_match(file_layouts), None)
    pos = lo
    while True:
        m_start, m_end = match(anchor, buf, pos, stop)[0]
        if m_start < 0:
            break
        pos = m_end
        key = m_start - 2
        if key < 0 or buf[key:m_start] != b'"t':
            continue  # `"subtype":"user"` and the like: no type key
        is_user = buf[m_end - 2] == 114  # `r`: the value is user, else tool_result
        if key < end:  # on the open line
            (users if is_user else results).append(key)
            continue
        if not is_user:
            loose.append(key)
            continue
        if end >= 0:
            yield start, end, carrier_verdict(buf, start, end, users, results)
        start = rfind(b"\n", 0, key) + 1
        nl = find(b"\n", key)
        end = size if nl < 0 else nl
        users = [key]
        results = [at for at in loose if at >= start] if loose else []
        loose = []
    if end >= 0:
        yield start, end, carrier_verdict(buf, start, end, users, results)
