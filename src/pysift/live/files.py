"""How the live layer reads a file that is still being written.

``status`` and ``wait`` read transcripts Claude Code is appending to. Two readers:

- ``Snapshot``: the file's bytes as of one instant, as a ``Buffer`` (``disk.mapped``: an
  mmap for a big file). One-shot ``status`` uses it; a file TRUNCATED while it is mapped
  can end the process (SPEC §2's known limit), which ``status``'s one read accepts.
- ``ranged`` reads: ``pread`` of a byte range into ``bytes``. ``wait`` uses only these,
  so a transcript truncated or rewritten while it is watched is a shorter read (and a
  stated degradation), never a fault.

Only COMPLETE lines (ending in a newline) are events; the bytes after the last newline are
a write in progress, held until their newline lands.
"""

from __future__ import annotations

import os
from pathlib import Path

from pysift.disk.lines import Buffer

_CHUNK = 1 << 20


def size_of(path: Path) -> int | None:
    """The file's size now; None when it is gone or unreadable."""
    try:
        return os.stat(path).st_size
    except OSError:
        return None


def read_range(path: Path, lo: int, hi: int) -> bytes:
    """Bytes ``[lo, hi)`` of ``path`` as they are now (shorter when the file is; empty when
    it is gone)."""
    if hi <= lo:
        return b""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return b""
    try:
        first = os.pread(fd, hi - lo, lo)  # one read, one copy, for a regular file
        if len(first) == hi - lo or not first:
            return first
        chunks = [first]
        at = lo + len(first)
        while at < hi:
            chunk = os.pread(fd, hi - at, at)
            if not chunk:
                break
            chunks.append(chunk)
            at += len(chunk)
        return b"".join(chunks)
    except OSError:
        return b""
    finally:
        os.close(fd)


class View:
    """Random access to one file's bytes up to a fixed size: over a ``Buffer`` already in
    hand (``status``), or by ``pread`` (``wait``)."""

    __slots__ = ("buf", "path", "size")

    def __init__(self, path: Path, size: int, buf: Buffer | None = None) -> None:
        self.path = path
        self.size = size
        self.buf = buf

    def read(self, lo: int, hi: int) -> bytes:
        lo, hi = max(0, lo), min(hi, self.size)
        if self.buf is not None:
            return bytes(self.buf[lo:hi])
        return read_range(self.path, lo, hi)

    def rfind_newline(self, floor: int, hi: int) -> int:
        """The offset of the last newline in ``[floor, hi)``, else -1 (a buffer in hand is
        searched in place; a file is read backwards a MiB at a time)."""
        floor, hi = max(0, floor), min(hi, self.size)
        if self.buf is not None:
            return self.buf.rfind(b"\n", floor, hi)
        while hi > floor:
            lo = max(floor, hi - _CHUNK)
            at = self.read(lo, hi).rfind(b"\n")
            if at >= 0:
                return lo + at
            hi = lo
        return -1


def complete_lines(data: bytes, base: int) -> tuple[list[tuple[int, bytes]], int]:
    """``(offset, line)`` for every newline-terminated line of ``data`` (which starts at
    file offset ``base``), and the offset just past the last newline (where the next read
    starts: a torn tail is held there)."""
    out: list[tuple[int, bytes]] = []
    pos = 0
    find = data.find
    while True:
        nl = find(b"\n", pos)
        if nl < 0:
            break
        out.append((base + pos, data[pos:nl]))
        pos = nl + 1
    return out, base + pos
