"""Property: whatever the session and the budget, the text of a session (its header
block and body) stays within its budget, every banner it prints is counted, and what it
reports as used covers what it printed."""

from __future__ import annotations

import io
from datetime import UTC
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builders import ClaudeHome
from compacted import session_of_turns
from pysift.commands.scope import ScopeArgs
from pysift.commands.verbatim import VerbatimOptions, run
from pysift.model.env import Env

WORDS = st.sampled_from(["fix", "the", "epoch", "パス", "bug", "`x.py:3`", "found", "Let me",
                         "\n", "\n\n", "ok", "14 tests", "deadbeef1"])
TEXT = st.lists(WORDS, min_size=1, max_size=200).map(" ".join)
TURN = st.tuples(TEXT, st.lists(TEXT, max_size=4), st.integers(0, 3), st.booleans())


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(turns=st.lists(TURN, min_size=1, max_size=8), budget=st.integers(200, 6000),
       mode=st.sampled_from(["longest", "eot-only", "rich", "all"]))
def test_the_text_never_exceeds_the_budget(tmp_path_factory, turns, budget, mode) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("home")
    home = ClaudeHome(Path(root))
    s = session_of_turns(turns, failed_third=True)
    home.session("/w/p", s.session_id, s)
    env = Env(claude_home=home.root, environ={}, cwd=Path(root), tz=UTC)
    report = run(VerbatimOptions(scope=ScopeArgs(targets=(f"@{s.session_id}",),
                                                 subagents=False),
                                 budget=budget, agent_msgs=mode), env)
    out = io.StringIO()
    assert report.text is not None
    report.text(out)
    text = out.getvalue()
    rows = report.json_rows()
    if not report.header["sessions_rendered"]:  # nothing fits: said, with what it needs
        assert "skipped — its first round-trip needs ≥ " in text
    else:  # one session, no scope line: the whole text is the session's
        assert len(text) <= report.header["chars_used"] <= budget
        banners = sum(1 for r in rows if r["kind"] == "compaction_boundary")
        assert banners == report.header["boundaries_spanned"]
        assert text.count("══ compaction boundary") == banners
        lines = [r["line"] for r in rows if r["kind"] == "turn"]
        assert lines == sorted(lines)  # forward order


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(turns=st.lists(TURN, min_size=1, max_size=6),
       mode=st.sampled_from(["longest", "eot-only", "rich", "all"]),
       cap=st.sampled_from([None, 50, 8800]))
def test_the_planner_charges_exactly_the_lines_printed(tmp_path_factory, turns, mode,  # type: ignore[no-untyped-def]
                                                      cap) -> None:
    from pysift.disk.layout import transcript_from_path
    from pysift.engines.verbatim.geometry import (
        ASSISTANT_ONLY,
        BOTH,
        USER_ONLY,
        elements_cost,
        oldest_line,
        turn_elements,
    )
    from pysift.engines.verbatim.model import Richness
    from pysift.engines.verbatim.plan import Options
    from pysift.engines.verbatim.scan import scan_session

    root = tmp_path_factory.mktemp("home")
    home = ClaudeHome(Path(root))
    s = session_of_turns(turns, failed_third=True)
    path = home.session("/w/p", s.session_id, s)
    scan = scan_session(transcript_from_path(path))
    cfg = Richness(mode=mode)
    options = Options(cfg, UTC, cap)
    for turn in scan.turns:
        for sides in (BOTH, USER_ONLY, ASSISTANT_ONLY):
            elements = turn_elements(turn, sides, cfg, UTC, cap)
            oldest = oldest_line(elements)
            expected = None if oldest is None else (elements_cost(elements), oldest)
            assert options.of(turn, sides) == expected
