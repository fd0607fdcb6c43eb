"""``pysift files``: parse the flags, run commands.files, emit.

No typer at import: ``execute`` is what ``cli.fastpath`` runs; ``declare`` puts the command
on the typer tree (``cli.app.register``).
"""


from typing import TYPE_CHECKING

from pysift.cli.emit import emit
from pysift.cli.options import RootContext, bad_parameter, one_of, scope_args

if TYPE_CHECKING:  # loaded by declare, the typer side, only
    import typer

BY_VALUES = ("summary", "dir", "file", "timeline")

FILES_HELP = """Which files and directories a session changed, and when: Write, Edit,
MultiEdit and NotebookEdit calls (authoritative), Bash commands (HEURISTIC), and the
Edit-before-Read boundaries where a file changed outside the tool stream.

Structured calls are joined to their results by tool_use id: a result with is_error
(a refused or cancelled call) never landed and is not counted; `is_create` comes from
the result's toolUseResult.type. Bash results name no path, so Bash changes are READ
FROM THE COMMAND TEXT (rm, mv, cp, mkdir, touch, tee, ln, rsync, sed -i, perl -i,
truncate, redirections, git, curl -o, tar, interpreter one-liners, find -delete/-exec
(its start directory), xargs (the program it runs)...), never seen on disk: every Bash
row is labelled heuristic. Operands are resolved against the cwd Claude Code stamped on
the tool_use record, through the command's own cd chain; each row says how (absolute,
cwd-joined, cd-tracked), and one that cannot be resolved ($VAR, ~, a glob, a
substitution; the items xargs reads, ${xargs_input}) stays as typed, marked
unresolved. A command whose result
errored keeps its rows, flagged `command errored` (which parts ran is unknowable).
Commands that rewrite files they do not name show a class marker instead of a path:
git:<sub>, fmt:<tool>, pkg:<manager>, extract:<tool>, interp:<lang>. A settings.json of
a .claude dir whose file-history version jumped with no tool call shows an inferred
`external write`.

Boundaries: a call refused with `File has been modified since read` (a formatter, a
hook, git or an editor changed the file) is listed under the file it named; such files
are risky to reconstruct (pysift recover --coverage).

Detail (--by): summary (default) rolls up per directory; dir adds per-directory counts
of files and first/last touch; file is one row per file; timeline lists every change in
time order. Subagents are spanned and listed under their own ids. --regex/--glob keep
only paths that match (both given: both must), and --turn/--since/--until keep only
changes inside the windows (ANDed); all of them apply before the rollup, to boundaries
too. No target means every session of every project."""

FILES_EPILOG = """\b
EXAMPLES
  pysift files @3f6c1e2a                          # per-directory rollup
  pysift files @3f6c1e2a --by file                # one row per file, first/last touch
  pysift files @3f6c1e2a --by file --regex '\\.rs$'
  pysift files @3f6c1e2a --by timeline --glob '**/src/**'
  pysift files @3f6c1e2a --by timeline --turn -3..   # the last three turns
  pysift files . --since 2h --format json --by dir
  pysift files @3f6c1e2a --format json | jq 'select(.kind=="boundary")'
  pysift files @3f6c1e2a --by timeline --format json \\
      | jq -r 'select(.kind=="mutation" and .heuristic==false) | .path' | sort -u

\b
JSON (--format json, one object per line)
  {"kind":"header","command":"files","sessions_in_scope":N,"top_level_sessions":N,
   "subagent_sessions":N}
  --by summary | dir | file:
  {"kind":"bucket"|"dir"|"file","session_id","is_subagent","parent_session_id","path",
   "write","edit","notebook_edit","multi_edit","bash","external_write","total",
   "distinct_files","first_utc","first_local","last_utc","last_local"}
  --by timeline:
  {"kind":"mutation","session_id","is_subagent","parent_session_id","path","op",
   "ts_utc","ts_local","turn_index","line","is_create","heuristic",
   "resolution":"absolute"|"cwd-joined"|"cd-tracked"|"unresolved"|null,
   "detail":string|null,"path_verbatim":string|null,"command_errored"}
  every mode, after the rows:
  {"kind":"boundary","session_id","is_subagent","parent_session_id","path","line",
   "turn_index","cause":"modified_since_read","ts_utc","ts_local"}
  {"kind":"summary","sessions","distinct_files","total_mutations",
   "edit_before_read_boundaries","skipped_lines","detail_level"}
  every summary also holds "unreadable": N, the files and dirs that exist but could
   not be read (each named in a stderr warning)

\b
NOTES
  op: write, edit, multi_edit, notebook_edit, bash, external_write. line is the jsonl line
  of the tool_use record (a boundary's: of the error result). path is the resolved path
  (relative and absolute spellings of a file share every rollup); path_verbatim is the
  operand as typed when it differs; resolution and path_verbatim are null on structured
  rows and class markers. is_create on a Bash row is a guess from the verb.
  distinct_files counts paths, never class markers. files has no row cap (no
  dropped_by_cap). Windows: a change with no timestamp is outside any --since/--until;
  turns are numbered over the whole transcript, as search numbers them."""


def check_by(value: str) -> str:
    return one_of(value, BY_VALUES, "--by")


def execute(ctx: RootContext, targets: list[str] | None, by: str, regex: list[str] | None,
            glob: list[str] | None, turn: str | None, since: str | None, until: str | None,
            subagents: bool, sessions_from: list[str] | None, fmt: str) -> None:
    """The command once its options are read (by typer, or by ``cli.fastpath``)."""
    check_by(by)
    for flag, given in (("--regex", regex), ("--glob", glob)):
        if given is not None and len(given) > 1:  # click kept the last: a filter dropped
            raise bad_parameter(
                f"given {len(given)} times ({', '.join(given)}); pass one (--regex and "
                "--glob are ANDed with "
                "each other: fold the patterns into one, a|b or {a,b})", param_hint=flag)
    scope, env = scope_args(ctx, targets=targets, subagents=subagents,
                            sessions_from=sessions_from, fmt=fmt, since=since, until=until,
                            turn=turn)
    from pysift.commands.files import FilesOptions, run

    emit(run(FilesOptions(scope=scope, by=by, regex=regex[0] if regex else None,
                             glob=glob[0] if glob else None), env), fmt)


def declare(app: "typer.Typer") -> None:
    """Register the command on the typer tree (typer is loaded here, not at import)."""
    from typing import Annotated, Optional

    import typer

    from pysift.cli.params import Format, SessionsFrom, Subagents, Targets, complete_choices

    @app.command("files", help=FILES_HELP, epilog=FILES_EPILOG)
    def files_cmd(
        ctx: typer.Context,
        targets: Targets = None,
        by: Annotated[str, typer.Option("--by", metavar="summary|dir|file|timeline",
            autocompletion=complete_choices(*BY_VALUES),
            help="Detail level: per-directory rollup (default), per directory with "
                 "first/last, per file, or every change in time order.")] = "summary",
        regex: Annotated[Optional[list[str]], typer.Option("--regex", metavar="RE",
            help="Keep paths the regex matches anywhere in (Rust syntax, case-sensitive).")]
            = None,
        glob: Annotated[Optional[list[str]], typer.Option("--glob", metavar="GLOB",
            help="Keep paths the glob matches whole (* and ? cross /, ** spans dirs).")] = None,
        turn: Annotated[Optional[str], typer.Option("--turn", metavar="RANGE",
            help="Keep changes in these turns: N, A..B, N.., ..N, -k, -k.. (0-based).")] = None,
        since: Annotated[Optional[str], typer.Option("--since", metavar="WHEN",
            help="Keep changes stamped at or after WHEN (ISO, date, 2h, 3d, now).")] = None,
        until: Annotated[Optional[str], typer.Option("--until", metavar="WHEN",
            help="Keep changes stamped at or before WHEN.")] = None,
        subagents: Subagents = True,
        sessions_from: SessionsFrom = None,
        fmt: Format = "text",
    ) -> None:
        execute(ctx, targets, by, regex, glob, turn, since, until, subagents,
                sessions_from, fmt)
