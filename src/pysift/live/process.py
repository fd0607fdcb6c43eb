"""Owner-process liveness: is the pid a registry row names still the process that wrote it?

The registry row is written on a status TRANSITION only, so a SIGKILLed session leaves a
row that reads as alive forever; the pid probe refutes it. A pid alone is not enough: the
kernel hands pids out again, so a dead session's pid may now belong to an unrelated
process. The row records its process's start time (``procStart``), and the probe compares
it with the start time of whatever now holds the pid (2 s tolerance). Three spellings of
``procStart`` exist on disk:

- an asctime string rendered in UTC (``Sun Aug 16 09:04:23 2026``: Claude Code on macOS
  and older Linux builds);
- a Windows FILETIME tick count (100 ns units since 1601; ``procStartFt``, or a
  ``procStart`` of 17+ digits);
- the Linux kernel's start time in clock ticks since boot (``/proc/<pid>/stat`` field 22,
  a shorter digit string, newer Linux builds).

A row also names the pid DOMAIN it was written in (``darwin``, ``linux`` or
``linux:<machine-id>:pid:[<namespace>]``, ``win32:<host>``): a pid from another machine,
OS or pid namespace means nothing here, so such a row is never probed.

The process table is reached through psutil (one API on Linux, macOS and Windows; csift
ran ``ps -o lstart`` and parsed local time, with per-platform fallbacks). ``ProcessTable``
is the seam tests replace through ``Env.processes``.
"""

from __future__ import annotations

import os
import socket
import sys
from datetime import UTC, datetime
from typing import Protocol

from pysift.model.fastdata import dataclass

#: a start time within this many seconds of the recorded one is the same process
START_TOLERANCE_S = 2.0
#: FILETIME ticks (100 ns) between 1601-01-01 and the Unix epoch
_FILETIME_EPOCH = 116_444_736_000_000_000
#: a digit string this long is a FILETIME, shorter ones are Linux boot ticks (a FILETIME
#: of any date after 1633 has 17+ digits; boot ticks at 100 Hz reach 12 digits in 30 years)
_FILETIME_DIGITS = 17
_LAST_INSTANT = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC).timestamp()

# outcomes of the probe
ALIVE = "alive"  # the pid is live and its start time matches the row's
ALIVE_PID_ONLY = "alive-pid-only"  # live, but a start time is missing on one side
DEAD = "dead"
REUSED = "reused"  # live, but another process: started at another time
FOREIGN = "foreign-domain"  # the row was written in another pid domain: not probed
UNAVAILABLE = "unavailable"  # the process table cannot be read here


@dataclass(frozen=True, slots=True)
class ProcInfo:
    """What the process table says of one pid."""

    alive: bool
    started: float | None = None  # epoch seconds, when known
    boot_ticks: int | None = None  # Linux: /proc/<pid>/stat field 22, when readable
    error: str | None = None  # the table could not be asked (then ``alive`` is meaningless)


class ProcessTable(Protocol):
    def probe(self, pid: int) -> ProcInfo: ...

    def domains(self) -> tuple[str, ...]: ...

    def clock_ticks(self) -> int | None: ...


class SystemProcesses:
    """The host's process table, through psutil (imported on first use)."""

    def probe(self, pid: int) -> ProcInfo:
        try:
            import psutil
        except ImportError as exc:  # pragma: no cover - a dependency of the package
            return ProcInfo(False, error=f"psutil is not importable ({exc})")
        try:
            proc = psutil.Process(pid)
            if proc.status() == psutil.STATUS_ZOMBIE:
                return ProcInfo(False)  # exited, not yet reaped: the session is gone
            started = proc.create_time()
        except psutil.NoSuchProcess:
            return ProcInfo(False)
        except psutil.AccessDenied:
            return ProcInfo(True)  # it exists; its start time is not ours to read
        except (OSError, ValueError) as exc:
            return ProcInfo(False, error=str(exc) or type(exc).__name__)
        return ProcInfo(True, started=started, boot_ticks=_boot_ticks(pid))

    def domains(self) -> tuple[str, ...]:
        return local_domains()

    def clock_ticks(self) -> int | None:
        try:
            return int(os.sysconf("SC_CLK_TCK"))
        except (AttributeError, ValueError, OSError):
            return None


def _boot_ticks(pid: int) -> int | None:
    """Field 22 of ``/proc/<pid>/stat`` (start time in clock ticks since boot), Linux only.
    The command name (field 2) may hold spaces and parentheses: fields are counted after
    its LAST ``)``."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            raw = fh.read()
    except OSError:
        return None
    fields = raw[raw.rfind(b")") + 1:].split()
    try:
        return int(fields[19])  # field 3 is fields[0]; field 22 is fields[19]
    except (IndexError, ValueError):
        return None


def local_domains() -> tuple[str, ...]:
    """How this host names its pid domain, every spelling a row written here may carry."""
    if sys.platform.startswith("linux"):
        machine = _read_text("/etc/machine-id")
        try:
            namespace = os.readlink("/proc/self/ns/pid")
        except OSError:
            namespace = ""
        return ("linux", f"linux:{machine}:{namespace}")
    if sys.platform == "darwin":
        return ("darwin",)
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        return (f"win32:{socket.gethostname()}",)
    return (sys.platform,)


def _read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read().strip()
    except OSError:
        return ""


def same_domain(row_domain: str | None, local: tuple[str, ...]) -> bool:
    """Whether a row's ``pidDomain`` names this host's pid domain. A row without one
    (older builds) is taken as local. ``linux:<machine>:<namespace>`` compares each
    component both sides know (an empty one, the writer's way of saying it could not read
    it, compares equal to anything); the bare platform names compare exactly, Windows
    host names without regard to case."""
    if row_domain is None:
        return True
    if row_domain in local:
        return True
    if row_domain.startswith("linux"):
        ours = next((d for d in local if d.startswith("linux:")), None)
        if row_domain == "linux":
            return any(d.startswith("linux") for d in local)
        if ours is None:
            return False
        theirs = (row_domain[len("linux:"):].split(":", 1) + [""])[:2]
        mine = (ours[len("linux:"):].split(":", 1) + [""])[:2]
        return all(a == b or not a or not b for a, b in zip(theirs, mine, strict=True))
    if row_domain.lower().startswith("win32:"):
        return any(row_domain.lower() == d.lower() for d in local)
    return False


@dataclass(frozen=True, slots=True)
class RecordedStart:
    """A row's ``procStart`` read as what it is."""

    instant: float | None = None  # epoch seconds (asctime UTC or FILETIME)
    boot_ticks: int | None = None  # Linux kernel start ticks
    problem: str | None = None  # why it could not be read (absent, unparseable)


def read_proc_start(value: object, *, filetime_key: bool = False) -> RecordedStart:
    """Parse a row's recorded start time (see the module doc for the three forms)."""
    if value is None:
        return RecordedStart(problem="the row records no procStart")
    if isinstance(value, bool):
        return RecordedStart(problem=f"procStart {value!r} is not a start time")
    text = str(value).strip() if isinstance(value, int | str) else None
    if text is None:
        return RecordedStart(problem=f"procStart {value!r} is not a start time")
    if text.isascii() and text.isdigit():
        number = int(text)
        if filetime_key or len(text) >= _FILETIME_DIGITS:
            instant = (number - _FILETIME_EPOCH) / 10_000_000
            if instant > _LAST_INSTANT:  # no clock says it: printing it raised EOVERFLOW
                return RecordedStart(problem=f"procStart {text!r} is past the year 9999")
            return RecordedStart(instant=instant)
        return RecordedStart(boot_ticks=number)
    parsed = _asctime(text)
    if parsed is None:
        return RecordedStart(problem=f"procStart {text!r} is in no known form")
    return RecordedStart(instant=parsed)


def _asctime(text: str) -> float | None:
    """``Sun Aug 16 09:04:23 2026`` (UTC; the day may be space-padded)."""
    try:
        moment = datetime.strptime(" ".join(text.split()), "%a %b %d %H:%M:%S %Y")
    except ValueError:
        return None
    return moment.replace(tzinfo=UTC).timestamp()


@dataclass(frozen=True, slots=True)
class Liveness:
    """The probe's answer for one registry row."""

    outcome: str  # ALIVE | ALIVE_PID_ONLY | DEAD | REUSED | FOREIGN | UNAVAILABLE
    detail: str | None = None  # the guard skip's reason, the foreign domain, the error


def probe_owner(pid: int, recorded: RecordedStart, row_domain: str | None,
                table: ProcessTable) -> Liveness:
    """Is the row's process still the one running under ``pid``?"""
    if not same_domain(row_domain, table.domains()):
        return Liveness(FOREIGN, row_domain)
    info = table.probe(pid)
    if info.error is not None:
        return Liveness(UNAVAILABLE, info.error)
    if not info.alive:
        return Liveness(DEAD)
    if recorded.instant is not None and info.started is not None:
        if abs(recorded.instant - info.started) <= START_TOLERANCE_S:
            return Liveness(ALIVE)
        return Liveness(REUSED, _started_words(info.started, recorded.instant))
    if recorded.boot_ticks is not None and info.boot_ticks is not None:
        hz = table.clock_ticks() or 100
        if abs(recorded.boot_ticks - info.boot_ticks) <= START_TOLERANCE_S * hz:
            return Liveness(ALIVE)
        return Liveness(REUSED, f"kernel start ticks {info.boot_ticks}, the row recorded "
                                f"{recorded.boot_ticks}")
    if recorded.problem is not None:
        return Liveness(ALIVE_PID_ONLY, recorded.problem)
    if recorded.boot_ticks is not None:
        return Liveness(ALIVE_PID_ONLY, "the row records kernel start ticks and this host "
                                        "cannot read the process's own")
    return Liveness(ALIVE_PID_ONLY, "the process's start time cannot be read here")


def _started_words(actual: float, recorded: float) -> str:
    def fmt(epoch: float) -> str:
        return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"the process under that pid started {fmt(actual)}, the row's at {fmt(recorded)}"
