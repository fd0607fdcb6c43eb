"""Shared fixtures and helpers: a scrubbed environment, hypothesis profiles, the demo home
(its path, a writable copy, the ids tests name), the real-corpus path, an empty
builder-made Claude home, a file's physical lines. Test modules import the constants and
helpers with ``from conftest import …``."""

from __future__ import annotations

import os
import shutil
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
# (PYSIFT_REAL_HOME is the older spelling of the same override)
REAL_HOME = Path(os.environ.get("PYSIFT_REAL_CORPUS") or os.environ.get("PYSIFT_REAL_HOME")
                 or REPO.parent / "shared" / "corpus" / "real")

# The demo home's ids the tests name (scripts/make_demo_home.py spells the same values;
# tests/test_builders.py checks that they agree).
LONG = "3f6c1e2a-8b4d-4c7e-9a15-2d8e0b7f4c61"  # orbit's long session: subagents, a
# workflow, a pending question (elicitation sidecar), a bound plan
SHORT = "7a2d9c4e-1f3b-4e6a-8c5d-9b0e2f4a6c83"  # orbit's short session
CLONE = "c9e4b7a1-5d2f-4a8c-b3e6-1f7d0a9c2e54"  # a /fork clone of LONG
LEDGER = "5b8e2f6a-3c1d-4f9b-a7e2-8d4c6b0f1a97"  # the ledger_app project's session
WINDOWS = "e2a7c5d9-6b3f-4d1e-8f4a-7c9b2e0d5a18"  # a session recorded on Windows
EXPLORE = "a4f1c9e27b3d8a605"  # LONG's Explore subagent
REVIEW = "a9b2e7d40c6f1a385"  # LONG's review subagent
GREENWICH = "a2c8e5f13d9b7a046"  # LONG's workflow agents
SVALBARD = "a6e0d3b8f2c4a7195"

SCRUBBED = ("CLAUDE_CONFIG_DIR", "CLAUDE_CODE_SESSION_ID", "CODEX_COMPANION_SESSION_ID",
            "NO_COLOR", "PYSIFT_ARCHIVE", "PYSIFT_CACHE_DIR", "PYSIFT_NO_CACHE",
            "PYSIFT_CACHE_SETTLE_MS", "XDG_CACHE_HOME")


@pytest.fixture(autouse=True)
def _scrub_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test sees the developer's Claude home, session id or cache (the cache is on, in
    the test's own HOME)."""
    for name in SCRUBBED:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    # the cleanup notice depends on the files' ages (a checkout's mtimes): off, so a
    # fixture's answer does not change as the checkout ages; its own tests turn it on
    monkeypatch.setenv("PYSIFT_CLEANUP_NOTICE_DAYS", "0")
    monkeypatch.setenv("TZ", "Australia/Sydney")
    time.tzset()


@pytest.fixture
def demo_home() -> Path:
    return DEMO_HOME


@pytest.fixture
def demo_copy(tmp_path: Path) -> Path:
    """A writable copy of the demo home (for a test that adds or breaks a side file)."""
    home = tmp_path / "claude"
    shutil.copytree(DEMO_HOME, home, symlinks=True)
    return home


def physical_lines(path: Path) -> list[bytes]:
    """The file's lines as stored, without their newline (the last may be torn, no newline)."""
    data = path.read_bytes()
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    return lines


@pytest.fixture
def real_home() -> Path:
    if not (REAL_HOME / "projects").is_dir():
        pytest.skip("the real corpus (../shared/corpus/real) is not present")
    return REAL_HOME


def lock(monkeypatch: pytest.MonkeyPatch, locked: Path) -> None:
    """Opening ``locked`` fails with EACCES (the file is listed, its bytes are not read;
    a mode-0 file would still be readable to root)."""
    import errno

    real_open = os.open

    def guarded(path, flags, *a, **kw):  # type: ignore[no-untyped-def]
        if os.fspath(path) == os.fspath(locked):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_open(path, flags, *a, **kw)

    monkeypatch.setattr(os, "open", guarded)


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
