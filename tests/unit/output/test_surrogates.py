"""Strings UTF-8 cannot encode, as the writers spell them (SPEC §5)."""

from __future__ import annotations

import orjson

from pysift.output.envelope import dumps
from pysift.output.surrogates import escaped, json_safe, register_text_errors


def test_an_escaped_byte_reads_backslash_x_and_a_lone_surrogate_backslash_u() -> None:
    assert escaped("/tmp/h\udcff") == "/tmp/h\\xff"  # os.fsdecode(b"/tmp/h\xff")
    assert escaped("cut emoji \ud83d here") == "cut emoji \\ud83d here"
    assert escaped("plain 😀") == "plain 😀"


def test_json_safe_reaches_keys_and_nested_values_and_leaves_the_rest() -> None:
    row = {"path": "a\udcff", "hits": [{"k\udc80": ("x\ud83d", 1)}], "n": None}
    assert json_safe(row) == {"path": "a\\xff", "hits": [{"k\\x80": ["x\\ud83d", 1]}],
                              "n": None}


def test_an_envelope_line_holding_a_surrogate_is_valid_utf8_json() -> None:
    line = dumps({"kind": "header", "path": "/tmp/h\udcff"})
    assert orjson.loads(line) == {"kind": "header", "path": "/tmp/h\\xff"}
    assert dumps({"kind": "header"}) == b'{"kind":"header"}\n'


def test_text_writes_the_byte_back_and_spells_a_lone_surrogate() -> None:
    errors = register_text_errors()
    assert "a\udcff \ud83d ok".encode("utf-8", errors) == b"a\xff \\ud83d ok"
