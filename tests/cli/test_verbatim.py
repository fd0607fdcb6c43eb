"""``pysift verbatim`` through the real argv path: the reconstruction, its budget, the
banners, dedup, slicing for hooks, --out, bad input."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import orjson
import pytest

from builders import (
    DEFAULT_START,
    ClaudeHome,
    Session,
    assistant,
    auq_use,
    compact_boundary,
    compact_summary,
    elicitation_pending,
    image,
    teammate_message,
    to_line,
    tool_result,
    tool_use,
    torn,
    user,
    user_blocks,
)
from compacted import LONG_REPLY, SID, build
from pysift.core import classify
from pysift.core.text import one_line
from pysift.model.record import Record

UNIT = re.compile(r"^[▽△] L(\d+)  (USER|ASSISTANT)  \(")


@pytest.fixture
def home(tmp_path: Path) -> ClaudeHome:
    return build(tmp_path / "claude")[0]


def run(cli, home: ClaudeHome, *args: str):  # type: ignore[no-untyped-def]
    return cli("--claude-home", str(home.root), "verbatim", *args)


def transcript(home: ClaudeHome) -> Path:
    return home.projects / "-w-orbit" / f"{SID}.jsonl"


def quoted_text(path: Path, line: int, role: str) -> str:
    """What a unit on ``line`` must quote: the record's own words, one-lined."""
    raw = path.read_bytes().split(b"\n")[line - 1]
    rec = Record(orjson.loads(raw), line)
    if role == "assistant":
        assert rec.type == "assistant"
        return one_line("\n".join(b["text"] for b in rec.blocks() if b.get("type") == "text"))
    assert classify.opens_turn(rec, subagent=False)  # (a top-level session)
    return classify.opener_text(rec) or ""


def test_json_reconstruction_reaches_across_both_compactions(cli, home: ClaudeHome) -> None:
    result = run(cli, home, f"@{SID}", "--format", "json")
    assert result.code == 0, result.stderr
    header = result.header()
    assert header["command"] == "verbatim"
    assert (header["boundaries_total"], header["boundaries_spanned"]) == (2, 2)
    assert (header["selected_user"], header["selected_assistant"]) == (6, 6)
    assert header["chars_used"] <= header["budget_chars"] == 40000
    assert header["automation_by_kind"] == dict.fromkeys(
        ("agent", "background-command", "monitor", "task", "workflow"), 0)
    kinds = [(r["kind"], r.get("line")) for r in result.json_rows()[1:-1]]
    # banners sit where the forward walk crosses each compaction
    assert ("compaction_boundary", 13) in kinds and ("compaction_boundary", 21) in kinds
    assert kinds.index(("compaction_boundary", 13)) < kinds.index(("turn", 14))
    assert kinds.index(("turn", 11)) < kinds.index(("compaction_boundary", 13))
    turns = result.json_rows("turn")
    assert [(t["turn_index"], t["compactions_before"]) for t in turns if t["role"] == "user"] == [
        (0, 2), (1, 2), (2, 1), (3, 1), (4, 0), (5, 0)]
    for t in turns:
        assert t["text"] == quoted_text(transcript(home), t["line"], t["role"])
        assert t["session_id"] == t["parent_session_id"] == SID and not t["is_subagent"]
    tools = {t["turn_index"]: t["tool_calls"] for t in turns}
    assert tools[0] == 1 and tools[1] == 2
    paste = next(t for t in turns if t["line"] == 18)
    assert paste["truncated"] and paste["rendered_chars"] == 600
    assert paste["elided_chars"] == paste["full_chars"] - 600 and paste["elided_lines"] > 0
    [dup] = [t for t in turns if t["also_in_summary"]]
    assert dup["line"] == 22
    [collapsed] = result.json_rows("collapsed_agents")
    assert (collapsed["first_line"], collapsed["last_line"]) == (2, 2)
    assert collapsed["refetch"] == f"pysift show @{SID} --line 2"
    assert result.summary() == {"kind": "summary", "skipped_lines": 0, "unreadable": 0}


def test_text_layout(cli, home: ClaudeHome) -> None:
    result = run(cli, home, f"@{SID}")
    assert result.code == 0, result.stderr
    lines = result.stdout.split("\n")
    assert lines[0] == f"SESSION {SID}"
    assert lines[1] == ("  budget 40000 chars · round-trip-fraction 0.50 · spanned 2 of 2 "
                        "compaction boundaries in scope")
    assert re.fullmatch(r"  selected 6 user \+ 6 assistant units across 6 turns · \d+ / 40000 "
                        r"chars used", lines[2])
    assert lines[3] == "  dedup: 1 units also present in summary L21 (demoted, flagged)"
    assert lines[4] == "  " + "─" * 60
    assert "══ compaction boundary · summary at L13 ══" in lines
    assert "△ L2  [1 agent message, 0 tool calls]" in lines
    assert "  [2 tool calls]" in lines
    assert any(line.endswith("   (also in summary)") and "L22" in line for line in lines)
    assert any(" … [+" in line and " lines elided] … " in line for line in lines)
    assert result.stderr == ""


def test_every_printed_line_number_points_at_the_record_it_quotes(cli, home: ClaudeHome) -> None:
    lines = run(cli, home, f"@{SID}").stdout.split("\n")
    checked = 0
    for header, body in zip(lines, lines[1:], strict=False):
        m = UNIT.match(header)
        if not m:
            continue
        quoted = quoted_text(transcript(home), int(m.group(1)), m.group(2).lower())
        if " … [+" in body:
            head, _, tail = body.partition(" … [+")
            tail = tail.split("] … ", 1)[1]
            assert quoted.startswith(head) and quoted.endswith(tail)
        else:
            assert body == quoted
        checked += 1
    assert checked == 12


@pytest.mark.parametrize("budget", [400, 700, 1000, 1500, 2200, 3000, 5000])
def test_the_text_stays_within_the_budget(cli, home: ClaudeHome, budget: int) -> None:
    result = run(cli, home, f"@{SID}", "--budget", str(budget))
    assert result.code == 0, result.stderr
    assert len(result.stdout) <= budget
    js = run(cli, home, f"@{SID}", "--budget", str(budget), "--format", "json")
    header = js.header()
    if header["sessions_rendered"]:
        assert len(result.stdout) <= header["chars_used"] <= budget


def test_a_small_budget_spends_the_floor_on_round_trips_first(cli, home: ClaudeHome) -> None:
    result = run(cli, home, f"@{SID}", "--budget", "1200", "--format", "json")
    turns = result.json_rows("turn")
    users = [t["turn_index"] for t in turns if t["role"] == "user"]
    assistants = [t["turn_index"] for t in turns if t["role"] == "assistant"]
    assert 5 in users and 5 in assistants  # the newest complete round trip
    # the demoted duplicate (t4) comes after every other candidate of its phase
    assert result.header()["boundaries_spanned"] <= 2


def test_too_small_a_budget_says_what_it_needs(cli, home: ClaudeHome) -> None:
    result = run(cli, home, f"@{SID}", "--budget", "50")
    assert result.code == 0
    assert result.stdout.startswith("scope  1 session in scope (1 top-level + 0 subagent) · 0 "
                                    "rendered within budget")
    assert f"SESSION {SID}  skipped — its first round-trip needs ≥ " in result.stdout
    assert "raise --budget (now 50)" in result.stdout


def test_max_compactions_caps_the_reach(cli, home: ClaudeHome) -> None:
    result = run(cli, home, f"@{SID}", "--max-compactions", "1", "--format", "json")
    turns = result.json_rows("turn")
    assert max(t["compactions_before"] for t in turns) == 1
    assert result.header()["boundaries_spanned"] == 1


def test_agent_msgs_modes(cli, home: ClaudeHome) -> None:
    eot = run(cli, home, f"@{SID}", "--agent-msgs", "eot-only", "--format", "json")
    assert not eot.json_rows("collapsed_agents")
    every = run(cli, home, f"@{SID}", "--agent-msgs", "all", "--format", "json")
    assert 2 in [t["line"] for t in every.json_rows("turn")]
    heavy = run(cli, home, f"@{SID}", "--profile", "heavy")
    assert heavy.code == 0


def test_turn_and_time_windows(cli, home: ClaudeHome) -> None:
    result = run(cli, home, f"@{SID}", "--turn", "-2..", "--format", "json")
    assert {t["turn_index"] for t in result.json_rows("turn")} == {4, 5}
    early = run(cli, home, f"@{SID}", "--until", "2026-10-05T09:05:00Z", "--format", "json")
    assert {t["turn_index"] for t in early.json_rows("turn")} == {0, 1}
    none = run(cli, home, f"@{SID}", "--turn", "40")
    assert "no turns selected" in none.stdout
    assert "the window (--turn/--since/--until) admits none of its 6 turn(s)" in none.stderr


def test_no_compaction_is_said_on_stderr(cli, tmp_path: Path) -> None:
    h = ClaudeHome(tmp_path / "c")
    s = Session("11111111-1111-4111-8111-111111111111", cwd="/w/p")
    s.add(user("hello"))
    s.add(assistant("hi"))
    h.session("/w/p", s.session_id, s)
    result = cli("--claude-home", str(h.root), "verbatim", f"@{s.session_id}")
    assert result.code == 0
    assert "has no compaction — nothing was clipped; for plain reading use `pysift show " \
           f"@{s.session_id} --turn <N|A..B|-k..>`" in result.stderr
    assert "▽ L1  USER" in result.stdout
    sliced = cli("--claude-home", str(h.root), "verbatim", f"@{s.session_id}", "--slice", "1")
    assert sliced.stderr == "" and sliced.stdout.startswith("▽ L1  USER")


def _torn_summary_home(tmp_path: Path, framed: bool = False) -> tuple[ClaudeHome, str]:
    h = ClaudeHome(tmp_path / "c")
    s = Session("22222222-2222-4222-8222-222222222222", cwd="/w/p")
    s.add(user("before the compaction"))
    s.add(assistant("noted"))
    boundary = s.stamp(compact_boundary(100000))
    summary = s.stamp(compact_summary("Summary:\n- \"before the compaction\""))
    s.records.append(boundary)
    s.add(user("after it"))
    s.add(assistant("ok"))
    lines = [to_line(r) for r in s.records]
    broken = (to_line(summary).replace(b'"message":{', b'"message":{{', 1) if framed
              else torn(summary) + b"\n")  # invalid inside its braces, or cut mid-write
    lines.insert(3, broken)
    path = h.project_dir("/w/p") / f"{s.session_id}.jsonl"
    h.raw_lines(path, lines)
    return h, s.session_id


@pytest.mark.parametrize("framed", [False, True], ids=["torn", "malformed"])
def test_a_torn_summary_keeps_its_boundary(cli, tmp_path: Path, framed: bool) -> None:
    h, sid = _torn_summary_home(tmp_path, framed)
    result = cli("--claude-home", str(h.root), "verbatim", f"@{sid}", "--format", "json")
    assert result.code == 0, result.stderr
    header = result.header()
    assert (header["boundaries_total"], header["boundaries_spanned"]) == (1, 1)
    [boundary] = result.json_rows("compaction_boundary")
    assert (boundary["line"], boundary["summary_chars"]) == (3, 0)
    assert result.summary()["skipped_lines"] == 1
    assert "the summary of the compaction at L3 could not be read" in result.stderr
    text = cli("--claude-home", str(h.root), "verbatim", f"@{sid}")
    assert "══ compaction boundary at L3 · summary unreadable ══" in text.stdout
    assert "spanned 1 of 1 compaction boundaries" in text.stdout
    assert text.stdout.endswith("(1 malformed line(s) skipped)\n")


@pytest.mark.parametrize("flags", [("--slice", "1"), ("--slices", "2"),
                                   ("--slices", "2", "--slice", "2")])
def test_a_slice_names_the_malformed_lines_on_stderr(cli, tmp_path: Path, flags) -> None:  # type: ignore[no-untyped-def]
    # a chunk carries no chrome, so the trailer `(1 malformed line(s) skipped)` the
    # text prints had nowhere to go: a sliced run said nothing of the torn line
    h, sid = _torn_summary_home(tmp_path)
    result = cli("--claude-home", str(h.root), "verbatim", f"@{sid}", *flags)
    assert result.code == 0 and "malformed" not in result.stdout  # (slice 2: empty)
    assert f"note: @{sid}: 1 malformed line(s) skipped" in result.stderr


def test_a_boundary_without_its_summary_and_a_summary_without_its_boundary(
        cli, tmp_path: Path) -> None:
    h = ClaudeHome(tmp_path / "c")
    s = Session("33333333-3333-4333-8333-333333333333", cwd="/w/p")
    s.add(user("one"))
    s.add(assistant("a"))
    s.add(compact_boundary(1000))          # its summary never landed
    s.add(user("two"))
    s.add(assistant("b"))
    s.add(compact_summary("old style"))    # no boundary record before it
    s.add(user("three"))
    s.add(assistant("c"))
    h.session("/w/p", s.session_id, s)
    result = cli("--claude-home", str(h.root), "verbatim", f"@{s.session_id}", "--format",
                 "json")
    assert result.header()["boundaries_total"] == 2
    assert [(b["line"], b["summary_chars"]) for b in result.json_rows("compaction_boundary")] == [
        (3, 0), (6, len("This session is being continued from a previous conversation that "
                        "ran out of context. The summary below covers the earlier portion of "
                        "the conversation.\n\nold style"))]


def test_a_banner_stands_where_a_turn_straddles_its_compaction(cli, tmp_path: Path) -> None:
    """A turn can cross a compaction (its prompt before, its last reply after): the banner
    goes between its units, never above a prompt that predates it."""
    h = ClaudeHome(tmp_path / "c")
    s = Session("55555555-5555-4555-8555-555555555555", cwd="/w/p")
    s.add(user("one long task"))
    s.add(assistant("found the first half of it: `a.py:3`"))
    s.add(compact_boundary(1000))
    s.add(compact_summary("s"))
    s.add(assistant("found the second half: `b.py:9`"))
    h.session("/w/p", s.session_id, s)
    lines = cli("--claude-home", str(h.root), "verbatim", f"@{s.session_id}").stdout.split("\n")
    body = [x for x in lines if x.startswith(("▽", "△", "══"))]
    assert [x.split("  ")[0] for x in body] == ["▽ L1", "△ L2", "══ compaction boundary · "
                                                "summary at L4 ══", "△ L5"]
    result = cli("--claude-home", str(h.root), "verbatim", f"@{s.session_id}", "--format",
                 "json")
    assert result.header()["boundaries_spanned"] == 1
    assert [(r["kind"], r.get("line"), r.get("compactions_before"))
            for r in result.json_rows()[1:-1]] == [
        ("turn", 1, 1), ("turn", 2, 1), ("compaction_boundary", 4, None), ("turn", 5, 0)]


def test_a_compaction_after_everything_printed_is_bannered_last(cli, tmp_path: Path) -> None:
    h = ClaudeHome(tmp_path / "c")
    s = Session("66666666-6666-4666-8666-666666666666", cwd="/w/p")
    s.add(user("last words"))
    s.add(assistant("noted"))
    s.add(compact_boundary(1000))
    s.add(compact_summary("s"))
    h.session("/w/p", s.session_id, s)
    result = cli("--claude-home", str(h.root), "verbatim", f"@{s.session_id}")
    assert result.stdout.endswith("△ L2  ASSISTANT  (2026-10-05 20:00:05 AEDT(UTC+11))\n"
                                  "noted\n══ compaction boundary · summary at L4 ══\n")
    assert "spanned 1 of 1" in result.stdout


def test_turn_zero_prints_its_leading_records_first(cli, tmp_path: Path) -> None:
    h = ClaudeHome(tmp_path / "c")
    s = Session("77777777-7777-4777-8777-777777777777", cwd="/w/p")
    s.add(assistant("resuming: the migration is at step 3 of 5"))
    s.add(user("go on"))
    s.add(assistant("done: 5 of 5"))
    h.session("/w/p", s.session_id, s)
    result = cli("--claude-home", str(h.root), "verbatim", f"@{s.session_id}",
                 "--agent-msgs", "all")
    units = [x.split("  ")[0] for x in result.stdout.split("\n") if x.startswith(("▽", "△"))]
    assert units == ["△ L1", "▽ L2", "△ L3"]


def test_units_show_the_image_ids_of_their_records(cli, tmp_path: Path) -> None:
    h = ClaudeHome(tmp_path / "c")
    s = Session("88888888-8888-4888-8888-888888888888", cwd="/w/p")
    s.add(user_blocks(image(), image(), "[Image #3] [Image #4] why is the plot empty?"))
    s.add(assistant("the axis range excludes the data"))
    s.add(compact_boundary(1000))
    s.add(compact_summary("s"))
    s.add(user_blocks(image(), "and this one?"))  # no marker: the locator
    s.add(assistant("same cause"))
    h.session("/w/p", s.session_id, s)
    result = cli("--claude-home", str(h.root), "verbatim", f"@{s.session_id}", "--format",
                 "json")
    ids = {t["line"]: t["image_ids"] for t in result.json_rows("turn")}
    assert ids == {1: ["#3", "#4"], 2: [], 5: ["L5i1"], 6: []}
    text = cli("--claude-home", str(h.root), "verbatim", f"@{s.session_id}").stdout
    assert "why is the plot empty?\n  [2 images: #3, #4]\n" in text
    assert "and this one?\n  [1 image: L5i1]\n" in text


def test_peer_message_and_sidecar_units(cli, tmp_path: Path) -> None:
    h = ClaudeHome(tmp_path / "c")
    s = Session("44444444-4444-4444-8444-444444444444", cwd="/w/p")
    s.add(user("start"))
    s.add(assistant("ok"))
    s.add(compact_boundary(1000))
    s.add(compact_summary("s"))
    s.add(teammate_message("lead", "please rebase on main"))
    s.add(assistant("rebased"))
    path = h.session("/w/p", s.session_id, s)
    question = s.stamp(assistant(auq_use([{"question": "Ship it?", "header": "ship",
                                           "options": [{"label": "yes"}, {"label": "no"}]}],
                                         id="toolu_q")), commit=False)
    h.sidecar(path, [elicitation_pending(question, "toolu_q")])
    result = cli("--claude-home", str(h.root), "verbatim", f"@{s.session_id}", "--format",
                 "json")
    assert result.code == 0, result.stderr
    turns = result.json_rows("turn")
    [peer] = [t for t in turns if t.get("is_inbound_comm")]
    assert (peer["comm_label"], peer["comm_from"], peer["comm_to"]) == (
        "agent.communication.inbox", "lead", "self")
    assert peer["text"] == "please rebase on main"
    [pending] = [t for t in turns if t["source"] == "elicitation-sidecar"]
    assert pending["line"] is None and "Ship it?" in pending["text"]
    assert result.header()["with_elicitation_sidecar"] is True
    text = cli("--claude-home", str(h.root), "verbatim", f"@{s.session_id}").stdout
    assert "▽ L5  agent.communication.inbox  lead ⇨ self  (" in text
    assert "▽ (elicitation sidecar)  USER  (" in text
    assert "  with elicitation sidecar\n" in text


def test_pending_elicitations_are_numbered_in_the_latest_turn(cli, tmp_path: Path) -> None:
    """Two questions are pending in the elicitation sidecar. search and show place them
    in the latest turn (t1, "read the turn numbers off pysift search"); verbatim
    numbered them t2 and t3, turns no other command has: ``--turn -1`` printed the
    second question alone (not the turn it stands in, nor the first question) and the
    JSON named turns ``show --turn`` refuses. They stay units of their own after the
    native turns, numbered t1."""
    h = ClaudeHome(tmp_path / "c")
    s = Session("44444444-4444-4444-8444-444444444445", cwd="/w/p")
    s.add(user("start"))
    s.add(assistant("ok"))
    s.add(user("second"))
    s.add(assistant("rebased"))
    path = h.session("/w/p", s.session_id, s)
    asks = [s.stamp(assistant(auq_use([{"question": q, "header": "h", "options": [
        {"label": "yes"}, {"label": "no"}]}], id=f"toolu_{k}")), commit=False)
        for k, q in enumerate(("Ship it?", "Merge it?"))]
    h.sidecar(path, [elicitation_pending(a, f"toolu_{k}") for k, a in enumerate(asks)])
    found = cli("--claude-home", str(h.root), "search", "Ship it", f"@{s.session_id}")
    assert f"{s.session_id[:8]}·t1" in found.stdout
    rows = run(cli, h, f"@{s.session_id}", "--format", "json").json_rows("turn")
    assert [(r["turn_index"], r["source"]) for r in rows] == [
        (0, None), (0, None), (1, None), (1, None), (1, "elicitation-sidecar"),
        (1, "elicitation-sidecar")]
    last = run(cli, h, f"@{s.session_id}", "--turn", "-1").stdout
    assert all(words in last for words in ("second", "rebased", "Ship it?", "Merge it?"))
    assert "start" not in last
    first = run(cli, h, f"@{s.session_id}", "--turn", "0").stdout
    assert "start" in first and "Ship it?" not in first
    assert cli("--claude-home", str(h.root), "show", f"@{s.session_id}", "--turn",
               "1").code == 0


def test_subagents_only_when_asked(cli, home: ClaudeHome) -> None:
    h = home
    h.subagent(transcript(h), "a1b2c3d4e5f60718", user("audit"), assistant("audited"))
    alone = run(cli, h, f"@{SID}", "--format", "json")
    assert alone.header()["sessions_in_scope"] == 1
    both = run(cli, h, f"@{SID}", "--subagents")
    assert both.stdout.startswith("scope  2 sessions in scope (1 top-level + 1 subagent) · 2 "
                                  "rendered within budget · budget 40000 chars is PER session "
                                  "→ up to 80000 chars total\n\n")
    assert "SUBAGENT a1b2c3d4e5f60718  ·  parent SESSION " in both.stdout


# -- slicing for hooks ------------------------------------------------------------------------


def test_out_expands_a_quoted_tilde(cli, home: ClaudeHome, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    me, here = tmp_path / "me", tmp_path / "here"
    me.mkdir()
    here.mkdir()
    monkeypatch.setenv("HOME", str(me))
    monkeypatch.chdir(here)
    written = run(cli, home, f"@{SID}", "--out=~/doc.md")
    assert written.code == 0, written.stderr
    assert (me / "doc.md").read_text().startswith("▽ L1  USER")
    assert not (here / "~").exists()


def test_slices_join_to_the_out_document(cli, home: ClaudeHome, tmp_path: Path) -> None:
    out = tmp_path / "doc.md"
    written = run(cli, home, f"@{SID}", "--out", str(out))
    assert written.code == 0, written.stderr
    doc = out.read_text()
    assert f"(wrote full reconstruction to {out})" in written.stdout
    assert "▽ L1  USER" not in written.stdout  # stdout keeps the header block only
    assert doc.startswith("▽ L1  USER") and "SESSION" not in doc
    pieces = []
    for n in range(1, 30):
        piece = run(cli, home, f"@{SID}", "--window", "700", "--slice", str(n))
        assert piece.code == 0
        assert len(piece.stdout) <= 700
        if not piece.stdout:
            break
        pieces.append(piece.stdout)
    assert len(pieces) > 3
    assert "".join(pieces) == doc
    assert run(cli, home, f"@{SID}", "--window", "700", "--slice", "999").stdout == ""


@pytest.mark.parametrize("flags", [("--slice", "1"), ("--slices", "2")])
def test_a_document_of_several_transcripts_names_each_one(cli, home: ClaudeHome,  # type: ignore[no-untyped-def]
                                                          flags) -> None:
    # the units of a session and of its subagent (or of a project's sessions) printed
    # one after the other with nothing between them: L1 of the subagent read as a line
    # of the session
    home.subagent(transcript(home), "a1b2c3d4e5f60718", user("audit"), assistant("audited"))
    doc = "\n" + run(cli, home, f"@{SID}", "--subagents", *flags).stdout
    assert f"\nSESSION {SID}\n▽ L" in doc  # (the fleet: the session with the newest
    assert (f"\nSUBAGENT a1b2c3d4e5f60718  ·  parent SESSION {SID}  (subagent transcript)\n"
            "▽ L1  USER  (") in doc              # turn last, here the main one)
    assert doc.count("SESSION ") == 2 and doc.index("\nS") == 0
    alone = run(cli, home, f"@{SID}", *flags).stdout  # one transcript: no title, as before
    assert alone.startswith("▽ L1  USER") and "SESSION" not in alone


def test_fixed_fleet_never_grows_and_keeps_whole_turns(cli, home: ClaudeHome) -> None:
    for k, window in ((1, 400), (2, 600), (4, 9000)):
        pieces = [run(cli, home, f"@{SID}", "--window", str(window), "--slices", str(k),
                      "--slice", str(n)).stdout for n in range(1, k + 2)]
        assert pieces[-1] == ""  # slice K+1: nothing
        assert all(len(p) <= window for p in pieces)
        whole = run(cli, home, f"@{SID}", "--window", str(window), "--slices", str(k)).stdout
        assert "".join(pieces) == whole
        assert whole.startswith(("▽ ", "△ "))  # a turn's first line, not a cut one
    big = run(cli, home, f"@{SID}", "--window", "9000", "--slices", "4").stdout
    assert LONG_REPLY.strip() in big  # bodies stay whole up to a window
    assert "L1  USER" in big


@pytest.mark.parametrize("flags,why", [
    (("--slices", "2", "--slice", "3"),
     "--slice 3 printed nothing: it is past the fleet of --slices 2 (slices are 1..K)"),
    (("--slices", "4", "--slice", "4"),
     "--slice 4 printed nothing: the fleet's turns fill 1 of its 4 slices (slice 1 the "
     "oldest)"),
    (("--slice", "99"), "--slice 99 printed nothing: the document has 1 slice(s) of "
                        "--window 10000"),
    (("--since", "2099-01-01", "--slice", "1"), "--slice 1 printed nothing: the document "
                                                "is empty"),
    (("--since", "2099-01-01", "--slices", "2"), "nothing printed: the fleet holds no turn"),
])
def test_a_slice_that_prints_nothing_says_why_on_stderr(cli, home: ClaudeHome,  # type: ignore[no-untyped-def]
                                                        flags, why) -> None:
    # a hook's empty stdout looked the same for a slice past the end, a --slice N
    # above --slices K and a fleet that held nothing
    result = run(cli, home, f"@{SID}", *flags)
    assert (result.code, result.stdout) == (0, "")
    assert f"pysift: note: {why}\n" in result.stderr


def test_a_fleet_holding_none_of_a_session_names_the_window_its_newest_turn_takes(
        cli, tmp_path: Path) -> None:
    # two 400-character bodies fit no 200-character window, even cut to 60: the note
    # said "2 older turn(s) did not fit", though nothing newer was kept
    h = ClaudeHome(tmp_path / "wide")
    s = Session("99999999-0000-4000-8000-000000000005", cwd="/w/g")
    s.add(user("short one"))
    s.add(assistant("short answer"))
    s.add(user("please explain the whole retry policy: "
               + "why each backoff step doubles and where the jitter comes from. " * 6))
    s.add(assistant("The retry policy: "
                    + "each step doubles the wait, capped at 30 s, with full jitter. " * 6))
    h.session("/w/g", s.session_id, s)
    base = ("--claude-home", str(h.root), "verbatim", f"@{s.session_id}", "--slices", "1")
    narrow = cli(*base, "--window", "200")
    assert (narrow.code, narrow.stdout) == (0, "")
    found = re.search(r"--slices 1 × --window 200 hold none of its 2 turns \(L1–L4\): the "
                      r"newest alone takes (\d+) characters \(--window \1 holds it whole\)\n",
                      narrow.stderr)
    assert found is not None, narrow.stderr
    need = found.group(1)
    held = cli(*base, "--window", need)
    assert len(held.stdout) == int(need) and " … [+" not in held.stdout
    assert [u for u, _ in _fleet_units(held.stdout)] == [3, 4]


def test_a_session_the_budget_skips_is_named_under_slice(cli, tmp_path: Path) -> None:
    # the text view names a session whose first round trip the budget cannot hold; a
    # --slice chunk has no header, so the session was silently absent from the chunks
    h = ClaudeHome(tmp_path / "two")
    short = Session("12121212-0000-4000-8000-000000000001", cwd="/w/p")
    short.add(user("ship it?"))
    short.add(assistant("shipped."))
    wide = Session("34343434-0000-4000-8000-000000000002", cwd="/w/p")
    wide.add(user("review this: " + "the cache key drops the tenant id. " * 60))
    wide.add(assistant("reviewed: " + "add the tenant id to the key. " * 60))
    for s in (short, wide):
        h.session("/w/p", s.session_id, s)
    base = ("--claude-home", str(h.root), "verbatim", "/w/p", "--budget", "700")
    text = cli(*base)
    found = re.search(rf"\nSESSION {wide.session_id}  skipped — its first round-trip needs "
                      r"≥ (\d+) chars; raise --budget \(now 700\)\n", text.stdout)
    assert found is not None, text.stdout
    sliced = cli(*base, "--slice", "1")
    assert sliced.code == 0 and "shipped." in sliced.stdout
    assert wide.session_id not in sliced.stdout
    assert (f"pysift: note: @{wide.session_id}: skipped — its first round-trip needs ≥ "
            f"{found.group(1)} chars; raise --budget (now 700)\n") in sliced.stderr


def test_what_the_budget_leaves_out_of_a_slice_is_said(cli, home: ClaudeHome) -> None:
    # the text view's header counts what --budget holds; a --slice chunk has none, and
    # the turns the budget did not reach were absent from the chunks without a word
    small = run(cli, home, f"@{SID}", "--budget", "600", "--slice", "1")
    assert small.code == 0
    assert _fleet_units(small.stdout) == [(14, "USER"), (24, "USER"), (25, "ASSISTANT")]
    assert (f"pysift: note: @{SID}: --budget 600 prints 1 of its 6 turns and one side of 1 "
            "more; 4 did not fit and are left out\n") in small.stderr
    whole = run(cli, home, f"@{SID}", "--budget", "100000000", "--slice", "1")
    assert whole.code == 0 and "--budget" not in whole.stderr


def _fleet_home(tmp_path: Path, reply: int = 1200) -> tuple[ClaudeHome, str]:
    """Eight short questions, each answered at length: a fleet of two 2000-character
    windows holds only the newest few whole turns."""
    h = ClaudeHome(tmp_path / "fleet")
    s = Session("66666666-6666-4666-8666-666666666666", cwd="/w/p")
    for i in range(8):
        s.add(user(f"question {i}: why does step {i} fail?"))
        s.add(assistant(f"answer {i}: " + f"step {i} reads the stale cache. " * (reply // 30)))
    h.session("/w/p", s.session_id, s)
    return h, s.session_id


def _fleet_units(text: str) -> list[tuple[int, str]]:
    return [(int(m.group(1)), m.group(2)) for x in text.split("\n") if (m := UNIT.match(x))]


def test_fixed_fleet_keeps_whole_turns_newest_first_and_names_the_rest(cli,
                                                                       tmp_path: Path) -> None:
    """csift §6.8: the K newest-first slices are filled with WHOLE turns and the oldest
    overflow is discarded: no question without its answer, no turn skipped, every slice
    opening on a turn, and what was left out said on stderr (the slices carry no
    chrome)."""
    h, sid = _fleet_home(tmp_path)
    args = ("--claude-home", str(h.root), "verbatim", f"@{sid}", "--window", "2000",
            "--slices", "2")
    whole = cli(*args)
    assert whole.code == 0, whole.stderr
    units = _fleet_units(whole.stdout)
    # every question comes with its answer (the session's line n is question n // 2)
    assert units and len(units) % 2 == 0
    for (q, qrole), (a, arole) in zip(units[::2], units[1::2], strict=True):
        assert (qrole, arole, a) == ("USER", "ASSISTANT", q + 1)
    kept = len(units) // 2
    assert 0 < kept < 8
    assert [q for q, _ in units[::2]] == [2 * i + 1 for i in range(8 - kept, 8)]  # newest
    pieces = [cli(*args, "--slice", str(n)).stdout for n in (1, 2, 3)]
    assert pieces[2] == "" and "".join(pieces) == whole.stdout
    for piece in pieces[:2]:
        assert 0 < len(piece) <= 2000
        assert piece.startswith("▽ ") and piece.count("▽ ") == piece.count("△ ")
    first = units[0][0]
    assert (f"--slices 2 × --window 2000 hold the newest {kept} of its 8 turns; {8 - kept} "
            f"older turn(s) (L1–L{first - 1}) did not fit and are left out") in whole.stderr


def test_fixed_fleet_ellipsizes_a_turn_only_when_it_alone_exceeds_a_window(cli,
                                                                          tmp_path: Path) -> None:
    """The role caps are dropped (a 1200-character answer prints whole); a turn longer
    than one window is cut to fit one, prompt and answer in the same slice."""
    h, sid = _fleet_home(tmp_path, reply=5000)
    args = ("--claude-home", str(h.root), "verbatim", f"@{sid}", "--window", "2000",
            "--slices", "2")
    pieces = [cli(*args, "--slice", str(n)).stdout for n in (1, 2)]
    for n, piece in zip((6, 7), pieces, strict=True):
        assert 0 < len(piece) <= 2000
        assert _fleet_units(piece) == [(2 * n + 1, "USER"), (2 * n + 2, "ASSISTANT")]
        assert re.search(r" … \[\+\d+ chars\] … ", piece)
    h2, sid2 = _fleet_home(tmp_path / "short")
    short = cli("--claude-home", str(h2.root), "verbatim", f"@{sid2}", "--window", "2000",
                "--slices", "2").stdout
    assert " … [+" not in short and "step 7 reads the stale cache. " * 39 in short


def test_json_rows_follow_the_text_order_in_turn_zero(cli, tmp_path: Path) -> None:
    """Turn 0's records before its opener print first in the text; the JSON rows list
    them in the same (ascending line) order."""
    h = ClaudeHome(tmp_path / "c")
    s = Session("77777777-7777-4777-8777-777777777777", cwd="/w/p")
    s.add(assistant("resuming: the migration is at step 3 of 5"))
    s.add(user("go on"))
    s.add(assistant(tool_use("Bash", {"command": "migrate 4"}, id="toolu_m4")))
    s.add(tool_result("toolu_m4", "ok"))
    s.add(assistant("step 4 ran"))
    s.add(assistant(tool_use("Bash", {"command": "migrate 5"}, id="toolu_m5")))
    s.add(tool_result("toolu_m5", "ok"))
    s.add(assistant("done: 5 of 5"))
    h.session("/w/p", s.session_id, s)
    base = ("--claude-home", str(h.root), "verbatim", f"@{s.session_id}")
    for mode in ("longest", "all", "eot-only"):
        text = cli(*base, "--agent-msgs", mode).stdout
        printed = [int(m.group(1)) for x in text.split("\n")
                   if (m := re.match(r"^[▽△] L(\d+)", x))]
        rows = cli(*base, "--agent-msgs", mode, "--format", "json").json_rows()
        listed = [r["line"] if r["kind"] == "turn" else r["first_line"] for r in rows
                  if r["kind"] in ("turn", "collapsed_agents")]
        assert listed == printed == sorted(printed), mode
        if mode != "eot-only":  # turn 0's first message printed before its opener
            assert printed[:2] == [1, 2], mode


def test_out_refuses_to_overwrite_or_write_into_the_home(cli, home: ClaudeHome,
                                                         tmp_path: Path) -> None:
    out = tmp_path / "exists.md"
    out.write_text("keep me")
    refused = run(cli, home, f"@{SID}", "--out", str(out))
    assert refused.code == 2 and out.read_text() == "keep me"
    assert "already exists; pass --force" in refused.stderr
    forced = run(cli, home, f"@{SID}", "--out", str(out), "--force")
    assert forced.code == 0 and out.read_text().startswith("▽ L1")
    inside = run(cli, home, f"@{SID}", "--out", str(home.root / "x.md"))
    assert inside.code == 2 and "inside the Claude home" in inside.stderr
    assert not (home.root / "x.md").exists()


# -- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize("args,needle", [
    ((), "name a target"),
    ((f"@{SID}", "--slice", "0"), "--slice must be 1 or more"),
    ((f"@{SID}", "--slice", "x"), "--slice must be 1 or more"),
    ((f"@{SID}", "--window", "0"), "--window must be at least 200 characters"),
    ((f"@{SID}", "--window", "-5", "--slice", "1"), "--window must be at least 200"),
    ((f"@{SID}", "--slices", "0"), "--slices must be 1 or more"),
    ((f"@{SID}", "--slice", "1", "--out", "/tmp/x.md"), "use one of them"),
    ((f"@{SID}", "--slice", "1", "--format", "json"), "drop --format json"),
    ((f"@{SID}", "--slices", "2", "--format", "json"), "drop --format json"),
    ((f"@{SID}", "--budget", "0"), "--budget must be a positive whole number"),
    ((f"@{SID}", "--budget", "-100"), "--budget must be a positive whole number"),
    ((f"@{SID}", "--budget", "12k"), "--budget must be a positive whole number"),
    ((f"@{SID}", "--budget", "1.5"), "--budget must be a positive whole number"),
    ((f"@{SID}", "--agent-msgs", "longer"), "--agent-msgs `longer` is not a mode"),
    ((f"@{SID}", "--profile", "medium"), "--profile `medium` is not a profile"),
    ((f"@{SID}", "--round-trip-fraction", "1"), "strictly between 0 and 1"),
    ((f"@{SID}", "--round-trip-fraction", "abc"), "strictly between 0 and 1"),
    ((f"@{SID}", "--max-compactions", "-1"), "--max-compactions must be a whole number"),
    ((f"@{SID}", "--force"), "--force only says that --out"),
    ((f"@{SID}", "--fold-index", "--budget", "100"), "--fold-index prints the whole index"),
    ((f"@{SID}", "--fold-index", "--slice", "1"), "drop --slice"),
    ((f"@{SID}", "--fold-index", "--format", "json"), "with no envelope; drop --format json"),
])
def test_bad_input_is_one_line_and_exit_2(cli, home: ClaudeHome, args: tuple[str, ...],
                                          needle: str) -> None:
    result = run(cli, home, *args)
    assert result.code == 2, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("pysift: error: ")
    assert needle in result.stderr


@pytest.mark.parametrize("window", ["1", "10", "50", "199"])
@pytest.mark.parametrize("flags", [("--slice", "1"), ("--slices", "3"),
                                   ("--slices", "3", "--slice", "2")])
def test_a_window_narrower_than_a_unit_s_lines_is_refused(cli, home: ClaudeHome,  # type: ignore[no-untyped-def]
                                                          window, flags) -> None:
    # a unit's header alone is about 50 characters (`▽ L24  USER  (2026-10-05 09:21:45
    # UTC(UTC+0))`): a 50-character window printed `▽ L1  USER  (2026-10-05 09:00:` as
    # slice 1, and the fleet cut "thanks" to `t … [+5 chars] …` to fit one
    result = run(cli, home, f"@{SID}", "--window", window, *flags)
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr == (
        "pysift: error: --window must be at least 200 characters (a narrower window cuts "
        "the document's lines: a unit's header alone runs to 80; 9000 stays under a "
        f"hook's 10,000-character cap), got `{window}`\n")


def test_a_window_of_200_is_taken(cli, home: ClaudeHome, tmp_path: Path) -> None:
    out = tmp_path / "doc.md"
    assert run(cli, home, f"@{SID}", "--out", str(out)).code == 0
    pieces = []
    for n in range(1, 100):
        piece = run(cli, home, f"@{SID}", "--window", "200", "--slice", str(n))
        assert piece.code == 0, piece.stderr
        if not piece.stdout:
            break
        assert len(piece.stdout) <= 200
        pieces.append(piece.stdout)
    assert "".join(pieces) == out.read_text()
    fleet = run(cli, home, f"@{SID}", "--window", "200", "--slices", "3")
    assert fleet.code == 0
    assert re.search(r"\n▽ L24  USER  \([^\n]*\)\nthanks\n△ L25  ASSISTANT  \([^\n]*\)\n"
                     r"You're welcome\.\n$", fleet.stdout)


def test_a_window_just_under_a_turn_cuts_it_and_one_its_size_holds_it_whole(
        cli, tmp_path: Path) -> None:
    h = ClaudeHome(tmp_path / "one")
    s = Session("88888888-8888-4888-8888-888888888888", cwd="/w/p")
    s.add(user("why does the nightly build fail on the arm64 runner but not on x86?"))
    s.add(assistant("The arm64 image pins an older glibc; the prebuilt wheel of the "
                    "geometry library needs 2.34, so pip falls back to a source build "
                    "that times out. Pinning the runner to the 2024 image fixes it."))
    h.session("/w/p", s.session_id, s)
    base = ("--claude-home", str(h.root), "verbatim", f"@{s.session_id}", "--slices", "1")
    whole = cli(*base).stdout
    size = len(whole)
    assert " … [+" not in whole and 300 < size < 600
    assert cli(*base, "--window", str(size), "--slice", "1").stdout == whole
    cut = cli(*base, "--window", str(size - 1), "--slice", "1")
    assert cut.code == 0 and 0 < len(cut.stdout) <= size - 1
    assert [u for u, _ in _fleet_units(cut.stdout)] == [1, 2]  # both sides, one slice
    assert re.search(r" … \[\+\d+ chars\] … ", cut.stdout)
    assert "did not fit" not in cut.stderr


def test_help_has_examples_and_the_json_schema(cli) -> None:
    result = cli("verbatim", "--help")
    assert result.code == 0
    for needle in ("EXAMPLES", "--window 9000 --slices 4 --slice 1", '"kind":"turn"',
                   '"kind":"collapsed_agents"', "boundaries_spanned", "--fold-index",
                   '"blockId","code"', "also in summary"):
        assert needle in result.stdout, needle


def test_a_prompt_typed_while_the_agent_worked_is_in_its_turn(cli, tmp_path: Path) -> None:
    """The human typed two more instructions while the agent worked on the first, and
    Claude Code folded them into the running turn (an enqueue whose entry was removed; a
    ``queued_command`` attachment in newer builds). A hook pastes the slice into the next
    session: leaving them out loses the human's last word, so they print in their turn,
    after the opener, each with its own line; a prompt sent as a turn of its own
    (dequeued) and a task notification on the queue are no such prompt."""
    from builders import attachment, queue_op

    h = ClaudeHome(tmp_path / "c")
    s = Session("99999999-9999-4999-8999-999999999999", cwd="/w/p")
    s.add(user("write the consultant's plan"))
    s.add(assistant("drafting the plan"))
    s.add(queue_op("enqueue", "always in English"))
    s.add(queue_op("enqueue", "<task-notification>\n<task-id>b1</task-id>\n"
                              "<status>completed</status>\n</task-notification>"))
    s.add(queue_op("remove"))
    s.add(queue_op("remove"))
    s.add(attachment("queued_command", {"prompt": "drop the consultant, let amy do it",
                                        "commandMode": "prompt"}))
    s.add(assistant("amy writes it, in English"))
    s.add(queue_op("enqueue", "now commit"))
    s.add(queue_op("dequeue"))
    s.add(user("now commit"))
    s.add(assistant("committed"))
    s.add(compact_boundary(100))
    s.add(compact_summary("Summary:\n1. Primary Request: a plan"))
    path = h.session("/w/p", s.session_id, s)
    lines = path.read_bytes().split(b"\n")

    def line_of(words: bytes) -> int:
        return next(n for n, raw in enumerate(lines, 1) if words in raw)

    result = run(cli, h, f"@{s.session_id}", "--slices", "1", "--slice", "1")
    assert result.code == 0, result.stderr
    english, amy = line_of(b"always in English"), line_of(b"let amy do it")
    assert ("▽ L1  USER  " in result.stdout and
            f"write the consultant's plan [typed while the agent worked · L{english}] always "
            f"in English [typed while the agent worked · L{amy}] drop the consultant, let amy "
            "do it\n") in result.stdout
    assert result.stdout.count("now commit") == 1  # its own turn's opener, once
    assert "task-notification" not in result.stdout
    rows = run(cli, h, f"@{s.session_id}", "--format", "json").json_rows("turn")
    assert rows[0]["text"].endswith("drop the consultant, let amy do it")


def test_an_image_pasted_while_the_agent_worked_is_named_in_its_turn(cli, tmp_path: Path) -> None:
    """A prompt folded into the running turn as a ``queued_command`` attachment carries
    the images pasted with it (only there): the turn names their ids as it names an
    opener's, so `pysift image --id` reaches them (the turn had named none)."""
    from builders import attachment, image
    from builders import text as block

    h = ClaudeHome(tmp_path / "c")
    s = Session("99999999-9999-4999-8999-999999999997", cwd="/w/p")
    s.add(user("fix the login page"))
    s.add(assistant("on it"))
    s.add(attachment("queued_command", {"prompt": [block("[Image #1] it looks like this"),
                                                   image()], "commandMode": "prompt"}))
    s.add(attachment("queued_command", {"prompt": [image()], "commandMode": "prompt"}))
    s.add(assistant("I see the screenshot"))
    h.session("/w/p", s.session_id, s)
    rows = run(cli, h, f"@{s.session_id}", "--format", "json").json_rows("turn")
    [row] = [r for r in rows if r["role"] == "user"]
    assert row["image_ids"] == ["#1", "L4i1"]
    assert row["text"].endswith("[typed while the agent worked · L3] [Image #1] it looks "
                                "like this")
    assert "  [2 images: #1, L4i1]\n" in run(cli, h, f"@{s.session_id}").stdout


def test_a_prompt_recalled_to_the_input_box_is_not_printed_as_sent(cli, tmp_path: Path) -> None:
    """The human queued "delete the old branch", thought better of it and pressed up: the
    queue's ``popAll`` took it back to the input box, and what they sent instead was "keep
    the old branch". The removal that folded a prompt into the turn is that one's: the
    recalled words were never sent and must not print as if they were."""
    from builders import queue_op

    h = ClaudeHome(tmp_path / "c")
    s = Session("99999999-9999-4999-8999-999999999998", cwd="/w/p")
    s.add(user("tidy the repo"))
    s.add(assistant("looking at the branches"))
    s.add(queue_op("enqueue", "delete the old branch"))
    s.add(queue_op("popAll", "delete the old branch"))
    s.add(queue_op("enqueue", "keep the old branch"))
    s.add(queue_op("remove"))
    s.add(assistant("kept it"))
    s.add(compact_boundary(100))
    s.add(compact_summary("Summary:\n1. Primary Request: tidy"))
    h.session("/w/p", s.session_id, s)
    result = run(cli, h, f"@{s.session_id}", "--slices", "1", "--slice", "1")
    assert result.code == 0, result.stderr
    assert "keep the old branch" in result.stdout
    assert "delete the old branch" not in result.stdout
    index = orjson.loads(run(cli, h, f"@{s.session_id}", "--fold-index").stdout)
    assert [m["firstLine"] for m in index["userMessages"]] == [
        "tidy the repo", "keep the old branch"]


def test_a_prompt_typed_after_a_compaction_inside_its_turn_prints_below_the_banner(
        cli, tmp_path: Path) -> None:
    """The agent worked on one prompt across a compaction; the human typed "before the
    fold" before it and "also the lexer" after it, both folded into the turn. The
    document follows the transcript: the second typed line stands below the
    compaction's banner (it printed above it, joined to the opener), the first stays
    with the opener, and the text, the JSON rows and the fleet agree."""
    from builders import queue_op

    h = ClaudeHome(tmp_path / "c")
    s = Session("99999999-9999-4999-8999-999999999997", cwd="/w/p")
    s.add(user("fix the parser"))
    s.add(assistant("reading the parser"))
    s.add(queue_op("enqueue", "before the fold"))
    s.add(queue_op("remove"))
    s.add(compact_boundary(100))
    s.add(compact_summary("Summary:\n1. Primary Request: fix the parser"))
    s.add(queue_op("enqueue", "also the lexer"))
    s.add(queue_op("remove"))
    s.add(queue_op("enqueue", "and the docs"))
    s.add(queue_op("remove"))
    s.add(assistant("fixed both"))
    h.session("/w/p", s.session_id, s)
    expected = [
        "▽ L1  USER", "fix the parser [typed while the agent worked · L3] before the fold",
        "△ L2  ASSISTANT", "reading the parser",
        "══ compaction boundary · summary at L6 ══",
        "▽ L7  USER", "[typed while the agent worked · L7] also the lexer "
                      "[typed while the agent worked · L9] and the docs",
        "△ L11  ASSISTANT", "fixed both",
    ]
    for args in ((), ("--slices", "1"), ("--slices", "1", "--slice", "1")):
        result = run(cli, h, f"@{s.session_id}", *args)
        assert result.code == 0, result.stderr
        body = result.stdout.split("─" * 60 + "\n", 1)[-1].splitlines()
        assert [re.sub(r"  \(.*\)$", "", line) for line in body] == expected, args
    text = run(cli, h, f"@{s.session_id}")
    assert "selected 2 user + 2 assistant units across 1 turns" in text.stdout
    json = run(cli, h, f"@{s.session_id}", "--format", "json")
    rows = [(r["kind"], r.get("line"), r.get("role")) for r in json.json_rows()
            if r["kind"] in ("turn", "compaction_boundary")]
    assert rows == [("turn", 1, "user"), ("turn", 2, "assistant"),
                    ("compaction_boundary", 6, None), ("turn", 7, "user"),
                    ("turn", 11, "assistant")]
    assert json.header()["selected_user"] == 2


def test_images_typed_after_a_compaction_inside_the_turn_join_the_unit_below_the_banner(
        cli, tmp_path: Path) -> None:
    """The agent worked on one prompt across a compaction; after it the human pasted a
    screenshot with words, then one without: both images belong to the user unit that
    stands below the banner (where their words print), not to the opener above it."""
    from builders import attachment, image, queue_op
    from builders import text as block

    h = ClaudeHome(tmp_path / "c")
    s = Session("99999999-9999-4999-8999-999999999995", cwd="/w/p")
    s.add(user("fix the parser"))
    s.add(assistant("reading the parser"))
    s.add(queue_op("enqueue", "before the fold"))
    s.add(queue_op("remove"))
    s.add(compact_boundary(100))
    s.add(compact_summary("Summary:\n1. Primary Request: fix the parser"))
    s.add(attachment("queued_command", {"prompt": [block("[Image #1] this one"), image()],
                                        "commandMode": "prompt"}))
    s.add(attachment("queued_command", {"prompt": [image()], "commandMode": "prompt"}))
    s.add(assistant("fixed it"))
    h.session("/w/p", s.session_id, s)
    rows = [r for r in run(cli, h, f"@{s.session_id}", "--format", "json").json_rows()
            if r["kind"] in ("turn", "compaction_boundary")]
    assert [(r["kind"], r.get("line"), r.get("role")) for r in rows] == [
        ("turn", 1, "user"), ("turn", 2, "assistant"), ("compaction_boundary", 6, None),
        ("turn", 7, "user"), ("turn", 9, "assistant")]
    assert rows[0]["image_ids"] == []
    assert rows[3]["image_ids"] == ["#1", "L8i1"]
    assert rows[3]["text"].startswith("[typed while the agent worked · L7] [Image #1] this one")


def _torn_queue_home(tmp_path: Path, case: str) -> tuple[ClaudeHome, str, list[bytes]]:
    """A session whose queue has one torn line (``case``: which one). The truth: "use the
    fast linker" was sent as turn 1's opener (dequeued), and "then run the tests" was
    folded into turn 1 (removed); in ``enqueue`` a prompt folded into turn 0 comes
    first, its enqueue line torn (its words lost)."""
    from builders import queue_op

    h = ClaudeHome(tmp_path / "c")
    s = Session("99999999-9999-4999-8999-999999999996", cwd="/w/p")
    s.add(user("start the build"))
    s.add(assistant("building"))
    torn_at = None
    if case == "enqueue":
        s.add(queue_op("enqueue", "a prompt whose line is torn"))
        torn_at = len(s.records) - 1
        s.add(queue_op("enqueue", "use the fast linker"))
        s.add(queue_op("remove"))
    else:
        s.add(queue_op("enqueue", "use the fast linker"))
    s.add(queue_op("dequeue"))
    if torn_at is None:
        torn_at = len(s.records) - 1
    s.add(user("use the fast linker"))
    s.add(assistant("switching linkers"))
    s.add(queue_op("enqueue", "then run the tests"))
    s.add(queue_op("remove"))
    s.add(assistant("linked and tested"))
    s.add(compact_boundary(100))
    s.add(compact_summary("Summary:\n1. Primary Request: the build"))
    lines = [to_line(r) for r in s.records]
    whole = lines[torn_at]
    if case == "unread":  # cut before its operation's value ends
        lines[torn_at] = whole[:len(b'{"type":"queue-operation","opera')] + b"\n"
    elif case == "malformed":  # framed, invalid inside its braces
        lines[torn_at] = whole.replace(b'"timestamp"', b'"timestamp":,', 1)
    else:
        lines[torn_at] = torn(s.records[torn_at]) + b"\n"
    assert lines[torn_at].startswith(b'{"type":"queue-operation"')
    path = h.project_dir("/w/p") / f"{s.session_id}.jsonl"
    h.raw_lines(path, lines)
    return h, s.session_id, lines


@pytest.mark.parametrize("case", ["enqueue", "dequeue", "malformed", "unread"])
def test_a_torn_queue_line_costs_only_its_own_entry(cli, tmp_path: Path, case: str) -> None:
    """A torn queue-operation line keeps its place in the queue: the prompts after it
    are paired with their own fates. Left out, its slot shifted the pairing: the
    removal that folded the torn prompt took "use the fast linker", sent as a turn of
    its own, and printed it again as folded into turn 0 (``enqueue``); the torn dequeue's
    prompt was taken by the next removal, printed as folded into turn 0, and "then run
    the tests" was lost (``dequeue``; a framed line invalid inside, ``malformed``, the
    same). A line whose operation is lost too (``unread``)
    folds in only what every reading of it folds: none of the prompts after it here,
    rather than the sent prompt again. The torn line is counted malformed, in verbatim
    and in the fold index, which pairs the same way."""
    h, sid, lines = _torn_queue_home(tmp_path, case)
    typed = next(n for n, raw in enumerate(lines, 1) if b"then run the tests" in raw)
    result = run(cli, h, f"@{sid}", "--format", "json")
    assert result.code == 0, result.stderr
    assert result.summary()["skipped_lines"] == 1
    said = [(r["turn_index"], r["text"]) for r in result.json_rows("turn") if r["role"] == "user"]
    folded = (f"use the fast linker [typed while the agent worked · L{typed}] then run the "
              "tests") if case != "unread" else "use the fast linker"
    assert said == [(0, "start the build"), (1, folded)]
    index = cli("--claude-home", str(h.root), "verbatim", f"@{sid}", "--fold-index")
    assert index.code == 0, index.stderr
    messages = [(m["turn"], m["firstLine"]) for m in orjson.loads(index.stdout)["userMessages"]]
    assert messages == [(0, "start the build"), (1, "use the fast linker"),
                        *([(1, "then run the tests")] if case != "unread" else [])]
    assert "1 malformed line(s) skipped" in index.stderr


def test_a_session_the_newer_sessions_crowd_out_of_the_fleet_is_not_told_to_widen(
        cli, tmp_path: Path) -> None:
    """Two sessions of a project share one 300-character slice: the newer one's turn fills
    it, so the older session's short turn is left out. Its note must not advise a window
    it already has ("--window 40 holds it whole" under --window 300); it says the newer
    turns filled the fleet."""
    h = ClaudeHome(tmp_path / "c")
    old = Session("11111111-1111-4111-8111-111111111111", cwd="/w/p")
    old.add(user("hi"))
    old.add(assistant("hello"))
    h.session("/w/p", old.session_id, old)
    new = Session("22222222-2222-4222-8222-222222222222", cwd="/w/p",
                  start=DEFAULT_START + timedelta(days=1))
    new.add(user("explain the orbit code " + "in detail " * 8))
    new.add(assistant("it propagates the orbit " + "step by step " * 6))
    h.session("/w/p", new.session_id, new)
    result = run(cli, h, "/w/p", "--slices", "1", "--window", "300")
    assert result.code == 0, result.stderr
    assert "explain the orbit code" in result.stdout and "hello" not in result.stdout
    note = next(line for line in result.stderr.splitlines() if "@11111111" in line)
    assert "hold none of its 1 turns" in note
    assert "the newer turns of the other transcripts in scope fill the fleet" in note
    assert "holds it whole" not in note


def test_a_summary_written_as_text_blocks_is_read(cli, tmp_path: Path) -> None:
    """A user record's content may be a list of text blocks rather than a string; a
    compaction summary spelled so is the same summary. It must not be called unreadable
    (the banner, the stderr note) nor lose the dedup of a live turn it quotes."""
    h = ClaudeHome(tmp_path / "c")
    s = Session("55555555-5555-4555-8555-555555555555", cwd="/w/p")
    s.add(user("rename the orbit module"))
    s.add(assistant("renamed"))
    s.add(compact_boundary(100))
    summary = compact_summary("Summary:\n6. All user messages:\n- \"rename the orbit module\"")
    summary["message"]["content"] = [{"type": "text", "text": summary["message"]["content"]}]
    s.add(summary)
    h.session("/w/p", s.session_id, s)
    result = run(cli, h, f"@{s.session_id}", "--slices", "1", "--slice", "1")
    assert result.code == 0, result.stderr
    assert "══ compaction boundary · summary at L4 ══" in result.stdout
    assert "unreadable" not in result.stdout + result.stderr
    assert "rename the orbit module" in result.stdout
    assert "(also in summary)" in result.stdout


def _lost_queue_home(tmp_path: Path, case: str) -> tuple[ClaudeHome, str, list[bytes]]:
    """A session whose queue misses one operation's line (``case``), its prompts'
    truth: "also the lexer" and "in French" were folded into their turns, "and commit"
    was sent as a turn of its own.

    - ``rider``: a task notification queued while the agent worked was delivered as a
      user record of its own once it stopped, with no dequeue (Claude Code writes none
      there); it stayed first in line and took the removal of "in French";
    - ``remove``: the removal that folded "also the lexer" is missing;
    - ``dequeue``: the dequeue that sent "and commit" is missing, and the next removal
      took it (then the prompt folded after it is "and the tag");
    - ``attachment``: both prompts of turn 1 were delivered as ``queued_command``
      attachments besides their enqueues' words, the second after its removal."""
    from builders import attachment, queue_op, task_notification

    h = ClaudeHome(tmp_path / "c")
    s = Session("99999999-9999-4999-8999-999999999994", cwd="/w/p")
    s.add(user("fix the parser"))
    s.add(assistant("reading the parser"))
    if case == "rider":
        note = task_notification("b1", "completed", "Background command finished")
        s.add(queue_op("enqueue", note["message"]["content"]))
    s.add(queue_op("enqueue", "also the lexer"))
    if case != "remove":
        s.add(queue_op("remove"))
    s.add(assistant("fixed both"))
    if case == "rider":
        s.add(note)
        s.add(assistant("the background build passed"))
    s.add(user("now the docs"))
    s.add(assistant("writing the docs"))
    s.add(queue_op("enqueue", "in French"))
    if case == "attachment":
        s.add(queue_op("enqueue", "with examples"))
        s.add(attachment("queued_command", {"prompt": "in French", "commandMode": "prompt"}))
        s.add(queue_op("remove"))
        s.add(queue_op("remove"))
        s.add(attachment("queued_command", {"prompt": "with examples",
                                            "commandMode": "prompt"}))
    else:
        s.add(queue_op("remove"))
    s.add(assistant("en français"))
    s.add(queue_op("enqueue", "and commit"))
    if case != "dequeue":
        s.add(queue_op("dequeue"))
    s.add(user("and commit"))
    s.add(assistant("committing"))
    if case == "dequeue":
        s.add(queue_op("enqueue", "and the tag"))
        s.add(queue_op("remove"))
    s.add(assistant("committed"))
    s.add(compact_boundary(100))
    s.add(compact_summary("Summary:\n1. Primary Request: the parser"))
    path = h.session("/w/p", s.session_id, s)
    return h, s.session_id, path.read_bytes().split(b"\n")


@pytest.mark.parametrize("case", ["rider", "remove", "dequeue", "attachment"])
def test_a_lost_queue_operation_does_not_hide_the_prompts_after_it(
        cli, tmp_path: Path, case: str) -> None:
    """A queue operation missing from the file (never written, or its line lost) left
    the first-in-first-out pairing shifted: every removal after it took the entry before
    its own, so the prompt typed last was listed nowhere (a SessionStart hook's slice
    lost the human's last word), and a prompt sent as a turn of its own was listed again
    as folded into the turn before. The pairing resynchronises on what the records say:
    a user record whose words are a waiting entry's was that entry sent (its dequeue
    lost or never written), an attachment's words name the entry it delivered, and
    nothing typed while the agent worked is still waiting when the next turn opens."""
    h, sid, lines = _lost_queue_home(tmp_path, case)

    def line_of(words: bytes) -> int:
        return next(n for n, raw in enumerate(lines, 1) if words in raw)

    def typed(words: str) -> str:
        return f"[typed while the agent worked · L{line_of(words.encode())}] {words}"

    turn1 = ["now the docs " + typed("in French")]
    if case == "attachment":
        turn1 = ["now the docs " + typed("in French") + " " + typed("with examples")]
    expected = [(0, "fix the parser " + typed("also the lexer")), (1, *turn1),
                (2, "and commit" + (" " + typed("and the tag") if case == "dequeue" else ""))]
    result = run(cli, h, f"@{sid}", "--format", "json")
    assert result.code == 0, result.stderr
    said = [(r["turn_index"], r["text"]) for r in result.json_rows("turn")
            if r["role"] == "user"]
    assert said == expected
    index = cli("--claude-home", str(h.root), "verbatim", f"@{sid}", "--fold-index")
    assert index.code == 0, index.stderr
    messages = [(m["turn"], m["firstLine"]) for m in orjson.loads(index.stdout)["userMessages"]]
    assert messages == [
        (0, "fix the parser"), (0, "also the lexer"), (1, "now the docs"), (1, "in French"),
        *([(1, "with examples")] if case == "attachment" else []), (2, "and commit"),
        *([(2, "and the tag")] if case == "dequeue" else [])]


def test_a_collapsed_run_ends_at_a_prompt_typed_inside_it(cli, tmp_path: Path) -> None:
    """The agent worked on one prompt across a compaction, with short progress messages
    (`--agent-msgs longest` collapses them) before and after the human typed "also the
    lexer" past the compaction. The typed unit stands at its line, so it ends the run:
    the messages before it and after it are two runs (one run spanning it printed
    `L2–L10` above the prompt typed at L7, as if the agent had said all of it first). The
    compaction at L4 ends a run too: `L2–L3` before its banner, `L6` after it (a run
    `L2–L6` had printed above the banner of a compaction inside its range)."""
    from builders import queue_op

    h = ClaudeHome(tmp_path / "c")
    s = Session("99999999-9999-4999-8999-999999999993", cwd="/w/p")
    s.add(user("fix the parser"))
    s.add(assistant("Let me look."))
    s.add(assistant("Let me check the grammar."))
    s.add(compact_boundary(100))
    s.add(compact_summary("Summary:\n1. Primary Request: fix the parser"))
    s.add(assistant("Now let me read the tokens."))
    s.add(queue_op("enqueue", "also the lexer"))
    s.add(queue_op("remove"))
    s.add(assistant("Let me open the lexer."))
    s.add(assistant("Let me run the tests."))
    s.add(assistant("Both are fixed: the parser kept a stale token and the lexer "
                    "dropped a newline. " + "The tests pass now. " * 20))
    h.session("/w/p", s.session_id, s)
    expected = [
        "▽ L1  USER", "fix the parser",
        "△ L2–L3  [2 agent messages, 0 tool calls]",
        "══ compaction boundary · summary at L5 ══",
        "△ L6  [1 agent message, 0 tool calls]",
        "▽ L7  USER", "[typed while the agent worked · L7] also the lexer",
        "△ L9–L10  [2 agent messages, 0 tool calls]",
        "△ L11  ASSISTANT",
    ]
    for args in ((), ("--slices", "1")):
        result = run(cli, h, f"@{s.session_id}", "--agent-msgs", "longest", *args)
        assert result.code == 0, result.stderr
        body = result.stdout.split("─" * 60 + "\n", 1)[-1].splitlines()
        assert [re.sub(r"  \(.*\)$", "", line) for line in body][:len(expected)] == \
            expected, args
    rows = [(r["kind"], r.get("line") or r.get("first_line"))
            for r in run(cli, h, f"@{s.session_id}", "--format", "json").json_rows()
            if r["kind"] in ("turn", "collapsed_agents")]
    assert rows == [("turn", 1), ("collapsed_agents", 2), ("collapsed_agents", 6),
                    ("turn", 7), ("collapsed_agents", 9), ("turn", 11)]


def test_a_subagent_record_in_the_main_file_is_not_the_agent_writing(cli, tmp_path: Path
                                                                    ) -> None:
    """The queue resynchronises when a turn opens on what was typed before the agent
    last wrote. A subagent's record Claude Code wrote into the main transcript (builds
    1.x, 2.0.x) is not the session's agent writing: verbatim and the fold index pair
    the queue alike, and a prompt typed after the agent's last word is not taken as one
    whose fate was lost."""
    from builders import queue_op

    h = ClaudeHome(tmp_path / "c")
    s = Session("99999999-9999-4999-8999-999999999992", cwd="/w/p")
    s.add(user("fix the parser"))
    s.add(assistant("fixed"))
    s.add(queue_op("enqueue", "and the lexer"))
    s.add(assistant("a subagent's reply", isSidechain=True))
    s.add(user("now the docs"))
    s.add(assistant("docs written"))
    s.add(compact_boundary(100))
    s.add(compact_summary("Summary:\n1. Primary Request: the parser"))
    h.session("/w/p", s.session_id, s)
    said = [r["text"] for r in run(cli, h, f"@{s.session_id}", "--format", "json"
                                   ).json_rows("turn") if r["role"] == "user"]
    assert said == ["fix the parser", "now the docs"]
    index = cli("--claude-home", str(h.root), "verbatim", f"@{s.session_id}", "--fold-index")
    assert [m["firstLine"] for m in orjson.loads(index.stdout)["userMessages"]] == [
        "fix the parser", "now the docs"]
