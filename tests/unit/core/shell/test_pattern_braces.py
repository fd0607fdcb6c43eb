"""A brace in an operand the reading leaves a pattern: ``may_name`` holds every word bash
expands it to (a superset: the quotes are gone by then), and no more than its
alternatives when it is unquoted."""

from __future__ import annotations

import os.path
import shutil
import subprocess
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pysift.core.shell import UNRESOLVED, may_name, mutations
from pysift.core.shell.lexer import tokenize

_BASH = shutil.which("bash")
_PIECES = ["a", "b", "1", "2", "{", "}", ",", "'", "..", "*", "/", "$X", "\\{", "\\}"]


def _bash_words(word: str) -> list[str] | None:
    """What bash makes of ``word`` as one unquoted argument (no pathname expansion), or
    None when bash refuses it (an unbalanced quote)."""
    assert _BASH is not None
    done = subprocess.run([_BASH, "-c", f"set -f; X=X; printf '%s\\0' {word}"],
                          capture_output=True, timeout=10, check=False)
    if done.returncode != 0:
        return None
    return [w.decode() for w in done.stdout.split(b"\0")[:-1]]


def _named(command: str, path: str) -> bool:
    return any(may_name(m, path) or (m.resolution != UNRESOLVED and m.path == path)
               for m in mutations(command, "/w"))


@pytest.mark.skipif(_BASH is None, reason="needs bash")
@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=12))
def test_every_word_bash_expands_a_brace_to_is_named(pieces: list[str]) -> None:
    word = "".join(pieces)
    if "{" not in word:
        return
    expanded = _bash_words(word)
    if expanded is None:
        return
    for name in expanded:  # (X stands for itself: its expansion is any text to the reading)
        path = os.path.normpath(f"/w/{name}")
        if not name or name.startswith(("-", "/")) or path in ("/", "/w"):
            continue
        assert _named(f"rm {word}", path) or _named(f"rm {word}", f"/w/{name}"), (word, name)


@pytest.mark.parametrize("word, other", [
    ("{a,b}.txt", "c.txt"),
    ("{a,{b,c}}.py", "d.py"),
    ("x{1,2}", "x3"),
    ("{a,b}{1,2}", "a3"),
])
def test_an_unquoted_brace_names_only_its_alternatives(word: str, other: str) -> None:
    assert not _named(f"rm {word}", f"/w/{other}")


@pytest.mark.parametrize("word", [
    "{a," * 20 + "b" + "}" * 20,  # 20 nested braces
    "{a,b," * 20 + "c" + "}" * 20,
    "{" * 300 + "a" + "}" * 900,  # literal closes, none with a comma of its own
    "{" + ",".join(f"a{i}" for i in range(200)) + "}.txt",  # 200 alternatives
    "{a," * 6000 + "b}",  # 6,000 unclosed: each had been searched to the end (10 s)
    "{a," * 400 + "b" + "}" * 400,  # 400 nested: each level read through the ones around
    # it had crashed on Python's recursion limit (after 90 s)
])
def test_a_long_brace_word_is_read_at_once(word: str) -> None:
    started = time.monotonic()
    _named(f"rm {word}", "/w/b")
    tokenize(f"ls {word}")
    assert time.monotonic() - started < 2.0  # (it had taken minutes, then hours)


@pytest.mark.parametrize("word, name", [
    ("x{+1..3}", "x2"),  # bash takes a sign on a sequence's numbers
    ("x{1..+3}", "x3"),
    ("x{1..5..+2}", "x3"),
    ("x{a..c..+1}", "xb"),
])
def test_a_sequence_with_a_plus_sign_is_a_pattern(word: str, name: str) -> None:
    assert _named(f"rm {word}", f"/w/{name}")


@pytest.mark.parametrize("word, name", [
    ("{*,+*$X\\{$Xc}", "*"),  # the escaped `{` had paired with the brace's own close
    ("{a,'}'b}", "}b"),  # the quoted `}` had closed the brace
    ("x$X{a,\\}}", "xX}"),
])
def test_a_quoted_brace_among_braces_keeps_every_word_named(word: str, name: str) -> None:
    assert name in (_bash_words(word) or [name])
    assert _named(f"rm {word}", f"/w/{name}")


@pytest.mark.skipif(_BASH is None, reason="needs bash")
@pytest.mark.parametrize("word", [
    "b{,$X}a",  # b$Xa: the name takes the `a` after the brace (`$Xa`, empty): `b`
    ",$Xa/$Xa{2,_ab}",  # $Xa2, $Xa_ab: the name takes the brace's words
    "{2\\}}a$Xa,_}1_a",  # the same among braces an escaped one leaves unpaired
    "$X2{1{},\\},}",
    "a'$'$X_\\{",  # a quoted `$` before an expansion is not `$$`
    "a\\}*{{'$'$$\\}{",  # ... nor before one: `$` and the pid
    "$b..//{11{*2..",  # `$b..` is `..` when b is empty
    "..{1,}//a",  # and `..{1,}` is `..1` or `..`
    "..$'*,/\\{',",  # an ANSI-C quote left undecoded, a `/` in it
    "$'*..$Xa$Xab$1\\}'\\{}",  # a `$` inside one opens nothing
])
def test_a_name_an_expansion_takes_or_a_climb_it_makes_is_named(word: str) -> None:
    expanded = _bash_words(word)
    assert expanded
    for name in expanded:
        path = os.path.normpath(f"/w/{name}")
        assert _named(f"rm {word}", path) or _named(f"rm {word}", f"/w/{name}"), (word, name)
