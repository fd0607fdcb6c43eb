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
    Crossings,
    elements_cost,
    header_block,
    oldest_line,
    turn_elements,
)
from pysift.engines.verbatim.model import (
    ASST_CAP,
    USER_CAP,
    Compaction,
    Richness,
    TurnSlice,
    TurnUnit,
)
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


def flag_duplicates(turns: list[TurnSlice], newest: Compaction | None
                    ) -> tuple[list[TurnSlice], int]:
    """The turns with the live ones' opener and end-of-turn message flagged when the
    newest summary quotes them (flagged turns are copies: the scan's stay clean), and how
    many units were flagged."""
    if newest is None or not newest.summary_read:
        return list(turns), 0
    out: list[TurnSlice] = []
    flagged = 0
    for turn in turns:
        if not turn.compactions_before:  # behind an older boundary: pure restoration
            hits = [u is not None and matches_summary(u, newest.fingerprints)
                    for u in (turn.user, turn.eot)]
            if any(hits):
                turn = turn.flagged_copy()
                for unit, hit in zip((turn.user, turn.eot), hits, strict=True):
                    if hit and unit is not None:
                        unit.also_in_summary = True
                        flagged += 1
        out.append(turn)
    return out, flagged


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


class Options:
    """What each side of a turn costs and which lines it prints (computed once)."""

    def __init__(self, cfg: Richness, tz: tzinfo | None, cap: int | None) -> None:
        self.cfg, self.tz, self.cap = cfg, tz, cap
        self._seen: dict[tuple[int, str], tuple[int, int] | None] = {}

    def of(self, turn: TurnSlice, sides: str) -> tuple[int, int] | None:
        """``(cost, oldest line)`` of printing ``sides`` of ``turn``."""
        key = (turn.turn_index, sides)
        if key not in self._seen:
            elements = turn_elements(turn, sides, self.cfg, self.tz, self.cap)
            oldest = oldest_line(elements)
            self._seen[key] = None if oldest is None else (elements_cost(elements), oldest)
        return self._seen[key]

    def floor(self, turn: TurnSlice, sides: str) -> int:
        """A cheap lower bound of ``of(turn, sides)[0]`` (no rendering): a unit prints at
        least a header of 16 characters and the capped body, and every lane keeps at
        least one message."""
        least = 0
        if sides in (BOTH, USER_ONLY) and turn.user is not None:
            least += 16 + min(turn.user.full_chars, self.cap or USER_CAP)
        if sides in (BOTH, ASSISTANT_ONLY) and turn.agents:
            least += 16 + min(min(a.unit.full_chars for a in turn.agents), self.cap or ASST_CAP)
        return least


def plan_session(scan: SessionScan, turns: list[TurnSlice], *, budget: int, fraction: float,
                 max_compactions: int, cfg: Richness, tz: tzinfo | None,
                 cap: int | None = None, chrome: bool = True) -> SessionPlan:
    """Choose the turns (and sides) of one session within ``budget`` characters.

    ``turns`` are the scan's turns the window admitted. ``cap`` replaces the role caps
    (fixed-fleet slicing); ``chrome=False`` plans a document printed without the header
    block (the slices), so nothing is reserved for it."""
    newest = newest_compaction(scan.compactions)
    work, demoted = flag_duplicates(turns, newest)
    plan = SessionPlan(scan, work, newest=newest, dedup_demoted=demoted)
    crossings = Crossings(scan.compactions)
    if max_compactions > 0:  # a turn whose first line is behind more boundaries is out
        work = [t for t in work if crossings.count(t.first_line) <= max_compactions]
        plan.turns = work
    reserve = header_reserve(scan, work, budget, tz) if chrome else 0
    available = max(0, budget - reserve)
    order = sorted(work, key=lambda t: (t.latest_line, t.turn_index), reverse=True)
    floor = int(available * fraction + 0.5)
    options = Options(cfg, tz, cap)
    spent = 0
    lo = 1 << 62  # the oldest printed line so far
    chosen: dict[int, str] = {}

    def take(turn: TurnSlice, sides: str, *, within: int | None = None) -> bool:
        """Choose ``sides`` of ``turn`` if the document (units and banners) still fits,
        and the units within ``within`` when given."""
        nonlocal spent, lo
        if spent + options.floor(turn, sides) > available:
            return False
        found = options.of(turn, sides)
        if found is None:
            return False
        cost, first = found
        if within is not None and spent + cost > within:
            return False
        oldest = min(lo, first)
        if spent + cost + crossings.cost(oldest) > available:
            return False
        chosen[turn.turn_index] = sides
        spent += cost
        lo = oldest
        return True

    for late in (False, True):  # phase 1: the round-trip floor
        for turn in order:
            if turn.turn_index in chosen or not turn.is_round_trip or is_dup(turn) != late:
                continue
            if take(turn, BOTH, within=floor):
                continue
            if spent == 0 and not late and take(turn, BOTH):
                break  # the most recent round trip, past the floor, while the document fits
    for late in (False, True):  # phase 2: fill, user side first
        for turn in order:
            if turn.turn_index in chosen or is_dup(turn) != late:
                continue
            if turn.is_round_trip:
                sides_options: tuple[str, ...] = (BOTH, USER_ONLY, ASSISTANT_ONLY)
            elif turn.user is not None:
                sides_options = (USER_ONLY,)
            elif turn.agents:
                sides_options = (ASSISTANT_ONLY,)
            else:
                continue
            for sides in sides_options:
                if take(turn, sides):
                    break
    plan.selected = [Selected(t, chosen[t.turn_index]) for t in work if t.turn_index in chosen]
    if plan.selected:
        plan.spanned = crossings.count(lo)
        plan.chars_used = reserve + crossings.cost(lo) + spent
    return plan


def min_render_chars(scan: SessionScan, turns: list[TurnSlice], budget: int, cfg: Richness,
                     tz: tzinfo | None) -> int | None:
    """The least a session's document can cost: its header block and its cheapest single
    side (None when it has nothing to restore)."""
    options = Options(cfg, tz, None)
    costs = [found[0] for t in turns for sides in (USER_ONLY, ASSISTANT_ONLY)
             if (found := options.of(t, sides)) is not None]
    if not costs:
        return None
    return header_reserve(scan, turns, budget, tz) + min(costs)
