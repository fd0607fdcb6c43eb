"""The images one record carries and the ids that address them (csift §6.9).

An image rides inline on a record: a direct ``{"type":"image","source":{…}}`` content
block (a pasted screenshot), or an ``{"type":"image"}`` element of a ``tool_result``
block's content array (a tool's screenshot). A prompt typed while the agent worked and
folded into the running turn is written as a ``queued_command`` attachment whose
``prompt`` is the block list (``image_content``): an image pasted with it exists only
there, so its blocks are read as a user record's would be. Two ids address it:

- the LOCATOR ``L<line>i<n>``: the record's 1-based JSONL line and the image's 1-based
  ordinal among the record's images, direct and nested counted together in document
  order. Always unique within a transcript (the file is append-only).
- the HANDLE ``#N``: the ``[Image #N]`` number Claude Code writes into the prompt text and
  the model refers to. It is recovered by zipping the record's markers (its text blocks,
  in order) with its images, position by position, and ONLY when the two counts agree;
  otherwise no image of the record gets a handle (a count mismatch is reported through
  ``RecordImages.mismatch``, never guessed). Handles are per prompt: Claude Code reuses
  low numbers across prompts, so ``#N`` can name several images of one transcript.

API (stable: ``verbatim`` and ``search`` render these ids; keep it so)::

    image_content(rec) -> list | None   the block list a record's images ride in
    record_images(rec) -> RecordImages
        .images    tuple[RecordImage, ...] in document order
        .markers   tuple[int, ...]   the [Image #N] numbers of the record's text blocks
        .numbered  bool   handles assigned (marker count == image count, images present)
        .mismatch  bool   markers present but their count differs from the images'
    RecordImage: .index (the n of L<line>i<n>), .seq (N of #N, or None), .nested (inside a
        tool_result), .block_index (position in message.content), .source (the decoded
        ``source`` object, or None when absent or not an object)
    image_ids(rec, line) -> list[str]   one id per image: "#N" when known, else
        "L<line>i<n>"; empty without images. A record without a line (merged from the
        elicitation sidecar) yields its handles only.
    locator(line, index) -> "L<line>i<n>";   handle(seq) -> "#N"
    parse_markers(text) -> list[int]

Pure functions over a decoded ``Record``; they never raise on a malformed block.
"""

from __future__ import annotations

import re
from typing import Any

from pysift.model.fastdata import dataclass
from pysift.model.record import JsonObj, Record

_MARKER = re.compile(r"\[Image #([0-9]+)\]")


@dataclass(frozen=True, slots=True)
class RecordImage:
    """One image of a record."""

    index: int  # 1-based ordinal among the record's images (the n of L<line>i<n>)
    seq: int | None  # the [Image #N] number, None when the record's markers do not pair
    nested: bool  # an element of a tool_result block's content
    block_index: int  # position of the carrying block in message.content
    source: JsonObj | None  # the block's ``source`` object as decoded


@dataclass(frozen=True, slots=True)
class RecordImages:
    images: tuple[RecordImage, ...]
    markers: tuple[int, ...]

    @property
    def numbered(self) -> bool:
        """Whether the handles were assigned (one marker per image)."""
        return bool(self.images) and len(self.markers) == len(self.images)

    @property
    def mismatch(self) -> bool:
        """Markers present, but not one per image: no handle was assigned (not guessed)."""
        return bool(self.markers) and bool(self.images) and len(self.markers) != len(self.images)


_NONE = RecordImages((), ())


def locator(line: int, index: int) -> str:
    return f"L{line}i{index}"


def handle(seq: int) -> str:
    return f"#{seq}"


def parse_markers(text: str) -> list[int]:
    """The ``[Image #N]`` numbers of ``text``, in order of appearance."""
    return [int(m) for m in _MARKER.findall(text)]


def _source(item: JsonObj) -> JsonObj | None:
    source = item.get("source")
    return source if isinstance(source, dict) else None


def image_content(rec: Record) -> list[Any] | None:
    """The block list the record's images and markers ride in: ``message.content``, or
    the ``prompt`` list of a ``queued_command`` attachment (a prompt typed while the agent
    worked, folded into the running turn: Claude Code writes no user record for it, so
    an image pasted with it is nowhere else; reading only ``message.content`` left it out
    of every listing). None when the record carries no such list."""
    content = rec.content
    if isinstance(content, list):
        return content
    if rec.type == "attachment":
        body = rec.raw.get("attachment")
        if isinstance(body, dict) and body.get("type") == "queued_command":
            prompt = body.get("prompt")
            if isinstance(prompt, list):
                return prompt
    return None


def record_images(rec: Record) -> RecordImages:
    """The record's images in document order, with their handles when the markers pair."""
    content = image_content(rec)
    if not isinstance(content, list):
        return _NONE
    found: list[tuple[bool, int, JsonObj | None]] = []
    markers: list[int] = []
    for position, block in enumerate(content):
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "image":
            found.append((False, position, _source(block)))
        elif kind == "text":
            text = block.get("text")
            if isinstance(text, str) and "[Image #" in text:
                markers.extend(parse_markers(text))
        elif kind == "tool_result":
            inner: Any = block.get("content")
            if isinstance(inner, list):
                for item in inner:
                    if isinstance(item, dict) and item.get("type") == "image":
                        found.append((True, position, _source(item)))
    if not found:
        return RecordImages((), tuple(markers))
    paired = len(markers) == len(found)
    images = tuple(
        RecordImage(index=i, seq=markers[i - 1] if paired else None, nested=nested,
                    block_index=position, source=source)
        for i, (nested, position, source) in enumerate(found, start=1)
    )
    return RecordImages(images, tuple(markers))


def image_ids(rec: Record, line: int | None) -> list[str]:
    """One id per image of ``rec``: its ``#N`` handle when known, else its locator."""
    out = []
    for image in record_images(rec).images:
        if image.seq is not None:
            out.append(handle(image.seq))
        elif line is not None:
            out.append(locator(line, image.index))
    return out
