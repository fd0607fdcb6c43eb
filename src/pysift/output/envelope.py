"""The NDJSON envelope writer: header first, kind-tagged rows, summary last, always.

Keys come out sorted (csift's serde maps were unordered-by-insertion, i.e. sorted), so
byte-level comparisons against csift output line up; jq does not care.
"""

from __future__ import annotations

from typing import BinaryIO

import orjson

from pysift.output.report import Report

_OPTS = orjson.OPT_APPEND_NEWLINE | orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def dumps(obj: object) -> bytes:
    """One NDJSON line. A string UTF-8 cannot encode (a path holding an undecodable byte,
    a transcript's lone surrogate escape) is written spelled out (``output.surrogates``);
    only a line orjson refused pays for that walk. A value nested deeper than orjson
    writes (254 levels; a line may nest 1024) is written by the stdlib, keys sorted alike:
    total, as ``disk.jsonline.compact_json`` is."""
    try:
        return orjson.dumps(obj, option=_OPTS)
    except TypeError:  # orjson.JSONEncodeError is one
        import sys

        from pysift.output.surrogates import json_safe

        limit = sys.getrecursionlimit()  # both walks recurse up to twice per level
        sys.setrecursionlimit(limit + _HEADROOM)
        try:
            safe = json_safe(obj)
            try:
                return orjson.dumps(safe, option=_OPTS)
            except TypeError:
                import json

                return json.dumps(safe, sort_keys=True, separators=(",", ":"),
                                  ensure_ascii=False, default=str).encode() + b"\n"
        finally:
            sys.setrecursionlimit(limit)


#: Recursion headroom for a value as deep as a line may nest (orjson reads 1024 levels).
_HEADROOM = 2 * 1024 + 64  # disk.jsonline.RECURSION_HEADROOM (output imports no disk)


def write(report: Report, out: BinaryIO) -> None:
    if report.bare_json is not None:
        out.write(dumps(report.bare_json))
        return
    header = {**report.header, "kind": "header", "command": report.command}
    out.write(dumps(header))
    for row in report.json_rows():
        if "kind" not in row:
            raise ValueError("envelope row without a kind")  # a programming error
        out.write(dumps(row))
    out.write(dumps({**report.summary, "unreadable": report.unreadable, "kind": "summary"}))
