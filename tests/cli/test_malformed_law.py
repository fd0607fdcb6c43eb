"""The malformed-line law (csift v0.6.6, v0.6.8, v0.7.0): every malformed line is counted
exactly once on every path, whichever lines a command parses, and a zero-match search
says so. (Issue 21 items 1-3: search counted only the lines its needles picked, stats
typed a framed line with a broken inside, list missed a garbage line inside its head.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from builders import (
    ClaudeHome,
    Session,
    assistant,
    garbage_line,
    text,
    tool_result,
    tool_use,
    torn,
    user,
)

SID = "21212121-0001-4000-8000-000000000001"
CWD = "/home/ada/src/orbit"


@pytest.fixture
def scarred(tmp_path: Path) -> Path:
    """Two clean turns, then a free-text garbage line, then a user line cut off mid-object
    (a crash): two malformed lines, neither holding the word the searches look for."""
    home = ClaudeHome(tmp_path / "claude")
    s = Session(SID, cwd=CWD)
    s.add(user("why is the pass late?"))
    s.add(assistant(text("epoch parse, probably"), tool_use("Read", {"file_path": "tle.py"},
                                                            id="t1")))
    s.add(tool_result("t1", "1\timport math"))
    s.add(user("and the second question"))
    s.add(assistant(text("done")))
    home.session(CWD, SID, s, garbage_line("<<<<<<< HEAD"), torn(user("cut off mid")))
    return home.root


SEARCHES = [
    ("search", "", f"@{SID}"),                       # a pure filter: label markers
    ("search", "", f"@{SID}", "-t", "user"),          # the user-key walk
    ("search", "pass", f"@{SID}"),                     # a needle with a hit
    ("search", "SOMEWORD", f"@{SID}"),                 # a needle found nowhere: a zero
    ("search", "import", f"@{SID}", "-t", "user"),     # needle on a skipped carrier
    ("search", "", f"@{SID}", "--count-by", "label"),
]


@pytest.mark.parametrize("argv", SEARCHES, ids=lambda a: " ".join(a[1:2] + a[3:]) or "''")
def test_every_search_path_counts_every_malformed_line(cli, scarred: Path, argv) -> None:
    result = cli("--claude-home", str(scarred), *argv, "--format", "json")
    assert result.code == 0, result.stderr
    assert result.summary()["skipped_lines"] == 2


@pytest.mark.parametrize("flag", ["-c", "--raw"])
def test_count_and_raw_modes_note_every_malformed_line(cli, scarred: Path, flag) -> None:
    result = cli("--claude-home", str(scarred), "search", "second", f"@{SID}", flag)
    assert result.code == 0, result.stderr
    assert "2 malformed line(s) skipped" in result.stderr


def test_a_zero_discloses_the_malformed_count(cli, scarred: Path) -> None:
    """v0.7.0: an absence claim is definitive for the parseable lines only."""
    result = cli("--claude-home", str(scarred), "search", "SOMEWORD", f"@{SID}")
    assert result.code == 0 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert "DEFINITIVE absence" in lines[0]
    assert lines[1].startswith("pysift: caution: 2 malformed line(s) were skipped")
    assert "parseable lines only" in lines[1]


def test_show_stats_plan_audit_and_search_agree(cli, scarred: Path) -> None:
    home = str(scarred)
    stats = cli("--claude-home", home, "stats", f"@{SID}", "--format", "json")
    shown = cli("--claude-home", home, "show", f"@{SID}", "--turn", "0..", "--format", "json")
    audit = cli("--claude-home", home, "plan", f"@{SID}", "--audit", "--format", "json")
    found = cli("--claude-home", home, "search", "SOMEWORD", f"@{SID}", "--format", "json")
    branches = cli("--claude-home", home, "show", f"@{SID}", "--branch-points", "--format",
                   "json")
    assert [r.summary()["skipped_lines"] for r in (stats, shown, audit, found, branches)] \
        == [2, 2, 2, 2, 2]


def test_a_binary_file_counts_alike_in_search_and_stats(cli, tmp_path: Path) -> None:
    """Random bytes named *.jsonl: search "" decoded no line and reported 0, stats 780."""
    import random

    junk = tmp_path / "junk.jsonl"
    rng = random.Random(21)
    junk.write_bytes(bytes(rng.randrange(256) for _ in range(60_000)))
    stats = cli("stats", str(junk), "--format", "json").summary()["skipped_lines"]
    searched = cli("search", "", str(junk), "--format", "json").summary()["skipped_lines"]
    assert stats > 100 and searched == stats


def test_stats_counts_a_framed_line_with_a_broken_inside(cli, tmp_path: Path) -> None:
    """Framed by braces, broken inside: malformed, not an attachment (csift's census)."""
    home = ClaudeHome(tmp_path / "claude")
    s = Session(SID, cwd=CWD)
    s.add(user("why is the pass late?"))
    s.add(assistant(text("epoch parse, probably")))
    home.session(CWD, SID, s, b'{"type":"attachment","broken":}\n',
                 b'{"type":"user","message":{"role":"user","content":"x"},"timestamp":"2026-'
                 b'10-05T09:00:09.000Z",}\n')
    result = cli("--claude-home", str(home.root), "stats", f"@{SID}", "--format", "json")
    row = result.json_rows("session")[0]
    assert row["skipped_lines"] == 2
    assert row["line_types"] == {"assistant": 1, "user": 1}
    assert row["user_records"] == 1
    text_run = cli("--claude-home", str(home.root), "stats", f"@{SID}")
    assert "(2 malformed line(s) skipped)" in text_run.stdout


def test_list_counts_garbage_inside_the_head_it_walks(cli, tmp_path: Path) -> None:
    """A 4-line file, garbage at line 2 and a torn line 4: both inside the regions list
    reads (the head up to the first human message, the tail down to the older of the last
    human and last agent message), each counted once."""
    home = ClaudeHome(tmp_path / "claude")
    s = Session(SID, cwd=CWD)
    asked = s.stamp(user("why is the pass late?"))
    said = s.stamp(assistant(text("epoch parse, probably")))
    home.session(CWD, SID, asked, garbage_line(), said, torn(user("cut off")))
    result = cli("--claude-home", str(home.root), "list", "--format", "json")
    assert result.json_rows("session")[0]["skipped_lines"] == 2
    assert result.summary()["skipped_lines"] == 2


def test_list_leaves_a_tear_outside_its_regions_to_stats(cli, tmp_path: Path) -> None:
    """v0.6.8: a mid-file tear between the first human message and the last exchange is
    outside list's regions by design (the full census is stats')."""
    home = ClaudeHome(tmp_path / "claude")
    s = Session(SID, cwd=CWD)
    records = [s.stamp(user("first question")), s.stamp(assistant(text("first answer")))]
    middle = [s.stamp(assistant(text(f"step {i}"))) for i in range(3)]
    last = [s.stamp(user("last question")), s.stamp(assistant(text("last answer")))]
    home.session(CWD, SID, *records, middle[0], garbage_line(), *middle[1:], *last)
    listed = cli("--claude-home", str(home.root), "list", "--format", "json")
    stats = cli("--claude-home", str(home.root), "stats", "--format", "json")
    assert listed.summary()["skipped_lines"] == 0
    assert stats.summary()["skipped_lines"] == 1


# -- the shape check itself ----------------------------------------------------------------

LINES = st.sampled_from([
    b'{"type":"user","message":{"role":"user","content":"hi"}}',
    b'{"type":"attachment","broken":}',  # framed: only a parse finds it
    b'{"type":"user","mess',             # torn
    b"<<<<<<< HEAD",                     # garbage
    b"", b"   ", b"\t\r",                # blank
    b'  {"a":1}  ', b'{"a":1}\r',        # framed once white space is stripped
    b"}", b"{", b"x}", b"{x",
])


@given(st.lists(LINES, max_size=12), st.booleans())
def test_prop_unframed_lines_is_the_naive_shape_check(lines: list[bytes], final_newline: bool
                                                      ) -> None:
    from pysift.core.decode import is_blank, is_framed, unframed_lines

    buf = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    expected, pos = [], 0
    for line in (buf.split(b"\n")[:-1] if buf.endswith(b"\n") else buf.split(b"\n")):
        if buf and not is_blank(line) and not is_framed(line):
            expected.append(pos)
        pos += len(line) + 1
    assert unframed_lines(buf) == expected
    # a range starting at a line start sees the same lines, offsets unchanged
    if lines and buf:
        second = buf.find(b"\n") + 1
        if second:
            assert unframed_lines(buf, second) == [p for p in expected if p >= second]


def test_a_show_address_miss_names_the_malformed_lines(cli, tmp_path: Path) -> None:
    """A transcript whose lines are all torn or garbage has no record, so no turn. Every
    other command says why (search's zero, list's note, stats and verbatim count 3
    malformed lines); show's miss errors said only `the transcript has 0 turn(s)` and
    `none of the 3 addressed line(s) is a record`, as if the file were empty (thirty-first
    session)."""
    home = ClaudeHome(tmp_path / "claude")
    sid = "21212121-0002-4000-8000-000000000002"
    path = home.project_dir(CWD) / f"{sid}.jsonl"
    path.write_bytes(torn(user("cut off mid")) + b"\n" + garbage_line("<<<<<<< HEAD")
                     + b'26-02-13T03:24:54.783Z"}\n')
    root = str(home.root)
    stats = cli("--claude-home", root, "stats", f"@{sid}", "--format", "json")
    assert stats.summary()["skipped_lines"] == 3
    for address in (("--turn", "-1"), ("--turn", "0"), ("--line", "1..")):
        result = cli("--claude-home", root, "show", f"@{sid}", *address)
        assert result.code == 1, address
        assert "3 malformed line(s)" in result.stderr, (address, result.stderr)
    # a transcript with turns names its malformed lines on a turn miss too: a torn opener
    # is a turn the count leaves out
    home.session(CWD, SID, user("first"), assistant("one"), garbage_line("oops"),
                 torn(user("second, cut off")))
    result = cli("--claude-home", root, "show", f"@{SID}", "--turn", "5")
    assert result.code == 1
    assert "the transcript has 1 turn(s) (t0..t0)" in result.stderr
    assert "2 malformed line(s)" in result.stderr, result.stderr
    # a clean transcript's miss is worded as before
    clean = "21212121-0003-4000-8000-000000000003"
    home.session(CWD, clean, user("first"), assistant("one"))
    result = cli("--claude-home", root, "show", f"@{clean}", "--turn", "5")
    assert result.code == 1
    assert "malformed" not in result.stderr


def test_a_uuid_found_only_on_a_malformed_line_is_named_there(cli, tmp_path: Path) -> None:
    """A record cut off mid-write (a crash, a live tail) keeps its uuid on the torn line.
    `show --uuid U`, even with --raw (whose point is the torn lines), said `no record with
    uuid U` as if the transcript never held it (thirty-first session)."""
    home = ClaudeHome(tmp_path / "claude")
    s = Session(SID, cwd=CWD)
    s.add(user("first"))
    s.add(assistant("one"))
    cut = s.stamp(user("second, cut off"), commit=False)
    path = home.session(CWD, SID, s)
    ClaudeHome.raw_lines(path, [torn(cut, keep=0.97) + b"\n"])
    uuid = str(cut["uuid"])
    assert uuid.encode() in path.read_bytes().splitlines()[2]
    for raw in ((), ("--raw",)):
        result = cli("--claude-home", str(home.root), "show", f"@{SID}", "--uuid", uuid, *raw)
        assert result.code == 1
        assert f"no record with uuid {uuid}" in result.stderr
        assert "malformed line(s) L3" in result.stderr, result.stderr
        assert "--line 3 --raw" in result.stderr
