"""What the fold index harvests from text, lexically (SEED_INDEX_SPEC v2): error lines,
exact identifiers, path-shaped tokens. No model, no paraphrase: the same text always
gives the same harvest, in the same order.

The text is scanned as UTF-8 bytes by RE2 (linear time, whatever a tool printed), its
matcher called directly: the wrapper's match objects cost more than the scan."""

from __future__ import annotations

import re2
from re2 import _re2

ERROR_LINE_CHARS = 240
_ANCHOR = _re2.RE2.Anchor.UNANCHORED
_OPTIONS = re2.Options()
_OPTIONS.max_mem = 64 << 20

# The error lexicon: lowercase failure words included (the class every summarization
# arm drops), npm's and the kernel's fixed phrases, the ballot cross, tracebacks, and
# error-class markers (`error`, `ERROR`, `TypeError`, `error[E0308]`, a Rust panic).
_ERROR = re2.compile(
    rb"(?i:\bfail(?:ed|ure|ures|s|ing)?\b|\bfatal\b|\berrors?\b)"
    rb"|npm ERR!|Segmentation fault|Permission denied|" + "✗".encode() +
    rb"|Traceback \(most recent call last\)|\b[A-Z]\w*(?:Error|Exception)\b"
    rb"|\berror\[E\d+\]|panicked at", _OPTIONS)._regexp
# a hit right after these words reports that there is none ("0 failed", "no errors")
_NONE_BEFORE = (b"0 ", b"no ", b"No ", b"zero ")

# Exact identifiers recovery grep needs: snake/SCREAMING case with an underscore,
# camelCase and PascalCase with an inner capital, 0x hex, uuids, hex runs of 8-64 holding
# a digit and a letter (hashes, ids), dotted versions, numbers of 5+ digits.
_IDENTIFIER = re2.compile(
    rb"\b(?:[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*[A-Za-z0-9]"
    rb"|[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*"
    rb"|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*"
    rb"|0x[0-9a-fA-F]+"
    rb"|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    rb"|[0-9a-f]*[0-9][0-9a-f]*[a-f][0-9a-f]*|[0-9a-f]*[a-f][0-9a-f]*[0-9][0-9a-f]*"
    rb"|v?\d+\.\d+\.\d+"
    rb"|\d{5,})\b", _OPTIONS)._regexp
_HEX_MIN, _HEX_MAX = 8, 64
_HEX = frozenset(b"0123456789abcdef")

# A path: separators and a final segment with an extension, or an absolute or
# home-relative path of two segments or more; a `://` URL is not one. A Windows path is
# one too when it is absolute (a drive letter or a UNC share, either separator): its
# segments may hold non-ASCII letters (`D:\Work\客户\报告.md`), 8.3 short names
# (`ADMINI~1`) and admin shares (`C$`), but not CJK or full-width punctuation, which ends
# a path written into prose without a space. The leading separator (or the start) is
# group 1's neighbour, not part of it.
_WSEG = (rb"(?:[\w.@+~$-]|[^\x00-\x7f\x{3000}-\x{303f}\x{ff00}-\x{ffef}])")
_PATH = re2.compile(
    rb"(?:^|[^\w/.~:@+-])("
    rb"(?:~/|/|\./|\.\./)?(?:[\w.@+-]+/)+[\w.@+-]*\w\.[A-Za-z0-9]{1,10}"
    rb"|(?:~/|/)(?:[\w.@+-]+/)+[\w.@+-]+"
    rb"|[A-Za-z]:[\\/](?:" + _WSEG + rb"+[\\/])+" + _WSEG + rb"+"
    rb"|[A-Za-z]:[\\/]" + _WSEG + rb"*\w\.[A-Za-z0-9]{1,10}"
    rb"|\\\\" + _WSEG + rb"+\\" + _WSEG + rb"+(?:\\" + _WSEG + rb"+)*"
    rb")(?:[^\w/]|$)", _OPTIONS)._regexp


def _spans(regexp, data: bytes, group: int = 0):  # type: ignore[no-untyped-def]
    """``(start, end)`` of every match (of ``group``) in ``data``."""
    match = regexp.Match
    pos, size = 0, len(data)
    while pos <= size:
        spans = match(_ANCHOR, data, pos, size)
        start, end = spans[0]
        if start < 0:
            return
        found = spans[group]
        if found[0] >= 0:
            yield found
        pos = max(end, pos + 1) if group == 0 else max(found[1], pos + 1)


def error_lines(data: bytes) -> list[str]:
    """The lines of ``data`` (UTF-8) holding an error-lexicon hit, in order, blank-trimmed,
    each clipped to 240 characters (the last one ``…`` when clipped)."""
    out: list[str] = []
    match = _ERROR.Match
    pos, size = 0, len(data)
    while pos < size:
        start, end = match(_ANCHOR, data, pos, size)[0]
        if start < 0:
            break
        if any(data.endswith(word, max(0, start - len(word)), start) for word in _NONE_BEFORE):
            pos = end
            continue
        head = data.rfind(b"\n", 0, start) + 1
        tail = data.find(b"\n", end)
        tail = size if tail < 0 else tail
        line = data[head:tail].decode("utf-8", "replace").strip()
        if len(line) > ERROR_LINE_CHARS:
            line = line[:ERROR_LINE_CHARS - 1] + "…"
        if line:
            out.append(line)
        pos = tail + 1
    return out


def identifiers(data: bytes) -> list[str]:
    out = []
    for start, end in _spans(_IDENTIFIER, data):
        token = data[start:end]
        if not token.isdigit() and set(token) <= _HEX and not _HEX_MIN <= len(token) <= _HEX_MAX:
            continue  # a hex run outside 8-64 characters
        out.append(token.decode("utf-8", "replace"))
    return out


# a product token's version (``Mozilla/5.0``, ``Chrome/147.0.0.0``): a relative token
# whose last segment is a dotted number names no file
_VERSION_TAIL = re2.compile(rb"/\d+(?:\.\d+)+$", _OPTIONS)._regexp
_ROOTED = (b"/", b"~/", b"./", b"../")


def path_tokens(data: bytes) -> list[str]:
    """The path-shaped tokens of ``data``, in order: no ``://`` URL, no product version
    (``Safari/537.36``; an absolute ``/opt/app/1.2`` stays a path)."""
    out = []
    version = _VERSION_TAIL.Match
    for start, end in _spans(_PATH, data, group=1):
        token = data[start:end]
        if b"//" in token:
            continue
        if (not token.startswith(_ROOTED)
                and version(_ANCHOR, token, 0, len(token))[0][0] >= 0):
            continue
        out.append(token.decode("utf-8", "replace"))
    return out
