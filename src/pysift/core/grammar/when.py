"""The WHEN grammar of `--since` / `--until` (and `--background-since`).

Accepted forms, all resolved to an aware UTC instant:

    2026-06-07T14:00:00Z, 2026-06-07T14:00+10:00   ISO 8601 with `Z` or an offset: that instant
    2026-06-07T14:00, 2026-06-07 14:00:05         a bare date-time: LOCAL wall-clock time
    2026-06-07                                    a bare date: LOCAL midnight
    45s 90m 2h 3d 2w 2mo 1y                       that long before now (a leading `-` is allowed
                                                  and means the same: "ago")
    now                                           the command's own start instant

"Local" is the zone passed in (`Env.tz`; None means the system zone). A bare date-time
keeps its time of day: an earlier csift read it as a bare date and silently moved every
bound to midnight, which made a bounded window look like a quiet period. A string that
carries an offset the parser cannot read is refused, never re-read as local time; so is
a date followed by anything but `T`, `t` or a space and a time (Python's `fromisoformat`
takes ANY character as the separator, which read `2026-06-07+10:00` as 10:00 local).

A local wall-clock time that a DST jump skips resolves to the instant the offset before
the jump names (02:30 on a New York spring-forward day is 03:30 EDT; a Santiago midnight
that does not exist is 01:00), never to a time on the wrong side of the jump (which put
a bare date's midnight on the previous day); a repeated time resolves to its first
occurrence. The system zone (`tz=None`) and a zoneinfo zone agree on this.

Relative ages: seconds, minutes and hours are exact elapsed time; days, weeks, months and
years are calendar steps on the local wall clock (`3d` at 14:00 is 14:00 three days ago,
whatever DST did in between), months and years via dateutil's `relativedelta` so that
`1mo` before 31 March is the last day of February.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, tzinfo

from dateutil.relativedelta import relativedelta

from pysift.errors import UsageError

__all__ = ["WHEN_FORMS", "WHEN_SHORT", "parse_when"]

from pysift.core.grammar.forms import WHEN_FORMS, WHEN_SHORT

# the only shapes fromisoformat may see: a date alone, or a date, a time separator and a
# time (the time and its offset are then fromisoformat's to read or refuse)
_ISO_SHAPE = re.compile(r"[0-9]{4}-?[0-9]{2}-?[0-9]{2}(?:[Tt ][0-9].*)?", re.DOTALL)
_RELATIVE = re.compile(r"-?\s*([0-9]+)\s*(mo|[smhdwy])")
_EXACT_UNITS: dict[str, Callable[[int], timedelta]] = {
    "s": lambda n: timedelta(seconds=n),
    "m": lambda n: timedelta(minutes=n),
    "h": lambda n: timedelta(hours=n),
}
_CALENDAR_UNITS: dict[str, Callable[[int], relativedelta]] = {
    "d": lambda n: relativedelta(days=n),
    "w": lambda n: relativedelta(weeks=n),
    "mo": lambda n: relativedelta(months=n),
    "y": lambda n: relativedelta(years=n),
}


def parse_when(text: str, now: datetime, tz: tzinfo | None, *, flag: str | None = None) -> datetime:
    """Resolve a WHEN token against `now` in zone `tz` (None: the system zone).

    Returns an aware UTC datetime. A naive `now` is taken as UTC. Raises `UsageError`
    naming every accepted form when `text` is none of them or lands out of range; `flag`
    (e.g. "--since") prefixes the message.
    """
    token = text.strip()
    now_utc = _as_utc(now)
    try:
        if token.lower() == "now":
            return now_utc
        relative = _RELATIVE.fullmatch(token)
        if relative is not None:
            return _before(now_utc, int(relative.group(1)), relative.group(2), tz)
        return _absolute(token, tz)
    except (OverflowError, ValueError):
        raise UsageError(_message(text, flag)) from None


def _absolute(token: str, tz: tzinfo | None) -> datetime:
    if _ISO_SHAPE.fullmatch(token) is None:
        raise ValueError(token)
    parsed = datetime.fromisoformat(token)  # ValueError on anything else, incl. bad offsets
    if parsed.utcoffset() is not None:
        return parsed.astimezone(UTC)
    return _localize(parsed, tz)


def _before(now_utc: datetime, amount: int, unit: str, tz: tzinfo | None) -> datetime:
    exact = _EXACT_UNITS.get(unit)
    if exact is not None:
        return now_utc - exact(amount)
    wall = _wall_clock(now_utc, tz)
    return _localize(wall - _CALENDAR_UNITS[unit](amount), tz)


def _wall_clock(instant: datetime, tz: tzinfo | None) -> datetime:
    """The naive local wall-clock reading of an instant."""
    local = instant.astimezone(tz) if tz is not None else instant.astimezone()
    return local.replace(tzinfo=None)


def _localize(wall: datetime, tz: tzinfo | None) -> datetime:
    """The UTC instant of a naive local wall-clock time.

    A time skipped by a DST jump maps past the jump (read with the offset before it), a
    repeated time to its first occurrence: zoneinfo's fold=0. CPython reads a naive time
    in the system zone differently in a gap (fold=0 lands BEFORE the jump, fold=1 past
    it), so with `tz=None` both folds are read and the one that fits is taken.
    """
    if tz is not None:
        return wall.replace(tzinfo=tz).astimezone(UTC)
    first = wall.replace(fold=0).astimezone(UTC)  # naive: read in the system zone
    if first.astimezone().replace(tzinfo=None) == wall.replace(fold=0):
        return first  # the time exists (the first occurrence of a repeated one)
    return max(first, wall.replace(fold=1).astimezone(UTC))  # skipped: past the jump


def _as_utc(moment: datetime) -> datetime:
    if moment.tzinfo is None or moment.utcoffset() is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def _message(text: str, flag: str | None) -> str:
    head = f"{flag}: " if flag else ""
    shown = text if len(text) <= 24 else text[:23] + "…"
    return f"{head}cannot read `{shown}` as a time; write {WHEN_SHORT}"
