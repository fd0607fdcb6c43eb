"""The files pysift writes: no clobber, no half-written file, no escape."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pysift.disk import writeout
from pysift.errors import SiftError, UsageError


def test_write_never_over_a_file_unless_forced(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    writeout.write_file(path, b"one", force=False)
    with pytest.raises(SiftError):
        writeout.write_file(path, b"two", force=False)
    assert path.read_bytes() == b"one"
    writeout.write_file(path, b"two", force=True)
    assert path.read_bytes() == b"two"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]  # no temp file left


def test_force_never_writes_through_a_symlink(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep")
    os.symlink(target, tmp_path / "link.txt")
    with pytest.raises(SiftError):
        writeout.write_file(tmp_path / "link.txt", b"x", force=True)
    assert target.read_text() == "keep"


@pytest.mark.parametrize("value, parts", [
    ("/a/b.py", ("a", "b.py")),
    (r"C:\x\b.py", ("C", "x", "b.py")),
    (r"\\srv\share\b", ("srv", "share", "b")),
    ("/a/./b.py", ("a", "b.py")),
])
def test_mirror_relative(value: str, parts: tuple[str, ...]) -> None:
    assert writeout.mirror_relative(value) == parts


def test_mirror_refuses_dotdot_and_symlinks(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        writeout.mirror_relative("/a/../etc/passwd")
    (tmp_path / "a").mkdir()
    os.symlink("/tmp", tmp_path / "a" / "b")
    with pytest.raises(UsageError):
        writeout.mirror_path(tmp_path, "/a/b/c.py")
    assert writeout.mirror_path(tmp_path, "/a/x/c.py") == tmp_path / "a" / "x" / "c.py"
