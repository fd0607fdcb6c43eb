"""The one place a command writes a file the user named (``--out``).

pysift reads the Claude home and never writes under it; it writes only where the user
names a path, and never over an existing file unless asked (``--force``)."""

from __future__ import annotations

import os
from pathlib import Path

from pysift.errors import UsageError


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


def check_target(path: Path, *, claude_home: Path, force: bool, flag: str = "--out") -> Path:
    """The absolute path to write, after the refusals: a path under the Claude home, a
    directory, an existing file without ``force``, a missing parent directory."""
    target = Path(os.path.abspath(path))
    real_home = Path(os.path.realpath(claude_home))
    real_target = Path(os.path.realpath(target))
    if _inside(target, Path(os.path.abspath(claude_home))) or _inside(real_target, real_home):
        raise UsageError(f"{flag} {path} is inside the Claude home ({claude_home}), which "
                         "pysift never writes; name a path outside it")
    if target.is_dir():
        raise UsageError(f"{flag} {path} is a directory; name the file to write")
    if target.exists() and not force:
        raise UsageError(f"{flag} {path} already exists; pass --force to overwrite it, or "
                         "name another file")
    if not target.parent.is_dir():
        raise UsageError(f"{flag} {path}: the directory {target.parent} does not exist; "
                         "create it first")
    return target


def write_new(path: Path, data: bytes, *, claude_home: Path, force: bool,
              flag: str = "--out") -> Path:
    """Write ``data`` to ``path`` (see ``check_target``); the file is closed on return."""
    target = check_target(path, claude_home=claude_home, force=force, flag=flag)
    with open(target, "wb" if force else "xb") as fh:
        fh.write(data)
    return target
