"""The data ``verbatim`` works on: units, agent messages, turn slices, compactions."""

from __future__ import annotations

from dataclasses import field, replace

from pysift.model.fastdata import dataclass

USER = "user"
ASSISTANT = "assistant"

# Role caps before the middle ellipsis (csift §10.2: user median 410 / p90 2,574; the
# assistant end-of-turn prose runs 1.45-2.16x longer) and the share of the cap kept at
# the head (the ask is front-loaded; assistant prose back-loads its decision).
USER_CAP = 600
ASST_CAP = 900
USER_HEAD = 0.60
ASST_HEAD = 0.66
# The narrowest --window (characters): a unit's header line runs to about 80 and a banner
# or a subagent's title line longer, so a narrower window cuts every line of the document
# and a fixed fleet's turns down to a character each (refused, exit 2; SPEC §11a.1).
MIN_WINDOW = 200
# A fixed-fleet turn too wide for one window at any cap spans slices of its own with its
# bodies cut to at most a window minus this (`… [+K chars, L lines elided] …` is under 50
# characters for any body under a billion), so each ellipsized body line fits a window.
SLICE_BODY_HEADROOM = 64
# The fewest characters a fixed fleet's cut keeps of a body: a turn that fits its window
# (or the slices left) only below it is not kept, rather than printed as headers over
# one-character stubs (`t … [+5 chars] …` for "thanks"; SPEC §11a.1).
MIN_CAP = 60
# The normalized prefix a unit shares with a summary bullet or quote to be flagged.
DEDUP_PREFIX = 80
# A quote shorter than the unit matches only when it is at least this long: a summary's
# one-word answer (`"B"`, `"1"`, `"yes"`) is no quote of every message opening alike.
DEDUP_MIN_OPENING = 20

SIDECAR_SOURCE = "elicitation-sidecar"


@dataclass(frozen=True, slots=True)
class Inbound:
    """An inbound peer message opening a turn: its comm leaf and sender."""

    label: str
    sender: str


@dataclass(slots=True)
class TurnUnit:
    """One side of a turn: the opener, or one agent message.

    ``text`` is the normalized one-line body; ``raw`` the body before normalization when
    ``text`` is its normalization (the ellipsis counts the newlines a cut removes in it),
    else None (a composed body: an AskUserQuestion exchange, a peer message's inner text).
    ``line`` is None for a record merged from the elicitation sidecar.
    """

    line: int | None
    role: str
    text: str
    raw: str | None
    ts: str | None
    also_in_summary: bool = False
    source: str | None = None
    inbound: Inbound | None = None
    image_ids: tuple[str, ...] = ()
    _newlines: list[int] | None = None

    @property
    def full_chars(self) -> int:
        return len(self.text)

    def newlines(self) -> list[int]:
        """Where ``raw``'s newlines land in ``text`` (computed once)."""
        if self._newlines is None:
            from pysift.engines.verbatim.geometry import newline_positions

            self._newlines = newline_positions(self.raw) if self.raw is not None else []
        return self._newlines


@dataclass(slots=True)
class AgentMsg:
    """One agent message of a turn, with the tool calls and failed results met since the
    previous one (what a collapsed run's placeholder reports)."""

    unit: TurnUnit
    tool_calls: int = 0
    failed: int = 0


@dataclass(slots=True)
class TurnSlice:
    turn_index: int
    user: TurnUnit | None
    tool_calls: int
    agents: list[AgentMsg] = field(default_factory=list)
    # the compactions from the next turn on (a summary is a member of the turn it came
    # in): 0 for the live turns, the newest summary's own among them
    compactions_before: int = 0
    # user-side units of the prompts typed while the agent worked that came after a
    # compaction inside the turn (one per compaction crossed, at its first prompt's line):
    # joined to the opener they would print above that compaction's banner
    typed: list[TurnUnit] = field(default_factory=list)
    # the lines of the compactions inside the turn (after its first line, before the next
    # turn's): their banners print there, among the lane
    crossed: list[int] = field(default_factory=list)
    # the turn as search and show number it when that is not ``turn_index`` (which keys
    # the slice): a pending elicitation's slice stands in the latest turn
    numbered: int | None = None

    @property
    def turn_number(self) -> int:
        """The turn ``--turn`` selects and the JSON rows name (``turn_index``)."""
        return self.turn_index if self.numbered is None else self.numbered

    @property
    def eot(self) -> TurnUnit | None:
        """The turn's last agent message (the end-of-turn anchor)."""
        return self.agents[-1].unit if self.agents else None

    @property
    def is_round_trip(self) -> bool:
        return self.user is not None and bool(self.agents)

    @property
    def latest_line(self) -> int:
        """The newest line the turn's units stand on (recency order); a pending sidecar
        question is the newest thing of all."""
        if self.user is not None and self.user.line is None:
            return 1 << 62
        lines = [u.line for u in (self.user, self.eot, *self.typed)
                 if u is not None and u.line is not None]
        return max(lines, default=0)

    @property
    def first_line(self) -> int:
        """The oldest line of the turn's content (a pending sidecar question: the end)."""
        lines = [a.unit.line for a in self.agents if a.unit.line is not None]
        if self.user is not None:
            lines.append(self.user.line if self.user.line is not None else 1 << 62)
        return min(lines, default=1 << 62)

    @property
    def content_line(self) -> int:
        """The newest line of the turn's content (its opener and agent messages)."""
        lines = [a.unit.line for a in self.agents if a.unit.line is not None]
        if self.user is not None and self.user.line is not None:
            lines.append(self.user.line)
        lines += [u.line for u in self.typed if u.line is not None]
        return max(lines, default=0)

    def flagged_copy(self) -> TurnSlice:
        """A copy whose units can be flagged without touching the scan's."""
        user = replace(self.user) if self.user is not None else None
        agents = [AgentMsg(replace(a.unit), a.tool_calls, a.failed) for a in self.agents]
        return TurnSlice(self.turn_index, user, self.tool_calls, agents,
                         self.compactions_before, [replace(u) for u in self.typed],
                         list(self.crossed), self.numbered)


@dataclass(slots=True)
class Compaction:
    """One compaction: the ``compact_boundary`` record and the summary that follows it.

    ``line`` is where it stands and what the banner names: the summary's line, or the
    boundary's when no summary could be read (torn, malformed, missing). A summary with
    no boundary record before it (older Claude Code) is a compaction too.
    """

    line: int
    boundary_line: int | None
    summary_line: int | None
    summary_chars: int
    fingerprints: tuple[str, ...]
    summary_read: bool
    ts: str | None = None
    pre_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class Richness:
    """How a turn's run of agent messages is reduced (``--agent-msgs`` and thresholds)."""

    mode: str = "longest"
    run_threshold: int = 6
    rich_min_chars: int = 280
    declaration_max_chars: int = 200
    keep_first: bool = True


MODES = ("longest", "eot-only", "rich", "all")
# --profile bundles (run threshold, rich-min chars, declaration-max chars).
PROFILES = {"heavy": (4, 200, 140), "light": (8, 360, 240)}
