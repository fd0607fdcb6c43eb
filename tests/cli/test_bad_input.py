"""Hostile bytes: every command counts what it cannot read and never crashes (issue 2/3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import ClaudeHome, assistant, text, user

SID = "5a5a5a5a-1111-4222-8333-944444444444"


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[Path, Path]:
    home = ClaudeHome(tmp_path / "claude")
    path = home.session("/w/hostile", SID,
                        user("find the needle please"),
                        assistant(text("the needle is " + "x" * 400_000)),  # a 400 KB line
                        user("and again the needle"))
    ClaudeHome.raw_lines(path, [
        b"\x00\xff\xfe binary junk \x80\x81 needle\n",                     # not JSON at all
        b'{"type":"user","message":{"role":"user","content":"needle tor',  # torn, no newline
    ])
    return home.root, path


def test_search_counts_junk_and_torn_lines(cli, hostile) -> None:
    home, _ = hostile
    result = cli("--claude-home", str(home), "search", "needle", "--format", "json")
    assert result.code == 0, result.stderr
    summary = result.summary()
    assert summary["matched"] == 2  # the two real turns
    assert summary["skipped_lines"] == 2  # the junk line and the torn tail both held the needle
    assert "Traceback" not in result.stderr


def test_search_clips_the_huge_line_with_a_marker(cli, hostile) -> None:
    home, _ = hostile
    result = cli("--claude-home", str(home), "search", "needle is", "-t", "agent.message")
    assert result.code == 0
    assert "… (+" in result.stdout and "chars)" in result.stdout


def test_list_show_and_stats_survive_the_same_file(cli, hostile) -> None:
    home, path = hostile
    listed = cli("--claude-home", str(home), "list", "--format", "json")
    assert listed.code == 0 and listed.json_rows("session")
    assert listed.json_rows("session")[0]["skipped_lines"] >= 1  # the torn tail was read
    shown = cli("--claude-home", str(home), "show", f"@{SID}", "--line", "4..5")
    assert shown.code == 1 and "--raw" in shown.stderr  # no record in range: points at --raw
    raw = cli("--claude-home", str(home), "show", f"@{SID}", "--line", "4..5", "--raw")
    assert raw.code == 0 and raw.stdout_bytes.endswith(b"needle tor\n")
    stats = cli("--claude-home", str(home), "stats", f"@{SID}", "--format", "json")
    assert stats.code == 0 and stats.json_rows("session")[0]["skipped_lines"] == 2


def test_a_file_that_grows_after_open_reads_as_it_was(tmp_path: Path) -> None:
    """A live session appends while pysift reads: the buffer is the file as it was."""
    from pysift.disk.lines import count_lines
    from pysift.disk.mapped import open_buffer

    big = tmp_path / "live.jsonl"
    big.write_bytes(b'{"type":"user"}\n' * 40_000)  # mapped (over the small-file limit)
    small = tmp_path / "small.jsonl"
    small.write_bytes(b'{"type":"user"}\n' * 3)
    before = [open_buffer(big), open_buffer(small)]
    for path in (big, small):
        with path.open("ab") as fh:
            fh.write(b'{"type":"assistant"}\n' * 5)
    assert [count_lines(b) for b in before] == [40_000, 3]


def test_a_vanished_transcript_is_one_clear_error(cli, hostile) -> None:
    home, path = hostile
    path.unlink()
    result = cli("--claude-home", str(home), "show", str(path), "--line", "1")
    assert result.code != 0
    assert result.stderr.startswith("pysift: error:") and "Traceback" not in result.stderr


# -- what cannot be read: permissions (simulated: the suite may run as root) ----------------------

import errno  # noqa: E402
import os  # noqa: E402


def _two_projects(tmp_path: Path) -> tuple[Path, Path, Path]:
    home = ClaudeHome(tmp_path / "claude")
    readable = home.session("/w/open", SID, user("an open session"), assistant("ok"))
    hidden = home.session("/w/locked", "6b6b6b6b-1111-4222-8333-944444444444",
                          user("the locked needle"), assistant("ok"))
    return home.root, readable, hidden


def _deny(monkeypatch: pytest.MonkeyPatch, denied: Path) -> None:
    """Listing ``denied`` fails with EACCES, and so does a stat of anything in it."""
    real_scandir, real_stat = os.scandir, os.stat

    def scandir(path=".", *a, **kw):  # type: ignore[no-untyped-def]
        if os.fspath(path) == os.fspath(denied):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_scandir(path, *a, **kw)

    def stat(path, *a, **kw):  # type: ignore[no-untyped-def]
        if os.fspath(path).startswith(os.fspath(denied) + os.sep):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_stat(path, *a, **kw)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "stat", stat)


def test_an_unreadable_project_dir_is_named_and_the_zero_is_no_definitive_absence(
        cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its sessions were dropped without a word, and a search said DEFINITIVE absence of
    what they hold."""
    home, _, hidden = _two_projects(tmp_path)
    _deny(monkeypatch, hidden.parent)
    result = cli("--claude-home", str(home), "search", "locked needle", "--format", "json")
    assert result.code == 0
    assert f"warning: cannot read {hidden.parent}: Permission denied" in result.stderr
    assert "NOT a definitive absence: 1 transcript(s) or dir(s) could not be read" \
        in result.stderr
    assert result.summary()["definitive_absence"] is False
    listed = cli("--claude-home", str(home), "list", "--format", "json")
    assert len(listed.json_rows("session")) == 1
    assert "cannot read" in listed.stderr


def test_a_uuid_target_beside_an_unreadable_dir_still_resolves(
        cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`@<uuid>` stat'ed the name in every project dir and died with a PermissionError
    traceback on the locked one."""
    home, _, hidden = _two_projects(tmp_path)
    _deny(monkeypatch, hidden.parent)
    result = cli("--claude-home", str(home), "show", f"@{SID}", "--line", "1")
    assert result.code == 0, result.stderr
    assert "an open session" in result.stdout
    assert "Traceback" not in result.stderr


def test_an_unreadable_projects_root_is_an_error_not_an_empty_scope(
        cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, _, _ = _two_projects(tmp_path)
    _deny(monkeypatch, home / "projects")
    result = cli("--claude-home", str(home), "search", "needle")
    assert result.code == 1
    assert result.stderr.splitlines() == [
        f"pysift: error: cannot read the projects dir {home / 'projects'}: Permission "
        "denied; check its permissions (and those of the dirs above it) or pass another "
        "--claude-home"]


def test_an_unreadable_transcript_is_one_warning_with_the_right_advice(
        cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, _, hidden = _two_projects(tmp_path)
    real_open = os.open

    def guarded(path, flags, *a, **kw):  # type: ignore[no-untyped-def]
        if os.fspath(path) == os.fspath(hidden):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_open(path, flags, *a, **kw)

    monkeypatch.setattr(os, "open", guarded)
    result = cli("--claude-home", str(home), "search", "locked needle")
    assert (f"warning: skipped: cannot read {hidden}: Permission denied; check its "
            "permissions") in result.stderr
    assert "NOT a definitive absence" in result.stderr
    shown = cli("--claude-home", str(home), "show", str(hidden), "--line", "1")
    assert shown.code == 1
    assert len(shown.stderr.splitlines()) == 1  # the cause no longer gets a line of its own
