#!/usr/bin/env python3
"""Floor of a search's needle pass: one RE2 pass over each whole buffer (anchors §6.3
items 1-2), counting the lines that hold a hit. Nothing is parsed, no turn is found.

Usage: needle_lines.py CLAUDE_HOME LITERAL [--ignore-case]
With --ignore-case the literal's ASCII letters become `[xX]` classes (measured here as
fast as RE2's own case folding on a needle without k/s, and 3x faster than folding
`kestrel`, whose k and s have non-ASCII partners).
"""

import sys

from _common import main, open_bytes


def _pattern() -> bytes:
    import re2

    literal = sys.argv[2]
    if "--ignore-case" not in sys.argv[3:]:
        return re2.escape(literal.encode())
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isascii() and c.isalpha()
                   else re2.escape(c) for c in literal).encode()


def needle_lines(path: str) -> int:
    return count_needle_lines(open_bytes(path))


def count_needle_lines(buf) -> int:  # type: ignore[no-untyped-def]
    """The needle pass itself, on a buffer already open (caseless_turns.py reuses it)."""
    import re2

    global _compiled
    try:
        compiled = _compiled
    except NameError:
        compiled = _compiled = re2.compile(_pattern())
    find = buf.find
    lines, pos, size = 0, 0, len(buf)
    while pos < size:
        hit = compiled.search(buf, pos)
        if hit is None:
            break
        lines += 1
        end = find(b"\n", hit.start())
        pos = size if end < 0 else end + 1
    return lines


if __name__ == "__main__":
    main(needle_lines)
