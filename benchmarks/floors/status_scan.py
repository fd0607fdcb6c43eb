#!/usr/bin/env python3
"""Floor of `status`: the one top-level transcript of the home read as status reads it, no
CLI framework, no join and nothing printed: its last 512 KiB decoded line by line (the
tail window), and the whole file searched by one RE2 pass per background needle
(`_(?:in_background|launched)`, `Monitor"`, `-notification`; two threads), each line they
hit decoded with orjson.

Usage: status_scan.py CLAUDE_HOME
"""

import sys
from concurrent.futures import ThreadPoolExecutor

import orjson
from _common import open_bytes, transcripts

NEEDLES = (rb"_(?:in_background|launched)", rb'Monitor"', rb"-notification")
WINDOW = 512 * 1024


def main(home: str) -> int:
    import re2

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

    def hits(needle: bytes) -> list[int]:
        return [m.start() for m in re2.compile(needle).finditer(buf)]

    with ThreadPoolExecutor(2) as pool:
        found = sorted({buf.rfind(b"\n", 0, p) + 1 for ps in pool.map(hits, NEEDLES) for p in ps})
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
