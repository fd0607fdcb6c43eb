"""Timestamps: one canonical local text form, and the JSON `_utc`/`_local` pair."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pysift.core.timez import (
    MISSING,
    format_duration_ms,
    format_local,
    local_iso,
    parse_ts,
    text_ts,
    ts_pair,
)

SYDNEY = ZoneInfo("Australia/Sydney")
KOLKATA = ZoneInfo("Asia/Kolkata")
ZONE_UTC = ZoneInfo("UTC")

JULY = "2026-07-11T05:33:37.442Z"  # Sydney winter: AEST, UTC+10
JANUARY = "2026-01-11T05:33:37.442Z"  # Sydney summer: AEDT, UTC+11

# ── parse_ts ────────────────────────────────────────────────────────────────


def test_transcript_timestamp_parses_to_aware_utc() -> None:
    parsed = parse_ts("2026-06-07T05:43:00.000Z")
    assert parsed == datetime(2026, 6, 7, 5, 43, tzinfo=UTC)
    assert parsed is not None
    assert parsed.utcoffset() == timedelta(0)


def test_offset_timestamps_are_normalised_to_utc() -> None:
    parsed = parse_ts("2026-06-07T15:43:00+10:00")
    assert parsed == datetime(2026, 6, 7, 5, 43, tzinfo=UTC)
    assert parsed is not None
    assert parsed.tzinfo == UTC


@pytest.mark.parametrize(
    "raw",
    [None, "", "garbage", "2026-06-07", "2026-06-07T05:43:00", "2026-13-01T00:00:00Z", 17, b"x"],
)
def test_unusable_values_give_none_without_raising(raw: object) -> None:
    assert parse_ts(raw) is None  # type: ignore[arg-type]


# ── format_local / text_ts ──────────────────────────────────────────────────


def test_sydney_winter_and_summer_carry_their_own_marker() -> None:
    assert text_ts(JULY, SYDNEY) == "2026-07-11 15:33:37 AEST(UTC+10)"
    assert text_ts(JANUARY, SYDNEY) == "2026-01-11 16:33:37 AEDT(UTC+11)"


def test_fractional_offset_is_zero_padded() -> None:
    assert text_ts(JULY, KOLKATA) == "2026-07-11 11:03:37 IST(UTC+05:30)"


def test_utc_zone_renders_compact_zero_offset() -> None:
    assert text_ts(JULY, ZONE_UTC) == "2026-07-11 05:33:37 UTC(UTC+0)"


def test_negative_offsets_whole_and_fractional() -> None:
    assert text_ts(JULY, ZoneInfo("America/Denver")) == "2026-07-10 23:33:37 MDT(UTC-6)"
    assert text_ts(JULY, ZoneInfo("America/St_Johns")) == "2026-07-11 03:03:37 NDT(UTC-02:30)"


@pytest.mark.parametrize(
    ("zone", "expected"),
    [
        (ZoneInfo("America/Sao_Paulo"), "2026-07-11 02:33:37 (UTC-3)"),  # tzname "-03"
        (timezone(timedelta(hours=5, minutes=30)), "2026-07-11 11:03:37 (UTC+05:30)"),
    ],
)
def test_zone_without_an_alphabetic_abbreviation_shows_the_offset_alone(
    zone: timezone, expected: str
) -> None:
    assert text_ts(JULY, zone) == expected


def test_millis_variant_keeps_the_same_marker() -> None:
    assert text_ts(JULY, SYDNEY, millis=True) == "2026-07-11 15:33:37.442 AEST(UTC+10)"
    assert text_ts("2026-07-11T05:33:37Z", SYDNEY, millis=True).endswith(":37.000 AEST(UTC+10)")


def test_text_never_echoes_the_utc_string() -> None:
    assert JULY not in text_ts(JULY, SYDNEY)
    assert "Z" not in text_ts(JULY, SYDNEY)


def test_missing_timestamp_is_an_em_dash() -> None:
    assert text_ts(None) == MISSING == "—"
    assert text_ts("   ") == "—"


def test_unparseable_timestamp_is_surfaced_not_dropped() -> None:
    assert text_ts("not-a-time", SYDNEY) == "not-a-time (unparsed)"


def test_unparseable_timestamp_stays_on_one_line_and_bounded() -> None:
    shown = text_ts("bad\n" + "x" * 500, SYDNEY)
    assert "\n" not in shown
    assert shown.endswith("… (+440 chars) (unparsed)")


def test_format_local_takes_a_naive_datetime_as_utc() -> None:
    assert format_local(datetime(2026, 7, 11, 5, 33, 37), SYDNEY) == (
        "2026-07-11 15:33:37 AEST(UTC+10)"
    )


def test_system_zone_is_used_when_no_zone_is_given() -> None:
    instant = parse_ts(JULY)
    assert instant is not None
    local = instant.astimezone()
    assert format_local(instant).startswith(f"{local:%Y-%m-%d %H:%M:%S} ")


# ── local_iso / ts_pair ─────────────────────────────────────────────────────


def test_local_iso_is_seconds_precision_with_a_colon_offset() -> None:
    assert local_iso(JULY, SYDNEY) == "2026-07-11T15:33:37+10:00"
    assert local_iso(JULY, KOLKATA) == "2026-07-11T11:03:37+05:30"
    assert local_iso(JULY, ZONE_UTC) == "2026-07-11T05:33:37+00:00"
    assert local_iso(JULY, ZoneInfo("America/St_Johns")) == "2026-07-11T03:03:37-02:30"


def test_local_iso_is_none_for_missing_or_unparseable() -> None:
    assert local_iso(None) is None
    assert local_iso("garbage") is None


def test_ts_pair_passes_the_utc_string_through_verbatim() -> None:
    assert ts_pair("ts", JULY, SYDNEY) == {
        "ts_utc": JULY,
        "ts_local": "2026-07-11T15:33:37+10:00",
    }
    assert ts_pair("first", None) == {"first_utc": None, "first_local": None}
    assert ts_pair("last", "garbage") == {"last_utc": "garbage", "last_local": None}
    assert ts_pair("ts", 12345) == {"ts_utc": None, "ts_local": None}  # type: ignore[arg-type]


# ── properties ──────────────────────────────────────────────────────────────

instants = st.datetimes(
    min_value=datetime(1971, 1, 1), max_value=datetime(2200, 1, 1), timezones=st.just(UTC)
)
zones = st.sampled_from(
    [SYDNEY, KOLKATA, ZONE_UTC, ZoneInfo("America/St_Johns"), ZoneInfo("America/Sao_Paulo")]
)


def _transcript_form(instant: datetime) -> str:
    return instant.strftime("%Y-%m-%dT%H:%M:%S.") + f"{instant.microsecond // 1000:03d}Z"


@given(instants)
def test_prop_transcript_form_round_trips_to_the_millisecond(instant: datetime) -> None:
    assert parse_ts(_transcript_form(instant)) == instant.replace(
        microsecond=instant.microsecond // 1000 * 1000
    )


@given(instants, zones)
def test_prop_local_iso_names_the_same_instant(instant: datetime, zone: ZoneInfo) -> None:
    iso = local_iso(_transcript_form(instant), zone)
    assert iso is not None
    assert datetime.fromisoformat(iso) == instant.replace(microsecond=0)


@given(instants, zones)
def test_prop_text_form_offset_matches_the_local_clock(instant: datetime, zone: ZoneInfo) -> None:
    shown = format_local(instant, zone)
    clock, marker = shown.rsplit(" ", 1)
    local = instant.astimezone(zone)
    assert clock == f"{local:%Y-%m-%d %H:%M:%S}"
    offset_minutes = int(local.utcoffset().total_seconds()) // 60  # type: ignore[union-attr]
    sign = "-" if offset_minutes < 0 else "+"
    hours, minutes = divmod(abs(offset_minutes), 60)
    expected = f"UTC{sign}{hours}" if minutes == 0 else f"UTC{sign}{hours:02d}:{minutes:02d}"
    assert marker.endswith(f"({expected})")


@given(st.text())
def test_prop_text_ts_never_raises_and_is_one_line(raw: str) -> None:
    shown = text_ts(raw, SYDNEY)
    assert shown
    assert "\n" not in shown


def test_text_stamper_agrees_with_text_ts() -> None:
    """The per-minute splice of the seconds renders exactly what text_ts renders, on
    both sides of DST changes and for every other shape."""
    from datetime import timedelta as _td
    from zoneinfo import ZoneInfo

    from pysift.core.timez import text_stamper, text_ts

    for zone in ("Australia/Sydney", "America/New_York", "Asia/Kolkata", "UTC",
                 "Australia/Lord_Howe", "Africa/Monrovia"):
        tz = ZoneInfo(zone)
        stamp = text_stamper(tz)
        start = datetime(2026, 4, 4, 14, 58, 0, tzinfo=UTC)  # Sydney leaves DST at 16:00Z
        raws = [(start + _td(seconds=37 * k)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
                for k in range(400)]
        raws += ["1900-01-01T10:00:05.000Z", "2026-03-08T06:59:59.999Z",
                 "2026-03-08T07:00:00.000Z", "2026-01-01T00:00:60.000Z", None, "",
                 "garbage", "2026-01-01T10:00:00+02:00"]
        for raw in raws:
            assert stamp(raw) == text_ts(raw, tz), (zone, raw)


def test_text_stamper_hourly_splice_agrees_with_text_ts() -> None:
    """The per-hour splice (minutes and seconds spliced into the hour's rendering) renders
    exactly what text_ts renders: zones a quarter or half hour off UTC (whose local hour
    a UTC hour straddles), a change of offset or of name inside an hour, the system zone,
    a spread of instants over the years, and minutes that are not clock minutes."""
    import random
    from datetime import timedelta as _td
    from zoneinfo import ZoneInfo

    from pysift.core.timez import text_stamper, text_ts

    rng = random.Random(7)
    zones = [ZoneInfo(z) for z in ("Asia/Kathmandu", "Australia/Adelaide", "America/St_Johns",
                                   "Europe/London", "Australia/Lord_Howe", "Pacific/Chatham",
                                   "America/Caracas", "Asia/Tehran")]
    for tz in [*zones, None, UTC]:
        stamp = text_stamper(tz)
        base = datetime(2026, 4, 4, 14, 0, 0, tzinfo=UTC)  # Adelaide leaves DST at 16:30Z
        raws = [(base + _td(seconds=61 * k)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
                for k in range(300)]
        epoch = datetime(1890, 1, 1, tzinfo=UTC)
        raws += [(epoch + _td(seconds=rng.randrange(0, 5_000_000_000))).strftime(
            "%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z" for _ in range(400)]
        raws += ["2026-01-01T10:61:00.000Z", "2026-01-01T25:00:00.000Z",
                 "9999-12-30T10:59:59.999Z", "0001-01-02T13:00:00.000Z"]
        for raw in raws:
            assert stamp(raw) == text_ts(raw, tz), (tz, raw)


# zones with DST, whole-hour, half- and quarter-hour offsets, a half-hour DST shift
# (Lord Howe), a 45-minute offset with DST (Chatham), and a day skipped (Apia, 2011)
_STAMP_ZONES = [ZoneInfo(z) for z in (
    "Australia/Sydney", "America/New_York", "Europe/London", "Asia/Kolkata",
    "Asia/Kathmandu", "Australia/Lord_Howe", "Pacific/Chatham", "America/St_Johns",
    "Pacific/Apia", "Africa/Monrovia", "Asia/Tehran", "UTC")]
# instants around the DST changes of 2026 in several of those zones, and anywhere
_EDGES = [datetime(2026, 4, 4, 15, 0, tzinfo=UTC), datetime(2026, 10, 3, 16, 0, tzinfo=UTC),
          datetime(2026, 3, 8, 7, 0, tzinfo=UTC), datetime(2026, 11, 1, 6, 0, tzinfo=UTC),
          datetime(2026, 3, 29, 1, 0, tzinfo=UTC), datetime(2026, 4, 4, 14, 30, tzinfo=UTC),
          datetime(2026, 4, 4, 13, 45, tzinfo=UTC), datetime(2011, 12, 30, 10, 0, tzinfo=UTC)]


def _canonical(instant: datetime) -> str:
    return instant.strftime("%Y-%m-%dT%H:%M:%S.") + f"{instant.microsecond // 1000:03d}Z"


def _foreign_digit(stamp: str, at: int, digit: str) -> str:
    """``stamp`` with its ``at``-th digit written in another script (Arabic-Indic,
    fullwidth, mathematical bold, Gurmukhi: each a Unicode decimal digit that ``int``
    reads but no timestamp parser takes)."""
    places = [i for i, c in enumerate(stamp) if c.isdigit()]
    i = places[at % len(places)]
    return stamp[:i] + digit + stamp[i + 1:]


@given(st.sampled_from([*_STAMP_ZONES, None]),
       st.lists(st.one_of(
           st.tuples(st.sampled_from(_EDGES), st.integers(-3 * 3600, 3 * 3600),
                     st.integers(0, 999)).map(
               lambda e: _canonical(e[0] + timedelta(seconds=e[1], milliseconds=e[2]))),
           st.integers(-2_000_000_000, 4_000_000_000).map(
               lambda s: _canonical(datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=s))),
           st.text(alphabet="0123456789-T:.Z+ ", max_size=26),
           st.tuples(st.sampled_from(_EDGES), st.integers(0, 16),
                     st.sampled_from(["\u0663", "\uff13", "\U0001d7d1", "\u0a69"])).map(
               lambda e: _foreign_digit(_canonical(e[0]), e[1], e[2]))), max_size=40))
def test_prop_text_stamper_renders_what_text_ts_renders(zone: ZoneInfo | None,
                                                        raws: list[str]) -> None:
    """One stamper over a run of stamps (its hour and minute memos filled as it goes)
    renders each exactly as the unmemoized ``text_ts`` (``iso_stamper``: ``local_iso``):
    across DST changes, in zones a half or a quarter hour off UTC (a UTC hour spans two
    local hours), in the system zone, and for strings of any other shape (a digit of
    another script included)."""
    from pysift.core.timez import iso_stamper, text_stamper

    stamp, iso = text_stamper(zone), iso_stamper(zone)
    for raw in raws + raws[::-1]:  # again, from the memos
        assert stamp(raw) == text_ts(raw, zone), (zone, raw)
        assert iso(raw) == local_iso(raw, zone), (zone, raw)
    assert iso(None) is None and stamp(None) == text_ts(None, zone)


@pytest.fixture
def system_zone():  # type: ignore[no-untyped-def]
    """Set the system zone (``TZ``, re-read by the C library) for one test."""
    import os
    import time

    before = os.environ.get("TZ")

    def set_zone(name: str) -> None:
        os.environ["TZ"] = name
        time.tzset()

    yield set_zone
    if before is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = before
    time.tzset()


@pytest.mark.parametrize("zone", [
    "Australia/Sydney", "America/St_Johns", "Asia/Kathmandu", "Australia/Lord_Howe",
    "Pacific/Chatham", "Pacific/Apia", "Africa/Monrovia", "Europe/Dublin", "Pacific/Kiritimati",
    "America/Adak", "Etc/GMT+12", "Etc/GMT-14", "UTC", "<+0530>-5:30", "EST5EDT,M3.2.0,M11.1.0"])
def test_the_system_zone_stamper_reads_what_astimezone_reads(system_zone, zone: str) -> None:  # type: ignore[no-untyped-def]
    """In the system zone the splicer reads each hour off the C library's ``localtime``
    (``datetime.astimezone()`` reads the same): every stamp renders as the datetime path
    renders it, across DST changes, LMT offsets with seconds, the first and last years a
    datetime holds, and POSIX rule strings."""
    import random

    from pysift.core.timez import iso_stamper, text_stamper

    system_zone(zone)
    rng = random.Random(zone)
    raws = [_canonical(edge + timedelta(minutes=7 * k, seconds=k % 60))
            for edge in _EDGES for k in range(-40, 40)]
    raws += [_canonical(datetime(1970, 1, 1, tzinfo=UTC) + timedelta(
        seconds=rng.randrange(-4_000_000_000, 8_000_000_000))) for _ in range(600)]
    raws += ["0001-01-01T00:00:00.000Z", "0001-01-01T13:30:00.000Z", "9999-12-31T23:59:59.999Z",
             "9999-12-31T10:00:00.000Z", "1883-11-18T17:00:00.000Z", "1900-01-01T00:30:00.000Z"]
    stamp, iso = text_stamper(None), iso_stamper(None)
    for raw in raws + raws[::-1]:
        assert stamp(raw) == text_ts(raw, None), (zone, raw)
        assert iso(raw) == local_iso(raw, None), (zone, raw)


def test_text_stamper_through_every_minute_of_a_dst_day() -> None:
    """Every minute (at its 0th and 59th second) of the days Lord Howe (a half-hour
    shift) and Sydney leave and enter DST, through one stamper each."""
    from pysift.core.timez import iso_stamper, text_stamper

    for zone in (ZoneInfo("Australia/Lord_Howe"), SYDNEY, ZoneInfo("America/St_Johns")):
        stamp, iso = text_stamper(zone), iso_stamper(zone)
        for day in (datetime(2026, 4, 4, tzinfo=UTC), datetime(2026, 10, 3, tzinfo=UTC),
                    datetime(2026, 3, 8, tzinfo=UTC), datetime(2026, 11, 1, tzinfo=UTC)):
            for minute in range(24 * 60):
                for second in (0, 59):
                    raw = _canonical(day + timedelta(minutes=minute, seconds=second))
                    assert stamp(raw) == text_ts(raw, zone), (zone, raw)
                    assert iso(raw) == local_iso(raw, zone), (zone, raw)


@pytest.mark.parametrize(
    ("ms", "human"),
    [(0, "0s"), (499, "0s"), (999, "1s"), (12_000, "12s"), (64_911, "1m 5s"),
     (3_600_000, "1h 0m"), (7_380_000, "2h 3m"), (926_676_611, "10d 17h")],
)
def test_duration_format_keeps_the_top_two_units(ms: int, human: str) -> None:
    assert format_duration_ms(ms) == human


@pytest.mark.parametrize(
    ("ms", "span"),
    [(0, "0s"), (59_499, "59s"), (64_911, "1m05s"), (3_600_000, "1h00m"),
     (5_400_000, "1h30m"), (7_380_000, "2h03m"), (926_676_611, "10d17h"),
     (86_400_000 * 3 + 3_600_000 * 4, "3d04h")],
)
def test_a_stats_span_is_csifts_compact_form(ms: int, span: str) -> None:
    """Issue 21 item 12: stats printed `(1m 5s)`, `(1h 30m)`; csift prints `1m05s`."""
    from pysift.core.timez import format_span_ms

    assert format_span_ms(ms) == span


def test_within_the_window_both_ends_inclusive_and_no_invented_instant() -> None:
    from datetime import UTC, datetime

    from pysift.core.timez import within

    since = datetime(2026, 10, 5, 9, 0, tzinfo=UTC)
    until = datetime(2026, 10, 5, 10, 0, tzinfo=UTC)
    assert within(None, None, None) and within("junk", None, None)  # no bound: all in
    assert within("2026-10-05T09:00:00.000Z", since, until)
    assert within("2026-10-05T10:00:00.000Z", since, until)
    assert not within("2026-10-05T08:59:59.999Z", since, until)
    assert within("2026-10-05T10:00:00.001Z", since, None)
    assert not within("2026-10-05T10:00:00.001Z", None, until)
    assert not within(None, since, None) and not within("junk", None, until)


@pytest.mark.parametrize("value", [
    "America/New_York", "UTC", ":UTC", "Asia/Kolkata", "EST5EDT", "EST5EDT,M3.2.0,M11.1.0",
    "<+0530>-5:30", "IST-5:30", "CET-1CEST,M3.5.0,M10.5.0/3", ""])
def test_a_zone_the_c_library_reads_is_known(value: str) -> None:
    from pysift.core.timez import unknown_zone

    assert unknown_zone({"TZ": value}) is None
    assert unknown_zone({}) is None


@pytest.mark.parametrize("value", [
    "America/new_york", "Invalid/Zone", "Foo", ":Nowhere/Town", "/no/such/zone/file"])
def test_a_zone_the_c_library_cannot_read_is_named(value: str) -> None:
    from pysift.core.timez import unknown_zone

    assert unknown_zone({"TZ": value}) == value


def test_tzdir_is_where_zone_files_are_looked_for_first(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from pysift.core.timez import unknown_zone

    (tmp_path / "Mars").mkdir()
    (tmp_path / "Mars" / "Olympus").write_bytes(b"TZif")
    assert unknown_zone({"TZ": "Mars/Olympus", "TZDIR": str(tmp_path)}) is None
    assert unknown_zone({"TZ": "Mars/Olympus"}) == "Mars/Olympus"
    assert unknown_zone({"TZ": str(tmp_path / "Mars" / "Olympus")}) is None  # a file named whole
