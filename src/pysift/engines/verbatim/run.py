"""The verbatim engine's entry points: scan the transcripts in scope, window their turns,
plan each session, and assemble the document (plain, or the newest whole turns packed
into a fixed fleet of slices: ``fleet``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, tzinfo

from pysift.core.grammar.ranges import RangeSpec
from pysift.core.timez import within
from pysift.disk import fanout
from pysift.disk.layout import Transcript
from pysift.engines.verbatim.fleet import fleet
from pysift.engines.verbatim.model import Richness, TurnSlice
from pysift.engines.verbatim.plan import SessionPlan, plan_session
from pysift.engines.verbatim.scan import SessionScan, scan_session
from pysift.model.fastdata import dataclass

# Below this many transcripts they are read one after another (a big one still splits
# itself over the cores); above it they fan out over the cores, one core each.
FANOUT_MIN_FILES = 8


@dataclass(frozen=True, kw_only=True)
class Request:
    """What the reconstruction is asked for: the turn window, the budget and its floor,
    the crossings allowed, the agent-message richness, the zone the time window was read
    in; ``slices`` (with ``width``) asks for a fixed fleet of chunks instead."""

    window: Window
    budget: int
    fraction: float
    max_compactions: int
    richness: Richness
    tz: tzinfo | None
    slices: int | None = None
    width: int = 10000


@dataclass
class Reconstruction:
    """The readable transcripts' scans and plans, in scope order; ``unreadable`` the
    scans of the files that could not be read (their ``error`` says why); ``chunks`` the
    fixed fleet's chunks when ``Request.slices`` asked for one."""

    scans: list[SessionScan]
    plans: list[SessionPlan]
    unreadable: list[SessionScan]
    chunks: list[str] | None = None


def run(transcripts: Sequence[Transcript], request: Request) -> Reconstruction:
    """The engine entry: scan every transcript (many spread over the cores, a few one
    after another, each free to use every core), then plan each session."""
    scanned = scan_all(transcripts)
    scans = [s for s in scanned if not s.error]
    unreadable = [s for s in scanned if s.error]
    if request.slices is not None:
        plans, chunks = fleet(scans, [request.window.admit(s.turns) for s in scans],
                              slices=request.slices, width=request.width,
                              max_compactions=request.max_compactions, cfg=request.richness,
                              tz=request.tz)
        return Reconstruction(scans, plans, unreadable, chunks)
    plans = plan_all(scans, request.window, budget=request.budget, fraction=request.fraction,
                     max_compactions=request.max_compactions, cfg=request.richness,
                     tz=request.tz)
    return Reconstruction(scans, plans, unreadable)


def scan_all(transcripts: Sequence[Transcript]) -> list[SessionScan]:
    items = list(transcripts)
    return fanout.map_with_cores(_scan, items, min_items=FANOUT_MIN_FILES,
                                 weights=[t.size() for t in items])


def _scan(cores: int, transcript: Transcript) -> SessionScan:
    return scan_session(transcript, cores=cores)


@dataclass(frozen=True)
class Window:
    """``--turn`` AND ``--since``/``--until``: a turn is in when its index is in the range
    and its instant (the opener's, else its last agent message's) in the time window; a
    turn with no readable instant is never inside a bounded time window."""

    turns: RangeSpec | None = None
    since: datetime | None = None
    until: datetime | None = None

    @property
    def active(self) -> bool:
        return self.turns is not None or self.since is not None or self.until is not None

    def admit(self, turns: list[TurnSlice]) -> list[TurnSlice]:
        if not self.active:
            return turns
        wanted: set[int] | None = None
        if self.turns is not None:
            count = max((t.turn_number for t in turns), default=-1) + 1
            wanted = set(self.turns.resolve(0, count - 1))
        out = []
        for t in turns:
            if wanted is not None and t.turn_number not in wanted:
                continue
            unit = t.user if t.user is not None and t.user.ts else t.eot
            if not within(unit.ts if unit is not None else None, self.since, self.until):
                continue
            out.append(t)
        return out


def plan_all(scans: list[SessionScan], window: Window, *, budget: int, fraction: float,
             max_compactions: int, cfg: Richness, tz: tzinfo | None) -> list[SessionPlan]:
    return [plan_session(s, window.admit(s.turns), budget=budget, fraction=fraction,
                         max_compactions=max_compactions, cfg=cfg, tz=tz) for s in scans]
