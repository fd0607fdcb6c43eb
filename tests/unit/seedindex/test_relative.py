"""The fold index's ``files``: a path relative to the session's first cwd when under it."""

from __future__ import annotations

import pytest

from pysift.seedindex.extract import _relative


@pytest.mark.parametrize(("path", "cwd", "expected"), [
    ("/w/p/src/a.py", "/w/p", "src/a.py"),
    ("/w/p/src/a.py", "/w/p/", "src/a.py"),
    ("/w/pq/a.py", "/w/p", "/w/pq/a.py"),
    ("/w/p", "/w/p", "/w/p"),
    ("src/a.py", "/w/p", "src/a.py"),
    ("d:\\ClaudeWorkspace\\launch_okki2.js", "D:\\ClaudeWorkspace", "launch_okki2.js"),
    ("D:/ClaudeWorkspace/08\\scripts\\x.mjs", "D:\\ClaudeWorkspace", "08\\scripts\\x.mjs"),
    ("D:\\claudeworkspace\\a.js", "D:\\ClaudeWorkspace\\", "a.js"),
    ("D:\\ClaudeWorkspace2\\a.js", "D:\\ClaudeWorkspace", "D:\\ClaudeWorkspace2\\a.js"),
    ("C:\\Users\\x.md", "D:\\ClaudeWorkspace", "C:\\Users\\x.md"),
    ("\\\\srv\\share\\a\\b.txt", "\\\\srv\\share", "a\\b.txt"),
    ("/w/p/a.py", None, "/w/p/a.py"),
])
def test_a_path_under_the_cwd_is_made_relative(path: str, cwd: str | None,
                                               expected: str) -> None:
    assert _relative(path, cwd) == expected
