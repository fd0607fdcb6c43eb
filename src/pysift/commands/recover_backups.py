"""``pysift recover --file F --list-backups``: Claude Code's own checkpoints of a file.

A listing, never a reconstruction: the store is pruned, holds tool-layer writes only,
and nothing in a transcript anchors a checkpoint's bytes to a moment of the replay
(``engines.recover.backups``). The file is keyed by its absolute path, so a path suffix or
``@plan`` is first resolved to the one absolute file the scope's transcripts name.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, TextIO

from pysift.core.timez import text_ts, ts_pair
from pysift.engines.recover.backups import Backup, StoreListing, list_backups
from pysift.errors import UsageError
from pysift.model.env import Env
from pysift.model.fastdata import dataclass
from pysift.output.report import Report

PROVENANCE = ("(Claude Code's own checkpoint store: tool-layer writes only, pruned wholesale, "
              "@vN restarts in every session so the backup time orders them; listed only, "
              "never merged into a recovery)")
NOTHING_PROVEN = "an absence proves nothing: Claude Code prunes the store wholesale"


def run(opts: Any, env: Env) -> Report:
    """``opts`` is the recover command's ``RecoverOptions`` (its --file and scope)."""
    from pysift.commands.recover import _file_value  # the one --file reading recover has

    if opts.files_from is not None or opts.out_dir is not None:
        raise UsageError("--list-backups lists one file's checkpoints; it takes --file, not "
                         "--files-from/--out-dir")
    if opts.out is not None:
        raise UsageError("--list-backups writes nothing; drop --out (use recover without "
                         "--list-backups to rebuild the file)")
    if opts.file is None or not opts.file.strip():
        raise UsageError("--list-backups needs --file PATH (an absolute path, a path suffix "
                         "such as src/app.py, or @plan)")
    report = Report(command="recover")
    scoped = bool(opts.scope.targets) or opts.scope.sessions_from is not None
    needs_scope = scoped or opts.file == "@plan" or not _absolute(opts.file, env)
    scope = opts.scope.resolve(env) if needs_scope else None
    if scope is not None:
        report.take_scope(scope)
    file_value = _file_value(opts.file, scope, env, report)
    absolute = _absolute_of(file_value, scope, opts.file)
    sessions = {t.parent_session_id for t in scope.transcripts} if scoped and scope else None
    listing = list_backups(env.claude_home, absolute, sessions)
    for path, reason in listing.unreadable:
        report.unread(f"warning: cannot read {path} ({reason}): its backups are not listed")
    if listing.unreadable:
        report.exit_code = 1
    report.header = {"mode": "list-backups", "file": absolute, "hash": listing.key,
                     "store": listing.store, "store_present": listing.present}
    report.rows = [_row(b, env) for b in listing.backups]
    report.answer(BackupsResult(absolute, listing, env.tz))
    return report


def _absolute(value: str, env: Env) -> bool:
    from pysift.engines.recover.target import is_absolute

    if value.startswith(("./", "../")) or value in (".", ".."):
        return True
    if value.startswith("~/"):
        return bool(env.environ.get("HOME"))
    return is_absolute(value)


def _absolute_of(value: str, scope: Any, given: str) -> str:
    """``value`` when absolute; else the one absolute file the scope's transcripts name
    with that suffix."""
    from pysift.commands.recover import _check_ambiguous
    from pysift.engines.recover.history import Window
    from pysift.engines.recover.run import run as scan_scope
    from pysift.engines.recover.target import Target, is_absolute

    if is_absolute(value):
        return value
    target = Target.of(value)
    history = scan_scope(scope.transcripts, [target], Window(), merge=True).files[0]
    _check_ambiguous(history)
    names = [n for n in history.identities if is_absolute(n)]
    if not names:
        raise UsageError(f"--file {given}: no transcript in scope names a file ending in "
                         f"{value}; --list-backups needs its absolute path (the store is keyed "
                         f"by it)")
    return names[0]


def _utc(mtime_ns: int) -> str:
    moment = datetime.fromtimestamp(mtime_ns / 1e9, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _row(backup: Backup, env: Env) -> dict[str, Any]:
    return {"kind": "backup", "session_id": backup.session_id, "version": backup.version,
            "path": backup.path, "bytes": backup.bytes,
            **ts_pair("backup", _utc(backup.mtime_ns), env.tz)}


@dataclass
class BackupsResult:
    file: str
    listing: StoreListing
    tz: Any

    def summary(self) -> dict[str, Any]:
        return {"backups": len(self.listing.backups), "sessions": self.listing.sessions}

    def render_text(self, out: TextIO) -> None:
        listing = self.listing
        out.write(f"BACKUPS  {self.file}\n")
        out.write(f"  store  {listing.store}  ·  key {listing.key}@vN (sha256 of the absolute "
                  f"path, first 16 hex digits)\n")
        if not listing.present:
            out.write(f"\nno file-history store at {listing.store} ({NOTHING_PROVEN})\n")
            return
        if not listing.backups:
            out.write(f"\nno backup of this file in the store ({NOTHING_PROVEN})\n")
            return
        for b in listing.backups:
            ts = text_ts(_utc(b.mtime_ns), self.tz)
            out.write(f"  {ts}  {b.bytes:>9} B  @{b.version}  {b.path}\n")
        n, s = len(listing.backups), listing.sessions
        out.write(f"\n{n} backup(s) in {s} session(s)\n{PROVENANCE}\n")
