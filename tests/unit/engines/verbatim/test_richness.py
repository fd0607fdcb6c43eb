"""Which agent messages of a turn survive (--agent-msgs), and the richness signals."""

from __future__ import annotations

import pytest

from pysift.engines.verbatim.geometry import placeholder_line
from pysift.engines.verbatim.model import ASSISTANT, AgentMsg, Richness, TurnSlice, TurnUnit
from pysift.engines.verbatim.richness import Collapsed, agent_lane, is_droppable, is_rich

CFG = Richness()


def msg(line: int, text: str, calls: int = 0, failed: int = 0) -> AgentMsg:
    return AgentMsg(TurnUnit(line=line, role=ASSISTANT, text=text, raw=None, ts=None), calls,
                    failed)


def turn(*agents: AgentMsg) -> TurnSlice:
    return TurnSlice(0, None, sum(a.tool_calls for a in agents), list(agents))


def kept(lane) -> list[int | tuple[int, int]]:  # type: ignore[no-untyped-def]
    return [(e.first_line, e.last_line) if isinstance(e, Collapsed) else e.unit.line
            for e in lane]


@pytest.mark.parametrize("text", [
    "14 tests passed",              # a number of substance
    "errors: 12 remaining",          # a noun within 16 characters of the number
    "3/40 done",                     # a ratio
    "2 of 5 left",
    "now at deadbee1 on main",       # a commit-like hex run with a letter
    "see scan.py:120",               # name.ext:NNN
    "touched src/engine",            # a src/ rooted path
    "ran `make`",                    # a backtick span
    "the root cause is the cache",   # a finding lexeme
    "x" * 280,                       # long enough on length alone
])
def test_rich(text: str) -> None:
    assert is_rich(text, CFG)


@pytest.mark.parametrize("text", [
    "Let me look into this.",
    "ok, next",
    "12345678",                      # digits only: no letter, no noun
    "abcdefg",                       # hex-looking word without a digit? (letters only)
    "version 1 done",                # one digit is no number of substance
    "x" * 279,
])
def test_not_rich(text: str) -> None:
    assert not is_rich(text, CFG)


def test_droppable_needs_an_intent_opener_a_short_body_and_no_signal() -> None:
    assert is_droppable("Let me check the config.", CFG)
    assert is_droppable("  now I will run it", CFG)
    assert not is_droppable("Let me check `config.py`.", CFG)  # a signal: kept
    assert not is_droppable("Checking the config.", CFG)  # no intent opener: kept on doubt
    assert not is_droppable("Let me " + "y" * 200, CFG)  # not short: kept


def test_longest_keeps_the_longest_the_substantive_first_and_rich_others() -> None:
    t = turn(msg(10, "Let me look.", calls=2), msg(12, "a" * 150, calls=1),
             msg(14, "found it: the epoch parse", failed=1), msg(16, "b" * 400),
             msg(18, "Done."))
    assert kept(agent_lane(t, CFG)) == [(10, 12), 14, 16, (18, 18)]
    first = agent_lane(t, CFG)[0]
    assert isinstance(first, Collapsed)
    assert (first.messages, first.tool_calls, first.failed) == (2, 3, 0)


def test_longest_on_a_tie_keeps_the_last_of_the_longest() -> None:
    t = turn(msg(1, "y" * 50), msg(2, "z" * 50))
    assert kept(agent_lane(t, CFG)) == [(1, 1), 2]


def test_eot_only_keeps_the_last_and_all_keeps_everything() -> None:
    t = turn(msg(1, "a" * 500), msg(2, "Let me see."), msg(3, "ok"))
    assert kept(agent_lane(t, Richness(mode="eot-only"))) == [3]
    assert kept(agent_lane(t, Richness(mode="all"))) == [1, 2, 3]


def test_rich_filters_only_runs_longer_than_the_threshold() -> None:
    short = turn(*[msg(i, "Let me look.") for i in range(6)])
    assert kept(agent_lane(short, Richness(mode="rich"))) == list(range(6))
    long_run = turn(*[msg(i, "Let me look.") for i in range(7)])
    assert kept(agent_lane(long_run, Richness(mode="rich"))) == [0, (1, 5), 6]
    heavy = Richness(mode="rich", run_threshold=4)
    assert kept(agent_lane(turn(*[msg(i, "Let me look.") for i in range(5)]), heavy)) == [
        0, (1, 3), 4]


def test_a_single_message_is_always_kept() -> None:
    for mode in ("longest", "eot-only", "rich", "all"):
        assert kept(agent_lane(turn(msg(5, "Let me look.")), Richness(mode=mode))) == [5]


def test_placeholder_line() -> None:
    assert placeholder_line(Collapsed(3, 7, 2, 40, 55)) == \
        "△ L40–L55  [3 agent messages, 7 tool calls, 2 failed]"
    assert placeholder_line(Collapsed(1, 0, 0, 9, 9)) == "△ L9  [1 agent message, 0 tool calls]"
    assert placeholder_line(Collapsed(2, 1, 0, 9, 11)) == \
        "△ L9–L11  [2 agent messages, 1 tool call]"


def test_a_typed_unit_ends_a_run_in_every_collapsing_mode() -> None:
    """A prompt typed past a compaction inside the turn is a unit of its own, printed at
    its line among the lane: a run ends at it (two typed units in one gap end it once)."""
    from pysift.engines.verbatim.model import USER

    t = turn(msg(10, "Let me look.", calls=1), msg(12, "Let me check."), msg(16, "Let me run."),
             msg(18, "Let me see."), msg(20, "c" * 400))
    t.typed = [TurnUnit(line=line, role=USER, text="also this", raw=None, ts=None)
               for line in (14, 15)]
    assert kept(agent_lane(t, CFG)) == [(10, 12), (16, 18), 20]
    long_run = turn(*[msg(i, "Let me look.") for i in range(2, 18, 2)])
    long_run.typed = [TurnUnit(line=7, role=USER, text="also this", raw=None, ts=None)]
    assert kept(agent_lane(long_run, Richness(mode="rich"))) == [2, (4, 6), (8, 14), 16]


def test_a_compaction_inside_the_turn_ends_a_run() -> None:
    """The banner of a compaction inside the turn prints at its line, among the lane: a
    run of collapsed messages ends there, as at a typed unit (one run over the boundary
    printed its range above the banner)."""
    t = turn(msg(10, "Let me look."), msg(12, "Let me check."), msg(16, "Let me run."),
             msg(18, "Let me see."), msg(20, "c" * 400))
    t.crossed = [14]
    assert kept(agent_lane(t, CFG)) == [(10, 12), (16, 18), 20]
    t.crossed = [21]  # after every message: no run is cut
    assert kept(agent_lane(t, CFG)) == [(10, 18), 20]
