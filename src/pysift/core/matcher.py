"""The user's search pattern -> a linear-time matcher over decoded record text (SPEC §6.2).

Why RE2 (google-re2) and not ``re``/``regex``: the search dialect promises linear-time
matching, so a hostile or careless pattern can never backtrack catastrophically over a
400 KB line; RE2 is also the fastest engine measured for literals and alternations.

The pattern is written in the Rust ``regex`` dialect csift documents. RE2 understands
nearly all of it; this module closes the gaps before RE2 sees the pattern:

- the non-linear constructs (backreferences, lookaround, atomic groups, possessive
  quantifiers) are rejected with an error that names the construct and the reason,
  instead of RE2's terse "invalid perl operator";
- ``\\d \\s \\w`` (and ``\\D \\S \\W`` outside classes) are Unicode-aware, as in Rust
  (RE2's are ASCII-only);
- the word boundaries ``\\b \\B \\< \\> \\b{start}`` … are Unicode-aware too. RE2 has
  only ASCII ones (``\\bconfig\\b`` matched ``config里``, ``caf\\w\\b`` missed ``café``),
  so RE2 runs the pattern WITHOUT its boundaries (a superset: same needles, same speed)
  and a text it matches is confirmed by the Rust regex crate itself (``rurex``, linear
  time) running the same translated pattern with the boundaries in Rust's own syntax
  (so is a negated class holding ``\\W`` or ``\\S``, which RE2 runs as ``\\w``/``\\s``);
- ``\\u007F``, ``\\u{7F}``, ``\\U0000007F`` and ``\\U{7F}`` escapes are accepted;
- a leading ``(?x)`` (verbose: whitespace and ``#`` comments ignored) is applied here,
  because RE2 has no verbose mode.

Smart case follows ripgrep: the pattern is case-insensitive when it has at least one
literal character and none of its literal characters is an uppercase letter. Escapes such
as ``\\S``, ``\\W`` or ``\\p{Lu}`` are not literal letters, so they never make a pattern
case-sensitive. ``-i`` forces insensitivity.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pysift.core.prefilter import (
    SPACED_REPETITION,
    NeedleSet,
    required_needles,
    tight_repetition,
)
from pysift.errors import UsageError

#: RE2's default program budget (8 MiB) is too small for Unicode ``\w`` under
#: repetition counts; 64 MiB still bounds memory per pattern.
RE2_MAX_MEM_BYTES = 64 << 20

# Unicode class bodies (usable inside ``[...]``) for Rust's Unicode-aware Perl classes.
# \w = Alphabetic + Mark + Decimal_Number + Connector_Punctuation + Join_Control; RE2 has
# no Alphabetic property, so it is spelled as letters, letter numbers and the symbol-
# category letters that Other_Alphabetic adds (circled / squared Latin letters).
_WORD_BODY = (
    r"\p{L}\p{M}\p{Nd}\p{Pc}\p{Nl}\x{200C}\x{200D}"
    r"\x{24B6}-\x{24E9}\x{1F130}-\x{1F149}\x{1F150}-\x{1F169}\x{1F170}-\x{1F189}"
)
# \s = the White_Space property: exactly \t-\r, U+0085 and the Z categories.
_SPACE_BODY = r"\t-\r\x{85}\p{Z}"
_DIGIT_BODY = r"\p{Nd}"

_PERL_CLASS_OUTSIDE = {
    "d": _DIGIT_BODY,
    "D": r"\P{Nd}",
    "s": f"[{_SPACE_BODY}]",
    "S": f"[^{_SPACE_BODY}]",
    "w": f"[{_WORD_BODY}]",
    "W": f"[^{_WORD_BODY}]",
}
# Inside a class a negated Unicode class cannot be spelled as a union member in RE2
# (no nested classes): a class holding \S or \W is spelled anew when it closes
# (``_Translator._class_with_complements``; RE2 read them as ASCII, and the letters
# idiom `[^\W\d_]` missed `é`).
_PERL_CLASS_INSIDE = {"d": _DIGIT_BODY, "D": r"\P{Nd}", "s": _SPACE_BODY, "w": _WORD_BODY}

_LINEAR_TIME_REASON = (
    "search uses a linear-time (RE2-class) regex engine, which cannot support "
    "backreferences, lookahead/lookbehind, atomic groups or possessive quantifiers"
)

_REPETITION = re.compile(r"\{(\d+)(?:,(\d*))?\}")
_FLAG_GROUP = re.compile(r"\(\?([A-Za-z]*)(?:-([A-Za-z]*))?(\)|:)")
_POSIX_CLASS = re.compile(r"\[:\^?[a-z]+:\]")
_HEX_BRACED = re.compile(r"\{([0-9A-Fa-f]{1,8})\}")
_SPECIAL_BOUNDARY = re.compile(r"\\b\{(start|end|start-half|end-half)\}")

# Rust's spelling of each word boundary: what the confirming Rust regex runs.
_RUST_BOUNDARY = {"b": r"\b", "B": r"\B", "start": r"\b{start}", "end": r"\b{end}",
                  "start-half": r"\b{start-half}", "end-half": r"\b{end-half}"}


@dataclass(frozen=True)
class _Boundary:
    """A word-boundary assertion in the translated pattern (``kind``: a key of
    ``_RUST_BOUNDARY``): nothing in RE2's source, itself in the Rust check's."""

    kind: str

    @property
    def re2(self) -> str:
        return "(?:)"

    @property
    def rust(self) -> str:
        return _RUST_BOUNDARY[self.kind]

    @property
    def ascii(self) -> str:
        return r"\B" if self.kind == "B" else r"\b"


@dataclass(frozen=True)
class _Split:
    """A piece RE2 cannot spell exactly: ``re2`` is a superset of it, ``rust`` the exact
    piece for the Rust check (a negated class holding \\W or \\S)."""

    re2: str
    rust: str

    @property
    def ascii(self) -> str:  # the crate refused the pattern: the superset stands
        return self.re2


_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def _unsupported(construct: str, token: str, position: int, hint: str) -> UsageError:
    return UsageError(
        f"invalid regex: {construct} `{token}` (at offset {position}) is not supported: "
        f"{_LINEAR_TIME_REASON}; {hint}"
    )


@dataclass(frozen=True)
class _Translation:
    """The RE2 source for a user pattern plus what smart case needs to know."""

    source: str
    has_literal: bool
    has_uppercase_literal: bool
    exact_source: str | None = None  # for the Rust check (boundaries, a `[^\W…]`); None:
    #                                  RE2's answer is exact
    ascii_source: str | None = None  # RE2 alone, if the crate refuses the exact source


class _Translator:
    """One left-to-right pass over the user's pattern, emitting RE2 syntax.

    The scan knows exactly as much of the grammar as the rewrites need: escapes, classes,
    group openers and quantifiers. Everything else is copied through, and RE2 then
    reports any remaining syntax error in its own words.
    """

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.pos = 0
        self.out: list[str | _Boundary | _Split] = []
        self.verbose = False
        self.has_literal = False
        self.has_upper = False
        self.unicode_off = False  # a `-u` flag group (refused)
        self.class_negated = False  # inside a `[^...]` class
        self.class_complements: list[str] = []  # \W / \S met in the open class

    # -- bookkeeping -------------------------------------------------------------------
    def _literal(self, char: str) -> None:
        self.has_literal = True
        if char.isupper():
            self.has_upper = True

    def _peek(self, offset: int = 0) -> str:
        index = self.pos + offset
        return self.pattern[index] if index < len(self.pattern) else ""

    # -- entry ---------------------------------------------------------------------------
    def run(self) -> _Translation:
        self._leading_flags()
        pattern = self.pattern
        while self.pos < len(pattern):
            char = pattern[self.pos]
            if self.verbose and char.isspace():
                self.pos += 1
            elif self.verbose and char == "#":
                newline = pattern.find("\n", self.pos)
                self.pos = len(pattern) if newline < 0 else newline + 1
            elif char == "\\":
                self._escape(in_class=False)
            elif char == "[":
                self._char_class()
            elif char == "(":
                self._group_opener()
            elif char in "*+?":
                self.out.append(char)
                self.pos += 1
                self._after_quantifier(char)
            elif char == "{":
                self._brace()
            elif char in ")|^$.":
                self.out.append(char)
                self.pos += 1
            else:
                self._literal(char)
                self.out.append(char)
                self.pos += 1
        if self.unicode_off:
            raise UsageError(
                "invalid regex: turning Unicode off (`-u` in a flag group) is not supported: "
                "classes, boundaries and case folding would stay Unicode (`(?-u)\\w` matching "
                "`é`, `(?i-u)è` matching `È`); drop the flag and spell ASCII sets out "
                "([0-9], [A-Za-z0-9_], [\\t\\n\\f\\r ])")
        if all(isinstance(piece, str) for piece in self.out):
            return _Translation("".join(self.out), self.has_literal,  # type: ignore[arg-type]
                                self.has_upper)
        return _Translation(
            "".join(p if isinstance(p, str) else p.re2 for p in self.out),
            self.has_literal, self.has_upper,
            "".join(p if isinstance(p, str) else p.rust for p in self.out),
            "".join(p if isinstance(p, str) else p.ascii for p in self.out))

    def _class_with_complements(self, opened: int) -> None:
        """Rewrite the class just closed at ``self.out[opened:]`` (``[``, members, ``]``)
        around the \\W / \\S it held."""
        first = opened + (2 if self.class_negated else 1)  # past `[` and `^`
        members = "".join(self.out[first:-1])  # type: ignore[arg-type]
        del self.out[opened:]
        complements, self.class_complements = self.class_complements, []
        if not self.class_negated:
            self.out.append(_class_with_complements_source(members, complements))
            return
        # `[^\W\d_]` leaves a part of \w (of \s for \S): RE2 gets that superset, and the
        # Rust crate confirms with the class itself (Unicode \W / \S are its own)
        superset = f"[{_WORD_BODY}]" if "W" in complements else f"[{_SPACE_BODY}]"
        # the members as a nested class (Rust has them): beside \W a `-` would read as a
        # range, and a leading `^` as a negation
        inner = "\\" + members if members.startswith("^") else members
        rust = ("[^" + "".join("\\" + kind for kind in complements)
                + (f"[{inner}]" if inner else "") + "]")
        self.out.append(_Split(superset, rust))

    # -- pieces --------------------------------------------------------------------------
    def _leading_flags(self) -> None:
        """Apply a leading ``(?x...)`` here (RE2 has no verbose mode) and drop the ``x``."""
        match = _FLAG_GROUP.match(self.pattern)
        if match is None or match.group(3) != ")":
            return
        on, off = match.group(1), match.group(2)
        if "x" not in on and "x" not in (off or ""):
            return
        self.verbose = "x" in on
        self.unicode_off = self.unicode_off or "u" in (off or "")
        self.out.append(_flag_group(on, off or "", ")"))
        self.pos = match.end()

    def _after_quantifier(self, quantifier: str) -> None:
        """A quantifier may be followed by ``?`` (lazy); a following ``+`` is possessive."""
        if self._peek() == "?":
            self.out.append("?")
            self.pos += 1
            return
        if self._peek() == "+":
            raise _unsupported(
                "the possessive quantifier",
                quantifier + "+",
                self.pos - len(quantifier),
                "drop the trailing `+` (a plain greedy quantifier matches the same text here)",
            )

    def _brace(self) -> None:
        spaced = SPACED_REPETITION.match(self.pattern, self.pos)
        if spaced is not None:  # Rust allows spaces around the counts: `a{2, 3}`
            self.out.append(tight_repetition(spaced))
            self.pos = spaced.end()
            self._after_quantifier(spaced.group(0))
            return
        match = _REPETITION.match(self.pattern, self.pos)
        if match is None:  # RE2 (like Rust for an unclosed brace) reads it as a literal `{`
            self._literal("{")
            self.out.append(r"\{")
            self.pos += 1
            return
        self.out.append(match.group(0))
        self.pos = match.end()
        self._after_quantifier(match.group(0))

    def _group_opener(self) -> None:
        pattern, start = self.pattern, self.pos
        if self._peek(1) != "?":
            self.out.append("(")
            self.pos += 1
            return
        rest = pattern[start + 2 : start + 4]
        if rest[:1] in ("=", "!"):
            raise _unsupported(
                "lookahead",
                "(?" + rest[:1],
                start,
                "match the following text explicitly instead of asserting it",
            )
        if rest in ("<=", "<!"):
            raise _unsupported(
                "lookbehind",
                "(?" + rest,
                start,
                "match the preceding text explicitly instead of asserting it",
            )
        if rest[:1] == ">":
            raise _unsupported(
                "the atomic group", "(?>", start, "use a non-capturing group `(?:...)`"
            )
        if pattern.startswith("(?P=", start):
            raise _unsupported(
                "the named backreference", "(?P=", start, "match the repeated text explicitly"
            )
        if rest[:1] == "(":
            raise UsageError(
                f"invalid regex: the conditional group `(?(` (at offset {start}) is not "
                "supported; use an alternation `a|b` instead"
            )
        for prefix in ("(?P<", "(?<"):
            if pattern.startswith(prefix, start):
                close = pattern.find(">", start)
                end = len(pattern) if close < 0 else close + 1
                self.out.append("(?P<" + pattern[start + len(prefix) : end])
                self.pos = end
                return
        flags = _FLAG_GROUP.match(pattern, start)
        if flags is not None:
            if "x" in flags.group(1) or "x" in (flags.group(2) or ""):
                raise UsageError(
                    f"invalid regex: the verbose flag `x` (at offset {start}) is supported "
                    "only as a leading `(?x)` that applies to the whole pattern"
                )
            self.unicode_off = self.unicode_off or "u" in (flags.group(2) or "")
            self.out.append(_flag_group(flags.group(1), flags.group(2) or "", flags.group(3)))
            self.pos = flags.end()
            return
        self.out.append("(?")  # anything else: let RE2 name the problem
        self.pos += 2

    def _escape(self, *, in_class: bool) -> None:
        pattern, start = self.pattern, self.pos
        nxt = pattern[start + 1] if start + 1 < len(pattern) else ""
        if not nxt:
            self.out.append("\\")  # RE2: "trailing \"
            self.pos += 1
            return
        if nxt in "123456789":
            end = start + 2
            while end < len(pattern) and pattern[end].isdigit():
                end += 1
            raise _unsupported(
                "the backreference",
                pattern[start:end],
                start,
                "match the repeated text explicitly",
            )
        if nxt == "k" and start + 2 < len(pattern) and pattern[start + 2] in "<{'":
            raise _unsupported(
                "the named backreference", "\\k", start, "match the repeated text explicitly"
            )
        if nxt == "C":
            raise UsageError(
                f"invalid regex: `\\C` (at offset {start}) matches a single byte and can split "
                "a UTF-8 character; use `.` or `\\x{...}` instead"
            )
        if not in_class and nxt in "<>bB":
            self._word_boundary(start)
            return
        if in_class and nxt in "WS":
            self.class_complements.append(nxt)  # the class is spelled anew at its end
            self.pos += 2
            return
        table = _PERL_CLASS_INSIDE if in_class else _PERL_CLASS_OUTSIDE
        if nxt in table:
            self.out.append(table[nxt])
            self.pos += 2
            return
        if nxt in "pP":
            self._unicode_class(start)
            return
        if nxt == "Q" and not in_class:
            self._quoted(start)
            return
        if nxt in "xuU":
            self._hex_escape(start, nxt)
            return
        if nxt.isspace():  # `\ ` in verbose mode is a literal space
            self._literal(nxt)
            self.out.append(f"\\x{{{ord(nxt):x}}}")
            self.pos += 2
            return
        if nxt in "aftnrv0" or (nxt.isascii() and not nxt.isalnum()):
            if not nxt.isalnum():
                self._literal(nxt)
            else:
                self.has_literal = True
            self.out.append(pattern[start : start + 2])
            self.pos += 2
            return
        # anchors (\A \z) and anything RE2 will reject in its own words
        self.out.append(pattern[start : start + 2])
        self.pos += 2

    def _word_boundary(self, start: int) -> None:
        """Rust's ``\\b``, ``\\B``, ``\\<``, ``\\>`` and ``\\b{start}``-style assertions."""
        pattern = self.pattern
        nxt = pattern[start + 1]
        if nxt in "<>B" or not pattern.startswith("b{", start + 1):
            self.out.append(_Boundary({"<": "start", ">": "end"}.get(nxt, nxt)))
            self.pos = start + 2
            return
        special = _SPECIAL_BOUNDARY.match(pattern, start)
        if special is None:
            raise UsageError(
                f"invalid regex: unknown word-boundary assertion at offset {start}; use "
                "\\b, \\B, \\b{start}, \\b{end}, \\b{start-half} or \\b{end-half}"
            )
        self.out.append(_Boundary(special.group(1)))
        self.pos = special.end()

    def _unicode_class(self, start: int) -> None:
        pattern = self.pattern
        if start + 2 < len(pattern) and pattern[start + 2] == "{":
            close = pattern.find("}", start + 2)
            end = len(pattern) if close < 0 else close + 1
        else:
            end = min(len(pattern), start + 3)
        self.out.append(pattern[start:end])
        self.pos = end

    def _quoted(self, start: int) -> None:
        """``\\Q...\\E``: everything between is literal (RE2 extension; kept for users)."""
        pattern = self.pattern
        close = pattern.find("\\E", start + 2)
        end = len(pattern) if close < 0 else close
        for char in pattern[start + 2 : end]:
            self._literal(char)
            self.out.append(_quote_char(char))
        self.pos = len(pattern) if close < 0 else close + 2

    def _hex_escape(self, start: int, kind: str) -> None:
        """``\\xHH \\x{H} \\uHHHH \\u{H} \\UHHHHHHHH \\U{H}`` -> RE2's ``\\x{H}``."""
        pattern = self.pattern
        braced = _HEX_BRACED.match(pattern, start + 2)
        if braced is not None:
            digits, end = braced.group(1), braced.end()
        else:
            width = {"x": 2, "u": 4, "U": 8}[kind]
            digits = pattern[start + 2 : start + 2 + width]
            end = start + 2 + width
            if len(digits) != width or any(c not in "0123456789abcdefABCDEF" for c in digits):
                self.out.append(pattern[start : start + 2])  # RE2 reports the bad escape
                self.pos = start + 2
                return
        value = int(digits, 16)
        if value <= 0x10FFFF:
            self._literal(chr(value))
        self.out.append(f"\\x{{{digits}}}")
        self.pos = end

    def _char_class(self) -> None:
        pattern = self.pattern
        opened = len(self.out)
        self.out.append("[")
        self.pos += 1
        self.class_negated = self._peek() == "^"
        self.class_complements = []  # \W / \S met in this class
        if self.class_negated:
            self.out.append("^")
            self.pos += 1
        if self._peek() == "]":  # a leading `]` is a literal member
            self._literal("]")
            self.out.append(r"\]")
            self.pos += 1
        while self.pos < len(pattern):
            char = pattern[self.pos]
            if char == "]":
                self.out.append("]")
                self.pos += 1
                if self.class_complements:
                    self._class_with_complements(opened)
                return
            if char == "\\":
                self._escape(in_class=True)
                continue
            if char == "[":
                posix = _POSIX_CLASS.match(pattern, self.pos)
                if posix is None:
                    raise UsageError(
                        f"invalid regex: nested character class at offset {self.pos} is not "
                        "supported; write a literal `[` inside a class as `\\[`"
                    )
                self.out.append(posix.group(0))
                self.pos = posix.end()
                continue
            if pattern.startswith(("&&", "--", "~~"), self.pos):
                raise UsageError(
                    f"invalid regex: the class set operation `{pattern[self.pos:self.pos + 2]}` "
                    f"(at offset {self.pos}) is not supported; spell the members out, or "
                    "escape a literal character as `\\-`, `\\&` or `\\~`"
                )
            if self.verbose and char.isspace():
                self.pos += 1
                continue
            self._literal(char)
            self.out.append(char)
            self.pos += 1
        # unterminated: RE2 reports "missing ]"


def _class_with_complements_source(members: str, complements: list[str]) -> str:
    """``[members\\W]`` as RE2 can spell it: ``(?:[members]|[^<\\w>])`` (a negated
    Unicode set cannot stand inside a class, but can stand beside it)."""
    if members.startswith("^"):  # a literal caret, first no more: not a negation
        members = "\\" + members
    parts = [f"[{members}]"] if members else []
    parts += [_PERL_CLASS_OUTSIDE[kind] for kind in dict.fromkeys(complements)]
    return "(?:" + "|".join(parts) + ")"


def _flag_group(on: str, off: str, terminator: str) -> str:
    """A flag group for RE2: ``x`` is applied by the translator, ``u`` is always on (a
    ``-u`` is refused by ``_Translator.run``: RE2 would keep Unicode anyway)."""
    on, off = on.replace("x", "").replace("u", ""), off.replace("x", "").replace("u", "")
    flags = on + ("-" + off if off else "")
    if terminator == ":":
        return f"(?{flags}:"
    return f"(?{flags})" if flags else ""


def _quote_char(char: str) -> str:
    if char.isascii() and not char.isalnum() and char != "_":
        return f"\\x{{{ord(char):x}}}" if not char.isprintable() or char == " " else "\\" + char
    return char


def _translate(pattern: str) -> _Translation:
    return _Translator(pattern).run()


def _re2_options(*, case_insensitive: bool) -> Any:
    import re2

    options = re2.Options()
    options.log_errors = False
    options.max_mem = RE2_MAX_MEM_BYTES
    options.case_sensitive = not case_insensitive
    return options


class Matcher:
    """A compiled user pattern: search decoded text; ``needles`` gates raw line bytes.

    Offsets are code-point offsets into the ``str`` given (what excerpting needs).
    """

    __slots__ = ("_exact", "_regex", "case_insensitive", "is_empty", "multiline", "needles",
                 "pattern")

    def __init__(
        self,
        pattern: str,
        *,
        regex: Any,
        case_insensitive: bool,
        multiline: bool,
        needles: NeedleSet | None,
        exact: Any = None,
    ) -> None:
        self.pattern = pattern
        self._exact = exact  # the ``regex``-module check of a pattern with word boundaries
        self.case_insensitive = case_insensitive
        self.multiline = multiline
        self.is_empty = pattern == ""
        self.needles = needles
        self._regex = regex

    def __repr__(self) -> str:
        return (
            f"Matcher({self.pattern!r}, case_insensitive={self.case_insensitive}, "
            f"multiline={self.multiline}, needles={self.needles!r})"
        )

    def search(self, text: str) -> tuple[int, int] | None:
        """The first match's span in ``text``, or None. The empty pattern matches at 0."""
        if self._regex is None:
            return (0, 0)
        try:
            match = self._regex.search(text)
        except UnicodeEncodeError:
            text = _without_surrogates(text)  # the check must read what RE2 read
            match = self._regex.search(text)
        if match is None:
            return None
        if self._exact is not None:
            confirmed = self._exact.search(text)
            return None if confirmed is None else confirmed.span()
        return match.span()

    def matches(self, text: str) -> bool:
        return self.search(text) is not None

    def finditer(self, text: str) -> Iterator[tuple[int, int]]:
        """Every non-overlapping match span, left to right (one ``(0, 0)`` when empty)."""
        if self._regex is None:
            yield (0, 0)
            return
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = _without_surrogates(text)
        if self._exact is not None:
            if self._regex.search(text) is not None:
                yield from (m.span() for m in self._exact.finditer(text))
            return
        for match in self._regex.finditer(text):
            yield match.span()


def _without_surrogates(text: str) -> str:
    """RE2 needs UTF-8; a lone surrogate (lenient JSON decoders keep them) becomes U+FFFD.

    The replacement is one code point for one, so every offset stays valid for ``text``.
    """
    return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)


def is_smart_case_insensitive(pattern: str) -> bool:
    """Smart case alone (no ``-i``): True when the pattern has a literal and no uppercase one."""
    translation = _translate(pattern)
    return translation.has_literal and not translation.has_uppercase_literal


def compile_pattern(pattern: str, *, ignore_case: bool = False, multiline: bool = False) -> Matcher:
    """Compile a search pattern under smart case (``ignore_case`` forces insensitivity).

    ``multiline`` lets ``.`` match a newline and makes ``^``/``$`` match at line breaks.
    Raises ``UsageError`` for a pattern that is invalid or needs a non-linear engine.
    """
    if pattern == "":
        return Matcher(
            "", regex=None, case_insensitive=ignore_case, multiline=multiline, needles=None
        )
    translation = _translate(pattern)
    insensitive = ignore_case or (
        translation.has_literal and not translation.has_uppercase_literal
    )
    source = ("(?ms)" if multiline else "") + translation.source
    exact = None
    if translation.exact_source is not None:
        exact = _boundary_check(("(?ms)" if multiline else "") + translation.exact_source,
                                insensitive)
        if exact is None:  # a construct the crate refuses: RE2's ASCII boundaries
            source = ("(?ms)" if multiline else "") + (translation.ascii_source or "")
    import re2

    try:
        regex = re2.compile(source, _re2_options(case_insensitive=insensitive))
    except re2.error as exc:
        raise UsageError(f"invalid regex: {_re2_message(exc)}") from None
    except UnicodeEncodeError:
        raise UsageError(
            "invalid regex: the pattern is not valid UTF-8 (it holds undecodable bytes); "
            "retype it or use \\x{...} escapes"
        ) from None
    return Matcher(
        pattern,
        regex=regex,
        case_insensitive=insensitive,
        multiline=multiline,
        needles=required_needles(pattern, case_insensitive=insensitive),
        exact=exact,
    )


def _boundary_check(source: str, insensitive: bool) -> Any:
    """The Rust regex (``rurex``) confirming RE2's candidates: the translated pattern with
    its boundaries in Rust's syntax, so both engines read the same classes. None if the
    crate refuses it (the pattern then keeps RE2's ASCII boundaries)."""
    import rurex

    # every non-ASCII character as its escape: the crate's error path panicked (and
    # printed a Rust backtrace) on an error offset inside a multi-byte character
    ascii_source = "".join(c if c.isascii() else f"\\x{{{ord(c):X}}}" for c in source)
    try:
        return rurex.compile(ascii_source, rurex.IGNORECASE if insensitive else 0)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # noqa: BLE001 - a refusal, or a panic inside the crate
        return None


def _re2_message(exc: Exception) -> str:
    detail = exc.args[0] if exc.args else str(exc)
    if isinstance(detail, bytes):
        detail = detail.decode("utf-8", "replace")
    return str(detail)


_META_CHARS = frozenset("\\.+*?()|[]{}^$#&-~")


def escape_literal(text: str) -> str:
    """A pattern matching ``text`` literally in this dialect (for tests and fixed strings).

    Unlike RE2's QuoteMeta it leaves ``<`` and ``>`` alone: ``\\<``/``\\>`` are Rust's
    word-boundary assertions here.
    """
    out = []
    for char in text:
        if char in _META_CHARS:
            out.append("\\" + char)
        elif (char.isascii() and not char.isprintable()) or char.isspace():
            out.append(f"\\x{{{ord(char):x}}}")
        else:
            out.append(char)
    return "".join(out)


def looks_like_target(pattern: str) -> bool:
    """A PATTERN spelled like a scope token (``@<uuid>``, ``@main``...): the CLI refuses it."""
    return pattern.startswith("@")


def looks_like_uuid(pattern: str) -> bool:
    """A bare session uuid given as PATTERN: searched literally, but worth a stderr note."""
    return _UUID.fullmatch(pattern) is not None
