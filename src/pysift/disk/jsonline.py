"""One JSONL line's bytes -> its JSON value, read the same wherever a line is read.

orjson first; a line it refuses for a lone surrogate escape (``"\\ud83d"``: JSON's
grammar allows one, Node's JSON.stringify writes one when a string is cut inside a
surrogate pair, orjson refuses it) is read by the stdlib ``json``. Shared by the
transcript decoder (``core.decode``), the elicitation sidecar (``core.sidecar``) and the
sidecar sniff and head reads of ``disk.layout``: a cut emoji once hid a prompt from
search while the sidecar still dropped its line.

The way back is ``compact_json``: a value as Claude Code writes it (compact, keys in
order, non-ASCII kept), with the stdlib again for what orjson refuses to write (the same
lone surrogate, an int beyond 64 bits, a value nested deeper than orjson's 254 levels of
output). A tool_use's input and every dumped field are rendered through it, so search,
show and the block ids hash one text.

Nesting (decided, twenty-first session): orjson refuses a line nested deeper than
``MAX_DEPTH`` (1024) levels, so such a line is malformed, and the stdlib reading keeps the
same limit (it counts the line's depth first), so whether a line is a record never
depends on a lone surrogate escape or on how deep the Python stack stands when it is read.
The stdlib's parser and writer recurse in C once per level against Python's recursion
limit (1000): both run with ``MAX_DEPTH`` levels of headroom (``deep_enough``), so every
value a line can decode to can also be written back. What still cannot be written (no
JSON value) gets ``UNWRITABLE``, never an exception.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import accumulate
from typing import Any

import orjson

#: A ``\uD800``-``\uDFFF`` escape (any hex case).
SURROGATE_ESCAPE = rb"\\u[dD][89abcdefABCDEF]"
_SURROGATE_ESCAPE = re.compile(SURROGATE_ESCAPE)

JSONDecodeError = orjson.JSONDecodeError  # a ValueError, as the stdlib's

#: The deepest nesting orjson reads (every array and object counts, the outermost too).
MAX_DEPTH = 1024
#: Recursion headroom for a value that deep: the stdlib's JSON parser and writer recurse
#: once per level, pickle and ``output.surrogates.json_safe`` twice.
RECURSION_HEADROOM = 2 * MAX_DEPTH + 64
#: What ``compact_json`` gives for a value no JSON writer could write.
UNWRITABLE = "[value not writable as JSON]"


def loads(line: bytes) -> Any:
    """The JSON value of ``line``; raises ``JSONDecodeError`` when it is not JSON."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError as refused:
        return refused_by_orjson(line, refused)


def refused_by_orjson(line: bytes, refused: orjson.JSONDecodeError) -> Any:
    """The stdlib's reading of a line orjson ``refused``, when it holds a surrogate escape;
    else ``refused`` is raised again. (A hot caller keeps ``orjson.loads`` inline and calls
    this in its ``except``.) The stdlib refuses what orjson would besides (``NaN``,
    ``Infinity``, invalid UTF-8) and keeps the lone surrogate in the string (the matcher
    and the writers cope, SPEC §5)."""
    if _SURROGATE_ESCAPE.search(line) is None:
        raise refused
    import json

    try:
        text = bytes(line).decode("utf-8")
        if nesting_depth(text) > MAX_DEPTH:  # orjson's limit, whatever refused the line
            raise refused
        with deep_enough():
            return json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError):  # JSONDecodeError, UnicodeDecodeError: ValueErrors
        raise refused from None


# A JSON string (escapes included), and a run of text holding no bracket.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NO_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def nesting_depth(text: str) -> int:
    """How deep the arrays and objects of the JSON ``text`` nest (0 for a scalar), the
    brackets inside strings not counted. Exact for valid JSON; for anything else some
    number (the parse that follows refuses such a text anyway)."""
    brackets = _NO_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


@contextmanager
def deep_enough() -> Iterator[None]:
    """Python's recursion limit raised by ``RECURSION_HEADROOM`` for the block."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(limit + RECURSION_HEADROOM)
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def spelled(text: str) -> bytes:
    """``text`` as a needle for the bytes a line holds it in: UTF-8, and a lone surrogate
    (no UTF-8 spells one) as the ``\\udXXX`` escape Node's JSON.stringify writes for it.
    An id or a uuid read back from a line can hold one; a strict encode raised."""
    return text.encode("utf-8", "backslashreplace")


def compact_json(value: object) -> str:
    """Compact JSON in insertion order, non-ASCII kept: a byte-faithful echo of CC's lines.
    Total: a value no writer can write (nothing a line decodes to) is ``UNWRITABLE``."""
    try:
        return orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):  # an int beyond 64 bits, a deep nest
        import json

        try:
            with deep_enough():
                return json.dumps(value, separators=(",", ":"), ensure_ascii=False,
                                  default=str)
        except (RecursionError, ValueError):  # deeper than any line; a circular value
            return UNWRITABLE
