"""``pysift stats``: parse the flags, run commands.stats, emit.

No typer at import: ``execute`` is what ``cli.fastpath`` runs; ``declare`` puts the command
on the typer tree (``cli.app.register``).
"""


from typing import TYPE_CHECKING

from pysift.cli.emit import emit
from pysift.cli.options import RootContext, scope_args

if TYPE_CHECKING:  # loaded by declare, the typer side, only
    import typer

STATS_HELP = """Count what a session did, in one scan per transcript: physical lines and the
census of every line's top-level type, user/assistant records, turns (numbered like
search's ·tN), compactions, first/last activity and duration, tokens per model, narration
blocks, and tool CALLS by name.

Each transcript is its own row (subagents included; --no-subagents drops them), followed
by a TOTAL block when more than one is in scope. No target means every session of every
project.

Tokens count each API message ONCE: Claude Code repeats the same message.usage on every
per-block record, so a file's sums dedupe by message.id (per-field max; a record without
an id counts alone). The TOTAL adds the rows and never dedupes across files (a spawn
message copied into each subagent is a fact of each).

Windows: --since/--until count only the records stamped inside them; --turn counts only
the records of those turns, numbered over the WHOLE transcript (stable), ANDed with the
time window. Every figure is windowed EXCEPT lines and the type census (file facts)."""

STATS_EPILOG = """\b
EXAMPLES
  pysift stats @3f6c1e2a                         # one session and its subagents
  pysift stats @3f6c1e2a --no-subagents          # the main transcript alone
  pysift stats .                                 # every session of this project + TOTAL
  pysift stats @3f6c1e2a --turn -3..             # the last three turns only
  pysift stats @3f6c1e2a --since 2h              # records of the last two hours
  pysift stats --since 1d --max-count 10         # the 10 most recently active sessions
  pysift search deadline -l | pysift stats --sessions-from -
  pysift stats . --format json | jq 'select(.kind=="summary").tokens'

\b
JSON (--format json, one object per line)
  {"kind":"header","command":"stats","sessions_in_scope":N,"top_level_sessions":N,
   "subagent_sessions":N}                       (counts of the EMITTED rows)
  {"kind":"session","session_id","is_subagent","parent_session_id","lines",
   "line_types":{type:n},"user_records","assistant_records","turns","compactions",
   "tools":{name:calls},"tokens":{model:{input,output,cache_read,cache_creation}},
   "narration_blocks":{model:n},"unknown_thinking_tags","first_utc","first_local",
   "last_utc","last_local","skipped_lines"}
  {"kind":"summary","sessions","line_types","turns","tools","tokens",
   "narration_blocks","unknown_thinking_tags","skipped_lines","dropped_by_cap"}
  every summary also holds "unreadable": N, the files and dirs that exist but could
   not be read (each named in a stderr warning)

\b
NOTES
  Three count units: stats tools = CALLS; search --count-by tool = RECORDS (a call and
  its result carrier, so about 2x); search -c = EXCHANGES.
  narration_blocks are counted per block only: usage covers a reasoning block and its
  narration sibling together, so no narration token figure exists.
  unknown_thinking_tags counts thinking signatures whose tag is neither thinking nor
  narration (a new API value); an undecodable signature is plain thinking.
  skipped_lines: every line is validated (a {...}-framed line with a broken inside
  is malformed too, not counted under its type): the full census of malformed lines.
  --max-count N keeps the N most recently active rows (0 = all) and reports the drop;
  the TOTAL then covers the rows shown."""


def execute(ctx: RootContext, targets: list[str] | None, since: str | None,
            until: str | None, turn: str | None, max_count: int | None, subagents: bool,
            sessions_from: list[str] | None, fmt: str) -> None:
    """The command once its options are read (by typer, or by ``cli.fastpath``)."""
    scope, env = scope_args(ctx, targets=targets, subagents=subagents,
                            sessions_from=sessions_from, fmt=fmt, max_count=max_count,
                            since=since, until=until, turn=turn)
    from pysift.commands.stats import StatsOptions, run

    emit(run(StatsOptions(scope=scope), env), fmt)


def declare(app: "typer.Typer") -> None:
    """Register the command on the typer tree (typer is loaded here, not at import)."""
    from typing import Annotated, Optional

    import typer

    from pysift.cli.params import Format, SessionsFrom, Subagents, Targets, when_help, whole_number

    @app.command("stats", help=STATS_HELP, epilog=STATS_EPILOG + "\n\n" + when_help())
    def stats_cmd(
        ctx: typer.Context,
        targets: Targets = None,
        since: Annotated[Optional[str], typer.Option("--since", metavar="WHEN",
            help="Count only records stamped at or after WHEN (ISO, date, 2h, 3d, now).")] = None,
        until: Annotated[Optional[str], typer.Option("--until", metavar="WHEN",
            help="Count only records stamped at or before WHEN.")] = None,
        turn: Annotated[Optional[str], typer.Option("--turn", metavar="RANGE",
            help="Count only the records of these turns: N, A..B, N.., ..N, -k, -k.. "
                 "(0-based, over the whole transcript).")] = None,
        max_count: Annotated[Optional[int], typer.Option("--max-count", metavar="N", parser=whole_number,
            help="Keep the N most recently active rows (0 = uncapped; default uncapped).")] = None,
        subagents: Subagents = True,
        sessions_from: SessionsFrom = None,
        fmt: Format = "text",
    ) -> None:
        execute(ctx, targets, since, until, turn, max_count, subagents, sessions_from, fmt)
