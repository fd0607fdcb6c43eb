"""listing_read's key walks (SIMD search over the buffer, both ways) give the lines and
carrier verdicts of the ``find``-based walks they replace, on every line of the demo home,
the real corpus and the hand-made shapes of the key scan's tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pysift.core.rawjson import iter_key_lines, iter_key_lines_backward, layouts, type_needles
from pysift.engines.listing_read import (
    _human_candidates_backward,
    _human_candidates_forward,
    _Lines,
)
from unit.core.test_keyscan import _soup, find_walk, key_confusion_rows, rows
from unit.core.test_turns import compact, spaced


def agree(buf: bytes) -> int:
    """Both backward walks of ``buf`` against their references; the user lines seen."""
    found = layouts(buf)
    lines = _Lines(buf)
    reference = find_walk(buf)
    humans = [(s, e) for s, e, carrier in reference if not carrier]
    assert list(_human_candidates_forward(lines, found)) == humans
    assert list(_human_candidates_backward(lines, found)) == humans[::-1]
    agents = type_needles(buf, "assistant", found)
    assert (list(iter_key_lines_backward(buf, agents, search=lines.sz.rfind))
            == list(iter_key_lines_backward(buf, agents, search=buf.rfind)))
    assert (list(iter_key_lines(buf, agents, search=lines.sz.find))
            == list(iter_key_lines(buf, agents, search=buf.find)))
    lines.close()
    return len(reference)


def _transcripts(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.jsonl"))


def test_the_backward_walks_agree_on_the_demo_home(demo_home) -> None:  # type: ignore[no-untyped-def]
    assert sum(agree(p.read_bytes()) for p in _transcripts(demo_home / "projects")) >= 150


@pytest.mark.real
def test_the_backward_walks_agree_on_the_real_corpus(real_home) -> None:  # type: ignore[no-untyped-def]
    assert sum(agree(p.read_bytes()) for p in _transcripts(real_home / "projects")) >= 3_900


def test_nested_keys_answers_and_both_layouts() -> None:
    """A subtype is no key, a nested user object is no carrier of its own, a rejection in
    a line's second block is no plain carrier, and a file in both layouts is walked in
    both spellings."""
    rows = key_confusion_rows()
    for serialize in (compact, spaced):
        assert agree(serialize(rows)) == 5
    assert agree(compact(rows) + spaced(rows) + compact(rows) + spaced(rows[:3])) == 16


@settings(max_examples=150, deadline=None)
@given(rows(), st.sampled_from([compact, spaced, "mixed"]), st.integers(0, 40))
def test_prop_the_listing_walks_are_the_find_walk(records, serialize, cut) -> None:  # type: ignore[no-untyped-def]
    """Generated transcripts (carriers with answers and rejections, nested keys, both
    layouts, a torn last line): the one-layout backward walk, inline, and the walk of a
    file in both layouts give the find walk's lines."""
    if serialize == "mixed":
        buf = b"".join((compact if i % 2 else spaced)([r]) for i, r in enumerate(records))
    else:
        buf = serialize(records)
    agree(buf[:len(buf) - cut] if cut < len(buf) else buf)


@settings(max_examples=300, deadline=None)
@given(st.lists(_soup, max_size=40))
def test_prop_junk_bytes_walk_back_as_the_find_walk(parts) -> None:  # type: ignore[no-untyped-def]
    """Keys glued to each other, a key with no object around it, a torn line."""
    agree(b"".join(parts))


def test_an_answer_in_a_later_block_far_from_the_first_is_seen_walking_back() -> None:
    """A carrier whose second tool_result is a rejection, behind a first result longer
    than the window searched around a key: every block key of the line is looked at, so
    the line is no plain carrier (a human's words may follow the rejection)."""
    rejection = {"type": "tool_result", "tool_use_id": "b", "is_error": True,
                 "content": "The user doesn't want to proceed with this tool use."}
    carrier = {"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "a", "content": "x" * 3000}, rejection]}}
    plain = {"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "c", "content": "ok"}]}}
    for serialize in (compact, spaced):
        buf = serialize([plain, carrier, plain])
        assert agree(buf) == 3
        lines = _Lines(buf)
        assert len(list(_human_candidates_backward(lines, layouts(buf)))) == 1
        lines.close()
