"""Record addressing for ``show``: by line, uuid, turn or durable block id (§6.11).

A ``TranscriptView`` wraps one transcript's buffer. Lines are located with C-level
newline counting (``offset_of_line``), uuids with a whole-buffer byte search, turns
through the shared ``TurnMap``; only the addressed lines are decoded. Rendering goes
through the same classifier as ``search``, so a record reads the same on both.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field
from typing import Any

from pysift.core import classify
from pysift.core.blocks import assistant_part_text
from pysift.core.decode import Tally, decode, is_blank, is_framed, malformed_in
from pysift.core.image_handles import image_ids
from pysift.core.pairing import PlanIndex, pair_unit, with_result_tool_name
from pysift.core.sidecar import read_sidecar
from pysift.core.timez import parse_ts
from pysift.core.turns import TurnMap, build_turn_map, subagent_seed
from pysift.disk.layout import Transcript, sidecar_of
from pysift.disk.lines import (
    Buffer,
    LineCounter,
    count_lines,
    iter_spans,
    line_end,
    line_of,
    line_start,
    offset_of_line,
)
from pysift.disk.mapped import open_buffer
from pysift.errors import NotFoundError, UsageError
from pysift.model import labels as L
from pysift.model.fastdata import dataclass
from pysift.model.record import Record


@dataclass
class Fetched:
    """One rendered unit of one record, with everything a row needs."""

    line: int | None
    uuid: str | None
    turn_index: int | None
    superseded: bool
    unit: classify.Unit
    label: str
    labels: tuple[str, ...]
    pairing: str | None
    source: str | None
    ts: str | None
    image_ids: list[str] = field(default_factory=list)


class TranscriptView:
    """One transcript opened for addressing. ``cores``: the processes a big file's turn
    grouping may use (the caller's call: more than one only on a core of its own)."""

    def __init__(self, transcript: Transcript, buf: Buffer | None = None, *,
                 cores: int = 1) -> None:
        self.transcript = transcript
        self.cores = cores
        self.buf: Buffer = open_buffer(transcript.path) if buf is None else buf
        self.tally = Tally()
        self._turns: TurnMap | None = None
        self._lines: int | None = None
        self._malformed: int | None = None  # the whole file's, counted on demand
        # uuid -> the malformed lines holding it (``lines_of_uuid``)
        self.torn_uuid_lines: dict[str, list[int]] = {}
        self._seed: tuple[str | None, int | None] | None = None
        self._links: dict[str, Any] | None = None  # the spawn links' context fields
        self._offsets: dict[int, int | None] = {}
        self.sidecar_error: str | None = None  # the sidecar exists but could not be read
        self._pending: list[Record] | None = None  # the sidecar's records, once read
        self.plan_index = PlanIndex(self.buf)  # a rejection's [plan: …] pointer

    # -- geometry ----------------------------------------------------------------------
    @property
    def line_count(self) -> int:
        if self._lines is None:
            self._lines = count_lines(self.buf)
        return self._lines

    @property
    def turns(self) -> TurnMap:
        if self._turns is None:
            self._turns = build_turn_map(self.buf, cores=self.cores,
                                         subagent=self.transcript.is_subagent)
        return self._turns

    def malformed_lines(self) -> int:
        """The transcript file's malformed lines, all of them (``decode.malformed_in``):
        what an address error names when it says the file has no such turn or line, since
        a torn line may be the record that was asked for."""
        if self._malformed is None:
            self._malformed = malformed_in(self.buf)
        return self._malformed

    def context(self, *, address_mode: bool) -> classify.ClassifyContext:
        t = self.transcript
        if t.is_subagent and self._seed is None:
            self._seed = subagent_seed(self.buf)
        seed_uuid, seed_line = self._seed or (None, None)
        if self._links is None:  # the session's side files, read at a first lookup
            from pysift.core.spawnlinks import LinkBook

            self._links = LinkBook().context_fields(t)
        return classify.ClassifyContext(
            owner_id=t.session_id, is_subagent=t.is_subagent, parent_id=t.parent_session_id,
            address_mode=address_mode, seed_uuid=seed_uuid, seed_line=seed_line,
            plan_index=self.plan_index, **self._links,
        )

    def line_offset(self, number: int) -> int | None:
        """Start offset of line ``number`` (None past EOF), counted once per number."""
        if number not in self._offsets:
            self._offsets[number] = offset_of_line(self.buf, number)
        return self._offsets[number]

    def line_bytes(self, number: int) -> bytes | None:
        start = self.line_offset(number)
        if start is None:
            return None
        return self.buf[start:line_end(self.buf, start)]

    def iter_range(self, first: int, last: int) -> Iterable[tuple[int, int, int]]:
        """``(line, start, end)`` for lines first..last, locating ``first`` once."""
        start = self.line_offset(first)
        if start is None:
            return
        number = first
        for s, e in iter_spans(self.buf, start):
            if number > last:
                return
            yield number, s, e
            number += 1

    def lines_of_uuid(self, uuid: str) -> list[int]:
        """Lines whose record uuid is ``uuid`` (byte search, then a parse of those lines).
        A malformed line holding the uuid is no record, but may be that one cut off: its
        number is kept in ``torn_uuid_lines`` for the miss error to name."""
        found: list[int] = []
        if not uuid:  # an empty needle matches everywhere: no record has an empty uuid
            return found
        needle = uuid.encode()
        pos = self.buf.find(needle)
        while pos >= 0:
            s = line_start(self.buf, pos)
            e = line_end(self.buf, pos)
            rec = decode(self.buf[s:e], None)
            if rec is not None and rec.uuid == uuid:
                found.append(line_of(self.buf, s))
            elif rec is None:
                self.torn_uuid_lines.setdefault(uuid, []).append(line_of(self.buf, s))
            pos = self.buf.find(needle, e)
        return found

    # -- rendering ---------------------------------------------------------------------
    def render_line(self, number: int, start: int, end: int, *, address_mode: bool,
                    in_turn_window: bool = False) -> list[Fetched] | None:
        """Units of one line; None when the line is not a renderable record."""
        raw = self.buf[start:end]
        if is_blank(raw):
            return None
        rec = decode(raw, number, self.tally)
        if rec is None:
            return None
        return self.render_record(rec, start, end, address_mode=address_mode,
                                  in_turn_window=in_turn_window)

    def render_record(self, rec: Record, start: int | None, end: int | None, *,
                      address_mode: bool, in_turn_window: bool = False) -> list[Fetched] | None:
        ctx = self.context(address_mode=address_mode)
        units = classify.units(rec, ctx)
        if not units:
            return None
        # by byte offset when known: the turn map then never numbers its lines
        if start is not None:
            draft = self.turns.is_draft_offset(start)
            turn = None if draft else self.turns.turn_of_offset(start)
        elif rec.line is not None:
            draft = rec.line in self.turns.draft_lines
            turn = None if draft else self.turns.turn_of(rec.line)
        else:  # a sidecar record is pending now: it belongs to the latest turn
            draft, turn = False, max(0, self.turns.turn_count - 1)
        if draft and in_turn_window:
            return []  # a superseded draft sits outside turn numbering
        out: list[Fetched] = []
        # the record's image ids, numbered where `image` numbers them (every image of the
        # record in document order, direct and nested alike), ride its first unit, as
        # search shows them: no unit stands for a direct image beside tool results
        record_ids = image_ids(rec, rec.line)
        for number, unit in enumerate(units):
            label, labels = unit.label, unit.labels
            if draft:
                label, labels = L.USER_UNSENT, (L.USER_UNSENT,)
            joined = pair_unit(self.buf, unit, rec, start)
            unit = with_result_tool_name(unit, joined, self.buf)
            out.append(Fetched(
                line=rec.line, uuid=rec.uuid, turn_index=turn, superseded=draft, unit=unit,
                label=label, labels=labels, pairing=joined.state,
                source=rec.source, ts=rec.timestamp,
                image_ids=record_ids if number == 0 else [],
            ))
        return out

    def sidecar_records(self) -> list[Record]:
        """The pending records of the transcript's elicitation sidecar (none without
        one), read once: its malformed lines join the view's count a single time however
        often a command asks."""
        if self._pending is None:
            sidecar = sidecar_of(self.transcript)
            if sidecar is None:
                self._pending = []
            else:
                merge = read_sidecar(sidecar, self.buf)
                self.tally.malformed += merge.skipped_lines
                self.sidecar_error = merge.error
                self._pending = merge.pending
        return self._pending


# -- branch points ----------------------------------------------------------------------

_CONVERSATION = ("user", "assistant", "system")


@dataclass(frozen=True)
class BranchChild:
    line: int
    uuid: str
    record_type: str
    ts: str | None


@dataclass(frozen=True)
class Fork:
    """A record uuid two or more conversation records name as their ``parentUuid``."""

    uuid: str
    line: int | None  # the parent's own line (None when it is not in the file)
    children: list[BranchChild]
    widest_gap_seconds: int | None  # None when a child has no readable timestamp


@dataclass(frozen=True)
class BranchPoints:
    forks: list[Fork]  # widest gap first, unknown gaps last, then by the parent's line
    conversation_records: int


def branch_points(view: TranscriptView) -> BranchPoints:
    """Where the ``parentUuid`` chain forks (a draft re-sent, a retry), in one pass over
    the lines that carry a ``parentUuid`` or a ``uuid`` key (a root record of an older
    schema has no ``parentUuid`` key at all, and is still a conversation record and a
    parent whose line is named).

    Tool-result carriers, isMeta records and compaction summaries never count as children
    (csift v0.8.1): parallel tool calls hang their results off one assistant record,
    which would otherwise read as a fork in most sessions. A line decoded is counted by
    the decoder; any other line that fails the shape check (``{…}``-framed, csift's
    malformed-line law) counts as malformed in ``view.tally`` too.
    """
    buf = view.buf
    line_of_uuid: dict[str, int] = {}
    children: dict[str, list[BranchChild]] = {}
    conversation = 0
    for number, (s, e) in enumerate(iter_spans(buf), start=1):
        raw = buf[s:e]
        if is_blank(raw) or (b'"parentUuid"' not in raw and b'"uuid"' not in raw):
            if not is_blank(raw) and not is_framed(raw):  # a torn line lost its `}`
                view.tally.malformed += 1
            continue
        rec = decode(raw, number, view.tally)
        if rec is None or not rec.uuid:
            continue
        # a parent is any record with a uuid (newer Claude Code chains attachment and
        # progress records too); only conversation records are children
        line_of_uuid.setdefault(rec.uuid, number)
        if rec.type not in _CONVERSATION:
            continue
        conversation += 1
        if rec.parent_uuid and not _never_a_child(rec):
            kids = children.setdefault(rec.parent_uuid, [])
            # a replay copy (a compaction re-anchor writes a record again, same uuid and
            # parent) is the same child on a second line: its first line stands for it
            if not any(k.uuid == rec.uuid for k in kids):
                kids.append(BranchChild(number, rec.uuid, str(rec.type), rec.timestamp))
    forks = []
    for parent, kids in children.items():
        if len(kids) < 2:
            continue
        stamps = [parse_ts(k.ts) for k in kids]
        gap = None
        known = [s for s in stamps if s is not None]
        if len(known) == len(stamps):
            gap = int((max(known) - min(known)).total_seconds())
        forks.append(Fork(parent, line_of_uuid.get(parent), kids, gap))
    forks.sort(key=lambda f: (f.widest_gap_seconds is None, -(f.widest_gap_seconds or 0),
                              f.line or 0))
    return BranchPoints(forks, conversation)


def _never_a_child(rec: Record) -> bool:
    """A record that hangs off its parent by mechanics, not by a re-send or a retry."""
    return (rec.is_meta or rec.is_compact_summary
            or (rec.is_user_record and bool(rec.blocks_of("tool_result"))))


def open_view(transcript: Transcript) -> TranscriptView:
    """The entry of ``show``: one transcript, read on the main process, whose turn
    grouping may spread a big file over every core."""
    from pysift.disk.fanout import cpu_workers

    return TranscriptView(transcript, cores=cpu_workers())


def block_text(view: TranscriptView, block_id: str) -> str:
    """The text of a durable block id (port decisions): ``r:<tool_use_id>`` is that
    tool_result's content joined as text; ``a:<message.id>:p<n>`` is the n-th (0-based)
    content block of that assistant message, counted across the message's records in
    file order (Claude Code writes one block per line, all sharing ``message.id``)."""
    if block_id.startswith("r:") and len(block_id) > 2:
        tool_id = block_id[2:]
        for rec in _records_containing(view, tool_id, b"tool_result"):
            for block in rec.blocks_of("tool_result"):
                if block.get("tool_use_id") == tool_id:
                    return classify.result_text(block)  # as search renders (and hashes) it
        raise NotFoundError(f"no tool_result with tool_use_id {tool_id} in "
                            f"{view.transcript.path}; list ids with pysift search")
    # a:<message.id>:p<n>, the id taken whole between the prefix and the last colon: a
    # message id is whatever the API wrote (a proxy's may hold colons), never empty
    msg_id, _, part = block_id[2:].rpartition(":")
    if (block_id.startswith("a:") and msg_id and part.startswith("p") and part[1:].isascii()
            and part[1:].isdigit()):
        index = int(part[1:])
        seen = 0
        for rec in _records_containing(view, msg_id, b"assistant"):
            if rec.message_id != msg_id or not rec.is_assistant_record:
                continue
            for block in rec.blocks():
                if seen == index:
                    return assistant_part_text(block)
                seen += 1
        raise NotFoundError(f"assistant message {msg_id} has no part p{index} "
                            f"({seen} part(s) found) in {view.transcript.path}")
    raise UsageError(f"'{block_id}' is not a block id; use r:<tool_use_id> or "
                     "a:<message.id>:p<n>")


def _records_containing(view: TranscriptView, token: str, also: bytes) -> Iterable[Record]:
    """The records of the lines holding ``token`` and ``also`` (the block's record kind:
    a line without it cannot hold the block, and is never decoded: a long tool call's
    progress records name its id by the thousand). ``token`` is never empty: an empty
    needle matches everywhere, and the next search would start where the last one
    matched."""
    if not token:
        return
    buf, needle = view.buf, token.encode()
    lines = LineCounter(buf)  # offsets only grow: each byte is counted once
    pos = buf.find(needle)
    while pos >= 0:
        s, e = line_start(buf, pos), line_end(buf, pos)
        if buf.find(also, s, e) >= 0:
            rec = decode(buf[s:e], lines.line_at(s))
            if rec is not None:
                yield rec
        pos = buf.find(needle, e)
