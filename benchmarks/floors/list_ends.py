#!/usr/bin/env python3
"""Floor of `pysift list`: each file read at its two ends only (anchors §6.3 item 7).

Forward `find` to the first user line that is not a tool_result carrier, backward
`rfind` to the last one and to the last assistant line holding a text block. No line is
parsed. Usage: list_ends.py CLAUDE_HOME
"""

from _common import main, open_bytes

USER, ASSISTANT, RESULT = b'"type":"user"', b'"type":"assistant"', b'"tool_result"'


def ends(path: str) -> int:
    buf = open_bytes(path)
    find, rfind = buf.find, buf.rfind
    found = 0
    pos = find(USER)
    while pos >= 0:  # the first human message
        at = find(RESULT, pos, pos + 600)
        if at < 0:
            found += 1
            break
        newline = find(b"\n", at)
        pos = find(USER, newline) if newline >= 0 else -1
    pos = rfind(USER)
    while pos >= 0:  # the last human message
        start = rfind(b"\n", 0, pos) + 1
        if find(RESULT, pos, pos + 600) < 0:
            found += 1
            break
        pos = rfind(USER, 0, start)
    pos = rfind(ASSISTANT)
    while pos >= 0:  # the last agent text
        start = rfind(b"\n", 0, pos) + 1
        end = find(b"\n", pos)
        if find(b'"text"', start, end if end >= 0 else len(buf)) >= 0:
            found += 1
            break
        pos = rfind(ASSISTANT, 0, start)
    return found


if __name__ == "__main__":
    main(ends)
