"""Id shape predicates (wire-format §0.2): what routes as a uuid, a prefix, an agent id."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pysift.model.ids import (
    agent_id_from_stem,
    is_agent_id,
    is_bare_agent_hex,
    is_named_agent_id,
    is_session_ref,
    is_uuid,
    is_uuid_layout_prefix,
    is_uuid_prefix,
)

UUID = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"

hex_chars = st.text(alphabet="0123456789abcdef", min_size=1)


def hex_of(n: int) -> st.SearchStrategy[str]:
    return st.text(alphabet="0123456789abcdef", min_size=n, max_size=n)


uuids = st.builds(
    lambda a, b, c, d, e: f"{a}-{b}-{c}-{d}-{e}",
    hex_of(8),
    hex_of(4),
    hex_of(4),
    hex_of(4),
    hex_of(12),
)


def test_uuid_accepts_canonical_layout_only() -> None:
    assert is_uuid(UUID)
    assert is_uuid(UUID.upper())
    assert not is_uuid(UUID[:-1])
    assert not is_uuid(UUID.replace("-", ""))
    assert not is_uuid(UUID + "0")
    assert not is_uuid("0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4g")


@pytest.mark.parametrize(
    "token", ["13d9", "13d9645a", "13d9645a3a5", "13d9645a-", "13d9645a-3a5b", UUID[:35]]
)
def test_uuid_prefix_shapes(token: str) -> None:
    assert is_uuid_prefix(token)


@pytest.mark.parametrize(
    "token",
    ["13d", "", "13d9645a3a5b", UUID, UUID + "0", "13d9-645a", "zzzz", "13d9645a-3a5b-x"],
)
def test_not_uuid_prefix(token: str) -> None:
    assert not is_uuid_prefix(token)


def test_layout_prefix_requires_dashes_at_the_template_positions() -> None:
    assert is_uuid_layout_prefix("0a1b2c3d-4e5f-4a")
    assert not is_uuid_layout_prefix("0a1b2c3d4e5f-4a")
    assert not is_uuid_layout_prefix(UUID)  # a full uuid is not a prefix


def test_bare_agent_hex_is_twelve_or_more_dashless_hex() -> None:
    assert is_bare_agent_hex("a4ca7529859c158c2")
    assert is_bare_agent_hex("0123456789ab")
    assert not is_bare_agent_hex("0123456789a")
    assert not is_bare_agent_hex("a4ca7529-859c158c2")


@pytest.mark.parametrize(
    "agent_id",
    [
        "aVSRepro-68a2a1661c9390c1",
        "aP1-engine-9cf2f06d6235ca64",  # the teammate name itself carries a dash
        "acompact-ff065a",
        "aprompt_suggestion-d7b8fc",
    ],
)
def test_named_agent_ids(agent_id: str) -> None:
    assert is_named_agent_id(agent_id)
    assert is_agent_id(agent_id)


@pytest.mark.parametrize(
    "token",
    [
        "a--Users-x-abcdef",
        "bVSRepro-68a2a1661c9390c1",
        "aVSRepro-68a2",
        "aVSRepro",
        UUID,
        "abcdef12-3456",
    ],
)
def test_not_named_agent_ids(token: str) -> None:
    assert not is_named_agent_id(token)


def test_uuid_starting_with_a_is_never_a_named_agent() -> None:
    assert not is_named_agent_id("a1b2c3d4-4e5f-4a6b-8c7d-9e0f1a2b3c4d")


def test_short_legacy_agent_id_is_a_prefix_token_not_an_agent_id() -> None:
    assert not is_agent_id("a45c98b")
    assert is_uuid_prefix("a45c98b")
    assert is_session_ref("a45c98b")


def test_agent_id_from_stem() -> None:
    assert agent_id_from_stem("agent-a4ca7529859c158c2") == "a4ca7529859c158c2"
    assert agent_id_from_stem("agent-aVSRepro-68a2a1661c9390c1") == "aVSRepro-68a2a1661c9390c1"
    assert agent_id_from_stem("agent-") is None
    assert agent_id_from_stem(UUID) is None


@given(uuids)
def test_prop_every_uuid_is_a_session_ref_and_its_prefixes_are_prefix_tokens(uuid: str) -> None:
    assert is_uuid(uuid)
    assert not is_agent_id(uuid)
    for cut in (4, 8, 11, 9, 13, 20, 35):
        assert is_uuid_prefix(uuid[:cut])


@given(hex_of(16))
def test_prop_minted_bare_agent_ids_route_as_agents(tail: str) -> None:
    agent_id = "a" + tail
    assert is_agent_id(agent_id)
    assert not is_uuid_prefix(agent_id)
    assert agent_id_from_stem("agent-" + agent_id) == agent_id


@given(
    st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_-]{0,20}", fullmatch=True),
    st.integers(min_value=6, max_value=20).flatmap(hex_of),
)
def test_prop_named_agent_ids_route_as_agents(name: str, tail: str) -> None:
    agent_id = f"a{name}-{tail}"
    if is_uuid_layout_prefix(agent_id):  # a hex-only name can spell a layout prefix
        assert is_uuid_prefix(agent_id)
    else:
        assert is_agent_id(agent_id)
