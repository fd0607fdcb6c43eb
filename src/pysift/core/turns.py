"""Turn grouping: which line opens which turn, and which openers are superseded drafts.

SPEC §6.4 and the C-18 rule (§5.1 ``user.unsent``). A turn opens on every ``opens_turn``
record (§4.1; in a main transcript never a subagent's record Claude Code wrote into it,
``isSidechain:true``, so every builder here is told the file's kind) except:

- a SUPERSEDED DRAFT: an opener whose non-empty ``parentUuid`` is shared by a LATER opener
  with a different ``uuid`` (sent, esc-recalled, edited, re-sent: the earlier record stays on
  disk). The LAST sibling is the delivered one; every earlier one is a draft, labeled
  ``user.unsent`` and outside turn numbering. Whether the draft drew a reply is NOT part of
  the rule (99% never did, a few did before the recall; they are drafts all the same).
- a REPLAY COPY: an opener whose ``(parentUuid, uuid)`` an earlier opener already carried.
  A compaction re-anchor re-appends records with their uuids preserved; the copy is the same
  message, so it neither supersedes the original (which WAS sent) nor opens a second turn.
  It stays an ordinary member of the turn it falls in.

Turn index = max(0, openers at lines <= line minus 1): records before the first opener
belong to turn 0 together with the first opener's own turn, so indices follow opener order
and nothing is lost.

``build_turn_map`` runs over a whole buffer and decodes only lines that can open a turn:
every opener is a top-level ``"type":"user"`` record, found by one C-level regex pass; a
tool_result carrier (98% of user lines) is skipped undecoded unless it carries one of the
byte markers that could make it an opener (an AskUserQuestion answer, a rejection with typed
text, a peer-message tag).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import field
from typing import Any

from pysift.core.classify import in_sidechain, opens_turn
from pysift.core.decode import Tally, decode
from pysift.core.keyscan import (
    ANSWER,
    CARRIER_AFTER,
    CARRIER_BEFORE,
    CONTENT_ARRAY,
    CONTENT_ARRAY_SPACED,
    PROCEED,
    user_lines,
)
from pysift.core.rawjson import at_top_level, type_needles
from pysift.disk.lines import Buffer, count_in, iter_spans
from pysift.model.fastdata import dataclass
from pysift.model.record import Record

# The carrier test's byte markers and windows live with the key scan (``core.keyscan``):
# a carrier opens a turn only with `answer` (an AskUserQuestion answer, in all three
# phrasings and its `answers` echo) or `want to proceed` (a rejection with typed text)
# at the head of a tool_result's content, next to the block's type key, so only
# CARRIER_BEFORE/CARRIER_AFTER bytes around each key are searched; a block key stands in
# a content array that opens before it.
CARRIER_OPENER_WORDS: tuple[bytes, ...] = (ANSWER, PROCEED)  # stats' one-pass word test
_ANSWER, _PROCEED = ANSWER, PROCEED
_CONTENT_ARRAY, _CONTENT_ARRAY_SPACED = CONTENT_ARRAY, CONTENT_ARRAY_SPACED
_NON_BLANK = re.compile(rb"\S")


@dataclass(slots=True)
class OpenerCollapse:
    """What one walk over a transcript's openers decides (indices into that sequence).

    ``drafts`` maps each superseded draft to the sibling that finally replaced it;
    ``replays`` holds the replay copies (same parent AND same uuid as an earlier opener).
    """

    drafts: dict[int, int] = field(default_factory=dict)
    replays: set[int] = field(default_factory=set)


def collapse_openers(openers: Sequence[Record], *, subagent: bool) -> OpenerCollapse:
    """Apply the C-18 rule (plus the replay-copy guard) to ``openers`` in file order.

    Records that do not open a turn (in a file of ``subagent``'s kind) are ignored. An
    opener with a null or empty ``parentUuid`` is never a draft (grouping on "no parent"
    would merge unrelated first messages) but can be a replay copy (same missing parent,
    same uuid).
    """
    return collapse_keys([(rec.parent_uuid or "", rec.uuid)
                          if opens_turn(rec, subagent=subagent) else None
                          for rec in openers])


def collapse_keys(keys: Sequence[tuple[str, str | None] | None]) -> OpenerCollapse:
    """``collapse_openers`` on each opener's ``(parentUuid or "", uuid)`` (None: a record
    that opens no turn), as a cache keeps them."""
    groups: dict[str, list[int]] = {}
    seen_uuid: set[tuple[str, str]] = set()
    out = OpenerCollapse()
    for index, key in enumerate(keys):
        if key is None:
            continue
        parent, uuid = key
        if uuid:
            # a re-anchor replays a root opener too (null parent, uuid kept)
            if (parent, uuid) in seen_uuid:
                out.replays.add(index)
                continue
            seen_uuid.add((parent, uuid))
        if parent:
            groups.setdefault(parent, []).append(index)
    for siblings in groups.values():
        survivor = siblings[-1]
        for draft in siblings[:-1]:
            out.drafts[draft] = survivor
    return out


def superseded_drafts(openers: Sequence[Record], *, subagent: bool) -> set[int]:
    """Indices (into ``openers``) of the superseded drafts (C-18)."""
    return set(collapse_openers(openers, subagent=subagent).drafts)


class TurnMap:
    """The turn structure of one transcript.

    A map built from a buffer keys on byte OFFSETS of the opener lines (what a whole-buffer
    scan knows for free) and works out 1-based line numbers only when a caller asks for
    them (one newline count up to the last opener). A map built from decoded records keys
    on lines directly.

    ``opener_lines``: sorted lines of the records that open a turn (drafts and replay
    copies excluded). ``draft_lines``: superseded drafts (outside turn numbering).
    ``has_records``: False for an empty transcript, which has no turn at all.
    """

    __slots__ = ("_buf", "_draft_lines", "_lines", "_replay_lines", "draft_offsets",
                 "has_records", "opener_offsets", "replay_offsets")

    def __init__(self, opener_lines: list[int] | None = None,
                 draft_lines: set[int] | None = None, replay_lines: set[int] | None = None,
                 has_records: bool = True, *, opener_offsets: list[int] | None = None,
                 draft_offsets: set[int] | None = None,
                 replay_offsets: set[int] | None = None, buf: Buffer | None = None) -> None:
        self._lines = opener_lines
        self._draft_lines = draft_lines
        self._replay_lines = replay_lines
        self.has_records = has_records
        self.opener_offsets: list[int] = opener_offsets or []
        self.draft_offsets: set[int] = draft_offsets or set()
        self.replay_offsets: set[int] = replay_offsets or set()
        self._buf = buf

    # -- lazily numbered lines -------------------------------------------------------------
    def _number_lines(self) -> None:
        wanted = sorted({*self.opener_offsets, *self.draft_offsets, *self.replay_offsets})
        numbers: dict[int, int] = {}
        line, pos = 1, 0
        buf = self._buf
        for offset in wanted:
            if buf is not None:
                line += count_in(buf, b"\n", pos, offset)
            pos = offset
            numbers[offset] = line
        self._lines = [numbers[o] for o in self.opener_offsets]
        self._draft_lines = {numbers[o] for o in self.draft_offsets}
        self._replay_lines = {numbers[o] for o in self.replay_offsets}

    @property
    def opener_lines(self) -> list[int]:
        if self._lines is None:
            self._number_lines()
        return self._lines  # type: ignore[return-value]

    @property
    def draft_lines(self) -> set[int]:
        if self._draft_lines is None:
            self._number_lines()
        return self._draft_lines  # type: ignore[return-value]

    @property
    def replay_lines(self) -> set[int]:
        if self._replay_lines is None:
            self._number_lines()
        return self._replay_lines  # type: ignore[return-value]

    # -- queries -----------------------------------------------------------------------------
    def turn_of(self, line: int) -> int | None:
        """The 0-based turn of ``line``; None for a superseded draft."""
        if line in self.draft_lines:
            return None
        return max(0, bisect_right(self.opener_lines, line) - 1)

    def turn_of_offset(self, offset: int) -> int | None:
        """The 0-based turn of the line starting at ``offset`` (buffer-built maps)."""
        if offset in self.draft_offsets:
            return None
        return max(0, bisect_right(self.opener_offsets, offset) - 1)

    def is_draft_offset(self, offset: int) -> bool:
        return offset in self.draft_offsets

    @property
    def turn_count(self) -> int:
        """Turns in the transcript: one per opener, or a single turn 0 when no record
        opens one (a transcript of leading records only); zero when it has no record."""
        count = len(self.opener_offsets) if self._lines is None else len(self._lines)
        if count:
            return count
        return 1 if self.has_records else 0

    def byte_span(self, turn: int, size: int) -> tuple[int, int] | None:
        """``[start, end)`` byte range of ``turn`` (buffer-built maps; turn 0 from byte 0)."""
        offsets = self.opener_offsets
        if not 0 <= turn < self.turn_count or (offsets == [] and self._buf is None):
            return None
        start = 0 if turn == 0 or not offsets else offsets[turn]
        end = offsets[turn + 1] if turn + 1 < len(offsets) else size
        return start, end

    def line_span(self, turn: int, last_line: int) -> tuple[int, int]:
        """First and last line of ``turn``; ``last_line`` is the transcript's last line.

        Turn 0 starts at line 1 (it owns any leading records). Raises ``IndexError`` for a
        turn the transcript does not have.
        """
        if not 0 <= turn < self.turn_count:
            raise IndexError(f"turn {turn} out of range (transcript has {self.turn_count})")
        lines = self.opener_lines
        first = 1 if turn == 0 else lines[turn]
        if turn + 1 < len(lines):
            return first, lines[turn + 1] - 1
        return first, last_line


def pending_turn(turn_count: int) -> int:
    """The turn an elicitation sidecar's pending record stands in: the latest (it is
    pending now), or t0 of a transcript with no record, which it opens."""
    return max(0, turn_count - 1)


def turns_with_pending(turn_count: int, pending: bool) -> int:
    """The turns a ``--turn`` window resolves against when the session's sidecar holds
    ``pending`` records: a transcript with no record still has the t0 they stand in
    (search numbers them ``·t0``), so ``--turn 0`` and ``-1`` reach them there too."""
    return max(turn_count, 1) if pending else turn_count


def _turn_map(openers: list[Record], has_records: bool, subagent: bool) -> TurnMap:
    collapse = collapse_openers(openers, subagent=subagent)
    drafts = {openers[i].line for i in collapse.drafts if openers[i].line is not None}
    replays = {openers[i].line for i in collapse.replays if openers[i].line is not None}
    lines = sorted(
        rec.line
        for i, rec in enumerate(openers)
        if rec.line is not None and i not in collapse.drafts and i not in collapse.replays
    )
    return TurnMap(opener_lines=lines, draft_lines=drafts, replay_lines=replays,  # type: ignore[arg-type]
                   has_records=has_records)


def build_turn_map_from_records(records: Iterable[Record], *, subagent: bool) -> TurnMap:
    """The turn map of already-decoded records (sidecar records without a line are
    skipped) of a file of ``subagent``'s kind."""
    openers: list[Record] = []
    has_records = False
    for rec in records:
        if rec.line is None:
            continue
        has_records = True
        if opens_turn(rec, subagent=subagent):
            openers.append(rec)
    return _turn_map(openers, has_records, subagent)


def is_plain_carrier(buf: Buffer, start: int, end: int,
                     user_keys: tuple[bytes, ...] | None = None,
                     result_keys: tuple[bytes, ...] | None = None, *,
                     words_absent: bool = False) -> bool:
    """A tool_result carrier that cannot open a turn, judged from the bytes of its line
    ``[start, end)``: it holds a ``"type":"tool_result"`` block key (``result_keys``, the
    file's spellings of it; a prompt or output that merely reads ``tool_result`` is no
    block) after a ``"content":[`` array opens (an object nested in another field is no
    block), and no such block has an ``answer`` / ``want to proceed`` near its type key
    (an AUQ answer and a rejection say so at the head of their content). Every block key
    of the line is looked at (one ``find`` through the line, at C speed), so a rejection
    in a record's second block is seen whatever the size of the first. The answer test
    agrees with the decoded record's (``classify.opens_turn``) for every carrier shape
    Claude Code writes; SPEC §4 names the hand-made shapes it does not see.

    The line is a carrier only when it is a user record: its OWN ``"type":"user"`` key
    (``user_keys``, the file's spellings; looked up when not passed) stands at the top
    level of the line's object (``rawjson.at_top_level``) before its first tool_result
    block, where Claude Code writes it. A line found by that key is not always a user
    record: an assistant record holding a server-side tool_result block (some providers
    write them) may nest a ``"type":"user"`` object in a tool_use input, a progress record
    nests a whole user message; neither is a carrier, and their text must not be skipped.
    A user record whose own type key comes late is decoded, not lost.

    ``words_absent``: the caller knows that neither word occurs in the line (one pass over
    the whole file found none), so no block can hold one: only the first block key is
    looked up, and the carrier's body is not read at all. The answer is the same.
    """
    find = buf.find
    if result_keys is None:
        result_keys = type_needles(buf, "tool_result")
    first = -1
    for key in result_keys:
        at = find(key, start, end)
        if at >= 0 and (first < 0 or at < first):
            first = at
        if words_absent:
            continue
        step = len(key)
        while at >= 0:
            lo = at - CARRIER_BEFORE if at - CARRIER_BEFORE > start else start
            hi = at + CARRIER_AFTER if at + CARRIER_AFTER < end else end
            if find(_ANSWER, lo, hi) >= 0 or find(_PROCEED, lo, hi) >= 0:
                return False
            at = find(key, at + step, end)
    if first < 0:
        return False
    if find(_CONTENT_ARRAY, start, first) < 0 and find(_CONTENT_ARRAY_SPACED, start, first) < 0:
        return False  # no content array opens before it: a nested object, not a block
    if user_keys is None:
        user_keys = type_needles(buf, "user")
    for key in user_keys:
        at = find(key, start, first)
        while at >= 0:
            if at_top_level(buf, start, at):
                return True
            at = find(key, at + len(key), first)
    return False


def find_openers(buf: Buffer, lo: int, hi: int, tally: Tally | None, *, subagent: bool
                 ) -> list[tuple[int, Record]]:
    """``(offset, record)`` of every turn opener whose line starts in ``[lo, hi)`` (the
    buffer a file of ``subagent``'s kind)."""
    found: list[tuple[int, Record]] = []
    for start, end, _ in user_lines(buf, None, lo, hi, carriers=False):
        if start < lo:
            continue  # a line the previous part owns (a carrier is never decoded)
        rec = decode(buf[start:end], None, tally)
        if rec is not None and opens_turn(rec, subagent=subagent):
            found.append((start, rec))
    return found


_SPLIT_BYTES = 64 << 20


def _half(shared: tuple[Buffer, bool], bounds: tuple[int, int]
          ) -> list[tuple[int, dict[str, Any]]]:
    buf, subagent = shared
    return [(offset, rec.raw)
            for offset, rec in find_openers(buf, *bounds, None, subagent=subagent)]


def openers_of(buf: Buffer, tally: Tally | None = None, *, cores: int = 1, subagent: bool
               ) -> list[tuple[int, Record]]:
    """``(offset, record)`` of every turn opener of the buffer, in file order. Big files,
    given two ``cores``: the two halves (split at a newline) scanned by two processes,
    the buffer shared (a forked half inherits the mapping, never a copy).

    The malformed tally is then counted in the parent's half only, as a census of
    candidates it never was.
    """
    from pysift.disk import fanout

    size = len(buf)
    if size < _SPLIT_BYTES or cores < 2:
        return find_openers(buf, 0, size, tally, subagent=subagent)
    mid = buf.find(b"\n", size // 2)
    if mid < 0:
        return find_openers(buf, 0, size, tally, subagent=subagent)
    parts = fanout.map_ordered(_half, [(0, mid + 1), (mid + 1, size)],
                               shared=(buf, subagent), workers=2, min_items=1)
    return [(offset, Record(raw, None)) for part in parts for offset, raw in part]


def build_turn_map(buf: Buffer, tally: Tally | None = None, *, cores: int = 1,
                   subagent: bool) -> TurnMap:
    """The turn map of a whole transcript buffer, decoding only possible openers.

    Every opener is a top-level ``"type":"user"`` record, found by a ``find`` loop on that
    key in the file's own JSON layout (two processes for a big file when the caller grants
    ``cores``: only a caller on a core of its own, never a worker of a spread batch). A
    tool_result carrier (98% of user lines, and the big ones) is skipped undecoded unless
    one of two words every carrier opener holds (``answer`` for an AskUserQuestion answer
    in any phrasing, ``want to proceed`` for a rejection) stands near its tool_result type
    key. No line number is computed here (see ``TurnMap``).

    ``tally`` counts malformed lines among the decoded candidates only (this pass does not
    look at the others, so it is no census of the file). ``subagent``: the file's kind (in
    a main transcript a subagent's record opens no turn).
    """
    found = openers_of(buf, tally, cores=cores, subagent=subagent)
    return turn_map_from_openers(found, buf, subagent=subagent)


def turn_map_from_openers(found: list[tuple[int, Record]], buf: Buffer,
                          numbers: list[int] | None = None, *, subagent: bool) -> TurnMap:
    """The map from every turn-opening record of a buffer, as ``(offset, record)`` in file
    order (``build_turn_map`` finds them; a scan that decoded every user line already has
    them). ``numbers``: the 1-based line of each, when the caller counted its lines (the
    map then numbers its lines without counting newlines). ``subagent``: the file's kind;
    in a main transcript a subagent's record among ``found`` (a scan that did not know
    the kind) is left out: it opens no turn there."""
    has_records = bool(found) or holds_a_record(buf)
    if not subagent and any(in_sidechain(rec, subagent=False) for _, rec in found):
        kept = [i for i, (_, rec) in enumerate(found) if not in_sidechain(rec, subagent=False)]
        numbers = None if numbers is None else [numbers[i] for i in kept]
        found = [found[i] for i in kept]
    offsets = [offset for offset, _ in found]
    return turn_map_of(offsets, collapse_openers([rec for _, rec in found], subagent=subagent),
                       has_records, buf, numbers)


def turn_map_of(offsets: list[int], collapse: OpenerCollapse, has_records: bool,
                buf: Buffer | None, numbers: list[int] | None = None) -> TurnMap:
    """The map from the openers' offsets and their collapse (drafts, replays); ``numbers``
    (the line of each offset, when known) sets its line numbers too."""
    drafts, replays = collapse.drafts, collapse.replays
    kept = [i for i in range(len(offsets)) if i not in drafts and i not in replays]
    return TurnMap(
        None if numbers is None else [numbers[i] for i in kept],
        None if numbers is None else {numbers[i] for i in drafts},
        None if numbers is None else {numbers[i] for i in replays},
        has_records,
        opener_offsets=[offsets[i] for i in kept],
        draft_offsets={offsets[i] for i in drafts},
        replay_offsets={offsets[i] for i in replays},
        buf=buf,
    )


def holds_a_record(buf: Buffer) -> bool:
    """Whether any line of a transcript without openers decodes to a record (a file of
    torn or garbage lines has none, so no turn; the first record line settles it)."""
    if _NON_BLANK.search(buf) is None:
        return False
    return any(decode(buf[start:end], None) is not None for start, end in iter_spans(buf))


_SEED_HEAD_LINES = 400


def subagent_seed(buf: Buffer) -> tuple[str | None, int | None]:
    """``(uuid, line)`` of a subagent transcript's spawn-prompt seed: its first turn-opening
    record (the prompt the parent delivered, classified parent ⇨ self). None for a
    ``/fork`` clone, whose line 1 is a ``fork-context-ref`` (v0.10.2 ③): its first opener
    is the parent's own human message. Reads only the head of the file."""
    for number, (start, end) in enumerate(iter_spans(buf), start=1):
        if number > _SEED_HEAD_LINES:
            break
        rec = decode(buf[start:end], number)
        if rec is None:
            continue
        if rec.type == "fork-context-ref":
            return None, None
        if opens_turn(rec, subagent=True):  # (read from a subagent transcript only)
            return rec.uuid, number
    return None, None
