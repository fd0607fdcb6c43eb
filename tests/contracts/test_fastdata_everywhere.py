"""Every dataclass in pysift is made by ``model.fastdata.dataclass``: the standard
decorator compiles repr/eq/hash for each class, which every command pays at start-up
(see that module). A new module using the standard one would quietly bring it back."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "pysift"
STANDARD = re.compile(r"^from dataclasses import .*\bdataclass\b|@dataclasses\.dataclass\b",
                      re.M)


def test_no_module_uses_the_standard_decorator() -> None:
    offenders = [str(path.relative_to(SRC)) for path in sorted(SRC.rglob("*.py"))
                 if path.name != "fastdata.py" and STANDARD.search(path.read_text("utf-8"))]
    assert offenders == [], f"use pysift.model.fastdata.dataclass in: {offenders}"
