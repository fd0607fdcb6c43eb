"""The registry rows and the tail state machine."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from builders import (
    DEFAULT_START,
    ClaudeHome,
    Session,
    assistant,
    assistant_split,
    auq_use,
    interrupt,
    text,
    to_jsonl,
    tool_result,
    tool_use,
    torn,
    user,
)
from pysift.live import registry
from pysift.live.files import View
from pysift.live.tail import EXTEND_LIMIT, TAIL_WINDOW, read_tail, words

SID = "3f6c1e2a-8b4d-4c7e-9a15-2d8e0b7f4c61"


# -- the registry -----------------------------------------------------------------------------


def test_row_found_by_session_id(home: ClaudeHome) -> None:
    home.registry_row(111, "another-session", "busy")
    home.registry_row(4242, SID, "shell", procStart="Mon Oct  5 09:00:00 2026",
                      pidDomain="linux", statusUpdatedAt=1791190900000)
    found = registry.lookup(home.root, SID)
    assert found.row is not None and found.row.pid == 4242
    assert found.row.status == "shell" and found.row.pid_domain == "linux"
    assert found.row.status_updated_ms == 1791190900000
    assert found.notes() == []


def test_no_dir_no_row(home: ClaudeHome) -> None:
    found = registry.lookup(home.root, SID)
    assert found.row is None and not found.dir_exists


def test_claude_p_row_has_a_null_status(home: ClaudeHome) -> None:
    home.registry_row(9, SID, None, entrypoint="sdk-cli")
    row = registry.lookup(home.root, SID).row
    assert row is not None and row.status is None and row.has_status
    assert row.entrypoint == "sdk-cli"


def test_procstartft_wins_over_procstart(home: ClaudeHome) -> None:
    home.registry_row(9, SID, procStart="Mon Oct  5 09:00:00 2026",
                      procStartFt="134040000000000000")
    row = registry.lookup(home.root, SID).row
    assert row is not None and row.proc_start == "134040000000000000"
    assert row.proc_start_is_filetime


def test_rows_that_are_not_json_are_named_when_no_row_matched(home: ClaudeHome) -> None:
    home.registry_row(1, "other")
    (home.root / "sessions" / "77.json").write_text('{"pid": 77, "sessionId": "3f6c')
    (home.root / "sessions" / "78.json").write_text("[1, 2]")
    (home.root / "sessions" / "5.abc.key").write_text("not a row")
    found = registry.lookup(home.root, SID)
    assert found.row is None
    assert found.unreadable == ["77.json: not JSON", "78.json: not a JSON object"]
    assert "2 registry row(s) could not be read" in found.notes()[0]


def test_several_rows_the_newest_is_read_and_said(home: ClaudeHome) -> None:
    home.registry_row(10, SID, "idle", statusUpdatedAt=1000, updatedAt=1000)
    home.registry_row(20, SID, "busy", statusUpdatedAt=5000, updatedAt=5000)
    found = registry.lookup(home.root, SID)
    assert found.row is not None and found.row.pid == 20
    assert "2 registry rows name this session" in found.notes()[0]


# -- the tail state machine ---------------------------------------------------------------------


def _shape(tmp_path: Path, records: list, *, raw: bytes = b"", window: int = TAIL_WINDOW):
    s = Session(SID, cwd="/home/ada/src/orbit")
    for r in records:
        s.add(r)
    data = to_jsonl(s.records) + raw
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    return read_tail(View(path, len(data), data), window=window, subagent=False), s


def test_end_turn_is_idle(tmp_path: Path) -> None:
    shape, s = _shape(tmp_path, [user("hi"), assistant("hello")])
    assert not shape.open_calls and shape.last_stop_reason == "end_turn"
    now = s.now + timedelta(seconds=65)
    assert words(shape, now) == "idle (last stop_reason end_turn, last record 1m05s ago)"


def test_unanswered_call_is_open(tmp_path: Path) -> None:
    shape, s = _shape(tmp_path, [user("run the tests"),
                                 assistant(tool_use("Bash", {"command": "pytest"}, id="t1"))])
    assert [c.name for c in shape.open_calls] == ["Bash"]
    assert shape.open_calls[0].command == "pytest"
    assert words(shape, s.now + timedelta(seconds=34)) == "in a Bash call for 34s"


def test_parallel_calls_one_answered(tmp_path: Path) -> None:
    shape, _s = _shape(tmp_path, [
        user("look"),
        *assistant_split(tool_use("Read", {"file_path": "a"}, id="r1"),
                         tool_use("Grep", {"pattern": "x"}, id="g1")),
        tool_result("r1", "contents"),
    ])
    assert [c.tool_use_id for c in shape.open_calls] == ["g1"]


def test_call_of_an_earlier_turn_is_not_open(tmp_path: Path) -> None:
    shape, _ = _shape(tmp_path, [
        user("first"), assistant(tool_use("Bash", {"command": "sleep 9"}, id="old")),
        user("never mind, do this instead"), assistant("done"),
    ])
    assert shape.open_calls == []


def test_interrupted_call_has_its_result(tmp_path: Path) -> None:
    shape, _ = _shape(tmp_path, [
        user("go"), assistant(tool_use("Bash", {"command": "sleep 99"}, id="b1")),
        tool_result("b1", "[Request interrupted by user for tool use]", is_error=True),
        interrupt(for_tool_use=True),
    ])
    assert shape.open_calls == []


def test_generating_within_300s(tmp_path: Path) -> None:
    shape, s = _shape(tmp_path, [user("go"), assistant(text("thinking out loud"),
                                                       stop_reason=None)])
    assert words(shape, s.now + timedelta(seconds=12)).startswith("generating (last record 12s ago")
    assert words(shape, s.now + timedelta(seconds=400)).startswith("idle (last stop_reason (none)")


def test_torn_tail_is_held_not_read(tmp_path: Path) -> None:
    half = torn(assistant(tool_use("Bash", {"command": "make"}, id="late")))
    shape, _ = _shape(tmp_path, [user("hi"), assistant("hello")], raw=half)
    assert shape.torn_tail and not shape.open_calls
    assert shape.skipped_lines == 0


def test_whole_record_without_newline_is_read(tmp_path: Path) -> None:
    s = Session(SID, cwd="/x")
    s.add(user("hi"))
    last = s.stamp(assistant(tool_use("Bash", {"command": "make"}, id="nl")))
    raw = json.dumps(last).encode()
    shape, _ = _shape(tmp_path, [user("hi")], raw=raw)
    assert not shape.torn_tail and [c.tool_use_id for c in shape.open_calls] == ["nl"]


def test_malformed_lines_in_the_window_are_counted(tmp_path: Path) -> None:
    shape, _ = _shape(tmp_path, [user("hi"), assistant("yo")], raw=b"<<<<<<< HEAD\n")
    assert shape.skipped_lines == 1


def test_turn_older_than_the_window_is_searched_below_it(tmp_path: Path) -> None:
    """A sync Task call whose turn outgrew the window (old builds copied the subagent's
    messages into the main transcript as progress records) is still open."""
    filler = [{"type": "progress", "data": {"message": {"type": "assistant", "message": {
        "content": [{"type": "tool_use", "id": f"inner{i}", "name": "Read", "input": {}}]}}},
        "pad": "x" * 2000} for i in range(40)]
    records = [user("review it"), assistant(tool_use("Task", {"prompt": "p"}, id="task1")),
               *filler]
    shape, _ = _shape(tmp_path, records, window=16 * 1024)
    assert shape.window_start > 0
    assert [c.tool_use_id for c in shape.open_calls] == ["task1"]
    assert shape.notes == []


def test_capped_extension_says_so(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import pysift.live.tail as tail_mod

    monkeypatch.setattr(tail_mod, "EXTEND_LIMIT", 4096)
    filler = [{"type": "progress", "pad": "y" * 3000} for _ in range(20)]
    shape, _ = _shape(tmp_path, [user("go"), *filler], window=8192)
    assert shape.notes and "were not checked" in shape.notes[0]
    assert EXTEND_LIMIT == 16 << 20


def test_dialog_call_is_open(tmp_path: Path) -> None:
    ask = auq_use([{"question": "Ship it?", "header": "Ship", "multiSelect": False,
                    "options": [{"label": "yes", "description": ""}]}], id="ask1")
    shape, _ = _shape(tmp_path, [user("release"), assistant(ask)])
    assert [c.name for c in shape.open_calls] == ["AskUserQuestion"]


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "e.jsonl"
    path.write_bytes(b"")
    shape = read_tail(View(path, 0, b""), subagent=False)
    assert shape.records_seen == 0
    assert words(shape, DEFAULT_START) == "no records readable at the tail"


def test_a_last_line_longer_than_the_window_is_read(tmp_path: Path) -> None:
    """A newest record bigger than the window (an image a Read returned, a pasted prompt)
    is still the newest record: the window starts at its line, not past it."""
    big = "A" * 40_000
    shape, s = _shape(tmp_path, [user("go"), assistant("ok"), user("paste " + big)],
                      window=16 * 1024)
    small, _ = _shape(tmp_path, [user("go"), assistant("ok"), user("paste")])
    assert shape.records_seen >= 1 and shape.last_ts == small.last_ts
    assert words(shape, s.now) == words(small, s.now) == (
        "generating (last record 0s ago, stop_reason (none))")

    shape, s = _shape(tmp_path, [user("look"),
                                 assistant(tool_use("Read", {"file_path": "/x.png"}, id="r1")),
                                 tool_result("r1", big)], window=16 * 1024)
    assert shape.records_seen >= 1 and not shape.open_calls
    assert shape.last_stop_reason == "tool_use"


def test_a_torn_tail_longer_than_the_window_leaves_the_last_complete_line_read(
        tmp_path: Path) -> None:
    half = torn(assistant(text("B" * 60_000)), keep=0.9)
    shape, _ = _shape(tmp_path, [user("go"),
                                 assistant(tool_use("Bash", {"command": "make"}, id="b1"))],
                      raw=half, window=16 * 1024)
    assert shape.torn_tail
    assert [c.tool_use_id for c in shape.open_calls] == ["b1"]


def test_a_long_last_line_read_by_pread_as_by_a_buffer(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """wait reads by pread (no buffer in hand): the backward search reads chunks."""
    import pysift.live.files as files_mod

    monkeypatch.setattr(files_mod, "_CHUNK", 4096)
    in_hand, _ = _shape(tmp_path, [user("look"),
                                   assistant(tool_use("Read", {"file_path": "/x"}, id="r1")),
                                   tool_result("r1", "C" * 50_000)], window=8192)
    path = tmp_path / "t.jsonl"
    by_pread = read_tail(View(path, path.stat().st_size), window=8192, subagent=False)
    assert by_pread.records_seen == in_hand.records_seen >= 1
    assert by_pread.last_stop_reason == in_hand.last_stop_reason == "tool_use"
    assert by_pread.window_start == in_hand.window_start > 0


def test_a_newest_line_past_the_search_limit_is_said(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import pysift.live.tail as tail_mod

    monkeypatch.setattr(tail_mod, "LINE_LIMIT", 8192)
    shape, _ = _shape(tmp_path, [user("go"), assistant("ok"), user("D" * 60_000)],
                      window=8192)
    assert any("more than" in n and "was not read" in n for n in shape.notes)
