"""``model.fastdata.dataclass`` behaves as ``dataclasses.dataclass`` for every parameter
pysift uses: the same class built by each decorator compares, hashes, prints, freezes,
pickles and replaces alike."""

from __future__ import annotations

import dataclasses
import itertools
import pickle
import re
from typing import Any

import pytest

from pysift.model import fastdata

FLAGS = [dict(zip(("frozen", "slots", "eq", "repr", "kw_only"), combo))
         for combo in itertools.product((False, True), repeat=5)]


def _pair(body: dict[str, Any], **params: Any) -> tuple[type, type]:
    """The same class made by the standard decorator and by ``fastdata``."""
    made = []
    for deco in (dataclasses.dataclass, fastdata.dataclass):
        namespace = {"__annotations__": {"name": "str", "count": "int", "note": "str"},
                     "count": 0,
                     "note": dataclasses.field(default="", compare=False, repr=False),
                     "__module__": __name__, "__qualname__": "Turn", **body}
        made.append(deco(**params)(type("Turn", (), namespace)))
    return made[0], made[1]


def _outcome(action: Any) -> tuple[str, Any]:
    try:
        return ("ok", action())
    except Exception as exc:  # noqa: BLE001 - the kind of failure is what is compared
        return ("raised", type(exc).__name__)


def _unplaced(text: str) -> str:
    """A default ``object.__repr__`` without its address (two objects never share one)."""
    return re.sub(r" at 0x[0-9a-f]+", "", text)


def _behaviour(cls: type) -> list[tuple[str, Any]]:
    a = cls(name="a", count=1, note="x")
    same = cls(name="a", count=1, note="y")  # differs only in a compare=False field
    other = cls(name="b", count=1)
    nan_a, nan_b = cls(name="n", count=float("nan")), cls(name="n", count=float("nan"))

    def set_field() -> object:
        a.count = 5
        return a.count

    def set_other() -> object:  # not a field: a slotted class has nowhere to put it
        a.extra = 1
        return a.extra

    def del_field() -> object:
        del same.note
        return hasattr(same, "note")

    def del_other() -> object:
        del other.extra
        return True

    return [
        _outcome(lambda: _unplaced(repr(a))),
        _outcome(lambda: a == same), _outcome(lambda: a == other), _outcome(lambda: a != same),
        _outcome(lambda: a == ("a", 1)), _outcome(lambda: nan_a == nan_b),
        _outcome(lambda: nan_a == nan_a),  # noqa: PLR0124 - the same object: its tuples say equal
        _outcome(lambda: hash(a) == hash(same)),
        _outcome(lambda: hash(a) == hash(("a", 1))),  # the standard tuple's hash
        _outcome(lambda: cls.__hash__ is None),
        _outcome(lambda: pickle.loads(pickle.dumps(a)) == a),
        _outcome(lambda: _unplaced(repr(dataclasses.replace(a, count=2)))),
        _outcome(lambda: [f.name for f in dataclasses.fields(cls)]),
        _outcome(lambda: dataclasses.asdict(a)),
        _outcome(lambda: getattr(cls, "__match_args__", None)),
        _outcome(set_field), _outcome(set_other), _outcome(del_field), _outcome(del_other),
        _outcome(lambda: pickle.loads(pickle.dumps(a)) == a),  # after the changes above
    ]


@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: ",".join(k for k, v in f.items() if v)
                         or "plain")
def test_same_behaviour_as_the_standard_decorator(flags: dict[str, bool]) -> None:
    standard, fast = _pair({}, **flags)
    assert _behaviour(fast) == _behaviour(standard)
    assert _init_of(fast) == _init_of(standard)


def _init_of(cls: type) -> tuple[Any, ...]:
    """What a class's ``__init__`` is, but where its code was compiled: the annotations
    (the decorator's text is compiled with no future feature, so they are the field types
    themselves, here strings), the defaults, the signature and the code."""
    import inspect

    init = cls.__init__  # type: ignore[misc]
    return (init.__annotations__, init.__defaults__, init.__kwdefaults__, init.__qualname__,
            str(inspect.signature(init)), code_facts(init.__code__))


def code_facts(code: Any) -> tuple[Any, ...]:
    """A code object's every part but where it was compiled (file name, line numbers and
    the position tables that hold them), its nested code objects alike."""
    consts = tuple(code_facts(c) if hasattr(c, "co_code") else c for c in code.co_consts)
    return (code.co_code, consts, code.co_names, code.co_varnames, code.co_freevars,
            code.co_cellvars, code.co_argcount, code.co_posonlyargcount,
            code.co_kwonlyargcount, code.co_flags, code.co_name, code.co_qualname,
            code.co_stacksize, code.co_nlocals, code.co_exceptiontable)


def test_the_standard_module_keeps_its_exec() -> None:
    """``exec`` is ``fastdata``'s only while its decorator runs, even when it fails."""
    @fastdata.dataclass
    class Kept:
        x: int

    with pytest.raises(TypeError):  # a field without a default after one with a default
        @fastdata.dataclass
        class Refused:
            x: int = 0
            y: int  # type: ignore[misc]

    assert "exec" not in vars(dataclasses)


@pytest.mark.parametrize("frozen", [False, True])
@pytest.mark.parametrize("body", [
    {"__eq__": lambda self, other: True},  # an eq of its own: the class keeps it, unhashable
    {"__eq__": lambda self, other: True, "__hash__": lambda self: 7},
    {"__hash__": lambda self: 7},
    {"__repr__": lambda self: "mine"},
], ids=["own-eq", "own-eq-and-hash", "own-hash", "own-repr"])
def test_methods_the_class_defines_are_kept(body: dict[str, Any], frozen: bool) -> None:
    if "__eq__" in body and "__hash__" not in body:
        body = {**body, "__hash__": None}  # what a class statement does for an own __eq__
    standard, fast = _pair(body, frozen=frozen)
    assert _behaviour(fast) == _behaviour(standard)


def test_a_subclass_compares_and_hashes_its_own_fields() -> None:
    @fastdata.dataclass(frozen=True)
    class Base:
        a: int

    @fastdata.dataclass(frozen=True)
    class Child(Base):
        b: int = 0

    assert Child(1, 2) != Child(1, 3)
    assert hash(Child(1, 2)) == hash((1, 2))
    assert Child(1, 2) != Base(1)  # another class: never equal, as the standard one says
    assert repr(Child(1, 2)) == "test_a_subclass_compares_and_hashes_its_own_fields.<locals>.Child(a=1, b=2)"


def test_a_cycle_prints_as_an_ellipsis() -> None:
    @fastdata.dataclass
    class Node:
        next: object = None

    node = Node()
    node.next = node
    assert repr(node).endswith("Node(next=...)")


def test_order_goes_to_the_standard_decorator_whole() -> None:
    @fastdata.dataclass(order=True, frozen=True)
    class Pair:
        a: int
        b: int

    assert Pair(1, 2) < Pair(1, 3)
    assert hash(Pair(1, 2)) == hash((1, 2))


def test_a_frozen_class_leaves_the_standard_module_as_it_was() -> None:
    maker = fastdata._FROZEN_MAKER
    before = getattr(dataclasses, maker) if maker else None

    @fastdata.dataclass(frozen=True)
    class Point:
        x: int

    with pytest.raises(TypeError):  # the standard decorator refuses it: the swap is undone
        @fastdata.dataclass(frozen=True)
        class Thawed(Point):
            __setattr__ = object.__setattr__

    if maker:
        assert getattr(dataclasses, maker) is before
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'x'"):
        Point(1).x = 2  # type: ignore[misc]


def test_a_class_without_a_docstring_is_named_by_its_name() -> None:
    @fastdata.dataclass
    class Plain:
        x: int

    assert Plain.__doc__ == "Plain"
