"""The cleanup notice under ``list`` and ``stats``: sessions within 5 days of Claude Code's
cleanup (by file age, ``cleanupPeriodDays`` from the settings scopes) and not archived."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from builders import ClaudeHome, Session, assistant, text, user
from pysift.core.cleanup import cleanup_period

DAY = 86_400
DUE_IN_3 = "11111111-1111-4111-8111-111111111111"  # 27 days old: due in 3 days
DUE_IN_10 = "22222222-2222-4222-8222-222222222222"  # 20 days old: not yet
OVERDUE_2 = "33333333-3333-4333-8333-333333333333"  # 32 days old: due 2 days ago, still here
OVERDUE_40 = "44444444-4444-4444-8444-444444444444"  # 70 days old: a home nobody cleans
AGES = {DUE_IN_3: 27, DUE_IN_10: 20, OVERDUE_2: 32, OVERDUE_40: 70}


def _age(path: Path, days: float) -> None:
    when = time.time() - days * DAY
    os.utime(path, (when, when))


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ClaudeHome:
    monkeypatch.delenv("PYSIFT_CLEANUP_NOTICE_DAYS")  # the notice on, as users have it
    monkeypatch.chdir(tmp_path)
    h = ClaudeHome(tmp_path / "claude")
    for sid, days in AGES.items():
        s = Session(sid, cwd="/w")
        s.add(user(f"question of {sid[:8]}"))
        s.add(assistant(text("answer")))
        _age(h.session("/w", sid, s), days)
    return h


def _notice(result) -> list[str]:
    return [ln for ln in result.stdout.splitlines() if "of Claude Code's cleanup" in ln]


def test_list_and_stats_count_the_sessions_near_cleanup(cli, home):
    for command in ("list", "stats"):
        result = cli("--claude-home", str(home.root), command)
        assert result.code == 0, result.stderr
        assert _notice(result) == [
            "… 2 session(s) in scope are within 5 days of Claude Code's cleanup "
            "(cleanupPeriodDays 30, the default) and not archived: pysift --claude-home "
            f"{home.root} archive DEST (set PYSIFT_ARCHIVE to your archive dir and pysift "
            "tells archived sessions from the others)"], command
        summary = cli("--claude-home", str(home.root), command, "--format", "json").summary()
        assert summary["cleanup_notice"] == {
            "sessions": 2, "session_ids": [DUE_IN_3, OVERDUE_2], "cleanup_period_days": 30,
            "cleanup_period_source": None, "notice_days": 5, "archive": None,
            "command": f"pysift --claude-home {home.root} archive DEST"}


def test_no_session_near_cleanup_no_notice_and_no_key(cli, home):
    result = cli("--claude-home", str(home.root), "list", f"@{DUE_IN_10}")
    assert not _notice(result)
    summary = cli("--claude-home", str(home.root), "stats", f"@{OVERDUE_40}",
                  "--format", "json").summary()
    assert "cleanup_notice" not in summary


def test_the_settings_scopes_set_the_period_later_scopes_winning(cli, home, tmp_path):
    (home.root / "settings.json").write_text(json.dumps({"cleanupPeriodDays": 23}))
    summary = cli("--claude-home", str(home.root), "list", "--format", "json").summary()
    notice = summary["cleanup_notice"]
    assert notice["cleanup_period_days"] == 23
    assert notice["cleanup_period_source"] == str(home.root / "settings.json")
    assert notice["session_ids"] == [DUE_IN_3, DUE_IN_10]  # due in 3 days, due 4 days ago
    project = tmp_path / ".claude"
    project.mkdir()
    (project / "settings.json").write_text(json.dumps({"cleanupPeriodDays": 68}))
    (project / "settings.local.json").write_text(json.dumps({"cleanupPeriodDays": 72}))
    summary = cli("--claude-home", str(home.root), "list", "--format", "json").summary()
    assert summary["cleanup_notice"]["session_ids"] == [OVERDUE_40]  # due in 2 days
    assert summary["cleanup_notice"]["cleanup_period_days"] == 72


def test_a_bad_setting_is_said_and_passed_over(cli, home):
    (home.root / "settings.json").write_text('{"cleanupPeriodDays": 0}')
    result = cli("--claude-home", str(home.root), "stats")
    assert "cleanupPeriodDays 0 is not a whole number of days from 1 up; ignored" in \
        result.stderr
    assert "(cleanupPeriodDays 30, the default)" in _notice(result)[0]
    (home.root / "settings.json").write_text("{not json")
    result = cli("--claude-home", str(home.root), "list", f"@{DUE_IN_10}")
    assert "is not valid JSON; its cleanupPeriodDays is not read" in result.stderr


def test_archived_sessions_are_not_counted_until_they_grow(cli, home, tmp_path, monkeypatch):
    dest = tmp_path / "archive"
    assert cli("--claude-home", str(home.root), "archive", str(dest), f"@{DUE_IN_3}").code == 0
    monkeypatch.setenv("PYSIFT_ARCHIVE", str(dest))
    summary = cli("--claude-home", str(home.root), "list", "--format", "json").summary()
    assert summary["cleanup_notice"]["session_ids"] == [OVERDUE_2]
    assert summary["cleanup_notice"]["command"] == \
        f"pysift --claude-home {home.root} archive {dest}"
    path = home.projects / "-w" / f"{DUE_IN_3}.jsonl"
    with path.open("ab") as fh:
        fh.write(b"\n")
    _age(path, 27)
    summary = cli("--claude-home", str(home.root), "list", "--format", "json").summary()
    assert summary["cleanup_notice"]["session_ids"] == [DUE_IN_3, OVERDUE_2]


def test_an_archive_gets_no_notice(cli, home, tmp_path):
    dest = tmp_path / "archive"
    assert cli("--claude-home", str(home.root), "archive", str(dest)).code == 0
    result = cli("--claude-home", str(dest), "list", "--format", "json")
    assert "cleanup_notice" not in result.summary()


def test_the_notice_can_be_turned_off_or_widened(cli, home, monkeypatch):
    monkeypatch.setenv("PYSIFT_CLEANUP_NOTICE_DAYS", "0")
    assert not _notice(cli("--claude-home", str(home.root), "list"))
    monkeypatch.setenv("PYSIFT_CLEANUP_NOTICE_DAYS", "11")
    summary = cli("--claude-home", str(home.root), "list", "--format", "json").summary()
    assert summary["cleanup_notice"]["session_ids"] == [DUE_IN_3, DUE_IN_10, OVERDUE_2]
    monkeypatch.setenv("PYSIFT_CLEANUP_NOTICE_DAYS", "soon")
    result = cli("--claude-home", str(home.root), "list")
    assert "PYSIFT_CLEANUP_NOTICE_DAYS='soon' is not a number of days" in result.stderr


def test_the_default_home_is_not_named_in_the_command(cli, home, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home.root))
    summary = cli("list", "--format", "json").summary()
    assert summary["cleanup_notice"]["command"] == "pysift archive DEST"


def test_the_period_reads_user_then_project_then_local(tmp_path):
    home, root = tmp_path / "h", tmp_path / "p"
    (root / ".claude").mkdir(parents=True)
    home.mkdir()
    assert cleanup_period(home, root).days == 30
    (home / "settings.json").write_text('{"cleanupPeriodDays": 7}')
    assert cleanup_period(home, root).days == 7
    (root / ".claude" / "settings.local.json").write_text('{"cleanupPeriodDays": 9.0}')
    assert cleanup_period(home, root).days == 9
    (root / ".claude" / "settings.local.json").write_text('{"cleanupPeriodDays": true}')
    period = cleanup_period(home, root)
    assert period.days == 7 and "true is not a whole number" in period.notes[0].replace(
        "True", "true")


def test_the_notice_is_the_same_from_a_warm_cache(cli, home, tmp_path, monkeypatch):
    cold = {c: cli("--claude-home", str(home.root), c, "--format", "json").summary()
            for c in ("list", "stats")}
    monkeypatch.setenv("PYSIFT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PYSIFT_CACHE_SETTLE_MS", "0")
    for command in ("list", "stats"):
        for _ in ("fill", "warm"):
            summary = cli("--claude-home", str(home.root), command, "--format", "json"
                          ).summary()
            assert summary["cleanup_notice"] == cold[command]["cleanup_notice"], command
    assert any((tmp_path / "cache" / "pysift-cache-v1" / "list").iterdir())  # the warm run had entries to probe
def test_the_notice_reads_the_stat_the_listing_took(home, tmp_path, monkeypatch):
    """``near_cleanup`` takes the times a caller's own ``stat`` of each transcript gave this
    run (``list`` reads them off the files it opened or probed) and stats only the others;
    the notice is the one its own ``stat`` calls would have made."""
    from datetime import UTC, datetime

    from pysift.core import cleanup
    from pysift.core.cleanup import file_times, near_cleanup
    from pysift.disk.layout import Unreadable, iter_project_dirs, project_transcripts

    unread = Unreadable()
    found = [t for d in iter_project_dirs(home.projects, unread=unread)
             for t in project_transcripts(d, subagents=True, unread=unread)]
    environ = {"HOME": str(tmp_path)}
    now = datetime.now(UTC)
    plain = near_cleanup(found, home.root, environ, tmp_path, now)
    assert plain[0] is not None and sorted(plain[0].session_ids) == sorted([DUE_IN_3, OVERDUE_2])
    known = [file_times(t.path.stat()) for t in found]
    known[0] = None  # not taken by the caller: stat here
    stats: list[str] = []
    real = os.stat

    def counted(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        stats.append(os.fspath(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(cleanup.os, "stat", counted)
    given = near_cleanup(found, home.root, environ, tmp_path, now, known)
    assert given == plain
    assert [p for p in stats if p.endswith(".jsonl")] == [os.fspath(found[0].path)]
    # what the caller's stat said is what counts (a file aged since: still the run's view)
    young = [(time.time(), size, ns) for (_, size, ns) in
             (file_times(t.path.stat()) for t in found)]
    assert near_cleanup(found, home.root, environ, tmp_path, now, young)[0] is None
