"""The ``wait`` loop: baseline, readiness, follow, first hit wins, bounded by the timeout.

1. ``LiveSession.load`` snapshots every watched file: the end of its last complete line is
   its baseline. The readiness line goes out only then, so a script that starts its own
   trigger after reading it cannot race the baseline.
2. State conditions are judged at once (a session already stopped fires ``stop``).
3. Then, until a condition fires or the timeout passes: wait for a change, read what was
   appended (complete lines only), test each new record against the event conditions in
   the order given, re-judge the state conditions.

Waiting is event-driven where the platform allows: a file watcher (``watchfiles``: the
Rust notify crate over inotify, FSEvents or ReadDirectoryChangesW) wakes the loop when a
watched file or directory changes, so a condition fires within tens of milliseconds of its
line landing. The loop still wakes on a timer (200 ms while records land, backing off to
2 s when quiet; ``--interval`` pins it): a process that dies writes no file. Without a
watcher the timer is all there is. Between wakes nothing runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from datetime import datetime
from typing import Any

from pysift.live.activity import Activity
from pysift.live.conditions import Condition, event_fires, state_fires
from pysift.live.session import LiveSession
from pysift.live.verdict import Assessment
from pysift.model.fastdata import dataclass

POLL_FLOOR_S = 0.2
POLL_CEILING_S = 2.0
TIMEOUT = "timeout"
#: the watcher's step (how often its thread looks for news) and debounce (how long a
#: burst of changes is gathered before the loop wakes)
_STEP_MS = 20
_DEBOUNCE_MS = 40


@dataclass
class WaitOutcome:
    fired: str  # the condition as given, or "timeout"
    waited_s: float
    assessment: Assessment
    activity: Activity
    notes: list[str] = field(default_factory=list)


class _Watcher:
    """Blocks until a watched path changes or a timeout passes (watchfiles)."""

    def __init__(self, paths: list[Any], recursive: bool) -> None:
        from watchfiles._rust_notify import RustNotify

        self.key = (tuple(str(p) for p in paths), recursive)
        self._notify = RustNotify([str(p) for p in paths], False, False, 0, recursive, True)

    def wait(self, seconds: float) -> bool:
        timeout_ms = max(1, int(seconds * 1000))
        result = self._notify.watch(_DEBOUNCE_MS, _STEP_MS, timeout_ms, None)
        if result == "signal":
            raise KeyboardInterrupt
        return isinstance(result, set)

    def close(self) -> None:
        self._notify.close()


def _watcher(session: LiveSession, current: _Watcher | None, notes: list[str]
             ) -> _Watcher | None:
    paths, recursive = session.watch_roots()
    key = (tuple(str(p) for p in paths), recursive)
    if current is not None and current.key == key:
        return current
    if current is not None:
        current.close()
    try:
        return _Watcher(paths, recursive)
    except Exception as exc:  # noqa: BLE001 - no watcher here (limits, no backend, a race)
        text = (f"file watching is unavailable ({type(exc).__name__}: {exc}); polling every "
                f"{POLL_FLOOR_S:g}-{POLL_CEILING_S:g} s instead")
        if text not in notes:
            notes.append(text)
        return None


def readiness(session: LiveSession, conditions: list[Condition], timeout_s: float) -> str:
    lens = session.lens.words()
    return (f"watching {session.watched_count()} file(s) from byte offsets; conditions: "
            f"{' | '.join(c.text for c in conditions)}; timeout {timeout_s:g}s"
            + (f"; lens {lens}" if lens else ""))


def run(session: LiveSession, conditions: list[Condition], *, timeout_s: float,
        interval_s: float | None, clock: Any, on_ready: Callable[[str], None],
        watch: bool = True) -> WaitOutcome:
    notes: list[str] = []
    session.load()
    watcher = _watcher(session, None, notes) if watch else None
    for note in notes:
        on_ready(note)
    on_ready(readiness(session, conditions, timeout_s))
    started: datetime = clock.now()
    activity = Activity()
    states = [c for c in conditions if c.is_state]
    events = [c for c in conditions if not c.is_state]
    fired = _judge(session, states, clock.now())
    interval = interval_s if interval_s is not None else POLL_FLOOR_S
    try:
        while fired is None:
            elapsed = (clock.now() - started).total_seconds()
            remaining = timeout_s - elapsed
            if remaining <= 0:
                fired = TIMEOUT
                break
            pause = min(interval, remaining)
            if watcher is not None:
                watcher.wait(pause)
            else:
                clock.sleep(pause)
            new = session.poll()
            for record in new:
                activity.fold(record)
                if fired is None:
                    fired = next((c.text for c in events if event_fires(c, record)), None)
            if fired is None:
                fired = _judge(session, states, clock.now())
            if interval_s is None:
                interval = POLL_FLOOR_S if new else min(POLL_CEILING_S, interval * 1.5)
            if watch:
                watcher = _watcher(session, watcher, notes)
    finally:
        if watcher is not None:
            watcher.close()
    now = clock.now()
    if fired == TIMEOUT:
        for record in session.poll():  # what landed in the last moment still counts
            activity.fold(record)
    report = session.report(now)
    return WaitOutcome(fired, (now - started).total_seconds(), report, activity, notes)


def _judge(session: LiveSession, states: list[Condition], now: datetime) -> str | None:
    if not states:
        return None
    verdict = session.assess(now).verdict
    return next((c.text for c in states if state_fires(c, verdict)), None)
