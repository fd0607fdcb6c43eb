"""``pysift show``: parse the flags, run commands.show, emit.

No typer at import: ``execute`` is what ``cli.fastpath`` runs; ``declare`` puts the command
on the typer tree (``cli.app.register``).
"""


from typing import TYPE_CHECKING

from pysift.cli.emit import emit
from pysift.cli.options import RootContext, build_env, check_format, check_max_count

if TYPE_CHECKING:  # loaded by declare, the typer side, only
    import typer

SHOW_HELP = """Fetch the records you name from ONE transcript, in full (search finds, show
fetches). TARGET is @<uuid>, @<uuid-prefix>, @<agent-id> or a *.jsonl path; it never
spans subagents.

Pick one address: --line N|A..B|N..|..N|-k (1-based jsonl lines, repeatable or
comma-joined), --uuid U (repeatable or comma-joined), --turn N|A..B|N..|-k (0-based
turns, numbered exactly like search's ·tN headers), --block ID, or --branch-points.
An explicit address that names nothing is an error; open forms (N.., ..N, -k) clamp
to the file, and so does the part of a closed range past its end (--line 330..400 on a
350-line file fetches L330..L350). A turn fetch omits the gated bookkeeping lines (queue
operations, turn-duration, away-summary, stop-hook, snapshot and other system lines,
attachments); address them by --line. The default cap is 200 record units with the exact continuation command."""

SHOW_EPILOG = """\b
EXAMPLES
  pysift show @3f6c1e2a --line 120                 # one record, full text
  pysift show @3f6c1e2a --line 100..140,200        # ranges and lists
  pysift show @3f6c1e2a --turn -3..                # the last three turns
  pysift show @3f6c1e2a --uuid 6c1d…               # by record uuid (the whole uuid)
  pysift show @3f6c1e2a --line 120 --raw | jq .    # the verbatim jsonl line
  pysift show @3f6c1e2a --branch-points            # where the parentUuid chain forks
  pysift show @3f6c1e2a --block r:toolu_01AB… --sha256 9f2c…   # resolve and verify a block

\b
JSON (--format json)
  {"kind":"header","command":"show","session_id","is_subagent","parent_session_id","path"}
  {"kind":"record","session_id","is_subagent","parent_session_id","turn_index",
   "superseded_draft","line","uuid","label","labels","tool_name","from","to","pairing",
   "tool_use_id","source","ts_utc","ts_local","text","image_ids"}
  {"kind":"summary","records","dropped_by_cap","refetch_remainder","non_record_lines",
   "skipped_lines","with_elicitation_sidecar"}
  --branch-points: header {"kind":"header","command":"show","mode":"branch-points",
   "session_id","is_subagent","parent_session_id"} (no path);
   {"kind":"branch-point","uuid","line","children":[{line,uuid,
   record_type,ts_utc,ts_local}],"widest_gap_seconds"}; summary {branch_points,
   conversation_records,skipped_lines}
  --block: {"kind":"block","block_id","sha256","text",trio}; summary {blocks,sha256_verified}
  every summary also holds "unreadable": N, the files and dirs that exist but could
   not be read (each named in a stderr warning)

\b
BLOCK IDS
  r:<tool_use_id>        a tool result's content, joined as text
  a:<message.id>:p<n>    part n (0-based) of an assistant message"""


def _split_uuids(values: list[str] | None) -> list[str]:
    """The uuids of every ``--uuid`` value (comma lists allowed, spaces around an item
    ignored). An empty value or an empty item is a usage error: dropped, it left show
    saying it "needs an address" although one was given."""
    from pysift.errors import UsageError

    out: list[str] = []
    for value in values or []:
        items = [v.strip() for v in value.split(",")]
        if not any(items):
            raise UsageError(f"--uuid `{value}` names no uuid; pass a record uuid (the `uuid` "
                             "of search --format json rows), several joined by commas")
        if not all(items):
            raise UsageError(f"--uuid `{value}` has an empty item; join uuids with single "
                             "commas and no stray comma")
        out += items
    return out


def execute(ctx: RootContext, targets: list[str] | None, line: list[str] | None,
            uuid: list[str] | None, turn: str | None, raw: bool, max_count: int | None,
            branch_points: bool, block: str | None, sha256: str | None, fmt: str,
            subagents: bool | None) -> None:
    """The command once its options are read (by typer, or by ``cli.fastpath``)."""
    check_format(fmt)
    from pysift.errors import UsageError

    if subagents is not None:
        raise UsageError("show fetches from exactly one transcript and never spans; drop "
                         "--subagents/--no-subagents (address a subagent as @<agent-id>)")
    if not targets:
        raise UsageError("show needs a TARGET: @<uuid>, @<agent-id> or a *.jsonl path")
    if len(targets) > 1:
        raise UsageError(f"show takes exactly one TARGET, got {len(targets)} "
                         f"({' '.join(targets)}); run one show per transcript")
    if block is not None and not block.strip():
        raise UsageError("--block is empty; pass a block id: r:<tool_use_id> (a search "
                         "hit's tool_use_id) or a:<message.id>:p<n>")
    if raw and fmt == "json":
        raise UsageError("--raw prints verbatim jsonl lines; it cannot be combined with "
                         "--format json")
    check_max_count(max_count)
    from pysift.commands.show import ShowOptions, run
    from pysift.core.grammar.ranges import parse_range

    opts = ShowOptions(
        target=targets[0],
        lines=tuple(parse_range(v, flag="--line", one_based=True) for v in (line or [])),
        uuids=tuple(_split_uuids(uuid)),
        turns=parse_range(turn, flag="--turn") if turn is not None else None,
        raw=raw,
        max_count=max_count,
        branch_points=branch_points,
        block=block,
        sha256=sha256,
    )
    emit(run(opts, build_env(ctx)), fmt)


def declare(app: "typer.Typer") -> None:
    """Register the command on the typer tree (typer is loaded here, not at import)."""
    from typing import Annotated, Optional

    import typer

    from pysift.cli.params import Format, complete_targets, whole_number

    @app.command("show", help=SHOW_HELP, epilog=SHOW_EPILOG)
    def show_cmd(
        ctx: typer.Context,
        targets: Annotated[Optional[list[str]], typer.Argument(metavar="TARGET",
                                                               show_default=False,
                                                               autocompletion=complete_targets)
                           ] = None,
        line: Annotated[Optional[list[str]], typer.Option("--line", metavar="N|A..B|N..|-k",
            help="1-based jsonl line(s); repeatable, comma-joined.")] = None,
        uuid: Annotated[Optional[list[str]], typer.Option("--uuid", metavar="U",
            help="Record uuid(s); repeatable, comma-joined.")] = None,
        turn: Annotated[Optional[str], typer.Option("--turn", metavar="N|A..B|N..|-k",
            help="0-based turn(s), numbered like search's ·tN.")] = None,
        raw: Annotated[bool, typer.Option("--raw", help="Print the verbatim jsonl lines.")] = False,
        max_count: Annotated[Optional[int], typer.Option("--max-count", metavar="N", parser=whole_number,
            help="Cap the record units (default 200; 0 = uncapped).")] = None,
        branch_points: Annotated[bool, typer.Option("--branch-points",
            help="List the uuids where the parentUuid chain forks.")] = False,
        block: Annotated[Optional[str], typer.Option("--block", metavar="ID",
            help="Print one block by durable id (r:<tool_use_id> | a:<message.id>:p<n>).")] = None,
        sha256: Annotated[Optional[str], typer.Option("--sha256", metavar="HEX",
            help="With --block: verify the block's sha256 (64 hex digits), exit 1 on "
                 "mismatch.")] = None,
        fmt: Format = "text",
        subagents: Annotated[Optional[bool], typer.Option("--subagents/--no-subagents",
                                                          hidden=True)] = None,
    ) -> None:
        execute(ctx, targets, line, uuid, turn, raw, max_count, branch_points, block,
                sha256, fmt, subagents)
