"""The elicitation sidecar read (core.sidecar): what a missing, unreadable or real file
gives, and that a failed read never keeps a file descriptor open."""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from builders import assistant, auq_use, elicitation_pending, elicitation_resolved
from pysift.core.sidecar import SOURCE, read_sidecar


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_no_sidecar_file_means_the_hook_is_not_installed(tmp_path: Path) -> None:
    merge = read_sidecar(tmp_path / "absent" / "elicitations.jsonl")
    assert not merge.present and merge.pending == [] and merge.skipped_lines == 0
    assert merge.error is None


def test_an_unreadable_sidecar_is_present_and_leaks_nothing(tmp_path: Path) -> None:
    """A directory where the file should be opens fine on Linux and fails on read: the
    hook is there (present), nothing is merged, and the descriptor is closed."""
    path = tmp_path / "elicitations.jsonl"
    path.mkdir()
    before = _open_fds()
    for _ in range(20):
        merge = read_sidecar(path)
    assert merge.present and merge.pending == []
    assert merge.error is not None and str(path) in merge.error  # said, not taken as empty
    assert _open_fds() == before


def test_a_pending_question_is_merged_until_its_resolved_line_lands(tmp_path: Path) -> None:
    use = assistant(auq_use([{"question": "Ship it?", "options": ["yes", "no"]}], id="toolu_open"))
    path = tmp_path / "elicitations.jsonl"
    pending = elicitation_pending(use, "toolu_open")
    path.write_bytes(orjson.dumps(pending) + b"\n" + b"not json\n")
    merge = read_sidecar(path)
    assert merge.present and merge.skipped_lines == 1
    assert [r.source for r in merge.pending] == [SOURCE]
    with path.open("ab") as fh:
        fh.write(orjson.dumps(elicitation_resolved("toolu_open", "2026-06-07T05:43:00.000Z")))
    assert read_sidecar(path).pending == []


def test_only_a_native_tool_block_makes_a_pending_question_a_ghost(tmp_path: Path) -> None:
    """The guard found the id anywhere in the transcript's bytes: a human quoting
    `toolu_open` in prose hid the open question from list, search and show."""
    from builders import to_jsonl, tool_result, user

    use = assistant(auq_use([{"question": "Ship it?", "options": ["yes", "no"]}], id="toolu_open"))
    path = tmp_path / "elicitations.jsonl"
    path.write_bytes(orjson.dumps(elicitation_pending(use, "toolu_open")) + b"\n")
    prose = to_jsonl([user("why is toolu_open still waiting?")])
    assert [r.source for r in read_sidecar(path, prose).pending] == [SOURCE]
    native_call = to_jsonl([user("ship?"), use])
    assert read_sidecar(path, native_call).pending == []
    native_answer = to_jsonl([tool_result("toolu_open", "yes")])
    assert read_sidecar(path, native_answer).pending == []


def test_a_sidecar_line_with_a_lone_surrogate_escape_is_merged(tmp_path: Path) -> None:
    """A question cut inside an emoji is written ``"\\ud83d"`` (valid JSON orjson refuses):
    the sidecar reads it with the transcript's decoder, as show and search read the line
    once it is native, instead of dropping the open question as malformed."""
    from builders import to_line, user

    question = "Ship it? \ud83d"
    use = assistant(auq_use([{"question": question, "options": ["yes", "no"]}], id="toolu_cut"))
    line = to_line(elicitation_pending(use, "toolu_cut"))
    assert b"\\ud83d" in line
    path = tmp_path / "elicitations.jsonl"
    path.write_bytes(line)
    merge = read_sidecar(path)
    assert merge.skipped_lines == 0
    assert [r.source for r in merge.pending] == [SOURCE]
    block = merge.pending[0].blocks()[0]
    assert block["input"]["questions"][0]["question"] == question
    # the ghost guard reads the native call's line the same way
    native = to_line(user("ship?")) + to_line(use)
    assert read_sidecar(path, native).pending == []
    # and a sidecar-shaped file under another name is still sniffed as one
    from pysift.disk.layout import is_sidecar_file

    other = tmp_path / "copy.jsonl"
    other.write_bytes(line)
    assert is_sidecar_file(other)


def test_a_stray_file_in_place_of_the_session_dir_means_no_sidecar(tmp_path: Path) -> None:
    """`<uuid>` is a file, so `<uuid>/elicitations.jsonl` cannot exist (ENOTDIR): no hook,
    nothing unread, no warning."""
    stray = tmp_path / "3f6c1e2a-8b4d-4c7e-9a15-2d8e0b7f4c61"
    stray.write_text("not a dir")
    merge = read_sidecar(stray / "elicitations.jsonl")
    assert not merge.present and merge.error is None
