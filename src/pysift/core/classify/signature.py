"""The thinking-signature decoder: narration-tagged thinking (§5.1, v0.9.2).

A thinking block's base64 ``signature`` is a protobuf message; the tag at path 2→1→8
says what the thinking is. ``narration`` makes the block ``agent.thinking.narration``;
any other tag, or anything that does not decode, is plain ``agent.thinking``.
"""

from __future__ import annotations

import base64
import binascii

from pysift.model import labels as L

NARRATION = "narration"
# "narration" as it appears in base64 at each of the three byte alignments. A signature
# containing none of them cannot decode to the tag, so the (whole-string) decode is skipped.
_NARRATION_B64 = ("bmFycmF0aW9u", "5hcnJhdGlvb", "uYXJyYXRpb2")


def _varint(data: bytes, pos: int) -> tuple[int, int] | None:
    value = 0
    for i in range(10):
        if pos + i >= len(data):
            return None
        byte = data[pos + i]
        value |= (byte & 0x7F) << (7 * i)
        if not byte & 0x80:
            return value, i + 1
    return None


def _last_len_delimited(data: bytes, want: int) -> bytes | None:
    """The payload of the LAST wire-type-2 field ``want`` at one protobuf level.

    Varint and fixed fields are skipped; an unknown wire type or any truncation is None.
    """
    pos, found, size = 0, None, len(data)
    while pos < size:
        key = _varint(data, pos)
        if key is None:
            return None
        pos += key[1]
        number, wire = key[0] >> 3, key[0] & 7
        if wire == 0:
            skip = _varint(data, pos)
            if skip is None:
                return None
            pos += skip[1]
        elif wire in (1, 5):
            pos += 8 if wire == 1 else 4
            if pos > size:
                return None
        elif wire == 2:
            length = _varint(data, pos)
            if length is None:
                return None
            pos += length[1]
            end = pos + length[0]
            if end > size:
                return None
            if number == want:
                found = data[pos:end]
            pos = end
        else:
            return None
    return found


def _b64decode(text: str) -> bytes | None:
    """Standard (else URL-safe) base64, padding optional, embedded whitespace ignored."""
    compact = "".join(text.split()) if _has_whitespace(text) else text
    try:
        data = compact.encode("ascii")
    except UnicodeEncodeError:
        return None
    data += b"=" * (-len(data) % 4)
    for altchars in (None, b"-_"):
        try:
            return base64.b64decode(data, altchars=altchars, validate=True)
        except (binascii.Error, ValueError):
            continue
    return None


_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_SLOW: object = object()
_HEAD_CHARS = 512  # decoded up front (384 bytes): where a signature keeps its tag


class _Lazy:
    """The bytes of a valid, padded standard-base64 text: its head decoded up front, any
    later window decoded when the walk reads there (a signature's tag sits in its first
    ~150 bytes; the rest is an opaque blob the walk steps over by its length)."""

    __slots__ = ("head", "size", "text")

    def __init__(self, text: bytes, size: int) -> None:
        self.text = text
        self.size = size
        self.head = binascii.a2b_base64(text[:_HEAD_CHARS])

    def get(self, start: int, stop: int) -> bytes:
        """Bytes ``[start, stop)``, clipped to the decoded size."""
        head = self.head
        if stop <= len(head):
            return head[start:stop]
        first, last = start // 3, (min(stop, self.size) + 2) // 3  # the quads holding them
        return binascii.a2b_base64(self.text[first * 4:last * 4])[start - first * 3:
                                                                   stop - first * 3]


def _lazy_last(data: _Lazy, lo: int, hi: int, want: int) -> tuple[int, int] | None:
    """``_last_len_delimited`` over ``data[lo:hi]``: the span of the payload of the LAST
    wire-type-2 field ``want``, None on any failure (the same walk, the same failures)."""
    pos, found, get = lo, None, data.get
    while pos < hi:
        key = _varint(get(pos, min(hi, pos + 10)), 0)
        if key is None:
            return None
        pos += key[1]
        number, wire = key[0] >> 3, key[0] & 7
        if wire == 0:
            skip = _varint(get(pos, min(hi, pos + 10)), 0)
            if skip is None:
                return None
            pos += skip[1]
        elif wire in (1, 5):
            pos += 8 if wire == 1 else 4
            if pos > hi:
                return None
        elif wire == 2:
            length = _varint(get(pos, min(hi, pos + 10)), 0)
            if length is None:
                return None
            pos += length[1]
            end = pos + length[0]
            if end > hi:
                return None
            if number == want:
                found = (pos, end)
            pos = end
        else:
            return None
    return found


def _lazy_tag(text: bytes, size: int) -> str | None:
    """The tag of the padded standard-base64 ``text`` of ``size`` decoded bytes, decoded
    only where the walk reads (``_Lazy``)."""
    data = _Lazy(text, size)
    span = (0, data.size)
    for field_number in (2, 1, 8):
        found = _lazy_last(data, span[0], span[1], field_number)
        if found is None:
            return None
        span = found
    try:
        return data.get(*span).decode("utf-8")
    except UnicodeDecodeError:
        return None


_ALPHABET_TEXT = _ALPHABET.decode("ascii")
_first_not_of: object = None


def _fast_tag(signature: str) -> str | object | None:
    """``narration_tag`` for the common shape, without decoding the whole string: a pure
    standard-alphabet text, unpadded (its length not one more than a multiple of four) or
    padded to a multiple of four with one or two ``=``, which the strict decoder always
    accepts. ``_SLOW`` for anything else (the full decode then decides).

    The alphabet is checked by stringzilla's set search straight on the string
    (``find_first_not_of``: ~0.2 us for a 2 KB signature, where ``bytes.translate``
    after ``encode`` took ~1.9 us, a third of the whole call; ``stats`` reads every
    thinking signature of a scope): a text whose first non-alphabet character starts
    its one or two trailing ``=`` is padded standard base64."""
    global _first_not_of
    if not signature.isascii():
        return _SLOW
    if _first_not_of is None:
        from stringzilla import find_first_not_of

        _first_not_of = find_first_not_of
    size = len(signature)
    bad: int = _first_not_of(signature, _ALPHABET_TEXT)  # type: ignore[operator]
    text = signature.encode("ascii")
    if bad >= 0:
        if size % 4 or signature[bad:] not in ("=", "=="):
            return _SLOW
        core = bad
    else:
        if size % 4 == 1:
            return _SLOW
        core = size
        if size % 4:
            text += b"=" * (-size % 4)
    return _lazy_tag(text, core * 3 // 4)


def narration_tag(signature: object) -> str | None:
    """The tag hidden in a thinking block's base64 ``signature`` (protobuf path 2→1→8).

    Signatures reach 200K+ chars: a plain standard-base64 one is validated whole (one C
    pass) but decoded only where the walk reads (``_fast_tag``); any other is decoded
    whole. Any failure - absent or empty signature, bad base64, truncation, unknown wire
    type, non-UTF-8 - is None, which callers treat as plain ``agent.thinking``. The tag
    set is open; only ``narration`` selects the narration leaf.
    """
    if not isinstance(signature, str) or not signature:
        return None
    fast = _fast_tag(signature)
    if fast is not _SLOW:
        return fast  # type: ignore[return-value]
    return full_tag(signature)


def full_tag(signature: str) -> str | None:
    """``narration_tag`` by decoding the whole string (any shape base64 allows: embedded
    whitespace, the URL-safe alphabet, odd padding)."""
    data = _b64decode(signature)
    if data is None:
        return None
    level = data
    for field_number in (2, 1, 8):
        nested = _last_len_delimited(level, field_number)
        if nested is None:
            return None
        level = nested
    try:
        return level.decode("utf-8")
    except UnicodeDecodeError:
        return None


def thinking_leaf(signature: object) -> str:
    """``agent.thinking.narration`` iff the signature's tag reads ``narration``.

    Hot-path gate: a signature carrying none of the tag's three base64 alignments cannot
    decode to it, so the decode is skipped (whitespace inside the base64 could split a
    needle, so it conservatively re-opens the gate).
    """
    if not isinstance(signature, str) or not signature:
        return L.AGENT_THINKING
    if not any(needle in signature for needle in _NARRATION_B64) and not _has_whitespace(
        signature
    ):
        return L.AGENT_THINKING
    return L.AGENT_THINKING_NARRATION if narration_tag(signature) == NARRATION else L.AGENT_THINKING


def _has_whitespace(text: str) -> bool:
    return any(ch in text for ch in " \t\r\n")
