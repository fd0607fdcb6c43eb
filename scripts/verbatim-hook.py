#!/usr/bin/env python3
"""A Claude Code SessionStart(compact) hook: re-inject the turns a compaction clipped.

Register it K times, once per slice (the README has the settings.json block):

    verbatim-hook.py N [K] [WINDOW]      N = this hook's slice (1..K), K = the fleet
                                         (default 4), WINDOW = characters (default 9000)

Claude Code caps what one SessionStart hook injects at 10,000 characters, so the
reconstruction (`pysift verbatim --slices K --window WINDOW`) is cut into K slices of
whole lines, one per hook; a slice and the one-line preamble before it stay under the
cap (WINDOW at most about 9,800). The hooks of one event run at the same time and their outputs
are joined in the order they FINISH; so slice N waits (at most WAIT_S seconds) for slice
N-1 to be done (a fresh flag file per session in the temp dir) before it prints, and the
slices arrive in order. A slice past the end of the reconstruction prints nothing.

The hook fails open: whatever goes wrong (no pysift, no transcript, a timeout), it prints
nothing and exits 0, so a session always starts. pysift is `$PYSIFT`, else the `pysift`
beside this Python, else the one on PATH.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WAIT_S = float(os.environ.get("PYSIFT_HOOK_WAIT_S") or 5.0)  # for slice N-1, at most
RUN_S = 20.0
FRESH_S = 60.0  # a done flag older than this belongs to an earlier compaction
CAP = 10_000  # characters Claude Code injects from one SessionStart hook
PREAMBLE = ("Verbatim turns the compaction summary clipped (pysift verbatim, part {n} of "
            "{k}; a supplement: the summary still owns the task state; Lnnnn is the "
            "transcript line each unit quotes):\n")


def _pysift() -> str | None:
    named = os.environ.get("PYSIFT")
    if named:
        return named
    beside = Path(sys.executable).with_name("pysift")
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("pysift")


def _args(argv: list[str]) -> tuple[int, int, int]:
    n = int(argv[1])
    k = int(argv[2]) if len(argv) > 2 else 4
    window = int(argv[3]) if len(argv) > 3 else 9000
    # pysift refuses a window under 200 (a unit's header alone runs to ~80 characters)
    if not 1 <= n <= k or not 200 <= window <= CAP - len(PREAMBLE) - 8:
        raise ValueError("slice out of range")
    return n, k, window


def _chunk(event: dict, n: int, k: int, window: int) -> str:  # type: ignore[type-arg]
    if event.get("source", "compact") != "compact":
        return ""  # the matcher already says so; a second check costs nothing
    tool = _pysift()
    path = event.get("transcript_path")
    if tool is None or not isinstance(path, str) or not path.endswith(".jsonl"):
        return ""
    home = Path(path).resolve().parents[2]  # <home>/projects/<project>/<session>.jsonl
    done = subprocess.run(
        [tool, "--claude-home", str(home), "verbatim", path, "--window", str(window),
         "--slices", str(k), "--slice", str(n)],
        capture_output=True, timeout=RUN_S, check=False)
    if done.returncode != 0 or not done.stdout:
        return ""
    return PREAMBLE.format(n=n, k=k) + done.stdout.decode("utf-8", "replace")


def _fresh(flag: Path) -> bool:
    try:
        return time.time() - flag.stat().st_mtime < FRESH_S
    except OSError:
        return False


def main(argv: list[str]) -> int:
    try:
        n, k, window = _args(argv)
        event = json.loads(sys.stdin.read() or "{}")
    except (ValueError, IndexError):
        return 0
    session = "".join(c for c in str(event.get("session_id") or "unknown")
                      if c.isalnum() or c == "-")
    flags = Path(tempfile.gettempdir()) / f"pysift-verbatim-hook-{session}"
    try:
        flags.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + WAIT_S
        while n > 1 and not _fresh(flags / f"done-{n - 1}") and time.monotonic() < deadline:
            time.sleep(0.05)
        text = _chunk(event, n, k, window)
        if text:
            sys.stdout.write(text)
            sys.stdout.flush()
    except Exception:  # noqa: BLE001 - a hook must never keep a session from starting
        pass
    finally:
        try:
            (flags / f"done-{n}").touch()
            if n == k:  # the fleet is through: leave nothing behind
                shutil.rmtree(flags, ignore_errors=True)
        except OSError:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
