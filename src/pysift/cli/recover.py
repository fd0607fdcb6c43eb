"""``pysift recover``: parse the flags, run commands.recover, emit.

No typer at import: ``execute`` is what ``cli.fastpath`` runs; ``declare`` puts the command
on the typer tree (``cli.app.register``).
"""


import re
import sys
from typing import TYPE_CHECKING, Any

from pysift.cli.emit import emit, say
from pysift.cli.options import RootContext, bad_parameter, check_format, scope_args

if TYPE_CHECKING:  # loaded by declare, the typer side, only
    import typer

RECOVER_HELP = """Rebuild a file's content from the transcripts: byte for byte where the
sessions saw all of it, and saying exactly where they did not.

The replay, in transcript order: a full Read, a Write (and a full `file` attachment) is
the whole file; a windowed Read adds its lines and leaves the rest unknown (never
padded); an Edit or MultiEdit that did not error is applied at the position Claude Code
recorded (structuredPatch), else by string replacement. An edit whose old text falls in
unknown lines, or whose context disagrees, is an un-anchorable hole: counted, its lines
become unknown, never guessed.

Integrity boundaries, where the file changed outside the Read/Write/Edit stream: HARD
(the known lines are dropped, only what is re-read or re-written after counts):
modified-since-read, Claude Code's modified-file hint, an edited_text_file attachment, a
file-history version jump no tool write explains, a Read showing what the replay did not
have. Soft: an Edit whose originalFile
disagrees with the replay (the replay continues from that originalFile), a stale-recovered
edit, a bash command that touched the file. fragments = hard + 1. Commands whose files are
not in their text (formatters, interpreters, package managers, PowerShell, a formatter
run by a hook) are counted per window, with a ready-to-run search to inspect it.

Modes (one at a time): restore (the default: the whole final file, raw, on stdout or to
--out; an error naming the missing lines when the sessions did not see all of it),
--salvage (the final state's known lines, numbered, gaps explicit), --patches (one
full-context unified diff per segment between boundaries), --at WHEN (the state at a
point: an ISO time, an age like 2h, @turn:N, @line:N = after jsonl line N, @latest),
--coverage (alias --dry-run: what is recoverable, the boundaries, the window),
--list-backups (Claude Code's own checkpoints of the file in <home>/file-history, by
backup time: a listing, never merged into a recovery; an empty list proves nothing).

--file takes an absolute path (matched exactly), a path suffix such as src/app.py
(matched at a path boundary; two different files is an error), ./ or ../ paths (from
here), or @plan (the plan file bound to the target session). No target = every
session. Batch: --files-from MANIFEST (absolute paths, one per line) --out-dir DIR
rebuilds them all in one pass, mirrored under DIR, with recovery-report.tsv; a partial
file is written as <name>.partial (numbered, gaps explicit), never as the file."""

RECOVER_EPILOG = """\b
EXAMPLES
  pysift recover @3f6c1e2a --file /home/ada/src/orbit/src/orbit/tle.py > tle.py
  pysift recover @3f6c1e2a --file orbit/tle.py --out /tmp/tle.py
  pysift recover . --file /home/ada/src/orbit/src/orbit/tle.py --coverage
  pysift recover @3f6c1e2a --file tle.py --salvage
  pysift recover @3f6c1e2a --file tle.py --patches --since 2026-10-05T08:44
  pysift recover @3f6c1e2a --file tle.py --at @turn:4
  pysift recover @3f6c1e2a --file @plan --out /tmp/plan.md
  pysift recover --files-from lost.txt --out-dir /tmp/restore
  pysift recover --file /home/ada/src/orbit/src/orbit/tle.py --list-backups

\b
JSON (--format json, one object per line; header first, summary last, always)
  {"kind":"header","command":"recover","sessions_in_scope","top_level_sessions",
   "subagent_sessions"}
  restore: {"kind":"restore","file","complete":true,"lines","boundaries":[B],
   "bash_events","opaque_commands","powershell_commands","suggested_search",
   "content" | "path","wrote"}   (content holds the raw bytes, newlines included)
   on error: {"kind":"restore","file","complete":false,"reason":"partial",
   "lines","total_lines",...} or {"reason":"no-history"|"invalidated"}, exit 1
   summary {"sessions","file","mode":"restore"}
  --coverage: {"kind":"coverage","session_id","is_subagent","parent_session_id",
   "file","recoverable_lines","seen_total_lines","covered_ranges":[[a,b]],
   "fragments","hard_boundaries","soft_boundaries","events":{...},"boundaries":[B],
   "opaque_commands","powershell_commands","suggested_search"}
  --patches: {"kind":"segment",trio,"segment_index","line","line_start","line_end",
   "turn_start","turn_end","ts_utc","ts_local","pre_state_known","anchor_source",
   "unified_diff"} and {"kind":"boundary",trio,...B}
  --at / --salvage: {"kind":"snapshot",trio,"file","line","lines":[{"n","text",
   "set_at_line"}],"gaps":[[a,b]],"seen_total_lines","boundaries":[B],
   "opaque_commands","powershell_commands","suggested_search"}
   summary {"sessions","file","mode","skipped_lines"}
  B = {"line","source_session_id","source_line","turn_index","ts_utc","ts_local",
   "cause","confidence":"authoritative"|"heuristic","detail"}
  batch: {"kind":"file","file","status","known_lines","total_lines","boundaries",
   "bash_file","bash_opaque","written_to"}; summary {"mode":"batch","files",
   "complete","partial","invalidated","no_history","skipped","flagged","report",
   "skipped_lines"}
  --list-backups: header {"kind":"header","command":"recover","mode":"list-backups",
   "file","hash","store","store_present"}; {"kind":"backup","session_id","version",
   "path","bytes","backup_utc","backup_local"}; summary {"backups","sessions"}
  every summary also holds "unreadable": N, the files and dirs that exist but could
   not be read (each named in a stderr warning)

\b
NOTES
  Line numbers: `line` is the jsonl line (in a session whose subagents also touched
  the file, the position in the merged stream; source_line is then the real line).
  File lines (n, covered_ranges, gaps) are numbered as cat -n numbers them.
  restore says on stderr whether the window was clean, or lists what was not replayed."""

_SIGIL = re.compile(r"@(line|turn):(.*)")


def _parse_at(value: str, env: Any) -> Any:
    from pysift.core.grammar.when import parse_when
    from pysift.engines.recover.history import LATEST, At

    text = value.strip()
    if text == "@latest":
        return LATEST
    m = _SIGIL.fullmatch(text)
    if m:
        kind, number = m.group(1), m.group(2).strip()
        if not (number.isascii() and number.isdigit()):
            raise bad_parameter(f"@{kind}:N needs a whole number, got {number!r}",
                                     param_hint="--at")
        return At(kind, int(number), text=text)
    if text.startswith("@"):
        raise bad_parameter(f"{value!r} is no --at form: write @latest, @line:N, @turn:N, "
                                 f"an ISO time or an age such as 2h", param_hint="--at")
    return At("time", instant=parse_when(text, env.now(), env.tz, flag="--at"), text=text)


def execute(ctx: RootContext, targets: list[str] | None, file: str | None, salvage: bool,
            patches: bool, at: str | None, coverage: bool, list_backups: bool, turn: str | None,
            since: str | None, until: str | None, file_lines: str | None, out: str | None,
            files_from: str | None, out_dir: str | None, force: bool, subagents: bool,
            sessions_from: list[str] | None, fmt: str) -> None:
    """The command once its options are read (by typer, or by ``cli.fastpath``)."""
    check_format(fmt)
    modes = [name for name, on in (("--salvage", salvage), ("--patches", patches),
                                   ("--at", at is not None), ("--coverage", coverage),
                                   ("--list-backups", list_backups)) if on]
    if len(modes) > 1:
        raise bad_parameter(f"{' and '.join(modes)} are different modes; pick one "
                                 f"(restore is the default)", param_hint="mode")
    scope, env = scope_args(ctx, targets=targets, subagents=subagents,
                            sessions_from=sessions_from, fmt=fmt, since=since, until=until,
                            turn=turn)
    from pysift.commands.recover import RecoverOptions, run
    from pysift.core.grammar.ranges import parse_range

    mode = {"--salvage": "salvage", "--patches": "patches", "--at": "at",
            "--coverage": "coverage", "--list-backups": "list-backups"}[modes[0]] \
        if modes else "restore"
    progress = None
    if files_from is not None and sys.stderr.isatty():
        def progress(text: str) -> None:
            say(f"pysift: {text}")
    opts = RecoverOptions(
        scope=scope,
        file=file,
        files_from=files_from,
        out=out,
        out_dir=out_dir,
        force=force,
        mode=mode,
        at=_parse_at(at, env) if at is not None else None,
        file_lines=parse_range(file_lines, flag="--file-lines") if file_lines is not None
        else None,
        progress=progress,
    )
    emit(run(opts, env), fmt)


def declare(app: "typer.Typer") -> None:
    """Register the command on the typer tree (typer is loaded here, not at import)."""
    from typing import Annotated, Optional

    import typer

    from pysift.cli.params import Format, SessionsFrom, Subagents, Targets

    @app.command("recover", help=RECOVER_HELP, epilog=RECOVER_EPILOG)
    def recover_cmd(
        ctx: typer.Context,
        targets: Targets = None,
        file: Annotated[Optional[str], typer.Option("--file", metavar="PATH|@plan",
            help="The file to rebuild: an absolute path, a path suffix, ./path, or @plan.")] = None,
        salvage: Annotated[bool, typer.Option("--salvage",
            help="The final state's known lines, numbered, gaps explicit (never fails).")] = False,
        patches: Annotated[bool, typer.Option("--patches",
            help="Full-context unified diffs, one per segment between boundaries.")] = False,
        at: Annotated[Optional[str], typer.Option("--at", metavar="WHEN",
            help="The state at a point: ISO time, age (2h), @turn:N, @line:N, @latest.")] = None,
        coverage: Annotated[bool, typer.Option("--coverage", "--dry-run",
            help="What is recoverable: covered ranges, boundaries, the window.")] = False,
        list_backups: Annotated[bool, typer.Option("--list-backups",
            help="List Claude Code's own file-history checkpoints of --file (never merged "
                 "into a recovery).")] = False,
        turn: Annotated[Optional[str], typer.Option("--turn", metavar="RANGE",
            help="Replay only the events of these turns: N, A..B, N.., ..N, -k.")] = None,
        since: Annotated[Optional[str], typer.Option("--since", metavar="WHEN",
            help="Replay only events at or after WHEN (a tool call's event is timed "
                 "when the call was made, as files and search time it).")] = None,
        until: Annotated[Optional[str], typer.Option("--until", metavar="WHEN",
            help="Replay only events at or before WHEN (timed by the call, as "
                 "--since).")] = None,
        file_lines: Annotated[Optional[str], typer.Option("--file-lines", metavar="RANGE",
            help="Only these lines of the file (1-based): N, A..B, N.., ..N, -k.")] = None,
        out: Annotated[Optional[str], typer.Option("--out", metavar="PATH",
            help="Write the rebuilt file (or the snapshot / patches) here; never over an "
                 "existing file without --force.")] = None,
        files_from: Annotated[Optional[str], typer.Option("--files-from", metavar="MANIFEST",
            help="Batch: rebuild every absolute path listed (one per line).")] = None,
        out_dir: Annotated[Optional[str], typer.Option("--out-dir", metavar="DIR",
            help="Batch: where the rebuilt files are mirrored, with recovery-report.tsv.")] = None,
        force: Annotated[bool, typer.Option("--force",
            help="Replace an existing --out file or batch output.")] = False,
        subagents: Subagents = True,
        sessions_from: SessionsFrom = None,
        fmt: Format = "text",
    ) -> None:
        execute(ctx, targets, file, salvage, patches, at, coverage, list_backups, turn,
                since, until, file_lines, out, files_from, out_dir, force, subagents,
                sessions_from, fmt)
