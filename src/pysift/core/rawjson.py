"""Byte needles for top-level keys in raw transcript lines, matched to the file's layout.

Claude Code writes compact JSON (`"type":"user"`); re-serialized transcripts (Python
`json.dumps`) space the separators (`"type": "user"`). A file is one or the other, so the
layout is read once off its first record and literal `find`/`rfind` loops (C speed, no
regex match objects) do the rest.
"""

from __future__ import annotations

from pysift.disk.lines import Buffer


def is_spaced(buf: Buffer) -> bool:
    """Whether the file's first record writes `"key": value` (a space after the colon)."""
    start = 0
    while start < len(buf) and buf[start:start + 1] in (b"\n", b"\r", b" ", b"\t"):
        start += 1
    if buf[start:start + 2] != b'{"':
        return False
    close = buf.find(b'"', start + 2)
    if close < 0:
        return False
    return buf[close + 1:close + 3] == b": "


def type_needle(value: str, spaced: bool) -> bytes:
    sep = b'": "' if spaced else b'":"'
    return b'"type' + sep + value.encode() + b'"'


def iter_key_lines(buf: Buffer, needle: bytes, lo: int = 0, hi: int | None = None):  # type: ignore[no-untyped-def]
    """``(start, end)`` of each line holding ``needle`` at or after ``lo``, in file order
    (a line is yielded once however often it holds the needle)."""
    size = len(buf)
    stop = size if hi is None else hi
    find, rfind = buf.find, buf.rfind
    pos = find(needle, lo, stop)
    while pos >= 0:
        start = rfind(b"\n", 0, pos) + 1
        end = find(b"\n", pos)
        end = size if end < 0 else end
        yield start, end
        pos = find(needle, end, stop)


def iter_key_lines_backward(buf: Buffer, needle: bytes, hi: int | None = None):  # type: ignore[no-untyped-def]
    """``(start, end)`` of each line holding ``needle`` below ``hi``, newest first."""
    size = len(buf)
    rfind, find = buf.rfind, buf.find
    pos = rfind(needle, 0, size if hi is None else hi)
    while pos >= 0:
        start = rfind(b"\n", 0, pos) + 1
        end = find(b"\n", pos)
        yield start, size if end < 0 else end
        pos = rfind(needle, 0, start)
