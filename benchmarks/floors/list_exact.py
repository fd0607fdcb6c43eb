#!/usr/bin/env python3
"""Floor of an EXACT `pysift list`: list_ends.py plus what every row needs at least.

list_ends.py peeks 600 bytes past a user key for `"tool_result"`, which is the anchors'
recipe but not an exact carrier test: a rejection or an AskUserQuestion answer in a
record's second tool_result block opens a turn (and is the human's last message) although
its first block is a plain result. So here every `"type":"tool_result"` key of a user
line is looked at, as pysift does. Then, with no CLI framework, no record model and no
classification, the least a row is made of: the first and last lines decoded (the
envelope: first/last timestamp, cwd, version), the three messages decoded, previewed
(one-lined, clipped at 200 characters with the count of what was cut) and stamped in
local time.

Usage: list_exact.py CLAUDE_HOME
"""

from datetime import datetime

import orjson
from _common import main, open_bytes

USER, ASSISTANT = b'"type":"user"', b'"type":"assistant"'
RESULT_BLOCK = b'"type":"tool_result"'
OPENERS = (b"answer", b"want to proceed")  # an AUQ answer / a rejection, near its block key
BEFORE, AFTER = 256, 768


def bounds(buf, pos: int) -> tuple[int, int]:
    start = buf.rfind(b"\n", 0, pos) + 1
    end = buf.find(b"\n", pos)
    return start, len(buf) if end < 0 else end


def plain_carrier(buf, start: int, end: int) -> bool:
    find = buf.find
    at = find(RESULT_BLOCK, start, end)
    if at < 0:
        return False
    while at >= 0:  # every block of the line, not only the first
        lo, hi = max(start, at - BEFORE), min(end, at + AFTER)
        if any(find(needle, lo, hi) >= 0 for needle in OPENERS):
            return False
        at = find(RESULT_BLOCK, at + len(RESULT_BLOCK), end)
    return True


def decoded(buf, start: int, end: int) -> dict:
    try:
        value = orjson.loads(buf[start:end])
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


_WORD_MAP = bytes(32 if byte in b"\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f " else 120 for byte in range(256))


def preview(text: str, cap: int = 200) -> str:
    """The one-lined text clipped at ``cap`` with the count of what was cut; a long ASCII
    text is one-lined from a prefix and counted on its bytes (pysift's shortcut)."""
    head = " ".join(text[:4 * cap + 64].split())
    if len(head) <= cap and len(text) <= 4 * cap + 64:
        return head
    if text.isascii():
        marks = text.encode("ascii").translate(_WORD_MAP)
        words = marks.count(b" x") + (marks[:1] == b"x")
        total = len(marks) - marks.count(b" ") + words - 1 if words else 0
    else:
        head = " ".join(text.split())
        total = len(head)
    return head if total <= cap else f"{head[:cap]}… (+{total - cap} chars)"


def row_piece(record: dict) -> str:
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        content = "\n".join(b["text"] for b in content
                            if isinstance(b, dict) and isinstance(b.get("text"), str))
    shown = preview(content) if isinstance(content, str) else ""
    try:
        stamp = datetime.fromisoformat(record.get("timestamp")).astimezone()
        when = stamp.strftime("%Y-%m-%d %H:%M:%S %Z")
    except (TypeError, ValueError):
        when = "—"
    return f"{when}\n{shown}\n"


def exact_ends(path: str) -> int:
    buf = open_bytes(path)
    if not buf:
        return 0
    find, rfind = buf.find, buf.rfind
    records = [decoded(buf, *bounds(buf, 0)), decoded(buf, *bounds(buf, len(buf) - 1))]
    pos = find(USER)
    while pos >= 0:  # the first human message
        start, end = bounds(buf, pos)
        if not plain_carrier(buf, start, end):
            records.append(decoded(buf, start, end))
            break
        pos = find(USER, end)
    pos = rfind(USER)
    while pos >= 0:  # the last human message
        start, end = bounds(buf, pos)
        if not plain_carrier(buf, start, end):
            records.append(decoded(buf, start, end))
            break
        pos = rfind(USER, 0, start)
    pos = rfind(ASSISTANT)
    while pos >= 0:  # the last agent text
        start, end = bounds(buf, pos)
        if find(b'"text"', start, end) >= 0:
            records.append(decoded(buf, start, end))
            break
        pos = rfind(ASSISTANT, 0, start)
    row = "".join(row_piece(r) for r in records[2:])
    return len(row) > 0


if __name__ == "__main__":
    main(exact_ends)
