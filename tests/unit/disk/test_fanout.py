"""The fork-based map: input order kept, balanced shares, a failing worker surfaces."""

from __future__ import annotations

import os

import pytest

from pysift.disk import fanout


def _square_with_pid(x: int) -> tuple[int, int]:
    return x * x, os.getpid()


def test_results_keep_input_order_across_processes() -> None:
    items = list(range(100))
    out = fanout.map_ordered(_square_with_pid, items, workers=2, min_items=1,
                             weights=[(i * 37) % 11 for i in items])
    assert [v for v, _ in out] == [i * i for i in items]
    assert len({pid for _, pid in out}) == 2  # the parent and one forked child


def test_small_inputs_stay_in_process() -> None:
    out = fanout.map_ordered(_square_with_pid, [1, 2, 3], workers=2)
    assert {pid for _, pid in out} == {os.getpid()}


def test_shares_balance_by_weight() -> None:
    shares = fanout._balanced_shares(5, 2, [100, 1, 1, 1, 90])
    loads = sorted(sum([100, 1, 1, 1, 90][i] for i in share) for share in shares)
    assert loads == [93, 100]


def _fail_on_seven(x: int) -> int:
    if x == 7:
        raise ValueError("seven")
    return x


def test_a_failing_worker_is_an_error_not_a_silent_gap() -> None:
    with pytest.raises((RuntimeError, ValueError), match="seven"):
        fanout.map_ordered(_fail_on_seven, list(range(20)), workers=2, min_items=1)
