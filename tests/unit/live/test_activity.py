"""wait's census of what landed: a record is classified as the kind of file it landed in
says."""

from __future__ import annotations

from typing import Any

from pysift.live.activity import Activity
from pysift.live.session import NewRecord
from pysift.model.record import Record


def _prompt(**envelope: Any) -> Record:
    return Record({"type": "user", "message": {"role": "user", "content": "find it"},
                   **envelope}, None)


def test_a_subagent_s_prompt_in_the_main_transcript_is_no_human_prompt() -> None:
    """Claude Code 1.x wrote a Task subagent's prompt into the session file
    (``isSidechain:true``); in a subagent lane, where every record is flagged, a prompt
    counts as it did."""
    seen = Activity()
    seen.fold(NewRecord(_prompt(isSidechain=True), "sess", True, False))
    assert seen.user_prompts == 0
    seen.fold(NewRecord(_prompt(isSidechain=False), "sess", True, False))
    assert seen.user_prompts == 1
    seen.fold(NewRecord(_prompt(isSidechain=True, agentId="abc"), "abc", False, False))
    assert seen.user_prompts == 2 and seen.records == 3
