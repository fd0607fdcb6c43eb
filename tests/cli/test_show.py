"""``pysift show`` through the real argv path (SPEC §6.11, wire-format §3)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from builders import (
    ClaudeHome,
    Session,
    assistant,
    stable_uuid,
    stop_hook_summary,
    thinking,
    tool_result,
    tool_use,
    turn_duration,
    user,
)
from conftest import EXPLORE, LONG, physical_lines

PENDING_AUQ_UUID = "0a57abd4-de75-411d-a82f-cfa266b1b3e2"

RECORD_KEYS = {
    "kind", "session_id", "is_subagent", "parent_session_id", "turn_index", "superseded_draft",
    "line", "uuid", "label", "labels", "tool_name", "from", "to", "pairing", "tool_use_id",
    "source", "ts_utc", "ts_local", "text", "image_ids",
}
SUMMARY_KEYS = {"kind", "records", "dropped_by_cap", "refetch_remainder", "non_record_lines",
                "skipped_lines", "with_elicitation_sidecar", "unreadable"}


@pytest.fixture
def long_file(demo_home: Path) -> Path:
    return demo_home / "projects" / "-home-ada-src-orbit" / f"{LONG}.jsonl"


@pytest.fixture
def show(cli, demo_home: Path):
    def run(*args: str):
        return cli("--claude-home", str(demo_home), "show", *args)
    return run




# -- addressing ----------------------------------------------------------------------------


def test_one_line_fetches_the_full_record(show) -> None:
    result = show(f"@{LONG}", "--line", "7", "--format", "json")
    assert result.code == 0, result.stderr
    assert result.header() == {
        "kind": "header", "command": "show", "session_id": LONG, "is_subagent": False,
        "parent_session_id": LONG,
        "path": result.header()["path"],
    }
    assert result.header()["path"].endswith(f"-home-ada-src-orbit/{LONG}.jsonl")
    (row,) = result.json_rows("record")
    assert set(row) == RECORD_KEYS
    assert (row["line"], row["label"], row["turn_index"]) == (7, "agent.thinking", 0)
    assert row["text"].startswith("Passes about an hour late.")
    assert row["text"].endswith("whether propagation uses naive datetimes.")  # never clipped
    assert row["ts_utc"] == "2026-10-05T08:42:56.000Z"
    assert row["ts_local"] == "2026-10-05T19:42:56+11:00"
    summary = result.summary()
    assert set(summary) == SUMMARY_KEYS
    assert (summary["records"], summary["dropped_by_cap"], summary["refetch_remainder"]) == (1, 0, None)

    text = show(f"@{LONG}", "--line", "7").stdout
    assert text.splitlines()[0] == f"SESSION {LONG}"
    assert "\nt0  2026-10-05 19:42:56.000 AEDT(UTC+11)\n" in text
    assert "  ▸ agent.thinking  L7  Passes about an hour late." in text
    assert "fetched 1 record unit(s)" in text


def test_ranges_lists_and_repeats_are_merged_in_file_order(show) -> None:
    result = show(f"@{LONG}", "--line", "9,7", "--line", "8", "--format", "json")
    assert result.code == 0, result.stderr
    assert [r["line"] for r in result.json_rows("record")] == [7, 8, 9]

    ranged = show(f"@{LONG}", "--line", "5..9", "--format", "json")
    lines = [r["line"] for r in ranged.json_rows("record")]
    assert lines == sorted(lines) and {7, 8, 9} <= set(lines)
    assert 6 not in lines  # L6 is an ai-title cache line: not a record
    assert ranged.summary()["non_record_lines"] >= 1
    text = show(f"@{LONG}", "--line", "5..9").stdout
    assert re.search(r"^\d+ line\(s\) in the addressed range are not records \(metadata/"
                     r"attachment — inspect with --raw\)$", text, re.M)


def test_uuid_addresses_the_same_record(show) -> None:
    by_line = show(f"@{LONG}", "--line", "8", "--format", "json").json_rows("record")[0]
    by_uuid = show(f"@{LONG}", "--uuid", by_line["uuid"], "--format", "json")
    assert by_uuid.code == 0, by_uuid.stderr
    (row,) = by_uuid.json_rows("record")
    assert row == by_line


def test_turn_numbers_match_search_headers(cli, show, demo_home: Path) -> None:
    found = cli("--claude-home", str(demo_home), "search", "", f"@{LONG}", "--no-subagents",
                "-t", "user", "-t", "agent.message", "--format", "json")
    assert found.code == 0, found.stderr
    exchanges = [e for e in found.json_rows("exchange") if e["turn_index"] is not None]
    assert len(exchanges) > 20
    for ex in exchanges[::4]:
        turn = ex["turn_index"]
        fetched = show(f"@{LONG}", "--turn", str(turn), "--format", "json")
        assert fetched.code == 0, fetched.stderr
        rows = fetched.json_rows("record")
        assert {r["turn_index"] for r in rows} == {turn}
        fetched_lines = {r["line"] for r in rows}
        for hit in ex["hits"]:
            assert hit["line"] in fetched_lines, (turn, hit["line"])


def test_turn_text_headers_use_the_search_numbering(cli, show, demo_home: Path) -> None:
    search_text = cli("--claude-home", str(demo_home), "search", "amend again", f"@{LONG}").stdout
    (turn,) = re.findall(r"^3f6c1e2a·t(\d+)  ", search_text, re.M)
    shown = show(f"@{LONG}", "--turn", turn).stdout
    assert re.search(rf"^t{turn}  2026-10-07 ", shown, re.M)
    assert "amend again and move the tag" in shown


# -- raw -------------------------------------------------------------------------------------


def test_raw_prints_the_verbatim_line_bytes(show, long_file: Path) -> None:
    lines = physical_lines(long_file)
    result = show(f"@{LONG}", "--line", "7", "--raw")
    assert result.code == 0
    assert result.stdout_bytes == lines[6] + b"\n"
    # a malformed crash fragment and a metadata line are fetched verbatim too
    assert show(f"@{LONG}", "--line", "164", "--raw").stdout_bytes == lines[163] + b"\n"
    assert show(f"@{LONG}", "--line", "6", "--raw").stdout_bytes == lines[5] + b"\n"
    ranged = show(f"@{LONG}", "--line", "5..9", "--raw")
    assert ranged.stdout_bytes == b"".join(line + b"\n" for line in lines[4:9])


def test_raw_reaches_the_torn_last_line(show, long_file: Path) -> None:
    lines = physical_lines(long_file)
    assert not long_file.read_bytes().endswith(b"\n")  # the fixture's torn tail
    result = show(f"@{LONG}", "--line", str(len(lines)), "--raw")
    assert result.code == 0
    assert result.stdout_bytes == lines[-1] + b"\n"


def test_a_non_record_line_needs_raw(show) -> None:
    result = show(f"@{LONG}", "--line", "164")
    assert result.code == 1
    assert "--line 164 --raw" in result.stderr


# -- misses, clamping ----------------------------------------------------------------------


def test_explicit_line_miss_names_the_domain(show, long_file: Path) -> None:
    total = len(physical_lines(long_file))
    result = show(f"@{LONG}", "--line", "99999")
    assert result.code == 1
    assert result.stdout == ""
    assert "L99999" in result.stderr and f"L1..L{total}" in result.stderr


def test_explicit_turn_miss_names_the_domain(show) -> None:
    result = show(f"@{LONG}", "--turn", "99")
    assert result.code == 1
    m = re.search(r"no such turn\(s\): t99 — the transcript has (\d+) turn\(s\) \(t0\.\.t(\d+)\)",
                  result.stderr)
    assert m, result.stderr
    assert int(m.group(1)) == int(m.group(2)) + 1
    last = show(f"@{LONG}", "--turn", m.group(2), "--format", "json")
    assert last.code == 0  # the last named turn exists
    beyond = show(f"@{LONG}", "--turn", f"{int(m.group(1)) + 5}..99")
    assert beyond.code == 1  # an explicit range that resolves to nothing
    assert "no such turn(s)" in beyond.stderr


def test_uuid_miss_names_the_uuid(show) -> None:
    missing = "00000000-0000-4000-8000-000000000000"
    result = show(f"@{LONG}", "--uuid", missing)
    assert result.code == 1
    assert missing in result.stderr


def test_open_forms_clamp_to_the_file(show, long_file: Path) -> None:
    total = len(physical_lines(long_file))
    tail = show(f"@{LONG}", "--turn", "-99..", "--max-count", "0", "--format", "json")
    assert tail.code == 0, tail.stderr
    turns = {r["turn_index"] for r in tail.json_rows("record") if r["turn_index"] is not None}
    assert min(turns) == 0 and len(turns) == max(turns) + 1
    lines = show(f"@{LONG}", "--line", f"{total - 5}..", "--format", "json")
    assert lines.code == 0, lines.stderr
    assert all(total - 5 <= r["line"] <= total for r in lines.json_rows("record") if r["line"])
    assert show(f"@{LONG}", "--line", "..4", "--format", "json").code == 0


# -- the 200-unit cap -------------------------------------------------------------------------


@pytest.fixture
def home_250(tmp_path: Path) -> tuple[ClaudeHome, str]:
    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("two-hundred-fifty")
    s = Session(sid, cwd="/home/ada/src/big")
    for i in range(125):
        s.add(user(f"question {i}"))
        s.add(assistant(f"answer {i}"))
    home.session("/home/ada/src/big", sid, s)
    return home, sid


def test_default_cap_reports_the_exact_continuation(cli, home_250) -> None:
    home, sid = home_250
    result = cli("--claude-home", str(home.root), "show", f"@{sid}", "--line", "..",
                 "--format", "json")
    assert result.code == 0, result.stderr
    rows = result.json_rows("record")
    assert [r["line"] for r in rows] == list(range(1, 201))
    summary = result.summary()
    assert summary["records"] == 200
    assert summary["dropped_by_cap"] == 50
    assert summary["refetch_remainder"] == f"pysift show @{sid} --line 201..250"

    text = cli("--claude-home", str(home.root), "show", f"@{sid}", "--line", "..").stdout
    assert (f"+50 more record unit(s) beyond the 200-unit cap · continue: pysift show @{sid} "
            "--line 201..250  (or --max-count 0 = uncapped)") in text
    # the continuation command does fetch the remainder
    rest = cli("--claude-home", str(home.root), "show", f"@{sid}", "--line", "201..250",
               "--format", "json")
    assert [r["line"] for r in rest.json_rows("record")] == list(range(201, 251))


def test_max_count_overrides_the_cap(cli, home_250) -> None:
    home, sid = home_250
    uncapped = cli("--claude-home", str(home.root), "show", f"@{sid}", "--turn", "..",
                   "--max-count", "0", "--format", "json")
    assert len(uncapped.json_rows("record")) == 250
    assert uncapped.summary()["dropped_by_cap"] == 0
    assert uncapped.summary()["refetch_remainder"] is None
    small = cli("--claude-home", str(home.root), "show", f"@{sid}", "--line", "..",
                "--max-count", "10", "--format", "json")
    assert small.summary()["records"] == 10
    assert small.summary()["refetch_remainder"] == f"pysift show @{sid} --line 11..250"


def test_a_capped_turn_fetch_says_what_its_line_continuation_adds(cli, tmp_path: Path) -> None:
    """A line address renders the gated bookkeeping a turn fetch leaves out; the note
    counts it, so `+N more` and what the continuation prints are both accounted for."""
    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("bookkeeping")
    s = Session(sid, cwd="/home/ada/src/big")
    for i in range(120):
        s.add(user(f"question {i}"))
        s.add(assistant(f"answer {i}"))
        s.add(stop_hook_summary([("lint", 12)]))
        s.add(turn_duration(900))
    home.session("/home/ada/src/big", sid, s)
    base = ("--claude-home", str(home.root), "show", f"@{sid}")
    capped = cli(*base, "--turn", "..", "--format", "json")
    summary = capped.summary()
    assert (summary["records"], summary["dropped_by_cap"]) == (200, 40)
    first, last = map(int, summary["refetch_remainder"].rsplit(" ", 1)[1].split(".."))
    rest = cli(*base, "--line", f"{first}..{last}", "--format", "json").json_rows("record")
    gated = [r for r in rest if r["label"].startswith("harness.meta")]
    assert len(rest) - len(gated) == 40 and gated
    text = cli(*base, "--turn", "..").stdout
    assert (f"--line {first}..{last} (the line range also shows {len(gated)} bookkeeping "
            "unit(s) a turn fetch leaves out)") in text


def test_the_continuation_of_scattered_addresses_names_only_them(cli, home_250) -> None:
    """`--line 3,100,240 --max-count 1` continued with `--line 100..240`: 141 lines and
    139 units nobody asked for, where the note promised 2."""
    home, sid = home_250
    base = ("--claude-home", str(home.root), "show", f"@{sid}")
    capped = cli(*base, "--line", "3,100,240", "--max-count", "1", "--format", "json")
    assert capped.summary()["refetch_remainder"] == f"pysift show @{sid} --line 100,240"
    raw = cli(*base, "--line", "2,50..52,200", "--max-count", "1", "--raw")
    assert f"continue: pysift show @{sid} --line 50..52,200 --raw" in raw.stderr
    rest = cli(*base, "--line", "100,240", "--format", "json")
    assert [r["line"] for r in rest.json_rows("record")] == [100, 240]


def test_the_cap_never_splits_a_line_between_its_units(cli, tmp_path: Path) -> None:
    """The cap fell between the two units of one record: the continuation printed the
    first one again and one unit more than `+N more` said."""
    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("two-units")
    s = Session(sid, cwd="/home/ada/src/u")
    s.add(user("look"))
    s.add(assistant(thinking("weighing it"), "a reply with two parts"))
    s.add(assistant("and a third record"))
    home.session("/home/ada/src/u", sid, s)
    base = ("--claude-home", str(home.root), "show", f"@{sid}")
    units = cli(*base, "--line", "..", "--format", "json").json_rows("record")
    split_line = next(r["line"] for r in units
                      if sum(1 for x in units if x["line"] == r["line"]) == 2)
    cap = next(i for i, r in enumerate(units) if r["line"] == split_line) + 1
    capped = cli(*base, "--line", "..", "--max-count", str(cap), "--format", "json")
    summary = capped.summary()
    assert all(r["line"] != split_line for r in capped.json_rows("record"))
    assert summary["refetch_remainder"].split("--line ")[1].startswith(f"{split_line}..")
    command = summary["refetch_remainder"].split()
    rest = cli(*base, *command[3:], "--format", "json").json_rows("record")
    assert len(rest) == summary["dropped_by_cap"]
    assert len(capped.json_rows("record")) + len(rest) == len(units)


def test_a_closed_range_from_zero_clamps_to_the_first_line(show) -> None:
    """`--line 0..2` said "no such line(s)" although L1 and L2 exist."""
    result = show(f"@{LONG}", "--line", "0..4", "--format", "json")
    assert result.code == 0, result.stderr
    same = show(f"@{LONG}", "--line", "1..4", "--format", "json")
    assert result.json_rows("record") == same.json_rows("record")
    zero = show(f"@{LONG}", "--line", "0")  # issue 21: a usage error saying lines are 1-based
    assert zero.code == 2 and "lines are 1-based" in zero.stderr


def test_a_turn_holding_no_renderable_record_is_an_error(cli, tmp_path: Path) -> None:
    """A file of summaries has one turn (t0) and nothing show renders in it: an explicit
    `--turn 0` said `fetched 0 record unit(s)` with exit 0."""
    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("summaries-only")
    home.session("/home/ada/src/s", sid,
                 b'{"type":"summary","summary":"Parser port","leafUuid":"l1"}\n')
    for turn in ("0", "-1", "0.."):
        result = cli("--claude-home", str(home.root), "show", f"@{sid}", "--turn", turn)
        assert result.code == 1, (turn, result.stdout)
        assert "no record in t0 is a message or an event show renders" in result.stderr
    raw = cli("--claude-home", str(home.root), "show", f"@{sid}", "--turn", "0", "--raw")
    assert raw.code == 0 and b"Parser port" in raw.stdout_bytes


def test_raw_caps_by_line_with_a_stderr_continuation(cli, home_250) -> None:
    home, sid = home_250
    result = cli("--claude-home", str(home.root), "show", f"@{sid}", "--line", "..", "--raw")
    assert result.code == 0
    assert len(result.stdout_bytes.splitlines()) == 200
    assert f"pysift show @{sid} --line 201..250 --raw" in result.stderr


# -- sidecar, subagents, branch points, blocks -------------------------------------------------


def test_pending_sidecar_record_by_uuid_is_pending(show) -> None:
    result = show(f"@{LONG}", "--uuid", PENDING_AUQ_UUID, "--format", "json")
    assert result.code == 0, result.stderr
    (row,) = result.json_rows("record")
    assert row["line"] is None
    assert row["source"] == "elicitation-sidecar"
    assert row["label"] == "agent.tool.use"
    assert row["tool_name"] == "AskUserQuestion"
    # no answer exists anywhere: the call is pending, as search reports it
    assert row["pairing"] == "pending"
    assert result.summary()["with_elicitation_sidecar"] is True
    text = show(f"@{LONG}", "--uuid", PENDING_AUQ_UUID).stdout
    assert "(elicitation sidecar)" in text
    assert "with elicitation sidecar" in text


def test_raw_names_the_sidecar_of_a_pending_records_uuid(show) -> None:
    """``--raw`` prints transcript lines; a uuid only the sidecar holds was reported as
    "no record with uuid …", though the same uuid without --raw shows the record."""
    result = show(f"@{LONG}", "--uuid", PENDING_AUQ_UUID, "--raw")
    assert result.code != 0 and result.stdout == ""
    assert "no record with uuid" not in result.stderr
    assert f"uuid {PENDING_AUQ_UUID} is a pending elicitation in the sidecar " in result.stderr
    assert "elicitations.jsonl" in result.stderr
    assert f"pysift show @{LONG} --uuid {PENDING_AUQ_UUID}\n" in result.stderr


def test_last_turn_merges_the_pending_sidecar_record(show) -> None:
    probe = show(f"@{LONG}", "--turn", "-1", "--format", "json")
    assert probe.code == 0, probe.stderr
    rows = probe.json_rows("record")
    merged = [r for r in rows if r["source"] == "elicitation-sidecar"]
    assert [r["uuid"] for r in merged] == [PENDING_AUQ_UUID]
    assert merged[0]["line"] is None
    assert merged[0]["turn_index"] == rows[0]["turn_index"]
    assert probe.summary()["with_elicitation_sidecar"] is True
    # an earlier turn merges nothing
    earlier = show(f"@{LONG}", "--turn", "0", "--format", "json")
    assert all(r["source"] is None for r in earlier.json_rows("record"))
    assert earlier.summary()["with_elicitation_sidecar"] is False


def test_subagent_target_fetches_from_its_own_file(show) -> None:
    result = show(f"@{EXPLORE}", "--line", "1", "--format", "json")
    assert result.code == 0, result.stderr
    header = result.header()
    assert (header["session_id"], header["is_subagent"], header["parent_session_id"]) == \
        (EXPLORE, True, LONG)
    assert header["path"].endswith(f"subagents/agent-{EXPLORE}.jsonl")
    (row,) = result.json_rows("record")
    assert (row["session_id"], row["is_subagent"], row["parent_session_id"]) == (EXPLORE, True, LONG)
    assert row["text"].startswith("Find every call site of `propagate(`")
    text = show(f"@{EXPLORE}", "--line", "1").stdout
    assert text.splitlines()[0] == f"SUBAGENT {EXPLORE} · parent SESSION {LONG}"


def test_branch_points_find_the_superseded_draft(show) -> None:
    result = show(f"@{LONG}", "--branch-points", "--format", "json")
    assert result.code == 0, result.stderr
    header = result.header()
    assert header["mode"] == "branch-points"
    assert (header["session_id"], header["is_subagent"], header["parent_session_id"]) == \
        (LONG, False, LONG)
    forks = result.json_rows("branch-point")
    draft_fork = [f for f in forks if [c["line"] for c in f["children"]] == [147, 148]]
    assert len(draft_fork) == 1
    fork = draft_fork[0]
    assert fork["line"] == 146
    assert fork["widest_gap_seconds"] == 7
    assert {c["record_type"] for c in fork["children"]} == {"user"}
    widths = [f["widest_gap_seconds"] for f in forks]
    assert widths == sorted(widths, key=lambda w: (w is None, -(w or 0)))  # widest first
    assert result.summary()["branch_points"] == len(forks)
    assert set(result.summary()) == {"kind", "branch_points", "conversation_records",
                                     "skipped_lines", "unreadable"}

    text = show(f"@{LONG}", "--branch-points").stdout
    assert text.splitlines()[0] == f"BRANCH POINTS  {LONG}"
    assert f"↳ pysift show @{LONG} --line 148" in text


def test_block_fetch_and_sha256_verification(cli, show, demo_home: Path) -> None:
    found = cli("--claude-home", str(demo_home), "search", "", f"@{LONG}", "--no-subagents",
                "-t", "agent.tool.result", "--max-count", "1", "--format", "json")
    tool_use_id = found.json_rows("exchange")[0]["hits"][0]["tool_use_id"]
    block = f"r:{tool_use_id}"
    fetched = show(f"@{LONG}", "--block", block, "--format", "json")
    assert fetched.code == 0, fetched.stderr
    (row,) = fetched.json_rows("block")
    digest = hashlib.sha256(row["text"].encode()).hexdigest()
    assert row["sha256"] == digest
    assert row["text"].startswith('     1\t"""Two-line element (TLE) parsing."""')

    verified = show(f"@{LONG}", "--block", block, "--sha256", digest, "--format", "json")
    assert verified.code == 0
    assert verified.summary()["sha256_verified"] is True

    wrong = show(f"@{LONG}", "--block", block, "--sha256", "0" * 64)
    assert wrong.code == 1
    assert "sha256 mismatch" in wrong.stderr and digest in wrong.stderr
    assert wrong.stdout == ""  # an unverified span is never printed


def test_a_block_holds_the_text_search_renders(cli, tmp_path: Path) -> None:
    """Tool references are joined by name, as search shows (and hashes) them; the block
    fetch wrote `[tool_reference: NAME]`, so its sha256 matched no search hit."""
    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("tool-references")
    s = Session(sid, cwd="/home/ada/src/t")
    s.add(user("which tools can you load?"))
    s.add(assistant(tool_use("ToolSearch", {"query": "team"}, id="toolu_search")))
    s.add(tool_result("toolu_search", [{"type": "tool_reference", "tool_name": "TeamCreate"},
                                       {"type": "tool_reference", "tool_name": "SendMessage"}]))
    home.session("/home/ada/src/t", sid, s)
    base = ("--claude-home", str(home.root))
    hit = cli(*base, "search", "SendMessage", f"@{sid}", "--format", "json",
              "--no-truncate")
    (exchange,) = hit.json_rows("exchange")
    (row,) = [h for h in exchange["hits"] if h["tool_use_id"] == "toolu_search"]
    block = cli(*base, "show", f"@{sid}", "--block", "r:toolu_search", "--format", "json")
    (fetched,) = block.json_rows("block")
    assert fetched["text"] == "TeamCreate\nSendMessage"
    assert row["excerpt"] == fetched["text"]  # the very text search matched
    assert fetched["sha256"] == hashlib.sha256(b"TeamCreate\nSendMessage").hexdigest()


def test_block_miss_is_an_error(show) -> None:
    result = show(f"@{LONG}", "--block", "r:toolu_01doesnotexist")
    assert result.code == 1
    assert "toolu_01doesnotexist" in result.stderr


# -- usage errors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ((f"@{LONG}", f"@{EXPLORE}", "--line", "1"), "exactly one TARGET"),
        ((f"@{LONG}",), "needs an address"),
        ((f"@{LONG}", "--line", "7", "--no-subagents"), "never spans"),
        ((f"@{LONG}", "--line", "7", "--subagents"), "never spans"),
        ((f"@{LONG}", "--line", "7", "--raw", "--format", "json"), "--raw"),
        ((f"@{LONG}", "--line", "7", "--turn", "0"), "mutually exclusive"),
        (("--line", "7"), "TARGET"),
    ],
)
def test_usage_errors_exit_2(show, args: tuple[str, ...], needle: str) -> None:
    result = show(*args)
    assert result.code == 2, (result.code, result.stderr)
    assert needle in result.stderr
    assert result.stdout == ""


def test_a_project_dir_target_is_not_one_transcript(show) -> None:
    result = show("-home-ada-src-orbit", "--line", "1")
    assert result.code == 1
    assert "exactly one transcript" in result.stderr


def test_parallel_tool_calls_are_no_branch_point(cli, tmp_path: Path) -> None:
    """csift v0.8.1: tool-result carriers, isMeta records and compaction summaries never
    count as children. Counted, every parallel tool fan-out was a fork (242 on the real
    corpus, of which 10 are forks)."""
    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("fan-out")
    s = Session(sid, cwd="/home/ada/src/fan")
    s.add(user("read both files"))
    first = s.add(assistant(tool_use("Read", {"file_path": "/a"}, id="toolu_a")))
    s.add(assistant(tool_use("Read", {"file_path": "/b"}, id="toolu_b")))
    s.add(tool_result("toolu_a", "contents of a"), parent=first["uuid"])
    s.add(user("<system-reminder>meta</system-reminder>", isMeta=True), parent=first["uuid"])
    s.add(user("This session is being continued …", isCompactSummary=True),
          parent=first["uuid"])
    retry = s.add(user("and a third one"))
    s.add(user("and a third one, please"), parent=retry["parentUuid"])  # a re-send
    home.session("/home/ada/src/fan", sid, s)
    result = cli("--claude-home", str(home.root), "show", f"@{sid}", "--branch-points",
                 "--format", "json")
    forks = result.json_rows("branch-point")
    assert [[c["line"] for c in f["children"]] for f in forks] == [[7, 8]]


def test_an_unrenderable_uuid_among_several_is_counted_like_a_line(cli, tmp_path: Path) -> None:
    """`--uuid A,B` failed whole when B's line renders nothing, where `--line a,b` prints
    a and counts b among the lines that are no record."""
    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("uuid-list")
    s = Session(sid, cwd="/home/ada/src/u")
    asked = s.add(user("the question"))
    # a CC 1.0 system record without a subtype: no leaf, nothing show renders
    hidden = s.add({"type": "system", "content": "Claude Opus 4 limit reached"})
    home.session("/home/ada/src/u", sid, s)
    base = ("--claude-home", str(home.root), "show", f"@{sid}")
    assert cli(*base, "--line", "2").code == 1
    single = cli(*base, "--uuid", hidden["uuid"])
    assert single.code == 1 and "is not a renderable record" in single.stderr
    both = cli(*base, "--uuid", f"{asked['uuid']},{hidden['uuid']}", "--format", "json")
    assert both.code == 0, both.stderr
    assert [r["line"] for r in both.json_rows("record")] == [1]
    assert both.summary()["non_record_lines"] == 1
    lines = cli(*base, "--line", "1,2", "--format", "json")
    assert lines.summary()["non_record_lines"] == 1


def test_the_sidecar_flag_speaks_of_the_records_printed(show) -> None:
    """A fetch whose cap cut the pending sidecar record still said `with elicitation
    sidecar` (and said it twice: stdout footer and a stderr note)."""
    capped = show(f"@{LONG}", "--turn", "0..", "--format", "json")
    rows = capped.json_rows("record")
    assert capped.summary()["dropped_by_cap"] > 0
    assert not any(r["source"] == "elicitation-sidecar" for r in rows)
    assert capped.summary()["with_elicitation_sidecar"] is False
    last = show(f"@{LONG}", "--turn", "-1")
    assert "with elicitation sidecar" in last.stdout
    assert "with elicitation sidecar" not in last.stderr


@pytest.mark.parametrize(("turns", "cap"), [("-1", "1"), ("-3..", "1"), ("-3..", "3")])
def test_a_cap_dropping_a_sidecar_record_continues_by_uuid(show, turns: str, cap: str) -> None:
    """A pending question merged from the elicitation sidecar has no line a range could
    name: when the cap drops it, the continuation names the dropped records by uuid, and
    following it shows exactly what the cap dropped."""
    uncapped = show(f"@{LONG}", "--turn", turns, "--max-count", "0", "--format", "json")
    everything = [(r["line"], r["uuid"]) for r in uncapped.json_rows("record")]
    assert (None, PENDING_AUQ_UUID) in everything and len(everything) > int(cap)
    capped = show(f"@{LONG}", "--turn", turns, "--max-count", cap, "--format", "json")
    summary = capped.summary()
    assert summary["dropped_by_cap"] == len(everything) - int(cap)
    remainder = summary["refetch_remainder"]
    assert remainder is not None and " --uuid " in remainder, remainder
    rest = show(*remainder.split()[2:], "--max-count", "0", "--format", "json")
    assert rest.code == 0, rest.stderr
    shown = [(r["line"], r["uuid"]) for r in capped.json_rows("record")]
    assert shown + [(r["line"], r["uuid"]) for r in rest.json_rows("record")] == everything


def test_one_uuid_in_two_project_dirs_is_told_apart_by_path(cli, tmp_path: Path) -> None:
    """A copied project leaves `<uuid>.jsonl` in two dirs: `@<uuid>` cannot name one, so
    the error names both paths, and either path fetches its own copy."""
    home = ClaudeHome(tmp_path / "claude")
    a = home.session("/w/a", LONG, user("first copy"), assistant("ok"))
    b = home.session("/w/b", LONG, user("second copy"), assistant("ok"))
    run = lambda *args: cli("--claude-home", str(home.root), "show", *args)  # noqa: E731
    failed = run(f"@{LONG}", "--line", "1")
    assert failed.code == 1
    assert str(a) in failed.stderr and str(b) in failed.stderr and "by its path" in failed.stderr
    for path, text in ((a, "first copy"), (b, "second copy")):
        shown = run(str(path), "--line", "1", "--format", "json")
        assert [r["text"] for r in shown.json_rows("record")] == [text]


def test_a_root_record_without_a_parent_key_is_a_located_fork_parent(cli, tmp_path: Path) -> None:
    """An older schema writes no ``parentUuid`` key on the first record: it is still a
    conversation record, and the fork parent's line is named."""
    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("rootless")
    s = Session(sid, cwd="/home/ada/src/old")
    root = s.add(user("summarise the notes"))
    s.add(assistant("first try"), parent=root["uuid"])
    s.add(assistant("second try"), parent=root["uuid"])
    path = home.session("/home/ada/src/old", sid, s)
    lines = path.read_text().splitlines()
    head = json.loads(lines[0])
    del head["parentUuid"]
    path.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n")
    result = cli("--claude-home", str(home.root), "show", f"@{sid}", "--branch-points",
                 "--format", "json")
    [fork] = result.json_rows("branch-point")
    assert (fork["uuid"], fork["line"]) == (root["uuid"], 1)
    assert result.summary()["conversation_records"] == 3


def test_image_ids_are_the_ids_image_lists(cli, tmp_path: Path) -> None:
    """A record's image ids come from where `image` numbers them (every image of the
    record in document order, direct and nested alike) and ride its first unit, as in
    search: a carrier with a direct image beside two results had its results labelled
    L3i1 and L3i2 (the ids of other pictures) and its third image never named (csift
    §6.9)."""
    from builders import image, text, tiny_png, user_blocks, user_with_images

    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("show-images")
    s = Session(sid, cwd="/w/imgs")
    s.add(user("look at these"))  # L1
    s.add(assistant(tool_use("Read", {"file_path": "/a.png"}, id="toolu_read"),
                    tool_use("Grep", {"pattern": "x"}, id="toolu_grep")))  # L2
    s.add(user_blocks(image(tiny_png(1, 1)),
                      {"type": "tool_result", "tool_use_id": "toolu_read",
                       "content": [image(tiny_png(2, 2))]},
                      {"type": "tool_result", "tool_use_id": "toolu_grep",
                       "content": [text("no match"), image(tiny_png(3, 3))]}))  # L3
    s.add(user_with_images("[Image #7] and this one", image(tiny_png(4, 4))))  # L4
    home.session("/w/imgs", sid, s)
    base = ("--claude-home", str(home.root))
    listed = cli(*base, "image", f"@{sid}", "--format", "json").json_rows("image")
    assert [r["id"] for r in listed if r["line"] == 3] == ["L3i1", "L3i2", "L3i3"]
    rows = cli(*base, "show", f"@{sid}", "--line", "3..4", "--format", "json").json_rows("record")
    assert [(r["line"], r["tool_name"], r["image_ids"]) for r in rows] == [
        (3, "Read", ["L3i1", "L3i2", "L3i3"]), (3, "Grep", []), (4, None, ["#7"])]
    searched = cli(*base, "search", "", f"@{sid}", "--format", "json")
    hits = [h for ex in searched.json_rows("exchange") for h in ex["hits"]]
    assert {h["line"]: h["image_ids"] for h in hits if h["image_ids"]} == {
        3: ["L3i1", "L3i2", "L3i3"], 4: ["#7"]}
    text_out = cli(*base, "show", f"@{sid}", "--line", "3").stdout
    assert "[3 image(s): L3i1, L3i2, L3i3]" in text_out


def _block_home(tmp_path: Path, msg_id: str) -> tuple[tuple[str, ...], str]:
    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("block-ids")
    s = Session(sid, cwd="/home/ada/src/b")
    s.add(user("say two things"))
    s.add(assistant("first part", msg_id=msg_id))
    s.add(assistant("second part", msg_id=msg_id))
    home.session("/home/ada/src/b", sid, s)
    return ("--claude-home", str(home.root)), sid


@pytest.mark.parametrize("block", ["a::p0", "a::p1", "a:"])
def test_a_block_id_without_a_message_id_is_a_usage_error(cli, tmp_path: Path,
                                                          block: str) -> None:
    """`--block a::p0` searched the transcript for the empty string and never returned
    (the next search started where the last one matched)."""
    import signal

    base, sid = _block_home(tmp_path, "msg_01plain")

    def hang(*_: object) -> None:
        raise TimeoutError(f"show --block {block} did not return")

    signal.signal(signal.SIGALRM, hang)
    signal.alarm(20)
    try:
        result = cli(*base, "show", f"@{sid}", "--block", block)
    finally:
        signal.alarm(0)
    assert result.code == 2, result.stderr
    assert "not a block id" in result.stderr


def test_a_message_id_holding_a_colon_names_its_parts(cli, tmp_path: Path) -> None:
    """A message id is whatever the API wrote: one holding `:` (a proxy's id) got
    `'a:…:p1' is not a block id`, though the fold index names its parts so."""
    base, sid = _block_home(tmp_path, "gw:req:42")
    first = cli(*base, "show", f"@{sid}", "--block", "a:gw:req:42:p0", "--format", "json")
    second = cli(*base, "show", f"@{sid}", "--block", "a:gw:req:42:p1", "--format", "json")
    assert first.code == 0 and second.code == 0, first.stderr + second.stderr
    assert first.json_rows("block")[0]["text"] == "first part"
    assert second.json_rows("block")[0]["text"] == "second part"


@pytest.mark.parametrize("raw", [False, True])
def test_a_uuid_named_twice_is_fetched_once(cli, tmp_path: Path, raw: bool) -> None:
    """`--uuid U,U` printed the record twice (and `fetched 2 record unit(s)`), where
    `--line 3,3` prints it once: one record is one record however often it is named."""
    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("uuid-twice")
    s = Session(sid, cwd="/home/ada/src/u")
    s.add(user("hello"))
    reply = s.add(assistant("hi there"))
    home.session("/home/ada/src/u", sid, s)
    uuid = reply["uuid"]
    args = ["--claude-home", str(home.root), "show", f"@{sid}", "--uuid", f"{uuid},{uuid}",
            "--uuid", uuid]
    result = cli(*args, "--raw") if raw else cli(*args, "--format", "json")
    assert result.code == 0, result.stderr
    if raw:
        assert len(result.stdout_bytes.splitlines()) == 1
    else:
        assert [r["line"] for r in result.json_rows("record")] == [2]
        assert result.summary()["records"] == 1


def test_a_replayed_record_is_no_second_child(cli, tmp_path: Path) -> None:
    """A compaction re-anchor writes a prompt again with its uuid and parent (SPEC §4: a
    replay copy, neither a draft nor an opener): one record on two lines, not two
    children, so its parent is no branch point. A re-send under a new uuid still is."""
    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("replay-copy")
    s = Session(sid, cwd="/home/ada/src/rp")
    s.add(user("plan the release"))
    reply = s.add(assistant("here is the plan"))
    prompt = s.add(user("now ship it"))
    shipped = s.add(assistant("shipped"))
    s.adopt([prompt])  # the re-anchor's copy: same uuid, same parent
    s.add(assistant("shipped, confirmed"), parent=shipped["uuid"])
    path = home.session("/home/ada/src/rp", sid, s)
    base = ("--claude-home", str(home.root), "show", f"@{sid}", "--branch-points",
            "--format", "json")
    result = cli(*base)
    assert result.code == 0, result.stderr
    assert result.json_rows("branch-point") == []

    resend = {**prompt, "uuid": stable_uuid("resend"), "message": {"role": "user",
                                                                  "content": "ship it now"}}
    with path.open("a") as fh:
        fh.write(json.dumps(resend) + "\n")
    [fork] = cli(*base).json_rows("branch-point")
    assert fork["uuid"] == reply["uuid"]
    assert [c["line"] for c in fork["children"]] == [3, 7]


def test_a_fork_parent_that_is_an_attachment_is_located(cli, tmp_path: Path) -> None:
    """Newer Claude Code chains attachment and progress records (188 and 189 conversation
    records of the real corpus hang off one): a fork under one said `(parent line not
    located)` and `line: null` although the parent sits on a line of the file."""
    from builders import attachment

    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("attachment-parent")
    s = Session(sid, cwd="/home/ada/src/at")
    s.add(user("open the notes"))
    s.add(assistant("opened"))
    hook = s.add(attachment("hook_additional_context", {"content": ["be brief"]}))
    s.add(user("summarise them"), parent=hook["uuid"])
    s.add(user("summarise them in one line"), parent=hook["uuid"])
    home.session("/home/ada/src/at", sid, s)
    result = cli("--claude-home", str(home.root), "show", f"@{sid}", "--branch-points",
                 "--format", "json")
    [fork] = result.json_rows("branch-point")
    assert (fork["uuid"], fork["line"]) == (hook["uuid"], 3)
    assert [c["line"] for c in fork["children"]] == [4, 5]
    assert result.summary()["conversation_records"] == 4
    text = cli("--claude-home", str(home.root), "show", f"@{sid}", "--branch-points").stdout
    assert "not located" not in text
