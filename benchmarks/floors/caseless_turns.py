#!/usr/bin/env python3
"""Floor of `pysift search -i WORD -c`: the needle pass plus the one pass an exact count
cannot skip.

`-c` counts exchanges, i.e. distinct turns holding a hit. Two hits share a turn unless an
opener stands between them, and whether a user record opens a turn depends on records
anywhere in the file (a superseded draft is defined by a LATER sibling, a replay copy by
an EARLIER one). So every file with a hit has its user lines walked once. This script
does exactly that, on one buffer per file, and nothing more: the needle pass of
needle_lines.py, then in each file with a hit the user-key walk of user_lines.py. No
classification, no unit rendering, no regex on decoded text.

Usage: caseless_turns.py CLAUDE_HOME WORD
"""

import sys

from _common import main, open_bytes
from needle_lines import count_needle_lines
from user_lines import count_user_lines


def caseless_turns(path: str) -> int:
    buf = open_bytes(path)
    hits = count_needle_lines(buf)  # RE2, the word's letters as [xX] classes
    if hits:
        count_user_lines(buf)  # the opener walk every file with a hit needs
    return hits


if __name__ == "__main__":
    if "--ignore-case" not in sys.argv:
        sys.argv.append("--ignore-case")
    main(caseless_turns)
