"""output.envelope.dumps: every row is written, however deep a value it carries."""

from __future__ import annotations

import json

import orjson
import pytest

from pysift.disk.jsonline import deep_enough
from pysift.output.envelope import dumps


def _deep(depth: int) -> object:
    return orjson.loads(b"[" * depth + b'{"z":1,"a":1.5}' + b"]" * depth)


@pytest.mark.parametrize("depth", [300, 1023])
def test_a_value_deeper_than_orjson_writes_is_written_keys_sorted(depth: int) -> None:
    """orjson writes 254 levels, and its refusal sent the row to a second orjson call
    that refused it again (a line may nest 1024 levels)."""
    row = {"kind": "x", "value": _deep(depth), "b": "é"}
    line = dumps(row)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    with deep_enough():  # the test's own reading
        assert json.loads(line) == row
    assert line.startswith(b'{"b":"\xc3\xa9","kind":"x","value":[[')  # sorted, UTF-8


def test_a_deep_value_holding_a_lone_surrogate_is_spelled_out() -> None:
    row = {"kind": "x", "value": [_deep(600), "cut \ud83d"]}
    assert json.loads(dumps(row))["value"][1] == "cut \\ud83d"
