"""What the fold index harvests from text, lexically (SEED_INDEX_SPEC v2): error lines,
exact identifiers, path-shaped tokens. No model, no paraphrase: the same text always
gives the same harvest, in the same order."""

from __future__ import annotations

import re

ERROR_LINE_CHARS = 240

# The error lexicon: lowercase failure words included (the class every summarization
# arm drops), npm's and the kernel's fixed phrases, the ballot cross, tracebacks, and
# error-class markers (`error`, `ERROR`, `TypeError`, `error[E0308]`, a Rust panic).
# A hit right after "0 " / "no " / "zero " is a report of none ("0 failed") and does
# not make its line an error.
_ERROR = re.compile(
    r"(?P<none>\b(?:0|no|zero) )?"
    r"(?:(?i:\bfail(?:ed|ure|ures|s|ing)?\b|\bfatal\b|\berrors?\b)"
    r"|npm ERR!|Segmentation fault|Permission denied|✗"
    r"|Traceback \(most recent call last\)|\b[A-Z]\w*(?:Error|Exception)\b"
    r"|\berror\[E\d+\]|panicked at)"
)


def error_lines(text: str) -> list[str]:
    """The lines of ``text`` holding an error-lexicon hit, in order, each clipped to 240
    characters (the last one ``…`` when clipped), blank-trimmed."""
    out: list[str] = []
    done = -1  # end of the last line taken: one entry per line
    for m in _ERROR.finditer(text):
        if m.start() < done or m.group("none") is not None:
            continue
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        end = len(text) if end < 0 else end
        done = end
        line = text[start:end].strip()
        if len(line) > ERROR_LINE_CHARS:
            line = line[:ERROR_LINE_CHARS - 1] + "…"
        if line:
            out.append(line)
    return out


# Exact identifiers recovery grep needs: snake/SCREAMING case with an underscore,
# camelCase and PascalCase with an inner capital, 0x hex, hex runs of 8+ holding a digit
# and a letter (hashes, ids), uuids, dotted versions, numbers of 5+ digits.
_IDENTIFIER = re.compile(
    r"(?<![\w.-])(?:"
    r"[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*[A-Za-z0-9]"
    r"|[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*"
    r"|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*"
    r"|0x[0-9a-fA-F]+"
    r"|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    r"|(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{8,64}"
    r"|v?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.]+)?"
    r"|\d{5,}"
    r")(?![\w-])"
)


def identifiers(text: str) -> list[str]:
    return _IDENTIFIER.findall(text)


# A path: at least one separator and a final segment with an extension, or an absolute
# or home-relative path of two segments or more; `://` URLs are not paths.
_PATH = re.compile(
    r"(?<![\w/.~:-])(?:~/|/|\./|\.\./)?(?:[\w.@+-]+/)+[\w.@+-]*\w\.[A-Za-z0-9]{1,10}(?![\w/])"
    r"|(?<![\w/.~:-])(?:~/|/)(?:[\w.@+-]+/)+[\w.@+-]+(?![\w/])"
)


def path_tokens(text: str) -> list[str]:
    return [m.group() for m in _PATH.finditer(text) if "//" not in m.group()]
