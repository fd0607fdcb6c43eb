"""The search pattern compiler: smart case, dialect gaps, rejected constructs (SPEC §6.2)."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from pysift.core.matcher import (
    compile_pattern,
    escape_literal,
    is_smart_case_insensitive,
    looks_like_target,
    looks_like_uuid,
)
from pysift.errors import UsageError

# -- smart case -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "insensitive"),
    [
        ("foo", True),
        ("Foo", False),
        ("foo.*bar", True),
        ("fooBar", False),
        (r"\S+foo", True),  # \S is not an uppercase letter
        (r"\W\D\Sfoo", True),
        (r"\p{Lu}foo", True),
        (r"\P{Lu}foo", True),
        (r"\pLfoo", True),
        (r"[A-Z]foo", False),  # a class range spells literal letters
        (r"\x41bc", False),  # \x41 is the literal 'A'
        (r"\u00C9t\u00E9", False),  # É
        (r"\QFoo\E", False),
        ("ÉTÉ", False),
        ("été", True),
        ("123", True),
        (r"\bfoo\b", True),
        (r"\Afoo\z", True),
    ],
)
def test_smart_case_counts_only_literal_uppercase_letters(pattern: str, insensitive: bool) -> None:
    assert compile_pattern(pattern).case_insensitive is insensitive
    assert is_smart_case_insensitive(pattern) is insensitive


def test_pattern_without_literals_stays_case_sensitive() -> None:
    # ripgrep's rule: smart case needs a literal; \p{Lu} must keep meaning "uppercase"
    matcher = compile_pattern(r"\p{Lu}+")
    assert not matcher.case_insensitive
    assert matcher.search("abc") is None
    assert matcher.search("abcDEF") == (3, 6)


def test_smart_case_insensitive_pattern_matches_any_case() -> None:
    assert compile_pattern("kestrel").search("a KESTREL b") == (2, 9)


def test_smart_case_sensitive_pattern_matches_exact_case_only() -> None:
    matcher = compile_pattern("Kestrel")
    assert matcher.search("kestrel") is None
    assert matcher.search("Kestrel") == (0, 7)


def test_ignore_case_wins_over_uppercase() -> None:
    matcher = compile_pattern("Kestrel", ignore_case=True)
    assert matcher.case_insensitive
    assert matcher.search("KESTREL") == (0, 7)


def test_case_folding_is_unicode_simple_folding() -> None:
    # the Kelvin sign folds onto k: the prefilter must not lose this line (see prefilter tests)
    assert compile_pattern("kestrel").search("\u212aestrel") == (0, 7)
    assert compile_pattern("été").search("ÉTÉ") == (0, 3)


# -- dialect --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "text", "span"),
    [
        (r"\w+", "été!", (0, 3)),
        (r"\d+", "x٣٤", (1, 3)),  # Arabic-Indic digits are \d in Rust's Unicode mode
        (r"\s", "a\u3000b", (1, 2)),
        (r"\S+", "\u3000abc", (1, 4)),
        (r"\W", "éa!", (2, 3)),
        (r"[\w-]+", "é-x y", (0, 3)),
        (r"\p{Han}+", "ab中文cd", (2, 4)),
        (r"\u00e9", "café", (3, 4)),
        (r"\u{1F600}", "a😀", (1, 2)),
        (r"\U0001F600", "a😀", (1, 2)),
        (r"\x{e9}", "café", (3, 4)),
        (r"\Qa.b*\E", "xa.b*", (1, 5)),
        ("(?<word>abc)", "xabc", (1, 4)),
        ("(?P<word>abc)", "xabc", (1, 4)),
        ("a{2,3}", "caaaa", (1, 4)),
        ("{foo}", "x{foo}", (1, 6)),
        ("[]a]+", "]a]", (0, 3)),
        ("(?x) a \\  b # a comment", "a b", (0, 3)),
        ("(?x)[a b]+", "ab", (0, 2)),
        ("colou?r", "color", (0, 5)),
        (r"\<foo\>", "a foo b", (2, 5)),
        (r"\b{start}foo\b{end}", "a foo b", (2, 5)),
        ("(?u)abc", "abc", (0, 3)),
        (r"[\[\]]+", "[]", (0, 2)),
        ("[[:digit:]]+", "a12", (1, 3)),
        ("a+?", "aaa", (0, 1)),
    ],
)
def test_dialect(pattern: str, text: str, span: tuple[int, int]) -> None:
    assert compile_pattern(pattern).search(text) == span


def test_offsets_are_code_points_not_bytes() -> None:
    assert compile_pattern("needle").search("中文😀 needle") == (4, 10)


def test_dot_and_anchors_stay_on_one_line_without_multiline() -> None:
    matcher = compile_pattern("a.b")
    assert matcher.search("a\nb") is None
    assert compile_pattern("^b").search("a\nb") is None
    assert compile_pattern("a$").search("a\nb") is None


def test_multiline_lets_dot_cross_newlines_and_anchors_match_lines() -> None:
    assert compile_pattern("a.b", multiline=True).search("a\nb") == (0, 3)
    assert compile_pattern("^b", multiline=True).search("a\nb") == (2, 3)
    assert compile_pattern("a$", multiline=True).search("a\nb") == (0, 1)


def test_finditer_yields_every_non_overlapping_span() -> None:
    assert list(compile_pattern("ab").finditer("ab xab ab")) == [(0, 2), (4, 6), (7, 9)]


def test_empty_pattern_is_a_pure_filter() -> None:
    matcher = compile_pattern("")
    assert matcher.is_empty
    assert matcher.needles is None
    assert matcher.search("anything") == (0, 0)
    assert matcher.search("") == (0, 0)
    assert list(matcher.finditer("abc")) == [(0, 0)]


def test_non_empty_pattern_is_not_empty() -> None:
    matcher = compile_pattern("x")
    assert not matcher.is_empty
    assert matcher.pattern == "x"


def test_text_with_lone_surrogate_is_searched_without_raising() -> None:
    text = "ab\ud800cd needle"
    matcher = compile_pattern("needle")
    assert matcher.search(text) == (6, 12)
    assert list(matcher.finditer(text)) == [(6, 12)]


def test_matcher_carries_needles() -> None:
    matcher = compile_pattern("TodoWrite.*legacy|legacy.*TodoWrite")
    assert matcher.needles is not None
    assert matcher.needles.needles == ("TodoWrite",)
    assert compile_pattern(r"\d+").needles is None


# -- rejected constructs --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "named"),
    [
        (r"(a)\1", "backreference `\\1`"),
        (r"(a)\12", "backreference `\\12`"),
        (r"(?P<x>a)(?P=x)", "named backreference"),
        (r"(?<x>a)\k<x>", "named backreference"),
        ("foo(?=bar)", "lookahead `(?=`"),
        ("foo(?!bar)", "lookahead `(?!`"),
        ("(?<=foo)bar", "lookbehind `(?<=`"),
        ("(?<!foo)bar", "lookbehind `(?<!`"),
        ("(?>foo)", "atomic group `(?>`"),
        ("a*+", "possessive quantifier `*+`"),
        ("a++", "possessive quantifier `++`"),
        ("a?+", "possessive quantifier `?+`"),
        ("a{1,3}+", "possessive quantifier `{1,3}+`"),
        (r"\d++", "possessive quantifier `++`"),
    ],
)
def test_non_linear_constructs_are_rejected_by_name(pattern: str, named: str) -> None:
    with pytest.raises(UsageError) as info:
        compile_pattern(pattern)
    message = str(info.value)
    assert named in message
    assert "linear-time" in message
    assert info.value.exit_code == 2


def test_lazy_quantifiers_are_not_possessive() -> None:
    assert compile_pattern("a+?b").search("aab") == (0, 3)
    assert compile_pattern("a{1,2}?b").search("ab") == (0, 2)


def test_escaped_plus_after_quantifier_is_allowed() -> None:
    assert compile_pattern(r"a*\+").search("aa+") == (0, 3)


def test_lookahead_text_inside_a_class_is_not_rejected() -> None:
    assert compile_pattern("[(?=]+").search("x(?=") == (1, 4)


@pytest.mark.parametrize("pattern", ["(", "a)", "[a", "*a", "a{1001}", r"\e", r"\Z", "(?#c)"])
def test_other_syntax_errors_quote_re2(pattern: str) -> None:
    with pytest.raises(UsageError, match=r"^invalid regex: "):
        compile_pattern(pattern)


@pytest.mark.parametrize(
    ("pattern", "named"),
    [
        ("[a[b]]", "nested character class"),
        ("[a-z&&[^aeiou]]", "class set operation `&&`"),
        ("[a-z--b]", "class set operation `--`"),
        ("[a~~b]", "class set operation `~~`"),
        (r"\b{foo}", "word-boundary"),
    ],
)
def test_rust_only_syntax_is_refused_rather_than_misread(pattern: str, named: str) -> None:
    # RE2 would read these as literal members; Rust reads nested classes / set operations
    with pytest.raises(UsageError, match=re.escape(named)):
        compile_pattern(pattern)


MIXED = "改 config里的 DATE, café 值 ３ and ٣ done"


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        # Rust's boundaries are Unicode: `里` and `é` are word characters (RE2's are ASCII:
        # the first matched and the other three missed)
        (r"\bconfig\b", None),
        (r"config\B", (2, 8)),
        (r"caf\w\b", (17, 21)),
        (r"\bcafé\b", (17, 21)),
        (r"\bDATE\b", (11, 15)),
        (r"\<done\>", (32, 36)),
        (r"\b{start}café\b{end}", (17, 21)),
        (r"\b{start-half}and\b{end-half}", (26, 29)),
        (r"\Bonfig", (3, 8)),
        (r"\b３\b", (24, 25)),  # a fullwidth digit is a word character
    ],
)
def test_word_boundaries_are_unicode(pattern: str, expected: tuple[int, int] | None) -> None:
    matcher = compile_pattern(pattern)
    assert matcher.search(MIXED) == expected
    assert list(matcher.finditer(MIXED)) == ([expected] if expected else [])


def test_a_boundary_pattern_keeps_its_needles() -> None:
    """RE2 runs the pattern without its boundaries: the prefilter needles are the same."""
    assert list(compile_pattern(r"\bconfig\b").needles.needles) == ["config"]


def _is_word(char: str) -> bool:
    """Rust's Unicode \\w, from the character database (the oracle)."""
    category = unicodedata.category(char)
    return (category[0] in "LM" or category in ("Nd", "Pc", "Nl")
            or char in "\u200c\u200d" or "\u24b6" <= char <= "\u24e9")


def _bounded_occurrences(text: str, word: str) -> list[tuple[int, int]]:
    def boundary(at: int) -> bool:
        left = at > 0 and _is_word(text[at - 1])
        right = at < len(text) and _is_word(text[at])
        return left != right

    out, at = [], text.find(word)
    while at >= 0:
        if boundary(at) and boundary(at + len(word)):
            out.append((at, at + len(word)))
            at = text.find(word, at + len(word))
        else:
            at = text.find(word, at + 1)
    return out


@given(st.text(alphabet="ab é里３٣_-. \u0301\u200d", max_size=24),
       st.sampled_from(["a", "ab", "b", "é", "里"]))
def test_prop_word_boundaries_agree_with_the_character_database(text: str, word: str) -> None:
    matcher = compile_pattern(r"\b" + escape_literal(word) + r"\b")
    expected = _bounded_occurrences(text, word)
    assert list(matcher.finditer(text)) == expected
    assert matcher.search(text) == (expected[0] if expected else None)


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        # a quantified boundary is optional (a lookaround pair once kept its first half)
        (r"\<?foo", "see xfoo here", (5, 8)),
        (r"\>*", "", (0, 0)),
        # `$` is the end of the text, never "before a final newline"
        (r"\bfoo$|\bbar", "xbar foo\n", None),
        # POSIX classes are ASCII, as in RE2 and Rust
        (r"caf[[:^alpha:]]\b", "un café noir", (3, 7)),
        (r"\bx[[:alpha:]]\b", "xé xab", None),
        # a caseless pattern does not fold a Unicode property's complement away
        (r"\bx\P{Lu}", "the xĸ word", (4, 6)),
        # the check reads the text RE2 read: a lone surrogate is U+FFFD
        (r"\bx\x{FFFD}", "x\ud800 y", (0, 2)),
        # the lazy-swap flag keeps Unicode boundaries
        (r"(?U)\b{start-half}-x", " -x", (1, 3)),
        # linear time: this backtracked for minutes in the `regex` module
        (r"(a|aa)+\B!", "a" * 31 + "! ok", None),
    ],
)
def test_word_boundaries_follow_rust(pattern: str, text: str,
                                     expected: tuple[int, int] | None) -> None:
    assert compile_pattern(pattern).search(text) == expected


def test_conditional_group_is_rejected() -> None:
    with pytest.raises(UsageError, match="conditional"):
        compile_pattern("(a)?(?(1)b|c)")


def test_any_byte_escape_is_rejected() -> None:
    with pytest.raises(UsageError, match=r"\\C"):
        compile_pattern(r"a\Cb")


def test_verbose_flag_only_at_start() -> None:
    with pytest.raises(UsageError, match="leading"):
        compile_pattern("a(?x) b")


def test_undecodable_pattern_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="UTF-8"):
        compile_pattern("abc\udcff")


# -- CLI predicates -------------------------------------------------------------------------


def test_looks_like_target() -> None:
    assert looks_like_target("@main")
    assert looks_like_target("@0a1b2c3d")
    assert not looks_like_target("main")
    assert not looks_like_target("a@b")


def test_looks_like_uuid() -> None:
    assert looks_like_uuid("0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d")
    assert looks_like_uuid("0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D")
    assert not looks_like_uuid("0a1b2c3d")
    assert not looks_like_uuid("@0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d")
    assert not looks_like_uuid("0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4dx")


# -- properties -----------------------------------------------------------------------------


_NO_SURROGATES = st.characters(blacklist_categories=("Cs",))


@given(
    st.text(_NO_SURROGATES, min_size=1, max_size=30).filter(lambda s: "\\E" not in s),
    st.text(_NO_SURROGATES, max_size=30),
)
def test_prop_quoted_literal_finds_itself(literal: str, prefix: str) -> None:
    span = compile_pattern(r"\Q" + literal + r"\E").search(prefix + literal)
    assert span is not None
    assert span[0] <= len(prefix)


@given(st.text(_NO_SURROGATES, min_size=1, max_size=30), st.text(_NO_SURROGATES, max_size=30))
def test_prop_escaped_literal_finds_itself_exactly(literal: str, prefix: str) -> None:
    matcher = compile_pattern(escape_literal(literal), ignore_case=False)
    span = matcher.search(prefix + literal)
    assert span is not None
    assert (prefix + literal)[span[0] : span[1]] == literal or matcher.case_insensitive


def test_escape_literal_keeps_angle_brackets_literal() -> None:
    assert escape_literal("<p>") == "<p>"
    assert compile_pattern(escape_literal("a.b<c>")).search("xa.b<c>") == (1, 7)


@given(st.text(max_size=40))
def test_prop_translation_never_crashes(pattern: str) -> None:
    try:
        compile_pattern(pattern)
    except UsageError:
        pass


@pytest.mark.parametrize(("pattern", "text", "expected"), [
    ("a{2, 3}", "aaa", (0, 3)),
    (r"\d{1, 3}", "12", (0, 2)),
    ("a{ 2}", "aa", (0, 2)),
    ("a{2 ,3}", "aaa", (0, 3)),
    ("hello{2, 3}world", "hellooworld", (0, 11)),
])
def test_a_counted_repetition_may_hold_spaces(pattern: str, text: str,
                                              expected: tuple[int, int]) -> None:
    """Rust reads `a{2, 3}` as `a{2,3}`; it was searched as the literal `a{2, 3}` and the
    prefilter skipped every line without the text `a{2`."""
    matcher = compile_pattern(pattern)
    assert matcher.search(text) == expected
    if matcher.needles is not None:
        assert all("{" not in needle for needle in matcher.needles.needles)


@pytest.mark.parametrize(("pattern", "named"), [
    (r"(?-u)\w", "turning Unicode off"),
    (r"(?-u:\d)", "turning Unicode off"),
    ("(?i-u)è", "turning Unicode off"),  # Rust folds only ASCII there; RE2 folded È
    ("(?-u:abc)", "turning Unicode off"),
])
def test_what_would_silently_read_as_ascii_is_refused(pattern: str, named: str) -> None:
    """RE2 kept Unicode under `(?-u)` and read `\\W`/`\\S` in a class as ASCII: `[^\\W\\d_]`
    (letters) missed `é`. Refused with the way to write it instead."""
    with pytest.raises(UsageError, match=re.escape(named)):
        compile_pattern(pattern)


@pytest.mark.parametrize(("pattern", "text", "expected"), [
    (r"[\W]", "é", None),            # é is a word character (RE2's ASCII \W took it)
    (r"[\W]", "-", (0, 1)),
    (r"[a\W]+", "a-é", (0, 2)),
    (r"x[\S]y", "xéy", (0, 3)),
    (r"[\S]", "\u3000", None),       # an ideographic space is white space
    (r"[\s\S]+", "aé\nb", (0, 4)),  # the "any character" idioms
    (r"[\w\W]", "é", (0, 1)),
    (r"foo[\W^]bar", "call foo^bar now", (5, 12)),  # a caret member stays a member
    (r"[^\W\d_]+", "1_café2", (2, 6)),             # the letters idiom
    (r"[^\S\n]+", "a \t\u00a0\nb", (1, 4)),       # horizontal white space
    (r"[^\S]", "x\u3000", (1, 2)),
])
def test_w_and_s_complements_inside_a_class_are_unicode(pattern: str, text: str,
                                                        expected: tuple[int, int] | None
                                                        ) -> None:
    """A positive class holding \\W or \\S is spelled as an alternation beside it."""
    assert compile_pattern(pattern).search(text) == expected


@pytest.mark.parametrize(("pattern", "text", "expected"), [
    (r"(?x)[ ^\W]", "^a", (1, 2)),  # the `^` after a space still negates (it was a member)
    (r"(?x)[ ]a]+", "]a", (0, 2)),  # and a `]` there is still the first member
])
def test_verbose_mode_reads_a_class_opening_as_rust_does(pattern: str, text: str,
                                                          expected: tuple[int, int]) -> None:
    import rurex

    assert compile_pattern(pattern).search(text) == expected
    assert rurex.compile(pattern).search(text).span() == expected


def test_a_pattern_the_rust_check_refuses_never_panics(capfd: pytest.CaptureFixture[str]) -> None:
    """A duplicate group name after a non-ASCII character made the crate panic (a Rust
    backtrace on stderr, a traceback from pysift); the pattern keeps RE2's boundaries."""
    assert compile_pattern(r"é\b(?P<g>a)(?P<g>b)").search("éab") == (0, 3)
    assert "panicked" not in capfd.readouterr().err


_CLASS_MEMBERS = ["a", "é", "^", "-", "K", r"\W", r"\S", r"\w", r"\s", r"\d", r"\n", "_"]
class_patterns = st.builds(
    lambda negated, members, tail: "[" + ("^" if negated else "") + "".join(members) + "]" + tail,
    st.booleans(), st.lists(st.sampled_from(_CLASS_MEMBERS), min_size=1, max_size=4),
    st.sampled_from(["", "+", r"\b", "x", "{2}"]))
class_texts = st.text(alphabet="aé1_ \t\n\u00a0\u3000^-]K\u212axyß", max_size=10)


@given(class_patterns, class_texts)
def test_prop_classes_agree_with_the_rust_crate(pattern: str, text: str) -> None:
    """Perl classes inside brackets (positive, negated, beside a caret) against the Rust
    regex crate itself, smart case included."""
    import rurex

    try:
        matcher = compile_pattern(pattern)
    except UsageError:
        event("refused")
        return
    try:
        rust = rurex.compile(pattern, rurex.IGNORECASE if matcher.case_insensitive else 0)
    except BaseException:  # noqa: BLE001 - Rust refuses it (a bad range `[^-a]`…)
        event("rust refuses")
        return
    found = rust.search(text)
    assert matcher.search(text) == (found.span() if found else None)


@pytest.mark.parametrize(("pattern", "hit", "miss"), [
    (r"\p{Script=Greek}", "λόγος", "logos"),
    (r"\p{sc=Greek}+", "αβγ", "abc"),
    (r"\p{gc=Lu}", "É", "é"),
    (r"\p{Lowercase_Letter}", "é", "É"),
    (r"\p{Emoji}", "ship it 🚀", "ship it"),
    (r"[^\p{Emoji}\W]", "é", "🚀 1"),  # a word character that is no emoji (1 is both)
    (r"x[\p{Emoji}]y", "x🚀y", "xay"),
])
def test_unicode_classes_re2_lacks_are_read_as_the_rust_crate_reads_them(
        pattern: str, hit: str, miss: str) -> None:
    """RE2 knows general categories by short name and scripts by bare name only: any
    other property (a binary one, `Script=`, a long category name) is any character to
    RE2 and the class itself to the Rust crate that confirms each candidate."""
    matcher = compile_pattern(pattern)
    assert matcher.search(hit) is not None
    assert matcher.search(miss) is None


def test_a_match_span_under_a_property_re2_lacks_is_the_crate_s() -> None:
    assert compile_pattern(r"\p{Emoji}").search("ab🚀c") == (2, 3)
    assert list(compile_pattern(r"\p{Emoji_Presentation}").finditer("🚀a🎉")) == [(0, 1), (2, 3)]


@pytest.mark.parametrize("pattern", [r"\p{Bogus}", r"[a\p{NoSuchScript}]"])
def test_a_unicode_class_no_engine_knows_is_named(pattern: str) -> None:
    with pytest.raises(UsageError, match=r"unknown Unicode class \\p\{"):
        compile_pattern(pattern)


# -- the JSON spelling of a match (a needle-less zero's candidate lines) -----------------------


@given(st.sampled_from([r"v\d+\.\d+\s\d{4}", r"[a-z]+\"[a-z]", r"a.b", r"^x\s*y$", r"\bq\w+",
                        r"(?i)[ÉE]t\S", r"\p{Greek}\\\d", r"(a|\n)+b{2}", r"[^a-z]{2}z"]),
       st.text(alphabet='ab xyzq"\\\n\t/éÉtEπ0123456789\U0001f600.\u2028', max_size=20),
       st.booleans())
def test_the_json_superset_finds_every_match_as_a_line_spells_it(
        pattern: str, text: str, ascii_only: bool) -> None:
    """A string the pattern matches is found by ``json_bytes_regex`` in its JSON spelling,
    escapes and all (a line break as `\\n`, `é` as `\\u00e9` by an ASCII-only writer, an
    emoji as a surrogate pair): the raw pattern missed them, and a needle-less zero over
    such text said DEFINITIVE."""
    import json

    matcher = compile_pattern(pattern)
    if matcher.search(text) is None:
        return
    line = json.dumps({"content": text}, ensure_ascii=ascii_only).encode()
    assert matcher.json_bytes_regex().search(line) is not None


def test_the_json_superset_takes_no_short_escape_for_a_digit_or_a_letter() -> None:
    """No writer spells a digit or a letter `\\n`: a tool output's `\\n\\n\\n` is no
    candidate of `\\d{3}` (each such line would be decoded on a zero)."""
    assert compile_pattern(r"\d{3}").json_bytes_regex().search(b'{"a":"x\\n\\n\\ny"}') is None
    assert compile_pattern(r"\d{3}").json_bytes_regex().search(b'{"a":"x\\u0037\\u00378"}')
    assert compile_pattern(r"ab\sc").json_bytes_regex().search(b'{"a":"ab\\nc"}')
