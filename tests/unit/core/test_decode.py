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
