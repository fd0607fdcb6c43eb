"""``target_ref``: the target a printed command names must resolve back to its transcript."""

from __future__ import annotations

from pathlib import Path

import pytest

from pysift.output.fields import target_ref

UUID = "cafe1234-0000-4000-8000-000000000000"


@pytest.mark.parametrize(("session_id", "path", "ref"), [
    (UUID, f"/h/projects/-p/{UUID}.jsonl", f"@{UUID}"),
    # a top-level file with a hex stem: `@cafe1234` is a uuid prefix (ambiguous beside the
    # session above), `@aabbccddeeff0011` an agent id; both are named by path
    ("cafe1234", "/h/projects/-p/cafe1234.jsonl", "/h/projects/-p/cafe1234.jsonl"),
    ("aabbccddeeff0011", "/h/projects/-p/aabbccddeeff0011.jsonl",
     "/h/projects/-p/aabbccddeeff0011.jsonl"),
    ("small", "/h/projects/-p/small.jsonl", "/h/projects/-p/small.jsonl"),
    ("notes", "/h/projects/-p p/notes.jsonl", "'/h/projects/-p p/notes.jsonl'"),
    # subagents resolve by their exact agent id, even a short legacy one
    ("a4ca7529859c158c2", f"/h/projects/-p/{UUID}/subagents/agent-a4ca7529859c158c2.jsonl",
     "@a4ca7529859c158c2"),
    ("41be4aa9", "/h/projects/-p/agent-41be4aa9.jsonl", "@41be4aa9"),
])
def test_a_printed_target_resolves_back(session_id: str, path: str, ref: str) -> None:
    assert target_ref(session_id, Path(path)) == ref
