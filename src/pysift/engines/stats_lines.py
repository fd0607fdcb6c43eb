"""The shape ``stats`` reads an assistant line into (msgspec structs).

msgspec checks the whole line is JSON but builds only the fields named here: the text,
thinking and tool inputs of the content are stepped over, never turned into Python
strings. Every field is typed loosely (``Any``) so that any value orjson would give is
taken as is; a shape the structs cannot hold (a message that is no object, a content
entry that is no object) raises, and the caller decodes the line with orjson instead.

No ``from __future__ import annotations`` here: msgspec reads the annotations at class
creation. Imported only when a stats scan meets its first assistant line.
"""

from typing import Any

import msgspec


class Block(msgspec.Struct):
    type: Any = None
    name: Any = None
    signature: Any = None


class Usage(msgspec.Struct):
    """The four counted fields; the others (``cache_creation``, ``service_tier``, …) are
    stepped over, not built (measured ~25% off the decode of an assistant line). A usage
    that is no object (or null) does not fit and sends the line to orjson."""

    input_tokens: Any = None
    output_tokens: Any = None
    cache_read_input_tokens: Any = None
    cache_creation_input_tokens: Any = None


class Message(msgspec.Struct):
    model: Any = None
    id: Any = None
    usage: Usage | None = None
    content: list[Block] | str | None = None


class Line(msgspec.Struct):
    type: Any = None
    timestamp: Any = None
    message: Message | None = None


decoder = msgspec.json.Decoder(Line)
