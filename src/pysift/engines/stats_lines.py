"""The shape ``stats`` reads an assistant line into (msgspec structs).

msgspec checks the whole line is JSON but builds only the fields named here: the text,
thinking and tool inputs of the content are stepped over, never turned into Python
strings. Every field is typed loosely (``Any``) so that any value orjson would give is
taken as is; a shape the structs cannot hold (a message that is no object, a content
entry that is no object) raises, and the caller decodes the line with orjson instead.

No ``from __future__ import annotations`` here: msgspec reads the annotations at class
creation. Imported only when a stats scan meets its first assistant line.
"""

from typing import Annotated, Any

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


# -- the strict shape: what almost every assistant line is ---------------------------------
#
# The same fields, typed as ``stats`` keeps them, so that msgspec builds each fact ready to
# use (measured ~20% off an assistant line's reading over corpus B, less Python per line):
# a count is an ``int`` (missing: 0), a model and an id a non-empty string (a missing model
# is ``(unknown)``, a missing id None), a timestamp a string or null. A line with any other
# value there (an empty model, a count that is null, a float or a bool, a timestamp that is a
# number) does not fit, and is read with the loose shape above, which takes any value: so
# when the strict shape fits, both give the same facts. The structs hold no cycles: they are
# not tracked by the collector (``gc=False``).

NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]


class StrictUsage(msgspec.Struct, gc=False):
    """In ``stats.USAGE_FIELDS`` order (``msgspec.structs.astuple`` reads them so)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0


class StrictBlock(msgspec.Struct, gc=False):
    type: Any = None
    name: Any = None
    signature: Any = None


class StrictMessage(msgspec.Struct, gc=False):
    model: NonEmpty = "(unknown)"  # stats.UNKNOWN_MODEL
    id: NonEmpty | None = None
    usage: StrictUsage | None = None
    content: list[StrictBlock] | str | None = None


class StrictLine(msgspec.Struct, gc=False):
    type: Any = None
    timestamp: str | None = None
    message: StrictMessage | None = None


strict_decoder = msgspec.json.Decoder(StrictLine)
