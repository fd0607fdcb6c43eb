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

    ``weights`` (e.g. file sizes) let the pool start the heaviest items first, in small
    chunks, so one 90 MB transcript does not leave a worker idle at the end.
    """
    n = cpu_workers() if workers is None else workers
    if n <= 1 or len(items) < min_items or _IN_WORKER:
        return [fn(item) for item in items]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    try:
        context = multiprocessing.get_context("fork")
    except ValueError:  # pragma: no cover - platforms without fork
        context = multiprocessing.get_context()
    order = list(range(len(items)))
    if weights is not None:
        order.sort(key=lambda i: -weights[i])
    chunk = max(1, min(16, len(items) // (n * 8)))
    with ProcessPoolExecutor(max_workers=min(n, len(items)), mp_context=context,
                             initializer=_mark_worker) as pool:
        results = list(pool.map(fn, [items[i] for i in order], chunksize=chunk))
    out: list[R] = [None] * len(items)  # type: ignore[list-item]
    for i, result in zip(order, results):
        out[i] = result
    return out
