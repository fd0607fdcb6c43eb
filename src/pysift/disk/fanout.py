"""Run a per-file function over many files, results in input order.

Small batches run in-process. Larger ones are spread over one process per core: the parent
forks the children, then every process (the parent too) takes the next piece of work from
a shared queue until it is empty, heaviest files first. The queue is a pipe pre-filled
with 4-byte tokens; a read of 4 bytes takes exactly one token, and the kernel never hands
the same token to two readers. Pulling work instead of splitting it up front keeps both
cores busy to the end even when one of them is slowed by something else on the machine
(a static split measured 80-110 ms of one process idling on a shared VM). Children send
their results back through a pipe (one pickle each). A fork costs a millisecond; a
process pool's queues and threads cost tens, which a 0.5 s search notices.

What every call needs besides its item (a search plan with compiled regexes, a mapped
buffer) is passed as ``shared``: each process holds it once (a forked child inherits the
parent's object; nothing is pickled on the way out) and ``fn`` receives it as its first
argument. No module state crosses a fork. A process never nests a pool by itself: the
caller decides with ``processes`` how many a batch runs on, and tells the per-item work
how many cores it may use in turn (one, inside a spread batch).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar, overload

if TYPE_CHECKING:
    from pysift.disk.lines import Buffer

S = TypeVar("S")
T = TypeVar("T")
R = TypeVar("R")

POOL_MIN_ITEMS = 48


def cpu_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


def processes(items: int, min_items: int = POOL_MIN_ITEMS, workers: int | None = None) -> int:
    """How many processes ``map_ordered`` spreads ``items`` items over: 1 (in-process) for
    a small batch or a single core, else one per core (at most one per item). A caller
    whose items could use the cores themselves (one big file) asks this first, and lets
    each item fork only when the batch runs in-process."""
    n = cpu_workers() if workers is None else workers
    if n <= 1 or items < min_items or not hasattr(os, "fork"):
        return 1
    return min(n, items)


_NOTHING: Any = object()


@overload
def map_ordered(fn: Callable[[T], R], items: Sequence[T], *, workers: int | None = None,
                min_items: int = POOL_MIN_ITEMS, weights: Sequence[int] | None = None
                ) -> list[R]: ...
@overload
def map_ordered(fn: Callable[[S, T], R], items: Sequence[T], *, shared: S,
                workers: int | None = None, min_items: int = POOL_MIN_ITEMS,
                weights: Sequence[int] | None = None) -> list[R]: ...
def map_ordered(fn: Callable[..., R], items: Sequence[T], *, shared: Any = _NOTHING,
                workers: int | None = None, min_items: int = POOL_MIN_ITEMS,
                weights: Sequence[int] | None = None) -> list[R]:
    """``[fn(item) for item in items]`` (``[fn(shared, item) …]`` when ``shared`` is
    given), spread over the cores when it pays (``processes``). ``weights`` (e.g. file
    sizes) order the queue, heaviest first, so no big file is left for last."""
    call: Callable[[T], R] = fn if shared is _NOTHING else partial(fn, shared)
    n = processes(len(items), min_items, workers)
    if n <= 1:
        return [call(item) for item in items]
    order = sorted(range(len(items)), key=(lambda i: -weights[i]) if weights is not None
                   else None)
    queue = _filled_queue(order)
    if queue is None:  # not even one token per process fits a pipe: work in-process
        return [call(item) for item in items]
    return _fork_map(call, items, *queue, n)


def map_with_cores(fn: Callable[[int, T], R], items: Sequence[T], *, min_items: int,
                   weights: Sequence[int] | None = None) -> list[R]:
    """``[fn(cores, item) for item in items]``: a batch spread over the cores gives each
    item one core; a batch run in-process grants each item every core (one big file may
    then split its own scan, as ``in_halves`` does)."""
    cores = cpu_workers() if processes(len(items), min_items) == 1 else 1
    return map_ordered(fn, items, shared=cores, min_items=min_items, weights=weights)


_TOKEN = 4  # bytes per queue token
_MAX_TOKENS = (64 << 10) // _TOKEN  # what a default Linux pipe holds


def _batches(order: list[int], max_tokens: int = _MAX_TOKENS) -> list[list[int]]:
    """The queue's pieces of work: one item each, or runs of neighbours (in queue order)
    when there are more items than the pipe holds tokens."""
    size = -(-len(order) // max_tokens) if order else 1
    return [order[at:at + size] for at in range(0, len(order), size)]


def _filled_queue(order: list[int]) -> tuple[int, list[list[int]]] | None:
    """A pipe holding one token per batch, its write end closed (an empty queue reads as
    EOF), and the batches; None when no useful queue fits.

    The tokens are written before any reader exists, so they must fit the pipe: a pipe
    can be smaller than 64 KiB (macOS starts at 16 KiB; Linux gives 8 KiB pipes to a user
    past ``fs.pipe-user-pages-soft``). The write end is non-blocking: when the pipe is
    full, the same order is cut into as many batches as it took, on a fresh pipe.
    """
    limit = _MAX_TOKENS
    while limit >= 2:
        batches = _batches(order, limit)
        tokens = b"".join(k.to_bytes(_TOKEN, "little") for k in range(len(batches)))
        queue, fill = os.pipe()
        os.set_blocking(fill, False)
        written = 0
        try:
            while written < len(tokens):
                written += os.write(fill, tokens[written:])
        except BlockingIOError:
            os.close(queue)
            limit = min(limit - 1, written // _TOKEN)
            continue
        finally:
            os.close(fill)
        return queue, batches
    return None


def _take(fn: Callable[[T], R], items: Sequence[T], batches: list[list[int]],
          queue: int) -> Iterator[tuple[int, R]]:
    """Results of the pieces this process takes from the queue, until it is empty."""
    while True:
        token = os.read(queue, _TOKEN)
        if len(token) < _TOKEN:  # b"": every token taken, and no writer left
            return
        for i in batches[int.from_bytes(token, "little")]:
            yield i, fn(items[i])


def _fork_map(fn: Callable[[T], R], items: Sequence[T], queue: int,
              batches: list[list[int]], n: int) -> list[R]:
    import pickle  # noqa: F401 - loaded before the forks: every child inherits it

    children: list[tuple[int, int]] = []  # (pid, read end)
    try:
        for _ in range(n - 1):
            read_fd, write_fd = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: take work, send one pickle, leave without cleanup
                os.close(read_fd)
                _child(write_fd, lambda: list(_take(fn, items, batches, queue)))
            os.close(write_fd)
            children.append((pid, read_fd))
        out: list[R] = [None] * len(items)  # type: ignore[list-item]
        for i, result in _take(fn, items, batches, queue):
            out[i] = result
    finally:
        os.close(queue)
        results = [_collect(pid, read_fd) for pid, read_fd in children]
    for kind, body in results:
        if kind != "ok":
            if isinstance(body, Exception):
                raise body
            raise RuntimeError(f"a worker process failed: {body}")
        for i, result in body:
            out[i] = result
    return out


def _child(write_fd: int, produce: Callable[[], object]) -> NoReturn:
    """A forked child's whole life: compute, send one pickle, leave without cleanup."""
    import pickle  # (the parent loaded it before the fork: only pickling pays, not in-process runs)

    status = 0
    try:
        payload = pickle.dumps(("ok", produce()), protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException as exc:  # noqa: BLE001 - handed to the parent to raise
        status = 1
        try:  # a typed error itself keeps its message and exit code
            payload = pickle.dumps(("error", exc if isinstance(exc, Exception)
                                    else repr(exc)))
        except Exception:  # noqa: BLE001 - not picklable: its repr
            payload = pickle.dumps(("error", repr(exc)))
    try:
        with os.fdopen(write_fd, "wb") as out:
            out.write(payload)
    finally:
        os._exit(status)


def map_in_background(fn: Callable[[S, T], R], items: Sequence[T], *, shared: S
                      ) -> Callable[[], list[R]]:
    """``[fn(shared, item) for item in items]`` computed by ONE forked process while the
    caller goes on with other work (``archive`` copies files while the plan bindings are
    read); the returned function waits for the results and returns them in order. Call
    it exactly once, also when the caller's own work failed (it reaps the child). Runs
    in-process, at that call, when there is nothing to do or no fork."""
    call: Callable[[T], R] = partial(fn, shared)
    if not items or not hasattr(os, "fork"):
        return lambda: [call(item) for item in items]
    import pickle  # noqa: F401 - loaded before the fork: the child inherits it

    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child(write_fd, lambda: [call(item) for item in items])
    os.close(write_fd)

    def result() -> list[R]:
        kind, body = _collect(pid, read_fd)
        if kind != "ok":
            if isinstance(body, Exception):
                raise body
            raise RuntimeError(f"a worker process failed: {body}")
        out: list[R] = body  # the child's pickled results
        return out
    return result


def _collect(pid: int, read_fd: int) -> tuple[str, Any]:
    import pickle

    with os.fdopen(read_fd, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    if not data:
        return "error", "the worker exited without a result"
    return pickle.loads(data)  # type: ignore[no-any-return]


def in_halves(scan: Callable[[Buffer, int, int], R], buf: Buffer, *, cores: int,
              min_bytes: int) -> list[R]:
    """``scan(buf, lo, hi)`` over the whole buffer: one call for a small file or when the
    caller grants one core, else one call per half, split at a newline, on two processes
    (``map_ordered`` with the scan and the buffer as its shared state: a forked half
    inherits both). The results come back in file order."""
    size = len(buf)
    mid = buf.find(b"\n", size // 2) if size >= min_bytes and cores >= 2 else -1
    if mid < 0 or mid + 1 >= size:
        return [scan(buf, 0, size)]
    return map_ordered(_half, [(0, mid + 1), (mid + 1, size)], shared=(scan, buf), workers=2,
                       min_items=1)


def _half(shared: tuple[Callable[[Buffer, int, int], R], Buffer], bounds: tuple[int, int]) -> R:
    scan, buf = shared
    return scan(buf, *bounds)
