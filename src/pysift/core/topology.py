"""Who spawned whom: spawn calls, their results, and the links from subagents to them.

On disk every subagent of a session lies flat in ``<session>/subagents/`` (csift §6.5:
Claude Code keys a nested agent's transcript off the MAIN session id), so nesting is
logical: a child's spawning ``Task``/``Agent``/``Workflow`` call sits in its SPAWNING
transcript, the main one or another subagent's. This module reads those calls and links
each subagent to the one that spawned it.

Reading: ``scan_spawns`` finds a transcript's spawn calls by SIMD literal searches over the
whole buffer for the quoted tool names (any JSON layout), decodes only the lines they hit, then
finds each call's result with one more pass from the first call on, for the call ids
only, stopping once every call has its result.

Linking (``link_session``), per subagent, the strongest evidence first:

1. the spawning call: the meta ``toolUseId``; else a call whose result names the agent
   (``toolUseResult.agentId`` or the ``agentId: <id>`` line Claude Code appends to a
   subagent's return, also the only link older builds leave, whose metas carry no
   ``toolUseId``); else a call whose ``input.name`` is the meta ``name`` (a teammate);
   else, for a workflow agent, the ``Workflow`` call whose result names its run; else a
   call whose ``input.prompt`` is exactly the prompt the lane was seeded with (a call that
   never got its result: the session stopped while the agent ran).
2. the parent agent: the meta ``parentAgentId``; else whoever issued the spawning call
   (None: the main session). A link naming the lane itself is dropped (a ``/fork`` clone
   carries copies of its parent's calls).

The global index folds FIRST-wins: the main transcript, then the subagents that are not
``/fork`` clones, then the clones, each group in discovery order. A clone's copy of a
call therefore never takes a child from the transcript that really issued it.

``descendants`` is the resolver's walk DOWN from one agent (``@<agent-id>`` spans its
topological descendants), lazy so that a target costs only the transcripts it reaches;
``Spawns``/``spawns_in``/``spawned_by`` are the per-transcript link test it and
``whoami``'s walk UP share.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pysift.core.decode import decode
from pysift.core.timez import parse_ts
from pysift.disk.jsonline import spelled
from pysift.disk.layout import Transcript, read_meta
from pysift.disk.lines import Buffer, line_end, line_start, simd_search
from pysift.disk.mapped import open_buffer, try_open_buffer
from pysift.model.fastdata import dataclass
from pysift.model.record import block_name
from pysift.model.tools import META_LINKED_SPAWN_TOOLS, SPAWN_TOOLS

if TYPE_CHECKING:  # the lane reader loads the classifier: imported where a lane is read
    from pysift.core.lanes import LaneFacts

#: the result text of a call that launched its agent in the background
ASYNC_LAUNCH_TEXT = "Async agent launched"
#: ``toolUseResult.status`` of a call that only acknowledged a launch
LAUNCH_STATUSES = frozenset({"async_launched", "teammate_spawned"})

#: the spawn tools' names as JSON strings: a line holding one may issue a spawn call
_SPAWN_NAMES = (b'"Task"', b'"Agent"', b'"Workflow"')
_AGENT_ID_LINE = re.compile(r"(?m)^agentId: ([A-Za-z0-9][A-Za-z0-9_-]*)")

# -- one transcript's spawn calls ---------------------------------------------------------


@dataclass(slots=True)
class SpawnResult:
    """The paired ``tool_result`` of a spawn call."""

    text: str | None  # its text (only when asked for: it can be large)
    agent_ids: tuple[str, ...] = ()  # agents the result names
    launch_ack: bool = False  # the call only launched its agent (async, teammate)
    run_id: str | None = None  # a Workflow call's run
    task_id: str | None = None
    is_error: bool = False
    ts: str | None = None  # its record's timestamp (a return older than the lane's work
    # since does not end it: ``lanes.return_stands``)


@dataclass(slots=True)
class SpawnCall:
    """One ``Task``/``Agent``/``Workflow`` tool_use, as the spawn index keeps it."""

    tool_use_id: str | None
    tool: str
    ts: str | None  # the issuing record's timestamp: the true trigger instant
    offset: int  # where its line starts (file order)
    description: str | None = None
    subagent_type: str | None = None
    name: str | None = None  # input.name: a teammate's handle
    team_name: str | None = None
    prompt_digest: str | None = None
    result: SpawnResult | None = None
    issuer: str | None = None  # the agent whose transcript holds it; None: the main session


def _input_str(payload: object, key: str) -> str | None:
    value = payload.get(key) if isinstance(payload, dict) else None
    return value if isinstance(value, str) and value else None


def scan_spawns(buf: Buffer, *, want_text: bool = False, issuer: str | None = None
                ) -> list[SpawnCall]:
    """Every spawn call of one transcript in file order, each with its result (the
    result's text only with ``want_text``). Only a call of the record's OWN message
    counts: older builds copy a subagent's messages into the main transcript as
    ``progress`` records, whose nested calls the subagent issued."""
    from pysift.core.lanes import digest
    from pysift.core.prefilter import line_spans_containing

    calls: list[SpawnCall] = []
    # the lines holding a name, each once, by SIMD literal searches over the buffer in
    # place (over corpus B's sessions with lanes, 0.14 s of CPU against 0.37-0.47 s for
    # one RE2 pass over the alternation, whose leading quote is on every other position),
    # every name over a part of the buffer before the next part: the bytes are read from
    # memory once, not once a name
    for start, end in line_spans_containing(buf, _SPAWN_NAMES):
        rec = decode(buf[start:end], None)
        if rec is None:
            continue
        for block in rec.blocks_of("tool_use"):
            tool = block_name(block)
            if tool not in SPAWN_TOOLS:
                continue
            ident = block.get("id")
            payload = block.get("input")
            prompt = _input_str(payload, "prompt")
            calls.append(SpawnCall(
                tool_use_id=ident if isinstance(ident, str) and ident else None,
                tool=str(tool), ts=rec.timestamp, offset=start,
                description=_input_str(payload, "description"),
                subagent_type=_input_str(payload, "subagent_type"),
                name=_input_str(payload, "name"), team_name=_input_str(payload, "team_name"),
                prompt_digest=digest(prompt) if prompt else None, issuer=issuer))
    _pair_results(buf, calls, want_text)
    return calls


#: how far past its call a result is first looked for: it is nearly always the next record
#: or close to it; a call answered later (or never) is left to one pass for all of them
_NEAR_RESULT_BYTES = 256 * 1024


def _pair_results(buf: Buffer, calls: list[SpawnCall], want_text: bool) -> None:
    """Each call's result (it follows its call, in the same file): looked for just past
    the call first, then, for the calls still waiting, in one regex pass over their ids
    from the first of them on, which ends as soon as every call is answered."""
    waiting: dict[str, SpawnCall] = {}
    for call in calls:
        ident = call.tool_use_id
        if ident is None:
            continue
        needle = b'"' + spelled(ident) + b'"'
        lo = line_end(buf, call.offset)
        pos = buf.find(needle, lo, lo + _NEAR_RESULT_BYTES)
        while pos >= 0 and call.result is None:
            end = _answer(buf, pos, {ident: call}, want_text)
            pos = buf.find(needle, end, lo + _NEAR_RESULT_BYTES)
        if call.result is None:
            waiting[ident] = call
    if not waiting:
        return
    import re2

    pattern = re2.compile(b'"(?:' + b"|".join(
        re2.escape(spelled(ident)) for ident in waiting) + b')"')
    done_to = -1
    for match in pattern.finditer(buf, min(c.offset for c in waiting.values())):
        if match.start() < done_to:
            continue
        done_to = _answer(buf, match.start(), waiting, want_text)
        if not waiting:
            return


def _answer(buf: Buffer, pos: int, waiting: dict[str, SpawnCall], want_text: bool) -> int:
    """Pair the results on the line holding ``pos`` with the waiting calls they answer
    (each answered call leaves ``waiting``); returns where the line ends."""
    start, end = line_start(buf, pos), line_end(buf, pos)
    rec = decode(buf[start:end], None)
    if rec is not None:
        for block in rec.blocks_of("tool_result"):
            ident = block.get("tool_use_id")
            call = waiting.get(ident) if isinstance(ident, str) else None
            if call is not None and call.offset < start:
                call.result = _result_of(block, rec.tool_use_result, want_text, rec.timestamp)
                del waiting[ident]  # type: ignore[arg-type]
    return end


def _result_of(block: Mapping[str, Any], echo: object, want_text: bool,
               ts: str | None = None) -> SpawnResult:
    from pysift.core.blocktext import result_text

    text = result_text(dict(block))
    ids: list[str] = []
    status = run_id = task_id = None
    if isinstance(echo, dict):
        for key in ("agentId", "agent_id"):
            value = echo.get(key)
            if isinstance(value, str) and value:
                ids.append(value)
        status = _input_str(echo, "status")  # another JSON type: no status
        run_id = _input_str(echo, "runId")
        task_id = _input_str(echo, "taskId")
    if "agentId: " in text:  # the footer line (a C-level check spares the regex mostly)
        ids.extend(m.group(1) for m in _AGENT_ID_LINE.finditer(text))
    return SpawnResult(
        text=text if want_text else None,
        agent_ids=tuple(dict.fromkeys(ids)),
        launch_ack=status in LAUNCH_STATUSES or ASYNC_LAUNCH_TEXT in text,
        run_id=run_id, task_id=task_id,
        is_error=block.get("is_error") is True, ts=ts)


# -- the per-transcript link test (resolver walk down, whoami walk up) --------------------


@dataclass
class Spawns:
    """What one transcript spawned: its call ids, the names its calls gave, and the agent
    ids their results name."""

    tool_use_ids: set[str] = field(default_factory=set)
    names: set[str] = field(default_factory=set)
    agent_ids: set[str] = field(default_factory=set)


def spawns_in(path: Path) -> Spawns:
    """The spawn calls issued in one transcript (none when it cannot be read)."""
    spawns = Spawns()
    buf = try_open_buffer(path)  # an unreadable transcript issues no spawns
    if buf is None:
        return spawns
    for call in scan_spawns(buf):
        if call.tool not in META_LINKED_SPAWN_TOOLS:
            continue  # a Workflow call's id and name never name a child (model.tools)
        if call.tool_use_id is not None:
            spawns.tool_use_ids.add(call.tool_use_id)
        if call.name is not None:
            spawns.names.add(call.name)
        if call.result is not None:
            spawns.agent_ids.update(call.result.agent_ids)
    return spawns


class IssuedBy:
    """Lazy "did this transcript itself issue tool_use id X" check (one buffer, opened once).

    Only a ``tool_use`` block of the record's own message counts: older Claude Code builds
    copy a subagent's messages into the main transcript as ``progress`` records, whose
    nested blocks were issued by the subagent, not by the main thread. ``tools``: only a
    call of one of these tools counts (``SPAWN_TOOLS``: a call ``scan_spawns`` finds).
    """

    def __init__(self, path: Path, *, tools: frozenset[str] | None = None) -> None:
        self.path = path
        self.tools = tools
        self._buf: Buffer | None = None
        self._opened = False

    def __call__(self, tool_use_id: str) -> bool:
        if not self._opened:
            self._opened = True
            self._buf = try_open_buffer(self.path) if self.path.is_file() else None
        buf = self._buf
        if buf is None:
            return False
        needle = b'"' + spelled(tool_use_id) + b'"'
        size = len(buf)
        # the SIMD search (``disk.lines.simd_search``): the id's leading quote stalls the
        # buffer's own ``find`` on every other byte, and an id the file does not hold
        # (a lane another lane spawned) is searched through the whole file
        with simd_search(buf) as (find, _):
            pos = find(needle, 0, size)
            while pos >= 0:
                start, end = line_start(buf, pos), line_end(buf, pos)
                record = decode(buf[start:end], None)
                if record is not None and any(
                    block.get("id") == tool_use_id
                    and (self.tools is None or block_name(block) in self.tools)
                    for block in record.blocks_of("tool_use")
                ):
                    return True
                pos = find(needle, end + 1, size) if end + 1 <= size else -1
        return False


def spawned_by(meta: Mapping[str, Any], parent_id: str, spawns: Spawns, main_issued: IssuedBy,
               child_id: str | None = None) -> bool:
    """Whether the transcript ``parent_id`` (whose calls are ``spawns``) spawned the child
    with this ``meta`` (and agent id ``child_id``): the declared ``parentAgentId`` decides
    when present; else its ``toolUseId`` is one of the parent's calls (and not the main
    thread's: a clone's copy adopts nothing); else a call's result names the child; else
    (a teammate, whose meta has no ``toolUseId``) a call gave the child's ``name``."""
    if child_id is not None and child_id == parent_id:
        return False
    declared = meta.get("parentAgentId")
    if isinstance(declared, str) and declared:
        return declared == parent_id
    tool_use_id = meta.get("toolUseId")
    if isinstance(tool_use_id, str) and tool_use_id:
        return tool_use_id in spawns.tool_use_ids and not main_issued(tool_use_id)
    if child_id is not None and child_id in spawns.agent_ids:
        return True
    name = meta.get("name")
    return isinstance(name, str) and name in spawns.names


def descendants(agent: Transcript, siblings: Sequence[Transcript], session_path: Path
                ) -> list[Transcript]:
    """Subagents spawned (transitively) from ``agent``'s own transcript, among the
    session's ``siblings`` (the resolver's ``@<agent-id>`` span). Breadth first; each
    transcript visited is read once for its spawn calls, the main one only for the ids a
    child's meta names (``IssuedBy``)."""
    metas = {t.session_id: read_meta(t) for t in siblings}
    main_issued = IssuedBy(session_path)
    visited = {agent.session_id}
    queue = [agent]
    out: list[Transcript] = []
    while queue:
        parent = queue.pop(0)
        spawns = spawns_in(parent.path)
        for child in siblings:
            if child.session_id in visited:
                continue
            if spawned_by(metas[child.session_id], parent.session_id, spawns, main_issued,
                          child.session_id):
                visited.add(child.session_id)
                out.append(child)
                queue.append(child)
    return out


# -- the session's links (agents, and the classifier's directions) ---------------------------


@dataclass(slots=True)
class LaneKey:
    """What the linker needs to know of one subagent lane."""

    agent_id: str
    workflow_id: str | None = None  # the ``wf_<id>`` dir of a workflow agent
    meta: Mapping[str, Any] = field(default_factory=dict)
    started: str | None = None
    seed_digest: str | None = None
    is_clone: bool = False  # a ``/fork`` clone (its file opens on a fork-context-ref)


@dataclass(slots=True)
class Link:
    """One lane's place in the tree."""

    parent_agent_id: str | None = None
    spawn: SpawnCall | None = None
    spawn_tool_use_id: str | None = None  # the call's id (or the meta's, found nowhere)
    joined_by: str | None = None  # meta | result | name | workflow-run | prompt
    depth: int = 0
    notes: list[str] = field(default_factory=list)


@dataclass(slots=True)
class TranscriptScan:
    """What one transcript of a session gives the linker (``scan_transcript``): its spawn
    calls and, for a lane, its two ends and its ``.meta.json``."""

    calls: list[SpawnCall] = field(default_factory=list)
    facts: LaneFacts | None = None  # a lane's (None for the main transcript)
    meta: dict[str, Any] = field(default_factory=dict)
    meta_problem: str | None = None
    error: str | None = None


def scan_transcript(path: Path, lane: Transcript | None, *, want_text: bool = False
                    ) -> TranscriptScan:
    """One transcript's share of the session's links: the main one's spawn calls (``lane``
    None), or a lane's calls, facts (``lanes.read_lane``) and meta. ``want_text``: the
    results' and the lane's tail texts too (``agents --returned-message``)."""
    from pysift.core.lanes import LaneFacts, read_lane
    from pysift.disk.layout import read_meta_checked
    from pysift.errors import SourceError

    out = TranscriptScan()
    if lane is not None:
        out.meta, out.meta_problem = read_meta_checked(lane)
    try:
        buf = open_buffer(path)
    except SourceError as exc:
        out.error = str(exc)
        if lane is not None:
            out.facts = LaneFacts(error=out.error)
        return out
    out.calls = scan_spawns(buf, want_text=want_text,
                            issuer=lane.session_id if lane is not None else None)
    if lane is not None:
        out.facts = read_lane(buf, want_tail_text=want_text)
    return out


def unique_keys(ids: Sequence[str]) -> list[str]:
    """One key per lane: its agent id, made unique (``<id>~2``…) for a second transcript
    carrying the same id (a copied home)."""
    seen: dict[str, int] = {}
    out = []
    for ident in ids:
        count = seen[ident] = seen.get(ident, 0) + 1
        out.append(ident if count == 1 else f"{ident}~{count}")
    return out


def lane_key(key: str, lane: Transcript, scan: TranscriptScan) -> LaneKey:
    """What the linker knows of one lane, from its scan."""
    from pysift.disk.layout import KIND_WORKFLOW

    facts = scan.facts
    return LaneKey(agent_id=key,
                   workflow_id=lane.path.parent.name if lane.kind == KIND_WORKFLOW else None,
                   meta=scan.meta, started=facts.started if facts is not None else None,
                   seed_digest=facts.seed_digest if facts is not None else None,
                   is_clone=((facts is not None and facts.fork is not None)
                             or scan.meta.get("isFork") is True))


def link_scanned(main: TranscriptScan | None, keys: Sequence[LaneKey],
                 scans: Sequence[TranscriptScan]) -> dict[str, Link]:
    """The session's links from its scans: the global spawn index (the main transcript's
    calls, then the lanes'), each lane joined to its call and its parent."""
    index = build_index(main.calls if main is not None else (),
                        [(key, scan.calls) for key, scan in zip(keys, scans)])
    return link_session(keys, index)


class SpawnIndex:
    """Every spawn call of a session, folded first-wins (see the module doc)."""

    def __init__(self) -> None:
        self.by_id: dict[str, SpawnCall] = {}
        self.by_agent: dict[str, list[SpawnCall]] = {}
        self.by_name: dict[str, list[SpawnCall]] = {}
        self.by_run: dict[str, SpawnCall] = {}
        self.by_prompt: dict[str, list[SpawnCall]] = {}

    def fold(self, calls: Iterable[SpawnCall]) -> None:
        """Add one transcript's calls; a call id already indexed keeps its first holder."""
        for call in calls:
            ident = call.tool_use_id
            if ident is not None:
                if ident in self.by_id:
                    continue
                self.by_id[ident] = call
            if call.name is not None and call.tool in META_LINKED_SPAWN_TOOLS:
                self.by_name.setdefault(call.name, []).append(call)
            if call.prompt_digest is not None:
                self.by_prompt.setdefault(call.prompt_digest, []).append(call)
            result = call.result
            if result is None:
                continue
            for agent in result.agent_ids:
                self.by_agent.setdefault(agent, []).append(call)
            for run in (result.run_id, result.task_id):
                if run is not None:
                    self.by_run.setdefault(run, call)


def build_index(main_calls: Iterable[SpawnCall],
                lane_calls: Iterable[tuple[LaneKey, Iterable[SpawnCall]]]) -> SpawnIndex:
    """The global spawn index: the main transcript's calls, then the lanes' (clones last)."""
    index = SpawnIndex()
    index.fold(main_calls)
    pending = list(lane_calls)
    for _lane, calls in [p for p in pending if not p[0].is_clone] + [p for p in pending
                                                                      if p[0].is_clone]:
        index.fold(calls)
    return index


def _meta_str(meta: Mapping[str, Any], key: str) -> str | None:
    value = meta.get(key)
    return value if isinstance(value, str) and value else None


def _latest_before(calls: Sequence[SpawnCall], bound: str | None) -> SpawnCall | None:
    """The call issued last at or before ``bound`` (a child starts after its call); the
    first call when none qualifies or no bound is known. Stamps compare by the instants
    they name, never as strings (``…T13:30:00+05:00`` is 08:30Z; ``…T09:00:00Z`` is before
    ``…T09:00:00.500Z``); a call whose stamp names no instant is never "before"."""
    limit = parse_ts(bound)
    if limit is not None:
        best: tuple[datetime, SpawnCall] | None = None
        for c in calls:
            at = parse_ts(c.ts)
            if at is not None and at <= limit and (best is None or at > best[0]):
                best = (at, c)
        if best is not None:
            return best[1]
    return calls[0] if calls else None


def link_session(lanes: Sequence[LaneKey], index: SpawnIndex) -> dict[str, Link]:
    """Every lane's spawning call, parent agent and depth, with a note for each link that
    could not be made or had to be dropped. A lane no root reaches (a parent cycle) keeps
    its declared parent; the caller appends it after the tree."""
    links = {lane.agent_id: Link() for lane in lanes}
    known = set(links)
    claimed: set[int] = set()  # id() of calls already given to a lane
    later: list[LaneKey] = []
    for lane in lanes:
        link = links[lane.agent_id]
        call, how = _strong_join(lane, index, link)
        if call is None:
            later.append(lane)
            continue
        _attach(link, call, how, claimed)
    for lane in later:  # the weakest join last, among the calls nobody claimed
        link = links[lane.agent_id]
        if lane.seed_digest is None or lane.workflow_id is not None:
            continue
        candidates = [c for c in index.by_prompt.get(lane.seed_digest, ())
                      if id(c) not in claimed and c.issuer != lane.agent_id and c.tool != "Workflow"]
        call = _latest_before(candidates, lane.started)
        if call is not None:
            _attach(link, call, "prompt", claimed)
    for lane in lanes:
        _parent(lane, links[lane.agent_id], known)
    _depths(links)
    return links


def _attach(link: Link, call: SpawnCall, how: str, claimed: set[int]) -> None:
    link.spawn = call
    link.spawn_tool_use_id = call.tool_use_id
    link.joined_by = how
    if call.tool != "Workflow":
        claimed.add(id(call))


def _strong_join(lane: LaneKey, index: SpawnIndex, link: Link) -> tuple[SpawnCall | None, str]:
    me = lane.agent_id
    declared = _meta_str(lane.meta, "toolUseId")
    if declared is not None:
        call = index.by_id.get(declared)
        if call is not None and call.issuer != me:
            return call, "meta"
        link.spawn_tool_use_id = declared
        link.notes.append(
            f"its meta.json names spawn call {declared}, which is in no transcript of the "
            "session" if call is None else
            f"its meta.json names spawn call {declared}, which only its own transcript holds")
    call = _latest_before([c for c in index.by_agent.get(me, ()) if c.issuer != me], lane.started)
    if call is not None:
        return call, "result"
    name = _meta_str(lane.meta, "name")
    if name is not None:
        call = _latest_before([c for c in index.by_name.get(name, ()) if c.issuer != me],
                              lane.started)
        if call is not None:
            return call, "name"
    if lane.workflow_id is not None:
        call = index.by_run.get(lane.workflow_id)
        if call is not None and call.issuer != me:
            return call, "workflow-run"
    return None, ""


def _parent(lane: LaneKey, link: Link, known: set[str]) -> None:
    me = lane.agent_id
    declared = _meta_str(lane.meta, "parentAgentId")
    if declared is not None and declared != me:
        link.parent_agent_id = declared
        if declared not in known:
            link.notes.append(f"its meta.json names parent agent {declared}, which has no "
                              "transcript in this session")
        return
    if declared == me:
        link.notes.append("its meta.json names itself as its parent agent (dropped)")
    issuer = link.spawn.issuer if link.spawn is not None else None
    if issuer == me:  # a clone holding the only copy of its own spawn
        link.notes.append("its spawn call sits only in its own transcript (dropped)")
        link.spawn = None
        return
    link.parent_agent_id = issuer


def _depths(links: dict[str, Link]) -> None:
    """Depth = agent ancestors up the parent chain; a chain that comes back on itself is a
    cycle: its lanes get the depth of the distinct ancestors and a note."""
    for agent, link in links.items():
        seen = [agent]
        parent = link.parent_agent_id
        while parent is not None and parent not in seen:
            seen.append(parent)
            up = links.get(parent)
            parent = up.parent_agent_id if up is not None else None
        link.depth = len(seen) - 1
        if parent is not None:
            cycle = seen[seen.index(parent):] + [parent]
            link.notes.append("parent cycle " + " -> ".join(cycle) + " (no root reaches it; "
                              "listed after the tree)")


def preorder(ids: Sequence[str], parents: Mapping[str, str | None],
             sort_key: Any) -> list[tuple[str, int]]:
    """``(id, level)`` in tree pre-order over ``ids``: roots (no parent, or a parent not in
    ``ids``) by ``sort_key``, each followed by its children, depth first. A node no root
    reaches (a parent cycle) is appended at level 0, never dropped."""
    members = set(ids)
    children: dict[str, list[str]] = {}
    roots: list[str] = []
    for ident in ids:
        parent = parents.get(ident)
        if parent is not None and parent in members and parent != ident:
            children.setdefault(parent, []).append(ident)
        else:
            roots.append(ident)
    out: list[tuple[str, int]] = []
    seen: set[str] = set()
    stack = [(ident, 0) for ident in sorted(roots, key=sort_key, reverse=True)]
    while stack:
        ident, level = stack.pop()
        if ident in seen:
            continue
        seen.add(ident)
        out.append((ident, level))
        kids = sorted(children.get(ident, ()), key=sort_key, reverse=True)
        stack.extend((kid, level + 1) for kid in kids)
    out.extend((ident, 0) for ident in sorted((i for i in ids if i not in seen), key=sort_key))
    return out
