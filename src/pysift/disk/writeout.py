"""Write a file the user named, whole or not at all.

The bytes go to a temporary file beside the target, which is then linked (or, under
``force``, renamed) into place: a reader never sees a partial file, a failure leaves
nothing behind, and without ``force`` an existing file is never replaced, even one that
appeared while the bytes were written (the link fails instead).
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path


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


def check_target(path: Path, *, claude_home: Path, force: bool, flag: str = "--out") -> Path:
    """The absolute path a command will write (checked before any work is done), after
    the refusals: a path under the Claude home (pysift only reads it), a directory, an
    existing file without ``force``, a missing parent directory."""
    from pysift.errors import UsageError

    target = Path(os.path.abspath(path))
    inside = False
    for root, candidate in ((Path(os.path.abspath(claude_home)), target),
                            (Path(os.path.realpath(claude_home)), Path(os.path.realpath(target)))):
        try:
            candidate.relative_to(root)
            inside = True
        except ValueError:
            pass
    if inside:
        raise UsageError(f"{flag} {path} is inside the Claude home ({claude_home}), which "
                         "pysift never writes; name a path outside it")
    if target.is_dir():
        raise UsageError(f"{flag} {path} is a directory; name the file to write")
    if os.path.lexists(target) and not force:
        raise UsageError(f"{flag} {path} already exists; pass --force to overwrite it, or "
                         "name another file")
    if not target.parent.is_dir():
        raise UsageError(f"{flag} {path}: the directory {target.parent} does not exist; "
                         "create it first")
    return target
