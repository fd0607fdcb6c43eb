"""Issue 21: answers that claimed more than they knew, or differed from csift without a
recorded reason. Each test names the item it pins."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import LONG


@pytest.fixture
def demo(cli, demo_home: Path):
    def run(*args: str):
        return cli("--claude-home", str(demo_home), *args)
    return run


# -- item 4: a superseded draft the selection hides is said, never silent --------------------

def test_a_draft_hidden_by_the_selection_is_counted_and_said(demo) -> None:
    """-t user.message leaves user.unsent out: the esc-recalled draft that holds the
    pattern is collapsed, and the footer and the JSON summary say so (csift 0.9.0)."""
    as_json = demo("search", "cache size configurable", f"@{LONG}", "-t", "user.message",
                   "--format", "json")
    assert not any(ex["superseded_draft"] for ex in as_json.json_rows("exchange"))
    assert as_json.summary()["superseded_drafts"] == 1
    text = demo("search", "cache size configurable", f"@{LONG}", "-t", "user.message")
    assert "(1 superseded draft(s) collapsed" in text.stdout
    counted = demo("search", "", f"@{LONG}", "-t", "user.message", "-c")
    assert "1 superseded draft(s) collapsed" in counted.stderr


def test_a_draft_shown_is_not_also_called_collapsed(demo) -> None:
    shown = demo("search", "cache size configurable", f"@{LONG}")
    assert "collapsed" not in shown.stdout
    assert "1 superseded draft(s) shown as ·draft units" in shown.stdout
    windowed = demo("search", "cache size configurable", f"@{LONG}", "-t", "user.message",
                    "--turn", "0..", "--format", "json")
    assert windowed.summary()["superseded_drafts"] == 0  # a turn window holds no draft


# -- item 5: an explicit --turn past the end is the error show gives ---------------------------

def test_an_explicit_turn_past_the_end_is_an_error_not_an_absence(demo) -> None:
    shown = demo("show", f"@{LONG}", "--turn", "99")
    searched = demo("search", "the", f"@{LONG}", "--no-subagents", "--turn", "99")
    assert shown.code == searched.code == 1
    assert searched.stderr == shown.stderr  # one message, one domain
    assert "no such turn(s): t99 — the transcript has 38 turn(s) (t0..t37)" in searched.stderr
    assert "DEFINITIVE" not in searched.stderr
    for mode in (["-c"], ["--format", "json"], ["--count-by", "label"]):
        again = demo("search", "the", f"@{LONG}", "--turn", "40..45", *mode)
        assert again.code == 1 and "no such turn(s): t40..t45" in again.stderr


def test_a_turn_some_transcript_has_and_the_clamping_forms_are_windows(demo) -> None:
    wide = demo("search", "the", "--turn", "30", "-c")  # only the long session has t30
    assert wide.code == 0 and int(wide.stdout) > 0
    tail = demo("search", "ZZZ-nowhere", f"@{LONG}", "--turn", "-99..", "-c")
    assert tail.code == 0 and "DEFINITIVE absence" in tail.stderr


def test_a_turn_miss_names_a_hand_named_file_by_its_path(cli, tmp_path: Path) -> None:
    """The hint names the transcript so that pysift takes it back: a file without a
    session uuid for a name has no @-form (it printed `@notes`)."""
    from builders import Session, assistant, text, to_jsonl, user

    s = Session("21212121-0002-4000-8000-000000000002", cwd="/w")
    s.add(user("hello"))
    s.add(assistant(text("hi")))
    path = tmp_path / "notes.jsonl"
    path.write_bytes(to_jsonl(s.records))
    result = cli("show", str(path), "--turn", "5")
    assert result.code == 1
    assert f"pysift search ... {path} " in result.stderr and "@notes" not in result.stderr
