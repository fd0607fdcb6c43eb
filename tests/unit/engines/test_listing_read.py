"""listing_read's key walks (SIMD search over the buffer, both ways) give the lines and
carrier verdicts of the ``find``-based walks they replace, on every line of the demo home,
the real corpus and the hand-made shapes of the key scan's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from pysift.core.rawjson import iter_key_lines, iter_key_lines_backward, layouts, type_needles
from pysift.engines.listing_read import (
    _human_candidates_backward,
    _human_candidates_forward,
    _Lines,
)
from unit.core.test_keyscan import find_walk, key_confusion_rows
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
