"""Which files a ``find … -delete`` / ``-exec rm {} +`` may change: its name and path tests
read exactly, anything else conservative (a file it may reach is never called safe)."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from pysift.core.shell import may_reach, mutations

CWD = "/w/proj"
APP = f"{CWD}/src/app.py"


def reaches(command: str, path: str = APP, cwd: str = CWD) -> bool:
    [m] = [m for m in mutations(command, cwd) if m.verb == "find"]
    return may_reach(m, path)


@pytest.mark.parametrize("command", [
    "find . -name '*.pyc' -delete",
    "find . -type d -name __pycache__ -exec rm -rf {} +",
    "find ./ -type d -name __pycache__ -exec rm -rf {} +",
    "find . \\( -name '*.pyc' -o -name '*.pyo' \\) -delete",
    "find . -path ./node_modules -prune -o -name '*.pyc' -print -delete",
    "find src -path '*/tests/*' -delete",
    "find . -path './src/b.py' -delete",
    "find /w/proj/src -maxdepth 1 -type f -name main.py -delete",
    "find . -name '*.tx[t]' -delete",
    "find . -iname '*.PYC' -delete",
    "find . -name '*.log' -exec truncate -s 0 {} \\;",
    "find . -name '*.md' -exec sed -i 's/a/b/' {} +",
    "find . -false -delete",
    "find . -name '*.pyc' -print , -name '*.tmp' -delete",
    # a start point that is the file itself: GNU find tests it as any other path
    "find ./src/app.py -name '*.pyc' -delete",
    "find src/app.py -type d -exec rm -rf {} +",
    "find /w/proj/src/app.py ! -name app.py -delete",
    # a start point the reading cannot resolve still has the file's own name tested
    "find \"$BUILD\" -name '*.o' -delete",
])
def test_a_find_whose_tests_cannot_match_the_file_leaves_it_alone(command: str) -> None:
    assert not reaches(command)


@pytest.mark.parametrize("command", [
    "find . -name '*.py' -delete",
    "find . -name app.py -exec rm {} \\;",
    "find . -path './src/*' -delete",
    "find src/ -path 'src/*.py' -delete",
    "find . ! -name '*.md' -delete",
    "find . -name '*.md' -o -delete",
    "find . -iname 'APP.PY' -delete",
    "find . -name 'app.p[y]' -delete",  # a bracket only ever rules a name out
    "find src -name src -exec rm -rf {} +",  # the start directory itself matches
    "find . -name '*.py' -newer stamp -delete",  # a test this reading does not decide
    "find . -regex '.*/b\\.py' -delete",
    "find . -name *.pyc -delete",  # unquoted: the shell may expand it first
    "find . -name '*.pyc' -frobnicate -delete",  # an unknown primary: nothing is read
    "find . -name '*.txt' -exec cp {} {}.bak \\;",  # a derived path the tests need not match
    "find \"$D\" -name src -exec rm -rf {} +",
    "find \"$D\" -name . -exec rm -rf {} +",  # $D may be `.`
    "find ./src/app.py -name '*.py' -delete",
    "find src/app.py -type f -delete",
])
def test_a_find_that_may_match_the_file_or_a_directory_above_it_changes_it(command: str) -> None:
    assert reaches(command)


def test_windows_paths_are_matched_without_case() -> None:
    assert reaches("find . -name '*.PY' -delete", "C:\\w\\proj\\src\\app.py", "C:\\w\\proj")
    assert not reaches("find . -name '*.pyc' -delete", "c:/w/proj/src/app.py", "C:\\w\\proj")


# -- held to find itself ----------------------------------------------------------------------

TREE = ["src/app.py", "src/App.PY", "src/sub/x.pyc", "src/__pycache__/app.cpython.pyc",
        "docs/.hidden.md", "docs/read me.md", "a.py", "tests/sub/t_a.py", "é.py"]
STARTS = [".", "./", "src", "src/", "./src", "src//",
          "a.py", "./a.py", "src/app.py", "./src/sub/x.pyc"]  # a file: find tests it alone
PATTERNS = ["*.py", "*.pyc", "app.py", "__pycache__", "s*", "?pp.py", "[ab]*", "*/sub/*",
            "./src/*", "*", ".*", "A*", "src", "t_?.py", "*.PY", "é*", "?.py", "[!a]*", "src//a*"]
TESTS = ["-name", "-iname", "-path", "-ipath"]


def _expression(rng: random.Random, depth: int = 0) -> list[str]:
    roll = rng.random()
    if depth < 2 and roll < 0.2:
        return ["(", *_expression(rng, depth + 1), "-o", *_expression(rng, depth + 1), ")"]
    if depth < 2 and roll < 0.3:
        return ["!", *_expression(rng, depth + 1)]
    if depth < 2 and roll < 0.45:
        return [*_expression(rng, depth + 1), *_expression(rng, depth + 1)]
    if roll < 0.55:
        return ["-type", rng.choice(["f", "d"])]
    if roll < 0.6:
        return [rng.choice(["-true", "-false", "-empty"])]
    return [rng.choice(TESTS), rng.choice(PATTERNS)]


@pytest.mark.skipif(shutil.which("find") is None, reason="needs find")
def test_no_file_find_reaches_is_called_safe(tmp_path: Path) -> None:
    """Random expressions over a small tree, run by find with ``-print`` where the
    changing action stands: every file find prints (or prints a directory above) must be
    one ``may_reach`` keeps."""
    root = tmp_path / "proj"
    for rel in TREE:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x")
    rng = random.Random(26)
    pruned = at_file = 0
    for _ in range(250):
        start = rng.choice(STARTS)
        expression = _expression(rng)
        printed = subprocess.run(["find", start, *expression, "-print"], cwd=root,
                                 capture_output=True, text=True, check=False).stdout
        hit = {(root / line).resolve() for line in printed.splitlines() if line}
        command = " ".join(["find", start, *(f"'{w}'" for w in expression), "-delete"])
        [m] = mutations(command, str(root))
        for rel in TREE:
            file = (root / rel).resolve()
            reached = any(p in hit for p in (file, *file.parents))
            safe = not may_reach(m, str(file))
            assert not (reached and safe), (command, rel)
            pruned += safe
            at_file += safe and start.removeprefix("./") == rel
    assert pruned > 400  # the reading does rule files out
    assert at_file > 20  # a start that is the file too
