"""Timestamps: parse the transcript's UTC strings, render the ONE canonical local form.

Text output shows every instant in the reader's zone as
``YYYY-MM-DD HH:MM:SS[.mmm] <ABBR>(UTC±offset)``, e.g. ``2026-07-11 15:33:37 AEST(UTC+10)``
or ``IST(UTC+05:30)``. The abbreviation and the offset travel together, and both are
taken from the zone AT THAT INSTANT (January in Sydney is ``AEDT(UTC+11)``), so the only
step left to a reader is "shift by the given offset". Text never prints UTC: a UTC copy
beside the local one invites conversion arithmetic that language-model readers get
wrong. Machine UTC lives only in JSON, as the ``<name>_utc`` / ``<name>_local`` pair
built by `ts_pair`.

`tz=None` everywhere means the system local zone (``datetime.astimezone()``); callers
pass `Env.tz` so tests can pin a zone.

A span of time is written in its two largest units: a turn's duration by
`format_duration_ms` (``1m 5s``, as csift's turn-duration render), a session's length in
`stats` by `format_span_ms` (``1m05s``, csift's stats span).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta, tzinfo
from functools import lru_cache
from operator import itemgetter
from typing import Any, TypeVar

from pysift.core.text import clip, one_line

__all__ = ["MISSING", "format_duration_ms", "format_local", "format_span_ms", "iso_stamper",
           "local_iso", "parse_ts", "text_stamper", "text_ts", "ts_pair", "unknown_zone"]

MISSING = "—"
"""Text stand-in for an instant the record does not carry."""

_UNPARSED_SHOWN_CHARS = 64


# A POSIX ``TZ`` rule: a name (3+ letters, or <quoted>) and an offset, then optionally a
# summer name, its offset and the change rules
_POSIX_NAME = r"(?:<[A-Za-z0-9+-]{3,}>|[A-Za-z]{3,})"
_POSIX_OFFSET = r"[+-]?\d{1,2}(?::\d{1,2}){0,2}"
_POSIX_RULE = re.compile(
    rf"{_POSIX_NAME}{_POSIX_OFFSET}(?:{_POSIX_NAME}(?:{_POSIX_OFFSET})?(?:,.*)?)?")
_ZONE_DIRS = ("/usr/share/zoneinfo", "/usr/lib/zoneinfo", "/usr/share/lib/zoneinfo")
_UTC_NAMES = frozenset({"UTC", "GMT", "UCT", "Etc/UTC", "Etc/GMT", "Universal", "Zulu"})


def unknown_zone(environ: dict[str, str]) -> str | None:
    """``TZ``'s value when it names no zone the C library can read, else None (unset,
    empty, a zone file, or a POSIX rule). The C library then shows every time in UTC
    under a name cut from the value (``TZ=America/new_york`` printed ``America(UTC+0)``,
    and ``--since 2026-03-08`` meant UTC midnight), so the caller says so and shows UTC."""
    value = environ.get("TZ")
    if not value:
        return None
    name = value[1:] if value.startswith(":") else value
    if _POSIX_RULE.fullmatch(name) or name in _UTC_NAMES:
        return None  # (the C library shows UTC for these even without zone files)
    if os.path.isabs(name):
        return None if os.path.isfile(name) else value
    dirs = [environ["TZDIR"]] if environ.get("TZDIR") else []
    if any(os.path.isfile(os.path.join(d, name)) for d in (*dirs, *_ZONE_DIRS)):
        return None
    return value


def parse_ts(raw: str | None) -> datetime | None:
    """An aware UTC datetime from a transcript timestamp, or None. Never raises.

    Transcripts write ``2026-06-07T05:43:00.000Z``; any ISO 8601 instant WITH an offset
    is accepted (``datetime.fromisoformat``, C speed) and normalised to UTC. A string
    without an offset names no instant and gives None, as does anything that is not a
    string.
    """
    if not isinstance(raw, str) or not raw:
        return None
    try:
        parsed = datetime.fromisoformat(raw)
    except ValueError:
        return None
    offset = parsed.utcoffset()
    if offset is None:
        return None
    if offset == timedelta(0) and parsed.tzinfo is UTC:
        return parsed if _EDGE_YEARS[0] < parsed.year < _EDGE_YEARS[1] else None
    try:
        instant = parsed.astimezone(UTC)
    except (OverflowError, ValueError):  # an offset that pushes the instant out of range
        return None
    return instant if _EDGE_YEARS[0] < instant.year < _EDGE_YEARS[1] else None


#: An instant in the first or the last year ``datetime`` holds names no usable time: its
#: wall clock in a zone east or west of UTC falls outside that range (``astimezone``
#: raises), so ``parse_ts`` gives None for it, as for any stamp that names no instant,
#: and every reader (text, JSON ``*_local``, windows, spans) treats it so, never crashing.
_EDGE_YEARS = (datetime.min.year, datetime.max.year)


def format_local(dt: datetime, tz: tzinfo | None = None, millis: bool = False) -> str:
    """The canonical text form of an instant, in `tz` (None: the system zone).

    ``2026-07-11 15:33:37 AEST(UTC+10)``; with `millis`, ``15:33:37.442``. Whole-hour
    offsets are compact (``UTC+10``, ``UTC-3``, ``UTC+0``), others zero-padded
    (``UTC+05:30``). A zone whose name is not an alphabetic abbreviation (``+0530``,
    ``-03``) renders the parenthesised offset alone. A naive `dt` is taken as UTC.
    """
    if dt.tzinfo is None or dt.utcoffset() is None:
        dt = dt.replace(tzinfo=UTC)
    local = dt.astimezone(tz) if tz is not None else dt.astimezone()
    clock = _clock(local, " ")
    if millis:
        clock += f".{local.microsecond // 1000:03d}"
    return f"{clock} {_zone_marker(local)}"


def text_ts(raw: str | None, tz: tzinfo | None = None, millis: bool = False) -> str:
    """`format_local` of a raw transcript timestamp, never raising.

    A missing (None or blank) timestamp renders ``—``. One that is present but does not
    parse is shown as ``<raw> (unparsed)`` (one-lined, clipped with the usual marker):
    neither a fabricated time nor a silent drop.
    """
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return MISSING
    parsed = parse_ts(raw)
    if parsed is None:
        shown, _ = clip(one_line(str(raw)), _UNPARSED_SHOWN_CHARS)
        return f"{shown} (unparsed)"
    return format_local(parsed, tz, millis)


# Claude Code's own stamp shape, the one the stampers splice. ASCII digits only: ``\d``
# also takes the digits of other scripts, which ``int`` reads but no parser of a stamp
# does, and a splice then printed a time where ``text_ts`` says "(unparsed)".
_CANONICAL = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-5][0-9]:[0-5][0-9]\.[0-9]{3}Z")


T = TypeVar("T")


def text_stamper(tz: tzinfo | None = None) -> Callable[[str | None], str]:
    """``text_ts`` (no milliseconds) for one output that renders thousands of stamps:
    Claude Code's own shape (``2026-06-07T05:43:00.123Z``) is rendered once per hour of
    UTC, its minutes and seconds spliced in, when the zone keeps one offset (of whole
    minutes) and one name through that hour (checked at its first and its last second:
    the zone database has no two changes within days of each other, so equal ends mean
    no change between). The hour's rendering holds the local hour it starts in and the
    next one (a zone a quarter or half hour off UTC puts a UTC hour across two local
    hours): with one offset through the hour, a minute's local clock is its UTC clock
    shifted by it. Else once per minute, its seconds spliced in (a zone's offset changes
    on whole minutes; a minute whose offset holds seconds, as some historical ones did,
    takes the full path); any other shape goes through ``text_ts``."""
    full: Callable[[str | None], str] = lru_cache(maxsize=None)(lambda raw: text_ts(raw, tz))
    return _splicer(tz, " ", lambda name, offset: f" {_marker(name, offset)}", full)


def iso_stamper(tz: tzinfo | None = None) -> Callable[[str | None], str | None]:
    """``local_iso`` for one output that renders thousands of stamps (a JSON listing's
    ``*_local`` values), spliced as ``text_stamper`` splices the text form."""
    return _splicer(tz, "T", lambda _name, offset: _colon_text(offset),
                    lambda raw: local_iso(raw, tz))


def _splicer(tz: tzinfo | None, separator: str,
             zone_text: Callable[[str | None, timedelta | None], str],
             full: Callable[[str | None], T]) -> Callable[[str | None], str | T]:
    """The stamper of ``text_stamper`` and ``iso_stamper``: ``<date><separator><clock>``
    then ``zone_text`` of the local zone's name and offset, spliced per hour (or per
    minute) of Claude Code's own shape; ``full`` renders every other string, and the
    instants no splice can render."""
    hours: dict[str, tuple[str, int, str, str] | None] = {}
    minutes: dict[str, tuple[str, str] | None] = {}
    canonical = _CANONICAL.fullmatch

    def local_of(instant: datetime) -> datetime:
        return instant.astimezone(tz) if tz is not None else instant.astimezone()

    def hour_text(local: datetime) -> str:  # ``YYYY-MM-DD<sep>HH:``
        # cut from the C-made ISO form (``YYYY-MM-DDTHH:MM:SS…``, the year padded to four
        # digits as ``:04d`` pads it): a fifth of the cost of formatting the four fields
        iso = local.isoformat()
        return f"{iso[:10]}{separator}{iso[11:13]}:"

    def hour_of(key: str) -> tuple[str, int, str, str] | None:
        start = parse_ts(key + ":00:00.000Z")
        if start is None:
            return None
        if system_hour is not None:
            found = system_hour(start)
            if found is not _UNSEEN:
                return found  # type: ignore[no-any-return]
        try:
            first, last = local_of(start), local_of(start + _LAST_SECOND)
        except (OverflowError, ValueError):  # the hour's last second out of range
            return None
        offset = first.utcoffset()
        if (offset is None or offset.total_seconds() % 60 or offset != last.utcoffset()
                or first.tzname() != last.tzname()):
            return None
        # the local hours the UTC hour spans (the second is the first plus the minutes
        # left to its end, the offset being the same)
        text = hour_text(first)
        zone = zone_text(first.tzname(), offset)
        if not first.minute:  # (every zone a whole number of hours off UTC)
            return text, 0, zone, text
        nxt = first + timedelta(minutes=60 - first.minute)
        return text, first.minute, zone, hour_text(nxt)

    system_hour = (_system_hour_reader(separator, zone_text)
                   if tz is None and _LOCALTIME_IS_ASTIMEZONE else None)

    def stamp(raw: str | None) -> str | T:
        if raw is None or not canonical(raw):
            return full(raw)
        key = raw[:13]
        hour = hours.get(key, _UNSEEN)
        if hour is _UNSEEN:
            hour = hours[key] = hour_of(key)
        if hour is not None:
            if not hour[1]:  # the local hour starts on the UTC hour: ``MM:SS`` as written
                return f"{hour[0]}{raw[14:19]}{hour[2]}"
            minute = hour[1] + int(raw[14:16])
            if minute < 60:
                return f"{hour[0]}{minute:02d}:{raw[17:19]}{hour[2]}"
            return f"{hour[3]}{minute - 60:02d}:{raw[17:19]}{hour[2]}"
        key = raw[:16]
        if key not in minutes:
            start = parse_ts(key + ":00.000Z")
            local = local_of(start) if start is not None else None
            offset = local.utcoffset() if local is not None else None
            if local is None or offset is None or offset.total_seconds() % 60:
                minutes[key] = None
            else:  # ``YYYY-MM-DD<sep>HH:MM:`` and the zone
                minutes[key] = (_clock(local, separator)[:17], zone_text(local.tzname(), offset))
        base = minutes[key]
        if base is None:
            return full(raw)
        return base[0] + raw[17:19] + base[1]

    return stamp

_UNSEEN: Any = object()
_LAST_SECOND = timedelta(seconds=3599)
#: CPython's ``datetime.astimezone()`` (the system zone) takes the wall clock, offset and
#: name from the C library's ``localtime`` of the instant, which ``time.localtime`` returns
#: as they are where ``struct tm`` carries the offset and name (POSIX systems); Windows
#: computes them otherwise, and keeps the datetime path.
_LOCALTIME_IS_ASTIMEZONE = os.name == "posix"


def _system_hour_reader(separator: str,
                        zone_text: Callable[[str | None, timedelta | None], str]
                        ) -> Callable[[datetime], Any]:
    """``hour_of`` of the splicer in the system zone, read off ``time.localtime`` at the
    hour's first and last second: what ``datetime.astimezone()`` reads (the same call),
    without the datetime and zone objects it builds around each answer (a listing renders
    a new hour for nearly every session: 7.6 us an hour became ~3). ``_UNSEEN`` when the C
    library refuses the instant: the datetime path decides. (``parse_ts`` gives no instant
    in the first or last year a datetime holds, so no local year read here leaves its
    range.)"""
    from time import localtime

    offsets: dict[int, timedelta] = {}

    def text_of(t: Any) -> str:  # ``YYYY-MM-DD<sep>HH:``, as ``hour_text`` cuts it
        return f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}{separator}{t.tm_hour:02d}:"

    def system_hour(start: datetime) -> Any:
        try:
            epoch = int(start.timestamp())
            first, last = localtime(epoch), localtime(epoch + 3599)
        except (OverflowError, OSError, ValueError):
            return _UNSEEN
        seconds = first.tm_gmtoff
        if (seconds is None or seconds % 60 or seconds != last.tm_gmtoff
                or first.tm_zone != last.tm_zone):
            return None
        offset = offsets.get(seconds)
        if offset is None:
            offset = offsets[seconds] = timedelta(seconds=seconds)
        text = text_of(first)
        zone = zone_text(first.tm_zone, offset)
        if not first.tm_min:
            return text, 0, zone, text
        # the next local hour starts inside this UTC hour, under the same offset
        return text, first.tm_min, zone, text_of(localtime(epoch + 60 * (60 - first.tm_min)))

    return system_hour


def within(raw: str | None, since: datetime | None, until: datetime | None) -> bool:
    """Whether a record stamped ``raw`` falls in the ``--since``/``--until`` window (both
    ends inclusive). With no bound every record is in; with one, a record whose stamp is
    missing or unparseable is out: no instant is invented for it (the rule every windowed
    command shares)."""
    if since is None and until is None:
        return True
    instant = parse_ts(raw)
    if instant is None:
        return False
    if since is not None and instant < since:
        return False
    return not (until is not None and instant > until)


# Claude Code's one timestamp shape, 2026-01-05T10:00:00.000Z: its length and the
# separator at each place. Written so, the stamps that name an instant order as strings
# in the order of their instants (the digits stand in the same places). Any other shape
# breaks that, even at 24 characters ending in Z: a space or a lowercase t for the T, a
# decimal comma, an ISO week date (``2026-W01-4T…``), each read by ``parse_ts``.
CC_TS_LEN = 24
_CC_AT = (4, 7, 10, 13, 16, 19, 23)
_CC_SEPARATORS = ("-", "-", "T", ":", ":", ".", "Z")
_cc_separators = itemgetter(*_CC_AT)


def in_cc_shape(ts: str) -> bool:
    """Whether ``ts`` is written in Claude Code's one shape (see ``CC_TS_LEN``)."""
    return len(ts) == CC_TS_LEN and _cc_separators(ts) == _CC_SEPARATORS


def all_in_cc_shape(stamps: list[str]) -> bool:
    """``in_cc_shape`` of every stamp. The stamps are joined once and each separator's
    column compared whole (C-level slices: about a third of the time of a per-stamp
    ``itemgetter`` pass for one column)."""
    if set(map(len, stamps)) != {CC_TS_LEN}:
        return False
    joined = "".join(stamps)
    n = len(stamps)
    return all(joined[at::CC_TS_LEN] == sep * n
               for at, sep in zip(_CC_AT, _CC_SEPARATORS, strict=True))


def readable_span(stamps: Iterable[str | None]) -> tuple[str | None, str | None]:
    """The earliest and the latest of the stamps that name an instant, as written: ordered
    by the instant each names, never by its spelling (``…T12:00:00+05:00`` is before
    ``…T10:00:00Z``; ``…T08:00:00Z`` before ``…T08:00:00.500Z``); a stamp naming no
    instant (``[trimmed]``) is neither."""
    instants = [(when, ts) for ts in stamps if ts and (when := parse_ts(ts)) is not None]
    if not instants:
        return None, None
    return min(instants)[1], max(instants)[1]


def local_iso(raw: str | None, tz: tzinfo | None = None) -> str | None:
    """The ``*_local`` JSON value: ``YYYY-MM-DDTHH:MM:SS±HH:MM`` in `tz`.

    Seconds precision (milliseconds dropped), colon in the offset; None when `raw` is
    missing or unparseable.
    """
    parsed = parse_ts(raw)
    if parsed is None:
        return None
    local = parsed.astimezone(tz) if tz is not None else parsed.astimezone()
    return _clock(local, "T") + _colon_offset(local)


def ts_pair(name: str, raw: str | None, tz: tzinfo | None = None) -> dict[str, str | None]:
    """``{"<name>_utc": raw, "<name>_local": local_iso(raw)}`` for a JSON row.

    The UTC value is the transcript's string passed through verbatim (milliseconds
    kept); a non-string value is treated as absent. ``ts_pair("ts", raw)`` gives the
    ``ts_utc`` / ``ts_local`` pair.
    """
    utc = raw if isinstance(raw, str) else None
    return {f"{name}_utc": utc, f"{name}_local": local_iso(utc, tz)}


def _two_units(ms: int, spaced: bool) -> str:
    """The two largest units of ``ms``, rounded to the second; ``spaced``: ``1m 5s``, else
    csift's compact ``1m05s``."""
    secs = (max(ms, 0) + 500) // 1000
    if secs < 60:
        return f"{secs}s"
    if secs < 3600:
        big, unit, small, second = secs // 60, "m", secs % 60, "s"
    elif secs < 86400:
        big, unit, small, second = secs // 3600, "h", secs % 3600 // 60, "m"
    else:
        big, unit, small, second = secs // 86400, "d", secs % 86400 // 3600, "h"
    return f"{big}{unit} {small}{second}" if spaced else f"{big}{unit}{small:02d}{second}"


def format_duration_ms(ms: int) -> str:
    """The two largest units, rounded to the second: ``12s``, ``1m 5s``, ``2h 3m``, ``10d 17h``."""
    return _two_units(ms, spaced=True)


def format_span_ms(ms: int) -> str:
    """The compact form csift's stats span prints, the second unit zero-padded: ``12s``,
    ``1m05s``, ``1h30m``, ``10d07h``."""
    return _two_units(ms, spaced=False)


def _clock(local: datetime, separator: str) -> str:
    """``YYYY-MM-DD<sep>HH:MM:SS`` from the fields (several times cheaper than strftime)."""
    return (
        f"{local.year:04d}-{local.month:02d}-{local.day:02d}{separator}"
        f"{local.hour:02d}:{local.minute:02d}:{local.second:02d}"
    )


@lru_cache(maxsize=64)
def _offset_parts(offset: timedelta | None) -> tuple[str, int, int]:
    seconds = int(offset.total_seconds()) if offset is not None else 0
    sign = "-" if seconds < 0 else "+"
    minutes = abs(seconds) // 60
    return sign, minutes // 60, minutes % 60


@lru_cache(maxsize=64)
def _marker(name: str | None, offset: timedelta | None) -> str:
    sign, hours, minutes = _offset_parts(offset)
    text = f"UTC{sign}{hours}" if minutes == 0 else f"UTC{sign}{hours:02d}:{minutes:02d}"
    if name and name.isascii() and name.isalpha():
        return f"{name}({text})"
    return f"({text})"


def _zone_marker(local: datetime) -> str:
    return _marker(local.tzname(), local.utcoffset())


def _colon_offset(local: datetime) -> str:
    return _colon_text(local.utcoffset())


def _colon_text(offset: timedelta | None) -> str:
    sign, hours, minutes = _offset_parts(offset)
    return f"{sign}{hours:02d}:{minutes:02d}"
