"""Issue 21's laws on the commands main built after it (agents, files, image, recover,
status, wait; then verbatim and its --fold-index, archive, skill, recover
--list-backups): what a transcript stores never drives the terminal, colour only where
asked, every JSON summary counts what could not be read, malformed lines counted."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from builders import (
    ClaudeHome,
    Session,
    assistant,
    bash_result,
    garbage_line,
    image,
    subagent_return,
    text,
    tool_result,
    tool_use,
    torn,
    user,
    user_with_images,
    write_result,
)
from conftest import lock
from denied import deny_listing

SID = "21212121-0021-4000-8000-000000000021"
AGENT = "a21e21e21e21e21e2"
CWD = "/w"
ESC = "\x1b[2J\x1b]0;pwned\x07"
EVIL = f"{CWD}/ev\x1b[31mil.py"         # a file path holding an escape
CONTENT = "x = 1\r\nprint('\x1b[32mok\x1b[0m')\r\n"  # CRLF and colour: the file's own bytes
COMMAND = f"rm -f {CWD}/g\x1b[5mone.txt && echo '\x1b]0;title\x07'"
SGR = re.compile(r"\x1b\[[0-9;]*m")
AGO = re.compile(r"\d+s ago")  # status/wait: how long ago, which moves between runs
AGE = re.compile(rb'"age_secs":\d+')  # the same in JSON


def _session() -> Session:
    s = Session(SID, cwd=CWD)
    s.add(user_with_images(f"look {ESC} at this", image()))
    s.add(assistant(tool_use("Task", {"description": f"Map {ESC}callers", "prompt": "map",
                                      "subagent_type": "Explore"}, id="t1")))
    s.add(subagent_return("t1", f"Three {ESC}callers.", agent_id=AGENT, agent_type="Explore",
                          prompt="map"))
    s.add(assistant(tool_use("Write", {"file_path": EVIL, "content": CONTENT}, id="w1")))
    s.add(tool_result("w1", f"File created successfully at: {EVIL}",
                      tool_use_result=write_result(EVIL, CONTENT)))
    s.add(assistant(tool_use("Bash", {"command": COMMAND}, id="b1")))
    s.add(tool_result("b1", "\x1b]0;title\x07", tool_use_result=bash_result("\x1b]0;title\x07")))
    s.add(assistant(text(f"All done {ESC}here.")))
    return s


@pytest.fixture
def loud(tmp_path: Path) -> Path:
    home = ClaudeHome(tmp_path / "claude")
    main = home.session(CWD, SID, _session())
    lane = Session(SID, cwd=CWD, agent_id=AGENT)
    lane.add(user("map"))
    lane.add(assistant(text(f"Three {ESC}callers.")))
    home.subagent(main, AGENT, lane, meta={"agentType": "Explore",
                                           "description": f"Map {ESC}callers", "toolUseId": "t1"})
    return home.root


def _raw_controls(text_out: str) -> set[str]:
    return {c for c in text_out if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F}


TEXT_RUNS = {
    "agents": ("agents", f"@{SID}"),
    "agents --with-files": ("agents", f"@{SID}", "--with-files"),
    "files": ("files", f"@{SID}"),
    "files --by file": ("files", f"@{SID}", "--by", "file"),
    "image": ("image", f"@{SID}"),
    "recover --coverage": ("recover", f"@{SID}", "--file", EVIL, "--coverage"),
    "recover --salvage": ("recover", f"@{SID}", "--file", EVIL, "--salvage"),
    "recover --patches": ("recover", f"@{SID}", "--file", EVIL, "--patches"),
    "status": ("status", f"@{SID}"),
    "wait": ("wait", f"@{SID}", "--until", "stop", "--timeout", "5"),
    "verbatim": ("verbatim", f"@{SID}"),
    "recover --list-backups": ("recover", "--list-backups", "--file", EVIL),
}
# the runs whose text quotes what the transcript stores (image lists sizes and handles)
QUOTING = [name for name in TEXT_RUNS if name not in ("image", "files")]


@pytest.mark.parametrize("argv", list(TEXT_RUNS.values()), ids=list(TEXT_RUNS))
def test_text_output_shows_every_control_as_an_escape(cli, loud: Path, argv) -> None:
    result = cli("--claude-home", str(loud), *argv)
    assert result.code == 0, result.stderr
    assert _raw_controls(result.stdout) == set(), result.stdout
    assert _raw_controls(result.stderr) == set(), result.stderr


@pytest.mark.parametrize("name", QUOTING)
def test_what_the_transcript_stores_is_quoted_visibly(cli, loud: Path, name: str) -> None:
    result = cli("--claude-home", str(loud), *TEXT_RUNS[name])
    assert r"\x1b" in result.stdout + result.stderr


@pytest.mark.parametrize("argv", list(TEXT_RUNS.values()), ids=list(TEXT_RUNS))
def test_colour_is_only_where_asked(cli, loud: Path, argv) -> None:
    plain = cli("--claude-home", str(loud), *argv)
    never = cli("--claude-home", str(loud), "--color", "never", *argv)
    always = cli("--claude-home", str(loud), *argv, "--color", "always")
    assert always.code == plain.code == never.code == 0, always.stderr
    assert "\x1b[" not in plain.stdout
    assert AGO.sub("", never.stdout) == AGO.sub("", plain.stdout)
    assert AGO.sub("", SGR.sub("", always.stdout)) == AGO.sub("", plain.stdout)


@pytest.mark.parametrize("argv", list(TEXT_RUNS.values()), ids=list(TEXT_RUNS))
def test_json_is_never_coloured(cli, loud: Path, argv) -> None:
    coloured = cli("--claude-home", str(loud), "--color", "always", *argv, "--format", "json")
    plain = cli("--claude-home", str(loud), *argv, "--format", "json")
    assert AGE.sub(b"", coloured.stdout_bytes) == AGE.sub(b"", plain.stdout_bytes)


def test_the_escapes_name_the_description_the_message_the_path_and_the_command(
        cli, loud: Path) -> None:
    agents = cli("--claude-home", str(loud), "agents", f"@{SID}").stdout
    assert r"Map \x1b[2J\x1b]0;pwned\x07callers" in agents
    files = cli("--claude-home", str(loud), "files", f"@{SID}", "--by", "file").stdout
    assert r"/w/ev\x1b[31mil.py" in files and r"/w/g\x1b[5mone.txt" in files
    status = cli("--claude-home", str(loud), "status", f"@{SID}").stdout
    assert r"All done \x1b[2J\x1b]0;pwned\x07here." in status


def test_restore_stays_byte_for_byte_to_a_pipe(cli, loud: Path) -> None:
    """The restore is the file itself (csift: clean to pipe ``> file``): a CRLF and an
    ESC it holds are its bytes, never escaped off a terminal."""
    result = cli("--claude-home", str(loud), "recover", f"@{SID}", "--file", EVIL)
    assert result.code == 0, result.stderr
    assert result.stdout_bytes == CONTENT.encode()
    assert _raw_controls(result.stderr) == set()  # the path quoted back is shown


def test_restore_at_a_terminal_is_shown_not_obeyed() -> None:
    import io

    from pysift.output.terminal import TextOut, verbatim

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    pipe, tty = io.StringIO(), Tty()
    verbatim(TextOut(pipe), CONTENT)
    verbatim(TextOut(tty), CONTENT)
    assert pipe.getvalue() == CONTENT
    assert tty.getvalue() == r"x = 1\x0d" + "\n" + r"print('\x1b[32mok\x1b[0m')\x0d" + "\n"


# -- every JSON summary counts what could not be read --------------------------------------

@pytest.fixture
def locked(loud: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    lock(monkeypatch, loud / "projects" / "-w" / f"{SID}.jsonl")
    return loud


@pytest.fixture
def second(loud: Path) -> str:
    """A second, readable session in the same project, so the locked one is one of two."""
    other = "21212121-0021-4000-8000-0000000000ff"
    home = ClaudeHome(loud)
    s = Session(other, cwd=CWD)
    s.add(user("hello"))
    s.add(assistant(text("hi")))
    home.session(CWD, other, s)
    return other


@pytest.mark.parametrize("argv", [
    ("agents", CWD), ("files", CWD), ("image", CWD),
    ("recover", CWD, "--file", EVIL, "--coverage"), ("verbatim", CWD),
])
def test_every_summary_counts_an_unreadable_transcript(cli, second: str, locked: Path,
                                                       argv) -> None:
    result = cli("--claude-home", str(locked), *argv, "--format", "json")
    assert result.summary()["unreadable"] == 1, (result.code, result.stderr)
    assert "warning" in result.stderr


@pytest.mark.parametrize("argv", [("status", f"@{SID}"), ("agents", f"@{SID}"),
                                  ("agents", f"@{SID}", "--with-files")])
def test_an_unreadable_lane_is_counted_once(cli, loud: Path, monkeypatch: pytest.MonkeyPatch,
                                            argv) -> None:
    lane = next((loud / "projects" / "-w").rglob(f"agent-{AGENT}.jsonl"))
    lock(monkeypatch, lane)
    result = cli("--claude-home", str(loud), *argv, "--format", "json")
    assert result.code == 0, result.stderr
    assert result.summary()["unreadable"] == 1
    assert str(lane) in result.stderr + result.stdout


# -- the malformed-line law: every torn or junk line counted, once, wherever it is ----------

@pytest.fixture
def torn_home(tmp_path: Path) -> Path:
    """A junk line, a line cut off mid-object, and a torn last line without its newline,
    none of them near an image or the file recover replays."""
    home = ClaudeHome(tmp_path / "claude")
    s = _session()
    records = [s.records[0], garbage_line(), *s.records[1:4], torn(user("cut off mid")) + b"\n",
               *s.records[4:]]
    path = home.session(CWD, SID, *records)
    path.write_bytes(path.read_bytes() + torn(user("the last line, torn"))[:-1])
    return home.root


@pytest.mark.parametrize("argv", [
    ("image", f"@{SID}"), ("files", f"@{SID}"),
    ("recover", f"@{SID}", "--file", EVIL, "--coverage"),
    ("recover", f"@{SID}", "--file", EVIL, "--salvage"),
    ("recover", f"@{SID}", "--file", "/nowhere/else.py", "--coverage"),
    ("stats", f"@{SID}"), ("verbatim", f"@{SID}"),
])
def test_every_malformed_line_is_counted(cli, torn_home: Path, argv) -> None:
    result = cli("--claude-home", str(torn_home), *argv, "--format", "json")
    assert result.code == 0, result.stderr
    assert result.summary()["skipped_lines"] == 3


def test_color_always_paints_ids_and_paths(cli, loud: Path) -> None:
    def coloured(*argv: str) -> str:
        return cli("--claude-home", str(loud), "--color", "always", *argv).stdout

    assert f"SESSION  \x1b[1m{SID}\x1b[0m" in coloured("agents", CWD)
    assert f"\x1b[1m{AGENT}\x1b[0m" in coloured("agents", f"@{SID}")
    files = coloured("files", f"@{SID}", "--by", "timeline")
    assert "\x1b[35m/w/ev\\x1b[31mil.py\x1b[0m" in files  # the path painted, its ESC shown
    assert f"SESSION \x1b[1m{SID}\x1b[0m" in files and "\x1b[32mL" in files
    assert f"STATUS  \x1b[1m{SID}\x1b[0m" in coloured("status", f"@{SID}")
    assert "\x1b[32mL1i1\x1b[0m" in coloured("image", f"@{SID}")


@pytest.mark.parametrize("argv, nearest", [
    (("files", "--by", "timelin"), "timeline"),
    (("agents", "--shape", "workflw"), "workflow"),
    (("agents", "--order-by", "strt"), "start"),
])
def test_a_mistyped_value_gets_a_did_you_mean(cli, argv, nearest: str) -> None:
    result = cli(*argv)
    assert result.code == 2
    assert f"(did you mean `{nearest}`?)" in result.stderr


# -- verbatim, archive, skill, recover --list-backups (merged after the laws) ---------------

def test_a_hook_slice_is_the_document_itself_off_a_terminal(cli, loud: Path,
                                                             tmp_path: Path) -> None:
    """verbatim --slice feeds a SessionStart hook, whose stdout Claude Code puts in the
    model's context: the chunk is the document's own text (the --out file's bytes), as
    the recover restore is, never ``\\x1b`` spelled out (SPEC §13)."""
    out = tmp_path / "doc.md"
    assert cli("--claude-home", str(loud), "verbatim", f"@{SID}", "--out", str(out)).code == 0
    chunk = cli("--claude-home", str(loud), "verbatim", f"@{SID}", "--slice", "1")
    assert chunk.code == 0, chunk.stderr
    assert chunk.stdout_bytes == out.read_bytes()
    assert ESC.encode() in chunk.stdout_bytes
    whole = cli("--claude-home", str(loud), "verbatim", f"@{SID}", "--slices", "1")
    assert whole.stdout_bytes == out.read_bytes()


def test_a_hook_slice_at_a_terminal_is_shown_not_obeyed() -> None:
    import io

    from pysift.commands.reconstruction import SliceResult
    from pysift.output.terminal import TextOut

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    pipe, tty = io.StringIO(), Tty()
    SliceResult(f"look {ESC}", 0).render_text(TextOut(pipe))
    SliceResult(f"look {ESC}", 0).render_text(TextOut(tty))
    assert pipe.getvalue() == f"look {ESC}"
    assert tty.getvalue() == r"look \x1b[2J\x1b]0;pwned\x07"


def test_the_fold_index_counts_every_malformed_line(cli, torn_home: Path) -> None:
    """The junk line holds no key the index reads: the shape check counts it too."""
    result = cli("--claude-home", str(torn_home), "verbatim", f"@{SID}", "--fold-index")
    assert result.code == 0, result.stderr
    assert "3 malformed line(s) skipped" in result.stderr


def test_the_fold_index_counts_an_unreadable_transcript(cli, second: str,
                                                        locked: Path) -> None:
    from pysift.commands.fold_index import fold_index_report
    from pysift.commands.scope import ScopeArgs
    from pysift.model.env import Env

    env = Env(claude_home=locked)
    report = fold_index_report(ScopeArgs(targets=(CWD,), subagents=False).resolve(env))
    assert report.unreadable == 1
    assert sum("warning" in note for note in report.notes) == 1
    result = cli("--claude-home", str(locked), "verbatim", CWD, "--fold-index")
    assert "warning" in result.stderr and _raw_controls(result.stderr) == set()


def test_archive_counts_an_unreadable_transcript_and_dir(cli, second: str, loud: Path,
                                                         tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    lane_dir = loud / "projects" / "-w" / SID
    assert lane_dir.is_dir()
    deny_listing(monkeypatch, lane_dir)
    lock(monkeypatch, loud / "projects" / "-w" / f"{second}.jsonl")
    result = cli("--claude-home", str(loud), "archive", str(tmp_path / "arch"),
                 "--format", "json")
    assert result.code == 1
    assert result.summary()["unreadable"] >= 1
    assert f"cannot read {lane_dir}" in result.stderr
    assert result.summary()["complete"] is False


def test_list_backups_counts_an_unreadable_session_dir(cli, loud: Path,
                                                       monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    import hashlib

    store = loud / "file-history"
    key = hashlib.sha256(EVIL.encode()).hexdigest()[:16]
    for session in (SID, "21212121-0021-4000-8000-0000000000ee"):
        (store / session).mkdir(parents=True)
        (store / session / f"{key}@v1").write_bytes(CONTENT.encode())
    deny_listing(monkeypatch, store / SID)
    result = cli("--claude-home", str(loud), "recover", "--list-backups", "--file", EVIL,
                 "--format", "json")
    assert result.code == 1
    assert result.summary()["unreadable"] == 1
    assert len(result.json_rows("backup")) == 1


@pytest.mark.parametrize("argv", [("skill",), ("verbatim", f"@{SID}", "--slice", "1"),
                                  ("verbatim", f"@{SID}", "--fold-index")])
def test_color_is_accepted_and_changes_no_byte_off_a_terminal_here(cli, loud: Path,
                                                                    argv) -> None:
    """Text for a file or a model (a SKILL.md, a hook's chunk, the index) is not painted:
    ``--color always`` is accepted, and the bytes are those of a plain run."""
    plain = cli("--claude-home", str(loud), *argv)
    always = cli("--claude-home", str(loud), "--color", "always", *argv)
    assert plain.code == always.code == 0, always.stderr
    assert always.stdout_bytes == plain.stdout_bytes
