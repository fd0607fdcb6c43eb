#!/usr/bin/env python3
"""Floor of `agents`: the transcripts of every session that has subagent lanes (its main
transcript and each lane), each searched whole by one RE2 pass for the quoted spawn tool
names, and each lane's last line read. Nothing is decoded, joined or printed.

Usage: agents_spawns.py CLAUDE_HOME
"""

import os
import sys

from _common import open_bytes, split_run

_compiled = None


def spawn_hits(path: str) -> int:
    import re2

    global _compiled
    if _compiled is None:
        _compiled = re2.compile(rb'"(?:Task|Agent|Workflow)"')
    buf = open_bytes(path)
    hits = sum(1 for _ in _compiled.finditer(buf))
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
