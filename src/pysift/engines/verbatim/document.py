"""The verbatim document: each session's selected turns in forward order, a banner
wherever the walk crosses a compaction. No chrome: this is what ``--out`` writes and what
the slices cut."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import tzinfo
from typing import TypeVar

from pysift.engines.verbatim.geometry import (
    BOTH,
    PENDING,
    USER_ONLY,
    Element,
    banner_line,
    session_title,
    shown_lane,
    turn_elements,
    turn_order,
)
from pysift.engines.verbatim.model import AgentMsg, Compaction, Richness, TurnUnit
from pysift.engines.verbatim.plan import Selected, SessionPlan
from pysift.engines.verbatim.richness import Collapsed

T = TypeVar("T")


def interleave(plan: SessionPlan, items: Iterable[tuple[int | None, T]]
               ) -> Iterator[tuple[Compaction | None, T | None]]:
    """``items`` (each with the jsonl line it starts at, or None for a line that follows
    its unit) with ``(compaction, None)`` inserted where the forward walk passes one: every
    compaction after the oldest printed line, its banner right before the first item after
    it, or last."""
    compactions = sorted(plan.scan.compactions, key=lambda c: c.line)
    at = 0
    started = False
    for first, item in items:
        if first is not None:
            while at < len(compactions) and compactions[at].line < first:
                if started:
                    yield compactions[at], None
                at += 1
            started = True
        yield None, item
    if started:  # compacted after everything printed: the summary came after all this
        for c in compactions[at:]:
            yield c, None


def walk(plan: SessionPlan, cfg: Richness, tz: tzinfo | None, cap: int | None = None
         ) -> Iterator[tuple[Compaction | None, Element | None]]:
    """The document's banners and printed lines, in order."""
    elements = ((e[0], e) for sel in plan.selected
                for e in turn_elements(sel.turn, sel.sides, cfg, tz,
                                       sel.cap if sel.cap is not None else cap))
    return interleave(plan, elements)


def entries(plan: SessionPlan, cfg: Richness
            ) -> Iterator[tuple[Compaction | None, tuple[Selected, TurnUnit | Collapsed] | None]]:
    """The document's banners and units (and collapsed runs), in order: what the JSON
    rows list."""
    def items() -> Iterator[tuple[int | None, tuple[Selected, TurnUnit | Collapsed]]]:
        for sel in plan.selected:
            early, user, lane = turn_order(sel.turn, sel.sides, cfg)
            for entry in early:
                yield lane_item(sel, entry)
            if user is not None:
                yield (user.line or PENDING), (sel, user)
            for later in lane:
                yield lane_item(sel, later)
    return interleave(plan, items())


def lane_item(sel: Selected, entry: AgentMsg | Collapsed | TurnUnit
              ) -> tuple[int | None, tuple[Selected, TurnUnit | Collapsed]]:
    if isinstance(entry, TurnUnit):  # a later unit of the user side
        return (entry.line or PENDING), (sel, entry)
    if isinstance(entry, AgentMsg):
        return (entry.unit.line or PENDING), (sel, entry.unit)
    return entry.first_line, (sel, entry)


def body_lines(plan: SessionPlan, cfg: Richness, tz: tzinfo | None,
               cap: int | None = None) -> list[str]:
    return [banner_line(c) if c is not None else e[2]  # type: ignore[index]
            for c, e in walk(plan, cfg, tz, cap)]


def document(plans: list[SessionPlan], cfg: Richness, tz: tzinfo | None,
             cap: int | None = None) -> str:
    """Every session's body, one after the other, each line ending in a newline; with
    several transcripts each body under its session's title line (``SESSION <id>``, a
    subagent's ``SUBAGENT …``), since their ``L<n>`` are lines of different files."""
    out: list[str] = []
    for plan in plans:
        lines = body_lines(plan, cfg, tz, cap)
        if lines and len(plans) > 1:
            out.append(session_title(plan.scan.transcript) + "\n")
        out.extend(line + "\n" for line in lines)
    return "".join(out)


def counts(plan: SessionPlan, cfg: Richness) -> tuple[int, int]:
    """(user units, assistant units) the plan prints; a collapsed run is no unit."""
    users = assistants = 0
    for sel in plan.selected:
        if sel.sides in (BOTH, USER_ONLY) and sel.turn.user is not None:
            users += 1 + len(sel.turn.typed)
        assistants += sum(1 for e in shown_lane(sel.turn, sel.sides, cfg)
                          if isinstance(e, AgentMsg))
    return users, assistants


def uses_sidecar(plan: SessionPlan) -> bool:
    return any(sel.sides in (BOTH, USER_ONLY) and sel.turn.user is not None
               and sel.turn.user.line is None for sel in plan.selected)
