"""disk.mapped: a transcript opened as one buffer, or said unreadable; a side file read only
when it is a regular file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pysift.disk import mapped
from pysift.disk.mapped import NotRegularFileError, open_buffer, read_regular, try_open_buffer
from pysift.errors import SourceError


def test_a_regular_file_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    path.write_bytes(b"x" * 200_000 + b"\n")
    assert read_regular(path) == b"x" * 200_000 + b"\n"


def test_an_absent_file_is_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_regular(tmp_path / "absent.txt")


@pytest.mark.parametrize("name", ["cut\ud83d.json", "nul\x00.json"])
def test_a_name_no_file_system_can_hold_is_file_not_found(tmp_path: Path, name: str) -> None:
    """A path built from a transcript's cwd (JSON may hold a lone surrogate or a NUL):
    the open had raised a ValueError, which no reader caught."""
    with pytest.raises(FileNotFoundError):
        read_regular(str(tmp_path / name))


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


def test_a_transcript_that_shrinks_while_it_is_mapped_is_unreadable_not_a_crash(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The size is taken before the mmap: a file cut in between made mmap raise ValueError."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"x" * (mapped.SMALL_FILE_BYTES + 1))
    real_fstat = os.fstat

    class Grown:
        def __init__(self, fd: int) -> None:
            self.st_size = real_fstat(fd).st_size * 2  # the size before the cut

    monkeypatch.setattr(os, "fstat", Grown)
    with pytest.raises(SourceError, match="shrank while pysift opened it"):
        open_buffer(path)
    assert try_open_buffer(path) is None


def test_an_absent_transcript_opens_to_nothing_for_a_tolerant_reader(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="cannot read"):
        open_buffer(tmp_path / "gone.jsonl")
    assert try_open_buffer(tmp_path / "gone.jsonl") is None
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"type":"user"}\n')
    assert try_open_buffer(path) == b'{"type":"user"}\n'


@pytest.mark.skipif(__import__("platform").libc_ver()[0] != "glibc", reason="glibc only")
def test_the_heap_setting_reaches_glibcs_mallopt_without_a_subprocess(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``keep_big_reads_on_the_heap`` finds ``mallopt`` among the symbols already loaded
    (``find_library`` ran ``ldconfig -p`` in a subprocess on every stats and files run)
    and sets the two thresholds once."""
    import subprocess

    calls: list[tuple[int, int]] = []

    class Libc:
        def mallopt(self, param: int, value: int) -> int:
            calls.append((param, value))
            return 1

    import ctypes

    assert ctypes.CDLL(None).mallopt  # the real lookup succeeds on glibc
    monkeypatch.setattr(ctypes, "CDLL", lambda name: Libc())
    monkeypatch.setattr(subprocess, "Popen", None)  # any subprocess would fail
    monkeypatch.setattr(mapped, "_HEAP_KEPT", False)
    mapped.keep_big_reads_on_the_heap()
    mapped.keep_big_reads_on_the_heap()
    assert calls == [(-3, 1 << 30), (-1, 1 << 31)]
