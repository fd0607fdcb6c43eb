"""Spending a session's budget: the dedup against the newest summary."""

from __future__ import annotations

from pathlib import Path

import builders as b
from pysift.disk.layout import transcript_from_path
from pysift.engines.verbatim.model import ASSISTANT, USER, Richness, TurnUnit
from pysift.engines.verbatim.plan import (
    SessionPlan,
    matches_summary,
    min_render_chars,
    plan_session,
)
from pysift.engines.verbatim.scan import SessionScan, fingerprints, scan_session


def unit(text: str, role: str = USER) -> TurnUnit:
    return TurnUnit(line=9, role=role, text=text, raw=None, ts=None)


def scanned(home: b.ClaudeHome, sid: str, s: b.Session) -> SessionScan:
    """The session written to ``home`` (again, when it grew) and scanned."""
    return scan_session(transcript_from_path(home.session("/w/p", sid, s)))


def planned(scan: SessionScan, budget: int = 40000) -> SessionPlan:
    return plan_session(scan, scan.turns, budget=budget, fraction=0.5, max_compactions=0,
                        cfg=Richness(), tz=None)


def test_a_unit_the_summary_quotes_whole_or_by_its_opening_matches() -> None:
    keys = fingerprints('6. All user messages:\n- "yes, build it"\n'
                        '- "[INFO] Calling install_all function with chroot target: /"\n'
                        '9. Optional Next Step:\n   "The coarse scan missed short passes"\n')
    assert matches_summary(unit("yes, build it"), keys)
    assert matches_summary(unit("[INFO] Calling install_all function with chroot target: / "
                                "/opt/modules/core_system.sh: line 1514"), keys)
    assert matches_summary(unit("The coarse scan missed short passes; switched to 60 s steps.",
                                ASSISTANT), keys)
    # a bullet the summary clipped with an ellipsis still quotes the message's opening
    clipped = fingerprints('- "please rewrite the pass finder so that it bisects each rise..."')
    assert matches_summary(unit("please rewrite the pass finder so that it bisects each rise "
                                "and set to the second"), clipped)


def test_a_short_quote_is_no_prefix_of_every_unit_starting_alike() -> None:
    # a real summary (f156e813) lists answers `9. "B" (WCAG 2.1 Level AA)` and `18. "1"`:
    # its one-letter quotes are no quote of a reply opening "Based on …" or of "172 tasks"
    keys = fingerprints('1. "run the app"\n9. "B" (WCAG 2.1 Level AA)\n18. "1" (Confirmed)\n'
                        '- "好的"\n')
    assert not matches_summary(unit("Based on the conversation summary, the last task was "
                                    "done.", ASSISTANT), keys)
    assert not matches_summary(unit("172 tasks"), keys)
    assert not matches_summary(unit("好的请调整skills 以后查询基金数据会自动调整格式"), keys)
    # nor is a unit that says less than the quote the quote
    assert not matches_summary(unit("run"), keys)
    assert matches_summary(unit("B"), keys) and matches_summary(unit("1"), keys)


def test_a_live_reply_starting_like_a_one_letter_answer_is_not_flagged(tmp_path: Path) -> None:
    home = b.ClaudeHome(tmp_path)
    sid = "5e5e5e5e-2222-4222-8333-444455556666"
    s = b.Session(sid, cwd="/w/p")
    s.add(b.user("which WCAG level?"))
    s.add(b.assistant("A or B?"))
    s.add(b.user("B"))
    s.add(b.assistant("Level AA it is."))
    s.add(b.compact_boundary(150000))
    s.add(b.compact_summary('6. All user messages:\n1. "which WCAG level?"\n2. "B" (Level AA)\n'))
    s.add(b.user("continue"))
    s.add(b.assistant("Based on the summary, the next step is the contrast audit."))
    scan = scanned(home, sid, s)
    plan = planned(scan)
    flagged = [u.text for sel in plan.selected for u in (sel.turn.user, sel.turn.eot)
               if u is not None and u.also_in_summary]
    # the answer "B" itself is quoted (its turn holds the summary: live), the reply is not
    assert flagged == ["B"] and plan.dedup_demoted == 1


def test_the_budget_a_skipped_session_is_told_it_needs_is_enough(tmp_path: Path) -> None:
    # "skipped — its first round-trip needs ≥ N chars; raise --budget": the header the
    # budget reserves grows with the budget's digits, and the cheapest side may stand
    # behind a compaction whose banner prints with it; N used to count neither, so
    # --budget N was skipped again ("needs ≥ N+3"; all 70 real top-level sessions)
    home = b.ClaudeHome(tmp_path)
    sid = "5e5e5e5e-4444-4222-8333-444455556666"
    s = b.Session(sid, cwd="/w/p")
    s.add(b.user("q"))
    s.add(b.compact_boundary(150000))
    s.add(b.compact_summary('6. All user messages:\n- "q"\n'))
    s.add(b.user("long " * 200))
    s.add(b.assistant("reply " * 200))
    scan = scanned(home, sid, s)
    need = min_render_chars(scan, scan.turns, 50, Richness(), None)
    assert need is not None

    assert planned(scan, need).selected and not planned(scan, need - 1).selected
    assert min_render_chars(scan, scan.turns, need - 1, Richness(), None) == need


def test_the_turn_the_newest_summary_stands_in_is_live(tmp_path: Path) -> None:
    # a summary is a member of the turn in progress when the compaction came (csift
    # §6.8: never a delimiter), so that turn is live and deduplicated, whether or not
    # the agent wrote into it after the compaction: 9fc1e192 (real corpus) compacted
    # after turn 10 (L568, quoted by the summary) and the user typed a new prompt, and
    # turn 10 went unflagged, as does the turn in progress when a SessionStart hook runs
    home = b.ClaudeHome(tmp_path)
    sid = "5e5e5e5e-6666-4222-8333-444455556666"
    s = b.Session(sid, cwd="/w/p")
    s.add(b.user("fix the epoch parse in tle.py"))
    s.add(b.assistant("Fixed the day-of-year offset in parse_epoch."))
    s.add(b.compact_boundary(150000))
    s.add(b.compact_summary('6. All user messages:\n- "fix the epoch parse in tle.py"\n'
                            '9. Optional Next Step:\n   "Fixed the day-of-year offset"\n'))
    scan = scanned(home, sid, s)
    plan = planned(scan)
    [sel] = plan.selected
    assert sel.turn.user is not None and sel.turn.user.also_in_summary
    assert sel.turn.eot is not None and sel.turn.eot.also_in_summary
    # the next prompt, after the compaction, leaves that turn live
    s.add(b.user("now the pass finder"))
    s.add(b.assistant("On it."))
    scan = scanned(home, sid, s)
    plan = planned(scan)
    assert [u.text for sel in plan.selected for u in (sel.turn.user, sel.turn.eot)
            if u is not None and u.also_in_summary] == [
        "fix the epoch parse in tle.py", "Fixed the day-of-year offset in parse_epoch."]
