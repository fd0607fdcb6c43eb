"""The text stream writers: a held stream writes what the plain one writes (SPEC §5)."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pysift.output import terminal
from pysift.output.terminal import HeldTextOut, TextOut

# text with the controls a transcript can carry (ESC, CR, BEL, C1, an undecodable byte's
# surrogate) beside plain words, newlines and tabs
_TEXT = st.text(alphabet=st.sampled_from(["a", "é", " ", "\n", "\t", "\x1b", "\r", "\x07",
                                          "\x85", "\udc9b", "中"]), max_size=12)
_CALLS = st.lists(st.one_of(
    st.tuples(st.just("write"), _TEXT),
    st.tuples(st.just("paint"), _TEXT, st.sampled_from(sorted(terminal.ROLES))),
    st.tuples(st.just("verbatim"), _TEXT),
    st.tuples(st.just("write_shown"), _TEXT.filter(terminal.shows_as_is)),
    st.tuples(st.just("writelines"), st.lists(_TEXT, max_size=3)),
    st.tuples(st.just("flush"))), max_size=30)


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _play(out: TextOut, calls: list[tuple[object, ...]]) -> None:
    for name, *args in calls:
        getattr(out, name)(*args)  # type: ignore[arg-type]
    out.flush()


@given(_CALLS, st.booleans(), st.booleans(), st.sampled_from([1, 5, 1 << 20]))
def test_prop_a_held_stream_writes_what_the_plain_one_writes(
        calls: list[tuple[object, ...]], colour: bool, tty: bool, hold: int) -> None:
    """Whatever the calls (plain writes, painted spans, a file's verbatim bytes, flushes)
    and however small the pieces it writes out, a held stream ends with the bytes the
    plain stream wrote, in colour or not, to a terminal or not."""
    plain, held = (_Tty() if tty else io.StringIO()), (_Tty() if tty else io.StringIO())
    _play(TextOut(plain, colour=colour), calls)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(terminal, "_HOLD_CHARS", hold)
        _play(HeldTextOut(held, colour=colour), calls)
    assert held.getvalue() == plain.getvalue()


@given(_TEXT)
def test_prop_a_text_shows_as_is_exactly_when_visible_leaves_it_unchanged(value: str) -> None:
    assert terminal.shows_as_is(value) == (terminal.visible(value) == value)


def test_text_shown_as_is_follows_what_was_held_before_it() -> None:
    """``write_shown`` (a listing's rows, found free of controls where they were laid
    out) goes out after what the stream held, unscanned; later writes are escaped."""
    stream = io.StringIO()
    out = HeldTextOut(stream)
    out.write("banner\x1b\n")
    terminal.write_shown(out, "row one\nrow two\n")
    out.write("\x07footer")
    out.flush()
    assert stream.getvalue() == "banner\\x1b\nrow one\nrow two\n\\x07footer"
    plain = io.StringIO()
    terminal.write_shown(plain, "to any other stream as it is")
    assert plain.getvalue() == "to any other stream as it is"


def test_a_held_stream_writes_nothing_until_flushed_or_full() -> None:
    stream = io.StringIO()
    out = HeldTextOut(stream)
    out.write("a\x1bb")
    assert stream.getvalue() == ""
    out.flush()
    assert stream.getvalue() == "a\\x1bb"


# each side of every bound the two tests draw: C0 (tab and newline kept), DEL, C1, the
# bytes a path's surrogates stand for, lone surrogates, and ordinary text of 1 to 4 bytes
_EDGES = st.sampled_from(["a", " ", "é", "·", "中", "😀", "\x00", "\x08", "\t", "\n", "\x0b",
                          "\x1b", "\x1f", "\x7f", "\x80", "\x85", "\x9f", "\xa0", "\ud83d",
                          "\udc7f", "\udc80", "\udc9f", "\udca0", "\udfff"])


@settings(max_examples=300)
@given(st.text(alphabet=_EDGES, max_size=6))
def test_prop_utf8_as_is_is_the_plain_encoding_of_a_text_that_shows_as_is(text: str) -> None:
    """The bytes test a listing's rows take in the workers says what the text test and a
    strict encoding say together, and gives the bytes the writer would write."""
    from pysift.output.terminal import shows_as_is, utf8_as_is

    try:
        plain: bytes | None = text.encode("utf-8")
    except UnicodeEncodeError:
        plain = None
    expected = plain if plain is not None and shows_as_is(text) else None
    assert utf8_as_is(text) == expected
