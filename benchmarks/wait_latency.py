#!/usr/bin/env python3
"""`pysift wait`: how soon a condition fires after its line lands, and what a quiet wait costs.

Builds a throw-away Claude home (a temp dir) holding one session that is RUNNING (an open
Bash call; a registry row naming this script's own live process, status busy), so that
`--until stop` never fires on its own. Then:

1. latency: N times, start `pysift wait @S --until tool:Bash:<marker> --until stop
   --timeout 30 --format json`, wait for its readiness line on stderr, let it settle
   (0.3 s), append one assistant record calling Bash with the marker, and time from the
   append to the wait process's exit (so the figure includes building and printing the
   report and the process exit: an upper bound of the detection latency);
2. quiet cost: one wait on the same session with nothing landing, its CPU time (user +
   system, from the kernel's per-process accounting) over a 10 s window after its
   readiness line.

Usage: python benchmarks/wait_latency.py [--trials 15] [--quiet-seconds 10]
Prints one JSON object (medians, maxima, CPU %) and a short table. Nothing is written
outside the temp dir it removes at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from builders import ClaudeHome, Session, assistant, to_line, tool_use, user

SID = "5e1f0c2a-7b3d-4e8f-9a61-2c4d6e8f0a13"
CWD = "/home/bench/project"


def launcher() -> list[str]:
    script = REPO / ".venv" / "bin" / "pysift"
    return [str(script)] if script.exists() else [sys.executable, "-m", "pysift"]


def env() -> dict[str, str]:
    out = dict(os.environ)
    out.pop("PYTHONDONTWRITEBYTECODE", None)
    out["PYTHONPYCACHEPREFIX"] = str(REPO / "benchmarks" / "data" / "pycache")
    out["PYTHONPATH"] = str(REPO / "src")
    return out


def make_home(root: Path) -> tuple[ClaudeHome, Session, Path]:
    home = ClaudeHome(root)
    s = Session(SID, cwd=CWD, start=datetime.now(UTC).replace(microsecond=0))
    s.add(user("build it"))
    s.add(assistant(tool_use("Bash", {"command": "make -j8"}, id="toolu_build")))
    path = home.session(CWD, SID, s)
    me = psutil.Process()
    started = datetime.fromtimestamp(me.create_time(), UTC).strftime("%a %b %d %H:%M:%S %Y")
    home.registry_row(os.getpid(), SID, "busy", procStart=started)
    return home, s, path


def start_wait(home: ClaudeHome, *until: str, timeout: int = 30) -> subprocess.Popen[bytes]:
    args = [*launcher(), "--claude-home", str(home.root), "wait", f"@{SID}"]
    for cond in until:
        args += ["--until", cond]
    args += ["--timeout", str(timeout), "--format", "json"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env())
    assert proc.stderr is not None
    while True:
        line = proc.stderr.readline().decode()
        if not line:
            raise SystemExit(f"wait ended before its readiness line: {proc.communicate()}")
        if "watching" in line:
            return proc


def latency(home: ClaudeHome, s: Session, path: Path, trials: int) -> list[float]:
    out: list[float] = []
    for i in range(trials):
        marker = f"marker-{i}"
        proc = start_wait(home, f"tool:Bash:{marker}", "stop")
        time.sleep(0.3)
        line = to_line(s.stamp(assistant(tool_use("Bash", {"command": f"echo {marker}"},
                                                  id=f"toolu_m{i}"))))
        t0 = time.perf_counter()
        with path.open("ab") as fh:
            fh.write(line)
        out_bytes, err = proc.communicate(timeout=60)
        t1 = time.perf_counter()
        fired = json.loads(out_bytes)["fired"]
        if fired != f"tool:Bash:{marker}":
            raise SystemExit(f"trial {i}: fired {fired!r}: {err.decode()}")
        out.append(t1 - t0)
    return out


def quiet_cpu(home: ClaudeHome, seconds: float) -> dict[str, float]:
    proc = start_wait(home, "stop", timeout=int(seconds) + 6)
    watched = psutil.Process(proc.pid)
    time.sleep(1.0)  # past the start-up and the baseline
    before = watched.cpu_times()
    t0 = time.perf_counter()
    time.sleep(seconds)
    after = watched.cpu_times()
    wall = time.perf_counter() - t0
    proc.kill()
    proc.communicate()
    cpu = (after.user - before.user) + (after.system - before.system)
    return {"window_s": round(wall, 2), "cpu_s": round(cpu, 4),
            "cpu_percent": round(100 * cpu / wall, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=15)
    parser.add_argument("--quiet-seconds", type=float, default=10.0)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="pysift-wait-bench-"))
    try:
        home, s, path = make_home(root / "claude")
        times = latency(home, s, path, args.trials)
        quiet = quiet_cpu(home, args.quiet_seconds)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    ms = sorted(t * 1000 for t in times)
    result = {
        "trials": len(ms), "latency_ms_median": round(statistics.median(ms), 1),
        "latency_ms_min": round(ms[0], 1), "latency_ms_max": round(ms[-1], 1),
        "latency_ms_p90": round(ms[int(0.9 * (len(ms) - 1))], 1),
        "quiet": quiet, "load": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }
    print(json.dumps(result))
    print(f"latency append -> wait exited: median {result['latency_ms_median']} ms, "
          f"min {result['latency_ms_min']}, p90 {result['latency_ms_p90']}, "
          f"max {result['latency_ms_max']} ms over {len(ms)} trials", file=sys.stderr)
    print(f"quiet wait: {quiet['cpu_s']} s CPU over {quiet['window_s']} s = "
          f"{quiet['cpu_percent']}%", file=sys.stderr)


if __name__ == "__main__":
    main()
