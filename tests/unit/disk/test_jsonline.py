"""disk.jsonline: a line's JSON value read, and a value written back as Claude Code writes it."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pysift.disk.jsonline import JSONDecodeError, compact_json, loads


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


# -- nesting (twenty-first session): a line orjson reads is a record wherever it is read,
# and every value it decodes to is written back; deeper lines are malformed everywhere --

def _nest(depth: int, leaf: bytes, shape: str) -> bytes:
    """A JSON object nested ``depth`` levels (its own braces counted): arrays, objects or
    both in turn below the top one."""
    out, close = b"", b""
    for level in range(depth - 1):
        if shape == "arr" or (shape == "mixed" and level % 2):
            out, close = out + b"[", b"]" + close
        else:
            out, close = out + b'{"k":', b"}" + close
    return b'{"type":"x","v":' + out + leaf + close + b"}"


def _at_stack_depth(frames: int, call: Any) -> Any:
    """``call()`` run ``frames`` Python frames deeper than here: a reader's verdict must
    not depend on how deep the caller's stack stands."""
    if frames <= 0:
        return call()
    return _at_stack_depth(frames - 1, call)


def _verdict(line: bytes) -> object:
    try:
        return loads(line)
    except JSONDecodeError:
        return "refused"


@pytest.mark.parametrize("shape", ["arr", "obj", "mixed"])
@pytest.mark.parametrize("stack", [0, 800])
def test_a_lone_surrogate_line_is_read_to_orjsons_depth_and_no_deeper(shape: str,
                                                                       stack: int) -> None:
    """The stdlib's reading of a cut emoji keeps orjson's limit (a RecursionError escaped
    from ``list``, ``stats``, ``show`` and ``status``, and at 1000 levels a line was a
    record or not depending on the caller's stack)."""
    for depth in (1000, 1024):
        line = _nest(depth, b'"cut \\ud83d"', shape)
        value = _at_stack_depth(stack, lambda line=line: loads(line))
        assert value["type"] == "x"
        assert orjson.loads(_nest(depth, b'"cut"', shape))  # orjson reads that depth too
    for depth in (1025, 1100, 5000):
        line = _nest(depth, b'"cut \\ud83d"', shape)
        assert _at_stack_depth(stack, lambda line=line: _verdict(line)) == "refused"
        with pytest.raises(orjson.JSONDecodeError):
            orjson.loads(_nest(depth, b'"cut"', shape))


@pytest.mark.parametrize("stack", [0, 800])
def test_every_value_a_line_decodes_to_is_written_back(stack: int) -> None:
    """orjson writes 254 levels; deeper values went to the stdlib writer, which raised
    RecursionError from about 980 levels (search and show of a deep tool input)."""
    for depth in (254, 255, 600, 985, 1000, 1024):
        for leaf in (b"1.5", b'"cut \\ud83d"'):
            line = _nest(depth, leaf, "mixed")
            value = loads(line)
            text = _at_stack_depth(stack, lambda value=value: compact_json(value))
            assert text.encode("utf-8", "surrogatepass") == line.replace(
                b"\\ud83d", "\ud83d".encode("utf-8", "surrogatepass"))


def test_what_no_writer_can_write_is_a_placeholder_never_an_exception() -> None:
    from pysift.disk.jsonline import UNWRITABLE

    loop: list[Any] = [2**70]
    loop.append(loop)  # circular: no JSON value is
    assert compact_json(loop) == UNWRITABLE


@st.composite
def deep_lines(draw: st.DrawFn) -> tuple[bytes, int]:
    depth = draw(st.integers(1000, 1040))
    opens = draw(st.lists(st.sampled_from([b"[", b'{"a":']), min_size=depth - 1,
                          max_size=depth - 1))
    close = b"".join(b"]" if o == b"[" else b"}" for o in reversed(opens))
    leaf = draw(st.sampled_from([b'"\\udc00"', b'"x\\ud800y"', b"[]", b"{}", b'"]}"']))
    text = b'{"t":' + b"".join(opens) + leaf + close + b"}"
    extra = leaf in (b"[]", b"{}")
    return text, depth + extra


@given(deep_lines())
def test_deep_lines_read_as_orjson_reads_them_and_write_back(case: tuple[bytes, int]) -> None:
    from pysift.disk.jsonline import MAX_DEPTH, nesting_depth

    line, depth = case
    assert nesting_depth(line.decode()) == depth
    value = _verdict(line)
    assert (value == "refused") == (depth > MAX_DEPTH)
    if value != "refused":
        assert compact_json(value).encode("utf-8", "surrogatepass") == line.replace(
            b"\\udc00", "\udc00".encode("utf-8", "surrogatepass")).replace(
            b"\\ud800", "\ud800".encode("utf-8", "surrogatepass"))
