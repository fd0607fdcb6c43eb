#!/usr/bin/env python3
"""Floor of EVERYTHING `pysift stats` answers: `stats_exact.py` (every line parsed once by
simdjson for the malformed count and its top-level `type`, usage kept once per (model,
message.id) with the per-field maximum) plus the least each other figure needs:

- an assistant line decoded with msgspec into `message.{id,model,usage}`, its `timestamp`
  and its content blocks' `type` and `name` (tools counted by name, thinking blocks
  counted; no signature is decoded, so no narration tag is told apart);
- a user line's `timestamp` read from the same parse, and the turn-opener candidates
  counted from it: a user line whose `message.content` is a string, or an array holding a
  block that is not a `tool_result` (no harness marker, caveat, draft or replay test);
- the first and last timestamps of the file.

Each is below what pysift computes for the same figure (it also tells narration from
thinking by the signature, classifies each candidate opener, collapses drafts and
replays, and orders unreadable stamps by instant), so the time this takes is a lower
bound for an exact `stats` answer by this technique, without start-up or output.
Usage: stats_full.py CLAUDE_HOME
"""

from typing import Any

import msgspec
import simdjson
from _common import main, open_bytes


class Block(msgspec.Struct):
    type: Any = None
    name: Any = None


class Message(msgspec.Struct):
    id: Any = None
    model: Any = None
    usage: Any = None
    content: list[Block] | str | None = None


class Line(msgspec.Struct):
    timestamp: Any = None
    message: Message | None = None


DECODE = msgspec.json.Decoder(Line).decode


def census(path: str) -> int:
    buf = open_bytes(path)
    parse = simdjson.Parser().parse
    types: dict[Any, int] = {}
    peaks: dict[tuple[Any, Any], list[Any]] = {}
    tools: dict[Any, int] = {}
    stamps: list[str] = []
    loose = malformed = thinking = openers = 0
    find, stop, pos = buf.find, len(buf), 0
    while pos < stop:
        nl = find(b"\n", pos)
        end = stop if nl < 0 else nl
        line = buf[pos:end]
        kind = None
        try:
            doc = parse(line)
            if isinstance(doc, simdjson.Object):
                kind = doc.get("type")
                if kind == "user":
                    ts = doc.get("timestamp")
                    if isinstance(ts, str):
                        stamps.append(ts)
                    message = doc.get("message")
                    content = message.get("content") if isinstance(message, simdjson.Object) else None
                    if isinstance(content, str) or (
                            isinstance(content, simdjson.Array) and any(
                                not isinstance(block, simdjson.Object)
                                or block.get("type") != "tool_result" for block in content)):
                        openers += 1
            else:  # valid JSON, but not an object
                malformed += 1
            doc = message = content = None  # a parser holds one document: let go first
        except ValueError:
            malformed += 1 if line.strip() else 0
        if kind == "assistant":
            record = DECODE(line)
            if isinstance(record.timestamp, str):
                stamps.append(record.timestamp)
            msg = record.message
            if msg is not None:
                if isinstance(msg.content, list):
                    for block in msg.content:
                        if block.type == "tool_use":
                            tools[block.name] = tools.get(block.name, 0) + 1
                        elif block.type == "thinking":
                            thinking += 1
                if isinstance(msg.usage, dict):
                    get = msg.usage.get
                    usage = [get("input_tokens", 0), get("output_tokens", 0),
                             get("cache_read_input_tokens", 0),
                             get("cache_creation_input_tokens", 0)]
                    if not msg.id:
                        loose += 1
                    else:
                        peak = peaks.setdefault((msg.model, msg.id), usage)
                        if peak is not usage:
                            peaks[(msg.model, msg.id)] = list(map(max, peak, usage))
        types[kind] = types.get(kind, 0) + 1
        if nl < 0:
            break
        pos = nl + 1
    span = (min(stamps), max(stamps)) if stamps else ()
    return (sum(types.values()) + len(peaks) + loose + malformed + thinking + openers
            + sum(tools.values()) + len(span))


if __name__ == "__main__":
    main(census)
