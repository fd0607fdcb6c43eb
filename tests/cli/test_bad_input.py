"""Hostile bytes: every command counts what it cannot read and never crashes (issue 2/3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import ClaudeHome, assistant, text, tool_result, tool_use, user
from conftest import lock

SID = "5a5a5a5a-1111-4222-8333-944444444444"


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[Path, Path]:
    home = ClaudeHome(tmp_path / "claude")
    path = home.session("/w/hostile", SID,
                        user("find the needle please"),
                        assistant(text("the needle is " + "x" * 400_000)),  # a 400 KB line
                        user("and again the needle"))
    ClaudeHome.raw_lines(path, [
        b"\x00\xff\xfe binary junk \x80\x81 needle\n",                     # not JSON at all
        b'{"type":"user","message":{"role":"user","content":"needle tor',  # torn, no newline
    ])
    return home.root, path


def test_search_counts_junk_and_torn_lines(cli, hostile) -> None:
    home, _ = hostile
    result = cli("--claude-home", str(home), "search", "needle", "--format", "json")
    assert result.code == 0, result.stderr
    summary = result.summary()
    assert summary["matched"] == 2  # the two real turns
    assert summary["skipped_lines"] == 2  # the junk line and the torn tail both held the needle
    assert "Traceback" not in result.stderr


def test_search_clips_the_huge_line_with_a_marker(cli, hostile) -> None:
    home, _ = hostile
    result = cli("--claude-home", str(home), "search", "needle is", "-t", "agent.message")
    assert result.code == 0
    assert "… (+" in result.stdout and "chars)" in result.stdout


def test_list_show_and_stats_survive_the_same_file(cli, hostile) -> None:
    home, _path = hostile
    listed = cli("--claude-home", str(home), "list", "--format", "json")
    assert listed.code == 0 and listed.json_rows("session")
    assert listed.json_rows("session")[0]["skipped_lines"] >= 1  # the torn tail was read
    shown = cli("--claude-home", str(home), "show", f"@{SID}", "--line", "4..5")
    assert shown.code == 1 and "--raw" in shown.stderr  # no record in range: points at --raw
    raw = cli("--claude-home", str(home), "show", f"@{SID}", "--line", "4..5", "--raw")
    assert raw.code == 0 and raw.stdout_bytes.endswith(b"needle tor\n")
    stats = cli("--claude-home", str(home), "stats", f"@{SID}", "--format", "json")
    assert stats.code == 0 and stats.json_rows("session")[0]["skipped_lines"] == 2


def test_a_file_that_grows_after_open_reads_as_it_was(tmp_path: Path) -> None:
    """A live session appends while pysift reads: the buffer is the file as it was."""
    from pysift.disk.lines import count_lines
    from pysift.disk.mapped import open_buffer

    big = tmp_path / "live.jsonl"
    big.write_bytes(b'{"type":"user"}\n' * 40_000)  # mapped (over the small-file limit)
    small = tmp_path / "small.jsonl"
    small.write_bytes(b'{"type":"user"}\n' * 3)
    before = [open_buffer(big), open_buffer(small)]
    for path in (big, small):
        with path.open("ab") as fh:
            fh.write(b'{"type":"assistant"}\n' * 5)
    assert [count_lines(b) for b in before] == [40_000, 3]


def test_a_vanished_transcript_is_one_clear_error(cli, hostile) -> None:
    home, path = hostile
    path.unlink()
    result = cli("--claude-home", str(home), "show", str(path), "--line", "1")
    assert result.code != 0
    assert result.stderr.startswith("pysift: error:") and "Traceback" not in result.stderr


# -- what cannot be read: permissions (simulated: the suite may run as root) ----------------------

import errno  # noqa: E402
import os  # noqa: E402


def _two_projects(tmp_path: Path) -> tuple[Path, Path, Path]:
    home = ClaudeHome(tmp_path / "claude")
    readable = home.session("/w/open", SID, user("an open session"), assistant("ok"))
    hidden = home.session("/w/locked", "6b6b6b6b-1111-4222-8333-944444444444",
                          user("the locked needle"), assistant("ok"))
    return home.root, readable, hidden


def _deny(monkeypatch: pytest.MonkeyPatch, denied: Path) -> None:
    """Listing ``denied`` fails with EACCES, and so does a stat of anything in it."""
    real_scandir, real_stat = os.scandir, os.stat

    def scandir(path=".", *a, **kw):  # type: ignore[no-untyped-def]
        if os.fspath(path) == os.fspath(denied):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_scandir(path, *a, **kw)

    def stat(path, *a, **kw):  # type: ignore[no-untyped-def]
        if os.fspath(path).startswith(os.fspath(denied) + os.sep):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_stat(path, *a, **kw)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "stat", stat)


def test_an_unreadable_project_dir_is_named_and_the_zero_is_no_definitive_absence(
        cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its sessions were dropped without a word, and a search said DEFINITIVE absence of
    what they hold."""
    home, _, hidden = _two_projects(tmp_path)
    _deny(monkeypatch, hidden.parent)
    result = cli("--claude-home", str(home), "search", "locked needle", "--format", "json")
    assert result.code == 0
    assert f"warning: cannot read {hidden.parent}: Permission denied" in result.stderr
    assert "NOT a definitive absence: 1 file(s) or dir(s) could not be read" \
        in result.stderr
    assert result.summary()["definitive_absence"] is False
    listed = cli("--claude-home", str(home), "list", "--format", "json")
    assert len(listed.json_rows("session")) == 1
    assert "cannot read" in listed.stderr


def test_the_scope_carries_what_its_own_walk_could_not_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The unreadable dirs travel on the Scope that met them: no module state a later
    resolution drains (or inherits), nothing a command has to remember to collect."""
    from pysift.core.resolve import resolve_scope
    from pysift.model.env import Env

    home, _, hidden = _two_projects(tmp_path)
    env = Env(claude_home=home, environ={}, cwd=tmp_path)
    with monkeypatch.context() as denied:
        _deny(denied, hidden.parent)
        scope = resolve_scope([], env)
    assert scope.unreadable == [(str(hidden.parent), "Permission denied")]
    assert len(scope.transcripts) == 1
    again = resolve_scope([], env)
    assert again.unreadable == [] and len(again.transcripts) == 2


def test_a_uuid_target_beside_an_unreadable_dir_still_resolves(
        cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`@<uuid>` stat'ed the name in every project dir and died with a PermissionError
    traceback on the locked one."""
    home, _, hidden = _two_projects(tmp_path)
    _deny(monkeypatch, hidden.parent)
    result = cli("--claude-home", str(home), "show", f"@{SID}", "--line", "1")
    assert result.code == 0, result.stderr
    assert "an open session" in result.stdout
    assert "Traceback" not in result.stderr


def test_an_unreadable_projects_root_is_an_error_not_an_empty_scope(
        cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, _, _ = _two_projects(tmp_path)
    _deny(monkeypatch, home / "projects")
    result = cli("--claude-home", str(home), "search", "needle")
    assert result.code == 1
    assert result.stderr.splitlines() == [
        f"pysift: error: cannot read the projects dir {home / 'projects'}: Permission "
        "denied; check its permissions (and those of the dirs above it) or pass another "
        "--claude-home"]


def test_an_unreadable_transcript_is_one_warning_with_the_right_advice(
        cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, _, hidden = _two_projects(tmp_path)
    lock(monkeypatch, hidden)
    result = cli("--claude-home", str(home), "search", "locked needle")
    assert (f"warning: skipped: cannot read {hidden}: Permission denied; check its "
            "permissions") in result.stderr
    assert "NOT a definitive absence" in result.stderr
    shown = cli("--claude-home", str(home), "show", str(hidden), "--line", "1")
    assert shown.code == 1
    assert len(shown.stderr.splitlines()) == 1  # the cause no longer gets a line of its own


@pytest.mark.parametrize("argv", [("list",), ("stats",), ("search", "needle"),
                                  ("search", "needle", "-c"),
                                  ("search", "needle", "--count-by", "label"),
                                  ("plan", f"@{SID}"), ("plan", f"@{SID}", "--audit")])
@pytest.mark.parametrize("what", ["dir", "transcript"])
def test_every_summary_counts_what_could_not_be_read(
        cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv, what) -> None:
    """Issue 21 item 6: the JSON summaries of list and stats carried no count of the
    files the run could not read (only a stderr warning said so)."""
    home, _, hidden = _two_projects(tmp_path)
    if what == "dir":
        _deny(monkeypatch, hidden.parent)
    else:
        lock(monkeypatch, hidden)
    scope = ("-w-locked",) if argv[0] == "plan" and what == "transcript" else ()
    if scope:
        argv = argv[:1] + scope + argv[2:]
    result = cli("--claude-home", str(home), *argv, "--format", "json")
    assert result.code == 0, result.stderr
    assert result.summary()["unreadable"] == 1
    assert result.stderr.count("warning:") == 1


def test_an_id_not_found_names_the_dirs_that_may_hold_it(
        cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`no session X` read as final while a locked dir might hold X (the error ends the run
    before the scope's warnings are printed)."""
    home, _, hidden = _two_projects(tmp_path)
    _deny(monkeypatch, hidden.parent)
    for target in ("@6b6b6b6b-1111-4222-8333-944444444444", "@6b6b6b6b"):
        result = cli("--claude-home", str(home), "search", "x", target)
        assert result.code == 1
        assert str(hidden.parent) in result.stderr
        assert "could not, and may hold it" in result.stderr


def test_the_help_says_what_an_unreadable_transcript_does(cli) -> None:
    """search --help promised exit 1 for an unreadable target; the run warns, counts it
    and goes on (exit 0)."""
    text = " ".join(cli("search", "--help").stdout.split())
    assert "1 for an unreadable target" not in text
    assert ("exists but cannot be read is a stderr warning, counted in the summary's "
            "\"unreadable\", and the run goes on (exit 0)") in text


def test_whoami_says_a_dir_its_lookup_could_not_read(
        cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lookup met a locked project dir and said nothing: "not found" read as final."""
    home, _, hidden = _two_projects(tmp_path)
    _deny(monkeypatch, hidden.parent)
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", "6b6b6b6b-1111-4222-8333-944444444444")
    result = cli("--claude-home", str(home), "whoami", "--format", "json")
    assert result.code == 0
    assert result.json_rows("identity")[0]["path"] is None
    assert result.summary()["unreadable"] == 1
    assert f"warning: cannot read {hidden.parent}" in result.stderr
    assert "the transcript may be there" in result.stderr


# -- undecodable bytes in argv and paths (argv and os.listdir arrive with surrogateescape) --

FF = "\udcff"  # how Python hands over the byte 0xFF of an argument or a file name


@pytest.mark.parametrize("address", [("--uuid", FF), ("--uuid", f"a,{FF}"),
                                     ("--block", f"r:{FF}"), ("--block", f"a:{FF}:p0")])
def test_an_id_holding_an_undecodable_byte_is_a_usage_error(cli, hostile, address) -> None:
    """`show --uuid $'\\xff'` died in the byte search (`uuid.encode()`); no id holds it."""
    home, _ = hostile
    result = cli("--claude-home", str(home), "show", f"@{SID}", *address)
    assert result.code == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "\\xff" in result.stderr and "not UTF-8" in result.stderr


@pytest.fixture
def byte_named(tmp_path: Path) -> tuple[Path, Path]:
    """A Claude home whose own dir name holds the byte 0xFF, and a copy of its transcript
    under a file name holding it."""
    home = ClaudeHome(tmp_path / f"h{FF}")
    path = home.session("/w/latin", SID, user("find the needle please"),
                        assistant(text("the needle is here")))
    loose = tmp_path / f"a{FF}.jsonl"
    loose.write_bytes(path.read_bytes())
    return home.root, loose


def test_json_output_spells_an_undecodable_path_byte_as_backslash_x(cli, byte_named) -> None:
    """orjson refuses a lone surrogate, after the header row was out; SPEC §5 writes the
    byte as the text `\\xff` and keeps the line valid UTF-8."""
    home, _ = byte_named
    result = cli("--claude-home", str(home), "list", "--format", "json")
    assert result.code == 0, result.stderr
    (row,) = result.json_rows("session")
    assert f"{home.name[:-1]}\\xff" in row["path"]
    assert result.summary()["sessions"] == 1


@pytest.mark.parametrize("command", [("list", "T"), ("stats", "T"), ("search", "needle", "T"),
                                     ("show", "T", "--line", "1..2")])
def test_a_transcript_named_with_an_undecodable_byte_is_written_whole(
    cli, byte_named, command
) -> None:
    home, loose = byte_named
    args = ["--claude-home", str(home), *(str(loose) if a == "T" else a for a in command)]
    as_json = cli(*args, "--format", "json")
    assert as_json.code == 0, as_json.stderr
    rows = as_json.json_rows()
    assert rows[0]["kind"] == "header" and rows[-1]["kind"] == "summary"
    assert b"a\\\\xff" in as_json.stdout_bytes  # the file's id or path, spelled out
    as_text = cli(*args)  # run_cli's stdout is strict, as in a UTF-8 locale other than C
    assert as_text.code == 0, as_text.stderr
    assert b"a\xff" in as_text.stdout_bytes  # text writes the byte back as it is


# -- lone surrogate escapes (Node writes an emoji cut in half as a lone "\ud83d") ---------

CUT = "5a5a5a5a-1111-4222-8333-955555555555"


@pytest.fixture
def cut_emoji(home: ClaudeHome) -> Path:
    home.session("/w/cut", CUT,
                 user("cut emoji \ud83d here"),
                 assistant(text("the emoji was cut"),
                           tool_use("Write", {"content": "half \ude00 pair"}, id="toolu_cut")),
                 tool_result("toolu_cut", "wrote \ud83d ok"))
    return home.root


def test_a_prompt_with_a_lone_surrogate_is_searched_listed_and_shown(cli, cut_emoji) -> None:
    found = cli("--claude-home", str(cut_emoji), "search", "cut emoji", "--format", "json")
    assert found.code == 0, found.stderr
    (exchange,) = found.json_rows("exchange")
    assert [h["label"] for h in exchange["hits"]] == ["user.message"]
    assert exchange["hits"][0]["excerpt"] == "cut emoji \\ud83d here"  # SPEC §5 spelling
    assert found.summary()["skipped_lines"] == 0
    as_text = cli("--claude-home", str(cut_emoji), "search", "cut emoji")
    assert as_text.code == 0 and "cut emoji \\ud83d here" in as_text.stdout
    listed = cli("--claude-home", str(cut_emoji), "list", "--format", "json")
    assert listed.json_rows("session")[0]["first_user"]["excerpt"] == "cut emoji \\ud83d here"
    shown = cli("--claude-home", str(cut_emoji), "show", f"@{CUT}", "--turn", "0",
                "--format", "json")
    assert shown.code == 0, shown.stderr
    assert next(r["label"] for r in shown.json_rows("record")) == "user.message"


@pytest.mark.parametrize("pattern", ["\ufffd", "emoji \ufffd here", r"\x{FFFD}"])
def test_the_replacement_character_finds_a_lone_surrogate(cli, cut_emoji, pattern) -> None:
    """The matcher reads a lone surrogate as U+FFFD (SPEC §4): a needle holding it must
    reach the lines that spell it `\\ud83d`, never the character itself."""
    found = cli("--claude-home", str(cut_emoji), "search", pattern, "-t", "user", "-c")
    assert (found.code, found.stdout.strip()) == (0, "1"), found.stderr


def test_a_block_with_a_lone_surrogate_hashes_the_text_it_prints(cli, cut_emoji) -> None:
    import hashlib

    for block, printed in (("r:toolu_cut", "wrote \\ud83d ok"),
                           ("a:" + _message_id(cut_emoji) + ":p1",
                            'Write {"content":"half \\ude00 pair"}')):
        result = cli("--claude-home", str(cut_emoji), "show", f"@{CUT}", "--block", block,
                     "--format", "json")
        assert result.code == 0, result.stderr
        (row,) = result.json_rows("block")
        assert row["text"] == printed
        assert row["sha256"] == hashlib.sha256(printed.encode()).hexdigest()
        verified = cli("--claude-home", str(cut_emoji), "show", f"@{CUT}", "--block", block,
                       "--sha256", row["sha256"])
        assert verified.code == 0 and verified.stdout == printed + "\n"


def _message_id(root: Path) -> str:
    import json

    (path,) = root.rglob(f"{CUT}.jsonl")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return next(r["message"]["id"] for r in lines if r["type"] == "assistant")
