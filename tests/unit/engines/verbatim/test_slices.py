"""The slicing laws a SessionStart hook fleet relies on (csift §6.8, ``--slice``)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pysift.engines.verbatim.slices import pick, slice_windows

# documents as the renderer writes them: lines ending in \n, wide characters and emoji
# included (a window counts code points, never bytes), a last line with or without \n
LINE = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"),
               max_size=60)
DOCUMENT = st.builds(lambda lines, tail: "".join(f"{x}\n" for x in lines) + tail,
                     st.lists(LINE, max_size=40), LINE)
WINDOW = st.integers(min_value=1, max_value=80)


@given(DOCUMENT, WINDOW)
def test_slices_join_to_the_document_byte_for_byte(doc: str, window: int) -> None:
    chunks = slice_windows(doc, window)
    assert "".join(chunks).encode("utf-8") == doc.encode("utf-8")


@given(DOCUMENT, WINDOW)
def test_no_chunk_is_over_the_window_and_none_is_empty(doc: str, window: int) -> None:
    for chunk in slice_windows(doc, window):
        assert 0 < len(chunk) <= window


@given(DOCUMENT, WINDOW)
def test_slicing_is_deterministic(doc: str, window: int) -> None:
    assert slice_windows(doc, window) == slice_windows(doc, window)


@given(DOCUMENT, WINDOW)
def test_a_line_that_fits_a_window_is_never_cut(doc: str, window: int) -> None:
    """Greedy packing at line boundaries: only a line longer than the window is split."""
    chunks = slice_windows(doc, window)
    starts, at = set(), 0
    for chunk in chunks:
        starts.add(at)
        at += len(chunk)
    pos = 0
    for line in doc.split("\n"):
        length = len(line) + 1
        if length <= window:
            inside = [s for s in starts if pos < s < pos + len(line)]
            assert not inside, (line, window)
        pos += length


@given(DOCUMENT, WINDOW)
def test_greedy_packing_fills_each_chunk_before_the_next(doc: str, window: int) -> None:
    """A chunk ends at a line end only when the next line would not fit in it (or is
    itself longer than a window); a chunk ending inside a line is a full window."""
    chunks = slice_windows(doc, window)
    end = 0
    for chunk in chunks[:-1]:
        end += len(chunk)
        if not chunk.endswith("\n"):
            assert len(chunk) == window
            continue
        rest = doc[end:]
        nl = rest.find("\n")
        next_line = rest if nl < 0 else rest[:nl + 1]
        assert len(chunk) + len(next_line) > window or len(next_line) > window


def test_an_over_long_line_is_cut_on_characters_into_full_windows() -> None:
    doc = "ab\n" + "語" * 25 + "\nz\n"
    chunks = slice_windows(doc, 10)
    assert chunks == ["ab\n", "語" * 10, "語" * 10, "語" * 5 + "\nz\n"]
    assert "".join(chunks) == doc


def test_wide_characters_count_once() -> None:
    doc = "中文中文\n" * 3  # 5 characters a line, 13 bytes
    assert slice_windows(doc, 10) == ["中文中文\n中文中文\n", "中文中文\n"]


def test_pick_is_one_based_and_an_index_past_the_end_is_nothing() -> None:
    chunks = ["a\n", "b\n", "c\n"]
    assert pick(chunks, 1, None) == "a\n"
    assert pick(chunks, 3, None) == "c\n"
    assert pick(chunks, 4, None) is None
    assert pick(chunks, 0, None) is None


def test_a_fixed_fleet_numbers_the_newest_chunks() -> None:
    chunks = ["a", "b", "c", "d", "e"]
    assert [pick(chunks, i, 3) for i in (1, 2, 3, 4)] == ["c", "d", "e", None]
    assert [pick(chunks[:2], i, 3) for i in (1, 2, 3)] == ["a", "b", None]


def test_an_empty_document_has_no_slice() -> None:
    assert slice_windows("", 10) == []
    assert pick([], 1, None) is None
