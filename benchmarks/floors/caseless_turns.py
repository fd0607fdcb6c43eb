#!/usr/bin/env python3
"""Floor of `pysift search -i WORD -c`: the needle pass plus the one pass an exact count
cannot skip.

`-c` counts exchanges, i.e. distinct turns holding a hit. Two hits share a turn unless an
opener stands between them, and whether a user record opens a turn depends on records
anywhere in the file (a superseded draft is defined by a LATER sibling, a replay copy by
an EARLIER one). So every file with a hit has its user lines walked once: the `find`
loop of user_lines.py, carriers stepped over, the rest parsed. This script does exactly
that and nothing more: no classification, no unit rendering, no regex on decoded text.

Usage: caseless_turns.py CLAUDE_HOME WORD
"""

import sys

from _common import main, open_bytes
from needle_lines import _pattern

USER, RESULT = b'"type":"user"', b'"tool_result"'


def caseless_turns(path: str) -> int:
    import orjson
    import re2

    global _compiled
    try:
        compiled = _compiled
    except NameError:
        compiled = _compiled = re2.compile(_pattern())  # the word's letters as [xX]
    buf = open_bytes(path)
    find, rfind, size = buf.find, buf.rfind, len(buf)
    hits, pos = 0, 0
    while pos < size:  # the needle pass of needle_lines.py
        hit = compiled.search(buf, pos)
        if hit is None:
            break
        hits += 1
        end = find(b"\n", hit.start())
        pos = size if end < 0 else end + 1
    if not hits:
        return 0
    pos = find(USER)  # the opener walk of user_lines.py, on the same buffer
    while pos >= 0:
        at = find(RESULT, pos, pos + 600)
        if at >= 0 and find(b"\n", pos, at) < 0:
            newline = find(b"\n", at)
            pos = find(USER, newline) if newline >= 0 else -1
            continue
        start = rfind(b"\n", 0, pos) + 1
        end = find(b"\n", pos)
        end = size if end < 0 else end
        try:
            orjson.loads(buf[start:end])
        except orjson.JSONDecodeError:
            pass
        pos = find(USER, end)
    return hits


if __name__ == "__main__":
    if "--ignore-case" not in sys.argv:
        sys.argv.append("--ignore-case")
    main(caseless_turns)
