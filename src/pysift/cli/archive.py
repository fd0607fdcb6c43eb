"""``pysift archive``: parse the flags, run commands.archive (with a progress bar when
stderr is a terminal), emit."""


import sys
from typing import Annotated

import typer

from pysift.cli.app import app
from pysift.cli.emit import emit, say
from pysift.cli.options import scope_args
from pysift.cli.params import Format, SessionsFrom, Targets

ARCHIVE_HELP = """Keep sessions beyond Claude Code's cleanup: mirror the sessions in scope into
DEST with the Claude home's own layout, so `pysift --claude-home DEST <command>` answers
over the archive exactly as over the live home.

A session comes whole (whichever of its transcripts a target names): its transcript, its
<uuid>/ dir (subagents and their .meta.json, workflow manifests and journals, the
elicitation sidecar, persisted tool outputs), the old-layout agent files naming it, its
file-history/<uuid>/ checkpoints (recover --list-backups), and the plan files bound to it
(under DEST/plans/). No target means every session of the home. Copies keep their
sources' permission bits; the dirs archive makes are 0700.

Incremental and append-aware: a file whose archived copy has its size and modification
time is skipped; a grown file gets only its new bytes, once the archived bytes are
verified equal to the same range of the source; a file whose archived bytes are no longer
its prefix (rewritten, shrunk) keeps the old copy beside the new one as
<name>.preserved-<UTC stamp>. pysift never deletes or truncates anything in DEST, and
reads the Claude home only.

Crash-safe: a new copy is written to a partial file and renamed into place, an append
extends a verified prefix line by line; a run stopped anywhere (Ctrl-C, a kill, a full
disk) leaves every archived file whole, and the next run completes it. A lock in
DEST/.pysift/ makes a second run into the same DEST wait (--lock-timeout), never
interleave. DEST is created when missing (its parent must exist); a DEST inside the
Claude home, or holding it, is refused.

Set PYSIFT_ARCHIVE to DEST and list/stats tell archived sessions from those Claude Code
is about to delete."""

ARCHIVE_EPILOG = """\b
EXAMPLES
  pysift archive ~/claude-archive                    # every session of the home
  pysift archive ~/claude-archive .                  # this project's sessions
  pysift archive ~/claude-archive @3f6c1e2a          # one session, whole
  pysift archive ~/claude-archive --dry-run          # what a run would write
  pysift --claude-home ~/claude-archive search 'deadline' -c    # search the archive
  pysift search kestrel -l | pysift archive ~/claude-archive --sessions-from -
  pysift archive ~/claude-archive --format json | jq -r 'select(.action=="copied").path'

\b
JSON (--format json, one object per line)
  {"kind":"header","command":"archive","dest","claude_home","sessions_in_scope",
   "files_in_scope","dry_run"}
  {"kind":"file","path" (under DEST),"source","session_id",
   "action":"copied|appended|skipped|preserved|failed","bytes_written",
   "preserved_as" (the old copy's dated path, or null),"error" (why it failed, or null)}
  {"kind":"summary","files","sessions","copied","appended","skipped","preserved",
   "failed","bytes_written","complete","dry_run"}
  every summary also holds "unreadable": N, the files and dirs that exist but could
   not be read (each named in a stderr warning)
  With --dry-run nothing is written: "action" and "bytes_written" say what a run would do.

\b
EXIT
  0 every file in scope archived (or unchanged; a bound plan file that does not exist is
  a note); 1 a file could not be archived (it vanished, changed, could not be read, or
  is no regular file, a FIFO: named on stderr; the rest is archived), the disk filled,
  DEST cannot be written, or another archive holds the lock past --lock-timeout; 2 a
  usage error (DEST is a file, inside the Claude home, holds it, or its parent is
  missing)."""


@app.command("archive", help=ARCHIVE_HELP, epilog=ARCHIVE_EPILOG)
def archive_cmd(
    ctx: typer.Context,
    dest: Annotated[str, typer.Argument(metavar="DEST", show_default=False,
                                        help="The archive directory (created when missing).")],
    targets: Targets = None,
    sessions_from: SessionsFrom = None,
    dry_run: Annotated[bool, typer.Option("--dry-run",
        help="Say what a run would copy, append and preserve; write nothing.")] = False,
    lock_timeout: Annotated[float, typer.Option("--lock-timeout", metavar="SECONDS",
        help="Wait this long for another archive into DEST to finish (0 = refuse at once).")
        ] = 120.0,
    fmt: Format = "text",
) -> None:
    if not lock_timeout >= 0:
        raise typer.BadParameter("must be 0 (refuse at once) or a number of seconds",
                                 param_hint="--lock-timeout")
    scope, env = scope_args(ctx, targets=targets, sessions_from=sessions_from, fmt=fmt)
    from pysift.commands.archive import ArchiveOptions, run

    opts = ArchiveOptions(dest=dest, scope=scope, dry_run=dry_run, lock_timeout=lock_timeout)
    bar = None
    if not dry_run and sys.stderr.isatty():
        from pysift.output.progress import ByteBar

        bar = ByteBar("archiving")
    try:
        report = run(opts, env, progress=bar, on_wait=lambda: say(
            f"pysift: note: another pysift archive is writing into {dest}; waiting up to "
            f"{lock_timeout:g} s for it to finish"))
    finally:
        if bar is not None:
            bar.stop()
    emit(report, fmt)
