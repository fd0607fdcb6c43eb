"""The end of a generator script (``gen_fastspec.py``, ``gen_dataclass_inits.py``): write
the generated file, or with ``--check`` say whether the one in the tree is current (the
tests run the check; a stale file names the command that renews it)."""

from __future__ import annotations

import sys
from pathlib import Path


def write_or_check(target: Path, text: str, script: str, what: str = "") -> int:
    """Exit status of the generator: 0 written or current, 1 stale under ``--check``."""
    if "--check" in sys.argv[1:]:
        current = target.read_text(encoding="utf-8") if target.exists() else ""
        if current != text:
            print(f"{target} is out of date: run python scripts/{script}", file=sys.stderr)
            return 1
        return 0
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target}{f' ({what})' if what else ''}")
    return 0
