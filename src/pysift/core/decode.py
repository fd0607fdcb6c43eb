"""Line bytes -> ``Record``; malformed lines are counted in a ``Tally``, never raised.

Per the port decisions: a blank or whitespace-only line is not malformed; a non-blank
line that is not ``{...}``-framed, does not parse, or parses to a non-object is
malformed and counted.
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from pysift.disk.jsonline import refused_by_orjson
from pysift.model.record import Record

_WS = b" \t\r\n"


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
    except orjson.JSONDecodeError as refused:
        try:  # a lone surrogate escape: the stdlib reads it (``disk.jsonline``)
            obj = refused_by_orjson(stripped, refused)
        except orjson.JSONDecodeError:
            if tally is not None:
                tally.malformed += 1
            return None
    if not isinstance(obj, dict):
        if tally is not None:
            tally.malformed += 1
        return None
    return Record(obj, number)

