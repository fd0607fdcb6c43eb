"""A record stamped in the first or the last year ``datetime`` holds: its wall clock in a
zone off UTC falls outside that range, which crashed every command that renders or
windows it (OverflowError). Such a stamp names no usable instant: it is shown as written
with ``(unparsed)`` and left out of windows, as any stamp that names no instant is."""

from __future__ import annotations

import pytest

from builders import assistant, user

SID = "5e1f0c1a-7d2b-4c3e-8f90-1a2b3c4d5e6f"
CWD = "/home/dev/edge"
LAST_YEAR = "9999-12-31T23:59:59.000Z"
FIRST_YEAR = "0001-01-01T00:00:00.000Z"

COMMANDS = [
    ("list",), ("list", "--format", "json"),
    ("search", "overflow"), ("search", "overflow", "--format", "json"),
    ("show", f"@{SID}", "--turn", "1"), ("show", f"@{SID}", "--line", "1..", "--format", "json"),
    ("stats",), ("stats", "--format", "json"), ("stats", "--since", "2026-01-01"),
    ("verbatim", f"@{SID}"), ("status", f"@{SID}"), ("agents",), ("files",),
    ("search", "overflow", "--since", "0001-01-02"),
]


@pytest.fixture(params=["Australia/Sydney", "America/New_York"])
def edge_home(request, home, monkeypatch):
    monkeypatch.setenv("TZ", request.param)
    home.session(CWD, SID, user("hello overflow", timestamp=LAST_YEAR),
                 assistant("hi", timestamp=FIRST_YEAR))
    return home


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_a_stamp_at_the_edge_of_the_calendar_never_crashes(cli, edge_home, args) -> None:
    result = cli("--claude-home", str(edge_home.root), *args)
    assert result.code in (0, 1), (result.code, result.stderr)
    assert "Traceback" not in result.stderr and "Error" not in result.stderr, result.stderr


def test_the_edge_stamp_is_shown_as_written_not_invented(cli, edge_home) -> None:
    shown = cli("--claude-home", str(edge_home.root), "list").stdout
    assert f"{LAST_YEAR} (unparsed)" in shown
    assert f"{FIRST_YEAR} (unparsed)" in shown


def test_a_tz_that_names_no_zone_is_said_once_and_times_are_utc(
        cli, demo_home, monkeypatch: pytest.MonkeyPatch) -> None:
    """The C library shows such a TZ as UTC under a name cut from it (``America(UTC+0)``
    for ``America/new_york``): pysift says so and shows UTC by name."""
    import time

    monkeypatch.setenv("TZ", "America/new_york")
    time.tzset()
    try:
        result = cli("--claude-home", str(demo_home), "stats")
    finally:
        monkeypatch.setenv("TZ", "Australia/Sydney")
        time.tzset()
    assert result.code == 0
    assert result.stderr.count("TZ='America/new_york' names no time zone") == 1
    assert "UTC(UTC+0)" in result.stdout and "America(" not in result.stdout
