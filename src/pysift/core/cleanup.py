"""Claude Code's cleanup horizon: which sessions in scope it is about to delete, and
whether the user's archive already holds them (the ``list``/``stats`` notice, SPEC §14).

Claude Code deletes, at its start, every transcript whose file modification time is older
than ``cleanupPeriodDays`` (default 30). So a transcript is due at ``mtime + period``.
A session is NEAR its cleanup when that date lies within ``NOTICE_DAYS`` of now, on
either side: due in the coming days, or due in the last few days and still on disk
because Claude Code has not started since (it goes at the next start). A transcript past
due by more than that lives in a home Claude Code is not cleaning (a copy, a backup, an
archive, a fixture) and is not counted: the notice would otherwise stand under every old
session of such a home.

"Archived" is read off the archive the user names in ``$PYSIFT_ARCHIVE`` (the DEST of
``pysift archive``): a transcript is archived when its copy there has its size and
modification time, the test ``archive`` itself skips by. pysift writes nothing to know.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from pysift.core.settings import read_scopes, settings_files
from pysift.disk.home import ARCHIVE_MANIFEST, user_home
from pysift.disk.layout import Transcript, expand_user, resolve_home
from pysift.model.fastdata import dataclass

SETTINGS_KEY = "cleanupPeriodDays"
DEFAULT_PERIOD_DAYS = 30
NOTICE_DAYS = 5
ARCHIVE_VAR = "PYSIFT_ARCHIVE"
NOTICE_VAR = "PYSIFT_CLEANUP_NOTICE_DAYS"
DAY = 86_400.0


@dataclass(frozen=True)
class Period:
    days: int
    source: Path | None  # the settings file that set it; None = Claude Code's default
    notes: tuple[str, ...] = ()

    def describe(self) -> str:
        where = f"from {self.source}" if self.source is not None else "the default"
        return f"cleanupPeriodDays {self.days}, {where}"


def cleanup_period(claude_home: Path, project_root: Path | None) -> Period:
    """``cleanupPeriodDays`` as Claude Code started in ``project_root`` reads it: user,
    project, local scopes, the later winning; a value that is not a whole number of days
    from 1 up is said and passed over."""
    days, source = DEFAULT_PERIOD_DAYS, None
    notes: list[str] = []
    root = os.fspath(project_root) if project_root is not None else None
    for scope in read_scopes(settings_files(claude_home, root)):
        if scope.problem is not None:
            notes.append(f"note: {scope.problem}; its {SETTINGS_KEY} is not read (the "
                         "cleanup notice falls back past it)")
            continue
        value = scope.values.get(SETTINGS_KEY)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 1 \
                or value != int(value):
            notes.append(f"note: {scope.path}: {SETTINGS_KEY} {value!r} is not a whole number "
                         "of days from 1 up; ignored")
            continue
        days, source = int(value), scope.path
    return Period(days, source, tuple(notes))


def notice_days(environ: Mapping[str, str]) -> tuple[float, str | None]:
    """The notice window from ``$PYSIFT_CLEANUP_NOTICE_DAYS`` (0 turns it off), and a
    note when the value is not a number of days."""
    raw = environ.get(NOTICE_VAR, "").strip()
    if not raw:
        return NOTICE_DAYS, None
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        return NOTICE_DAYS, (f"note: {NOTICE_VAR}={raw!r} is not a number of days (0 turns "
                             f"the cleanup notice off); using {NOTICE_DAYS}")
    return value, None


@dataclass
class Notice:
    """The sessions in scope near Claude Code's cleanup and not archived."""

    session_ids: list[str]
    period: Period
    window_days: float
    archive: Path | None
    command: str

    def summary(self) -> dict[str, Any]:
        return {
            "sessions": len(self.session_ids),
            "session_ids": self.session_ids,
            "cleanup_period_days": self.period.days,
            "cleanup_period_source": str(self.period.source) if self.period.source else None,
            "notice_days": int(self.window_days) if self.window_days == int(self.window_days)
            else self.window_days,
            "archive": str(self.archive) if self.archive is not None else None,
            "command": self.command,
        }

    def line(self) -> str:
        n = len(self.session_ids)
        window = f"{self.window_days:g}"
        hint = "" if self.archive is not None else (
            f" (set {ARCHIVE_VAR} to your archive dir and pysift tells archived sessions "
            "from the others)")
        return (f"… {n} session(s) in scope are within {window} days of Claude Code's cleanup "
                f"({self.period.describe()}) and not archived: {self.command}{hint}")


def _archive_dir(environ: Mapping[str, str], cwd: Path) -> Path | None:
    raw = environ.get(ARCHIVE_VAR, "")
    if not raw.strip():
        return None
    path = expand_user(raw, user_home(environ))
    return path if path.is_absolute() else cwd / path


def _archived(path: Path, size: int, mtime_ns: int, home: Path, archive: Path | None) -> bool:
    if archive is None:
        return False
    try:
        copy = os.stat(archive / path.relative_to(home))
    except (ValueError, OSError):
        return False
    return copy.st_size == size and copy.st_mtime_ns == mtime_ns


FileTimes = tuple[float, int, int]
"""What the notice reads of a transcript's ``stat``: ``(st_mtime, st_size, st_mtime_ns)``."""


def file_times(st: os.stat_result) -> FileTimes:
    return st.st_mtime, st.st_size, st.st_mtime_ns


def near_cleanup(transcripts: Iterable[Transcript], claude_home: Path,
                 environ: Mapping[str, str], cwd: Path, now: datetime,
                 known: Sequence[FileTimes | None] | None = None
                 ) -> tuple[Notice | None, list[str]]:
    """The notice for these transcripts (None when no session needs one, the home is
    itself an archive, or the notice is off), and the notes on what could not be read of
    the settings (said whether or not a notice stands: they decide it). One ``stat`` per
    transcript, unless ``known`` (in the order of ``transcripts``) holds what the caller's
    own ``stat`` of it said this run (``file_times``; None: stat it here)."""
    window, bad_window = notice_days(environ)
    notes = [bad_window] if bad_window else []
    if window == 0:
        return None, notes
    home = claude_home if claude_home.is_absolute() else cwd / claude_home
    if (home / ARCHIVE_MANIFEST).is_file():
        return None, notes  # Claude Code never cleans an archive
    period: Period | None = None
    archive = _archive_dir(environ, cwd)
    at = now.timestamp()
    near: dict[tuple[Path, str], None] = {}
    keep = lead = 0.0
    # the time test first, the session's key only for a transcript near its cleanup: most
    # are not, and the key (a path's hash) cost most of this loop, serial after a
    # listing's pool (~2 ms over corpus B's 2,428 transcripts)
    for k, t in enumerate(transcripts):
        times = known[k] if known is not None else None
        if times is None:
            if (t.project_dir, t.parent_session_id) in near:
                continue  # (no stat for a session found near already)
            try:
                times = file_times(os.stat(t.path))
            except OSError:
                continue
        mtime, size, mtime_ns = times
        if period is None:
            period = cleanup_period(home, cwd)
            keep, lead = period.days * DAY, window * DAY
        if abs(mtime + keep - at) > lead:
            continue
        key = (t.project_dir, t.parent_session_id)
        if key in near or _archived(t.path, size, mtime_ns, home, archive):
            continue
        near[key] = None
    if period is not None:
        notes = list(period.notes) + notes
    if not near or period is None:
        return None, notes
    return Notice([session for _, session in near], period, window, archive,
                  _command(home, environ, archive)), notes


def _command(home: Path, environ: Mapping[str, str], archive: Path | None) -> str:
    """``pysift [--claude-home H] archive DEST``: the home is named when it is not the one
    pysift finds by itself ($CLAUDE_CONFIG_DIR, else ~/.claude)."""
    words = ["pysift"]
    default = resolve_home(None, environ, user_home(environ))
    if os.path.normpath(default) != os.path.normpath(home):
        words += ["--claude-home", shlex.quote(os.fspath(home))]
    words += ["archive", shlex.quote(os.fspath(archive)) if archive is not None else "DEST"]
    return " ".join(words)
