"""Pillow is loaded only to extract: a listing (and start-up) never pays for it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
PROBE = """
import io, sys
sys.stdout = io.StringIO()
from pysift.cli.app import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
sys.stdout = sys.__stdout__
print(code, "PIL" in sys.modules)
"""


def _probe(*args: str) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True,
                          env={"PYTHONPATH": str(REPO / "src"), "TZ": "UTC", "HOME": "/nonexistent"},
                          timeout=60, check=False)
    return done.stdout.strip()


def test_listing_does_not_import_pillow(demo_home: Path) -> None:
    assert _probe("--claude-home", str(demo_home), "image") == "0 False"


def test_extracting_does(demo_home: Path, tmp_path: Path) -> None:
    assert _probe("--claude-home", str(demo_home), "image", "--out", str(tmp_path / "d")) \
        == "0 True"
