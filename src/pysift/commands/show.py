"""``pysift show``: fetch the records you name from ONE transcript (§6.11)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import replace
from typing import Any, TextIO

from pysift.commands.scope import no_such_turns
from pysift.core.blocks import block_sha256
from pysift.core.cap import cap
from pysift.core.grammar.ranges import RangeItem, RangeSpec, describe_items, format_range
from pysift.core.resolve import resolve_scope
from pysift.core.sidecar import unread_warning
from pysift.core.timez import text_ts, ts_pair
from pysift.disk.layout import Transcript
from pysift.engines.fetch import Fetched, TranscriptView, block_text, open_view
from pysift.errors import NotFoundError, SiftError, TargetError, UsageError
from pysift.model.env import Env
from pysift.model.fastdata import dataclass
from pysift.output.fields import id_trio, target_ref
from pysift.output.hitline import indent_continuation, label_zone, write_unit_line
from pysift.output.report import Report
from pysift.output.terminal import paint

DEFAULT_SHOW_CAP = 200


@dataclass(frozen=True, kw_only=True)
class ShowOptions:
    target: str
    lines: tuple[RangeSpec, ...] = ()
    uuids: tuple[str, ...] = ()
    turns: RangeSpec | None = None
    raw: bool = False
    max_count: int | None = None  # None = the 200-unit default; 0 = uncapped
    branch_points: bool = False
    block: str | None = None
    sha256: str | None = None


def resolve_one(target: str, env: Env) -> Transcript:
    # a single-record fetch is an address: a uuid copied into several project dirs is
    # named by the paths of its copies, never read from the newest one
    scope = resolve_scope([target], env, subagents=False, copies=True)
    if len(scope.transcripts) != 1:
        found = scope.transcripts
        more = " …" if len(found) > 8 else ""
        if len({t.session_id for t in found}) < len(found):
            # one id in several project dirs (a copied project): only a path tells them apart
            names = ", ".join(shlex.quote(str(t.path)) for t in found[:8])
            hint = "name one by its path (the same id is in more than one project dir)"
        else:
            names = ", ".join(t.session_id for t in found[:8])
            hint = "name one with @<uuid> or @<agent-id>"
        raise TargetError(
            f"show needs exactly one transcript, but {target} resolves to "
            f"{len(found)} ({names}{more}); {hint}"
        )
    return scope.transcripts[0]


def _ref(view: TranscriptView) -> str:
    return target_ref(view.transcript.session_id, view.transcript.path)


def _modes(opts: ShowOptions) -> int:
    return sum(bool(x) for x in (opts.lines, opts.uuids, opts.turns is not None,
                                 opts.branch_points, opts.block))


def _no_address(transcript: Transcript) -> UsageError:
    """No address: the error names the transcript the target resolved to (csift §6.11),
    so the next command can be written at once."""
    ref = target_ref(transcript.session_id, transcript.path)
    return UsageError(f"show needs an address for {transcript.path}: --line N|A..B, --uuid U, "
                      f"--turn N|A..B|-k, --block ID or --branch-points (pysift never dumps a "
                      f"whole transcript); e.g. pysift show {ref} --turn -1")


def _check_modes(opts: ShowOptions) -> None:
    modes = _modes(opts)
    if modes > 1:
        raise UsageError("--line, --uuid, --turn, --block and --branch-points are mutually "
                         "exclusive; pick one addressing mode")
    if opts.sha256 is not None and not opts.block:
        raise UsageError("--sha256 verifies a --block fetch; add --block ID")
    if opts.raw and (opts.branch_points or opts.block):
        raise UsageError("--raw goes with --line, --uuid or --turn")
    _check_utf8("--uuid", *opts.uuids)
    _check_utf8("--block", opts.block)


def _check_utf8(flag: str, *values: str | None) -> None:
    """An id holding an undecodable byte (argv arrives with surrogateescape) names nothing:
    record ids are UTF-8 JSON strings. A usage error, not a traceback from the byte search."""
    for value in values:
        if value is None:
            continue
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            from pysift.output.surrogates import escaped

            raise UsageError(f"{flag} `{escaped(value)}` holds bytes that are not UTF-8, and "
                             "no transcript id does; copy the id from pysift search "
                             "--format json") from None


_SHA256_HEX = re.compile(r"[0-9a-fA-F]{64}")


def sha256_digest(value: str) -> str:
    """The digest ``--sha256`` names, as lowercase hex: 64 hex digits, either case, an
    optional ``sha256:`` prefix, surrounding whitespace ignored. Anything else is a usage
    error: a check that cannot match is no check (an empty value skipped it, a short one
    read as a mismatch, as if the block had changed)."""
    digest = value.strip()
    if digest[:7].lower() == "sha256:":
        digest = digest[7:]
    if _SHA256_HEX.fullmatch(digest):
        return digest.lower()
    what = "is empty" if not value.strip() else f"`{value}` is not a SHA-256 digest"
    raise UsageError(f"--sha256 {what}; a SHA-256 is 64 hex digits (as sha256sum prints "
                     "it, `sha256:` prefix optional); copy the `sha256` a block fetch "
                     "prints, or drop --sha256 to fetch the block unverified")


def run(opts: ShowOptions, env: Env) -> Report:
    _check_modes(opts)
    if opts.sha256 is not None:
        opts = replace(opts, sha256=sha256_digest(opts.sha256))
    transcript = resolve_one(opts.target, env)
    if not _modes(opts):
        raise _no_address(transcript)
    try:
        view = open_view(transcript)
    except SiftError:
        raise
    if opts.block:
        return _run_block(view, opts)
    if opts.branch_points:
        from pysift.commands.show_branches import run_branch_points

        return run_branch_points(view, env)
    header = {**id_trio(transcript.session_id, transcript.is_subagent,
                        transcript.parent_session_id), "path": str(transcript.path)}
    addressed, covered, non_record, merged = _collect(view, opts)
    limit = DEFAULT_SHOW_CAP if opts.max_count is None else opts.max_count
    ref = target_ref(transcript.session_id, transcript.path)
    if opts.raw:
        return _raw_report(view, opts, addressed, limit, ref, header)
    units: list[Fetched] = [u for _, group in addressed for u in group]
    kept, dropped = cap(units, _whole_line_cut(units, limit))
    # the sidecar flag speaks of what is printed, not of a record the cap dropped
    sidecar_used = merged and any(u.line is None for u in kept)
    remainder = None
    bookkeeping = 0
    if dropped:
        first = next((u.line for u in dropped if u.line is not None), None)
        uuids = list(dict.fromkeys(u.uuid for u in dropped))
        if any(u.line is None for u in dropped) and all(uuids):
            # a record merged from the elicitation sidecar has no line a range could name:
            # the dropped records by uuid, as search's refetch names a sidecar hit
            remainder = f"pysift show {ref} --uuid {','.join(uuids)}"  # type: ignore[arg-type]
        elif first is not None:
            # the addressed lines from the first dropped record's to the last one's, and
            # no other line (a trailing non-record line is no remainder: csift's range)
            last = max(u.line for u in dropped if u.line is not None)
            rest = [n for n in covered if first <= n <= last]
            remainder = f"pysift show {ref} --line {line_list(rest)}"
            if opts.turns is not None:
                bookkeeping = _line_fetch_surplus(view, rest, dropped)
    report = Report(command="show", header=header)
    if view.sidecar_error:
        report.unread(unread_warning(view.sidecar_error))
    report.rows = [record_row(u, transcript, env) for u in kept]
    report.answer(ShowResult(transcript, kept, dropped=len(dropped), limit=limit,
                             remainder=remainder, non_record=non_record,
                             sidecar_used=sidecar_used, malformed=view.tally.malformed,
                             bookkeeping=bookkeeping, env=env))
    return report


@dataclass(frozen=True)
class ShowResult:
    """The units fetched (the cap applied) and everything the summary and the footer say
    about them."""

    transcript: Transcript
    kept: list[Fetched]
    dropped: int
    limit: int  # the unit cap in force (0 = uncapped)
    remainder: str | None  # the command that fetches what the cap dropped
    non_record: int  # addressed lines that are no record
    sidecar_used: bool  # a printed unit came from the elicitation sidecar
    malformed: int
    bookkeeping: int  # units the remainder's --line fetch adds that a turn fetch left out
    env: Env

    def summary(self) -> dict[str, Any]:
        return {
            "records": len(self.kept),
            "dropped_by_cap": self.dropped,
            "refetch_remainder": self.remainder,
            "non_record_lines": self.non_record,
            "skipped_lines": self.malformed,
            "with_elicitation_sidecar": self.sidecar_used,
        }

    def render_text(self, out: TextIO) -> None:
        render_text(out, self)


def _whole_line_cut(units: list[Fetched], limit: int) -> int:
    """Where the cap cuts the units, never between two units of one line (a line
    continuation cannot start inside a line): before that line, or, when it is the first
    line kept, after it."""
    if not limit or len(units) <= limit:
        return len(units)
    line = units[limit].line
    if line is None or units[limit - 1].line != line:
        return limit
    cut = limit
    while cut > 0 and units[cut - 1].line == line:
        cut -= 1
    if cut == 0:
        cut = limit
        while cut < len(units) and units[cut].line == line:
            cut += 1
    return cut


def line_list(numbers: list[int]) -> str:
    """Sorted line numbers in the range grammar, consecutive runs joined: ``3..9,40,52..60``."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ",".join(f"{a}" if a == b else f"{a}..{b}" for a, b in runs)


def _line_fetch_surplus(view: TranscriptView, rest: list[int], dropped: list[Fetched]) -> int:
    """How many more units the ``--line`` continuation of a capped TURN fetch prints than
    the fetch dropped: a line address renders the gated bookkeeping leaves (stop hooks,
    snapshots, turn durations, queued input) that a turn fetch leaves out, so the note
    says so instead of promising a count the command will not match."""
    shown = sum(len(view.render_line(n, s, e, address_mode=True) or ())
                for n, s, e in _spans_for(view, rest))
    return max(0, shown - sum(1 for u in dropped if u.line is not None))


# what a collector gives: (line or None, units) in file order, the covered line numbers,
# the count of non-record lines, whether the elicitation sidecar joined
_Collected = tuple[list[tuple[int | None, list[Fetched]]], list[int], int, bool]


def _collect(view: TranscriptView, opts: ShowOptions) -> _Collected:
    """The addressed lines, each with its rendered units, in file order; every line
    number the address covers (records or not), sorted; the lines that are no record;
    whether the elicitation sidecar joined."""
    if opts.lines:
        return _collect_lines(view, opts)
    if opts.uuids:
        return _collect_uuids(view, opts)
    assert opts.turns is not None
    return _collect_turns(view, opts.turns, raw=opts.raw)


_CLOSED_SPAN_MAX = 100_000


def _closed_items(opts: ShowOptions) -> list[tuple[RangeItem, int, int]] | None:
    """(item, start, end) when every item is a closed ``N`` / ``A..B`` of a sane size, else
    None."""
    items = [item for spec in opts.lines for item in spec.items]
    closed: list[tuple[RangeItem, int, int]] = []
    for item in items:
        start, end = item.start, item.end
        if (item.is_open or item.start_from_end or item.end_from_end
                or start is None or end is None):
            return None
        closed.append((item, start, end))
    if any(end - start > _CLOSED_SPAN_MAX for _, start, end in closed):
        return None
    return closed


def _collect_lines(view: TranscriptView, opts: ShowOptions) -> _Collected:
    wanted: set[int] = set()
    missing: list[RangeItem] = []
    closed = _closed_items(opts)
    if closed is not None:
        # explicit lines: locate each by counting newlines up to it; the file's total is
        # counted only if an address misses (for the error's domain)
        # a closed range clamps to the lines that exist: `0..2` is L1..L2
        missing = [item for item, start, end in closed
                   if end < 1 or view.line_offset(max(1, start)) is None]
        for _, start, end in closed:
            wanted.update(range(max(1, start), end + 1))
    else:
        total = view.line_count
        for spec in opts.lines:
            missing += spec.missing(1, total)
            wanted.update(spec.resolve(1, total))
    if missing:
        total = view.line_count
        domain = f"(L1..L{total})" if total else "(it is empty)"
        raise NotFoundError(
            f"no such line(s): {describe_items(missing, 'L')} — the transcript has {total} "
            f"line(s) {domain}; {view.transcript.path}")
    if not wanted:
        total = view.line_count
        raise NotFoundError(f"the addressed range is empty — the transcript has {total} "
                            f"line(s) (L1..L{total})")
    ordered = sorted(wanted)
    out: list[tuple[int | None, list[Fetched]]] = []
    non_record = 0
    single = len(ordered) == 1
    present = 0  # addressed lines that exist (a closed range past the end clamps)
    for number, s, e in _spans_for(view, ordered):
        present += 1
        if opts.raw:
            out.append((number, []))
            continue
        units = view.render_line(number, s, e, address_mode=True)
        if units is None:
            raw = view.buf[s:e]
            if raw.strip():
                non_record += 1
            if single:
                raise NotFoundError(
                    f"L{number} is not a renderable record (metadata, a session-state cache "
                    f"line or a malformed line) — inspect it with: pysift show "
                    f"{_ref(view)} --line {number} --raw")
            continue
        out.append((number, units))
    if not opts.raw and not out:
        # every addressed line was decoded, so the tally counts exactly the torn ones
        torn = (f" ({view.tally.malformed:,} malformed line(s) among them)"
                if view.tally.malformed else "")
        raise NotFoundError(f"none of the {present} addressed line(s) is a record{torn} — "
                            "inspect them with --raw")
    return out, ordered, non_record, False


def _spans_for(view: TranscriptView, ordered: list[int]) -> Iterator[tuple[int, int, int]]:
    """(line, start, end) for sorted line numbers, walking contiguous runs once."""
    runs: list[tuple[int, int]] = []
    for n in ordered:
        if runs and n == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    for first, last in runs:
        yield from view.iter_range(first, last)


def _collect_uuids(view: TranscriptView, opts: ShowOptions) -> _Collected:
    out: list[tuple[int | None, list[Fetched]]] = []
    missing: list[str] = []
    pending_only: list[str] = []  # with --raw: in the sidecar, on no line of the transcript
    sidecar_used = False
    pending = None
    # a uuid named twice (`--uuid U,U`) is one record, fetched once, as `--line 3,3` is
    uuids = list(dict.fromkeys(opts.uuids))
    found = {uuid: view.lines_of_uuid(uuid) for uuid in uuids}
    single = sum(len(lines) for lines in found.values()) == 1
    non_record = 0
    for uuid in uuids:
        lines = found[uuid]
        if not lines:
            if pending is None:
                pending = view.sidecar_records()
            hits = [r for r in pending if r.uuid == uuid]
            if not hits:
                missing.append(uuid)
                continue
            if opts.raw:
                pending_only.append(uuid)
                continue
            for rec in hits:
                rendered = view.render_record(rec, None, None, address_mode=True) or []
                out.append((None, rendered))
                sidecar_used = True
            continue
        for number in lines:
            if opts.raw:
                out.append((number, []))
                continue
            for n, s, e in view.iter_range(number, number):
                units = view.render_line(n, s, e, address_mode=True)
                if units is None:
                    if single:  # as a single --line: an error; among several, counted
                        raise NotFoundError(
                            f"uuid {uuid} (L{n}) is not a renderable record — inspect it "
                            f"with: pysift show {_ref(view)} --line {n} --raw")
                    non_record += 1
                    continue
                out.append((n, units))
    if pending_only and not missing:
        from pysift.disk.layout import sidecar_path

        raise NotFoundError(
            f"uuid {', '.join(pending_only)} is a pending elicitation in the sidecar "
            f"{sidecar_path(view.transcript.path)}, on no line of {view.transcript.path}: "
            f"--raw prints transcript lines only; see it merged with: pysift show "
            f"{_ref(view)} --uuid {','.join(pending_only)}")
    missing += pending_only
    if missing:
        unread = (f" ({view.sidecar_error}: a pending elicitation's uuid could not be looked "
                  "up)" if view.sidecar_error else "")
        hint = (_torn_holders(view, missing)
                or "find uuids with pysift search ... --format json (the uuid key)")
        raise NotFoundError(
            f"no record with uuid {', '.join(missing)} in {view.transcript.path}{unread}; "
            f"{hint}")
    if not opts.raw and not out:
        raise NotFoundError(f"none of the addressed uuid(s) is a renderable record — inspect "
                            f"their lines with: pysift show {_ref(view)} --uuid "
                            f"{','.join(uuids)} --raw")
    out.sort(key=lambda item: (item[0] is None, item[0] or 0))
    return out, sorted({n for n, _ in out if n is not None}), non_record, sidecar_used


def _torn_holders(view: TranscriptView, uuids: list[str]) -> str:
    """The malformed lines that hold a missing uuid: a record cut off mid-write (a crash,
    a live tail) keeps its uuid on the torn line, which no reader takes for a record, so
    "no record" alone read as if the transcript never held it."""
    parts = []
    for uuid in uuids:
        lines = view.torn_uuid_lines.get(uuid)
        if lines:
            where = ",".join(str(n) for n in lines)
            parts.append(f"{uuid} occurs on malformed line(s) {', '.join(f'L{n}' for n in lines)}"
                         f", perhaps that record cut off: inspect with pysift show "
                         f"{_ref(view)} --line {where} --raw")
    return "; ".join(parts)


def _collect_turns(view: TranscriptView, spec: RangeSpec, *, raw: bool) -> _Collected:
    from pysift.core.turns import turns_with_pending

    turns = view.turns
    count = turns.turn_count
    # a transcript with no record has no turn, unless its sidecar holds pending records:
    # they stand in t0, as search numbers them (read here only then: a turn fetch that
    # does not reach the latest turn never reads the sidecar)
    pending = view.sidecar_records() if count == 0 else None
    domain = turns_with_pending(count, bool(pending))
    values = spec.resolve(0, domain - 1)
    missing = spec.missing(0, domain - 1)
    if missing or not values:
        named = describe_items(missing, "t") or format_range(spec)
        raise no_such_turns(named, domain, _ref(view), malformed=view.malformed_lines())
    if raw and pending:
        from pysift.disk.layout import sidecar_path

        raise NotFoundError(
            f"t0 holds only the pending elicitation(s) of the sidecar "
            f"{sidecar_path(view.transcript.path)} (uuid "
            f"{', '.join(str(r.uuid) for r in pending)}), on no line of "
            f"{view.transcript.path}: --raw prints transcript lines only; see them merged "
            f"with: pysift show {_ref(view)} --turn {format_range(spec)}")
    total = view.line_count
    out: list[tuple[int | None, list[Fetched]]] = []
    covered: list[int] = []
    for turn in values:
        if turn >= count:
            continue  # the t0 of pending records only: no line of the transcript is in it
        first, last = turns.line_span(turn, total)
        covered.extend(range(first, last + 1))
        for number, s, e in view.iter_range(first, last):
            if raw:
                if view.buf[s:e].strip():
                    out.append((number, []))
                continue
            units = view.render_line(number, s, e, address_mode=False, in_turn_window=True)
            if units:
                out.append((number, units))
    sidecar_used = False
    if not raw and values and values[-1] == domain - 1:
        for rec in view.sidecar_records() if pending is None else pending:
            units = view.render_record(rec, None, None, address_mode=False) or []
            if units:
                out.append((None, units))
                sidecar_used = True
    if not out:  # a resolved turn window holding no record (a file of summaries, say)
        torn = (f"; {view.tally.malformed:,} malformed line(s) among them"
                if view.tally.malformed else "")
        raise NotFoundError(
            f"no record in {_describe_turns(values, 't')} is a message or an event show "
            f"renders (only metadata lines: summaries, snapshots, …{torn}) — inspect them with: "
            f"pysift show {_ref(view)} --turn {format_range(spec)} --raw")
    return out, sorted(set(covered)), 0, sidecar_used


def _describe_turns(values: list[int], prefix: str) -> str:
    """``t0`` / ``t2..t5`` / ``t0, t3`` for resolved turn numbers."""
    if len(values) > 1 and values == list(range(values[0], values[-1] + 1)):
        return f"{prefix}{values[0]}..{prefix}{values[-1]}"
    return ", ".join(f"{prefix}{v}" for v in values)


def _raw_report(view: TranscriptView, opts: ShowOptions,
                addressed: list[tuple[int | None, list[Fetched]]], limit: int, ref: str,
                header: dict[str, Any]) -> Report:
    numbers = [n for n, _ in addressed if n is not None]
    kept, dropped = cap(numbers, limit)
    report = Report(command="show", header=header)
    report.raw_lines = [view.line_bytes(n) or b"" for n in kept]
    if dropped:
        report.note(f"note: +{len(dropped)} more line(s) beyond the {limit}-line cap · continue: "
                    f"pysift show {ref} --line {line_list(dropped)} --raw "
                    "(or --max-count 0 = uncapped)")
    return report


def _run_block(view: TranscriptView, opts: ShowOptions) -> Report:
    assert opts.block is not None
    text = block_text(view, opts.block)
    report = Report(command="show")
    t = view.transcript
    report.header = {**id_trio(t.session_id, t.is_subagent, t.parent_session_id),
                     "path": str(t.path)}
    digest = block_sha256(text)
    report.rows = [{"kind": "block", "block_id": opts.block, "sha256": digest, "text": text,
                    **id_trio(t.session_id, t.is_subagent, t.parent_session_id)}]
    verified = None
    if opts.sha256 is not None:
        verified = digest == opts.sha256  # normalized to lowercase hex by sha256_digest
        if not verified:
            # an unverified span is not printed: a reader would act on text it did not ask for
            report.exit_code = 1
            report.rows = []
            report.note(f"error: sha256 mismatch for {opts.block}: expected {opts.sha256}, "
                        f"the transcript holds {digest} (the block changed or the id is "
                        f"wrong); print it without --sha256 to read what is there")
    report.answer(BlockResult(text, printed=bool(report.rows), verified=verified))
    return report


@dataclass(frozen=True)
class BlockResult:
    text: str
    printed: bool  # False: the digest did not match, and unverified text is not printed
    verified: bool | None  # None: no --sha256 asked

    def summary(self) -> dict[str, Any]:
        return {"blocks": int(self.printed), "sha256_verified": self.verified}

    def render_text(self, out: TextIO) -> None:
        if self.printed:
            out.write(self.text if self.text.endswith("\n") else self.text + "\n")


def record_row(u: Fetched, t: Transcript, env: Env) -> dict[str, Any]:
    return {
        "kind": "record",
        **id_trio(t.session_id, t.is_subagent, t.parent_session_id),
        "turn_index": u.turn_index,
        "superseded_draft": u.superseded,
        "line": u.line,
        "uuid": u.uuid,
        "label": u.label,
        "labels": list(u.labels),
        "tool_name": u.unit.tool_name,
        "from": u.unit.from_,
        "to": u.unit.to,
        "pairing": u.pairing,
        "tool_use_id": u.unit.tool_use_id,
        "source": u.source,
        **ts_pair("ts", u.ts, env.tz),
        "text": u.unit.text,
        "image_ids": list(u.image_ids),
    }


def render_text(out: TextIO, result: ShowResult) -> None:
    t, kept, dropped, env = result.transcript, result.kept, result.dropped, result.env
    w = out.write
    if t.is_subagent:
        w("SUBAGENT ")
        paint(out, t.session_id, "id")
        w(" · parent SESSION ")
        paint(out, t.parent_session_id, "id")
    else:
        w("SESSION ")
        paint(out, t.session_id, "id")
    w("\n")
    current: tuple[int | None, bool] | None = None
    for index, u in enumerate(kept):
        key = (u.turn_index, u.superseded)
        if key != current:
            current = key
            # the group's first known instant (metadata lines carry none)
            stamp = next((x.ts for x in kept[index:] if (x.turn_index, x.superseded) == key
                          and x.ts), None)
            when = text_ts(stamp, env.tz, millis=True)
            w("\n")
            if u.superseded:
                w("(superseded draft — esc-recalled and re-sent, outside turn numbering)")
            else:
                paint(out, f"t{u.turn_index}", "id")
            w("  ")
            paint(out, when, "when")
            w("\n")
        zone = label_zone(u.label, tool_name=u.unit.tool_name, pairing=u.pairing,
                          is_error=u.unit.is_error, from_=u.unit.from_, to=u.unit.to,
                          tag=u.unit.tag)
        write_unit_line(out, "  ", zone, u.line, indent_continuation(u.unit.text), u.image_ids)
    w(f"\nfetched {len(kept)} record unit(s)\n")
    if dropped:
        cont = result.remainder or "pysift show … --max-count 0"
        if result.bookkeeping:
            cont += (f" (the line range also shows {result.bookkeeping} bookkeeping unit(s) a "
                     "turn fetch leaves out)")
        w(f"+{dropped} more record unit(s) beyond the {result.limit}-unit cap · continue: "
          f"{cont}  (or --max-count 0 = uncapped)\n")
    if result.non_record:
        w(f"{result.non_record} line(s) in the addressed range are not records "
          "(metadata/attachment — inspect with --raw)\n")
    if result.sidecar_used:
        w("with elicitation sidecar\n")
    if result.malformed:
        w(f"({result.malformed} malformed line(s) skipped)\n")
