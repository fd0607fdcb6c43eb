#!/usr/bin/env python3
"""Floor of `pysift verbatim @S --fold-index` on one big session: the harvest alone.

Every tool output before the file's last `compact_boundary` must be harvested (seed index
v2: a compact record re-extracts ALL compacted history): its error lines, its identifiers
and its path tokens. Here each half of the file (two processes) finds the tool_result
carrier lines with one `find` loop, decodes each with orjson, joins its result texts and
runs the three lexicon patterns (pysift's own, `pysift.seedindex.lexicon`: the patterns
are what the index is) as pysift does, the error and path patterns with RE2 match by
match, the identifiers with one `findall` of the Rust crate per output, keeping only the
matched bytes: no
clipping, no "0 failed" check, no ranking, no spans, no turn map, no user messages.
What this takes is the price of the harvest on this machine; pysift's index adds the rest
of the record on top.
Usage: fold_harvest.py CLAUDE_HOME
"""

import os
import pickle

import orjson
from _common import open_bytes, transcripts
from re2 import _re2

from pysift.seedindex.lexicon import _ERROR, _IDENTIFIER, _PATH

ANCHOR = _re2.RE2.Anchor.UNANCHORED
CARRIER = b'"type":"tool_result"'


def hits(pattern, data: bytes) -> int:  # type: ignore[no-untyped-def]
    match = pattern.Match
    pos, size, found = 0, len(data), 0
    while pos <= size:
        start, end = match(ANCHOR, data, pos, size)[0]
        if start < 0:
            break
        found += 1
        pos = end if end > pos else pos + 1
    return found


def harvest(buf, lo: int, hi: int) -> int:  # type: ignore[no-untyped-def]
    find, total = buf.find, 0
    pos = find(CARRIER, lo, hi)
    while pos >= 0:
        start = buf.rfind(b"\n", 0, pos) + 1
        end = find(b"\n", pos)
        end = len(buf) if end < 0 else end
        try:
            record = orjson.loads(buf[start:end])
        except orjson.JSONDecodeError:
            record = {}
        content = (record.get("message") or {}).get("content")
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "tool_result":
                text = block.get("content")
                if isinstance(text, list):
                    text = "\n".join(b.get("text", "") for b in text if isinstance(b, dict))
                data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else b""
                total += hits(_ERROR, data) + len(_IDENTIFIER.findall(data)) + hits(_PATH, data)
        pos = find(CARRIER, end, hi)
    return total


def main() -> None:
    import sys

    path = transcripts(sys.argv[1])[0][1]  # the largest session
    buf = open_bytes(path)
    last = buf.rfind(b"compact_boundary")
    mid = buf.find(b"\n", last // 2) + 1
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        os.write(write_fd, pickle.dumps(harvest(buf, mid, last)))
        os._exit(0)
    os.close(write_fd)
    total = harvest(buf, 0, mid)
    chunks = []
    while chunk := os.read(read_fd, 1 << 16):
        chunks.append(chunk)
    os.waitpid(pid, 0)
    print(total + pickle.loads(b"".join(chunks)))


if __name__ == "__main__":
    main()
