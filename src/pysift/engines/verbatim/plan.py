"""Spending one session's budget (csift §6.8, two phases).

Selection walks recency-first (the turn's newest unit line, descending; ties by turn
index, descending) and the document is printed in forward order. The walk is
transparent to compactions, so it reaches back across them; every compaction a
selection reaches behind costs its banner, charged as the reach deepens.

- Dedup: the newest summary is already in the resumed model's context. A turn after it
  (no compaction before the end of the file) whose opener or last agent message starts
  like one of the summary's verbatim quotes is flagged ``(also in summary)`` and demoted:
  chosen only after every other turn of its phase, never dropped.
- Phase 1 spends ``budget · round_trip_fraction`` of unit characters on complete round
  trips only (an opener AND an agent message), as a hard floor; the most recent round
  trip is taken even past that share when the whole document still fits.
- Phase 2 fills the rest: a whole turn when it fits, else its user side, else its
  assistant side.

The header block the text prints above the body is reserved first at its widest (every
figure at its session maximum), so the document never exceeds the budget.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import tzinfo

from pysift.engines.verbatim.geometry import (
    ASSISTANT_ONLY,
    BOTH,
    NEWLINE,
    USER_ONLY,
    banners_cost,
    header_block,
    turn_cost,
)
from pysift.engines.verbatim.model import Compaction, Richness, TurnSlice, TurnUnit
from pysift.engines.verbatim.scan import SessionScan, fingerprint


@dataclass(slots=True)
class Selected:
    turn: TurnSlice
    sides: str


@dataclass
class SessionPlan:
    scan: SessionScan
    turns: list[TurnSlice]  # windowed, flagged copies: what selection chose from
    selected: list[Selected] = field(default_factory=list)  # forward order
    spanned: int = 0
    chars_used: int = 0
    dedup_demoted: int = 0
    newest: Compaction | None = None


def newest_compaction(compactions: list[Compaction]) -> Compaction | None:
    return max(compactions, key=lambda c: c.line, default=None)


def matches_summary(unit: TurnUnit, keys: tuple[str, ...]) -> bool:
    """A unit whose 80-character key and a summary quote's key start alike (either way:
    a clipped bullet matches the longer unit, and the other way round)."""
    mine = fingerprint(unit.text)
    if not mine:
        return False
    return any(key and (mine.startswith(key) or key.startswith(mine)) for key in keys)


def flag_duplicates(turns: list[TurnSlice], newest: Compaction | None) -> int:
    """Flag the live turns' opener and end-of-turn message found in the newest summary."""
    if newest is None or not newest.summary_read:
        return 0
    flagged = 0
    for turn in turns:
        if turn.compactions_before:
            continue  # behind an older boundary: gone from context, pure restoration
        for unit in (turn.user, turn.eot):
            if unit is not None and matches_summary(unit, newest.fingerprints):
                unit.also_in_summary = True
                flagged += 1
    return flagged


def is_dup(turn: TurnSlice) -> bool:
    return any(u is not None and u.also_in_summary for u in (turn.user, turn.eot))


def header_reserve(scan: SessionScan, turns: list[TurnSlice], budget: int,
                   tz: tzinfo | None) -> int:
    """The widest header block this session can print (each figure at its maximum)."""
    n = len(turns)
    agents = sum(len(t.agents) for t in turns)
    total = len(scan.compactions)
    lines = [c.line for c in scan.compactions] + [t.latest_line for t in turns
                                                   if t.latest_line < 1 << 62]
    sidecar = any(t.user is not None and t.user.line is None for t in turns)
    block = header_block(scan.transcript, budget=budget, fraction=0.0, spanned=total,
                         total=total, users=n, assistants=agents, turns=n, used=budget,
                         dedup=(2 * n, max(lines, default=0)), sidecar=sidecar)
    return sum(len(line) + NEWLINE for line in block)


def plan_session(scan: SessionScan, turns: list[TurnSlice], *, budget: int, fraction: float,
                 max_compactions: int, cfg: Richness, tz: tzinfo | None,
                 cap: int | None = None, chrome: bool = True) -> SessionPlan:
    """Choose the turns (and sides) of one session within ``budget`` characters.

    ``turns`` are the scan's turns the window admitted. ``cap`` replaces the role caps
    (fixed-fleet slicing); ``chrome=False`` plans a document printed without the header
    block (the slices), so nothing is reserved for it."""
    work = [t.flagged_copy() for t in turns]
    newest = newest_compaction(scan.compactions)
    plan = SessionPlan(scan, work, newest=newest)
    plan.dedup_demoted = flag_duplicates(work, newest)
    if max_compactions > 0:
        work = [t for t in work if t.compactions_before <= max_compactions]
        plan.turns = work
    reserve = header_reserve(scan, work, budget, tz) if chrome else 0
    available = max(0, budget - reserve)
    order = sorted(work, key=lambda t: (t.latest_line, t.turn_index), reverse=True)
    floor = int(available * fraction + 0.5)
    spent = depth = 0
    chosen: dict[int, str] = {}
    compactions = scan.compactions

    def fits(cost: int, reach: int) -> bool:
        return spent + cost + banners_cost(compactions, max(depth, reach)) <= available

    for demoted in (False, True):  # phase 1: the round-trip floor
        for turn in order:
            if turn.turn_index in chosen or not turn.is_round_trip or is_dup(turn) != demoted:
                continue
            cost = turn_cost(turn, BOTH, cfg, tz, cap)
            whole = fits(cost, turn.compactions_before)
            if whole and spent + cost <= floor:
                pass
            elif whole and spent == 0 and not demoted:
                pass  # the most recent round trip, past the floor, while the document fits
            else:
                continue
            chosen[turn.turn_index] = BOTH
            spent += cost
            depth = max(depth, turn.compactions_before)
            if spent > floor:
                break
    for demoted in (False, True):  # phase 2: fill, user side first
        for turn in order:
            if turn.turn_index in chosen or is_dup(turn) != demoted:
                continue
            if turn.is_round_trip:
                options = (BOTH, USER_ONLY, ASSISTANT_ONLY)
            elif turn.user is not None:
                options = (USER_ONLY,)
            elif turn.agents:
                options = (ASSISTANT_ONLY,)
            else:
                continue
            for sides in options:
                cost = turn_cost(turn, sides, cfg, tz, cap)
                if fits(cost, turn.compactions_before):
                    chosen[turn.turn_index] = sides
                    spent += cost
                    depth = max(depth, turn.compactions_before)
                    break
    plan.selected = [Selected(t, chosen[t.turn_index]) for t in work if t.turn_index in chosen]
    plan.spanned = max((s.turn.compactions_before for s in plan.selected), default=0)
    if plan.selected:
        plan.chars_used = reserve + banners_cost(compactions, plan.spanned) + spent
    return plan


def min_render_chars(scan: SessionScan, turns: list[TurnSlice], budget: int, cfg: Richness,
                     tz: tzinfo | None) -> int | None:
    """The least a session's document can cost: its header block and its cheapest single
    side (None when it has nothing to restore)."""
    costs = []
    for t in turns:
        if t.user is not None:
            costs.append(turn_cost(t, USER_ONLY, cfg, tz))
        if t.agents:
            costs.append(turn_cost(t, ASSISTANT_ONLY, cfg, tz))
    if not costs:
        return None
    return header_reserve(scan, turns, budget, tz) + min(costs)
