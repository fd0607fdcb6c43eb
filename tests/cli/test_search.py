"""``pysift search`` through the real argv path (SPEC §6.2, §6.4, §5; wire-format §2)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from builders import ClaudeHome, Session, assistant, stable_uuid, user
from conftest import CLONE, EXPLORE, LONG, SVALBARD, physical_lines

PENDING_AUQ_UUID = "0a57abd4-de75-411d-a82f-cfa266b1b3e2"
PENDING_AUQ_TOOL_USE = "toolu_01n59EHaXGsLxuhVBv339ilE"

EXCHANGE_KEYS = {"kind", "session_id", "is_subagent", "parent_session_id", "turn_index",
                 "superseded_draft", "ts_utc", "ts_local", "hits", "record_uuids"}
HIT_KEYS = {"session_id", "is_subagent", "parent_session_id", "label", "labels", "excerpt",
            "ts_utc", "ts_local", "tool_name", "from", "to", "pairing", "is_error", "tool_use_id",
            "queue_operation", "queue_reason", "line", "uuid", "source", "image_ids", "refetch"}
SUMMARY_KEYS = {"kind", "matched", "sessions", "transcript_ids", "transcript_ids_truncated",
                "dropped_by_cap", "skipped_lines", "superseded_drafts",
                "with_elicitation_sidecar", "excerpts_truncated", "unreadable"}
ZERO_KEYS = {"definitive_absence", "active_filters", "gated_leaves_unreached",
             "excluded_by_label"}
CENSUS_SUMMARY_KEYS = {"kind", "axis", "matched_records", "distinct_keys", "excluded_records",
                       "multi_key_records", "dropped_by_cap", "skipped_lines", "unreadable"}


@pytest.fixture
def search(cli, demo_home: Path):
    def run(*args: str):
        return cli("--claude-home", str(demo_home), "search", *args)
    return run


def _hits(result) -> list[dict]:
    return [h for ex in result.json_rows("exchange") for h in ex["hits"]]


def _labels(result) -> set[str]:
    return {h["label"] for h in _hits(result)}




# -- the pattern -------------------------------------------------------------------------------


@pytest.fixture
def case_home(tmp_path: Path) -> ClaudeHome:
    home = ClaudeHome(tmp_path / "claude")
    s = Session(stable_uuid("case"), cwd="/home/ada/src/case")
    for prompt in ("the Widget is broken", "a widget works here", "WIDGET in capitals"):
        s.add(user(prompt))
        s.add(assistant("noted"))
    home.session("/home/ada/src/case", s.session_id, s)
    return home


def _count(cli, home: ClaudeHome, *args: str) -> int:
    result = cli("--claude-home", str(home.root), "search", *args, "-c")
    assert result.code == 0, result.stderr
    return int(result.stdout)


def test_smart_case(cli, case_home: ClaudeHome) -> None:
    assert _count(cli, case_home, "widget") == 3  # all lowercase: insensitive
    assert _count(cli, case_home, "Widget") == 1  # an uppercase letter: sensitive
    assert _count(cli, case_home, "WIDGET") == 1
    assert _count(cli, case_home, "-i", "Widget") == 3  # -i wins
    assert _count(cli, case_home, "--ignore-case", "WIDGET") == 3


def test_regex_dialect_is_linear_time(search) -> None:
    for pattern, needle in (("(a)\\1", "backreference"), ("a(?=b)", "lookahead"),
                            ("(?<=a)b", "lookbehind")):
        result = search(pattern)
        assert result.code == 2, (pattern, result.stderr)
        assert needle in result.stderr
        assert result.stdout == ""
    assert search("ep(o|0)ch", "-c").code == 0  # alternation and groups are fine


def test_at_pattern_is_refused(search) -> None:
    result = search("@3f6c1e2a")
    assert result.code == 2
    assert "PATTERN @<uuid>" in result.stderr


# -- label selectors ---------------------------------------------------------------------------


def test_bare_role_excludes_the_draft_leaf(search) -> None:
    as_role = search("configurable", f"@{LONG}", "-t", "user", "--format", "json")
    assert as_role.code == 0, as_role.stderr
    labels = _labels(as_role)
    assert labels and all(label.startswith("user.") for label in labels)
    assert "user.unsent" not in labels
    explicit = search("configurable", f"@{LONG}", "-t", "user.unsent", "--format", "json")
    assert _labels(explicit) == {"user.unsent"}


def test_label_not_subtracts(search) -> None:
    result = search("", f"@{LONG}", "--no-subagents", "-t", "agent", "-T", "agent.thinking",
                    "--format", "json")
    assert result.code == 0, result.stderr
    labels = _labels(result)
    assert {"agent.message", "agent.tool.use"} <= labels
    assert not any(label.startswith(("agent.thinking", "user.", "harness.")) for label in labels)
    text = search("", f"@{LONG}", "--no-subagents", "-t", "agent", "-T", "agent.thinking").stdout
    assert "label=agent · label-not=agent.thinking" in text


def test_glob_reaches_the_invisible_leaves(search) -> None:
    def census(*selectors: str) -> dict[str, int]:
        result = search("", f"@{LONG}", "--no-subagents", *selectors, "--count-by", "label",
                        "--format", "json")
        assert result.code == 0, result.stderr
        return {r["key"]: r["records"] for r in result.json_rows("census")}

    globbed = census("-t", "harness.*")
    role = census("-t", "harness")
    assert "harness.compaction.boundary" in globbed
    assert "harness.compaction.boundary" not in role
    assert all(key.startswith("harness.") for key in globbed)
    assert set(role) < set(globbed)


def test_retired_flat_labels_name_their_successors(search) -> None:
    thinking = search("x", "-t", "thinking")
    assert thinking.code == 2
    assert "agent.thinking" in thinking.stderr
    tool = search("x", "-t", "tool")
    assert tool.code == 2
    assert "agent.tool" in tool.stderr
    unknown = search("x", "-t", "nonsense")
    assert unknown.code == 2
    assert "user.message" in unknown.stderr  # the valid set is listed


def test_statically_empty_selection_is_an_error(search) -> None:
    result = search("x", "-t", "user", "-T", "user")
    assert result.code == 2
    assert "empty" in result.stderr
    assert result.stdout == ""


# -- windows ------------------------------------------------------------------------------------


def test_turn_and_since_intersect(search) -> None:
    both = search("", f"@{LONG}", "--no-subagents", "-t", "user.message", "--turn", "0..5",
                  "--since", "2026-10-05T08:44:00Z", "--format", "json")
    assert both.code == 0, both.stderr
    turns = [ex["turn_index"] for ex in both.json_rows("exchange")]
    assert turns and all(1 <= t <= 5 for t in turns)
    assert all(ex["ts_utc"] >= "2026-10-05T08:44:00" for ex in both.json_rows("exchange"))
    turn_only = search("", f"@{LONG}", "--no-subagents", "-t", "user.message", "--turn", "0..5",
                       "--format", "json")
    assert 0 in [ex["turn_index"] for ex in turn_only.json_rows("exchange")]
    since_only = search("", f"@{LONG}", "--no-subagents", "-t", "user.message", "--since",
                        "2026-10-05T08:44:00Z", "--format", "json")
    assert max(ex["turn_index"] for ex in since_only.json_rows("exchange")) > 5


def test_turn_window_suppresses_the_draft(search) -> None:
    everything = search("configurable", f"@{LONG}", "--format", "json")
    assert any(ex["superseded_draft"] for ex in everything.json_rows("exchange"))
    windowed = search("configurable", f"@{LONG}", "--turn", "0..", "--format", "json")
    assert windowed.json_rows("exchange")
    assert not any(ex["superseded_draft"] for ex in windowed.json_rows("exchange"))


# -- exchanges ------------------------------------------------------------------------------------


def test_exchange_json_shape(search) -> None:
    result = search("epoch", "--format", "json")
    assert result.code == 0, result.stderr
    assert set(result.header()) == {"kind", "command", "sessions_in_scope",
                                    "top_level_sessions", "subagent_sessions"}
    assert result.header()["command"] == "search"
    for ex in result.json_rows("exchange"):
        assert set(ex) == EXCHANGE_KEYS
        for hit in ex["hits"]:
            assert set(hit) == HIT_KEYS
            assert (hit["session_id"], hit["is_subagent"], hit["parent_session_id"]) == \
                (ex["session_id"], ex["is_subagent"], ex["parent_session_id"])
    summary = result.summary()
    assert set(summary) == SUMMARY_KEYS
    assert summary["matched"] == len(result.json_rows("exchange"))
    ids = sorted({ex["session_id"] for ex in result.json_rows("exchange")})
    assert summary["transcript_ids"] == ids and summary["sessions"] == len(ids)


def test_exchanges_are_chronological_across_files(search) -> None:
    # a subagent's opener is its parent's delivered prompt (agent.communication.inbox)
    result = search("", "-t", "user.message", "-t", "agent.communication.inbox", "--format",
                    "json")
    assert result.code == 0, result.stderr
    exchanges = result.json_rows("exchange")
    stamps = [ex["ts_utc"] for ex in exchanges]
    dated = [s for s in stamps if s is not None]
    assert dated == sorted(dated)
    assert stamps[: len(dated)] == dated  # undated last
    order = [ex["session_id"] for ex in exchanges]
    first_sub = next(i for i, sid in enumerate(order) if sid == EXPLORE)
    # the subagent's exchange interleaves with its parent's, it is not grouped per file
    assert LONG in order[:first_sub] and LONG in order[first_sub + 1:]


def test_record_uuids_carry_the_tool_pair(search, cli, demo_home: Path) -> None:
    result = search("Re-run the epoch regression", f"@{LONG}", "--no-subagents",
                    "--format", "json")
    (ex,) = result.json_rows("exchange")
    (hit,) = ex["hits"]
    assert hit["label"] == "agent.tool.use" and hit["pairing"] == "paired"
    turn = cli("--claude-home", str(demo_home), "show", f"@{LONG}", "--turn",
               str(ex["turn_index"]), "--format", "json").json_rows("record")
    result_uuids = [r["uuid"] for r in turn if r["tool_use_id"] == hit["tool_use_id"]
                    and r["label"] == "agent.tool.result"]
    assert len(result_uuids) == 1
    assert hit["uuid"] in ex["record_uuids"]
    assert result_uuids[0] in ex["record_uuids"]
    text = search("Re-run the epoch regression", f"@{LONG}", "--no-subagents").stdout
    assert "▸ agent.tool.use ▹ agent.tool.result Bash  L" in text


def test_a_carrier_whose_result_block_sits_under_a_misspelled_key_pairs_nothing(
        cli, home) -> None:
    """The real corpus' claude-code-log fixture: the call's carrier writes ``"contenst"``,
    so no view reads a result there, yet its bytes hold the join's keys and the call read
    ``paired`` (``▹ agent.tool.result``, the carrier stitched, `--count-by pairing` said
    paired) where csift's join (``tool_result.tool_use_id == tool_use.id``) finds none."""
    from builders import tool_result, tool_use

    sid = stable_uuid("contenst")
    s = Session(sid, cwd="/w/p")
    s.add(user("write the example"))
    s.add(assistant(tool_use("Write", {"file_path": "/tmp/example.py"}, id="toolu_w")))
    carrier = tool_result("toolu_w", "File created successfully")
    carrier["message"] = {"role": "user", "contenst": carrier["message"]["content"]}
    orphaned = s.add(carrier)
    home.session("/w/p", sid, s)
    run = lambda *a: cli("--claude-home", str(home.root), *a)  # noqa: E731
    (ex,) = run("search", "example.py", "--format", "json").json_rows("exchange")
    (hit,) = ex["hits"]
    assert (hit["label"], hit["pairing"]) == ("agent.tool.use", "pending")
    assert orphaned["uuid"] not in ex["record_uuids"]
    census = run("search", "", "-t", "agent.tool.use", "--count-by", "pairing",
                 "--format", "json").json_rows("census")
    assert [(r["key"], r["records"]) for r in census] == [("pending", 1)]
    shown = run("show", f"@{sid}", "--line", "2").stdout
    assert "agent.tool.use (no result — pending) Write" in shown


@pytest.mark.parametrize("args", [("epoch",), ("release",), ("", "-t", "user"),
                                  ("cache", "-t", "agent.message", "--no-subagents")])
def test_count_only_equals_the_json_exchange_count(search, args: tuple[str, ...]) -> None:
    counted = search(*args, "-c")
    assert counted.code == 0, counted.stderr
    as_json = search(*args, "--format", "json")
    assert int(counted.stdout) == len(as_json.json_rows("exchange")) > 0
    json_count = search(*args, "-c", "--format", "json")
    assert json_count.json_rows() == [json_count.header(),
                                      {"kind": "summary", "matched": int(counted.stdout),
                                       "unreadable": 0}]


def test_sessions_with_matches_lists_sorted_owners(search) -> None:
    owners = search("svalbard", "-l")
    assert owners.code == 0, owners.stderr
    assert owners.stdout == f"{LONG}\n"  # subagent hits report their owning session
    release = search("release", "-l")
    listed = release.stdout.splitlines()
    assert listed == sorted(set(listed)) and len(listed) > 1
    as_json = search("release", "--format", "json")
    assert set(listed) == {ex["parent_session_id"] for ex in as_json.json_rows("exchange")}


def test_sessions_with_matches_refuses_json(search) -> None:
    result = search("release", "-l", "--format", "json")
    assert result.code == 2
    assert result.stdout == ""


# -- census -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("axis", ["label", "tool", "turn", "pairing"])
def test_count_by_census_rows_and_summary(search, axis: str) -> None:
    result = search("", f"@{LONG}", "--count-by", axis, "--format", "json")
    assert result.code == 0, result.stderr
    rows = result.json_rows("census")
    assert rows
    for row in rows:
        assert set(row) == {"kind", "axis", "key", "records"}
        assert row["axis"] == axis and row["records"] > 0
    summary = result.summary()
    assert set(summary) == CENSUS_SUMMARY_KEYS
    assert summary["axis"] == axis
    assert summary["distinct_keys"] == len(rows)
    # every record is counted (under each of its keys) or reported, never dropped silently
    keyed = sum(r["records"] for r in rows) + summary["excluded_records"]
    assert keyed >= summary["matched_records"]
    if not summary["multi_key_records"]:
        assert keyed == summary["matched_records"]
    if axis == "turn":
        keys = [r["key"] for r in rows]
        assert all(re.fullmatch(r".+·t\d+", k) for k in keys)  # >1 transcript in scope
        parent_turns = [int(k.rsplit("·t", 1)[1]) for k in keys if k.startswith(LONG)]
        assert parent_turns == sorted(parent_turns)
    else:  # count-descending, ties by key (csift's code; wire-format §search census)
        assert [(-r["records"], r["key"]) for r in rows] == \
            sorted((-r["records"], r["key"]) for r in rows)
    text = search("", f"@{LONG}", "--count-by", axis)
    assert text.stdout.splitlines() == [f"{r['records']:7d}  {r['key']}" for r in rows]
    assert f"matched record(s) across {len(rows)} {axis} key(s)" in text.stderr


def test_count_by_pairing_keys(search) -> None:
    result = search("", f"@{LONG}", "--count-by", "pairing", "--format", "json")
    keys = {r["key"]: r["records"] for r in result.json_rows("census")}
    assert set(keys) <= {"paired", "pending", "orphan"}
    assert keys["pending"] >= 1  # the AskUserQuestion waiting in the elicitation sidecar


@pytest.fixture
def parallel_home(tmp_path: Path) -> ClaudeHome:
    """Records holding several tool blocks: two parallel calls (one answered, one still
    pending), then a Read and an Edit answered by one carrier whose Edit result failed."""
    from builders import tool_use, user_blocks

    home = ClaudeHome(tmp_path / "claude")
    s = Session(stable_uuid("parallel"), cwd="/home/ada/src/par")
    s.add(user("run two things"))
    s.add(assistant(tool_use("Bash", {"command": "ls"}, id="toolu_ls"),
                    tool_use("Bash", {"command": "sleep 999"}, id="toolu_sleep")))
    s.add(user_blocks({"type": "tool_result", "tool_use_id": "toolu_ls", "content": "a b"}))
    s.add(assistant(tool_use("Read", {"file_path": "/x"}, id="toolu_read"),
                    tool_use("Edit", {"file_path": "/x", "old_string": "a", "new_string": "b"},
                             id="toolu_edit")))
    s.add(user_blocks({"type": "tool_result", "tool_use_id": "toolu_read", "content": "ok"},
                      {"type": "tool_result", "tool_use_id": "toolu_edit", "is_error": True,
                       "content": "<tool_use_error>String to replace not found</tool_use_error>"}))
    home.session("/home/ada/src/par", s.session_id, s)
    return home


@pytest.mark.parametrize(("axis", "want", "several"), [
    # the pending sleep rides the record of the answered ls: "any pending tools?" says yes
    ("pairing", {"paired": 4, "pending": 1}, 1),
    # the carrier of Read and Edit holds an ok and an error result
    ("result", {"ok": 2, "error": 1}, 1),
    # each record names both of its tools (calls and carriers: records, not calls)
    ("tool", {"Bash": 2, "Read": 2, "Edit": 2}, 2),
])
def test_count_by_counts_a_record_under_each_key_it_carries(
        cli, parallel_home: ClaudeHome, axis: str, want: dict[str, int], several: int) -> None:
    """A record of several tool blocks is counted under every distinct key it carries,
    each once (as the label axis does), and the summary and the tally line say how many
    records that was: one key per record hid the pending call, the failed Edit and the
    second tool (SPEC §7 --count-by)."""
    base = ("--claude-home", str(parallel_home.root), "search", "", "--count-by", axis)
    result = cli(*base, "--format", "json")
    assert result.code == 0, result.stderr
    assert {r["key"]: r["records"] for r in result.json_rows("census")} == want
    summary = result.summary()
    assert summary["multi_key_records"] == several
    text = cli(*base)
    assert f"{several} record(s) counted under several keys" in text.stderr


def test_count_by_label_counts_a_record_under_every_leaf(search) -> None:
    """A leaf's census count is how many records ``-t <leaf>`` surfaces (§6.2 --count-by)."""
    census = search("", f"@{LONG}", "--no-subagents", "--count-by", "label", "--format", "json")
    by_leaf = {r["key"]: r["records"] for r in census.json_rows("census")}
    for leaf in ("agent.tool.result", "harness.command.invocation", "user.message"):
        alone = search("", f"@{LONG}", "--no-subagents", "-t", leaf, "--count-by", "label",
                       "--format", "json")
        assert by_leaf[leaf] == alone.summary()["matched_records"], leaf


def test_count_by_conflicts_with_other_modes(search) -> None:
    assert search("x", "--count-by", "label", "-c").code == 2
    assert search("x", "--count-by", "label", "--siblings").code == 2
    assert search("x", "--count-by", "nonsense").code == 2


# -- raw ----------------------------------------------------------------------------------------------


def test_raw_lines_are_verbatim_transcript_lines(search, demo_home: Path) -> None:
    orbit = demo_home / "projects" / "-home-ada-src-orbit"
    files = [orbit / f"{LONG}.jsonl", *sorted((orbit / LONG / "subagents").rglob("agent-*.jsonl"))]
    known = {line for path in files for line in physical_lines(path)}
    raw = search("epoch", f"@{LONG}", "--raw")
    assert raw.code == 0, raw.stderr
    emitted = raw.stdout_bytes.split(b"\n")
    assert emitted.pop() == b""
    assert emitted and all(line in known for line in emitted)
    assert len(emitted) == len(set(emitted))  # deduped per record
    as_json = search("epoch", f"@{LONG}", "--format", "json")
    located = {(h["session_id"], h["line"]) for h in _hits(as_json) if h["line"] is not None}
    assert len(emitted) == len(located)


@pytest.mark.parametrize("n", ["2", "-2"])
def test_raw_caps_the_exchanges_the_rendered_run_keeps(cli, tmp_path: Path, n: str) -> None:
    """--raw --max-count N prints the lines of the same N exchanges as the rendered run
    (the earliest, or with -N the latest, across sessions), not the first lines in file
    order: the later session's file sorts first by name."""
    home = ClaudeHome(tmp_path / "claude")
    late = Session(stable_uuid("a-late"), cwd="/w/a", start=datetime(2026, 3, 1, tzinfo=UTC))
    early = Session(stable_uuid("b-early"), cwd="/w/b", start=datetime(2026, 1, 1, tzinfo=UTC))
    for s, when in ((late, "march"), (early, "january")):
        for turn in range(2):
            s.add(user(f"the heron count, {when} turn {turn}"))
            s.add(assistant(f"a heron was seen ({when} {turn})"))
        home.session(s.cwd, s.session_id, s)
    run = lambda *args: cli("--claude-home", str(home.root), "search", "heron", *args)  # noqa: E731
    rendered = run("--max-count", n, "--format", "json").json_rows("exchange")
    want = [(ex["session_id"], h["line"]) for ex in rendered for h in ex["hits"]]
    raw = run("--max-count", n, "--raw")
    got = [(json.loads(line)["sessionId"], _line_of(home, json.loads(line)))
           for line in raw.stdout.splitlines()]
    assert got == want
    assert {sid for sid, _ in got} == {early.session_id if n == "2" else late.session_id}
    assert "note: 2 exchange(s) (4 line(s)) dropped by --max-count" in raw.stderr


def _line_of(home: ClaudeHome, record: dict) -> int:
    """The 1-based line of ``record`` in its session's transcript (found by its uuid)."""
    [path] = list(home.root.rglob(f"{record['sessionId']}.jsonl"))
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if json.loads(line).get("uuid") == record["uuid"]:
            return number
    raise AssertionError(record["uuid"])


def test_raw_omits_sidecar_records_with_a_note(search) -> None:
    result = search("published", f"@{LONG}", "-t", "agent.tool.use", "--raw")
    assert result.code == 0
    assert result.stdout == ""
    assert "elicitation-sidecar record(s) omitted" in result.stderr
    assert "DEFINITIVE absence" not in result.stderr  # it matched: the match has no line


def test_raw_caps_an_exchange_of_sidecar_records_as_the_rendered_run(cli, home) -> None:
    """An exchange of sidecar records only (a session whose first question is pending,
    nothing flushed yet) has no line: --raw left it out before the cap, so `--max-count 2`
    printed the lines of the third exchange and dropped none, `-2` printed an exchange the
    cap drops, and the cap's note counted neither."""
    from builders import auq_use, elicitation_pending

    busy = stable_uuid("raw-busy")
    s = Session(busy, cwd="/w/db")
    s.add(user("pick a database please"))
    s.add(assistant("database choices coming"))
    s.add(user("database: go on"))
    s.add(assistant("Looking at database options."))
    path = home.session("/w/db", busy, s)
    ask = s.stamp(assistant(auq_use([{"question": "Which database?", "options": ["A", "B"]}],
                                    id="toolu_busy")), commit=False)
    home.sidecar(path, [elicitation_pending(ask, "toolu_busy")])
    first = stable_uuid("raw-first-ask")
    f = Session(first, cwd="/w/db")
    path = home.session("/w/db", first, f)
    ask = f.stamp(assistant(auq_use([{"question": "Which database for the new one?",
                                      "options": ["A", "B"]}], id="toolu_first")),
                  commit=False)
    home.sidecar(path, [elicitation_pending(ask, "toolu_first")])

    def run(*args: str):
        result = cli("--claude-home", str(home.root), "search", "database", *args)
        assert result.code == 0, result.stderr
        return result

    rendered = run("--format", "json").json_rows("exchange")
    assert [(ex["session_id"], ex["turn_index"]) for ex in rendered] == [
        (busy, 0), (first, 0), (busy, 1)]

    def lines(result) -> list[str]:
        """The text of each printed line (a user's string, an assistant's text block)."""
        out = []
        for line in result.stdout.splitlines():
            content = json.loads(line)["message"]["content"]
            out.append(content if isinstance(content, str) else content[0]["text"])
        return out

    two = run("--raw", "--max-count", "2")
    assert lines(two) == ["pick a database please", "database choices coming"]
    assert ("note: 1 exchange(s) (2 line(s) and 1 elicitation-sidecar record(s)) dropped by "
            "--max-count") in two.stderr
    assert "note: 1 elicitation-sidecar record(s) omitted (no physical line)" in two.stderr
    last_two = run("--raw", "--max-count", "-2")
    assert lines(last_two) == ["database: go on", "Looking at database options."]
    assert "note: 1 exchange(s) (2 line(s)) dropped by --max-count" in last_two.stderr
    assert "note: 2 elicitation-sidecar record(s) omitted" in last_two.stderr
    one = run("--raw", "--max-count", "1")
    assert ("note: 2 exchange(s) (2 line(s) and 2 elicitation-sidecar record(s)) dropped"
            in one.stderr)
    assert "omitted (no physical line)" not in one.stderr


@pytest.mark.parametrize("name", ["small", "edge cases", "cafe1234"])
def test_sessions_with_matches_feed_back_through_sessions_from(cli, tmp_path: Path,
                                                               name: str) -> None:
    """`-l | --sessions-from -` scopes exactly the listed sessions, also when a file's name
    is no id the @-grammar takes (it is listed by path, a line of its own)."""
    home = ClaudeHome(tmp_path / "claude")
    home.session("/w/a", stable_uuid("a"), user("the fjord map"), assistant("ok"))
    hand = home.session("/w/b", name, user("a fjord note"), assistant("ok"))
    home.session("/w/c", stable_uuid("c"), user("no match here"), assistant("ok"))
    run = lambda *args, stdin="": cli("--claude-home", str(home.root), *args, stdin=stdin)  # noqa: E731
    listed = run("search", "fjord", "-l")
    assert listed.code == 0, listed.stderr
    assert sorted(listed.stdout.splitlines()) == sorted([stable_uuid("a"), str(hand)])
    again = run("search", "", "--sessions-from", "-", "-c", stdin=listed.stdout)
    assert (again.code, again.stdout.strip()) == (0, "2"), again.stderr

@pytest.mark.parametrize("other", [("--format", "json"), ("--siblings",), ("-c",), ("-l",),
                                   ("--no-truncate",)])
def test_raw_conflicts(search, other: tuple[str, ...]) -> None:
    result = search("epoch", "--raw", *other)
    assert result.code == 2
    assert "--raw" in result.stderr


# -- siblings ---------------------------------------------------------------------------------------


def test_siblings_show_the_rest_of_the_turn(search) -> None:
    result = search("amend again", f"@{LONG}", "--siblings", "--format", "json")
    (ex,) = result.json_rows("exchange")
    assert [(s["label"], s["line"]) for s in ex["siblings"]] == [
        ("agent.tool.use", 331), ("agent.tool.result", 332), ("agent.message", 333)]
    assert ex["siblings_hidden"] == 0
    assert ex["turn_lines"][0] == ex["hits"][0]["line"] == 330
    for sibling in ex["siblings"]:
        assert set(sibling) == HIT_KEYS
    text = search("amend again", f"@{LONG}", "--siblings").stdout
    assert "  · agent.message  L333  Done: `v0.4.0` is on `0f6c93b`." in text
    plain = search("amend again", f"@{LONG}", "--format", "json")
    assert "siblings" not in plain.json_rows("exchange")[0]


def test_siblings_overflow_points_at_show(search) -> None:
    result = search("Too much at once", f"@{LONG}", "--no-subagents", "--siblings",
                    "--format", "json")
    (ex,) = result.json_rows("exchange")
    assert ex["siblings_hidden"] > 0
    per_leaf: dict[str, int] = {}
    for sibling in ex["siblings"]:
        per_leaf[sibling["label"]] = per_leaf.get(sibling["label"], 0) + 1
    assert per_leaf.get("agent.tool.use", 0) <= 3 and per_leaf.get("agent.tool.result", 0) <= 3
    text = search("Too much at once", f"@{LONG}", "--no-subagents", "--siblings").stdout
    assert re.search(rf"^  · \(\+{ex['siblings_hidden']} more · pysift show @{LONG} "
                     r"--line \d+\.\.\d+\)$", text, re.M)


# -- caps and truncation --------------------------------------------------------------------------


def test_positive_max_count_keeps_the_earliest(search) -> None:
    full = search("release", "--format", "json").json_rows("exchange")
    assert len(full) > 3
    capped = search("release", "--max-count", "2", "--format", "json")
    assert capped.json_rows("exchange") == full[:2]
    assert capped.summary()["dropped_by_cap"] == len(full) - 2
    assert capped.summary()["matched"] == 2
    text = search("release", "--max-count", "2").stdout
    assert "· oldest first · showing earliest 2" in text
    assert f"· {len(full) - 2} later dropped by --max-count" in text


def test_negative_max_count_keeps_the_latest(search) -> None:
    full = search("release", "--format", "json").json_rows("exchange")
    capped = search("release", "--max-count", "-2", "--format", "json")
    assert capped.json_rows("exchange") == full[-2:]
    assert capped.summary()["dropped_by_cap"] == len(full) - 2
    text = search("release", "--max-count", "-2").stdout
    assert "· showing latest 2" in text
    assert f"· {len(full) - 2} earlier dropped by --max-count" in text


def test_a_capped_text_run_states_the_true_totals(search) -> None:
    """The head banner and the footer give the pre-cap totals beside the cap's window
    (they counted only the kept exchanges and their sessions)."""
    full = search("release", "--max-count", "0", "--format", "json")
    total = len(full.json_rows("exchange"))
    sessions = len({ex["session_id"] for ex in full.json_rows("exchange")})
    assert sessions > 1
    text = search("release", "--max-count", "1").stdout
    assert (f"matches  {total} exchange(s) · {sessions} session(s) · oldest first · "
            "showing earliest 1") in text
    assert (f"matched {total} exchange(s) · {sessions} session(s) · label=all · "
            f"{total - 1} later dropped by --max-count") in text


def test_the_sidecar_flag_speaks_of_the_emitted_exchanges(search) -> None:
    full = search("", "-t", "agent", "--max-count", "0", "--format", "json")
    rows = full.json_rows("exchange")
    with_sidecar = [i for i, ex in enumerate(rows)
                    if any(h["source"] for h in ex["hits"])]
    assert with_sidecar and full.summary()["with_elicitation_sidecar"] is True
    first = with_sidecar[0]
    before = search("", "-t", "agent", "--max-count", str(first), "--format", "json")
    assert before.summary()["with_elicitation_sidecar"] is False
    through = search("", "-t", "agent", "--max-count", str(first + 1), "--format", "json")
    assert through.summary()["with_elicitation_sidecar"] is True


def test_a_clipped_sibling_excerpt_counts_as_truncation(cli, tmp_path: Path) -> None:
    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("long-sibling")
    home.session("/home/ada/src/x", sid, user("where is the gasket?"),
                 assistant("It is in the drawer. " + "Details follow at length. " * 60))
    base = ("--claude-home", str(home.root), "search", "gasket", "--siblings")
    result = cli(*base, "--format", "json")
    (exchange,) = result.json_rows("exchange")
    assert exchange["siblings"] and exchange["siblings"][0]["excerpt"].endswith("chars)")
    assert not any(h["excerpt"].endswith("chars)") for h in exchange["hits"])
    assert result.summary()["excerpts_truncated"] is True
    assert "note: matches above are TRUNCATED" in cli(*base).stdout


def test_a_rejected_call_is_an_errored_result(cli, tmp_path: Path) -> None:
    """A rejection record is a tool result too (`is_error: true` on its block): the hit
    says so and `--count-by result` files it under error, not ok."""
    from builders import rejection, tool_use

    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("rejected")
    s = Session(sid, cwd="/home/ada/src/r")
    s.add(user("tidy the notes"))
    s.add(assistant(tool_use("Bash", {"command": "rm -rf notes"}, id="toolu_rm")))
    s.add(rejection("toolu_rm", "move them to notes/archive instead"))
    home.session("/home/ada/src/r", sid, s)
    base = ("--claude-home", str(home.root), "search", "", "-t", "user.rejection")
    (exchange,) = cli(*base, "--format", "json").json_rows("exchange")
    (hit,) = exchange["hits"]
    assert hit["label"] == "user.rejection" and hit["is_error"] is True
    census = cli(*base, "--count-by", "result", "--format", "json").json_rows("census")
    assert [(r["key"], r["records"]) for r in census] == [("error", 1)]


def test_max_count_zero_is_uncapped(search) -> None:
    full = search("release", "--format", "json")
    zero = search("release", "--max-count", "0", "--format", "json")
    assert zero.json_rows("exchange") == full.json_rows("exchange")
    assert zero.summary()["dropped_by_cap"] == 0


def test_no_truncate_gives_the_full_record_text(search, cli, demo_home: Path) -> None:
    clipped = search("Two-line element", f"@{LONG}", "--no-subagents", "--format", "json")
    (hit,) = [h for h in _hits(clipped) if h["line"] == 10]
    assert re.search(r"… \(\+\d+ chars\)$", hit["excerpt"])
    assert clipped.summary()["excerpts_truncated"] is True
    assert "note: matches above are TRUNCATED" in search("Two-line element", f"@{LONG}",
                                                         "--no-subagents").stdout
    full = search("Two-line element", f"@{LONG}", "--no-subagents", "--no-truncate",
                  "--format", "json")
    (whole,) = [h for h in _hits(full) if h["line"] == 10]
    shown = cli("--claude-home", str(demo_home), "show", f"@{LONG}", "--line", "10",
                "--format", "json").json_rows("record")
    assert whole["excerpt"] in {r["text"] for r in shown}
    assert full.summary()["excerpts_truncated"] is False
    assert "TRUNCATED" not in search("Two-line element", f"@{LONG}", "--no-subagents",
                                     "--no-truncate").stdout


# -- zero matches -----------------------------------------------------------------------------------


def test_zero_matches_is_a_definitive_absence(search) -> None:
    result = search("zzqqxxnothere")
    assert result.code == 0
    assert result.stdout == ""
    assert ("0 matches — a DEFINITIVE absence (exit 0), NOT an error. Scope: 9 session(s). "
            "Active filters: none.") in result.stderr
    assert 'pysift search "" --count-by label' in result.stderr  # the whole home: no target
    as_json = search("zzqqxxnothere", "--format", "json")
    assert as_json.code == 0
    assert as_json.json_rows("exchange") == []
    summary = as_json.summary()
    assert set(summary) == SUMMARY_KEYS | ZERO_KEYS
    assert summary["definitive_absence"] is True
    assert summary["matched"] == 0
    assert summary["active_filters"] == "none"
    assert summary["excluded_by_label"] is None


def test_a_selected_leaf_starved_of_its_flag_makes_no_definitive_absence(search) -> None:
    """`-t harness.meta.attachment` without --attachments reaches no record: its zero
    says so, and that records under the leaf hold the pattern, instead of "DEFINITIVE"."""
    result = search("plan", "-t", "harness.meta.attachment", "--format", "json")
    assert result.code == 0 and result.json_rows("exchange") == []
    assert result.summary()["definitive_absence"] is False
    assert "NOT a definitive absence" in result.stderr and "add --attachments" in result.stderr
    assert "DEFINITIVE" not in result.stderr
    assert "reach them with an explicit -t" not in result.stderr  # -t was given
    found = search("plan", "-t", "harness.meta.attachment", "--attachments", "-c")
    assert int(found.stdout) > 0  # the records the note counted are really there


def test_the_label_probe_counts_as_the_census_never_the_leaf_just_searched(search) -> None:
    """An AskUserQuestion answer is a two-leaf record: the probe counted it under both
    (and its call under agent.message too), so a `-t agent.tool.result` zero said the
    pattern occurs under agent.tool.result."""
    pattern = "Golden-section on max elevation"
    probed = search(pattern, "-t", "agent.tool.result", "--format", "json").summary()
    census = search(pattern, "--count-by", "label", "--format", "json")
    counted = {r["key"]: r["records"] for r in census.json_rows("census")}
    assert probed["excluded_by_label"]["by_label"] == counted
    assert "agent.tool.result" not in counted


def test_a_count_of_zero_gets_the_label_probe_too(search) -> None:
    result = search("TLE", "-t", "harness.notification", "-c")
    assert result.stdout == "0\n"
    assert '⚠ but "TLE" DOES occur' in result.stderr


def test_zero_matches_echo_every_active_filter(search) -> None:
    result = search("zzqqxxnothere", "-t", "agent.message", "-T", "agent.thinking",
                    "--turn", "0..3", "--since", "2026-10-01", "--format", "json")
    filters = result.summary()["active_filters"]
    for part in ("-t agent.message", "-T agent.thinking", "--since 2026-10-01", "--turn 0..3"):
        assert part in filters


def test_label_filter_that_hid_the_pattern_is_named(search) -> None:
    result = search("cProfile", f"@{LONG}", "-t", "user.message")
    assert result.code == 0
    assert result.stdout == ""
    assert "Active filters: -t user.message." in result.stderr
    probe = [line for line in result.stderr.splitlines() if "DOES occur" in line]
    assert len(probe) == 1
    assert re.search(r'⚠ but "cProfile" DOES occur — \d+ record\(s\) under: agent\.tool\.use ×\d+',
                     probe[0])
    summary = search("cProfile", f"@{LONG}", "-t", "user.message", "--format", "json").summary()
    assert summary["definitive_absence"] is True
    assert summary["active_filters"] == "-t user.message"
    excluded = summary["excluded_by_label"]
    assert "agent.tool.use" in excluded["by_label"]
    # the same numbers `--count-by label` gives with the filter lifted: records counted
    # once, each under every leaf it carries (it summed the leaves, counting a
    # multi-label record twice)
    census = search("cProfile", f"@{LONG}", "--count-by", "label", "--format", "json")
    assert excluded["records"] == census.summary()["matched_records"]
    assert excluded["by_label"] == {r["key"]: r["records"] for r in census.json_rows("census")}


def test_the_label_probe_counts_a_multi_label_record_once(cli, tmp_path: Path) -> None:
    """A SendMessage call is agent.communication.sent AND agent.tool.use: one record."""
    from builders import tool_use

    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("probe-multi")
    s = Session(sid, cwd="/home/ada/src/p")
    s.add(user("tell the reviewer"))
    s.add(assistant(tool_use("SendMessage", {"to": "reviewer", "message": "ready for kestrel"},
                             id="toolu_send")))
    home.session("/home/ada/src/p", sid, s)
    result = cli("--claude-home", str(home.root), "search", "kestrel", "-t", "user.message",
                 "--format", "json")
    excluded = result.summary()["excluded_by_label"]
    assert excluded["records"] == 1
    assert excluded["by_label"] == {"agent.communication.sent": 1, "agent.tool.use": 1}


def test_an_enqueued_message_written_as_text_blocks_is_queued(cli, tmp_path: Path) -> None:
    """An enqueue whose content is a list of text blocks (one with an attachment) is
    `user.queued` like a string one; its text was unsearchable."""
    from builders import queue_op

    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("queued-blocks")
    s = Session(sid, cwd="/home/ada/src/q")
    s.add(user("port the recorder"))
    s.add(queue_op("enqueue", [{"type": "text", "text": "is there a cross-platform way?"}]))
    s.add(assistant("working on it"))
    home.session("/home/ada/src/q", sid, s)
    result = cli("--claude-home", str(home.root), "search", "cross-platform", "-t",
                 "user.queued", "--format", "json")
    (exchange,) = result.json_rows("exchange")
    assert [h["label"] for h in exchange["hits"]] == ["user.queued"]


def test_label_filter_with_a_genuinely_absent_pattern(search) -> None:
    result = search("zzqqxxnothere", f"@{LONG}", "-t", "user.message", "--format", "json")
    assert result.summary()["excluded_by_label"] is None
    text = search("zzqqxxnothere", f"@{LONG}", "-t", "user.message")
    assert "genuinely absent" in text.stderr


# -- persisted outputs, drafts, sidecar, subagents ---------------------------------------------------


def test_resolve_persisted_finds_text_only_in_the_tool_results_file(search) -> None:
    # "<helper_442>" sits past the 2 KB preview: only the externalised file holds it
    without = search("helper_442", f"@{LONG}", "--format", "json")
    assert without.json_rows("exchange") == []
    resolved = search("helper_442", f"@{LONG}", "--resolve-persisted", "--format", "json")
    assert resolved.code == 0, resolved.stderr
    (hit,) = _hits(resolved)
    assert hit["label"] == "agent.tool.result"
    assert hit["tool_name"] == "Bash"
    assert hit["session_id"] == LONG
    assert "helper_442" in hit["excerpt"]


def test_superseded_draft_unit(search) -> None:
    result = search("cache size configurable", f"@{LONG}", "--format", "json")
    drafts = [ex for ex in result.json_rows("exchange") if ex["superseded_draft"]]
    assert len(drafts) == 1
    draft = drafts[0]
    assert draft["turn_index"] is None
    assert [h["label"] for h in draft["hits"]] == ["user.unsent"]
    assert draft["hits"][0]["line"] == 147
    assert result.summary()["superseded_drafts"] == 1
    text = search("cache size configurable", f"@{LONG}").stdout
    assert re.search(r"^3f6c1e2a·draft  2026-10-05 ", text, re.M)
    hidden = search("cache size configurable", f"@{LONG}", "-T", "user.unsent",
                    "--format", "json")
    assert not any(ex["superseded_draft"] for ex in hidden.json_rows("exchange"))


def test_pending_elicitation_from_the_sidecar(search) -> None:
    result = search("published", f"@{LONG}", "-t", "agent.tool.use", "--format", "json")
    assert result.code == 0, result.stderr
    (ex,) = result.json_rows("exchange")
    (hit,) = ex["hits"]
    assert hit["source"] == "elicitation-sidecar"
    assert hit["line"] is None
    assert hit["tool_name"] == "AskUserQuestion"
    assert hit["tool_use_id"] == PENDING_AUQ_TOOL_USE
    assert hit["pairing"] == "pending"
    assert hit["refetch"] == f"pysift show @{LONG} --uuid {PENDING_AUQ_UUID}"
    assert result.summary()["with_elicitation_sidecar"] is True
    text = search("published", f"@{LONG}", "-t", "agent.tool.use").stdout
    assert ("▸ agent.tool.use (no result — pending) AskUserQuestion  (elicitation sidecar)  "
            in text)
    assert "\nwith elicitation sidecar\n" in text


def test_subagent_hits_carry_the_trio_and_refetch_their_own_file(search, cli,
                                                                 demo_home: Path) -> None:
    result = search("svalbard", "--format", "json")
    subs = [ex for ex in result.json_rows("exchange") if ex["is_subagent"]]
    assert [ex["session_id"] for ex in subs] == [SVALBARD]
    ex = subs[0]
    assert ex["parent_session_id"] == LONG
    for hit in ex["hits"]:
        assert (hit["session_id"], hit["is_subagent"], hit["parent_session_id"]) == \
            (SVALBARD, True, LONG)
        assert hit["refetch"] == f"pysift show @{SVALBARD} --line {hit['line']}"
    # the refetch command fetches the very record the hit came from
    hit = ex["hits"][-1]
    shown = cli("--claude-home", str(demo_home), *hit["refetch"].split()[1:], "--format", "json")
    assert shown.code == 0, shown.stderr
    assert hit["excerpt"] in {r["text"] for r in shown.json_rows("record")}

    text = search("svalbard").stdout
    assert re.search(r"^a6e0d3b8·t0 \(parent 3f6c1e2a\)  2026-10-06 ", text, re.M)
    assert f"      ↳ pysift show @{SVALBARD} --line 1\n" in text
    assert text.startswith("scope  9 sessions in scope (5 top-level + 4 subagent)\n\n")


def test_subagent_opener_is_the_parents_message(search) -> None:
    """A subagent's first record is the delivered spawn prompt: agent.communication.inbox,
    parent ⇨ self, never the human (§5.2, §5.3)."""
    result = search("Audit station svalbard", f"@{SVALBARD}", "--format", "json")
    (ex,) = result.json_rows("exchange")
    opener = [h for h in ex["hits"] if h["line"] == 1]
    assert len(opener) == 1
    assert opener[0]["label"] == "agent.communication.inbox"
    assert opener[0]["to"] == "self"
    assert opener[0]["from"] not in (None, "self")


def test_no_subagents_searches_top_level_only(search) -> None:
    result = search("svalbard", "--no-subagents", "--format", "json")
    assert result.header()["subagent_sessions"] == 0
    assert not any(ex["is_subagent"] for ex in result.json_rows("exchange"))


def test_clone_lists_both_ids_for_inherited_records(search) -> None:
    """A clone inherits the origin's compaction summary, so -l names both (§6.1 corollary)."""
    assert search("Key Technical Concepts", "-l").stdout.split() == [LONG, CLONE]
    assert search("Key Technical Concepts", f"@{CLONE}", "-l").stdout.split() == [CLONE]


def _gated_home(tmp_path: Path) -> ClaudeHome:
    """A session whose only "hook_success" sits in an attachment payload and whose only
    "recall me" sits in a queued message: both behind a gate."""
    from builders import attachment, queue_op

    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("gated-probe")
    s = Session(sid, cwd="/home/ada/src/g")
    s.add(user("run the hooks"))
    s.add(attachment("hook_success", {"hookName": "SessionStart", "content": "ok"}))
    s.add(queue_op("enqueue", "recall me later"))
    s.add(assistant("done"))
    home.session("/home/ada/src/g", sid, s)
    return home


def test_the_label_probe_names_gated_records_it_was_never_told_of(cli, tmp_path: Path) -> None:
    """`-t harness.meta.attachment` without --attachments reaches nothing; the probe used
    to call the pattern "genuinely absent" although the attachment holds it."""
    home = _gated_home(tmp_path)
    args = ("--claude-home", str(home.root), "search", "hook_success")
    result = cli(*args, "-t", "harness.meta.attachment")
    assert result.code == 0
    assert "genuinely absent" not in result.stderr
    assert "scanned only under --attachments" in result.stderr
    assert "DOES occur in gated bookkeeping records — 1 record(s) under: " \
           "harness.meta.attachment ×1" in result.stderr
    assert "add --attachments" in result.stderr
    summary = cli(*args, "-t", "user", "--format", "json").summary()
    assert summary["definitive_absence"] is True
    assert summary["excluded_by_label"] == {"records": 1,
                                            "by_label": {"harness.meta.attachment": 1}}
    reached = cli(*args, "-t", "harness.meta.attachment", "--attachments", "--format", "json")
    assert len(reached.json_rows("exchange")) == 1


@pytest.mark.parametrize("mode", [(), ("-c",), ("--format", "json")])
def test_a_starved_attachment_selector_runs_the_gated_probe_once(
        cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode) -> None:
    """The absence line (NOT definitive: attachments hold it) and the label diagnosis
    (DOES occur in gated records) both need the probe with every gate open; it ran twice,
    a second search over the whole scope."""
    from pysift.engines.search import engine

    calls: list[bool] = []
    real = engine.label_probe

    def counted(transcripts, plan, *, open_gates=False):  # type: ignore[no-untyped-def]
        calls.append(open_gates)
        return real(transcripts, plan, open_gates=open_gates)

    monkeypatch.setattr(engine, "label_probe", counted)
    home = _gated_home(tmp_path)
    result = cli("--claude-home", str(home.root), "search", "hook_success", "-t",
                 "harness.meta.attachment", *mode)
    assert result.code == 0, result.stderr
    assert "NOT a definitive absence" in result.stderr
    if "--format" not in mode:
        assert "DOES occur in gated bookkeeping records" in result.stderr
    assert sorted(calls) == [False, True]


def test_the_label_probe_tells_how_to_reach_a_gated_leaf(cli, tmp_path: Path) -> None:
    home = _gated_home(tmp_path)
    result = cli("--claude-home", str(home.root), "search", "recall me", "-t", "user")
    assert "1 record(s) under: user.queued ×1" in result.stderr
    assert "name the leaf with -t" in result.stderr
    assert "not searched" not in result.stderr  # the probe covered the gated leaves
    found = cli("--claude-home", str(home.root), "search", "recall me", "-t", "user.queued",
                "--format", "json")
    assert len(found.json_rows("exchange")) == 1
    absent = cli("--claude-home", str(home.root), "search", "zzqqxx", "-t", "user")
    assert "genuinely absent even without the label filter, gated bookkeeping leaves " \
           "included" in absent.stderr


def test_every_printed_command_resolves_for_a_transcript_without_an_at_form(
        cli, tmp_path: Path) -> None:
    """A transcript named `notes.jsonl` has no @-form: its refetch read `pysift show
    @notes --line 2`, which the target grammar refuses."""
    import shlex

    home = ClaudeHome(tmp_path / "claude")
    path = home.session("/home/ada/src/n", "notes", user("where is the kestrel config"),
                        assistant("in kestrel.toml"))
    hits = _hits(cli("--claude-home", str(home.root), "search", "kestrel", "--format", "json"))
    assert hits and all(h["refetch"].startswith(f"pysift show {path} ") for h in hits)
    for hit in hits:
        again = cli("--claude-home", str(home.root), *shlex.split(hit["refetch"])[1:])
        assert again.code == 0, again.stderr
    shown = cli("--claude-home", str(home.root), "show", str(path), "--line", "..",
                "--max-count", "1", "--format", "json")
    assert shown.summary()["refetch_remainder"].startswith(f"pysift show {path} --line ")


@pytest.mark.parametrize("mode", [("-c",), ("--count-by", "tool")])
def test_counting_modes_say_they_merged_the_sidecar(search, mode) -> None:
    """§6.10: every surface that merged a sidecar record says so; -c and --count-by did
    not."""
    result = search("published", f"@{LONG}", "-t", "agent.tool.use", *mode)
    assert result.code == 0
    assert "with elicitation sidecar" in result.stderr
    quiet = search("cache size", f"@{LONG}", *mode)
    assert "with elicitation sidecar" not in quiet.stderr


def test_a_superseded_draft_sibling_keeps_its_unsent_view(search) -> None:
    """Rendered as a sibling, the esc-recalled draft at L147 read `user.message` where
    `show` and `-t user.unsent` call it `user.unsent` (ledger v0.10.2)."""
    result = search("96 lines added", f"@{LONG}", "--siblings", "--format", "json")
    (ex,) = result.json_rows("exchange")
    labels = {s["line"]: s["label"] for s in ex["siblings"]}
    assert labels[147] == "user.unsent"
    assert labels[142] == "user.message"


def test_minus_t_takes_attachments_out_even_with_the_attachments_gate(cli, tmp_path) -> None:
    """`--attachments -T harness.meta.attachment` still printed every attachment hit."""
    home = _gated_home(tmp_path)
    base = ("--claude-home", str(home.root), "search", "hook_success", "--attachments")
    assert len(cli(*base, "--format", "json").json_rows("exchange")) == 1
    for selector in ("harness.meta.attachment", "harness.meta", "harness.*"):
        result = cli(*base, "-T", selector, "--format", "json")
        assert result.json_rows("exchange") == [], selector


def test_record_uuids_take_no_progress_record_that_nests_an_assistant_message(
        cli, tmp_path: Path) -> None:
    """A `progress` line nests a whole assistant message: the `"type":"assistant"` needle
    put its uuid among the turn's assistant records."""
    import orjson

    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("progress-nest")
    s = Session(sid, cwd="/home/ada/src/p")
    s.add(user("run the sub-task please"))
    reply = s.add(assistant("on it"))
    progress = {"type": "progress", "uuid": stable_uuid("progress-line"),
                "parentUuid": reply["uuid"], "sessionId": sid,
                "timestamp": reply["timestamp"],
                "data": {"message": {"type": "assistant", "uuid": stable_uuid("nested"),
                                     "message": {"role": "assistant",
                                                 "content": [{"type": "text", "text": "x"}]}}}}
    path = home.session("/home/ada/src/p", sid, s)
    ClaudeHome.raw_lines(path, [orjson.dumps(progress) + b"\n"])
    result = cli("--claude-home", str(home.root), "search", "sub-task", "--format", "json")
    (ex,) = result.json_rows("exchange")
    nested = progress["data"]["message"]["uuid"]  # type: ignore[index]
    assert progress["uuid"] not in ex["record_uuids"] and nested not in ex["record_uuids"]
    assert reply["uuid"] in ex["record_uuids"]


def test_one_file_named_through_a_symlinked_home_counts_once(cli, tmp_path: Path) -> None:
    """`@<uuid>` through a symlinked home and the file's real path were two transcripts:
    `-c` said 2 for one exchange."""
    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("aliased")
    path = home.session("/home/ada/src/a", sid, user("the kestrel question"), assistant("ok"))
    link = tmp_path / "dotfiles-claude"
    link.symlink_to(home.root)
    result = cli("--claude-home", str(link), "search", "kestrel", f"@{sid}", str(path), "-c")
    assert result.stdout.strip() == "1"


# -- counts agree with rows ---------------------------------------------------------------------


def _unrenderable_home(home) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """Sessions whose selected leaf renders no unit on some records (a tool_result with null
    or absent content, on a carrier or an assistant record; a turn_duration record without
    its duration fields), beside sessions where it does. Returns name -> session id."""
    from builders import system, tool_result, tool_use, turn_duration

    ids = {name: stable_uuid("unrenderable:" + name) for name in
           ("null", "absent", "server", "bare-duration", "result", "duration")}

    def carrier(content: object, drop: bool = False):  # type: ignore[no-untyped-def]
        record = tool_result("toolu_q", "x")
        block = record["message"]["content"][0]
        if drop:
            del block["content"]
        else:
            block["content"] = content
        return record

    def session(name: str, *records) -> None:  # type: ignore[no-untyped-def]
        s = Session(ids[name], cwd="/w/p")
        s.add(user(f"run {name}"))
        for record in records:
            s.add(record)
        home.session("/w/p", ids[name], s)

    call = assistant(tool_use("Bash", {"command": "ls"}, id="toolu_q"))
    session("null", call, carrier(None))
    session("absent", call, carrier(None, drop=True))
    session("server", assistant({"type": "server_tool_use", "id": "srv_q", "name": "web",
                                 "input": {}},
                                {"type": "tool_result", "tool_use_id": "srv_q",
                                 "content": None}))
    session("bare-duration", system("turn_duration"))
    session("result", call, carrier("listing"))
    session("duration", turn_duration(1500, message_count=4))
    return ids


@pytest.mark.parametrize("selector,reached", [
    ("agent.tool.result", {"result"}),
    ("harness.meta.turn-duration", {"duration"}),
    ("agent.tool.result,harness.meta.turn-duration", {"result", "duration"}),
])
def test_counts_lists_rows_and_census_agree_on_records_that_render_nothing(
        cli, home, selector: str, reached: set[str]) -> None:
    """``-c`` and ``-l`` count a record only when its selected leaf renders a unit, as the
    rows and ``--count-by`` do: a label alone (a null result, a bare turn_duration) is none."""
    ids = _unrenderable_home(home)
    want = {ids[name] for name in reached}

    def run(*args: str):  # type: ignore[no-untyped-def]
        result = cli("--claude-home", str(home.root), "search", "", "-t", selector, *args)
        assert result.code == 0, result.stderr
        return result

    rows = run("--max-count", "0", "--format", "json")
    exchanges = rows.json_rows("exchange")
    assert {ex["session_id"] for ex in exchanges} == want
    assert int(run("-c").stdout) == len(exchanges) == rows.summary()["matched"]
    assert set(run("-l").stdout.split()) == want
    census = run("--count-by", "session", "--format", "json").json_rows("census")
    assert {row["key"] for row in census} == want
    labels = run("--count-by", "label", "--format", "json").json_rows("census")
    assert {row["key"] for row in labels} == {h["label"] for ex in exchanges
                                              for h in ex["hits"]}


def test_a_pending_question_cut_inside_an_emoji_is_found(cli, home) -> None:
    """The sidecar line holds a lone surrogate escape (``"\\ud83d"``); it was dropped as
    malformed, so search called the open question a definitive absence."""
    from builders import auq_use, elicitation_pending

    sid = stable_uuid("cut-sidecar")
    s = Session(sid, cwd="/w/p")
    s.add(user("release?"))
    path = home.session("/w/p", sid, s)
    use = s.stamp(assistant(auq_use([{"question": "Ship the release \ud83d now?",
                                       "options": ["yes", "no"]}], id="toolu_cut")),
                  commit=False)
    home.sidecar(path, [elicitation_pending(use, "toolu_cut")])
    result = cli("--claude-home", str(home.root), "search", "Ship the release",
                 "--format", "json")
    assert result.code == 0, result.stderr
    hits = _hits(result)
    assert [(h["label"], h["source"]) for h in hits] == [("agent.tool.use",
                                                          "elicitation-sidecar")]
    assert result.summary()["skipped_lines"] == 0


# -- zero-match diagnosis wording ------------------------------------------------------------------


def test_a_zero_names_the_persisted_outputs_it_did_not_read(cli, demo_home) -> None:
    """`helper_300` sits only in a persisted tool output: the zero pointed nowhere near
    --resolve-persisted, which finds it."""
    home = str(demo_home)
    zero = cli("--claude-home", home, "search", "helper_300")
    assert "1 tool output(s) of the sessions in scope are persisted outside their " \
           "transcripts" in zero.stderr and "--resolve-persisted" in zero.stderr
    found = cli("--claude-home", home, "search", "helper_300", "--resolve-persisted", "-c")
    assert found.stdout.strip() == "1"


def test_the_zero_hint_names_no_placeholder_without_a_target(cli, demo_home) -> None:
    result = cli("--claude-home", str(demo_home), "search", "zzqq-nowhere")
    assert 'hint: see what this scope holds with: pysift search "" --count-by label' \
        in result.stderr


def test_an_empty_pattern_is_never_called_absent(cli, demo_home) -> None:
    result = cli("--claude-home", str(demo_home), "search", "", "-t", "user",
                 "--since", "2000-01-01", "--until", "2000-01-02")
    assert result.code == 0
    assert "genuinely absent" not in result.stderr
    assert "no record in scope passes the filters (-t user" in result.stderr


def test_siblings_of_the_latest_turn_include_its_open_sidecar_question(cli, demo_home) -> None:
    """`show --turn 37` prints the pending AskUserQuestion with the turn; --siblings left
    it out."""
    result = cli("--claude-home", str(demo_home), "search", "ship it", "-t", "user",
                 "--siblings", "--format", "json")
    (exchange,) = result.json_rows("exchange")
    pending = [s for s in exchange["siblings"] if s["line"] is None]
    assert [(s["label"], s["source"], s["pairing"]) for s in pending] == [
        ("agent.tool.use", "elicitation-sidecar", "pending")]
    assert "Where should 0.4.0 be published?" in pending[0]["excerpt"]
    assert result.summary()["with_elicitation_sidecar"] is True


def test_the_persisted_note_is_only_for_a_selection_that_reads_tool_results(cli,
                                                                          demo_home) -> None:
    result = cli("--claude-home", str(demo_home), "search", "helper_300", "-t", "user")
    assert "persisted outside their transcripts" not in result.stderr


@pytest.mark.parametrize(("pattern", "census"), [
    # the answer's own view lists the options; its tool_result text names the chosen one
    ("memcached", {"agent.tool.use": 1, "user.answer": 1}),
    # the tool_result text holds the harness's sentence; the answer's view does not
    ("User has answered", {"agent.tool.result": 1}),
])
def test_a_leaf_s_census_count_is_what_its_own_selection_surfaces(
        cli, tmp_path: Path, pattern: str, census: dict[str, int]) -> None:
    """csift §6.2: a leaf's `--count-by label` count is how many records `-t <leaf>`
    would surface. An answered question is one record under two leaves (``user.answer``
    and ``agent.tool.result``) with a view of its own each; it was counted under both
    when its richest view matched, and under neither when only the other did."""
    from builders import auq_answer, auq_use

    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("census-views")
    questions = [{"question": "Which cache?", "options": ["redis", "memcached"]}]
    home.session("/w/cache", sid, user("pick a cache for me"),
                 assistant(auq_use(questions, id="toolu_pick")),
                 auq_answer("toolu_pick", {"Which cache?": "redis"}), assistant("redis it is"))
    run = lambda *args: cli("--claude-home", str(home.root), "search", pattern, *args)  # noqa: E731
    rows = run("--count-by", "label", "--format", "json").json_rows("census")
    assert {r["key"]: r["records"] for r in rows} == census
    for leaf, count in census.items():
        alone = run("-t", leaf, "--count-by", "label", "--format", "json").json_rows("census")
        assert [(r["key"], r["records"]) for r in alone] == [(leaf, count)]
    for leaf in {"user.answer", "agent.tool.result"} - set(census):
        assert run("-t", leaf, "-c").stdout.strip() == "0"
