"""Stop hooks after a lane's last message: whether the records say its turn is over.

One reading shared by ``status``/``wait`` (``live.tail``, over the tail window) and
``agents`` (``core.lanes.read_lane``, over a subagent transcript's tail), so that the two
never disagree about whether a lane's turn is over.

After an assistant message that ends a turn Claude Code runs the Stop hooks (a subagent's
``SubagentStop`` hooks, in the subagent's own loop, written into its own transcript), and
only then is the turn over. Builds up to ~2.1.4x write a ``progress`` record
(``hook_progress``) as each hook starts and a ``system``/``stop_hook_summary`` once all
have returned (185 of 185 such records in the real corpus are followed by one): a hook
started with no summary after it is still RUNNING. A hook that blocks (exit 2, decision
``block``) makes Claude Code write its reason as an ``isMeta`` user record (``Stop hook
feedback:``; a ``hook_blocking_error`` attachment where a build writes one) and send the
agent back to work: the turn is not over until a newer assistant record says so.
``preventedContinuation: true`` in the summary (a hook's ``continue: false``, a
``hook_stopped_continuation`` or ``hook_cancelled`` attachment) is the opposite: the hook
STOPPED the agent, so the turn ended.

Newer builds write no ``hook_progress``: each hook's ``attachment`` (``hook_success``,
``hook_non_blocking_error``, ``hook_blocking_error``, ``hook_cancelled``) is written when
that hook has RETURNED, and nothing when one starts. The summary cannot stand in for the
end either: IDE, desktop and SDK sessions write it only with the next prompt, so an
attachment with no summary after it is what a FINISHED turn looks like there. Such a
build's running hook is therefore not on disk and is not read; an attachment is read as
the return of the started hook (a ``hook_progress``) naming the same command, so a hook
whose return is written never reads running, summary or not.

A reader feeds ``StopHookWalk.read`` the records NEWER than the lane's newest user or
assistant record (``bounds_hooks`` tells which record that is), newest first, and asks
``verdict`` once it meets that record, when it is an assistant one.
"""

from __future__ import annotations

from pysift.core import classify
from pysift.model.fastdata import dataclass
from pysift.model.record import Record

__all__ = ["HOOK_NEEDLE", "LANE_STOP_EVENTS", "MAIN_STOP_EVENTS", "RUNNING_HOOK",
           "StopHook", "StopHookWalk", "bounds_hooks", "stop_feedback"]

#: the hook events whose run holds a main transcript's turn open
MAIN_STOP_EVENTS = frozenset({"Stop"})
#: ... and a subagent lane's (Claude Code names a subagent's ``SubagentStop``)
LANE_STOP_EVENTS = frozenset({"Stop", "SubagentStop"})
#: every record the walk reads (a progress, attachment, summary or feedback record) holds
#: these bytes: a reader may pass over the other non-message lines undecoded
HOOK_NEEDLE = b"hook"
#: ``StopHook.state`` of a hook started and not returned (else ``"blocked"``)
RUNNING_HOOK = "running"
#: attachments saying a Stop hook ended the agent's work rather than continuing it
_STOPPED_ATTACHMENTS = frozenset({"hook_stopped_continuation", "hook_cancelled"})
#: attachments written when one hook has returned (whatever it decided)
_RETURNED_ATTACHMENTS = frozenset({"hook_success", "hook_non_blocking_error",
                                   "hook_blocking_error", "hook_cancelled",
                                   "hook_stopped_continuation"})
_NO_COMMAND = "(no command named)"


@dataclass(frozen=True, slots=True)
class StopHook:
    """A Stop hook holding the end of a lane's turn (see the module doc)."""

    state: str  # "running": started, not returned | "blocked": sent the agent back to work
    detail: str  # the running hooks' commands, or the block's first line of feedback
    since: str | None  # the newest such record's timestamp
    event: str = "Stop"  # the hook event: ``Stop``, or a subagent's ``SubagentStop``


def bounds_hooks(rec: Record) -> bool:
    """Whether ``rec`` is a lane's newest user or assistant record as the walk reads it:
    the hook records newer than it are the ones that can hold its turn (a meta record and
    a hook's own feedback are the hooks' side, not a message)."""
    return (rec.type in ("user", "assistant") and not rec.is_meta
            and stop_feedback(rec) is None)


class StopHookWalk:
    """The Stop-hook records newer than a lane's newest assistant record, met newest
    first (see the module doc). ``events``: the hook events read; ``event``: the name
    given to a block whose record names none (the feedback record)."""

    def __init__(self, events: frozenset[str], event: str) -> None:
        self.events = events
        self.event = event
        self.summary = False  # a stop_hook_summary is newer than the records read now
        self.stopped = False  # a hook stopped the agent (continue: false, a cancel)
        self.blocked: tuple[str, str | None, str] | None = None  # (feedback, ts, event)
        self.running: list[str] = []  # commands started after the newest summary
        self.running_ts: str | None = None
        self.running_event = event
        #: returns met (newer than what is read now) not yet matched to a start, by command
        self.returned: dict[str, int] = {}

    @classmethod
    def for_lane(cls, *, main: bool) -> StopHookWalk:
        """A main transcript reads ``Stop`` hooks only (a ``SubagentStop`` record there is
        a lane's and holds no main turn); a subagent lane reads both."""
        return cls(MAIN_STOP_EVENTS, "Stop") if main else cls(LANE_STOP_EVENTS, "SubagentStop")

    def read(self, rec: Record) -> None:
        kind = rec.type
        if kind == "system" and rec.subtype == "stop_hook_summary":
            self.summary = True
            if rec.raw.get("preventedContinuation") is True:
                self.stopped = True
        elif kind == "attachment":
            att = rec.raw.get("attachment")
            if not isinstance(att, dict) or att.get("hookEvent") not in self.events:
                return
            what = att.get("type")
            if what in _RETURNED_ATTACHMENTS:
                command = _attachment_command(att)
                self.returned[command] = self.returned.get(command, 0) + 1
            if what in _STOPPED_ATTACHMENTS:
                self.stopped = True
            elif what == "hook_blocking_error" and self.blocked is None:
                err = att.get("blockingError")
                why = err.get("blockingError") if isinstance(err, dict) else None
                self.blocked = (why if isinstance(why, str) else "(no reason given)",
                                rec.timestamp, str(att.get("hookEvent")))
        elif kind == "user" and self.blocked is None and (body := stop_feedback(rec)):
            self.blocked = (body, rec.timestamp, self.event)
        elif kind == "progress" and not self.summary:
            data = rec.raw.get("data")
            if (isinstance(data, dict) and data.get("type") == "hook_progress"
                    and data.get("hookEvent") in self.events):
                named = data.get("command")
                started = named if isinstance(named, str) and named else _NO_COMMAND
                if self.returned.get(started, 0) > 0:
                    self.returned[started] -= 1  # its return is written: it ran and ended
                    return
                self.running.append(started)
                self.running_ts = rec.timestamp  # met newest first: the first started
                self.running_event = str(data.get("hookEvent"))

    def verdict(self) -> StopHook | None:
        """What the records say once the newest assistant record is met: a hook that
        stopped the agent outranks a block (Claude Code reads ``continue: false`` first)."""
        if self.stopped:
            return None
        if self.blocked is not None:
            first = next((ln.strip() for ln in self.blocked[0].splitlines() if ln.strip()),
                         "(no reason given)")
            return StopHook("blocked", first, self.blocked[1], self.blocked[2])
        if self.running:
            commands = ", ".join(dict.fromkeys(reversed(self.running)))
            return StopHook(RUNNING_HOOK, commands, self.running_ts, self.running_event)
        return None


def _attachment_command(att: dict[str, object]) -> str:
    """The command a hook attachment names (a blocking error's is inside its error)."""
    command: object = att.get("command")
    if not isinstance(command, str) or not command:
        err = att.get("blockingError")
        command = err.get("command") if isinstance(err, dict) else None
    return command if isinstance(command, str) and command else _NO_COMMAND


def stop_feedback(rec: Record) -> str | None:
    """A user record that is a blocking Stop hook's feedback: the text after the marker
    (never empty), else None. Written ``isMeta``; read whatever the flag says, so that a
    build writing it without the flag does not make it the human's newest record."""
    if rec.type != "user":
        return None
    content = rec.content
    body = content if isinstance(content, str) else next(
        (b["text"] for b in rec.blocks_of("text") if isinstance(b.get("text"), str)), None)
    if body is None or not body.startswith(classify.STOP_HOOK_FEEDBACK):
        return None
    return body[len(classify.STOP_HOOK_FEEDBACK):] or " "
