"""The owner-process probe: the three procStart spellings, the pid domain, pid reuse."""

from __future__ import annotations

import os
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from livekit import Processes, asctime
from pysift.live import process as P

START = datetime(2026, 10, 5, 9, 0, 0, tzinfo=UTC)


def test_asctime_is_read_as_utc() -> None:
    recorded = P.read_proc_start("Mon Oct  5 09:00:00 2026")
    assert recorded.instant == START.timestamp()


@given(st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2090, 1, 1)))
def test_asctime_round_trips(moment: datetime) -> None:
    moment = moment.replace(microsecond=0, tzinfo=UTC)
    assert P.read_proc_start(asctime(moment)).instant == moment.timestamp()


def test_filetime_by_key_and_by_length() -> None:
    ticks = int(START.timestamp() * 10_000_000) + 116_444_736_000_000_000
    assert P.read_proc_start(str(ticks)).instant == pytest.approx(START.timestamp())
    assert P.read_proc_start(ticks, filetime_key=True).instant == pytest.approx(START.timestamp())


def test_short_digits_are_linux_boot_ticks() -> None:
    assert P.read_proc_start("344439141").boot_ticks == 344439141


@pytest.mark.parametrize("value", [None, "", "yesterday", True, {"a": 1}, 1.5])
def test_unreadable_proc_start_says_why(value: object) -> None:
    recorded = P.read_proc_start(value)
    assert recorded.instant is None and recorded.boot_ticks is None
    assert recorded.problem


@pytest.mark.parametrize("value", ["9" * 25, 10**30])
def test_a_filetime_past_the_year_9999_is_unreadable_not_an_instant(value: object) -> None:
    """Such a start was taken as an instant; a pid found alive then compared starts and
    printed it (``datetime.fromtimestamp`` raised EOVERFLOW, which status reported as
    "cannot write the output ... a full disk?")."""
    recorded = P.read_proc_start(value, filetime_key=True)
    assert recorded.instant is None and "9999" in (recorded.problem or "")
    live = P.probe_owner(42, recorded, None, Processes(alive={42: START.timestamp()}))
    assert live.outcome == P.ALIVE_PID_ONLY


def test_alive_and_matching_start() -> None:
    table = Processes(alive={42: START.timestamp() + 1})
    live = P.probe_owner(42, P.read_proc_start(asctime(START)), "linux", table)
    assert live.outcome == P.ALIVE


def test_pid_reused_by_a_later_process() -> None:
    table = Processes(alive={42: START.timestamp() + 3600})
    live = P.probe_owner(42, P.read_proc_start(asctime(START)), None, table)
    assert live.outcome == P.REUSED
    assert "2026-10-05T10:00:00Z" in (live.detail or "")


def test_dead_pid() -> None:
    live = P.probe_owner(42, P.read_proc_start(asctime(START)), None, Processes())
    assert live.outcome == P.DEAD


def test_boot_ticks_compared_with_tolerance() -> None:
    table = Processes(alive={7: None}, ticks={7: 1000})
    assert P.probe_owner(7, P.read_proc_start("1150"), None, table).outcome == P.ALIVE
    assert P.probe_owner(7, P.read_proc_start("9000"), None, table).outcome == P.REUSED


def test_start_unknown_degrades_to_pid_only_and_says_why() -> None:
    table = Processes(alive={7: START.timestamp()})
    live = P.probe_owner(7, P.read_proc_start(None), None, table)
    assert live.outcome == P.ALIVE_PID_ONLY
    assert "procStart" in (live.detail or "")
    access_denied = Processes(alive={7: None})
    live = P.probe_owner(7, P.read_proc_start(asctime(START)), None, access_denied)
    assert live.outcome == P.ALIVE_PID_ONLY


def test_foreign_domain_is_never_probed() -> None:
    table = Processes(alive={42: START.timestamp()})
    live = P.probe_owner(42, P.read_proc_start(asctime(START)), "win32:DESKTOP-7", table)
    assert live.outcome == P.FOREIGN and live.detail == "win32:DESKTOP-7"
    assert table.probes == 0


def test_unavailable_table_is_said() -> None:
    live = P.probe_owner(42, P.read_proc_start(None), None, Processes(error="no /proc"))
    assert live.outcome == P.UNAVAILABLE and live.detail == "no /proc"


@pytest.mark.parametrize(("row", "same"), [
    (None, True),
    ("linux", True),
    ("linux:m1:pid:[4026531836]", True),
    ("linux::", True),  # the writer could read neither component
    ("linux:m2:pid:[4026531836]", False),  # another machine
    ("linux:m1:pid:[4026532000]", False),  # another pid namespace (a container)
    ("darwin", False),
    ("win32:host", False),
])
def test_same_domain(row: str | None, same: bool) -> None:
    assert P.same_domain(row, ("linux", "linux:m1:pid:[4026531836]")) is same


def test_system_table_sees_this_process_and_not_a_dead_one() -> None:
    table = P.SystemProcesses()
    me = table.probe(os.getpid())
    assert me.alive and me.started is not None
    assert table.probe(2 ** 22 + 12345).alive is False  # above pid_max: never a process
    assert table.domains()  # this host names its domain
    recorded = P.RecordedStart(instant=me.started)
    assert P.probe_owner(os.getpid(), recorded, None, table).outcome == P.ALIVE


@pytest.mark.parametrize("value", ["\u00b3", "\u0663\u0664", "12\u00b3"])
def test_a_start_in_other_digits_is_a_problem_not_a_crash(value: str) -> None:
    """`str.isdigit` takes a superscript, which `int` refuses (a crash), and the digits
    of other scripts, which `int` reads as a tick count no registry writes."""
    recorded = P.read_proc_start(value)
    assert recorded.instant is None and recorded.boot_ticks is None and recorded.problem
