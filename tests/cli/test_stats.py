"""``pysift stats`` through the real argv path: flags, help, JSON envelope, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import ClaudeHome, Session, assistant, assistant_split, thinking, tool_use, user

S1 = "11111111-1111-4111-8111-111111111111"
AGENT = "a4ca7529859c158c2"
CWD = "/w/proj"


@pytest.fixture
def home(tmp_path: Path) -> ClaudeHome:
    h = ClaudeHome(tmp_path / "claude")
    s = Session(S1, cwd=CWD)
    for i in range(3):
        s.add(user(f"question {i}"))
        s.add(assistant_split(thinking("hm", tag="narration"), tool_use("Read", {"file_path": f"/{i}"})))
    main = h.session(CWD, S1, s)
    h.subagent(main, AGENT, user("task"), assistant("ok"))
    return h


def test_help_has_examples_and_the_json_schema(cli) -> None:
    result = cli("stats", "--help")
    assert result.code == 0
    for needle in ("EXAMPLES", "pysift stats @3f6c1e2a --turn -3..", '"kind":"session"',
                   '"narration_blocks":{model:n}', "dropped_by_cap", "CALLS"):
        assert needle in result.stdout


def test_json_envelope(cli, home: ClaudeHome) -> None:
    result = cli("--claude-home", str(home.root), "stats", f"@{S1}", "--format", "json")
    assert result.code == 0, result.stderr
    assert result.header() == {"kind": "header", "command": "stats", "sessions_in_scope": 2,
                               "top_level_sessions": 1, "subagent_sessions": 1}
    main, sub = result.json_rows("session")
    assert (main["turns"], main["user_records"], main["assistant_records"]) == (3, 3, 6)
    assert main["narration_blocks"] == {"claude-opus-4-6": 3}
    assert main["tools"] == {"Read": 3}
    assert sub["is_subagent"] and sub["parent_session_id"] == S1
    assert result.summary()["sessions"] == 2


def test_turn_window_and_no_subagents(cli, home: ClaudeHome) -> None:
    result = cli("stats", f"@{S1}", "--turn", "-1", "--no-subagents", "--format", "json",
                 "--claude-home", str(home.root))
    [row] = result.json_rows("session")
    assert (row["turns"], row["tools"], row["user_records"], row["lines"]) == (1, {"Read": 1}, 1, 9)


def test_text_output_has_the_blocks(cli, home: ClaudeHome) -> None:
    result = cli("--claude-home", str(home.root), "stats", f"@{S1}")
    assert result.code == 0
    assert result.stdout.startswith("scope  2 sessions in scope (1 top-level + 1 subagent)\n")
    assert f"SESSION {S1}\n" in result.stdout
    assert "  narration blocks claude-opus-4-6×3  (API summaries" in result.stdout
    assert "TOTAL  2 sessions (1 top-level + 1 subagent)" in result.stdout
    assert "AEDT(UTC+11)" in result.stdout  # the reader's zone (conftest pins Sydney)


@pytest.mark.parametrize("args, needle", [
    (("--turn", "5-9"), "write 5..9"),
    (("--turn", "9..3"), "reversed"),
    (("--max-count", "-1"), "must be 0 (uncapped)"),
    (("--format", "xml"), "'xml' is not one of text, json"),
    (("--since", "yesterday-ish"), "--since"),
])
def test_bad_flags_exit_2(cli, home: ClaudeHome, args: tuple[str, ...], needle: str) -> None:
    result = cli("--claude-home", str(home.root), "stats", f"@{S1}", *args)
    assert result.code == 2, (result.stdout, result.stderr)
    assert needle in result.stderr


def test_unknown_target_fails_loud(cli, home: ClaudeHome) -> None:
    result = cli("--claude-home", str(home.root), "stats", "@99999999-9999-4999-8999-999999999999")
    assert result.code == 1
    assert "no session" in result.stderr and "pysift list" in result.stderr


def test_real_session_tokens_match_a_hand_count(cli, real_home: Path) -> None:
    """0d3a8e6f…: 32 assistant records, 15 API messages; usage grows across a message's
    per-block records (streamed output_tokens), so each id counts its per-field max."""
    sid = "0d3a8e6f-290f-4105-a327-a2496e5e2a83"
    result = cli("--claude-home", str(real_home), "stats", f"@{sid}", "--format", "json")
    [row] = result.json_rows("session")
    assert row["tokens"] == {"claude-sonnet-4-20250514": {
        "input": 138, "output": 5057, "cache_read": 348985, "cache_creation": 85100}}
    assert row["assistant_records"] == 32


def test_a_session_in_two_project_dirs_is_counted_once(cli, tmp_path: Path) -> None:
    """``@<uuid>`` is one session: both copies were read, every count doubled."""
    sid = "3f6c1e2a-8b4d-4c7e-9a15-2d8e0b7f4c61"
    home = ClaudeHome(tmp_path / "claude")
    home.session("/w/a", sid, user("first copy"), assistant("ok"))
    home.session("/w/b", sid, user("second copy"), assistant("ok"))
    result = cli("--claude-home", str(home.root), "stats", f"@{sid}", "--format", "json")
    assert result.code == 0
    assert result.summary()["sessions"] == 1
    assert f"@{sid} has 2 copies in different project dirs" in result.stderr
