#!/usr/bin/env python3
"""Floor of EVERYTHING `pysift stats` answers: `stats_exact.py` (every line parsed once by
simdjson for the malformed count and its top-level `type`, usage kept once per (model,
message.id) with the per-field maximum) plus the least each other figure needs:

- an assistant line decoded with msgspec into `message.{id,model,usage}`, its `timestamp`
  and its content blocks' `type` and `name` (tools counted by name, thinking blocks
  counted; no signature is decoded, so no narration tag is told apart);
- a user line's `timestamp` and `isCompactSummary` (the compactions) read from the same
  parse, and the turn-opener candidates counted from it: a user line whose
  `message.content` is a string, or an array holding a block that is not a
  `tool_result` (no harness marker, caveat, draft or replay test);
- the first and last timestamps of the file.
An assistant line whose content the structs cannot hold (a block that is no object) is
decoded whole by orjson, as pysift falls back.

Each is below what pysift computes for the same figure (it also tells narration from
thinking by the signature, classifies each candidate opener, collapses drafts and
replays, and orders unreadable stamps by instant), so the time this takes is a lower
bound for an exact `stats` answer by this technique, without start-up or output.
Usage: stats_full.py CLAUDE_HOME
"""

from typing import Any

import msgspec
import orjson
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


def assistant_facts(line: Any) -> tuple[Any, Any, Any, Any, Any]:
    """``(timestamp, id, model, usage, blocks)``, blocks as ``(type, name)`` pairs."""
    try:
        record = DECODE(line)
    except msgspec.ValidationError:  # a shape the structs cannot hold: decoded whole
        obj = orjson.loads(line)
        msg = obj.get("message")
        msg = msg if isinstance(msg, dict) else {}
        content = msg.get("content")
        blocks = [(b.get("type"), b.get("name")) for b in content if isinstance(b, dict)] \
            if isinstance(content, list) else []
        return obj.get("timestamp"), msg.get("id"), msg.get("model"), msg.get("usage"), blocks
    msg = record.message
    if msg is None:
        return record.timestamp, None, None, None, []
    blocks = [(b.type, b.name) for b in msg.content] if isinstance(msg.content, list) else []
    return record.timestamp, msg.id, msg.model, msg.usage, blocks


def census(path: str) -> int:
    buf = open_bytes(path)
    parse = simdjson.Parser().parse
    types: dict[Any, int] = {}
    peaks: dict[tuple[Any, Any], list[Any]] = {}
    tools: dict[Any, int] = {}
    stamps: list[str] = []
    loose = malformed = thinking = openers = compactions = 0
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
                    compactions += doc.get("isCompactSummary") is True
                    message = doc.get("message")
                    content = message.get("content") if isinstance(message, simdjson.Object) else None
                    if isinstance(content, str) or (
                            isinstance(content, simdjson.Array) and any(
                                not isinstance(block, simdjson.Object)
                                or block.get("type") != "tool_result" for block in content)):
                        openers += 1
                kind = kind if isinstance(kind, str) else None  # no proxy outlives the parse
            else:  # valid JSON, but not an object
                malformed += 1
            # a parser holds one document: every reference into it goes before the next
            doc = ts = message = content = None
        except ValueError:
            malformed += 1 if line.strip() else 0
        if kind == "assistant":
            ts, message_id, model, usage, blocks = assistant_facts(line)
            if isinstance(ts, str):
                stamps.append(ts)
            for block_type, name in blocks:
                if block_type == "tool_use":
                    tools[name] = tools.get(name, 0) + 1
                elif block_type == "thinking":
                    thinking += 1
            if isinstance(usage, dict):
                get = usage.get
                counts = [get("input_tokens", 0), get("output_tokens", 0),
                          get("cache_read_input_tokens", 0), get("cache_creation_input_tokens", 0)]
                if not message_id:
                    loose += 1
                else:
                    peak = peaks.setdefault((model, message_id), counts)
                    if peak is not counts:
                        peaks[(model, message_id)] = list(map(max, peak, counts))
        types[kind] = types.get(kind, 0) + 1
        if nl < 0:
            break
        pos = nl + 1
    span = (min(stamps), max(stamps)) if stamps else ()
    return (sum(types.values()) + len(peaks) + loose + malformed + thinking + openers
            + compactions + sum(tools.values()) + len(span))


if __name__ == "__main__":
    main(census)
