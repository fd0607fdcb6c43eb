"""Shared fixtures: a scrubbed environment, hypothesis profiles, the real-corpus path, an
empty builder-made Claude home."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=100, deadline=None)
settings.register_profile(
    "ci", max_examples=300, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

REPO = Path(__file__).resolve().parent.parent
DEMO_HOME = REPO / "fixtures" / "demo-home"
# ../shared sits beside the clone (as in CI); a worktree elsewhere names it explicitly
REAL_HOME = Path(os.environ.get("PYSIFT_REAL_CORPUS") or REPO.parent / "shared" / "corpus" / "real")

SCRUBBED = ("CLAUDE_CONFIG_DIR", "CLAUDE_CODE_SESSION_ID", "CODEX_COMPANION_SESSION_ID",
            "NO_COLOR")


@pytest.fixture(autouse=True)
def _scrub_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test sees the developer's Claude home or session id."""
    for name in SCRUBBED:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TZ", "Australia/Sydney")
    time.tzset()


@pytest.fixture
def demo_home() -> Path:
    return DEMO_HOME


@pytest.fixture
def real_home() -> Path:
    if not (REAL_HOME / "projects").is_dir():
        pytest.skip("the real corpus (../shared/corpus/real) is not present")
    return REAL_HOME


@pytest.fixture
def cli():
    """Run ``pysift`` in-process: ``cli("list", "--claude-home", h) -> CliResult``."""
    from clirun import run_cli

    return run_cli


@pytest.fixture
def home(tmp_path: Path):  # type: ignore[no-untyped-def]
    """An empty Claude home under tmp_path, filled by the test with tests/builders.py
    (a module that sets up its own ``home`` overrides this one)."""
    from builders import ClaudeHome

    return ClaudeHome(tmp_path / "claude")
