"""``dataclass``: the standard decorator, with ``__repr__``, ``__eq__`` and ``__hash__``
shared instead of compiled for each class.

Why: the standard decorator writes every method it adds as Python source and compiles it
with ``exec``, one compile per method per class (~0.1 ms each on Python 3.11). A search's
start-up defines ~35 dataclasses; their ``repr``/``eq``/``hash`` compiles were ~11% of the
instructions a search with nothing to read spends (measured with callgrind: 454 M against
405 M with those three left out), paid by every command on every run. Here the standard
decorator still builds ``__init__``, the frozen ``__setattr__``/``__delattr__``, slots,
``__match_args__`` and the fields (so ``fields``, ``replace``, ``asdict`` and pickling are
untouched); the other three are closures over an ``attrgetter`` of the class's fields:

- ``__eq__``: same class, then the compared fields as tuples (so ``nan`` equals itself
  only when it is the same object, as the standard method's tuples do);
- ``__hash__``: the hash of the same tuple the standard method hashes, chosen by the
  standard table (``eq`` + ``frozen`` hash the fields, ``eq`` alone makes instances
  unhashable, a ``__hash__`` the class defines is kept);
- ``__repr__``: ``Name(field=value, …)`` over the ``repr=True`` fields, ``...`` on a cycle.

A method the class body defines is kept, as the standard decorator keeps it. ``order``
and ``unsafe_hash`` go to the standard decorator whole (pysift uses neither).

Two more costs of the standard decorator are left out the same way:

- a frozen class's ``__setattr__`` and ``__delattr__`` are closures over the class and its
  field names, not two more compiles (on Python 3.11 and 3.12, whose decorator makes them
  in ``_frozen_get_del_attr``: that function is swapped for the duration of the call;
  another Python keeps its own). Same test, same errors, same ``super`` call.
- a class without a docstring gets its name as one, where the standard decorator writes
  its name and its ``__init__`` signature (``inspect.signature``, ~0.3 ms a class). No
  pysift output reads a class's docstring.

Measured on the fifteenth session's Intel host: a warm ``search -t user -c`` defines 32
dataclasses, 22 of them frozen; their 76 compiles took ~22 ms, the 44 frozen ones ~12 ms.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from operator import attrgetter
from reprlib import recursive_repr
from typing import Any, TypeVar, dataclass_transform, overload

_C = TypeVar("_C", bound=type)


@overload
def dataclass(cls: _C, /) -> _C: ...
@overload
def dataclass(*, init: bool = True, repr: bool = True, eq: bool = True, order: bool = False,
              unsafe_hash: bool = False, frozen: bool = False, match_args: bool = True,
              kw_only: bool = False, slots: bool = False) -> Callable[[_C], _C]: ...
@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def dataclass(cls: Any = None, /, *, init: bool = True, repr: bool = True, eq: bool = True,
              order: bool = False, unsafe_hash: bool = False, frozen: bool = False,
              match_args: bool = True, kw_only: bool = False, slots: bool = False) -> Any:
    """``dataclasses.dataclass`` with the same parameters and the same result."""
    def wrap(cls: Any) -> Any:
        if order or unsafe_hash:
            return dataclasses.dataclass(cls, init=init, repr=repr, eq=eq, order=order,
                                         unsafe_hash=unsafe_hash, frozen=frozen,
                                         match_args=match_args, kw_only=kw_only, slots=slots)
        body = dict(cls.__dict__)  # what the class itself defines, before the decorator
        if not cls.__doc__:
            cls.__doc__ = cls.__name__
        made = _standard(cls, init=init, frozen=frozen, match_args=match_args,
                         kw_only=kw_only, slots=slots)
        fields = dataclasses.fields(made)
        if repr and "__repr__" not in body:
            made.__repr__ = _repr([f.name for f in fields if f.repr])
        if eq:
            compared = _getter([f.name for f in fields if f.compare])
            if "__eq__" not in body:
                made.__eq__ = _eq(compared)
            explicit = body.get("__hash__", _MISSING)
            if explicit is _MISSING or (explicit is None and "__eq__" in body):
                if frozen:
                    made.__hash__ = _hash(_getter([f.name for f in fields
                                                   if (f.compare if f.hash is None
                                                       else f.hash)]))
                else:
                    made.__hash__ = None
        return made

    return wrap if cls is None else wrap(cls)


_MISSING = object()

# where the standard decorator makes a frozen class's two methods by compiling them (the
# name and signature of Python 3.11's and 3.12's ``dataclasses``; None on another Python)
_FROZEN_MAKER = ("_frozen_get_del_attr"
                 if sys.version_info[:2] in ((3, 11), (3, 12))
                 and hasattr(dataclasses, "_frozen_get_del_attr") else None)


def _standard(cls: Any, **params: Any) -> Any:
    """The standard decorator with ``repr`` and ``eq`` left out, a frozen class's two
    methods made as closures where this Python's decorator allows it."""
    if not params["frozen"] or _FROZEN_MAKER is None:
        return dataclasses.dataclass(cls, repr=False, eq=False, **params)
    compiled = getattr(dataclasses, _FROZEN_MAKER)
    setattr(dataclasses, _FROZEN_MAKER, _frozen_methods)
    try:
        return dataclasses.dataclass(cls, repr=False, eq=False, **params)
    finally:
        setattr(dataclasses, _FROZEN_MAKER, compiled)


def _frozen_methods(cls: type, fields: list[dataclasses.Field[Any]], globals: object
                    ) -> tuple[Callable[..., None], Callable[..., None]]:
    """``dataclasses._frozen_get_del_attr`` as closures: the same test (the class itself,
    or one of its fields by name), the same error, the same ``super`` call."""
    names = tuple(f.name for f in fields)
    error = dataclasses.FrozenInstanceError

    def __setattr__(self: object, name: str, value: object) -> None:
        if type(self) is cls or name in names:
            raise error(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)  # type: ignore[arg-type]

    def __delattr__(self: object, name: str) -> None:
        if type(self) is cls or name in names:
            raise error(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)  # type: ignore[arg-type]

    return __setattr__, __delattr__


def _getter(names: list[str]) -> Callable[[object], tuple[Any, ...]]:
    """The named attributes of an object as a tuple, whatever their number."""
    if len(names) >= 2:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _eq(values: Callable[[object], tuple[Any, ...]]) -> Callable[[object, object], Any]:
    def __eq__(self: object, other: object) -> Any:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented
    return __eq__


def _hash(values: Callable[[object], tuple[Any, ...]]) -> Callable[[object], int]:
    def __hash__(self: object) -> int:
        return hash(values(self))
    return __hash__


def _repr(names: list[str]) -> Callable[[object], str]:
    @recursive_repr()
    def __repr__(self: object) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{self.__class__.__qualname__}({inner})"
    return __repr__
