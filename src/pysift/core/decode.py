"""Line bytes -> ``Record``; malformed lines are counted in a ``Tally``, never raised.

Per the port decisions: a blank or whitespace-only line is not malformed; a non-blank
line that is not ``{...}``-framed, does not parse, or parses to a non-object is
malformed and counted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson

from pysift.model.record import Record

_WS = b" \t\r\n"
#: A ``\uD800``-``\uDFFF`` escape (any hex case): JSON's grammar allows a lone one (Node's
#: JSON.stringify writes them when a string is cut inside a surrogate pair), orjson does not.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abcdefABCDEF]")


@dataclass
class Tally:
    """Per-scan counters that must be reported (never silently dropped)."""

    malformed: int = 0

    def merge(self, other: Tally) -> None:
        self.malformed += other.malformed


def is_blank(line: bytes) -> bool:
    return not line.strip(_WS)


def is_framed(line: bytes) -> bool:
    """Cheap shape check: a JSON object line starts with ``{`` and ends with ``}``."""
    stripped = line.strip(_WS)
    return stripped[:1] == b"{" and stripped[-1:] == b"}"


def decode(line: bytes, number: int | None, tally: Tally | None = None) -> Record | None:
    """Decode one line. Returns None for blank and malformed lines (the latter counted)."""
    stripped = line.strip(_WS)
    if not stripped:
        return None
    if stripped[:1] != b"{" or stripped[-1:] != b"}":
        if tally is not None:
            tally.malformed += 1
        return None
    try:
        obj = orjson.loads(stripped)
    except orjson.JSONDecodeError:
        obj = _with_lone_surrogates(stripped)
        if obj is None:
            if tally is not None:
                tally.malformed += 1
            return None
    if not isinstance(obj, dict):
        if tally is not None:
            tally.malformed += 1
        return None
    return Record(obj, number)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _with_lone_surrogates(line: bytes) -> Any:
    """The stdlib decode of a line orjson refused for a lone surrogate escape, else None.

    ``"cut emoji \\ud83d here"`` is valid JSON that orjson rejects; without this the
    prompt vanished from search, show, list and turn counts while stats' type census
    counted it. The stdlib keeps the lone surrogate in the string (the matcher and the
    writers cope, SPEC §5); it runs only on failed lines holding such an escape, and
    refuses what orjson would besides (``NaN``, invalid UTF-8).
    """
    if _SURROGATE_ESCAPE.search(line) is None:
        return None
    import json

    try:
        return json.loads(line.decode("utf-8"), parse_constant=_refuse_constant)
    except ValueError:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return None
