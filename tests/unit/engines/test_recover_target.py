"""Which recorded paths a ``recover --file`` value names, and its gate needle."""

from __future__ import annotations

import pytest

from pysift.engines.recover.target import Target, gate_needle


@pytest.mark.parametrize("value, recorded, cwd, identity", [
    ("/w/p/app.py", "/w/p/app.py", None, "/w/p/app.py"),
    ("/w/p/app.py", "/w/p/./src/../app.py", None, "/w/p/app.py"),
    ("/w/p/app.py", "app.py", "/w/p", "/w/p/app.py"),  # a relative record, its cwd joined
    ("/w/p/app.py", "/w/q/app.py", None, None),
    ("src/app.py", "/w/p/src/app.py", None, "/w/p/src/app.py"),
    ("app.py", "/w/p/myapp.py", None, None),  # a suffix matches at a component boundary
    (r"C:\Users\a\Notes.md", "c:/users/A/notes.md", None, "c:/users/a/notes.md"),
    ("notes.md", r"C:\Users\a\NOTES.md", None, "c:/users/a/notes.md"),
])
def test_matches(value: str, recorded: str, cwd: str | None, identity: str | None) -> None:
    assert Target.of(value).matches(recorded, cwd) == identity


@pytest.mark.parametrize("value, needle", [
    ("/a/b/app.py", "app.py"),
    ("/a/b/my file.py", "file.py"),  # a space may be escaped in a shell word
    ("/a/b/x'y.md", "y.md"),
    ("/a/b/ab", None),  # too short to gate on: every transcript is read
    ("/a/b/基金.md", "基金.md"),
    # a lone surrogate (a plan path cut inside a pair) is spelled \ud83d in the file, never
    # verbatim: it ends the run (its UTF-8 length had raised)
    ("/a/b/plan\ud83d.md", "plan"),
])
def test_gate_needle(value: str, needle: str | None) -> None:
    assert gate_needle(value) == needle
