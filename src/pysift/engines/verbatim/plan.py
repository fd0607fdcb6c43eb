"""Spending one session's budget (csift §6.8, two phases).

Selection walks recency-first (the turn's newest unit line, descending; ties by turn
index, descending) and the document is printed in forward order. The walk is
transparent to compactions, so it reaches back across them; every compaction a
selection reaches behind costs its banner, charged as the reach deepens.

- Dedup: the newest summary is already in the resumed model's context. A live turn (no
  compaction from the next turn on: the turns after the summary and the one it came in,
  a summary being a member of its turn) whose opener or last agent message starts like
  one of the summary's verbatim quotes is flagged ``(also in summary)`` and demoted:
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

from dataclasses import field
from datetime import tzinfo

from pysift.engines.verbatim.geometry import (
    ASSISTANT_ONLY,
    BOTH,
    NEWLINE,
    PENDING,
    USER_ONLY,
    Crossings,
    header_block,
    image_line,
    placeholder_line,
    render_body,
    tool_calls_line,
    unit_header,
)
from pysift.engines.verbatim.model import (
    ASST_CAP,
    DEDUP_MIN_OPENING,
    USER_CAP,
    AgentMsg,
    Compaction,
    Richness,
    TurnSlice,
    TurnUnit,
)
from pysift.engines.verbatim.richness import agent_lane
from pysift.engines.verbatim.scan import SessionScan, fingerprint
from pysift.model.fastdata import dataclass


@dataclass(slots=True)
class Selected:
    """A chosen turn and the sides it prints; ``cap`` the body cap it prints with when
    it has its own (fixed-fleet mode: none, or the one that fits the turn in a window)."""

    turn: TurnSlice
    sides: str
    cap: int | None = None


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
    """A unit whose 80-character key is a summary quote's key, or starts with one at least
    ``DEDUP_MIN_OPENING`` characters long (the summary quoted the message's opening, or
    clipped it). A quote that says more than the unit is not the unit, and a short one
    (an answer `"B"`) is no quote of every message that merely starts alike."""
    mine = fingerprint(unit.text)
    if not mine:
        return False
    return any(key and (mine == key or (len(key) >= DEDUP_MIN_OPENING
                                        and mine.startswith(key))) for key in keys)


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
    users = n + sum(len(t.typed) for t in turns)
    agents = sum(len(t.agents) for t in turns)
    total = len(scan.compactions)
    lines = [c.line for c in scan.compactions] + [t.latest_line for t in turns
                                                   if t.latest_line < 1 << 62]
    sidecar = any(t.user is not None and t.user.line is None for t in turns)
    block = header_block(scan.transcript, budget=budget, fraction=0.0, spanned=total,
                         total=total, users=users, assistants=agents, turns=n, used=budget,
                         dedup=(2 * n, max(lines, default=0)), sidecar=sidecar)
    return sum(len(line) + NEWLINE for line in block)


class Options:
    """What each side of a turn costs and the oldest line it prints: the same lines the
    renderer prints (``geometry.turn_elements``), summed per unit, each unit and each
    turn's lane worked out once."""

    def __init__(self, cfg: Richness, tz: tzinfo | None, cap: int | None = None) -> None:
        self.cfg, self.tz, self.cap = cfg, tz, cap
        self._units: dict[int, int] = {}
        self._turns: dict[int, tuple[int | None, int, int | None, int, int | None]] = {}

    def _unit(self, unit: TurnUnit) -> int:
        key = id(unit)
        cost = self._units.get(key)
        if cost is None:
            lines = [unit_header(unit, self.tz), render_body(unit, self.cap).text]
            if unit.image_ids:
                lines.append(image_line(unit.image_ids))
            cost = self._units[key] = sum(len(x) + NEWLINE for x in lines)
        return cost

    def _parts(self, turn: TurnSlice) -> tuple[int | None, int, int | None, int, int | None]:
        """(user cost or None, user line, lane cost or None, marker cost, lane's oldest)."""
        found = self._turns.get(turn.turn_index)
        if found is None:
            user = turn.user
            # the user side: the opener and the later units of prompts typed past a
            # compaction inside the turn
            user_cost = (self._unit(user) + sum(self._unit(u) for u in turn.typed)
                         if user is not None else None)
            user_line = (PENDING if user is None or user.line is None else user.line)
            lane = agent_lane(turn, self.cfg)
            lane_cost = None
            lane_first = None
            if lane:
                lane_cost = 0
                for entry in lane:
                    if isinstance(entry, AgentMsg):
                        lane_cost += self._unit(entry.unit)
                        first = entry.unit.line if entry.unit.line is not None else PENDING
                    else:
                        lane_cost += len(placeholder_line(entry)) + NEWLINE
                        first = entry.first_line
                    lane_first = first if lane_first is None else min(lane_first, first)
            marker = len(tool_calls_line(turn.tool_calls)) + NEWLINE if turn.tool_calls else 0
            found = self._turns[turn.turn_index] = (user_cost, user_line, lane_cost, marker,
                                                    lane_first)
        return found

    def of(self, turn: TurnSlice, sides: str) -> tuple[int, int] | None:
        """``(cost, oldest line)`` of printing ``sides`` of ``turn``; None when those
        sides print nothing."""
        user_cost, user_line, lane_cost, marker, lane_first = self._parts(turn)
        cost, oldest = 0, None
        if sides in (BOTH, USER_ONLY) and user_cost is not None:
            cost, oldest = user_cost, user_line
        if sides in (BOTH, ASSISTANT_ONLY) and lane_cost is not None:
            cost += lane_cost
            oldest = lane_first if oldest is None else min(oldest, lane_first)  # type: ignore[type-var]
        if oldest is None:
            return None
        if sides == BOTH:
            cost += marker
        return cost, oldest

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
                 max_compactions: int, cfg: Richness, tz: tzinfo | None) -> SessionPlan:
    """Choose the turns (and sides) of one session within ``budget`` characters.

    ``turns`` are the scan's turns the window admitted. (The fixed fleet packs its own:
    ``fleet``.)"""
    newest = newest_compaction(scan.compactions)
    work, demoted = flag_duplicates(turns, newest)
    plan = SessionPlan(scan, work, newest=newest, dedup_demoted=demoted)
    crossings = Crossings(scan.compactions)
    if max_compactions > 0:  # a turn whose first line is behind more boundaries is out
        work = [t for t in work if crossings.count(t.first_line) <= max_compactions]
        plan.turns = work
    reserve = header_reserve(scan, work, budget, tz)
    available = max(0, budget - reserve)
    order = sorted(work, key=lambda t: (t.latest_line, t.turn_index), reverse=True)
    floor = int(available * fraction + 0.5)
    options = Options(cfg, tz)
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
    """The least budget that renders the session: its header block reserved at that
    budget (wider as the budget gains digits) and its cheapest single side with the
    banners of the compactions after it (None when it has nothing to restore). The
    planner renders at least that side at this budget, and nothing below it."""
    turns, _ = flag_duplicates(turns, newest_compaction(scan.compactions))  # as printed
    options = Options(cfg, tz)
    crossings = Crossings(scan.compactions)
    costs = [found[0] + crossings.cost(found[1]) for t in turns
             for sides in (USER_ONLY, ASSISTANT_ONLY)
             if (found := options.of(t, sides)) is not None]
    if not costs:
        return None
    least = min(costs)
    need = header_reserve(scan, turns, budget, tz) + least
    while (wider := header_reserve(scan, turns, need, tz) + least) != need:
        need = wider
    return need
