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

Malformed lines (csift's v0.6.6 law): the candidates are parsed and counted by the
decoder; every other line of the file gets the shape check (``unframed_lines``), so
``skipped_lines`` is exact whichever lines the needles picked, and a zero can disclose it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from pysift.core.decode import (
    LineValidator,
    Tally,
    decode,
    is_blank,
    is_framed,
    line_decodes,
    proved_spans,
    unframed_lines,
)
from pysift.core.prefilter import NeedleSet, exposes_number
from pysift.core.rawjson import layouts, type_needles
from pysift.disk.layout import Transcript, sidecar_of
from pysift.disk.lines import Buffer, LineCounter, simd_search
from pysift.disk.mapped import open_buffer_stat, read_regular
from pysift.engines.search.facts import (
    MALFORMED,
    FileFacts,
    UserLine,
    settled,
    turn_map_of,
    walk_users,
)
from pysift.engines.search.kept import sidecar_share
from pysift.engines.search.plan import PLAN_PATH_KEY, REJECTION_MARKER, SearchPlan
from pysift.model import labels as L
from pysift.model.fastdata import dataclass

if TYPE_CHECKING:
    # a file without a candidate line needs none of these: imported where a line is read
    from pysift.core import classify
    from pysift.core.pairing import Pairing
    from pysift.core.turns import TurnMap
    from pysift.model.record import Record

_USER_MARKER = b'"user"'


@cache
def _unpaired() -> Pairing:
    """The partner of a hit no answer shows (a bare count's)."""
    from pysift.core.pairing import Pairing

    return Pairing(None)


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


def exchange_key(hit: Hit) -> tuple[str, int]:
    """Which exchange a hit belongs to: its turn, or the superseded draft it sits in."""
    return ("d", hit.offset or 0) if hit.draft else ("t", hit.turn or 0)


@dataclass
class FileScan:
    """What one transcript contributed: its hits plus the accounting."""

    transcript: Transcript
    index: int
    hits: list[Hit] = field(default_factory=list)
    malformed: int = 0
    collapsed_drafts: int = 0  # superseded drafts that matched but the selection hides
    sidecar_used: bool = False
    persisted_failures: list[str] = field(default_factory=list)
    error: str | None = None
    sidecar_error: str | None = None  # the sidecar exists but could not be read
    pending: list[Record] = field(default_factory=list)  # merged sidecar records (never pickled)
    turn_map: TurnMap | None = None
    buf: Buffer | None = None  # the bytes scanned, for assembling exchanges (never pickled)
    seed: tuple[str | None, int | None] = (None, None)  # a subagent's spawn-prompt seed
    spans: list[tuple[int, int]] = field(default_factory=list)  # the candidate lines found
    facts: FileFacts | None = None  # the cache's facts of this transcript, when a facet is in use
    stamp: object = None  # the cache stamp of the bytes scanned (``disk.cache.Stamp``)
    # line starts the decoder saw (counted by it when malformed), and framed lines a
    # partner lookup or a stitch found not to decode (never pickled)
    parsed: set[int] = field(default_factory=set)
    broken: set[int] = field(default_factory=set)

    def line_decodes(self, start: int, end: int) -> bool:
        """Whether the line ``buf[start:end]`` is a record (``core.decode.line_decodes``),
        for a reader that only needs to know (a pairing partner, a stitched record); a
        framed line that is not is noted in ``broken``, counted by ``skipped_lines`` (a
        line that is not framed is the shape check's)."""
        assert self.buf is not None
        line = self.buf[start:end]
        if line_decodes(line):
            return True
        if is_framed(line):
            self.broken.add(start)
        return False

    def skipped_lines(self) -> int:
        """The malformed lines of this transcript: the scan's count, and the framed lines
        found broken after it that the decoder had not seen (each line once)."""
        return self.malformed + len(self.broken - self.parsed)


@dataclass
class Cached:
    """What the cache holds for one transcript, judged against the file (``engine._work``):
    ``facts`` of an unchanged file, or ``grown`` (the probe of a file that grew since)."""

    facts: FileFacts | None = None
    grown: object = None  # disk.cache.Probe


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

    from pysift.core.turns import is_plain_carrier

    file_layouts = layouts(buf)
    needles: list[bytes] = []
    for m in markers:
        needles.extend(type_needles(buf, _TYPE_MARKERS[m], file_layouts)
                       if m in _TYPE_MARKERS else (m,))
    user_keys = type_needles(buf, "user", file_layouts)
    user_needles = set(user_keys)
    result_keys = type_needles(buf, "tool_result", file_layouts)
    if needles and set(needles) == user_needles:  # the user key in every layout of the file
        return _user_line_spans(buf, file_layouts, skip_carriers)
    find, rfind, size = buf.find, buf.rfind, len(buf)
    out: list[tuple[int, int]] = []
    with simd_search(buf) as (seek, _):
        heap = [(pos, i) for i, n in enumerate(needles) if (pos := seek(n, 0, size)) >= 0]
        heapq.heapify(heap)
        last_start = -1
        while heap:
            pos, i = heapq.heappop(heap)
            needle = needles[i]
            start = rfind(b"\n", 0, pos) + 1
            if start == last_start:  # another marker on a line already taken or stepped over
                nxt = seek(needle, pos + len(needle), size)
                if nxt >= 0:
                    heapq.heappush(heap, (nxt, i))
                continue
            last_start = start
            end = find(b"\n", pos)
            end = size if end < 0 else end
            if not (skip_carriers and needle in user_needles
                    and is_plain_carrier(buf, start, end, user_keys, result_keys)):
                out.append((start, end))
            nxt = seek(needle, end, size)
            if nxt >= 0:
                heapq.heappush(heap, (nxt, i))
    return out


def _user_line_spans(buf: Buffer, file_layouts: tuple[bool, ...], skip_carriers: bool
                     ) -> list[tuple[int, int]]:
    """The one-marker case of ``label_candidate_spans`` (``-t user``): the user lines of
    one RE2 pass over the type keys (``core.keyscan``), carriers stepped over."""
    from pysift.core.keyscan import user_lines

    return [(start, end) for start, end, _ in user_lines(buf, file_layouts,
                                                         carriers=not skip_carriers)]


def _any_holding(buf: Buffer, spans: list[tuple[int, int]], marker: bytes) -> bool:
    find = buf.find
    return any(find(marker, start, end) >= 0 for start, end in spans)


def _with_lines_holding(buf: Buffer, spans: list[tuple[int, int]], marker: bytes
                        ) -> list[tuple[int, int]]:
    """``spans`` and the lines holding ``marker``, in order, each line once."""
    extra: list[tuple[int, int]] = []
    find, size = buf.find, len(buf)
    with simd_search(buf) as (seek, _):
        pos = seek(marker, 0, size)
        while pos >= 0:
            start = buf.rfind(b"\n", 0, pos) + 1
            end = find(b"\n", pos)
            end = size if end < 0 else end
            extra.append((start, end))
            pos = seek(marker, end, size)
    if not extra:
        return spans
    return sorted(set(spans).union(extra))


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


def scan_file(transcript: Transcript, index: int, plan: SearchPlan, *, cores: int = 1,
              cached: Cached | None = None) -> FileScan:
    """One transcript's hits under ``plan``; ``cores``: the processes its turn grouping may
    use (more than one only for a scan that runs alone on the main process). ``cached``:
    the cache is in use (``None``: it is not); what it held of the file stands in for the
    walks that compute it, and ``result.facts`` carries back what this scan knows."""
    result = FileScan(transcript=transcript, index=index)
    facts = cached.facts if cached is not None else None
    if facts is not None and plan.counts_user_lines() and _count_from_facts(
            transcript, plan, facts, result):
        return result  # an unchanged file, counted from its facts: never read
    try:
        buf, st = open_buffer_stat(transcript.path)
    except Exception as exc:  # SourceError: a vanished file is reported, never fatal
        result.error = str(exc)
        return result
    result.buf = buf
    if cached is not None:
        facts = result.facts = facts or _fresh_facts(transcript, buf, cached.grown)
        from pysift.disk.cache import stamp_of

        result.stamp = stamp_of(st, buf)
    walked: tuple[list[UserLine], list[tuple[int, bytes, Record]] | None] | None = None
    proved: list[int] | None = None  # the unframed lines, when the user walk proved them
    if plan.label_scan:
        if plan.walks_user_lines():
            if facts is None or facts.unframed is None:
                proved = []
            walked = _user_candidates(transcript, plan, buf, facts, proved)
            if walked[1] is None:  # the kept user lines: no walk, nothing proved
                proved = None
            spans = [(u.start, u.end) for u in walked[0]]
        else:
            spans = label_candidate_spans(buf, plan.line_markers(), not plan.wants_carriers)
    else:
        finder = plan.finder(build_finder)
        if (facts is None or facts.unframed is None) and finder.lines_apart:
            # the needle pass runs behind the malformed-line proof, span by span
            proved, spans = [], []
            for pos, end, bad in proved_spans(buf):
                proved.extend(bad)
                spans.extend(finder.candidate_spans(buf, pos, end))
        else:
            spans = finder.candidate_spans(buf)
        if spans and plan.pointer_lines and _any_holding(buf, spans, PLAN_PATH_KEY):
            spans = _with_lines_holding(buf, spans, REJECTION_MARKER)
        result.spans = spans
    pending = []
    sidecar = sidecar_of(transcript)
    if sidecar is not None:
        from pysift.core.sidecar import read_sidecar

        merge = read_sidecar(sidecar, buf)
        pending = result.pending = merge.pending
        result.malformed += merge.skipped_lines
        result.sidecar_error = merge.error
    if facts is not None and facts.unframed is not None:
        unframed = facts.unframed
    else:
        unframed = unframed_lines(buf) if proved is None else proved
        if facts is not None:
            facts.unframed, facts.changed = unframed, True
    if not spans and not pending:
        result.malformed += len(unframed)
        return result
    _Scanner(plan, transcript, buf, result, cores).run(spans, pending, unframed, walked)
    return result


def _count_from_facts(transcript: Transcript, plan: SearchPlan, facts: FileFacts,
                      result: FileScan) -> bool:
    """A ``-t user``-style count of an unchanged file from its kept facts, without reading
    it; False (nothing done) when they do not settle it: a line that is no user record
    (decoded at query time), a pending sidecar record, a part not kept yet."""
    users = facts.users
    if users is None or facts.unframed is None or facts.has_records is None:
        return False
    if transcript.is_subagent and facts.seed is None:
        return False
    if not settled(users):
        return False
    share = sidecar_share(transcript)
    if share is None:  # a pending record, merged against the transcript's bytes
        return False
    skipped, error = share
    result.malformed += skipped
    if error is not None:
        result.sidecar_error = error
    result.seed = facts.seed if transcript.is_subagent and facts.seed else (None, None)
    openers = [(u.start, u.parent or "", u.uuid) for u in users if u.opens]
    turns = turn_map_of(openers, facts.has_records, None)
    _Scanner(plan, transcript, None, result).count_kept_lines(users, facts.unframed, turns)
    return True


def _fresh_facts(transcript: Transcript, buf: Buffer, grown: object) -> FileFacts:
    """The facts of a file read now: a grown file's cached facts brought up to date, when
    they still hold (the same head, last scanned line and layouts), else none yet."""
    from pysift.disk.cache import Facet

    file_layouts = layouts(buf)
    stamp = getattr(grown, "stamp", None)
    if stamp is not None and Facet.grown_ok(stamp, buf):
        old = FileFacts.load(getattr(grown, "facts", None))
        if old is not None and old.layouts == file_layouts and old.extend(
                buf, stamp.scanned, lambda seed: _base_ctx(transcript, buf, seed),
                transcript.is_subagent):
            return old
    return FileFacts(file_layouts, changed=True)


def _base_ctx(transcript: Transcript, buf: Buffer | None,
              seed: tuple[str | None, int | None]) -> classify.ClassifyContext:
    """The context a user record's labels are taken under to be kept (gates and flags
    change no user record's labels). No spawn index: it comes from other files than the
    transcript (``facts``' module doc says why no kept count needs it)."""
    from pysift.core import classify
    from pysift.core.pairing import PlanIndex

    return classify.ClassifyContext(
        owner_id=transcript.session_id, is_subagent=transcript.is_subagent,
        parent_id=transcript.parent_session_id, seed_uuid=seed[0], seed_line=seed[1],
        plan_index=PlanIndex(buf) if buf is not None else None)


def _seed_of(transcript: Transcript, buf: Buffer, facts: FileFacts | None
             ) -> tuple[str | None, int | None]:
    if not transcript.is_subagent:
        return (None, None)
    if facts is not None and facts.seed is not None:
        return facts.seed
    from pysift.core.turns import subagent_seed

    seed = subagent_seed(buf)
    if facts is not None:
        facts.seed, facts.changed = seed, True
    return seed


def _user_candidates(transcript: Transcript, plan: SearchPlan, buf: Buffer,
                     facts: FileFacts | None, unframed: list[int] | None = None
                     ) -> tuple[list[UserLine], list[tuple[int, bytes, Record]] | None]:
    """The candidate user lines: kept (then decoded by the scan), or walked now (decoded
    on the way, their facts kept when a facet is in use). Decoded None: kept, decode them.
    ``unframed``: a walk made now also proves the file's lines framed, the unframed ones
    appended to it (``walk_users``)."""
    if facts is not None and facts.users is not None:
        return facts.users, None
    # the lines' classes are taken (under the seed's context) only to be kept
    ctx = (_base_ctx(transcript, buf, _seed_of(transcript, buf, facts))
           if facts is not None else None)
    found, decoded = walk_users(buf, ctx, layouts(buf), keep=facts is not None,
                                unframed=unframed)
    if facts is not None:
        facts.users, facts.changed = found, True
    return found, decoded


class _Scanner:
    def __init__(self, plan: SearchPlan, transcript: Transcript, buf: Buffer | None,
                 result: FileScan, cores: int = 1) -> None:
        from pysift.core import classify
        from pysift.core.pairing import PlanIndex

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
        if buf is not None:  # (none: a count from kept facts, the seed in ``result``)
            result.seed = _seed_of(transcript, buf, result.facts)
        seed_uuid, seed_line = result.seed
        self.ctx = classify.ClassifyContext(
            owner_id=transcript.session_id, is_subagent=transcript.is_subagent,
            parent_id=transcript.parent_session_id, gates=plan.gates,
            additional_context=plan.additional_context, seed_uuid=seed_uuid,
            seed_line=seed_line, plan_index=PlanIndex(buf) if buf is not None else None,
            **plan.link_fields(transcript),
        )
        self._turns: TurnMap | None = None
        self._allowed_turns: set[int] | None = None
        self._bare_units: dict[tuple[str, ...], classify.Unit] = {}
        self._verdicts: dict[tuple[tuple[str, ...], tuple[str, ...]], object] = {}
        self._validator: LineValidator | None = None
        self.counter = LineCounter(buf) if buf is not None else None
        # the classifier's entry points, bound once per file (imported only for a file
        # with a line to read: a search whose needles find nothing never loads it)
        self._units = classify.units
        self._opens_turn = classify.opens_turn
        self._classify = classify.classify
        self._renders_unit = classify.renders_unit

    @property
    def turns(self) -> TurnMap:
        if self._turns is None:
            facts = self.result.facts
            kept = facts.turn_map(self.buf) if facts is not None else None
            if kept is None:
                # a scanner without bytes (a count from kept facts) was handed its map
                assert self.buf is not None
                from pysift.core.turns import openers_of, turn_map_from_openers

                subagent = self.t.is_subagent
                found = openers_of(self.buf, cores=self.cores, subagent=subagent)
                kept = turn_map_from_openers(found, self.buf, subagent=subagent)
                if facts is not None:
                    facts.take_openers(found, kept.has_records)
            self._turns = kept
            self.result.turn_map = self._turns
        return self._turns

    def allowed_turn(self, turn: int | None) -> bool:
        if self.plan.turns is None:
            return True
        if turn is None:
            return False  # a superseded draft is outside any --turn window
        if self._allowed_turns is None:
            from pysift.core.turns import turns_with_pending

            # the t0 of a transcript with no record holds its pending sidecar records
            count = turns_with_pending(self.turns.turn_count, bool(self.result.pending))
            self._allowed_turns = set(self.plan.turns.resolve(0, count - 1))
        return turn in self._allowed_turns

    def run(self, spans: list[tuple[int, int]], pending: list[Record],
            unframed: list[int] = (),  # type: ignore[assignment]
            walked: tuple[list[UserLine], list[tuple[int, bytes, Record]] | None] | None = None
            ) -> None:
        """Decode the candidates, then match them. When the candidates are every user
        line (a label-marker scan reaching user records), the turn openers are collected on
        the way and the turn map comes free instead of from a second pass. ``unframed``:
        the file's lines that fail the shape check; the decoder counts those it parses,
        the rest are counted here, each line once."""
        from pysift.core import classify
        from pysift.core.turns import is_plain_carrier

        buf = self.buf
        assert buf is not None  # (none only for a count from kept facts: no run)
        find = buf.find
        markers = () if self.label_scan else self.line_markers
        collect = self.label_scan and _USER_MARKER in self.line_markers
        # a label scan stepped over the user carriers it recognised after their type key;
        # every other line it found is decoded. A needle scan's candidates are any lines:
        # only a user record's carrier may be skipped (see is_plain_carrier's user_keys).
        recheck_carriers = self.skip_carriers and not self.label_scan
        subagent = self.t.is_subagent
        user_keys = type_needles(buf, "user") if recheck_carriers else None
        result_keys = type_needles(buf, "tool_result") if recheck_carriers else None
        decoded: list[tuple[int, bytes, Record]] = []
        openers: list[tuple[int, Record]] = []
        parsed: set[int] = set()  # line starts the decoder saw (and counted if malformed)
        if walked is not None and walked[1] is not None:  # the key walk decoded them
            users, decoded = walked[0], walked[1]
            if not pending and self.plan.counts_user_lines() and users and settled(users):
                # a count whose facts the walk just took (a cache to fill): counted from
                # them, as a later run counts from the kept facts, nothing classified twice
                opened = {u.start for u in users if u.opens}
                self._take_turns([(start, rec) for start, _, rec in decoded
                                  if start in opened])
                assert self._turns is not None
                self.count_kept_lines(users, unframed, self._turns)
                return
            self.tally.malformed += sum(1 for u in users if u.kind == MALFORMED)
            parsed.update(u.start for u in users)
            openers = [(start, rec) for start, _, rec in decoded
                       if rec.type == "user" and classify.opens_turn(rec, subagent=subagent)]
            spans = []
        hits = self.result.hits
        # -c / -l ask only WHICH exchanges hold a hit: once one does, a later candidate in
        # it is neither decoded into a record, nor classified, nor matched: it is only
        # validated (``_decodes``: the decoder's verdict, so the malformed count stays
        # exact). Not under --resolve-persisted: each persisted output a candidate names
        # is read (and a failed read warned about) whether or not it counts.
        counted: set[tuple[str, int]] | None = (
            set() if self.plan.light and not self.plan.resolve_persisted else None)
        inline = counted is not None and not collect  # candidates considered as they come
        for start, end in spans:
            # bounded finds on the buffer: no copy of a line that is then skipped
            if markers and not any(find(m, start, end) >= 0 for m in markers):
                continue  # a torn or junk line among these is in ``unframed``
            if recheck_carriers and is_plain_carrier(buf, start, end, user_keys, result_keys):
                continue
            line = buf[start:end]
            parsed.add(start)
            if inline and counted and self._counted(start, counted):
                if self._decodes(line) is False:
                    self.tally.malformed += 1
                continue
            rec = decode(line, None, self.tally)
            if rec is None:
                continue
            if inline:
                assert counted is not None
                before = len(hits)
                self.consider(rec, start, line)
                if len(hits) > before:
                    counted.update(exchange_key(h) for h in hits[before:])
                continue
            decoded.append((start, line, rec))
            if collect and rec.type == "user" and classify.opens_turn(rec, subagent=subagent):
                openers.append((start, rec))
        if collect and self._turns is None:
            self._take_turns(openers)
        for start, line, rec in decoded:
            if counted and self._counted(start, counted):
                continue
            before = len(hits)
            self.consider(rec, start, line)
            if counted is not None and len(hits) > before:
                counted.update(exchange_key(h) for h in hits[before:])
        for rec in pending:
            if counted and self._counted(None, counted):
                continue
            self.consider(rec, None, None)
            self.result.sidecar_used = self.result.sidecar_used or any(
                h.source for h in self.result.hits)
        self.result.malformed += self.tally.malformed + sum(
            1 for start in unframed if start not in parsed)
        self.result.parsed = parsed

    def _decodes(self, line: bytes) -> bool | None:
        """``decode``'s verdict on ``line`` without building the record: True (a record),
        False (malformed, as the decoder counts it), None (blank)."""
        if is_blank(line):
            return None
        if not is_framed(line):
            return False
        if self._validator is None:
            self._validator = LineValidator()
        return self._validator(line)

    def _take_turns(self, openers: list[tuple[int, Record]]) -> None:
        """The turn map from every turn opener of the file (kept when a facet is in use)."""
        assert self.buf is not None
        from pysift.core.turns import turn_map_from_openers

        self._turns = turn_map_from_openers(openers, self.buf, subagent=self.t.is_subagent)
        self.result.turn_map = self._turns
        facts = self.result.facts
        if facts is not None and facts.openers is None:
            facts.take_openers(openers, self._turns.has_records)

    def _counted(self, offset: int | None, counted: set[tuple[str, int]]) -> bool:
        """Whether a hit of the record at ``offset`` (None: a sidecar record, in the
        latest turn) could only fall in an exchange already ``counted`` (a file with a hit
        has its turn map). A superseded draft is an exchange of its own."""
        turns = self.turns
        if offset is None:
            from pysift.core.turns import pending_turn

            return ("t", pending_turn(turns.turn_count)) in counted
        if turns.is_draft_offset(offset):
            return False
        return ("t", turns.turn_of_offset(offset) or 0) in counted

    def in_window(self, rec: Record) -> bool:
        return self.in_window_ts(rec.timestamp)

    def in_window_ts(self, ts: str | None) -> bool:
        return self.plan.in_window_ts(ts)

    def consider(self, rec: Record, offset: int | None, line: bytes | None) -> None:
        """Match a record's units; pay for line numbers and the turn map only on a hit."""
        if not self.in_window(rec):
            return
        units = self._units
        plan = self.plan
        select = plan.labels.selects
        if plan.light and plan.matcher.is_empty and offset is not None:
            self.count_only(rec, offset)
            return
        matched = self.matched_units(rec, units(rec, self.ctx, select))
        by_leaf = self.leaf_views(rec, matched) if plan.leaf_views else []
        drafted: list[tuple[classify.Unit, tuple[int, int] | None, str]] = []
        maybe_draft = (offset is not None and rec.type == "user"
                       and plan.labels.selects(L.USER_UNSENT)
                       and self._opens_turn(rec, subagent=self.t.is_subagent))
        if maybe_draft:
            drafted = self.matched_units(rec, units(rec, self.ctx, select, draft=True))
        if not matched and not drafted and not by_leaf:
            return
        from pysift.core.image_handles import image_ids
        from pysift.core.pairing import pair_unit, with_result_tool_name

        turns = self.turns
        turn: int | None
        if offset is None:  # a sidecar record: pending now, so in the latest turn
            from pysift.core.turns import pending_turn

            draft, turn = False, pending_turn(turns.turn_count)
        else:
            draft = turns.is_draft_offset(offset)
            turn = None if draft else turns.turn_of_offset(offset)
            if not self.plan.light:  # -c / -l never show a line number
                assert self.counter is not None  # an offset: a line of the bytes run() has
                rec.line = self.counter.line_at(offset)
        chosen = drafted if draft else matched
        if by_leaf and not draft:
            # the census by label: one hit per record, its labels the leaves whose own
            # view matched (the first leaf's unit stands for the record)
            leaves = tuple(leaf for leaf, _ in by_leaf)
            unit, span, text = by_leaf[0][1]
            chosen = [(replace(unit, label=leaves[0], labels=leaves), span, text)]
        if draft and not drafted and matched and plan.turns is None:
            # a superseded draft the pattern matches, hidden because the selection leaves
            # user.unsent out (-t user.message, a bare -t user): said, never silent (a
            # --turn window holds no draft at all)
            self.result.collapsed_drafts += 1
        if not chosen or not self.allowed_turn(turn):
            return
        # the record's image ids ride its first hit (once per record, as csift shows them)
        record_ids = [] if self.plan.light else image_ids(rec, rec.line)
        assert self.buf is not None  # consider() runs under run(), which has the bytes
        # -c / -l without bare hits kept: only WHICH exchanges hold a hit matters, so a
        # tool unit's partner is not looked for (nothing shows it)
        bare = plan.light and not plan.keep_hits
        for number, (unit, span, text) in enumerate(chosen):
            ids = record_ids if number == 0 else []
            if bare:
                joined = _unpaired()
            else:
                joined = pair_unit(self.buf, unit, rec, offset,
                                   valid=self.result.line_decodes)
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
        ctx, select = self.ctx, self.plan.labels.selects
        classify_rec, renders_unit = self._classify, self._renders_unit
        self._count(offset, rec.type == "user", rec.uuid, rec.timestamp, rec.source,
                    lambda draft: classify_rec(rec, ctx, draft=draft),
                    lambda leaves, accepted, draft: renders_unit(
                        rec, ctx, select, leaves, accepted, draft=draft))

    def count_kept(self, line: UserLine) -> None:
        """``count_only`` of a user record from its kept facts (``_count``'s decisions,
        made from them): its leaves, and the leaves that render a unit alone (a selection
        renders one when it takes any of them; a superseded draft is its single
        ``user.unsent``, which always renders)."""
        turns = self.turns
        offset = line.start
        draft = turns.is_draft_offset(offset)
        taken = self._kept_verdict(line.leaves or (), line.renders)
        labels: tuple[str, ...]
        turn: int | None
        if draft:
            if not self.plan.labels.selects(L.USER_UNSENT):
                if taken is not None and self.plan.turns is None:
                    self.result.collapsed_drafts += 1  # hidden by the selection: said
                return
            label, labels, turn = L.USER_UNSENT, (L.USER_UNSENT,), None
        else:
            if taken is None:
                return
            label, labels, turn = taken, tuple(line.leaves or ()), turns.turn_of_offset(offset)
        if not self.allowed_turn(turn):
            return
        unit = self._bare_units.get(labels)
        if unit is None:  # a text-less unit per label set (immutable: shared by its hits)
            from pysift.core.classify import Unit

            unit = self._bare_units[labels] = Unit(label, labels, "")
        self.result.hits.append(Hit(line=None, uuid=line.uuid, unit=unit, label=label,
                                    labels=labels, ts=line.ts, span=None, text="",
                                    source=None, offset=offset, turn=turn, draft=draft))

    def _kept_verdict(self, leaves: tuple[str, ...], renders: tuple[str, ...]) -> str | None:
        """The label a kept record (no draft) counts under: the first of its leaves the
        selection takes, when a taken leaf renders a unit alone; None: it does not count.
        One answer per (leaves, renders) pair of the file."""
        key = (leaves, renders)
        found = self._verdicts.get(key, self)
        if found is self:
            select = self.plan.labels.selects
            taken = [leaf for leaf in leaves if select(leaf)]
            found = self._verdicts[key] = (
                taken[0] if taken and any(select(x) for x in renders) else None)
        return found  # type: ignore[return-value]

    def _count(self, offset: int, is_user: bool, uuid: str | None, ts: str | None,
               source: str | None, leaves_of: Callable[[bool], list[str]],
               renders: Callable[[list[str], list[str], bool], bool]) -> None:
        select = self.plan.labels.selects
        turns = self.turns
        draft = is_user and turns.is_draft_offset(offset)
        leaves = leaves_of(draft)
        accepted = [leaf for leaf in leaves if select(leaf)]
        if draft and not accepted and self.plan.turns is None:
            sent = leaves_of(False)  # what it would be, were it no draft
            taken = [leaf for leaf in sent if select(leaf)]
            if taken and renders(sent, taken, False):
                self.result.collapsed_drafts += 1  # hidden by the selection: said
        if not accepted or not renders(leaves, accepted, draft):
            return
        turn = None if draft else turns.turn_of_offset(offset)
        if not self.allowed_turn(turn):
            return
        labels = tuple(leaves)
        unit = self._bare_units.get(labels)
        if unit is None:  # a text-less unit per label set (immutable: shared by its hits)
            from pysift.core.classify import Unit

            unit = self._bare_units[labels] = Unit(accepted[0], labels, "")
        self.result.hits.append(Hit(line=None, uuid=uuid, unit=unit, label=accepted[0],
                                    labels=labels, ts=ts, span=None, text="", source=source,
                                    offset=offset, turn=turn, draft=draft))

    def count_kept_lines(self, users: list[UserLine], unframed: list[int],
                         turns: TurnMap) -> None:
        """``run`` for a count over the kept user lines of an unchanged file (no pending
        sidecar record, every line a user record or a malformed one): the same decisions,
        from the facts."""
        # no carrier leaf is selected: the kept leaves need no spawn index (facts' doc)
        assert not self.plan.wants_carriers
        self._turns = self.result.turn_map = turns
        hits = self.result.hits
        counted: set[tuple[str, int]] = set()
        for line in users:
            if line.kind == MALFORMED:
                self.tally.malformed += 1
                continue
            if counted and self._counted(line.start, counted):
                continue
            if not self.in_window_ts(line.ts):
                continue
            before = len(hits)
            self.count_kept(line)
            if len(hits) > before:
                counted.update(exchange_key(h) for h in hits[before:])
        parsed = {line.start for line in users}
        self.result.malformed += self.tally.malformed + sum(
            1 for start in unframed if start not in parsed)

    def leaf_views(self, rec: Record, matched: list[tuple[classify.Unit, tuple[int, int] | None,
                                                         str]]
                   ) -> list[tuple[str, tuple[classify.Unit, tuple[int, int] | None, str]]]:
        """``--count-by label``: each selected leaf of ``rec`` whose own view the pattern
        matches, with its first matched unit (``-t <leaf>`` renders that view alone: a
        record under two leaves, an AskUserQuestion answer and its tool_result, matches
        under one and not the other). A record of one leaf is its richest view's match."""
        select = self.plan.labels.selects
        leaves = [leaf for leaf in self._classify(rec, self.ctx) if select(leaf)]
        if len(leaves) <= 1:
            return [(leaves[0], matched[0])] if leaves and matched else []
        out = []
        for leaf in leaves:
            got = self.matched_units(rec, self._units(rec, self.ctx, leaf.__eq__))
            if got:
                out.append((leaf, got[0]))
        return out

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
