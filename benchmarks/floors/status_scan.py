#!/usr/bin/env python3
"""Floor of `status`: the one top-level transcript of the home read as status reads it, no
CLI framework, no join and nothing printed: its last 512 KiB decoded line by line (the
tail window), and the whole file searched for the background needles (`_in_background`,
`_launched`, `Monitor"`, `-notification`) by SIMD literal searches, every needle over a
1 MiB part before the next part (the eighteenth session's technique: RE2's passes on two
threads took 1.5x as long), each line they hit decoded with orjson.

Usage: status_scan.py CLAUDE_HOME
"""

import sys

import orjson
import stringzilla
from _common import line_parts, open_bytes, transcripts

NEEDLES = (b"_in_background", b"_launched", b'Monitor"', b"-notification")
WINDOW = 512 * 1024


def main(home: str) -> int:
    path = next(p for _size, p in transcripts(home) if "/subagents/" not in p)
    buf = open_bytes(path)
    tail = buf[max(0, len(buf) - WINDOW):]
    decoded = 0
    for line in tail.split(b"\n")[1:]:
        if line.strip():
            try:
                orjson.loads(line)
                decoded += 1
            except orjson.JSONDecodeError:
                pass

    found_set: set[int] = set()
    with memoryview(buf) as view:
        find = stringzilla.Str(view).find
        for pos, end in line_parts(buf):
            for needle in NEEDLES:
                at = find(needle, pos, end)
                while at >= 0:
                    found_set.add(buf.rfind(b"\n", 0, at) + 1)
                    nl = buf.find(b"\n", at, end)
                    at = find(needle, nl + 1, end) if nl >= 0 else -1
        del find
    found = sorted(found_set)
    for start in found:
        end = buf.find(b"\n", start)
        try:
            orjson.loads(buf[start:end if end >= 0 else len(buf)])
            decoded += 1
        except orjson.JSONDecodeError:
            pass
    return decoded


if __name__ == "__main__":
    print(main(sys.argv[1]))
