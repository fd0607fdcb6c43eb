"""The files pysift writes where the user names a path (``recover --out``/``--out-dir``).

Three rules: never over an existing file unless the caller was asked to (``force``); never
a half-written file under the final name (the bytes go to a temporary file in the same
directory, which is then linked or renamed into place); never outside the place named,
through a ``..`` component or a symbolic link. Nothing is ever written under the Claude
home pysift reads.
"""

from __future__ import annotations

import errno
import ntpath
import os
from pathlib import Path

from pysift.errors import SiftError, UsageError


def inside(path: Path, root: Path) -> bool:
    """Whether ``path`` is ``root`` or below it, both resolved (symlinks followed)."""
    try:
        real, base = os.path.realpath(path), os.path.realpath(root)
    except OSError:
        return False
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def refuse_under_home(path: Path, claude_home: Path, flag: str) -> None:
    if inside(path, claude_home):
        raise UsageError(f"{flag} {path} is inside the Claude home {claude_home}, which pysift "
                         f"only reads; write the recovered file somewhere else")


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
    """Write ``data`` to ``path`` through a temporary file and a link (no clobber) or a
    rename (``force``). Raises ``SiftError`` naming the path when the disk refuses."""
    parent = path.parent
    tmp = parent / f".{path.name}.pysift-{os.getpid()}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError as exc:
        raise SiftError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if force:
            if os.path.islink(path):
                raise SiftError(f"refusing to replace {path}: it is a symbolic link")
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise SiftError(f"{path} appeared while pysift was writing it; nothing was "
                                f"replaced (pass --force to replace it)") from None
            except OSError as exc:
                if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV, errno.EOPNOTSUPP):
                    raise
                if os.path.lexists(path):  # a file system without hard links
                    raise SiftError(f"{path} already exists; nothing was replaced") from None
                os.replace(tmp, path)
    except OSError as exc:
        raise SiftError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)


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
