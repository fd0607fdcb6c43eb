"""Microbenchmark: NeedleSet.find_all_lines over a synthetic 200 MB JSONL buffer.

Not a test. Compares the needle set's whole-buffer passes (RE2 literal, ``regex`` (?i),
combined RE2 alternation, raw + ``\\uXXXX`` spellings) with the plain ``bytes.find``
loop that collects the same line starts, and prints MB/s for each.

    PYTHONPATH=src .venv/bin/python benchmarks/microbench_prefilter.py [--mb 200] [--seed 7]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

import orjson

from pysift.core.matcher import compile_pattern
from pysift.core.prefilter import NeedleSet, line_spans_containing

RARE = "ZQXJ-needle-7731"
WORDS = (
    "the carry holds an incomplete line straddling a chunk boundary so the scan can resume "
    "session tool_use result assistant content message Read Edit Bash stdout stderr "
    "kestrel Kestrel TodoWrite legacy migration café 中文 path/to/file.py control"
).split()


def synthetic_buffer(size_bytes: int, seed: int) -> bytes:
    """JSONL-shaped lines with the corpus's length skew (mostly short, a few huge)."""
    rng = random.Random(seed)
    templates = []
    for index in range(2000):
        length = int(rng.lognormvariate(5.5, 1.2)) + 20
        words = [rng.choice(WORDS) for _ in range(max(1, length // 7))]
        text = " ".join(words)
        if index % 50 == 0:
            text += "\n\tquoted \"value\" with \\ backslash"
        record = {"type": rng.choice(["user", "assistant", "attachment"]), "uuid": f"{index:08x}",
                  "message": {"role": "user", "content": text}}
        templates.append(orjson.dumps(record))
    lines: list[bytes] = []
    total = 0
    while total < size_bytes:
        line = rng.choice(templates)
        lines.append(line)
        total += len(line) + 1
    for fraction in (0.15, 0.55, 0.92):  # three rare hits, like the bench corpus
        at = int(len(lines) * fraction)
        lines[at] = orjson.dumps({"type": "user", "message": {"content": f"x {RARE} y"}})
    return b"\n".join(lines) + b"\n"


def find_loop_lines(buf: bytes, needle: bytes) -> list[int]:
    """The baseline: one ``bytes.find`` pass, one Python step per candidate line."""
    starts = []
    pos, size = 0, len(buf)
    while pos < size:
        hit = buf.find(needle, pos)
        if hit < 0:
            break
        newline = buf.rfind(b"\n", pos, hit)
        starts.append(newline + 1 if newline >= 0 else pos)
        end = buf.find(b"\n", hit)
        pos = size if end < 0 else end + 1
    return starts


def timed(label: str, size: int, run: Callable[[], list[int] | list[tuple[int, int]]],
          repeat: int) -> None:
    times = []
    result: list[int] | list[tuple[int, int]] = []
    for _ in range(repeat):
        started = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - started)
    best = min(times)
    print(f"{label:58s} {len(result):>8} lines  {statistics.median(times) * 1000:8.1f} ms"
          f"  {size / best / 1e6:8.0f} MB/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    started = time.perf_counter()
    buf = synthetic_buffer(args.mb * 1_000_000, args.seed)
    size = len(buf)
    line_count = buf.count(b"\n")
    print(f"buffer: {size / 1e6:.0f} MB, {line_count} lines, "
          f"built in {time.perf_counter() - started:.1f} s\n")

    cases: list[tuple[str, NeedleSet | None, bytes | None]] = [
        ("rare literal (RE2 literal)", NeedleSet([RARE], caseless=False), RARE.encode()),
        ("absent literal", NeedleSet(["ZQXJ-absent-0000"], caseless=False), b"ZQXJ-absent-0000"),
        ("common literal 'TodoWrite'", NeedleSet(["TodoWrite"], caseless=False), b"TodoWrite"),
        ("alternation TodoWrite.*legacy|legacy.*TodoWrite",
         compile_pattern("TodoWrite.*legacy|legacy.*TodoWrite").needles, b"TodoWrite"),
        ("smart-case 'migration' (regex (?i))", compile_pattern("migration").needles, None),
        ("smart-case 'kestrel' -> 'trel' (RE2 (?i))", compile_pattern("kestrel").needles, None),
        ("smart-case absent 'zqxj-absent' (regex (?i))", compile_pattern("zqxj-absent").needles,
         None),
        ("3 absent literals (3 separate passes)",
         NeedleSet(["ZQXJ-absent-0000", "migrationz", "straddlingz"], caseless=False), None),
        ("6 absent literals (one combined RE2 pass)",
         NeedleSet(["ZQXJ-absent-0000", "migrationz", "straddlingz", "carryz", "resumez",
                    "boundaryz"], caseless=False), None),
        ("non-ASCII '中文' (raw + \\u spellings)", NeedleSet(["中文"], caseless=False),
         "中文".encode()),
    ]
    for label, needles, baseline in cases:
        if needles is None:
            print(f"{label}: no needles")
            continue
        timed(f"{label} {list(needles.needles)}", size,
              lambda n=needles: n.find_all_lines(buf), args.repeat)
        if baseline is not None:
            timed("  baseline bytes.find loop", size,
                  lambda b=baseline: find_loop_lines(buf, b), args.repeat)
    timed("line_spans_containing [b'\"role\":\"user\"'] (find)", size,
          lambda: line_spans_containing(buf, [b'"role":"user"']), args.repeat)


if __name__ == "__main__":
    main()
