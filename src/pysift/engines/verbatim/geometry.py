"""Every line the verbatim document prints, and what it costs.

The planner charges exactly the lines the renderer writes, through the same functions
here: a line costs its characters (code points) plus its newline, so the summed cost of a
selection equals the characters it emits and the budget is never exceeded by a render the
planner did not see.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from datetime import tzinfo
from functools import lru_cache

from pysift.core.timez import text_ts
from pysift.engines.verbatim.model import (
    ASST_CAP,
    ASST_HEAD,
    USER,
    USER_CAP,
    USER_HEAD,
    AgentMsg,
    Compaction,
    TurnSlice,
    TurnUnit,
)
from pysift.engines.verbatim.richness import Collapsed, Lane, agent_lane
from pysift.model.fastdata import dataclass

NEWLINE = 1
RULE = "─" * 60

BOTH, USER_ONLY, ASSISTANT_ONLY = "both", "user", "assistant"


def plural(n: int, noun: str) -> str:
    return f"1 {noun}" if n == 1 else f"{n} {noun}s"


# -- units ---------------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def _stamp(ts: str | None, tz: tzinfo | None) -> str:
    return text_ts(ts, tz)


def unit_header(unit: TurnUnit, tz: tzinfo | None) -> str:
    """``▽ L<n>  USER  (<ts>)[   (also in summary)]``; a peer message names its comm leaf
    and sender in place of the role, a sidecar record its source in place of the line."""
    glyph = "▽" if unit.role == USER else "△"
    where = "(elicitation sidecar)" if unit.line is None else f"L{unit.line}"
    if unit.inbound is not None:
        who = f"{unit.inbound.label}  {unit.inbound.sender} ⇨ self"
    else:
        who = unit.role.upper()
    dup = "   (also in summary)" if unit.also_in_summary else ""
    return f"{glyph} {where}  {who}  ({_stamp(unit.ts, tz)}){dup}"


@dataclass(frozen=True, slots=True)
class Body:
    text: str
    rendered_chars: int
    truncated: bool
    elided_chars: int
    elided_lines: int


def newline_positions(raw: str) -> list[int]:
    """Where the newlines of ``raw`` land in its one-line form (``core.text.one_line``:
    each whitespace run becomes one space, none at the ends): a newline sits at the
    index of the space its run becomes, i.e. the one-line length of what precedes it."""
    positions: list[int] = []
    chars = words = 0
    segments = raw.split("\n")
    for segment in segments[:-1]:
        found = segment.split()
        words += len(found)
        chars += sum(map(len, found))
        positions.append(chars + max(words - 1, 0))
    return positions


def render_body(unit: TurnUnit, cap: int | None = None) -> Body:
    """The body as printed: whole up to the cap (the role's, or ``cap`` in fixed-fleet
    mode), else its head and tail around ``… [+K chars, L lines elided] …``. The line
    count is of the newlines the cut removed (none named for a one-line original).

    A fleet's cap never makes a body longer: a cut whose marker outweighs what it
    elides prints the body whole (``Let me look.`` came out as ``Let … [+7 chars] …
    k.``). The role caps keep csift's law: over the cap is cut, whatever the marker
    costs."""
    text = unit.text
    limit = cap if cap is not None else (USER_CAP if unit.role == USER else ASST_CAP)
    total = len(text)
    if total <= limit:
        return Body(text, total, False, 0, 0)
    head_share = USER_HEAD if unit.role == USER else ASST_HEAD
    head = min(limit, int(limit * head_share + 0.5))
    tail = limit - head
    cut_to = total - tail
    elided_lines = 0
    if unit.raw is not None:
        positions = unit.newlines()
        elided_lines = bisect_left(positions, cut_to) - bisect_left(positions, head)
    note = f", {elided_lines} lines elided" if elided_lines else ""
    body = f"{text[:head]} … [+{total - limit} chars{note}] … {text[cut_to:]}"
    if cap is not None and len(body) >= total:
        return Body(text, total, False, 0, 0)
    return Body(body, limit, True, total - limit, elided_lines)


def image_line(ids: tuple[str, ...]) -> str:
    return f"  [{plural(len(ids), 'image')}: {', '.join(ids)}]"


# -- markers, placeholders, banners ---------------------------------------------------------


def tool_calls_line(n: int) -> str:
    return f"  [{n} tool calls]"


def placeholder_line(run: Collapsed) -> str:
    """``△ L<a>–L<b>  [X agent messages, Y tool calls[, Z failed]]``."""
    if run.first_line == run.last_line:
        where = f"L{run.first_line}"
    else:
        where = f"L{run.first_line}–L{run.last_line}"
    failed = f", {run.failed} failed" if run.failed else ""
    return (f"△ {where}  [{plural(run.messages, 'agent message')}, "
            f"{plural(run.tool_calls, 'tool call')}{failed}]")


def banner_line(c: Compaction) -> str:
    """The banner where the document crosses a compaction; one whose summary could not be
    read says so."""
    if c.summary_read:
        return f"══ compaction boundary · summary at L{c.line} ══"
    return f"══ compaction boundary at L{c.line} · summary unreadable ══"


# A unit merged from the elicitation sidecar has no line: it is pending now, after
# everything in the file.
PENDING = 1 << 62


class Crossings:
    """The compactions a document reaches across: those after its oldest printed line.

    A banner stands exactly where the forward walk passes a compaction's line, inside a
    turn as well as between two (a turn can straddle a compaction: its prompt before the
    boundary, its last reply after it), or last when nothing printed comes after it."""

    def __init__(self, compactions: list[Compaction]) -> None:
        self.compactions = sorted(compactions, key=lambda c: c.line)
        self.lines = [c.line for c in self.compactions]
        self._costs = [0]
        for c in self.compactions:
            self._costs.append(self._costs[-1] + len(banner_line(c)) + NEWLINE)

    def count(self, oldest: int) -> int:
        """Compactions after the printed line ``oldest``."""
        return len(self.lines) - bisect_right(self.lines, oldest)

    def cost(self, oldest: int) -> int:
        """What their banners cost."""
        return self._costs[-1] - self._costs[bisect_right(self.lines, oldest)]


def reach(lines: list[int], line: int) -> int:
    """How many compaction lines (sorted) stand after ``line``."""
    return len(lines) - bisect_right(lines, line)


# -- turns -------------------------------------------------------------------------------


def shown_lane(turn: TurnSlice, sides: str, cfg) -> Lane:  # type: ignore[no-untyped-def]
    return agent_lane(turn, cfg) if sides in (BOTH, ASSISTANT_ONLY) else []


# One printed line: the jsonl lines it stands for (None for a line that follows its unit's
# header: a body, an image marker, the tool-call marker) and its text.
Element = tuple[int | None, int | None, str]


def turn_order(turn: TurnSlice, sides: str, cfg  # type: ignore[no-untyped-def]
               ) -> tuple[Lane, TurnUnit | None, list[AgentMsg | Collapsed | TurnUnit]]:
    """What a turn prints for ``sides``, in the order it prints it: the lane entries
    before the opener (turn 0 owns the records before the first opener: those come
    first), the opener, the rest of the lane with the user side's later units (a prompt
    typed after a compaction inside the turn) among it by line, so each stands where
    the transcript has it. The text and the JSON rows both follow it."""
    lane = shown_lane(turn, sides, cfg)
    user = turn.user if sides in (BOTH, USER_ONLY) else None
    if user is None:
        return [], None, list(lane)
    at = user.line if user.line is not None else PENDING
    early = 0
    while early < len(lane) and _first(lane[early]) < at:
        early += 1
    rest: list[AgentMsg | Collapsed | TurnUnit] = list(lane[early:])
    if turn.typed:  # (by line; a lane entry first on a tie)
        rest = sorted(rest + list(turn.typed), key=lambda e: (
            _first(e), isinstance(e, TurnUnit)))
    return lane[:early], user, rest


def turn_elements(turn: TurnSlice, sides: str, cfg,  # type: ignore[no-untyped-def]
                  tz: tzinfo | None, cap: int | None = None) -> list[Element]:
    """The lines a turn prints for ``sides``: the opener (its header, body and images),
    the ``[N tool calls]`` marker between the two sides, the assistant lane (and the
    user side's later units, by line)."""
    out: list[Element] = []
    early, user, lane = turn_order(turn, sides, cfg)
    for entry in early:
        _lane_element(entry, tz, cap, out)
    if user is not None:
        _unit_elements(user, tz, cap, out)
    if sides == BOTH and turn.tool_calls:
        out.append((None, None, tool_calls_line(turn.tool_calls)))
    for later in lane:
        _lane_element(later, tz, cap, out)
    return out


def _first(entry: AgentMsg | Collapsed | TurnUnit) -> int:
    if isinstance(entry, TurnUnit):
        return entry.line if entry.line is not None else PENDING
    if isinstance(entry, AgentMsg):
        return entry.unit.line if entry.unit.line is not None else PENDING
    return entry.first_line


def _lane_element(entry: AgentMsg | Collapsed | TurnUnit, tz: tzinfo | None,
                  cap: int | None, out: list[Element]) -> None:
    if isinstance(entry, TurnUnit):
        _unit_elements(entry, tz, cap, out)
    elif isinstance(entry, AgentMsg):
        _unit_elements(entry.unit, tz, cap, out)
    else:
        out.append((entry.first_line, entry.last_line, placeholder_line(entry)))


def _unit_elements(unit: TurnUnit, tz: tzinfo | None, cap: int | None, out: list[Element]
                   ) -> None:
    line = PENDING if unit.line is None else unit.line
    out.append((line, line, unit_header(unit, tz)))
    out.append((None, None, render_body(unit, cap).text))
    if unit.image_ids:
        out.append((None, None, image_line(unit.image_ids)))


def oldest_line(elements: list[Element]) -> int | None:
    """The oldest line the elements start at."""
    return min((e[0] for e in elements if e[0] is not None), default=None)


def elements_cost(elements: list[Element]) -> int:
    return sum(len(text) + NEWLINE for _, _, text in elements)


# -- the header block ----------------------------------------------------------------------


def session_title(transcript) -> str:  # type: ignore[no-untyped-def]
    if transcript.is_subagent:
        return (f"SUBAGENT {transcript.session_id}  ·  parent SESSION "
                f"{transcript.parent_session_id}  (subagent transcript)")
    return f"SESSION {transcript.session_id}"


def header_block(transcript, *, budget: int,  # type: ignore[no-untyped-def]
                 fraction: float, spanned: int, total: int, users: int, assistants: int,
                 turns: int, used: int,
                 dedup: tuple[int, int] | None, sidecar: bool) -> list[str]:
    """The lines above a session's body: who, the budget accounting, the dedup and
    sidecar notes, a rule. The planner reserves this block at its widest."""
    lines = [
        session_title(transcript),
        f"  budget {budget} chars · round-trip-fraction {fraction:.2f} · spanned {spanned} "
        f"of {total} compaction boundaries in scope",
        f"  selected {users} user + {assistants} assistant units across {turns} turns · "
        f"{used} / {budget} chars used",
    ]
    if dedup is not None:
        lines.append(f"  dedup: {dedup[0]} units also present in summary L{dedup[1]} "
                     "(demoted, flagged)")
    if sidecar:
        lines.append("  with elicitation sidecar")
    lines.append(f"  {RULE}")
    return lines
