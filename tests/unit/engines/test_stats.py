"""The stats scan: byte-read census, user timestamps, token dedupe, windows (SPEC §6.12)."""

from __future__ import annotations

import json
import pickle
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builders import (
    Session,
    assistant,
    assistant_split,
    attachment,
    bash_result,
    compact_boundary,
    compact_summary,
    file_history_snapshot,
    garbage_line,
    permission_mode,
    queue_op,
    thinking,
    to_jsonl,
    tool_result,
    tool_use,
    torn,
    usage,
    user,
)
from pysift.core.grammar.ranges import parse_range
from pysift.core.turns import build_turn_map
from pysift.disk.layout import transcript_from_path
from pysift.engines import stats as stats_engine
from pysift.engines.stats import (
    FileScan,
    Window,
    aggregate,
    scan_range,
    split_points,
    stats_of,
    thinking_tag_kind,
    turn_map_of,
)

SID = "11111111-1111-4111-8111-111111111111"
MODEL = "claude-opus-4-6"


def session(**kw: Any) -> Session:
    return Session(SID, cwd="/w/proj", **kw)


def write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "projects" / "-w-proj" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def run_stats(path: Path, window: Window | None = None):
    return stats_of(transcript_from_path(path), window or Window())


def naive_census(data: bytes) -> tuple[dict[str, int], int]:
    """The reference: decode every line (what csift does) and count top-level types."""
    types: dict[str, int] = {}
    malformed = 0
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError:
            malformed += 1
            continue
        if not isinstance(obj, dict):
            malformed += 1
            continue
        name = obj.get("type") if isinstance(obj.get("type"), str) else "(untyped)"
        types[name] = types.get(name, 0) + 1
    return types, malformed


# -- the byte-read census ----------------------------------------------------------------------


def test_type_read_before_and_after_the_payload() -> None:
    s = session()
    s.add(permission_mode())                                   # {"type":…} first
    s.add(user("hello"))                                        # type, then message
    s.add(assistant("hi there"))                                # message, then type
    s.add(attachment("hook_success", {"content": "x"}))        # nested type first
    s.add(file_history_snapshot(backups={"/a": 1}))
    s.add(queue_op("enqueue", "more"))
    data = s.lines()
    scan = scan_range(data)
    assert scan.line_types == {"permission-mode": 1, "user": 1, "assistant": 1, "attachment": 1,
                               "file-history-snapshot": 1, "queue-operation": 1}
    assert scan.lines == 6
    assert scan.skipped_lines == 0


def test_a_nested_type_is_never_taken_for_the_record_type() -> None:
    lines = [
        # a progress record wrapping a subagent's user message: nested "type":"user" first
        {"parentUuid": None, "data": {"message": {"type": "user", "message": {}}},
         "type": "progress", "uuid": "u1"},
        # neither end settles it (nested objects on both sides): decoded
        {"a": {"type": "user"}, "type": "system", "b": {"type": "assistant"}},
        # json.dumps spacing: the compact needle never matches, so it is decoded
        b'{"type": "assistant", "message": {"role": "assistant", "content": []}}\n',
        # an escaped type name: orjson spells it
        b'{"type":"us\\u0065r","message":{"role":"user","content":"x"}}\n',
        # no type at all
        {"sessionId": SID, "foo": 1},
        # an empty type name counts under "" (it was once read off the bytes and dropped)
        {"type": "", "uuid": "e1"},
    ]
    data = to_jsonl(lines)
    scan = scan_range(data)
    assert scan.line_types == {"progress": 1, "system": 1, "assistant": 1, "user": 1,
                               "(untyped)": 1, "": 1}
    assert len(scan.assistants) == 1 and len(scan.users) == 1


def test_lines_blank_lines_and_malformed_lines() -> None:
    s = session()
    s.add(user("a"))
    good = s.add(assistant("b"))
    data = (s.lines() + b"\n" + garbage_line() + torn(good) + b"\n"
            + b"[1,2]\n" + b"   \n" + to_jsonl([good]).rstrip(b"\n"))  # last line: no newline
    scan = scan_range(data)
    assert scan.lines == 8
    assert scan.skipped_lines == 3  # garbage, torn, a non-object
    assert scan.line_types == {"user": 1, "assistant": 2}


def test_user_timestamp_ignores_a_nested_tool_result_timestamp() -> None:
    s = session()
    s.add(assistant(tool_use("BashOutput", {"bash_id": "b1"}, id="t1")))
    carrier = s.add(tool_result("t1", "running", tool_use_result=bash_result(
        "ok", timestamp="1999-01-01T00:00:00.000Z")))
    scan = scan_range(s.lines())
    assert [u.ts for u in scan.users] == [carrier["timestamp"]]


def test_user_without_timestamp_and_with_odd_envelopes() -> None:
    lines = [
        {"type": "user", "message": {"role": "user", "content": "no stamp"}},
        {"type": "user", "message": {"role": "user", "content": "x"}, "timestamp": "2026-01-01T00:00:00Z",
         "todos": [{"timestamp": "1999-01-01T00:00:00Z"}]},
    ]
    scan = scan_range(to_jsonl(lines))
    assert [u.ts for u in scan.users] == [None, "2026-01-01T00:00:00Z"]


def test_compaction_summaries_are_counted() -> None:
    s = session()
    s.add(user("start"))
    s.add(compact_boundary(150_000))
    s.add(compact_summary("what happened"))
    scan = scan_range(s.lines())
    assert [u.compact for u in scan.users] == [False, True]


@given(st.lists(st.sampled_from(["user", "assistant", "attachment", "fhs", "queue", "torn",
                                 "garbage", "blank", "spaced", "progress", "empty"]),
                max_size=25),
       st.booleans())
def test_census_matches_a_full_decode(kinds: list[str], trailing_newline: bool) -> None:
    s = session()
    chunks: list[bytes] = []
    for i, kind in enumerate(kinds):
        if kind == "user":
            chunks.append(to_jsonl([s.add(user(f"u{i} {{brace"))]))
        elif kind == "assistant":
            s.add(assistant_split("t", tool_use("Read", {"p": i})))
            chunks.append(to_jsonl(s.records[-2:]))
        elif kind == "attachment":
            chunks.append(to_jsonl([s.add(attachment("hook_success", {"stdout": "}{"}))]))
        elif kind == "fhs":
            chunks.append(to_jsonl([s.stamp(file_history_snapshot(backups={"/a": i}))]))
        elif kind == "queue":
            chunks.append(to_jsonl([s.stamp(queue_op("enqueue", "x"))]))
        elif kind == "torn":
            chunks.append(torn(s.stamp(user("cut"), commit=False)) + b"\n")
        elif kind == "garbage":
            chunks.append(garbage_line())
        elif kind == "blank":
            chunks.append(b"\n")
        elif kind == "spaced":
            chunks.append(json.dumps(s.stamp(user("sp"), commit=False)).encode() + b"\n")
        elif kind == "empty":
            chunks.append(to_jsonl([{"type": "", "data": {"type": "user"}}]))
        else:
            chunks.append(to_jsonl([{"type": "progress", "data": {"type": "user"}}]))
    data = b"".join(chunks)
    if not trailing_newline:
        data = data.rstrip(b"\n")
    types, malformed = naive_census(data)
    scan = scan_range(data)
    assert scan.line_types == types
    assert scan.skipped_lines == malformed
    assert len(scan.users) == types.get("user", 0)
    assert len(scan.assistants) == types.get("assistant", 0)
    # the map numbers its lines from the scan's count, as the newline count numbers them
    counted, mapped = build_turn_map(data, subagent=False), turn_map_of(scan, data, subagent=False)
    assert mapped.opener_lines == counted.opener_lines
    assert (mapped.draft_lines, mapped.replay_lines) == (counted.draft_lines,
                                                         counted.replay_lines)


def test_scanning_two_ranges_equals_one_scan() -> None:
    s = session()
    for i in range(30):
        s.add(user(f"q{i}"))
        s.add(assistant_split(thinking("x"), tool_use("Bash", {"command": f"ls {i}"})))
    data = s.lines() + garbage_line()
    whole = scan_range(data)
    for parts in (2, 3, 7):
        cuts = split_points(data, parts)
        merged = FileScan()
        for lo, hi in zip(cuts, cuts[1:], strict=False):
            merged.extend(scan_range(data, lo, hi, first_line=data.count(b"\n", 0, lo) + 1))
        assert merged.lines == whole.lines
        assert merged.line_types == whole.line_types
        assert merged.skipped_lines == whole.skipped_lines
        assert [u.line for u in merged.users] == [u.line for u in whole.users]
        assert [a.line for a in merged.assistants] == [a.line for a in whole.assistants]
        assert merged.opener_numbers == whole.opener_numbers


# -- tokens, tools, thinking tags ---------------------------------------------------------------


def test_tokens_count_each_api_message_once(tmp_path: Path) -> None:
    s = session()
    s.add(user("go"))
    s.add(assistant_split(thinking("plan"), "text", tool_use("Read", {"file_path": "/a"}),
                          msg_id="msg_A"))
    s.add(assistant("no id", msg_id="", usage=usage(1, 2, 3, 4)))
    s.add(assistant("no id again", msg_id="", usage=usage(1, 2, 3, 4)))
    row = run_stats(write(tmp_path, s.lines()))
    shared = s.records[1]["message"]["usage"]
    t = row.tokens[MODEL]
    assert t.input == shared["input_tokens"] + 2
    assert t.output == shared["output_tokens"] + 4
    assert t.cache_read == shared["cache_read_input_tokens"] + 6
    assert t.cache_creation == shared["cache_creation_input_tokens"] + 8
    assert row.assistant_records == 5


def test_usage_takes_the_per_field_max_of_an_id(tmp_path: Path) -> None:
    s = session()
    s.add(user("go"))
    s.add(assistant("streaming", msg_id="msg_B", usage=usage(4, 3, 100, 10)))
    s.add(assistant("final", msg_id="msg_B", usage=usage(4, 190, 100, 10)))
    s.add(assistant("replayed", msg_id="msg_B", usage=usage(0, 0, 0, 0)))  # compaction replay
    t = run_stats(write(tmp_path, s.lines())).tokens[MODEL]
    assert (t.input, t.output, t.cache_read, t.cache_creation) == (4, 190, 100, 10)


def test_models_tools_and_thinking_tags(tmp_path: Path) -> None:
    s = session()
    s.add(user("go"))
    s.add(assistant(thinking("a", tag="narration"), thinking("b", tag="narration"),
                    thinking("c"), thinking("d", tag="summary"), thinking("e", signature="%%"),
                    {"type": "tool_use", "id": "x", "input": {}}, tool_use("Bash", {"c": 1}),
                    model="claude-sonnet-4-6"))
    s.add(assistant(tool_use("Bash", {"c": 2}), usage=None))
    row = run_stats(write(tmp_path, s.lines()))
    assert row.narration_blocks == {"claude-sonnet-4-6": 2}
    assert row.unknown_thinking_tags == 1
    assert row.tools == {"(unnamed)": 1, "Bash": 2}
    assert set(row.tokens) == {"claude-sonnet-4-6", MODEL}


def test_a_row_crosses_the_pool_whole_but_for_its_transcript(tmp_path: Path) -> None:
    """A worker's row is pickled without its transcript (the parent puts it back): every
    other field, the cache stamp and the kept facts among them, arrives as it left."""
    s = _three_turns()
    s.add(assistant(thinking("a", tag="narration"), tool_use("Bash", {"c": 1}),
                    model="claude-sonnet-4-6", msg_id="msg_n"))
    row = stats_of(transcript_from_path(write(tmp_path, s.lines() + garbage_line())), Window(),
                   keep_records=True)
    assert row.stamp is not None and row.records is not None and row.skipped_lines == 1
    sent = pickle.loads(pickle.dumps(row, protocol=pickle.HIGHEST_PROTOCOL))
    assert sent.transcript is None
    sent.transcript = row.transcript
    assert sent == row
    unstamped = stats_of(row.transcript, Window(), stamped=False)
    assert unstamped.stamp is None
    unstamped.stamp = row.stamp
    unstamped.records = row.records
    assert unstamped == row


def test_a_record_without_model_counts_under_unknown(tmp_path: Path) -> None:
    lines = [{"type": "assistant", "message": {"id": "m1", "usage": {"input_tokens": 5}}}]
    row = run_stats(write(tmp_path, to_jsonl(lines)))
    assert row.tokens["(unknown)"].input == 5


def test_thinking_tag_kind_degrades_every_failure_to_plain_thinking() -> None:
    assert thinking_tag_kind(None) is None
    assert thinking_tag_kind("") is None
    assert thinking_tag_kind("not base64 !!") is None
    assert thinking_tag_kind(12) is None


# -- windows ------------------------------------------------------------------------------------


def _three_turns() -> Session:
    s = session(start=datetime(2026, 3, 1, 10, 0, tzinfo=UTC), step=60)
    for i in range(3):
        s.add(user(f"question {i}"))
        s.add(assistant(tool_use("Bash", {"command": f"t{i}"}, id=f"toolu_{i}"),
                        msg_id=f"msg_{i}"))
        s.add(tool_result(f"toolu_{i}", "done"))
        s.add(assistant(f"answer {i}", msg_id=f"msg_{i}b"))
    return s


def test_unwindowed_row(tmp_path: Path) -> None:
    s = _three_turns()
    row = run_stats(write(tmp_path, s.lines()))
    assert (row.user_records, row.assistant_records, row.turns) == (6, 6, 3)
    assert row.first_ts == s.records[0]["timestamp"]
    assert row.last_ts == s.records[-1]["timestamp"]
    assert row.tools == {"Bash": 3}


def test_time_window_bounds_the_counted_records(tmp_path: Path) -> None:
    s = _three_turns()
    path = write(tmp_path, s.lines() + to_jsonl([{"type": "user", "message": {"content": "x"}}]))
    since = datetime(2026, 3, 1, 10, 4, tzinfo=UTC)  # records 4.. of 12 (one per minute)
    until = datetime(2026, 3, 1, 10, 8, tzinfo=UTC)
    row = run_stats(path, Window(since=since, until=until))
    assert row.user_records + row.assistant_records == 5
    assert row.first_ts == "2026-03-01T10:04:00.000Z"
    assert row.last_ts == "2026-03-01T10:08:00.000Z"
    assert row.turns == 2
    assert row.lines == 13  # a file fact: never windowed
    assert sum(row.line_types.values()) == 13


def test_turn_window_uses_stable_indices_and_ands_with_time(tmp_path: Path) -> None:
    path = write(tmp_path, _three_turns().lines())
    last = run_stats(path, Window(turns=parse_range("-1")))
    assert (last.turns, last.user_records, last.tools) == (1, 2, {"Bash": 1})
    assert last.first_ts == "2026-03-01T10:08:00.000Z"
    both = run_stats(path, Window(turns=parse_range("1..2"),
                                  until=datetime(2026, 3, 1, 10, 5, tzinfo=UTC)))
    assert (both.turns, both.user_records + both.assistant_records) == (1, 2)
    assert run_stats(path, Window(turns=parse_range("7"))).turns == 0


def test_aggregate_without_a_turn_map_counts_one_turn() -> None:
    s = session()
    s.add(user("x"))
    scan = scan_range(s.lines())
    t = transcript_from_path(Path(f"/p/{SID}.jsonl"))
    assert aggregate(t, scan, None, Window()).turns == 1
    assert aggregate(t, scan, build_turn_map(s.lines(), subagent=False), Window()).turns == 1


@pytest.mark.parametrize("cores", [2, 4])
def test_the_forked_path_gives_the_same_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            cores: int) -> None:
    path = write(tmp_path, _three_turns().lines() + garbage_line())
    plain = run_stats(path, Window(turns=parse_range("1..")))
    monkeypatch.setattr(stats_engine, "SPLIT_MIN_BYTES", 0)
    forked = stats_of(transcript_from_path(path), Window(turns=parse_range("1..")),
                      cores=cores)
    assert forked == plain
    assert (forked.turns, forked.skipped_lines) == (2, 1)


def test_an_unreadable_transcript_is_a_row_with_an_error(tmp_path: Path) -> None:
    row = run_stats(tmp_path / "gone" / f"{SID}.jsonl")
    assert row.error and "cannot read" in row.error


def test_empty_file(tmp_path: Path) -> None:
    row = run_stats(write(tmp_path, b""))
    assert (row.lines, row.turns, row.user_records, row.first_ts) == (0, 0, 0, None)


def test_the_span_is_taken_over_readable_timestamps(tmp_path: Path) -> None:
    """A trimmed timestamp sorted past every real one as a string and became the session's
    last instant (JSON `last_utc: "[trimmed for fixture]"`, `last_local: null`)."""
    s = session(start=datetime(2026, 2, 1, 9, 0, tzinfo=UTC))
    s.add(user("go"))
    s.add(assistant("working"))
    s.add(assistant("trimmed"))
    s.records[-1]["timestamp"] = "[trimmed for fixture]"
    row = run_stats(write(tmp_path, s.lines()))
    assert row.first_ts == s.records[0]["timestamp"]
    assert row.last_ts == s.records[1]["timestamp"]


def test_the_span_orders_instants_not_strings_once_a_stamp_is_unreadable(
        tmp_path: Path) -> None:
    s = session(start=datetime(2026, 2, 1, 9, 0, tzinfo=UTC))
    s.add(user("go"))
    s.add(assistant("an offset that sorts late as a string but is the earliest instant"))
    s.add(assistant("garbage"))
    s.records[1]["timestamp"] = "2026-02-01T09:59:00+02:00"  # 07:59 UTC
    s.records[2]["timestamp"] = "garbage"
    row = run_stats(write(tmp_path, s.lines()))
    assert row.first_ts == "2026-02-01T09:59:00+02:00"
    assert row.last_ts == s.records[0]["timestamp"]


def test_the_span_orders_an_offset_timestamp_by_its_instant(tmp_path: Path) -> None:
    """All readable, but `12:00+05:30` (06:30 UTC) sorted after `10:00Z` as a string and
    the span ran backwards (`10:00:00 → 06:30:00 (0s)`)."""
    s = session(start=datetime(2026, 1, 1, 10, 0, tzinfo=UTC))
    s.add(user("go"))
    s.add(assistant("reply"))
    s.records[1]["timestamp"] = "2026-01-01T12:00:00+05:30"
    row = run_stats(write(tmp_path, s.lines()))
    assert (row.first_ts, row.last_ts) == ("2026-01-01T12:00:00+05:30",
                                           s.records[0]["timestamp"])


@pytest.mark.parametrize(("odd", "latest"), [
    ("2026-01-01 23:00:00.000Z", True),  # a space for the T: sorts before every T
    ("2026-01-01t09:00:00.000Z", False),  # a lowercase t: sorts after every T
    ("2026-W01-4T09:00:00.000Z", False),  # an ISO week date (2026-01-01): sorts after
    ("2026-01-01T10:00:00,900Z", True),  # a decimal comma: sorts before the dot
])
@pytest.mark.parametrize("window", [Window(), Window(turns=parse_range(".."))])
def test_the_span_orders_every_readable_24_char_z_stamp_by_its_instant(
        tmp_path: Path, odd: str, latest: bool, window: Window) -> None:
    """24 characters ending in Z, readable, but not Claude Code's one shape: ordered as a
    string, the span ran backwards (`first 23:00` `last 10:00` for a space separator),
    whole file and windowed alike."""
    s = session(start=datetime(2026, 1, 1, 10, 0, tzinfo=UTC))
    s.add(user("go"))
    s.add(assistant("written by another tool"))
    s.records[1]["timestamp"] = odd
    row = run_stats(write(tmp_path, s.lines()), window)
    user_ts = s.records[0]["timestamp"]
    assert user_ts == "2026-01-01T10:00:00.000Z"
    assert (row.first_ts, row.last_ts) == ((user_ts, odd) if latest else (odd, user_ts))


@pytest.mark.parametrize("window", [Window(), Window(since=datetime(2026, 1, 1, 10, 25,
                                                                   tzinfo=UTC))])
def test_a_user_stamp_read_off_the_bytes_keeps_its_non_ascii_characters(
        tmp_path: Path, window: Window) -> None:
    """A user record's timestamp that is not ASCII is read off the bytes: it was decoded
    as ASCII with replacement (`é` -> two U+FFFD), so a stamp the decoder reads as an
    instant (any one character may stand for the T) named none, and the record fell out
    of the span and of every time window."""
    odd = "2026-01-01\u00e910:30:00.000Z"
    s = session(start=datetime(2026, 1, 1, 10, 0, tzinfo=UTC))
    s.add(assistant("first"))
    s.add(user("written by another tool"))
    s.records[1]["timestamp"] = odd
    row = run_stats(write(tmp_path, s.lines()), window)
    assert row.user_records == 1
    assert row.last_ts == odd


def _orjson_fact(data: bytes) -> stats_engine.AssistantFact | None:
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    if isinstance(obj, dict) and obj.get("type") == "assistant":
        return stats_engine.assistant_fact(obj, 1)
    return None


_ODD_ASSISTANT_LINES = {
    "duplicate usage key": b'{"type":"assistant","message":{"id":"a","usage":'
                           b'{"output_tokens":5,"output_tokens":9}}}',
    "duplicate message": b'{"type":"assistant","message":{"id":"a","usage":{"output_tokens":5}},'
                         b'"message":{"id":"b"}}',
    "int beyond 64 bits": b'{"type":"assistant","message":{"id":"a","usage":'
                          b'{"output_tokens":99999999999999999999999,"input_tokens":'
                          b'-9223372036854775809,"cache_read_input_tokens":18446744073709551615}}}',
    "NaN literal": b'{"type":"assistant","message":{"id":"a","usage":{"output_tokens":NaN}}}',
    "lone surrogate escape": b'{"type":"assistant","message":{"id":"a","content":[{"type":"text",'
                             b'"text":"\\ud800"}],"usage":{"output_tokens":3}}}',
    "float count": b'{"type":"assistant","message":{"id":"a","usage":{"output_tokens":3.0}}}',
    "bool count": b'{"type":"assistant","message":{"id":"a","usage":{"output_tokens":true}}}',
    "duplicate tool name": b'{"type":"assistant","message":{"content":[{"type":"tool_use",'
                           b'"name":"A","name":"B"}]}}',
    "content list then string": b'{"type":"assistant","message":{"content":[{"type":"tool_use",'
                                b'"name":"A"}],"content":"x"}}',
    "type rewritten": b'{"type":"assistant","type":"user","message":{"id":"a"}}',
    "block no object": b'{"type":"assistant","message":{"content":["x",{"type":"tool_use"}]}}',
    "message no object": b'{"type":"assistant","message":[1]}',
    "invalid utf-8 in text": b'{"type":"assistant","message":{"content":[{"type":"text","text":'
                             b'"\xff"}],"usage":{"output_tokens":3}}}',
    "trailing garbage": b'{"type":"assistant","message":{"id":"a"}} x',
    "usage null": b'{"type":"assistant","message":{"id":"a","usage":null}}',
    "usage a number": b'{"type":"assistant","message":{"id":"a","usage":7}}',
    "usage a list": b'{"type":"assistant","message":{"id":"a","usage":[1,2]}}',
    "usage a string": b'{"type":"assistant","message":{"id":"a","usage":"x"}}',
    "usage empty": b'{"type":"assistant","message":{"id":"a","usage":{}}}',
    "usage with nested objects": b'{"type":"assistant","message":{"id":"a","usage":'
                                 b'{"cache_creation":{"input_tokens":50},"input_tokens":4,'
                                 b'"server_tool_use":{"output_tokens":9},"service_tier":"x"}}}',
    "usage count null": b'{"type":"assistant","message":{"id":"a","usage":{"input_tokens":null,'
                        b'"output_tokens":{"n":1},"cache_read_input_tokens":[3]}}}',
    "usage twice": b'{"type":"assistant","message":{"id":"a","usage":{"input_tokens":4},'
                   b'"usage":null}}',
    "model empty": b'{"type":"assistant","message":{"model":"","id":"a"}}',
    "model null": b'{"type":"assistant","message":{"model":null,"id":"a"}}',
    "model a number": b'{"type":"assistant","message":{"model":4,"id":"a"}}',
    "id empty": b'{"type":"assistant","message":{"model":"m","id":""}}',
    "id a number": b'{"type":"assistant","message":{"model":"m","id":7}}',
    "timestamp a number": b'{"type":"assistant","timestamp":7,"message":{"id":"a"}}',
    "timestamp null": b'{"type":"assistant","timestamp":null,"message":{"id":"a"}}',
    "message null": b'{"type":"assistant","timestamp":"t","message":null}',
    "tool name a number": b'{"type":"assistant","message":{"content":[{"type":"tool_use",'
                          b'"name":5}]}}',
    "content empty": b'{"type":"assistant","message":{"content":[],"usage":{"input_tokens":1}}}',
    "count at 64 bits": b'{"type":"assistant","message":{"id":"a","usage":{"input_tokens":'
                        b'18446744073709551615,"output_tokens":-9223372036854775808}}}',
}


@pytest.mark.parametrize("data", list(_ODD_ASSISTANT_LINES.values()),
                         ids=list(_ODD_ASSISTANT_LINES))
def test_the_struct_reader_agrees_with_orjson_on_odd_lines(data: bytes) -> None:
    """stats reads assistant lines with msgspec structs; every fact equals what the orjson
    decode of the same line gives (None where orjson refuses the line)."""
    assert stats_engine.read_assistant(data, 1) == _orjson_fact(data)



# An assistant line with any value where stats reads one: what Claude Code writes, and the
# values the strict structs refuse (an empty or null model, a float, bool, null, huge or
# string count, a number timestamp...), each key sometimes written twice.
_VALUES = st.one_of(
    st.sampled_from([None, "", 0, 3.0, True, [], {}, 2**64, -(2**63) - 1, 10**30]),
    st.sampled_from([None, True, False, "", "x", "claude-opus-4", 0, -1, 3.0, 1.5, [], {},
                     [1], {"n": 1}, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63),
                     -(2**63) - 1, 10**30, "2026-01-05T10:00:00.000Z"]),
    st.integers(), st.text(max_size=4))
# sampled, not drawn as integers: hypothesis draws 0 far more often than one time in n
_ONE_IN_TEN = st.sampled_from([False] * 9 + [True])
_ONE_IN_SIX = st.sampled_from([False] * 5 + [True])
_COUNT_KEYS = ["input_tokens", "output_tokens", "cache_read_input_tokens",
               "cache_creation_input_tokens", "cache_creation", "service_tier"]


def _member(draw: st.DrawFn, key: str, value: object) -> list[str]:
    """One ``"key":value`` member (sometimes twice, the second with another value)."""
    out = [f"{json.dumps(key)}:{json.dumps(value)}"]
    if draw(_ONE_IN_TEN):
        out.append(f"{json.dumps(key)}:{json.dumps(draw(_VALUES))}")
    return out


def _obj(draw: st.DrawFn, members: dict[str, object]) -> str:
    parts: list[str] = []
    for key, value in members.items():
        if not draw(_ONE_IN_SIX):  # a key is sometimes absent
            parts += _member(draw, key, value)
    return "{" + ",".join(parts) + "}"


_FIELDS = ["timestamp", "model", "id", "content", "name", "signature", *_COUNT_KEYS]


@st.composite
def _assistant_lines(draw: st.DrawFn) -> bytes:
    # what Claude Code writes, but for one or two fields that hold any value
    odd = draw(st.sets(st.sampled_from(_FIELDS), max_size=2))

    def value(name: str, v: object) -> object:
        return draw(_VALUES) if name in odd else v

    usage_obj = _obj(draw, {k: value(k, draw(st.integers(0, 10**6))) for k in _COUNT_KEYS})
    blocks = []
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["text", "tool_use", "thinking", "image", 7, None]))
        blocks.append(_obj(draw, {"type": kind, "name": value("name", "Read"),
                                  "text": "hi \u00e9", "signature": value("signature", "c2ln")}))
    content = ("[" + ",".join(blocks) + "]" if "content" not in odd
               else json.dumps(draw(_VALUES)))
    message = _obj(draw, {"model": value("model", "claude-opus-4"), "id": value("id", "msg_1"),
                          "usage": None, "content": None})
    message = message.replace('"usage":null', f'"usage":{usage_obj}', 1).replace(
        '"content":null', f'"content":{content}', 1)
    if draw(_ONE_IN_TEN):
        message = json.dumps(draw(_VALUES))
    line = _obj(draw, {"type": "assistant",
                       "timestamp": value("timestamp", "2026-01-05T10:00:00.000Z"),
                       "message": None}).replace('"message":null', f'"message":{message}', 1)
    return line.encode()


@settings(max_examples=500)
@given(_assistant_lines())
def test_the_strict_and_loose_readers_agree_with_orjson_on_any_assistant_line(
        data: bytes) -> None:
    """The strict structs read a line only when they give what orjson's decode gives;
    with ``utf8`` (simdjson accepted the line: no integer beyond 64 bits) likewise."""
    want = _orjson_fact(data)
    assert stats_engine.read_assistant(data, 1) == want
    import simdjson

    try:
        simdjson.Parser().parse(data)
    except (ValueError, RuntimeError):
        return
    assert stats_engine.read_assistant(data, 1, True) == want


def test_a_usual_assistant_line_is_read_by_the_strict_structs(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The strict shape is not silently bypassed (every line read the loose way would
    give the same facts, slowly)."""
    s = session()
    s.add(assistant(thinking("hm"), usage=usage(3, 5)))
    s.add(assistant(tool_use("Read", {"p": 1}), usage=usage(3, 5)))
    lines = [json.dumps(r, separators=(",", ":")).encode() for r in s.records]

    def refuse(*_: object) -> None:
        raise AssertionError("read the loose way")

    monkeypatch.setattr(stats_engine, "_read_loose", refuse)
    facts = [stats_engine.read_assistant(line, n, True) for n, line in enumerate(lines, 1)]
    assert [f.tools for f in facts] == [(), ("Read",)]  # type: ignore[union-attr]
    assert facts[0].usage == (3, 5, 18000, 900)  # type: ignore[union-attr]


# -- the unwindowed aggregate (C-level passes) against the record-by-record walk ----------

_STAMPS = st.one_of(st.none(), st.sampled_from([
    "2026-01-05T10:00:00.000Z", "2026-01-05T09:59:59.999Z", "2026-01-06T00:00:00.000Z",
    "2026-01-05T10:00:00.000+01:00", "2026-01-05T10:00:00Z", "[trimmed]", "",
    "0000-00-00T00:00:00.000Z", "2026-01-05T23:59:60.000Z"]))
_USAGES = st.one_of(st.none(), st.tuples(*[st.integers(0, 50)] * 4))


@st.composite
def _scans(draw: st.DrawFn) -> tuple[FileScan, object]:
    kinds = draw(st.lists(st.sampled_from(["user", "assistant", "other"]), max_size=30))
    scan = FileScan(lines=len(kinds))
    for line, kind in enumerate(kinds, 1):
        if kind == "user":
            scan.users.append(stats_engine.UserFact(line, draw(_STAMPS), draw(st.booleans())))
        elif kind == "assistant":
            scan.assistants.append(stats_engine.AssistantFact(
                line, draw(_STAMPS), draw(st.sampled_from(["m1", "m2", "(unknown)"])),
                draw(st.sampled_from([None, "msg_a", "msg_b", "msg_c"])), draw(_USAGES),
                tuple(draw(st.lists(st.sampled_from(["Read", "Bash"]), max_size=2))),
                draw(st.integers(0, 2)), draw(st.integers(0, 1))))
    if not draw(st.booleans()):
        return scan, None
    user_lines = [u.line for u in scan.users]
    openers = sorted(draw(st.sets(st.sampled_from(user_lines))) if user_lines else set())
    drafts = set(draw(st.sets(st.sampled_from(user_lines)))) - set(openers) if user_lines \
        else set()
    from pysift.core.turns import TurnMap

    return scan, TurnMap(opener_lines=openers, draft_lines=drafts,
                         has_records=draw(st.booleans()))


@given(_scans())
def test_the_unwindowed_aggregate_equals_the_record_walk(made: tuple[FileScan, object]) -> None:
    scan, turn_map = made
    t = transcript_from_path(Path(f"/h/projects/-w/{SID}.jsonl"))
    fast = stats_engine.whole_file(t, scan, turn_map)  # type: ignore[arg-type]
    walk = stats_engine.windowed(t, scan, turn_map, Window())  # type: ignore[arg-type]
    assert fast.dump() == walk.dump()
    # plain tuples (what a worker hands back) read the same
    scan.users = list(map(tuple, scan.users))  # type: ignore[arg-type]
    scan.assistants = list(map(tuple, scan.assistants))  # type: ignore[arg-type]
    assert stats_engine.whole_file(t, scan, turn_map).dump() == walk.dump()  # type: ignore[arg-type]
