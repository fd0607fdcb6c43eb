"""Write one file of an archive so that it is whole at every instant (SPEC §14).

The only writing module of pysift, and it writes only under the archive the user named.
Three moves, each leaving every archived file whole if the process dies at any point:

- ``copy_new``: the source's bytes go to a partial file beside the target
  (``.<name>.pysift-partial``), get the source's modification time, and are renamed onto
  the target name. The name holds the old content or the new, never a mix.
- ``append``: a target that is a verified prefix of its source gets the bytes that follow,
  written in place in pieces that end at a newline. Interrupted, it is still a prefix of
  its source cut at a line end; the next run verifies that prefix and appends the rest.
  The free space is checked first, so a full disk refuses the append before a byte.
- ``preserve``: the old content is hard-linked under a dated name (``<name>.preserved-
  <UTC stamp>``) before the new copy is renamed over the target, so no instant lacks
  either.

Nothing archived is deleted or truncated. A partial file is pysift's scratch: a later run
writes over it (or renames it in place).

The two sides fail differently: what cannot be read of a SOURCE (it vanished, shrank, or
its permissions or disk refuse it) is ``SourceChanged``, that one file's failure, and the
run goes on; what cannot be written in DEST is an ``OSError`` (``DestFull`` for a full
disk) and stops the run, as the next file would meet it too.

A new copy keeps its source's permission bits (the partial file is private while it is
written); a dir made here is 0700: transcripts hold prompts and secrets, and an archive
must not open a private home to every user of the machine.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from pysift.disk.layout import dangling_reason
from pysift.model.fastdata import dataclass

CHUNK = 64 << 20  # bytes per in-kernel copy step (the progress bar moves per step)
APPEND_CHUNK = 8 << 20  # bytes an append reads at a time (cut back to a newline)
COMPARE_CHUNK = 1 << 20
PARTIAL_SUFFIX = ".pysift-partial"
DIR_MODE = 0o700  # every dir pysift makes in DEST (transcripts hold prompts and secrets)
FILE_MODE = 0o600  # pysift's own files in DEST, and a partial copy while it is written
PRESERVED_INFIX = ".preserved-"
FULL_ERRNOS = frozenset({errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)})

Progress = Callable[[int], None]


class SourceChanged(Exception):
    """The source vanished, shrank or stopped being a regular file while it was read:
    that file is not archived this run (what DEST holds of it stays whole)."""


class SourceUnreadable(SourceChanged):
    """The source exists but cannot be read (a permission, an I/O error): that file is
    not archived, the run goes on, and the file is counted with what the home could not
    read (its fix is the file's permissions, not another run)."""


class SourceNotRegular(SourceUnreadable):
    """The source is not a regular file (a FIFO, a socket, a device, a dir): it has no
    bytes to copy, so it is not archived and no later run changes that; counted with
    what the home could not read, as the scope counts such a transcript."""


class DestFull(OSError):
    """The archive's disk (or quota) is full: the run stops; every archived file is whole."""


@dataclass(frozen=True)
class SourceStat:
    size: int
    mtime_ns: int
    atime_ns: int
    mode: int  # the permission bits a new copy gets


def stat_source(path: str | Path) -> SourceStat:
    """The source's size, times and permission bits (symlinks followed); ``SourceChanged``
    when it is gone, ``SourceUnreadable`` when it cannot be stat'ed or is a symlink whose
    target is gone (no run brings it back), ``SourceNotRegular`` when it is no file."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise SourceUnreadable(f"cannot be read: {dangling_reason(path)}") from None
        raise SourceChanged("vanished before it was archived") from None
    except OSError as exc:
        raise _unreadable(exc) from None
    if not stat.S_ISREG(st.st_mode):
        raise SourceNotRegular(f"not a regular file ({_kind(st.st_mode)}): it has no bytes "
                               "to copy")
    return SourceStat(st.st_size, st.st_mtime_ns, st.st_atime_ns, stat.S_IMODE(st.st_mode))


def _kind(mode: int) -> str:
    """What a file that is no regular file is, for its row."""
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISDIR, "a dir")):
        if test(mode):
            return name
    return "a special file"


def partial_path(target: Path) -> Path:
    return target.with_name(f".{target.name}{PARTIAL_SUFFIX}")


def _open_source(path: str | Path) -> int:
    """A descriptor on the source; any failure is that file's (``SourceChanged``), never
    the archive's: a mode-000 transcript once stopped the run as "cannot write"."""
    try:
        return os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        raise SourceChanged("vanished before it was archived") from None
    except OSError as exc:
        raise _unreadable(exc) from None


def _read_source(fd: int, count: int, offset: int) -> bytes:
    try:
        return os.pread(fd, count, offset)
    except OSError as exc:
        raise _unreadable(exc) from None


def _unreadable(exc: OSError) -> SourceUnreadable:
    """The reason alone: the row and its warning name the file already."""
    return SourceUnreadable(f"cannot be read: {exc.strerror or exc}")


def make_dirs(path: str | Path) -> None:
    """``os.makedirs`` whose every new level is 0700 (``makedirs`` gives its ``mode`` to
    the last level only); a dir that exists is left as it is."""
    path = os.fspath(path)
    if os.path.isdir(path):
        return
    parent = os.path.dirname(path)
    if parent and parent != path:
        make_dirs(parent)
    try:
        os.mkdir(path, DIR_MODE)
    except FileExistsError:
        if not os.path.isdir(path):
            raise


def _full(exc: OSError, where: Path) -> OSError:
    """A write failure as the run's error: a full disk is ``DestFull``."""
    if exc.errno in FULL_ERRNOS:
        return DestFull(exc.errno, exc.strerror, os.fspath(where))
    return exc


# -- the byte movers (tests replace these to inject a failing writer) -------------------------


def copy_range(src_fd: int, dst_fd: int, offset: int, count: int) -> int:
    """Copy up to ``count`` bytes of the source from ``offset`` to the destination's
    position; the number copied (0 at the source's end). In-kernel where it can."""
    try:
        return os.copy_file_range(src_fd, dst_fd, count, offset)
    except OSError as exc:
        if exc.errno in FULL_ERRNOS:
            raise
        # unsupported here, or an error of either side (EIO names neither): the plain
        # read and write below fail on the side that failed
    data = _read_source(src_fd, count, offset)
    return write_all(dst_fd, data)


def write_all(fd: int, data: bytes | memoryview) -> int:
    view = memoryview(data)
    done = 0
    while done < len(view):
        done += os.write(fd, view[done:])
    return done


# -- the three moves -----------------------------------------------------------------------


def copy_new(source: str | Path, target: Path, src: SourceStat, progress: Progress | None = None
             ) -> int:
    """The source's first ``src.size`` bytes as the whole new content of ``target``
    (through a partial file and a rename); the bytes written. ``SourceChanged`` when the
    source ends early; ``DestFull``/``OSError`` for the archive's side."""
    partial = partial_path(target)
    written = _write_partial(source, partial, src, progress)
    try:
        os.rename(partial, target)
    except OSError as exc:
        _discard(partial)
        raise _full(exc, target) from None
    return written


def _discard(partial: Path) -> None:
    """Remove this run's own unfinished partial file (never an archived file)."""
    try:
        os.unlink(partial)
    except OSError:
        pass


def same_prefix(source: str | Path, target: str | Path, length: int) -> bool:
    """Whether the target's first ``length`` bytes equal the source's, compared byte for
    byte (a stronger check than a digest, with no stored digest to trust)."""
    fd_in = _open_source(source)
    try:
        fd_arc = os.open(target, os.O_RDONLY)
    except BaseException:
        os.close(fd_in)
        raise
    try:
        done = 0
        while done < length:
            step = min(COMPARE_CHUNK, length - done)
            a = _read_source(fd_in, step, done)
            b = os.pread(fd_arc, step, done)
            if len(a) != step:
                raise SourceChanged(f"shrank while it was compared ({done + len(a)} of "
                                    f"{length} bytes read)")
            if a != b:
                return False
            done += step
        return True
    finally:
        os.close(fd_in)
        os.close(fd_arc)


def free_bytes(directory: Path) -> int | None:
    try:
        vfs = os.statvfs(directory)
    except (OSError, AttributeError):
        return None
    return vfs.f_bavail * vfs.f_frsize


def append(source: str | Path, target: Path, start: int, src: SourceStat,
           progress: Progress | None = None) -> int:
    """Append the source's bytes ``[start, src.size)`` to ``target`` (whose first ``start``
    bytes were verified), in pieces ending at a newline where the bytes hold one; then
    give it the source's modification time. The bytes written."""
    need = src.size - start
    free = free_bytes(target.parent)
    if free is not None and free < need:
        raise DestFull(errno.ENOSPC, f"No space left on device (the append needs {need} "
                       f"bytes, {free} are free)", os.fspath(target))
    fd_in = _open_source(source)
    try:
        try:
            fd_out = os.open(target, os.O_WRONLY | os.O_APPEND)
        except OSError as exc:
            raise _full(exc, target) from None
        try:
            if os.fstat(fd_out).st_size != start:
                raise SourceChanged("its archived copy changed under the run")
            done = start
            carry = b""
            while done < src.size:
                data = _read_source(fd_in, min(APPEND_CHUNK, src.size - done), done)
                if not data:
                    raise SourceChanged(f"shrank while it was copied ({done} of {src.size} "
                                        "bytes read)")
                done += len(data)
                data = carry + data
                cut = data.rfind(b"\n") + 1 if done < src.size else len(data)
                carry = data[cut:]
                if cut:
                    try:
                        write_all(fd_out, memoryview(data)[:cut])
                    except OSError as exc:
                        raise _full(exc, target) from None
                    if progress is not None:
                        progress(cut)
            os.utime(fd_out, ns=(src.atime_ns, src.mtime_ns))
        finally:
            os.close(fd_out)
    finally:
        os.close(fd_in)
    return need


def preserved_name(target: Path, when: datetime) -> Path:
    """A dated name beside ``target`` that no reader takes for a transcript (it does not
    end in ``.jsonl``) and no earlier preservation used."""
    stamp = when.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    base = f"{target.name}{PRESERVED_INFIX}{stamp}"
    candidate = target.with_name(base)
    n = 2
    while os.path.lexists(candidate):
        candidate = target.with_name(f"{base}-{n}")
        n += 1
    return candidate


def already_preserved(target: Path) -> Path | None:
    """An earlier dated name of the target's CURRENT content (same inode): a run that
    died between the link and the rename left it, and it is reused."""
    try:
        st = os.stat(target)
        names = os.listdir(target.parent)
    except OSError:
        return None
    prefix = f"{target.name}{PRESERVED_INFIX}"
    for name in sorted(names):
        if name.startswith(prefix):
            try:
                other = os.stat(target.parent / name)
            except OSError:
                continue
            if (other.st_ino, other.st_dev) == (st.st_ino, st.st_dev):
                return target.parent / name
    return None


def preserve_and_replace(source: str | Path, target: Path, src: SourceStat, when: datetime,
                         progress: Progress | None = None) -> tuple[Path, int]:
    """Keep the target's old content under a dated name and make the target a new copy
    of the source: the new copy is written whole first, then the old content is linked
    to the dated name, then the new copy is renamed in. ``(dated path, bytes written)``."""
    partial = partial_path(target)
    written = _write_partial(source, partial, src, progress)
    try:
        dated = already_preserved(target) or preserved_name(target, when)
        if not os.path.lexists(dated):
            try:
                os.link(target, dated)
            except OSError as exc:
                if exc.errno in FULL_ERRNOS:
                    raise _full(exc, dated) from None
                os.rename(target, dated)  # a filesystem without hard links
        os.rename(partial, target)
    except BaseException:
        _discard(partial)
        raise
    return dated, written


def _write_partial(source: str | Path, partial: Path, src: SourceStat,
                   progress: Progress | None) -> int:
    """``copy_new`` without the final rename: the partial file holds the new copy, with
    the source's permission bits (0600 until it is whole)."""
    fd_in = _open_source(source)
    if hasattr(os, "posix_fadvise"):  # read once, front to back (as cp asks)
        os.posix_fadvise(fd_in, 0, 0, os.POSIX_FADV_SEQUENTIAL)
    try:
        try:
            fd_out = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
        except OSError as exc:
            raise _full(exc, partial) from None
        try:
            done = 0
            while done < src.size:
                try:
                    n = copy_range(fd_in, fd_out, done, min(CHUNK, src.size - done))
                except OSError as exc:
                    raise _full(exc, partial) from None
                if n == 0:
                    raise SourceChanged(f"shrank while it was copied ({done} of {src.size} "
                                        "bytes read)")
                done += n
                if progress is not None:
                    progress(n)
            os.fchmod(fd_out, src.mode)  # a partial left by a killed run kept its own
            os.utime(fd_out, ns=(src.atime_ns, src.mtime_ns))
        finally:
            os.close(fd_out)
    except BaseException:
        _discard(partial)
        raise
    finally:
        os.close(fd_in)
    return src.size


def set_times(target: Path, src: SourceStat) -> None:
    os.utime(target, ns=(src.atime_ns, src.mtime_ns))
