"""``pysift list`` through the real argv path, on the demo home and on builder homes (SPEC §6.1,
wire-format §1)."""

from __future__ import annotations

import re
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from builders import (
    DEFAULT_START,
    ClaudeHome,
    Session,
    assistant,
    garbage_line,
    stable_uuid,
    to_line,
    user,
)
from conftest import (
    CLONE,
    EXPLORE,
    GREENWICH,
    LEDGER,
    LONG,
    REVIEW,
    SHORT,
    SVALBARD,
    WINDOWS,
)

AGENTS = (EXPLORE, REVIEW, GREENWICH, SVALBARD)
TOP_LEVEL = (LONG, SHORT, CLONE, LEDGER, WINDOWS)

SESSION_KEYS = {
    "kind", "session_id", "is_subagent", "parent_session_id", "path", "cwd", "version",
    "version_first", "version_last", "git_branch", "git_branch_first", "git_branch_last",
    "first_user", "last_user", "last_agent", "skipped_lines", "sidecar_present",
    "pending_elicitations", "with_elicitation_sidecar", "is_clone", "clone_of",
    "clone_boundary_uuid",
}
SAID_KEYS = {"excerpt", "ts_utc", "ts_local"}


def _rows_by_id(result) -> dict[str, dict]:
    return {r["session_id"]: r for r in result.json_rows("session")}


def _block_of(text: str, session_id: str) -> str:
    """The text block of one session (from its SESSION/SUBAGENT line to the next blank line)."""
    blocks = text.split("\n\n")
    hits = [b for b in blocks if b.lstrip().startswith(("SESSION", "SUBAGENT"))
            and b.splitlines()[0].split()[1] == session_id]
    assert len(hits) == 1, text
    return hits[0]


# -- demo home: rows and fields ------------------------------------------------------------


def test_every_transcript_of_the_demo_home_is_one_row(cli, demo_home: Path) -> None:
    result = cli("--claude-home", str(demo_home), "list", "--max-count", "0", "--format", "json")
    assert result.code == 0, result.stderr
    rows = _rows_by_id(result)
    assert set(rows) == {*TOP_LEVEL, *AGENTS}
    assert result.header() == {"kind": "header", "command": "list", "sessions_in_scope": 9,
                               "top_level_sessions": 5, "subagent_sessions": 4}
    # the sandbox project holds only memory files: no row comes from it
    assert not any("-home-ada-src-sandbox" in r["path"] for r in rows.values())
    summary = result.summary()
    assert summary["sessions"] == 9
    assert summary["dropped_by_cap"] == 0
    assert summary["skipped_lines"] == sum(r["skipped_lines"] for r in rows.values())


def test_json_keys_are_exactly_the_wire_format(cli, demo_home: Path) -> None:
    result = cli("--claude-home", str(demo_home), "list", "--max-count", "0", "--format", "json")
    assert set(result.header()) == {"kind", "command", "sessions_in_scope",
                                    "top_level_sessions", "subagent_sessions"}
    for row in result.json_rows("session"):
        assert set(row) == SESSION_KEYS, row["session_id"]
        for said in ("first_user", "last_user", "last_agent"):
            assert row[said] is None or set(row[said]) == SAID_KEYS
    assert set(result.summary()) == {"kind", "sessions", "skipped_lines", "dropped_by_cap",
                                     "unreadable"}


def test_long_session_identity_fields(cli, demo_home: Path) -> None:
    result = cli("--claude-home", str(demo_home), "list", f"@{LONG}", "--no-subagents",
                 "--format", "json")
    assert result.code == 0, result.stderr
    (row,) = result.json_rows("session")
    assert row["session_id"] == row["parent_session_id"] == LONG
    assert row["is_subagent"] is False
    assert row["cwd"] == "/home/ada/src/orbit"
    assert Path(row["path"]) == (demo_home / "projects" / "-home-ada-src-orbit" / f"{LONG}.jsonl")
    assert row["first_user"]["excerpt"].startswith("passes from `orbit passes` are about an hour late")
    assert row["first_user"]["ts_utc"] == "2026-10-05T08:42:52.000Z"
    assert row["first_user"]["ts_local"] == "2026-10-05T19:42:52+11:00"
    assert row["last_user"]["excerpt"] == "ok, let's ship it"
    assert row["last_agent"]["excerpt"] == "Done: `v0.4.0` is on `0f6c93b`."
    assert row["version"] == row["version_first"] == row["version_last"] == "2.1.262"
    assert row["git_branch"] == "main"
    assert row["is_clone"] is False and row["clone_of"] is None


def test_text_row_shows_first_last_human_and_last_agent(cli, demo_home: Path) -> None:
    result = cli("--claude-home", str(demo_home), "list", f"@{SHORT}")
    assert result.code == 0, result.stderr
    block = _block_of(result.stdout, SHORT)
    lines = block.splitlines()
    assert lines[0] == f"SESSION  {SHORT}"
    assert lines[1] == "  cwd      /home/ada/src/orbit   (branch main, CC 2.1.263)"
    assert lines[2].startswith("  first ◂  2026-10-08 01:10:38 AEDT(UTC+11)")
    assert lines[3].strip() == "what's left in TODO.md after the 0.4.0 release?"
    assert lines[4].startswith("  last ◂   ")
    assert lines[5].strip() == "thanks, that's all for today"
    assert lines[6].startswith("  last ▸   ")
    assert "0.4.0 is tagged" in lines[7]
    assert not re.search(r"\d{2}:\d{2}:\d{2}(\.\d+)?Z", block)  # text is local time only


def test_version_and_branch_drift(cli, demo_home: Path) -> None:
    result = cli("--claude-home", str(demo_home), "list", "-home-ada-src-ledger-app",
                 "--format", "json")
    assert result.code == 0, result.stderr
    (row,) = result.json_rows("session")
    assert row["session_id"] == LEDGER
    assert (row["version_first"], row["version_last"], row["version"]) == \
        ("2.1.263", "2.1.264", "2.1.264")
    assert (row["git_branch_first"], row["git_branch_last"], row["git_branch"]) == \
        ("feature/fx-rates", "fix/rounding-half-even", "fix/rounding-half-even")
    # the first-seen cwd stays the project root even after a `cd ledger`
    assert row["cwd"] == "/home/ada/src/ledger_app"

    text = cli("--claude-home", str(demo_home), "list", "-home-ada-src-ledger-app").stdout
    assert ("  cwd      /home/ada/src/ledger_app   (branch feature/fx-rates->"
            "fix/rounding-half-even, CC 2.1.263->2.1.264)") in text


def test_windows_session_without_branch(cli, demo_home: Path) -> None:
    result = cli("--claude-home", str(demo_home), "list", f"@{WINDOWS}", "--format", "json")
    (row,) = result.json_rows("session")
    assert row["cwd"] == "C:\\Users\\ada\\work"
    assert row["git_branch"] is None and row["git_branch_first"] is None
    text = cli("--claude-home", str(demo_home), "list", f"@{WINDOWS}").stdout
    assert "  cwd      C:\\Users\\ada\\work   (CC 2.1.264)\n" in text
    assert "branch" not in text


def test_a_windows_cwd_names_its_project_on_any_system(cli, demo_home: Path,
                                                      tmp_path: Path) -> None:
    """A home copied from Windows, read on Linux: the cwd a row shows, `C:\\Users\\ada\\work`,
    names its project as a target, in either separator, any case, a trailing separator
    (Windows compares them so); before, it was joined to the working dir as a relative
    POSIX path and matched nothing. A Windows path of no project is refused."""
    want = cli("--claude-home", str(demo_home), "list", f"@{WINDOWS}", "--format", "json")
    for spelled in ("C:\\Users\\ada\\work", "c:/users/ADA/work/", "C:\\Users\\ada\\x\\..\\work"):
        got = cli("--claude-home", str(demo_home), "list", spelled, "--format", "json")
        assert got.code == 0, (spelled, got.stderr)
        assert [r["session_id"] for r in got.json_rows("session")] == [
            r["session_id"] for r in want.json_rows("session")], spelled
    missing = cli("--claude-home", str(demo_home), "list", "D:\\nowhere")
    assert missing.code != 0
    assert "no Claude Code project dir for the Windows path D:\\nowhere" in missing.stderr


def test_clone_is_detected_with_its_origin(cli, demo_home: Path) -> None:
    result = cli("--claude-home", str(demo_home), "list", "-home-ada-src-orbit", "--format", "json")
    rows = _rows_by_id(result)
    clone = rows[CLONE]
    assert clone["is_clone"] is True
    assert clone["clone_of"] == LONG
    assert clone["clone_boundary_uuid"].startswith("a73dec54-")
    assert [r["session_id"] for r in rows.values() if r["is_clone"]] == [CLONE]

    text = cli("--claude-home", str(demo_home), "list", "-home-ada-src-orbit").stdout
    block = _block_of(text, CLONE)
    assert (f"  clone    forked from SESSION {LONG} at compaction boundary "
            f"{clone['clone_boundary_uuid']}") in block.splitlines()


def test_clone_whose_origin_left_the_dir(cli, demo_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "claude" / "projects" / "-home-ada-src-orbit"
    project.mkdir(parents=True)
    shutil.copy(demo_home / "projects" / "-home-ada-src-orbit" / f"{CLONE}.jsonl", project)
    result = cli("--claude-home", str(tmp_path / "claude"), "list", "--format", "json")
    (row,) = result.json_rows("session")
    assert row["is_clone"] is True
    assert row["clone_of"] is None
    assert row["clone_boundary_uuid"].startswith("a73dec54-")
    text = cli("--claude-home", str(tmp_path / "claude"), "list").stdout
    assert (f"  clone    forked at compaction boundary {row['clone_boundary_uuid']} "
            "(origin not in this project dir)") in text


def test_pending_elicitation_from_the_sidecar(cli, demo_home: Path) -> None:
    result = cli("--claude-home", str(demo_home), "list", "-home-ada-src-orbit", "--format", "json")
    rows = _rows_by_id(result)
    long = rows[LONG]
    assert long["sidecar_present"] is True
    assert long["pending_elicitations"] == ["AskUserQuestion: Where should 0.4.0 be published?"]
    assert long["with_elicitation_sidecar"] is True
    # no sidecar file: the hook is not installed, nothing can be concluded
    assert rows[SHORT]["sidecar_present"] is False
    assert rows[SHORT]["pending_elicitations"] == []
    assert rows[SHORT]["with_elicitation_sidecar"] is False
    for agent in AGENTS:  # the sidecar is keyed by the top-level session
        assert rows[agent]["sidecar_present"] is False
        assert rows[agent]["pending_elicitations"] == []

    block = _block_of(cli("--claude-home", str(demo_home), "list", f"@{LONG}").stdout, LONG)
    lines = block.splitlines()
    i = lines.index("  pending  with elicitation sidecar")
    assert lines[i + 1].strip() == "⏳ AskUserQuestion: Where should 0.4.0 be published?"
    assert "pending" not in _block_of(
        cli("--claude-home", str(demo_home), "list", f"@{SHORT}").stdout, SHORT)


def test_malformed_line_is_counted_and_noted(cli, tmp_path: Path) -> None:
    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("malformed")
    path = home.session("/home/ada/src/x", sid, user("hello"), assistant("hi there"))
    ClaudeHome.raw_lines(path, [garbage_line("{\"type\":\"user\",\"mess")])
    result = cli("--claude-home", str(home.root), "list", "--format", "json")
    (row,) = result.json_rows("session")
    assert row["skipped_lines"] == 1
    assert result.summary()["skipped_lines"] == 1
    assert row["last_agent"]["excerpt"] == "hi there"  # the bad tail line did not hide it
    text = cli("--claude-home", str(home.root), "list").stdout
    assert ("  note     1 malformed line(s) skipped (among the head/tail lines read — full "
            "census: pysift stats)") in text


def test_no_subagents_lists_top_level_only(cli, demo_home: Path) -> None:
    result = cli("--claude-home", str(demo_home), "list", "--no-subagents", "--format", "json")
    assert result.code == 0, result.stderr
    rows = result.json_rows("session")
    assert {r["session_id"] for r in rows} == set(TOP_LEVEL)
    assert all(r["is_subagent"] is False for r in rows)
    assert result.header()["subagent_sessions"] == 0
    text = cli("--claude-home", str(demo_home), "list", "--no-subagents").stdout
    assert "SUBAGENT" not in text
    assert "scope  " not in text  # the banner only appears when subagents are in scope


def test_subagent_rows_name_their_parent(cli, demo_home: Path) -> None:
    result = cli("--claude-home", str(demo_home), "list", f"@{LONG}", "--format", "json")
    rows = _rows_by_id(result)
    assert set(rows) == {LONG, *AGENTS}
    for agent in AGENTS:
        assert rows[agent]["is_subagent"] is True
        assert rows[agent]["parent_session_id"] == LONG
    text = cli("--claude-home", str(demo_home), "list", f"@{LONG}").stdout
    assert text.startswith("scope  5 sessions in scope (1 top-level + 4 subagent)\n\n")
    assert f"SUBAGENT  {AGENTS[0]}  ·  parent SESSION {LONG}" in text


# -- the default cap ----------------------------------------------------------------------


@pytest.fixture
def home_55(tmp_path: Path) -> tuple[ClaudeHome, list[str]]:
    """55 tiny sessions, one per day, in three projects; session i is i days after the first."""
    home = ClaudeHome(tmp_path / "claude")
    ids = []
    for i in range(55):
        sid = stable_uuid(f"cap-{i}")
        ids.append(sid)
        home.session(f"/home/ada/src/p{i % 3}", sid, user(f"prompt number {i}"),
                     assistant(f"reply number {i}"), start=DEFAULT_START + timedelta(days=i))
    return home, ids


def test_unscoped_list_caps_to_the_50_most_recent(cli, home_55) -> None:
    home, ids = home_55
    result = cli("--claude-home", str(home.root), "list", "--format", "json")
    assert result.code == 0, result.stderr
    listed = [r["session_id"] for r in result.json_rows("session")]
    assert len(listed) == 50
    assert set(listed) == set(ids[5:])  # the five oldest are the ones dropped
    assert result.summary()["dropped_by_cap"] == 5
    assert result.summary()["sessions"] == 50
    assert result.header()["sessions_in_scope"] == 55  # the pre-cap scope
    paths = [r["path"] for r in result.json_rows("session")]
    assert paths == sorted(paths)  # restored to path order after ranking

    text = cli("--claude-home", str(home.root), "list")
    assert text.stdout.count("SESSION  ") == 50
    assert "… (+5 more session(s) not shown" in text.stdout


def test_max_count_zero_is_uncapped(cli, home_55) -> None:
    home, ids = home_55
    result = cli("--claude-home", str(home.root), "list", "--max-count", "0", "--format", "json")
    assert {r["session_id"] for r in result.json_rows("session")} == set(ids)
    assert result.summary()["dropped_by_cap"] == 0
    assert "more session(s) not shown" not in cli("--claude-home", str(home.root), "list",
                                                  "--max-count", "0").stdout


def test_explicit_max_count_and_scoped_runs(cli, home_55) -> None:
    home, ids = home_55
    capped = cli("--claude-home", str(home.root), "list", "--max-count", "3", "--format", "json")
    assert {r["session_id"] for r in capped.json_rows("session")} == set(ids[-3:])
    assert capped.summary()["dropped_by_cap"] == 52
    # a scoped run (a target) is uncapped by default
    scoped = cli("--claude-home", str(home.root), "list", "/home/ada/src/p0", "--format", "json")
    assert len(scoped.json_rows("session")) == 19
    assert scoped.summary()["dropped_by_cap"] == 0


def test_a_capped_listing_keeps_the_uncapped_order(cli, tmp_path: Path) -> None:
    """Each session before its subagents, capped or not. (Sorting kept rows by ``Path``
    put ``<uuid>/subagents/…`` before ``<uuid>.jsonl``: a dir sorts before the file its
    name prefixes.)"""
    home = ClaudeHome(tmp_path / "claude")
    for i in range(4):
        path = home.session("/home/ada/src/q", stable_uuid(f"order-{i}"), user(f"ask {i}"),
                            assistant(f"answer {i}"), start=DEFAULT_START + timedelta(days=i))
        lane = Session(path.stem, cwd="/home/ada/src/q", agent_id=f"a{i}0f1e2d3c4b5a697",
                       start=DEFAULT_START + timedelta(days=i, hours=1))
        lane.add(user(f"look into {i}"))
        lane.add(assistant(f"found {i}"))
        home.subagent(path, f"a{i}0f1e2d3c4b5a697", *lane)
    uncapped = cli("--claude-home", str(home.root), "list", "--max-count", "0",
                   "--format", "json")
    capped = cli("--claude-home", str(home.root), "list", "--max-count", "4",
                 "--format", "json")
    order = [r["session_id"] for r in uncapped.json_rows("session")]
    kept = [r["session_id"] for r in capped.json_rows("session")]
    assert len(kept) == 4 and capped.summary()["dropped_by_cap"] == 4
    assert kept == [sid for sid in order if sid in kept]
    rows = capped.json_rows("session")
    for parent, child in zip(rows[0::2], rows[1::2]):
        assert not parent["is_subagent"] and child["parent_session_id"] == parent["session_id"]


def test_negative_max_count_is_a_usage_error(cli, home_55) -> None:
    home, _ = home_55
    result = cli("--claude-home", str(home.root), "list", "--max-count", "-1")
    assert result.code == 2


def test_the_cap_ranks_by_the_instant_a_stamp_names_never_by_its_text(cli, tmp_path: Path
                                                                     ) -> None:
    """B's reply, written ``…-05:00``, is three hours after A's ``…Z`` although its text
    sorts first; C's reply stamp names no instant, so C ranks by its prompt (the oldest).
    ``stats --max-count`` keeps the same sessions: one rule (``core.cap.recency``)."""
    home = ClaudeHome(tmp_path / "claude")
    a, b, c = (stable_uuid(f"rank-{x}") for x in "abc")
    home.session("/w/p", a, user("A prompt", timestamp="2026-05-02T00:59:00.000Z"),
                 assistant("A reply", timestamp="2026-05-02T01:00:00.000Z"))
    home.session("/w/p", b, user("B prompt", timestamp="2026-05-01T22:59:00-05:00"),
                 assistant("B reply", timestamp="2026-05-01T23:00:00-05:00"))
    home.session("/w/p", c, user("C prompt", timestamp="2026-01-01T00:00:00.000Z"),
                 assistant("C reply", timestamp="not-a-time"))

    def kept(*args: str) -> list[str]:
        res = cli("--claude-home", str(home.root), *args, "--format", "json")
        assert res.code == 0, res.stderr
        return [r["session_id"] for r in res.json_rows("session")]

    assert kept("list", "--max-count", "1") == [b]
    assert set(kept("list", "--max-count", "2")) == {a, b}
    assert kept("stats", "--max-count", "1") == [b]


def test_sessions_without_a_stamp_rank_by_their_file_time(cli, tmp_path: Path) -> None:
    """As stats ranks them: after every session with a stamp, newest file first (they
    tied, and the earlier path won)."""
    import os

    home = ClaudeHome(tmp_path / "claude")
    old, new, stamped = "11111111-0000-4000-8000-000000000001", \
        "22222222-0000-4000-8000-000000000002", "33333333-0000-4000-8000-000000000003"
    for sid in (old, new):
        path = home.session("/w/p", sid, user("no time", timestamp="yesterday"),
                            assistant("none", timestamp="soon"))
        when = 1_700_000_000 if sid == old else 1_800_000_000
        os.utime(path, (when, when))
    home.session("/w/p", stamped, user("timed", timestamp="2020-01-01T00:00:00.000Z"))
    res = cli("--claude-home", str(home.root), "list", "--max-count", "2", "--format", "json")
    assert [r["session_id"] for r in res.json_rows("session")] == [new, stamped]


def test_a_capped_target_s_footer_does_not_ask_for_a_target(cli, home_55) -> None:
    home, _ = home_55
    scoped = cli("--claude-home", str(home.root), "list", "/home/ada/src/p0", "--max-count", "2")
    assert "… (+17 more session(s) not shown — kept the 2 most recently active; " \
           "--max-count 0 lists all)\n" in scoped.stdout
    unscoped = cli("--claude-home", str(home.root), "list", "--max-count", "2")
    assert "--max-count 0 lists all, or name a target)\n" in unscoped.stdout


def test_old_layout_agents_follow_the_session_they_name(cli, tmp_path: Path) -> None:
    """``agent-<id>.jsonl`` beside the sessions sorts among them by name; the listing puts
    it after its session's ``subagents/`` rows, as every subagent follows its session. One
    whose session is not there stays where its name puts it."""
    home = ClaudeHome(tmp_path / "claude")
    first, named = "11111111-0000-4000-8000-000000000001", "cccccccc-0000-4000-8000-000000000003"
    home.session("/w/p", first, user("first session"))
    session = home.session("/w/p", named, user("named session"))
    home.subagent(session, "a0f1e2d3c4b5a6978", user("new-layout lane"))
    project = home.project_dir("/w/p")
    for agent, owner in (("a278a89", named), ("a1234567", named),
                         ("a9999999", "99999999-0000-4000-8000-000000000009")):
        (project / f"agent-{agent}.jsonl").write_bytes(
            b'{"type":"user","sessionId":"' + owner.encode() + b'","isSidechain":true,'
            b'"cwd":"/w/p","timestamp":"2026-05-01T10:00:00.000Z","uuid":"u-' +
            agent.encode() + b'","message":{"role":"user","content":"legacy lane"}}\n')
    res = cli("--claude-home", str(home.root), "list", "--max-count", "0", "--format", "json")
    assert [r["session_id"] for r in res.json_rows("session")] == [
        first, "a9999999", named, "a0f1e2d3c4b5a6978", "a1234567", "a278a89"]
    text = cli("--claude-home", str(home.root), "list", "--max-count", "0").stdout
    assert [line.split()[1] for line in text.splitlines()
            if line.startswith(("SESSION", "SUBAGENT"))] == [
        first, "a9999999", named, "a0f1e2d3c4b5a6978", "a1234567", "a278a89"]


def test_cwd_and_version_first_seen_after_the_first_prompt(cli, tmp_path: Path) -> None:
    # a transcript whose opening records were written without the envelope (a converted or
    # hand-trimmed file): the prompt and the 70 progress notes after it carry no cwd or
    # version, the reply does. The wire format's cwd is the FIRST-SEEN record cwd; past
    # the first 64 lines the listing looked no further than the prompt: <unknown cwd>.
    home = ClaudeHome(tmp_path / "claude")
    s = Session(stable_uuid("bare-head"), cwd="/home/ada/src/w", version="2.1.150")
    bare = [s.add(user("tidy the build script"))]
    bare += [s.add(assistant(f"step {n} of the tidy-up")) for n in range(70)]
    for record in bare:
        del record["cwd"], record["version"]
    path = home.session("/home/ada/src/w", s.session_id, bare)
    listed = cli("--claude-home", str(home.root), "list", "--format", "json")
    [row] = listed.json_rows("session")
    assert (row["cwd"], row["version_first"]) == (None, None)  # the file names neither yet
    with open(path, "ab") as fh:  # the reply lands: the cached head must not keep None
        fh.write(to_line(s.add(assistant("tidied"))))
    for cache in ((), ("--no-cache",)):
        listed = cli("--claude-home", str(home.root), *cache, "list", "--format", "json")
        [row] = listed.json_rows("session")
        assert (row["cwd"], row["version_first"]) == ("/home/ada/src/w", "2.1.150"), cache
        assert row["first_user"]["excerpt"] == "tidy the build script"


def test_a_message_without_a_timestamp_is_not_printed_as_none(cli, tmp_path: Path) -> None:
    # the prompt was written without its timestamp: the text row printed "first ◂  —",
    # the mark of a session with no human message, above the prompt's words
    home = ClaudeHome(tmp_path / "claude")
    s = Session(stable_uuid("unstamped"), cwd="/home/ada/src/w")
    prompt = s.add(user("tidy the build script"))
    del prompt["timestamp"]
    home.session("/home/ada/src/w", s.session_id, prompt, s.add(assistant("tidied")))
    text = cli("--claude-home", str(home.root), "list").stdout
    assert "  first ◂  (no timestamp)\n           tidy the build script\n" in text
    assert "  first ◂  —" not in text


# -- the time window -------------------------------------------------------------------------


@pytest.fixture
def span_home(tmp_path: Path) -> ClaudeHome:
    """LONG_RUN spans 1..4 Oct (quiet in between); LATER lives on 10 Oct only."""
    home = ClaudeHome(tmp_path / "claude")
    s = Session(stable_uuid("long-run"), cwd="/home/ada/src/w",
                start=datetime(2026, 10, 1, 0, 0, tzinfo=UTC))
    s.add(user("kick off the migration"))
    s.add(assistant("started"))
    s.wait(3 * 86400)
    s.add(user("is it done?"))
    s.add(assistant("done"))
    home.session("/home/ada/src/w", s.session_id, s)
    home.session("/home/ada/src/w", stable_uuid("later"), user("new topic"), assistant("sure"),
                 start=datetime(2026, 10, 10, 12, 0, tzinfo=UTC))
    return home


def _listed(cli, home: ClaudeHome, *flags: str) -> set[str]:
    result = cli("--claude-home", str(home.root), "list", *flags, "--format", "json")
    assert result.code == 0, result.stderr
    return {r["session_id"] for r in result.json_rows("session")}


def test_since_until_keep_sessions_whose_span_intersects(cli, span_home: ClaudeHome) -> None:
    long_run, later = stable_uuid("long-run"), stable_uuid("later")
    # a window strictly inside the long session's quiet middle still lists it
    assert _listed(cli, span_home, "--since", "2026-10-02T00:00:00Z",
                   "--until", "2026-10-03T00:00:00Z") == {long_run}
    assert _listed(cli, span_home, "--since", "2026-10-09T00:00:00Z") == {later}
    assert _listed(cli, span_home, "--until", "2026-10-01T00:00:01Z") == {long_run}
    assert _listed(cli, span_home, "--since", "2026-10-05T00:00:00Z",
                   "--until", "2026-10-09T00:00:00Z") == set()


def _clock_reset_home(tmp_path: Path) -> ClaudeHome:
    """A session written on a machine whose clock was reset mid-session: the file opens
    on 1 Oct, the human's last message and the reply are stamped 20 Oct, and the file's
    last record 2 Sep."""
    home = ClaudeHome(tmp_path / "claude")
    s = Session(stable_uuid("skewed"), cwd="/home/ada/src/w",
                start=datetime(2026, 10, 1, 0, 0, tzinfo=UTC))
    s.add(user("kick off the migration"))
    s.add(assistant("started"))
    s.add(user("is it done?", timestamp="2026-10-20T09:00:00.000Z"))
    s.add(assistant("done", timestamp="2026-10-20T09:00:05.000Z"))
    s.add(assistant("(late echo)", timestamp="2026-09-02T00:00:00.000Z"))
    home.session("/home/ada/src/w", s.session_id, s)
    return home


def test_window_reads_the_span_by_instant_not_by_file_order(cli, tmp_path: Path) -> None:
    # the file-order span [1 Oct, 2 Sep] runs backwards and met no window at all
    home = _clock_reset_home(tmp_path)
    skewed = stable_uuid("skewed")
    for target in ((), ("/home/ada/src/w",)):  # rows whole, and rows laid out in the worker
        assert _listed(cli, home, *target, "--since", "2026-10-10T00:00:00Z") == {skewed}
        assert _listed(cli, home, *target, "--since", "2026-10-05T00:00:00Z",
                       "--until", "2026-10-06T00:00:00Z") == {skewed}
        assert _listed(cli, home, *target, "--until", "2026-09-10T00:00:00Z") == {skewed}
        assert _listed(cli, home, *target, "--since", "2026-10-21T00:00:00Z") == set()


def test_a_windowed_row_shows_the_span_an_unwindowed_one_shows(cli, tmp_path: Path) -> None:
    # the same clock-reset session: the window reads its span by instant, but the row it
    # keeps is the row every other listing prints (its fields in file order)
    home = _clock_reset_home(tmp_path)
    for fmt in ("json", "text"):
        plain = cli("--claude-home", str(home.root), "list", "/home/ada/src/w", "--format", fmt)
        windowed = cli("--claude-home", str(home.root), "list", "/home/ada/src/w",
                       "--format", fmt, "--since", "2026-10-10T00:00:00Z")
        assert plain.code == windowed.code == 0
        if fmt == "json":
            assert windowed.json_rows("session") == plain.json_rows("session")
        else:
            assert windowed.stdout == plain.stdout


def test_window_missing_everything_says_no_sessions(cli, span_home: ClaudeHome) -> None:
    result = cli("--claude-home", str(span_home.root), "list", "--until", "2026-09-01T00:00:00Z")
    assert result.code == 0
    assert result.stdout == "no sessions found\n"


# -- empty homes ---------------------------------------------------------------------------------


def test_empty_home_lists_nothing(cli, tmp_path: Path) -> None:
    (tmp_path / "claude" / "projects").mkdir(parents=True)
    result = cli("--claude-home", str(tmp_path / "claude"), "list")
    assert result.code == 0
    assert result.stdout == "no sessions found\n"
    as_json = cli("--claude-home", str(tmp_path / "claude"), "list", "--format", "json")
    assert as_json.code == 0
    assert as_json.json_rows("session") == []
    assert as_json.summary() == {"kind": "summary", "sessions": 0, "skipped_lines": 0,
                                 "dropped_by_cap": 0, "unreadable": 0}


def test_unknown_project_path_is_a_target_error(cli, demo_home: Path) -> None:
    result = cli("--claude-home", str(demo_home), "list", "/nonexistent/project")
    assert result.code == 1
    assert "-nonexistent-project" in result.stderr
    assert result.stdout == ""


def test_the_project_dir_of_cwd_tmp_is_a_target(cli, tmp_path: Path) -> None:
    """`-tmp` (cwd /tmp) was parsed as `-t mp`: "No such option '-t'" and exit 2."""
    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("in-tmp")
    home.session("/tmp", sid, user("scratch work"), assistant("ok"))
    home.session("/home/ada/src/x", stable_uuid("elsewhere"), user("other"))
    result = cli("--claude-home", str(home.root), "list", "-tmp", "--format", "json")
    assert result.code == 0, result.stderr
    assert [r["session_id"] for r in result.json_rows("session")] == [sid]
    counted = cli("search", "scratch", "-tmp", "-c", "--claude-home", str(home.root))
    assert (counted.code, counted.stdout.strip()) == (0, "1")


def test_repeated_sessions_from_lists_are_a_union(cli, demo_home: Path, tmp_path: Path) -> None:
    """The second `--sessions-from` replaced the first in silence."""
    first, second = tmp_path / "a.ids", tmp_path / "b.ids"
    first.write_text(f"{LONG}\n")
    second.write_text(f"{SHORT}\n")
    result = cli("--claude-home", str(demo_home), "list", "--no-subagents", "--sessions-from",
                 str(first), "--sessions-from", str(second), "--format", "json")
    assert {r["session_id"] for r in result.json_rows("session")} == {LONG, SHORT}
    piped = cli("--claude-home", str(demo_home), "list", "--no-subagents", "--sessions-from",
                "-", "--sessions-from", str(first), "--format", "json", stdin=f"{SHORT}\n")
    assert {r["session_id"] for r in piped.json_rows("session")} == {LONG, SHORT}
