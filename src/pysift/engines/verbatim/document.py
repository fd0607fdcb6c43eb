"""The verbatim document: each session's selected turns in forward order, a banner at
every compaction the walk crosses. No chrome: this is what ``--out`` writes and what the
slices cut."""

from __future__ import annotations

from datetime import tzinfo

from pysift.engines.verbatim.geometry import (
    BOTH,
    USER_ONLY,
    banner_line,
    crossed,
    shown_lane,
    turn_lines,
)
from pysift.engines.verbatim.model import Compaction, Richness
from pysift.engines.verbatim.plan import SessionPlan
from pysift.engines.verbatim.richness import AgentMsg


def walk(plan: SessionPlan):  # type: ignore[no-untyped-def]
    """``(compaction, None)`` for each banner and ``(None, selected)`` for each turn, in
    the order the document prints them."""
    previous: int | None = None
    for sel in plan.selected:
        depth = sel.turn.compactions_before
        for c in crossed(plan.scan.compactions, previous, depth):
            yield c, None
        previous = depth
        yield None, sel


def body_lines(plan: SessionPlan, cfg: Richness, tz: tzinfo | None,
               cap: int | None = None) -> list[str]:
    out: list[str] = []
    for compaction, sel in walk(plan):
        if compaction is not None:
            out.append(banner_line(compaction))
        else:
            out.extend(turn_lines(sel.turn, sel.sides, cfg, tz, cap))
    return out


def document(plans: list[SessionPlan], cfg: Richness, tz: tzinfo | None,
             cap: int | None = None) -> str:
    """Every session's body, one after the other, each line ending in a newline."""
    return "".join(line + "\n" for plan in plans for line in body_lines(plan, cfg, tz, cap))


def crossed_compactions(plan: SessionPlan) -> list[Compaction]:
    return [c for c, _ in walk(plan) if c is not None]


def counts(plan: SessionPlan, cfg: Richness) -> tuple[int, int]:
    """(user units, assistant units) the plan prints; a collapsed run is no unit."""
    users = assistants = 0
    for sel in plan.selected:
        if sel.sides in (BOTH, USER_ONLY) and sel.turn.user is not None:
            users += 1
        assistants += sum(1 for e in shown_lane(sel.turn, sel.sides, cfg)
                          if isinstance(e, AgentMsg))
    return users, assistants


def uses_sidecar(plan: SessionPlan) -> bool:
    return any(sel.sides in (BOTH, USER_ONLY) and sel.turn.user is not None
               and sel.turn.user.line is None for sel in plan.selected)
