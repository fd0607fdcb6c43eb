"""pysift never writes under the Claude home (SPEC §0): list, show, search and image over a
read-only copy of the demo home leave every file and directory exactly as they were."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import EXPLORE, LONG

COMMANDS = [
    ("list", "--max-count", "0"),
    ("list", "--format", "json"),
    ("search", "epoch"),
    ("search", "", "-t", "harness.*", "--attachments", "--format", "json"),
    ("search", "helper_442", "--resolve-persisted", "--siblings"),
    ("search", "published", "-t", "agent.tool.use", "--raw"),
    ("search", "", "--count-by", "pairing"),
    ("search", "release", "-l"),
    ("show", f"@{LONG}", "--turn", "..", "--max-count", "0"),
    ("show", f"@{LONG}", "--line", "1..", "--raw"),
    ("show", f"@{LONG}", "--branch-points", "--format", "json"),
    ("show", f"@{EXPLORE}", "--line", "1..", "--format", "json"),
    ("image", "--format", "json"),
]


def _entries(root: Path) -> Iterator[Path]:
    yield root
    for dirpath, dirnames, filenames in os.walk(root):
        for name in sorted(dirnames) + sorted(filenames):
            yield Path(dirpath) / name


def tree_digest(root: Path) -> dict[str, tuple[int, int, int, str]]:
    """Per entry: mode, size, mtime_ns and a content hash (files) - atime is allowed to move."""
    out = {}
    for path in _entries(root):
        st = path.lstat()
        content = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""
        out[str(path.relative_to(root))] = (st.st_mode, st.st_size, st.st_mtime_ns, content)
    return out


@pytest.fixture
def readonly_home(demo_home: Path, tmp_path: Path) -> Iterator[Path]:
    home = tmp_path / "claude"
    shutil.copytree(demo_home, home, symlinks=True)
    for path in _entries(home):
        mode = path.lstat().st_mode
        path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    yield home
    for path in _entries(home):
        path.chmod(path.lstat().st_mode | stat.S_IWUSR)


def test_commands_leave_the_home_untouched(cli, readonly_home: Path) -> None:
    before = tree_digest(readonly_home)
    for args in COMMANDS:
        result = cli("--claude-home", str(readonly_home), *args)
        assert result.code == 0, (args, result.stderr)
        assert "Permission denied" not in result.stderr, args
    after = tree_digest(readonly_home)
    created = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    assert not created, f"created: {created}"
    assert not removed, f"removed: {removed}"
    changed = sorted(k for k in before if before[k] != after[k])
    assert not changed, f"changed: {changed}"


def test_image_extraction_writes_only_where_asked(cli, readonly_home: Path,
                                                  tmp_path: Path) -> None:
    before = tree_digest(readonly_home)
    out = tmp_path / "imgs"
    for target in (out, out / "one.jpg"):
        result = cli("--claude-home", str(readonly_home), "image", f"@{LONG}", "--out",
                     str(target), "--force")
        assert result.code == 0, result.stderr
    inside = cli("--claude-home", str(readonly_home), "image", f"@{LONG}", "--out",
                 str(readonly_home / "projects" / "imgs"))
    assert inside.code == 2 and "never writes" in inside.stderr
    assert tree_digest(readonly_home) == before
    assert sorted(p.name for p in out.iterdir()) == [f"{LONG[:8]}-img1-L40i1.png", "one.jpg"]
