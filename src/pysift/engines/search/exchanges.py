"""Hits -> complete round-trip exchanges (SPEC §6.4), built inside the per-file worker.

An exchange is one turn that holds at least one hit (a superseded draft is its own unit,
outside turn numbering). Its instant is the turn opener's timestamp, else the earliest
hit's. ``record_uuids`` lists every record stitched in: the hits, each tool hit's partner
(use <-> result), and for a message-class hit (user.*, agent.message, agent.thinking*) the
turn opener and the assistant records of the turn (the agent's response).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import field
from typing import Any

from pysift.core import classify
from pysift.core.decode import decode
from pysift.core.image_handles import image_ids
from pysift.core.pairing import pair_unit, with_result_tool_name
from pysift.core.rawjson import iter_key_lines, type_needles
from pysift.core.timez import readable_span
from pysift.core.turns import TurnMap, pending_turn
from pysift.disk.layout import Transcript
from pysift.disk.lines import Buffer, iter_spans, simd_search
from pysift.engines.search.scan import FileScan, Hit, exchange_key
from pysift.model import labels as L
from pysift.model.fastdata import dataclass

_UUID = re.compile(rb'"uuid"[ \t]*:[ \t]*"([^"\\]+)"')
_RESPONSE_PULLERS = frozenset({
    L.USER_MESSAGE, L.USER_ANSWER, L.USER_REJECTION, L.USER_UNSENT,
    L.AGENT_MESSAGE, L.AGENT_THINKING, L.AGENT_THINKING_NARRATION,
})

# --siblings fixed policy: message units always; these leaves capped per exchange.
SIBLING_CAPS = {
    L.AGENT_THINKING: 2,
    L.AGENT_THINKING_NARRATION: 1,
    L.AGENT_TOOL_USE: 3,
    L.AGENT_TOOL_RESULT: 3,
}
SIBLING_HARNESS_CAP = 2


@dataclass
class Exchange:
    transcript: Transcript
    file_index: int
    turn: int | None
    draft: bool
    ts: str | None
    hits: list[Hit]
    record_uuids: list[str]
    siblings: list[Hit] = field(default_factory=list)
    siblings_hidden: int = 0
    hidden_lines: tuple[int, int] | None = None
    turn_lines: tuple[int, int] | None = None


def count_exchanges(scan: FileScan) -> int:
    """How many exchanges ``assemble`` would make (``-c``/``-l``: nothing is stitched)."""
    return len({exchange_key(hit) for hit in scan.hits})


def assemble(scan: FileScan, buf: Buffer, *, siblings: bool = False,
             ctx: classify.ClassifyContext | None = None) -> list[Exchange]:
    """The file's exchanges, each with its stitched records (and siblings if asked)."""
    if not scan.hits:
        return []
    turns = scan.turn_map
    groups: dict[tuple[str, int], list[Hit]] = {}
    for hit in scan.hits:
        groups.setdefault(exchange_key(hit), []).append(hit)
    out: list[Exchange] = []
    for (kind, ident), hits in groups.items():
        hits.sort(key=lambda h: (h.line is None, h.line or 0))
        draft = kind == "d"
        turn = None if draft else ident
        span = turns.byte_span(turn, len(buf)) if turns is not None and turn is not None \
            else None
        opener_ts = opener_uuid = None
        if span is not None and turns is not None and turn is not None:
            opener_ts, opener_uuid = _opener_meta(buf, turns, turn)
        ts = _started(opener_ts, hits)
        uuids = _stitch(buf, hits, span, opener_uuid, scan.line_decodes)
        ex = Exchange(transcript=scan.transcript, file_index=scan.index, turn=turn, draft=draft,
                      ts=ts, hits=hits, record_uuids=uuids)
        if siblings and ctx is not None and turns is not None and turn is not None:
            # a transcript with no record has no span, yet the t0 its pending sidecar
            # records stand in (``pending_turn``), where each is the others' sibling
            shown = _add_siblings(ex, scan, buf, span, ctx, turns) if span is not None else {}
            if turn == pending_turn(turns.turn_count):
                _add_pending_siblings(ex, buf, scan.pending, ctx, shown, scan.line_decodes)
        out.append(ex)
    out.sort(key=lambda e: (e.hits[0].line is None, e.hits[0].line or 0))
    return out


def exchange_stamps(scan: FileScan, buf: Buffer) -> dict[tuple[str, int], str | None]:
    """Each exchange's ``started_utc`` as ``assemble`` would set it (its opener's
    timestamp, else its earliest hit's), keyed by ``exchange_key``, without stitching:
    ``--raw`` orders and caps its lines by exchange as the rendered run does."""
    groups: dict[tuple[str, int], list[Hit]] = {}
    for hit in scan.hits:
        groups.setdefault(exchange_key(hit), []).append(hit)
    out: dict[tuple[str, int], str | None] = {}
    turns = scan.turn_map
    for key, hits in groups.items():
        opener_ts = None
        if key[0] == "t" and turns is not None:
            opener_ts, _uuid = _opener_meta(buf, turns, key[1])
        out[key] = _started(opener_ts, hits)
    return out


def _started(opener_ts: str | None, hits: list[Hit]) -> str | None:
    """An exchange's started_utc: its opener's timestamp, else its earliest hit's by the
    instant it names, never by its spelling (``…T12:00:00+05:00`` is before ``…T08:00:00Z``;
    ``…T08:00:00Z`` before ``…T08:00:00.500Z``); a hit stamp naming no instant is the
    answer only when none names one (the exchange is then undated)."""
    if opener_ts:
        return opener_ts
    earliest = readable_span(h.ts for h in hits)[0]
    return earliest if earliest is not None else next((h.ts for h in hits if h.ts), None)


def _opener_meta(buf: Buffer, turns: TurnMap, turn: int) -> tuple[str | None, str | None]:
    """Timestamp and uuid of the record opening ``turn`` (None for an opener-less t0)."""
    offsets = turns.opener_offsets
    if turn >= len(offsets):
        return None, None
    start = offsets[turn]
    end = buf.find(b"\n", start)
    rec = decode(buf[start:len(buf) if end < 0 else end], None)
    if rec is None:
        return None, None
    return rec.timestamp, rec.uuid


def _stitch(buf: Buffer, hits: list[Hit], span: tuple[int, int] | None,
            opener_uuid: str | None, decodes: Callable[[int, int], bool]) -> list[str]:
    """The exchange's ``record_uuids``. Only records are stitched: an assistant line of
    the turn that does not decode (``decodes``, which notes a framed one for
    ``skipped_lines``) is no record, whatever uuid its bytes hold; a partner is one by
    ``pair``'s own check."""
    found: list[str] = []
    seen: set[str] = set()

    def add(uuid: str | None) -> None:
        if uuid and uuid not in seen:
            seen.add(uuid)
            found.append(uuid)

    pull_response = any(h.label in _RESPONSE_PULLERS for h in hits)
    if pull_response:
        add(opener_uuid)
    for hit in hits:
        add(hit.uuid)
        if hit.pairing == "paired":  # by its id, or through its record (csift §4.5)
            add(_partner_uuid(buf, hit))
    if pull_response and span is not None:
        # the agent's response: every assistant record of the turn, found by a find loop
        # on the file's own assistant type key (the tool traffic between is passed in C;
        # a regex pass over the turn's bytes cost ~0.4 ms an exchange)
        nesting = type_needles(buf, "progress")
        with simd_search(buf) as (find, _):
            for s, e in iter_key_lines(buf, type_needles(buf, "assistant"), span[0], span[1],
                                       search=find):
                if not decodes(s, e):  # a torn or broken line: no record, no uuid
                    continue
                if any(find(n, s, e) >= 0 for n in nesting):
                    # a progress record nests a whole assistant message: decoded, it is
                    # taken only if it IS an assistant record
                    rec = decode(buf[s:e], None)
                    if rec is None or rec.type != "assistant":
                        continue
                add(_last_uuid(buf, s, e))
    return found


def _last_uuid(buf: Buffer, start: int, end: int) -> str | None:
    """The value of the line's LAST ``"uuid"`` key (a record's own uuid follows its
    message), found from the line's end instead of by a regex over all of it."""
    pos = buf.rfind(b'"uuid"', start, end)
    while pos >= 0:
        match = _UUID.match(buf, pos, end)
        if match is not None:
            return match.group(1).decode("utf-8", "replace")
        pos = buf.rfind(b'"uuid"', start, pos)
    return None


def _partner_uuid(buf: Buffer, hit: Hit) -> str | None:
    start, end = hit.partner
    if start is None or end is None:
        return None
    rec = decode(buf[start:end], None)
    return rec.uuid if rec is not None else None


def _add_siblings(ex: Exchange, scan: FileScan, buf: Buffer, span: tuple[int, int],
                  ctx: classify.ClassifyContext, turns: TurnMap | None) -> dict[str, int]:
    """Render the turn's non-matched records under the fixed policy, counting the rest;
    returns how many of each capped leaf were shown. A framed line of the turn that does
    not decode is noted for ``skipped_lines`` (``FileScan.broken``): it was parsed."""
    from pysift.disk.lines import line_of

    hit_lines = {h.line for h in ex.hits}
    first_line = line_of(buf, span[0])
    number = first_line
    shown: dict[str, int] = {}
    hidden_first = hidden_last = None
    last_line = first_line
    for s, e in iter_spans(buf, span[0], span[1]):
        last_line = number
        if number not in hit_lines:
            rec = decode(buf[s:e], number)
            if rec is None:
                scan.line_decodes(s, e)  # notes a framed line that is malformed
            else:
                # a superseded draft keeps its single user.unsent view (ledger v0.10.2)
                draft = (turns is not None and rec.type == "user"
                         and turns.is_draft_offset(s))
                ids = image_ids(rec, number)  # ride the record's first shown sibling
                for unit in classify.units(rec, ctx, draft=draft):
                    if _sibling_kept(unit.label, shown):
                        joined = pair_unit(buf, unit, rec, s, valid=scan.line_decodes)
                        unit = with_result_tool_name(unit, joined, buf)
                        ex.siblings.append(Hit(line=number, uuid=rec.uuid, unit=unit,
                                               label=unit.label, labels=unit.labels,
                                               ts=rec.timestamp, span=None, text=unit.text,
                                               offset=s, pairing=joined.state,
                                               image_ids=ids))
                        ids = []
                    else:
                        ex.siblings_hidden += 1
                        hidden_first = hidden_first or number
                        hidden_last = number
        number += 1
    ex.turn_lines = (first_line, last_line)
    if hidden_first is not None and hidden_last is not None:
        ex.hidden_lines = (hidden_first, hidden_last)
    return shown


def _add_pending_siblings(ex: Exchange, buf: Buffer, pending: list[Any],
                          ctx: classify.ClassifyContext, shown: dict[str, int],
                          decodes: Callable[[int, int], bool]) -> None:
    """The sidecar's open questions belong to the latest turn (as ``show --turn`` puts
    them): siblings there too, unless they are the hit."""
    hit_uuids = {h.uuid for h in ex.hits if h.line is None}
    for rec in pending:  # under the turn's caps (``shown``: what the file's lines used)
        if rec.uuid in hit_uuids:
            continue
        for unit in classify.units(rec, ctx):
            if _sibling_kept(unit.label, shown):
                joined = pair_unit(buf, unit, rec, None, valid=decodes)
                unit = with_result_tool_name(unit, joined, buf)
                ex.siblings.append(Hit(line=None, uuid=rec.uuid, unit=unit, label=unit.label,
                                       labels=unit.labels, ts=rec.timestamp, span=None,
                                       text=unit.text, offset=None, pairing=joined.state,
                                       source=rec.source))
            else:
                ex.siblings_hidden += 1


def _sibling_kept(label: str, shown: dict[str, int]) -> bool:
    if label.startswith("user.") or label == L.AGENT_MESSAGE or label.startswith(
            "agent.communication."):
        return True
    cap = SIBLING_CAPS.get(label)
    if cap is None:
        if not label.startswith("harness."):
            return True
        cap = SIBLING_HARNESS_CAP
    count = shown.get(label, 0)
    if count >= cap:
        return False
    shown[label] = count + 1
    return True
