"""Byte-level gates over whole buffers: the required-needle prefilter (SPEC §7d, §7f).

A search matches DECODED record text, but the cheap way to skip a line is to look at its
raw JSON bytes. ``required_needles`` derives, from the user's pattern, a small set of
texts such that EVERY match of the pattern contains at least one of them ("necessity
only"). A raw line holding none of them cannot produce a hit and is never parsed.

The promise is soundness: a needle must survive JSON encoding verbatim. So a needle never
contains whitespace (render-time normalization rewrites it), ``"``, ``\\``, control
characters or DEL (JSON writers escape them), or a lone surrogate. Non-ASCII characters
are written raw by Claude Code and orjson, but re-serialized transcripts (Python
``json.dumps`` with ``ensure_ascii``) and some fixtures spell them ``\\uXXXX``; a needle
holding non-ASCII is therefore searched in both spellings. Case-insensitive needles are
matched with ASCII folding and exclude cased non-ASCII letters. ``k`` and ``s`` also have
non-ASCII case partners (the Kelvin sign and the long s): a needle avoids them when a run
free of them is long enough, and otherwise holds them and is searched with both partners
spelled out, raw and ``\\uXXXX``-escaped (``task``, ``mask``, ``sessions`` would
otherwise be gated on 2-3 common bytes, or not at all).

Some JSON writers also escape printable ASCII characters that JSON allows raw: PHP writes
``/`` as ``\\/``; Go writes ``< > &`` as ``\\u003c \\u003e \\u0026``; Gson adds ``= '``;
.NET adds ``+`` and the backtick. Claude Code writes none of them, but a transcript
re-encoded by such a tool decodes to the same text, so a needle holding one of these
characters is searched with each of them spelled either way (``OPTIONAL_ESCAPES``, one
RE2 pass, about as fast as ``bytes.find``). A writer escaping any other ASCII character
is unknown and not covered.

Numbers are the one value a renderer re-spells: a JSON value dumped into rendered text
(a tool_use ``input``, an attachment payload, a non-string tool_result content or
AskUserQuestion answer) is written by orjson, which prints the shortest spelling
(``0.000001`` -> ``1e-6``, ``1.50`` -> ``1.5``, ``1e5`` -> ``100000.0``, ``-0`` -> ``0``,
an integer beyond 64 bits as a float). ``exposes_number`` says whether a needle can
overlap such a re-spelled number; ``NeedleSet(..., respelled_numbers=True)`` then also
finds every line holding a number spelling orjson would change (``RESPELLED_NUMBER``).

All searching runs over the WHOLE buffer in C (RE2, ``regex`` or ``stringzilla``); Python
only steps once per candidate line, never once per line of the file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache, partial
from typing import Any

from pysift.core.grammar.pattern import (
    Alternation,
    Anchor,
    Boundary,
    Class,
    Concat,
    Flags,
    Group,
    Literal,
    Node,
    Pattern,
    PerlClass,
    Repeat,
    UnicodeClass,
    parse_pattern,
)
from pysift.disk.jsonline import SURROGATE_ESCAPE
from pysift.errors import UsageError

#: A shorter needle is too common in JSON to be worth a pass.
NEEDLE_MIN_BYTES = 3
#: An alternation with more distinct needles than this is not gated (SPEC §7d).
NEEDLE_CAP = 8
#: Above this many spellings one combined RE2 pass (a DFA at ~600 MB/s) beats separate
#: literal passes (1.8-13 GB/s each).
_SEPARATE_PROBES_MAX = 4
#: A caseless needle free of k/s at least this long is kept; a shorter one gives way to a
#: longer run holding k/s (found with their non-ASCII case partners spelled out).
_KS_FREE_ENOUGH_BYTES = 4
#: The case partners RE2 folds onto ASCII letters, each as raw UTF-8 and as a JSON escape
#: (any hex case); every other ASCII letter folds only to its ASCII twin.
_FOLD_PARTNERS = {
    "k": "(?:[kK]|\u212a|\\\\u212[aA])".encode("utf-8"),  # K, the Kelvin sign
    "s": "(?:[sS]|\u017f|\\\\u017[fF])".encode("utf-8"),  # ſ, the long s
}
#: A caseless needle is searched by at most this many bytes: any piece of a required text
#: is required too, and 64 bytes gate as well as more (``regex``, the engine before
#: ``rurex``, built a skip table in time about cubic in a periodic literal's length: a
#: 3,000-byte ``x...x`` took 22 s; the candidates stay what they were).
CASELESS_PROBE_MAX_BYTES = 64

Buffer = Any  # bytes | bytearray | mmap.mmap: anything with the buffer protocol + find/rfind

#: A JSON number token that orjson does not write back byte for byte, in value position
#: (after ``:``, ``,`` or ``[`` and optional whitespace, before ``,``, ``]``, ``}`` or
#: whitespace). orjson writes an integer of 64 bits as is, a float as its shortest
#: round-trip digits: plain decimal for 1e-5 <= |x| < 1e16 (``100000.0``, ``0.00001``),
#: else ``1e-6`` / ``1.2345678901234568e+20``. A spelling differs from that only with
#: an exponent (``1E-6``, ``1e5``; ``1e-6``, kept as is, too: simpler to say), a fraction
#: ending in 0 after another digit (``1.50``, ``1.00``; ``1.0`` is kept as is), a value
#: below 1e-5 written out (``0.000001``), 16 digits or more (a decimal of up to 15
#: significant digits always comes back as written; this takes in every integer beyond
#: 64 bits) or the integer ``-0``. A superset: text inside a string that looks like such a
#: number only adds candidates (one RE2 DFA pass, ~550 MB/s; a timestamp's ``:40.750Z``
#: or an id's ``8e004d`` does not match). A line never holds a raw newline.
RESPELLED_NUMBER = (
    rb"[:,\[][ \t\r]*"
    rb"(?:-0|-?(?:[0-9]+(?:\.[0-9]+)?[eE][+-]?[0-9]+"  # an exponent
    rb"|[0-9]+\.[0-9]+0"  # a fractional trailing zero
    rb"|0\.00000[0-9]*"  # below 1e-5, written out
    rb"|[0-9](?:\.?[0-9]){15}[0-9.]*))"  # 16 digits or more
    rb"[,}\] \t\r\n]"
)
#: What the matcher reads a lone surrogate as: a needle holding it also takes the lines
#: holding a surrogate escape (``disk.jsonline.SURROGATE_ESCAPE``), which never hold the
#: character itself.
REPLACEMENT_CHAR = "\ufffd"
#: The characters of a number as any JSON writer spells it.
_NUMBER_CHARS = frozenset("0123456789.eE+-")
#: What a needle can hold right before / after a number a renderer dumped: compact JSON
#: writes ``[`` ``:`` ``,`` before one and ``,`` ``]`` ``}`` after it, rendered text puts
#: whitespace or nothing around a bare one (``A1: 1e-6``, ``Bash 1e-6``); ``:``, ``,`` and
#: whitespace never stand in a needle. (``preTokens=1e5`` of a compaction boundary is
#: fabricated glue: its marker is kept by ``plan.BOUNDARY_FABRICATION``.)
_BEFORE_NUMBER = frozenset("[")
_AFTER_NUMBER = frozenset("]}")
#: A piece of one number as orjson writes it (``-?D+(.D+)?(e[+-]?D+)?``): one point at
#: most, an exponent after it, a sign only first or right after the ``e``. A run of
#: number characters that is no such piece (a date ``2026-12-01``, an address
#: ``192.168.1.1``) cannot lie inside a rendered number.
_NUMBER_PIECE = re.compile(r"[-+]?[0-9]*(?:\.[0-9]*)?(?:[eE][-+]?[0-9]*)?")


# ----------------------------------------------------------------------------------------
# the needle set
# ----------------------------------------------------------------------------------------


class NeedleSet:
    """Texts of which every match contains at least one; searched in raw line bytes.

    ``needles`` are decoded texts (what the pattern requires); ``caseless`` says they
    match without regard to ASCII case. Build with ``required_needles`` or directly.
    """

    __slots__ = ("_probes", "caseless", "needles", "respelled_numbers")

    def __init__(self, needles: Sequence[str], *, caseless: bool,
                 respelled_numbers: bool = False) -> None:
        if not needles:
            raise ValueError("a NeedleSet needs at least one needle")
        self.needles: tuple[str, ...] = tuple(needles)
        self.caseless = caseless
        self.respelled_numbers = respelled_numbers
        self._probes = _build_probes(self.needles, caseless)
        if respelled_numbers:  # lines whose rendered text may spell a number otherwise
            self._probes.append(_Re2Probe(RESPELLED_NUMBER, caseless=False))
        if any(REPLACEMENT_CHAR in needle for needle in self.needles):
            # a lone surrogate escape decodes to what the matcher sees as U+FFFD (SPEC §4)
            self._probes.append(_Re2Probe(SURROGATE_ESCAPE, caseless=False))

    def __repr__(self) -> str:
        extra = ", respelled_numbers=True" if self.respelled_numbers else ""
        return f"NeedleSet({list(self.needles)!r}, caseless={self.caseless}{extra})"

    def any_in(self, buf: Buffer, start: int = 0, end: int | None = None) -> bool:
        """Whether some needle occurs wholly inside ``buf[start:end]``."""
        stop = len(buf) if end is None else min(end, len(buf))
        if start >= stop:
            return False
        return any(probe.find(buf, start, stop) >= 0 for probe in self._probes)

    def candidate_spans(self, buf: Buffer, lo: int = 0, hi: int | None = None
                        ) -> list[tuple[int, int]]:
        """``(line_start, line_end)`` of every line holding a needle, in file order.

        ``line_end`` is the offset of the line's newline (or ``len(buf)``). ``lo`` and
        ``hi``: the lines of that part of the buffer (line boundaries), for a set whose
        hits each lie within one line (``lines_apart``) only.
        """
        if lo or hi is not None:
            if not self.lines_apart:
                raise ValueError("a needle set whose hits may cross lines searches whole")
            stop = len(buf) if hi is None else hi
            return _merged([probe.line_spans_in(buf, lo, stop) for probe in self._probes])
        return _merged([probe.line_spans(buf) for probe in self._probes])

    @property
    def lines_apart(self) -> bool:
        """Every hit lies within one line (each probe an exact needle without a newline):
        the candidates of a buffer are then those of its parts, cut at line boundaries, one
        after the other (a pass that reads each part anyway searches it while cached)."""
        return all(type(probe) is _LiteralProbe and b"\n" not in probe.needle
                   for probe in self._probes)

    def find_all_lines(self, buf: Buffer) -> list[int]:
        """Start offsets of every line holding a needle: sorted, unique."""
        return [start for start, _ in self.candidate_spans(buf)]


def line_spans_containing(buf: Buffer, needles: Sequence[bytes]) -> list[tuple[int, int]]:
    """``(line_start, line_end)`` of every line containing any of the byte ``needles``.

    Case-sensitive literal bytes (label markers such as ``b'"tool_use"'``, a live scan's
    launch keys); each needle is one literal pass (no regex import on the pure-filter
    path). Empty needles are ignored. Sorted, one span per line.

    Several needles without a newline search a big buffer part by part (whole lines of
    about ``_PART_BYTES``), every needle over a part before the next part: the first
    search brings the part into the cache and the others read it there. Over corpus A's
    225 MB mapped, ``status``'s four launch needles took 101 ms one whole pass after the
    other (RE2's three passes on two threads: 152 ms) and 62 ms part by part.
    """
    probes = [_LiteralProbe(needle) for needle in dict.fromkeys(needles) if needle]
    size = len(buf)
    if len(probes) < 2 or size <= _PART_BYTES or any(b"\n" in p.needle for p in probes):
        return _merged([probe.line_spans(buf) for probe in probes])
    spans: list[tuple[int, int]] = []
    find = buf.find
    pos = 0
    while pos < size:
        cut = find(b"\n", pos + _PART_BYTES - 1) if pos + _PART_BYTES < size else -1
        end = size if cut < 0 else cut + 1
        spans += _merged([probe.line_spans_in(buf, pos, end) for probe in probes])
        pos = end
    return spans


#: the part of a buffer ``line_spans_containing`` searches for every needle in turn (the
#: CPU's L2 cache holds it; smaller parts pay more Python steps)
_PART_BYTES = 1 << 20


def _merged(span_lists: list[list[tuple[int, int]]]) -> list[tuple[int, int]]:
    if len(span_lists) == 1:
        return span_lists[0]
    merged: dict[int, int] = {}
    for spans in span_lists:
        merged.update(spans)
    return sorted(merged.items())


# ----------------------------------------------------------------------------------------
# probes: how each spelling of a needle is searched
# ----------------------------------------------------------------------------------------


class _Probe:
    """One whole-buffer search; ``find`` returns the first hit offset in range or -1."""

    __slots__ = ()

    def find(self, buf: Buffer, start: int, end: int) -> int:
        raise NotImplementedError

    def line_spans(self, buf: Buffer) -> list[tuple[int, int]]:
        """Span of each line holding a hit, jumping to the next line after a hit."""
        return self.line_spans_in(buf, 0, len(buf))

    def line_spans_in(self, buf: Buffer, lo: int, hi: int) -> list[tuple[int, int]]:
        """``line_spans`` of the lines from ``lo`` to ``hi`` (line boundaries)."""
        return _hit_line_spans(buf, partial(self.find, buf), lo, hi)


def _hit_line_spans(buf: Buffer, find: Callable[[int, int], int], lo: int = 0,
                    hi: int | None = None) -> list[tuple[int, int]]:
    """``(line_start, line_end)`` of each line holding a hit of ``find(start, end)`` (the
    first hit offset in range, or -1), searching on from the next line after each; from
    ``lo`` to ``hi`` (line boundaries: the lines are read whole)."""
    spans: list[tuple[int, int]] = []
    size = len(buf)
    stop = size if hi is None else hi
    rfind, nl_find = buf.rfind, buf.find
    pos = lo
    while pos < stop:
        hit = find(pos, stop)
        if hit < 0:
            break
        newline = rfind(b"\n", pos, hit)
        end = nl_find(b"\n", hit)
        if end < 0:
            end = size
        spans.append((newline + 1 if newline >= 0 else pos, end))
        pos = end + 1
    return spans


class _LiteralProbe(_Probe):
    """Exact bytes, found by ``stringzilla``'s SIMD substring search in place on the
    buffer (a mapped file is not copied).

    Measured per call against ``bytes.find`` on transcript bytes: 0.14 against 1.4 us for
    a 13-byte needle over 2 KB (dense hits pay one short call each), 3.2 against 24 us
    over 64 KiB; over corpus B's 1,759 files read as bytes, 8 ms against 29 ms for the
    former ``bytes.find`` window then RE2, and it is as fast as RE2's memchr scan of the
    mapped ones (both bound by memory).
    """

    __slots__ = ("needle",)

    def __init__(self, needle: bytes) -> None:
        self.needle = needle

    def find(self, buf: Buffer, start: int, end: int) -> int:
        import stringzilla

        with memoryview(buf) as view:
            return int(stringzilla.Str(view).find(self.needle, start, end))

    def line_spans_in(self, buf: Buffer, lo: int, hi: int) -> list[tuple[int, int]]:
        import stringzilla

        with memoryview(buf) as view:  # one view for the whole walk
            return _hit_line_spans(buf, partial(stringzilla.Str(view).find, self.needle),
                                   lo, hi)


class _Re2Probe(_Probe):
    """RE2 over the buffer: a literal at memchr speed, an alternation as one DFA pass."""

    __slots__ = ("_anchor", "_match", "_search")

    def __init__(self, source: bytes, *, caseless: bool) -> None:
        import re2

        options = re2.Options()
        options.log_errors = False
        options.case_sensitive = not caseless
        compiled = re2.compile(source, options)
        # the wrapper's search() adds a generator and a match object per call; candidate
        # loops call once per candidate line, so go straight to RE2::Match when present
        raw = getattr(compiled, "_regexp", None)
        self._anchor = getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)
        self._match = None if raw is None or self._anchor is None else raw.Match
        self._search = compiled.search

    def find(self, buf: Buffer, start: int, end: int) -> int:
        if self._match is not None:
            return int(self._match(self._anchor, buf, start, end)[0][0])
        found = self._search(buf, start, end)
        return -1 if found is None else int(found.start())


class _RurexProbe(_Probe):
    """The Rust regex crate (``rurex``) over the buffer, for a pattern spelled out case by
    case (``[kK]``, each writer's spelling): it finds such a pattern's rare literal
    prefixes with SIMD where RE2 steps its DFA through every byte. Measured over corpus
    A's 236 MB in one process: ``kestrel``'s spelled-out pattern (K, KELVIN SIGN, LONG S
    and their escapes) 570 -> 59 ms, ``[lL][eE][gG][aA][cC][yY]`` 156 -> 76 ms (``regex``'s
    ``(?i)``: 179 ms).

    ``rurex`` searches ``bytes`` in place but copies any other buffer (a mapped file)
    whole on every call, so a mapped file is searched in windows of at most
    ``_WINDOW_MAX`` bytes plus ``reach`` (no match is longer than ``reach``, so every
    match starting in a window lies wholly in what is copied of it): each byte copied
    about once. Only a source without repetition, ``.`` or inline flags is taken (its
    longest match is at most its own length); another one raises ``ValueError``.
    """

    __slots__ = ("_reach", "_search")

    def __init__(self, source: bytes) -> None:
        import rurex

        if _UNBOUNDED.search(_ATOMS.sub(b"", source.replace(b"(?:", b"("))):
            raise ValueError("a pattern whose matches have no bounded length")
        self._search = rurex.compile(source).search
        self._reach = len(source)

    def find(self, buf: Buffer, start: int, end: int) -> int:
        if type(buf) is bytes:  # searched in place
            found = self._search(buf, start, end)
            return -1 if found is None else int(found.start())
        search, reach = self._search, self._reach
        size = _WINDOW_MIN  # a near hit copies little; a far one, windows twice as long
        while start < end:
            stop = min(end, start + size)
            found = search(buf[start:min(end, stop + reach)])
            if found is not None and start + found.start() < stop:
                return start + int(found.start())
            start = stop
            size = min(size * 2, _WINDOW_MAX)
        return -1

    def line_spans(self, buf: Buffer) -> list[tuple[int, int]]:
        if type(buf) is bytes:
            return _hit_line_spans(buf, partial(self.find, buf))
        # a mapped file: one copied window at a time, searched in place as bytes are,
        # going on from the line after each hit (a match never holds a newline: no
        # needle does), a new window where that line ends past this one
        spans: list[tuple[int, int]] = []
        size, reach, search = len(buf), self._reach, self._search
        rfind, nl_find = buf.rfind, buf.find
        at = 0
        while at < size:
            stop = min(size, at + _WINDOW_MAX)
            window = buf[at:min(size, stop + reach)]
            pos = 0
            while True:
                found = search(window, pos, len(window))
                if found is None or at + found.start() >= stop:
                    at = stop
                    break
                hit = at + found.start()
                end = nl_find(b"\n", hit)
                if end < 0:
                    end = size
                spans.append((rfind(b"\n", 0, hit) + 1, end))
                if end + 1 >= stop:  # the next line starts past this window
                    at = end + 1
                    break
                pos = end + 1 - at
        return spans


# What may stand in a source ``_RurexProbe`` takes, once its escapes and classes are gone
# (``_ATOMS``): no repetition, no ``.``, no inline flags (``(?`` other than ``(?:``).
_ATOMS = re.compile(rb"\\.|\[(?:\\.|[^\]\\])*\]", re.DOTALL)
_UNBOUNDED = re.compile(rb"[*+?{}.]")
_WINDOW_MIN = 64 << 10
_WINDOW_MAX = 1 << 20


def _spelled_out_probe(source: bytes) -> _Probe:
    """The probe of a case-sensitive RE2 source: ``rurex`` where it reads the source as
    RE2 does, else RE2.

    The sources built here are made of escaped ASCII characters (RE2's ``QuoteMeta``),
    ``[xX]`` classes, ``(?:…|…)`` groups and raw UTF-8 text, which both engines read alike
    (tests hold every escape and generated needles to RE2's answer), except ``\\<`` and
    ``\\>``: word boundaries to the Rust crate, the characters to RE2. A source holding
    either, or one ``rurex`` refuses, stays with RE2. Either engine's first match starts at
    the same offset: the leftmost start of a match does not depend on the engine.
    """
    if b"\\<" not in source and b"\\>" not in source:
        try:
            return _RurexProbe(source)
        except Exception:  # noqa: BLE001 - any refusal: RE2 reads it
            pass
    return _Re2Probe(source, caseless=False)


def _source_probe(source: bytes, *, caseless: bool) -> _Probe:
    """RE2's case folding for a caseless source (Unicode's folds, RE2's tables), else the
    spelled-out probe."""
    return _Re2Probe(source, caseless=True) if caseless else _spelled_out_probe(source)


def _ascii_caseless_source(form: bytes) -> bytes:
    """A case-sensitive ``rurex`` bytes pattern matching ``form`` with ASCII letters in
    either case and every other byte as itself (``\\xNN``: raw bytes, whatever the text)."""
    out = []
    for byte in form:
        char = chr(byte)
        if char.isascii() and char.isalpha():
            out.append(f"[{char.lower()}{char.upper()}]")
        else:
            out.append(f"\\x{byte:02x}")
    return "".join(out).encode("ascii")


class _CaselessProbe(_RurexProbe):
    """``form`` with ASCII case folded, as ``regex``'s ``(?i)`` over bytes and RE2's
    case folding read a caseless needle (which holds no cased character but ASCII
    letters: ``is_needle_safe``): every ASCII letter in either case, every other byte as
    itself. Measured over corpus A mapped, against RE2's ``(?i)``: ``trel`` 212 -> 99 ms,
    ``the`` 231 -> 181 ms, ``legacy`` 190 -> 117 ms.

    Only the first ``CASELESS_PROBE_MAX_BYTES`` of ``form`` are searched: a line holding
    ``form`` holds its prefix (the candidates stay those the ``regex`` probe this replaced
    gave, whose table build was superlinear in the literal's length).
    """

    __slots__ = ()

    def __init__(self, form: bytes) -> None:
        super().__init__(_ascii_caseless_source(form[:CASELESS_PROBE_MAX_BYTES]))


def _json_escaped(text: str) -> str:
    """``text`` as ``json.dumps(ensure_ascii=True)`` spells it (lowercase hex)."""
    parts = []
    for char in text:
        code = ord(char)
        if code < 0x80:
            parts.append(char)
        elif code <= 0xFFFF:
            parts.append(f"\\u{code:04x}")
        else:
            code -= 0x10000
            parts.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
    return "".join(parts)


def _re2_source(form: bytes, *, any_hex_case: bool) -> bytes:
    """An RE2 pattern matching ``form`` literally; with ``any_hex_case`` the hex digits of
    its ``\\uXXXX`` escapes match in either case (writers differ)."""
    import re2

    if not any_hex_case:
        return bytes(re2.escape(form))
    out = []
    text = form.decode("ascii")
    index = 0
    while index < len(text):
        if text.startswith("\\u", index):
            out.append(r"\\u")
            for digit in text[index + 2 : index + 6]:
                out.append(f"[{digit.lower()}{digit.upper()}]" if digit.isalpha() else digit)
            index += 6
        else:
            out.append(re2.escape(text[index]))
            index += 1
    return "".join(out).encode("ascii")


def _has_ascii_letter(text: str) -> bool:
    return any(("a" <= c <= "z") or ("A" <= c <= "Z") for c in text)


def _raw_or_escaped(char: str) -> bytes:
    """An RE2 source matching ``char`` raw or as ``\\uXXXX`` (either hex case), and ``/``
    also as ``\\/``."""
    digits = "".join(f"[{d}{d.upper()}]" if d.isalpha() else d for d in f"{ord(char):04x}")
    spellings = [re.escape(char), r"\\u" + digits] + ([r"\\/"] if char == "/" else [])
    return ("(?:" + "|".join(spellings) + ")").encode("ascii")


#: Printable ASCII characters a known JSON writer escapes though JSON allows them raw
#: (PHP ``/``; Go ``< > &``; Gson ``= '``; .NET ``+`` and the backtick): the RE2 source
#: of each, matching every spelling.
OPTIONAL_ESCAPES: dict[str, bytes] = {char: _raw_or_escaped(char) for char in "/<>&='+`"}


def _build_probes(needles: tuple[str, ...], caseless: bool) -> list[_Probe]:
    """One probe per spelling of each needle, or one combined RE2 pass for many."""
    if caseless and any(c in "kKsS" for needle in needles for c in needle):
        # k/s fold onto non-ASCII partners: one explicit pass, every spelling spelled out
        return [_spelled_out_probe(b"|".join(_folded_source(n) for n in needles))]
    if any(c in OPTIONAL_ESCAPES for needle in needles for c in needle):
        # a character some writers escape needlessly has several spellings: one pass, each
        # spelled out (ASCII case is RE2's: spelled-out folds cost it its literal search),
        # leading ones dropped when enough is left (what is left is still required, and
        # gives RE2 a literal prefix: `<command-name>` took 2.5x as long; `==0` left as
        # `0` made nearly every line a candidate)
        return [_source_probe(b"|".join(_folded_source(_without_escapable_lead(n), fold=False)
                                        for n in needles), caseless=caseless)]
    spellings: list[tuple[bytes, bool, bool]] = []  # (bytes, is_escaped_form, fold_case)
    for needle in needles:
        fold = caseless and _has_ascii_letter(needle)
        spellings.append((needle.encode("utf-8"), False, fold))
        if not needle.isascii():
            spellings.append((_json_escaped(needle).encode("ascii"), True, fold))
    if len(spellings) > _SEPARATE_PROBES_MAX:
        sources = [_re2_source(form, any_hex_case=escaped) for form, escaped, _ in spellings]
        any_fold = any(fold for _, _, fold in spellings)
        return [_source_probe(b"|".join(sources), caseless=any_fold)]
    probes: list[_Probe] = []
    for form, escaped, fold in spellings:
        if fold:  # ASCII folds only: a caseless needle holds no other cased character
            probes.append(_CaselessProbe(form))
        elif escaped:
            probes.append(_spelled_out_probe(_re2_source(form, any_hex_case=True)))
        else:
            probes.append(_LiteralProbe(form))
    return probes


def _without_escapable_lead(needle: str) -> str:
    """``needle`` without its leading ``OPTIONAL_ESCAPES`` characters, if at least
    ``NEEDLE_MIN_BYTES`` are left; else the whole needle."""
    rest = needle.lstrip("".join(OPTIONAL_ESCAPES))
    return rest if len(rest.encode("utf-8")) >= NEEDLE_MIN_BYTES else needle


def _folded_source(needle: str, *, fold: bool = True) -> bytes:
    """A case-sensitive RE2 pattern matching ``needle`` in the raw bytes of any JSON
    writer: with ``fold`` (RE2's case folding) ASCII letters as ``[xX]`` and k and s with
    their non-ASCII partners; the ``OPTIONAL_ESCAPES`` characters raw or escaped; any
    other non-ASCII character raw or ``\\uXXXX``-escaped."""
    import re2

    out: list[bytes] = []
    for char in needle:
        lower = char.lower()
        if fold and lower in _FOLD_PARTNERS:
            out.append(_FOLD_PARTNERS[lower])
        elif fold and char.isascii() and char.isalpha():
            out.append(f"[{lower}{char.upper()}]".encode("ascii"))
        elif char in OPTIONAL_ESCAPES:
            out.append(OPTIONAL_ESCAPES[char])
        elif char.isascii():
            out.append(bytes(re2.escape(char.encode("ascii"))))
        else:
            escaped = _re2_source(_json_escaped(char).encode("ascii"), any_hex_case=True)
            out.append(b"(?:" + bytes(re2.escape(char.encode("utf-8"))) + b"|" + escaped + b")")
    return b"".join(out)


# ----------------------------------------------------------------------------------------
# which characters may appear in a needle
# ----------------------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def _folds_only_to_itself(char: str) -> bool:
    """RE2's case-insensitive closure of ``char`` is ``{char}`` (RE2 decides, not Python)."""
    import re2

    options = re2.Options()
    options.log_errors = False
    options.case_sensitive = False
    encoded = char.encode("utf-8")
    try:
        low, high = re2.compile(re2.escape(encoded), options).possiblematchrange(8)
    except re2.error:
        return False
    return bool(low == high == encoded)


# `"` and `\\` are escaped inside JSON strings; `,` and `:` are also JSON SEPARATORS, and a
# tool_use unit renders its input as compact JSON (`{"n":5}`) while a re-serialized
# transcript spaces them (`{"n": 5}`): a needle holding one could straddle a separator.
_JSON_UNSAFE = frozenset('"\\,:')


def is_needle_safe(char: str, *, caseless: bool, with_ks: bool = False) -> bool:
    """Whether ``char`` survives into raw JSON bytes in a form a needle can find.

    Case-insensitive: the needle is found with ASCII folding, so every case partner of the
    character must be ASCII too; ``with_ks`` admits k and s, whose partners the needle's
    probe then spells out (``_folded_source``).
    """
    code = ord(char)
    if code < 0x20 or code == 0x7F or char in _JSON_UNSAFE or char.isspace():
        return False
    if 0xD800 <= code <= 0xDFFF:
        return False
    if caseless:
        if char in "kKsS":  # K (Kelvin sign) and the long s fold onto these
            return with_ks
        if code >= 0x80 and not _folds_only_to_itself(char):
            return False
    return True


def _longest_safe_run(run: list[str], caseless: bool) -> str | None:
    """The longest sub-run (in UTF-8 bytes) free of unsafe characters, if long enough.

    Caseless, a run free of k/s is preferred (ASCII folding finds it fastest); when none
    reaches ``_KS_FREE_ENOUGH_BYTES``, a longer run holding k/s is taken instead."""
    best = _longest_run(run, caseless, with_ks=False)
    if not caseless or (best is not None and len(best.encode("utf-8")) >= _KS_FREE_ENOUGH_BYTES):
        return best
    with_ks = _longest_run(run, caseless, with_ks=True)
    if with_ks is not None and (best is None or len(with_ks) > len(best)):
        return with_ks
    return best


def _longest_run(run: list[str], caseless: bool, *, with_ks: bool) -> str | None:
    best, best_len = None, NEEDLE_MIN_BYTES - 1
    current: list[str] = []
    for char in [*run, "\n"]:  # the sentinel flushes the last run
        if is_needle_safe(char, caseless=caseless, with_ks=with_ks):
            current.append(char)
            continue
        if current:
            text = "".join(current)
            size = len(text.encode("utf-8"))
            if size > best_len:
                best, best_len = text, size
            current = []
    return best


def exposes_number(needle: str) -> bool:
    """Whether ``needle`` can overlap a number that a renderer re-spelled.

    Such an overlap lies in a maximal run of number characters (``[0-9.eE+-]``) holding a
    digit (the digit-free part of a rendered number is its sign, which the raw spelling
    shares) whose neighbours in the needle are what can stand beside a dumped number: the
    needle's ends, ``[`` before it, ``]`` or ``}`` after it, and which could be a piece
    of one rendered number. ``1e-6``, ``[1.5``, ``100000.0}``, ``8080`` are exposed;
    ``ZQXJ-needle-7731``, ``v1.2``, ``2026-12-01``, ``192.168.1.1`` are not.
    Case does not matter (``E`` is a number character).
    """
    size = len(needle)
    index = 0
    while index < size:
        if needle[index] not in _NUMBER_CHARS:
            index += 1
            continue
        end = index
        while end < size and needle[end] in _NUMBER_CHARS:
            end += 1
        run = needle[index:end]
        if (any("0" <= c <= "9" for c in run) and _NUMBER_PIECE.fullmatch(run)
                and (index == 0 or needle[index - 1] in _BEFORE_NUMBER)
                and (end == size or needle[end] in _AFTER_NUMBER)):
            return True
        index = end
    return False


# ----------------------------------------------------------------------------------------
# from the pattern to the needles
# ----------------------------------------------------------------------------------------


def required_needles(pattern: str | Pattern, *, case_insensitive: bool) -> NeedleSet | None:
    """The necessity-only needle set of ``pattern``, or None when it cannot be gated.

    None is always safe: it means "scan every line". It is returned for the empty pattern,
    a pattern the parser refuses or hands on unread (an ``opaque`` tree: RE2 decides what
    it means), and when no required text of at least ``NEEDLE_MIN_BYTES`` safe bytes
    exists (``a*``, ``\\d+``, ``foo|.*``). A string is parsed first; the matcher passes the
    tree it compiled.
    """
    if isinstance(pattern, str):
        if not pattern:
            return None
        try:
            pattern = parse_pattern(pattern)
        except UsageError:
            return None
    if pattern.opaque or not pattern.source:
        return None
    caseless = case_insensitive or pattern.inline_caseless
    try:
        found = _required(_items(pattern.root), caseless)
    except RecursionError:  # nested deeper than Python recurses: no prefilter
        return None
    if not found:
        return None
    return NeedleSet(sorted(found), caseless=caseless)


Required = frozenset[str] | None  # None: this part requires nothing usable


def _strength(required: frozenset[str]) -> tuple[int, int]:
    """Longer weakest needle first, then fewer needles (fewer passes)."""
    return (min(len(n.encode("utf-8")) for n in required), -len(required))


def _minimise(needles: frozenset[str], caseless: bool) -> frozenset[str]:
    """Drop a needle that contains another: a line holding it holds the shorter one."""
    key = str.lower if caseless else (lambda s: s)
    ordered = sorted(needles, key=len)
    kept: list[str] = []
    for needle in ordered:
        if not any(key(small) in key(needle) for small in kept):
            kept.append(needle)
    return frozenset(kept)


# The walk reads the tree as a sequence of items (tuples, first field the kind):
#   ("c", char)            a literal character: consecutive ones form a run
#   ("z", node)            zero-width (an anchor or a word boundary): runs go on across it
#   ("o", node, is_set)    one character of a set (a class, ``.``...): ends a run;
#                          ``is_set``: a positive set, which an alternation may merge
#   ("g", items)           a capturing group
#   ("r", low, items)      a repetition, at least ``low`` times
#   ("b", [items, ...])    an alternation
# A non-capturing group is spliced into its sequence. An alternation first moves out the
# items every branch starts with (``wordax|wordbx`` requires ``word``), and branches of one
# character each become one set.
_Item = tuple[Any, ...]


def _items(node: Node) -> list[_Item]:
    """``node`` as a sequence of walk items."""
    if isinstance(node, Literal):
        return [("c", node.char)]
    if isinstance(node, Concat):
        return [item for child in node.items for item in _items(child)]
    if isinstance(node, Alternation):
        return _alternation_items([_items(branch) for branch in node.branches])
    if isinstance(node, Group):
        body = _items(node.body)
        return [("g", body)] if node.capturing else body
    if isinstance(node, Repeat):
        return [("r", node.low, _items(node.body))]
    if isinstance(node, Class):
        only = _single_member(node)
        return [("c", only)] if only is not None else [("o", node, not node.negated)]
    if isinstance(node, (PerlClass, UnicodeClass)):
        return [("o", node, True)]
    if isinstance(node, (Anchor, Boundary)):
        return [("z", node)]
    if isinstance(node, Flags):
        return []
    return [("o", node, False)]  # `.`


def _single_member(node: Class) -> str | None:
    """The character a positive class of one literal member (``[.]``, ``[aa]``) matches."""
    if node.negated or not all(isinstance(item, Literal) for item in node.items):
        return None
    chars = {item.char for item in node.items}  # type: ignore[union-attr]
    return chars.pop() if len(chars) == 1 else None


def _alternation_items(branches: list[list[_Item]]) -> list[_Item]:
    prefix: list[_Item] = []
    while all(branches) and branches[0][0][0] in "czo" and all(
            branch[0] == branches[0][0] for branch in branches[1:]):
        prefix.append(branches[0][0])
        branches = [branch[1:] for branch in branches]
    if all(len(branch) == 1 and (branch[0][0] == "c" or (branch[0][0] == "o" and branch[0][2]))
           for branch in branches):
        return [*prefix, ("o", tuple(branch[0] for branch in branches), True)]
    return [*prefix, ("b", branches)]


def _required(items: list[_Item], caseless: bool) -> Required:
    """Needles of a sequence: its strongest single part (SPEC §7d)."""
    best: frozenset[str] | None = None
    run: list[str] = []

    def consider(candidate: Required) -> None:
        nonlocal best
        if candidate and (best is None or _strength(candidate) > _strength(best)):
            best = candidate

    def flush() -> None:
        if run:
            needle = _longest_safe_run(run, caseless)
            if needle is not None:
                consider(frozenset([needle]))
            run.clear()

    for item in _flatten(items):
        kind = item[0]
        if kind == "c":
            run.append(item[1])
            continue
        if kind == "z":  # zero-width: the text on both sides stays adjacent
            continue
        flush()
        if kind == "g":
            consider(_required(item[1], caseless))
        elif kind == "r":
            if item[1] >= 1:
                consider(_required(item[2], caseless))
        elif kind == "b":
            consider(_alternation(item[1], caseless))
        # a set: nothing
    flush()
    return best


def _alternation(branches: list[list[_Item]], caseless: bool) -> Required:
    """Every branch must contribute; the union (deduplicated) is capped at NEEDLE_CAP."""
    union: set[str] = set()
    for branch in branches:
        required = _required(branch, caseless)
        if not required:
            return None
        union |= required
    result = _minimise(frozenset(union), caseless)
    return result if len(result) <= NEEDLE_CAP else None


def _flatten(items: list[_Item]) -> list[_Item]:
    """Inline groups whose body is a plain sequence, so ``(foo)bar`` is one run."""
    flat: list[_Item] = []
    for item in items:
        if item[0] == "g" and not any(inner[0] == "b" for inner in item[1]):
            flat.extend(_flatten(item[1]))
        else:
            flat.append(item)
    return flat
