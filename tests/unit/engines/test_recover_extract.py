"""``engines.recover.extract``: the op each file tool result stands for. A write call that
did not error is never dropped: one the reader cannot read is ``Unreadable`` (a hole)."""

from __future__ import annotations

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
from pysift.engines.recover.extract import file_op, gate_passes
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
