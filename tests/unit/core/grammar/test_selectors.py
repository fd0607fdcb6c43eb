"""The -t/-T selector grammar: segment prefixes, bare roles, globs, retired values."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pysift.core.grammar.selectors import expand, parse_filter, valid_selectors
from pysift.errors import UsageError
from pysift.model import labels as L

leaves = st.sampled_from(L.ALL)
selectors = st.sampled_from(valid_selectors())


@given(leaves)
def test_prop_every_leaf_is_selected_by_each_of_its_non_role_prefixes(leaf: str) -> None:
    parts = leaf.split(".")
    for i in range(2, len(parts) + 1):
        assert leaf in expand(".".join(parts[:i]))
    assert leaf in expand(parts[0] + ".*")


@given(selectors)
def test_prop_a_selector_never_reaches_outside_its_prefix(selector: str) -> None:
    for leaf in expand(selector):
        assert leaf == selector or leaf.startswith(selector + ".")


@given(st.lists(selectors, min_size=1, max_size=3), st.lists(selectors, max_size=2))
def test_prop_include_minus_exclude_is_the_set_difference(inc: list[str],
                                                          exc: list[str]) -> None:
    wanted = set().union(*(expand(s) for s in inc)) - set().union(*(expand(s) for s in exc))
    if not wanted:
        with pytest.raises(UsageError):
            parse_filter(inc, exc)
    else:
        assert parse_filter(inc, exc).allowed == wanted


def test_bare_role_means_its_llm_visible_leaves() -> None:
    assert expand("user") == {L.USER_MESSAGE, L.USER_ANSWER, L.USER_REJECTION}
    assert L.HARNESS_COMPACTION_BOUNDARY not in expand("harness")
    assert L.HARNESS_COMPACTION_BOUNDARY in expand("harness.compaction")
    assert L.USER_UNSENT in expand("user.*")


def test_no_selector_means_every_ungated_leaf() -> None:
    filt = parse_filter()
    assert filt.allowed == set(L.ALL) - L.GATED
    assert not filt.gates


def test_explicit_selector_opens_the_gates_it_reaches() -> None:
    assert parse_filter(["harness.meta"]).gates == L.GATED - {L.USER_QUEUED}
    assert parse_filter(["user.queued"]).gates == {L.USER_QUEUED}


@pytest.mark.parametrize(("retired", "successor"), [("thinking", "agent.thinking"),
                                                   ("tool-response", "agent.tool.result")])
def test_retired_flat_values_name_their_successor(retired: str, successor: str) -> None:
    with pytest.raises(UsageError, match=successor):
        parse_filter([retired])


def test_unknown_selector_lists_the_valid_ones() -> None:
    with pytest.raises(UsageError, match=r"valid selectors: user, user\.message"):
        parse_filter(["agent.toolz"])


def test_statically_empty_combination_is_an_error() -> None:
    with pytest.raises(UsageError, match="leaves nothing"):
        parse_filter(["user"], ["user"])


def test_comma_joined_values_split() -> None:
    assert parse_filter(["user.message,agent.message"]).allowed == {L.USER_MESSAGE,
                                                                   L.AGENT_MESSAGE}
