"""``pysift files`` through the real argv path: the four detail levels in text and JSON,
boundaries, subagents, windows, filters, help and bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import (
    ClaudeHome,
    Session,
    assistant,
    bash_result,
    garbage_line,
    tool_result,
    tool_use,
    user,
    write_result,
)

S1 = "11111111-1111-4111-8111-111111111111"
S2 = "33333333-3333-4333-8333-333333333333"
AGENT = "a4ca7529859c158c2"
CWD = "/w/proj"
MODIFIED = "File has been modified since read, either by the user or by a linter."

GROUP_KEYS = {"kind", "session_id", "is_subagent", "parent_session_id", "path", "write", "edit",
              "notebook_edit", "multi_edit", "bash", "external_write", "total", "distinct_files",
              "first_utc", "first_local", "last_utc", "last_local"}
MUTATION_KEYS = {"kind", "session_id", "is_subagent", "parent_session_id", "path", "op", "ts_utc",
                 "ts_local", "turn_index", "line", "is_create", "heuristic", "resolution", "detail",
                 "path_verbatim", "command_errored"}
BOUNDARY_KEYS = {"kind", "session_id", "is_subagent", "parent_session_id", "path", "line",
                 "turn_index", "cause", "ts_utc", "ts_local"}
SUMMARY_KEYS = {"kind", "sessions", "distinct_files", "total_mutations",
                "edit_before_read_boundaries", "skipped_lines", "detail_level",
                "unreadable"}


@pytest.fixture
def home(tmp_path: Path) -> ClaudeHome:
    h = ClaudeHome(tmp_path / "claude")
    s = Session(S1, cwd=CWD)
    s.add(user("write the docs"))                                              # 1
    s.add(assistant(tool_use("Write", {"file_path": "/w/proj/docs/a.md", "content": "A"}, id="w1")))
    s.add(tool_result("w1", "ok", tool_use_result=write_result("/w/proj/docs/a.md", "A")))
    s.add(assistant(tool_use("Edit", {"file_path": "/w/proj/src/m.py", "old_string": "a",
                                      "new_string": "b"}, id="e1")))            # 4
    s.add(tool_result("e1", "ok"))
    s.add(user("now clean and commit"))                                        # 6
    s.add(assistant(tool_use("Bash", {"command": "cd src && rm -f old.py && git add -A"}, id="b1")))
    s.add(tool_result("b1", "", tool_use_result=bash_result("")))
    s.add(assistant(tool_use("Edit", {"file_path": "/w/proj/src/m.py", "old_string": "b",
                                      "new_string": "c"}, id="e2")))            # 9
    s.add(tool_result("e2", MODIFIED, is_error=True))                         # 10
    # bash ran the first line, then refused the second (an unterminated quote): the
    # refused line changed nothing (it had given the junk row `unterminated`)
    s.add(assistant(tool_use("Bash", {"command": "rm -f stale.log\nrm -f 'unterminated"},
                             id="b2")))  # 11
    s.add(tool_result("b2", "syntax error", is_error=True))
    main = h.session(CWD, S1, s)
    h.raw_lines(main, [garbage_line() + b"\n"])
    sub = Session(S1, cwd=CWD, agent_id=AGENT)
    sub.add(user("write a test"))
    sub.add(assistant(tool_use("Write", {"file_path": "/w/proj/tests/t.py", "content": "t"}, id="sw")))
    sub.add(tool_result("sw", "ok", tool_use_result=write_result("/w/proj/tests/t.py", "t")))
    sub.add(assistant(tool_use("Edit", {"file_path": "/w/proj/tests/u.py", "old_string": "",
                                        "new_string": ""}, id="se")))
    sub.add(tool_result("se", MODIFIED, is_error=True))
    h.subagent(main, AGENT, sub, meta={"agentType": "general-purpose"})
    quiet = Session(S2, cwd=CWD)
    quiet.add(user("just looking"))
    quiet.add(assistant(tool_use("Read", {"file_path": "/w/proj/docs/a.md"}, id="r1")))
    h.session(CWD, S2, quiet)
    return h


@pytest.fixture
def run(cli, home: ClaudeHome):
    def call(*args: str):
        return cli("--claude-home", str(home.root), "files", *args)
    return call


def test_summary_text(run) -> None:
    result = run(f"@{S1}")
    assert result.code == 0, result.stderr
    assert result.stdout == f"""\
scope  2 sessions in scope (1 top-level + 1 subagent)

SESSION {S1}
  /w/proj: 1 bash (heuristic)
  /w/proj/docs: 1 write
  /w/proj/src: 1 edit, 1 bash (heuristic)
  git:: 1 bash (heuristic)

SUBAGENT {AGENT}  ·  parent SESSION {S1}
  /w/proj/tests: 1 write

── Edit-before-Read boundaries (2) — changed outside the tool stream (a formatter, git, an editor); check with recover --coverage ──
  ⚠ /w/proj/src/m.py  ·  L10  ·  turn 1  ·  2026-10-05 20:00:40 AEDT(UTC+11)  ·  modified_since_read
  ⚠ /w/proj/tests/u.py  ·  L5  ·  turn 0  ·  2026-10-05 20:00:15 AEDT(UTC+11)  ·  modified_since_read  ·  subagent {AGENT} (parent {S1})

5 distinct file(s)  ·  6 mutation(s)  ·  2 Edit-before-Read boundary(ies)  ·  detail=summary  ·  all turns
(Bash mutations are heuristic: read from the command text, never observed on disk.)
(1 malformed line(s) skipped)
"""


def test_timeline_text_and_json(run) -> None:
    text = run(f"@{S1}", "--no-subagents", "--by", "timeline").stdout
    assert text.splitlines()[:6] == [
        f"SESSION {S1}",
        "  L2  2026-10-05 20:00:05 AEDT(UTC+11)  turn 0  write  /w/proj/docs/a.md",
        "  L4  2026-10-05 20:00:15 AEDT(UTC+11)  turn 0  edit  /w/proj/src/m.py",
        "  L7  2026-10-05 20:00:30 AEDT(UTC+11)  turn 1  bash (heuristic)  /w/proj/src/old.py",
        "  L7  2026-10-05 20:00:30 AEDT(UTC+11)  turn 1  bash (heuristic)  git:add",
        "  L11  2026-10-05 20:00:50 AEDT(UTC+11)  turn 1  bash (heuristic)  /w/proj/stale.log "
        "(command errored)",
    ]
    assert "unterminated" not in text
    result = run(f"@{S1}", "--no-subagents", "--by", "timeline", "--format", "json")
    rows = result.json_rows("mutation")
    assert all(set(r) == MUTATION_KEYS for r in rows)
    first, _, rm, git, ran = rows
    assert (first["op"], first["is_create"], first["heuristic"], first["resolution"],
            first["line"], first["turn_index"]) == ("write", True, False, None, 2, 0)
    assert (rm["path"], rm["path_verbatim"], rm["resolution"], rm["command_errored"]) == (
        "/w/proj/src/old.py", "old.py", "cd-tracked", False)
    assert (git["path"], git["resolution"], git["path_verbatim"]) == ("git:add", None, None)
    # the line bash ran before the one it refused keeps its row, flagged errored
    assert (ran["path"], ran["resolution"], ran["command_errored"]) == (
        "/w/proj/stale.log", "cwd-joined", True)
    assert result.header() == {"kind": "header", "command": "files", "sessions_in_scope": 1,
                               "top_level_sessions": 1, "subagent_sessions": 0}


def test_grouped_json_rows(run) -> None:
    for by, kind in (("summary", "bucket"), ("dir", "dir"), ("file", "file")):
        result = run(f"@{S1}", "--by", by, "--format", "json")
        rows = result.json_rows(kind)
        assert rows and all(set(r) == GROUP_KEYS for r in rows)
        assert all(set(r) == BOUNDARY_KEYS for r in result.json_rows("boundary"))
        summary = result.summary()
        assert set(summary) == SUMMARY_KEYS
        assert summary == {"kind": "summary", "sessions": 1, "distinct_files": 5,
                           "total_mutations": 6, "edit_before_read_boundaries": 2,
                           "skipped_lines": 1, "detail_level": by,
                           "unreadable": 0}
    files = {r["path"]: r for r in run(f"@{S1}", "--by", "file", "--format", "json").json_rows("file")}
    assert files["/w/proj/src/old.py"]["bash"] == 1 and files["git:add"]["distinct_files"] == 0
    sub = files["/w/proj/tests/t.py"]
    assert (sub["session_id"], sub["is_subagent"], sub["parent_session_id"]) == (AGENT, True, S1)


def test_dir_and_file_text(run) -> None:
    lines = run(f"@{S1}", "--no-subagents", "--by", "dir").stdout.splitlines()
    at = lines.index("  /w/proj/src")
    assert lines[at + 1:at + 4] == ["    1 edit, 1 bash (heuristic)  ·  2 file(s)",
                                    "    first  2026-10-05 20:00:15 AEDT(UTC+11)",
                                    "    last   2026-10-05 20:00:30 AEDT(UTC+11)"]
    lines = run(f"@{S1}", "--no-subagents", "--by", "file").stdout.splitlines()
    at = lines.index("  /w/proj/src/m.py")
    assert lines[at + 1] == "    1 edit"
    assert any("detail=by-file" in line for line in lines)


def test_filters_apply_before_the_rollup_and_to_boundaries(run) -> None:
    result = run(f"@{S1}", "--by", "file", "--glob", "**/tests/**", "--format", "json")
    assert [r["path"] for r in result.json_rows("file")] == ["/w/proj/tests/t.py"]
    assert [r["path"] for r in result.json_rows("boundary")] == ["/w/proj/tests/u.py"]
    result = run(f"@{S1}", "--by", "file", "--regex", r"\.md$", "--glob", "/w/proj/src/*",
                 "--format", "json")
    assert result.json_rows("file") == [] and result.json_rows("boundary") == []
    assert result.summary()["sessions"] == 0


def test_turn_window_and_its_footer(run) -> None:
    result = run(f"@{S1}", "--no-subagents", "--turn", "-1..", "--by", "timeline")
    assert "turn 0" not in result.stdout
    assert "detail=timeline  ·  turn=-1.." in result.stdout
    assert "time-window" in run(f"@{S1}", "--since", "2026-10-01").stdout


def test_empty_result(run) -> None:
    result = run(f"@{S2}")
    assert result.stdout == ("no file mutations found\n\n0 distinct file(s)  ·  0 mutation(s)  ·  "
                             "0 Edit-before-Read boundary(ies)  ·  detail=summary  ·  all turns\n"
                             "(Bash mutations are heuristic: read from the command text, never "
                             "observed on disk.)\n")
    rows = run(f"@{S2}", "--format", "json").json_rows()
    assert [r["kind"] for r in rows] == ["header", "summary"]


def test_help_has_examples_and_the_json_schema(cli) -> None:
    result = cli("files", "--help")
    assert result.code == 0
    for needle in ("EXAMPLES", "--by timeline --glob '**/src/**'", '"kind":"mutation"',
                   '"cause":"modified_since_read"', '"detail_level"', "heuristic",
                   "cd-tracked", "git:<sub>"):
        assert needle in result.stdout, needle


@pytest.mark.parametrize("args, needles", [
    (("--by", "tree"), ("--by", "summary, dir, file, timeline")),
    (("--by", ""), ("--by", "summary, dir, file, timeline")),
    (("--regex", "(unclosed"), ("--regex", "Rust-syntax regex")),
    (("--regex", "a(?=b)"), ("--regex", "lookahead")),
    (("--glob", "src/[ab"), ("--glob", "unclosed class", "** spans directories")),
    (("--glob", "{a,{b}}"), ("--glob", "cannot nest")),
    (("--turn", "3-5"), ("--turn", "3..5")),
    # a second pattern silently replaced the first (click keeps the last value): the
    # answer held paths the first pattern excluded
    (("--glob", "**/src/**", "--glob", "*.py"), ("--glob", "given 2 times (**/src/**, *.py)")),
    (("--regex", "a", "--regex", "b"), ("--regex", "given 2 times (a, b)")),
    # an empty glob matched no path, an empty regex every path
    (("--glob", ""), ("--glob is empty",)),
    (("--regex", ""), ("--regex is empty",)),
])
def test_bad_input_is_one_usage_line(run, args: tuple[str, ...], needles: tuple[str, ...]) -> None:
    result = run(f"@{S1}", *args)
    assert result.code == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("pysift: error: "), result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    assert result.stdout == ""


def test_git_dash_c_and_conditional_cds_in_bash_rows(cli, tmp_path: Path) -> None:
    h = ClaudeHome(tmp_path / "shellhome")
    s = Session(S1, cwd=CWD)
    s.add(user("tidy"))
    for n, command in enumerate(["git -C other rm r.txt", "cd a || cd b; touch f4",
                                 "[ -d x ] && cd x; touch f2",
                                 "if [ -d y ]; then cd y; fi; touch f3",
                                 "cd x && touch f5"]):
        s.add(assistant(tool_use("Bash", {"command": command}, id=f"b{n}")))
        s.add(tool_result(f"b{n}", "", tool_use_result=bash_result("")))
    h.session(CWD, S1, s)
    result = cli("--claude-home", str(h.root), "files", f"@{S1}", "--by", "timeline",
                 "--format", "json")
    assert result.code == 0, result.stderr
    got = [(r["path"], r["resolution"], r["path_verbatim"]) for r in result.json_rows("mutation")]
    assert got == [("/w/proj/other/r.txt", "cd-tracked", "r.txt"), ("f4", "unresolved", None),
                   ("f2", "unresolved", None), ("f3", "unresolved", None),
                   ("/w/proj/x/f5", "cd-tracked", "f5")]


def test_powershell_calls_it_does_not_read_are_counted_in_a_note(cli, tmp_path: Path) -> None:
    """Claude Code on Windows changes files through its PowerShell tool too; files reads
    Bash commands only, and listed a Windows session's changes with no word of the
    PowerShell calls it passed over (real 762cc180: 44 of them, `Copy-Item`, `New-Item`).
    A stderr note counts those inside the window (twenty-third session)."""
    h = ClaudeHome(tmp_path / "pshome")
    s = Session(S1, cwd="C:\\w\\proj")
    s.add(user("set it up"))                                                   # t0
    s.add(assistant(tool_use("Write", {"file_path": "C:\\w\\proj\\a.ps1", "content": "A"},
                             id="w1")))
    s.add(tool_result("w1", "ok"))
    s.add(assistant(tool_use("PowerShell", {"command": "Copy-Item a.ps1 b.ps1"}, id="p1")))
    s.add(tool_result("p1", ""))
    s.add(user("and link it"))                                                 # t1
    s.add(assistant(tool_use("PowerShell", {"command": "New-Item -ItemType SymbolicLink "
                                            "-Path c.ps1 -Target a.ps1"}, id="p2")))
    s.add(tool_result("p2", ""))
    s.add(assistant(tool_use("PowerShell", {"command": "Get-ChildItem"}, id="p3")))
    s.add(tool_result("p3", "a.ps1"))
    h.session("C:\\w\\proj", S1, s)
    root = ("--claude-home", str(h.root), "files", f"@{S1}")
    result = cli(*root)
    assert result.code == 0, result.stderr
    assert "3 PowerShell call(s) in the window were not read" in result.stderr
    assert "1 distinct file(s)" in result.stdout
    windowed = cli(*root, "--turn", "0", "--format", "json")
    assert windowed.code == 0 and "1 PowerShell call(s) in the window" in windowed.stderr
    quiet = cli(*root, "--turn", "1", "--glob", "**/a.ps1")
    assert "2 PowerShell call(s) in the window were not read" in quiet.stderr


def test_one_windows_file_spelled_two_ways_is_one_distinct_file(cli, tmp_path: Path) -> None:
    """A Windows session named the same file `D:\\w\\a.txt` in its own transcript and
    `d:/w/a.txt` in a subagent's (the real 04053218 did so twice); `distinct_files`
    counted each file twice. A drive-letter or UNC path is one file whatever its case and
    separators (twenty-third session); a POSIX path stays as written."""
    h = ClaudeHome(tmp_path / "winhome")
    s = Session(S1, cwd="D:\\w")
    s.add(user("write it"))
    s.add(assistant(tool_use("Write", {"file_path": "D:\\w\\a.txt", "content": "A"}, id="w1")))
    s.add(tool_result("w1", "ok"))
    s.add(assistant(tool_use("Write", {"file_path": "/w/b.txt", "content": "B"}, id="w2")))
    s.add(tool_result("w2", "ok"))
    main = h.session("D:\\w", S1, s)
    sub = Session(S1, cwd="D:\\w", agent_id=AGENT)
    sub.add(user("rewrite it"))
    sub.add(assistant(tool_use("Write", {"file_path": "d:/w/a.txt", "content": "B"}, id="w3")))
    sub.add(tool_result("w3", "ok"))
    sub.add(assistant(tool_use("Write", {"file_path": "/W/B.txt", "content": "B"}, id="w4")))
    sub.add(tool_result("w4", "ok"))
    h.subagent(main, AGENT, sub)
    result = cli("--claude-home", str(h.root), "files", f"@{S1}", "--format", "json")
    assert result.code == 0, result.stderr
    assert result.summary()["distinct_files"] == 3


def test_windows_dot_segments_are_one_file_and_sharp_s_is_not_ss(cli, tmp_path: Path) -> None:
    """``files`` compared Windows paths case-folded and unnormalised, unlike ``recover``
    and ``plan``: ``D:\\w\\x\\..\\a.txt`` counted apart from ``D:\\w\\a.txt`` (Win32 reads
    ``..`` lexically: one file), and ``straße.txt`` together with ``STRASSE.txt`` (NTFS
    keeps them apart). One rule, ``disk.layout.windows_identity``, serves all three."""
    h = ClaudeHome(tmp_path / "winhome")
    s = Session(S1, cwd="D:\\w")
    s.add(user("write them"))
    for i, path in enumerate(["D:\\w\\a.txt", "D:\\w\\x\\..\\A.txt", "d:/w//./a.txt",
                              "D:\\w\\straße.txt", "D:\\w\\STRASSE.txt"]):
        s.add(assistant(tool_use("Write", {"file_path": path, "content": "A"}, id=f"w{i}")))
        s.add(tool_result(f"w{i}", "ok"))
    h.session("D:\\w", S1, s)
    result = cli("--claude-home", str(h.root), "files", f"@{S1}", "--format", "json")
    assert result.code == 0, result.stderr
    assert result.summary()["distinct_files"] == 3


def test_a_relative_structured_path_is_joined_to_its_record_cwd(cli, tmp_path: Path) -> None:
    """A Write/Edit naming a relative path (some subagent transcripts record them) was
    listed as written: bucketed under `docs`, counted apart from the absolute spelling of
    the same file, and missed by `--glob '/w/proj/**'` (the filters match the full path)
    while `recover` joins it to the record's cwd. It is joined now, classed `cwd-joined`
    with the written spelling kept; an absolute path stays as it was."""
    h = ClaudeHome(tmp_path / "relhome")
    s = Session(S1, cwd=CWD)
    s.add(user("write the docs"))
    s.add(assistant(tool_use("Write", {"file_path": "docs/a.md", "content": "A"}, id="w1")))
    s.add(tool_result("w1", "ok"))
    s.add(assistant(tool_use("Edit", {"file_path": "/w/proj/docs/a.md", "old_string": "A",
                                      "new_string": "B"}, id="e1")))
    s.add(tool_result("e1", "ok"))
    s.add(assistant(tool_use("Edit", {"file_path": "./docs/../docs/b.md", "old_string": "A",
                                      "new_string": "B"}, id="e2")))
    s.add(tool_result("e2", MODIFIED, is_error=True))
    h.session(CWD, S1, s)
    result = cli("--claude-home", str(h.root), "files", f"@{S1}", "--by", "timeline",
                 "--glob", "/w/proj/**", "--format", "json")
    assert result.code == 0, result.stderr
    rows = result.json_rows("mutation")
    assert [(r["path"], r["resolution"], r["path_verbatim"]) for r in rows] == [
        ("/w/proj/docs/a.md", "cwd-joined", "docs/a.md"),
        ("/w/proj/docs/a.md", None, None),
    ]
    assert [b["path"] for b in result.json_rows("boundary")] == ["/w/proj/docs/b.md"]
    assert result.summary()["distinct_files"] == 1


def test_xargs_rm_is_a_row_of_files_no_text_names(cli, tmp_path: Path) -> None:
    """`git ls-files -z '*.tmp' | xargs -0 rm -f` deleted files and `files` listed nothing:
    the items xargs reads are a pattern that may name any file, as `rm "$F"` is."""
    h = ClaudeHome(tmp_path / "xargshome")
    s = Session(S1, cwd=CWD)
    s.add(user("drop the temp files"))
    s.add(assistant(tool_use("Bash", {"command": "git ls-files -z '*.tmp' | xargs -0 rm -f"},
                             id="b1")))
    s.add(tool_result("b1", "", tool_use_result=bash_result("")))
    s.add(assistant(tool_use("Bash", {"command": "ls | xargs -I{} mv {} old/"}, id="b2")))
    s.add(tool_result("b2", "", tool_use_result=bash_result("")))
    h.session(CWD, S1, s)
    args = ("--claude-home", str(h.root), "files", f"@{S1}", "--by", "timeline")
    text = cli(*args)
    assert text.code == 0, text.stderr
    assert [line.split("  ", 4)[-1] for line in text.stdout.splitlines()[1:4]] == [
        "bash (heuristic)  ${xargs_input}", "bash (heuristic)  /w/proj/old",
        "bash (heuristic)  ${xargs_input}"]
    result = cli(*args, "--format", "json")
    got = [(r["path"], r["resolution"], r["path_verbatim"]) for r in result.json_rows("mutation")]
    assert got == [("${xargs_input}", "unresolved", None), ("/w/proj/old", "cwd-joined", "old/"),
                   ("${xargs_input}", "unresolved", None)]
    assert result.json_rows("summary")[0]["total_mutations"] == 3


def test_a_group_closed_by_a_brace_word_lists_no_file_named_brace(cli, tmp_path: Path) -> None:
    """`{ rm old.txt }`: bash takes the `}` for an argument and refuses the string (the
    group never closes); zsh closes the group there. A row of a file named `}` was
    listed, wrong under both shells: the string is read as zsh, the only shell that can
    have run it, and a failed result still flags its rows."""
    h = ClaudeHome(tmp_path / "bracehome")
    s = Session(S1, cwd=CWD)
    s.add(user("tidy"))
    s.add(assistant(tool_use("Bash", {"command": "{ rm old.txt }; touch new.txt"}, id="b1")))
    s.add(tool_result("b1", "", tool_use_result=bash_result("")))
    s.add(assistant(tool_use("Bash", {"command": "{ echo x > f.txt }"}, id="b2")))
    s.add(tool_result("b2", "bash: -c: line 2: syntax error: unexpected end of file",
                      is_error=True))
    h.session(CWD, S1, s)
    result = cli("--claude-home", str(h.root), "files", f"@{S1}", "--by", "timeline",
                 "--format", "json")
    assert result.code == 0, result.stderr
    got = [(r["path"], r["resolution"], r["command_errored"])
           for r in result.json_rows("mutation")]
    assert got == [("/w/proj/old.txt", "cwd-joined", False),
                   ("/w/proj/new.txt", "cwd-joined", False),
                   ("/w/proj/f.txt", "cwd-joined", True)]
