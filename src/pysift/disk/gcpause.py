"""``paused_gc``: the cyclic garbage collector held off while a phase builds objects that
all stay alive (a cache shard decoded, a run's rows made).

Every container allocated counts toward the collector's next pass, and each pass walks
the young objects: decoding 40 shards of list facts (~2 MB, hundreds of thousands of
tuples) set off some 100 passes and a full one, ~25 ms of a 300 ms warm listing spent
walking objects none of which could be garbage. Reference counting still frees what
dies in the phase; a cycle made in it is collected after (the collector is switched
back on, only if it was on).
"""

from __future__ import annotations

import gc
from types import TracebackType


class paused_gc:  # noqa: N801 - used as a function: ``with paused_gc():``
    __slots__ = ("_was",)

    def __enter__(self) -> None:
        self._was = gc.isenabled()
        gc.disable()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._was:
            gc.enable()
