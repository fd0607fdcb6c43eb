"""A search whose needles find no line pays only for the needle pass: the classifier,
the pairing, the turn grouping, the exchange assembly and the zero-match re-read are
imported where a candidate line is read, never before."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import one_exchange_home
from importprobe import imported_by

pytestmark = pytest.mark.e2e

LAZY = ("pysift.core.classify", "pysift.core.pairing", "pysift.core.turns",
        "pysift.core.topology", "pysift.core.image_handles", "pysift.engines.search.exchanges",
        "pysift.engines.search.unseen")
DEFERRED = ("pysift.core.classify pysift.core.pairing pysift.core.turns "
            "pysift.core.image_handles pysift.engines.search.exchanges")


def _probe(*args: str) -> str:
    code, loaded = imported_by(args, LAZY)
    return f"{code} {' '.join(loaded) or '-'}"


def _home(tmp_path: Path) -> Path:
    return one_exchange_home(tmp_path / "claude", "imports-" + tmp_path.name)


def test_a_search_without_a_candidate_line_loads_none_of_them(tmp_path: Path) -> None:
    root = str(_home(tmp_path))
    assert _probe("--claude-home", root, "search", "ZQXJ-absent-0000", "-c") == "0 -"
    assert _probe("--claude-home", root, "search", "ZQXJ-absent-0000") == "0 -"


def test_a_search_with_hits_loads_what_it_reads(tmp_path: Path) -> None:
    """The probe sees the modules when a line is read (the test above can fail)."""
    assert _probe("--claude-home", str(_home(tmp_path)), "search", "README", "-c") \
        == f"0 {DEFERRED}"
