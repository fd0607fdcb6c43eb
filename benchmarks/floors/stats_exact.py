#!/usr/bin/env python3
"""Floor of an EXACT `pysift stats` census: `stats_census.py` plus the validation of every
line that the malformed-line count needs (SPEC §6.12: a line is malformed when it is not
blank and does not decode to an object, whatever its bytes look like).

Per file: every line parsed once by simdjson (the validation, and its top-level `type`
from the parse: the cheapest exact census measured, as `engines/stats.py` does it); a line
it refuses counted as malformed (pysift settles those by its own decoder's law, which only
a few lines of a real home reach); every assistant line decoded with msgspec into just
`message.{id,model,usage}`, kept once per (model, message.id) with the per-field maximum.
No user-line work, timestamps, turns, tools, thinking tags or output.

The gap between this and `stats_census.py` is what exactness costs; the gap between this
and rg says whether the issue's target can be reached by any exact technique here.
Usage: stats_exact.py CLAUDE_HOME
"""

from typing import Any

import simdjson
from _common import main, open_bytes
from stats_census import keep_usage


def census(path: str) -> int:
    buf = open_bytes(path)
    parse = simdjson.Parser().parse
    types: dict[Any, int] = {}
    peaks: dict[tuple[Any, Any], list[Any]] = {}
    loose = malformed = 0
    find, stop, pos = buf.find, len(buf), 0
    while pos < stop:
        nl = find(b"\n", pos)
        end = stop if nl < 0 else nl
        line = buf[pos:end]
        kind = None
        try:
            doc = parse(line)
            if isinstance(doc, simdjson.Object):
                kind = doc.get("type")
                kind = kind if isinstance(kind, str) else None  # no proxy outlives the parse
            else:  # valid JSON, but not an object
                malformed += 1
            doc = None  # a parser holds one document: let it go before the next parse
        except ValueError:
            malformed += 1 if line.strip() else 0
        if kind == "assistant":
            loose += keep_usage(line, peaks)
        types[kind] = types.get(kind, 0) + 1
        if nl < 0:
            break
        pos = nl + 1
    return sum(types.values()) + len(peaks) + loose + malformed


if __name__ == "__main__":
    main(census)
