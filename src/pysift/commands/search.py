"""``pysift search``: regex over transcripts, answered with round-trip exchanges (§6.2)."""

from __future__ import annotations

import shlex
from collections import Counter
from collections.abc import Callable
from dataclasses import field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from pysift.commands.scope import (
    ScopeArgs,
    malformed_of,
    no_such_turns,
    scope_banner,
    scope_header,
)
from pysift.core.cap import cap
from pysift.core.grammar.ranges import describe_items, format_range
from pysift.core.grammar.selectors import LabelFilter, expand, parse_filter
from pysift.core.resolve import Scope
from pysift.core.sidecar import unread_warning
from pysift.core.text import centered_excerpt, excerpt
from pysift.core.timez import text_ts, ts_pair
from pysift.disk.layout import Transcript
from pysift.engines.search.plan import SearchPlan
from pysift.errors import UsageError
from pysift.model import labels as L
from pysift.model.env import Env
from pysift.model.fastdata import dataclass
from pysift.output.fields import id_trio, target_ref
from pysift.output.hitline import indent_continuation, label_zone, write_unit_line
from pysift.output.report import Report
from pysift.output.terminal import paint, wants_colour

if TYPE_CHECKING:
    # the engine's result types: the engine itself is imported by run()
    from pysift.engines.search.engine import Census, LabelProbe, SearchResult
    from pysift.engines.search.exchanges import Exchange
    from pysift.engines.search.scan import Hit
    from pysift.engines.search.unseen import Unseen

EXCERPT_MAX_CHARS = 400
TRANSCRIPT_IDS_MAX = 100
COUNT_BY_AXES = ("label", "tool", "turn", "session", "pairing", "model", "attachment",
                 "version", "result")


@dataclass(frozen=True, kw_only=True)
class SearchOptions:
    # max_count is signed: +N the earliest exchanges, -N the latest, 0/None uncapped;
    # the time window and the turn range select the records searched
    scope: ScopeArgs = field(default_factory=ScopeArgs)
    pattern: str = ""
    labels: tuple[str, ...] = ()
    labels_not: tuple[str, ...] = ()
    ignore_case: bool = False
    multiline: bool = False
    count_only: bool = False
    sessions_with_matches: bool = False
    count_by: str | None = None
    raw: bool = False
    siblings: bool = False
    no_truncate: bool = False
    resolve_persisted: bool = False
    attachments: bool = False
    additional_context: bool = False


def validate(opts: SearchOptions) -> None:
    """The mode conflicts of §6.2; each error names the fix."""
    if opts.pattern.startswith("@"):
        raise UsageError(f"the pattern '{opts.pattern}' looks like a target; put the pattern "
                         "first and the target after it: pysift search PATTERN @<uuid> (to "
                         "search a literal @, write [@]…)")
    terminal = [name for name, on in (("-c", opts.count_only), ("-l", opts.sessions_with_matches),
                                      ("--count-by", opts.count_by is not None)) if on]
    if len(terminal) > 1:
        raise UsageError(f"{' and '.join(terminal)} are exclusive output modes; pick one")
    if opts.count_by is not None:
        if opts.count_by not in COUNT_BY_AXES:
            from pysift.core.suggest import did_you_mean

            raise UsageError(f"--count-by '{opts.count_by}' is not an axis"
                             f"{did_you_mean(opts.count_by, COUNT_BY_AXES)}; use one of "
                             f"{', '.join(COUNT_BY_AXES)}")
        for name, on in (("--siblings", opts.siblings), ("--raw", opts.raw)):
            if on:
                raise UsageError(f"--count-by prints a census; it cannot be combined with {name}")
    if opts.raw:
        for name, on in (("--format json", opts.scope.json), ("--siblings", opts.siblings),
                         ("-c", opts.count_only), ("-l", opts.sessions_with_matches),
                         ("--no-truncate", opts.no_truncate)):
            if on:
                raise UsageError(f"--raw prints verbatim jsonl lines; it cannot be combined "
                                 f"with {name}")
    if opts.sessions_with_matches and opts.scope.json:
        raise UsageError("-l prints one session id per line (pipe it into --sessions-from -); "
                         "for JSON use the summary's transcript_ids without -l")


def active_filters(opts: SearchOptions) -> str:
    parts = [f"-t {s}" for s in opts.labels] + [f"-T {s}" for s in opts.labels_not]
    if opts.scope.since_text:
        parts.append(f"--since {opts.scope.since_text}")
    if opts.scope.until_text:
        parts.append(f"--until {opts.scope.until_text}")
    if opts.scope.turns is not None:
        parts.append(f"--turn {format_range(opts.scope.turns)}")
    if opts.attachments:
        parts.append("--attachments")
    if opts.additional_context:
        parts.append("--additional-context")
    if opts.resolve_persisted:  # it replaces a persisted pointer by the output it names
        parts.append("--resolve-persisted")
    return " ".join(parts) or "none"


def _excludes(filt: LabelFilter, leaf: str) -> bool:
    """Whether a ``-T`` selector takes ``leaf`` out (the flag that opens a gate never
    brings back what the user subtracted)."""
    return any(leaf in expand(sel.strip()) for raw in filt.exclude for sel in raw.split(",")
               if sel.strip())


def build_plan(opts: SearchOptions, filt: LabelFilter) -> SearchPlan:
    from pysift.core.matcher import compile_pattern

    matcher = compile_pattern(opts.pattern, ignore_case=opts.ignore_case,
                              multiline=opts.multiline)
    attachments = opts.attachments or opts.count_by == "attachment"
    gates = set(filt.gates)
    if attachments:
        gates |= {L.HARNESS_META_ATTACHMENT}
        if not filt.include and not _excludes(filt, L.HARNESS_META_ATTACHMENT):
            filt = replace(filt, allowed=filt.allowed | {L.HARNESS_META_ATTACHMENT})
    else:
        gates.discard(L.HARNESS_META_ATTACHMENT)
    return SearchPlan(
        pattern=opts.pattern, matcher=matcher, labels=filt, since=opts.scope.since,
        until=opts.scope.until, turns=opts.scope.turns, attachments=attachments,
        additional_context=opts.additional_context or attachments,
        resolve_persisted=opts.resolve_persisted, want_raw=opts.raw, siblings=opts.siblings,
        gates=frozenset(gates), light=opts.count_only or opts.sessions_with_matches,
        keep_hits=opts.count_by is not None or opts.raw,
        leaf_views=opts.count_by == "label",
    )


def run(opts: SearchOptions, env: Env) -> Report:
    from pysift.engines import search as engine

    validate(opts)
    filt = parse_filter(opts.labels, opts.labels_not)
    plan = build_plan(opts, filt)
    scope = opts.scope.resolve(env)
    _check_turns(opts, scope)
    report = Report(command="search", header=scope_header(scope))
    report.take_scope(scope)
    _advisories(opts, scope, report)
    from pysift.disk.cache_place import open_store

    result = engine.run(scope.transcripts, plan,
                        cache=open_store(env.cache, env.now().timestamp()))
    if not (result.exchange_count or result.hits):
        _check_open_turns(opts, scope)  # (a window that held a hit covered a turn)
    if result.collapsed_drafts and (opts.count_only or opts.sessions_with_matches
                                    or opts.count_by is not None or opts.raw):
        report.note(f"note: {collapsed_drafts_note(result.collapsed_drafts)}")
    for o in result.outcomes:
        if o.error:
            report.unread(f"warning: skipped: {o.error}")
        if o.sidecar_error:
            report.unread(unread_warning(o.sidecar_error))
        for failure in o.persisted_failures:
            report.unread(f"warning: persisted output not resolved: {failure}")
    if opts.count_by is not None:
        return _census_report(opts, scope, result, report)
    if opts.raw:
        return _raw_report(opts, scope, result, report)
    return _exchange_report(opts, scope, result, report, env)


def _check_open_turns(opts: SearchOptions, scope: Scope) -> None:
    """After a zero: over ONE transcript a clamping ``--turn`` form that covers none of
    its turns (``-9..-7`` or ``-1..1`` of five) is the error ``show`` gives, as an
    explicit one is (``_check_turns``): there a window is an address. Asked only on a
    zero, so a window that matched never builds the turn map a second time."""
    spec = opts.scope.turns
    if spec is None or not spec.is_open or len(scope.transcripts) != 1:
        return
    from pysift.engines.search.engine import turn_reach

    count, owner = turn_reach(scope.transcripts, 0)
    if owner is None or spec.intervals(0, count - 1):
        return
    raise no_such_turns(format_range(spec), count, target_ref(owner.session_id, owner.path),
                        malformed=malformed_of(owner.path))


def _check_turns(opts: SearchOptions, scope: Scope) -> None:
    """An explicit ``--turn N`` / ``A..B`` naming a turn no transcript in scope has is the
    hard error ``show`` gives (it read as a DEFINITIVE absence); the clamping forms
    (``N..``, ``-k``) stay windows (``_check_open_turns`` for one transcript), and a turn
    some transcript has is searched."""
    spec = opts.scope.turns
    if spec is None or spec.is_open or not scope.transcripts:
        return
    from pysift.engines.search.engine import turn_reach

    need = max(item.start or 0 for item in spec.items if not item.is_open)
    count, owner = turn_reach(scope.transcripts, need)
    missing = spec.missing(0, count - 1)
    if not missing or owner is None:
        return
    several = len(scope.transcripts) > 1
    raise no_such_turns(describe_items(missing, "t"), count,
                        target_ref(owner.session_id, owner.path), several=several,
                        malformed=0 if several else malformed_of(owner.path))


def _advisories(opts: SearchOptions, scope: Scope, report: Report) -> None:
    from pysift.core.matcher import looks_like_uuid

    if (L.HARNESS_META_ATTACHMENT in parse_filter(opts.labels, opts.labels_not).gates
            and not opts.attachments and opts.count_by != "attachment"):
        report.note("note: attachment records are scanned only under --attachments; the "
                    "-t selector alone does not reach harness.meta.attachment (add "
                    "--attachments)")

    if opts.pattern and looks_like_uuid(opts.pattern):
        report.note(f"note: '{opts.pattern}' is uuid-shaped and is searched as a literal; to "
                    f"scope to that session pass it as a target: pysift search PATTERN "
                    f"@{opts.pattern}")
    if (not opts.pattern and not opts.labels and not opts.labels_not
            and not opts.scope.windowed and opts.scope.turns is None and not scope.scoped
            and opts.count_by is None and not opts.count_only):
        report.note("warning: empty pattern with no category/time/turn/session filter matches "
                    "every record in scope and will emit a lot; add a category (-t), --since, "
                    "--turn or a target (or --count-by label to see what the scope holds)")


# -- exchanges --------------------------------------------------------------------------

def _excerpt(hit: Hit, no_truncate: bool) -> tuple[str, bool]:
    if no_truncate:
        return hit.text, False
    if hit.span is None:
        text, dropped = excerpt(hit.text, EXCERPT_MAX_CHARS)
        return text, dropped > 0
    return centered_excerpt(hit.text, hit.span[0], hit.span[1], EXCERPT_MAX_CHARS)


def refetch(hit: Hit, session_id: str, path: Path | str) -> str | None:
    if hit.line is not None:
        return f"pysift show {target_ref(session_id, path)} --line {hit.line}"
    if hit.uuid:
        return f"pysift show {target_ref(session_id, path)} --uuid {hit.uuid}"
    return None


def hit_row(hit: Hit, ex: Exchange, env: Env, no_truncate: bool) -> tuple[dict[str, Any], bool]:
    t = ex.transcript
    text, clipped = _excerpt(hit, no_truncate)
    unit = hit.unit
    return {
        **id_trio(t.session_id, t.is_subagent, t.parent_session_id),
        "label": hit.label,
        "labels": list(hit.labels),
        "excerpt": text,
        **ts_pair("ts", hit.ts, env.tz),
        "tool_name": unit.tool_name,
        "from": unit.from_,
        "to": unit.to,
        "pairing": hit.pairing,
        "is_error": unit.is_error if L.AGENT_TOOL_RESULT in hit.labels else None,
        "tool_use_id": unit.tool_use_id,
        "queue_operation": unit.queue_operation,
        "queue_reason": unit.queue_reason,
        "line": hit.line,
        "uuid": hit.uuid,
        "source": hit.source,
        "image_ids": list(hit.image_ids),
        "refetch": refetch(hit, t.session_id, t.path),
    }, clipped


def _exchange_report(opts: SearchOptions, scope: Scope, result: SearchResult,
                     report: Report, env: Env) -> Report:
    if opts.count_only:
        return _count_report(opts, scope, result, report)
    if opts.sessions_with_matches:
        return _owners_report(opts, scope, result, report)
    ordered = result.ordered_exchanges()
    kept, over = cap(ordered, opts.scope.max_count)
    rows, any_clipped = [], False
    for ex in kept:
        row, clipped = exchange_row(ex, env, opts)
        any_clipped = any_clipped or clipped
        rows.append(row)
    absence = _zero_match(opts, scope, result, report) if not ordered else None
    report.rows = rows
    report.answer(ExchangesResult(
        opts=opts, scope=scope, kept=kept, total=len(ordered),
        sessions=len({ex.transcript.session_id for ex in ordered}), dropped=len(over),
        malformed=result.malformed, collapsed=result.collapsed_drafts, clipped=any_clipped,
        env=env, absence=absence, matcher=result.plan.matcher))
    return report


@dataclass(frozen=True, kw_only=True)
class ExchangesResult:
    """The exchanges shown (the cap applied) with the run's totals. The JSON summary
    speaks of what is emitted (``matched``: the exchanges kept), the text's head and
    footer of the TRUE totals (``total`` over ``sessions``) beside the cap's drop."""

    opts: SearchOptions
    scope: Scope
    kept: list[Exchange]
    total: int  # exchanges before the cap
    sessions: int  # sessions owning them, before the cap
    dropped: int
    malformed: int
    collapsed: int  # superseded drafts the pattern matched that the selection hides
    clipped: bool  # an excerpt shown (hit or sibling) is cut
    env: Env
    absence: Absence | None = None  # zero matches: the diagnosis the summary carries
    matcher: Any = None  # core.matcher.Matcher: a painting stream highlights its matches

    @property
    def drafts(self) -> int:
        """Superseded drafts emitted as ·draft units."""
        return sum(1 for ex in self.kept if ex.draft)

    @property
    def sidecar_used(self) -> bool:
        """Of the exchanges emitted, not of one the cap dropped."""
        return any(h.source for ex in self.kept for h in (*ex.hits, *ex.siblings))

    def summary(self) -> dict[str, Any]:
        ids = sorted({ex.transcript.session_id for ex in self.kept})
        out: dict[str, Any] = {
            "matched": len(self.kept),
            "sessions": len(ids),
            "transcript_ids": ids[:TRANSCRIPT_IDS_MAX],
            "transcript_ids_truncated": len(ids) > TRANSCRIPT_IDS_MAX,
            "dropped_by_cap": self.dropped,
            "skipped_lines": self.malformed,
            "superseded_drafts": self.drafts + self.collapsed,
            "with_elicitation_sidecar": self.sidecar_used,
            "excerpts_truncated": self.clipped,
        }
        if self.absence is not None:
            out.update(self.absence.fields())
        return out

    def render_text(self, out: TextIO) -> None:
        if self.total:  # a zero says everything on stderr; stdout stays empty
            render_text(out, self)


@dataclass(frozen=True)
class CountResult:
    """``-c``: the number of exchanges, uncapped (nothing to order, cap or render)."""

    matched: int

    def summary(self) -> dict[str, Any]:
        return {"matched": self.matched}

    def render_text(self, out: TextIO) -> None:
        out.write(f"{self.matched}\n")


@dataclass(frozen=True)
class OwnersResult:
    """``-l``: every session owning an exchange, sorted and uncapped (text only)."""

    owners: list[str]

    def summary(self) -> dict[str, Any]:
        return {}

    def render_text(self, out: TextIO) -> None:
        out.write("".join(f"{o}\n" for o in self.owners))


def _count_report(opts: SearchOptions, scope: Scope, result: SearchResult,
                  report: Report) -> Report:
    total = result.exchange_count
    report.answer(CountResult(total))
    if result.malformed:
        report.note(f"note: {result.malformed} malformed line(s) skipped")
    if result.sidecar_used:  # a pending question counted among the exchanges
        report.note("note: with elicitation sidecar")
    if total == 0:  # the same diagnosis as a listing's zero (the -c number stays alone)
        _zero_match(opts, scope, result, report)
    return report


def _owners_report(opts: SearchOptions, scope: Scope, result: SearchResult,
                   report: Report) -> Report:
    owners = result.owners()
    report.answer(OwnersResult(owners))
    if opts.scope.max_count:
        report.note(f"note: -l lists every owning session ({len(owners)}); --max-count "
                    "does not cap it")
    if not owners:
        _zero_match(opts, scope, result, report)
    return report


def exchange_row(ex: Exchange, env: Env, opts: SearchOptions) -> tuple[dict[str, Any], bool]:
    t = ex.transcript
    hits = []
    clipped_any = False
    for hit in ex.hits:
        hit_out, clipped = hit_row(hit, ex, env, opts.no_truncate)
        clipped_any = clipped_any or clipped
        hits.append(hit_out)
    row: dict[str, Any] = {
        "kind": "exchange",
        **id_trio(t.session_id, t.is_subagent, t.parent_session_id),
        "turn_index": ex.turn,
        "superseded_draft": ex.draft,
        **ts_pair("ts", ex.ts, env.tz),
        "hits": hits,
        "record_uuids": list(ex.record_uuids),
    }
    if opts.siblings and (ex.siblings or ex.siblings_hidden):
        siblings = []
        for sib in ex.siblings:  # a clipped sibling excerpt is a clipped excerpt too
            sib_row, clipped = hit_row(sib, ex, env, opts.no_truncate)
            clipped_any = clipped_any or clipped
            siblings.append(sib_row)
        row["siblings"] = siblings
        row["siblings_hidden"] = ex.siblings_hidden
        row["turn_lines"] = list(ex.turn_lines) if ex.turn_lines else None
    return row, clipped_any


def header_tokens(exchanges: list[Exchange]) -> dict[str, str]:
    """Stable id-prefix tokens: 8 chars, lengthened to 12 then full on collisions."""
    ids = sorted({ex.transcript.session_id for ex in exchanges})
    tokens: dict[str, str] = {}
    for width in (8, 12, None):
        pending = [i for i in ids if i not in tokens]
        groups: dict[str, list[str]] = {}
        for ident in pending:
            groups.setdefault(ident if width is None else ident[:width], []).append(ident)
        for tok, members in groups.items():
            if len(members) == 1 or width is None:
                for m in members:
                    tokens[m] = m if width is None else tok
    for ident in ids:
        if not _is_hexish(ident):
            tokens[ident] = ident  # teammate ids render whole
    return tokens


def _is_hexish(ident: str) -> bool:
    return all(c in "0123456789abcdef-" for c in ident.lower())


def render_text(out: TextIO, result: ExchangesResult) -> None:
    """The head banner and the footer state the TRUE totals (``total`` exchanges over
    ``sessions`` transcripts, before the cap); the cap's window and drop are said beside
    them."""
    opts, kept, env = result.opts, result.kept, result.env
    total, sessions, dropped = result.total, result.sessions, result.dropped
    latest = (opts.scope.max_count or 0) < 0
    w = out.write
    banner = scope_banner(result.scope)
    if banner:
        w(banner + "\n\n")
    head = f"matches  {total} exchange(s) · {sessions} session(s) · oldest first"
    if dropped:
        head += f" · showing {'latest' if latest else 'earliest'} {len(kept)}"
    if any(ex.ts is None for ex in kept):
        head += " · undated last"
    w(head + "\n")
    tokens = header_tokens(kept)
    matcher = result.matcher if wants_colour(out) else None
    hint = _ImageHint()
    for ex in kept:
        t = ex.transcript
        tok = tokens[t.session_id]
        when = text_ts(ex.ts, env.tz, millis=True)
        turn = "draft" if ex.draft else f"t{ex.turn}"
        w("\n")
        paint(out, f"{tok}·{turn}", "id")
        if t.is_subagent:
            w(" (parent ")
            paint(out, t.parent_session_id[:8], "id")
            w(")")
        w("  ")
        paint(out, when, "when")
        w("\n")
        for hit in ex.hits:
            _write_hit(out, hit, opts, "  ", matcher=matcher)
            if t.is_subagent and hit.line is not None:
                w(f"      ↳ pysift show {target_ref(t.session_id, t.path)} --line {hit.line}\n")
            hint.after(w, hit, t)
        if opts.siblings:
            for sib in ex.siblings:
                _write_hit(out, sib, opts, "  ", sibling=True)
                hint.after(w, sib, t)
            if ex.siblings_hidden and ex.hidden_lines:
                a, b = ex.hidden_lines
                w(f"  · (+{ex.siblings_hidden} more · pysift show {target_ref(t.session_id, t.path)} "
                  f"--line {a}..{b})\n")
    footer = (f"\nmatched {total} exchange(s) · {sessions} session(s) · "
              f"label={','.join(opts.labels) if opts.labels else 'all'}")
    if opts.labels_not:
        footer += f" · label-not={','.join(opts.labels_not)}"
    if dropped:
        which = "earlier" if latest else "later"
        footer += f" · {dropped} {which} dropped by --max-count"
    w(footer + "\n")
    if result.sidecar_used:
        w("with elicitation sidecar\n")
    drafts = result.drafts
    if drafts:
        w(f"({drafts} superseded draft(s) shown as ·draft units — esc-recalled and re-sent, not "
          "in the surviving conversation; -T user.unsent hides them)\n")
    if result.collapsed:
        w(f"({collapsed_drafts_note(result.collapsed)})\n")
    if result.malformed:
        w(f"({result.malformed} malformed line(s) skipped)\n")
    if hint.shown:
        w("note: image annotations above are extractable, not decorative: pysift image "
          "<target> --id <ID> --out DIR (a #N handle typed as its bare number), then Read the "
          "decoded file\n")
    if result.clipped:
        w("\nnote: matches above are TRUNCATED — each excerpt is a match-centred fragment, not "
          "a summary, and can misread the record's intent.\n"
          "  read a record whole: pysift show @<id> --line <N> (or --uuid <U>)\n"
          "  or rerun with --no-truncate\n")


def collapsed_drafts_note(n: int) -> str:
    """Drafts the pattern matched that the -t selection hides (csift's collapse count)."""
    return (f"{n} superseded draft(s) collapsed — esc-recalled and re-sent, not in the "
            "surviving conversation; add -t user.unsent to see them")


class _ImageHint:
    """The paste-ready extraction command, printed once per run under the first row whose
    record carries images (ids as typed: ``#7`` is shown, ``--id 7`` is typed)."""

    __slots__ = ("shown",)

    def __init__(self) -> None:
        self.shown = False

    def after(self, w: Callable[[str], object], hit: Hit, t: Transcript) -> None:
        if self.shown or not hit.image_ids:
            return
        self.shown = True
        first = hit.image_ids[0].lstrip("#")
        w(f"      ↳ read the image(s): pysift image {target_ref(t.session_id, t.path)} "
          f"--no-subagents --id {first} --out DIR  (decodes to a file you can Read)\n")


def _write_hit(out: TextIO, hit: Hit, opts: SearchOptions, indent: str, sibling: bool = False,
               matcher: Any = None) -> None:
    """One hit line: label zone, line, excerpt (``matcher``: paint its matches)."""
    unit = hit.unit
    zone = label_zone(hit.label, tool_name=unit.tool_name, pairing=hit.pairing,
                      is_error=unit.is_error, from_=unit.from_, to=unit.to, tag=_tag(hit))
    if sibling:
        zone = "· " + zone.split(" ", 1)[1]
    text, _ = _excerpt(hit, opts.no_truncate)
    if opts.no_truncate:
        text = indent_continuation(text)
    matches = ([s for s in matcher.finditer(text) if s[1] > s[0]]
               if matcher is not None and not sibling and hit.span is not None else ())
    write_unit_line(out, indent, zone, hit.line, text, hit.image_ids, matches)


def _tag(hit: Hit) -> str | None:
    unit = hit.unit
    if unit.queue_operation:
        if unit.queue_reason:
            return f"[{unit.queue_operation} · {unit.queue_reason}]"
        return f"[{unit.queue_operation}]"
    return unit.tag


# -- zero match ---------------------------------------------------------------------------

def _absence_line(opts: SearchOptions, scope: Scope, result: SearchResult,
                  report: Report, probe: bool = False) -> bool:
    """The zero-match line every mode prints; returns whether the zero is a definitive
    absence. It is not when a transcript, a dir, a sidecar or an asked-for persisted output
    could not be read, nor (``probe``: the engine's label probe may be asked) when the -t
    selection names a leaf the run could not reach for lack of its flag and records under
    that leaf do hold the pattern (``-t harness.meta.attachment`` without
    ``--attachments``)."""
    # a transcript, its elicitation sidecar or (--resolve-persisted) a persisted output
    # that exists but was not read: what it holds was not searched
    unread = len(scope.unreadable) + result.unread
    where = f"Scope: {len(scope.transcripts)} session(s). Active filters: {active_filters(opts)}."
    starved = _starved_hits(opts, result) if probe and not unread else {}
    unseen = result.unseen() if opts.pattern and not unread and not starved else []
    persisted = (result.persisted_unseen() if opts.pattern and not unread and not starved
                 and not unseen else [])
    if unread:
        report.note(f"0 matches in what could be read — NOT a definitive absence: {unread} "
                    f"file(s) or dir(s) could not be read (warnings above). {where}")
    elif starved:
        named = " · ".join(f"{leaf} ×{n}" for leaf, n in starved.items())
        report.note(f"0 matches — NOT a definitive absence: records the -t selection names "
                    f"hold the pattern ({named}) but are read only under --attachments; add "
                    f"--attachments. {where}")
    elif unseen:
        _unseen_note(unseen, report, where)
    elif persisted:
        _persisted_note(persisted, report, where)
    else:
        report.note(f"0 matches — a DEFINITIVE absence (exit 0), NOT an error. {where}")
    return not unread and not starved and not unseen and not persisted


def _persisted_note(paths: list[str], report: Report, where: str) -> None:
    """The zero is no absence: persisted tool outputs of the sessions in scope hold the
    pattern, and this search read only their previews (``--resolve-persisted`` reads them)."""
    from pysift.engines.search.persisted import PERSISTED_LIMIT

    count = (f"at least {len(paths)} persisted tool output(s) (the check stops there)"
             if len(paths) >= PERSISTED_LIMIT else f"{len(paths)} persisted tool output(s)")
    more = (f" (+{len(paths) - _UNSEEN_SHOWN} more)" if len(paths) > _UNSEEN_SHOWN else "")
    report.note(f"0 matches — NOT a definitive absence: the pattern occurs in {count} of "
                f"the sessions in scope, which this search read only as the preview their "
                f"tool result holds: {', '.join(paths[:_UNSEEN_SHOWN])}{more}. Add "
                f"--resolve-persisted to search them. {where}")


_UNSEEN_SHOWN = 5


def _unseen_note(unseen: list[Unseen], report: Report, where: str) -> None:
    """The zero is no absence: the pattern's text sits in records this search does not
    read (SPEC §7: unclassified records, gated leaves the run did not open, a record's
    second view)."""
    from pysift.engines.search.unseen import ESCAPED, UNSEEN_LIMIT

    stopped = len(unseen) >= UNSEEN_LIMIT  # then every count below is a lower bound
    least = "≥" if stopped else ""
    kinds = Counter(u.why for u in unseen)
    named = " · ".join(f"{why} ×{least}{n}" for why, n in sorted(
        kinds.items(), key=lambda kv: (-kv[1], kv[0])))
    shown = ", ".join(f"@{u.session} line {u.line}" if u.line is not None
                      else f"@{u.session} elicitation sidecar" for u in unseen[:_UNSEEN_SHOWN])
    more = (f" (+{len(unseen) - _UNSEEN_SHOWN} {'or more' if stopped else 'more'})"
            if len(unseen) > _UNSEEN_SHOWN else "")
    count = (f"at least {len(unseen)} record(s) (the check stops there)"
             if stopped else f"{len(unseen)} record(s)")
    # a pending record of the sidecar has no line to show: its file is named instead
    first = next((u for u in unseen if u.line is not None), None)
    pending = next((u for u in unseen if u.line is None), None)
    read = (f"Read one with: pysift show @{first.session} --line {first.line} --raw"
            if first is not None else "")
    if pending is not None:
        read += ("; a" if read else "A") + (f" pending elicitation's record is in "
                                            f"{pending.sidecar} (uuid {pending.uuid})")
    unread_by_all = ("an unclassified record, text a record's rendering leaves out, such "
                     "as a task notification's tags, and the text beside a pending "
                     "elicitation's question (until Claude Code writes its record) are "
                     if pending is not None else
                     "an unclassified record, and text a record's rendering leaves out, "
                     "such as a task notification's tags, are ")
    # a tool call's input, an attachment's payload: rendered as JSON, found so spelled
    escaped = ("; a view that spells the text escaped renders it as JSON (a quote reads "
               '\\", a line break \\n): search that spelling (\\\\" and \\\\n in the pattern)'
               if any(u.why == ESCAPED for u in unseen) else "")
    report.note(f"0 matches — NOT a definitive absence: the pattern occurs in "
                f"{count} this search does not read ({named}): {shown}{more}. "
                f"{read}{escaped} "
                f"(a gated leaf is searched with an explicit -t, attachments with "
                f"--attachments, hook context with --additional-context, a record's second "
                f"label with a -t naming it; {unread_by_all}searchable "
                f"by no selection). {where}")


def _starved_hits(opts: SearchOptions, result: SearchResult) -> dict[str, int]:
    """Per selected leaf the run could not reach for lack of its flag, how many records
    under it the pattern matches (a probe with every gate open; paid only on a zero)."""
    if (L.HARNESS_META_ATTACHMENT not in parse_filter(opts.labels, opts.labels_not).gates
            or result.plan.attachments or opts.count_by == "attachment"):
        return {}
    found = result.label_probe(open_gates=True).by_label.get(L.HARNESS_META_ATTACHMENT, 0)
    return {L.HARNESS_META_ATTACHMENT: found} if found else {}


@dataclass(frozen=True)
class Absence:
    """What a zero-match search says of its zero (the exchange summary carries it)."""

    definitive: bool
    active_filters: str
    gated_leaves_unreached: bool
    excluded_by_label: dict[str, Any] | None

    def fields(self) -> dict[str, Any]:
        return {"definitive_absence": self.definitive, "active_filters": self.active_filters,
                "gated_leaves_unreached": self.gated_leaves_unreached,
                "excluded_by_label": self.excluded_by_label}


def _zero_match(opts: SearchOptions, scope: Scope, result: SearchResult,
                report: Report) -> Absence:
    """The zero-match diagnosis on stderr: is the zero definitive, would the pattern
    occur without the label filter (the engine's label probe), what was not searched."""
    plan = result.plan
    filters = active_filters(opts)
    definitive = _absence_line(opts, scope, result, report, probe=True)
    if result.malformed:
        report.note(f"caution: {result.malformed} malformed line(s) were skipped: the absence "
                    "is definitive for the parseable lines only, a match inside them cannot "
                    "be ruled out (full census: pysift stats)")
    excluded = None
    probed_gates = False
    if opts.labels or opts.labels_not:
        probe = result.label_probe()
        if probe.by_label:
            ranked = probe.ranked()
            report.note(f"⚠ but \"{opts.pattern}\" DOES occur — {probe.records} record(s) "
                        f"under: {_shown(ranked)}. Your -t/-T excluded them; drop -t/-T or "
                        "select one of those labels.")
            excluded = {"records": probe.records, "by_label": dict(ranked)}
        else:
            # not on the default surface: the gated bookkeeping leaves may still hold it
            # (an explicit -t of a gated leaf without its flag, or a role selector)
            probe = result.label_probe(open_gates=True)
            probed_gates = True
            if probe.by_label:
                ranked = probe.ranked()
                report.note(f"⚠ but \"{opts.pattern}\" DOES occur in gated bookkeeping "
                            f"records — {probe.records} record(s) under: {_shown(ranked)}. "
                            f"{_gate_advice(plan, probe)}")
                excluded = {"records": probe.records, "by_label": dict(ranked)}
            elif opts.pattern and (result.unseen() or result.persisted_unseen()):
                pass  # not absent: the absence line named the records (files) that hold it
            elif opts.pattern:
                report.note(f"\"{opts.pattern}\" is genuinely absent even without the label "
                            "filter, gated bookkeeping leaves included.")
            else:  # a pure filter: no pattern to be absent, the other filters left nothing
                report.note(f"no record in scope passes the filters ({filters}), even "
                            "without the label filter, gated bookkeeping leaves included.")
    else:
        args = opts.scope
        target = (" ".join(shlex.quote(t) for t in args.targets) + " " if args.targets
                  else "<target> " if args.sessions_from is not None else "")
        report.note(f"hint: see what this scope holds with: pysift search \"\" {target}"
                    "--count-by label")
    if opts.pattern and not opts.resolve_persisted and plan.wants_carriers:
        # (only a selection that reads tool results could find text in their outputs)
        persisted = result.persisted_outputs()
        if persisted:
            report.note(f"note: {persisted} tool output(s) of the sessions in scope are "
                        "persisted outside their transcripts (<session>/tool-results/) and "
                        "were not searched beyond their preview; add --resolve-persisted to "
                        "search them too")
    unreached = not plan.gates
    if unreached and not probed_gates and definitive:
        report.note("note: the gated bookkeeping leaves (user.queued, harness.meta.turn-duration, "
                    "away-summary, stop-hooks, snapshot, system, attachment) were not searched; "
                    "reach them with an explicit -t (e.g. -t harness.meta) or --attachments")
    return Absence(definitive, filters, unreached, excluded)


def _shown(ranked: list[tuple[str, int]]) -> str:
    shown = " · ".join(f"{leaf} ×{count}" for leaf, count in ranked[:6])
    return shown + (f" (+{len(ranked) - 6} more label(s))" if len(ranked) > 6 else "")


def _gate_advice(plan: SearchPlan, probe: LabelProbe) -> str:
    """How to reach the records the gated probe found: what the run lacked for each."""
    steps = []
    found = probe.by_label
    if any(leaf in L.GATED and leaf != L.HARNESS_META_ATTACHMENT for leaf in found):
        steps.append("name the leaf with -t (a bare role or a -T-only filter never reaches "
                     "a gated leaf)")
    if L.HARNESS_META_ATTACHMENT in found and not plan.attachments:
        steps.append("add --attachments for harness.meta.attachment")
    if L.HARNESS_META_HOOK in found and not plan.additional_context:
        steps.append("add --additional-context for the hook context under harness.meta.hook")
    return ("Reach them: " + "; ".join(steps) + ".") if steps else \
        "Your -t/-T excluded them; select one of those labels."


# -- census -------------------------------------------------------------------------------

def _census_report(opts: SearchOptions, scope: Scope, result: SearchResult,
                   report: Report) -> Report:
    axis = opts.count_by or "label"
    census = result.census(axis, parse_filter(opts.labels, opts.labels_not).allowed)
    shown, over = cap(census.counts, opts.scope.max_count)
    counted = CensusResult(census, shown, dropped=len(over), malformed=result.malformed)
    report.rows = [{"kind": "census", "axis": axis, "key": k, "records": c} for k, c in shown]
    report.answer(counted)
    report.note(counted.tally_line())
    if result.malformed:
        report.note(f"note: {result.malformed} malformed line(s) skipped")
    if result.sidecar_used:
        report.note("note: with elicitation sidecar")
    if census.matched_records == 0:
        _absence_line(opts, scope, result, report)
    return report


@dataclass(frozen=True)
class CensusResult:
    """``--count-by``: the keys shown (the cap applied) of the engine's census."""

    census: Census
    shown: list[tuple[str, int]]
    dropped: int
    malformed: int

    def summary(self) -> dict[str, Any]:
        c = self.census
        return {"axis": c.axis, "matched_records": c.matched_records,
                "distinct_keys": len(c.counts), "excluded_records": c.excluded_records,
                "multi_key_records": c.multi_key_records,
                "dropped_by_cap": self.dropped, "skipped_lines": self.malformed}

    def render_text(self, out: TextIO) -> None:
        out.write("".join(f"{n:7d}  {key}\n" for key, n in self.shown))

    def tally_line(self) -> str:
        """The stderr line that says what the census covers."""
        c = self.census
        line = f"{c.matched_records} matched record(s) across {len(c.counts)} {c.axis} key(s)"
        if c.excluded_records:
            line += f" · {c.excluded_records} record(s) have no {c.axis} (outside this axis)"
        if c.multi_key_records:
            line += (f" · {c.multi_key_records} record(s) counted under several keys (once "
                     "under each: the counts add up to more than the records)")
        if self.dropped:
            line += f" · {self.dropped} key(s) dropped by --max-count"
        return line


# -- raw ----------------------------------------------------------------------------------

def _raw_report(opts: SearchOptions, scope: Scope, result: SearchResult, report: Report
                ) -> Report:
    exchanges = result.raw_lines()
    kept_ex, over = cap(exchanges, opts.scope.max_count)
    kept = [line for lines, _ in kept_ex for line in lines]
    report.raw_lines = kept  # a clean run says nothing on stderr (csift): stdout is the answer
    if over:
        dropped_lines = sum(len(lines) for lines, _ in over)
        dropped_pending = sum(n for _, n in over)
        also = (f" and {dropped_pending} elicitation-sidecar record(s)" if dropped_pending
                else "")
        report.note(f"note: {len(over)} exchange(s) ({dropped_lines} line(s){also}) "
                    "dropped by --max-count")
    sidecar = sum(n for _, n in kept_ex)  # of what was kept: the cap's note counts the rest
    if sidecar:
        report.note(f"note: {sidecar} elicitation-sidecar record(s) omitted (no physical line)")
    if result.malformed:
        report.note(f"note: {result.malformed} malformed line(s) skipped")
    if not kept and not sidecar:  # a sidecar match is a match with no line to print
        _absence_line(opts, scope, result, report)
    return report

