"""``pysift search``: parse the flags, run commands.search, emit.

No typer at import: ``execute`` is what ``cli.fastpath`` runs; ``declare`` puts the command
on the typer tree (``cli.app.register``).
"""


from typing import TYPE_CHECKING

from pysift.cli.emit import emit
from pysift.cli.options import RootContext, pattern_and_targets, scope_args

if TYPE_CHECKING:  # loaded by declare, the typer side, only
    import typer

SEARCH_HELP = """Regex over transcripts, answered with complete round-trip exchanges: each hit
comes back inside its turn (tool use with its result, a user turn with the agent's
answer), exchanges ordered by time across every transcript in scope.

PATTERN is a linear-time (RE2) regex, smart-case (insensitive unless it has an
uppercase letter; -i forces it). Not supported, by design: backreferences,
lookahead/lookbehind, atomic groups, possessive quantifiers. An empty PATTERN is a pure
filter. Targets as everywhere: a cwd, an encoded project dir, @<uuid>, @<prefix>,
@main, @trap:<marker>, @<agent-id>, a *.jsonl file; subagents are spanned by default.

Labels (-t/-T) are dot-segment prefixes; a bare role means its LLM-visible leaves and
a glob like harness.* reaches every leaf under it:

\b
  user.{message, answer, rejection, unsent, queued}
  agent.{message, thinking, thinking.narration, tool.use, tool.result}
  agent.communication.{inbox, sent, signal}
  harness.notification.{workflow, monitor, subagent, background-command, task}
  harness.compaction.{summary, boundary}
  harness.command.{invocation, stdout}
  harness.interrupt.{user, tool}
  harness.schedule.{wakeup, continuation}
  harness.meta.{hook, loop, attachment, turn-duration, away-summary, stop-hooks,
                snapshot, system}

Nine leaves are invisible to the model, so a bare role (-t user, -t harness) leaves
them out and a full path or a glob reaches them: user.unsent and
harness.compaction.boundary (also found with no -t at all), and the seven gated ones,
user.queued and harness.meta.{attachment, turn-duration, away-summary, stop-hooks,
snapshot, system} (found only that way); attachments also need --attachments."""

SEARCH_EPILOG = """\b
EXAMPLES
  pysift search carry                                   # all projects, smart-case
  pysift search -i askuserquestion -t agent.tool.use    # tool calls naming AUQ
  pysift search "" -t user --since 2h .                 # human turns, last 2h, this project
  pysift search panic -t agent.message -t agent.thinking --turn 10..20 --max-count 50
  pysift search "" @<uuid> -t agent -T agent.thinking   # the agent role minus thinking
  pysift search deadline -l | pysift list --sessions-from -
  pysift search "" @<uuid> -t agent.message --raw | jq -r .message.model
  pysift search "let's chat" -t user --siblings         # the match with the turn around it
  pysift search "" @<uuid> --count-by label             # what the scope holds, per leaf
  pysift search "" @<uuid> --count-by pairing           # any pending tool calls?
  pysift search 'Traceback' -t agent.tool.result --resolve-persisted   # in full outputs
  pysift search -e --no-verify @<uuid>                  # a pattern that starts with a dash

\b
JSON (--format json, one object per line)
  {"kind":"header","command":"search","sessions_in_scope","top_level_sessions",
   "subagent_sessions"}
  {"kind":"exchange","session_id","is_subagent","parent_session_id","turn_index",
   "superseded_draft","ts_utc","ts_local","record_uuids":[...],"hits":[{trio,"label",
   "labels","excerpt","ts_utc","ts_local","tool_name","from","to","pairing","is_error",
   "tool_use_id","queue_operation","queue_reason","line","uuid","source","image_ids",
   "refetch"}]  (+ "siblings","siblings_hidden","turn_lines" under --siblings)}
  {"kind":"summary","matched","sessions","transcript_ids","transcript_ids_truncated",
   "dropped_by_cap","skipped_lines","superseded_drafts","with_elicitation_sidecar",
   "excerpts_truncated"  (+ zero matches: "definitive_absence","active_filters",
   "gated_leaves_unreached","excluded_by_label")}
  --count-by: {"kind":"census","axis","key","records"} rows; summary {axis,
   matched_records,distinct_keys,excluded_records,multi_key_records,dropped_by_cap,
   skipped_lines}; a record counts once under EACH distinct key it carries (a record
   of two tool blocks can be paired and pending, ok and error, Read and Grep), so the
   rows can add up to more than matched_records: multi_key_records says how many did
  -c: header + {"kind":"summary","matched"}
  every summary also holds "unreadable": N, the files and dirs that exist but could
   not be read (each named in a stderr warning)
  skipped_lines: every malformed line of the transcripts in scope, each once (lines
  not parsed get the {...} shape check); a zero with skipped lines is definitive for
  the parseable lines only (a caution on stderr says so).

\b
EXIT
  0 with matches or with none (a zero is diagnosed on stderr: a DEFINITIVE absence, or
  NOT one when records, a persisted output or an unreadable file may hold the pattern
  where this run did not read; JSON definitive_absence); 2 for a bad flag, regex or
  selector; 1 for a target that names nothing (no such session, an ambiguous prefix, a
  turn no transcript has) or a projects dir that cannot be listed. A transcript, dir or
  side file that exists but cannot be read is a stderr warning, counted in the summary's
  "unreadable", and the run goes on (exit 0); a zero is then NOT a definitive absence.

\b
SEE ALSO
  A hit's [k image(s): #3, L88i1] are the ids of its record's images: pysift image
  <target> --no-subagents --id 3 --out DIR writes them out (a #N typed as its number)."""


def _multi(values: list[str] | None) -> tuple[str, ...]:
    return tuple(values or ())


def execute(ctx: RootContext, pattern: str, targets: list[str] | None, regexp: str | None,
            label: list[str] | None, label_not: list[str] | None, ignore_case: bool,
            multiline: bool, turn: str | None, since: str | None, until: str | None,
            max_count: int | None, count_only: bool, sessions_with_matches: bool,
            count_by: str | None, raw: bool, siblings: bool, no_truncate: bool,
            resolve_persisted: bool, attachments: bool, additional_context: bool,
            subagents: bool, sessions_from: list[str] | None, fmt: str) -> None:
    """The command once its options are read (by typer, or by ``cli.fastpath``)."""
    pattern, targets = pattern_and_targets(pattern, targets, regexp)
    scope, env = scope_args(ctx, targets=targets, subagents=subagents,
                            sessions_from=sessions_from, fmt=fmt, max_count=max_count,
                            signed_max_count=True, since=since, until=until, turn=turn)
    from pysift.commands.search import SearchOptions, run

    opts = SearchOptions(
        scope=scope, pattern=pattern, labels=_multi(label), labels_not=_multi(label_not),
        ignore_case=ignore_case, multiline=multiline, count_only=count_only,
        sessions_with_matches=sessions_with_matches, count_by=count_by, raw=raw,
        siblings=siblings, no_truncate=no_truncate, resolve_persisted=resolve_persisted,
        attachments=attachments, additional_context=additional_context,
    )
    emit(run(opts, env), fmt)


def declare(app: "typer.Typer") -> None:
    """Register the command on the typer tree (typer is loaded here, not at import)."""
    from typing import Annotated, Optional

    import typer

    from pysift.cli.params import (
        Format,
        Regexp,
        SessionsFrom,
        Subagents,
        Targets,
        complete_axis,
        complete_label,
        when_help,
        whole_number,
    )

    @app.command("search", help=SEARCH_HELP, epilog=SEARCH_EPILOG + "\n\n" + when_help())
    def search_cmd(
        ctx: typer.Context,
        pattern: Annotated[str, typer.Argument(metavar="[PATTERN]", show_default=False)] = "",
        targets: Targets = None,
        regexp: Regexp = None,
        label: Annotated[Optional[list[str]], typer.Option("--label", "-t", metavar="SEL",
            help="Keep hits under this label selector (repeatable).",
            autocompletion=complete_label)] = None,
        label_not: Annotated[Optional[list[str]], typer.Option("--label-not", "-T", metavar="SEL",
            help="Exclude hits under this label selector (repeatable).",
            autocompletion=complete_label)] = None,
        ignore_case: Annotated[bool, typer.Option("--ignore-case", "-i",
            help="Case-insensitive (default: smart-case).")] = False,
        multiline: Annotated[bool, typer.Option("--multiline",
            help="Let . cross newlines; ^/$ match at line breaks.")] = False,
        turn: Annotated[Optional[str], typer.Option("--turn", metavar="N|A..B|N..|-k",
            help="0-based turn window (intersects --since/--until).")] = None,
        since: Annotated[Optional[str], typer.Option("--since", metavar="WHEN",
            help="Records at or after WHEN (ISO, date, 2h, 3d, now).")] = None,
        until: Annotated[Optional[str], typer.Option("--until", metavar="WHEN",
            help="Records at or before WHEN.")] = None,
        max_count: Annotated[Optional[int], typer.Option("--max-count", metavar="N", parser=whole_number,
            help="Keep the earliest N exchanges (-N: the latest N; 0 = uncapped).")] = None,
        count_only: Annotated[bool, typer.Option("--count-only", "-c",
            help="Print only the number of matching exchanges.")] = False,
        sessions_with_matches: Annotated[bool, typer.Option("--sessions-with-matches", "-l",
            help="Print only the owning session ids, one per line.")] = False,
        count_by: Annotated[Optional[str], typer.Option("--count-by", metavar="AXIS",
            help="Census of matched records: label|tool|turn|session|pairing|model|attachment|"
                 "version|result (a record counts once under each key it carries).",
            autocompletion=complete_axis)] = None,
        raw: Annotated[bool, typer.Option("--raw",
            help="Print each matched record's verbatim jsonl line.")] = False,
        siblings: Annotated[bool, typer.Option("--siblings",
            help="Also show the rest of each matched turn (fixed policy).")] = False,
        no_truncate: Annotated[bool, typer.Option("--no-truncate",
            help="Full record text instead of ~400-char excerpts.")] = False,
        resolve_persisted: Annotated[bool, typer.Option("--resolve-persisted",
            help="Search the full text of externalised (persisted) tool outputs.")] = False,
        attachments: Annotated[bool, typer.Option("--attachments",
            help="Also search attachment records (verbatim payload JSON).")] = False,
        additional_context: Annotated[bool, typer.Option("--additional-context",
            help="Also search hook-injected additionalContext.")] = False,
        subagents: Subagents = True,
        sessions_from: SessionsFrom = None,
        fmt: Format = "text",
    ) -> None:
        execute(ctx, pattern, targets, regexp, label, label_not, ignore_case, multiline,
                turn, since, until, max_count, count_only, sessions_with_matches, count_by,
                raw, siblings, no_truncate, resolve_persisted, attachments,
                additional_context, subagents, sessions_from, fmt)
