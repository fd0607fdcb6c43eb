"""The transcript tail state machine: what the newest records say a lane is doing now.

Only a bounded window at the end of the file is read (512 KiB, aligned to a line start),
and only COMPLETE lines: the bytes after the last newline are a write in progress (a
torn tail), held and named, never parsed as a record. The exception is a last line that
is a whole JSON object without its newline (a file Claude Code will not append to any
more, such as a copied transcript): it is read as the record it is.

Walking the window newest first gives:

- the OPEN calls: ``tool_use`` blocks of the newest turn with no ``tool_result`` after
  them (a tool in flight, or a process that died mid-tool; the pid probe tells which).
  The search stops at the newest turn boundary (an assistant ``end_turn``, or a genuine
  human prompt): a call of an earlier turn that never got its result was abandoned. When
  the newest turn began before the window (old builds copy a running subagent's messages
  into the main transcript as ``progress`` records, so a turn can outgrow any window) the
  search goes on below it, up to 16 MiB further, and says so if it stopped short;
- the newest assistant ``stop_reason`` (trustworthy on the main lane; normally null on a
  subagent mid-message, and never written by older builds);
- the newest record's timestamp;
- on the main lane, whether its newest user or assistant record is a marker the harness
  writes when a turn ENDS without an ``end_turn``: an interrupt (``[Request interrupted by
  user…]``), a local command's output (``/exit``, ``/model``: no model turn), or a final
  API error (``isApiErrorMessage``: Claude Code gave the turn up). Older builds write no
  main-lane stop_reason at all, so without a registry row such a session read ``unknown``;
- whether a Stop hook holds the end of the turn after the newest assistant message (one
  started and not returned, or one that blocked and sent the agent back to work), read
  by ``core.stophooks`` as ``agents`` reads a lane's: on a subagent lane its
  ``SubagentStop`` hooks, whose records Claude Code writes into the lane's own
  transcript; a main transcript reads ``Stop`` hooks only (a ``SubagentStop`` record
  there is a lane's, and holds no main turn). Without this the newest assistant
  record's ``end_turn`` read ``idle-eot`` while the hook ran or the agent went on, and
  ``wait --until stop`` fired early.

In a main transcript a subagent's record Claude Code wrote into it (``isSidechain:true``,
builds 1.x and 2.0.x: the "Warmup" agent, a Task subagent's prompt and replies) bounds no
turn: its prompt is not the human's and its ``end_turn`` not the main agent's, whose
stop reason it does not give either (its calls are in flight in the session all the same).

Growth alone is never activity: an idle main transcript grows (queue operations,
attachments), so this module classifies WHAT the tail holds, not whether the file moved.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import field
from datetime import datetime

from pysift.core import classify
from pysift.core.decode import decode, is_blank, is_framed
from pysift.core.lanes import GENERATING_WINDOW_S, seconds_label
from pysift.core.stophooks import StopHook, StopHookWalk, bounds_hooks
from pysift.core.timez import parse_ts
from pysift.live.files import View
from pysift.model import labels as L
from pysift.model.fastdata import dataclass
from pysift.model.record import Record

TAIL_WINDOW = 512 * 1024
#: how far below the window the open-call search goes when the newest turn began there
EXTEND_LIMIT = 16 << 20
#: how far below the window the start of a newest record longer than the window is sought
LINE_LIMIT = 64 << 20
_EXTEND_KEYS = (b'"tool_use"', b'"tool_result"', b'end_turn', b'"user"', b'"type": "user"')
_MAIN_CONTEXT = classify.ClassifyContext()


@dataclass(slots=True)
class OpenCall:
    tool_use_id: str
    name: str
    since: str | None  # the issuing record's timestamp
    command: str | None = None  # a shell call's command (whether Claude Code holds it)


@dataclass
class TailShape:
    open_calls: list[OpenCall] = field(default_factory=list)  # newest first
    last_stop_reason: str | None = None
    last_ts: str | None = None
    records_seen: int = 0  # records decoded by the walk (0: the window holds none)
    skipped_lines: int = 0  # malformed complete lines in the window
    torn_tail: bool = False  # the file ends in a partial line (a write in progress)
    file_size: int = 0
    window_start: int = 0
    lines: list[bytes] = field(default_factory=list)  # the window's lines, newest first
    notes: list[str] = field(default_factory=list)
    #: the main lane's newest user/assistant record is a turn-ending harness marker: why
    turn_ended_by: str | None = None
    #: a Stop hook after the main lane's newest assistant record that holds the turn open
    stop_hook: StopHook | None = None
    _decoded: dict[int, Record | None] = field(default_factory=dict, repr=False)

    def turn_end(self) -> str | None:
        """Why the main lane's turn ended without an ``end_turn`` (a harness marker is its
        newest user/assistant record, no call is open), else None. A local command typed
        while the model works on a tool's result ends no turn."""
        why = self.turn_ended_by
        if why is None or self.open_calls:
            return None
        if why.startswith("a local command") and self.last_stop_reason == "tool_use":
            return None
        return why

    def record(self, index: int) -> Record | None:
        """The record of line ``index`` (newest first), decoded once."""
        if index not in self._decoded:
            self._decoded[index] = decode(self.lines[index], None)
        return self._decoded[index]

    def records(self, wanted: Callable[[bytes], bool] | None = None) -> Iterator[Record]:
        """The window's records newest first (only lines ``wanted`` passes, when given)."""
        for index, line in enumerate(self.lines):
            if wanted is None or wanted(line):
                rec = self.record(index)
                if rec is not None:
                    yield rec


def read_tail(view: View, *, window: int = TAIL_WINDOW, subagent: bool) -> TailShape:
    """The tail shape of one lane from its last ``window`` bytes (``subagent``: the lane
    is a subagent transcript). Lines are decoded newest first only as far as the walk
    needs (a turn ended at the tail costs one or two)."""
    shape = TailShape(file_size=view.size)
    if view.size == 0:
        return shape
    lo = max(0, view.size - window)
    data = view.read(lo, view.size)
    start = 0
    if lo > 0:
        nl = data.find(b"\n")
        if nl >= 0 and data.find(b"\n", nl + 1) >= 0:
            start = nl + 1
        else:  # no complete line begins in the window: the newest one is longer than it
            lo = _last_line_start(view, lo, nl, shape)  # a line start
            data = view.read(lo, view.size)
    shape.window_start = lo + start
    body = data[start:]
    last_nl = body.rfind(b"\n")
    tail_bytes = body[last_nl + 1:]
    lines = [ln for ln in body[:last_nl + 1].split(b"\n") if not is_blank(ln)]
    if tail_bytes.strip():
        if decode(tail_bytes, None) is not None:  # a partial line is not malformed
            lines.append(tail_bytes)  # a whole record without its newline
        else:
            shape.torn_tail = True
    lines.reverse()
    shape.lines = lines
    main = not subagent
    bounded = _walk(shape, main=main)
    if not bounded and shape.window_start > 0:
        _extend(view, shape, main)
    walked = len(shape._decoded)
    shape.skipped_lines = sum(1 for r in shape._decoded.values() if r is None) + sum(
        1 for ln in lines[walked:] if not is_framed(ln))
    return shape


def _last_line_start(view: View, lo: int, nl: int, shape: TailShape) -> int:
    """Where the file's newest complete line starts, when no complete line begins in the
    window ``[lo, size)`` (``nl``: the window's one newline, else -1): a record bigger than
    the window (an image a Read returned, a pasted prompt) is still the newest record.
    Searched up to ``LINE_LIMIT`` below the window; past that, said, and the window kept."""
    floor = max(0, lo - LINE_LIMIT)
    end = lo + nl if nl >= 0 else view.rfind_newline(floor, lo)
    if end < 0:
        if floor == 0:
            return 0  # the whole file is one line (torn, or a record without its newline)
    else:
        before = view.rfind_newline(floor, end)
        if before >= 0 or floor == 0:
            return before + 1
    shape.notes.append(f"the newest complete record is more than {LINE_LIMIT >> 20} MiB "
                       "long: it was not read")
    return lo if nl < 0 else lo + nl + 1


def _walk(shape: TailShape, below: Iterable[Record] | None = None,
          answered: set[str] | None = None, *, main: bool) -> bool:
    """Fill the shape from records newest first (the window's, else ``below``); True when
    the newest turn's boundary was met (the open-call search is complete). ``main``: the
    lane is a main transcript (its subagent records bound no turn)."""
    answered = answered if answered is not None else set()
    stop_known = shape.last_stop_reason is not None
    newest_seen = below is not None  # the newest user/assistant record
    # the records newer than it
    hooks = None if newest_seen else StopHookWalk.for_lane(main=main)
    for rec in (below if below is not None else _counted(shape)):
        if shape.last_ts is None and rec.timestamp and parse_ts(rec.timestamp) is not None:
            shape.last_ts = rec.timestamp
        kind = rec.type
        side = main and rec.is_sidechain  # a subagent's record in the main transcript
        if not newest_seen and not side and bounds_hooks(rec):
            newest_seen = True
            if main:
                shape.turn_ended_by = _turn_end_marker(rec)
            if hooks is not None and kind == "assistant":
                shape.stop_hook = hooks.verdict()
            hooks = None
        elif hooks is not None and not side:
            hooks.read(rec)
        if kind == "assistant":
            if not stop_known and not side:
                shape.last_stop_reason = rec.stop_reason
                stop_known = True
            for block in rec.blocks_of("tool_use"):
                ident, name = block.get("id"), block.get("name")
                if isinstance(ident, str) and ident not in answered:
                    answered.add(ident)  # one open row per call, however often written
                    payload = block.get("input")
                    command = payload.get("command") if isinstance(payload, dict) else None
                    shape.open_calls.append(OpenCall(
                        ident, name if isinstance(name, str) else "(unnamed)", rec.timestamp,
                        command if isinstance(command, str) else None))
            if rec.stop_reason == "end_turn" and not side:
                return True
        elif kind == "user":
            for block in rec.blocks_of("tool_result"):
                ident = block.get("tool_use_id")
                if isinstance(ident, str):
                    answered.add(ident)
            if classify.is_genuine_user(rec) and not side:
                return True
    return False


def _turn_end_marker(rec: Record) -> str | None:
    """Why ``rec``, the main lane's newest user or assistant record, says the turn ended
    (see the module doc), else None."""
    if rec.type == "assistant":
        return ("an API error Claude Code wrote ended it"
                if rec.raw.get("isApiErrorMessage") is True else None)
    labels = classify.classify(rec, _MAIN_CONTEXT)
    if L.HARNESS_INTERRUPT_USER in labels or L.HARNESS_INTERRUPT_TOOL in labels:
        return "the user interrupted it"
    if L.HARNESS_COMMAND_STDOUT in labels:
        return "a local command ran (no model turn)"
    return None


def _counted(shape: TailShape) -> Iterator[Record]:
    for rec in shape.records():
        shape.records_seen += 1
        yield rec


def _extend(view: View, shape: TailShape, main: bool) -> None:
    """Below the window: the calls of a turn that began before it (see the module doc)."""
    hi = shape.window_start
    lo = max(0, hi - EXTEND_LIMIT)
    data = view.read(lo, hi)
    if lo > 0:
        nl = data.find(b"\n")
        data = data[nl + 1:] if nl >= 0 else b""
    answered = {c.tool_use_id for c in shape.open_calls}
    # results already seen in the window answer calls below it (the walk read it all)
    for rec in shape.records():
        for block in rec.blocks_of("tool_result"):
            ident = block.get("tool_use_id")
            if isinstance(ident, str):
                answered.add(ident)
    lines = [ln for ln in data.split(b"\n") if any(k in ln for k in _EXTEND_KEYS)]
    records = [r for r in (decode(ln, None) for ln in reversed(lines)) if r is not None]
    bounded = _walk(shape, records, answered, main=main)
    if not bounded and lo > 0:
        shape.notes.append(
            f"the newest turn began more than {(EXTEND_LIMIT + (shape.file_size - hi)) >> 20} "
            f"MiB before the end of the transcript: calls issued before byte {lo} were not "
            "checked for a missing result")


def age_s(raw: str | None, now: datetime) -> int | None:
    """Whole seconds from ``raw`` to ``now`` (never negative); None when unreadable."""
    moment = parse_ts(raw)
    if moment is None:
        return None
    return max(0, int((now - moment).total_seconds()))


def words(shape: TailShape, now: datetime, *, returned: str | None = None,
          hook: bool = True) -> str:
    """The lane's instant in words: ``in a Bash call for 34s``, ``generating (…)``,
    ``idle (…)`` (status ``tail_state``, wait ``at_exit``). ``returned``: how the harness
    reported this subagent lane's return (``returned (how)``), which its calls left open
    do not outweigh: the lane is idle, whatever its null stop_reason and young tail say.
    ``hook``: the shape's Stop hook is the verdict's too (a newer registry word can
    outweigh it)."""
    if returned is not None:
        age = age_s(shape.last_ts, now)
        ago = f"{seconds_label(age)} ago" if age is not None else "(no timestamp)"
        how = returned.removeprefix("returned (").removesuffix(")")
        return (f"idle (returned: {how}; last stop_reason {shape.last_stop_reason or '(none)'}"
                f", last record {ago})")
    if shape.open_calls:
        oldest = shape.open_calls[-1]
        age = age_s(oldest.since, now)
        for_ = f" for {seconds_label(age)}" if age is not None else ""
        if len(shape.open_calls) == 1:
            return f"in a {oldest.name} call{for_}"
        names = ", ".join(dict.fromkeys(c.name for c in reversed(shape.open_calls)))
        return f"in {len(shape.open_calls)} calls ({names}){for_}"
    if shape.records_seen == 0:
        return "no records readable at the tail"
    if hook and (stop := shape.stop_hook) is not None:
        since = age_s(stop.since, now)
        if stop.state == "running":
            for_ = f" for {seconds_label(since)}" if since is not None else ""
            return f"in a {stop.event} hook ({stop.detail}){for_}"
        ago = f" {seconds_label(since)} ago" if since is not None else ""
        return (f"generating (a {stop.event} hook blocked the end of the turn{ago}: "
                f"{stop.detail})")
    age = age_s(shape.last_ts, now)
    if (why := shape.turn_end()) is not None:
        ago = f"{seconds_label(age)} ago" if age is not None else "(no timestamp)"
        return f"idle (the turn ended: {why}; last record {ago})"
    ago = f" {seconds_label(age)} ago" if age is not None else " (no timestamp)"
    reason = shape.last_stop_reason or "(none)"
    if reason != "end_turn" and age is not None and age < GENERATING_WINDOW_S:
        return f"generating (last record{ago}, stop_reason {reason})"
    return f"idle (last stop_reason {reason}, last record{ago})"
