"""Files beside the transcripts (the elicitation sidecar, persisted outputs, symlinked
transcripts) that exist but cannot be read, and a stderr nobody reads: each is said, none
hangs, and a zero over them is never called a definitive absence (SPEC §2, §5)."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from builders import (
    ClaudeHome,
    Session,
    assistant,
    iso,
    persisted_output,
    tool_result,
    tool_use,
    user,
)
from conftest import DEMO_HOME as DEMO
from conftest import LONG as ORBIT  # the demo session with a pending question

SRC = Path(__file__).resolve().parents[2] / "src"


def _session_dir(home: Path) -> Path:
    return home / "projects" / "-home-ada-src-orbit" / ORBIT


def _pysift(*args: str, timeout: float = 60, **kw) -> subprocess.CompletedProcess:  # type: ignore[no-untyped-def]
    """pysift in its own process: a hang is a timeout here, not a stuck suite."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    return subprocess.run([sys.executable, "-m", "pysift", *args], env=env, timeout=timeout, check=False,
                          capture_output=kw.pop("capture_output", True), **kw)


# -- the elicitation sidecar -----------------------------------------------------------------


def test_the_demo_sidecar_holds_the_pending_question(cli, demo_copy: Path) -> None:
    """The baseline the cases below take away."""
    found = cli("--claude-home", str(demo_copy), "search", "published", "-c")
    assert found.stdout.strip() == "1"
    listed = cli("--claude-home", str(demo_copy), "list", f"@{ORBIT}", "--no-subagents",
                 "--format", "json")
    assert listed.json_rows("session")[0]["pending_elicitations"]


def test_a_sidecar_that_cannot_be_read_is_said_and_the_zero_is_not_definitive(
        cli, demo_copy: Path) -> None:
    """A directory in the sidecar's place (or a permission): the pending question was
    dropped without a word and search called its zero a DEFINITIVE absence."""
    sidecar = _session_dir(demo_copy) / "elicitations.jsonl"
    sidecar.unlink()
    sidecar.mkdir()
    home = str(demo_copy)
    searched = cli("--claude-home", home, "search", "published", "--format", "json")
    assert searched.code == 0
    assert searched.summary()["definitive_absence"] is False
    assert f"cannot read the elicitation sidecar {sidecar}" in searched.stderr
    assert "pending elicitations are unknown" in searched.stderr
    assert "NOT a definitive absence" in searched.stderr
    listed = cli("--claude-home", home, "list", f"@{ORBIT}", "--no-subagents")
    assert listed.code == 0 and "pending elicitations are unknown" in listed.stderr
    shown = cli("--claude-home", home, "show", f"@{ORBIT}", "--turn", "-1")
    assert shown.code == 0 and "pending elicitations are unknown" in shown.stderr


def test_a_fifo_in_the_sidecar_slot_does_not_hang_any_command(demo_copy: Path) -> None:
    sidecar = _session_dir(demo_copy) / "elicitations.jsonl"
    sidecar.unlink()
    os.mkfifo(sidecar)
    home = str(demo_copy)
    for args in (["list"], ["search", "published", "-c"], ["show", f"@{ORBIT}", "--turn", "-1"]):
        done = _pysift("--claude-home", home, *args, timeout=30)
        assert done.returncode == 0, (args, done.stderr)
        assert b"not a regular file" in done.stderr


def test_a_fifo_in_place_of_a_persisted_output_does_not_hang_and_is_said(
        demo_copy: Path) -> None:
    persisted = _session_dir(demo_copy) / "tool-results" / "b7x2k9qpm.txt"
    persisted.unlink()
    os.mkfifo(persisted)
    done = _pysift("--claude-home", str(demo_copy), "search", "zzqq-nowhere",
                   "--resolve-persisted", "--format", "json", timeout=30)
    assert done.returncode == 0, done.stderr
    assert b"persisted output not resolved" in done.stderr
    assert b"not a regular file" in done.stderr
    assert b'"definitive_absence":false' in done.stdout


def test_a_persisted_output_that_is_gone_makes_the_zero_not_definitive(
        cli, demo_copy: Path) -> None:
    """--resolve-persisted asked for the whole output; an output that cannot be found was
    not searched."""
    (_session_dir(demo_copy) / "tool-results" / "b7x2k9qpm.txt").unlink()
    result = cli("--claude-home", str(demo_copy), "search", "zzqq-nowhere",
                 "--resolve-persisted", "--format", "json")
    assert result.summary()["definitive_absence"] is False
    assert "persisted output not resolved" in result.stderr


def test_a_count_reads_every_persisted_output_of_a_counted_exchange(cli, tmp_path: Path
                                                                     ) -> None:
    """-c stops looking at an exchange once it holds a hit, but --resolve-persisted asked
    for every output a candidate names: each one that cannot be read is said, as the rows
    say it."""
    home = ClaudeHome(tmp_path / "claude")
    s = Session("0e0e0e0e-1111-4222-8333-555555555555", cwd="/w/p")
    s.add(user("run the kestrel job twice"))
    for i in (1, 2):
        s.add(assistant(tool_use("Bash", {"command": "job"}, id=f"toolu_{i}")))
        s.add(tool_result(f"toolu_{i}", persisted_output(f"/gone/tool-results/out{i}.txt",
                                                         f"kestrel output {i}")))
    home.session("/w/p", s.session_id, s)
    rows = cli("--claude-home", str(home.root), "search", "kestrel", "--resolve-persisted")
    count = cli("--claude-home", str(home.root), "search", "kestrel", "--resolve-persisted",
                "-c")
    assert count.stdout.strip() == "1"
    assert count.stderr.count("persisted output not resolved") == 2
    assert count.stderr == rows.stderr


def test_text_only_past_a_persisted_output_s_preview_is_no_definitive_absence(
        cli, tmp_path: Path) -> None:
    """Without --resolve-persisted a tool result is read as its preview: a pattern only in
    the rest of the saved output made a DEFINITIVE zero that the flag turned into a match
    (the real corpus: `search chevrotain`). An output no transcript names (a background
    task's) is no record's text, and the flag would not read it either."""
    home = ClaudeHome(tmp_path / "claude")
    s = Session("0e0e0e0e-1111-4222-8333-666666666666", cwd="/w/p")
    s.add(user("run the census"))
    s.add(assistant(tool_use("Bash", {"command": "census"}, id="toolu_census")))
    full = "x" * 3000 + "\n3 kestrels, 2 herons\n"
    saved = f"/gone/{s.session_id}/tool-results/toolu_census.txt"
    s.add(tool_result("toolu_census", persisted_output(saved, full)))
    path = home.session("/w/p", s.session_id, s)
    home.tool_output(path, "toolu_census", full)
    home.tool_output(path, "b7k2m9x1p", "a background egret log")
    result = cli("--claude-home", str(home.root), "search", "kestrels")
    assert "NOT a definitive absence" in result.stderr and "DEFINITIVE" not in result.stderr
    assert "1 persisted tool output(s)" in result.stderr
    assert "tool-results/toolu_census.txt. Add --resolve-persisted" in result.stderr
    assert cli("--claude-home", str(home.root), "search", "kestrels", "--format", "json"
               ).summary()["definitive_absence"] is False
    assert cli("--claude-home", str(home.root), "search", "kestrels", "--resolve-persisted",
               "-c").stdout.strip() == "1"
    # a -t reading tool results: the label probe finds no record, yet the text is there
    narrowed = cli("--claude-home", str(home.root), "search", "kestrels", "-t",
                   "agent.tool.result")
    assert "NOT a definitive absence" in narrowed.stderr
    assert "genuinely absent" not in narrowed.stderr
    # the background output: named by no transcript
    assert "a DEFINITIVE absence" in cli("--claude-home", str(home.root), "search",
                                         "egret").stderr


def _census_home(tmp_path: Path) -> tuple[ClaudeHome, str]:
    """A session whose first turn's Bash output is persisted with the text past its
    preview, and a second turn an hour later that holds no such text; the instant
    between them."""
    home = ClaudeHome(tmp_path / "claude")
    s = Session("0e0e0e0e-1111-4222-8333-777777777777", cwd="/w/p")
    s.add(user("run the census"))
    s.add(assistant(tool_use("Bash", {"command": "census"}, id="toolu_census")))
    full = "x" * 3000 + "\n3 kestrels, 2 herons\n"
    saved = f"/gone/{s.session_id}/tool-results/toolu_census.txt"
    s.add(tool_result("toolu_census", persisted_output(saved, full)))
    s.add(assistant("counted"))
    between = iso(s.now + timedelta(minutes=30))
    s.wait(3600)
    s.add(user("now the ducks"))
    s.add(assistant("no ducks today"))
    path = home.session("/w/p", s.session_id, s)
    home.tool_output(path, "toolu_census", full)
    return home, between


@pytest.mark.parametrize("window", [("--since", 0), ("--until", 1), ("--turn", "1"),
                                    ("-t", "agent.communication.inbox")])
def test_a_persisted_output_the_search_could_not_reach_leaves_the_zero_definitive(
        cli, tmp_path: Path, window: tuple[str, int | str]) -> None:
    """The zero's look at persisted outputs read every file its session names, whatever
    the search's window: a needle only in an output whose tool result lies outside
    --since/--until (or --turn, or the selection) made the zero NOT definitive although
    the flag's run finds nothing either."""
    home, between = _census_home(tmp_path)
    flag, value = window
    arg = between if value == 0 else "2020-01-01T00:00:00Z" if value == 1 else str(value)
    args = ("--claude-home", str(home.root), "search", "kestrels", flag, arg)
    result = cli(*args, "--format", "json")
    assert result.summary()["definitive_absence"] is True, result.stderr
    assert "a DEFINITIVE absence" in cli(*args).stderr
    assert cli(*args, "--resolve-persisted", "-c").stdout.strip() == "0"


@pytest.mark.parametrize("window", [("--until", 0), ("--turn", "0"), ("-t", "agent.tool.result")])
def test_a_persisted_output_inside_the_window_keeps_the_zero_not_definitive(
        cli, tmp_path: Path, window: tuple[str, int | str]) -> None:
    home, between = _census_home(tmp_path)
    flag, value = window
    args = ("--claude-home", str(home.root), "search", "kestrels", flag,
            between if value == 0 else str(value))
    result = cli(*args, "--format", "json")
    assert result.summary()["definitive_absence"] is False, result.stderr
    assert "tool-results/toolu_census.txt. Add --resolve-persisted" in cli(*args).stderr
    assert cli(*args, "--resolve-persisted", "-c").stdout.strip() == "1"


# -- a transcript behind a symlink whose target is gone ----------------------------------------


def test_a_dangling_transcript_symlink_is_named_and_the_zero_is_not_definitive(
        cli, tmp_path: Path) -> None:
    """A session moved to a disk that is not mounted: its link is all that is left."""
    home = ClaudeHome(tmp_path / "claude")
    path = home.session("/w/p", "0e0e0e0e-1111-4222-8333-444444444444",
                        user("hello"), assistant("hi"))
    gone = "11111111-1111-4111-8111-111111111111"
    link = path.parent / f"{gone}.jsonl"
    link.symlink_to(tmp_path / "unmounted" / f"{gone}.jsonl")
    result = cli("--claude-home", str(home.root), "search", "zzqq-nowhere", "--format", "json")
    assert result.code == 0
    assert f"cannot read {link}: a symlink to" in result.stderr
    assert result.summary()["definitive_absence"] is False
    listed = cli("--claude-home", str(home.root), "list")
    assert listed.code == 0 and f"cannot read {link}" in listed.stderr


def test_a_dangling_link_of_another_session_leaves_a_targets_zero_definitive(
        cli, tmp_path: Path) -> None:
    """`search NOPE @<prefix>` said `definitive_absence:false, unreadable:1` for a link of
    another session (the full uuid said true and 0); `stats @<prefix>` counted it too."""
    home = ClaudeHome(tmp_path / "claude")
    sid = "b0000000-0000-4000-8000-000000000002"
    path = home.session("/w/p", sid, user("hello"), assistant("hi"))
    gone = "11111111-2222-4333-8444-555555555555"
    (path.parent / f"{gone}.jsonl").symlink_to(tmp_path / "unmounted" / f"{gone}.jsonl")
    for target in (f"@{sid}", "@b0000000"):
        result = cli("--claude-home", str(home.root), "search", "zzqq-nowhere", target,
                     "--format", "json")
        assert (result.code, "warning" in result.stderr) == (0, False), target
        summary = result.summary()
        assert (summary["definitive_absence"], summary["unreadable"]) == (True, 0), target
        stats = cli("--claude-home", str(home.root), "stats", target, "--format", "json")
        assert (stats.code, stats.summary()["unreadable"]) == (0, 0), target
    # the link itself, asked for by its id, is there: the error says it cannot be read
    shown = cli("--claude-home", str(home.root), "show", f"@{gone}", "--line", "1")
    assert shown.code == 1
    (line,) = shown.stderr.splitlines()
    assert line.startswith(f"pysift: error: session `{gone}` is there but cannot be read (")
    assert "a symlink to" in line and "which does not exist" in line


# -- stderr nobody reads -----------------------------------------------------------------------


@pytest.mark.parametrize(("args", "status"), [
    (["search", "zzqq-nowhere"], 0),  # notes only: a zero is no failure
    (["list", "--bogus"], 2),         # a usage error stays one
    (["show", f"@{ORBIT}"], 2),        # no address: a usage error naming the transcript
    (["show", "@zzzz"], 1),            # an id that names nothing: a pysift error
])
def test_a_closed_stderr_pipe_keeps_the_exit_status(args: list[str], status: int) -> None:
    """`2>&1 | head -1` closes the pipe after the first line; click turned the broken
    pipe into exit 1."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = _pysift("--claude-home", str(DEMO), *args, stderr=write_end,
                       stdout=subprocess.DEVNULL, capture_output=False)
    finally:
        os.close(write_end)
    assert done.returncode == status


def test_an_error_line_writes_an_undecodable_argument_byte_back() -> None:
    done = _pysift("--claude-home", str(DEMO), "search", "x", "-t", "user\udcff")
    assert done.returncode == 2
    assert b"'user\xff'" in done.stderr and b"udcff" not in done.stderr


# -- wording -----------------------------------------------------------------------------------


def test_a_closed_line_range_past_the_end_counts_only_the_lines_that_exist(
        cli, tmp_path: Path) -> None:
    home = ClaudeHome(tmp_path / "claude")
    sid = "0e0e0e0e-1111-4222-8333-444444444444"
    path = home.session("/w/p", sid, user("hello"), assistant("hi"))
    ClaudeHome.raw_lines(path, [b'{"type":"summary","summary":"a title"}\n'])
    result = cli("--claude-home", str(home.root), "show", f"@{sid}", "--line", "3..50")
    assert result.code == 1
    assert "none of the 1 addressed line(s) is a record" in result.stderr


def test_an_encoded_dir_with_a_trailing_slash_is_a_path_not_an_option(
        cli, demo_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tab completion adds the slash; click read `-home-ada-src-orbit/` as `-h -o …`."""
    monkeypatch.chdir(tmp_path)
    elsewhere = cli("--claude-home", str(demo_copy), "list", "-home-ada-src-orbit/")
    assert elsewhere.code == 1
    assert "No such option" not in elsewhere.stderr
    assert "`-home-ada-src-orbit` without the slash names the project dir" in elsewhere.stderr
    monkeypatch.chdir(demo_copy / "projects")  # there, the path IS the project dir
    inside = cli("--claude-home", "..", "list", "-home-ada-src-orbit/", "--format", "json")
    assert inside.code == 0, inside.stderr
    assert {r["session_id"] for r in inside.json_rows("session")} >= {ORBIT}


def test_a_uuid_miss_says_the_sidecar_could_not_be_read(cli, demo_copy: Path) -> None:
    """The pending question's uuid lives in the sidecar: with the sidecar unreadable the
    miss must say why, not only "no record with uuid"."""
    sidecar = _session_dir(demo_copy) / "elicitations.jsonl"
    pending_uuid = next(line for line in sidecar.read_text().splitlines() if line.strip())
    import orjson

    uuid = orjson.loads(pending_uuid)["uuid"]
    sidecar.unlink()
    sidecar.mkdir()
    result = cli("--claude-home", str(demo_copy), "show", f"@{ORBIT}", "--uuid", uuid)
    assert result.code == 1
    assert f"no record with uuid {uuid}" in result.stderr
    assert "cannot read the elicitation sidecar" in result.stderr
