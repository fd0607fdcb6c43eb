"""Standard modules that start-up imports only because another module imports them,
loaded at their first use instead.

``dataclasses`` imports ``inspect`` at its top, and with it ``ast``, ``dis``,
``tokenize`` and ``linecache``: 15-22 ms of every run on the eighteenth session's host,
more than pysift's own modules cost. It uses ``inspect`` for one thing, the docstring of
a class that has none (``inspect.signature``), and ``model.fastdata`` gives every pysift
dataclass a docstring before the standard decorator runs, so no command's fast path
reads it. The typer path (``--help``, completion) does: there it loads on that first
read. Likewise ``pathlib`` imports ``urllib.parse``, which imports ``ipaddress`` (2.4 ms)
for the one function that checks a bracketed URL host; pysift parses no URL.

``defer`` puts a stand-in module under the name, before anything imports it. An
``import`` of the name binds the stand-in (its ``__spec__`` is None, which the import
system reads as "initialised", so the statement itself loads nothing; the stdlib's
``importlib.util.LazyLoader`` loads on that read, which is why it is not used here). The
first attribute read of the stand-in imports the real module, puts it back under its name
and copies its names into the stand-in, so a module that bound the stand-in reads the
real functions from then on without this hook.
"""

from __future__ import annotations

import sys
from _thread import allocate_lock
from types import ModuleType

#: What start-up imports only for another module's sake (see the module docstring).
UNUSED_AT_START_UP = ("inspect", "ipaddress")

_LOADING = allocate_lock()


class _Deferred(ModuleType):
    """A module's stand-in until its first attribute read."""

    def __getattr__(self, attr: str) -> object:
        return getattr(_load(self), attr)


def _load(stand_in: _Deferred) -> ModuleType:
    name = stand_in.__name__
    with _LOADING:  # a second thread waits for the first one's import
        real = sys.modules.get(name)
        if real is stand_in or real is None:
            sys.modules.pop(name, None)
            try:
                real = __import__(name)
            except BaseException:
                sys.modules[name] = stand_in  # the next read tries again
                raise
        stand_in.__dict__.update(real.__dict__)
    return real


def defer(names: tuple[str, ...] = UNUSED_AT_START_UP) -> None:
    """Stand-ins for ``names`` not imported yet (one already imported is left alone)."""
    for name in names:
        if name not in sys.modules:
            sys.modules[name] = _Deferred(name)


def is_loaded(name: str) -> bool:
    """Whether the real module ``name`` has been imported (a stand-in is not)."""
    module = sys.modules.get(name)
    return module is not None and not isinstance(module, _Deferred)
