"""Run a per-file function over many files, results in input order.

Small batches run in-process (a pool costs ~50 ms to start); larger ones fan out over a
fork-started process pool, one worker per core, in chunks so the pickling stays cheap.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

POOL_MIN_ITEMS = 48
_IN_WORKER = False


def in_worker() -> bool:
    """True inside a pool worker: no nested pools (the cores are already taken)."""
    return _IN_WORKER


def _mark_worker() -> None:
    global _IN_WORKER
    _IN_WORKER = True


def cpu_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


def map_ordered(fn: Callable[[T], R], items: Sequence[T], workers: int | None = None,
                min_items: int = POOL_MIN_ITEMS, weights: Sequence[int] | None = None) -> list[R]:
    """``[fn(item) for item in items]``, over a process pool when it pays.

    Items go to the workers in a few batches (one task per batch, so thousands of small
    files cost a handful of round trips); with ``weights`` (e.g. file sizes) the batches
    are balanced heaviest-first, so one 90 MB transcript does not leave a worker idle.
    """
    n = cpu_workers() if workers is None else workers
    if n <= 1 or len(items) < min_items or _IN_WORKER:
        return [fn(item) for item in items]
    import heapq
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    try:
        context = multiprocessing.get_context("fork")
    except ValueError:  # pragma: no cover - platforms without fork
        context = multiprocessing.get_context()
    batch_count = min(len(items), n * 4)
    weight = (lambda i: weights[i]) if weights is not None else (lambda i: 1)
    order = sorted(range(len(items)), key=lambda i: -weight(i))
    loads = [(0, b) for b in range(batch_count)]
    batches: list[list[int]] = [[] for _ in range(batch_count)]
    for i in order:  # longest-processing-time first onto the lightest batch
        load, b = heapq.heappop(loads)
        batches[b].append(i)
        heapq.heappush(loads, (load + max(1, weight(i)), b))
    batches = [b for b in batches if b]
    batches.sort(key=lambda b: -sum(weight(i) for i in b))
    global _BATCH_FN
    _BATCH_FN = fn
    try:
        with ProcessPoolExecutor(max_workers=min(n, len(batches)), mp_context=context,
                                 initializer=_mark_worker) as pool:
            results = list(pool.map(_run_batch, [[(i, items[i]) for i in b] for b in batches]))
    finally:
        _BATCH_FN = None
    out: list[R] = [None] * len(items)  # type: ignore[list-item]
    for batch in results:
        for i, result in batch:
            out[i] = result
    return out


_BATCH_FN: Callable | None = None  # type: ignore[type-arg]  # inherited by the forked workers


def _run_batch(batch: list[tuple[int, T]]) -> list[tuple[int, R]]:
    fn = _BATCH_FN
    assert fn is not None
    return [(i, fn(item)) for i, item in batch]
