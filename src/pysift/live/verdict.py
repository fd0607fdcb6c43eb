"""The verdict: the three-way join of the registry, the tail and the owner process.

Seven verdicts, in precedence order (csift v0.10.0): ``stale-dead`` > ``waiting-hitl`` >
``running`` > ``waiting-children`` > ``idle-background-open`` > ``idle-eot`` > ``unknown``.

- ``stale-dead``: the registry's pid is gone, or now belongs to another process.
- ``waiting-hitl``: a human is needed: a pending elicitation in the sidecar, the registry
  status ``waiting`` (any dialog, permission prompts included), or an unreturned
  ``AskUserQuestion``/``ExitPlanMode`` at the main tail.
- ``running``: a call of the main lane's newest turn is unanswered, or the registry says
  ``busy`` (the only registry running signal: ``shell`` is idle with a background shell),
  or a Stop hook holds the turn open after its last message (one started and not
  returned, or one that blocked and sent the agent back to work: ``tail.StopHook``; a
  subagent target's ``SubagentStop`` hook, until the harness reports its return).
- ``waiting-children``: a subagent lane is live (in flight or generating), or a workflow
  journal has an agent started without a result.
- ``idle-background-open``: the turn ended, and background tasks the lens counts have not
  returned (neither running nor stopped: pysift cannot tell).
- ``idle-eot``: the turn ended: the last assistant ``stop_reason`` is ``end_turn``, the
  main lane's newest record is a turn-ending harness marker (an interrupt, a local
  command's output, a final API error), or the registry of a live owner says ``idle`` or
  ``shell``.
- ``unknown``: none of the above can be shown; the notes say why.

Every surface read leaves an evidence row, and every surface that could not be read, or
was read only in part, leaves a note: nothing degrades silently.
"""

from __future__ import annotations

from dataclasses import field
from datetime import datetime
from typing import Any

from pysift.core.lanes import GENERATING_WINDOW_S, seconds_label
from pysift.core.stophooks import StopHook
from pysift.core.timez import parse_ts
from pysift.live import process
from pysift.live.background import BackgroundReport
from pysift.live.children import ChildrenReport
from pysift.live.last import LastMessages
from pysift.live.registry import STATUSES, RegistryLookup
from pysift.live.tail import TailShape, age_s, words
from pysift.live.tasks import TasksReport
from pysift.model.fastdata import dataclass

RUNNING = "running"
WAITING_CHILDREN = "waiting-children"
WAITING_HITL = "waiting-hitl"
IDLE_BACKGROUND_OPEN = "idle-background-open"
IDLE_EOT = "idle-eot"
STALE_DEAD = "stale-dead"
UNKNOWN = "unknown"
VERDICTS = (RUNNING, WAITING_CHILDREN, WAITING_HITL, IDLE_BACKGROUND_OPEN, IDLE_EOT,
            STALE_DEAD, UNKNOWN)
DIALOG_TOOLS = frozenset({"AskUserQuestion", "ExitPlanMode"})


@dataclass(frozen=True, slots=True)
class Evidence:
    surface: str
    value: str
    age_s: int | None = None


@dataclass(frozen=True, slots=True)
class Pending:
    kind: str  # AskUserQuestion | ExitPlanMode | mcp-elicitation
    line: str  # one-line description


@dataclass
class Surfaces:
    """What was read, before it is judged."""

    registry: RegistryLookup
    liveness: process.Liveness | None
    tail: TailShape
    children: ChildrenReport | None  # None: not read (a subagent target, --no-subagents)
    pending: list[Pending]
    background: BackgroundReport
    is_subagent: bool
    children_skipped: str | None = None  # why children were not read
    sidecar_error: str | None = None
    sidecar_skipped_lines: int = 0
    extra_notes: list[str] = field(default_factory=list)  # reading problems (unreadable dirs)
    now: datetime | None = None  # the instant judged (set by ``assess``)
    #: a subagent target the harness reported returned, and that has not worked since:
    #: how it was reported (``returned (its spawning call's result is in …)``), else None
    returned: str | None = None
    #: the target is a workflow agent whose journal holds its result: completed whatever
    #: its tail shows (its last call, StructuredOutput, is never answered in the lane)
    journal_settled: bool = False
    #: a subagent target whose session's main transcript (where its return would be) is
    #: missing or unreadable
    main_unread: bool = False


@dataclass
class Assessment:
    verdict: str
    evidence: list[Evidence]
    notes: list[str]
    surfaces: Surfaces
    tail_state: str
    tasks: TasksReport | None = None
    last: LastMessages | None = None


def assess(s: Surfaces, now: datetime) -> Assessment:
    s.now = now
    hook = _stop_hook(s)  # (read by the evidence, the rank and the words alike)
    evidence, notes = _evidence(s, now, hook)
    verdict = _rank(s, notes, hook)
    if verdict in (IDLE_EOT, WAITING_CHILDREN, IDLE_BACKGROUND_OPEN):
        notes.append(_permission_note(s))
    notes.extend(s.extra_notes)
    ended = s.returned if s.journal_settled or not s.tail.open_calls else None
    return Assessment(verdict, evidence, notes, s,
                      words(s.tail, now, returned=ended, hook=hook is not None))


def _status(s: Surfaces) -> str | None:
    """The registry status as a signal (a subagent's row is its parent's: not one)."""
    row = s.registry.row
    return row.status if row is not None and not s.is_subagent else None


def _stop_hook(s: Surfaces) -> StopHook | None:
    """The Stop hook holding the target's turn open (``TailShape.stop_hook``: a subagent's
    is its ``SubagentStop``), unless a call is open (it is the newer word), the harness
    reported the subagent returned (its spawning call's result, a pulse, its journal:
    Claude Code answers the spawn only once the hooks are through), or the row of a live
    owner turned idle after the hook's record was written (the harness's newer word: the
    hook has returned; a subagent's row is its parent's, no word on the lane)."""
    hook = s.tail.stop_hook
    if hook is None or (s.tail.open_calls and not s.journal_settled):
        return None
    if s.is_subagent:
        return None if s.returned is not None or s.journal_settled else hook
    row = s.registry.row
    status = _status(s)
    if row is not None and status in ("idle", "shell") and _owner_alive(s):
        changed = row.status_updated_ms or row.updated_ms
        written = parse_ts(hook.since)
        if changed and written is not None and changed / 1000 > written.timestamp():
            return None
    return hook


def _owner_alive(s: Surfaces) -> bool:
    return s.liveness is not None and s.liveness.outcome in (process.ALIVE,
                                                              process.ALIVE_PID_ONLY)


def _rank(s: Surfaces, notes: list[str], hook: StopHook | None) -> str:
    tail = s.tail
    status = _status(s)
    dead = s.liveness is not None and s.liveness.outcome in (process.DEAD, process.REUSED)
    open_calls = [] if s.journal_settled else tail.open_calls
    dialog = [c.name for c in open_calls if c.name in DIALOG_TOOLS]
    running = (bool(open_calls) or (status == "busy" and not s.journal_settled)
               or hook is not None)
    # idle-shaped: the main lane ended its turn (or the live harness says it is idle)
    idle_row = status == "shell" or (status == "idle"
                                     and (_owner_alive(s) or s.liveness is None))
    # a subagent's stop_reason is normally null, so its return, which the harness writes
    # into the main transcript, ends its turn (the harness's word outranks the tail)
    # a turn the harness ended without an end_turn (an interrupt, a local command, a
    # final API error): the marker is its word (the main lane's only)
    ended_by = None if s.is_subagent or open_calls else tail.turn_end()
    eot = not open_calls and hook is None and (
        tail.last_stop_reason == "end_turn" or idle_row or s.returned is not None
        or ended_by is not None)
    if s.returned is not None and not open_calls:
        notes.append(f"this lane {s.returned}")
    if ended_by is not None and tail.last_stop_reason != "end_turn":
        notes.append(f"the main turn ended: {ended_by} (no end_turn follows such a marker)")
    if status == "shell" and not dead:
        notes.append(
            "registry status shell: the session is idle at the end of its turn with a "
            "background shell open (the background section lists it)"
            if s.background.open_counted else
            "registry status shell: the harness reports a background shell open that the "
            "background section does not count (launched in a lane not read, excluded by "
            "the lens, or not found in the transcript); read as idle")
    if dead:
        notes.append("the tail shows a call still open: the process died in the middle of a "
                     "tool call" if tail.open_calls else
                     "the tail is settled: the process ended after its last turn")
        if s.children is not None and s.children.live_count:
            # subagent lanes run inside the session's process: gone with it
            notes.append(f"{s.children.live_count} subagent lane(s) read live from their "
                         "transcripts ran in that process and run no more: their rows are "
                         "where their transcripts stop (`agents` lists such a lane "
                         "`running`, read from its transcript alone)")
        return STALE_DEAD
    if s.pending or status == "waiting" or dialog:
        if status == "waiting":
            notes.append("registry status waiting: the session is blocked on a dialog (a "
                         "question, a permission prompt, a plan approval, a sandbox or worker "
                         "request)")
        if dialog:
            notes.append(f"the main tail holds an unanswered {dialog[0]} call: a question or "
                         "plan approval waits for the human (a multi-question ask is written "
                         "when asked; a single-question one only when answered, which the "
                         "elicitation sidecar covers)")
        _unconfirmed(s, notes)
        return WAITING_HITL
    if running:
        if hook is not None and not open_calls:
            notes.append(
                f"a {hook.event} hook is running after the turn's last message "
                f"({hook.detail}): the turn is over only when it returns (a hook that blocks "
                "sends the agent back to work)" if hook.state == "running" else
                f"a {hook.event} hook blocked the end of the turn ({hook.detail}): Claude "
                "Code sent the agent back to work, and no newer assistant record has ended "
                "the turn")
        _unconfirmed(s, notes)
        return RUNNING
    if s.children is not None and s.children.live_count:
        _unconfirmed(s, notes)
        return WAITING_CHILDREN
    if eot and s.background.open_counted:
        notes.append(
            "the turn ended, but background task(s) the lens counts have not returned: by "
            "design (a dev server, a watcher) or not, pysift cannot tell; "
            "--background-since / --ignore-background narrow what counts")
        return IDLE_BACKGROUND_OPEN
    if eot:
        return IDLE_EOT
    if tail.records_seen == 0:
        notes.append("no record could be read at the tail of the transcript")
        return UNKNOWN
    age = age_s(tail.last_ts, s.now) if s.now is not None else None
    notes.append(
        f"the tail cannot be ranked: no call is open and the last stop_reason is "
        f"{tail.last_stop_reason or '(none)'}, not end_turn"
        + ("" if tail.last_stop_reason else
           " (a subagent's is normally null, and its session's main transcript, where its "
           "return would be, is not there or not readable)" if s.is_subagent and s.main_unread
           else " (a subagent's is normally null, and no return of this lane is in its "
           "session's main transcript)" if s.is_subagent else
           " (some Claude Code builds write none on the main lane)")
        + ("; no registry row says idle or busy" if s.registry.row is None else "")
        + (f"; the newest record is {seconds_label(age)} old: a reply may be on its way"
           if age is not None and age < GENERATING_WINDOW_S else ""))
    return UNKNOWN


def _unconfirmed(s: Surfaces, notes: list[str]) -> None:
    """A live verdict no live owner process backs: say how old the evidence is."""
    if _owner_alive(s):
        return
    why = ("no registry row names the owner process" if s.registry.row is None
           else "the owner process could not be confirmed alive")
    age = age_s(s.tail.last_ts, s.now) if s.now is not None else None
    old = f" and the newest record is {seconds_label(age)} old" if age is not None else ""
    notes.append(f"{why}{old}: a session abandoned in this state reads the same")


def _permission_note(s: Surfaces) -> str:
    status = _status(s)
    if s.registry.row is not None:
        shown = status if status is not None else "null"
        return ("a pending permission prompt leaves no transcript trace and would look idle; "
                f"the registry row (status {shown}) would read waiting while one is up, and "
                "that row is written on transitions only, so trust it while the owner is "
                "alive")
    return ("a pending permission prompt lives only in Claude Code's memory and leaves no "
            "transcript trace: it would look idle here (no registry row to show it)")


def _evidence(s: Surfaces, now: datetime, hook: StopHook | None
              ) -> tuple[list[Evidence], list[str]]:
    rows: list[Evidence] = []
    notes: list[str] = []
    row = s.registry.row
    if row is not None:
        pid = str(row.pid) if row.pid is not None else "?"
        if row.status is None:
            value = f"status null (pid {pid}; a claude -p row, which never transitions)"
        else:
            value = f"status {row.status} (pid {pid})"
            if row.status not in STATUSES:
                notes.append(f"registry status {row.status!r} is outside the known set "
                             f"({' | '.join(STATUSES)}): not read as a signal")
        changed = row.status_updated_ms or row.updated_ms
        age = max(0, int(now.timestamp() - changed / 1000)) if changed else None
        rows.append(Evidence("registry", value, age))
        if row.pid is None:
            notes.append("the registry row names no pid: the owner's liveness is unknown")
    elif s.is_subagent:
        notes.append("the registry covers top-level sessions only (a subagent has no row): "
                     "verdict from the tail")
    else:
        notes.append("no registry row names this session (not running now, an older Claude "
                     "Code, or a home copied from elsewhere): verdict from the transcript "
                     "alone" + ("" if s.registry.dir_exists else
                                " (this Claude home has no sessions/ dir)"))
    notes.extend(s.registry.notes())
    if s.liveness is not None:
        value, note = _pid_words(s.liveness)
        rows.append(Evidence("pid", value))
        if note:
            notes.append(note)
    tail = s.tail
    if tail.open_calls:
        newest = tail.open_calls[0]
        more = f" (+{len(tail.open_calls) - 1} more open)" if len(tail.open_calls) > 1 else ""
        rows.append(Evidence("tail", f"unreturned {newest.name} call{more}",
                             age_s(tail.open_calls[-1].since, now)))
    elif hook is not None:
        rows.append(Evidence("tail", f"no pending call; last stop_reason "
                                     f"{tail.last_stop_reason or '(none)'}; a {hook.event} "
                                     f"hook {'running' if hook.state == 'running' else 'blocked'}",
                             age_s(hook.since, now)))
    else:
        rows.append(Evidence("tail", f"no pending call; last stop_reason "
                                     f"{tail.last_stop_reason or '(none)'}",
                             age_s(tail.last_ts, now)))
    if tail.torn_tail:
        notes.append("the transcript ends in a partial line (a write in progress, or a crash "
                     "in the middle of one): it was not read")
    if tail.skipped_lines:
        notes.append(f"{tail.skipped_lines} malformed line(s) skipped in the tail window")
    notes.extend(tail.notes)
    if s.children is not None:
        kids = s.children
        if kids.children or kids.journal_in_flight:
            journal = (f" ({kids.journal_in_flight} workflow agent(s) in flight by the "
                       "journal)" if kids.journal_in_flight else "")
            rows.append(Evidence("children", f"{len(kids.children)} lane(s), "
                                             f"{kids.live_count} live{journal}"))
        notes.extend(kids.notes)
    elif s.children_skipped:
        notes.append(s.children_skipped)
    for pending in s.pending:
        rows.append(Evidence("sidecar", f"pending elicitation: {pending.line}"))
    if s.sidecar_error:
        notes.append(f"{s.sidecar_error}: a pending question or plan approval would not be "
                     "seen")
    if s.sidecar_skipped_lines:
        notes.append(f"{s.sidecar_skipped_lines} malformed line(s) skipped in the elicitation "
                     "sidecar")
    if s.background.tasks:
        rows.append(Evidence("background", s.background.summary_line()))
    return rows, notes


def _pid_words(live: process.Liveness) -> tuple[str, str | None]:
    outcome = live.outcome
    if outcome == process.ALIVE:
        return "alive (start-time guard matched)", None
    if outcome == process.ALIVE_PID_ONLY:
        return "alive (pid only)", f"the pid-reuse guard was skipped: {live.detail}"
    if outcome == process.DEAD:
        return "dead", None
    if outcome == process.REUSED:
        return "pid reused by another process", f"the pid is live but {live.detail}"
    if outcome == process.FOREIGN:
        return (f"row from another pid domain ({live.detail})",
                ("the registry row was written in another pid domain (another machine, OS or "
                 "pid namespace): its pid means nothing here, so it was not probed and "
                 "stale-dead cannot be decided"))
    return ("probe unavailable on this host",
            (f"the process table cannot be read here ({live.detail}): stale-dead cannot be "
             "decided"))


def evidence_json(rows: list[Evidence]) -> list[dict[str, Any]]:
    return [{"surface": e.surface, "value": e.value, "age_secs": e.age_s} for e in rows]
