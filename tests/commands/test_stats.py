"""commands.stats: rows per transcript, the scope TOTAL, the cap, the text view (§6.12)."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from builders import (
    ClaudeHome,
    Session,
    assistant,
    assistant_split,
    garbage_line,
    tool_use,
    usage,
    user,
)
from pysift.commands.scope import ScopeArgs
from pysift.commands.stats import StatsOptions, census_line, recency, run
from pysift.core.cap import cap
from pysift.core.grammar.ranges import parse_range
from pysift.disk.layout import top_level_transcript
from pysift.engines.stats import SessionStats
from pysift.model.env import Env

S1 = "11111111-1111-4111-8111-111111111111"
S2 = "22222222-2222-4222-8222-222222222222"
AGENT = "a4ca7529859c158c2"
CWD = "/w/proj"
T0 = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)


def _opts(**scope: Any) -> StatsOptions:
    return StatsOptions(scope=ScopeArgs(**scope))


def env_of(home: ClaudeHome) -> Env:
    return Env(claude_home=home.root, environ={}, cwd=Path("/"), tz=UTC)


def conversation(sid: str, start: datetime, agent: str | None = None) -> Session:
    s = Session(sid, cwd=CWD, start=start, step=30, agent_id=agent)
    s.add(user("go"))
    s.add(assistant(tool_use("Bash", {"command": "make"}), msg_id="msg_shared",
                    usage=usage(10, 20, 30, 40)))
    s.add(assistant("done", msg_id=f"msg_{sid[:4]}{agent or ''}", usage=usage(1, 1, 1, 1)))
    return s


def two_sessions(home: ClaudeHome) -> tuple[Path, Path]:
    p1 = home.session(CWD, S1, conversation(S1, T0))
    home.subagent(p1, AGENT, conversation(S1, T0 + timedelta(minutes=5), agent=AGENT))
    p2 = home.session(CWD, S2, conversation(S2, T0 + timedelta(days=1)))
    return p1, p2


def test_rows_header_and_scope_totals(home: ClaudeHome) -> None:
    two_sessions(home)
    report = run(_opts(targets=(CWD,)), env_of(home))
    assert [r["session_id"] for r in report.json_rows()] == [S1, AGENT, S2]
    assert report.header == {"sessions_in_scope": 3, "top_level_sessions": 2,
                             "subagent_sessions": 1}
    # the shared message id counts once per FILE, and the TOTAL sums the files
    model = next(iter(report.json_rows()[0]["tokens"]))
    assert report.json_rows()[0]["tokens"][model] == {"input": 11, "output": 21, "cache_read": 31,
                                               "cache_creation": 41}
    assert report.summary["tokens"][model]["input"] == 33
    assert report.summary["tools"] == {"Bash": 3}
    assert report.summary["turns"] == 3
    assert report.summary["sessions"] == 3
    assert report.summary["dropped_by_cap"] == 0
    assert report.summary["line_types"] == {"assistant": 6, "user": 3}


def test_json_row_keys_are_the_wire_keys(home: ClaudeHome) -> None:
    two_sessions(home)
    report = run(_opts(targets=(f"@{S2}",)), env_of(home))
    [row] = report.json_rows()
    assert set(row) == {
        "kind", "session_id", "is_subagent", "parent_session_id", "lines", "line_types",
        "user_records", "assistant_records", "turns", "compactions", "tools", "tokens",
        "narration_blocks", "unknown_thinking_tags", "first_utc", "first_local", "last_utc",
        "last_local", "skipped_lines"}
    assert row["first_utc"] == "2026-03-02T10:00:00.000Z"
    assert row["first_local"] == "2026-03-02T10:00:00+00:00"
    assert set(report.summary) == {"sessions", "line_types", "turns", "tools", "tokens",
                                   "narration_blocks", "unknown_thinking_tags", "skipped_lines",
                                   "dropped_by_cap"}


def test_no_subagents_and_the_cap(home: ClaudeHome) -> None:
    two_sessions(home)
    top = run(_opts(targets=(CWD,), subagents=False), env_of(home))
    assert [r["session_id"] for r in top.json_rows()] == [S1, S2]
    capped = run(_opts(targets=(CWD,), max_count=1), env_of(home))
    assert [r["session_id"] for r in capped.json_rows()] == [S2]  # the most recently active
    assert capped.summary["dropped_by_cap"] == 2
    assert capped.header["sessions_in_scope"] == 1
    assert run(_opts(targets=(CWD,), max_count=0), env_of(home)).summary["sessions"] == 3


def test_a_capped_window_with_no_counted_record_ranks_by_modification_time(
        home: ClaudeHome) -> None:
    """`stats --since 1d --max-count 1` over sessions idle in the window kept the first in
    path order and called it the most recently active."""
    import os

    p1, p2 = two_sessions(home)
    os.utime(p1, (2_000_000_000, 2_000_000_000))  # S1 was written to last
    os.utime(p2, (1_000_000_000, 1_000_000_000))
    since = datetime(2027, 1, 1, tzinfo=UTC)  # after every record
    report = run(_opts(targets=(CWD,), max_count=1, since=since, subagents=False),
                 env_of(home))
    assert [r["session_id"] for r in report.json_rows()] == [S1]
    out = io.StringIO()
    report.text(out)  # type: ignore[misc]
    assert "1 shown have no record in the window and are ranked by their file's " \
           "modification time" in out.getvalue()


def test_one_row_says_its_malformed_lines_once(home: ClaudeHome) -> None:
    p1, _ = two_sessions(home)
    with p1.open("ab") as fh:
        fh.write(garbage_line())
    report = run(_opts(targets=(f"@{S1}",), subagents=False), env_of(home))
    out = io.StringIO()
    report.text(out)  # type: ignore[misc]
    assert out.getvalue().count("1 malformed line(s) skipped") == 1


def test_cap_keeps_scope_order_and_ranks_undated_rows_last() -> None:
    rows = [SessionStats(top_level_transcript(Path(f"/p/{sid}.jsonl")), last_ts=ts)
            for sid, ts in ((S1, "2026-03-01T10:00:00Z"), (S2, None),
                            ("33333333-3333-4333-8333-333333333333", "2026-03-05T10:00:00Z"))]
    kept, dropped = cap(rows, 2, newest=recency)
    assert [r.transcript.session_id for r in kept] == [S1, "33333333-3333-4333-8333-333333333333"]
    assert [r.transcript.session_id for r in dropped] == [S2]
    assert cap(rows, 0, newest=recency) == (rows, [])
    assert cap(rows, 5, newest=recency) == (rows, [])


def test_turn_window_miss_is_said(home: ClaudeHome) -> None:
    two_sessions(home)
    report = run(_opts(targets=(f"@{S2}",), turns=parse_range("5")), env_of(home))
    assert report.json_rows()[0]["turns"] == 0
    assert any("no t5" in n for n in report.notes)


def test_text_view(home: ClaudeHome) -> None:
    p1, _ = two_sessions(home)
    with p1.open("ab") as fh:
        fh.write(garbage_line())
    report = run(_opts(targets=(CWD,)), env_of(home))
    out = io.StringIO()
    assert report.text is not None
    report.text(out)
    text = out.getvalue()
    assert text.startswith("scope  3 sessions in scope (2 top-level + 1 subagent)\n\n")
    assert f"SESSION {S1}\n  lines 4 · records 1 user + 2 assistant · turns 1 · compactions 0" in text
    assert f"SUBAGENT {AGENT}  ·  parent SESSION {S1}\n" in text
    assert "  span   2026-03-01 10:00:00 UTC(UTC+0)  →  2026-03-01 10:01:00 UTC(UTC+0)  (1m00s)" in text
    assert "  tools  Bash×1\n" in text
    assert "  (1 malformed line(s) skipped)\n" in text
    assert "TOTAL  3 sessions (2 top-level + 1 subagent)\n" in text
    assert "  records 3 user + 6 assistant · turns 3 · compactions 0\n" in text


def test_total_tools_show_fifteen_then_a_count(home: ClaudeHome) -> None:
    s = Session(S1, cwd=CWD)
    s.add(user("go"))
    s.add(assistant_split(*[tool_use(f"Tool{i:02d}", {"i": i}) for i in range(18)]))
    home.session(CWD, S1, s)
    home.session(CWD, S2, conversation(S2, T0))
    report = run(_opts(targets=(CWD,)), env_of(home))
    out = io.StringIO()
    report.text(out)  # type: ignore[misc]
    total = out.getvalue().split("TOTAL")[1]
    assert "(+4 more tools)" in total


def test_census_line_orders_by_count_then_name() -> None:
    assert census_line({"b": 2, "a": 2, "c": 5}) == "c×5 · a×2 · b×2"
    assert census_line({"a": 1, "b": 1, "c": 1}, 2) == "a×1 · b×1 · (+1 more tools)"


def test_an_open_or_from_end_turn_window_that_reaches_nothing_is_said(home: ClaudeHome) -> None:
    """`--turn -90` / `--turn 90..` past a session's turns counted nothing in silence,
    where `--turn 90` said so."""
    two_sessions(home)
    for spec in ("-90", "90..", "-90..-80"):
        report = run(_opts(targets=(f"@{S2}",), turns=parse_range(spec)), env_of(home))
        assert report.json_rows()[0]["turns"] == 0
        assert any(f"none in {spec}" in n for n in report.notes), (spec, report.notes)
    reached = run(_opts(targets=(f"@{S2}",), turns=parse_range("-1")), env_of(home))
    assert not any("count nothing" in n for n in reached.notes)


@pytest.mark.parametrize("bogus", ["0000-00-00T00:00:00.000Z", "2026-06-30T23:59:60.000Z"])
def test_a_timestamp_of_claude_codes_shape_naming_no_instant_is_no_span_end(
        home: ClaudeHome, bogus: str) -> None:
    """`first_utc`/`last_utc` always hold a readable timestamp or null (SPEC §9), also
    when an unreadable one has Claude Code's 24-character `…Z` shape and would sort first
    or last as a string."""
    s = Session(S1, cwd=CWD, start=T0)
    s.add({**user("early"), "timestamp": bogus})
    go = s.add(user("go"))
    done = s.add(assistant("done"))
    s.add({**user("late"), "timestamp": bogus})
    home.session(CWD, S1, s)
    [row] = run(_opts(targets=(f"@{S1}",)), env_of(home)).json_rows()
    assert go["timestamp"] < done["timestamp"]
    assert (row["first_utc"], row["last_utc"]) == (go["timestamp"], done["timestamp"])
