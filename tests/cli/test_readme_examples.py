"""The README's `agents`, `files`, `verbatim` and `image` lines run as a stranger types
them: from the clone, with the demo home exported. (`pysift agents . --format json` failed
there: the clone is no project of the demo home.)"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from conftest import DEMO_HOME, REPO

COMMANDS = ("agents", "files", "verbatim", "image")


def readme_lines() -> list[str]:
    text = (REPO / "README.md").read_text()
    block = text.split("## The commands", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    return [line.split("#", 1)[0].split(" | ", 1)[0].split(" > ", 1)[0].strip()
            for line in block.splitlines()
            if re.match(r"pysift (%s)\b" % "|".join(COMMANDS), line)]


@pytest.mark.parametrize("line", readme_lines())
def test_readme_line_runs(cli, line: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(DEMO_HOME))
    argv = [tmp_path / "shot.jpg" if arg == "/tmp/shot.jpg" else arg
            for arg in shlex.split(line)[1:]]
    result = cli(*map(str, argv))
    assert result.code == 0, (line, result.stderr)
    assert result.stdout


def test_every_command_has_a_readme_line() -> None:
    assert {line.split()[1] for line in readme_lines()} == set(COMMANDS)
