"""``pysift image``: list the images a session carries, address them, extract them
(SPEC §6.9).

Listing: every image in scope, in document order per transcript (transcripts interleaved
by time), an image re-sent later in the same transcript shown once at its latest
occurrence. ``--since/--until``, ``--uuid`` and ``--turn`` narrow the set; ``--id``
addresses images by their ``#N`` handle (bare digits) or ``L<line>i<n>`` locator within
one transcript; ``--out`` writes the selection (``commands.image_out``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from typing import Any, TextIO

from pysift.commands.scope import ScopeArgs
from pysift.core.grammar.ranges import RangeSpec, describe_items
from pysift.core.timez import text_ts, ts_pair
from pysift.engines import images as engine
from pysift.engines.images import ImageRow
from pysift.errors import NotFoundError, UsageError
from pysift.model.env import Env
from pysift.model.fastdata import dataclass
from pysift.output.fields import id_trio
from pysift.output.report import Report
from pysift.output.terminal import paint

MISMATCH_NOTES_SHOWN = 5


@dataclass(frozen=True, kw_only=True)
class ImageOptions:
    # the window (--since/--until) and the turn range narrow the images; max_count unused
    scope: ScopeArgs = field(default_factory=ScopeArgs)
    ids: tuple[str, ...] = ()
    uuid: str | None = None
    out: str | None = None
    force: bool = False


@dataclass(slots=True)
class Selection:
    rows: list[ImageRow]  # what is listed or extracted, in order
    transcripts: int  # transcripts the (filtered) image set spans
    skipped_lines: int
    folded: int  # re-sent copies folded into their latest occurrence (listing only)


@dataclass(frozen=True)
class ListingResult:
    """The listing: what the summary and the text footer both state."""

    selection: Selection
    env: Env

    def summary(self) -> dict[str, Any]:
        sel = self.selection
        return {"images": len(sel.rows), "transcripts": sel.transcripts,
                "skipped_lines": sel.skipped_lines, "repeats_folded": sel.folded}

    def render_text(self, out: TextIO) -> None:
        render_listing(out, self.selection, self.env)


def run(opts: ImageOptions, env: Env) -> Report:
    selectors = engine.parse_ids(opts.ids)
    if opts.uuid is not None and not opts.uuid.strip():
        raise UsageError("--uuid is empty; give the leading characters of a record uuid "
                         "(the ambiguity list and the JSON rows show them)")
    plan = None
    if opts.out is not None:
        from pysift.commands.image_out import plan_output

        plan = plan_output(opts.out, env, force=opts.force)
    scope = opts.scope.resolve(env)
    report = Report(command="image")
    report.take_scope(scope)
    selection = select(opts, selectors, scope.transcripts, report, env)
    _note_mismatches(report, selection.rows)
    if plan is not None:
        from pysift.commands.image_out import extract

        extract(plan, selection, report, env)
        return report
    report.rows = [image_row(r, env) for r in selection.rows]
    report.answer(ListingResult(selection, env))
    return report


def select(opts: ImageOptions, selectors: Sequence[engine.IdSelector], transcripts: list[Any],
           report: Report, env: Env) -> Selection:
    """Scan, narrow (time, uuid, turn), then resolve ``--id`` or fold repeats."""
    args = opts.scope
    scanned = engine.run(transcripts)
    for found in scanned:
        if found.error:
            report.unread(f"warning: skipped: {found.error}")
    skipped = sum(f.skipped_lines for f in scanned)
    rows = engine.chronological([f.rows for f in scanned])
    rows = [r for r in rows if engine.in_window(r, args.since, args.until)]
    if opts.uuid is not None:
        prefix = opts.uuid.strip()
        rows = [r for r in rows if (r.record_uuid or "").startswith(prefix)]
    if args.turns is not None:
        rows = _in_turns(rows, args.turns, report)
    if not selectors:
        kept, folded = engine.fold_repeats(rows)
        return Selection(kept, len(engine.transcripts_of(rows)), skipped, folded)
    engine.require_one_transcript(rows, "--id")
    resolution = engine.resolve_ids(selectors, rows)
    if resolution.ambiguous:
        raise NotFoundError(_ambiguity_message(resolution.ambiguous, rows, env))
    if resolution.missing:
        narrowed = args.windowed or opts.uuid is not None or args.turns is not None
        raise NotFoundError(engine.miss_message(
            resolution.missing, rows, "the narrowed scope" if narrowed else "the scope"))
    return Selection(resolution.selected, len(engine.transcripts_of(rows)), skipped, 0)


def _in_turns(rows: list[ImageRow], spec: RangeSpec, report: Report) -> list[ImageRow]:
    engine.require_one_transcript(rows, "--turn")
    if not rows:
        return rows
    _, turns = engine.turn_map_of(rows[0].transcript)
    last = turns.turn_count - 1
    missing = spec.missing(0, last)
    if missing:
        report.note(f"note: --turn {spec.format()}: the transcript has {turns.turn_count} "
                    f"turn(s) (t0..t{last}); no {describe_items(missing, 't')}")
    kept = []
    for row in rows:
        turn = engine.turn_of(turns, row)
        if turn is not None and spec.contains(turn, 0, last):
            kept.append(row)
    return kept


def _ambiguity_message(ambiguous: Sequence[engine.Ambiguity], rows: Sequence[ImageRow],
                       env: Env) -> str:
    buf, turns = engine.turn_map_of(rows[0].transcript)
    parts = []
    for amb in ambiguous:
        parts.append(
            f"--id {amb.seq} is ambiguous: #{amb.seq} names {len(amb.occurrences)} different "
            "images in this transcript (Claude Code numbers pasted images per prompt and "
            "reuses the numbers); pick one by its locator (`--id L<line>i<n>`), or narrow "
            "the scope with --since/--until, --turn or --uuid:")
        for row in amb.occurrences:
            turn = engine.turn_of(turns, row)
            where = f"t{turn}" if turn is not None else "draft"
            uuid = (row.record_uuid or "-")[:8]
            excerpt = engine.excerpt_around(engine.record_of(buf, row), amb.seq)
            parts.append(f"  #{amb.seq}  {row.id}  {where}  {text_ts(row.ts_utc, env.tz)}  "
                         f"uuid {uuid}  \"…{excerpt}…\"")
    return "\n".join(parts)


def _note_mismatches(report: Report, rows: Sequence[ImageRow]) -> None:
    """Records whose [Image #N] markers do not pair one-to-one with their images got no
    handle: said, never guessed."""
    seen: dict[tuple[str, int], ImageRow] = {}
    for row in rows:
        if row.markers and row.markers != row.images_in_record:
            seen.setdefault((str(row.transcript.path), row.line), row)
    if not seen:
        return
    shown = [f"L{r.line} of {r.transcript.session_id[:8]} ({r.markers} marker(s), "
             f"{r.images_in_record} image(s))" for r in list(seen.values())[:MISMATCH_NOTES_SHOWN]]
    more = (f" and {len(seen) - MISMATCH_NOTES_SHOWN} more record(s)"
            if len(seen) > MISMATCH_NOTES_SHOWN else "")
    report.note(f"note: no #N handle for the images of {'; '.join(shown)}{more}: the "
                "record's [Image #N] markers do not pair one-to-one with its images, so no "
                "number is guessed; address those images by their L<line>i<n> locator")


# -- rows and text -----------------------------------------------------------------------------


def human_size(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):.1f} MB"
    if n >= 1024:
        return f"{n // 1024} KB"
    return f"{n} B"


def image_row(r: ImageRow, env: Env) -> dict[str, Any]:
    t = r.transcript
    return {
        "kind": "image",
        "handle": r.handle,
        "seq": r.seq,
        "id": r.id,
        "line": r.line,
        "img_index": r.index,
        **id_trio(t.session_id, t.is_subagent, t.parent_session_id),
        "source_kind": r.source_kind,
        "media_type": r.media_type,
        "b64_len": r.b64_len,
        "est_bytes": r.est_bytes,
        "url": r.url,
        "record_uuid": r.record_uuid,
        **ts_pair("ts", r.ts_utc, env.tz),
    }


def subagent_tag(r: ImageRow, spanning: bool = False) -> str:
    """The row's transcript: a subagent always (csift), a top-level session when the
    listing spans several transcripts (its rows must say which one an id belongs to)."""
    t = r.transcript
    if t.is_subagent:
        return f"  SUBAGENT {t.session_id} · parent {t.parent_session_id}"
    return f"  SESSION {t.session_id}" if spanning else ""


def malformed_note(n: int) -> str:
    return f"{n} malformed line(s) skipped"


def _what(r: ImageRow) -> str:
    if r.source_kind == "url":
        return f"url {r.url or '(no url)'}"
    media = r.media_type or "(no media_type)"
    if not r.has_bytes:
        return f"{media} ({r.source_kind or 'no source'}: no inline bytes)"
    return f"{media} ~{human_size(r.est_bytes)}"


def render_listing(out: TextIO, sel: Selection, env: Env) -> None:
    w = out.write
    if not sel.rows:
        w("no images found\n")
        if sel.skipped_lines:
            w(f"({malformed_note(sel.skipped_lines)})\n")
        return
    for r in sel.rows:
        if r.seq is not None:
            paint(out, f"{r.handle:<5}", "id")
            w(" ")
        paint(out, r.id, "line")
        w(f"  {_what(r)}  {text_ts(r.ts_utc, env.tz)}{subagent_tag(r, sel.transcripts > 1)}\n")
    footer = f"{len(sel.rows)} image(s) · {sel.transcripts} transcript(s)"
    if sel.folded:
        footer += (f" · {sel.folded} re-sent cop(ies) folded into their latest occurrence "
                   "(--id reaches each)")
    if sel.skipped_lines:
        footer += f" · ({malformed_note(sel.skipped_lines)})"
    w(footer + "\n")
