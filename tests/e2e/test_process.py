"""``python -m pysift`` as a real process: exit codes, stdin, a closed pipe, argv quirks, the
environment (wire-format §0.8; conventions §3.5)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from builders import ClaudeHome, Session, assistant, stable_uuid, user
from conftest import CLONE, LONG, SHORT

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("CLAUDE_CONFIG_DIR", "CLAUDE_CODE_SESSION_ID", "PYSIFT_TRACEBACK")}
    env["PYTHONPATH"] = str(REPO / "src")
    env["TZ"] = "Australia/Sydney"
    env.update(extra)
    return env


def pysift(*args: str, stdin: str | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pysift", *args], input=stdin,
                          capture_output=True, text=True, env=_env(**env), cwd=REPO,
                          timeout=60, check=False)


def _rows(stdout: str, kind: str) -> list[dict]:
    rows = [orjson.loads(line) for line in stdout.splitlines() if line.strip()]
    return [r for r in rows if r["kind"] == kind]


def test_success_exits_0(demo_home: Path) -> None:
    result = pysift("--claude-home", str(demo_home), "list", f"@{SHORT}")
    assert result.returncode == 0, result.stderr
    assert f"SESSION  {SHORT}" in result.stdout


def test_zero_matches_exit_0(demo_home: Path) -> None:
    result = pysift("--claude-home", str(demo_home), "search", "zzqqxxnothere")
    assert result.returncode == 0
    assert result.stdout == ""
    assert "DEFINITIVE absence" in result.stderr


def test_target_miss_exits_1(demo_home: Path) -> None:
    result = pysift("--claude-home", str(demo_home), "show", f"@{LONG}", "--line", "99999")
    assert result.returncode == 1
    assert result.stderr.startswith("pysift: error: ")
    assert "Traceback" not in result.stderr
    unknown = pysift("--claude-home", str(demo_home), "list", "@ffffffff")
    assert unknown.returncode == 1
    assert "Traceback" not in unknown.stderr


def test_usage_errors_exit_2(demo_home: Path) -> None:
    for args in (("search", "x", "--bogus-flag"), ("search", "(a)\\1"),
                 ("show", f"@{LONG}"), ("list", "--format", "yaml")):
        result = pysift("--claude-home", str(demo_home), *args)
        assert result.returncode == 2, (args, result.stderr)
        assert "Traceback" not in result.stderr


def test_sessions_from_stdin_takes_search_l_output(demo_home: Path) -> None:
    owners = pysift("--claude-home", str(demo_home), "search", "release", "-l")
    assert owners.returncode == 0, owners.stderr
    ids = owners.stdout.split()
    assert len(ids) > 1
    listed = pysift("--claude-home", str(demo_home), "list", "--sessions-from", "-",
                    "--no-subagents", "--format", "json", stdin=owners.stdout)
    assert listed.returncode == 0, listed.stderr
    assert sorted(r["session_id"] for r in _rows(listed.stdout, "session")) == sorted(ids)
    # an explicit empty list is an empty scope, not every project
    empty = pysift("--claude-home", str(demo_home), "list", "--sessions-from", "-",
                   "--format", "json", stdin="")
    assert empty.returncode == 0, empty.stderr
    assert _rows(empty.stdout, "session") == []


@pytest.fixture
def big_home(tmp_path: Path) -> ClaudeHome:
    """Enough output to overflow a pipe buffer many times over."""
    home = ClaudeHome(tmp_path / "claude")
    s = Session(stable_uuid("big"), cwd="/home/ada/src/big")
    for i in range(400):
        s.add(user(f"question {i} " + "lorem ipsum dolor " * 40))
        s.add(assistant(f"answer {i} " + "sit amet " * 60))
    home.session("/home/ada/src/big", s.session_id, s)
    return home


def test_closed_pipe_ends_quietly(big_home: ClaudeHome) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "pysift", "--claude-home", str(big_home.root), "search", "",
         "--no-truncate", "-t", "user", "-t", "agent.message"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(), cwd=REPO)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    assert first  # it started writing
    proc.stdout.close()  # `| head -1`
    stderr = proc.stderr.read().decode()
    code = proc.wait(timeout=60)
    assert code == 0, stderr
    assert "Traceback" not in stderr
    assert "BrokenPipe" not in stderr


def test_encoded_dir_target_with_a_leading_dash(demo_home: Path) -> None:
    result = pysift("--claude-home", str(demo_home), "list", "-home-ada-src-orbit",
                    "--no-subagents", "--format", "json")
    assert result.returncode == 0, result.stderr
    assert {r["session_id"] for r in _rows(result.stdout, "session")} == {LONG, SHORT, CLONE}


def test_claude_home_after_the_subcommand(demo_home: Path) -> None:
    before = pysift("--claude-home", str(demo_home), "list", f"@{SHORT}", "--format", "json")
    after = pysift("list", f"@{SHORT}", "--format", "json", "--claude-home", str(demo_home))
    assert after.returncode == 0, after.stderr
    assert after.stdout == before.stdout
    mid = pysift("search", "ledger", "--claude-home", str(demo_home), "-c")
    assert mid.returncode == 0, mid.stderr
    assert int(mid.stdout) > 0


def test_claude_config_dir_is_honoured(demo_home: Path, tmp_path: Path) -> None:
    result = pysift("list", f"@{SHORT}", "--format", "json", CLAUDE_CONFIG_DIR=str(demo_home),
                    HOME=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert [r["session_id"] for r in _rows(result.stdout, "session")] == [SHORT]
    # the flag wins over the environment
    empty = tmp_path / "empty-home"
    (empty / "projects").mkdir(parents=True)
    flagged = pysift("--claude-home", str(empty), "list", CLAUDE_CONFIG_DIR=str(demo_home),
                     HOME=str(tmp_path))
    assert flagged.returncode == 0
    assert flagged.stdout == "no sessions found\n"


def test_default_home_is_dot_claude_under_home(demo_home: Path, tmp_path: Path) -> None:
    user_home = tmp_path / "user"
    user_home.mkdir()
    (user_home / ".claude").symlink_to(demo_home, target_is_directory=True)
    result = pysift("list", f"@{SHORT}", "--format", "json", HOME=str(user_home))
    assert result.returncode == 0, result.stderr
    assert [r["session_id"] for r in _rows(result.stdout, "session")] == [SHORT]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_an_output_that_cannot_be_written_is_one_line_and_exit_1(demo_home: Path) -> None:
    """`list > /dev/full` ended in an OSError traceback."""
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "pysift", "--claude-home", str(demo_home),
                               "list"], stdout=full, stderr=subprocess.PIPE, text=True,
                              env=_env(), cwd=REPO, timeout=60, check=False)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        "pysift: error: cannot write the output: No space left on device; check where stdout "
        "goes (a full disk?)"]


def test_a_closed_stdout_is_one_line_and_exit_1(demo_home: Path) -> None:
    """`stats >&-` ended in AttributeError: 'NoneType' object has no attribute 'write'."""
    proc = subprocess.run([sys.executable, "-m", "pysift", "--claude-home", str(demo_home),
                           "stats"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, env=_env(), cwd=REPO, timeout=60, check=False,
                          preexec_fn=lambda: os.close(1))
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        "pysift: error: standard output is closed; redirect it to a file or /dev/null "
        "instead of closing it"]


def _with_stderr_closed(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pysift", *args], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True, env=_env(), cwd=REPO,
                          timeout=60, check=False, preexec_fn=lambda: os.close(2))


def test_a_closed_stderr_leaves_the_answer_and_the_status_alone(demo_home: Path) -> None:
    """`pysift -V 2>&-` and `search TLE -c 2>&-` printed their answer and exited 1: the
    exit flushed a stderr that was None."""
    from pysift import __version__

    version = _with_stderr_closed("-V")
    assert (version.returncode, version.stdout) == (0, f"pysift {__version__}\n")
    counted = _with_stderr_closed("--claude-home", str(demo_home), "search", "TLE", "-c")
    assert counted.returncode == 0 and counted.stdout.strip().isdigit()
    as_json = _with_stderr_closed("--claude-home", str(demo_home), "list", "--format", "json")
    assert as_json.returncode == 0 and _rows(as_json.stdout, "summary")
    assert _with_stderr_closed("--claude-home", str(demo_home), "search", "(").returncode == 2
    missed = _with_stderr_closed("--claude-home", str(demo_home), "show", "@ffff", "--line", "1")
    assert (missed.returncode, missed.stdout) == (1, "")


def test_the_zero_match_hint_writes_an_undecodable_path_byte_back(tmp_path: Path) -> None:
    """The hint naming the target printed a file name's byte 0xFF as the text `\\udcff`
    (stderr's backslashreplace); notes are text, and text writes the byte back (SPEC §5),
    as the rows of the same run do."""
    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("byte-named")
    path = home.session("/w/p", sid, user("hello"), assistant("hi"))
    loose = os.fsencode(tmp_path) + b"/x\xff.jsonl"
    Path(os.fsdecode(loose)).write_bytes(path.read_bytes())
    result = subprocess.run([sys.executable, "-m", "pysift", "--claude-home", str(home.root),
                             "search", "zzqqxx", os.fsdecode(loose)], capture_output=True,
                            env=_env(), cwd=REPO, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert b"\\udcff" not in result.stderr
    # quoted for the shell (the byte is no safe character), the byte itself inside
    assert b'pysift search "" \'' + loose + b"' --count-by label" in result.stderr
