"""The required-needle prefilter: which needles, how they are searched, and soundness.

Soundness is the property that matters most (SPEC §7d): a line whose decoded text the
pattern matches must never be rejected by the needle set, whatever JSON writer produced
the line (orjson / Claude Code compact, Python ``json.dumps`` with ``ensure_ascii``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
import re2
from hypothesis import event, given, settings
from hypothesis import strategies as st

from pysift.core.matcher import compile_pattern, escape_literal
from pysift.core.prefilter import (
    CASELESS_PROBE_MAX_BYTES,
    NEEDLE_CAP,
    RESPELLED_NUMBER,
    NeedleSet,
    is_needle_safe,
    line_spans_containing,
    required_needles,
)
from pysift.errors import UsageError

REAL_PROJECTS = Path(__file__).resolve().parents[4] / "shared" / "corpus" / "real" / "projects"


def needles_of(pattern: str, *, case_insensitive: bool = False) -> tuple[str, ...] | None:
    found = required_needles(pattern, case_insensitive=case_insensitive)
    return None if found is None else found.needles


# -- which needles ------------------------------------------------------------------------


def test_alternation_requiring_the_same_word_in_every_branch_gates_on_it() -> None:
    # SPEC §7d's motivating query: both branches require TodoWrite (and legacy); the
    # strongest part of each branch is TodoWrite, so the union dedups to one needle
    assert needles_of("TodoWrite.*legacy|legacy.*TodoWrite") == ("TodoWrite",)


def test_whitespace_splits_a_run() -> None:
    assert needles_of(r"foo\s+bar") in {("foo",), ("bar",)}
    assert needles_of("foo bar") in {("foo",), ("bar",)}
    assert needles_of("alpha beta") == ("alpha",)


@pytest.mark.parametrize(
    "pattern", ["a*", "x+", r"\d+", ".*", "[a-z]+", "ab", "(?:foo)*", "foo|.*", "foo|", r"\w{3,}"]
)
def test_patterns_without_a_required_safe_text_give_none(pattern: str) -> None:
    assert needles_of(pattern) is None


def test_empty_pattern_gives_none() -> None:
    assert required_needles("", case_insensitive=False) is None


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("needle", ("needle",)),
        (r"foo\.bar", ("foo.bar",)),
        ("(?:foo)bar", ("foobar",)),
        ("(foo)(bar)", ("foobar",)),
        ("foo(?:bar)?bazz", ("bazz",)),  # the optional part splits the run
        ("(?:abc)+xy", ("abc",)),
        ("(?:abc){2,}", ("abc",)),
        ("prefix[0-9]+", ("prefix",)),
        (r"\bword\b", ("word",)),
        ("^start", ("start",)),
        ("abc|defg", ("abc", "defg")),
        ("(abcd|efgh)ij", ("abcd", "efgh")),
        ("(?:abc|abcdef)", ("abc",)),  # abcdef holds abc: one pass suffices
        (r"\p{Greek}+abcd", ("abcd",)),
        (r"\Qa.b*c\E", ("a.b*c",)),
        (r"\x41BC", ("ABC",)),
        ("(?x) foo  bar # comment", ("foobar",)),
        ("(?<name>abcdef)", ("abcdef",)),
        (r"\w+@example\.com", ("@example.com",)),
        (r"\<word\>", ("word",)),
        (r"\b{start}word\b{end}", ("word",)),
        (r"\u{1F600}abc", ("😀abc",)),
    ],
)
def test_needles(pattern: str, expected: tuple[str, ...]) -> None:
    assert needles_of(pattern) == expected


def test_json_escaped_characters_split_runs() -> None:
    # csift's prefilter-refuses-json-escaped-literal landmine: quotes and backslashes
    # are rewritten by JSON encoding, so the needle stops at them
    assert needles_of('say "hello"') == ("hello",)
    assert needles_of(r"C:\\Users\\dev") == ("Users",)
    assert needles_of(r"abc\tdefg") == ("defg",)
    assert needles_of("abc\x7fdefg") == ("defg",)


def test_short_runs_do_not_qualify() -> None:
    assert needles_of("ab cd") is None
    assert needles_of("a.b.c") is None


def test_common_prefix_of_branches_is_a_needle() -> None:
    # Python's parser factors `wordax|wordbx` into `word(?:ax|bx)`: same language
    assert needles_of("wordax|wordbx|wordcx") == ("word",)


def test_alternation_over_the_cap_is_not_gated() -> None:
    words = ["alpha", "bravo", "charlie", "delta", "echo1", "foxtrot", "golf1", "hotel", "india"]
    assert needles_of("|".join(words[:NEEDLE_CAP])) == tuple(sorted(words[:NEEDLE_CAP]))
    assert needles_of("|".join(words[: NEEDLE_CAP + 1])) is None


def test_alternation_with_a_branch_lacking_a_needle_is_not_gated() -> None:
    assert needles_of("needle|ab") is None
    assert needles_of("needle|x*") is None


def test_concatenation_takes_its_strongest_part() -> None:
    assert needles_of("abc.*abcdefg") == ("abcdefg",)
    assert needles_of("(?:ab|cd)e.*longneedle") == ("longneedle",)


def test_needles_are_read_from_the_tree_the_matcher_spells() -> None:
    """One parse: a POSIX class is a class and `{,3}` the literal text RE2 reads (the
    prefilter used to re-read the pattern with Python's parser, and gave up on both)."""
    assert needles_of("[[:alpha:]]xyz") == ("xyz",)
    assert needles_of("ab{,3}cdef") == ("3}cdef",)
    assert compile_pattern("ab{,3}cdef").search("xab{,3}cdef") == (1, 11)
    # what the parser hands on unread gates nothing (RE2 reads `(?x)( ?:` as `(?:`)
    assert needles_of("(?x)( ?:abcd)") is None
    assert compile_pattern("(?x)( ?:abcd)").search("abcd") == (0, 4)
    # a flag group between an item and its quantifier: RE2 repeats the item
    assert needles_of("abc(?i)*defg") == ("defg",)
    assert compile_pattern("abc(?i)*defg").search("abdefg") == (0, 6)
    # `\07` is an octal escape ending where the flag group starts: `0` stays a literal
    assert needles_of("x\\07(?U)0中") == ("0中",)


def test_inline_case_flag_makes_needles_caseless() -> None:
    found = required_needles("(?i)Needle", case_insensitive=False)
    assert found is not None
    assert found.caseless
    assert found.any_in(b'{"content":"NEEDLE"}')


# -- character safety ---------------------------------------------------------------------


@pytest.mark.parametrize("char", ['"', "\\", "\x00", "\x1f", "\x7f", " ", "\t", "\n", "\u3000",
                                  "\u2028", "\xa0", "\ud800"])
def test_unsafe_characters(char: str) -> None:
    assert not is_needle_safe(char, caseless=False)
    assert not is_needle_safe(char, caseless=True)


@pytest.mark.parametrize("char", ["a", "Z", "/", "<", "&", "'", "é", "中", "😀"])
def test_safe_characters_case_sensitive(char: str) -> None:
    assert is_needle_safe(char, caseless=False)


def test_caseless_needles_exclude_characters_with_non_ascii_case_partners() -> None:
    # K (Kelvin sign) and ſ (long s) fold onto k and s; é/ß/Ω have non-ASCII partners
    for char in "kKsSéßΩ\u212a":
        assert not is_needle_safe(char, caseless=True), char
    for char in "aZ1-中😀":
        assert is_needle_safe(char, caseless=True), char


def test_only_k_and_s_have_non_ascii_case_partners_in_re2() -> None:
    # the premise of the k/s rule, asked of RE2 itself over every code point
    every_char = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    with_partners = set()
    for letter in "abcdefghijklmnopqrstuvwxyz":
        for match in re2.compile("(?i)" + letter).finditer(every_char):
            if ord(match.group()) > 0x7F:
                with_partners.add(letter)
    assert with_partners == {"k", "s"}


def test_caseless_needle_skips_k_and_s_so_a_kelvin_sign_line_survives() -> None:
    matcher = compile_pattern("kestrel")
    assert matcher.needles is not None
    assert matcher.needles.needles == ("trel",)
    for line in (orjson.dumps({"t": "\u212aestrel"}), json.dumps({"t": "\u212aestrel"}).encode()):
        assert matcher.needles.any_in(line)


@pytest.mark.parametrize("word", ["task", "mask", "sessions", "skill"])
def test_caseless_word_whose_k_s_free_runs_are_short_keeps_its_k_and_s(word: str) -> None:
    """Without k/s these would gate on 2-3 common bytes or not at all (a full scan)."""
    matcher = compile_pattern(word, ignore_case=True)
    assert matcher.needles is not None and matcher.needles.needles == (word,)


def test_a_needle_holding_k_and_s_finds_their_non_ascii_partners_in_every_spelling() -> None:
    found = NeedleSet(["task"], caseless=True)
    for text in ("TASK", "ta\u017fk", "TA\u017f\u212a", "taS\u212a"):
        escaped = json.dumps({"t": text})
        upper_hex = re.sub(r"\\u[0-9a-f]{4}", lambda m: "\\u" + m.group()[2:].upper(), escaped)
        for line in (orjson.dumps({"t": text}), escaped.encode(), upper_hex.encode()):
            assert found.any_in(line), line
    for line in (b"tas", b"tak", b"t-ask", "ta\u017e k".encode()):
        assert not found.any_in(line), line


# -- searching ----------------------------------------------------------------------------


def test_non_ascii_needle_is_found_raw_and_json_escaped() -> None:
    found = NeedleSet(["café"], caseless=False)
    assert found.any_in("x café y".encode())
    assert found.any_in(b"x caf\\u00e9 y")
    assert found.any_in(b"x caf\\u00E9 y")
    assert not found.any_in(b"x cafe y")


def test_astral_needle_is_found_as_a_surrogate_pair() -> None:
    found = NeedleSet(["a😀b"], caseless=False)
    assert found.any_in(json.dumps("a😀b").encode())
    assert found.any_in(b'"a\\uD83D\\uDE00b"')
    assert found.any_in(orjson.dumps("a😀b"))


def test_caseless_search_folds_ascii_only() -> None:
    found = NeedleSet(["needle"], caseless=True)
    assert found.any_in(b"NeEdLe")
    assert not found.any_in(b"needl")


def test_caseless_uncased_needle_with_escapes() -> None:
    found = NeedleSet(["ab中"], caseless=True)
    assert found.any_in("AB中".encode())
    assert found.any_in(b"AB\\u4E2D")


def test_any_in_respects_the_range() -> None:
    found = NeedleSet(["needle"], caseless=False)
    buf = b"needle----needle"
    assert found.any_in(buf, 0, 6)
    assert not found.any_in(buf, 1, 10)
    assert found.any_in(buf, 1)
    assert not found.any_in(buf, 11)
    assert not found.any_in(buf, 5, 2)


def test_any_in_reads_mmap(tmp_path: Path) -> None:
    import mmap

    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a":"x"}\n' * 10_000 + b'{"a":"needle"}\n')  # past the find window
    with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as buf:
        for found in (NeedleSet(["needle"], caseless=False), NeedleSet(["NEEDLE"], caseless=True),
                      NeedleSet(["nééd"], caseless=False)):
            assert found.any_in(buf) == (found.needles != ("nééd",))
        assert NeedleSet(["needle"], caseless=False).find_all_lines(buf) == [100_000]
        assert line_spans_containing(buf, [b"needle"]) == [(100_000, len(buf) - 1)]


@pytest.mark.parametrize("offset", range(65_530, 65_540))
def test_literal_hit_straddling_the_find_window_is_found(offset: int) -> None:
    buf = b"x" * offset + b"needle" + b"y" * 100_000
    found = NeedleSet(["needle"], caseless=False)
    assert found.find_all_lines(buf) == [0]
    assert found.any_in(buf)
    assert found.any_in(buf, 1)
    assert not found.any_in(buf, offset + 1)
    assert line_spans_containing(buf, [b"needle"]) == [(0, len(buf))]
    assert line_spans_containing(b"\n" + buf, [b"needle"]) == [(1, len(buf) + 1)]


BUFFER = b"".join(
    [
        b"zero needle\n",  # 0
        b"one\n",  # 12
        b"two needle needle\n",  # 16
        b"three other\n",  # 34
        b"four\n",  # 46
        b"needle last no newline",  # 51
    ]
)


def test_find_all_lines_reports_each_matching_line_once() -> None:
    found = NeedleSet(["needle"], caseless=False)
    assert found.find_all_lines(BUFFER) == [0, 16, 51]
    assert found.candidate_spans(BUFFER) == [(0, 11), (16, 33), (51, len(BUFFER))]


def test_find_all_lines_merges_several_needles_in_file_order() -> None:
    found = NeedleSet(["needle", "other"], caseless=False)
    assert found.find_all_lines(BUFFER) == [0, 16, 34, 51]
    many = NeedleSet(["needle", "other", "four"], caseless=False)  # one combined pass
    assert many.find_all_lines(BUFFER) == [0, 16, 34, 46, 51]


@pytest.mark.parametrize("needle", ["NEEDLE", "EDL"])  # a long and a short caseless form
def test_find_all_lines_caseless(needle: str) -> None:
    found = NeedleSet([needle], caseless=True)
    assert found.find_all_lines(BUFFER) == [0, 16, 51]
    assert found.any_in(b"nEeDlE")
    assert not found.any_in(b"n e e d l e")


@pytest.mark.parametrize("needle", ["x" * 5000, "ab" * 2500, "ab\u4e2d" * 1700])
def test_a_long_caseless_needle_is_probed_by_a_bounded_prefix(
    needle: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pasted 5,000-char caseless literal is probed by its prefix only (``regex``, the
    engine before, built its skip table in time about cubic in a periodic literal's length,
    ~50 s; the candidates stay those of the prefix): each byte of it is one ``[xX]`` or
    ``\\xNN`` of the pattern."""
    import rurex

    compiled: list[bytes] = []
    real_compile = rurex.compile

    def spy(pattern: bytes, *args: Any, **kwargs: Any) -> Any:
        compiled.append(pattern)
        return real_compile(pattern, *args, **kwargs)

    monkeypatch.setattr(rurex, "compile", spy)
    found = NeedleSet([needle], caseless=True)
    assert compiled and max(map(len, compiled)) <= 4 * CASELESS_PROBE_MAX_BYTES
    line = json.dumps({"content": needle.upper()}).encode()
    assert found.find_all_lines(b'{"content":"nothing"}\n' + line) == [22]
    assert found.find_all_lines(orjson.dumps({"content": needle.upper()})) == [0]


def test_find_all_lines_on_empty_and_hitless_buffers() -> None:
    found = NeedleSet(["needle"], caseless=False)
    assert found.find_all_lines(b"") == []
    assert found.find_all_lines(b"nothing\nhere\n") == []


def test_line_spans_containing_markers() -> None:
    buf = b'{"type":"tool_use"}\n{"type":"text"}\n{"x":"tool_result","type":"tool_use"}\n'
    first, second, third = (0, 19), (20, 35), (36, len(buf) - 1)
    assert line_spans_containing(buf, [b'"tool_use"']) == [first, third]
    assert line_spans_containing(buf, [b'"tool_result"', b'"text"']) == [second, third]
    assert line_spans_containing(buf, []) == []
    assert line_spans_containing(buf, [b""]) == []


def test_needle_set_needs_a_needle() -> None:
    with pytest.raises(ValueError, match="at least one needle"):
        NeedleSet([], caseless=False)


# -- soundness properties -----------------------------------------------------------------

SPECIAL_CHARS = [
    '"', "\\", "\x00", "\x01", "\x08", "\x1b", "\x1f", "\x7f", "\t", "\n", "\r", " ", "  ",
    "\xa0", "\u2028", "\u3000", "\x85", "é", "É", "ß", "ẞ", "\u212a", "ſ", "k", "K", "s", "S",
    "中", "文", "😀", "𝄞", "Ω", "\u2126", "/", "<", ">", "&", "'", "\ufeff", "İ", "ı", "ǅ",
]
WORDS = ["Todo", "Write", "legacy", "kestrel", "Kestrel", "session", "needle", "abc", "xyz"]

_words = st.sampled_from(WORDS)
_plain = st.sampled_from(list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:"))
# weighted towards words so that most examples carry a needle worth checking
chars = st.one_of(
    st.sampled_from(SPECIAL_CHARS),
    st.characters(blacklist_categories=("Cs",)),
    _words, _words, _words, _plain, _plain,
)
texts = st.lists(chars, min_size=1, max_size=30).map("".join)


def serialisations(text: str) -> list[bytes]:
    """The ways a real transcript line can spell a user record holding ``text``."""
    record: dict[str, Any] = {"type": "user", "message": {"role": "user", "content": text}}
    compact = orjson.dumps(record)
    return [
        compact,  # Claude Code / orjson: compact, raw UTF-8
        json.dumps(record).encode(),  # re-serialised: ", " separators, \\uXXXX escapes
        json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode(),
        # writers that escape printable ASCII JSON allows raw (these characters stand only
        # inside strings, so a byte replace is the writer's output)
        json.dumps(record).encode().replace(b"/", b"\\/"),  # PHP
        _escaped(compact, "<>&", upper=False),  # Go
        _escaped(compact, "<>&='+`", upper=True),  # Gson / .NET, upper hex
    ]


def _escaped(line: bytes, chars: str, *, upper: bool) -> bytes:
    for char in chars:
        code = f"{ord(char):04X}" if upper else f"{ord(char):04x}"
        line = line.replace(char.encode(), f"\\u{code}".encode())
    return line


NOISE = b'{"type":"attachment","x":"unrelated"}\n'


def assert_line_survives(pattern: str, text: str, *, ignore_case: bool, multiline: bool) -> None:
    try:
        matcher = compile_pattern(pattern, ignore_case=ignore_case, multiline=multiline)
    except UsageError:  # e.g. an escaped slice that forms `{1001}`: not a case
        event("pattern rejected")
        return
    if matcher.search(text) is None:
        event("no match")
        return
    if matcher.needles is None:
        event("match, no needles")
        return
    event("match with needles: checked")
    for line in serialisations(text):
        assert matcher.needles.any_in(line), (pattern, text, line, matcher.needles)
        buf = NOISE + line + b"\n" + NOISE
        assert len(NOISE) in matcher.needles.find_all_lines(buf), (pattern, text, line)
        if matcher.needles.lines_apart:  # searched line by line behind the proof too
            assert (len(NOISE), len(NOISE) + len(line)) in by_parts(
                matcher.needles, buf, line_bounds(buf)), (pattern, text, line)


def line_bounds(buf: bytes) -> list[int]:
    return [0, *(i + 1 for i, byte in enumerate(buf) if byte == 0x0A and i + 1 < len(buf)),
            len(buf)]


def by_parts(needles: NeedleSet, buf: bytes, cuts: list[int]) -> list[tuple[int, int]]:
    """The candidates of ``buf`` searched part by part between the ``cuts``."""
    return [span for lo, hi in zip(cuts, cuts[1:], strict=False)
            for span in needles.candidate_spans(buf, lo, hi)]


_PIECES = st.sampled_from([b"\n", b"{", b"}", b"ab", b"abc", b"b", b"c\nab", b"\\n",
                           b"\xc3\xa9", b"x" * 30])


@settings(max_examples=300)
@given(st.lists(_PIECES, max_size=30), st.sampled_from(["abc", "ab", "bca", "é"]),
       st.data())
def test_prop_a_set_of_lines_apart_finds_part_by_part_what_it_finds_whole(
    pieces: list[bytes], needle: str, data: st.DataObject
) -> None:
    """A needle set whose hits lie within one line answers for a buffer cut at any line
    boundaries what it answers for the whole (the needle pass run behind the proof)."""
    buf = b"".join(pieces)
    needles = NeedleSet([needle], caseless=False)
    assert needles.lines_apart == (needle.isascii())  # a non-ASCII one has an escaped probe
    if not needles.lines_apart:
        with pytest.raises(ValueError, match="may cross lines"):
            needles.candidate_spans(buf, 0, len(buf))
        return
    bounds = line_bounds(buf)
    cuts = sorted(set(data.draw(st.lists(st.sampled_from(bounds)), label="cuts"))
                  | {0, len(buf)})
    assert by_parts(needles, buf, cuts) == needles.candidate_spans(buf)


def slice_of(data: st.DataObject, text: str, label: str) -> tuple[int, int]:
    # the plain integer draws favour 1-char slices; give whole-tail/whole-head slices a share
    start = data.draw(st.one_of(st.just(0), st.integers(0, len(text) - 1)), label=f"{label} start")
    end = data.draw(
        st.one_of(st.just(len(text)), st.integers(start + 1, len(text))), label=f"{label} end"
    )
    return start, end


escapers = st.sampled_from(["dialect", "hex"])


def escape(literal: str, how: str) -> str:
    if how == "dialect":
        return escape_literal(literal)
    return "".join(
        c if (c.isalnum() and c.isascii()) or (not c.isascii() and not c.isspace())
        else f"\\x{{{ord(c):x}}}"
        for c in literal
    )


@settings(max_examples=400)
@given(texts, st.data(), escapers, st.booleans())
def test_prop_literal_slice_never_drops_its_line(
    text: str, data: st.DataObject, how: str, ignore_case: bool
) -> None:
    start, end = slice_of(data, text, "slice")
    literal = text[start:end]
    if ignore_case:
        literal = data.draw(st.sampled_from([literal, literal.swapcase(), literal.upper()]))
    assert_line_survives(escape(literal, how), text, ignore_case=ignore_case, multiline=False)


@settings(max_examples=300)
@given(texts, st.data(), escapers, st.booleans())
def test_prop_regex_shapes_never_drop_their_line(
    text: str, data: st.DataObject, how: str, ignore_case: bool
) -> None:
    i, j = slice_of(data, text, "first")
    k = data.draw(st.integers(j, len(text)), label="second start")
    m = data.draw(st.integers(k, len(text)), label="second end")
    first, second = escape(text[i:j], how), escape(text[k:m], how)
    other = escape(data.draw(texts, label="other branch"), how)
    shapes = [
        f"{first}.*{second}",
        f"{first}.*{second}|{second}.*{first}",
        f"{first}|{other}",
        f"{other}|{first}",
        f"(?:{first}|{other}){second}",
        f"({other}|{first})(?:{second})",
        f"{first}(?:{other})?{second}",
        f"(?:{first})+",
        f"{first}\\s*{second}",
    ]
    for shape in shapes:
        assert_line_survives(shape, text, ignore_case=ignore_case, multiline=True)


# A small regex grammar: each node renders to a pattern and can produce a matching text.
Node = tuple[Any, ...]

CLASS_SAMPLES = [
    ("[a-z]", "q"),
    (r"\d", "7"),
    (r"\w", "é"),
    (r"\s", "\u3000"),
    (r"\s", "\n"),
    ('[^"]', "x"),
    (".", "Z"),
    (r"\p{Han}", "中"),
    (r"\S", '"'),
]


def nodes(literals: st.SearchStrategy[str]) -> st.SearchStrategy[Node]:
    leaves = st.one_of(
        literals.map(lambda s: ("lit", s)),
        st.sampled_from(CLASS_SAMPLES).map(lambda pair: ("class", *pair)),
    )
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, min_size=1, max_size=4).map(lambda xs: ("cat", *xs)),
            st.lists(inner, min_size=1, max_size=3).map(lambda xs: ("alt", *xs)),
            st.tuples(st.just("rep"), inner, st.integers(0, 2), st.integers(0, 2),
                      st.sampled_from(["", "?"])),
            st.tuples(st.just("group"), inner),
        ),
        max_leaves=8,
    )


def render(node: Node, how: str) -> str:
    kind = node[0]
    if kind == "lit":
        return escape(node[1], how)
    if kind == "class":
        return node[1]
    if kind == "cat":
        return "".join(render(child, how) for child in node[1:])
    if kind == "alt":
        return "(?:" + "|".join(render(child, how) for child in node[1:]) + ")"
    if kind == "group":
        return "(" + render(node[1], how) + ")"
    _, child, low, extra, lazy = node
    return f"(?:{render(child, how)}){{{low},{low + extra}}}{lazy}"


def instance(node: Node, data: st.DataObject) -> str:
    kind = node[0]
    if kind == "lit":
        return str(node[1])
    if kind == "class":
        return str(node[2])
    if kind == "cat":
        return "".join(instance(child, data) for child in node[1:])
    if kind == "alt":
        return instance(data.draw(st.sampled_from(node[1:])), data)
    if kind == "group":
        return instance(node[1], data)
    _, child, low, extra, _lazy = node
    count = data.draw(st.integers(low, low + extra))
    return "".join(instance(child, data) for _ in range(count))


@settings(max_examples=400)
@given(nodes(texts), st.data(), escapers, texts, texts, st.booleans())
def test_prop_generated_regex_never_drops_a_matching_line(
    node: Node, data: st.DataObject, how: str, before: str, after: str, ignore_case: bool
) -> None:
    pattern = render(node, how)
    text = before + instance(node, data) + after
    assert_line_survives(pattern, text, ignore_case=ignore_case, multiline=True)


# The Rust dialect, wider: what the one parse must read as the Rust crate does (spaced
# counts, `\\u{..}` escapes, named and flag groups, boundaries, POSIX and Perl classes in
# brackets, verbose mode). Each node renders to a pattern and produces a matching text.
RUST_SETS = [
    ("[a-z]", "q"), ('[^"]', "x"), (r"\d", "7"), (r"\w", "é"), (r"\s", " "), (r"\S", "K"),
    ("[[:alpha:]]", "b"), (r"\p{Greek}", "α"), (r"\pL", "ж"), (".", "Z"), (r"[\W]", "-"),
    (r"[^\W\d_]", "é"), ("[.]", "."), ("[aa]", "a"), ("[kK]", "\u212a"), (r"[^\S\n]", " "),
    (r"[\x41-\x43]", "B"), ("[]x]", "]"),
]
RUST_ZERO_WIDTH = [r"\b", r"\B", r"\<", r"\>", r"\b{start}", r"\b{end-half}", "^", "$", r"\A",
                   r"\z", "(?i)", "(?-i)"]
RUST_GROUPS = ["(", "(?:", "(?P<g>", "(?<g>", "(?i:", "(?-i:", "(?s:"]
rust_words = st.sampled_from(["abc", "Todo", "kestrel", "needle", "étés", "中文字", "a b", "x-1",
                              "1e-6", "8080", "k", "S", '"q"', "a,b", "#x", "Legacy", "task"])


def rust_escape(literal: str, how: str) -> str:
    if how == "u":  # Rust's \\u{..} / \\u00e9 spellings for what is not ASCII
        return "".join(escape_literal(c) if c.isascii() else
                       (f"\\u{{{ord(c):x}}}" if ord(c) % 2 else f"\\U{ord(c):08x}")
                       for c in literal)
    return escape(literal, how)


def rust_nodes() -> st.SearchStrategy[Node]:
    words = rust_words.map(lambda s: ("lit", s))
    leaves = st.one_of(  # weighted towards words: most examples then carry needles
        words, words, words,
        st.sampled_from(RUST_SETS).map(lambda pair: ("class", *pair)),
        st.sampled_from(RUST_ZERO_WIDTH).map(lambda z: ("zero", z)),
    )
    tree = st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, min_size=1, max_size=4).map(lambda xs: ("cat", *xs)),
            st.lists(inner, min_size=1, max_size=3).map(lambda xs: ("alt", *xs)),
            st.tuples(st.just("rep"), inner, st.integers(0, 2), st.sampled_from([0, 1, 2, None]),
                      st.sampled_from(["", "?"]), st.booleans()),
            st.tuples(st.just("group"), inner, st.sampled_from(RUST_GROUPS)),
        ),
        max_leaves=8,
    )
    # half of them with a word at the top: a required text for the others to sit beside
    return st.one_of(tree, st.tuples(tree, words, tree).map(lambda xs: ("cat", *xs)))


def rust_render(node: Node, how: str, sep: str, names: list[int]) -> str:
    kind = node[0]
    if kind == "lit":
        return rust_escape(node[1], how)
    if kind in ("class", "zero"):
        return node[1]
    if kind == "cat":
        return sep.join(rust_render(child, how, sep, names) for child in node[1:])
    if kind == "alt":
        return "(?:" + "|".join(rust_render(child, how, sep, names) for child in node[1:]) + ")"
    if kind == "group":
        opener = node[2]
        if "<g" in opener:  # names must differ
            names.append(len(names))
            opener = opener.replace("<g", f"<g{names[-1]}")
        return opener + sep + rust_render(node[1], how, sep, names) + sep + ")"
    _, child, low, extra, lazy, spaced = node
    body = "(?:" + rust_render(child, how, sep, names) + ")"
    if (low, extra) in ((0, None), (1, None), (0, 1)) and not spaced:
        return body + {(0, None): "*", (1, None): "+", (0, 1): "?"}[(low, extra)] + lazy
    high = "" if extra is None else str(low + extra)
    if spaced:
        return body + "{ " + str(low) + (" , " + high if extra != 0 else "") + " }" + lazy
    return body + "{" + str(low) + ("," + high if extra != 0 else "") + "}" + lazy


def rust_instance(node: Node, data: st.DataObject) -> str:
    kind = node[0]
    if kind == "lit":
        return str(node[1])
    if kind == "class":
        return str(node[2])
    if kind == "zero":
        return ""
    if kind == "cat":
        return "".join(rust_instance(child, data) for child in node[1:])
    if kind == "alt":
        return rust_instance(data.draw(st.sampled_from(node[1:])), data)
    if kind == "group":
        return rust_instance(node[1], data)
    _, child, low, extra, _lazy, _spaced = node
    count = data.draw(st.integers(low, low + (2 if extra is None else extra)))
    return "".join(rust_instance(child, data) for _ in range(count))


@settings(max_examples=500)
@given(rust_nodes(), st.data(), st.sampled_from(["dialect", "hex", "u"]), st.booleans(),
       st.booleans(), texts, texts)
def test_prop_needles_are_necessary_for_the_rust_crate(
    node: Node, data: st.DataObject, how: str, verbose: bool, ignore_case: bool,
    before: str, after: str,
) -> None:
    """Whatever the Rust regex crate matches in a text holds one of the pattern's needles,
    the needles coming from the one parse the matcher spells RE2 from."""
    import rurex

    pattern = ("(?x) " if verbose else "") + rust_render(node, how, " " if verbose else "", [])
    try:
        matcher = compile_pattern(pattern, ignore_case=ignore_case)
    except UsageError:
        event("refused")
        return
    if matcher.needles is None:
        event("no needles")
        return
    # every non-ASCII character as its escape (the crate's error path panicked on an
    # offset inside a multi-byte character)
    source = "".join(c if c.isascii() else f"\\x{{{ord(c):X}}}" for c in pattern)
    try:
        rust = rurex.compile(source, rurex.IGNORECASE if matcher.case_insensitive else 0)
    except BaseException:  # noqa: BLE001 - Rust refuses it
        event("rust refuses")
        return
    found = rust.search(before + rust_instance(node, data) + after)
    if found is None:
        event("no match (a boundary or anchor the text does not meet)")
        return
    event("rust matches: checked")
    assert matcher.needles.any_in(found.group(0).encode("utf-8")), (
        pattern, found.group(0), matcher.needles)


# -- real transcripts ---------------------------------------------------------------------


def iter_strings(value: Any) -> Any:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from iter_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from iter_strings(item)


@pytest.mark.real
@pytest.mark.skipif(not REAL_PROJECTS.is_dir(), reason="real corpus not present")
def test_real_lines_survive_needles_of_their_own_text() -> None:
    """Every 7th string value of every 5th real line, as a literal and caseless pattern."""
    checked = 0
    for path in sorted(REAL_PROJECTS.rglob("*.jsonl"))[:80]:
        for number, line in enumerate(path.read_bytes().splitlines()):
            if number % 5:
                continue
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            for index, value in enumerate(iter_strings(record)):
                if index % 7 or len(value) < 4:
                    continue
                middle = len(value) // 2
                literal = value[max(0, middle - 12) : middle + 12]
                for ignore_case in (False, True):
                    matcher = compile_pattern(escape_literal(literal), ignore_case=ignore_case)
                    assert matcher.search(value) is not None
                    if matcher.needles is not None:
                        assert matcher.needles.any_in(line), (path.name, number, literal)
                checked += 1
    assert checked > 1000


# -- numbers orjson re-spells ---------------------------------------------------------------


@st.composite
def number_spellings(draw: st.DrawFn) -> str:
    """Any JSON number token (finite as a double), weighted towards the spellings orjson
    changes: exponents in any case and padding, trailing zeros, long digit runs, -0."""
    sign = draw(st.sampled_from(["", "-"]))
    whole = draw(st.one_of(st.just("0"), st.from_regex(r"[1-9][0-9]{0,24}", fullmatch=True)))
    frac = draw(st.one_of(st.just(""), st.from_regex(r"\.0{0,8}[0-9]{1,20}", fullmatch=True)))
    exp = draw(st.one_of(st.just(""), st.from_regex(r"[eE][+-]?0?[0-9]{1,2}", fullmatch=True)))
    return sign + whole + frac + exp


def respelled(token: str) -> str:
    return orjson.dumps(orjson.loads(token)).decode()


NUMBER_CONTEXTS = ['{{"k":{}}}', '{{"k": {}}}', '{{"k":{},"j":1}}', '{{"k": {}, "j": 1}}',
                   '[{}]', '[1,{}]', '[1, {}]', '{{"k":[2,{},3]}}', '{{"k":\t{}\r}}']


@settings(max_examples=500)
@given(number_spellings())
def test_prop_every_spelling_orjson_changes_is_found(token: str) -> None:
    """The number pass is a superset of the lines whose rendered numbers differ."""
    finder = re2.compile(RESPELLED_NUMBER)
    if respelled(token) == token:
        event("kept as written")
        return
    event("re-spelled")
    for context in NUMBER_CONTEXTS:
        line = context.format(token).encode()
        assert finder.search(line) is not None, (token, respelled(token), line)


@pytest.mark.parametrize("token", [
    "0.000001", "1E-6", "1e-06", "1e5", "1.50", "1.00", "-0", "123456789012345678901",
    "0.1234567890123456789", "9007199254740993.0", "0.30000000000000001", "-0e0", "1e20",
])
def test_spellings_orjson_changes_are_found(token: str) -> None:
    assert respelled(token) != token
    needles = NeedleSet(["ZQXJ-absent-0000"], caseless=False, respelled_numbers=True)
    for context in NUMBER_CONTEXTS:
        buf = b'{"a":1}\n' + context.format(token).encode() + b'\n{"b":2}'
        assert needles.find_all_lines(buf) == [8], (token, context)


@pytest.mark.parametrize("line", [
    b'{"timestamp":"2026-05-28T20:28:40.750Z","n":0,"x":-1,"y":1.0,"z":[0.5,100.0,-0.0]}',
    b'{"text":"agentId: 8e004d2c9d1e","version":"2.1.50","ms":1764547200000}',
    b'{"uuid":"3debce47-e4de-44c4-86a7-d438a9325a0e","usage":{"input_tokens":12396}}',
])
def test_common_kept_spellings_take_no_line(line: bytes) -> None:
    """Timestamps, versions, ids and plain numbers (what every transcript line holds) are
    written back as is: they must not turn every line into a candidate."""
    assert re2.compile(RESPELLED_NUMBER).search(line) is None
    assert orjson.dumps(orjson.loads(line)) == line


def test_the_number_pass_is_off_by_default() -> None:
    line = b'{"rate":0.000001}'
    assert NeedleSet(["1e-6"], caseless=False).find_all_lines(line) == []
    assert NeedleSet(["1e-6"], caseless=False, respelled_numbers=True).find_all_lines(line) == [0]


def test_a_leading_escapable_character_is_dropped_only_when_enough_is_left() -> None:
    """`<command-name>` is searched from `command-name` (a literal prefix for RE2); `==0`
    left as `0` made nearly every line a candidate, so it keeps its whole needle."""
    from pysift.core.prefilter import _without_escapable_lead

    assert _without_escapable_lead("<command-name>") == "command-name>"
    assert _without_escapable_lead("==0") == "==0"
    assert _without_escapable_lead("<<<a") == "<<<a"
    assert _without_escapable_lead("//abc") == "abc"
    noise = b'{"type":"user","message":{"content":"0 and a"}}'
    assert not compile_pattern("==0").needles.any_in(noise)
    assert compile_pattern("==0").needles.any_in(b'{"content":"x \\u003d\\u003d0"}')


# -- the literal probe's search (stringzilla, in place) against bytes.find --------------


def naive_line_spans(buf: bytes, needle: bytes) -> list[tuple[int, int]]:
    """Every line holding ``needle``, found with ``bytes.find`` one line at a time."""
    spans, start = [], 0
    while start <= len(buf):
        end = buf.find(b"\n", start)
        end = len(buf) if end < 0 else end
        if needle in buf[start:end]:
            spans.append((start, end))
        if end == len(buf):
            break
        start = end + 1
    return spans if buf else []


LITERAL_NEEDLES = st.sampled_from([b"needle", b"nee", b'"type":"user"', b"aaa", b"\xe4\xb8\xad",
                                   b"ZQXJ-needle-7731", b"x" * 70])


@given(LITERAL_NEEDLES,
       st.lists(st.sampled_from([b"needle", b"nee", b"dle", b"\n", b"a", b"aa", b"\xe4\xb8",
                                 b"\xad", b'"type":"user"', b"ZQXJ-needle-7731", b"x" * 35,
                                 b'{"a":1}', b" "]), max_size=60),
       st.data())
def test_prop_literal_probe_finds_what_bytes_find_finds(needle: bytes, pieces: list[bytes],
                                                         data: st.DataObject) -> None:
    buf = b"".join(pieces)
    found = line_spans_containing(buf, [needle])
    assert found == naive_line_spans(buf, needle)
    start = data.draw(st.integers(0, len(buf)), label="start")
    stop = data.draw(st.integers(start, len(buf)), label="stop")
    if needle.isascii():  # an ASCII needle is searched as one literal probe
        probe = NeedleSet([needle.decode("ascii")], caseless=False)
        assert probe.any_in(buf, start, stop) == (needle in buf[start:stop])


@settings(max_examples=300)
@given(st.lists(_PIECES, max_size=40), st.lists(st.sampled_from(["ab", "bc", "x", "c\na", "é"]),
                                               min_size=1, max_size=3),
       st.sampled_from([1, 2, 7, 64]))
def test_prop_several_needles_part_by_part_are_the_whole_passes(
    pieces: list[bytes], needles: list[str], part: int
) -> None:
    """``line_spans_containing`` searches several newline-free needles part by part (each
    part whole lines): the lines are those of one whole pass per needle, merged."""
    from unittest.mock import patch

    from pysift.core import prefilter

    buf = b"".join(pieces) * 3
    wanted = [n.encode() for n in needles]
    whole = sorted({span for n in wanted for span in line_spans_containing(buf, [n])})
    with patch.object(prefilter, "_PART_BYTES", part):
        assert line_spans_containing(buf, wanted) == whole
