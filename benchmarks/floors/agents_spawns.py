#!/usr/bin/env python3
"""Floor of `agents`: the transcripts of every session that has subagent lanes (its main
transcript and each lane), each searched for the quoted spawn tool names (SIMD literal
searches, `stringzilla`, in place: the technique `pysift agents` uses since the thirteenth
session, about 3x less CPU than one RE2 pass over the alternation; since the eighteenth,
every name over a 1 MiB part of whole lines before the next part, so the bytes are read
from memory once), and each lane's last line read. Nothing is decoded, joined or
printed.

Usage: agents_spawns.py CLAUDE_HOME
"""

import os
import sys

from _common import line_parts, open_bytes, split_run

_NAMES = (b'"Task"', b'"Agent"', b'"Workflow"')


def spawn_hits(path: str) -> int:
    import stringzilla

    buf = open_bytes(path)
    hits = 0
    with memoryview(buf) as view:
        find = stringzilla.Str(view).find
        for lo, hi in line_parts(buf):
            for name in _NAMES:
                pos = find(name, lo, hi)
                while pos >= 0:
                    hits += 1
                    pos = find(name, pos + len(name), hi)
        del find
    if "/subagents/" in path:  # a lane: its tail
        end = len(buf)
        hits += buf.rfind(b"\n", 0, max(0, end - 1)) >= 0
    return hits


def with_lanes(path: str) -> bool:
    if "/subagents/" in path:
        return True
    return os.path.isdir(os.path.join(path[: -len(".jsonl")], "subagents"))


if __name__ == "__main__":
    print(split_run(spawn_hits, sys.argv[1], keep=with_lanes))
