"""The lane model: what one subagent transcript says about its own lifecycle (csift §6.5, §6.13).

A lane is a subagent transcript seen as a unit of work. ``read_lane`` reads its two ends
only (the §7b head/tail read) and returns ``LaneFacts``: when its first and newest
timestamped records were written, whether it ends on the agent's visible words, whether it
is FROZEN on a call nobody answered (and whether that call is one Claude Code holds for a
human), the newest assistant ``stop_reason``, the spawn prompt it was seeded with and its
``/fork`` provenance. ``lifecycle`` joins those facts with what the spawn side knows (the
trigger instant, a workflow journal's ``result``) into the lane's lifecycle: the
``completed``/``running``/``unknown`` status, the status-gated completion instant, the
pending call. ``returned_message`` resolves what the lane handed back, three ways.
``lane_state`` is the live reading ``status`` and ``wait`` make of the same facts
(``in-flight`` / ``generating`` / ``settled``).

Honesty rules (csift §6.5 and its ledgers):

- ``completed`` only when a workflow journal carries a ``result`` for the lane (that wins
  over any tail), or when the newest meaningful record is the agent's visible text, or the
  result of its approval of a shutdown request (a teammate's exit: Claude Code answers
  ``Shutdown approved. … is now exiting.`` and the lane writes nothing more). A lane
  whose newest meaningful record is an assistant ``tool_use`` is frozen there: ``running``,
  never ``completed``, whatever text came before the call.
- A ``SubagentStop`` hook that holds the turn after the lane's last words (one started
  and not returned, or one that blocked the end of the turn: ``core.stophooks``, read as
  ``status`` reads it) keeps the lane ``running`` until the harness reports its return
  (``holding_hook``: the one test ``lifecycle`` and ``lane_state`` both make, so that
  ``agents`` and ``status`` never disagree on whether a lane's turn is over).
- ``unknown`` when no record carries a readable timestamp.
- The completion instant exists only on a completed lane; every lane with a timestamp has
  a last-activity instant (on a frozen lane, the instant it froze).

Records that are not "meaningful" are passed over when looking for the lane's last word:
metadata lines, attachments, progress and system records, ``isMeta`` records, harness
notices (interrupt markers, task notifications, peer messages), and assistant records that
carry only thinking.
"""

from __future__ import annotations

import hashlib
import math
from datetime import datetime
from typing import Any

from pysift.core import classify
from pysift.core.bash_danger import is_dangerous_rm
from pysift.core.decode import Tally, decode, is_blank, is_framed
from pysift.core.rawjson import iter_key_lines_backward, layouts, type_needles
from pysift.core.stophooks import HOOK_NEEDLE, RUNNING_HOOK, StopHook, StopHookWalk, bounds_hooks
from pysift.core.timez import parse_ts
from pysift.disk.jsonline import compact_json, spelled
from pysift.disk.lines import Buffer, iter_backward, iter_spans, line_end, line_start
from pysift.model.fastdata import dataclass
from pysift.model.record import Record

__all__ = [
    "AWAITING_EXECUTION",
    "COMPLETED",
    "ESCALATION_BLOCKED",
    "GENERATING",
    "GENERATING_WINDOW_S",
    "IN_FLIGHT",
    "RUNNING",
    "SETTLED",
    "UNKNOWN",
    "ForkRef",
    "LaneFacts",
    "LaneLifecycle",
    "PendingCall",
    "classify_pending",
    "digest",
    "duration_label",
    "find_pulses",
    "holding_hook",
    "is_shutdown_approval",
    "lane_state",
    "lifecycle",
    "pulse_text",
    "read_lane",
    "return_stands",
    "returned_message",
    "section_tags",
]

# status of a lane (agents)
COMPLETED = "completed"
RUNNING = "running"
UNKNOWN = "unknown"
# what a frozen lane waits on
ESCALATION_BLOCKED = "escalation-blocked"
AWAITING_EXECUTION = "awaiting-execution"
# live state of a lane (status, wait)
IN_FLIGHT = "in-flight"
GENERATING = "generating"
SETTLED = "settled"
#: a lane whose newest record is younger than this and whose last assistant message did not
#: end its turn is still generating (csift v0.9.4: intra-lane gaps p99.9 = 295 s)
GENERATING_WINDOW_S = 300.0

# returned-message sources
SYNC_TOOL_RESULT = "sync-tool-result"
ASYNC_CHILD_TAIL = "async-child-tail"
WORKFLOW_JOURNAL = "workflow-journal"

_HEAD_LINES = 16  # the head read: the fork reference, the seed prompt, the first timestamp
_TIMESTAMP_KEY = b'"timestamp"'
_TEXT_KEY = b'"text"'


@dataclass(slots=True)
class PendingCall:
    """The call a frozen lane is stuck on: issued, never answered."""

    tool_use_id: str
    tool_name: str
    since: str | None  # the timestamp of the record that issued it
    classification: str  # ESCALATION_BLOCKED | AWAITING_EXECUTION


@dataclass(slots=True)
class ForkRef:
    """A ``/fork`` clone's opening ``fork-context-ref`` record."""

    parent_last_uuid: str | None
    context_length: int | None


@dataclass(slots=True)
class LaneFacts:
    """What one lane's transcript says about itself (``read_lane``)."""

    started: str | None = None  # the first readable timestamp
    last_activity: str | None = None  # the newest readable timestamp
    has_records: bool = False
    ends_with_text: bool = False  # the newest meaningful record is the agent's visible text
    # ... and that text is a synthetic API error Claude Code wrote (``isApiErrorMessage``):
    # the lane stopped on an error, not on a reply (the status stays csift's `completed`)
    ends_with_api_error: bool = False
    # the newest meaningful record is the result of the lane's approved shutdown (it exited)
    exited: bool = False
    pending: PendingCall | None = None  # the newest meaningful record is an unanswered call
    last_stop_reason: str | None = None  # of the newest assistant record
    replied: bool = False  # the lane holds an assistant record (thinking-only ones count)
    #: a SubagentStop hook after the lane's newest assistant record holds its turn open
    #: (``core.stophooks``: started and not returned, or it blocked the end of the turn)
    stop_hook: StopHook | None = None
    tail_text: str | None = None  # the newest assistant visible text (when asked for)
    seed_digest: str | None = None  # ``digest`` of the prompt the lane was seeded with
    fork: ForkRef | None = None
    skipped_lines: int = 0  # malformed lines among those read (head and tail windows)
    error: str | None = None  # the transcript could not be read


@dataclass(slots=True)
class LaneLifecycle:
    """A lane's lifecycle: its facts joined with the spawn side (``lifecycle``)."""

    trigger: str | None
    started: str | None
    completed: str | None  # non-None only when ``status`` is COMPLETED
    last_activity: str | None
    status: str
    pending: PendingCall | None
    duration: str | None  # trigger -> completion, only when completed


def digest(text: str) -> str:
    """A short fingerprint of a prompt: spawn prompts and lane seeds are joined by it
    without carrying the (often long) texts across processes."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def classify_pending(tool_name: str, command: str | None) -> str:
    """Escalation-blocked when Claude Code would hold the Bash command for a human; any
    other call (PowerShell included: the check is Bash's) is awaiting execution."""
    if tool_name == "Bash" and command is not None and is_dangerous_rm(command):
        return ESCALATION_BLOCKED
    return AWAITING_EXECUTION


def _command_of(block: dict[str, Any]) -> str | None:
    payload = block.get("input")
    command = payload.get("command") if isinstance(payload, dict) else None
    return command if isinstance(command, str) else None


def _pending_in(rec: Record) -> PendingCall | None:
    """The call an assistant record leaves unanswered when it is the lane's last word: a
    held Bash call if there is one, else its first call."""
    first: PendingCall | None = None
    for block in rec.blocks_of("tool_use"):
        tool_use_id, name = block.get("id"), block.get("name")
        if not isinstance(tool_use_id, str) or not isinstance(name, str):
            continue
        call = PendingCall(tool_use_id, name, rec.timestamp,
                           classify_pending(name, _command_of(block)))
        if call.classification == ESCALATION_BLOCKED:
            return call
        first = first or call
    return first


def _visible_text(rec: Record) -> str | None:
    """The agent's visible words in an assistant record (text blocks, newline-joined)."""
    content = rec.content
    if isinstance(content, str):
        return content if content.strip() else None
    texts = [b["text"] for b in rec.blocks_of("text")
             if isinstance(b.get("text"), str) and b["text"].strip()]
    return "\n".join(texts) if texts else None


def _seed_text(rec: Record) -> str | None:
    """The prompt text of a lane's opening user record."""
    text = classify.raw_message_text(rec)
    if text is None:
        return None
    return _unwrap_teammate(text)


def _unwrap_teammate(text: str) -> str:
    """A teammate's seed is its prompt wrapped in one ``<teammate-message …>`` section."""
    stripped = text.strip()
    if stripped.startswith(classify.TEAMMATE_OPEN) and stripped.endswith(classify.TEAMMATE_CLOSE):
        head_end = stripped.find(">")
        if head_end > 0:
            return stripped[head_end + 1:-len(classify.TEAMMATE_CLOSE)].strip("\n")
    return text


def _readable(ts: str | None) -> str | None:
    return ts if ts and parse_ts(ts) is not None else None


class _Reader:
    """Decodes lines of one buffer; a malformed line counts once, however often read."""

    __slots__ = ("_tally", "buf", "malformed")

    def __init__(self, buf: Buffer) -> None:
        self.buf = buf
        self.malformed: set[int] = set()
        self._tally = Tally()

    def record(self, start: int, line: bytes) -> Record | None:
        before = self._tally.malformed
        rec = decode(line, None, self._tally)
        if self._tally.malformed != before:
            self.malformed.add(start)
        return rec

    def frame_check(self, start: int, line: bytes) -> None:
        """A line passed over unread still counts when it is not even ``{…}``-framed."""
        if not is_blank(line) and not is_framed(line):
            self.malformed.add(start)


def read_lane(buf: Buffer, *, want_tail_text: bool = False) -> LaneFacts:
    """A lane's facts from the head and the tail of its transcript bytes."""
    facts = LaneFacts()
    reader = _Reader(buf)
    file_layouts = layouts(buf)
    head_end = _read_head(reader, facts)
    _read_tail(reader, facts, head_end, file_layouts, want_tail_text)
    facts.skipped_lines = len(reader.malformed)
    return facts


def _read_head(reader: _Reader, facts: LaneFacts) -> int:
    """The first lines: the fork reference, the seed prompt, the first timestamp (searched
    on past the head lines when none of them carries one). Returns where the head read
    ended (the tail read stops counting there)."""
    buf = reader.buf
    end_of_head = 0
    seed_open = True
    for count, (start, end) in enumerate(iter_spans(buf)):
        if count >= _HEAD_LINES or (facts.started and not seed_open):
            break
        end_of_head = end + 1
        rec = reader.record(start, buf[start:end])
        if rec is None:
            continue
        facts.has_records = True
        if rec.type == "fork-context-ref":
            facts.fork = _fork_ref(rec)
            seed_open = False  # a clone opens on its parent's history, not on a prompt
        elif seed_open and rec.type in ("user", "assistant"):
            if rec.type == "user" and not rec.is_meta:
                seed = _seed_text(rec)
                facts.seed_digest = digest(seed) if seed else None
            seed_open = False
        if facts.started is None:
            facts.started = _readable(rec.timestamp)
    if facts.started is None:
        facts.started = _first_timestamp(reader, end_of_head)
    return min(end_of_head, len(buf))


def opening_prompt(buf: Buffer) -> tuple[bool, str | None]:
    """``(seen, prompt)``: whether the lane's head lines hold its first user or assistant
    record yet, and the prompt that record opens on (None when it opens on no prompt: an
    assistant record, an ``isMeta`` one, a ``/fork`` clone's reference), read as
    ``read_lane`` reads the seed. ``status`` pairs an old-layout lane with its spawning
    call by it, where the call's result names no agent (SPEC §11c)."""
    reader = _Reader(buf)
    for count, (start, end) in enumerate(iter_spans(buf)):
        if count >= _HEAD_LINES:
            break
        rec = reader.record(start, buf[start:end])
        if rec is None:
            continue
        if rec.type == "fork-context-ref":
            return True, None
        if rec.type in ("user", "assistant"):
            return True, (_seed_text(rec) if rec.type == "user" and not rec.is_meta else None)
    return False, None


#: the prompt of Claude Code 2.0.x's start-up ping of its search agent, which no call of
#: the session spawned (an old-layout ``agent-*.jsonl`` of its own)
WARMUP_PROMPT = "Warmup"


def is_warmup(prompt: str | None) -> bool:
    return prompt is not None and prompt.strip() == WARMUP_PROMPT


def _fork_ref(rec: Record) -> ForkRef:
    raw = rec.raw
    uuid = raw.get("parentLastUuid")
    length = raw.get("contextLength")
    return ForkRef(uuid if isinstance(uuid, str) else None,
                   length if isinstance(length, int) and not isinstance(length, bool) else None)


def _first_timestamp(reader: _Reader, lo: int) -> str | None:
    buf = reader.buf
    pos = buf.find(_TIMESTAMP_KEY, lo)
    while pos >= 0:
        start = buf.rfind(b"\n", 0, pos) + 1
        end = buf.find(b"\n", pos)
        end = len(buf) if end < 0 else end
        rec = reader.record(start, buf[start:end])
        if rec is not None:
            reader_ts = _readable(rec.timestamp)
            if reader_ts:
                return reader_ts
        pos = buf.find(_TIMESTAMP_KEY, end)
    return None


def _read_tail(reader: _Reader, facts: LaneFacts, head_end: int,
               file_layouts: tuple[bool, ...], want_tail_text: bool) -> None:
    """Newest first until the last activity, the lane's last word and the newest
    assistant's stop reason are known. Only lines holding a user or assistant type key
    are decoded once the newest timestamp is found; the others get the framing check."""
    buf = reader.buf
    keys = type_needles(buf, "user", file_layouts) + type_needles(buf, "assistant", file_layouts)
    decided = stop_known = False
    # the SubagentStop hook records newer than the newest user/assistant record
    hooks: StopHookWalk | None = StopHookWalk.for_lane(main=False)
    lowest = len(buf)
    for start, line in iter_backward(buf):
        lowest = start
        if facts.last_activity is not None and not any(k in line for k in keys) and (
                hooks is None or HOOK_NEEDLE not in line):
            if start >= head_end:
                reader.frame_check(start, line)
            continue
        rec = reader.record(start, line) if start >= head_end else decode(line, None)
        if rec is None:
            continue
        facts.has_records = True
        if facts.last_activity is None:
            facts.last_activity = _readable(rec.timestamp)
        if hooks is not None:
            if bounds_hooks(rec):
                if rec.type == "assistant":
                    facts.stop_hook = hooks.verdict()
                hooks = None
            else:
                hooks.read(rec)
        if rec.type == "assistant":
            if not stop_known:
                facts.last_stop_reason = rec.stop_reason
                facts.replied = stop_known = True
            text = _visible_text(rec) if want_tail_text and facts.tail_text is None else None
            if text is not None:
                facts.tail_text = text
        if not decided:
            decided = _decide(rec, facts)
        if decided and stop_known and facts.last_activity is not None and hooks is None:
            break
    if want_tail_text and facts.tail_text is None and lowest > 0:
        # the newest visible text lies deeper: only assistant lines are looked at there
        facts.tail_text = _older_text(buf, lowest, file_layouts)


def _decide(rec: Record, facts: LaneFacts) -> bool:
    """Whether ``rec`` is the lane's last word (its newest meaningful record), noting what
    it says: a frozen call, or the agent's visible text."""
    if rec.type == "assistant":
        pending = _pending_in(rec)
        if pending is not None:
            facts.pending = pending
            return True
        if _visible_text(rec) is not None:
            facts.ends_with_text = True
            facts.ends_with_api_error = rec.raw.get("isApiErrorMessage") is True
            return True
        return False  # thinking only: keep looking
    if rec.type == "user":
        if rec.has_block("tool_result"):
            # a result answers its call whatever the carrier's ``isMeta`` says (a writer
            # flagging it would otherwise leave the call read as frozen)
            facts.exited = is_shutdown_approval(rec)
            return True
        return not rec.is_meta and classify.is_genuine_user(rec)
    return False


#: the id head of Claude Code's prompt-suggestion lanes (``aprompt_suggestion-d7b8fc``)
PROMPT_SUGGESTION_PREFIX = "aprompt_suggestion-"

#: the id head of Claude Code's compaction-summary lanes (one message, no tools)
COMPACTION_PREFIX = "acompact-"

#: what Claude Code answers a teammate's SendMessage approving a shutdown request (2.1.x)
SHUTDOWN_APPROVED = "Shutdown approved."


def is_shutdown_approval(rec: Record) -> bool:
    """Whether ``rec`` is the result of the lane's own approval of a shutdown request:
    the lane exits there (its process ends; nothing follows in its transcript)."""
    echo = rec.tool_use_result
    if not isinstance(echo, dict) or echo.get("success") is not True:
        return False
    message = echo.get("message")
    return isinstance(message, str) and message.startswith(SHUTDOWN_APPROVED)


def _older_text(buf: Buffer, hi: int, file_layouts: tuple[bool, ...]) -> str | None:
    """The newest assistant visible text below ``hi`` (the async returned message)."""
    for start, end in iter_key_lines_backward(buf, type_needles(buf, "assistant", file_layouts),
                                              hi=hi):
        if buf.find(_TEXT_KEY, start, end) < 0:
            continue
        rec = decode(buf[start:end], None)
        if rec is not None and rec.type == "assistant":
            text = _visible_text(rec)
            if text is not None:
                return text
    return None


# -- lifecycle ---------------------------------------------------------------------------


def duration_label(start: str | None, end: str | None) -> str | None:
    """``14m20s``, ``3s``, ``2h05m`` from two raw timestamps; None when either is unreadable."""
    a, b = parse_ts(start), parse_ts(end)
    if a is None or b is None:
        return None
    # whole seconds of each instant, then the difference (csift's arithmetic)
    return seconds_label(math.floor(b.timestamp()) - math.floor(a.timestamp()))


def seconds_label(total: int) -> str:
    total = max(0, total)
    hours, rest = divmod(total, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    if minutes:
        return f"{minutes}m{seconds:02d}s"
    return f"{seconds}s"


def is_one_shot_side_call(lane_id: str) -> bool:
    """Whether a lane is Claude Code's prompt suggestion: one message, no tools, run when a
    main turn ends; once it has replied at all it is over, even on a thinking-only reply
    (it chose to suggest nothing), which no later record follows."""
    return lane_id.startswith(PROMPT_SUGGESTION_PREFIX)


def holding_hook(facts: LaneFacts, *, returned: bool = False) -> StopHook | None:
    """The ``SubagentStop`` hook that holds the lane's turn open (``facts.stop_hook``),
    as ``agents`` and ``status`` both read it: none once the harness reported the lane's
    return (``returned``: its spawning call's result or completion pulse, not older than
    its newest record, a journal ``result``; Claude Code answers the spawn only after the
    hooks, so a stale hook record never holds a returned lane), while a call is open (the
    newer word), or once the lane approved its shutdown (it exited)."""
    if returned or facts.pending is not None or facts.exited:
        return None
    return facts.stop_hook


def return_stands(returned_ts: str | None, newest_ts: str | None) -> bool:
    """Whether a return the harness reported at ``returned_ts`` still ends a lane whose
    newest record is ``newest_ts``: not when the lane worked on after it (resumed by a
    SendMessage) by more than ``RETURN_SLACK_S`` (the two writes race)."""
    returned, newest = parse_ts(returned_ts), parse_ts(newest_ts)
    return returned is None or newest is None or \
        (newest - returned).total_seconds() <= RETURN_SLACK_S


#: a return recorded up to this long before the lane's newest record still settles it
#: (the two writes race); one older than that predates work the lane did since (resumed)
RETURN_SLACK_S = 2.0


def lifecycle(facts: LaneFacts, trigger: str | None, *, journal_result: bool = False,
              one_shot: bool = False, returned: bool = False) -> LaneLifecycle:
    """The lane's status and instants. ``trigger``: the spawning call's instant (None when
    the lane joined no call: the trigger is then its start). ``journal_result``: a workflow
    journal holds a ``result`` for the lane, which makes it completed whatever its tail.
    ``one_shot``: the lane is a prompt suggestion (``is_one_shot_side_call``), completed
    at its reply whatever the reply holds. ``returned``: the harness reported the lane's
    return (see ``holding_hook``); without it a ``SubagentStop`` hook still running after
    the lane's last words, or one that blocked the end of its turn, keeps it ``running``,
    as ``status`` reads it live."""
    pending = facts.pending
    if journal_result:
        status, pending = COMPLETED, None
    elif facts.started is None:
        status, pending = UNKNOWN, None  # no instant: neither done nor frozen can be said
    elif pending is not None or holding_hook(facts, returned=returned or one_shot) is not None:
        status = RUNNING
    elif facts.ends_with_text or facts.exited or (one_shot and facts.replied):
        status = COMPLETED
    elif facts.has_records:
        status = RUNNING
    else:
        status = UNKNOWN
    trigger = trigger or facts.started
    completed = facts.last_activity if status == COMPLETED else None
    return LaneLifecycle(trigger=trigger, started=facts.started, completed=completed,
                         last_activity=facts.last_activity, status=status, pending=pending,
                         duration=duration_label(trigger, completed) if completed else None)


def lane_state(facts: LaneFacts, now: datetime, *, settled: bool = False,
               window_s: float = GENERATING_WINDOW_S) -> str:
    """The live state of a lane (``status`` child rows): ``settled`` when the caller knows
    it returned (a completion pulse in the parent, a journal ``result``); ``in-flight``
    while a call is unanswered or its ``SubagentStop`` hook runs (``holding_hook``);
    ``generating`` after such a hook blocked the end of its turn, or while its newest record is younger than
    ``window_s`` and its last assistant message did not end the turn; else ``settled``
    (also when the lane approved its shutdown: it exited)."""
    if settled or facts.exited:
        return SETTLED
    if facts.pending is not None:
        return IN_FLIGHT
    if (hook := holding_hook(facts)) is not None:  # its SubagentStop hook holds the turn
        return IN_FLIGHT if hook.state == RUNNING_HOOK else GENERATING
    newest = parse_ts(facts.last_activity)
    if (newest is not None and (now - newest).total_seconds() < window_s
            and facts.last_stop_reason != "end_turn"):
        return GENERATING
    return SETTLED


# -- the harness's word: completion pulses ---------------------------------------------------


def pulse_text(rec: Record) -> str | None:
    """The text a main-lane record may carry ``<task-notification>`` pulses in: a user
    record's content (a string, or its text blocks), a queue operation's content, a
    ``queued_command`` attachment's prompt (a pulse delivered mid-turn)."""
    if rec.type == "user":
        content = rec.content
        if isinstance(content, str):
            return content
        texts = [b["text"] for b in rec.blocks_of("text") if isinstance(b.get("text"), str)]
        return "\n".join(texts) if texts else None
    if rec.type == "queue-operation":
        return classify.queued_text(rec)
    return classify.queued_command_prompt(rec)


def find_pulses(buf: Buffer, wanted: dict[str, str | None]) -> dict[str, str | None]:
    """Which agents of ``wanted`` (agent id -> its spawning call's id, if known) a
    completion pulse in the main transcript ``buf`` reports ended: a
    ``<task-notification>`` with a ``<status>`` (whatever it says: completed, failed,
    killed, stopped) whose ``<task-id>`` is the agent or whose ``<tool-use-id>`` is its
    spawning call, as ``status`` closes a background agent. Agent id -> the newest such
    pulse's timestamp; each looked for from the end by its ids' bytes, only the lines
    holding one decoded."""
    found: dict[str, str | None] = {}
    for agent, call in wanted.items():
        newest: tuple[int, str | None] | None = None
        for ident in (agent, call):
            if not ident:
                continue
            needle = spelled(ident)
            pos = buf.rfind(needle)
            while pos >= 0 and (newest is None or pos > newest[0]):
                start, end = line_start(buf, pos), line_end(buf, pos)
                rec = decode(buf[start:end], None)
                if rec is not None and _pulse_names(rec, agent, call):
                    newest = (start, rec.timestamp)
                    break
                pos = buf.rfind(needle, 0, start) if start > 0 else -1
        if newest is not None:
            found[agent] = newest[1]
    return found


def _pulse_names(rec: Record, agent: str, call: str | None) -> bool:
    text = pulse_text(rec)
    if text is None:
        return False
    for section in classify.notification_sections(text):
        if classify.extract_xml_tag(section, "status") is None:
            continue  # an event pulse (a Monitor's): no end
        if (call is not None and classify.extract_xml_tag(section, "tool-use-id") == call) \
                or agent in section_tags(section, "task-id"):
            return True
    return False


def section_tags(section: str, tag: str) -> list[str]:
    """Every non-empty ``<tag>`` body of one notification section (an orphan summary names
    several ``<task-id>``), up to the section's close tag."""
    close = section.find(classify.TASK_NOTIFICATION_CLOSE)
    scope = section if close < 0 else section[:close]
    out: list[str] = []
    open_tag, close_tag = f"<{tag}>", f"</{tag}>"
    at = 0
    while (start := scope.find(open_tag, at)) >= 0:
        start += len(open_tag)
        end = scope.find(close_tag, start)
        if end < 0:
            break
        if value := scope[start:end].strip():
            out.append(value)
        at = end + len(close_tag)
    return out


# -- the returned message -----------------------------------------------------------------


def returned_message(*, workflow: bool, result_text: str | None, launch_ack: bool,
                     tail_text: str | None, journal_payload: object = None,
                     has_journal_result: bool = False) -> tuple[str | None, str | None]:
    """``(message, source)``, resolved three ways (csift §6.5): a workflow lane's journal
    ``result`` payload; a synchronous spawn's result text (``result_text``, None when the
    spawning call has no result); the lane's newest assistant text (``tail_text``) when
    the spawn only acknowledged a launch (an async agent, a teammate) or has no result.
    ``(None, None)`` when nothing resolves. The message is what the ORCHESTRATOR recorded,
    not necessarily the lane's own last words (``show @<agent> --turn -1`` has those)."""
    if workflow:
        if has_journal_result:
            payload = journal_payload
            return (payload if isinstance(payload, str) else compact_json(payload),
                    WORKFLOW_JOURNAL)
        return None, None
    if result_text is not None:
        if launch_ack:  # the launch, never the child's return (none yet: unresolved)
            return (tail_text, ASYNC_CHILD_TAIL) if tail_text is not None else (None, None)
        return result_text, SYNC_TOOL_RESULT
    if tail_text is not None:
        return tail_text, ASYNC_CHILD_TAIL
    return None, None
