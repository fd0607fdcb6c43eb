"""The positional TARGET grammar: every spelling, every refusal (SPEC §2.3, §6.2, §6.3a)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from pysift.core.grammar.targets import (
    TargetKind,
    is_trivial_digits,
    parse_target,
    validate_trap_marker,
)
from pysift.errors import TargetError

UUID = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
TOO_SHORT = "too short for a session-uuid prefix — needs 4-11 leading (dashless) hex chars"


def kind_of(token: str, cwd: Path | None = None) -> TargetKind:
    return parse_target(token, cwd=cwd or Path("/nowhere")).kind


@pytest.mark.parametrize(
    ("token", "kind", "value"),
    [
        ("@main", TargetKind.MAIN, "main"),
        (f"@{UUID}", TargetKind.UUID, UUID),
        (f"@{UUID.upper()}", TargetKind.UUID, UUID),
        ("@13d9", TargetKind.UUID_PREFIX, "13d9"),
        ("@13d9645a", TargetKind.UUID_PREFIX, "13d9645a"),
        ("@13d9645a-3a5b", TargetKind.UUID_PREFIX, "13d9645a-3a5b"),
        ("@a45c98b", TargetKind.UUID_PREFIX, "a45c98b"),  # short legacy agent id
        ("@a4ca7529859c158c2", TargetKind.AGENT, "a4ca7529859c158c2"),
        ("@aVSRepro-68a2a1661c9390c1", TargetKind.AGENT, "aVSRepro-68a2a1661c9390c1"),
        ("@aP1-engine-9cf2f06d6235ca64", TargetKind.AGENT, "aP1-engine-9cf2f06d6235ca64"),
        ("@acompact-ff065a", TargetKind.AGENT, "acompact-ff065a"),
        ("@aprompt_suggestion-d7b8fc", TargetKind.AGENT, "aprompt_suggestion-d7b8fc"),
        ("@-Users-ada-src", TargetKind.ENCODED_DIR, "-Users-ada-src"),
        ("@--server-share-x", TargetKind.ENCODED_DIR, "--server-share-x"),
        ("@C--Users-x", TargetKind.ENCODED_DIR, "C--Users-x"),
        ("@-", TargetKind.ENCODED_DIR, "-"),
        ("@trap:CrimsonWillowFen5180", TargetKind.TRAP, "CrimsonWillowFen5180"),
    ],
)
def test_at_grammar(token: str, kind: TargetKind, value: str) -> None:
    parsed = parse_target(token)
    assert (parsed.kind, parsed.value, parsed.raw) == (kind, value, token)
    assert not parsed.may_be_path


@pytest.mark.parametrize("token", ["@a", "@22", "@224", "@ABC"])
def test_one_to_three_hex_gets_the_dedicated_message(token: str) -> None:
    with pytest.raises(TargetError, match=re.escape(TOO_SHORT)):
        parse_target(token)


@pytest.mark.parametrize("token", ["@", "@foo", "@main2", "@Users-x", "@x.jsonl", "@a b", "@tra"])
def test_unrecognized_at_token_names_the_grammar(token: str) -> None:
    with pytest.raises(TargetError, match=r"not a recognized @-target — expected `@<uuid>`"):
        parse_target(token)


def test_bare_uuid_asks_for_the_at_form(tmp_path: Path) -> None:
    with pytest.raises(TargetError, match=f"did you mean '@{UUID}'"):
        parse_target(UUID, cwd=tmp_path)


@pytest.mark.parametrize("token", ["13d9645a", "a4ca7529859c158c2", "aVSRepro-68a2a1661c9390c1"])
def test_bare_prefix_or_agent_id_asks_for_the_at_form(token: str, tmp_path: Path) -> None:
    with pytest.raises(TargetError, match="looks like a session/agent id"):
        parse_target(token, cwd=tmp_path)


def test_bare_id_shaped_name_of_an_existing_dir_is_a_path(tmp_path: Path) -> None:
    (tmp_path / "beef").mkdir()
    assert kind_of("beef", tmp_path) is TargetKind.PATH


def test_bare_encoded_dirs() -> None:
    unix = parse_target("-Users-ada-src")
    assert (unix.kind, unix.may_be_path) == (TargetKind.ENCODED_DIR, False)
    drive = parse_target("C--Users-x")
    assert (drive.kind, drive.may_be_path) == (TargetKind.ENCODED_DIR, True)


def test_bare_unc_token_is_refused_with_the_at_spelling() -> None:
    with pytest.raises(TargetError, match="write `@--server-share`"):
        parse_target("--server-share")


@pytest.mark.parametrize("token", [".", "src/proj", "/abs/proj", "~/proj", "../x", "-Users/x"])
def test_paths(token: str) -> None:
    parsed = parse_target(token, cwd=Path("/w"))
    assert (parsed.kind, parsed.value) == (TargetKind.PATH, token)


def test_jsonl_is_absolutized_even_as_a_bare_basename() -> None:
    cwd = Path("/w/proj")
    assert parse_target("x.jsonl", cwd=cwd).value == "/w/proj/x.jsonl"
    assert parse_target("agent-abc.jsonl", cwd=cwd).value == "/w/proj/agent-abc.jsonl"
    assert parse_target("../y/z.jsonl", cwd=cwd).value == "/w/y/z.jsonl"
    assert parse_target("/abs/z.jsonl", cwd=cwd).value == "/abs/z.jsonl"
    assert parse_target("~/z.jsonl", cwd=cwd, home=Path("/home/ada")).value == "/home/ada/z.jsonl"
    assert parse_target("x.jsonl", cwd=cwd).kind is TargetKind.JSONL


def test_empty_target_is_refused() -> None:
    with pytest.raises(TargetError, match="empty target"):
        parse_target("  ")


def test_id_kinds_are_flagged() -> None:
    assert parse_target(f"@{UUID}").is_id
    assert parse_target("@13d9645a").is_id
    assert parse_target("@aVSRepro-68a2a1661c9390c1").is_id
    assert not parse_target("@main").is_id


# -- @trap marker grammar -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "marker", ["CrimsonWillowFen5180", "AmberOtterQuay4721", "OakMapleFir9051"]
)
def test_valid_markers(marker: str) -> None:
    assert validate_trap_marker(marker) == marker


@pytest.mark.parametrize(
    ("marker", "reason"),
    [
        ("JollyShinyBrook4283", "RESERVED"),
        ("", "empty"),
        ("CrimsonWillowFen", "exactly 4 digits"),
        ("CrimsonWillowFen518", "exactly 4 digits"),
        ("CrimsonWillowFen51806", "exactly 4 digits"),
        ("CrimsonWillowFén5180", "exactly 4 digits"),
        ("CrimsonWillow5180", "EXACTLY 3 CamelCase words"),
        ("CrimsonWillowFenMoss5180", "EXACTLY 3 CamelCase words"),
        ("CrimsonHTMLFen5180", "EXACTLY 3 CamelCase words"),
        ("CrimsonWillowFe5180", "EXACTLY 3 CamelCase words"),
        ("crimsonWillowFen5180", "EXACTLY 3 CamelCase words"),
        ("Crimson_WillowFen5180", "EXACTLY 3 CamelCase words"),
        ("CrimsonWillowFen0000", "trivial run"),
        ("CrimsonWillowFen1234", "trivial run"),
        ("CrimsonWillowFen9876", "trivial run"),
        ("CrimsonWillowFen1357", "trivial run"),
        ("CrimsonWillowFen2468", "trivial run"),
        ("CrimsonWillowFen8642", "trivial run"),
    ],
)
def test_invalid_markers(marker: str, reason: str) -> None:
    with pytest.raises(TargetError, match=reason):
        validate_trap_marker(marker)


def test_trap_token_validates_its_marker() -> None:
    with pytest.raises(TargetError, match="RESERVED"):
        parse_target("@trap:JollyShinyBrook4283")
    with pytest.raises(TargetError, match="trivial run"):
        parse_target("@trap:CrimsonWillowFen1111")


def test_trivial_digit_runs() -> None:
    assert is_trivial_digits("5555")
    assert is_trivial_digits("3456")
    assert is_trivial_digits("6543")
    assert is_trivial_digits("0246")
    assert not is_trivial_digits("1470")  # step 3 is not a simple run
    assert not is_trivial_digits("5180")
    assert not is_trivial_digits("1235")


# -- properties -----------------------------------------------------------------------------------


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
bare_agent_ids = st.builds(lambda t: "a" + t, hex_of(16))
legacy_agent_ids = st.builds(lambda t: "a" + t, hex_of(6))
named_agent_ids = st.builds(
    lambda name, tail: f"a{name}-{tail}",
    st.from_regex(r"[A-Z][A-Za-z0-9]{0,10}(-[A-Za-z0-9]{1,6})?", fullmatch=True),
    st.sampled_from([6, 16]).flatmap(hex_of),
)


@given(uuids)
def test_prop_uuid_and_its_header_tokens_round_trip(uuid: str) -> None:
    assert parse_target(f"@{uuid}").kind is TargetKind.UUID
    assert parse_target(f"@{uuid}").value == uuid
    for cut in (8, 12, 13, 18, 23, 30):  # the 8 / 12 / full header token ladder and more
        token = parse_target(f"@{uuid[:cut]}")
        assert (token.kind, token.value) == (TargetKind.UUID_PREFIX, uuid[:cut])


@given(st.one_of(bare_agent_ids, named_agent_ids))
def test_prop_agent_ids_round_trip(agent_id: str) -> None:
    token = parse_target(f"@{agent_id}")
    assert (token.kind, token.value) == (TargetKind.AGENT, agent_id)


@given(legacy_agent_ids)
def test_prop_short_agent_ids_round_trip_as_id_prefixes(agent_id: str) -> None:
    token = parse_target(f"@{agent_id}")
    assert (token.kind, token.value) == (TargetKind.UUID_PREFIX, agent_id)


@given(st.text(alphabet="0123456789abcdefABCDEF", min_size=1, max_size=3))
def test_prop_one_to_three_hex_chars_are_too_short(token: str) -> None:
    with pytest.raises(TargetError, match=re.escape(TOO_SHORT)):
        parse_target(f"@{token}")


words = st.builds(
    lambda first, rest: first + rest,
    st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=8),
)


@given(words, words, words, st.text(alphabet="0123456789", min_size=4, max_size=4))
def test_prop_generated_valid_markers_are_accepted(a: str, b: str, c: str, digits: str) -> None:
    marker = f"{a}{b}{c}{digits}"
    assume(marker != "JollyShinyBrook4283")
    assume(not is_trivial_digits(digits))
    assert parse_target(f"@trap:{marker}").value == marker


@given(words, words, words, st.integers(0, 9), st.sampled_from([-2, -1, 0, 1, 2]))
def test_prop_trivial_digit_runs_are_rejected(
    a: str, b: str, c: str, start: int, step: int
) -> None:
    values = [start + step * i for i in range(4)]
    assume(all(v in range(10) for v in values))
    marker = f"{a}{b}{c}{''.join(map(str, values))}"
    with pytest.raises(TargetError, match="trivial run"):
        validate_trap_marker(marker)
