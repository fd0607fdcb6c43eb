"""The spelled-out and caseless probes run on the Rust regex crate (``rurex``) and must find
exactly what the engines they replaced found: RE2 for a case-sensitive RE2 source,
``regex``'s ``(?i)`` over bytes for an ASCII-caseless form. A probe's answer is the offset
of the first match in a window, which is the leftmost start of any match whatever the
engine, so equal offsets mean equal candidate lines."""

from __future__ import annotations

import re2
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from pysift.core.prefilter import (
    CASELESS_PROBE_MAX_BYTES,
    OPTIONAL_ESCAPES,
    _CaselessProbe,
    _folded_source,
    _json_escaped,
    _re2_source,
    _Re2Probe,
    _RurexProbe,
    _spelled_out_probe,
    is_needle_safe,
)


def _re2_find(source: bytes):  # type: ignore[no-untyped-def]
    return _Re2Probe(source, caseless=False).find


def test_every_ascii_escape_reads_as_its_character_but_the_word_boundaries() -> None:
    differ = []
    for code in range(0x80):
        char = bytes([code])
        source = b"a" + bytes(re2.escape(char)) + b"b"
        haystack = b"xa" + char + b"b ab a\nb"
        probe = _spelled_out_probe(source)
        if probe.find(haystack, 0, len(haystack)) != 1:
            differ.append(char)
        if isinstance(probe, _RurexProbe) != (char not in b"<>"):
            differ.append(b"engine " + char)
    assert differ == []


def test_a_source_with_an_escaped_angle_bracket_stays_with_re2() -> None:
    assert isinstance(_spelled_out_probe(b"a\\<b"), _Re2Probe)
    assert isinstance(_spelled_out_probe(b"[kK]estrel"), _RurexProbe)


# Needle text: ASCII letters (k and s among them), the characters some writers escape,
# punctuation RE2 escapes, non-ASCII letters with and without case partners.
NEEDLE_CHARS = "kKsSaeE" + "".join(OPTIONAL_ESCAPES) + "-.#!%()[]{}|?*$^@~;_0" + "éÉµßſKΣ日→"


def spellings(needle: str) -> st.SearchStrategy[bytes]:
    """One way some writer stores ``needle`` in a transcript, or a near miss."""
    def spell(choices: list[int]) -> bytes:
        out = []
        for char, choice in zip(needle, choices):
            if choice == 1 and char.isascii():
                char = char.swapcase()
            elif choice == 2 and char in "kK":
                char = "\u212a"
            elif choice == 2 and char in "sS":
                char = "\u017f"
            if choice == 3 and not char.isascii():
                out.append(_json_escaped(char).encode("ascii"))
            elif choice == 4 and char in OPTIONAL_ESCAPES:
                out.append(f"\\u{ord(char):04x}".encode("ascii"))
            elif choice == 5:
                out.append(b"")  # a near miss: a character left out
            else:
                out.append(char.encode("utf-8"))
        return b"".join(out)
    return st.lists(st.integers(0, 5), min_size=len(needle), max_size=len(needle)).map(spell)


@settings(max_examples=300)
@given(st.text(alphabet=NEEDLE_CHARS, min_size=1, max_size=8), st.data())
def test_spelled_out_sources_find_what_re2_finds(needle: str, data: st.DataObject) -> None:
    noise = st.binary(max_size=6) | st.sampled_from([b"\n", b"\\", b"\\u", b"\xe2\x84", b""])
    haystack = b"".join(data.draw(st.lists(spellings(needle) | noise, max_size=8)))
    start = data.draw(st.integers(0, len(haystack)))
    end = data.draw(st.integers(start, len(haystack)))
    sources = [_folded_source(needle), _folded_source(needle, fold=False),
               _re2_source(_json_escaped(needle).encode("ascii"), any_hex_case=True)]
    for source in sources:
        assert (_spelled_out_probe(source).find(haystack, start, end)
                == _re2_find(source)(haystack, start, end)), source


@settings(max_examples=300)
@given(st.binary(min_size=5, max_size=80) | st.text(alphabet="aBkSz-é日_", min_size=5,
                                                      max_size=80).map(str.encode),
       st.data())
def test_the_caseless_probe_finds_what_regex_ignorecase_finds(form: bytes,
                                                                data: st.DataObject) -> None:
    prefix = form[:CASELESS_PROBE_MAX_BYTES]
    reference = regex.compile(b"(?i)" + regex.escape(prefix, special_only=True)).search
    variants = st.sampled_from([prefix, prefix.upper(), prefix.lower(), prefix.swapcase(),
                                prefix[:-1]])
    haystack = b"".join(data.draw(st.lists(variants | st.binary(max_size=5), max_size=6)))
    start = data.draw(st.integers(0, len(haystack)))
    end = data.draw(st.integers(start, len(haystack)))
    found = reference(haystack, start, end)
    assert _CaselessProbe(form).find(haystack, start, end) == (
        -1 if found is None else found.start())


def test_a_source_whose_matches_have_no_bounded_length_is_refused() -> None:
    for source in (b"a.b", b"ab+", b"a{2}", b"(?i)ab", b"a?b"):
        try:
            _RurexProbe(source)
        except ValueError:
            continue
        raise AssertionError(source)
    assert isinstance(_spelled_out_probe(b"ab*"), _Re2Probe)


@settings(max_examples=300)
@given(st.text(alphabet="kKsSea\\-", min_size=1, max_size=5), st.data(),
       st.integers(1, 9), st.integers(1, 4))
def test_a_mapped_buffer_is_searched_in_windows_without_losing_a_match(
        needle: str, data: st.DataObject, window: int, growth: int) -> None:
    """Windows of a few bytes (the real ones are 64 KiB to 1 MiB) put every match astride
    a window's end somewhere: the lines and first offsets are still RE2's."""
    from pysift.core import prefilter

    noise = st.binary(max_size=4) | st.sampled_from([b"\n", b"\n\n", b"\\u", b""])
    haystack = b"".join(data.draw(st.lists(spellings(needle) | noise, max_size=12)))
    start = data.draw(st.integers(0, len(haystack)))
    end = data.draw(st.integers(start, len(haystack)))
    source = _folded_source(needle)
    reference = _re2_find(source)
    saved = prefilter._WINDOW_MIN, prefilter._WINDOW_MAX
    prefilter._WINDOW_MIN, prefilter._WINDOW_MAX = window, window * growth
    try:
        probe = _RurexProbe(source)
        mapped = bytearray(haystack)  # any buffer but bytes takes the windowed path
        assert probe.find(mapped, start, end) == reference(haystack, start, end)
        assert probe.line_spans(mapped) == _Re2Probe(source, caseless=False).line_spans(
            haystack)
    finally:
        prefilter._WINDOW_MIN, prefilter._WINDOW_MAX = saved


CASELESS_SAFE = "".join(c for c in "abcdeghijlmnopqrtuvwxyzABCDEGHIJLMNOPQRTUVWXYZ0-_.#!é日→µ"
                        if is_needle_safe(c, caseless=True))


@settings(max_examples=300)
@given(st.text(alphabet=CASELESS_SAFE, min_size=3, max_size=10), st.data())
def test_the_caseless_probe_finds_what_re2_folding_finds(needle: str,
                                                          data: st.DataObject) -> None:
    """A caseless needle holds no cased character but ASCII letters (and no k or s), so
    RE2's Unicode folding and the ASCII folding of the probe agree on it."""
    form = needle.encode("utf-8")
    variants = st.sampled_from([form, form.upper(), form.lower(), form.swapcase(),
                                form[:-1], needle.upper().encode("utf-8")])
    haystack = b"".join(data.draw(st.lists(variants | st.binary(max_size=4), max_size=6)))
    start = data.draw(st.integers(0, len(haystack)))
    end = data.draw(st.integers(start, len(haystack)))
    reference = _Re2Probe(_re2_source(form, any_hex_case=False), caseless=True)
    assert _CaselessProbe(form).find(haystack, start, end) == reference.find(haystack, start,
                                                                            end)
