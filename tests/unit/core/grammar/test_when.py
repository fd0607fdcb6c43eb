"""The WHEN grammar of --since/--until: ISO instants, local dates and times, ages, now."""

from __future__ import annotations

import os
import time
from datetime import UTC, date, datetime, timedelta, timezone
from functools import cache
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pysift.core.grammar.when import parse_when
from pysift.errors import UsageError

SYDNEY = ZoneInfo("Australia/Sydney")
KOLKATA = ZoneInfo("Asia/Kolkata")
NEW_YORK = ZoneInfo("America/New_York")
NOW = datetime(2026, 7, 11, 5, 30, tzinfo=UTC)  # 15:30 AEST in Sydney


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0, *rest: int) -> datetime:
    second, micro = (*rest, 0, 0)[:2]
    return datetime(year, month, day, hour, minute, second, micro, tzinfo=UTC)


# ── absolute forms ──────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-06-07T14:00:00Z", utc(2026, 6, 7, 14)),
        ("2026-06-07T14:00:00.250Z", utc(2026, 6, 7, 14, 0, 0, 250000)),
        ("2026-06-07T14:00+10:00", utc(2026, 6, 7, 4)),
        ("2026-06-07T14:00:00-03:30", utc(2026, 6, 7, 17, 30)),
        ("2026-06-07 14:00:00+0530", utc(2026, 6, 7, 8, 30)),
    ],
)
def test_iso_with_an_offset_is_that_instant_in_any_zone(text: str, expected: datetime) -> None:
    assert parse_when(text, NOW, SYDNEY) == expected
    assert parse_when(text, NOW, KOLKATA) == expected


def test_bare_date_is_local_midnight() -> None:
    assert parse_when("2026-06-07", NOW, SYDNEY) == utc(2026, 6, 6, 14)  # AEST, UTC+10
    assert parse_when("2026-01-07", NOW, SYDNEY) == utc(2026, 1, 6, 13)  # AEDT, UTC+11
    assert parse_when("2026-06-07", NOW, KOLKATA) == utc(2026, 6, 6, 18, 30)


@pytest.mark.parametrize("text", ["2026-06-07T14:00", "2026-06-07 14:00", "2026-06-07T14:00:00"])
def test_bare_datetime_keeps_its_local_time_of_day(text: str) -> None:
    assert parse_when(text, NOW, SYDNEY) == utc(2026, 6, 7, 4)


def test_bare_datetime_with_seconds() -> None:
    assert parse_when("2026-06-07 14:00:05", NOW, KOLKATA) == utc(2026, 6, 7, 8, 30, 5)


def test_result_is_aware_utc() -> None:
    result = parse_when("2026-06-07T14:00", NOW, SYDNEY)
    assert result.tzinfo is UTC


def test_system_zone_when_no_zone_is_given() -> None:
    wall = datetime(2026, 6, 7, 14, 0)
    assert parse_when("2026-06-07T14:00", NOW, None) == wall.astimezone(UTC)


def _system_zone(name: str) -> None:
    os.environ["TZ"] = name  # the autouse fixture restores TZ and re-reads it per test
    time.tzset()


@pytest.mark.parametrize(
    ("zone", "text", "expected"),
    [
        # spring forward 02:00 -> 03:00: 02:30 does not exist; read with EST it is 03:30 EDT
        ("America/New_York", "2026-03-08T02:30", utc(2026, 3, 8, 7, 30)),
        # fall back: 01:30 happens twice; the first (EDT) occurrence
        ("America/New_York", "2026-11-01T01:30", utc(2026, 11, 1, 5, 30)),
        # Santiago skips its midnight: the bare date starts at 01:00 -03, on that day
        ("America/Santiago", "2026-09-06", utc(2026, 9, 6, 4)),
        ("Europe/London", "2026-03-29T01:30", utc(2026, 3, 29, 1, 30)),
        ("Australia/Lord_Howe", "2026-10-04T02:15", utc(2026, 10, 3, 15, 45)),
    ],
)
def test_system_zone_resolves_dst_gaps_past_the_jump(zone: str, text: str,
                                                     expected: datetime) -> None:
    _system_zone(zone)
    assert parse_when(text, NOW, None) == expected
    assert parse_when(text, NOW, ZoneInfo(zone)) == expected


SWITCHING_ZONES = ["America/New_York", "America/Santiago", "Europe/London",
                   "Australia/Lord_Howe", "Asia/Kolkata", "America/Havana"]


@cache
def _switches(zone: str, year: int) -> tuple[datetime, ...]:
    """The naive local wall times at which ``zone`` changed its offset in ``year``."""
    tz, out = ZoneInfo(zone), []
    instant = datetime(year, 1, 1, tzinfo=UTC)
    before = instant.astimezone(tz).utcoffset()
    while instant.year == year:
        instant += timedelta(hours=1)
        local = instant.astimezone(tz)
        if local.utcoffset() != before:
            before = local.utcoffset()
            out.append(local.replace(tzinfo=None))
    return tuple(out)


@st.composite
def near_switches(draw: st.DrawFn) -> tuple[datetime, str]:
    """A wall time within two hours of a DST change of a zone (where a skipped or a
    repeated time lies: a draw over all datetimes hit one about once in a hundred)."""
    zone = draw(st.sampled_from(SWITCHING_ZONES))
    switches = _switches(zone, draw(st.integers(1995, 2039)))
    base = draw(st.sampled_from(switches)) if switches else datetime(2026, 6, 1)
    return base + timedelta(minutes=draw(st.integers(-120, 120))), zone


@given(near_switches())
def test_prop_system_zone_and_zoneinfo_agree(case: tuple[datetime, str]) -> None:
    wall, zone = case
    before = os.environ.get("TZ")
    try:
        _system_zone(zone)
        text = wall.replace(microsecond=0).isoformat()
        assert parse_when(text, NOW, None) == parse_when(text, NOW, ZoneInfo(zone))
    finally:
        _system_zone(before or "UTC")


def test_now_is_the_given_instant() -> None:
    assert parse_when("now", NOW, SYDNEY) == NOW
    assert parse_when(" NOW ", NOW, SYDNEY) == NOW


def test_naive_now_is_taken_as_utc() -> None:
    assert parse_when("now", NOW.replace(tzinfo=None), SYDNEY) == NOW


# ── relative ages ───────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("text", "delta"),
    [
        ("45s", timedelta(seconds=45)),
        ("90m", timedelta(minutes=90)),
        ("2h", timedelta(hours=2)),
        ("-2h", timedelta(hours=2)),
        ("- 2h", timedelta(hours=2)),
        ("0m", timedelta(0)),
    ],
)
def test_clock_ages_are_exact_elapsed_time(text: str, delta: timedelta) -> None:
    assert parse_when(text, NOW, SYDNEY) == NOW - delta


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3d", utc(2026, 7, 8, 5, 30)),
        ("-3d", utc(2026, 7, 8, 5, 30)),
        ("2w", utc(2026, 6, 27, 5, 30)),
        ("2mo", utc(2026, 5, 11, 5, 30)),
        ("1y", utc(2025, 7, 11, 5, 30)),
    ],
)
def test_calendar_ages(text: str, expected: datetime) -> None:
    assert parse_when(text, NOW, SYDNEY) == expected


def test_month_steps_clamp_to_the_end_of_a_shorter_month() -> None:
    end_of_march = datetime(2026, 3, 31, 12, tzinfo=UTC)
    assert parse_when("1mo", end_of_march, ZoneInfo("UTC")) == utc(2026, 2, 28, 12)


def test_day_ages_follow_the_local_wall_clock_across_dst() -> None:
    # Sydney leaves DST on 2026-04-05: 1d before 10:00 AEST on the 5th is 10:00 AEDT on the 4th.
    after_change = datetime(2026, 4, 5, 10, tzinfo=SYDNEY)
    result = parse_when("1d", after_change, SYDNEY)
    assert result == datetime(2026, 4, 4, 10, tzinfo=SYDNEY)
    assert after_change - result == timedelta(hours=25)


def test_hour_ages_stay_exact_across_dst() -> None:
    after_change = datetime(2026, 4, 5, 10, tzinfo=SYDNEY)
    assert after_change - parse_when("24h", after_change, SYDNEY) == timedelta(hours=24)


# ── refusals ────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    "text",
    [
        "",
        "yesterday",
        "2 hours",
        "2H",
        "+2h",
        "2026-06-07T14:00+25:00",
        "2026-06-07T14:00 AEST",
        "2026-02-30",
        "2026",
        "3x",
        # a date followed by an offset or a stray separator: Python's fromisoformat takes
        # any character between date and time, and read these as 10:00 / 05:00 LOCAL
        "2026-06-07+10:00",
        "2026-06-07-05:00",
        "2026-06-07+05",
        "2026-06-07x14:00",
        "2026-06-07Z",
    ],
)
def test_unreadable_input_names_every_accepted_form(text: str) -> None:
    """The error names the common forms in a short line and points at --help, whose text
    (``WHEN_FORMS``) names every form (issue 21 item 17)."""
    from pysift.core.grammar.forms import WHEN_FORMS

    with pytest.raises(UsageError) as caught:
        parse_when(text, NOW, SYDNEY)
    message = str(caught.value)
    assert len(message) < 200 and message.endswith("every form in --help")
    for form in ("2026-06-07", "2026-06-07T14:00", "2h", "now"):
        assert form in message
    for form in ("2026-06-07T14:00:00Z", "local midnight", "2026-06-07 14:00:05", "2mo", "now"):
        assert form in WHEN_FORMS


def test_age_beyond_the_calendar_is_a_usage_error() -> None:
    with pytest.raises(UsageError):
        parse_when("999999y", NOW, SYDNEY)
    with pytest.raises(UsageError):
        parse_when("99999999999999d", NOW, SYDNEY)


def test_flag_prefixes_the_message() -> None:
    with pytest.raises(UsageError, match=r"^--since: cannot read `soon`"):
        parse_when("soon", NOW, SYDNEY, flag="--since")


# ── properties ──────────────────────────────────────────────────────────────

nows = st.datetimes(
    min_value=datetime(1990, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
)
zones = st.sampled_from([SYDNEY, KOLKATA, NEW_YORK, ZoneInfo("UTC"), timezone(timedelta(hours=-3))])
ages = st.tuples(
    st.integers(min_value=0, max_value=500),
    st.sampled_from(["s", "m", "h", "d", "w", "mo", "y"]),
    st.sampled_from(["", "-"]),
)


@given(nows, zones, ages)
def test_prop_relative_forms_are_never_after_now(
    now: datetime, zone: timezone, age: tuple[int, str, str]
) -> None:
    amount, unit, sign = age
    result = parse_when(f"{sign}{amount}{unit}", now, zone)
    assert result <= now
    assert result.tzinfo is UTC


@given(nows, zones, ages)
def test_prop_leading_minus_means_the_same(
    now: datetime, zone: timezone, age: tuple[int, str, str]
) -> None:
    amount, unit, _ = age
    assert parse_when(f"-{amount}{unit}", now, zone) == parse_when(f"{amount}{unit}", now, zone)


offsets = st.integers(min_value=-14 * 60, max_value=14 * 60).map(
    lambda minutes: timezone(timedelta(minutes=minutes))
)


@given(nows, offsets, zones)
def test_prop_iso_round_trip(instant: datetime, offset: timezone, zone: timezone) -> None:
    shown = instant.astimezone(offset)
    assert parse_when(shown.isoformat(), NOW, zone) == instant
    assert parse_when(shown.isoformat(sep=" "), NOW, zone) == instant


@given(
    st.dates(min_value=date(1990, 1, 1), max_value=date(2100, 1, 1)),
    st.sampled_from([SYDNEY, KOLKATA, NEW_YORK, ZoneInfo("UTC")]),
)
def test_prop_bare_date_is_local_midnight(day: date, zone: ZoneInfo) -> None:
    local = parse_when(day.isoformat(), NOW, zone).astimezone(zone)
    assert (local.date(), local.hour, local.minute, local.second) == (day, 0, 0, 0)


@given(nows, zones)
def test_prop_bare_datetime_reads_back_as_the_same_wall_clock(
    instant: datetime, zone: ZoneInfo
) -> None:
    wall = instant.astimezone(zone).replace(tzinfo=None, microsecond=0)  # exists: no DST gap
    local = parse_when(wall.isoformat(), NOW, zone).astimezone(zone)
    assert local.replace(tzinfo=None) == wall
