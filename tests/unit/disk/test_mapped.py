"""disk.mapped.read_regular: a side file is read only when it is a regular file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pysift.disk.mapped import NotRegularFileError, read_regular


def test_a_regular_file_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    path.write_bytes(b"x" * 200_000 + b"\n")
    assert read_regular(path) == b"x" * 200_000 + b"\n"


def test_an_absent_file_is_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_regular(tmp_path / "absent.txt")


@pytest.mark.parametrize("kind", ["fifo", "dir", "device"])
def test_anything_else_is_refused_at_once(tmp_path: Path, kind: str) -> None:
    """A FIFO blocked the open (no writer ever comes); /dev/zero never ends."""
    if kind == "fifo":
        path = tmp_path / "elicitations.jsonl"
        os.mkfifo(path)
    elif kind == "dir":
        path = tmp_path / "elicitations.jsonl"
        path.mkdir()
    else:
        path = Path("/dev/zero")
    with pytest.raises(NotRegularFileError):
        read_regular(path)
