"""``pysift verbatim``: parse the flags, run commands.verbatim, emit.

No typer at import: ``execute`` is what ``cli.fastpath`` runs; ``declare`` puts the command
on the typer tree (``cli.app.register``).
"""


from typing import TYPE_CHECKING

from pysift.cli.emit import emit
from pysift.cli.options import RootContext, check_format, integer, scope_args

if TYPE_CHECKING:  # loaded by declare, the typer side, only
    import typer

VERBATIM_HELP = """Restore the turns a compaction summary clipped: the verbatim user and
assistant back-and-forth, in forward order, each unit with the jsonl line it quotes
(Lnnnnn) so you can read the record itself (pysift show @<id> --line N).

A compaction summary keeps the task state but clips the human's turns to bullets and
keeps one assistant quote. verbatim supplements it (it never re-derives task state):
selection walks back from the end of the transcript, across compaction boundaries
(--max-compactions caps the crossings), and the document reads forward, with a banner at
each boundary it crosses. To read recent turns of a session that was never compacted,
use pysift show @<id> --turn -3.. instead.

BUDGET: --budget (default 40000 characters, about 4 per token) bounds each session's
text, header block included. --round-trip-fraction (default 0.5) is a hard floor spent
only on complete round trips (an opener and an agent reply), newest first; the rest
fills with whole turns or single sides, user first. A unit over its role cap (user 600,
assistant 900) is cut in the middle: head and tail kept around
`… [+K chars, L lines elided] …`. A turn the newest summary already quotes is flagged
`(also in summary)` and chosen last, never dropped.

AGENT MESSAGES: a turn can own a long run of agent messages. --agent-msgs longest
(default) keeps the longest, the first when substantive and every rich message (a count,
a hash, a file:line, backtick code, a finding word, or long); eot-only keeps the last;
rich keeps the last, the first and every message that is not a short declaration of
intent, on runs longer than 6 (4 with --profile heavy, 8 with light); all keeps every
one. Dropped runs show as `△ L<a>–L<b>  [X agent messages, Y tool calls, Z failed]`.

A target is required (the budget applies per session). The top-level thread only, unless
--subagents. --turn and --since/--until window the turns (AND).

HOOKS: a SessionStart hook injects at most 10,000 characters. --slice N prints only the
Nth chunk of the document (no header), packed line by line into --window characters
(default 10000, at least 200; a longer line is cut); slices 1..K joined are the document
byte for byte; an N past the last prints nothing (stderr says why). --slices K pins the
fleet to K slices filled newest first with whole turns (no role caps; a turn is cut only
when it alone exceeds a window; --budget is ignored); the older turns that do not fit
are named on stderr. See the README.

--fold-index prints, instead, one seed-index v2 record per compaction boundary (JSON
lines, no envelope): what the compacted history touched (files, commands, errors,
identifiers, user messages) and a span per tool result and assistant text part, each
verifiable with pysift show TARGET --block ID --sha256 HEX."""

VERBATIM_EPILOG = """\b
EXAMPLES
  pysift verbatim @3f6c1e2a                          # 40K-char reconstruction
  pysift verbatim @3f6c1e2a --budget 12000           # sized for a 200K context
  pysift verbatim @3f6c1e2a --agent-msgs eot-only    # one (the last) reply per turn
  pysift verbatim @3f6c1e2a --profile heavy          # keep more of long agent runs
  pysift verbatim . --out /tmp/verbatim.md           # the document to a file
  pysift verbatim @3f6c1e2a --format json | jq 'select(.kind=="turn") | .line'
  pysift verbatim . --window 9000 --slices 4 --slice 1   # chunk 1 of 4 for a hook
  pysift verbatim @3f6c1e2a --fold-index > seed-index.jsonl

\b
JSON (--format json, one object per line)
  {"kind":"header","command":"verbatim","sessions_in_scope","sessions_rendered",
   "top_level_sessions","subagent_sessions","budget_chars","budget_is_per_session",
   "max_total_chars","round_trip_fraction","chars_used","boundaries_spanned",
   "boundaries_total","selected_user","selected_assistant","automation_triggers",
   "automation_by_kind","automation_in_scope_by_kind","with_elicitation_sidecar"}
  {"kind":"compaction_boundary","line","summary_chars"}      (where the walk crosses one)
  {"kind":"turn","session_id","is_subagent","parent_session_id","turn_index","line",
   "source","role":"user"|"assistant","ts_utc","ts_local","tool_calls","full_chars",
   "rendered_chars","truncated","elided_chars","elided_lines","also_in_summary",
   "compactions_before","text","is_automation","image_ids"}   (text is always whole;
   image_ids: the turn's images as image's ids, [] when none; an inbound
   peer message adds is_inbound_comm, comm_label, comm_from, comm_to)
  {"kind":"collapsed_agents","session_id","is_subagent","parent_session_id","turn_index",
   "agent_messages","tool_calls","failed","first_line","last_line","compactions_before",
   "refetch"}
  {"kind":"summary","skipped_lines"}
  every summary also holds "unreadable": N, the files and dirs that exist but could
   not be read (each named in a stderr warning)

\b
FOLD INDEX (--fold-index, bare JSON lines)
  {"v":2,"kind":"fold-index","harness":"pysift","session","seq","at","trigger":"compact",
   "usage":{"tokens","contextWindow","fraction"},"files","commands","errors",
   "identifiers","userMessages":[{"turn","firstLine"}],"spans":[{"blockId","code","tool",
   "turn","log":{"bytes","lines"},"sha256","fullOutputPath"?}],"dropped":{"errors",
   "identifiers"}}

\b
NOTES
  `spanned K of N`: K boundaries the selection crossed (budget-relative), N the session's
  total. A compaction whose summary is torn or missing still counts and still gets its
  banner. A session with no compaction gets a stderr note: nothing was clipped.
  --out writes the document (what --slice cuts) and never over an existing file unless
  --force; stdout then keeps the header block. Text shows a control character the
  transcript stores as \\xNN; a --slice/--slices chunk does so only at a terminal (to a
  hook it is the document's own text, as --out writes it)."""

_MODES = ("longest", "eot-only", "rich", "all")
_PROFILES = ("heavy", "light")


def _whole(value: str | None, flag: str, *, least: int, what: str) -> int | None:
    """A whole number of at least ``least`` given as ``value`` (None when absent)."""
    if value is None:
        return None
    from pysift.errors import UsageError

    number = integer(value.strip())
    if number is not None and number >= least:
        return number
    raise UsageError(f"{flag} must be {what}, got `{value}`")


def _fraction(value: str | None) -> float:
    if value is None:
        return 0.5
    from pysift.errors import UsageError

    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if not 0.0 < number < 1.0:
        raise UsageError(f"--round-trip-fraction must be a number strictly between 0 and 1 "
                         f"(the share of the budget kept for complete round trips), got "
                         f"`{value}`; the default is 0.5")
    return number


def execute(ctx: RootContext, targets: list[str] | None, budget: str | None,
            round_trip_fraction: str | None, max_compactions: str | None,
            agent_msgs: str | None, profile: str | None, turn: str | None, since: str | None,
            until: str | None, out: str | None, force: bool, slice_: str | None,
            window: str | None, slices: str | None, fold_index: bool, subagents: bool,
            sessions_from: list[str] | None, fmt: str) -> None:
    """The command once its options are read (by typer, or by ``cli.fastpath``)."""
    check_format(fmt)
    from pysift.errors import UsageError

    n_budget = _whole(budget, "--budget", least=1,
                      what="a positive whole number of characters (e.g. 40000)")
    fraction = _fraction(round_trip_fraction)
    n_compactions = _whole(max_compactions, "--max-compactions", least=0,
                           what="a whole number (0 = no limit)")
    n_slice = _whole(slice_, "--slice", least=1,
                     what="1 or more (slices are 1-based: the first chunk is --slice 1)")
    n_window = None
    if window is not None:
        from pysift.engines.verbatim.model import MIN_WINDOW

        n_window = _whole(window, "--window", least=MIN_WINDOW,
                          what=f"at least {MIN_WINDOW} characters (a narrower window "
                               "cuts the document's lines: a unit's header alone runs to "
                               "80; 9000 stays under a hook's 10,000-character cap)")
    n_slices = _whole(slices, "--slices", least=1,
                      what="1 or more: the number of hooks in the fleet")
    mode = agent_msgs if agent_msgs is not None else "longest"
    if mode not in _MODES:
        raise UsageError(f"--agent-msgs `{agent_msgs}` is not a mode; use longest, "
                         "eot-only, rich or all")
    if profile is not None and profile not in _PROFILES:
        raise UsageError(f"--profile `{profile}` is not a profile; use heavy or light")
    chunked = n_slice is not None or n_slices is not None
    if chunked and fmt == "json":
        raise UsageError("--slice/--slices print text chunks for a hook; drop --format json")
    if chunked and out is not None:
        raise UsageError("--slice/--slices print one chunk to stdout and --out writes the "
                         "whole document to a file; use one of them")
    if force and out is None:
        raise UsageError("--force only says that --out may overwrite its FILE; add --out "
                         "FILE or drop --force")
    if fold_index:
        given = [flag for flag, value in (
            ("--budget", budget), ("--round-trip-fraction", round_trip_fraction),
            ("--max-compactions", max_compactions), ("--agent-msgs", agent_msgs),
            ("--profile", profile), ("--turn", turn), ("--since", since),
            ("--until", until), ("--out", out), ("--slice", slice_), ("--window", window),
            ("--slices", slices)) if value is not None]
        if given:
            raise UsageError(f"--fold-index prints the whole index of every compaction; "
                             f"drop {', '.join(given)} (redirect stdout to save it)")
        if fmt == "json":
            raise UsageError("--fold-index prints bare seed-index JSON lines, one record "
                             "per compaction, with no envelope; drop --format json")
    scope, env = scope_args(ctx, targets=targets, subagents=subagents,
                            sessions_from=sessions_from, fmt=fmt, since=since, until=until,
                            turn=turn)
    from pathlib import Path

    from pysift.commands.verbatim import VerbatimOptions, run

    opts = VerbatimOptions(
        scope=scope,
        budget=n_budget if n_budget is not None else 40000,
        fraction=fraction,
        max_compactions=n_compactions or 0,
        agent_msgs=mode,
        profile=profile,
        out=Path(out) if out is not None else None,
        force=force,
        slice=n_slice,
        window=n_window if n_window is not None else 10000,
        slices=n_slices,
        fold_index=fold_index,
    )
    emit(run(opts, env), fmt)


def declare(app: "typer.Typer") -> None:
    """Register the command on the typer tree (typer is loaded here, not at import)."""
    from typing import Annotated, Optional

    import typer

    from pysift.cli.params import Format, SessionsFrom, Targets

    @app.command("verbatim", help=VERBATIM_HELP, epilog=VERBATIM_EPILOG)
    def verbatim_cmd(
        ctx: typer.Context,
        targets: Targets = None,
        budget: Annotated[Optional[str], typer.Option("--budget", metavar="N",
            help="Characters per session, header block included (default 40000).")] = None,
        round_trip_fraction: Annotated[Optional[str], typer.Option("--round-trip-fraction",
            metavar="F", help="Share of the budget kept for complete round trips, strictly "
                              "between 0 and 1 (default 0.5).")] = None,
        max_compactions: Annotated[Optional[str], typer.Option("--max-compactions", metavar="N",
            help="Reach back across at most N compaction boundaries (0 = no limit, the "
                 "default).")] = None,
        agent_msgs: Annotated[Optional[str], typer.Option("--agent-msgs",
            metavar="longest|eot-only|rich|all",
            help="Which agent messages of a turn to keep (default longest).")] = None,
        profile: Annotated[Optional[str], typer.Option("--profile", metavar="heavy|light",
            help="Richness thresholds: heavy keeps more of long runs, light less.")] = None,
        turn: Annotated[Optional[str], typer.Option("--turn", metavar="N|A..B|N..|-k",
            help="Only these turns (0-based, numbered like search's ·tN).")] = None,
        since: Annotated[Optional[str], typer.Option("--since", metavar="WHEN",
            help="Only turns at or after WHEN (ISO, date, 2h, 3d, now).")] = None,
        until: Annotated[Optional[str], typer.Option("--until", metavar="WHEN",
            help="Only turns at or before WHEN.")] = None,
        out: Annotated[Optional[str], typer.Option("--out", metavar="FILE",
            help="Write the document to FILE (stdout keeps the header block).")] = None,
        force: Annotated[bool, typer.Option("--force",
            help="With --out: overwrite an existing FILE.")] = False,
        slice_: Annotated[Optional[str], typer.Option("--slice", metavar="N",
            help="Print only the Nth (1-based) --window chunk of the document.")] = None,
        window: Annotated[Optional[str], typer.Option("--window", metavar="N",
            help="Chunk size in characters for --slice/--slices (default 10000, at "
                 "least 200).")] = None,
        slices: Annotated[Optional[str], typer.Option("--slices", metavar="K",
            help="Pin the document to K chunks of whole turns (a fixed hook fleet).")] = None,
        fold_index: Annotated[bool, typer.Option("--fold-index",
            help="Print the seed-index v2 records of the compactions instead.")] = False,
        subagents: Annotated[bool, typer.Option("--subagents/--no-subagents",
            help="Also reconstruct the subagent transcripts (default: the top-level thread "
                 "only; --budget applies to each).")] = False,
        sessions_from: SessionsFrom = None,
        fmt: Format = "text",
    ) -> None:
        execute(ctx, targets, budget, round_trip_fraction, max_compactions, agent_msgs,
                profile, turn, since, until, out, force, slice_, window, slices,
                fold_index, subagents, sessions_from, fmt)
