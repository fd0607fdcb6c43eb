"""Write a file where the user named a path, whole or not at all.

Three rules for every command that writes (image ``--out``, recover ``--out``/``--out-dir``,
verbatim ``--out``): never over an existing file unless asked (``force``); never a
half-written file under the final name (the bytes go to a temporary file beside the
target, which is then linked, or under ``force`` renamed, into place: a failure leaves
nothing behind, and a file that appeared meanwhile is not replaced because the link
fails); never outside the place named, through a ``..`` component or a symbolic link.
Nothing is ever written under the Claude home pysift reads.
"""

from __future__ import annotations

import errno
import ntpath
import os
import tempfile
from pathlib import Path

from pysift.errors import SiftError, UsageError


class TargetExistsError(FileExistsError):
    """The target exists and ``force`` was not given."""


def write_new(path: Path, data: bytes, *, force: bool = False) -> None:
    """Write ``data`` to ``path`` atomically; refuse an existing ``path`` unless ``force``."""
    if not force and os.path.lexists(path):
        raise TargetExistsError(errno.EEXIST, "file exists", str(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # as open() would create it (mkstemp says 0600)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if force:
            os.replace(tmp, path)
            return
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise TargetExistsError(errno.EEXIST, "file exists", str(path)) from None
        except OSError as exc:  # a file system without hard links: check, then rename
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV,
                                 errno.EMLINK):
                raise
            if os.path.lexists(path):
                raise TargetExistsError(errno.EEXIST, "file exists", str(path)) from None
            os.replace(tmp, path)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def inside(path: Path, root: Path) -> bool:
    """Whether ``path`` is ``root`` or below it, both resolved (symlinks followed)."""
    try:
        real, base = os.path.realpath(path), os.path.realpath(root)
    except OSError:
        return False
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def refuse_under_home(path: Path, claude_home: Path, flag: str,
                      what: str = "the recovered file") -> None:
    if inside(path, claude_home):
        raise UsageError(f"{flag} {path} is inside the Claude home {claude_home}, which pysift "
                         f"only reads; write {what} somewhere else")


def check_new_file(path: Path, *, force: bool, flag: str) -> None:
    """Refuse an output path that cannot take a new file (before any work is done)."""
    if path.is_dir():
        raise UsageError(f"{flag} {path} is a directory; name the file to write")
    if os.path.lexists(path) and not force:
        raise UsageError(f"{flag} {path} already exists; pass --force to replace it, or "
                         f"choose another path")
    parent = path.parent
    if not parent.is_dir():
        raise UsageError(f"{flag} {path}: the directory {parent} does not exist")


def write_file(path: Path, data: bytes, *, force: bool) -> None:
    """``write_new`` with its failures said as pysift errors naming the path; under
    ``force`` a symbolic link at ``path`` is refused rather than replaced."""
    if force and os.path.islink(path):
        raise SiftError(f"refusing to replace {path}: it is a symbolic link")
    try:
        write_new(path, data, force=force)
    except TargetExistsError:
        raise SiftError(f"{path} appeared while pysift was writing it; nothing was "
                        f"replaced (pass --force to replace it)") from None
    except OSError as exc:
        raise SiftError(f"cannot write {path}: {exc.strerror or exc}") from None


def mirror_relative(target: str) -> tuple[str, ...]:
    """The components ``target`` (an absolute recorded path) takes under an output dir:
    ``/a/b.py`` -> ``a/b.py``, ``C:\\x\\b.py`` -> ``C/x/b.py``, ``\\\\srv\\s\\b`` ->
    ``srv/s/b``. Refuses a ``..`` component (the target names no single file then)."""
    if ntpath.splitdrive(target)[0] or target.startswith("\\\\"):
        drive, rest = ntpath.splitdrive(target)
        parts = [p.replace(":", "") for p in drive.replace("\\", "/").split("/") if p]
        parts += [p for p in rest.replace("\\", "/").split("/") if p]
    else:
        parts = [p for p in target.split("/") if p]
    parts = [p for p in parts if p and p != "."]
    if any(p == ".." for p in parts):
        raise UsageError(f"{target} has a `..` component; list each file by its plain absolute "
                         f"path")
    if not parts:
        raise UsageError(f"{target} names no file")
    return tuple(parts)


def mirror_path(out_dir: Path, target: str) -> Path:
    """Where ``target`` is written under ``out_dir``; refuses one that an existing symbolic
    link along the way would carry outside ``out_dir``."""
    parts = mirror_relative(target)
    path = out_dir
    for part in parts:
        path = path / part
        if os.path.islink(path):
            raise UsageError(f"{path} is a symbolic link: writing {target} through it could "
                             f"land outside {out_dir}; remove it or choose another --out-dir")
    return path


def make_parents(out_dir: Path, path: Path) -> None:
    """Create the directories between ``out_dir`` and ``path``, one at a time, refusing
    a symbolic link or a non-directory on the way (created concurrently or not)."""
    rel = path.parent.relative_to(out_dir)
    current = out_dir
    for part in rel.parts:
        current = current / part
        if os.path.islink(current):
            raise SiftError(f"{current} is a symbolic link; refusing to write through it")
        if not current.exists():
            try:
                os.mkdir(current)
            except FileExistsError:
                pass
            except OSError as exc:
                raise SiftError(f"cannot create {current}: {exc.strerror or exc}") from None
        if os.path.islink(current) or not current.is_dir():
            raise SiftError(f"{current} is not a directory; cannot write {path}")
    if not inside(path.parent, out_dir):
        raise SiftError(f"{path} would land outside {out_dir}; nothing written there")
