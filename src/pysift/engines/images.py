"""The images a set of transcripts carries: listing, dedup, addressing (csift §6.9).

The scan of one transcript is a byte pass: every line holding an image block's type key
(``"type":"image"`` in the file's own layout) is found by ``find`` over the whole buffer,
and only those lines are decoded. The base64 payload is never decoded or copied to list
it: each plain ``"data":"…"`` string value of such a line is cut out of the bytes handed
to orjson (a placeholder names its byte span in the file), so its length, padding and a
CRC-32 content fingerprint are read off the buffer in place. Extraction reads the payload
again from those offsets (``payload_span``), or re-decodes the line when the value held
escapes (a writer that spells ``/`` as ``\\/``).

Rows are in document order per transcript; the listing folds an image re-sent later in
the same transcript (same bytes) into its latest occurrence, keeping two different images
that share a ``#N``. ``--id`` resolves against every occurrence, never the folded list.
"""

from __future__ import annotations

import heapq
import os
import re
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import field
from datetime import datetime
from typing import TYPE_CHECKING

from pysift.core.decode import Tally, decode, unframed_lines
from pysift.core.image_handles import handle, image_content, locator, record_images
from pysift.core.rawjson import iter_key_lines, type_needles
from pysift.core.timez import parse_ts
from pysift.disk import fanout
from pysift.disk.layout import Transcript
from pysift.disk.lines import Buffer, LineCounter
from pysift.disk.mapped import open_buffer
from pysift.errors import SourceError, UsageError
from pysift.model.fastdata import dataclass
from pysift.model.record import Record

if TYPE_CHECKING:  # the turn map is built only for --turn and the ambiguity list
    from pysift.core.turns import TurnMap

# A string value shorter than this is left in the line (decoding it costs nothing).
CUT_MIN_BYTES = 256
_DATA_KEY = b'"data"'
_VALUE_OPEN = re.compile(rb'[ \t\r\n]*:[ \t\r\n]*"')
# The placeholder a cut value is replaced with: a NUL (never in base64), a per-process
# nonce (no transcript string can forge it), the span's index on its line.
_CUT_TAG = "\x00" + os.urandom(6).hex() + ":"
_CUT_TAG_JSON = _CUT_TAG.replace("\x00", "\\u0000").encode()

#: the media types a source can name, and the extension written for each
EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/jpg": "jpg", "image/gif": "gif",
              "image/webp": "webp", "image/svg+xml": "svg", "image/bmp": "bmp",
              "image/tiff": "tiff", "image/heic": "heic", "image/avif": "avif"}


@dataclass(frozen=True, slots=True)
class ImageRow:
    """One image occurrence: where it is, what it is, and how to read it back."""

    transcript: Transcript
    line: int
    index: int  # 1-based ordinal among the record's images
    seq: int | None  # the [Image #N] number, None when the markers do not pair
    markers: int  # [Image #N] markers of the record (a mismatch is reported)
    images_in_record: int
    nested: bool  # inside a tool_result
    source_kind: str | None  # "base64", "url", another kind verbatim; None without a source
    media_type: str | None
    inline: bool  # the source holds its bytes (a ``data`` string)
    b64_len: int
    est_bytes: int
    url: str | None
    record_uuid: str | None
    ts_utc: str | None
    line_span: tuple[int, int]  # the carrying line's [start, end) in the file
    payload_span: tuple[int, int] | None  # the base64 text's bytes in the file, when cut
    fingerprint: tuple[object, ...]

    @property
    def id(self) -> str:
        return locator(self.line, self.index)

    @property
    def handle(self) -> str:
        """``#N`` when known, else the locator (csift's display handle)."""
        return handle(self.seq) if self.seq is not None else self.id

    @property
    def has_bytes(self) -> bool:
        return self.inline

    @property
    def extension(self) -> str:
        """The extension the media type names (``bin`` when it names none)."""
        return EXTENSIONS.get((self.media_type or "").lower(), "bin")


@dataclass(slots=True)
class FileImages:
    transcript: Transcript
    rows: list[ImageRow] = field(default_factory=list)
    skipped_lines: int = 0
    error: str | None = None


# -- one transcript ----------------------------------------------------------------------------


def cut_payloads(buf: Buffer, start: int, end: int) -> tuple[bytes, list[tuple[int, int]]]:
    """The line ``buf[start:end]`` with every plain ``"data"`` string value of at least
    ``CUT_MIN_BYTES`` replaced by a placeholder, and the cut values' byte spans.

    A ``"data"`` followed by ``:`` is always a key (a quote inside a JSON string is
    escaped), so this never cuts into another string. A value holding a backslash is left
    whole: its first quote may be an escaped one, and orjson reads it as it stands.
    """
    find = buf.find
    at = find(_DATA_KEY, start, end)
    if at < 0:
        return bytes(buf[start:end]), []
    pieces: list[bytes] = []
    spans: list[tuple[int, int]] = []
    pos = start
    while at >= 0:
        after = at + len(_DATA_KEY)
        opened = _VALUE_OPEN.match(buf[after:after + 16])
        if opened is None:
            at = find(_DATA_KEY, after, end)
            continue
        value = after + opened.end()
        close = find(b'"', value, end)
        if close < 0:
            break
        if close - value >= CUT_MIN_BYTES and find(b"\\", value, close) < 0:
            pieces.append(buf[pos:value])
            pieces.append(_CUT_TAG_JSON + str(len(spans)).encode())
            spans.append((value, close))
            pos = close
            at = find(_DATA_KEY, close, end)
        else:
            at = find(_DATA_KEY, value, end)
    pieces.append(buf[pos:end])
    return b"".join(pieces), spans


def _cut_index(value: object, spans: list[tuple[int, int]]) -> int | None:
    if isinstance(value, str) and value.startswith(_CUT_TAG):
        tail = value[len(_CUT_TAG):]
        if tail.isdigit() and int(tail) < len(spans):
            return int(tail)
    return None


def estimated_bytes(b64_len: int, padding: int) -> int:
    """Decoded size of a base64 text of ``b64_len`` chars ending in ``padding`` ``=``."""
    return max(0, (b64_len // 4) * 3 - min(padding, 2))


def _crc(buf: Buffer, span: tuple[int, int]) -> int:
    with memoryview(buf) as view, view[span[0]:span[1]] as part:
        return zlib.crc32(part)


def _row(transcript: Transcript, buf: Buffer, rec: Record, line: int,
         line_span: tuple[int, int], spans: list[tuple[int, int]]) -> list[ImageRow]:
    found = record_images(rec)
    out = []
    for image in found.images:
        source = image.source or {}
        kind = source.get("type")
        data = source.get("data")
        media = source.get("media_type")
        url = source.get("url") if kind == "url" else None
        cut = _cut_index(data, spans)
        payload = spans[cut] if cut is not None else None
        if payload is not None:
            b64_len = payload[1] - payload[0]
            tail = buf[max(payload[0], payload[1] - 2):payload[1]]
            padding = len(tail) - len(tail.rstrip(b"="))
            fingerprint: tuple[object, ...] = ("b64", b64_len, _crc(buf, payload))
        elif isinstance(data, str):
            b64_len = len(data)
            padding = len(data[-2:]) - len(data[-2:].rstrip("="))
            fingerprint = ("b64", b64_len, zlib.crc32(data.encode("utf-8", "surrogatepass")))
        else:
            b64_len = padding = 0
            fingerprint = (("url", url) if isinstance(url, str)
                           else ("none", transcript.path, line, image.index))
        if not isinstance(kind, str):
            kind = "base64" if isinstance(data, str) else None
        out.append(ImageRow(
            transcript=transcript, line=line, index=image.index, seq=image.seq,
            markers=len(found.markers), images_in_record=len(found.images), nested=image.nested,
            source_kind=kind, media_type=media if isinstance(media, str) else None,
            inline=payload is not None or isinstance(data, str),
            b64_len=b64_len, est_bytes=estimated_bytes(b64_len, padding),
            url=url if isinstance(url, str) else None, record_uuid=rec.uuid,
            ts_utc=rec.timestamp, line_span=line_span, payload_span=payload,
            fingerprint=fingerprint,
        ))
    return out


def scan_buffer(transcript: Transcript, buf: Buffer) -> FileImages:
    """Every image of one transcript buffer, in document order."""
    out = FileImages(transcript)
    tally = Tally()
    counter = LineCounter(buf)
    parsed: set[int] = set()
    for start, end in iter_key_lines(buf, type_needles(buf, "image")):
        parsed.add(start)
        line = counter.line_at(start)
        cut, spans = cut_payloads(buf, start, end)
        rec = decode(cut, line, tally)
        if rec is not None:
            out.rows.extend(_row(transcript, buf, rec, line, (start, end), spans))
    # the malformed-line law: every line not decoded gets the shape check, so a torn or
    # junk line anywhere in the file is counted (once: a decoded line counted itself)
    out.skipped_lines = tally.malformed + sum(1 for start in unframed_lines(buf)
                                              if start not in parsed)
    return out


def scan_file(transcript: Transcript) -> FileImages:
    try:
        buf = open_buffer(transcript.path)
    except SourceError as exc:
        return FileImages(transcript, error=str(exc))
    return scan_buffer(transcript, buf)


FANOUT_MIN_FILES = 8


def run(transcripts: Sequence[Transcript]) -> list[FileImages]:
    """The engine entry: every transcript's images, in scope order; many files are spread
    over the cores (heaviest first). A file is one ``find`` pass, so it never splits."""
    weights = []
    for t in transcripts:
        try:
            weights.append(t.path.stat().st_size)
        except OSError:
            weights.append(0)
    return fanout.map_ordered(scan_file, list(transcripts), min_items=FANOUT_MIN_FILES,
                              weights=weights)


# -- ordering and dedup ------------------------------------------------------------------------


def _keys(rows: list[ImageRow]) -> list[float]:
    """Each row's merge time: its record's instant; an undated row takes the instant of
    the dated row before it in its transcript (the next one for leading rows), so it
    stays with its neighbours; a transcript without any time sorts last."""
    instants = [parse_ts(r.ts_utc) for r in rows]
    dated = [i.timestamp() for i in instants if i is not None]
    last = dated[0] if dated else float("inf")
    keys = []
    for instant in instants:
        if instant is not None:
            last = instant.timestamp()
        keys.append(last)
    return keys


def chronological(per_file: Iterable[list[ImageRow]]) -> list[ImageRow]:
    """One stream from per-transcript lists: each keeps its document order, and the
    transcripts interleave by record time."""
    decorated = [list(zip(_keys(rows), rows)) for rows in per_file if rows]
    return [row for _, row in heapq.merge(*decorated, key=lambda pair: pair[0])]


def fold_repeats(rows: Sequence[ImageRow]) -> tuple[list[ImageRow], int]:
    """The listing's rows: an image whose bytes recur later in the same transcript is
    shown once, at its latest occurrence; returns the rows kept and how many folded."""
    seen: set[tuple[object, ...]] = set()
    keep: list[ImageRow] = []
    for row in reversed(rows):
        key = (row.transcript.path, *row.fingerprint)
        if key in seen:
            continue
        seen.add(key)
        keep.append(row)
    keep.reverse()
    return keep, len(rows) - len(keep)


# -- filters -----------------------------------------------------------------------------------


def in_window(row: ImageRow, since: datetime | None, until: datetime | None) -> bool:
    if since is None and until is None:
        return True
    when = parse_ts(row.ts_utc)
    if when is None:
        return False
    return not ((since is not None and when < since) or (until is not None and when > until))


def transcripts_of(rows: Iterable[ImageRow]) -> list[Transcript]:
    """The distinct transcripts the rows come from, in first-seen order."""
    return list({row.transcript.path: row.transcript for row in rows}.values())


# -- addressing --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class IdSelector:
    """One ``--id`` item: a handle number (``seq``) or an exact locator."""

    text: str
    seq: int | None = None
    line: int | None = None
    index: int | None = None


_LOCATOR = re.compile(r"[Ll]?([0-9]+)i([0-9]+)")


def parse_ids(values: Iterable[str]) -> list[IdSelector]:
    """``--id`` values (repeatable, comma lists): bare digits are a ``#N`` handle,
    ``L<line>i<n>`` a locator. A ``#``-prefixed item is refused (an unquoted ``#`` starts
    a shell comment, so ``--id #3`` reaches no program: the bare number is the one input
    form); an empty item is skipped, an empty value refused."""
    out: list[IdSelector] = []
    for value in values:
        items = [item.strip() for item in value.split(",")]
        if not any(items):
            raise UsageError("--id is empty; give a handle number (`--id 3`) or a locator "
                             "(`--id L12i1`), as `pysift image` lists them")
        for item in items:
            if not item:
                continue
            if item.startswith("#"):
                bare = item.lstrip("#")
                raise UsageError(
                    f"--id `{item}`: drop the '#' and pass the bare number (`--id {bare}`); the "
                    "listing shows handles as #N, but an unquoted # starts a shell comment, so "
                    "ids are typed without it (or as the L<line>i<n> locator)")
            located = _LOCATOR.fullmatch(item)
            if located is not None:
                line, index = int(located.group(1)), int(located.group(2))
                if line < 1 or index < 1:
                    raise UsageError(f"--id `{item}`: lines and image ordinals count from 1")
                out.append(IdSelector(item, line=line, index=index))
            elif item.isdigit() and item.isascii():
                out.append(IdSelector(item, seq=int(item)))
            else:
                raise UsageError(
                    f"--id `{item}` is neither a handle number (`3`, the #3 of the listing) "
                    "nor a locator (`L6812i2`)")
    return out


@dataclass(frozen=True, slots=True)
class Ambiguity:
    seq: int
    occurrences: tuple[ImageRow, ...]  # distinct images, each at its latest occurrence


def distinct_images(rows: Sequence[ImageRow]) -> list[ImageRow]:
    """The distinct images among ``rows`` (by content), each at its latest occurrence."""
    kept, _ = fold_repeats(rows)
    return kept


@dataclass(slots=True)
class Resolution:
    selected: list[ImageRow] = field(default_factory=list)
    ambiguous: list[Ambiguity] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def resolve_ids(selectors: Sequence[IdSelector], rows: Sequence[ImageRow]) -> Resolution:
    """What each selector names among ``rows`` (one transcript's occurrences, filtered):
    a locator its one occurrence; a handle the one image it names (its latest
    occurrence), or an ambiguity when it names several different images."""
    out = Resolution()
    chosen: set[tuple[int, int]] = set()

    def take(row: ImageRow) -> None:
        if (row.line, row.index) not in chosen:
            chosen.add((row.line, row.index))
            out.selected.append(row)

    for sel in selectors:
        if sel.seq is None:
            match = next((r for r in rows if r.line == sel.line and r.index == sel.index), None)
            if match is None:
                out.missing.append(locator(sel.line or 0, sel.index or 0))
            else:
                take(match)
            continue
        distinct = distinct_images([r for r in rows if r.seq == sel.seq])
        if not distinct:
            out.missing.append(handle(sel.seq))
        elif len(distinct) == 1:
            take(distinct[0])
        elif all(a.seq != sel.seq for a in out.ambiguous):
            out.ambiguous.append(Ambiguity(sel.seq, tuple(distinct)))
    return out


HANDLES_SHOWN = 24


def miss_message(missing: Sequence[str], rows: Sequence[ImageRow], what: str) -> str:
    """The error for ids that name nothing: which handles exist, where #N comes from."""
    present = sorted({r.seq for r in rows if r.seq is not None})
    unnumbered = len(distinct_images([r for r in rows if r.seq is None]))
    if not present and not unnumbered:
        inventory = f"{what} carries no image at all"
    else:
        parts = []
        if present:
            shown = " ".join(f"#{n}" for n in present[:HANDLES_SHOWN])
            more = f" (+{len(present) - HANDLES_SHOWN} more)" if len(present) > HANDLES_SHOWN \
                else ""
            parts.append(f"handles present: {shown}{more}")
        if unnumbered:
            parts.append(f"{unnumbered} unnumbered image(s), addressed by their L<line>i<n> "
                         "locator")
        inventory = "; ".join(parts)
    return (f"--id matched no image: {', '.join(missing)} ({inventory}). A #N handle is "
            "Claude Code's own [Image #N] number from the prompt, not a count pysift makes: "
            "handles can start past #1 and skip numbers, so a missing one never reached this "
            "transcript. Run `pysift image` on the same target for the full listing")


def require_one_transcript(rows: Sequence[ImageRow], flag: str) -> None:
    found = transcripts_of(rows)
    if len(found) > 1:
        raise UsageError(
            f"{flag} is per transcript (line numbers, #N handles and turns are), but "
            f"{len(found)} transcripts in scope carry images; pin one with "
            "`@<uuid> --no-subagents` (or `@<agent-id>` for a subagent's)")


def turn_map_of(transcript: Transcript) -> tuple[Buffer, TurnMap]:
    """The transcript's buffer and turn map (turns numbered as search and show number
    them), for ``--turn`` and the ambiguity list; a single transcript by then."""
    from pysift.core.turns import build_turn_map

    buf = open_buffer(transcript.path)
    return buf, build_turn_map(buf, subagent=transcript.is_subagent)


def turn_of(turns: TurnMap, row: ImageRow) -> int | None:
    """The row's turn index; None for a superseded draft (outside turn numbering)."""
    start = row.line_span[0]
    return None if turns.is_draft_offset(start) else turns.turn_of_offset(start)


def record_of(buf: Buffer, row: ImageRow) -> Record | None:
    """The row's record decoded again, its payloads left out (their text is not needed)."""
    cut, _ = cut_payloads(buf, *row.line_span)
    return decode(cut, row.line)


_WS = re.compile(r"\s+")


def excerpt_around(rec: Record | None, seq: int, radius: int = 48) -> str:
    """The record's prompt text around its ``[Image #seq]`` marker, one-lined: ``radius``
    characters each side (the head when the marker is absent)."""
    if rec is None:
        return ""
    blocks = image_content(rec) or []  # a queued prompt's words are its attachment's
    texts = [b.get("text") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
    flat = _WS.sub(" ", " ".join(t for t in texts if isinstance(t, str))).strip()
    marker = f"[Image #{seq}]"
    at = flat.find(marker)
    if at < 0:
        return flat[:2 * radius]
    return flat[max(0, at - radius):at + len(marker) + radius]


# -- the payload -------------------------------------------------------------------------------


class PayloadError(Exception):
    """An image whose bytes cannot be had: the message says why."""


_B64_SPACE = b" \t\r\n"


def payload_text(row: ImageRow) -> bytes:
    """The base64 text of ``row`` as the file holds it now."""
    if not row.has_bytes:
        raise PayloadError(f"its source is {row.source_kind or 'missing'}, with no inline bytes")
    buf = open_buffer(row.transcript.path)
    if row.payload_span is not None:
        return bytes(buf[row.payload_span[0]:row.payload_span[1]])
    rec = decode(bytes(buf[row.line_span[0]:row.line_span[1]]), row.line)
    images = record_images(rec).images if rec is not None else ()
    source = images[row.index - 1].source if len(images) >= row.index else None
    data = source.get("data") if source is not None else None
    if not isinstance(data, str):
        raise PayloadError("the record no longer holds it (was the transcript rewritten?)")
    return data.encode("utf-8", "surrogatepass")


def decode_base64(text: bytes) -> bytes:
    """Standard-alphabet base64 (line breaks tolerated); a character outside the alphabet,
    a wrong padding or a cut-short text raises ``PayloadError``, never a wrong file."""
    import base64
    import binascii

    try:
        return base64.b64decode(text.translate(None, _B64_SPACE), validate=True)
    except (binascii.Error, ValueError) as exc:
        length = len(text)
        raise PayloadError(f"its base64 text ({length} chars) does not decode ({exc}); "
                           "the payload is damaged or cut short") from None
