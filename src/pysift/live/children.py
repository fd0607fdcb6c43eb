"""Children: the live state of each subagent lane of a session (csift §6.13, v0.9.4, v0.10.1).

Each lane is read at its tail (``live.tail``) and its state is the lane model's
(``core.lanes.lane_state``) over those facts: ``in-flight`` while a call of its newest
turn has no result, ``generating`` while its newest record is younger than 300 s and its
last assistant message did not end the turn, else ``settled``. The harness's own word
outranks the tail: a lane whose return has landed in the main transcript (a completion
pulse naming it, or its spawning call's result naming it) or whose workflow journal holds
its ``result`` is settled whatever its tail says.

A lane's ``SubagentStop`` hook is read as the main lane's Stop hook is (``core.stophooks``:
its records are the lane's own), and judged by ``core.lanes.holding_hook``, which
``agents`` shares: a hook started and not returned is ``in-flight`` (the lane's return
waits for it), one that blocked sent the agent back to work and is ``generating`` until a
newer assistant record; an open call outranks both, and the harness's return settles the
lane whatever they say (a stale hook record never holds a returned lane).

Two lanes are Claude Code's own side calls, not work the session waits on (decided where
csift is silent): a prompt suggestion (``aprompt_suggestion-*``, run when a main turn
ENDS, to guess the human's next prompt) is never live, and a compaction summary
(``acompact-*``, one message and no tools) is over once its text is written. Read by the
generic rule, a suggestion's reply (a subagent's: no stop_reason) made the session read
``waiting-children`` for 300 s after every turn.

Old-layout lanes (``agent-<id>.jsonl`` beside the sessions, Claude Code 2.0.x and older)
are children too, read the same way. 2.0.x's Task result names the agent; an older one
names none, and ``PromptReturns`` then finds the lane's call by the prompt it opens on.
2.0.x's start-up "Warmup" ping is a side call no call spawned (``side_call_over``).

The workflow journals are incremental (``started`` at spawn, ``result`` at return), so an
agent started without a result is in flight even before its transcript says anything;
such an agent counts once, as a live lane when its transcript reads live, else from the
journal alone. Once its run's manifest exists (``<uuid>/workflows/<run>.json``, written
when the run ends: completed, failed, killed), no agent of the run is in flight.
"""

from __future__ import annotations

import os
from dataclasses import field
from datetime import datetime
from pathlib import Path
from typing import Any

from pysift.core import classify
from pysift.core.decode import decode
from pysift.core.lanes import (
    COMPACTION_PREFIX,
    GENERATING,
    IN_FLIGHT,
    PROMPT_SUGGESTION_PREFIX,
    SETTLED,
    LaneFacts,
    PendingCall,
    classify_pending,
    holding_hook,
    is_shutdown_approval,
    lane_state,
    return_stands,
    seconds_label,
)
from pysift.core.stophooks import RUNNING_HOOK, StopHook
from pysift.core.timez import parse_ts
from pysift.core.topology import ASYNC_LAUNCH_TEXT, LAUNCH_STATUSES
from pysift.core.workflows import ended_word, parse_journal, parse_manifest
from pysift.disk.jsonline import spelled
from pysift.disk.layout import Transcript, session_dir
from pysift.disk.lines import Buffer, line_end, line_start
from pysift.disk.mapped import read_regular
from pysift.live.tail import TailShape, age_s
from pysift.model.fastdata import dataclass
from pysift.model.record import Record

_AGENT_FOOTER = "agentId: "


@dataclass(slots=True)
class ChildState:
    session_id: str
    state: str  # in-flight | generating | settled
    detail: str


@dataclass
class ChildrenReport:
    children: list[ChildState] = field(default_factory=list)  # every lane, path order
    journal_in_flight: int = 0  # workflow agents started, not returned, no live lane
    notes: list[str] = field(default_factory=list)

    @property
    def live(self) -> list[ChildState]:
        return [c for c in self.children if c.state != SETTLED]

    @property
    def settled(self) -> int:
        return sum(1 for c in self.children if c.state == SETTLED)

    @property
    def live_count(self) -> int:
        return len(self.live) + self.journal_in_flight


def facts_from_tail(shape: TailShape) -> LaneFacts:
    """The lane model's facts as the live tail reads them. The pending call is one Claude
    Code holds for a human when there is one, else the oldest call still open."""
    pending = None
    if shape.open_calls:
        calls = [PendingCall(c.tool_use_id, c.name, c.since, classify_pending(c.name, c.command))
                 for c in reversed(shape.open_calls)]
        pending = next((c for c in calls if c.classification != "awaiting-execution"),
                       calls[0])
    return LaneFacts(last_activity=shape.last_ts, has_records=shape.records_seen > 0,
                     pending=pending, last_stop_reason=shape.last_stop_reason,
                     exited=pending is None and exited(shape), stop_hook=shape.stop_hook)


def exited(shape: TailShape) -> bool:
    """Whether the lane's newest user or assistant record is the result of its approved
    shutdown (a teammate that exited: nothing follows)."""
    for rec in shape.records(lambda line: b'"user"' in line or b'"assistant"' in line):
        if rec.type == "assistant":
            return False
        if rec.type == "user" and not rec.is_meta:
            return rec.has_block("tool_result") and is_shutdown_approval(rec)
    return False


def child_state(lane_id: str, shape: TailShape, now: datetime,
                returned: str | None = None) -> ChildState:
    """One lane's state; ``returned`` says how the harness reported its return, if it did."""
    facts = facts_from_tail(shape)
    state = lane_state(facts, now, settled=returned is not None)
    hook = holding_hook(facts, returned=returned is not None)
    if hook is not None and state != SETTLED:
        return ChildState(lane_id, state, _hook_words(hook, now))
    if state == IN_FLIGHT and facts.pending is not None:
        call = facts.pending
        age = age_s(call.since, now)
        held = " (held for a human: escalation-blocked)" if call.classification != \
            "awaiting-execution" else ""
        more = f" (+{len(shape.open_calls) - 1} more)" if len(shape.open_calls) > 1 else ""
        since = f" for {seconds_label(age)}" if age is not None else ""
        detail = f"unanswered {call.tool_name} call{since}{more}{held}"
    elif state == GENERATING:
        age = age_s(shape.last_ts, now)
        detail = (f"last record {seconds_label(age or 0)} ago, stop_reason "
                  f"{shape.last_stop_reason or '(none)'}")
    elif returned is not None:
        detail = returned
    elif facts.exited:
        detail = "approved its shutdown and exited"
    else:
        age = age_s(shape.last_ts, now)
        detail = (f"last record {seconds_label(age)} ago" if age is not None
                  else "no timestamped record at the tail")
    return ChildState(lane_id, state, detail)


def _hook_words(hook: StopHook, now: datetime) -> str:
    """The detail of a lane whose ``SubagentStop`` hook holds the end of its turn
    (``core.lanes.holding_hook``): in flight while the hook runs, generating once a block
    sent the agent back to work (until a newer assistant record or its return, whatever
    the records' age: the hook's own records are the newest word, as on the main lane)."""
    since = age_s(hook.since, now)
    if hook.state == RUNNING_HOOK:
        for_ = f" for {seconds_label(since)}" if since is not None else ""
        return f"in a {hook.event} hook ({hook.detail}){for_}"
    ago = f" {seconds_label(since)} ago" if since is not None else ""
    return f"a {hook.event} hook blocked the end of its turn{ago}: {hook.detail}"


@dataclass
class Journals:
    started: set[str] = field(default_factory=set)
    results: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    unreadable: int = 0  # journals that exist but could not be read (each in the notes)
    #: agents of a run whose manifest exists (written when the run ends): its status
    run_ended: dict[str, str] = field(default_factory=dict)


def read_journals(session_path: Path) -> Journals:
    """Every workflow journal of the session (``subagents/workflows/wf_*/journal.jsonl``)."""
    out = Journals()
    root = session_dir(session_path) / "subagents" / "workflows"
    try:
        runs = sorted(e.path for e in os.scandir(root) if e.name.startswith("wf_"))
    except OSError:
        return out
    for run in runs:
        path = Path(run) / "journal.jsonl"
        try:
            data = read_regular(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            out.unreadable += 1
            out.notes.append(f"cannot read the workflow journal {path}: {exc.strerror or exc}; "
                             "its agents' returns are unknown")
            continue
        journal = parse_journal(data)
        out.started |= journal.started
        out.results |= set(journal.results)
        if journal.skipped_lines:
            out.notes.append(f"{journal.skipped_lines} malformed line(s) skipped in {path}")
        ended = _run_status(session_path, Path(run).name)
        if ended is not None:
            for agent in journal.started | _lane_ids(Path(run)):
                out.run_ended[agent] = ended
    return out


def _run_status(session_path: Path, run_id: str) -> str | None:
    """The status its manifest (``<uuid>/workflows/<run_id>.json``) gives a run, None
    without a readable one: Claude Code writes it when the run ends."""
    try:
        data = read_regular(session_dir(session_path) / "workflows" / f"{run_id}.json")
    except OSError:
        return None
    return ended_word(parse_manifest(data, run_id))


def _lane_ids(run_dir: Path) -> set[str]:
    try:
        names = [e.name for e in os.scandir(run_dir)]
    except OSError:
        return set()
    return {n[len("agent-"):-len(".jsonl")] for n in names
            if n.startswith("agent-") and n.endswith(".jsonl")}


def returned_agents(rec: Record) -> set[str]:
    """Agent ids a main-lane record reports as RETURNED: a spawning call's result naming
    its agent (``toolUseResult.agentId``, the ``agentId:`` footer), a launch
    acknowledgement excepted (an async agent, a teammate: launched, not returned)."""
    out: set[str] = set()
    if rec.type != "user":
        return out
    echo = rec.tool_use_result if isinstance(rec.tool_use_result, dict) else {}
    status = echo.get("status")
    launched = isinstance(status, str) and status in LAUNCH_STATUSES  # a list: no status
    for block in rec.blocks_of("tool_result"):
        text = classify.result_text(block)
        if launched or ASYNC_LAUNCH_TEXT in text:
            continue
        for key in ("agentId", "agent_id"):
            value = echo.get(key)
            if isinstance(value, str) and value:
                out.add(value)
        at = text.find(_AGENT_FOOTER)
        while at >= 0:
            if at == 0 or text[at - 1] == "\n":
                ident = text[at + len(_AGENT_FOOTER):].split(None, 1)
                if ident:
                    out.add(ident[0])
            at = text.find(_AGENT_FOOTER, at + 1)
    return out


def find_returns(buf: Buffer, agent_ids: set[str]) -> dict[str, str | None]:
    """Which of ``agent_ids`` the main transcript reports returned (agent id -> the newest
    return's timestamp), each looked for from the end (a return is usually recent) by its
    id's bytes; only lines holding one are decoded."""
    found: dict[str, str | None] = {}
    for ident in agent_ids:
        needle = spelled(ident)
        pos = buf.rfind(needle)
        while pos >= 0:
            start, end = line_start(buf, pos), line_end(buf, pos)
            rec = decode(buf[start:end], None)
            if rec is not None and ident in returned_agents(rec):
                found[ident] = rec.timestamp
                break
            pos = buf.rfind(needle, 0, start) if start > 0 else -1
    return found




def build(lanes: list[tuple[Transcript, TailShape]], now: datetime, *,
          returns: dict[str, tuple[str | None, str]], journals: Journals,
          warmups: frozenset[str] = frozenset()) -> ChildrenReport:
    """The children section from each lane's tail and what the harness said of returns:
    ``returns`` maps an agent id to ``(the return's timestamp, how it was reported)``; a
    return settles its lane when it is not older than the lane's newest record (a lane
    resumed after it returned is live again). ``warmups``: the old-layout lanes that are
    Claude Code 2.0.x's start-up "Warmup" ping (``side_call_over``)."""
    out = ChildrenReport(notes=list(journals.notes))
    for transcript, shape in lanes:
        ident = transcript.session_id
        why: str | None
        why = (journal_return(ident, journals) or return_words(returns.get(ident), shape)
               or side_call_over(ident, shape, warmup=ident in warmups))
        out.children.append(child_state(ident, shape, now, why))
        out.notes.extend(f"subagent {ident}: {n}" for n in shape.notes)
    live = {c.session_id for c in out.live}
    pending = journals.started - journals.results - set(journals.run_ended)
    out.journal_in_flight = len(pending - live)
    return out


def side_call_over(lane_id: str, shape: TailShape, *, warmup: bool = False) -> str | None:
    """Why a lane of a Claude Code side call is no work the session waits on (see the
    module doc), else None. ``warmup``: the lane opens on 2.0.x's start-up "Warmup"
    prompt (an old-layout file): no call spawned it and nothing waits on its reply."""
    if warmup:
        return "Claude Code's start-up Warmup ping: no call spawned it"
    if lane_id.startswith(PROMPT_SUGGESTION_PREFIX):
        return "a prompt suggestion Claude Code makes when a turn ends"
    if lane_id.startswith(COMPACTION_PREFIX) and _answered(shape):
        return "the compaction summary is written"
    return None


def _answered(shape: TailShape) -> bool:
    """Whether the lane's newest assistant record holds visible text (a one-message call's
    answer)."""
    for rec in shape.records(lambda line: b'"assistant"' in line):
        if rec.type != "assistant":
            continue
        content = rec.content
        if isinstance(content, str):
            return bool(content.strip())
        return any(isinstance(b.get("text"), str) and b["text"].strip()
                   for b in rec.blocks_of("text"))
    return False


def journal_return(lane_id: str, journals: Journals) -> str | None:
    """``returned (…)`` when a workflow journal holds the lane's result, or the lane's run
    has ended (its manifest): done whatever its tail shows (its last call,
    StructuredOutput, is never answered in the lane; a killed run's agents stop anywhere)."""
    if lane_id in journals.results:
        return "returned (the workflow journal holds its result)"
    if lane_id in journals.run_ended:
        return f"returned (its workflow run ended: its manifest says {journals.run_ended[lane_id]})"
    return None


def return_words(found: tuple[str | None, str] | None, shape: TailShape) -> str | None:
    """``returned (how)`` when the harness reported the lane's return (``found``: when,
    how) and the lane has not worked after it, else None."""
    if found is None:
        return None
    ts, how = found
    if not return_stands(ts, shape.last_ts):
        return None  # the lane worked on after that return
    return f"returned ({how})"


#: the spawn tools whose call names its agent's prompt (a Workflow call spawns a run)
_PROMPT_SPAWN_NAMES = (b'"Task"', b'"Agent"')


class PromptReturns:
    """The main transcript's ``Task``/``Agent`` calls by their prompt, and which of them
    returned: how an old-layout lane (``agent-<id>.jsonl`` beside the sessions) is found
    returned when its call's result names no agent (Claude Code 1.x's Task results carry
    no ``agentId``; 2.0.x's do, and ``returned_agents`` reads those). A result that names
    an agent belongs to that agent and is never paired by prompt; a launch acknowledgement
    is no return. ``load`` reads a whole main transcript (only the lines holding a spawn
    tool's name, then each call's result by its id from the end); ``feed`` keeps it
    current with the records appended since (``wait``)."""

    def __init__(self) -> None:
        self.calls: dict[str, str] = {}  # call id -> the digest of its prompt
        self.named: set[str] = set()  # calls whose result names an agent
        self.returned: dict[str, str | None] = {}  # call id -> its result's timestamp

    def load(self, buf: Buffer) -> None:
        from pysift.core.prefilter import line_spans_containing

        for start, end in line_spans_containing(buf, _PROMPT_SPAWN_NAMES):
            rec = decode(buf[start:end], None)
            if rec is not None:
                self._calls_of(rec)
        for ident in list(self.calls):
            needle = b'"' + spelled(ident) + b'"'
            pos = buf.rfind(needle)
            while pos >= 0 and ident not in self.returned and ident not in self.named:
                start = line_start(buf, pos)
                rec = decode(buf[start:line_end(buf, pos)], None)
                if rec is not None:
                    self._results_of(rec)
                pos = buf.rfind(needle, 0, start) if start > 0 else -1

    def feed(self, rec: Record) -> None:
        self._calls_of(rec)
        self._results_of(rec)

    def _calls_of(self, rec: Record) -> None:
        from pysift.core.lanes import digest
        from pysift.model.record import block_name
        from pysift.model.tools import META_LINKED_SPAWN_TOOLS

        if rec.type != "assistant":
            return
        for block in rec.blocks_of("tool_use"):
            ident = block.get("id")
            payload = block.get("input")
            prompt = payload.get("prompt") if isinstance(payload, dict) else None
            if (block_name(block) in META_LINKED_SPAWN_TOOLS and isinstance(ident, str)
                    and ident and isinstance(prompt, str) and prompt):
                self.calls.setdefault(ident, digest(prompt))

    def _results_of(self, rec: Record) -> None:
        if rec.type != "user" or not self.calls:
            return
        for block in rec.blocks_of("tool_result"):
            ident = block.get("tool_use_id")
            if not isinstance(ident, str) or ident not in self.calls:
                continue
            named = _result_names(rec, block)
            if named is None:
                continue  # a launch acknowledgement: launched, not returned
            if named:
                self.named.add(ident)
                self.returned.pop(ident, None)
            elif ident not in self.named:
                self.returned[ident] = rec.timestamp

    def settle(self, seeds: dict[str, str]) -> dict[str, str | None]:
        """The lanes (lane id -> the digest of the prompt it opens on) whose return the
        main transcript holds: lane id -> when. The lanes sharing a prompt are settled
        together, and only when at least as many calls with that prompt returned (naming
        no agent) as there are such lanes: with fewer, which lane returned cannot be
        told, and none is settled by its prompt (each is read from its tail)."""
        by_prompt: dict[str, list[str]] = {}
        for lane, seed in seeds.items():
            by_prompt.setdefault(seed, []).append(lane)
        out: dict[str, str | None] = {}
        for seed, lanes in by_prompt.items():
            stamps = [ts for call, ts in self.returned.items() if self.calls.get(call) == seed]
            if len(stamps) < len(lanes):
                continue
            timed = [(at, ts) for ts in stamps if (at := parse_ts(ts)) is not None]
            newest = max(timed)[1] if timed else None
            for lane in lanes:
                out[lane] = newest
        return out


def _result_names(rec: Record, block: dict[str, Any]) -> bool | None:
    """Whether a spawn call's result names its agent (``toolUseResult.agentId``, the
    ``agentId:`` footer); None for a launch acknowledgement (no return at all)."""
    echo = rec.tool_use_result if isinstance(rec.tool_use_result, dict) else {}
    status = echo.get("status")
    text = classify.result_text(block)
    if (isinstance(status, str) and status in LAUNCH_STATUSES) or ASYNC_LAUNCH_TEXT in text:
        return None
    if any(isinstance(echo.get(k), str) and echo.get(k) for k in ("agentId", "agent_id")):
        return True
    return any(at == 0 or text[at - 1] == "\n" for at in _find_all(text, _AGENT_FOOTER))


def _find_all(text: str, needle: str) -> list[int]:
    out = []
    at = text.find(needle)
    while at >= 0:
        out.append(at)
        at = text.find(needle, at + 1)
    return out
