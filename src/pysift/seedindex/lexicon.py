"""What the fold index harvests from text, lexically (SEED_INDEX_SPEC v2): error lines,
exact identifiers, path-shaped tokens. No model, no paraphrase: the same text always
gives the same harvest, in the same order.

The text is scanned as UTF-8 bytes by linear-time engines, whatever a tool printed: RE2's
matcher called directly for error lines and paths (the wrapper's match objects cost more
than the scan), the Rust crate's ``findall`` for identifiers (one call per output)."""

from __future__ import annotations

import re2
import rurex
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
# a hit right after these words reports that there is none ("0 failed", "no errors"),
# when the word stands alone ("10 failed" and "piano errors" report some)
_NONE_BEFORE = (b"0 ", b"no ", b"No ", b"zero ")
_NONE_LAST = frozenset(b"0o")  # the last letter of each, before its space
_WORD_BYTES = frozenset(b"0123456789abcdefghijklmnopqrstuvwxyz"
                        b"ABCDEFGHIJKLMNOPQRSTUVWXYZ_.,")


def _reports_none(data: bytes, start: int) -> bool:
    """Whether the hit at ``start`` follows a word saying there is none of it."""
    for word in _NONE_BEFORE:
        at = start - len(word)
        if at >= 0 and data.startswith(word, at) and (at == 0 or data[at - 1] not in _WORD_BYTES):
            return True
    return False

# Exact identifiers recovery grep needs: snake/SCREAMING case with an underscore,
# camelCase and PascalCase with an inner capital, 0x hex, uuids, hex runs of 8-64 holding
# a digit and a letter (hashes, ids), dotted versions, numbers of 5+ digits. Every class is
# ASCII (``\b`` and ``\d`` too, as RE2 reads them; ``(?-u)`` makes the Rust crate's the
# same), so all of an output's tokens come back from one ``findall`` call (the 357,550
# tokens of corpus A's and the real corpus's outputs: 0.27 s of CPU, against 0.68 s matched
# one call per token through RE2's binding; the same tokens).
IDENTIFIER_PATTERN = (
    rb"\b(?:[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*[A-Za-z0-9]"
    rb"|[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*"
    rb"|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*"
    rb"|0x[0-9a-fA-F]+"
    rb"|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    rb"|[0-9a-f]*[0-9][0-9a-f]*[a-f][0-9a-f]*|[0-9a-f]*[a-f][0-9a-f]*[0-9][0-9a-f]*"
    rb"|v?\d+\.\d+\.\d+"
    rb"|\d{5,})\b")
_IDENTIFIER = rurex.compile(b"(?-u)" + IDENTIFIER_PATTERN)
_HEX_MIN, _HEX_MAX = 8, 64
_HEX = b"0123456789abcdef"

# A path: separators and a final segment with an extension, or an absolute or
# home-relative path of two segments or more; a `://` URL is not one. A POSIX segment is
# ASCII, and may hold bracketed groups (Next.js routes: `app/(admin)/[id]/page.tsx`). A
# token starts only where no segment could go on to its left: not after a closing
# bracket or a letter or digit of any script (`文档/scripts/x.sh` names no `/scripts`),
# and ends only where none could go on to its right (`app.json.backup.1778213437515` is
# no `app.json.backup`; a sentence's full stop may follow, and so may grep's `-12-`). A Windows path is one too
# when it is absolute (a drive letter or a UNC share, either separator): its segments may
# hold non-ASCII letters (`D:\Work\客户\报告.md`), 8.3 short names (`ADMINI~1`) and admin
# shares (`C$`), but not CJK or full-width punctuation, which ends a path written into
# prose without a space. The leading separator (or the start) is group 1's neighbour,
# not part of it.
_WSEG = (rb"(?:[\w.@+~$-]|[^\x00-\x7f\x{3000}-\x{303f}\x{ff00}-\x{ffef}])")
_GROUP = rb"\([\w.@+-]+\)|\[[\w.@+-]+\]"
_SEG = rb"(?:[\w.@+-]|" + _GROUP + rb")+"
# (a grep context line names its file as `path-12-text`: the number ends the path)
_END = rb"(?:[^\w/.@+~-]|\.(?:[^\w/]|$)|-\d+[-:]|$)"
_PATH = re2.compile(
    rb"(?:^|[^\w/.~:@+)\]-])("
    rb"(?:~/|/|\./|\.\./)?(?:" + _SEG + rb"/)+(?:[\w.@+-]|" + _GROUP + rb")*(?:\w|"
    + _GROUP + rb")\.[A-Za-z0-9]{1,10}"
    rb"|(?:~/|/)(?:" + _SEG + rb"/)+" + _SEG +
    rb")" + _END +
    # a Windows path starts at its drive letter or its share, whatever letter precedes it
    # (Chinese prose glues it on: `已保存到D:\x\y.json`)
    rb"|(?:^|[^\w/.~:@+)\]-])("
    rb"[A-Za-z]:[\\/](?:" + _WSEG + rb"+[\\/])+" + _WSEG + rb"+"
    rb"|[A-Za-z]:[\\/]" + _WSEG + rb"*\w\.[A-Za-z0-9]{1,10}"
    rb"|\\\\" + _WSEG + rb"+\\" + _WSEG + rb"+(?:\\" + _WSEG + rb"+)*"
    rb")" + _END, _OPTIONS)._regexp


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
        if (start > 1 and data[start - 1] == 0x20 and data[start - 2] in _NONE_LAST
                and _reports_none(data, start)):
            pos = end
            continue
        head = data.rfind(b"\n", 0, start) + 1
        tail = data.find(b"\n", end)
        tail = size if tail < 0 else tail
        line = _clipped(data[head:tail], start - head, end - head)
        if line:
            out.append(line)
        pos = tail + 1
    return out


def _clipped(line: bytes, hit: int, hit_end: int) -> str:
    """An error line, blank-trimmed, in at most 240 characters that hold its hit (bytes
    ``hit:hit_end`` of ``line``): the head of a long line with ``…`` as its last
    character, or, when the hit lies past that, the stretch around the hit between
    ``…`` marks, so a grep for the word that made it an error still finds it."""
    text = line.decode("utf-8", "replace")
    stripped = text.strip()
    if len(stripped) <= ERROR_LINE_CHARS:
        return stripped
    lead = len(text) - len(text.lstrip())
    start = len(line[:hit].decode("utf-8", "replace")) - lead
    stop = len(line[:hit_end].decode("utf-8", "replace")) - lead
    if stop <= ERROR_LINE_CHARS - 1:
        return stripped[:ERROR_LINE_CHARS - 1] + "…"
    room = ERROR_LINE_CHARS - 2  # between the two marks
    first = max(0, min(start - (room - (stop - start)) // 2, len(stripped) - room))
    first = min(first, start)
    body = stripped[first:first + room]
    return ("…" if first else "") + body + ("…" if first + room < len(stripped) else "")


def identifiers(data: bytes) -> list[str]:
    """The identifier tokens of ``data``, in order (a run of hex digits holding a letter
    counts only at 8-64 characters)."""
    return [token.decode()  # (ASCII: the pattern matches no other byte)
            for token in _IDENTIFIER.findall(data)
            if _HEX_MIN <= len(token) <= _HEX_MAX or token.strip(_HEX) or token.isdigit()]


# a product token's version (``Mozilla/5.0``, ``Chrome/147.0.0.0``): a relative token
# whose last segment is a dotted number names no file
_VERSION_TAIL = re2.compile(rb"/\d+(?:\.\d+)+$", _OPTIONS)._regexp
_ROOTED = (b"/", b"~/", b"./", b"../")


def _glued(data: bytes, start: int) -> bool:
    """Whether the character before ``start`` is a letter, digit or mark of any script
    (a POSIX path does not start inside a word: ``文档/scripts/x.sh`` names no
    ``/scripts/x.sh``)."""
    import unicodedata

    lead = start - 1
    while lead > 0 and 0x80 <= data[lead] < 0xC0:
        lead -= 1  # back to the character's lead byte
    char = data[lead:start].decode("utf-8", "replace")
    return unicodedata.category(char[0])[0] in "LNM" if char else False


def path_tokens(data: bytes) -> list[str]:
    """The path-shaped tokens of ``data``, in order: no ``://`` URL, no product version
    (``Safari/537.36``; an absolute ``/opt/app/1.2`` stays a path), no full stop that
    ends the sentence a path closes."""
    out = []
    version = _VERSION_TAIL.Match
    match = _PATH.Match
    pos, size = 0, len(data)
    while pos <= size:
        spans = match(_ANCHOR, data, pos, size)
        if spans[0][0] < 0:
            break
        posix = spans[1][0] >= 0
        start, end = spans[1] if posix else spans[2]
        if posix and start and data[start - 1] >= 0x80 and _glued(data, start):
            pos = start + 1  # a piece of a longer name: look on past its start
            continue
        pos = max(end, pos + 1)
        token = data[start:end].rstrip(b".")
        if b"//" in token:
            continue
        # (a version tail ends with a digit: most tokens end with an extension's letter)
        if (token[-1:].isdigit() and not token.startswith(_ROOTED)
                and version(_ANCHOR, token, 0, len(token))[0][0] >= 0):
            continue
        out.append(token.decode("utf-8", "replace"))
    return out
