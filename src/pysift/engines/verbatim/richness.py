"""Which agent messages of a turn survive (``--agent-msgs``), and the richness test.

A turn can own a long run of agent messages that a compaction summary clips to a single
quote. Keep-on-doubt is the rule: a message is dropped only when it is PROVEN to be a
short, signal-less declaration of intent ("let me look at …"); a wrongly kept message
costs one capped body, a wrongly dropped finding is gone. A contiguous run of dropped
messages becomes one placeholder naming its line range and what it did; a prompt the
human typed that stands in the lane as a unit of its own (``TurnSlice.typed``) and a
compaction inside the turn (``TurnSlice.crossed``) end a run, since the document prints
each entry, and each banner, at its line.

Modes:

- ``longest`` (default): the longest message always, the first when it is substantive
  (at least ``rich_min_chars``), every other message when it is rich. A tie on length
  keeps the last of the longest.
- ``eot-only``: the last message only.
- ``rich``: on a run longer than ``run_threshold``, the last always, the first by position
  under ``keep_first`` (else judged as a middle), every middle unless droppable; a
  shorter run keeps everything.
- ``all``: every message.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pysift.engines.verbatim.model import AgentMsg, Richness, TurnSlice
from pysift.model.fastdata import dataclass

SUBSTANCE_NOUNS = ("passed", "failed", "tests", "test", "errors", "error", "files", "file",
                   "chars", "lines", "line", "ops", "cases", "case")
FINDING_LEXEMES = ("found", "confirmed", "verified", "proven", "proof", "root cause",
                   "root-cause", "defer", "deferred", "fails", "failed", "failure", "error",
                   "bug", "correction", "corrected", "fix", "fixed", "regression")
INTENT_OPENERS = ("let me", "i'll", "i will", "now i", "now let", "next i", "next,", "let's")

_DIGITS = re.compile(r"[0-9]+")
_RATIO_TAIL = re.compile(r" *(?:/|of) *[0-9]")
# a maximal run of 7-40 hex characters holding a letter, no ASCII letter or digit either side
_HEX_RUN = re.compile(r"(?<![0-9a-z])(?=[0-9]*[a-f])[0-9a-f]{7,40}(?![0-9a-z])")
# what a `name.ext:NNN` token needs somewhere, and a token rooted at src/ or tests/
_EXT_LINE = re.compile(r"\.[A-Za-z]+:[0-9]")
_ROOTED = re.compile(r"(?:^|\s)[`(),;\"]*(?:src|tests)/")
_WINDOW = 16


def _number_of_substance(lower: str) -> bool:
    """A ratio (``12/40``, ``3 of 5``), or a number of two digits or more within 16
    characters of a substance noun (``14 tests``, ``errors: 12``)."""
    for m in _DIGITS.finditer(lower):
        if _RATIO_TAIL.match(lower, m.end()):
            return True
        if m.end() - m.start() >= 2:
            window = lower[max(0, m.start() - _WINDOW):m.end() + _WINDOW]
            if any(noun in window for noun in SUBSTANCE_NOUNS):
                return True
    return False


def _commit_hash(lower: str) -> bool:
    """A hex run of 7-40 characters holding a letter, not glued to a longer word."""
    return _HEX_RUN.search(lower) is not None


def _has_extension(path: str) -> bool:
    stem, dot, ext = path.rpartition(".")
    return bool(dot and stem and ext and ext.isascii() and ext.isalpha())


def _file_reference(text: str) -> bool:
    """A ``name.ext:NNN`` token, or a token rooted at ``src/`` or ``tests/``."""
    if _EXT_LINE.search(text) is None and _ROOTED.search(text) is None:
        return False
    for token in text.split():
        token = token.strip("`(),;\"")
        path, colon, number = token.rpartition(":")
        if colon and number.isascii() and number.isdigit() and _has_extension(path):
            return True
        if token.startswith(("src/", "tests/")) and len(token) > 4:
            return True
    return False


def _backtick_span(text: str) -> bool:
    first = text.find("`")
    return first >= 0 and text.find("`", first + 1) >= 0


@lru_cache(maxsize=65536)
def is_rich(text: str, cfg: Richness) -> bool:
    """Long enough to keep on length alone, or carrying a signal: a number of substance,
    a commit-like hex, a file reference, a backtick code span, a finding lexeme."""
    if len(text) >= cfg.rich_min_chars:
        return True
    lower = text.lower()
    return (_number_of_substance(lower) or _commit_hash(lower) or _file_reference(text)
            or _backtick_span(text) or any(lex in lower for lex in FINDING_LEXEMES))


def is_droppable(text: str, cfg: Richness) -> bool:
    """A proven pure declaration: not rich, shorter than ``declaration_max_chars``, and
    opening with an intent verb. Anything uncertain is kept."""
    if is_rich(text, cfg) or len(text) >= cfg.declaration_max_chars:
        return False
    head = text.lstrip()[:24].lower()
    return head.startswith(INTENT_OPENERS)


@dataclass(frozen=True, slots=True)
class Collapsed:
    """A contiguous run of dropped agent messages, as its placeholder reports it."""

    messages: int
    tool_calls: int
    failed: int
    first_line: int
    last_line: int


Lane = list[AgentMsg | Collapsed]


def agent_lane(turn: TurnSlice, cfg: Richness) -> Lane:
    """The turn's assistant lane: kept messages and collapsed runs, in file order."""
    agents = turn.agents
    if not agents:
        return []
    mode = cfg.mode
    if mode == "eot-only":
        return [agents[-1]]
    if mode == "all":
        return list(agents)
    last = len(agents) - 1
    if mode == "rich":
        if len(agents) <= cfg.run_threshold:
            return list(agents)

        def keep(i: int, msg: AgentMsg) -> bool:
            if i == last or (i == 0 and cfg.keep_first):
                return True
            return not is_droppable(msg.unit.text, cfg)
    else:  # longest
        if len(agents) == 1:
            return list(agents)
        longest = max(range(len(agents)), key=lambda i: (agents[i].unit.full_chars, i))

        def keep(i: int, msg: AgentMsg) -> bool:
            if i == longest:
                return True
            if i == 0:
                return msg.unit.full_chars >= cfg.rich_min_chars
            return is_rich(msg.unit.text, cfg)
    return _collapse(agents, keep, sorted([*(u.line for u in turn.typed if u.line is not None),
                                           *turn.crossed]))


def _collapse(agents: list[AgentMsg], keep,  # type: ignore[no-untyped-def]
              splits: list[int]) -> Lane:
    """The lane of ``agents``, the runs ``keep`` refuses collapsed; a run ends at each
    of ``splits`` (the lines of the typed units in the lane and of the compactions inside
    the turn, sorted). Decided, thirty-second session: a run spanning a typed unit printed
    before it, its line range over the prompt's, as if the agent had said all of it before
    the human spoke; a run spanning a compaction printed before its banner, its range over
    the boundary (`L2–L6` above the banner of a compaction at L4)."""
    out: Lane = []
    run: list[AgentMsg] = []
    at = 0
    for i, msg in enumerate(agents):
        line = msg.unit.line
        while line is not None and at < len(splits) and splits[at] < line:
            at += 1
            if run:
                out.append(_collapsed(run))
                run = []
        if keep(i, msg):
            if run:
                out.append(_collapsed(run))
                run = []
            out.append(msg)
        else:
            run.append(msg)
    if run:
        out.append(_collapsed(run))
    return out


def _collapsed(run: list[AgentMsg]) -> Collapsed:
    return Collapsed(messages=len(run), tool_calls=sum(m.tool_calls for m in run),
                     failed=sum(m.failed for m in run), first_line=run[0].unit.line or 0,
                     last_line=run[-1].unit.line or 0)
