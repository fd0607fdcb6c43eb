"""The one row cap every command applies (``--max-count`` and the default caps).

A cap never drops in silence: it returns what it dropped, and the caller reports it
(``dropped_by_cap``, a footer naming the remainder). Its forms:

- ``n`` None or 0: everything is kept;
- ``n > 0``: the first ``n`` rows (``search``'s earliest exchanges, ``show``'s units);
- ``n < 0``: the last ``-n`` rows (``search --max-count -N``, the latest);
- ``newest=key``: the ``n`` rows ranking highest by ``key`` (ties: the earlier row),
  kept in their own order (``list`` and ``stats``: the most recently active, ranked by
  ``recency``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from pysift.core.timez import parse_ts

T = TypeVar("T")


def cap(rows: Sequence[T], n: int | None, *, newest: Callable[[T], Any] | None = None
        ) -> tuple[list[T], list[T]]:
    """``(kept, dropped)``, both in the order of ``rows``."""
    if not n or abs(n) >= len(rows):
        return list(rows), []
    if newest is not None:
        if n < 0:
            raise ValueError("a most-recent cap keeps a positive number of rows")
        ranked = sorted(range(len(rows)), key=lambda i: newest(rows[i]), reverse=True)
        keep = set(ranked[:n])
        return ([r for i, r in enumerate(rows) if i in keep],
                [r for i, r in enumerate(rows) if i not in keep])
    if n > 0:
        return list(rows[:n]), list(rows[n:])
    return list(rows[n:]), list(rows[:n])


def recency(stamps: Iterable[str | None], mtime: Callable[[], float | None]
            ) -> tuple[bool, float]:
    """The "most recently active" key of a row (``list`` and ``stats``): the newest of its
    ``stamps`` as an INSTANT (``timez.parse_ts``: ``…-05:00`` and ``…Z`` compare by the
    moment they name, never as strings; a stamp that names no instant counts as none);
    a row with none ranks after every row with one, by its file's modification time
    (``mtime()``, asked only then; None: last of all)."""
    newest = None
    for raw in stamps:
        instant = parse_ts(raw)
        if instant is not None and (newest is None or instant > newest):
            newest = instant
    if newest is not None:
        return True, newest.timestamp()
    when = mtime()
    return False, float("-inf") if when is None else when
