"""disk.jsonline: a line's JSON value read, and a value written back as Claude Code writes it."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pysift.disk.jsonline import compact_json, loads


def test_a_value_is_written_compact_in_insertion_order_with_its_non_ascii_kept() -> None:
    assert compact_json({"z": 1, "a": ["é", None, True], "n": 1.5}) == (
        '{"z":1,"a":["é",null,true],"n":1.5}')


@pytest.mark.parametrize(("value", "text"), [
    ({"id": 2**64}, '{"id":18446744073709551616}'),  # beyond orjson's 64 bits
    ({"cut": "x\ud83d"}, '{"cut":"x\ud83d"}'),  # a lone surrogate, as the reader kept it
])
def test_what_orjson_refuses_to_write_the_stdlib_writes(value: Any, text: str) -> None:
    assert compact_json(value) == text


def test_a_line_read_with_a_lone_surrogate_writes_back_the_same_string() -> None:
    value = loads(b'{"text":"cut \\ud83d here"}')
    assert compact_json(value) == '{"text":"cut \ud83d here"}'


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.text(max_size=8)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=3),
    max_leaves=10)


@given(json_values)
def test_every_json_value_reads_back_equal(value: Any) -> None:
    import json

    assert json.loads(compact_json(value)) == value
