"""Shell completion: subcommands, flags, values, and @ targets from the resolved home."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pysift.cli import complete

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "fixtures" / "demo-home"
LONG = "3f6c1e2a-8b4d-4c7e-9a15-2d8e0b7f4c61"


class _Root:
    def __init__(self, home: str | None) -> None:
        self.params = {"claude_home": home}


class _Ctx:
    def __init__(self, home: str | None) -> None:
        self.root = _Root(home)

    def find_root(self) -> _Root:
        return self.root


def test_at_targets_are_the_sessions_of_the_home_with_their_first_message():
    got = dict(complete.targets(_Ctx(str(DEMO)), "@"))
    assert got.pop("@main").startswith("the calling session")
    assert set(got) == {"@3f6c1e2a", "@7a2d9c4e", "@c9e4b7a1", "@5b8e2f6a", "@e2a7c5d9"}
    assert got["@3f6c1e2a"].startswith("passes from `orbit passes` are about an hour late")
    assert all(len(d) <= complete.DESCRIPTION_CHARS for d in got.values())


def test_a_prefix_narrows_and_the_value_starts_with_what_was_typed():
    assert [v for v, _ in complete.targets(_Ctx(str(DEMO)), "@3f6c")] == ["@3f6c1e2a"]
    assert [v for v, _ in complete.targets(_Ctx(str(DEMO)), "@3f6c1e2a-8")] == [f"@{LONG}"]
    # typed in capitals or without dashes: found, and kept as typed (shells drop a value
    # that does not start with the word)
    assert [v for v, _ in complete.targets(_Ctx(str(DEMO)), "@3F6C1E2A8b")] == ["@3F6C1E2A8b"]
    assert complete.targets(_Ctx(str(DEMO)), "@ffff") == []
    assert complete.targets(_Ctx(str(DEMO)), "src") == []  # the shell completes paths


def test_the_home_comes_from_the_environment_too(monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(DEMO))
    assert "@7a2d9c4e" in dict(complete.targets(_Ctx(None), "@7"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    monkeypatch.setenv("_PYSIFT_COMPLETE", "complete_bash")
    monkeypatch.setenv("COMP_WORDS", f"pysift list --claude-home {DEMO} @7")
    monkeypatch.setenv("COMP_CWORD", "4")
    assert "@7a2d9c4e" in dict(complete.targets(_Ctx(None), "@7"))


def test_a_shared_prefix_is_lengthened_until_it_names_one_session():
    ids = ["3f6c1e2a-8b4d-4c7e-9a15-2d8e0b7f4c61", "3f6c1e2a-8b4e-4c7e-9a15-2d8e0b7f4c61",
           "3f6c1e2a-9b4d-4c7e-9a15-2d8e0b7f4c61"]
    assert complete._short(ids[2], ids) == "3f6c1e2a-9b"
    assert complete._short(ids[0], ids) == ids[0]


def test_a_long_home_offers_the_newest_sessions_only(tmp_path, monkeypatch):
    monkeypatch.setattr(complete, "MAX_SESSIONS", 3)
    project = tmp_path / "projects" / "-w"
    project.mkdir(parents=True)
    for i in range(6):
        path = project / f"{i:08x}-0000-4000-8000-000000000000.jsonl"
        path.write_text('{"type":"user","message":{"role":"user","content":"q%d"}}\n' % i)
        os.utime(path, (1_000_000 + i, 1_000_000 + i))
    got = complete.session_targets(tmp_path, "")
    assert [v for v, _ in got] == ["@00000005", "@00000004", "@00000003"]
    assert [d for _, d in got] == ["q5", "q4", "q3"]


def test_values_of_enum_flags():
    assert [v for v, _ in complete.formats("j")] == ["json"]
    assert "agent.tool.use" in complete.labels("agent.t")
    assert "agent.tool" in complete.labels("agent.t")
    assert complete.labels("user,agent.m") == ["user,agent.message"]
    assert complete.count_axes("pa") == ["pairing"]
    assert complete.conditions("verdict:idle") == ["verdict:idle-background-open",
                                                   "verdict:idle-eot"]
    assert complete.conditions("no") == ["notification", "notification:"]
    assert "tool:" in complete.conditions("")


def _bash_complete(words: str, cword: int, env: dict[str, str]) -> list[str]:
    script = subprocess.run([sys.executable, "-m", "pysift", "--show-completion", "bash"],
                            capture_output=True, text=True, env=env, check=True).stdout
    assert "_pysift_completion" in script
    program = (f"{script}\nCOMP_WORDS=({words}); COMP_CWORD={cword}\n"
               "_pysift_completion pysift\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n")
    done = subprocess.run(["bash", "--norc", "--noprofile", "-c", program],
                          capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.splitlines() if line]


def _completion_output(shell: str, line: str, *, fast: bool) -> bytes:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "_PYSIFT_COMPLETE": f"complete_{shell}"}
    if shell == "bash":
        env.update(COMP_WORDS=line, COMP_CWORD=str(len(line.split()) - 1))
    else:
        env.update(_TYPER_COMPLETE_ARGS=line, _TYPER_COMPLETE_FISH_ACTION="get-args")
    code = ("from pysift.cli.entry import main; main([])" if fast else
            "from pysift.cli.app import main; main([])")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, env=env,
                          check=False, timeout=60).stdout


@pytest.mark.e2e
@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_fast_target_answer_is_typers_own(shell):
    """An @ target is answered before typer loads (~50 ms a keystroke); the bytes are
    those typer's completion would print for the same request."""
    line = f"pysift --claude-home {DEMO} stats @"
    fast = _completion_output(shell, line, fast=True)
    assert b"@3f6c1e2a" in fast
    assert fast == _completion_output(shell, line, fast=False)


@pytest.mark.e2e
@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_a_bash_completion_round_trip(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "pysift"
    shim.write_text(f"#!/bin/sh\nexec {sys.executable} -m pysift \"$@\"\n")
    shim.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": str(REPO / "src"), "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    env.pop("CLAUDE_CONFIG_DIR", None)
    assert "archive" in _bash_complete("pysift ar", 1, env)
    assert _bash_complete("pysift archive --lock", 2, env) == ["--lock-timeout"]
    assert _bash_complete(f"pysift --claude-home {DEMO} show @3f", 4, env) == ["@3f6c1e2a"]
    assert _bash_complete(f"pysift list @7a --claude-home {DEMO}", 2, env) == ["@7a2d9c4e"]
    assert _bash_complete("pysift search x --format ", 4, env) == ["text", "json"]
    # the closed value sets of the other commands' flags
    assert _bash_complete("pysift files --by ", 3, env) == ["summary", "dir", "file", "timeline"]
    assert _bash_complete("pysift agents --order-by c", 3, env) == ["completion"]
    assert _bash_complete("pysift agents --shape w", 3, env) == ["workflow"]
    assert _bash_complete("pysift wait @x --until h", 4, env) == ["hitl"]
    assert _bash_complete(f"pysift --claude-home {DEMO} status @3f", 4, env) == ["@3f6c1e2a"]
