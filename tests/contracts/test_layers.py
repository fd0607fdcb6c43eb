"""The import boundary (conventions §3.3): nothing below ``cli`` pulls in typer, click or rich.

Each module is imported in a fresh interpreter, so a module that is clean only because
another module was imported first cannot hide behind it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
LAYERS = ("commands", "engines", "live", "seedindex", "core", "model", "disk")
FORBIDDEN = ("typer", "click", "rich")


def _modules() -> list[str]:
    found = []
    for layer in LAYERS:
        for path in sorted((SRC / "pysift" / layer).rglob("*.py")):
            parts = path.relative_to(SRC).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found.append(".".join(parts))
    return found


PROBE = """
import importlib, json, sys
importlib.import_module(sys.argv[1])
roots = {name.split(".")[0] for name in sys.modules}
print(json.dumps(sorted(roots & set(sys.argv[2:]))))
"""


def test_every_layer_has_modules() -> None:
    modules = _modules()
    for layer in LAYERS:
        assert any(m.startswith(f"pysift.{layer}") for m in modules), layer


@pytest.mark.parametrize("module", _modules())
def test_module_imports_no_ui_library(module: str) -> None:
    result = subprocess.run([sys.executable, "-c", PROBE, module, *FORBIDDEN],
                            capture_output=True, text=True, env={"PYTHONPATH": str(SRC)},
                            timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [], f"{module} imports {result.stdout.strip()}"


@pytest.mark.parametrize("module", ["pysift.live.watch", "pysift.commands.status",
                                    "pysift.commands.wait", "pysift.cli.wait"])
def test_live_pair_loads_its_heavy_libraries_only_when_used(module: str) -> None:
    """watchfiles (wait's waker) and psutil (the pid probe) load when a wait or a probe
    runs, not when the modules are imported (``status --help`` pays for neither)."""
    result = subprocess.run([sys.executable, "-c", PROBE, module, "watchfiles", "psutil"],
                            capture_output=True, text=True, env={"PYTHONPATH": str(SRC)},
                            timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [], f"{module} imports {result.stdout.strip()}"
