"""The user's search pattern -> a linear-time matcher over decoded record text (SPEC §6.2).

Why RE2 (google-re2) and not ``re``/``regex``: the search dialect promises linear-time
matching, so a hostile or careless pattern can never backtrack catastrophically over a
400 KB line; RE2 is also the fastest engine measured for literals and alternations.

The pattern is written in the Rust ``regex`` dialect csift documents and read ONCE, by
``core/grammar/pattern.py`` (which also refuses the non-linear constructs, naming them);
the prefilter takes its needles from the same tree. This module spells the tree for RE2,
closing the gaps between the two dialects:

- ``\\d \\s \\w`` (and ``\\D \\S \\W``) are Unicode-aware, as in Rust (RE2's are
  ASCII-only); inside brackets ``\\W``/``\\S`` are spelled around the class;
- the word boundaries ``\\b \\B \\< \\> \\b{start}`` … are Unicode-aware too. RE2 has
  only ASCII ones (``\\bconfig\\b`` matched ``config里``, ``caf\\w\\b`` missed ``café``),
  so RE2 runs the pattern WITHOUT its boundaries (a superset: same needles, same speed)
  and a text it matches is confirmed by the Rust regex crate itself (``rurex``, linear
  time) running the same translated pattern with the boundaries in Rust's own syntax
  (so is a negated class holding ``\\W`` or ``\\S``, which RE2 runs as ``\\w``/``\\s``);
- ``\\u007F``, ``\\u{7F}``, ``\\U0000007F``, ``\\U{7F}``, an escaped space and
  ``\\Q...\\E`` become RE2's ``\\x{..}`` and plain escapes;
- verbose mode (a leading ``(?x)``) is applied by the parser: RE2 has none.

Smart case follows ripgrep: the pattern is case-insensitive when it has at least one
literal character and none of its literal characters is an uppercase letter. Escapes such
as ``\\S``, ``\\W`` or ``\\p{Lu}`` are not literal letters, so they never make a pattern
case-sensitive. ``-i`` forces insensitivity.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from pysift.core.grammar.pattern import (
    Alternation,
    Anchor,
    Boundary,
    Class,
    ClassItem,
    ClassRange,
    Concat,
    Dot,
    Flags,
    Group,
    Literal,
    Node,
    Pattern,
    PerlClass,
    PosixClass,
    Repeat,
    UnicodeClass,
    Verbatim,
    parse_pattern,
)
from pysift.core.prefilter import NeedleSet, required_needles
from pysift.errors import UsageError
from pysift.model.fastdata import dataclass

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
# (no nested classes): a class holding \S or \W is spelled anew (``_class_source``;
# RE2 read them as ASCII, and the letters idiom `[^\W\d_]` missed `é`).
_PERL_CLASS_INSIDE = {"d": _DIGIT_BODY, "D": r"\P{Nd}", "s": _SPACE_BODY, "w": _WORD_BODY}
_COMPLEMENTS = ("W", "S")

# Rust's spelling of each word boundary: what the confirming Rust regex runs.
_RUST_BOUNDARY = {"b": r"\b", "B": r"\B", "start": r"\b{start}", "end": r"\b{end}",
                  "start-half": r"\b{start-half}", "end-half": r"\b{end-half}"}


@dataclass(frozen=True)
class _Split:
    """A piece spelled one way for each engine: ``re2`` a superset when RE2 cannot spell it
    exactly (a word boundary is dropped, a negated class holding \\W or \\S widened),
    ``rust`` the exact piece for the Rust check, ``ascii`` RE2's approximation for a
    pattern the crate refuses."""

    re2: str
    rust: str
    ascii: str


def _boundary(kind: str) -> _Split:
    return _Split("(?:)", _RUST_BOUNDARY[kind], r"\B" if kind == "B" else r"\b")


# Any one character: what RE2 runs in place of a Unicode class it does not know (a
# binary property such as \p{Emoji}, `\p{Script=Greek}`, a long category name), the
# Rust crate confirming each candidate with the class itself.
_ANY_CHAR = r"[\x{0}-\x{10FFFF}]"
_RE2_KNOWS: dict[str, bool] = {}


def _re2_knows(spelling: str) -> bool:
    """RE2 compiles the Unicode class ``spelling`` (``\\p{Greek}``, ``\\pL``) by itself."""
    known = _RE2_KNOWS.get(spelling)
    if known is None:
        import re2

        try:
            re2.compile(spelling, _re2_options(case_insensitive=False))
            known = True
        except (re2.error, UnicodeEncodeError):  # a name holding an undecodable byte
            known = False
        _RE2_KNOWS[spelling] = known
    return known


def _unknown_classes(items: Sequence[ClassItem]) -> list[str]:
    return [item.spelling for item in items
            if isinstance(item, UnicodeClass) and not _re2_knows(item.spelling)]


_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


@dataclass(frozen=True)
class _Translation:
    """The RE2 source for a user pattern."""

    source: str
    exact_source: str | None = None  # for the Rust check (boundaries, a `[^\W…]`); None:
    #                                  RE2's answer is exact
    ascii_source: str | None = None  # RE2 alone, if the crate refuses the exact source


def _translate(tree: Pattern) -> _Translation:
    """Spell the parsed pattern for RE2 (and, when it needs one, for the Rust check)."""
    pieces = _pieces(tree.root)
    if not tree.needs_rust and not any(isinstance(p, _Split) for p in pieces):
        return _Translation("".join(pieces))  # type: ignore[arg-type]
    return _Translation(
        "".join(p if isinstance(p, str) else p.re2 for p in pieces),
        "".join(p if isinstance(p, str) else p.rust for p in pieces),
        "".join(p if isinstance(p, str) else p.ascii for p in pieces))


def _pieces(root: Node) -> list[str | _Split]:
    """The RE2 spelling of the tree, left to right: text, or a piece that is spelled one
    way for RE2 and another for the Rust check."""
    pieces = _spelled(root, _leaf_piece)
    assert pieces is not None  # (every leaf has a piece)
    return pieces


def _spelled(root: Node, leaf: Callable[[Node], str | _Split | None]
             ) -> list[str | _Split] | None:
    """The tree spelled left to right, its structure (concatenations, alternations,
    repeats, groups) as RE2 writes it and each other node as ``leaf`` spells it; None
    when ``leaf`` has no spelling for one. A walk with its own stack (a pattern may nest
    deeper than Python recurses)."""
    out: list[str | _Split] = []
    todo: list[Node | str] = [root]
    while todo:
        node = todo.pop()
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, Concat):
            todo.extend(reversed(node.items))
        elif isinstance(node, Alternation):
            for index, branch in enumerate(reversed(node.branches)):
                todo.extend(("|", branch) if index else (branch,))
        elif isinstance(node, Repeat):
            todo.extend((node.spelling, *reversed(node.between), node.body))
        elif isinstance(node, Group):
            todo.extend((")",) if node.closed else ())
            todo.extend((node.body, _group_opener(node)))
        else:
            piece = leaf(node)
            if piece is None:
                return None
            out.append(piece)
    return out


def _leaf_piece(node: Node) -> str | _Split:
    """A leaf of the tree as ``_pieces`` spells it."""
    if isinstance(node, Literal):
        return node.spelling
    if isinstance(node, Class):
        return _class_source(node)
    if isinstance(node, PerlClass):
        return _PERL_CLASS_OUTSIDE[node.kind]
    if isinstance(node, Boundary):
        return _boundary(node.kind)
    if isinstance(node, Flags):
        return _flag_group(node.on, node.off, ")")
    if isinstance(node, Dot):
        return "."
    if isinstance(node, UnicodeClass):
        known = _re2_knows(node.spelling)
        return node.spelling if known else _Split(_ANY_CHAR, node.spelling, node.spelling)
    if isinstance(node, Anchor):
        return node.spelling
    assert isinstance(node, Verbatim)
    return node.text


# a character as a JSON string may spell it: an escape (one or a surrogate pair's two
# `\\uXXXX`, or a backslash and one character); a letter, a digit, any character of
# `\d` or `\w`, only as `\\uXXXX` (no writer gives them a short escape, and `\d\d\d`
# would otherwise take every `\n\n\n` of a tool's output for a candidate)
_JSON_ESCAPE = r"\\(?:u[0-9a-fA-F]{4}(?:\\u[0-9a-fA-F]{4})?|[^u])"
_JSON_HEX_ESCAPE = r"\\u[0-9a-fA-F]{4}(?:\\u[0-9a-fA-F]{4})?"


def _json_escape_of(node: Node) -> str:
    if (isinstance(node, Literal) and node.char.isalnum()) or (
            isinstance(node, PerlClass) and node.kind in "dw"):
        return _JSON_HEX_ESCAPE
    return _JSON_ESCAPE


def _json_superset(root: Node) -> str | None:
    """The RE2 spelling of the tree with each one-character item widened to its JSON
    escapes and the anchors and boundaries dropped (``json_bytes_regex``); None for a
    tree holding what the parser could not place."""
    pieces = _spelled(root, _json_leaf)
    if pieces is None:
        return None
    return "".join(p if isinstance(p, str) else p.re2 for p in pieces)


def _json_leaf(node: Node) -> str | None:
    """A leaf of the tree as ``_json_superset`` spells it (None: a ``Verbatim``)."""
    if isinstance(node, Verbatim):
        return None
    if isinstance(node, (Anchor, Boundary)):
        return "(?:)"  # (a quantifier after it still has an item to repeat)
    if isinstance(node, (Literal, Class, PerlClass, Dot, UnicodeClass)):
        piece = _leaf_piece(node)
        spelled = piece if isinstance(piece, str) else piece.re2
        return f"(?:{spelled}|{_json_escape_of(node)})"
    assert isinstance(node, Flags)
    return _flag_group(node.on, node.off, ")")


def _group_opener(group: Group) -> str:
    if group.kind == "capture":
        return "("
    if group.kind == "named":
        return "(?P<" + group.name
    if group.flags is None:
        return "(?:"
    return _flag_group(group.flags.on, group.flags.off, ":")


def _member(item: ClassItem) -> str:
    """A bracket-class member as RE2 spells it."""
    if isinstance(item, Literal):
        return item.spelling
    if isinstance(item, ClassRange):
        return item.first.spelling + "-" + item.last.spelling
    if isinstance(item, PerlClass):
        return _PERL_CLASS_INSIDE[item.kind]
    if isinstance(item, (UnicodeClass, PosixClass)):
        return item.spelling
    assert isinstance(item, Verbatim)
    return item.text


def _class_source(node: Class) -> str | _Split:
    """``[...]`` for RE2; one holding \\W or \\S is spelled around them; one holding a
    Unicode class RE2 does not know is any character for RE2 and itself for the Rust
    check."""
    if node.closed and _unknown_classes(node.items):
        rust = ("[" + ("^" if node.negated else "")
                + "".join(_member(item) if not (isinstance(item, PerlClass)
                                                and item.kind in _COMPLEMENTS)
                          else "\\" + item.kind for item in node.items) + "]")
        return _Split(_ANY_CHAR, rust, rust)
    complements = [item.kind for item in node.items
                   if isinstance(item, PerlClass) and item.kind in _COMPLEMENTS]
    members = "".join(_member(item) for item in node.items
                      if not (isinstance(item, PerlClass) and item.kind in _COMPLEMENTS))
    if not node.closed:  # RE2 reports the missing `]`
        return "[" + ("^" if node.negated else "") + members
    if not complements:
        return "[" + ("^" if node.negated else "") + members + "]"
    if not node.negated:
        return _class_with_complements_source(members, complements)
    # `[^\W\d_]` leaves a part of \w (of \s for \S): RE2 gets that superset, and the
    # Rust crate confirms with the class itself (Unicode \W / \S are its own)
    superset = f"[{_WORD_BODY}]" if "W" in complements else f"[{_SPACE_BODY}]"
    # the members as a nested class (Rust has them): beside \W a `-` would read as a
    # range, and a leading `^` as a negation
    inner = "\\" + members if members.startswith("^") else members
    rust = ("[^" + "".join("\\" + kind for kind in complements)
            + (f"[{inner}]" if inner else "") + "]")
    return _Split(superset, rust, superset)


def _class_with_complements_source(members: str, complements: list[str]) -> str:
    """``[members\\W]`` as RE2 can spell it: ``(?:[members]|[^<\\w>])`` (a negated
    Unicode set cannot stand inside a class, but can stand beside it)."""
    if members.startswith("^"):  # a literal caret, first no more: not a negation
        members = "\\" + members
    parts = [f"[{members}]"] if members else []
    parts += [_PERL_CLASS_OUTSIDE[kind] for kind in dict.fromkeys(complements)]
    return "(?:" + "|".join(parts) + ")"


def _flag_group(on: str, off: str, terminator: str) -> str:
    """A flag group for RE2: ``x`` is applied by the parser, ``u`` is always on (a ``-u``
    is refused by the parser: RE2 would keep Unicode anyway)."""
    on, off = on.replace("x", "").replace("u", ""), off.replace("x", "").replace("u", "")
    flags = on + ("-" + off if off else "")
    if terminator == ":":
        return f"(?{flags}:"
    return f"(?{flags})" if flags else ""


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
            span: tuple[int, int] | None = None if confirmed is None else confirmed.span()
            return span
        found: tuple[int, int] = match.span()
        return found

    def matches(self, text: str) -> bool:
        return self.search(text) is not None

    def bytes_regex(self) -> Any:
        """The pattern RE2 runs (its spelling, a superset of the pattern where the Rust
        crate confirms) compiled for raw bytes, to find the lines a file's bytes may match
        in (a best-effort candidate search, each line then decoded and matched as the run
        matches it): by the Rust crate, which searched corpus B's bytes at ~7 GB/s against
        RE2's ~0.35 (RE2's whole-file pass doubled a needle-less zero's 6 s over B); by
        RE2 when the crate refuses the spelling. None for the empty pattern."""
        if self._regex is None:
            return None
        source = self._regex.pattern.encode("utf-8", "surrogatepass")
        import rurex

        try:
            return rurex.compile(source, rurex.IGNORECASE if self.case_insensitive else 0)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:  # noqa: BLE001 - a refusal, or a panic inside the crate
            import re2

            return re2.compile(source, self._regex.options)

    def json_bytes_regex(self) -> Any:
        """``bytes_regex`` for the pattern as a JSON line may spell what it matches: each
        character the pattern reads may stand in the bytes as an escape (``\\"``,
        ``\\n``, ``\\u00e9``, a surrogate pair), anchors and word boundaries are dropped
        (a line's bytes are no decoded string). A superset, as the candidate search needs
        (each line found is decoded and matched as the run matches); None when the
        pattern holds what the parser cannot place or the engines refuse the spelling."""
        if self._regex is None:
            return None
        tree = parse_pattern(self.pattern)
        source = _json_superset(tree.root)
        if source is None:
            return None
        source = ("(?s)" if self.multiline else "") + source
        import rurex

        try:
            return rurex.compile(source.encode("utf-8", "surrogatepass"),
                                 rurex.IGNORECASE if self.case_insensitive else 0)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:  # noqa: BLE001 - a refusal, or a panic inside the crate
            import re2

            try:
                return re2.compile(source, _re2_options(
                    case_insensitive=self.case_insensitive))
            except Exception:  # noqa: BLE001 - no superset to search: the plain pass stands
                return None

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
    return parse_pattern(pattern).smart_case_insensitive


def compile_pattern(pattern: str, *, ignore_case: bool = False, multiline: bool = False) -> Matcher:
    """Compile a search pattern under smart case (``ignore_case`` forces insensitivity).

    ``multiline`` lets ``.`` match a newline and makes ``^``/``$`` match at line breaks.
    Raises ``UsageError`` for a pattern that is invalid or needs a non-linear engine.
    """
    if pattern == "":
        return Matcher(
            "", regex=None, case_insensitive=ignore_case, multiline=multiline, needles=None
        )
    tree = parse_pattern(pattern)
    insensitive = ignore_case or tree.smart_case_insensitive
    translation = _translate(tree)
    source = ("(?ms)" if multiline else "") + translation.source
    exact = None
    if translation.exact_source is not None:
        exact = _boundary_check(("(?ms)" if multiline else "") + translation.exact_source,
                                insensitive)
        unknown = _unknown_properties(tree.root)
        if exact is None and unknown:
            raise UsageError(
                f"invalid regex: unknown Unicode class {unknown[0]}: neither RE2 nor the Rust "
                "regex crate knows it; use a general category (\\p{Lu}, \\p{Letter}), a "
                "script (\\p{Greek}, \\p{Script=Greek}) or a binary property "
                "(\\p{Emoji}, \\p{Alphabetic})")
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
        needles=required_needles(tree, case_insensitive=insensitive),
        exact=exact,
    )


def _unknown_properties(root: Node) -> list[str]:
    """The Unicode classes of the pattern RE2 does not know, in order."""
    found: list[str] = []
    todo: list[Node] = [root]
    while todo:
        node = todo.pop()
        if isinstance(node, UnicodeClass):
            if not _re2_knows(node.spelling):
                found.append(node.spelling)
        elif isinstance(node, Class) and node.closed:  # an open `[` is RE2's to refuse
            found.extend(_unknown_classes(node.items))
        elif isinstance(node, Concat):
            todo.extend(reversed(node.items))
        elif isinstance(node, Alternation):
            todo.extend(reversed(node.branches))
        elif isinstance(node, (Repeat, Group)):
            todo.append(node.body)
    return found


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
