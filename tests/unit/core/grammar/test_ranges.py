"""The shared range-token grammar (SPEC §6.11, the v0.3 ledger's ONE range grammar)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pysift.core.grammar.ranges import (
    RangeItem,
    RangeSpec,
    describe_items,
    format_range,
    parse_range,
)
from pysift.errors import UsageError

TURNS_OF_10 = (0, 9)  # a 10-turn transcript: 0-based
LINES_OF_200 = (1, 200)  # a 200-line file: 1-based


def values(token: str, lo: int, hi: int) -> list[int]:
    return parse_range(token).resolve(lo, hi)


# ── parsing ─────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("token", "item"),
    [
        ("7", RangeItem(7, 7)),
        ("3..9", RangeItem(3, 9)),
        (" 3 .. 9 ", RangeItem(3, 9)),
        ("40..", RangeItem(40, None)),
        ("..5", RangeItem(None, 5)),
        ("..", RangeItem(None, None)),
        ("-1", RangeItem(1, 1, True, True)),
        ("-3..", RangeItem(3, None, True)),
        ("3..-1", RangeItem(3, 1, False, True)),
        ("-5..-2", RangeItem(5, 2, True, True)),
        ("0", RangeItem(0, 0)),
    ],
)
def test_each_form_parses_to_its_item(token: str, item: RangeItem) -> None:
    assert parse_range(token) == RangeSpec((item,))


def test_comma_list_keeps_items_in_order() -> None:
    spec = parse_range("3,7..9, -2..")
    assert spec.items == (RangeItem(3, 3), RangeItem(7, 9), RangeItem(2, None, True))
    assert format_range(spec) == "3,7..9,-2.."


def test_empty_pieces_between_commas_are_skipped() -> None:
    assert parse_range("3,,4,") == RangeSpec((RangeItem(3, 3), RangeItem(4, 4)))


@pytest.mark.parametrize("token", ["", "  ", ",", " , "])
def test_empty_token_is_a_usage_error(token: str) -> None:
    with pytest.raises(UsageError, match="empty range"):
        parse_range(token)


def test_dash_range_teaches_the_dotdot_spelling() -> None:
    with pytest.raises(UsageError) as caught:
        parse_range("5-9")
    assert "`5-9` is not a range; write 5..9" in str(caught.value)


def test_dash_range_inside_a_list_is_named() -> None:
    with pytest.raises(UsageError, match=r"`495-500` is not a range; write 495\.\.500"):
        parse_range("3,495-500")


def test_reversed_closed_range_is_refused_with_the_fix() -> None:
    with pytest.raises(UsageError, match=r"`9\.\.3` is reversed.*write 3\.\.9"):
        parse_range("9..3")


def test_reversed_from_end_range_is_refused_with_the_fix() -> None:
    with pytest.raises(UsageError, match=r"write -3\.\.-1"):
        parse_range("-1..-3")


def test_minus_zero_is_refused() -> None:
    with pytest.raises(UsageError, match="-1 is the last"):
        parse_range("-0..")


@pytest.mark.parametrize("token", ["a..5", "x", "+3", "3...5", "1.5", "٣", "3 4", "--2"])
def test_tokens_outside_the_grammar_name_the_forms(token: str) -> None:
    with pytest.raises(UsageError, match=r"-k\.\. \(the last k\)"):
        parse_range(token)


def test_flag_prefixes_the_message() -> None:
    with pytest.raises(UsageError, match=r"^--turn: `9\.\.3` is reversed"):
        parse_range("9..3", flag="--turn")


def test_absurdly_long_number_is_a_usage_error_not_a_crash() -> None:
    with pytest.raises(UsageError, match="too large"):
        parse_range("9" * 5000)


def test_item_rejects_impossible_endpoints() -> None:
    with pytest.raises(ValueError, match="invalid range endpoint 0"):
        RangeItem(0, 0, True, True)
    with pytest.raises(ValueError, match="open endpoint"):
        RangeItem(None, 3, True, False)
    with pytest.raises(ValueError, match="invalid range endpoint -1"):
        RangeItem(-1, 3)


# ── resolving ───────────────────────────────────────────────────────────────


def test_explicit_forms_resolve_as_written() -> None:
    assert values("3..5", *TURNS_OF_10) == [3, 4, 5]
    assert values("7", *TURNS_OF_10) == [7]
    assert values("0", *TURNS_OF_10) == [0]


def test_open_forms_take_the_domain_edges() -> None:
    assert values("7..", *TURNS_OF_10) == [7, 8, 9]
    assert values("..2", *TURNS_OF_10) == [0, 1, 2]
    assert values("..", 0, 3) == [0, 1, 2, 3]
    assert values("198..", *LINES_OF_200) == [198, 199, 200]
    assert values("..2", *LINES_OF_200) == [1, 2]


def test_from_end_counts_back_from_the_last_value() -> None:
    assert values("-1", *TURNS_OF_10) == [9]
    assert values("-3..", *TURNS_OF_10) == [7, 8, 9]
    assert values("3..-6", *TURNS_OF_10) == [3, 4]
    assert values("-2", *LINES_OF_200) == [199]
    assert values("-20..", *LINES_OF_200) == list(range(181, 201))


def test_tail_peek_clamps_on_a_short_transcript() -> None:
    assert values("-9..", 0, 1) == [0, 1]


def test_single_from_end_past_the_start_is_empty_not_the_first() -> None:
    assert values("-9", 0, 1) == []


def test_domain_dependent_reversal_resolves_to_nothing() -> None:
    assert values("5..-8", *TURNS_OF_10) == []


def test_explicit_values_outside_the_domain_are_absent() -> None:
    assert values("8..12", *TURNS_OF_10) == [8, 9]
    assert values("99", *TURNS_OF_10) == []
    assert values("0", *LINES_OF_200) == []


def test_list_resolves_to_a_sorted_union_without_duplicates() -> None:
    assert values("7..9,3,8,-1", *TURNS_OF_10) == [3, 7, 8, 9]


def test_empty_domain_resolves_to_nothing() -> None:
    assert values("..", 0, -1) == []
    assert values("-1..", 1, 0) == []


def test_intervals_merge_touching_and_overlapping_items() -> None:
    spec = parse_range("1..3,4..5,9,8..9,20..")
    assert spec.intervals(0, 21) == [(1, 5), (8, 9), (20, 21)]


def test_contains_matches_resolve() -> None:
    spec = parse_range("2..4,-1")
    assert [v for v in range(-2, 12) if spec.contains(v, 0, 9)] == spec.resolve(0, 9)


# ── open vs explicit, misses ────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("token", "is_open"),
    [
        ("3", False),
        ("3..5", False),
        ("3..", True),
        ("..3", True),
        ("..", True),
        ("-2", True),
        ("-2..", True),
        ("3..-1", True),
    ],
)
def test_is_open_marks_the_clamping_forms(token: str, is_open: bool) -> None:
    spec = parse_range(token)
    assert spec.items[0].is_open is is_open
    assert spec.is_open is is_open


def test_a_list_is_open_only_when_every_item_clamps() -> None:
    assert parse_range("-3..,..2").is_open
    assert not parse_range("-3..,5").is_open


def test_missing_names_explicit_items_that_address_nothing() -> None:
    spec = parse_range("1,99,97..98,-5..,0..50,200")
    assert spec.missing(0, 1) == (RangeItem(99, 99), RangeItem(97, 98), RangeItem(200, 200))
    assert describe_items(spec.missing(0, 1), "t") == "t99, t97..t98, t200"


def test_missing_ignores_open_items_even_when_they_resolve_to_nothing() -> None:
    assert parse_range("-9,40..").missing(0, 1) == ()


def test_missing_on_an_empty_domain_lists_every_explicit_item() -> None:
    assert parse_range("0,..3").missing(0, -1) == (RangeItem(0, 0),)


def test_missing_never_expands_a_huge_range() -> None:
    spec = parse_range("5..99999999999")
    assert spec.missing(1, 3) == spec.items
    assert spec.resolve(1, 3) == []


# ── properties ──────────────────────────────────────────────────────────────

counts = st.integers(min_value=0, max_value=10**6)
positions = st.integers(min_value=1, max_value=10**6)


@st.composite
def endpoints(draw: st.DrawFn) -> tuple[int | None, bool]:
    kind = draw(st.sampled_from(["open", "at", "from_end"]))
    if kind == "open":
        return None, False
    if kind == "at":
        return draw(counts), False
    return draw(positions), True


def _statically_reversed(item: RangeItem) -> bool:
    if item.start is None or item.end is None or item.start_from_end != item.end_from_end:
        return False
    return item.end > item.start if item.start_from_end else item.end < item.start


@st.composite
def items(draw: st.DrawFn) -> RangeItem:
    if draw(st.booleans()):
        value, from_end = draw(endpoints().filter(lambda e: e[0] is not None))
        return RangeItem(value, value, from_end, from_end)
    (start, start_fe), (end, end_fe) = draw(endpoints()), draw(endpoints())
    item = RangeItem(start, end, start_fe, end_fe)
    if _statically_reversed(item):
        item = RangeItem(end, start, end_fe, start_fe)
    return item


specs = st.lists(items(), min_size=1, max_size=5).map(lambda xs: RangeSpec(tuple(xs)))
domains = st.tuples(st.integers(0, 1), st.integers(-1, 60))


@given(specs)
def test_prop_round_trip(spec: RangeSpec) -> None:
    assert parse_range(format_range(spec)) == spec


@given(specs, domains)
def test_prop_resolve_stays_in_bounds_sorted_unique(
    spec: RangeSpec, domain: tuple[int, int]
) -> None:
    lo, hi = domain
    resolved = spec.resolve(lo, hi)
    assert all(lo <= v <= hi for v in resolved)
    assert resolved == sorted(set(resolved))


@given(specs, domains)
def test_prop_resolve_is_the_union_of_item_bounds(spec: RangeSpec, domain: tuple[int, int]) -> None:
    lo, hi = domain
    expected: set[int] = set()
    for item in spec.items:
        for v in range(lo, hi + 1):
            first = (
                lo
                if item.start is None
                else (hi - item.start + 1 if item.start_from_end else item.start)
            )
            last = (
                hi if item.end is None else (hi - item.end + 1 if item.end_from_end else item.end)
            )
            if first <= v <= last:
                expected.add(v)
    assert spec.resolve(lo, hi) == sorted(expected)


@given(st.integers(1, 500), st.integers(0, 1), st.integers(0, 300))
def test_prop_last_k_gives_the_last_min_k_n(k: int, lo: int, n: int) -> None:
    hi = lo + n - 1
    resolved = parse_range(f"-{k}..").resolve(lo, hi)
    assert len(resolved) == min(k, n)
    assert resolved == list(range(hi - min(k, n) + 1, hi + 1))


@given(st.integers(0, 10**9), st.integers(1, 10**6))
def test_prop_reversed_closed_range_raises(low: int, gap: int) -> None:
    with pytest.raises(UsageError, match="reversed"):
        parse_range(f"{low + gap}..{low}")
    with pytest.raises(UsageError, match="reversed"):
        parse_range(f"-{low + 1}..-{low + 1 + gap}")


@given(st.integers(0, 10**9), st.integers(0, 10**9))
def test_prop_dash_form_always_raises(a: int, b: int) -> None:
    with pytest.raises(UsageError, match="is not a range; write"):
        parse_range(f"{a}-{b}")


@given(specs, domains)
def test_prop_missing_items_resolve_to_nothing(spec: RangeSpec, domain: tuple[int, int]) -> None:
    lo, hi = domain
    for item in spec.missing(lo, hi):
        assert not item.is_open
        assert RangeSpec((item,)).resolve(lo, hi) == []
