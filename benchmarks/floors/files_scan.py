#!/usr/bin/env python3
"""Floor of `files`: each transcript read whole into bytes, then the two Rust-regex passes
the engine makes (the candidate lines: tool calls of the five tools, create and error
results, settings files; the lines that may not be {...}-framed), counting matches.
Nothing is decoded, no Bash command is read, no row is built.

Usage: files_scan.py CLAUDE_HOME
"""

import os

from _common import main

_CANDIDATES = (
    rb'"name":[ \t]*"(?:Bash"(?:,[ \t]*"input":[ \t]*\{[ \t]*"command":[ \t]*'
    rb'("(?:[^"\\]|\\.)*"))?|Edit"|Write"|MultiEdit"|NotebookEdit")'
    rb'|"type":[ \t]*"create"|"is_error":[ \t]*true|settings(?:\.local)?\.json'
)
_UNFRAMED = rb"[^}\r\n][ \t\r]*\n|\n[ \t]*[^{\n \t]"


def files_scan(path: str) -> int:
    import rurex

    global _compiled
    try:
        candidates, unframed = _compiled
    except NameError:
        candidates, unframed = _compiled = (rurex.compile(_CANDIDATES), rurex.compile(_UNFRAMED))
    fd = os.open(path, os.O_RDONLY)
    try:
        buf = os.read(fd, os.fstat(fd).st_size)
    finally:
        os.close(fd)
    return sum(1 for _ in candidates.finditer(buf)) + sum(1 for _ in unframed.finditer(buf))


if __name__ == "__main__":
    main(files_scan)
