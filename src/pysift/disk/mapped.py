"""Open a transcript read-only as one byte buffer: the one mmap call site.

The length is fixed at open, so a live session that grows while we read gives a
consistent answer (the bytes that existed at open). Small files are read outright: the
mmap set-up costs more than the copy.
"""

from __future__ import annotations

import errno
import mmap
import os
import stat
from pathlib import Path

from pysift.errors import SourceError

SMALL_FILE_BYTES = 256 * 1024


def open_buffer(path: Path | str, read_up_to: int = SMALL_FILE_BYTES) -> bytes | mmap.mmap:
    """The file's bytes as of now: ``bytes`` for files up to ``read_up_to`` bytes, a
    read-only mmap otherwise (a scan handing the whole file to a C library that copies an
    mmap, such as the Rust regex crate, reads it outright instead).

    Raises ``SourceError`` (never ``OSError``) when the file vanished or is unreadable.
    """
    return open_buffer_stat(path, read_up_to)[0]


def open_buffer_stat(path: Path | str, read_up_to: int = SMALL_FILE_BYTES
                     ) -> tuple[bytes | mmap.mmap, os.stat_result]:
    """``open_buffer``, with the ``fstat`` taken on the same descriptor before the read
    (what a cache stamps the bytes with)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as exc:
        advice = ("check the path (the transcript may have been moved or deleted) and rerun"
                  if exc.errno in (errno.ENOENT, errno.ENOTDIR)
                  else "check its permissions (pysift reads as the user running it)")
        raise SourceError(f"cannot read {path}: {exc.strerror or exc}; {advice}") from None
    try:
        st = os.fstat(fd)
        size = st.st_size
        if size == 0:
            return b"", st
        if size <= read_up_to:
            chunks = []
            remaining = size
            while remaining > 0:
                chunk = os.read(fd, remaining)
                if not chunk:
                    break
                chunks.append(chunk)
                remaining -= len(chunk)
            return b"".join(chunks), st
        return mmap.mmap(fd, size, access=mmap.ACCESS_READ), st
    except OSError as exc:
        raise SourceError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except ValueError:  # mmap: the file shrank after its size was taken
        raise SourceError(f"cannot read {path}: it shrank while pysift opened it (rewritten "
                          f"or truncated meanwhile); rerun") from None
    finally:
        os.close(fd)


def try_open_buffer(path: Path | str) -> bytes | mmap.mmap | None:
    """``open_buffer``, or None when the file cannot be read: for a caller to which an
    unreadable transcript simply holds nothing (the spawns it issued, an @trap marker)."""
    try:
        return open_buffer(path)
    except SourceError:
        return None


class NotRegularFileError(OSError):
    """The path names a FIFO, a device, a socket or a directory: no file to read."""


def read_regular(path: Path | str) -> bytes:
    """The whole bytes of a small side file (a sidecar, a persisted output, a settings or
    meta file), only if it is a regular file.

    Opened non-blocking and checked before any read: a FIFO in such a slot blocked the
    open forever, and a device (a recorded path of ``/dev/zero``) never ends. Raises
    ``FileNotFoundError`` when the path is absent, ``NotRegularFileError`` when it names
    something else, and ``OSError`` when it cannot be read. A path no file system can
    hold (a NUL, a lone surrogate: a transcript's cwd or a recorded path is read back from
    JSON) is absent too; the open had raised a ValueError.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except ValueError as exc:  # UnicodeEncodeError is one
        raise FileNotFoundError(errno.ENOENT, "no file can have this name",
                                os.fspath(path)) from exc
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFileError(errno.EINVAL, "not a regular file", os.fspath(path))
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


_HEAP_KEPT = False


def keep_big_reads_on_the_heap() -> None:
    """Let glibc serve big allocations (a whole transcript read into ``bytes``) from the
    heap and keep the memory after it is freed, so the next file's read reuses pages
    already mapped instead of faulting fresh ones in: measured to halve the cost of
    reading B's 2,437 files one after another (0.46 s against 1.0 s for 600 of them).
    The process keeps its peak memory until it exits, which a CLI run can afford. A
    no-op where the C library has no ``mallopt`` (macOS, musl). Inherited by forked
    workers.

    ``mallopt`` is looked up among the symbols the interpreter already has loaded (the C
    library's among them), not by ``ctypes.util.find_library``, which runs ``ldconfig
    -p`` in a subprocess and imports ``tempfile``: 25-33 ms of every ``stats`` and
    ``files`` run (a warm ``stats`` over B takes ~0.3-0.5 s)."""
    global _HEAP_KEPT
    if _HEAP_KEPT:
        return
    _HEAP_KEPT = True
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # no such symbol: not glibc
        return
    m_trim_threshold, m_mmap_threshold = -1, -3
    mallopt(m_mmap_threshold, 1 << 30)
    mallopt(m_trim_threshold, 1 << 31)
