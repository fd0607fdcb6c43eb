"""Strings that are not valid Unicode, written whole instead of crashing a writer (SPEC §5).

Two kinds reach the writers. Python hands an undecodable byte of a path or an argument
over as a lone surrogate U+DC80-U+DCFF (``surrogateescape``: argv, ``os.listdir``), so a
home or a transcript named with a Latin-1 byte shows up in headers and rows. And a
transcript may hold a lone ``\\ud83d`` escape (a cut emoji; Node writes them, the stdlib
``json`` fallback of ``core.decode`` keeps them). UTF-8 cannot encode either: orjson and a
strict stdout refuse the whole line, after the header row was already out.

How they are written (decided, SPEC §5):

- JSON must stay valid UTF-8, so the escaped byte becomes the text ``\\xNN`` and any
  other lone surrogate the text ``\\uXXXX`` (lowercase hex), as Python's
  ``backslashreplace`` shows them.
- Text writes the escaped byte itself back (the path's true bytes, as ``ls`` and ``rg``
  print them) and any other lone surrogate as ``\\uXXXX``.

The normal path pays nothing: callers try the plain encoding first and come here only
when it fails.
"""

from __future__ import annotations

import codecs
from typing import Any

#: The codec error handler of the text writer (registered by ``register_text_errors``).
TEXT_ERRORS = "pysift-surrogates"


def _spelled(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte smuggled through surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def escaped(text: str) -> str:
    """``text`` with every lone surrogate spelled out (``\\xNN`` or ``\\uXXXX``)."""
    return "".join(_spelled(c) if "\ud800" <= c <= "\udfff" else c for c in text)


def json_safe(obj: Any) -> Any:
    """``obj`` with every string UTF-8 cannot encode replaced by its ``escaped`` form.

    Walks dicts (keys too), lists and tuples; anything else is returned as it is.
    """
    if isinstance(obj, str):
        try:
            obj.encode("utf-8")
        except UnicodeEncodeError:
            return escaped(obj)
        return obj
    if isinstance(obj, dict):
        return {json_safe(key): json_safe(value) for key, value in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(value) for value in obj]
    return obj


def _text_handler(exc: UnicodeError) -> tuple[bytes, int]:
    """An escaped byte goes back as itself; anything else unencodable is spelled out."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = bytearray()
    for char in exc.object[exc.start : exc.end]:
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:
            out.append(code - 0xDC00)
        else:
            out += _spelled(char).encode("ascii")
    return bytes(out), exc.end


def register_text_errors() -> str:
    """Register ``TEXT_ERRORS`` (idempotent) and return its name."""
    codecs.register_error(TEXT_ERRORS, _text_handler)
    return TEXT_ERRORS
