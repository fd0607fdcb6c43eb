"""Writing a user-named file: whole or not at all, never over an existing one unasked."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pysift.disk import writeout
from pysift.disk.writeout import TargetExistsError, write_new
from pysift.errors import SiftError, UsageError


def test_writes_whole_with_the_umask_mode(tmp_path: Path) -> None:
    target = tmp_path / "a.png"
    old = os.umask(0o027)
    try:
        write_new(target, b"bytes")
    finally:
        os.umask(old)
    assert target.read_bytes() == b"bytes"
    assert target.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["a.png"]


def test_never_replaces_without_force(tmp_path: Path) -> None:
    target = tmp_path / "a.png"
    target.write_bytes(b"mine")
    with pytest.raises(TargetExistsError):
        write_new(target, b"new")
    assert target.read_bytes() == b"mine"
    write_new(target, b"new", force=True)
    assert target.read_bytes() == b"new"
    assert [p.name for p in tmp_path.iterdir()] == ["a.png"]


def test_a_file_appearing_meanwhile_is_not_replaced(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "a.png"
    real_link = os.link

    def racing_link(src: str, dst: str) -> None:
        Path(dst).write_bytes(b"theirs")  # another writer wins the race
        real_link(src, dst)

    monkeypatch.setattr(writeout.os, "link", racing_link)
    with pytest.raises(TargetExistsError):
        write_new(target, b"ours")
    assert target.read_bytes() == b"theirs"
    assert [p.name for p in tmp_path.iterdir()] == ["a.png"]  # no temporary left


def test_a_failed_write_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def failing_link(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writeout.os, "link", failing_link)
    with pytest.raises(OSError, match="No space"):
        write_new(tmp_path / "a.png", b"data")
    assert list(tmp_path.iterdir()) == []


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
