"""``engines.recover.extract``: the op each file tool result stands for. A write call that
did not error is never dropped: one the reader cannot read is ``Unreadable`` (a hole)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from builders import (
    Session,
    assistant,
    bash_result,
    structured_patch,
    to_jsonl,
    tool_result,
    tool_use,
    user,
)
from pysift.core import replay as rp
from pysift.disk.layout import Transcript
from pysift.engines.recover.extract import TargetIndex, file_op, gate_passes, scan_transcript
from pysift.engines.recover.target import Target

P = "/w/proj/hello.txt"


@pytest.mark.parametrize(("name", "tool_input"), [
    ("MultiEdit", {"file_path": P, "edits": '[{"old_string": "world", "new_string": "there"}]'}),
    ("MultiEdit", {"file_path": P, "edits": []}),
    ("MultiEdit", {"file_path": P, "edits": ["world"]}),
    ("MultiEdit", {"file_path": P, "edits": [{"old_string": "a", "new_string": "b"},
                                             {"old_string": "c"}]}),
    ("MultiEdit", {"file_path": P, "edits": [{"old_string": 1, "new_string": "b"}]}),
    ("MultiEdit", {"file_path": P}),
    ("Edit", {"file_path": P, "old_string": "world"}),
    ("Edit", {"file_path": P, "old_string": ["world"], "new_string": "there"}),
    ("Write", {"file_path": P}),
    ("Write", {"file_path": P, "content": ["hello"]}),
    ("NotebookEdit", {"notebook_path": P, "cell_id": "c1", "new_source": "x = 1"}),
])
def test_an_unreadable_write_call_is_a_hole_never_dropped(name: str,
                                                           tool_input: dict[str, Any]) -> None:
    for echo in (None, {"filePath": P}):
        op = file_op(name, tool_input, echo, "ok")
        assert isinstance(op, rp.Unreadable) and op.tool == name and op.reason


def test_a_structured_patch_places_an_edit_whose_strings_are_unreadable() -> None:
    patch = structured_patch("hello\nworld\n", "hello\nthere\n")
    op = file_op("MultiEdit", {"file_path": P, "edits": "not a list"},
                 {"filePath": P, "structuredPatch": patch}, "ok")
    assert isinstance(op, rp.Edit) and op.hunks and not op.replacements


def test_the_input_stands_in_for_an_unreadable_echo() -> None:
    edits = [{"old_string": "world", "new_string": "there"}]
    op = file_op("MultiEdit", {"file_path": P, "edits": edits},
                 {"filePath": P, "edits": [{"old_string": None}]}, "ok")
    assert isinstance(op, rp.Edit) and [(r.old, r.new) for r in op.replacements] == [
        ("world", "there")]
    op = file_op("Edit", {"file_path": P, "old_string": "world", "new_string": "there"},
                 {"filePath": P, "oldString": None, "newString": "there"}, "ok")
    assert isinstance(op, rp.Edit) and [(r.old, r.new) for r in op.replacements] == [
        ("world", "there")]


def test_a_read_that_kept_no_text_changed_nothing() -> None:
    assert file_op("Read", {"file_path": P}, {"type": "file_unchanged"}, "") is None
    assert file_op("Read", {"file_path": P}, None, "no gutter here") is None


def _bash_transcript(command: str) -> bytes:
    s = Session("11111111-1111-4111-8111-111111111111", cwd="/w/proj")
    s.add(user("go"), assistant(tool_use("Bash", {"command": command}, id="toolu_1")),
          tool_result("toolu_1", "(no output)", tool_use_result=bash_result("", "")))
    return to_jsonl(s.records)


@pytest.mark.parametrize("command", ["printf x > $'\\x71'.txt", "printf x > $'q\\056txt'",
                                     "printf x > $'\\161.txt'", "printf x > $'\\u0071'.txt",
                                     "printf x > $'\\U00000071'.txt", "printf x > 'q'.txt"])
def test_the_gate_passes_a_name_spelled_in_pieces(command: str) -> None:
    assert gate_passes(_bash_transcript(command), Target.of("/w/proj/q.txt"))


@pytest.mark.parametrize("command", ["printf x > $'\\x72'.txt", "printf x > r.txt",
                                     "echo $'\\x71' .txt"])
def test_the_gate_refuses_a_transcript_that_never_names_the_file(command: str) -> None:
    assert not gate_passes(_bash_transcript(command), Target.of("/w/proj/q.txt"))


def test_a_long_error_line_is_cut_with_the_mark_saying_how_much() -> None:
    from pysift.engines.recover.extract import DETAIL_CHARS, first_line

    long = "<tool_use_error>File has been modified since read, " + "x" * 700 + "</tool_use_error>"
    detail = first_line(long)
    body = long.removeprefix("<tool_use_error>").removesuffix("</tool_use_error>")
    assert detail == body[:DETAIL_CHARS] + f"… (+{len(body) - DETAIL_CHARS} chars)"
    assert first_line("\n  <tool_use_error>short</tool_use_error>\n") == "short"


# -- an event happens when its call is made ----------------------------------------------------

SID = "11111111-1111-4111-8111-111111111111"


def _scan(tmp_path: Path, *records: Any) -> list[rp.Event]:
    s = Session(SID, cwd="/w/proj")
    s.add(user("go"), *records)
    path = tmp_path / f"{SID}.jsonl"
    path.write_bytes(to_jsonl(s.records))
    transcript = Transcript(path, SID, False, SID, None, tmp_path)
    target = Target.of(P)
    return scan_transcript(transcript, TargetIndex([target]), gate=target).files[0].events


def test_an_events_stamp_and_turn_are_its_calls(tmp_path: Path) -> None:
    """Read at the result's line (where its text is), timed by its call: a prompt between
    the call and the result (an answered permission) leaves it in the call's turn."""
    events = _scan(
        tmp_path,
        assistant(tool_use("Write", {"file_path": P, "content": "hi\n"}, id="toolu_w"),
                  timestamp="2026-03-08T07:00:00.000Z"),
        user("yes, go on", timestamp="2026-03-08T07:00:00.500Z"),
        tool_result("toolu_w", "ok", tool_use_result={"type": "create", "filePath": P,
                                                      "content": "hi\n"},
                    timestamp="2026-03-08T07:00:01.000Z"))
    [e] = events
    assert (e.line, e.call_line, e.ts, e.turn) == (4, 2, "2026-03-08T07:00:00.000Z", 0)


def test_a_hint_on_a_collected_call_is_timed_by_it_and_a_lost_result_by_its_call(
        tmp_path: Path) -> None:
    hint = ("[This command modified 1 file(s) you've previously read: hello.txt. Call Read "
            "before editing.]")
    events = _scan(
        tmp_path,
        assistant(tool_use("Bash", {"command": "sed -i s/a/b/ hello.txt"}, id="toolu_b"),
                  timestamp="2026-03-08T07:00:00.000Z"),
        tool_result("toolu_b", "(no output)", tool_use_result=bash_result(
            "", "", staleReadFileStateHint=hint), timestamp="2026-03-08T07:00:09.000Z"),
        assistant(tool_use("Edit", {"file_path": P, "old_string": "a", "new_string": "b"},
                           id="toolu_e"), timestamp="2026-03-08T07:01:00.000Z"))
    assert [(type(e.op).__name__, e.line, e.call_line, e.ts) for e in events] == [
        ("BashMutation", 3, 2, "2026-03-08T07:00:00.000Z"),
        ("StaleHint", 3, 2, "2026-03-08T07:00:00.000Z"),
        ("Unanswered", 4, 4, "2026-03-08T07:01:00.000Z")]


@pytest.mark.parametrize("command, changed", [
    ("find ./a.py -name '*.pyc' -delete", False),
    ("find ./a.py -name '*.py' -delete", True),
    ("rm ./a.py", True),
])
def test_a_call_the_collection_passed_over_is_a_boundary_unless_find_cannot_match(
        command: str, changed: bool) -> None:
    """An operand resolving to the file in a call whose touches were not collected is a
    boundary, but a find started at the file whose tests cannot match it changes
    nothing, as where the call was collected."""
    from pysift.core import shell
    from pysift.engines.recover.extract import _Scanner

    ops = [_Scanner._unnamed(m, {"/w/a.py"}, None) for m in shell.mutations(command, "/w")]
    assert any(op is not None for op in ops) is changed
