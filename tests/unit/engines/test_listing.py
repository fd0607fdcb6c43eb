"""engines.listing: a session's quick-identity tuple from the two ends of its file
(SPEC §6.1), on builder-made transcripts."""

from __future__ import annotations

from pathlib import Path

from builders import ClaudeHome, assistant, rejection, stable_uuid, tool_use, user
from pysift.disk.layout import top_level_transcript
from pysift.engines.listing import summarize


def _summary(tmp_path: Path, *records):  # type: ignore[no-untyped-def]
    home = ClaudeHome(tmp_path / "claude")
    path = home.session("/home/ada/src/x", stable_uuid(str(len(records))), *records)
    return summarize(top_level_transcript(path))


def test_a_one_prompt_session_has_that_prompt_first_and_last(tmp_path: Path) -> None:
    s = _summary(tmp_path, user("port the parser\n\nto rust"), assistant("done"))
    assert s.first_user is not None and s.last_user is not None
    assert s.first_user.text == s.last_user.text == "port the parser to rust"
    assert s.first_user.ts == s.last_user.ts
    assert s.last_agent is not None and s.last_agent.text == "done"
    assert s.last_ts and s.version_last  # the tail envelope is filled either way


def test_the_last_human_message_is_the_newest_one(tmp_path: Path) -> None:
    s = _summary(tmp_path, user("first ask"), assistant("ok"), user("second ask"),
                 assistant("ok again"))
    assert (s.first_user.text, s.last_user.text) == ("first ask", "second ask")  # type: ignore[union-attr]


def test_a_rejection_with_an_instruction_is_the_last_human_message(tmp_path: Path) -> None:
    """Its carrier is judged by the first tool_result key of the line, so an echo holding
    another user/tool_result pair further on does not make it look plain."""
    echo = {"pad": "x" * 400,
            "echo": {"type": "user", "content": [{"type": "tool_result", "content": "y"}]}}
    s = _summary(
        tmp_path,
        user("first human message"),
        assistant(tool_use("Edit", {"file_path": "a.py"}, id="toolu_edit")),
        rejection("toolu_edit", "please use tabs instead", tool_use_result=echo),
    )
    assert s.last_user is not None
    assert s.last_user.text.endswith("please use tabs instead")
