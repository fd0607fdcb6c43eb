"""One JSONL line's bytes -> its JSON value, read the same wherever a line is read.

orjson first; a line it refuses for a lone surrogate escape (``"\\ud83d"``: JSON's
grammar allows one, Node's JSON.stringify writes one when a string is cut inside a
surrogate pair, orjson refuses it) is read by the stdlib ``json``. Shared by the
transcript decoder (``core.decode``), the elicitation sidecar (``core.sidecar``) and the
sidecar sniff and head reads of ``disk.layout``: a cut emoji once hid a prompt from
search while the sidecar still dropped its line.

The way back is ``compact_json``: a value as Claude Code writes it (compact, keys in
order, non-ASCII kept), with the stdlib again for what orjson refuses to write (the same
lone surrogate, an int beyond 64 bits). A tool_use's input and every dumped field are
rendered through it, so search, show and the block ids hash one text.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

#: A ``\uD800``-``\uDFFF`` escape (any hex case).
SURROGATE_ESCAPE = rb"\\u[dD][89abcdefABCDEF]"
_SURROGATE_ESCAPE = re.compile(SURROGATE_ESCAPE)

JSONDecodeError = orjson.JSONDecodeError  # a ValueError, as the stdlib's


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
        return json.loads(bytes(line).decode("utf-8"), parse_constant=_refuse_constant)
    except ValueError:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise refused from None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def compact_json(value: object) -> str:
    """Compact JSON in insertion order, non-ASCII kept: a byte-faithful echo of CC's lines."""
    try:
        return orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):  # e.g. an int beyond 64 bits
        import json

        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
