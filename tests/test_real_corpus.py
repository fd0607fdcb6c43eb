"""Smoke runs over the real transcript corpus (../shared/corpus/real, skipped when absent):
no traceback, exit 0, internally consistent counts. Kept fast: a few patterns, one pass each."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.real

#: each run must stay well inside this (the whole file is budgeted at about a minute)
RUN_BUDGET_S = 15.0


def _timed(cli, *args: str):
    start = time.monotonic()
    result = cli(*args)
    elapsed = time.monotonic() - start
    assert elapsed < RUN_BUDGET_S, f"{' '.join(args)} took {elapsed:.1f}s"
    assert "Traceback" not in result.stderr, result.stderr
    return result


def _top_level_files(home: Path) -> list[Path]:
    """Session files directly under a project dir; an ``agent-*.jsonl`` there is an
    old-layout sidechain, listed as a subagent."""
    return sorted(p for p in (home / "projects").glob("*/*.jsonl")
                  if not p.name.startswith("agent-"))


def test_list_everything(cli, real_home: Path) -> None:
    result = _timed(cli, "--claude-home", str(real_home), "list", "--max-count", "0",
                    "--format", "json")
    assert result.code == 0, result.stderr
    rows = result.json_rows("session")
    header = result.header()
    assert len(rows) == header["sessions_in_scope"] == result.summary()["sessions"]
    top = [r for r in rows if not r["is_subagent"]]
    # every transcript directly under a project dir is one top-level row
    assert sorted(Path(r["path"]) for r in top) == _top_level_files(real_home)
    assert header["top_level_sessions"] == len(top)
    for row in rows:
        assert Path(row["path"]).is_file()
        if row["is_subagent"]:
            path = Path(row["path"])
            assert (path.parent.name == "subagents" or "workflows" in path.parts
                    or path.name == f"agent-{row['session_id']}.jsonl")
    assert len({r["path"] for r in rows}) == len(rows)
    # an old-layout agent comes after the session it names, among that session's subagents
    tops = {(Path(r["path"]).parent, r["session_id"]): i for i, r in enumerate(rows)
            if not r["is_subagent"]}
    placed = 0
    for i, row in enumerate(rows):
        path = Path(row["path"])
        at = tops.get((path.parent, row["parent_session_id"]))
        if row["is_subagent"] and path.parent.parent.name == "projects" and at is not None:
            assert at < i and all(r["parent_session_id"] == row["parent_session_id"]
                                  for r in rows[at + 1:i]), row["path"]
            placed += 1
    assert placed > 0
    text = _timed(cli, "--claude-home", str(real_home), "list", "--max-count", "0")
    assert text.code == 0
    assert text.stdout.count("\nSESSION  ") + text.stdout.startswith("SESSION  ") == len(top)


@pytest.mark.parametrize("args", [("error",), ("TODO",), ("the",), ("", "-t", "user"),
                                  ("-i", "claude")], ids=lambda a: " ".join(a) or '""')
def test_search_count_matches_json(cli, real_home: Path, args: tuple[str, ...]) -> None:
    counted = _timed(cli, "--claude-home", str(real_home), "search", *args, "-c")
    assert counted.code == 0, counted.stderr
    as_json = _timed(cli, "--claude-home", str(real_home), "search", *args, "--format", "json")
    assert as_json.code == 0, as_json.stderr
    exchanges = as_json.json_rows("exchange")
    assert int(counted.stdout) == len(exchanges) == as_json.summary()["matched"]
    stamps = [ex["ts_utc"] for ex in exchanges if ex["ts_utc"] is not None]
    assert stamps == sorted(stamps)


def test_show_first_line_of_many_transcripts(cli, real_home: Path) -> None:
    files = [p for p in _top_level_files(real_home) if p.stat().st_size > 0][:20]
    assert files
    for path in files:
        raw = _timed(cli, "--claude-home", str(real_home), "show", str(path), "--line", "1",
                     "--raw")
        assert raw.code == 0, (path, raw.stderr)
        assert raw.stdout_bytes == path.read_bytes().split(b"\n", 1)[0] + b"\n"
        shown = _timed(cli, "--claude-home", str(real_home), "show", str(path), "--line", "1",
                       "--format", "json")
        if shown.code == 0:
            assert [r["line"] for r in shown.json_rows("record")] == \
                [1] * len(shown.json_rows("record"))
        else:  # line 1 is metadata: the error must point at --raw
            assert shown.code == 1 and "--raw" in shown.stderr, (path, shown.stderr)


def _turns_by_line(rows: list[dict], key: str = "line") -> dict[int, int | None]:
    return {row[key]: row["turn_index"] for row in rows if row.get(key) is not None}


def test_show_and_search_number_the_turns_of_every_transcript_alike(cli, real_home: Path) -> None:
    """``show --turn N`` must fetch what search files under ``·tN``: on every real
    transcript, each line both commands render carries the same turn index."""
    homes = [h for h in (real_home, real_home / "tier2") if (h / "projects").is_dir()]
    files = [(h, p) for h in homes for p in sorted((h / "projects").rglob("*.jsonl"))
             if p.name != "journal.jsonl"]  # a workflow's event log, never a transcript
    assert files
    compared = 0
    for claude_home, path in files:
        home = ("--claude-home", str(claude_home))
        found = _timed(cli, *home, "search", "", str(path), "--no-subagents",
                       "--max-count", "0", "--format", "json")
        assert found.code == 0, (path, found.stderr)
        by_search: dict[int, int | None] = {}
        for exchange in found.json_rows("exchange"):
            for hit in exchange["hits"]:
                if hit["line"] is not None:
                    by_search[hit["line"]] = exchange["turn_index"]
        if not by_search:
            continue
        shown = _timed(cli, *home, "show", str(path), "--line", "..", "--max-count", "0",
                       "--format", "json")
        assert shown.code == 0, (path, shown.stderr)
        by_show = _turns_by_line(shown.json_rows("record"))
        common = by_search.keys() & by_show.keys()
        assert common, path
        mismatched = {line: (by_search[line], by_show[line]) for line in common
                      if by_search[line] != by_show[line]}
        assert not mismatched, (path, sorted(mismatched.items())[:5])
        compared += len(common)
    assert compared > 1000


REAL_SAME_ANSWER = [
    ("list", "--max-count", "0", "--format", "json"),
    ("stats", "--format", "json"),
    ("search", "TODO", "-c"),
    ("search", "", "--count-by", "label", "--format", "json"),
    ("search", "error", "-t", "agent.tool.result", "--resolve-persisted", "-l"),
    ("plan", "--audit", "--format", "json"),
    ("agents", "--returned-message", "--format", "json"),
    ("files", "--by", "timeline", "--format", "json"),
    ("image", "--format", "json"),
]


def test_archive_answers_as_the_real_home(cli, real_home: Path, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The real corpus (old-layout agents, Windows dirs, persisted outputs) archived:
    every command answers over the archive as over the home, paths aside."""
    dest = tmp_path / "archive"
    made = _timed(cli, "--claude-home", str(real_home), "archive", str(dest), "--format",
                  "json")
    assert made.code == 0, made.stderr
    assert made.summary()["complete"] is True
    monkeypatch.setenv("PYSIFT_ARCHIVE", str(dest))
    for args in REAL_SAME_ANSWER:
        live = _timed(cli, "--claude-home", str(real_home), *args)
        over = _timed(cli, "--claude-home", str(dest), *args)
        assert (over.code, over.stdout.replace(str(dest), "<H>"),
                over.stderr.replace(str(dest), "<H>")) == \
            (live.code, live.stdout.replace(str(real_home), "<H>"),
             live.stderr.replace(str(real_home), "<H>")), args
    again = _timed(cli, "--claude-home", str(real_home), "archive", str(dest), "--format",
                   "json")
    assert again.summary()["skipped"] == again.summary()["files"]


def test_a_call_whose_carrier_misspells_its_content_key_is_pending(cli, real_home: Path) -> None:
    """tier2's claude-code-log fixture: the MultiEdit call at L9 is answered by a carrier
    whose ``"contenst"`` holds the result block, which no view reads. The join (csift's
    ``tool_result.tool_use_id == tool_use.id``) finds no result: the call is pending (it
    read ``paired``, judged by the bytes of L10)."""
    path = real_home / "tier2" / "projects" / "-tmp" / "edge_cases.jsonl"
    if not path.is_file():
        pytest.skip("the tier2 edge_cases fixture is not present")
    result = _timed(cli, "--claude-home", str(real_home), "search", "complex_example",
                    str(path), "--format", "json")
    assert result.code == 0, result.stderr
    hits = [h for ex in result.json_rows("exchange") for h in ex["hits"]]
    assert [(h["line"], h["tool_name"], h["pairing"]) for h in hits] == [
        (9, "MultiEdit", "pending")]


@pytest.mark.parametrize(("wanted", "session"), [
    # a Windows home's slug-only session that recorded its home in a compaction pointer
    ("C:\\Users\\Administrator\\.claude\\plans\\luminous-growing-penguin.md", "9fc1e192"),
    # the path an approval reported (`Your plan has been saved to: …`)
    ("/home/cboos/.claude/plans/humble-doodling-wolf.md", "a7da6a22"),
])
def test_reverse_of_the_recorded_plan_path_finds_the_slug_binder(
        cli, real_home: Path, wanted: str, session: str) -> None:
    """The corpus is read from a copy, not the homes its sessions ran under: the path the
    records give named no binder (thirty-second session)."""
    result = _timed(cli, "--claude-home", str(real_home), "plan", "--reverse", wanted,
                    "--format", "json")
    assert result.code == 0, result.stderr
    assert [r["session_id"][:8] for r in result.json_rows("plan")] == [session]
    other = wanted.replace("Administrator", "Someone").replace("cboos", "someone")
    assert _timed(cli, "--claude-home", str(real_home), "plan", "--reverse", other,
                  "--format", "json").json_rows("plan") == []
