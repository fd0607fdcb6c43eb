"""``model.dataclass_inits``: the texts the standard decorator compiles for pysift's
dataclasses, compiled once. Every text must give the code ``exec`` would give it, the file
must hold every text of the tree (else it is stale, and those classes are compiled on
every run), and the classes must find theirs."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
from typing import Any

import pytest

import pysift
from pysift.model import dataclass_inits, fastdata
from unit.model.test_fastdata import code_facts

REPO_SCRIPT = "scripts/gen_dataclass_inits.py"
TESTED_ON = (3, 11)  # the CPython the texts were written by (the decorator's own)


def test_each_text_holds_the_code_exec_makes_of_it() -> None:
    assert len(dataclass_inits.TEXTS) >= 200
    for text, made in dataclass_inits.TEXTS.items():
        space: dict[str, Any] = {}
        exec(compile(text, "<string>", "exec", dont_inherit=True), {}, space)
        assert code_facts(made.__code__) == code_facts(space["__create_fn__"].__code__), text


@pytest.mark.skipif(sys.version_info[:2] != TESTED_ON, reason="the texts are CPython 3.11's")
def test_the_file_holds_the_texts_of_the_tree() -> None:
    from conftest import REPO

    done = subprocess.run([sys.executable, REPO_SCRIPT, "--check"], cwd=REPO,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr + "\n(run python scripts/gen_dataclass_inits.py)"


@pytest.mark.skipif(sys.version_info[:2] != TESTED_ON, reason="the texts are CPython 3.11's")
def test_every_class_made_by_fastdata_found_its_text() -> None:
    """Each pysift dataclass's ``__init__`` came from the file (its code names it), made
    with its own module's globals, as the decorator's ``exec`` makes it."""
    made_here = dataclass_inits.__file__
    checked = 0
    for info in pkgutil.walk_packages(pysift.__path__, "pysift."):
        if info.name.endswith(".__main__"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (isinstance(value, type) and value.__module__ == info.name
                    and "__dataclass_fields__" in vars(value) and "__init__" in vars(value)):
                init = value.__init__  # type: ignore[misc]
                assert init.__code__.co_filename == made_here, value
                assert init.__globals__ is vars(module), value
                checked += 1
    assert checked >= 150


def test_an_unknown_text_is_compiled_as_exec_compiles_it() -> None:
    """A class the file does not know (this test's) is compiled from the decorator's text,
    with no future feature although ``fastdata`` has one."""
    @fastdata.dataclass(frozen=True)
    class Unknown:
        name: str
        count: int = 0

    init = Unknown.__init__  # type: ignore[misc]
    assert init.__code__.co_filename == "<string>"
    assert init.__annotations__ == {"name": "str", "count": "int", "return": None}
    assert Unknown("a") == Unknown("a", 0)
