"""The fork-based map: input order kept, balanced shares, a failing worker surfaces."""

from __future__ import annotations

import os
import time

import pytest

from pysift.disk import fanout


def _square_with_pid(x: int) -> tuple[int, int]:
    time.sleep(0.002)  # long enough that the child takes its part of the queue
    return x * x, os.getpid()


def test_results_keep_input_order_across_processes() -> None:
    items = list(range(100))
    out = fanout.map_ordered(_square_with_pid, items, workers=2, min_items=1,
                             weights=[(i * 37) % 11 for i in items])
    assert [v for v, _ in out] == [i * i for i in items]
    assert len({pid for _, pid in out}) == 2  # the parent and one forked child


def test_every_item_is_done_exactly_once_by_some_process() -> None:
    items = list(range(300))
    out = fanout.map_ordered(_square_with_pid, items, workers=3, min_items=1)
    assert [v for v, _ in out] == [i * i for i in items]
    assert len({pid for _, pid in out}) >= 2


def test_a_busy_process_takes_less_of_the_queue() -> None:
    """Work is pulled, not dealt: a process slowed down does fewer items."""
    parent = os.getpid()

    def slow_in_parent(x: int) -> int:
        time.sleep(0.02 if os.getpid() == parent else 0.002)
        return os.getpid()

    pids = fanout.map_ordered(slow_in_parent, list(range(60)), workers=2, min_items=1)
    assert pids.count(parent) < 20


def _scaled(shared: dict[str, int], x: int) -> tuple[int, int]:
    time.sleep(0.002)
    return x * shared["factor"], os.getpid()


def test_shared_state_is_the_first_argument_in_every_process() -> None:
    """What the calls share is handed over once, explicitly: no module global is set
    before the fork for the children to find."""
    out = fanout.map_ordered(_scaled, list(range(60)), shared={"factor": 3}, workers=2,
                             min_items=1)
    assert [v for v, _ in out] == [3 * i for i in range(60)]
    assert len({pid for _, pid in out}) == 2
    alone = fanout.map_ordered(_scaled, [1, 2], shared={"factor": 5}, workers=2)
    assert [v for v, _ in alone] == [5, 10]


class _Unpicklable:
    factor = 7

    def __reduce__(self):  # type: ignore[no-untyped-def]
        raise TypeError("the shared object was pickled")


def test_the_shared_object_is_inherited_never_pickled() -> None:
    out = fanout.map_ordered(lambda s, x: x * s.factor, list(range(30)),
                             shared=_Unpicklable(), workers=2, min_items=1)
    assert out == [7 * i for i in range(30)]


def test_processes_is_one_for_a_small_batch_or_one_core() -> None:
    assert fanout.processes(3, min_items=8, workers=2) == 1
    assert fanout.processes(100, min_items=8, workers=1) == 1
    assert fanout.processes(100, min_items=8, workers=2) == 2
    assert fanout.processes(3, min_items=1, workers=8) == 3


def test_small_inputs_stay_in_process() -> None:
    out = fanout.map_ordered(_square_with_pid, [1, 2, 3], workers=2)
    assert {pid for _, pid in out} == {os.getpid()}


def _cores_with_pid(cores: int, x: int) -> tuple[int, int, int]:
    time.sleep(0.002)
    return x, cores, os.getpid()


def test_map_with_cores_grants_every_core_in_process_and_one_in_a_spread(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fanout, "cpu_workers", lambda: 2)
    few = fanout.map_with_cores(_cores_with_pid, [1, 2, 3], min_items=8)
    assert [(x, cores) for x, cores, _ in few] == [(1, 2), (2, 2), (3, 2)]
    assert {pid for _, _, pid in few} == {os.getpid()}
    many = fanout.map_with_cores(_cores_with_pid, list(range(40)), min_items=8,
                                 weights=list(range(40)))
    assert [x for x, _, _ in many] == list(range(40))
    assert {cores for _, cores, _ in many} == {1}
    assert len({pid for _, _, pid in many}) == 2


def test_the_queue_is_heaviest_first_and_batches_only_beyond_a_pipe() -> None:
    order = sorted(range(5), key=lambda i: -[100, 1, 1, 1, 90][i])
    assert fanout._batches(order) == [[0], [4], [1], [2], [3]]
    many = list(range(fanout._MAX_TOKENS * 2 + 1))
    batches = fanout._batches(many)
    assert len(batches) <= fanout._MAX_TOKENS
    assert [i for b in batches for i in b] == many


def _fail_on_seven(x: int) -> int:
    if x == 7:
        raise ValueError("seven")
    return x


def test_a_failing_worker_is_an_error_not_a_silent_gap() -> None:
    with pytest.raises((RuntimeError, ValueError), match="seven"):
        fanout.map_ordered(_fail_on_seven, list(range(20)), workers=2, min_items=1)


_TEST_PROCESS = os.getpid()


def _usage_error_in_a_child(x: int) -> int:
    from pysift.errors import UsageError

    if os.getpid() != _TEST_PROCESS:
        raise UsageError(f"odd {x}")
    time.sleep(0.01)  # the parent is slow: the child surely takes a piece of the queue
    return x


def test_a_typed_error_in_a_child_reaches_the_caller_as_itself() -> None:
    """A typed error raised in a child must reach the caller as itself (its exit code,
    one line), not as a RuntimeError traceback."""
    from pysift.errors import UsageError

    with pytest.raises(UsageError, match="odd"):
        fanout.map_ordered(_usage_error_in_a_child, list(range(40)), workers=2, min_items=1)


def test_a_small_pipe_gets_fewer_bigger_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pipe smaller than 64 KiB (macOS; a Linux user past pipe-user-pages-soft) must not
    block the pre-fill: the items are cut into as many batches as the pipe holds tokens."""
    capacity = 64  # bytes: 16 tokens
    held: dict[int, int] = {}
    real_write = os.write

    def small_pipe_write(fd: int, data: bytes) -> int:
        room = capacity - held.get(fd, 0)
        if room <= 0:
            raise BlockingIOError
        n = real_write(fd, data[:room])
        held[fd] = held.get(fd, 0) + n
        return n

    real_pipe = os.pipe

    def fresh_pipe() -> tuple[int, int]:
        read_fd, write_fd = real_pipe()
        held[write_fd] = 0  # fd numbers are reused: a new pipe starts empty
        return read_fd, write_fd

    monkeypatch.setattr(fanout.os, "write", small_pipe_write)
    monkeypatch.setattr(fanout.os, "pipe", fresh_pipe)
    queue = fanout._filled_queue(list(range(100)))
    assert queue is not None
    fd, batches = queue
    os.close(fd)
    assert len(batches) <= capacity // fanout._TOKEN
    assert sorted(i for b in batches for i in b) == list(range(100))
    out = fanout.map_ordered(_square_with_pid, list(range(100)), workers=2, min_items=1)
    assert [v for v, _ in out] == [i * i for i in range(100)]


def test_no_room_for_two_tokens_means_working_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    def full_pipe_write(fd: int, data: bytes) -> int:
        raise BlockingIOError

    monkeypatch.setattr(fanout.os, "write", full_pipe_write)
    assert fanout._filled_queue(list(range(10))) is None
    out = fanout.map_ordered(_square_with_pid, list(range(10)), workers=2, min_items=1)
    assert {pid for _, pid in out} == {os.getpid()}


# -- results cross while the work goes on ------------------------------------------------


def _big_result_or_a_slow_parent(x: int) -> tuple[int, float, bytes]:
    """Item 0 is slow (the parent takes it: the queue is heaviest first); every other item
    returns 256 KB, more in all than a pipe holds."""
    if x == 0:
        time.sleep(0.4)
    return os.getpid(), time.monotonic(), bytes([x % 256]) * (256 << 10)


def test_a_child_keeps_working_while_the_parent_is_busy_and_its_pipe_is_full() -> None:
    """A child sends its results as it makes them; what the pipe cannot take waits in the
    child, which goes on working: its 7 MB are all made before the parent is done with
    its one slow item (a child waiting on a full pipe would still be at its first MB)."""
    items = list(range(30))
    out = fanout.map_ordered(_big_result_or_a_slow_parent, items, workers=2, min_items=1,
                             weights=[1 if i else 2 for i in items])
    parent, slow_done = out[0][0], out[0][1]
    children = [(when, data) for pid, when, data in out[1:] if pid != parent]
    assert len(children) == 29
    assert max(when for when, _ in children) < slow_done
    assert [data for _, _, data in out[1:]] == [bytes([i]) * (256 << 10) for i in items[1:]]


def _exit_in_a_child(x: int) -> int:
    if os.getpid() != _TEST_PROCESS:
        os._exit(3)  # a worker killed half way: no last frame
    time.sleep(0.01)  # the parent is slow: the child surely takes a piece of the queue
    return x


def test_a_worker_that_dies_without_its_last_frame_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="exited without a result"):
        fanout.map_ordered(_exit_in_a_child, list(range(40)), workers=2, min_items=1)


# -- one child in the background -------------------------------------------------------------


def test_a_background_map_runs_in_a_child_and_answers_in_order() -> None:
    pending = fanout.map_in_background(_scaled, list(range(20)), shared={"factor": 4})
    mine = sum(range(1000))  # the caller's own work meanwhile
    out = pending()
    assert mine == 499500
    assert [v for v, _ in out] == [4 * i for i in range(20)]
    assert {pid for _, pid in out} != {os.getpid()}  # computed by the forked child


def test_a_background_maps_error_reaches_the_caller_as_itself() -> None:
    from pysift.errors import UsageError

    def odd(_shared: object, x: int) -> int:
        if x == 3:
            raise UsageError("three")
        return x

    pending = fanout.map_in_background(odd, list(range(5)), shared=None)
    with pytest.raises(UsageError, match="three"):
        pending()
    assert fanout.map_in_background(odd, [], shared=None)() == []


def _deep_record(x: int) -> tuple[int, object]:
    """A record as deep as a line may nest (orjson reads 1024 levels), made in whichever
    process takes the item (a turn opener's object crosses back so, from a half of a big
    file)."""
    import orjson

    time.sleep(0.005)
    return os.getpid(), orjson.loads(b'{"a":' * 1023 + str(x).encode() + b"}" * 1023)


def test_a_child_sends_back_a_record_as_deep_as_a_line_may_nest() -> None:
    """pickle recurses twice per level: a child pickling a 500-level record raised
    RecursionError, and the command died with the child's traceback."""
    out = fanout.map_ordered(_deep_record, list(range(8)), workers=2, min_items=1)
    assert len({pid for pid, _ in out}) == 2
    for x, (_, value) in enumerate(out):
        for _ in range(1023):
            value = value["a"]  # type: ignore[index]
        assert value == x


def _bounds(buf: bytes, lo: int, hi: int) -> tuple[int, int, int]:
    return lo, hi, os.getpid()


def test_pieces_cover_the_buffer_in_order_at_line_starts() -> None:
    buf = b"".join(b'{"n":%d}\n' % n for n in range(500)) + b'{"last":1}'
    out = fanout.in_pieces(_bounds, buf, cores=2, min_bytes=1, pieces=8)
    assert len(out) == 8
    assert out[0][0] == 0 and out[-1][1] == len(buf)
    assert all(a[1] == b[0] for a, b in zip(out, out[1:]))  # no gap, no overlap
    assert all(buf[lo - 1:lo] == b"\n" for lo, _, _ in out[1:])  # each at a line start


def test_one_piece_for_a_small_buffer_one_core_or_one_line() -> None:
    lines = b'{"a":1}\n{"b":2}\n'
    assert fanout.in_pieces(_bounds, lines, cores=2, min_bytes=1 << 20, pieces=4)[0][:2] == (0, 16)
    assert len(fanout.in_pieces(_bounds, lines, cores=1, min_bytes=1, pieces=4)) == 1
    assert len(fanout.in_pieces(_bounds, b'{"one":"line"}\n', cores=2, min_bytes=1,
                                pieces=4)) == 1


def test_more_pieces_than_lines_gives_one_piece_per_line_at_most() -> None:
    buf = b'{"a":1}\n{"b":2}\n{"c":3}\n'
    out = fanout.in_pieces(_bounds, buf, cores=2, min_bytes=1, pieces=8)
    assert [(lo, hi) for lo, hi, _ in out] == [(0, 8), (8, 16), (16, 24)]


def test_a_child_still_leaving_is_reaped_by_the_next_map_not_waited_for() -> None:
    """The parent does not wait for a child to finish leaving; no child is left behind
    once a later map has looked again."""
    first = fanout.map_ordered(_square_with_pid, list(range(40)), workers=2, min_items=1,
                               wait=False)
    children = {pid for _, pid in first} - {os.getpid()}
    assert children
    time.sleep(0.3)  # the child has left by now
    fanout.map_ordered(_square_with_pid, list(range(40)), workers=2, min_items=1, wait=False)
    for pid in children:
        assert pid not in fanout._UNREAPED
        with pytest.raises(ChildProcessError):  # reaped: no zombie left of it
            os.waitpid(pid, os.WNOHANG)


def test_a_map_that_waits_returns_once_its_children_are_gone(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """By default the children have let go of what they inherited when the map returns:
    a lock file ``flock``'d before the map can be taken again at once (the archive's)."""
    import fcntl

    lock = tmp_path / "lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    fanout.map_ordered(_square_with_pid, list(range(40)), workers=2, min_items=1)
    os.close(fd)
    again = os.open(lock, os.O_RDWR)
    try:
        fcntl.flock(again, fcntl.LOCK_EX | fcntl.LOCK_NB)  # raises if a child held it
    finally:
        os.close(again)
