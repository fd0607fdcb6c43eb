"""The files engine: structured ops joined to their results, bash rows, boundaries,
settings-family external writes, the whole-file malformed count, windows and rollups."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from builders import (
    Session,
    assistant,
    bash_result,
    edit_result,
    file_history_snapshot,
    garbage_line,
    to_jsonl,
    tool_result,
    tool_use,
    torn,
    user,
    write_result,
)
from pysift.core.grammar.pathfilter import PathFilter, compile_glob, compile_path_regex
from pysift.core.grammar.ranges import parse_range
from pysift.disk.layout import transcript_from_path
from pysift.engines import files as engine
from pysift.engines.files import FilesPlan, Mutation, groups, parent_dir, span_of, timeline

SID = "22222222-2222-4222-8222-222222222222"
CWD = "/w/proj"
MODIFIED = ("File has been modified since read, either by the user or by a linter. "
            "Read it again before attempting to write it.")


def write_session(tmp_path: Path, records: Any, name: str = SID) -> Path:
    path = tmp_path / "projects" / "-w-proj" / f"{name}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(records if isinstance(records, bytes) else to_jsonl(records))
    return path


def scan(path: Path, **kw: Any) -> engine.TranscriptFiles:
    return engine.transcript_mutations(transcript_from_path(path), **kw)


def edit_session() -> Session:
    s = Session(SID, cwd=CWD)
    s.add(user("make the docs"))
    s.add(assistant(tool_use("Write", {"file_path": "/w/proj/a.md", "content": "# A\n"}, id="w1")))
    s.add(tool_result("w1", "File created successfully", tool_use_result=write_result("/w/proj/a.md", "# A\n")))
    s.add(assistant(tool_use("Write", {"file_path": "/w/proj/b.md", "content": "B"}, id="w2")))
    s.add(tool_result("w2", "ok", tool_use_result=write_result("/w/proj/b.md", "B", original="b")))
    s.add(assistant(tool_use("Edit", {"file_path": "/w/proj/a.md", "old_string": "A", "new_string": "B"}, id="e1")))
    s.add(tool_result("e1", "ok", tool_use_result=edit_result("/w/proj/a.md", "A", "B", "# A\n")))
    s.add(assistant(tool_use("MultiEdit", {"file_path": "/w/proj/c.py", "edits": []}, id="m1")))
    s.add(tool_result("m1", "ok"))
    s.add(assistant(tool_use("NotebookEdit", {"notebook_path": "/w/proj/n.ipynb", "new_source": "x"}, id="n1")))
    s.add(tool_result("n1", "ok"))
    return s


def test_structured_ops_join_their_results(tmp_path: Path) -> None:
    found = scan(write_session(tmp_path, edit_session()))
    got = [(m.op, m.path, m.is_create, m.heuristic, m.line) for m in found.mutations]
    assert got == [
        ("write", "/w/proj/a.md", True, False, 2),
        ("write", "/w/proj/b.md", False, False, 4),
        ("edit", "/w/proj/a.md", False, False, 6),
        ("multi_edit", "/w/proj/c.py", False, False, 8),
        ("notebook_edit", "/w/proj/n.ipynb", False, False, 10),
    ]
    assert all(m.resolution is None and m.path_verbatim is None for m in found.mutations)
    assert found.skipped_lines == 0


def test_an_errored_op_never_landed(tmp_path: Path) -> None:
    s = Session(SID, cwd=CWD)
    s.add(user("edit"))
    s.add(assistant(tool_use("Edit", {"file_path": "/w/x.py", "old_string": "a", "new_string": "b"}, id="e1")))
    s.add(tool_result("e1", "String to replace not found in file.", is_error=True))
    s.add(assistant(tool_use("Write", {"file_path": "/w/y.py", "content": "y"}, id="w1")))
    s.add(tool_result("w1", "Cancelled: parallel tool call Bash errored", is_error=True))
    found = scan(write_session(tmp_path, s))
    assert found.mutations == [] and found.boundaries == []


def test_bash_rows_are_heuristic_and_errored_chains_are_kept(tmp_path: Path) -> None:
    s = Session(SID, cwd=CWD)
    s.add(user("clean up"))
    s.add(assistant(tool_use("Bash", {"command": "cd build && rm -rf out; echo hi > $LOG"}, id="b1")))
    s.add(tool_result("b1", "rm: cannot remove", is_error=True))
    s.add(assistant(tool_use("Bash", {"command": "mkdir -p docs"}, id="b2")))
    s.add(tool_result("b2", "", tool_use_result=bash_result("")))
    found = scan(write_session(tmp_path, s))
    got = [(m.path, m.op, m.resolution, m.path_verbatim, m.command_errored, m.heuristic, m.is_create)
           for m in found.mutations]
    assert got == [
        ("/w/proj/build/out", "bash", "cd-tracked", "out", True, True, False),
        ("$LOG", "bash", "unresolved", None, True, True, True),
        ("/w/proj/docs", "bash", "cwd-joined", "docs", False, True, True),
    ]


def test_a_find_started_at_a_file_the_session_wrote_is_a_row_only_when_its_tests_may_match(
        tmp_path: Path) -> None:
    """GNU find tests a start point that is a file as any other path: after the session
    wrote notes.txt, `find ./notes.txt -name '*.pyc' -delete` leaves it alone, yet
    `files` listed it deleted; a start the session never wrote may be a directory."""
    s = Session(SID, cwd=CWD)
    s.add(user("tidy"))
    s.add(assistant(tool_use("Write", {"file_path": "/w/proj/notes.txt", "content": "n\n"},
                             id="w1")))
    s.add(tool_result("w1", "ok", tool_use_result=write_result("/w/proj/notes.txt", "n\n")))
    for n, command in enumerate(["find ./notes.txt -name '*.pyc' -delete",
                                 "find notes.txt -name '*.txt' -delete",
                                 "find build -name '*.pyc' -delete"]):
        s.add(assistant(tool_use("Bash", {"command": command}, id=f"b{n}")))
        s.add(tool_result(f"b{n}", "", tool_use_result=bash_result("")))
    found = scan(write_session(tmp_path, s))
    assert [(m.path, m.op) for m in found.mutations] == [
        ("/w/proj/notes.txt", "write"), ("/w/proj/notes.txt", "bash"),
        ("/w/proj/build", "bash")]


@pytest.mark.parametrize(("between", "remade"), [
    ("rm notes.txt && mkdir notes.txt", True),
    ("rm -rf \"$OLD\"", True),  # a pattern that may name it
    ("mkdir -p notes.txt/cache", True),
    ("rsync -a /tmp/snapshot/ /w/proj/", True),  # a directory holding it, made again
    ("mv /tmp/old-proj /w/proj", True),
    ("git checkout -- .", True),
    ("tar -xf /tmp/proj.tar", True),  # an opaque marker
    ("touch other.txt", False),
])
def test_a_find_start_the_session_may_have_made_again_since_its_write_keeps_its_row(
        tmp_path: Path, between: str, remade: bool) -> None:
    """notes.txt was written as a file, then (maybe) re-made as a directory: a find
    started there may delete what it now holds, so only an unrelated command between
    the write and the find leaves it spared."""
    def rows(*commands: str) -> list[tuple[str, str]]:
        s = Session(SID, cwd=CWD)
        s.add(user("tidy"))
        s.add(assistant(tool_use("Write", {"file_path": "/w/proj/notes.txt",
                                           "content": "n\n"}, id="w1")))
        s.add(tool_result("w1", "ok",
                          tool_use_result=write_result("/w/proj/notes.txt", "n\n")))
        for n, command in enumerate(commands):
            s.add(assistant(tool_use("Bash", {"command": command}, id=f"b{n}")))
            s.add(tool_result(f"b{n}", "", tool_use_result=bash_result("")))
        home = tmp_path / str(len(commands))
        home.mkdir()
        return [(m.path, m.op) for m in scan(write_session(home, s)).mutations]

    before = rows(between)
    after = rows(between, "find notes.txt -name '*.pyc' -delete")
    assert after == before + ([("/w/proj/notes.txt", "bash")] if remade else [])


def test_a_find_in_the_same_command_as_the_mkdir_keeps_its_row(tmp_path: Path) -> None:
    s = Session(SID, cwd=CWD)
    s.add(user("tidy"))
    s.add(assistant(tool_use("Write", {"file_path": "/w/proj/notes.txt", "content": "n\n"},
                             id="w1")))
    s.add(tool_result("w1", "ok", tool_use_result=write_result("/w/proj/notes.txt", "n\n")))
    s.add(assistant(tool_use("Bash", {"command": "rm notes.txt; mkdir notes.txt; "
                                      "find notes.txt -name '*.pyc' -delete"}, id="b1")))
    s.add(tool_result("b1", "", tool_use_result=bash_result("")))
    found = scan(write_session(tmp_path, s))
    assert [(m.path, m.op, m.path_verbatim) for m in found.mutations][-1] == (
        "/w/proj/notes.txt", "bash", "notes.txt")
    assert sum(m.op == "bash" for m in found.mutations) == 3


def test_bash_resolves_against_its_own_records_cwd(tmp_path: Path) -> None:
    s = Session(SID, cwd=CWD)
    s.add(user("go"))
    s.cwd = "/w/proj/sub"  # a cd persisted from an earlier call
    s.add(assistant(tool_use("Bash", {"command": "touch x"}, id="b1")))
    s.cwd = CWD  # the result record lags behind (never read)
    s.add(tool_result("b1", ""))
    found = scan(write_session(tmp_path, s))
    assert [m.path for m in found.mutations] == ["/w/proj/sub/x"]


def test_boundary_attributed_to_the_rejected_ops_file(tmp_path: Path) -> None:
    s = Session(SID, cwd=CWD)
    s.add(user("fix"))
    s.add(assistant(tool_use("Edit", {"file_path": "/w/proj/app.ts", "old_string": "a", "new_string": "b"}, id="e1")))
    s.add(tool_result("e1", MODIFIED, is_error=True))
    s.add(user("again"))
    s.add(assistant(tool_use("Bash", {"command": "ls"}, id="b1")))
    s.add(tool_result("b1", [{"type": "text", "text": "File has been modified since read"}], is_error=True))
    found = scan(write_session(tmp_path, s))
    assert found.mutations == []
    assert [(b.path, b.line, b.cause, b.turn) for b in found.boundaries] == [
        ("/w/proj/app.ts", 3, "modified_since_read", 0)]
    assert found.turn_count == 2  # boundaries always carry their turn


def test_a_boundary_is_timed_and_turned_by_its_refused_call_as_recover_times_it(
        tmp_path: Path) -> None:
    """The line is the error result's; the instant and the turn are the call's (a window
    ending between the two put the boundary on different sides in files and recover)."""
    s = Session(SID, cwd=CWD)
    s.add(user("fix"))
    call = s.add(assistant(tool_use("Edit", {"file_path": "/w/proj/app.ts", "old_string": "a",
                                            "new_string": "b"}, id="e1")))
    s.add(user("meanwhile"))  # a turn opens before the refusal is written
    result = s.add(tool_result("e1", MODIFIED, is_error=True))
    [b] = scan(write_session(tmp_path, s)).boundaries
    assert (b.line, b.ts, b.turn) == (4, call["timestamp"], 0)
    assert b.ts != result["timestamp"]


def test_turn_and_line_numbers_when_asked(tmp_path: Path) -> None:
    path = write_session(tmp_path, edit_session())
    found = scan(path, turns=True)
    assert {m.turn for m in found.mutations} == {0}
    assert [m.line for m in found.mutations] == [2, 4, 6, 8, 10]
    without = scan(path, lines=False)
    assert {(m.turn, m.line) for m in without.mutations} == {(None, None)}
    assert [m.offset for m in without.mutations] == [m.offset for m in found.mutations]
    data = path.read_bytes()
    assert all(data[m.offset - 1:m.offset] == b"\n" for m in found.mutations)


def test_malformed_lines_counted_over_the_whole_file(tmp_path: Path) -> None:
    s = edit_session()
    records = list(s.records)
    data = (to_jsonl(records[:3]) + garbage_line() + b"\n\n   \n" + torn(records[3]) + b"\n"
            + to_jsonl(records[4:]) + b'{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Edit"}]},}\n'
            + b"trailing junk without newline")
    found = scan(write_session(tmp_path, data))
    # garbage, the torn Write line, the invalid framed Edit line, the junk tail
    assert found.skipped_lines == 4
    # the torn line was the Write of b.md: it is lost, counted, never guessed
    assert [m.path for m in found.mutations] == ["/w/proj/a.md", "/w/proj/a.md", "/w/proj/c.py",
                                                 "/w/proj/n.ipynb"]
    lines = data.split(b"\n")
    for m in found.mutations:
        assert m.path.encode() in lines[m.line - 1]


def test_spaced_json_layout(tmp_path: Path) -> None:
    data = b"".join(json.dumps(r).encode() + b"\n" for r in edit_session().records)
    found = scan(write_session(tmp_path, data))
    assert [(m.op, m.is_create) for m in found.mutations] == [
        ("write", True), ("write", False), ("edit", False), ("multi_edit", False),
        ("notebook_edit", False)]


def test_big_files_are_scanned_in_slices(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = Session(SID, cwd=CWD)
    s.add(user("many"))
    for i in range(300):
        s.add(assistant(tool_use("Write", {"file_path": f"/w/f{i}.txt", "content": "x" * 500}, id=f"w{i}")))
        s.add(tool_result(f"w{i}", "ok", tool_use_result=write_result(f"/w/f{i}.txt", "x" * 500)))
    data = to_jsonl(s.records[:200]) + garbage_line() + b"\n" + to_jsonl(s.records[200:])
    path = write_session(tmp_path, data)
    whole = scan(path)
    monkeypatch.setattr(engine, "READ_WHOLE_BYTES", 1000)
    monkeypatch.setattr(engine, "_CHUNK", 4096)
    sliced = scan(path)
    assert sliced.mutations == whole.mutations and len(whole.mutations) == 300
    assert sliced.skipped_lines == whole.skipped_lines == 1
    assert all(m.is_create for m in sliced.mutations)


def test_settings_family_external_writes(tmp_path: Path) -> None:
    settings = "/home/u/.claude/settings.json"
    s = Session(SID, cwd=CWD)
    s.add(user("one"))
    s.add(file_history_snapshot(backups={settings: 1, "/w/proj/a.py": 1}))
    s.add(user("two"))
    s.add(file_history_snapshot(backups={settings: 2, "/w/proj/a.py": 5}))  # silent bump
    s.add(user("three"))
    s.add(assistant(tool_use("Edit", {"file_path": settings, "old_string": "a", "new_string": "b"}, id="e1")))
    s.add(tool_result("e1", "ok"))
    s.add(file_history_snapshot(backups={settings: 3}))  # explained by the Edit
    s.add(file_history_snapshot(backups={settings: 1}))  # a new generation, not a jump
    found = scan(write_session(tmp_path, s))
    ext = [m for m in found.mutations if m.op == "external_write"]
    assert [(m.path, m.line, m.heuristic, m.detail) for m in ext] == [
        (settings, 4, False, "inferred: file-history v1->v2 with no tool record in L2..L4")]


def plan(paths: PathFilter | None = None, **window: Any) -> FilesPlan:
    return FilesPlan(window=engine.Window(**window), paths=paths or PathFilter())


def test_run_applies_windows_and_path_filters(tmp_path: Path) -> None:
    s = Session(SID, cwd=CWD, start=datetime(2026, 1, 1, 10, 0, tzinfo=UTC), step=60)
    s.add(user("turn zero"))
    s.add(assistant(tool_use("Write", {"file_path": "/w/proj/src/a.rs", "content": ""}, id="w1")))
    s.add(tool_result("w1", "ok"))
    s.add(user("turn one"))
    s.add(assistant(tool_use("Write", {"file_path": "/w/proj/docs/b.md", "content": ""}, id="w2")))
    s.add(tool_result("w2", "ok"))
    s.add(assistant(tool_use("Edit", {"file_path": "/w/proj/src/c.rs", "old_string": "", "new_string": ""}, id="e1")))
    s.add(tool_result("e1", MODIFIED, is_error=True))
    t = transcript_from_path(write_session(tmp_path, s))

    def paths(p: FilesPlan) -> tuple[list[str], list[str]]:
        [found] = engine.run([t], p, workers=1)
        return [m.path for m in found.mutations], [b.path for b in found.boundaries]

    assert paths(plan()) == (["/w/proj/src/a.rs", "/w/proj/docs/b.md"], ["/w/proj/src/c.rs"])
    assert paths(plan(turns=parse_range("1"))) == (["/w/proj/docs/b.md"], ["/w/proj/src/c.rs"])
    assert paths(plan(turns=parse_range("-1.."))) == (["/w/proj/docs/b.md"], ["/w/proj/src/c.rs"])
    assert paths(plan(since=datetime(2026, 1, 1, 10, 3, tzinfo=UTC))) == (
        ["/w/proj/docs/b.md"], ["/w/proj/src/c.rs"])
    assert paths(plan(until=datetime(2026, 1, 1, 10, 2, tzinfo=UTC))) == (["/w/proj/src/a.rs"], [])
    rs = PathFilter(regex=compile_path_regex(r"\.rs$"))
    assert paths(plan(paths=rs)) == (["/w/proj/src/a.rs"], ["/w/proj/src/c.rs"])
    both = PathFilter(regex=compile_path_regex("src"), glob=compile_glob("**/*.md"))
    assert paths(plan(paths=both)) == ([], [])


def test_run_reports_an_unreadable_transcript(tmp_path: Path) -> None:
    t = transcript_from_path(tmp_path / "projects" / "-w" / f"{SID}.jsonl")
    [found] = engine.run([t], plan(), workers=1)
    assert found.error and "cannot read" in found.error


@pytest.mark.parametrize("path, expected", [
    ("/w/proj/a.md", "/w/proj"), ("/a", "/"), ("a.txt", "./"), ("src/a.txt", "src"),
    ("d:\\Work\\a.txt", "d:\\Work"), ("C:\\a.txt", "C:\\"), ("git:checkout", "git:"),
    ("fmt:prettier", "fmt:"), ("/w/dir/", "/w"), ("$OUT/x", "$OUT"),
])
def test_parent_dir(path: str, expected: str) -> None:
    assert parent_dir(path) == expected


def row(path: str, op: str = "edit", ts: str | None = "2026-01-01T10:00:00.000Z", line: int = 1) -> Mutation:
    return Mutation(path, op, ts, line, False, op == "bash", None, None, False, None, None,
                    line * 100)


def test_groups_count_ops_and_files() -> None:
    rows = [row("/a/x.md", "write", "2026-01-01T10:00:05.000Z"), row("/a/x.md", "edit"),
            row("/a/y.md", "bash", None), row("git:commit", "bash"), row("git:add", "bash")]
    by_dir = {g.path: g for g in groups(rows, "dir")}
    assert list(by_dir) == ["/a", "git:"]
    a = by_dir["/a"]
    assert (a.counts["write"], a.counts["edit"], a.counts["bash"], a.total, a.distinct_files) == (1, 1, 1, 3, 2)
    assert (a.first_ts, a.last_ts) == ("2026-01-01T10:00:00.000Z", "2026-01-01T10:00:05.000Z")
    assert a.ops_label() == "1 write, 1 edit, 1 bash (heuristic)"
    assert by_dir["git:"].distinct_files == 0 and by_dir["git:"].total == 2
    assert [g.path for g in groups(rows, "file")] == ["/a/x.md", "/a/y.md", "git:add", "git:commit"]


def test_timeline_is_chronological_then_by_line() -> None:
    rows = [row("/b", ts="2026-01-01T10:00:09.000Z", line=1), row("/c", ts=None, line=2),
            row("/d", ts="2026-01-01T10:00:01.000Z", line=4), row("/a", ts="2026-01-01T10:00:01.000Z", line=3)]
    assert [m.path for m in timeline(rows)] == ["/a", "/d", "/b", "/c"]


def test_span_of_reads_odd_stamps_by_instant() -> None:
    assert span_of(["2026-01-01T10:00:00+00:00", "2026-01-01T09:59:00.000Z"]) == (
        "2026-01-01T09:59:00.000Z", "2026-01-01T10:00:00+00:00")
    assert span_of([]) == (None, None)


# 24 characters ending in Z, yet not Claude Code's shape: each spelling below sorts as a
# string where its instant does not (a space or a comma before the digits' place, a
# lowercase t after every T)
_EARLY, _LATE = "2026-01-01T10:00:00.000Z", "2026-01-01T11:00:00.000Z"


@pytest.mark.parametrize(("odd", "first", "last"), [
    ("2026-01-01 23:00:00.000Z", _EARLY, "2026-01-01 23:00:00.000Z"),
    ("2026-01-01t09:00:00.000Z", "2026-01-01t09:00:00.000Z", _LATE),
    ("2026-01-01T11:00:00,500Z", _EARLY, "2026-01-01T11:00:00,500Z"),
])
def test_a_24_char_z_stamp_of_another_shape_is_ordered_by_its_instant(
        odd: str, first: str, last: str) -> None:
    assert span_of([odd, _EARLY, _LATE]) == (first, last)
    group = groups([row("/a", ts=ts) for ts in (_EARLY, odd, _LATE)], "file")[0]
    assert (group.first_ts, group.last_ts) == (first, last)


def test_results_are_joined_whatever_their_order_and_unrelated_ones_skipped(tmp_path: Path) -> None:
    s = Session(SID, cwd=CWD)
    s.add(user("go"))
    call = assistant(tool_use("Edit", {"file_path": "/w/x.py", "old_string": "a", "new_string": "b"}, id="e1"))
    result = tool_result("e1", "String to replace not found in file.", is_error=True)
    s.add(result)  # written before its call (a merged or re-ordered file)
    s.add(call)
    s.add(assistant(tool_use("Read", {"file_path": "/w/y.py"}, id="r1")))
    s.add(tool_result("r1", "File does not exist.", is_error=True))  # another tool's error
    s.add(assistant(tool_use("Write", {"file_path": "/w/z.py", "content": "z"}, id="w1")))
    s.add(tool_result("w1", "ok", tool_use_result=write_result("/w/z.py", "z")))
    found = scan(write_session(tmp_path, s))
    assert [(m.path, m.is_create) for m in found.mutations] == [("/w/z.py", True)]
    assert engine._result_ids(b'{"tool_use_id":"a"},{"tool_use_id": "b"}', 0, 40) == ["a", "b"]
    assert engine._result_ids(b'{"tool_use_id":"a\\"b"}', 0, 22) is None


def test_a_record_holding_an_inert_bash_call_and_another_calls_result_is_read(tmp_path: Path) -> None:
    """A writer that puts tool_result blocks into the assistant record: the Bash call
    changes nothing, but the same line says the Edit failed."""
    s = Session(SID, cwd=CWD)
    s.add(user("go"))
    s.add(assistant(tool_use("Edit", {"file_path": "/w/x.py", "old_string": "a", "new_string": "b"}, id="e1")))
    mixed = assistant(tool_use("Bash", {"command": "git status"}, id="b1"))
    mixed["message"]["content"].append({"type": "tool_result", "tool_use_id": "e1",
                                        "content": "no", "is_error": True})
    s.add(mixed)
    s.add(assistant(tool_use("Bash", {"command": "ls -la"}, id="b2")))
    found = scan(write_session(tmp_path, s))
    assert found.mutations == []
    spans, _ = engine.scan_bytes(write_session(tmp_path, s).read_bytes())
    assert [kind for *_, kind in spans] == [engine.CALL, engine.CALL, engine.INERT_CALL]


def test_a_big_transcript_spread_over_cores_reads_the_same(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    s = Session(SID, cwd=CWD)
    s.add(user("many"))
    for i in range(40):
        s.add(assistant(tool_use("Edit", {"file_path": f"/w/e{i}.py", "old_string": "a",
                                          "new_string": "b"}, id=f"e{i}")))
        s.add(assistant(tool_use("Bash", {"command": f"rm -f tmp{i}.log && ls"}, id=f"b{i}")))
        s.add(assistant(tool_use("Bash", {"command": "git status"}, id=f"g{i}")))
    for i in range(40):  # every result lands in the far half of the file
        if i % 3 == 0:
            s.add(tool_result(f"e{i}", MODIFIED if i % 2 else "no", is_error=True))
        s.add(tool_result(f"b{i}", "", is_error=i % 5 == 0))
    records = s.records
    data = (to_jsonl(records[:50]) + garbage_line() + b"\n" + to_jsonl(records[50:])
            + torn(records[5]) + b"\n")
    path = write_session(tmp_path, data)
    one = scan(path, turns=True)
    monkeypatch.setattr(engine, "SPLIT_MIN_BYTES", 1)
    spread = scan(path, turns=True, cores=2)
    three = scan(path, turns=True, cores=3)
    assert spread.mutations == one.mutations == three.mutations
    assert spread.boundaries == one.boundaries and len(one.boundaries) == 7
    assert spread.skipped_lines == one.skipped_lines == three.skipped_lines == 2
    assert len([m for m in one.mutations if m.op == "edit"]) == 40 - 14
    assert sum(m.command_errored for m in one.mutations) == 8


def test_a_torn_last_line_without_its_newline_is_counted(tmp_path: Path) -> None:
    # a crash mid-write leaves `{"type":"assistant",...` as the file's last bytes: stats and
    # search count it; files said nothing (its shape pass looked only at lines a newline ends)
    records = list(edit_session().records)
    data = to_jsonl(records[:-1]) + torn(records[-1])
    found = scan(write_session(tmp_path, data))
    assert found.skipped_lines == 1
    assert [m.path for m in found.mutations][-1] == "/w/proj/n.ipynb"  # its result torn


def test_an_indented_record_is_read_not_lost(tmp_path: Path) -> None:
    # a record line with blanks before its `{` is a record (core.decode strips them): its
    # Write was neither a row nor a skipped line
    records = list(edit_session().records)
    data = to_jsonl(records[:1]) + b"  " + to_jsonl(records[1:3]) + b"\t" + to_jsonl(records[3:])
    found = scan(write_session(tmp_path, data))
    assert found.skipped_lines == 0
    assert [(m.path, m.op, m.is_create, m.line) for m in found.mutations][:2] == [
        ("/w/proj/a.md", "write", True, 2), ("/w/proj/b.md", "write", False, 4)]


# the line shapes the shape check tells apart, joined in any order (with LF or CRLF)
_LINE_SHAPES = [b'{"type":"user"}', b'{"a":1}', b'{"torn":', b'junk', b'', b'  ', b'\t',
                b'} ', b' {"x":1}', b'\xef\xbb\xbf{"bom":1}', b'{"x":1} ', b'}', b'{',
                b'"rest of a split":1}', b'{"x":"\r"}']


@given(st.lists(st.sampled_from(_LINE_SHAPES), max_size=12), st.booleans(), st.booleans())
def test_the_malformed_count_is_the_shape_checks_on_any_lines(
        lines: list[bytes], crlf: bool, final_newline: bool) -> None:
    """A line that does not end in ``}`` took the newline the next line's start test
    needed (a split record's second half after its torn first half went uncounted)."""
    from pysift.core.decode import unframed_lines

    sep = b"\r\n" if crlf else b"\n"
    buf = sep.join(lines) + (sep if final_newline and lines else b"")
    assert engine.scan_bytes(buf)[1] == len(unframed_lines(buf))


def test_a_split_records_two_halves_are_two_malformed_lines() -> None:
    buf = b'{"type":"user","a":1}\n{"type":"assistant","message":{"content":\n[]}}\n'
    assert engine.scan_bytes(buf)[1] == 2
