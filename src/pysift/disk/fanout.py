"""Run a per-file function over many files, results in input order.

Small batches run in-process. Larger ones are split into one share per core, balanced by
weight (file size), heaviest first: the parent works its own share while forked children
work theirs and send their results back through a pipe (one pickle each). A fork costs a
millisecond; a process pool's queues and threads cost tens, which a 0.5 s search notices.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

POOL_MIN_ITEMS = 48
_IN_WORKER = False


def in_worker() -> bool:
    """True inside a pool worker: no nested pools (the cores are already taken)."""
    return _IN_WORKER


def cpu_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


def map_ordered(fn: Callable[[T], R], items: Sequence[T], workers: int | None = None,
                min_items: int = POOL_MIN_ITEMS, weights: Sequence[int] | None = None) -> list[R]:
    """``[fn(item) for item in items]``, spread over the cores when it pays."""
    n = cpu_workers() if workers is None else workers
    if n <= 1 or len(items) < min_items or _IN_WORKER or not hasattr(os, "fork"):
        return [fn(item) for item in items]
    shares = _balanced_shares(len(items), min(n, len(items)), weights)
    return _fork_map(fn, items, shares)


def _balanced_shares(count: int, n: int, weights: Sequence[int] | None) -> list[list[int]]:
    """Indices split into ``n`` shares by longest-processing-time-first on ``weights``."""
    import heapq

    weight = (lambda i: weights[i]) if weights is not None else (lambda i: 1)
    order = sorted(range(count), key=lambda i: -weight(i))
    loads = [(0, s) for s in range(n)]
    shares: list[list[int]] = [[] for _ in range(n)]
    for i in order:
        load, s = heapq.heappop(loads)
        shares[s].append(i)
        heapq.heappush(loads, (load + max(1, weight(i)), s))
    return [share for share in shares if share]


def _fork_map(fn: Callable[[T], R], items: Sequence[T], shares: list[list[int]]) -> list[R]:
    global _IN_WORKER
    children: list[tuple[int, int]] = []  # (pid, read end)
    for share in shares[1:]:
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: work its share, send one pickle, leave without cleanup
            os.close(read_fd)
            status = 0
            try:
                _IN_WORKER = True
                payload = pickle.dumps(("ok", [(i, fn(items[i])) for i in share]),
                                       protocol=pickle.HIGHEST_PROTOCOL)
            except BaseException as exc:  # noqa: BLE001 - handed to the parent to raise
                status = 1
                payload = pickle.dumps(("error", repr(exc)))
            try:
                with os.fdopen(write_fd, "wb") as out:
                    out.write(payload)
            finally:
                os._exit(status)
        os.close(write_fd)
        children.append((pid, read_fd))
    out: list[R] = [None] * len(items)  # type: ignore[list-item]
    _IN_WORKER = True  # the parent's share holds a core too: no nested split inside it
    try:
        for i in shares[0]:  # the parent's own share, while the children work theirs
            out[i] = fn(items[i])
    finally:
        _IN_WORKER = False
        results = [_collect(pid, read_fd) for pid, read_fd in children]
    for kind, body in results:
        if kind != "ok":
            raise RuntimeError(f"a worker process failed: {body}")
        for i, result in body:
            out[i] = result
    return out


def _collect(pid: int, read_fd: int) -> tuple[str, object]:
    with os.fdopen(read_fd, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    if not data:
        return "error", "the worker exited without a result"
    return pickle.loads(data)  # type: ignore[no-any-return]
