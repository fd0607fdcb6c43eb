"""One transcript's pass: whole-buffer candidate search, then hits on decoded lines.

The order of work is the performance design of SPEC §7:
1. ONE whole-buffer pass finds every line holding a required needle of the pattern or a
   synthesized-text marker; for a pure filter / a needle-less pattern, a walk over the
   record-type keys of the selected leaves, stepping over plain tool_result carriers. A
   file with no such line is done: nothing is decoded (§7f gate).
2. Each candidate line gets bounded C-level checks (label markers, the carrier skip)
   before orjson sees it.
3. Decoded records are classified into units under the label selection; the regex runs
   on each unit's rendered text.
The turn map and line numbers are computed only for files that have a hit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pysift.core import classify
from pysift.core.decode import Tally, decode
from pysift.core.image_handles import image_ids
from pysift.core.pairing import pair, with_result_tool_name
from pysift.core.prefilter import NeedleSet, exposes_number
from pysift.core.rawjson import layouts, type_needles
from pysift.core.sidecar import read_sidecar
from pysift.core.timez import parse_ts
from pysift.core.turns import (
    TurnMap,
    build_turn_map,
    is_plain_carrier,
    subagent_seed,
    turn_map_from_openers,
)
from pysift.disk.layout import Transcript, sidecar_of
from pysift.disk.lines import Buffer, LineCounter, find_from
from pysift.disk.mapped import open_buffer, read_regular
from pysift.engines.search.plan import SearchPlan
from pysift.model import labels as L
from pysift.model.record import Record

_USER_MARKER = b'"user"'


@dataclass
class Hit:
    """One matched unit of one record."""

    line: int | None
    uuid: str | None
    unit: classify.Unit
    label: str
    labels: tuple[str, ...]
    ts: str | None
    span: tuple[int, int] | None  # match offsets in ``text``; None for a pure filter
    text: str  # the matched text (the unit's, or the resolved persisted output)
    source: str | None = None
    pairing: str | None = None
    image_ids: list[str] = field(default_factory=list)
    raw: bytes | None = None  # the verbatim line (--raw)
    offset: int | None = None  # byte offset of the line
    model: str | None = None
    version: str | None = None
    attachment_type: str | None = None
    turn: int | None = None
    draft: bool = False
    partner: tuple[int | None, int | None] = (None, None)  # the paired record's line span


@dataclass
class FileScan:
    """What one transcript contributed: its hits plus the accounting."""

    transcript: Transcript
    index: int
    hits: list[Hit] = field(default_factory=list)
    malformed: int = 0
    sidecar_used: bool = False
    persisted_failures: list[str] = field(default_factory=list)
    error: str | None = None
    sidecar_error: str | None = None  # the sidecar exists but could not be read
    pending: list[Record] = field(default_factory=list)  # merged sidecar records (never pickled)
    turn_map: TurnMap | None = None
    buf: Buffer | None = None  # the bytes scanned, for assembling exchanges (never pickled)
    seed: tuple[str | None, int | None] = (None, None)  # a subagent's spawn-prompt seed


# label markers that are a record TYPE: searched as the layout's own `"type":"<value>"` key,
# which stands once per line near its start (the bare value recurs inside tool output)
_TYPE_MARKERS = {b'"user"': "user", b'"assistant"': "assistant", b'"system"': "system",
                 b'"attachment"': "attachment", b'"queue-operation"': "queue-operation"}


def label_candidate_spans(buf: Buffer, markers: tuple[bytes, ...], skip_carriers: bool
                          ) -> list[tuple[int, int]]:
    """Lines holding a label marker, in order, for a scan that has no needle to go by.

    Each marker is a ``find`` loop (a record type as its ``"type":"<value>"`` key in the
    file's layout); the loops are merged by position. A plain tool_result carrier
    (``is_plain_carrier``: one ``find`` through its line) is stepped over undecoded.
    """
    import heapq

    file_layouts = layouts(buf)
    needles: list[bytes] = []
    for m in markers:
        needles.extend(type_needles(buf, _TYPE_MARKERS[m], file_layouts)
                       if m in _TYPE_MARKERS else (m,))
    user_keys = type_needles(buf, "user", file_layouts)
    user_needles = set(user_keys)
    result_keys = type_needles(buf, "tool_result", file_layouts)
    if len(needles) == 1 and needles[0] in user_needles:
        return _user_line_spans(buf, needles[0], skip_carriers, user_keys, result_keys)
    find, rfind, size = buf.find, buf.rfind, len(buf)
    heap = [(pos, i) for i, n in enumerate(needles) if (pos := find_from(buf, n, 0)) >= 0]
    heapq.heapify(heap)
    out: list[tuple[int, int]] = []
    last_start = -1
    while heap:
        pos, i = heapq.heappop(heap)
        needle = needles[i]
        start = rfind(b"\n", 0, pos) + 1
        if start == last_start:  # another marker on a line already taken or stepped over
            nxt = find_from(buf, needle, pos + len(needle))
            if nxt >= 0:
                heapq.heappush(heap, (nxt, i))
            continue
        last_start = start
        end = find(b"\n", pos)
        end = size if end < 0 else end
        if not (skip_carriers and needle in user_needles
                and is_plain_carrier(buf, start, end, user_keys, result_keys)):
            out.append((start, end))
        nxt = find_from(buf, needle, end)
        if nxt >= 0:
            heapq.heappush(heap, (nxt, i))
    return out


def _looks_framed(buf: Buffer, start: int, end: int) -> bool:
    """The ``{…}`` shape check on a line in place (surrounding whitespace ignored)."""
    line = buf[start:end].strip()
    return line[:1] == b"{" and line[-1:] == b"}"


def _user_line_spans(buf: Buffer, needle: bytes, skip_carriers: bool,
                     user_keys: tuple[bytes, ...], result_keys: tuple[bytes, ...]
                     ) -> list[tuple[int, int]]:
    """The one-marker case of ``label_candidate_spans`` (``-t user``): a plain loop."""
    find, rfind, size = buf.find, buf.rfind, len(buf)
    out: list[tuple[int, int]] = []
    pos = find_from(buf, needle, 0)
    while pos >= 0:
        end = find(b"\n", pos)  # at memchr speed, through a carrier's body too
        end = size if end < 0 else end
        start = rfind(b"\n", 0, pos) + 1
        if skip_carriers and is_plain_carrier(buf, start, end, user_keys, result_keys):
            pos = find_from(buf, needle, end)
            continue
        out.append((start, end))
        pos = find_from(buf, needle, end)
    return out


def build_finder(plan: SearchPlan) -> NeedleSet:
    """The needle scan's ONE whole-buffer pass: the pattern's required needles plus the
    markers of the record kinds whose fabricated text the needles could overlap (a
    caseless needle set makes the markers caseless too: a harmless superset), plus the
    lines holding a number orjson re-spells when a needle could overlap one (``1e-6``
    renders a raw ``0.000001``; ``ZQXJ-needle-7731`` cannot, and costs no extra pass)."""
    needles = plan.matcher.needles
    assert needles is not None  # not a label scan: the pattern requires literals
    extra = tuple(m.decode("ascii") for m in plan.synth_markers(tuple(needles.needles),
                                                                 bool(needles.caseless)))
    return NeedleSet(tuple(needles.needles) + extra, caseless=bool(needles.caseless),
                     respelled_numbers=any(exposes_number(n) for n in needles.needles))


def scan_file(transcript: Transcript, index: int, plan: SearchPlan, *, cores: int = 1
              ) -> FileScan:
    """One transcript's hits under ``plan``; ``cores``: the processes its turn grouping may
    use (more than one only for a scan that runs alone on the main process)."""
    result = FileScan(transcript=transcript, index=index)
    try:
        buf = result.buf = open_buffer(transcript.path)
    except Exception as exc:  # SourceError: a vanished file is reported, never fatal
        result.error = str(exc)
        return result
    if plan.label_scan:
        spans = label_candidate_spans(buf, plan.line_markers(), not plan.wants_carriers)
    else:
        spans = plan.finder(build_finder).candidate_spans(buf)
    pending = []
    sidecar = sidecar_of(transcript)
    if sidecar is not None:
        merge = read_sidecar(sidecar, buf)
        pending = result.pending = merge.pending
        result.malformed += merge.skipped_lines
        result.sidecar_error = merge.error
    if not spans and not pending:
        return result
    _Scanner(plan, transcript, buf, result, cores).run(spans, pending)
    return result


class _Scanner:
    def __init__(self, plan: SearchPlan, transcript: Transcript, buf: Buffer,
                 result: FileScan, cores: int = 1) -> None:
        self.plan = plan
        self.cores = cores
        self.t = transcript
        self.buf = buf
        self.result = result
        self.tally = Tally()
        self.line_markers = plan.line_markers()
        self.skip_carriers = not plan.wants_carriers
        # candidates came from the label markers themselves: every one holds a marker
        self.label_scan = plan.label_scan
        seed_uuid, seed_line = result.seed = (subagent_seed(buf) if transcript.is_subagent
                                              else (None, None))
        self.ctx = classify.ClassifyContext(
            owner_id=transcript.session_id, is_subagent=transcript.is_subagent,
            parent_id=transcript.parent_session_id, gates=plan.gates,
            additional_context=plan.additional_context, seed_uuid=seed_uuid,
            seed_line=seed_line,
        )
        self._turns: TurnMap | None = None
        self._allowed_turns: set[int] | None = None
        self._bare_units: dict[tuple[str, ...], classify.Unit] = {}
        self.counter = LineCounter(buf)

    @property
    def turns(self) -> TurnMap:
        if self._turns is None:
            self._turns = build_turn_map(self.buf, cores=self.cores)
            self.result.turn_map = self._turns
        return self._turns

    def allowed_turn(self, turn: int | None) -> bool:
        if self.plan.turns is None:
            return True
        if turn is None:
            return False  # a superseded draft is outside any --turn window
        if self._allowed_turns is None:
            count = self.turns.turn_count
            self._allowed_turns = set(self.plan.turns.resolve(0, count - 1))
        return turn in self._allowed_turns

    def run(self, spans: list[tuple[int, int]], pending: list[Record]) -> None:
        """Decode the candidates, then match them. When the candidates are every user
        line (a label-marker scan reaching user records), the turn openers are collected on
        the way and the turn map comes free instead of from a second pass."""
        buf = self.buf
        find = buf.find
        markers = () if self.label_scan else self.line_markers
        collect = self.label_scan and _USER_MARKER in self.line_markers
        # a label scan stepped over the user carriers it recognised after their type key;
        # every other line it found is decoded. A needle scan's candidates are any lines:
        # only a user record's carrier may be skipped (see is_plain_carrier's user_keys).
        recheck_carriers = self.skip_carriers and not self.label_scan
        user_keys = type_needles(buf, "user") if recheck_carriers else None
        result_keys = type_needles(buf, "tool_result") if recheck_carriers else None
        decoded: list[tuple[int, bytes, Record]] = []
        openers: list[tuple[int, Record]] = []
        for start, end in spans:
            # bounded finds on the buffer: no copy of a line that is then skipped
            if markers and not any(find(m, start, end) >= 0 for m in markers):
                if not _looks_framed(buf, start, end):
                    self.tally.malformed += 1  # a torn or junk line holding the needle
                continue
            if recheck_carriers and is_plain_carrier(buf, start, end, user_keys, result_keys):
                continue
            line = buf[start:end]
            rec = decode(line, None, self.tally)
            if rec is None:
                continue
            decoded.append((start, line, rec))
            if collect and rec.type == "user" and classify.opens_turn(rec):
                openers.append((start, rec))
        if collect and self._turns is None:
            self._turns = turn_map_from_openers(openers, buf)
            self.result.turn_map = self._turns
        for start, line, rec in decoded:
            self.consider(rec, start, line)
        for rec in pending:
            self.consider(rec, None, None)
            self.result.sidecar_used = self.result.sidecar_used or any(
                h.source for h in self.result.hits)
        self.result.malformed += self.tally.malformed

    def in_window(self, rec: Record) -> bool:
        if self.plan.since is None and self.plan.until is None:
            return True
        when = parse_ts(rec.timestamp)
        if when is None:
            return False
        if self.plan.since is not None and when < self.plan.since:
            return False
        return not (self.plan.until is not None and when > self.plan.until)

    def consider(self, rec: Record, offset: int | None, line: bytes | None) -> None:
        """Match a record's units; pay for line numbers and the turn map only on a hit."""
        if not self.in_window(rec):
            return
        plan = self.plan
        select = plan.labels.selects
        if plan.light and plan.matcher.is_empty and offset is not None:
            self.count_only(rec, offset)
            return
        matched = self.matched_units(rec, classify.units(rec, self.ctx, select))
        drafted: list[tuple[classify.Unit, tuple[int, int] | None, str]] = []
        maybe_draft = (offset is not None and rec.type == "user"
                       and plan.labels.selects(L.USER_UNSENT) and classify.opens_turn(rec))
        if maybe_draft:
            drafted = self.matched_units(rec, classify.units(rec, self.ctx, select, draft=True))
        if not matched and not drafted:
            return
        turns = self.turns
        turn: int | None
        if offset is None:  # a sidecar record: pending now, so in the latest turn
            draft, turn = False, max(0, turns.turn_count - 1)
        else:
            draft = turns.is_draft_offset(offset)
            turn = None if draft else turns.turn_of_offset(offset)
            if not self.plan.light:  # -c / -l never show a line number
                rec.line = self.counter.line_at(offset)
        chosen = drafted if draft else matched
        if not chosen or not self.allowed_turn(turn):
            return
        # the record's image ids ride its first hit (once per record, as csift shows them)
        record_ids = [] if self.plan.light else image_ids(rec, rec.line)
        for number, (unit, span, text) in enumerate(chosen):
            ids = record_ids if number == 0 else []
            joined = pair(self.buf, unit.tool_use_id, unit.labels, offset, unit.label)
            unit = with_result_tool_name(unit, joined, self.buf)
            self.result.hits.append(Hit(
                line=rec.line, uuid=rec.uuid, unit=unit, label=unit.label, labels=unit.labels,
                ts=rec.timestamp, span=span, text=text, source=rec.source,
                pairing=joined.state, image_ids=ids, partner=(joined.partner_start,
                                                               joined.partner_end),
                raw=bytes(line) if plan.want_raw and line is not None else None,
                offset=offset, model=rec.model, version=rec.version,
                attachment_type=_attachment_type(rec), turn=turn, draft=draft,
            ))

    def count_only(self, rec: Record, offset: int) -> None:
        """``-c``/``-l`` with no pattern: only WHICH turn a selected record falls in matters,
        so the record's label set decides, and a record counts only when a selected leaf
        renders a unit, as its rows would show (``classify.renders_unit``: the common
        records answer without rendering their text)."""
        select = self.plan.labels.selects
        turns = self.turns
        draft = rec.type == "user" and turns.is_draft_offset(offset)
        leaves = classify.classify(rec, self.ctx, draft=draft)
        accepted = [leaf for leaf in leaves if select(leaf)]
        if not accepted or not classify.renders_unit(rec, self.ctx, select, leaves, accepted,
                                                      draft=draft):
            return
        turn = None if draft else turns.turn_of_offset(offset)
        if not self.allowed_turn(turn):
            return
        labels = tuple(leaves)
        unit = self._bare_units.get(labels)
        if unit is None:  # a text-less unit per label set (immutable: shared by its hits)
            unit = self._bare_units[labels] = classify.Unit(accepted[0], labels, "")
        self.result.hits.append(Hit(line=None, uuid=rec.uuid, unit=unit, label=accepted[0],
                                    labels=labels, ts=rec.timestamp, span=None,
                                    text="", source=rec.source, offset=offset, turn=turn,
                                    draft=draft))

    def matched_units(self, rec: Record, units: list[classify.Unit]
                      ) -> list[tuple[classify.Unit, tuple[int, int] | None, str]]:
        """The units whose text the pattern matches (all of them for a pure filter)."""
        out = []
        matcher = self.plan.matcher
        for unit in units:
            text = unit.text
            if self.plan.resolve_persisted and L.AGENT_TOOL_RESULT in unit.labels:
                text = self.resolve_persisted(rec, text)
            span = None if matcher.is_empty else matcher.search(text)
            if matcher.is_empty or span is not None:
                out.append((unit, span, text))
        return out

    def resolve_persisted(self, rec: Record, text: str) -> str:
        if "<persisted-output>" not in text:
            return text
        path = None
        tur = rec.tool_use_result
        if isinstance(tur, dict) and isinstance(tur.get("persistedOutputPath"), str):
            path = tur["persistedOutputPath"]
        if path is None:
            marker = "Full output saved to: "
            at = text.find(marker)
            if at >= 0:
                path = text[at + len(marker):].split("\n", 1)[0].strip()
        if not path:
            return text
        unread: list[str] = []
        for candidate in persisted_candidates(path, self.t):
            try:
                return read_regular(candidate).decode("utf-8", errors="replace")
            except FileNotFoundError:
                continue
            except OSError as exc:  # a FIFO or a device never ends; no permission
                unread.append(f"{candidate}: {exc.strerror or exc}")
        self.result.persisted_failures.append(
            f"{path}: cannot read {'; '.join(unread)}" if unread
            else f"{path}: not found (nor under the session's tool-results/ dir)")
        return text


def persisted_candidates(recorded: str, transcript: Transcript) -> list[Path]:
    """The recorded absolute path, then the same file name in this session's own
    ``<uuid>/tool-results/`` dir: a home copied or mounted elsewhere (``--claude-home``)
    keeps the files at the same relative place while the recorded paths go stale."""
    own = recorded.replace("\\", "/").rsplit("/", 1)[-1]
    session_dir = transcript.project_dir / transcript.parent_session_id
    return [Path(recorded), session_dir / "tool-results" / own]


def _attachment_type(rec: Record) -> str | None:
    if rec.type != "attachment":
        return None
    att = rec.raw.get("attachment")
    kind = att.get("type") if isinstance(att, dict) else None
    return kind if isinstance(kind, str) else None
