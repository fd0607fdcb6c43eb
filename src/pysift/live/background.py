"""Background tasks: the off-turn work a session launched, and whether it came back.

Three launch kinds (csift v0.10.0 ledger ①):

- a backgrounded SHELL: a ``Bash``/``PowerShell`` tool_use with
  ``input.run_in_background: true``. Its tool_result lands within milliseconds
  (``Command running in background with ID: <id>. Output is being written to: <path>``,
  ``toolUseResult.backgroundTaskId``), so the tail state machine never sees it open;
- an async AGENT: a tool_result whose ``toolUseResult.status`` is ``async_launched``
  (``agentId``, ``description``, ``outputFile``; a background ``Workflow`` run names its
  ``taskId`` instead);
- a MONITOR arm: a ``Monitor`` tool_use (``Monitor started (task <id>, …)``,
  ``toolUseResult.taskId``). Its event pulses never close it; its termination notice or a
  ``timed out`` event does; a persistent monitor never returns by design.

A completion is a ``<task-notification>`` section joined to its launch by
``<tool-use-id>`` (the launching tool_use id, exact) or else by ``<task-id>``, with a
``<status>`` (completed, failed, killed, stopped). It rides three carriers: a user record
(the session was idle), a ``queue-operation`` line or a ``queued_command`` attachment (it
landed mid-turn). Launches are read from every lane, completions from the MAIN transcript
only (a subagent's tasks complete in its parent). The harness also states a task's fate in
the result of a task tool, in any lane: a ``TaskStop`` (2.1.x) or ``KillShell`` (2.0.x)
that succeeded (stopped, killed: no notification follows it in the real corpus), and a
``TaskOutput``/``BashOutput`` poll that reports a final status (2.0.x wrote no
notifications at all, so a shell killed or polled to its end read open forever); and a
background Workflow run's manifest, written when the run ends. Claude Code's own
reconciliation at the next session start (one notice, several ``<task-id>``,
``__orphan_summary__``) marks tasks stopped, and states the bound this report repeats: NOT
RETURNED IS NOT PROOF OF RUNNING (a UI stop, a Monitor timeout or an agent teardown leaves
no transcript marker).

Never-returned launches sit anywhere in a long file, so this is a WHOLE-file scan; one RE2
pass per needle finds the candidate lines (each needle opens on a byte that is rare in
transcripts, which RE2's literal search skips to), and only those lines are decoded. A
shell's or a monitor's result is found by its call id, looked for just past the call
first. ``Scanner`` also takes appended lines (``wait``), keeping its state between reads.

THE LENS decides which open tasks COUNT toward the verdict: ``--background-since WHEN``
(tasks launched before WHEN do not count) and ``--ignore-background RE`` (tasks whose
description or command matches do not count). Every task is still listed; an excluded one
carries the rule that excluded it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import field
from datetime import datetime
from typing import Any

from pysift.core import classify
from pysift.core.decode import decode
from pysift.core.lanes import pulse_text, section_tags
from pysift.core.timez import parse_ts
from pysift.disk.jsonline import spelled
from pysift.disk.lines import Buffer, line_end, line_start
from pysift.model.fastdata import dataclass
from pysift.model.record import Record, block_name

SHELL, AGENT, MONITOR = "shell", "agent", "monitor"
OPEN, COMPLETED, FAILED, KILLED, STOPPED, TIMED_OUT = (
    "open", "completed", "failed", "killed", "stopped", "timed-out")
CLOSED_STATES = (COMPLETED, FAILED, KILLED, STOPPED, TIMED_OUT)
_STATUS_STATE = {"completed": COMPLETED, "failed": FAILED, "killed": KILLED,
                 "stopped": STOPPED}
SHELL_TOOLS = frozenset({"Bash", "PowerShell"})

#: candidate needles: the lines of a launch (a call run in the background, a Monitor, a
#: launched agent) and of a notification carrier
LAUNCH_NEEDLES = (b"_in_background", b'Monitor"', b"_launched")
CARRIER_NEEDLES = (b"-notification",)
#: the appended lines (``wait``) that may hold a task tool's result stating a task's fate
#: (TaskStop/TaskOutput, KillShell, BashOutput), read in every lane; a whole file is
#: searched for the ids of the tasks still open instead (``task_tool_words``)
TASK_TOOL_NEEDLES = (b'"task_id"', b'"shell_id"', b'"shellId"')
#: a call's result is looked for this far past the call first
_NEAR_RESULT = 256 * 1024

NOT_PROOF = ("a task that has not returned is not proven to be running: a UI stop, a "
             "Monitor timeout or an agent teardown leaves no transcript marker (Claude Code "
             "reconciles such tasks only at the next session start)")
ORPHAN_SENTINEL = "__orphan_summary"


@dataclass
class BgTask:
    kind: str
    tool_use_id: str
    lane: str  # the transcript that launched it (a session uuid or an agent id)
    launched: str | None  # raw timestamp of the launch
    id: str | None = None  # the harness's task id (a shell/monitor id, an agent id)
    description: str | None = None
    command: str | None = None
    output_file: str | None = None
    state: str = OPEN
    returned: str | None = None
    offset: int = 0  # where its launch line starts (file order within the lane)
    ignored_by: str | None = None
    output_bytes: int | None = None
    output_age_s: int | None = None
    unknown_status: str | None = None  # a returned status outside the known set
    run_id: str | None = None  # a background Workflow run's id (its manifest's stem)
    closed_by: str | None = None  # how its fate was told (a pulse, a task tool, a manifest)

    @property
    def is_open(self) -> bool:
        return self.state == OPEN


@dataclass
class _Carrier:
    task_ids: list[str]
    tool_use_id: str | None
    status: str | None
    event: str | None
    ts: str | None
    orphan: bool
    how: str = "its completion pulse is in the main transcript"


@dataclass(frozen=True)
class Lens:
    """Which open tasks count toward the verdict (``--background-since``,
    ``--ignore-background``)."""

    since: datetime | None = None
    since_raw: str | None = None
    ignore: Sequence[tuple[str, Any]] = ()  # (the pattern as given, its matcher)

    @property
    def active(self) -> bool:
        return self.since is not None or bool(self.ignore)

    def words(self) -> str:
        parts = []
        if self.since_raw is not None:
            parts.append(f"--background-since {self.since_raw}")
        parts.extend(f"--ignore-background {raw}" for raw, _ in self.ignore)
        return ", ".join(parts)

    def excludes(self, task: BgTask) -> str | None:
        if self.since is not None:
            launched = parse_ts(task.launched)
            if launched is not None and launched < self.since:
                return f"launched before --background-since {self.since_raw}"
        hay = " ".join(t for t in (task.description, task.command) if t)
        for raw, matcher in self.ignore:
            if matcher.matches(hay):
                return f"matches --ignore-background {raw}"
        return None


@dataclass
class BackgroundReport:
    tasks: list[BgTask] = field(default_factory=list)  # open counted, open ignored, closed
    notes: list[str] = field(default_factory=list)
    scanned_files: int = 0
    returned_agents: set[str] = field(default_factory=set)

    def count(self, state: str) -> int:
        return sum(1 for t in self.tasks if t.state == state)

    @property
    def open_counted(self) -> int:
        return sum(1 for t in self.tasks if t.is_open and t.ignored_by is None)

    @property
    def open_ignored(self) -> int:
        return sum(1 for t in self.tasks if t.is_open and t.ignored_by is not None)

    def summary_line(self) -> str:
        ignored = f" (+{self.open_ignored} ignored by the lens)" if self.open_ignored else ""
        timed = f", {self.count(TIMED_OUT)} timed out" if self.count(TIMED_OUT) else ""
        return (f"{self.open_counted} open{ignored}; {self.count(COMPLETED)} completed, "
                f"{self.count(FAILED)} failed, {self.count(KILLED)} killed, "
                f"{self.count(STOPPED)} stopped{timed}")


class Scanner:
    """Launches and completions of one session, read whole (``scan``) or as appended
    lines (``feed``); ``report`` applies the lens."""

    def __init__(self) -> None:
        self.tasks: dict[str, BgTask] = {}
        self._unpaired: dict[str, BgTask] = {}  # shells/monitors whose result is unseen
        self._carriers: list[_Carrier] = []
        self._stop_notices: list[str] = []
        self._launch_errors = 0
        self.files: set[str] = set()

    # -- reading --------------------------------------------------------------------------

    def scan(self, buf: Buffer, lane: str, *, is_main: bool, key: str) -> None:
        """One whole transcript: its candidate lines (needle passes), then the results of
        its launches."""
        self.files.add(key)
        spans = _candidate_lines(buf, LAUNCH_NEEDLES + (CARRIER_NEEDLES if is_main else ()))
        for start, end in spans:
            rec = decode(buf[start:end], None)
            if rec is not None:
                self._ingest(rec, lane, is_main, start)
        self._pair_in(buf, lane)

    def feed(self, lines: Iterable[tuple[int, bytes]], lane: str, *, is_main: bool,
             key: str) -> None:
        """Appended complete lines of one transcript (``(offset, bytes)``)."""
        self.files.add(key)
        needles = LAUNCH_NEEDLES + TASK_TOOL_NEEDLES + (CARRIER_NEEDLES if is_main else ())
        for offset, line in lines:
            waiting = [i for i, t in self._unpaired.items() if t.lane == lane
                       and spelled(i) in line]
            if not waiting and not any(n in line for n in needles):
                continue
            rec = decode(line, None)
            if rec is None:
                continue
            self._ingest(rec, lane, is_main, offset)
            if rec.type == "user":
                self._task_tool_word(rec)
            if waiting:
                self._pair_record(rec)

    def _ingest(self, rec: Record, lane: str, is_main: bool, offset: int) -> None:
        if rec.type == "assistant":
            for block in rec.blocks_of("tool_use"):
                self._launch(block, rec, lane, offset)
        elif rec.type == "user":
            self._pair_record(rec)
            self._async_launch(rec, lane, offset)
        if is_main:
            self._carrier(rec)

    def _launch(self, block: dict[str, Any], rec: Record, lane: str, offset: int) -> None:
        ident, name = block.get("id"), block_name(block)
        if not isinstance(ident, str) or not ident or ident in self.tasks:
            return
        raw_input = block.get("input")
        payload = raw_input if isinstance(raw_input, dict) else {}
        if name in SHELL_TOOLS and payload.get("run_in_background") is True:
            kind = SHELL
            command = _text(payload.get("command"))
        elif name == "Monitor":
            kind = MONITOR
            ws = payload.get("ws")
            command = _text(payload.get("command")) or (
                _text(ws.get("url")) if isinstance(ws, dict) else None)
        else:
            return
        task = BgTask(kind=kind, tool_use_id=ident, lane=lane, launched=rec.timestamp,
                      description=_text(payload.get("description")), command=command,
                      offset=offset)
        self.tasks[ident] = task
        self._unpaired[ident] = task

    def _async_launch(self, rec: Record, lane: str, offset: int) -> None:
        echo = rec.tool_use_result
        if not isinstance(echo, dict) or echo.get("status") != "async_launched":
            return
        for block in rec.blocks_of("tool_result"):
            ident = block.get("tool_use_id")
            if not isinstance(ident, str) or ident in self.tasks:
                continue
            self.tasks[ident] = BgTask(
                kind=AGENT, tool_use_id=ident, lane=lane, launched=rec.timestamp,
                id=_text(echo.get("agentId")) or _text(echo.get("taskId")),
                description=_text(echo.get("description")),
                output_file=_text(echo.get("outputFile")), offset=offset,
                run_id=_text(echo.get("runId")))

    def task_tool_words(self, buffers: Iterable[Buffer]) -> None:
        """After every transcript of the session was scanned: the task tools' words about
        the tasks still open, wherever they were said (a lane may stop a task the main
        launched, and the main is scanned first). Only the lines holding an open task's id
        are decoded: a session with no open task costs nothing."""
        tasks = {k: _copy(t) for k, t in self.tasks.items()}
        self._settle(tasks)
        ids = sorted({t.id for t in tasks.values() if t.is_open and t.id})
        if not ids:
            return
        needles = [spelled(i) for i in ids]
        for buf in buffers:
            for start, end in _candidate_lines(buf, needles):
                rec = decode(buf[start:end], None)
                if rec is not None and rec.type == "user":
                    self._task_tool_word(rec)

    def _task_tool_word(self, rec: Record) -> None:
        """A task tool's result that states a task's fate: a successful stop or kill, or a
        poll reporting a final status; taken as a completion of that task id."""
        echo = rec.tool_use_result
        if not isinstance(echo, dict) or any(
                b.get("is_error") is True for b in rec.blocks_of("tool_result")):
            return
        message = echo.get("message")
        message = message if isinstance(message, str) else ""
        polled = echo.get("task")
        if isinstance(polled, dict):  # TaskOutput
            ident, status = _text(polled.get("task_id")), _text(polled.get("status"))
        elif "shellId" in echo:  # BashOutput
            ident, status = _text(echo.get("shellId")), _text(echo.get("status"))
        elif message.startswith("Successfully stopped task"):  # TaskStop
            ident, status = _text(echo.get("task_id")), "stopped"
        elif message.startswith("Successfully killed shell"):  # KillShell
            ident, status = _text(echo.get("shell_id")), "killed"
        else:
            return
        if ident is None or status is None or status.lower() not in _STATUS_STATE:
            return  # still running, or a word that is no final status
        how = (f"a task poll reports it {status.lower()}" if isinstance(polled, dict)
               or "shellId" in echo else f"a task tool {status.lower()} it")
        self._carriers.append(_Carrier(task_ids=[ident], tool_use_id=None,
                                       status=status.lower(), event=None, ts=rec.timestamp,
                                       orphan=False, how=how))

    def _pair_record(self, rec: Record) -> None:
        for block in rec.blocks_of("tool_result"):
            ident = block.get("tool_use_id")
            task = self._unpaired.pop(ident, None) if isinstance(ident, str) else None
            if task is None:
                continue
            if block.get("is_error") is True:
                task.state, task.returned = FAILED, rec.timestamp
                self._launch_errors += 1
                continue
            text = classify.result_text(block)
            echo = rec.tool_use_result if isinstance(rec.tool_use_result, dict) else {}
            task.id = (_after(text, "with ID: ") or _after(text, "(task ")
                       or _text(echo.get("backgroundTaskId")) or _text(echo.get("taskId")))
            task.output_file = _after(text, "written to: ") or _text(echo.get("outputFile"))

    def _pair_in(self, buf: Buffer, lane: str) -> None:
        """The results of this lane's unpaired launches: just past each call first, then
        one pass over the ids still waiting."""
        mine = {i: t for i, t in self._unpaired.items() if t.lane == lane}
        for ident, task in mine.items():
            needle = b'"' + spelled(ident) + b'"'
            lo = line_end(buf, task.offset)
            pos = buf.find(needle, lo, lo + _NEAR_RESULT)
            while pos >= 0 and ident in self._unpaired:
                end = self._pair_line(buf, pos)
                pos = buf.find(needle, end, lo + _NEAR_RESULT)
        waiting = [i for i in mine if i in self._unpaired]
        if not waiting:
            return
        import re2

        pattern = re2.compile(b'"(?:' + b"|".join(re2.escape(spelled(i)) for i in waiting)
                              + b')"')
        done_to = -1
        for match in pattern.finditer(buf, min(mine[i].offset for i in waiting)):
            if match.start() < done_to:
                continue
            done_to = self._pair_line(buf, match.start())
            if not any(i in self._unpaired for i in waiting):
                return

    def _pair_line(self, buf: Buffer, pos: int) -> int:
        start, end = line_start(buf, pos), line_end(buf, pos)
        rec = decode(buf[start:end], None)
        if rec is not None and rec.type == "user":
            self._pair_record(rec)
        return end

    def _carrier(self, rec: Record) -> None:
        text = pulse_text(rec)
        if text is None:
            return
        if classify.is_agents_stopped_notice(text):
            note = (f"the user stopped background agent(s) at {rec.timestamp or '?'} "
                    f"({classify.normalize_line(text)[:120]}): the notice names no id, so "
                    "which agents it stopped cannot be marked")
            if note not in self._stop_notices:
                self._stop_notices.append(note)
            return
        for section in classify.notification_sections(text):
            ids = section_tags(section, "task-id")
            self._carriers.append(_Carrier(
                task_ids=[i for i in ids if not i.startswith(ORPHAN_SENTINEL)],
                tool_use_id=classify.extract_xml_tag(section, "tool-use-id"),
                status=classify.extract_xml_tag(section, "status"),
                event=classify.extract_xml_tag(section, "event"),
                ts=rec.timestamp,
                orphan=any(i.startswith(ORPHAN_SENTINEL) for i in ids)))

    # -- the report -----------------------------------------------------------------------

    def report(self, lens: Lens, now: datetime, *,
               stat: Callable[[str], tuple[int, float] | None] | None = None,
               lane: str | None = None,
               run_status: Callable[[str], tuple[str, str | None] | None] | None = None,
               ) -> BackgroundReport:
        """The tasks with their fate and the lens applied (``lane``: only the tasks that
        lane launched, for a subagent's own report; ``run_status``: a Workflow run's
        status and instant from its run manifest, which Claude Code writes when the run
        ends, None without one)."""
        tasks = {k: _copy(t) for k, t in self.tasks.items()}
        notes: list[str] = []
        orphaned, unknown = self._settle(tasks)
        by_manifest = _close_by_manifest(tasks, run_status) if run_status else 0
        if lane is not None:
            tasks = {k: t for k, t in tasks.items() if t.lane == lane}
        out = BackgroundReport(scanned_files=len(self.files))
        stat = stat or _stat
        for task in tasks.values():
            if task.is_open:
                task.ignored_by = lens.excludes(task)
                if task.output_file:
                    found = stat(task.output_file)
                    if found is not None:
                        task.output_bytes = found[0]
                        task.output_age_s = max(0, int(now.timestamp() - found[1]))
            elif task.kind == AGENT and task.id:
                out.returned_agents.add(task.id)
        ordered = sorted(tasks.values(), key=_order_key)
        out.tasks = ordered
        if any(t.is_open for t in ordered):
            notes.append(NOT_PROOF)
        if orphaned:
            notes.append(f"{orphaned} task(s) were marked stopped by Claude Code's "
                         "reconciliation at a later session start (no completion record)")
        if by_manifest:
            notes.append(f"{by_manifest} background Workflow run(s) closed by their run "
                         "manifest (written when a run ends), no task notification seen")
        if self._launch_errors:
            notes.append(f"{self._launch_errors} background launch(es) failed at once (an "
                         "error result): counted as failed")
        if unknown:
            notes.append(f"{sum(unknown.values())} task(s) returned with a status outside "
                         f"completed/failed/killed/stopped ({', '.join(sorted(unknown))}): "
                         "counted as completed")
        notes.extend(self._stop_notices)
        out.notes = notes
        return out

    def _settle(self, tasks: dict[str, BgTask]) -> tuple[int, dict[str, int]]:
        """Join the carriers to the launches, in file order (the latest word wins)."""
        by_id: dict[str, str] = {}
        for key, task in tasks.items():
            if task.id:
                by_id.setdefault(task.id, key)
        orphaned = 0
        unknown: dict[str, int] = {}
        for carrier in self._carriers:
            keys = []
            if carrier.tool_use_id in tasks:
                keys.append(carrier.tool_use_id)
            keys.extend(by_id[i] for i in carrier.task_ids if i in by_id and by_id[i] not in keys)
            for key in keys:
                task = tasks[key]
                if carrier.orphan:
                    state = STOPPED
                    orphaned += task.state == OPEN
                elif carrier.status is not None:
                    state = _STATUS_STATE.get(carrier.status.strip().lower(), COMPLETED)
                    if carrier.status.strip().lower() not in _STATUS_STATE:
                        task.unknown_status = carrier.status
                elif carrier.event is not None and "timed out" in carrier.event.lower():
                    state = TIMED_OUT
                else:
                    continue  # a Monitor's event pulse: still armed
                task.state, task.returned, task.closed_by = state, carrier.ts, carrier.how
        for task in tasks.values():
            if task.unknown_status is not None and task.state == COMPLETED:
                unknown[task.unknown_status] = unknown.get(task.unknown_status, 0) + 1
        return orphaned, unknown


def _close_by_manifest(tasks: dict[str, BgTask],
                       run_status: Callable[[str], tuple[str, str | None] | None]) -> int:
    """Close the open background Workflow runs whose manifest states a final status."""
    closed = 0
    for task in tasks.values():
        if not task.is_open or task.run_id is None:
            continue
        found = run_status(task.run_id)
        state = _STATUS_STATE.get(found[0].strip().lower()) if found else None
        if found is not None and state is not None:
            task.state, task.returned = state, found[1]
            task.closed_by = f"its run manifest says {found[0]}"
            closed += 1
    return closed


def _order_key(task: BgTask) -> tuple[int, float, str]:
    rank = 0 if task.is_open and task.ignored_by is None else 1 if task.is_open else 2
    launched = parse_ts(task.launched)
    return (rank, -(launched.timestamp() if launched else 0.0), task.tool_use_id)


def _copy(task: BgTask) -> BgTask:
    return BgTask(**{name: getattr(task, name) for name in BgTask.__dataclass_fields__})


def _stat(path: str) -> tuple[int, float] | None:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return info.st_size, info.st_mtime


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _after(text: str, marker: str) -> str | None:
    """The token after ``marker`` (up to whitespace, a comma, a ``)``, or a sentence's
    closing period)."""
    at = text.find(marker)
    if at < 0:
        return None
    rest = text[at + len(marker):]
    end = len(rest)
    for i, char in enumerate(rest):
        if char.isspace() or char in ",)" or (char == "." and rest[i + 1:i + 2] in ("", " ", "\n")):
            end = i
            break
    token = rest[:end].rstrip(".")
    return token or None


def delivered_pulses(rec: Record) -> list[str]:
    """The ``<task-notification>`` sections one freshly appended MAIN-lane record
    delivers: a user record (an idle delivery), a queue ENQUEUE line or a
    ``queued_command`` attachment (a mid-turn delivery). A queue remove or dequeue repeats
    what the enqueue carried and delivers nothing."""
    if rec.type == "queue-operation" and rec.raw.get("operation") != "enqueue":
        return []
    text = pulse_text(rec)
    return [] if text is None else classify.notification_sections(text)


def _candidate_lines(buf: Buffer, needles: Sequence[bytes]) -> list[tuple[int, int]]:
    """``(start, end)`` of every line holding one of ``needles``, in file order: their
    SIMD literal searches, each over a part of the buffer while the part is in the cache
    (``prefilter.line_spans_containing``; RE2's passes, on two threads, took 1.5x as long
    over corpus A and twice the CPU)."""
    from pysift.core.prefilter import line_spans_containing

    return line_spans_containing(buf, needles)


def task_json(task: BgTask, now: datetime, tz: Any) -> dict[str, Any]:
    from pysift.core.timez import local_iso
    from pysift.live.tail import age_s

    return {
        "kind": task.kind,
        "id": task.id,
        "tool_use_id": task.tool_use_id,
        "lane": task.lane,
        "state": task.state,
        "description": task.description,
        "command": task.command,
        "launched_utc": task.launched,
        "launched_local": local_iso(task.launched, tz),
        "age_secs": age_s(task.launched, now),
        "output_file": task.output_file,
        "output_bytes": task.output_bytes,
        "output_age_secs": task.output_age_s,
        "ignored_by": task.ignored_by,
    }


def report_json(report: BackgroundReport, now: datetime, tz: Any) -> dict[str, Any]:
    return {
        "open": report.open_counted,
        "ignored": report.open_ignored,
        "completed": report.count(COMPLETED),
        "failed": report.count(FAILED),
        "killed": report.count(KILLED),
        "stopped": report.count(STOPPED),
        "timed_out": report.count(TIMED_OUT),
        "scanned_files": report.scanned_files,
        "tasks": [task_json(t, now, tz) for t in report.tasks if t.is_open],
        "notes": list(report.notes),
    }


__all__ = ["AGENT", "MONITOR", "NOT_PROOF", "SHELL", "BackgroundReport", "BgTask", "Lens",
           "Scanner", "delivered_pulses", "report_json", "task_json"]
