"""Record decoding: tolerant of any JSON object, counting what is not one."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from pysift.core.decode import Tally, decode

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=20,
)
objects = st.dictionaries(
    st.sampled_from(["type", "uuid", "parentUuid", "timestamp", "message", "content", "cwd",
                     "isMeta", "toolUseResult", "subtype", "version"]) | st.text(max_size=6),
    json_values, max_size=8)


@given(objects)
def test_prop_any_json_object_decodes_and_reads_without_raising(obj: dict) -> None:
    tally = Tally()
    rec = decode(json.dumps(obj).encode(), 1, tally)
    assert rec is not None and tally.malformed == 0
    # every accessor is total on odd shapes
    for name in ("type", "uuid", "parent_uuid", "timestamp", "cwd", "version", "git_branch",
                 "is_meta", "is_compact_summary", "subtype", "message", "role", "content",
                 "model", "message_id", "usage", "tool_use_result", "slug"):
        getattr(rec, name)
    rec.blocks()


def test_blank_lines_are_not_malformed() -> None:
    tally = Tally()
    assert decode(b"   \t", 3, tally) is None
    assert tally.malformed == 0


def test_torn_garbage_and_non_objects_are_counted() -> None:
    tally = Tally()
    for line in (b'{"type":"user","mess', b"garbage", b"[1,2]", b'{"a":}', b"\x00\xff{"):
        assert decode(line, 1, tally) is None
    assert tally.malformed == 5


def test_spaced_json_and_crlf_decode() -> None:
    rec = decode(b'{"type": "user", "message": {"role": "user", "content": "hi"}}\r', 7)
    assert rec is not None and rec.role == "user" and rec.line == 7


def test_a_lone_surrogate_escape_decodes_as_the_stdlib_reads_it() -> None:
    """Node's JSON.stringify writes a cut emoji as a lone ``\\ud83d``: valid JSON that orjson
    refuses, so the prompt vanished from search, show and list (stats counted it)."""
    for escape, char in ((b"\\ud83d", "\ud83d"), (b"\\uD83D", "\ud83d"), (b"\\uDe00", "\ude00")):
        tally = Tally()
        rec = decode(b'{"type":"user","message":{"role":"user","content":"cut emoji '
                     + escape + b' here"},"uuid":"u1"}', 1, tally)
        assert rec is not None and tally.malformed == 0
        assert rec.raw["message"]["content"] == f"cut emoji {char} here" and rec.uuid == "u1"


def test_a_line_holding_a_lone_surrogate_is_still_malformed_for_other_faults() -> None:
    tally = Tally()
    for line in (b'{"type":"user","content":"\\ud83d", "n":}',    # bad grammar
                 b'{"type":"user","content":"\\ud83d","n":NaN}',   # orjson refuses NaN too
                 b'{"type":"user","content":"\\ud83d \xff"}'):     # not UTF-8
        assert decode(line, 1, tally) is None
    assert tally.malformed == 3


def test_a_line_nested_deeper_than_orjson_reads_is_malformed_with_or_without_a_surrogate(
        ) -> None:
    """1030 levels with a lone surrogate escape went to the stdlib parser, whose
    RecursionError crashed list, stats, show, status and wait; without the escape orjson
    called the line malformed."""
    from pysift.core.decode import line_decodes

    for leaf in (b'"\\ud800"', b'"ok"'):
        for depth, verdict in ((1023, True), (1030, False)):
            line = b'{"type":"system","x":' + b"[" * depth + leaf + b"]" * depth + b"}"
            tally = Tally()
            assert (decode(line, 1, tally) is not None) is verdict
            assert tally.malformed == (not verdict)
            assert line_decodes(line) is verdict


def test_line_decodes_takes_the_decoders_verdict() -> None:
    from pysift.core.decode import line_decodes

    for line in (b'{"a":1}', b'  {"a":1}\r', b'\xef\xbb\xbf{"a":1}', b'{"a":1', b"", b"  ",
                 b'{"a":"\xff"}', b'{"a":"\\ud800"}', b'[{"a":1}]', b'{"a":1} {"b":2}',
                 b'{"a":NaN}', b'{"a":1e400}', b'{"a":123456789012345678901234567890}'):
        assert line_decodes(line) is (decode(line, None) is not None), line
