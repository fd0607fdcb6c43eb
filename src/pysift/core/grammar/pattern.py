"""The search PATTERN, read once: the Rust ``regex`` dialect csift takes -> a small tree.

Two readers need the pattern: ``core/matcher.py`` spells it for RE2 (and for the Rust
crate that confirms word boundaries), ``core/prefilter.py`` takes from it the texts every
match must contain. The prefilter is sound only while both read the pattern the same way,
so both read THIS tree (as ripgrep's matcher and its inner-literal extraction both read
one HIR). Nothing here knows RE2 or JSON; a node records what the user wrote and what it
means, and the matcher decides how to spell it.

What is read: literals (raw, ``\\.``-style, ``\\n \\t \\r \\f \\v \\a``, ``\\0`` with up to
two more octal digits, ``\\xHH \\x{H} \\uHHHH \\u{H} \\UHHHHHHHH \\U{H}``, ``\\Q...\\E``, an
escaped space), bracket classes (ranges, ``\\d \\s \\w`` and their complements, ``\\p{..}``,
POSIX ``[:alpha:]``, a leading ``]``), ``.``, ``^ $ \\A \\z``, the word boundaries ``\\b \\B
\\< \\> \\b{start}`` …, groups (capturing, ``(?P<name>``/``(?<name>``, ``(?:``, ``(?flags:``),
flag groups ``(?i)``, alternation, repetition (``* + ?``, ``{n} {n,} {n,m}`` with spaces
around the counts as Rust allows, lazy ``?``), and a leading ``(?x)`` (verbose: whitespace
and ``#`` comments outside classes are dropped; whitespace inside a class too).

Refused with a ``UsageError`` that names the construct: what needs a backtracking engine
(backreferences, lookaround, atomic groups, possessive quantifiers, conditionals), ``\\C``,
nested classes and class set operations (``&& -- ~~``), an unknown ``\\b{...}``, ``x``
anywhere but a leading flag group, and ``-u`` (turning Unicode off).

Anything else the parser cannot place (a bad escape, a stray ``)``, a quantifier with
nothing before it, an unknown ``(?`` opener) becomes a ``Verbatim`` node: handed on as
written, for RE2 to accept or name in its own words. A tree holding one is ``opaque``
(the prefilter then gates nothing). Parsing never raises anything but ``UsageError`` and
never recurses: a pattern nested thousands deep is read like any other.
"""

from __future__ import annotations

import re

from pysift.errors import UsageError

__all__ = [
    "Alternation", "Anchor", "Boundary", "Class", "ClassItem", "ClassRange", "Concat", "Dot",
    "Flags", "Group", "Literal", "Node", "Pattern", "PerlClass", "PosixClass", "Repeat",
    "UnicodeClass", "Verbatim", "parse_pattern",
]

# ----------------------------------------------------------------------------------------
# the tree
# ----------------------------------------------------------------------------------------
# Plain slotted classes, not dataclasses: search start-up imports this module, and
# generating seventeen dataclasses cost more than the rest of the pattern compile.


class _Node:
    """Value semantics from ``__slots__``: equal when of one type with equal fields."""

    __slots__: tuple[str, ...] = ()

    def _fields(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash((type(self), self._fields()))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"


class Literal(_Node):
    """One code point. ``spelling``: as the user wrote it, with the dialect's own escapes
    (``\\u00e9``, ``\\Q...\\E`` members, an escaped space) already in the ``\\x{..}`` form
    every engine reads."""

    __slots__ = ("char", "spelling")

    def __init__(self, char: str, spelling: str) -> None:
        self.char = char
        self.spelling = spelling


class ClassRange(_Node):
    """``first-last`` inside brackets."""

    __slots__ = ("first", "last")

    def __init__(self, first: Literal, last: Literal) -> None:
        self.first = first
        self.last = last


class PerlClass(_Node):
    """``\\d \\D \\s \\S \\w \\W`` (Unicode, as in Rust), in or out of brackets."""

    __slots__ = ("kind",)

    def __init__(self, kind: str) -> None:
        self.kind = kind


class UnicodeClass(_Node):
    """``\\pL``, ``\\p{Greek}``, ``\\P{Lu}``: as written (the engines know the names)."""

    __slots__ = ("spelling",)

    def __init__(self, spelling: str) -> None:
        self.spelling = spelling


class PosixClass(_Node):
    """``[:alpha:]`` or ``[:^digit:]`` inside brackets (ASCII, as in RE2 and Rust)."""

    __slots__ = ("spelling",)

    def __init__(self, spelling: str) -> None:
        self.spelling = spelling


class Verbatim(_Node):
    """Text the parser cannot place, handed on as written (see the module docstring)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


ClassItem = Literal | ClassRange | PerlClass | UnicodeClass | PosixClass | Verbatim


class Class(_Node):
    """``[...]``; ``closed`` is False when the pattern ends inside it."""

    __slots__ = ("closed", "items", "negated")

    def __init__(self, negated: bool, items: tuple[ClassItem, ...], closed: bool = True) -> None:
        self.negated = negated
        self.items = items
        self.closed = closed


class Dot(_Node):
    """``.``"""

    __slots__ = ()


class Anchor(_Node):
    """``^``, ``$``, ``\\A`` or ``\\z`` (as written)."""

    __slots__ = ("spelling",)

    def __init__(self, spelling: str) -> None:
        self.spelling = spelling


#: The word-boundary assertions: ``\\b``, ``\\B`` and the ``\\b{...}`` forms (``\\<`` is
#: ``start``, ``\\>`` is ``end``).
BOUNDARY_KINDS = ("b", "B", "start", "end", "start-half", "end-half")


class Boundary(_Node):
    """A word-boundary assertion; ``kind`` is one of ``BOUNDARY_KINDS``."""

    __slots__ = ("kind",)

    def __init__(self, kind: str) -> None:
        self.kind = kind


class Flags(_Node):
    """``(?on-off)``: flags for the rest of the enclosing group (letters as written)."""

    __slots__ = ("off", "on")

    def __init__(self, on: str, off: str) -> None:
        self.on = on
        self.off = off


class Group(_Node):
    """A parenthesised group. ``kind``: ``capture``, ``named`` (``name`` as written, up to
    and with its ``>``), ``plain`` (``(?:``) or ``flags`` (``(?on-off:``, ``flags`` set)."""

    __slots__ = ("body", "closed", "flags", "kind", "name")

    def __init__(self, kind: str, body: Node, name: str = "", flags: Flags | None = None,
                 closed: bool = True) -> None:
        self.kind = kind
        self.body = body
        self.name = name
        self.flags = flags
        self.closed = closed

    @property
    def capturing(self) -> bool:
        return self.kind in ("capture", "named")


class Repeat(_Node):
    """``body`` repeated ``low``..``high`` times (``high`` None: unbounded). ``spelling``:
    the operator as written (a counted one without its spaces), lazy ``?`` included.
    ``between``: flag groups written between the item and its operator (``a(?i)+``):
    RE2 repeats the item and applies the flags after it."""

    __slots__ = ("between", "body", "greedy", "high", "low", "spelling")

    def __init__(self, body: Node, low: int, high: int | None, greedy: bool, spelling: str,
                 between: tuple[Flags, ...] = ()) -> None:
        self.body = body
        self.low = low
        self.high = high
        self.greedy = greedy
        self.spelling = spelling
        self.between = between


class Concat(_Node):
    __slots__ = ("items",)

    def __init__(self, items: tuple[Node, ...]) -> None:
        self.items = items


class Alternation(_Node):
    __slots__ = ("branches",)

    def __init__(self, branches: tuple[Node, ...]) -> None:
        self.branches = branches


Node = (Literal | Class | PerlClass | UnicodeClass | Dot | Anchor | Boundary | Flags | Verbatim
        | Group | Repeat | Concat | Alternation)


class Pattern:
    """A parsed pattern and the facts its readers need without walking it again."""

    __slots__ = ("has_literal", "has_uppercase_literal", "inline_caseless", "needs_rust",
                 "opaque", "root", "source")

    def __init__(self, source: str, root: Node, *, has_literal: bool,
                 has_uppercase_literal: bool, inline_caseless: bool, opaque: bool,
                 needs_rust: bool) -> None:
        self.source = source
        self.root = root
        #: smart case (ripgrep's rule): a literal character, and whether one is
        #: uppercase; escapes such as ``\\S`` or ``\\p{Lu}`` are no literal letters
        self.has_literal = has_literal
        self.has_uppercase_literal = has_uppercase_literal
        #: an ``i`` among the enabled letters of some flag group
        self.inline_caseless = inline_caseless
        #: a ``Verbatim`` node somewhere: what the pattern means is RE2's to say
        self.opaque = opaque
        #: a word boundary, or a negated class holding ``\\W``/``\\S``: constructs whose
        #: exact reading needs the Rust crate
        self.needs_rust = needs_rust

    def __repr__(self) -> str:
        return f"Pattern({self.source!r}, {self.root!r})"

    @property
    def smart_case_insensitive(self) -> bool:
        return self.has_literal and not self.has_uppercase_literal


# ----------------------------------------------------------------------------------------
# the dialect's vocabulary
# ----------------------------------------------------------------------------------------

_LINEAR_TIME_REASON = (
    "search uses a linear-time (RE2-class) regex engine, which cannot support "
    "backreferences, lookahead/lookbehind, atomic groups or possessive quantifiers"
)

#: ``(?flags)`` / ``(?flags:`` with letters on and off (unknown letters are RE2's to judge)
_FLAG_GROUP = re.compile(r"\(\?([A-Za-z]*)(?:-([A-Za-z]*))?(\)|:)")
#: a counted repetition; Rust allows spaces around the counts (``a{2, 3}`` is ``a{2,3}``).
#: Counts in other scripts' digits (``{٣}``) match too: RE2 reads such a brace as literal
#: text and Rust refuses it, so it is handed on as written (a ``Verbatim``).
_COUNTED_REPETITION = re.compile(r"\{[ \t\n]*(\d+)[ \t\n]*(?:(,)[ \t\n]*(\d*)[ \t\n]*)?\}")
#: ``\x{...}`` / ``\u{...}`` / ``\U{...}``: one to eight hex digits in braces
_HEX_BRACED = re.compile(r"\{([0-9A-Fa-f]{1,8})\}")
#: digits of the unbraced hex escapes
_HEX_WIDTH = {"x": 2, "u": 4, "U": 8}
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_OCTAL_DIGITS = frozenset("01234567")
_POSIX_CLASS = re.compile(r"\[:\^?[a-z]+:\]")
_SPECIAL_BOUNDARY = re.compile(r"\\b\{(start|end|start-half|end-half)\}")
#: the one-letter escapes naming a control character (``\\0`` is read with its octal digits)
_CONTROL_ESCAPES = {"a": "\x07", "f": "\x0c", "t": "\t", "n": "\n", "r": "\r", "v": "\x0b"}
#: Perl classes; inside brackets ``\\W`` and ``\\S`` are kept apart by the matcher
_PERL_CLASSES = frozenset("dDsSwW")


def _unsupported(construct: str, token: str, position: int, hint: str) -> UsageError:
    return UsageError(
        f"invalid regex: {construct} `{token}` (at offset {position}) is not supported: "
        f"{_LINEAR_TIME_REASON}; {hint}"
    )


def _count(digits: str) -> int:
    """A repetition count (a huge one is capped: only ``>= 1`` matters past RE2's 1000)."""
    if not digits.isascii():
        return 0  # the brace is handed on as written (see _COUNTED_REPETITION)
    significant = digits.lstrip("0")
    return int(significant[:18] or "0")


def parse_pattern(pattern: str) -> Pattern:
    """Read ``pattern`` into a tree. Raises ``UsageError`` for a refused construct only."""
    return _Parser(pattern).parse()


# ----------------------------------------------------------------------------------------
# the parser: one left-to-right pass, open groups on an explicit stack
# ----------------------------------------------------------------------------------------


class _Frame:
    """An open group (the bottom frame is the whole pattern)."""

    __slots__ = ("branches", "flags", "items", "kind", "name")

    def __init__(self, kind: str = "", name: str = "", flags: Flags | None = None) -> None:
        self.kind = kind
        self.name = name
        self.flags = flags
        self.branches: list[list[Node]] = []
        self.items: list[Node] = []

    def body(self) -> Node:
        branches = [*self.branches, self.items]
        if len(branches) == 1:
            return _concat(self.items)
        return Alternation(tuple(_concat(branch) for branch in branches))


def _concat(items: list[Node]) -> Node:
    return items[0] if len(items) == 1 else Concat(tuple(items))


class _Parser:
    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.pos = 0
        self.verbose = False
        self.has_literal = False
        self.has_upper = False
        self.inline_caseless = False
        self.unicode_off = False
        self.opaque = False
        self.needs_rust = False

    # -- bookkeeping -------------------------------------------------------------------
    def _peek(self, offset: int = 0) -> str:
        index = self.pos + offset
        return self.pattern[index] if index < len(self.pattern) else ""

    def _literal(self, char: str, spelling: str) -> Literal:
        self.has_literal = True
        if char.isupper():
            self.has_upper = True
        return Literal(char, spelling)

    def _verbatim(self, text: str) -> Verbatim:
        self.opaque = True
        return Verbatim(text)

    def _flags(self, on: str, off: str) -> Flags:
        if "i" in on:
            self.inline_caseless = True
        if "u" in off:
            self.unicode_off = True
        return Flags(on, off)

    # -- entry ---------------------------------------------------------------------------
    def parse(self) -> Pattern:
        pattern = self.pattern
        frames = [_Frame()]
        self._leading_flags(frames[0])
        while self.pos < len(pattern):
            char = pattern[self.pos]
            frame = frames[-1]
            if self.verbose and char.isspace():
                self.pos += 1
            elif self.verbose and char == "#":
                newline = pattern.find("\n", self.pos)
                self.pos = len(pattern) if newline < 0 else newline + 1
            elif char == "\\":
                frame.items.extend(self._escape())
            elif char == "[":
                frame.items.append(self._class())
            elif char == "(":
                opened = self._group_opener()
                if isinstance(opened, _Frame):
                    frames.append(opened)
                else:
                    frame.items.append(opened)
            elif char == ")":
                self.pos += 1
                if len(frames) == 1:
                    frame.items.append(self._verbatim(")"))
                else:
                    frames.pop()
                    frames[-1].items.append(_closed(frame, closed=True))
            elif char == "|":
                self.pos += 1
                frame.branches.append(frame.items)
                frame.items = []
            elif char in "*+?":
                self.pos += 1
                low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}[char]
                self._repeat(frame, char, low, high)
            elif char == "{":
                self._brace(frame)
            elif char in "^$":
                self.pos += 1
                frame.items.append(Anchor(char))
            elif char == ".":
                self.pos += 1
                frame.items.append(Dot())
            else:
                self.pos += 1
                frame.items.append(self._literal(char, char))
        while len(frames) > 1:  # unclosed groups: RE2 reports the missing `)`
            inner = frames.pop()
            frames[-1].items.append(_closed(inner, closed=False))
        if self.unicode_off:
            raise UsageError(
                "invalid regex: turning Unicode off (`-u` in a flag group) is not supported: "
                "classes, boundaries and case folding would stay Unicode (`(?-u)\\w` matching "
                "`é`, `(?i-u)è` matching `È`); drop the flag and spell ASCII sets out "
                "([0-9], [A-Za-z0-9_], [\\t\\n\\f\\r ])")
        return Pattern(pattern, frames[0].body(), has_literal=self.has_literal,
                       has_uppercase_literal=self.has_upper,
                       inline_caseless=self.inline_caseless, opaque=self.opaque,
                       needs_rust=self.needs_rust)

    # -- pieces --------------------------------------------------------------------------
    def _leading_flags(self, frame: _Frame) -> None:
        """A leading ``(?x...)`` turns verbose mode on for the whole pattern."""
        match = _FLAG_GROUP.match(self.pattern)
        if match is None or match.group(3) != ")":
            return
        on, off = match.group(1), match.group(2) or ""
        if "x" not in on and "x" not in off:
            return
        self.verbose = "x" in on
        frame.items.append(self._flags(on, off))
        self.pos = match.end()

    def _repeat(self, frame: _Frame, token: str, low: int, high: int | None, *,
                verbatim: bool = False) -> None:
        """Apply the quantifier just read (``token``, its source text) to the last item."""
        greedy = True
        if self._peek() == "?":
            greedy = False
            self.pos += 1
        elif self._peek() == "+":
            raise _unsupported(
                "the possessive quantifier",
                token + "+",
                self.pos - len(token),
                "drop the trailing `+` (a plain greedy quantifier matches the same text here)",
            )
        spelling = _tight(token) + ("" if greedy else "?")
        items = frame.items
        operand = len(items) - 1
        while operand >= 0 and isinstance(items[operand], Flags):
            operand -= 1  # RE2 repeats the item before a flag group (Rust refuses)
        if operand < 0 or verbatim or isinstance(items[operand], Verbatim):
            items.append(self._verbatim(spelling))  # nothing to repeat: RE2 says so
            return
        between = tuple(items[operand + 1 :])
        items[operand:] = [Repeat(items[operand], low, high, greedy, spelling,
                                  between)]  # type: ignore[arg-type]

    def _brace(self, frame: _Frame) -> None:
        counted = _COUNTED_REPETITION.match(self.pattern, self.pos)
        if counted is None:  # RE2 (like Rust for an unclosed brace) reads a literal `{`
            self.pos += 1
            frame.items.append(self._literal("{", r"\{"))
            return
        self.pos = counted.end()
        low, comma, high = counted.groups()
        self._repeat(frame, counted.group(0), _count(low),
                     None if comma and not high else _count(high or low),
                     verbatim=not counted.group(0).isascii())

    def _group_opener(self) -> _Frame | Node:
        pattern, start = self.pattern, self.pos
        if self._peek(1) != "?":
            self.pos += 1
            return _Frame("capture")
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
                self.pos = end
                return _Frame("named", name=pattern[start + len(prefix) : end])
        flags = _FLAG_GROUP.match(pattern, start)
        if flags is not None:
            on, off = flags.group(1), flags.group(2) or ""
            if "x" in on or "x" in off:
                raise UsageError(
                    f"invalid regex: the verbose flag `x` (at offset {start}) is supported "
                    "only as a leading `(?x)` that applies to the whole pattern"
                )
            self.pos = flags.end()
            if flags.group(3) == ")":
                return self._flags(on, off)
            if not on and not off:
                return _Frame("plain")
            return _Frame("flags", flags=self._flags(on, off))
        self.pos += 2  # anything else: RE2 names the problem
        return self._verbatim("(?")

    # -- escapes -------------------------------------------------------------------------
    def _escape(self) -> list[Node]:
        """The escape at ``self.pos``, outside brackets."""
        pattern, start = self.pattern, self.pos
        nxt = pattern[start + 1] if start + 1 < len(pattern) else ""
        if nxt in ("<", ">", "b", "B"):
            return [self._word_boundary(start)]
        if nxt in _PERL_CLASSES:
            self.pos += 2
            return [PerlClass(nxt)]
        if nxt == "Q":
            return list(self._quoted(start))
        if nxt in ("A", "z"):
            self.pos += 2
            return [Anchor("\\" + nxt)]
        return [self._common_escape(in_class=False)]

    def _common_escape(self, *, in_class: bool) -> Literal | UnicodeClass | Verbatim:
        """An escape that reads the same in and out of brackets (after the refusals)."""
        pattern, start = self.pattern, self.pos
        nxt = pattern[start + 1] if start + 1 < len(pattern) else ""
        if not nxt:
            self.pos += 1
            return self._verbatim("\\")  # RE2: "trailing \"
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
        if nxt in "pP":
            return self._unicode_class(start)
        if nxt in _HEX_WIDTH:
            return self._hex_escape(start, nxt)
        if nxt.isspace():  # `\ ` (verbose mode) is a literal space
            self.pos += 2
            return self._literal(nxt, f"\\x{{{ord(nxt):x}}}")
        if nxt == "0":
            return self._octal(start, in_class=in_class)
        if nxt in _CONTROL_ESCAPES:
            self.pos += 2
            return self._literal(_CONTROL_ESCAPES[nxt], pattern[start : start + 2])
        if nxt.isascii() and not nxt.isalnum():
            self.pos += 2
            return self._literal(nxt, pattern[start : start + 2])
        self.pos += 2  # an escape neither RE2 nor Rust knows: RE2 rejects it
        return self._verbatim(pattern[start : start + 2])

    def _octal(self, start: int, *, in_class: bool) -> Literal:
        """``\\0`` and up to two more octal digits, as RE2 reads it. The digits are found
        where RE2 will find them: past anything verbose mode drops."""
        digits = ""
        self.pos = start + 2
        while len(digits) < 2:
            ahead = self._skip_verbose(self.pos, in_class=in_class)
            if ahead >= len(self.pattern) or self.pattern[ahead] not in _OCTAL_DIGITS:
                break
            digits += self.pattern[ahead]
            self.pos = ahead + 1
        return self._literal(chr(int(digits or "0", 8)), "\\0" + digits)

    def _skip_verbose(self, pos: int, *, in_class: bool) -> int:
        """``pos`` moved past what verbose mode drops there (nothing outside verbose)."""
        pattern = self.pattern
        while self.verbose and pos < len(pattern):
            if pattern[pos].isspace():
                pos += 1
            elif pattern[pos] == "#" and not in_class:
                newline = pattern.find("\n", pos)
                pos = len(pattern) if newline < 0 else newline + 1
            else:
                break
        return pos

    def _word_boundary(self, start: int) -> Boundary:
        """Rust's ``\\b``, ``\\B``, ``\\<``, ``\\>`` and ``\\b{start}``-style assertions."""
        pattern = self.pattern
        nxt = pattern[start + 1]
        self.needs_rust = True
        if nxt in "<>B" or not pattern.startswith("b{", start + 1):
            self.pos = start + 2
            return Boundary({"<": "start", ">": "end"}.get(nxt, nxt))
        special = _SPECIAL_BOUNDARY.match(pattern, start)
        if special is None:
            raise UsageError(
                f"invalid regex: unknown word-boundary assertion at offset {start}; use "
                "\\b, \\B, \\b{start}, \\b{end}, \\b{start-half} or \\b{end-half}"
            )
        self.pos = special.end()
        return Boundary(special.group(1))

    def _unicode_class(self, start: int) -> UnicodeClass | Verbatim:
        pattern = self.pattern
        if start + 2 < len(pattern) and pattern[start + 2] == "{":
            close = pattern.find("}", start + 2)
            self.pos = len(pattern) if close < 0 else close + 1
            if close < 0:
                return self._verbatim(pattern[start:])
        else:
            self.pos = min(len(pattern), start + 3)
            if self.pos == start + 2 or not pattern[start + 2].isalpha():
                return self._verbatim(pattern[start : self.pos])
        return UnicodeClass(pattern[start : self.pos])

    def _quoted(self, start: int) -> list[Literal]:
        """``\\Q...\\E``: everything between is literal (an RE2 extension kept for users)."""
        pattern = self.pattern
        close = pattern.find("\\E", start + 2)
        end = len(pattern) if close < 0 else close
        self.pos = len(pattern) if close < 0 else close + 2
        return [self._literal(char, _quoted_spelling(char)) for char in pattern[start + 2 : end]]

    def _hex_escape(self, start: int, kind: str) -> Literal | Verbatim:
        """``\\xHH \\x{H} \\uHHHH \\u{H} \\UHHHHHHHH \\U{H}``."""
        pattern = self.pattern
        braced = _HEX_BRACED.match(pattern, start + 2)
        if braced is not None:
            digits, end = braced.group(1), braced.end()
        else:
            width = _HEX_WIDTH[kind]
            digits = pattern[start + 2 : start + 2 + width]
            end = start + 2 + width
            if len(digits) != width or not set(digits) <= _HEX_DIGITS:
                self.pos = start + 2
                return self._verbatim(pattern[start : start + 2])  # RE2 names the bad escape
        self.pos = end
        value = int(digits, 16)
        spelling = f"\\x{{{digits}}}"
        if value > 0x10FFFF:
            return self._verbatim(spelling)
        return self._literal(chr(value), spelling)

    # -- bracket classes -------------------------------------------------------------------
    def _class(self) -> Class:
        pattern = self.pattern
        self.pos = self._skip_verbose(self.pos + 1, in_class=True)
        negated = self._peek() == "^"
        if negated:
            self.pos = self._skip_verbose(self.pos + 1, in_class=True)
        items: list[ClassItem] = []
        if self._peek() == "]":  # a leading `]` is a literal member
            self.pos += 1
            items.append(self._literal("]", r"\]"))
        while True:
            self.pos = self._skip_verbose(self.pos, in_class=True)
            if self.pos >= len(pattern):
                return Class(negated, tuple(items), closed=False)  # RE2 reports "missing ]"
            if pattern[self.pos] == "]":
                self.pos += 1
                if negated and any(isinstance(i, PerlClass) and i.kind in "WS" for i in items):
                    self.needs_rust = True
                return Class(negated, tuple(items))
            item = self._class_item()
            if isinstance(item, Literal) and self._range_follows():
                self.pos = self._skip_verbose(self.pos, in_class=True) + 1  # past the `-`
                self.pos = self._skip_verbose(self.pos, in_class=True)
                last = self._class_item()
                if isinstance(last, Literal):
                    items.append(ClassRange(item, last))
                    continue
                items.extend((item, self._literal("-", "-"), last))
                continue
            items.append(item)

    def _range_follows(self) -> bool:
        """A ``-`` after a member opens a range unless a ``]`` closes the class after it."""
        dash = self._skip_verbose(self.pos, in_class=True)
        if dash >= len(self.pattern) or self.pattern[dash] != "-":
            return False
        self._refuse_set_operation(dash)
        after = self._skip_verbose(dash + 1, in_class=True)
        return after < len(self.pattern) and self.pattern[after] != "]"

    def _refuse_set_operation(self, position: int) -> None:
        if self.pattern.startswith(("&&", "--", "~~"), position):
            raise UsageError(
                f"invalid regex: the class set operation "
                f"`{self.pattern[position:position + 2]}` (at offset {position}) is not "
                "supported; spell the members out, or escape a literal character as `\\-`, "
                "`\\&` or `\\~`"
            )

    def _class_item(self) -> ClassItem:
        """One member at ``self.pos`` (not a `]`, not past the end)."""
        pattern = self.pattern
        char = pattern[self.pos]
        if char == "\\":
            nxt = self._peek(1)
            if nxt in _PERL_CLASSES:
                self.pos += 2
                return PerlClass(nxt)
            return self._common_escape(in_class=True)
        if char == "[":
            posix = _POSIX_CLASS.match(pattern, self.pos)
            if posix is None:
                raise UsageError(
                    f"invalid regex: nested character class at offset {self.pos} is not "
                    "supported; write a literal `[` inside a class as `\\[`"
                )
            self.pos = posix.end()
            return PosixClass(posix.group(0))
        self._refuse_set_operation(self.pos)
        self.pos += 1
        return self._literal(char, char)


def _closed(frame: _Frame, *, closed: bool) -> Group:
    return Group(frame.kind, frame.body(), frame.name, frame.flags, closed)


def _tight(token: str) -> str:
    """A quantifier's text without the spaces Rust allows inside a counted one."""
    if not token.startswith("{"):
        return token
    low, comma, high = _COUNTED_REPETITION.fullmatch(token).groups()  # type: ignore[union-attr]
    return "{" + low + ("," + (high or "") if comma else "") + "}"


def _quoted_spelling(char: str) -> str:
    """A ``\\Q...\\E`` member as a plain escape (the quoting itself is dropped)."""
    if char.isascii() and not char.isalnum() and char != "_":
        return f"\\x{{{ord(char):x}}}" if not char.isprintable() or char == " " else "\\" + char
    return char
