"""``pysift archive DEST [TARGET…]``: keep the sessions in scope beyond Claude Code's
cleanup, in a copy of the home's own layout (SPEC §14)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from pathlib import Path
from typing import Any, TextIO

from pysift.commands.scope import ScopeArgs
from pysift.disk.layout import NOT_REGULAR
from pysift.engines.archive import (
    APPENDED,
    COPIED,
    FAILED,
    PRESERVED,
    SKIPPED,
    ArchiveRun,
    Outcome,
    Progress,
)
from pysift.model.env import Env
from pysift.model.fastdata import dataclass
from pysift.output.report import Report


@dataclass(frozen=True, kw_only=True)
class ArchiveOptions:
    # the scope's targets and --sessions-from (sessions come whole: subagents always)
    dest: str
    scope: ScopeArgs = field(default_factory=ScopeArgs)
    dry_run: bool = False
    lock_timeout: float = 120.0


def run(opts: ArchiveOptions, env: Env, progress: Progress | None = None,
        on_wait: Callable[[], None] | None = None) -> Report:
    from pysift.engines import archive as engine
    from pysift.errors import UsageError

    if not opts.dest.strip():
        raise UsageError("archive: DEST is empty; name the directory to archive into (it is "
                         "created when missing), e.g. `pysift archive ~/claude-archive`")
    scope = opts.scope.resolve(env)
    dest = _dest_path(opts.dest, env)
    said = {path for path, _ in scope.unreadable}  # warned and counted once, by the scope
    result = engine.run(scope.transcripts, env,
                        engine.ArchiveOptions(dest=dest, dry_run=opts.dry_run,
                                              lock_timeout=opts.lock_timeout),
                        progress=progress, on_wait=on_wait, said=said)
    report = Report(command="archive")
    report.take_scope(scope)  # the summary's `unreadable`: the scope's, the walk's, the copy's
    report.unreadable += result.unread
    report.notes.extend(result.notes)
    changed = 0  # failed rows a run can retry (vanished, shrank, changed while read)
    # what is no regular file (a FIFO): counted as unreadable, but no permission or run fixes it
    irregular = {path for path, reason in scope.unreadable if reason == NOT_REGULAR}
    for o in result.outcomes:
        if o.action != FAILED:
            continue
        warning = f"warning: not archived: {o.entry.source}: {o.reason}"
        if o.irregular:
            irregular.add(o.entry.source)
        if not o.unreadable:
            changed += 1
            report.note(warning)
        elif o.entry.source not in said:  # a source its permissions keep from pysift
            report.unread(warning)
    answer = ArchiveAnswer(result, dest, _home(env), unread=report.unreadable)
    report.header = answer.header()
    report.rows = [file_row(o) for o in result.outcomes]
    report.answer(answer)
    if result.stopped is not None:
        report.note(f"error: {result.stopped}")
        report.exit_code = 1
    elif changed or answer.unread:
        report.note(f"error: {_incomplete(changed, answer.unread, len(irregular))}")
        report.exit_code = 1
    return report


def _incomplete(changed: int, unread: int, irregular: int = 0) -> str:
    """The run's last line when it went on past what it could not archive: a file that
    changed while read clears by running again, what cannot be read by its permissions,
    and a file that is no regular file (a FIFO; ``irregular`` of the ``unread``) by
    neither: it has no bytes to copy."""
    if irregular:
        parts = [f"{irregular} file(s) of the Claude home are not regular files (a FIFO, a "
                 "socket or a device; each named above): they have no bytes to copy, and "
                 "running again does not change that"]
        if unread > irregular:
            parts.append(f"{unread - irregular} dir(s) or file(s) could not be read: what "
                         "they hold is not archived; fix their permissions and run again")
        if changed:
            parts.append(f"{changed} file(s) changed while read: run again to retry them")
        return "; ".join(parts) + " (what the archive holds is whole)"
    if not unread:
        return (f"{changed} file(s) could not be archived (each named above); what the "
                "archive holds of them is whole: run again to retry")
    if not changed:
        return (f"{unread} dir(s) or file(s) of the Claude home could not be read (each named "
                "above): what they hold is not archived; fix their permissions and run again")
    return (f"{changed} file(s) changed while read and {unread} dir(s) or file(s) of the "
            "Claude home could not be read (each named above): what they hold is not "
            "archived (what the archive holds is whole); fix their permissions and run again")


def _dest_path(text: str, env: Env) -> Path:
    from pysift.disk.home import user_named_path

    return user_named_path(text, env.cwd, env.environ)


def _home(env: Env) -> Path:
    home = env.claude_home
    return home if home.is_absolute() else env.cwd / home


@dataclass(frozen=True)
class ArchiveAnswer:
    """What the header, the rows' footer and the summary all state."""

    run: ArchiveRun
    dest: Path
    home: Path
    unread: int = 0  # dirs and files of the home the scope, the walk or a copy could not read

    @property
    def failed(self) -> int:
        return self.run.count(FAILED)

    def header(self) -> dict[str, Any]:
        return {"dest": str(self.dest), "claude_home": str(self.home),
                "sessions_in_scope": self.run.sessions, "files_in_scope": self.run.in_scope,
                "dry_run": self.run.dry_run}

    def summary(self) -> dict[str, Any]:
        return {
            "files": len(self.run.outcomes),
            "sessions": self.run.sessions,
            "copied": self.run.count(COPIED),
            "appended": self.run.count(APPENDED),
            "skipped": self.run.count(SKIPPED),
            "preserved": self.run.count(PRESERVED),
            "failed": self.failed,
            "bytes_written": self.run.written,
            "complete": self.run.stopped is None and not self.failed and not self.unread,
            "dry_run": self.run.dry_run,
        }

    def render_text(self, out: TextIO) -> None:
        w = out.write
        verbs = _DRY if self.run.dry_run else _DONE
        for o in self.run.outcomes:
            if o.action == SKIPPED:
                continue
            w(f"{verbs[o.action]:<10} {o.entry.rel}{_detail(o)}\n")
        r = self.run
        counts = ", ".join(f"{r.count(a)} {verbs[a]}" for a in (COPIED, APPENDED, PRESERVED))
        lead = "would archive" if r.dry_run else "archived"
        w(f"{lead} {r.sessions} session(s), {len(r.outcomes)} file(s), into {self.dest}: "
          f"{counts}, {r.count(SKIPPED)} unchanged"
          f"{f', {self.failed} failed' if self.failed else ''}; "
          f"{_size(r.written)} {'to write' if r.dry_run else 'written'}\n")


_DONE = {COPIED: "copied", APPENDED: "appended", PRESERVED: "preserved", FAILED: "failed",
         SKIPPED: "unchanged"}
_DRY = {COPIED: "to copy", APPENDED: "to append", PRESERVED: "to preserve", FAILED: "failed",
        SKIPPED: "unchanged"}


def _detail(o: Outcome) -> str:
    if o.action == FAILED:
        return f"  ({o.reason})"
    size = f"  ({_size(o.written)})"
    if o.action == PRESERVED and o.preserved_as is not None:
        return f"{size}; the old copy kept as {o.preserved_as.rsplit('/', 1)[-1]}"
    return size


def _size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{n} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{n} B"  # pragma: no cover


def file_row(o: Outcome) -> dict[str, Any]:
    return {
        "kind": "file",
        "path": o.entry.rel,
        "source": str(o.entry.source),
        "session_id": o.entry.session_id,
        "action": o.action,
        "bytes_written": o.written,
        "preserved_as": o.preserved_as,
        "error": o.reason,
    }
