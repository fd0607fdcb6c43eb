"""Where a brace closes: ``brace_end`` read every opener of a word in two passes, and it
answers as the plain search from each ``{`` does (kept here as the definition)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pysift.core.shell.lexer import _SEQUENCE, brace_end, brace_spans


def _searched(text: str, at: int) -> int:
    """The search from the ``{`` at ``at``: nested braces close first; a ``}`` back at
    its level closes it when its body so far holds a comma of its own (not one inside a
    nested brace) or is a sequence with no brace in it, else it is a literal one."""
    depth = 0
    cut = 0
    comma = braced = False
    for j in range(at, len(text)):
        char = text[j]
        if char == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                if comma or (not braced and _SEQUENCE.fullmatch(text, at + 1, j)):
                    return j
                depth = 1
        if j == at:
            continue
        if char == "{":
            cut += 1
            braced = True
        elif char == "}":
            cut = max(0, cut - 1)
            braced = True
        elif char == "," and not cut:
            comma = True
    return -1


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(["{", "}", ",", "a", "1", "..", "$", "/"]), max_size=40))
def test_every_opener_closes_where_the_search_from_it_closes(pieces: list[str]) -> None:
    text = "".join(pieces)
    for at, char in enumerate(text):
        if char == "{":
            assert brace_end(text, at) == _searched(text, at), (text, at)


def test_the_literal_close_and_the_nested_ones() -> None:
    assert brace_end("a{b}c,d}", 1) == 7  # ``{b}`` has no comma: its ``}`` is a literal one
    assert brace_end("{a,{b,c}}", 0) == 8
    assert brace_end("{a,{b,c}}", 3) == 7
    assert brace_end("{1..3}", 0) == 5
    assert brace_end("{a{x}..b}", 0) == -1  # a sequence holds no brace
    assert brace_end("{a,{b", 0) == -1  # nothing balances the nested one: no close after it
    assert brace_spans("x{a,b}y{c}") == [(1, 6)]
