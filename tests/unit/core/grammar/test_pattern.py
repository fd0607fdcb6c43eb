"""The search pattern read once into a tree (the matcher and the prefilter both read it)."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pysift.core.grammar.pattern import (
    Alternation,
    Anchor,
    Boundary,
    Class,
    ClassRange,
    Concat,
    Flags,
    Group,
    Literal,
    Pattern,
    PerlClass,
    PosixClass,
    Repeat,
    UnicodeClass,
    Verbatim,
    parse_pattern,
)
from pysift.core.matcher import compile_pattern
from pysift.core.prefilter import required_needles
from pysift.errors import UsageError


def lit(text: str) -> list[Literal]:
    return [Literal(char, char) for char in text]


@pytest.mark.parametrize(("pattern", "root"), [
    ("ab", Concat(tuple(lit("ab")))),
    ("a{2, 3}", Repeat(Literal("a", "a"), 2, 3, True, "{2,3}")),
    ("a{ 2 }?", Repeat(Literal("a", "a"), 2, 2, False, "{2}?")),
    ("a{2,}", Repeat(Literal("a", "a"), 2, None, True, "{2,}")),
    ("{foo", Concat((Literal("{", r"\{"), *lit("foo")))),
    (r"\x41\u{e9}\U0001F600", Concat((Literal("A", r"\x{41}"), Literal("é", r"\x{e9}"),
                                      Literal("😀", r"\x{0001F600}")))),
    (r"\Qa.b\E", Concat((Literal("a", "a"), Literal(".", r"\."), Literal("b", "b")))),
    (r"\.\n\ ", Concat((Literal(".", r"\."), Literal("\n", r"\n"), Literal(" ", r"\x{20}")))),
    (r"\012", Literal("\n", r"\012")),  # RE2's octal escape, digits and all
    ("(?x) a b # a comment\n", Concat((Flags("x", ""), *lit("ab")))),
    (r"(?x)\0 12", Concat((Flags("x", ""), Literal("\n", r"\012")))),  # where RE2 reads them
    ("[a-z\\d[:alpha:]]", Class(False, (ClassRange(Literal("a", "a"), Literal("z", "z")),
                                        PerlClass("d"), PosixClass("[:alpha:]")))),
    ("[]a-]", Class(False, (Literal("]", r"\]"), Literal("a", "a"), Literal("-", "-")))),
    # verbose mode drops the spaces before `^` and a leading `]`, as Rust does
    (r"(?x)[ ^ \W]", Concat((Flags("x", ""), Class(True, (PerlClass("W"),))))),
    (r"\p{Greek}\pL\w", Concat((UnicodeClass(r"\p{Greek}"), UnicodeClass(r"\pL"),
                                PerlClass("w")))),
    (r"^\A\b\<\b{end-half}\z$", Concat((Anchor("^"), Anchor(r"\A"), Boundary("b"),
                                        Boundary("start"), Boundary("end-half"), Anchor(r"\z"),
                                        Anchor("$")))),
    ("(?P<n>x)|(?:y)|(?i:z)", Alternation((
        Group("named", Literal("x", "x"), name="n>"), Group("plain", Literal("y", "y")),
        Group("flags", Literal("z", "z"), flags=Flags("i", ""))))),
    ("a(?i)+", Repeat(Literal("a", "a"), 1, None, True, "+", (Flags("i", ""),))),
])
def test_the_tree(pattern: str, root: object) -> None:
    assert parse_pattern(pattern).root == root


@pytest.mark.parametrize(("pattern", "literal", "upper", "caseless"), [
    ("foo", True, False, False),
    ("Foo", True, True, False),
    (r"\S\W\p{Lu}", False, False, False),  # no literal letters
    (r"[A-Z]", True, True, False),
    (r"\x41", True, True, False),
    (r"(?P<Name>x)", True, False, False),  # a group's name is no literal
    ("(?i)Foo", True, True, True),
    ("a(?i:b)", True, False, True),
])
def test_smart_case_facts(pattern: str, literal: bool, upper: bool, caseless: bool) -> None:
    tree = parse_pattern(pattern)
    assert (tree.has_literal, tree.has_uppercase_literal, tree.inline_caseless) == (
        literal, upper, caseless)


@pytest.mark.parametrize("pattern", [r"\e", "a)", "*a", "(a|+)", r"\x4", r"\p", "(?#c)",
                                     "(?x)( ?:abcd)", r"\E"])
def test_what_the_parser_cannot_place_is_handed_on_verbatim(pattern: str) -> None:
    """RE2 accepts or refuses it in its own words; the prefilter gates nothing on it."""
    tree = parse_pattern(pattern)
    assert tree.opaque
    assert required_needles(tree, case_insensitive=False) is None


def test_an_unclosed_group_or_class_stays_open_for_re2_to_report() -> None:
    assert parse_pattern("(ab").root == Group("capture", Concat(tuple(lit("ab"))), closed=False)
    assert parse_pattern("[ab").root == Class(False, tuple(lit("ab")), closed=False)
    with pytest.raises(UsageError, match=r"^invalid regex: missing \)"):
        compile_pattern("(ab")


@pytest.mark.parametrize(("pattern", "named"), [
    ("(?=a)", "lookahead"), (r"\1", "backreference"), ("a*+", "possessive"),
    (r"\C", "single byte"), ("[a&&b]", "set operation"), ("a(?x)b", "verbose flag"),
    ("(?-u)a", "Unicode off"), (r"\b{x}", "word-boundary"),
])
def test_refused_constructs_are_usage_errors(pattern: str, named: str) -> None:
    with pytest.raises(UsageError, match=named):
        parse_pattern(pattern)


def test_a_pattern_nested_deeper_than_python_recurses_is_read() -> None:
    depth = 5000
    tree = parse_pattern("(" * depth + "needle" + ")" * depth)
    assert not tree.opaque
    node, levels = tree.root, 0
    while isinstance(node, Group):
        node, levels = node.body, levels + 1
    assert levels == depth
    matcher = compile_pattern("(?:" * depth + "needle" + ")" * depth)
    assert matcher.search("a needle") == (2, 8)  # no prefilter past the recursion limit


# -- properties -----------------------------------------------------------------------------

_PIECES = ["a", "K", "é", " ", "\\", "[", "]", "^", "-", "(", ")", "(?", "(?x)", "(?i)", "(?P<",
           ">", "|", "*", "+", "?", "{", "}", ",", "2", "\\x", "\\u{", "\\Q", "\\E", "\\0", "\\b",
           "\\b{", "\\p{", ":", "#", "\n", "&&", "--", "[:alpha:]", "\\W", "\\S", "\ud800"]
pattern_texts = st.one_of(
    st.text(max_size=40),
    st.lists(st.sampled_from(_PIECES), max_size=16).map("".join),
)


@given(pattern_texts)
@example("\\p{\udcff}")  # a class name holding an undecodable argv byte (it crashed)
@example("\\p{\ud800}")
def test_prop_the_parser_never_raises_but_a_usage_error(pattern: str) -> None:
    """A tree or a typed usage error for any string; spelling it and taking its needles
    never raise either."""
    try:
        tree = parse_pattern(pattern)
    except UsageError:
        return
    assert isinstance(tree, Pattern)
    from pysift.core.matcher import _translate, _unknown_properties

    translation = _translate(tree)
    # the Rust check runs for the parser's constructs and for the classes RE2 lacks
    split = tree.needs_rust or bool(_unknown_properties(tree.root))
    assert (translation.exact_source is None) is not split
    required_needles(tree, case_insensitive=False)
    required_needles(tree, case_insensitive=True)
    if not tree.opaque:
        assert not any(isinstance(node, Verbatim) for node in _nodes(tree.root))


def _nodes(root: object) -> list[object]:
    out, todo = [], [root]
    while todo:
        node = todo.pop()
        out.append(node)
        if isinstance(node, Concat):
            todo.extend(node.items)
        elif isinstance(node, Alternation):
            todo.extend(node.branches)
        elif isinstance(node, (Group, Repeat)):
            todo.append(node.body)
        elif isinstance(node, Class):
            todo.extend(node.items)
    return out
