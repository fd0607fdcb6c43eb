"""Fixed-fleet mode (``--slices K``, csift §6.8): the newest WHOLE turns packed into K
windows, the oldest overflow discarded.

The fleet fills its slices newest first: each turn, whole, goes into the slice being
filled when it fits there, else it opens the next older slice; the per-role caps are
dropped, and a turn is ellipsized only when it ALONE exceeds one window (every body cut
to the largest cap that fits the turn in a window). A turn that cannot fit one window at
any cap (a window narrower than its headers, hundreds of kept messages) spans whole
slices of its own, its bodies cut to the largest cap that fits the slices left. The first
turn that does not fit ends the fleet: it and every older turn are discarded (the caller
reports them), so the slices never start inside a turn and never skip one. Banners go
with the turn they stand before (inside a turn that straddles its compaction; after the
newest turn when nothing printed follows the compaction; after the older turn when no
window holds the turn with it); the oldest kept turn prints no banner before it, as the
document never does. The slices joined are ``document`` of the plans returned, byte for
byte.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from datetime import UTC, datetime, tzinfo
from functools import partial

from pysift.core.timez import parse_ts
from pysift.engines.verbatim.document import interleave
from pysift.engines.verbatim.geometry import (
    BOTH,
    NEWLINE,
    Crossings,
    banner_line,
    oldest_line,
    session_title,
    turn_elements,
)
from pysift.engines.verbatim.model import MIN_CAP, SLICE_BODY_HEADROOM, Richness, TurnSlice
from pysift.engines.verbatim.plan import (
    Selected,
    SessionPlan,
    flag_duplicates,
    newest_compaction,
)
from pysift.engines.verbatim.scan import SessionScan
from pysift.engines.verbatim.slices import slice_windows
from pysift.model.fastdata import dataclass

# A cap no body reaches: the turn prints every body whole.
UNCAPPED = 1 << 62


@dataclass(slots=True)
class Banners:
    """The banner lines that print with one turn: before its first line (``lead``),
    before its element ``k`` (``inside``), after its last line (``tail``)."""

    lead: list[str] = field(default_factory=list)
    inside: dict[int, list[str]] = field(default_factory=dict)
    tail: list[str] = field(default_factory=list)


def candidates(scan: SessionScan, turns: list[TurnSlice], max_compactions: int
               ) -> SessionPlan:
    """The session's turns the fleet chooses from (forward order): those the window
    admitted that print something, behind at most ``max_compactions`` compactions when
    given, flagged ``(also in summary)`` where the newest summary quotes them (flagged,
    not demoted: the fleet keeps the newest turns, whatever they repeat)."""
    newest = newest_compaction(scan.compactions)
    work, flagged = flag_duplicates(turns, newest)
    work = [t for t in work if t.user is not None or t.agents]
    if max_compactions > 0:
        crossings = Crossings(scan.compactions)
        work = [t for t in work if crossings.count(t.first_line) <= max_compactions]
    return SessionPlan(scan, work, newest=newest, dedup_demoted=flagged)


def banners(plan: SessionPlan, cfg: Richness, tz: tzinfo | None) -> list[Banners]:
    """Where the document of every candidate turn would print each banner, per turn
    (the same walk as ``document``; where a banner stands depends on the lines the
    turns start at, never on a cap)."""
    out = [Banners() for _ in plan.turns]
    every = SessionPlan(plan.scan, plan.turns,
                        selected=[Selected(t, BOTH) for t in plan.turns])
    items = ((e[0], (i, k)) for i, t in enumerate(plan.turns)
             for k, e in enumerate(turn_elements(t, BOTH, cfg, tz, UNCAPPED)))
    pending: list[str] = []
    last = None
    for compaction, item in interleave(every, items):
        if compaction is not None:
            pending.append(banner_line(compaction))
            continue
        assert item is not None
        i, k = item
        if pending:
            if k == 0:
                out[i].lead = pending
            else:
                out[i].inside[k] = pending
            pending = []
        last = i
    if pending and last is not None:
        out[last].tail = pending
    return out


def turn_lines(turn: TurnSlice, where: Banners, cap: int, lead: bool, cfg: Richness,
               tz: tzinfo | None) -> list[str]:
    """The lines the turn prints at ``cap`` with its banners (those before it when
    ``lead``)."""
    out = list(where.lead) if lead else []
    for k, e in enumerate(turn_elements(turn, BOTH, cfg, tz, cap)):
        out.extend(where.inside.get(k, ()))
        out.append(e[2])
    out.extend(where.tail)
    return out


def size(lines: list[str]) -> int:
    return sum(len(x) + NEWLINE for x in lines)


def text(lines: list[str]) -> str:
    return "".join(x + "\n" for x in lines)


def largest_cap(top: int, fits: Callable[[int], bool]) -> int | None:
    """The largest cap in ``MIN_CAP..top`` that ``fits`` (searched by halves: a smaller
    cap prints no more), None when even ``MIN_CAP`` does not."""
    lo, hi, best = MIN_CAP, top, None
    while lo <= hi:
        mid = (lo + hi) // 2
        if fits(mid):
            best, lo = mid, mid + 1
        else:
            hi = mid - 1
    return best


@dataclass(slots=True)
class Kept:
    plan: int
    turn: int
    cap: int
    slot: int  # the slice it ends in, counted from the newest (1)
    spans: int = 1  # the slices it fills (more than one: a turn wider than a window)


def fleet(scans: list[SessionScan], admitted: list[list[TurnSlice]], *, slices: int,
          width: int, max_compactions: int, cfg: Richness, tz: tzinfo | None
          ) -> tuple[list[SessionPlan], list[str]]:
    """Fill ``slices`` windows of ``width`` characters with the newest whole turns of
    the sessions (in scope order, the last session's last turn the newest); the plans
    hold the turns kept (``plan.turns`` every candidate: the rest were discarded) and
    the chunks, oldest first, join to their document."""
    plans = [candidates(s, turns, max_compactions) for s, turns in zip(scans, admitted,
                                                                       strict=True)]
    where = [banners(p, cfg, tz) for p in plans]
    recency = by_recency(plans)
    order = [(p, i) for p in recency for i in range(len(plans[p].turns))]
    # several transcripts: each session's title before its oldest kept turn (as in
    # ``document``), its room kept free beside every turn placed until the walk leaves
    # the session
    titles = [[session_title(plan.scan.transcript)] if len(plans) > 1 else []
              for plan in plans]
    title = [size(t) for t in titles]
    kept: list[Kept] = []  # newest first
    used = room = 0

    def lines(p: int, i: int, cap: int, lead: bool = True) -> list[str]:
        return turn_lines(plans[p].turns[i], where[p][i], cap, lead, cfg, tz)

    def fits_one(p: int, i: int, cap: int) -> bool:
        return size(lines(p, i, cap)) + title[p] <= width

    def fits_slices(p: int, i: int, left: int, cap: int) -> bool:
        return len(slice_windows(text(titles[p] + lines(p, i, cap)), width)) <= left

    for p, i in reversed(order):
        if kept and kept[-1].plan != p:  # the newer session is through: its title
            room -= title[kept[-1].plan]
        need = title[p]
        whole = size(lines(p, i, UNCAPPED))
        bare = whole - size(where[p][i].lead)  # as the oldest kept turn, no banner before
        if whole + need > width >= bare + need and i > 0:
            # no window holds the turn with the banner before it: the banner goes at the
            # end of the older turn instead (the same place in the document), and older
            # turns go on filling the slices (kept bare as the oldest, it ended the fleet
            # with slices empty and said the older turns did not fit)
            where[p][i - 1].tail = where[p][i - 1].tail + where[p][i].lead
            where[p][i].lead = []
            whole = bare
        if kept and whole + need <= room:
            kept.append(Kept(p, i, UNCAPPED, used))
            room -= whole
            continue
        if kept and bare + need <= room and (used == slices or whole + need > width):
            # only as the oldest kept turn (no banner before it), when no slice is left
            # that holds it whole with its banner: such a slice goes on filling
            kept.append(Kept(p, i, UNCAPPED, used))
            break
        if used == slices:
            break
        if whole + need <= width:
            used += 1
            kept.append(Kept(p, i, UNCAPPED, used))
            room = width - whole
            continue
        if bare + need <= width:
            kept.append(Kept(p, i, UNCAPPED, used + 1))
            break
        # the turn alone exceeds one window: ellipsized to fit one
        cap = largest_cap(width, partial(fits_one, p, i))
        if cap is not None:
            used += 1
            kept.append(Kept(p, i, cap, used))
            room = width - size(lines(p, i, cap))
            continue
        # not even that: whole slices of its own, every line within a window (with the
        # session's title, when it has one: it is then the session's oldest kept turn)
        left = slices - used
        # whole when the slices left hold it so: a turn that exceeds one window only with
        # the banner moved onto it (the newer turn's, which no window held with that one)
        # spans two slices with nothing cut, and its bodies keep no cap
        cap = (UNCAPPED if fits_slices(p, i, left, UNCAPPED) else
               largest_cap(width - SLICE_BODY_HEADROOM, partial(fits_slices, p, i, left)))
        if cap is None:
            break
        spans = len(slice_windows(text(titles[p] + lines(p, i, cap)), width))
        used += spans
        kept.append(Kept(p, i, cap, used, spans))
        room = 0
        if need:
            break

    slots: dict[int, list[str]] = {}
    for n, k in enumerate(kept):
        oldest = n == len(kept) - 1 or kept[n + 1].plan != k.plan  # of its session
        body = text(lines(k.plan, k.turn, k.cap, lead=not oldest))
        head = text(titles[k.plan]) if oldest else ""
        if k.spans == 1:
            slots.setdefault(k.slot, []).append(body)
            if head:
                slots[k.slot].append(head)
            continue
        for j, piece in enumerate(slice_windows(head + body, width)):  # oldest piece first
            slots.setdefault(k.slot - j, []).append(piece)
    chunks = ["".join(reversed(slots[s])) for s in sorted(slots, reverse=True)]

    chosen: dict[int, dict[int, int]] = {}
    for k in kept:
        chosen.setdefault(k.plan, {})[k.turn] = k.cap
    for p, plan in enumerate(plans):
        caps = chosen.get(p, {})
        plan.selected = [Selected(t, BOTH, caps[i]) for i, t in enumerate(plan.turns)
                         if i in caps]
        account(plan, cfg, tz)
    return [plans[p] for p in recency], chunks


def newest_whole(plan: SessionPlan, cfg: Richness, tz: tzinfo | None, titled: bool) -> int:
    """The characters the plan's newest candidate turn prints whole as the only turn kept
    (under its session's title when ``titled``): a window that wide holds it, the figure
    a fleet holding none of a session's turns names."""
    where = banners(plan, cfg, tz)
    i = len(plan.turns) - 1
    title = size([session_title(plan.scan.transcript)]) if titled else 0
    return size(turn_lines(plan.turns[i], where[i], UNCAPPED, False, cfg, tz)) + title


def by_recency(plans: list[SessionPlan]) -> list[int]:
    """The plans' indices, the session whose newest turn is newest last (a scope lists a
    project's sessions by name, not by time); a session without a readable instant
    first, scope order breaking ties."""
    def newest(index: int) -> tuple[bool, datetime]:
        stamps = [parse_ts(u.ts) for t in plans[index].turns
                  for u in (t.user, *t.typed, *(a.unit for a in t.agents)) if u is not None]
        found = [x for x in stamps if x is not None]
        return (bool(found), max(found) if found else datetime.min.replace(tzinfo=UTC))
    return sorted(range(len(plans)), key=newest)


def account(plan: SessionPlan, cfg: Richness, tz: tzinfo | None) -> None:
    """The plan's banners and characters, as its document prints them."""
    if not plan.selected:
        return
    starts = [e for sel in plan.selected
              for e in turn_elements(sel.turn, sel.sides, cfg, tz, sel.cap)]
    oldest = oldest_line(starts)
    crossings = Crossings(plan.scan.compactions)
    plan.spanned = crossings.count(oldest) if oldest is not None else 0
    plan.chars_used = size([e[2] for e in starts]) + (
        crossings.cost(oldest) if oldest is not None else 0)
