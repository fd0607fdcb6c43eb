"""The one row cap: first-N, last-N, most-recent-N, and never a silent drop."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pysift.core.cap import cap


def test_the_signed_forms() -> None:
    rows = list("abcde")
    assert cap(rows, 2) == (["a", "b"], ["c", "d", "e"])  # the earliest
    assert cap(rows, -2) == (["d", "e"], ["a", "b", "c"])  # the latest
    assert cap(rows, 0) == (rows, []) and cap(rows, None) == (rows, [])
    assert cap(rows, 5) == (rows, []) and cap(rows, -9) == (rows, [])


def test_the_most_recent_keep_their_own_order_and_ties_go_to_the_earlier_row() -> None:
    rows = [("s1", 3), ("s2", 9), ("s3", 1), ("s4", 9)]
    kept, dropped = cap(rows, 2, newest=lambda r: r[1])
    assert kept == [("s2", 9), ("s4", 9)] and dropped == [("s1", 3), ("s3", 1)]
    kept, _ = cap(rows, 1, newest=lambda r: r[1])
    assert kept == [("s2", 9)]


@given(st.lists(st.integers(0, 5), max_size=30), st.integers(-40, 40), st.booleans())
def test_nothing_is_lost_or_invented_and_order_is_kept(values: list[int], n: int,
                                                       recent: bool) -> None:
    rows = list(enumerate(values))  # (position, recency)
    if recent:
        n = abs(n)
    kept, dropped = cap(rows, n, newest=(lambda r: r[1]) if recent else None)
    assert sorted(kept + dropped) == rows
    assert len(kept) == (len(rows) if not n else min(abs(n), len(rows)))
    assert kept == sorted(kept) and dropped == sorted(dropped)
    if recent and dropped:
        assert min(r[1] for r in kept) >= max(r[1] for r in dropped)


def test_recency_compares_instants_and_ignores_stamps_that_name_none() -> None:
    from pysift.core.cap import recency

    def never() -> float:
        raise AssertionError("the file time is asked only when no stamp names an instant")

    utc = recency(["2026-05-02T01:00:00.000Z"], never)
    offset = recency(["2026-05-01T23:00:00-05:00"], never)  # 04:00Z: later, sorts first
    assert offset > utc
    assert recency(["not-a-time", "2026-01-01T00:00:00.000Z"], never) < utc
    assert recency(["2026-05-01T23:00:00", "9999-99"], lambda: 5.0) == (False, 5.0)  # no offset
    assert recency([None, ""], lambda: None) == (False, float("-inf"))
    assert recency([], lambda: 1e12) < recency(["1990-01-01T00:00:00Z"], never)
