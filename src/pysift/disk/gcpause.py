"""``paused_gc``: the cyclic garbage collector held off while a phase builds objects that
all stay alive (a cache shard decoded, a run's rows made); ``hold_start_up`` and
``start_up_done``: the same for a run's start-up.

Every container allocated counts toward the collector's next pass, and each pass walks
the young objects: decoding 40 shards of list facts (~2 MB, hundreds of thousands of
tuples) set off some 100 passes and a full one, ~25 ms of a 300 ms warm listing spent
walking objects none of which could be garbage. Reference counting still frees what
dies in the phase; a cycle made in it is collected after (the collector is switched
back on, only if it was on).

In a command run (``hold_start_up`` ran: the process ends with the command) what the
phase built is also frozen when it ends, as start-up's objects are: the collector's
next pass would otherwise walk every object the phase made (they all sit in the young
generation, allocated while it was off): ~10 ms of a cold ``list`` over corpus B, serial,
after the pool had handed back 2,428 rows. A cycle the phase made is then never
collected; the process ends first. A library caller's objects are never frozen.
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
            if _command_run:
                gc.freeze()
            gc.enable()


_held = False
_command_run = False  # hold_start_up ran: this process is one command's run


def hold_start_up() -> None:
    """Hold the collector off from the console entry on: start-up (imports, typer's
    command tree, the option checks) builds modules, classes and functions that all live
    for the run, and the collector's passes over them were 4-11% of the instructions of
    a run with nothing to read (callgrind: 409 -> 392 M for a search, 369 -> 327 M for a
    listing)."""
    global _held, _command_run
    _held = _command_run = True
    gc.disable()


def start_up_done() -> None:
    """Start-up is over (the options are read, the work begins): move what it built out
    of the collector's sight for good (``gc.freeze``: later passes, and a forked worker's,
    skip it, so they neither walk it nor copy its pages) and switch the collector back on.
    Nothing when ``hold_start_up`` did not run (pysift called as a library, the tests)."""
    global _held
    if _held:
        _held = False
        gc.freeze()
        gc.enable()
