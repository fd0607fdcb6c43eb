"""What the floor scripts share: the file walk and a two-way fork split.

A floor script is the bare technique of one pysift command (the recipe of
../shared/bench/perf-anchors.md section 6.3), with no CLI framework, no classification
and no output: the time it takes is what the technique alone costs on this machine, so
the gap between it and pysift is pysift's own work, and the gap between it and rg is
Python's.
"""

from __future__ import annotations

import mmap
import os
import pickle
import sys
from collections.abc import Callable, Iterator

SMALL = 256 * 1024  # below this a file is read whole, above it mapped (as pysift does)


def transcripts(home: str) -> list[tuple[int, str]]:
    """``(size, path)`` of every ``*.jsonl`` under ``home/projects`` (journals excluded),
    largest first."""
    found: list[tuple[int, str]] = []

    def walk(directory: str) -> None:
        for entry in os.scandir(directory):
            if entry.is_dir(follow_symlinks=False):
                walk(entry.path)
            elif entry.name.endswith(".jsonl") and entry.name != "journal.jsonl":
                found.append((entry.stat().st_size, entry.path))

    walk(os.path.join(home, "projects"))
    found.sort(reverse=True)
    return found


def line_parts(buf: bytes | mmap.mmap, part: int = 1 << 20) -> Iterator[tuple[int, int]]:
    """``(lo, hi)``: the buffer cut into parts of about ``part`` bytes of whole lines, for
    searches that run every needle over one part (in the cache) before the next."""
    pos, size = 0, len(buf)
    while pos < size:
        cut = buf.find(b"\n", pos + part - 1) if pos + part < size else -1
        end = size if cut < 0 else cut + 1
        yield pos, end
        pos = end


def open_bytes(path: str) -> bytes | mmap.mmap:
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            return b""
        return os.read(fd, size) if size < SMALL else mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    finally:
        os.close(fd)


def split_run(work: Callable[[str], int], home: str,
              keep: Callable[[str], bool] | None = None) -> int:
    """``sum(work(path))`` over every transcript (those ``keep`` keeps), the files dealt
    largest-first to this process and one forked child alternately."""
    paths = [path for _, path in transcripts(home) if keep is None or keep(path)]
    mine, theirs = paths[0::2], paths[1::2]
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        os.write(write_fd, pickle.dumps(sum(work(p) for p in theirs)))
        os._exit(0)
    os.close(write_fd)
    total = sum(work(p) for p in mine)
    chunks = []
    while chunk := os.read(read_fd, 1 << 16):
        chunks.append(chunk)
    os.waitpid(pid, 0)
    return total + pickle.loads(b"".join(chunks))


def main(work: Callable[[str], int]) -> None:
    print(split_run(work, sys.argv[1]))
