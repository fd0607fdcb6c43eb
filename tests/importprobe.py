"""Which modules a pysift run imports: the run in a fresh interpreter (the test process has
imported everything already), stdout swallowed, the exit code and the names asked about
that ended up in ``sys.modules`` reported back."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
_DRIVER = """
import io, sys
names = sys.argv[1].split(",")
sys.stdout = io.StringIO()
from pysift.cli.dispatch import main
try:
    main(sys.argv[2:])
except SystemExit as exc:
    code = exc.code
sys.stdout = sys.__stdout__
print(code, *[name for name in names if name in sys.modules])
"""


def imported_by(args: tuple[str, ...], names: tuple[str, ...]) -> tuple[str, list[str]]:
    """The exit code of ``pysift ARGS`` and which of ``names`` it imported, in their order."""
    done = subprocess.run([sys.executable, "-c", _DRIVER, ",".join(names), *args],
                          capture_output=True, text=True,
                          env={"PYTHONPATH": str(REPO / "src"), "TZ": "UTC",
                               "HOME": "/nonexistent", "PYSIFT_NO_CACHE": "1"},
                          timeout=60, check=False)
    code, *loaded = done.stdout.split() or ["<no output: " + done.stderr.strip()[-200:] + ">"]
    return code, loaded
