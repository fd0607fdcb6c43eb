"""Excerpts never cut silently; whitespace collapse; NFC."""

from __future__ import annotations

import re

import unicodedata2
from hypothesis import given
from hypothesis import strategies as st

from pysift.core.text import (
    centered_excerpt,
    clip,
    clip_marker,
    excerpt,
    nfc,
    one_line,
    one_line_length,
)

MARKER_AT_END = re.compile(r"… \(\+(\d+) chars\)\Z")

# ── clip ────────────────────────────────────────────────────────────────────


def test_text_within_the_cap_is_unchanged() -> None:
    assert clip("hello", 200) == ("hello", 0)
    assert clip("", 10) == ("", 0)
    assert clip("abcde", 5) == ("abcde", 0)


def test_longer_text_carries_the_dropped_count() -> None:
    assert clip("x" * 205, 200) == ("x" * 200 + "… (+5 chars)", 5)


def test_clip_counts_code_points_not_bytes() -> None:
    shown, dropped = clip("🛠" * 202, 200)
    assert dropped == 2
    assert shown == "🛠" * 200 + "… (+2 chars)"
    assert clip("€" * 203, 200)[1] == 3


def test_zero_and_negative_caps_keep_nothing_but_still_count() -> None:
    assert clip("abc", 0) == ("… (+3 chars)", 3)
    assert clip("abc", -4) == ("… (+3 chars)", 3)


def test_clip_marker_text() -> None:
    assert clip_marker(12) == "… (+12 chars)"


# ── one_line / excerpt ──────────────────────────────────────────────────────


def test_one_line_collapses_every_whitespace_run() -> None:
    assert one_line("  a\n  b\t\tc \r\n d\u00a0\u2003e  ") == "a b c d e"
    assert one_line("\n\n") == ""


def test_excerpt_flattens_then_clips() -> None:
    assert excerpt("a\n  b\t c", 200) == ("a b c", 0)
    shown, dropped = excerpt("word \n" * 60, 200)
    assert dropped == len(one_line("word \n" * 60)) - 200
    assert shown.endswith(f"… (+{dropped} chars)")


# ── centered_excerpt ────────────────────────────────────────────────────────


def test_short_text_is_returned_whole_and_one_lined() -> None:
    assert centered_excerpt("the\ncarry  bit", 4, 9, 400) == ("the carry bit", False)


def test_match_deep_in_a_long_text_is_centred_with_both_markers() -> None:
    text = "a" * 1000 + "NEEDLE" + "b" * 1000
    shown, clipped = centered_excerpt(text, 1000, 1006, 100)
    assert clipped
    assert shown.startswith("…")
    assert shown.endswith("… (+953 chars)")
    body = shown[1 : -len("… (+953 chars)")]
    assert len(body) == 100
    assert body.index("NEEDLE") == 47  # (100 - 6) // 2 characters of leading context


def test_match_at_the_start_has_no_leading_marker() -> None:
    shown, clipped = centered_excerpt("NEEDLE" + "b" * 500, 0, 6, 50)
    assert clipped
    assert shown.startswith("NEEDLE")
    assert shown.endswith("… (+456 chars)")


def test_match_at_the_end_has_no_trailing_count() -> None:
    text = "a" * 500 + "NEEDLE"
    shown, clipped = centered_excerpt(text, 500, 506, 50)
    assert clipped
    assert shown == "…" + "a" * 44 + "NEEDLE"


def test_offsets_are_into_the_original_text_before_whitespace_collapse() -> None:
    text = "x\n\n\n\n" * 200 + "NEEDLE" + "  \n y" * 200
    start = text.index("NEEDLE")
    shown, _ = centered_excerpt(text, start, start + 6, 40)
    assert "NEEDLE" in shown
    assert "\n" not in shown


def test_whitespace_at_the_edges_of_a_match_does_not_push_it_out_of_view() -> None:
    shown, clipped = centered_excerpt("aaa    aa", 3, 9, 2)
    assert clipped
    assert shown == "…aa"


def test_match_longer_than_the_window_shows_its_start() -> None:
    text = "a" * 300 + "M" * 200 + "b" * 300
    shown, _ = centered_excerpt(text, 300, 500, 50)
    assert shown == "…" + "M" * 50 + "… (+450 chars)"


def test_out_of_range_offsets_are_clamped_not_raised() -> None:
    text = "z" * 1000
    assert centered_excerpt(text, 5000, 9000, 10) == ("…" + "z" * 10, True)
    assert centered_excerpt(text, -5, -1, 10) == ("z" * 10 + "… (+990 chars)", True)


# ── nfc ─────────────────────────────────────────────────────────────────────


def test_nfc_composes_decomposed_accents() -> None:
    decomposed = "Cafe\u0301 /Users/zoe\u0308"
    assert nfc(decomposed) == "Café /Users/zoë"
    assert nfc("plain ascii") == "plain ascii"


# ── properties ──────────────────────────────────────────────────────────────


@given(st.text(), st.integers(min_value=-3, max_value=300))
def test_prop_clip_never_loses_the_count(text: str, max_chars: int) -> None:
    shown, dropped = clip(text, max_chars)
    if dropped == 0:
        assert shown == text
        return
    match = MARKER_AT_END.search(shown)
    assert match is not None
    assert int(match.group(1)) == dropped
    kept = shown[: match.start()]
    assert len(kept) + dropped == len(text)
    assert text.startswith(kept)
    assert len(kept) == max(0, max_chars)


@given(st.text())
def test_prop_one_line_has_no_whitespace_runs_and_keeps_every_word(text: str) -> None:
    flat = one_line(text)
    assert flat == flat.strip()
    assert "  " not in flat
    assert not any(c.isspace() and c != " " for c in flat)
    assert flat.split(" ") == (text.split() or [""])


# every character str.split() breaks on, plus printable and non-printable neighbours
_SPLITTERS = "".join(chr(c) for c in range(0x3001) if chr(c).isspace())
one_line_alphabet = st.text(alphabet=st.sampled_from(_SPLITTERS + "ab\u200b\u00ad\x00é🛠"))


@given(st.one_of(st.text(), one_line_alphabet))
def test_prop_one_line_is_split_and_join(text: str) -> None:
    """The already-one-line shortcut (isprintable + no doubled/edge space) never changes
    the answer of the plain split-and-join it stands in for."""
    assert one_line(text) == " ".join(text.split())


def test_every_whitespace_character_is_unprintable_but_the_space() -> None:
    """The premise of one_line's shortcut, over the whole code space."""
    import sys

    assert [hex(c) for c in range(sys.maxunicode + 1)
            if chr(c).isspace() and chr(c).isprintable() and c != 0x20] == []


whitespace_heavy = st.text(alphabet=st.sampled_from("ab \n\t\u3000é🛠"), max_size=400)


@given(whitespace_heavy, st.data(), st.integers(min_value=1, max_value=120))
def test_prop_centered_excerpt_shows_a_match_that_fits(
    text: str, data: st.DataObject, max_chars: int
) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    shown, clipped = centered_excerpt(text, start, end, max_chars)
    matched = one_line(text[start:end])
    if len(matched) <= max_chars:
        assert matched in shown
    flat = one_line(text)
    if not clipped:
        assert shown == flat
        return
    trailing = MARKER_AT_END.search(shown)
    after = int(trailing.group(1)) if trailing else 0
    leading = shown.startswith("…")  # the alphabet has no ellipsis of its own
    body = shown[int(leading) : trailing.start() if trailing else len(shown)]
    before = len(flat) - after - len(body)
    assert len(body) == max_chars
    assert flat[before : before + len(body)] == body
    assert leading == (before > 0)


@given(st.text())
def test_prop_nfc_is_idempotent_and_canonically_equivalent(text: str) -> None:
    normalized = nfc(text)
    assert nfc(normalized) == normalized
    assert normalized == unicodedata2.normalize("NFC", text)  # the ASCII fast path agrees
    assert unicodedata2.normalize("NFD", normalized) == unicodedata2.normalize("NFD", text)


# -- the long-text preview path: a prefix and a byte count instead of the whole collapse ----

_spacey = st.text(alphabet=st.sampled_from(list("ab é\t\n\r\x0b\x0c\x1c\x1f\x85\u3000.")),
                  max_size=80)
# every character str.split breaks on, beside characters whose UTF-8 shares their lead
# bytes (an em dash, curly quotes, U+200B, U+2060, U+3001, an undecodable byte's surrogate)
_SPACES = [chr(c) for c in range(0x110000) if chr(c).isspace()]
_NEIGHBOURS = list("ab—’“\u200b\u2060\u3001\u00a9\u0086\u1681\udc85🛠")
_wide = st.lists(st.one_of(st.sampled_from(_SPACES + _NEIGHBOURS), st.just("word"),
                           st.just("é" * 30)), max_size=150).map("".join)
_long_ascii = st.lists(st.sampled_from(["word", " ", "\n\n", "\t", "x" * 50, "  " * 40, "\x1e"]),
                       max_size=120).map("".join)


@given(st.one_of(_spacey, _long_ascii, _wide, st.text(max_size=60)))
def test_one_line_length_is_the_length_of_the_one_lined_text(text: str) -> None:
    assert one_line_length(text) == len(one_line(text))


def test_the_wide_space_bytes_are_the_interpreters_non_ascii_spaces() -> None:
    """``one_line_length`` reads a non-ASCII text from its UTF-8 only when none of these
    sequences is in it: they must be exactly what ``str.split`` breaks on past ASCII."""
    from pysift.core.text import _E2_80_SPACES, _WIDE_SPACES, _holds_wide_space

    spelled = {*_WIDE_SPACES, *(bytes([0xE2, 0x80, b]) for b in _E2_80_SPACES)}
    assert {c.encode() for c in _SPACES if not c.isascii()} == spelled
    assert all(_holds_wide_space(b"x" + sequence + b"y") for sequence in spelled)
    assert not _holds_wide_space("a—b’c“d\u200be\u2060".encode())


@given(st.one_of(_spacey, _long_ascii, _wide), st.integers(0, 60))
def test_a_long_text_previews_exactly_as_the_whole_collapse_would(text: str, cap: int) -> None:
    assert excerpt(text, cap) == clip(one_line(text), cap)


def test_a_90kb_prompt_previews_with_its_exact_count() -> None:
    prompt = "please review\n\n" + "line of the pasted log   \n" * 3600
    shown, dropped = excerpt(prompt, 200)
    assert shown.startswith("please review line of the pasted log line")
    assert dropped == len(one_line(prompt)) - 200
    assert shown.endswith(f"… (+{dropped} chars)")


@given(st.one_of(_spacey, _long_ascii, whitespace_heavy), st.data())
def test_a_match_offset_maps_as_the_prefix_collapse_says(text: str, data: st.DataObject
                                                         ) -> None:
    """``_flat_offset`` counts the collapsed prefix by ``one_line_length``: the offset
    the split-and-join of the prefix gives, plus the space a trailing run becomes."""
    from pysift.core.text import _flat_offset

    position = data.draw(st.integers(0, len(text)))
    prefix = " ".join(text[:position].split())
    expected = len(prefix) + (1 if prefix and text[:position][-1:].isspace() else 0)
    flat_len = len(one_line(text))
    assert _flat_offset(text, position, flat_len) == min(expected, flat_len)
