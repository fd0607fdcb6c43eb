"""Issue 21: answers that claimed more than they knew, or differed from csift without a
recorded reason. Each test names the item it pins."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import LONG, SHORT


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


@pytest.mark.parametrize("window", ["-99..-50", "-1..1", "40.."])
def test_a_window_covering_no_turn_of_the_one_transcript_is_the_error_show_gives(
        demo, window: str) -> None:
    """Over one transcript a clamping form that covers none of its turns addresses
    nothing, as ``show`` says (it read as a DEFINITIVE absence)."""
    shown = demo("show", f"@{LONG}", "--turn", window)
    searched = demo("search", "the", f"@{LONG}", "--no-subagents", "--turn", window)
    assert shown.code == searched.code == 1
    assert searched.stderr == shown.stderr
    assert "no such turn(s)" in searched.stderr and "DEFINITIVE" not in searched.stderr


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


# -- item 8: show with no address names the transcript -----------------------------------------

def test_show_without_an_address_names_the_resolved_transcript(demo, demo_home: Path) -> None:
    result = demo("show", "@3f6c1e2a")
    assert result.code == 2
    path = demo_home / "projects" / "-home-ada-src-orbit" / f"{LONG}.jsonl"
    assert f"show needs an address for {path}:" in result.stderr
    assert "--line N|A..B, --uuid U, --turn N|A..B|-k" in result.stderr
    assert f"pysift show @{LONG} --turn -1" in result.stderr
    assert len(result.stderr.splitlines()) == 1


# -- item 9: an ExitPlanMode rejection points at the plan ---------------------------------------

PLAN = "/home/ada/.claude/plans/quiet-orbiting-lovelace.md"
SAID = "Too much at once. Drop the disk cache"


def test_an_exit_plan_mode_rejection_renders_its_plan_pointer(demo) -> None:
    """csift §4.2.4: the typed instruction, then `[plan: <path>]`, in show and search."""
    shown = demo("show", f"@{LONG}", "--line", "83", "--format", "json")
    assert shown.json_rows("record")[0]["text"].endswith(f" [plan: {PLAN}]")
    found = demo("search", SAID, f"@{LONG}", "-t", "user.rejection", "--format", "json")
    (hit,) = [h for ex in found.json_rows("exchange") for h in ex["hits"]]
    assert hit["excerpt"].startswith(SAID) and hit["excerpt"].endswith(f"[plan: {PLAN}]")


def test_the_plan_pointer_is_searchable_though_its_line_lacks_the_path(demo) -> None:
    """The path stands on the ExitPlanMode call's line, not the rejection's: the
    prefilter must still make the rejection a candidate (it answered DEFINITIVE absence)."""
    found = demo("search", "ada/.claude/plans", f"@{LONG}", "-t", "user.rejection", "-c")
    assert found.code == 0 and found.stdout == "1\n"


def test_the_pointer_falls_back_to_the_plan_mode_attachment(cli, tmp_path: Path) -> None:
    """An ExitPlanMode call without planFilePath (older builds): the newest plan_mode
    attachment before it names the plan; a rejection of another tool has no pointer."""
    from builders import (
        ClaudeHome,
        Session,
        assistant,
        attachment,
        rejection,
        tool_use,
        user,
    )

    home = ClaudeHome(tmp_path / "claude")
    sid = "21212121-0003-4000-8000-000000000003"
    s = Session(sid, cwd="/w")
    s.add(user("plan the cache"))
    s.add(attachment("plan_mode", {"reminderType": "full", "isSubAgent": False,
                                   "planFilePath": "/w/.claude/plans/older.md",
                                   "planExists": True}))
    s.add(attachment("plan_mode", {"reminderType": "full", "isSubAgent": False,
                                   "planFilePath": "/w/.claude/plans/newer.md",
                                   "planExists": True}))
    s.add(assistant(tool_use("ExitPlanMode", {"plan": "# the plan"}, id="toolu_exit")))
    s.add(rejection("toolu_exit", "smaller please"))
    s.add(assistant(tool_use("Bash", {"command": "rm -rf build"}, id="toolu_rm")))
    s.add(rejection("toolu_rm", "not that directory"))
    home.session("/w", sid, s)
    result = cli("--claude-home", str(home.root), "search", "", f"@{sid}", "-t",
                 "user.rejection", "--format", "json")
    excerpts = [h["excerpt"] for ex in result.json_rows("exchange") for h in ex["hits"]]
    assert excerpts == ["smaller please [plan: /w/.claude/plans/newer.md]",
                        "not that directory"]


# -- item 10: the documented pipe skips an id it cannot take under --no-subagents -------------

def test_the_pipe_skips_a_session_known_only_by_its_subagents(cli, demo_copy: Path) -> None:
    """`search -l` prints the id of a session whose own file is gone but whose subagents
    remain; `list --sessions-from - --no-subagents` then failed the whole pipe (exit 1)."""
    (demo_copy / "projects" / "-home-ada-src-orbit" / f"{LONG}.jsonl").unlink()
    owners = cli("--claude-home", str(demo_copy), "search", "epoch", "-l")
    assert LONG in owners.stdout.split()
    listed = cli("--claude-home", str(demo_copy), "list", "--sessions-from", "-",
                 "--no-subagents", "--format", "json", stdin=owners.stdout)
    assert listed.code == 0, listed.stderr
    ids = [r["session_id"] for r in listed.json_rows("session")]
    assert LONG not in ids and len(ids) == len(owners.stdout.split()) - 1
    assert (f"note: --sessions-from: session `{LONG}` has no transcript of its own"
            in listed.stderr)
    # a target naming it is still the error it was: one explicit ask, nothing to answer
    named = cli("--claude-home", str(demo_copy), "list", f"@{LONG}", "--no-subagents")
    assert named.code == 1 and "has no transcript of its own" in named.stderr


# -- item 11: list previews a session no human spoke in ---------------------------------------

def test_list_previews_inbound_messages_with_their_label_and_direction(cli, tmp_path: Path
                                                                       ) -> None:
    """A teammate lane and its task notification showed `first ◂ —` and `last ◂ —`."""
    from builders import ClaudeHome, Session, assistant, task_notification, teammate_message, text

    home = ClaudeHome(tmp_path / "claude")
    sid = "21212121-0004-4000-8000-000000000004"
    s = Session(sid, cwd="/w")
    s.add(teammate_message("team-lead", "please review the parser change"))
    s.add(assistant(text("on it")))
    s.add(task_notification("bg42", "completed", "Background command done",
                            tool_use_id="toolu_4"))
    s.add(assistant(text("done")))
    home.session("/w", sid, s)
    text_run = cli("--claude-home", str(home.root), "list")
    lines = text_run.stdout.splitlines()
    first = lines.index(next(x for x in lines if x.startswith("  first ◂")))
    assert lines[first + 1].strip().startswith(
        "agent.communication.inbox  team-lead ⇨ self  <teammate-message")
    last = lines.index(next(x for x in lines if x.startswith("  last ◂")))
    assert lines[last + 1].strip().startswith(
        "harness.notification.background-command  [background-command bg42 completed]")
    row = cli("--claude-home", str(home.root), "list", "--format", "json").json_rows(
        "session")[0]
    assert row["first_user"]["excerpt"].startswith("agent.communication.inbox  team-lead ⇨ self")


def test_a_human_message_still_wins_the_preview(demo) -> None:
    """The inbound fallback is for a session no human spoke in: a human message, wherever
    it stands, is the preview (trailing notifications would otherwise crowd it out)."""
    rows = demo("list", f"@{LONG}", "--no-subagents", "--format", "json").json_rows("session")
    row = rows[0]
    for key in ("first_user", "last_user"):
        assert not row[key]["excerpt"].startswith(("agent.", "harness."))


# -- item 12: stats spans in csift's compact form -----------------------------------------------

def test_stats_prints_the_span_as_csift_does(cli, tmp_path: Path) -> None:
    from builders import ClaudeHome, Session, assistant, text, user

    home = ClaudeHome(tmp_path / "claude")
    sid = "21212121-0005-4000-8000-000000000005"
    s = Session(sid, cwd="/w", step=65)
    s.add(user("start"))
    s.add(assistant(text("done")))
    home.session("/w", sid, s)
    out = cli("--claude-home", str(home.root), "stats").stdout
    assert out.rstrip().splitlines()[3].endswith("(1m05s)")


# -- item 13: show's continuation, search --raw's silence, the truncation caution ------------

def test_a_capped_show_continues_up_to_the_last_dropped_record(cli, tmp_path: Path) -> None:
    """Six records and a trailing cache line: csift continues `--line 3..6` (not `3..7`)."""
    from builders import ClaudeHome, Session, assistant, text, user

    home = ClaudeHome(tmp_path / "claude")
    sid = "21212121-0006-4000-8000-000000000006"
    s = Session(sid, cwd="/w")
    for i in range(3):
        s.add(user(f"question {i}"))
        s.add(assistant(text(f"answer {i}")))
    home.session("/w", sid, s, b'{"type":"last-prompt","lastPrompt":"question 2"}\n')
    result = cli("--claude-home", str(home.root), "show", f"@{sid}", "--line", "..",
                 "--max-count", "2", "--format", "json")
    assert result.summary()["refetch_remainder"] == f"pysift show @{sid} --line 3..6"


def test_search_raw_prints_nothing_on_stderr_when_all_is_well(demo) -> None:
    result = demo("search", "the", f"@{SHORT}", "--no-subagents", "-t", "user.message",
                  "--raw")
    assert result.code == 0 and result.stdout
    assert result.stderr == ""


def test_the_truncation_caution_names_line_and_uuid(demo) -> None:
    result = demo("search", "the", f"@{LONG}", "--max-count", "3")
    assert "read a record whole: pysift show @<id> --line <N> (or --uuid <U>)" in result.stdout


# -- item 14: the csift wording agents grep for --------------------------------------------------

@pytest.mark.parametrize(("argv", "words"), [
    (("search", ""), "empty pattern with no category/time/turn/session filter"),
    (("search", "x", "-t", "thinking"), "'thinking' is the pre-v0.5 flat spelling"),
    (("whoami", "@trap:badmarker"), "marker `badmarker` is malformed"),
    (("whoami", "@trap:CrimsonWillowFen1234"), "is malformed: its 4 digits"),
    (("plan", "--reverse", "/tmp/no-such-plan.md"), "is bound to no session in scope"),
])
def test_messages_keep_the_words_csift_quotes(demo, monkeypatch, argv, words) -> None:
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", LONG)
    assert words in " ".join(demo(*argv).stderr.split())


def test_the_no_session_id_guidance_names_mtime(demo) -> None:
    text = " ".join(demo("whoami").stderr.split())
    assert "mtime" in text and "will not guess" in text
    planned = " ".join(demo("plan").stderr.split())
    assert "most-recent-mtime" in planned
