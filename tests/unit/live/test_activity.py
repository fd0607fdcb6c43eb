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


def _pulse(task: str) -> str:
    return (f"<task-notification>\n<task-id>{task}</task-id>\n<tool-use-id>toolu_{task}"
            f"</tool-use-id>\n<status>completed</status>\n<summary>Background command "
            f"\"{task}\" completed (exit code 0)</summary>\n</task-notification>")


def _main(raw: dict[str, Any]) -> NewRecord:
    return NewRecord(Record(raw, None), "sess", True, False)


def test_one_delivery_on_two_carriers_is_one_notification() -> None:
    """Claude Code writes each delivery twice: a queue enqueue line, then the user record
    (idle) or the queued_command attachment (mid-turn) with the same section (measured on
    the real corpus: 7 of 10 pulses); a census of two for one completion says twice what
    happened."""
    seen = Activity()
    seen.fold(_main({"type": "queue-operation", "operation": "enqueue",
                     "content": _pulse("b1")}))
    seen.fold(_main({"type": "queue-operation", "operation": "dequeue"}))
    seen.fold(_main({"type": "user", "message": {"role": "user", "content": _pulse("b1")}}))
    assert seen.notifications == 1
    seen.fold(_main({"type": "queue-operation", "operation": "enqueue",
                     "content": _pulse("b2")}))
    seen.fold(_main({"type": "attachment", "attachment": {
        "type": "queued_command", "prompt": _pulse("b2"), "commandMode": "task-notification"}}))
    assert seen.notifications == 2
    seen.fold(_main({"type": "user", "message": {"role": "user",
                                                 "content": _pulse("b3") + "\n" + _pulse("b4")}}))
    assert seen.notifications == 4
