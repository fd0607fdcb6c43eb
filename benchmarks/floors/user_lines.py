#!/usr/bin/env python3
"""Floor of `pysift search '' -t user -c`: the structural-token scan (anchors §6.3 item 4).

A `find` loop on the user type key; a line with `"tool_result"` within 600 bytes of it
is a carrier, stepped over to its newline at memchr speed; every other user line is
parsed with orjson and counted when it is not isMeta. No turn, no classification.
Usage: user_lines.py CLAUDE_HOME
"""

from _common import main, open_bytes

USER, RESULT = b'"type":"user"', b'"tool_result"'


def user_lines(path: str) -> int:
    return count_user_lines(open_bytes(path))


def count_user_lines(buf) -> int:  # type: ignore[no-untyped-def]
    """The walk itself, on a buffer already open (caseless_turns.py reuses it)."""
    import orjson

    find, rfind, size = buf.find, buf.rfind, len(buf)
    count = 0
    pos = find(USER)
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
            record = orjson.loads(buf[start:end])
            count += record.get("type") == "user" and not record.get("isMeta")
        except (orjson.JSONDecodeError, AttributeError):
            pass
        pos = find(USER, end)
    return count


if __name__ == "__main__":
    main(user_lines)
