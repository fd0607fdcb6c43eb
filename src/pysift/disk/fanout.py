"""Run a per-file function over many files, results in input order.

Small batches run in-process. Larger ones are spread over one process per core: the parent
forks the children, then every process (the parent too) takes the next piece of work from
a shared queue until it is empty, heaviest files first. The queue is a pipe pre-filled
with 4-byte tokens; a read of 4 bytes takes exactly one token, and the kernel never hands
the same token to two readers. Pulling work instead of splitting it up front keeps both
cores busy to the end even when one of them is slowed by something else on the machine
(a static split measured 80-110 ms of one process idling on a shared VM). Children send
their results back through a pipe as they make them (a pickled frame every few
milliseconds of work), and the parent unpickles them between its own items, so the run
does not end on one big pickle made and read in turn. A fork costs a millisecond; a
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
import sys
import time
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
                min_items: int = POOL_MIN_ITEMS, weights: Sequence[int] | None = None,
                wait: bool = True) -> list[R]: ...
@overload
def map_ordered(fn: Callable[[S, T], R], items: Sequence[T], *, shared: S,
                workers: int | None = None, min_items: int = POOL_MIN_ITEMS,
                weights: Sequence[int] | None = None, wait: bool = True) -> list[R]: ...
def map_ordered(fn: Callable[..., R], items: Sequence[T], *, shared: Any = _NOTHING,
                workers: int | None = None, min_items: int = POOL_MIN_ITEMS,
                weights: Sequence[int] | None = None, wait: bool = True) -> list[R]:
    """``[fn(item) for item in items]`` (``[fn(shared, item) …]`` when ``shared`` is
    given), spread over the cores when it pays (``processes``). ``weights`` (e.g. file
    sizes) order the queue, heaviest first, so no big file is left for last.

    ``wait`` False: the results are returned once every child has sent its last one,
    without waiting for the children to finish leaving (``_reap``). Only for a caller that
    holds nothing a child inherits and must have let go of when the map returns: a
    child keeps its copy of every descriptor (an ``flock``'d lock file among them) until
    its exit is through."""
    call: Callable[[T], R] = fn if shared is _NOTHING else partial(fn, shared)
    n = processes(len(items), min_items, workers)
    if n <= 1:
        return [call(item) for item in items]
    order = sorted(range(len(items)), key=(lambda i: -weights[i]) if weights is not None
                   else None)
    queue = _filled_queue(order)
    if queue is None:  # not even one token per process fits a pipe: work in-process
        return [call(item) for item in items]
    return _fork_map(call, items, *queue, n, wait)


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
          queue: int) -> Iterator[list[tuple[int, R]]]:
    """Results of the pieces this process takes from the queue, until it is empty: one
    list per piece taken."""
    while True:
        token = os.read(queue, _TOKEN)
        if len(token) < _TOKEN:  # b"": every token taken, and no writer left
            return
        yield [(i, fn(items[i])) for i in batches[int.from_bytes(token, "little")]]


def _fork_map(fn: Callable[[T], R], items: Sequence[T], queue: int,
              batches: list[list[int]], n: int, wait: bool = True) -> list[R]:
    import pickle  # noqa: F401 - loaded before the forks: every child inherits it

    inboxes: list[_Inbox] = []
    out: list[R] = [None] * len(items)  # type: ignore[list-item]
    try:
        for _ in range(n - 1):
            read_fd, write_fd = os.pipe()
            _widen(write_fd)
            pid = os.fork()
            if pid == 0:  # the child: take work, send its results as it goes, leave
                os.close(read_fd)
                _streaming_child(write_fd, _take(fn, items, batches, queue))
            os.close(write_fd)
            inboxes.append(_Inbox(pid, read_fd))
        clock = time.perf_counter
        due = clock() + _DRAIN_EVERY_S
        for part in _take(fn, items, batches, queue):
            for i, result in part:
                out[i] = result
            if inboxes and clock() >= due:  # what the children sent meanwhile, unpickled
                for inbox in inboxes:
                    inbox.drain(out)
                due = clock() + _DRAIN_EVERY_S
    finally:
        os.close(queue)
        failures = [inbox.finish(out, wait) for inbox in inboxes]
    for failure in failures:
        _raise_failure(failure)
    return out


def _raise_failure(failure: object) -> None:
    """A child's failure (``_Inbox.finish``) raised here: a typed error as itself, any
    other as a RuntimeError naming it; nothing for None."""
    if failure is None:
        return
    if isinstance(failure, Exception):
        raise failure
    raise RuntimeError(f"a worker process failed: {failure}")


# How often the parent, between its own items, unpickles what the children sent (and how
# often a child pickles what it made): their results cross while the work goes on, so
# the run does not end with one big pickle made by a child and read by the parent in
# turn (over corpus B's listing, 1.2 MB: ~25 ms when nothing else ran).
_DRAIN_EVERY_S = 0.004
_PIPE_BYTES = 1 << 20  # what a child's result pipe is asked to hold (Linux's default cap)
_FRAME_HEAD = 8  # bytes of a frame's length


def _widen(fd: int) -> None:
    """Let the pipe hold a child's batches between two drains (where the system allows:
    else the child waits for the parent's next drain, as with any full pipe)."""
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass


def _streaming_child(write_fd: int, parts: Iterator[list[tuple[int, Any]]]) -> NoReturn:
    """A forked child's whole life: its results sent as they are made, one frame per
    ``_DRAIN_EVERY_S`` of work (a frame per item cost more pickling than it spread), then
    a last frame saying how the work ended; leave without cleanup. The child runs with
    ``jsonline.RECURSION_HEADROOM`` more recursion: pickle recurses twice per level, and
    a record nested as deep as a line may be (1024 levels) is sent back whole (a turn
    opener's object; one of 500 levels had crashed the worker)."""
    import pickle

    from pysift.disk.jsonline import RECURSION_HEADROOM

    status = 0
    sys.setrecursionlimit(sys.getrecursionlimit() + RECURSION_HEADROOM)
    try:
        with os.fdopen(write_fd, "wb", buffering=0) as pipe:
            outbox = _Outbox(pipe)
            try:
                clock = time.perf_counter
                due = clock() + _DRAIN_EVERY_S
                made: list[tuple[int, Any]] = []
                for part in parts:
                    made += part
                    if clock() >= due:
                        outbox.put(pickle.dumps(("part", made), protocol=pickle.HIGHEST_PROTOCOL))
                        made = []
                        due = clock() + _DRAIN_EVERY_S
                if made:
                    outbox.put(pickle.dumps(("part", made), protocol=pickle.HIGHEST_PROTOCOL))
                end = pickle.dumps(("done", None))
            except BaseException as exc:  # noqa: BLE001 - handed to the parent to raise
                status = 1
                try:  # a typed error itself keeps its message and exit code
                    end = pickle.dumps(("error", exc if isinstance(exc, Exception)
                                        else repr(exc)))
                except Exception:  # noqa: BLE001 - not picklable: its repr
                    end = pickle.dumps(("error", repr(exc)))
            outbox.put(end)
            outbox.close()
    finally:
        os._exit(status)


class _Outbox:
    """A child's frames on their way to the parent. The pipe is written without waiting:
    what it cannot take yet stays here while the child goes on working (the parent drains
    only between its own items, and one of those can be a big file), and the rest is
    written, waiting, at the end."""

    def __init__(self, pipe: Any) -> None:
        self.pipe = pipe
        self.held = bytearray()
        os.set_blocking(pipe.fileno(), False)

    def put(self, frame: bytes) -> None:
        self.held += len(frame).to_bytes(_FRAME_HEAD, "little")
        self.held += frame
        self._push()

    def close(self) -> None:
        os.set_blocking(self.pipe.fileno(), True)
        self._push()

    def _push(self) -> None:
        held = self.held
        sent = 0
        with memoryview(held) as view:
            while sent < len(held):
                n = self.pipe.write(view[sent:])
                if not n:  # None: the pipe is full (a non-blocking write)
                    break
                sent += n
        del held[:sent]


class _Inbox:
    """The parent's end of one child's result pipe: frames read as they come (``drain``,
    never waiting) and to the end (``finish``), each piece's results put in place."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid, self.fd = pid, fd
        self.held = bytearray()
        self.ended: tuple[str, Any] | None = None
        os.set_blocking(fd, False)

    def drain(self, out: list[Any]) -> None:
        while True:
            try:
                chunk = os.read(self.fd, _PIPE_BYTES)
            except BlockingIOError:
                break
            if not chunk:
                break
            self.held += chunk
        self._unpack(out)

    def finish(self, out: list[Any], wait: bool = True) -> object:
        """Read to the end, reap the child (``wait`` False: unless it is still leaving,
        ``_reap``); the failure to raise, or None."""
        try:
            os.set_blocking(self.fd, True)
            while chunk := os.read(self.fd, _PIPE_BYTES):
                self.held += chunk
        finally:
            os.close(self.fd)
            if wait:
                os.waitpid(self.pid, 0)
            else:
                _reap(self.pid)
        self._unpack(out)
        if self.ended is None:
            return "the worker exited without a result"
        kind, body = self.ended
        return None if kind == "done" else body

    def _unpack(self, out: list[Any]) -> None:
        import pickle

        held, at = self.held, 0
        while len(held) - at >= _FRAME_HEAD:
            size = int.from_bytes(held[at:at + _FRAME_HEAD], "little")
            if len(held) - at - _FRAME_HEAD < size:
                break
            kind, body = pickle.loads(held[at + _FRAME_HEAD:at + _FRAME_HEAD + size])
            at += _FRAME_HEAD + size
            if kind == "part":
                for i, result in body:
                    out[i] = result
            else:
                self.ended = (kind, body)
        del held[:at]


#: Children that sent their last frame and were still leaving when the parent looked.
_UNREAPED: list[int] = []


def _reap(pid: int) -> None:
    """Reap a child that has closed its pipe, without waiting for it to finish leaving
    (``map_ordered``'s ``wait`` False): the kernel frees a child's memory (and only then
    its descriptors) before it can be reaped, and waiting for that was 1-4 ms the parent
    spent idle at the end of a listing of corpus B. One still leaving is reaped at the
    next call here; a CLI run that leaves first hands it to init, which reaps it."""
    _UNREAPED.append(pid)
    for child in list(_UNREAPED):
        try:
            done, _ = os.waitpid(child, os.WNOHANG)
        except ChildProcessError:  # reaped already (or never ours)
            done = child
        if done:
            _UNREAPED.remove(child)


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
        _streaming_child(write_fd, _all_at_once(call, items))
    os.close(write_fd)
    inbox = _Inbox(pid, read_fd)

    def result() -> list[R]:
        out: list[R] = [None] * len(items)  # type: ignore[list-item]
        _raise_failure(inbox.finish(out))
        return out
    return result


def _all_at_once(call: Callable[[T], R], items: Sequence[T]) -> Iterator[list[tuple[int, R]]]:
    """Every item's result as one piece of work (computed when the child asks for it)."""
    yield [(i, call(item)) for i, item in enumerate(items)]


def in_halves(scan: Callable[[Buffer, int, int], R], buf: Buffer, *, cores: int,
              min_bytes: int) -> list[R]:
    """``scan(buf, lo, hi)`` over the whole buffer: one call for a small file or when the
    caller grants one core, else one call per half, split at a newline, on two processes
    (``map_ordered`` with the scan and the buffer as its shared state: a forked half
    inherits both). The results come back in file order."""
    return in_pieces(scan, buf, cores=cores, min_bytes=min_bytes, pieces=2)


def in_pieces(scan: Callable[[Buffer, int, int], R], buf: Buffer, *, cores: int,
              min_bytes: int, pieces: int) -> list[R]:
    """``in_halves`` in ``pieces`` pieces of about equal bytes, each split at a newline,
    taken from the queue by two processes: for a scan whose work per byte differs along
    the file, the process done first takes the next piece."""
    size = len(buf)
    if size < min_bytes or cores < 2 or pieces < 2:
        return [scan(buf, 0, size)]
    bounds: list[tuple[int, int]] = []
    lo = 0
    for k in range(1, pieces):
        cut = buf.find(b"\n", max(lo, size * k // pieces))
        if cut < 0 or cut + 1 >= size:
            break
        bounds.append((lo, cut + 1))
        lo = cut + 1
    if not bounds:
        return [scan(buf, 0, size)]
    bounds.append((lo, size))
    return map_ordered(_half, bounds, shared=(scan, buf), workers=2, min_items=1)


def _half(shared: tuple[Callable[[Buffer, int, int], R], Buffer], bounds: tuple[int, int]) -> R:
    scan, buf = shared
    return scan(buf, *bounds)
