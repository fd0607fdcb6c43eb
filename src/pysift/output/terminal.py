"""Text output a terminal can show but never obey, in colour where asked.

Transcripts store whatever a tool printed: ANSI sequences from a coloured test run, a
carriage return, a bell, an OSC title or hyperlink escape. Written to a terminal as they
are, they move the cursor, rewrite lines, retitle the window. Every text writer goes
through ONE function, ``visible``: each C0 and C1 control character but the newline and
the tab is written as the visible escape ``\\xNN`` (``\\x1b[31m`` reads as text). A byte
0x80-0x9F that Python handed over undecoded (a file name's byte) is an 8-bit control to
some terminals: it is written ``\\xNN`` too. ``--raw`` (verbatim bytes) and JSON (whose
strings escape every control) never pass through here: they stay byte-faithful.

Colour (like ripgrep: paths magenta, line numbers green, matches bold red) is an
attribute of the stream, not of the text: ``cli.emit`` hands ``report.text`` a
``TextOut`` that paints when the user's ``--color``/``NO_COLOR`` and the terminal say
so. A writer marks what a span IS with ``paint(out, text, role)``; on a plain stream (a
pipe, a file, a test's StringIO) that is just the text, so colour can never change what
a script reads. A command gets the escaping by writing through ``report.text`` at all,
and its colours by calling ``paint`` for its ids, paths, line numbers and labels.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TextIO

__all__ = ["ROLES", "HeldTextOut", "TextOut", "paint", "paint_matches", "painted", "segments_out",
           "shows_as_is", "verbatim", "visible", "wants_colour", "write_shown"]

# C0 but tab and newline, DEL, C1; and the lone surrogates of undecodable bytes 0x80-0x9F
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\udc80-\udc9f]")


def _escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    if code >= 0xDC80:  # an undecodable byte (surrogateescape): the byte it stands for
        code -= 0xDC00
    return f"\\x{code:02x}"


def visible(text: str) -> str:
    """``text`` with every control character but newline and tab written ``\\xNN``."""
    if _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub(_escape, text)


def shows_as_is(text: str) -> bool:
    """``visible(text)`` is ``text``: it holds no control character to escape. A writer
    that tests its pieces where they are made (a listing's rows, in the workers that lay
    them out) hands the joined text to ``write_shown``, and the parent does not scan it
    again (``visible`` over a 2 MB listing of corpus B was ~10 ms of serial time)."""
    return _CONTROL.search(text) is None


def utf8_as_is(text: str) -> bytes | None:
    """The UTF-8 of ``text`` when it shows as is (``shows_as_is``) and holds no lone
    surrogate, else None (the caller escapes it: ``visible``, the text writer's handler).
    The test runs on the bytes, which a caller writing them out makes anyway: one SIMD
    search for the C0 controls and DEL, and a look at the byte after each ``\\xc2`` for
    the C1 ones (U+0080-U+009F); the regex over the text was ~5 us a listing row."""
    try:
        data = text.encode("utf-8")  # strict: a lone surrogate is no UTF-8
    except UnicodeEncodeError:
        return None
    import stringzilla

    found = stringzilla.Str(data)
    if found.find_first_of(_C0_AND_DEL) >= 0:
        return None
    at = found.find(b"\xc2")
    while at >= 0:
        if data[at + 1] < 0xA0:  # (a \xc2 always has its continuation byte)
            return None
        at = found.find(b"\xc2", at + 2)
    return data


_C0_AND_DEL = bytes([*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F])


# What a painted span is, and how ripgrep-like output colours it (rich style strings).
ROLES: dict[str, str] = {
    "path": "magenta",       # a transcript or file path (rg's path colour)
    "line": "green",         # a jsonl line number, L123 (rg's line-number colour)
    "match": "bold red",     # the pattern's match in an excerpt (rg's match colour)
    "id": "bold",            # a session or agent id, an exchange's id token
    "label": "cyan",         # a label zone (role glyph, dotted label, direction)
    "when": "dim",           # a timestamp
    "number": "bold",        # a figure in a census or a total
}
RESET = "\x1b[0m"


def _palette() -> dict[str, str]:
    """Each role's SGR opening sequence, from rich's styles (standard 16 colours, which
    every colour terminal renders; imported only when a run paints)."""
    from rich.color import ColorSystem
    from rich.style import Style

    out = {}
    for role, spec in ROLES.items():
        sample = Style.parse(spec).render("\0", color_system=ColorSystem.STANDARD)
        out[role] = sample.split("\0", 1)[0]
    return out


class TextOut:
    """The stream ``report.text`` writes to: ``write`` shows controls as escapes;
    ``paint`` also colours a span when ``colour`` is on."""

    __slots__ = ("_palette", "_stream")

    def __init__(self, stream: TextIO, colour: bool = False) -> None:
        self._stream = stream
        self._palette = _palette() if colour else None

    @property
    def colour(self) -> bool:
        return self._palette is not None

    def write(self, text: str) -> int:
        return self._stream.write(visible(text))

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def write_shown(self, text: str) -> None:
        """``text`` known to show as is (``shows_as_is``): written without the scan."""
        self._stream.write(text)

    def paint(self, text: str, role: str) -> None:
        shown = visible(text)
        if self._palette is None or not shown:
            self._stream.write(shown)
            return
        self._stream.write(self._palette.get(role, "") + shown + RESET)

    def verbatim(self, text: str) -> None:
        """A file's own content (recover's restore, csift's clean-to-pipe ``> file``):
        written as it is to a pipe or a file, so the copy is byte for byte the file (a
        CRLF, an ESC in a test fixture); at a terminal, shown as all other text is."""
        isatty = getattr(self._stream, "isatty", None)
        if isatty is not None and isatty():
            self.write(text)
        else:
            self._stream.write(text)

    def write_encoded(self, data: bytes) -> None:
        """``data`` made for this stream already (``terminal.write_encoded``): to its
        bytes, after its text; decoded and written as text where it has no bytes."""
        buffer = getattr(self._stream, "buffer", None)
        if buffer is None:
            self._stream.write(data.decode("utf-8", "surrogateescape"))
            return
        self._stream.flush()
        buffer.write(data)

    def flush(self) -> None:
        self._stream.flush()

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self._stream, name)


class HeldTextOut(TextOut):
    """A ``TextOut`` that holds what is written to a plain stream and writes it in pieces
    of about ``_HOLD_CHARS``, each escaped once (``visible`` works character by
    character, so one escape of the joined text is the escapes of its parts): a text view
    of thousands of lines (a ``files`` rollup, a search's hits) was ~70,000 escapes and
    writes. A painted span, a file's verbatim bytes and ``flush`` write out what is held
    first, so the order on the stream is the order of the calls. ``emit`` renders a
    report's text through one and flushes it."""

    __slots__ = ("_held", "_size")

    def __init__(self, stream: TextIO, colour: bool = False) -> None:
        super().__init__(stream, colour)
        self._held: list[str] = []
        self._size = 0

    def write(self, text: str) -> int:
        self._held.append(text)
        self._size += len(text)
        if self._size >= _HOLD_CHARS:
            self._release()
        return len(text)

    def paint(self, text: str, role: str) -> None:
        if self._palette is None or not text:
            self.write(text)
            return
        self._release()
        super().paint(text, role)

    def verbatim(self, text: str) -> None:
        self._release()
        super().verbatim(text)

    def write_shown(self, text: str) -> None:
        self._release()
        super().write_shown(text)

    def write_encoded(self, data: bytes) -> None:
        self._release()
        super().write_encoded(data)

    def flush(self) -> None:
        self._release()
        super().flush()

    def release(self) -> None:
        """Hand what is held to the stream, without flushing it (a render that failed:
        its text reaches the stream as it did before it was held, and the stream is
        flushed when the process leaves)."""
        self._release()

    def _release(self) -> None:
        if self._held:
            text = "".join(self._held)
            self._held.clear()
            self._size = 0
            self._stream.write(visible(text))


_HOLD_CHARS = 1 << 20


def wants_colour(out: TextIO) -> bool:
    """Whether ``out`` paints (so a writer can skip work that only colour needs)."""
    return bool(getattr(out, "colour", False))


def paint(out: TextIO, text: str, role: str) -> None:
    """Write ``text`` as a span of kind ``role``: coloured on a painting stream, the plain
    text anywhere else."""
    painter = getattr(out, "paint", None)
    if painter is None:
        out.write(text)
    else:
        painter(text, role)


def write_shown(out: TextIO, text: str) -> None:
    """Write ``text`` that holds no control character (``shows_as_is`` said so where it
    was made): a ``TextOut`` writes it without scanning it again; any other stream takes
    it as it is, as it would take any text."""
    writer = getattr(out, "write_shown", None)
    if writer is None:
        out.write(text)
    else:
        writer(text)


def write_encoded(out: TextIO, data: bytes) -> None:
    """Write UTF-8 ``data`` made for a plain stream ahead of it (a listing's rows, laid out
    and encoded in the workers: controls escaped, lone surrogates as the text writer
    spells them): a ``TextOut`` hands it to its stream's bytes after what it holds; any
    other stream takes it decoded (``surrogateescape`` gives a path's bytes back)."""
    writer = getattr(out, "write_encoded", None)
    if writer is None:
        out.write(data.decode("utf-8", "surrogateescape"))
    else:
        writer(data)


def verbatim(out: TextIO, text: str) -> None:
    """Write a file's own content: unchanged, but through a ``TextOut`` at a terminal
    (``TextOut.verbatim``)."""
    writer = getattr(out, "verbatim", None)
    if writer is None:
        out.write(text)
    else:
        writer(text)


def paint_matches(out: TextIO, text: str, spans: Sequence[tuple[int, int]]) -> None:
    """``text`` with the ``spans`` (sorted, non-overlapping offsets) painted as matches."""
    at = 0
    for start, end in spans:
        if start < at or end <= start:
            continue
        out.write(text[at:start])
        paint(out, text[start:end], "match")
        at = end
    out.write(text[at:])


Segment = tuple[str, str | None]  # (text, role or None for plain)


def painted(*parts: str | Segment) -> list[Segment]:
    """Segments for text laid out ahead of its stream (a worker's pre-rendered row): plain
    strings and ``(text, role)`` pairs, written later by ``segments_out``."""
    return [(p, None) if isinstance(p, str) else p for p in parts]


def segments_out(out: TextIO, segments: Iterable[Segment]) -> None:
    for text, role in segments:
        if role is None:
            out.write(text)
        else:
            paint(out, text, role)
