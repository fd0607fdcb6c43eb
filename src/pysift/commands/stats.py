"""``pysift stats``: one-scan aggregates per transcript plus a scope TOTAL (SPEC §6.12).

Each transcript in scope is its own row (subagents included by default). ``lines`` and
``line_types`` are FILE facts and never windowed; every other figure counts only the
records the windows admit: ``--since``/``--until`` by the record's timestamp, ``--turn``
by its turn index computed over the WHOLE transcript (stable), the two ANDed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import field
from functools import cached_property
from typing import Any, TextIO

from pysift.commands.notice import cleanup_notice, probed_times
from pysift.commands.scope import ScopeArgs
from pysift.core.cap import cap
from pysift.core.cap import recency as cap_recency
from pysift.core.cleanup import Notice
from pysift.core.grammar.ranges import RangeSpec, describe_items
from pysift.core.timez import format_span_ms, iso_stamper, parse_ts, text_stamper
from pysift.engines.stats import SessionStats, TokenSums, Window
from pysift.model.env import Env
from pysift.model.fastdata import dataclass
from pysift.output.fields import id_trio
from pysift.output.report import Report
from pysift.output.terminal import paint, wants_colour

TOTAL_TOOLS_SHOWN = 15


@dataclass(frozen=True, kw_only=True)
class StatsOptions:
    # max_count: None or 0 = uncapped, N keeps the N most recently active rows; the
    # time window and the turn range (ANDed) select the records counted
    scope: ScopeArgs = field(default_factory=ScopeArgs)


def run(opts: StatsOptions, env: Env) -> Report:
    from pysift.engines import stats as engine

    args = opts.scope
    scope = args.resolve(env)
    window = Window(since=args.since, until=args.until, turns=args.turns)
    from pysift.disk.cache_place import open_store

    store = open_store(env.cache, env.now().timestamp())
    rows = engine.run(scope.transcripts, window, cache=store)
    report = Report(command="stats")
    report.take_scope(scope)
    for row in rows:
        if row.error:
            report.unread(f"warning: skipped: {row.error}")
    rows = [r for r in rows if not r.error]
    if args.turns is not None:
        _note_turn_misses(report, rows, args.turns)
    shown, over = cap(rows, args.max_count, newest=recency)
    notice = cleanup_notice(report, scope.transcripts, env,
                            probed_times(store, scope.transcripts))
    result = StatsResult(shown, dropped=len(over), env=env, notice=notice)
    report.header = result.header()
    # built only when JSON is written; every row's local stamps through one stamper
    report.row_builder = lambda: _session_rows(shown, env)
    report.answer(result)
    return report


@dataclass(frozen=True)
class Totals:
    """What the scope's rows sum to, by name (each map sorted by key)."""

    line_types: dict[str, int]
    tools: dict[str, int]
    tokens: dict[str, TokenSums]
    narration_blocks: dict[str, int]

    @classmethod
    def of(cls, rows: list[SessionStats]) -> Totals:
        return cls(merged_counts(r.line_types for r in rows), merged_counts(r.tools for r in rows),
                   merged_tokens(rows), merged_counts(r.narration_blocks for r in rows))


@dataclass(frozen=True)
class StatsResult:
    """The rows shown (the cap applied) and what the cap dropped: what the header, the
    summary and the text (rows, TOTAL, footer) all state."""

    rows: list[SessionStats]
    dropped: int
    env: Env
    notice: Notice | None = None  # sessions in scope near Claude Code's cleanup, unarchived

    @property
    def top(self) -> int:
        return sum(1 for r in self.rows if not r.transcript.is_subagent)

    @property
    def sub(self) -> int:
        return len(self.rows) - self.top

    def header(self) -> dict[str, Any]:  # counts of the EMITTED rows
        return {"sessions_in_scope": len(self.rows), "top_level_sessions": self.top,
                "subagent_sessions": self.sub}

    @cached_property
    def totals(self) -> Totals:
        """The rows summed once, for the summary and the text's TOTAL block alike."""
        return Totals.of(self.rows)

    def summary(self) -> dict[str, Any]:
        rows, totals = self.rows, self.totals
        return {
            "sessions": len(rows),
            "line_types": totals.line_types,
            "turns": sum(r.turns for r in rows),
            "tools": totals.tools,
            "tokens": _tokens_json(totals.tokens),
            "narration_blocks": totals.narration_blocks,
            "unknown_thinking_tags": sum(r.unknown_thinking_tags for r in rows),
            "skipped_lines": sum(r.skipped_lines for r in rows),
            "dropped_by_cap": self.dropped,
            **({"cleanup_notice": self.notice.summary()} if self.notice is not None else {}),
        }

    def render_text(self, out: TextIO) -> None:
        render_text(out, self)


def recency(row: SessionStats) -> tuple[bool, float]:
    """How ``--max-count`` ranks rows (it keeps the most recently active, in scope order;
    ``core.cap.recency``, which ``list`` ranks by too): rows with a counted timestamp
    first, newest first; then the rows the window left without one, by their file's
    modification time (they tied in path order, and the footer called the first ones
    "the most recently active")."""
    return cap_recency((row.last_ts,), lambda: _mtime(row))


def _mtime(row: SessionStats) -> float | None:
    try:
        return row.transcript.path.stat().st_mtime
    except OSError:
        return None


def _note_turn_misses(report: Report, rows: list[SessionStats], spec: RangeSpec) -> None:
    """An explicit ``--turn N|A..B`` that names no turn of a row is said, never silent;
    so is an open or from-end form (``-90``, ``90..``) that reaches none of its turns."""
    missed = []
    for r in rows:
        items = spec.missing(0, r.turn_count - 1)
        if items:
            missed.append((r, f"no {describe_items(items, 't')}"))
        elif not spec.resolve(0, r.turn_count - 1):
            missed.append((r, f"none in {spec.format()}"))
    if not missed:
        return
    shown = "; ".join(f"{r.transcript.session_id} has {r.turn_count} turn(s), {what}"
                      for r, what in missed[:5])
    more = f"; and {len(missed) - 5} more transcript(s)" if len(missed) > 5 else ""
    report.note(f"note: --turn {spec.format()}: {shown}{more} (those turns count nothing)")


# -- JSON --------------------------------------------------------------------------------------


def _tokens_json(tokens: Mapping[str, TokenSums]) -> dict[str, dict[str, int]]:
    return {model: sums.as_json() for model, sums in sorted(tokens.items())}


def _session_rows(rows: list[SessionStats], env: Env) -> list[dict[str, Any]]:
    local = iso_stamper(env.tz)
    return [session_row(r, env, local) for r in rows]


def session_row(r: SessionStats, env: Env,
                local: Callable[[str | None], str | None] | None = None) -> dict[str, Any]:
    """One session's JSON row; ``local``: ``local_iso`` in the run's zone (the rows of one
    run share a ``timez.iso_stamper``, which renders each hour of the clock once)."""
    if local is None:
        local = iso_stamper(env.tz)
    t = r.transcript
    first = r.first_ts if isinstance(r.first_ts, str) else None
    last = r.last_ts if isinstance(r.last_ts, str) else None
    return {
        "kind": "session",
        **id_trio(t.session_id, t.is_subagent, t.parent_session_id),
        "lines": r.lines,
        "line_types": dict(sorted(r.line_types.items())),
        "user_records": r.user_records,
        "assistant_records": r.assistant_records,
        "turns": r.turns,
        "compactions": r.compactions,
        "tools": dict(sorted(r.tools.items())),
        "tokens": _tokens_json(r.tokens),
        "narration_blocks": dict(sorted(r.narration_blocks.items())),
        "unknown_thinking_tags": r.unknown_thinking_tags,
        "first_utc": first,
        "first_local": local(first),
        "last_utc": last,
        "last_local": local(last),
        "skipped_lines": r.skipped_lines,
    }


def merged_counts(maps: Iterable[Mapping[str, int]]) -> dict[str, int]:
    total: dict[str, int] = {}
    for counts in maps:
        for key, n in counts.items():
            total[key] = total.get(key, 0) + n
    return dict(sorted(total.items()))


def merged_tokens(rows: Iterable[SessionStats]) -> dict[str, TokenSums]:
    """Scope law: rows are summed; a message id seen in two files counts in both."""
    total: dict[str, TokenSums] = {}
    for r in rows:
        for model, sums in r.tokens.items():
            total.setdefault(model, TokenSums()).merge(sums)
    return dict(sorted(total.items()))


# -- text --------------------------------------------------------------------------------------


def census_line(counts: Mapping[str, int], limit: int | None = None) -> str:
    """``name×n · …`` by count descending, then name; ``limit`` adds a ``(+k more …)`` tail."""
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = ranked if limit is None else ranked[:limit]
    text = " · ".join(f"{k}×{v:,}" for k, v in shown)
    if limit is not None and len(ranked) > limit:
        text += f" · (+{len(ranked) - limit:,} more tools)"
    return text


def duration_label(first: str | None, last: str | None) -> str:
    a, b = parse_ts(first), parse_ts(last)
    if a is None or b is None:
        return "-"
    return format_span_ms(int((b - a).total_seconds() * 1000))


def _token_lines(w: Any, tokens: Mapping[str, TokenSums]) -> None:
    for model, t in sorted(tokens.items()):
        w(f"  tokens {model}: in {t.input:,} · out {t.output:,} · cache-read {t.cache_read:,} · "
          f"cache-write {t.cache_creation:,}\n")


def _malformed(n: int) -> str:
    return f"{n:,} malformed line(s) skipped"


def render_text(out: TextIO, result: StatsResult) -> None:
    """The text view. On a plain stream (no colour) it is laid out whole and written at
    once (the stream escapes controls per character, so one write shows what many would);
    a painting stream gets each span as it comes. Local stamps go through one
    ``timez.text_stamper`` (each hour of the clock rendered once)."""
    if wants_colour(out):
        _render(out.write, lambda text, role: paint(out, text, role), result)
        return
    parts: list[str] = []
    add = parts.append
    _render(add, lambda text, _role: add(text), result)
    out.write("".join(parts))


def _render(w: Callable[[str], object], paint_span: Callable[[str, str], object],
            result: StatsResult) -> None:
    rows, top, sub, dropped, env = result.rows, result.top, result.sub, result.dropped, result.env
    stamp = text_stamper(env.tz)
    if sub:
        n = top + sub
        w(f"scope  {n:,} {'session' if n == 1 else 'sessions'} in scope ({top:,} top-level + "
          f"{sub:,} subagent)\n\n")
    if not rows:
        w("no sessions found\n")
    for r in rows:
        t = r.transcript
        if t.is_subagent:
            w("SUBAGENT ")
            paint_span(t.session_id, "id")
            w("  ·  parent SESSION ")
            paint_span(t.parent_session_id, "id")
        else:
            w("SESSION ")
            paint_span(t.session_id, "id")
        w("\n")
        w(f"  lines {r.lines:,} · records {r.user_records:,} user + {r.assistant_records:,} "
          f"assistant · turns {r.turns:,} · compactions {r.compactions:,}\n")
        if r.line_types:
            w(f"  types  {census_line(r.line_types)}\n")
        if r.first_ts and r.last_ts:
            w(f"  span   {stamp(r.first_ts)}  →  {stamp(r.last_ts)}  "
              f"({duration_label(r.first_ts, r.last_ts)})\n")
        _token_lines(w, r.tokens)
        if r.narration_blocks:
            w(f"  narration blocks {census_line(r.narration_blocks)}  (API summaries, "
              "agent.thinking.narration; token split unavailable)\n")
        if r.unknown_thinking_tags:
            w(f"  unknown thinking-signature tags {r.unknown_thinking_tags:,}  (neither thinking "
              "nor narration - a new API tag value)\n")
        if r.tools:
            w(f"  tools  {census_line(r.tools)}\n")
        if r.skipped_lines:
            w(f"  ({_malformed(r.skipped_lines)})\n")
        w("\n")
    if len(rows) > 1:
        _render_total(w, rows, top, sub, result.totals)
    skipped = sum(r.skipped_lines for r in rows)
    if skipped and len(rows) > 1:  # one row already said it
        w(f"({_malformed(skipped)})\n")
    if dropped:
        idle = sum(1 for r in rows if parse_ts(r.last_ts) is None)
        ranked = (f"; {idle} shown have no record in the window and are ranked by their "
                  "file's modification time" if idle else "")
        w(f"… (+{dropped:,} more session(s) not shown — the most recently active are aggregated "
          f"above{ranked}; narrow with a target or --since, or raise --max-count; 0 = all)\n")
    if result.notice is not None:
        w(f"{result.notice.line()}\n")


def _render_total(w: Any, rows: list[SessionStats], top: int, sub: int, totals: Totals
                  ) -> None:
    w(f"TOTAL  {len(rows):,} sessions ({top:,} top-level + {sub:,} subagent)\n")
    types = totals.line_types
    if types:
        w(f"  types  {census_line(types)}\n")
    w(f"  records {sum(r.user_records for r in rows):,} user + "
      f"{sum(r.assistant_records for r in rows):,} assistant · turns "
      f"{sum(r.turns for r in rows):,} · compactions {sum(r.compactions for r in rows):,}\n")
    _token_lines(w, totals.tokens)
    narration = totals.narration_blocks
    if narration:
        w(f"  narration blocks {census_line(narration)}\n")
    unknown = sum(r.unknown_thinking_tags for r in rows)
    if unknown:
        w(f"  unknown thinking-signature tags {unknown:,}\n")
    tools = totals.tools
    if tools:
        w(f"  tools  {census_line(tools, TOTAL_TOOLS_SHOWN)}\n")
