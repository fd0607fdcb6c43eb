"""Pillow is loaded only to extract: a listing (and start-up) never pays for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from importprobe import imported_by

pytestmark = pytest.mark.e2e

def _probe(*args: str) -> str:
    code, loaded = imported_by(args, ("PIL",))
    return f"{code} {bool(loaded)}"


def test_listing_does_not_import_pillow(demo_home: Path) -> None:
    assert _probe("--claude-home", str(demo_home), "image") == "0 False"


def test_extracting_does(demo_home: Path, tmp_path: Path) -> None:
    assert _probe("--claude-home", str(demo_home), "image", "--out", str(tmp_path / "d")) \
        == "0 True"
