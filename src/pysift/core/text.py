"""Excerpts that never cut silently, whitespace collapse, Unicode normalisation.

The no-silent-truncation rule: any text shortened for display ends with the explicit
marker ``… (+N chars)``, N being the number of characters left out, so a reader always
knows an excerpt is a fragment and how much is missing. Every excerpt in pysift goes
through `clip`, so the marker and its arithmetic exist once. Lengths are counted in
code points (Python `str` indices), never bytes, so CJK text and emoji are cut on a
character boundary and counted as one each.
"""

from __future__ import annotations

import unicodedata2

__all__ = ["ELLIPSIS", "centered_excerpt", "clip", "clip_marker", "excerpt", "nfc", "one_line",
           "one_line_length"]

ELLIPSIS = "…"


def clip_marker(dropped: int) -> str:
    """The suffix that ends a clipped text: ``… (+N chars)``."""
    return f"{ELLIPSIS} (+{dropped} chars)"


def clip(text: str, max_chars: int) -> tuple[str, int]:
    """Keep the first `max_chars` characters; mark and count the rest.

    Returns ``(shown, dropped)``. A text within the cap comes back unchanged with
    ``dropped == 0``; a longer one is the first `max_chars` characters followed by
    ``… (+dropped chars)``. The marker is not counted against `max_chars`. A negative
    cap is treated as 0.
    """
    limit = max(0, max_chars)
    dropped = len(text) - limit
    if dropped <= 0:
        return text, 0
    return text[:limit] + clip_marker(dropped), dropped


def one_line(text: str) -> str:
    """Collapse every whitespace run (newlines and tabs included) to one space; strip.

    Text that is already one line (most of it: a rendered opener is normalized once,
    then previewed) comes back as is after two C-level scans instead of being split into
    words and joined again. ``str.isprintable`` is False for every character
    ``str.split`` breaks on except the ASCII space (they are all Cc, Zs, Zl or Zp), so a
    printable text with no doubled, leading or trailing space is already one line.
    """
    if (text.isprintable() and "  " not in text and text[:1] != " "
            and text[-1:] != " "):
        return text
    return " ".join(text.split())


# What ``str.split()`` breaks on among ASCII characters, and a byte map sending each of
# them to b" " and every other byte to b"x" (a word character).
_ASCII_SPACE = b"\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f "
_WORD_MAP = bytes(32 if byte in _ASCII_SPACE else 120 for byte in range(256))
# The UTF-8 of every non-ASCII character ``str.split`` breaks on (``str.isspace``: U+0085,
# U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000; a test holds the
# list to the interpreter's own): five whole sequences, and the third bytes that make
# ``E2 80`` a space (the lead of the common em dash and curly quotes too). A text whose
# bytes hold none of them breaks only on ASCII bytes, one byte per character.
_WIDE_SPACES = (b"\xc2\x85", b"\xc2\xa0", b"\xe1\x9a\x80", b"\xe2\x81\x9f", b"\xe3\x80\x80")
_E2_80_SPACES = frozenset([*range(0x80, 0x8B), 0xA8, 0xA9, 0xAF])


def _holds_wide_space(data: bytes) -> bool:
    """Whether UTF-8 ``data`` holds a non-ASCII space (SIMD searches, in place)."""
    import stringzilla  # (loaded by every scan already; not by a start-up that never previews)

    find = stringzilla.Str(data).find
    if any(find(sequence) >= 0 for sequence in _WIDE_SPACES):
        return True
    at = find(b"\xe2\x80")
    while at >= 0:
        if data[at + 2] in _E2_80_SPACES:
            return True
        at = find(b"\xe2\x80", at + 2)
    return False


def one_line_length(text: str) -> int:
    """``len(one_line(text))`` without building it.

    The text's bytes are mapped to spaces and word bytes at memory speed, and counted by
    SIMD: the one-lined length is the characters that are not spaces plus one space
    between each pair of words. Non-ASCII text is read from its UTF-8 (a multi-byte
    character is all word bytes) unless it holds a non-ASCII space; that text takes the
    exact route (``str.split`` knows every Unicode space).
    """
    if text.isascii():
        data = text.encode("ascii")
    else:
        data = text.encode("utf-8", "surrogatepass")
        if _holds_wide_space(data):
            return len(one_line(text))
    if not data:
        return 0
    import stringzilla

    # the map and the space count at SIMD speed: a space is byte 32 and a word byte 120, so
    # the bytes' sum says how many are spaces (a count of the dense b" " took ~1 ns a
    # byte, bytes.translate 3x stringzilla's; over corpus B's list previews, 20 -> 8 ms)
    mapped = stringzilla.translate(data, _WORD_MAP)
    spaces: int = (120 * len(mapped) - stringzilla.bytesum(mapped)) // 88
    if spaces == len(data):
        return 0
    marks = stringzilla.Str(mapped)
    # words and space runs alternate: the words are the space runs, plus one for each end
    # that is a word, less one. A space run is a space not followed by another (counted
    # with overlaps, the doubled spaces are few in prose; the word starts, one every few
    # bytes, had cost a second dense count)
    doubled: int = marks.count(b"  ", allowoverlap=True)
    runs = spaces - doubled
    words = runs + (_WORD_MAP[data[0]] != 32) + (_WORD_MAP[data[-1]] != 32) - 1
    return len(text) - spaces + words - 1


def excerpt(text: str, max_chars: int) -> tuple[str, int]:
    """`clip` of the one-lined text: the head-anchored preview (list, agents, status).

    A long text is not one-lined whole: the preview comes from a prefix whose one-lined
    form outruns the cap (it is a prefix of the whole one-lined text: ``str.split`` breaks
    a prefix where it breaks the whole, and a word cut at the prefix's end is a prefix of
    that word), and the marker's count from `one_line_length` (a 90 KB prompt previews in
    microseconds).
    """
    limit = max(0, max_chars)
    window = 4 * limit + 64
    if len(text) > window:
        # a short prefix first (prose one-lines to nearly its length), the wide one when
        # the short one held too much white space
        head = one_line(text[:limit + 64])
        if len(head) <= limit:
            head = one_line(text[:window])
        if len(head) > limit:
            dropped = one_line_length(text) - limit
            return head[:limit] + clip_marker(dropped), dropped
    return clip(one_line(text), max_chars)


def centered_excerpt(text: str, start: int, end: int, max_chars: int = 400) -> tuple[str, bool]:
    """A window of the one-lined `text` of at most `max_chars` characters around a match.

    `start`/`end` delimit the match as a half-open range of character offsets into the
    ORIGINAL `text` (out-of-range offsets are clamped). The window is placed so the
    match sits in its middle; a match longer than the window is shown from its start.
    When the whole one-lined text fits, it is returned as is.

    Markers (both explicit, never silent):
    - a leading ``…`` means text precedes the window (its length is not counted);
    - a trailing ``… (+N chars)`` means N more characters of the one-lined text follow
      the window, with the same marker `clip` uses.

    Returns ``(excerpt, clipped)``; `clipped` is True when either marker is present.
    """
    flat = one_line(text)
    limit = max(0, max_chars)
    total = len(flat)
    if total <= limit:
        return flat, False
    first = max(0, min(start, len(text)))
    stop = max(first, min(end, len(text)))
    matched = text[first:stop]
    if matched.strip():  # whitespace at the edges of a match collapses away: aim at its words
        first += len(matched) - len(matched.lstrip())
        stop -= len(matched) - len(matched.rstrip())
    lo = _flat_offset(text, first, total)
    hi = max(lo, _flat_offset(text, stop, total))
    match_len = hi - lo
    window_start = lo if match_len >= limit else lo - (limit - match_len) // 2
    window_start = max(0, min(window_start, total - limit))
    window_end = window_start + limit
    shown = flat[window_start:window_end]
    after = total - window_end
    head = ELLIPSIS if window_start > 0 else ""
    tail = clip_marker(after) if after > 0 else ""
    return head + shown + tail, bool(head or tail)


def nfc(text: str) -> str:
    """NFC-normalise with unicodedata2 (a current Unicode database, unlike the stdlib's).

    Transcripts mix composed and decomposed accents (macOS paths are NFD); matching and
    comparing on NFC keeps `é` equal to `é`. ASCII, the common case, returns at once.
    """
    if text.isascii():
        return text
    normalized: str = unicodedata2.normalize("NFC", text)
    return normalized


def _flat_offset(text: str, position: int, flat_len: int) -> int:
    """Map an offset into `text` to the matching offset into `one_line(text)`.

    A non-whitespace character keeps its identity across the collapse: its new offset
    is the length of the collapsed prefix, plus one for the single space that replaces
    a whitespace run just before it. The length is `one_line_length`'s (an ASCII prefix
    is counted at memory speed, about twice as fast as splitting it into words and
    joining them again: a search hit's excerpt maps two offsets of a record's text).
    """
    prefix = text[:position]
    offset = one_line_length(prefix)
    if offset and prefix[-1:].isspace():
        offset += 1
    return min(offset, flat_len)
