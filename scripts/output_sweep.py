#!/usr/bin/env python3
"""Run a fixed sweep of pysift command lines over a Claude home and keep every answer.

A refactor that must not change behaviour is checked by running this before and after
and comparing the two directories (``diff -r BEFORE AFTER``). Each case writes its argv,
stdout, stderr and exit status; the case list is derived from the home's files (never
from pysift's own output, so a regression cannot hide by changing the case list).

    python scripts/output_sweep.py --home ../shared/corpus/real --out /tmp/sweep-before
    python scripts/output_sweep.py --home fixtures/demo-home --out /tmp/sweep-demo

The time zone is pinned (TZ) so local timestamps do not depend on the machine. Cases run
on a thread pool (each one is its own ``python -m pysift`` process).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

PATTERNS = ["error", "TODO", "import", "kestrel", "the", "Traceback|Exception", r"\bfix\w*",
            "(?i)readme", "[0-9]{4}-[0-9]{2}", "ZZZ-not-anywhere-ZZZ", "日本", "→", "\\$HOME"]
SELECTORS = ["user", "agent", "harness", "user.message", "agent.tool.use", "agent.tool.result",
             "agent.thinking", "harness.*", "agent.communication", "user.answer"]


def sessions(home: Path) -> tuple[list[Path], list[Path]]:
    """Top-level transcripts and subagent transcripts of the home, in path order."""
    top = sorted(home.glob("projects/*/*.jsonl"))
    sub = sorted(p for p in home.glob("projects/*/*/subagents/**/*.jsonl")
                 if p.name != "journal.jsonl")
    return top, sub


def cases(home: Path, per_session: int) -> list[list[str]]:
    top, sub = sessions(home)
    out: list[list[str]] = []
    add = out.append
    for fmt in ([], ["--format", "json"]):
        add(["list", *fmt])
        add(["list", "--max-count", "0", *fmt])
        add(["list", "--no-subagents", *fmt])
        add(["list", "--since", "2025-01-01", "--until", "2026-06-30", *fmt])
        add(["stats", *fmt])
        add(["stats", "--no-subagents", "--max-count", "5", *fmt])
        add(["stats", "--turn", "1..3", *fmt])
        add(["plan", "--audit", *fmt])
    for pat in PATTERNS:
        add(["search", pat])
        add(["search", pat, "-c"])
        add(["search", pat, "--format", "json", "--max-count", "20"])
        add(["search", pat, "-i", "-l"])
    for sel in SELECTORS:
        add(["search", "", "-t", sel, "-c"])
        add(["search", "error", "-t", sel, "--max-count", "10"])
    for axis in ("label", "tool", "turn", "session", "pairing", "model", "attachment"):
        add(["search", "", "--count-by", axis])
        add(["search", "error", "--count-by", axis, "--format", "json"])
    add(["search", "error", "--siblings", "--max-count", "5"])
    add(["search", "error", "--attachments", "--additional-context", "-c"])
    add(["search", "error", "--resolve-persisted", "-c"])
    add(["search", "-t", "usr", "x"])
    add(["search", "--since", "2026-01-01", "the", "-c"])
    step = max(1, len(top) // per_session) if per_session else 1
    for path in top[::step]:
        rel = str(path)
        add(["show", rel, "--turn", "1"])
        add(["show", rel, "--turn", "-1", "--format", "json"])
        add(["show", rel, "--line", "1..4"])
        add(["show", rel, "--line", "3", "--raw"])
        add(["show", rel, "--branch-points"])
        add(["stats", rel, "--format", "json"])
        add(["search", "", rel, "-t", "user.message"])
        add(["search", "the", rel, "--format", "json", "--siblings"])
        add(["plan", rel])
        add(["list", rel, "--format", "json"])
    for path in sub[::max(1, len(sub) // max(1, per_session // 2 or 1))]:
        add(["show", str(path), "--turn", "0..2"])
        add(["stats", str(path)])
    return out


def run_case(argv: list[str], home: Path, src: Path, python: str,
             cache: Path | None = None) -> tuple[str, bytes, bytes, int]:
    env = dict(os.environ)
    env.update({"TZ": "Australia/Sydney", "PYTHONPATH": str(src), "NO_COLOR": "1",
                "CLAUDE_CONFIG_DIR": str(home), "PYSIFT_NO_CACHE": "1"})
    if cache is not None:  # the cache in use: cold on an empty dir, warm on a second run
        env.pop("PYSIFT_NO_CACHE")
        env["PYSIFT_CACHE_DIR"] = str(cache)
    env.pop("CLAUDE_CODE_SESSION_ID", None)
    full = [python, "-m", "pysift", "--claude-home", str(home), *argv]
    try:
        proc = subprocess.run(full, capture_output=True, env=env, timeout=120, cwd=str(home))
        return " ".join(argv), proc.stdout, proc.stderr, proc.returncode
    except subprocess.TimeoutExpired:
        return " ".join(argv), b"", b"TIMEOUT\n", -1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--src", type=Path, default=REPO / "src", help="the pysift source to run")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--per-session", type=int, default=40,
                    help="about how many top-level sessions get the per-session cases")
    ap.add_argument("--cache", type=Path, default=None,
                    help="run with the cache in this dir (default: PYSIFT_NO_CACHE=1); run "
                    "twice on one dir for a cold then a warm sweep")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()
    home = args.home.resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    todo = cases(home, args.per_session)
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda a: run_case(a, home, args.src.resolve(), args.python,
                                                args.cache.resolve() if args.cache else None), todo))
    index = []
    for i, (cmd, out, err, rc) in enumerate(results):
        name = f"{i:04d}"
        (args.out / f"{name}.out").write_bytes(out.replace(str(home).encode(), b"$HOME_UNDER_TEST"))
        (args.out / f"{name}.err").write_bytes(err.replace(str(home).encode(), b"$HOME_UNDER_TEST"))
        index.append(f"{name} rc={rc} {cmd.replace(str(home), '$HOME_UNDER_TEST')}")
    (args.out / "INDEX").write_text("\n".join(index) + "\n")
    digest = hashlib.sha256()
    for p in sorted(args.out.iterdir()):
        digest.update(p.name.encode() + p.read_bytes())
    print(f"{len(todo)} cases -> {args.out} (sha256 {digest.hexdigest()[:16]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
