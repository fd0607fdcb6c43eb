"""The ``agents`` engine: each in-scope session's subagent tree (csift §6.5, §10.3).

1. ``sessions_in`` groups the resolved scope by owning session and completes each with
   all of the session's subagent lanes (the links need every transcript, whatever the
   target named); a session whose main transcript is not in scope lists only the lanes
   the target named, with their descendants.
2. ``build`` (``run`` is the entry: both steps) reads every transcript once
   (``topology.scan_transcript``), spread over the cores, heaviest first: each
   one's spawn calls and their results (``topology.scan_spawns``: one regex pass over the
   whole buffer, orjson on the lines it hits), and of each lane its two ends
   (``lanes.read_lane``) and its ``.meta.json``. Only what crosses back is small: the
   calls, the lane facts, the meta; a result's text and a lane's tail text only when the
   returned message was asked for.
3. Per session, in the parent: the workflow run manifests and journals, the global spawn
   index and the links (``topology.link_session``), each lane's lifecycle and returned
   message. Everything that could not be read or joined becomes a note naming the lane:
   the lane itself is always listed.

Sessions without a single subagent transcript are never read: they have nothing to list
(``inline_subagents`` only counts, for a targeted run, the subagent prompts Claude Code
1.x wrote into such a session's own transcript).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any

from pysift.core.lanes import (
    COMPACTION_PREFIX,
    COMPLETED,
    RUNNING,
    ForkRef,
    LaneFacts,
    LaneLifecycle,
    find_pulses,
    holding_hook,
    is_one_shot_side_call,
    lifecycle,
    return_stands,
    returned_message,
)
from pysift.core.resolve import Scope
from pysift.core.stophooks import RUNNING_HOOK, StopHook
from pysift.core.topology import (
    LaneKey,
    Link,
    TranscriptScan,
    lane_key,
    link_scanned,
    scan_transcript,
    unique_keys,
)
from pysift.core.workflows import (
    Journal,
    WorkflowRun,
    ended_word,
    parse_journal,
    parse_manifest,
    placeholder_run,
)
from pysift.disk.layout import (
    KIND_WORKFLOW,
    WORKFLOWS_DIR,
    Transcript,
    Unreadable,
    session_dir,
    subagent_transcripts,
    workflow_journal,
    workflow_manifests,
)
from pysift.disk.mapped import open_buffer, read_regular
from pysift.errors import NotFoundError, SourceError, TargetError
from pysift.model.fastdata import dataclass
from pysift.model.ids import is_hex

SHAPE_BUILTIN = "builtin-task"
SHAPE_WORKFLOW = "workflow"
SHAPE_TEAMMATE = "teammate"
SHAPES = (SHAPE_BUILTIN, SHAPE_WORKFLOW, SHAPE_TEAMMATE)
TEAMMATE_TASK_KIND = "in_process_teammate"


# -- the scope, by session --------------------------------------------------------------------


@dataclass
class SessionScope:
    """One session: its main transcript (when in scope and on disk), all its lanes, and
    which of them the target named (None: all)."""

    session_id: str
    project_dir: Path
    main: Path | None
    lanes: list[Transcript]
    named: set[str] | None = None

    @property
    def session_path(self) -> Path:
        return self.project_dir / f"{self.session_id}.jsonl"


@dataclass(frozen=True, kw_only=True)
class AgentsWork:
    """What ``run`` is asked for: the returned messages (the spawn results' and the lanes'
    tail texts then cross the pool), and one lane by id (``--agent``: only the sessions
    holding it are read)."""

    want_returned: bool = False
    agent: str | None = None


def run(scope: Scope, work: AgentsWork, *, workers: int | None = None
        ) -> tuple[list[SessionAgents], list[str]]:
    """The entry of ``agents``: every in-scope session's tree, and the stderr notes for
    what could not be read past the scope's own walk (the session lanes an agent target
    did not name, the run manifests)."""
    unread = Unreadable()
    sessions = sessions_in(scope, unread=unread)
    wanted = grab(work.agent, sessions) if work.agent is not None else None
    if wanted is not None:
        sessions = [s for s in sessions if any(lane.session_id == wanted for lane in s.lanes)]
    trees = build(sessions, want_returned=work.want_returned, unread=unread, workers=workers)
    if wanted is not None:
        for tree in trees:
            tree.listed = [key for key, node in tree.nodes.items() if node.agent_id == wanted]
    notes = [f"warning: cannot read {path}: {reason}; what it holds is not listed (check "
             "the path and its permissions)" for path, reason in unread.items()]
    return trees, notes


def grab(ident: str, sessions: Sequence[SessionScope]) -> str:
    """The one lane ``--agent`` names among the sessions' lanes: its exact id, else a
    unique prefix of one (an address that misses, or names several, is an error). A
    pure-hex value is matched lower-cased when it is no id as typed: Claude Code writes
    hex ids in lower case, and the ``@`` target resolver already takes a pasted upper-case
    id (``model.ids``)."""
    ids = {lane.session_id for s in sessions for lane in s.lanes}
    if ident in ids:
        return ident
    if is_hex(ident):
        ident = ident.lower()
        if ident in ids:
            return ident
    matches = sorted(i for i in ids if i.startswith(ident))
    if len(matches) == 1:
        return matches[0]
    if matches:
        shown = ", ".join(matches[:10]) + (f", … and {len(matches) - 10} more"
                                           if len(matches) > 10 else "")
        raise TargetError(f"--agent `{ident}` is AMBIGUOUS: {len(matches)} subagents in scope "
                          f"start with it ({shown}); give more characters of the id")
    raise NotFoundError(
        f"--agent `{ident}` matches no subagent in scope; list the ids with `pysift agents "
        "@<session>` (the agent_id column) and pass one: a bare hex id, a teammate id "
        "(aName-<hex>) or a unique prefix")


def sessions_in(scope: Scope, *, unread: Unreadable) -> list[SessionScope]:
    """The scope grouped by owning session, in session id order; sessions without lanes
    are left out (nothing to list)."""
    groups: dict[tuple[str, str], list[Transcript]] = {}
    for transcript in scope.transcripts:
        key = (os.fspath(transcript.project_dir), transcript.parent_session_id)
        groups.setdefault(key, []).append(transcript)
    out: list[SessionScope] = []
    for (project, session_id), members in sorted(groups.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        project_dir = Path(project)
        main = next((t.path for t in members if not t.is_subagent), None)
        scoped = [t for t in members if t.is_subagent]
        if main is not None:  # a session in scope came with all of its lanes
            lanes = {os.fspath(t.path): t for t in scoped}
        else:  # an agent target: the links need the session's other lanes too
            lanes = {os.fspath(t.path): t
                     for t in subagent_transcripts(project_dir / f"{session_id}.jsonl",
                                                   unread=unread)}
            for lane in scoped:  # old-layout agents beside the sessions are not in subagents/
                lanes.setdefault(os.fspath(lane.path), lane)
        if not lanes:
            continue
        named = None if main is not None else {t.session_id for t in scoped}
        out.append(SessionScope(session_id, project_dir, main, list(lanes.values()), named))
    return out


# -- reading ------------------------------------------------------------------------------------


def _scan(want_text: bool, item: tuple[Path, Transcript | None]) -> TranscriptScan:
    path, lane = item
    return scan_transcript(path, lane, want_text=want_text)


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


# -- the result -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FileChange:
    """One path a lane changed, once per (path, op): ``op`` as ``files`` spells it in JSON."""

    path: str
    op: str
    is_create: bool


@dataclass
class AgentNode:
    """One subagent lane, linked and with its lifecycle (an ``agent`` row)."""

    transcript: Transcript
    agent_id: str
    shape: str
    parent_session_id: str
    workflow_id: str | None
    link: Link
    life: LaneLifecycle
    agent_type: str | None
    name: str | None
    team_name: str | None
    description: str | None
    fork: ForkRef | None
    skipped_lines: int
    returned_message: str | None = None
    returned_source: str | None = None
    files_changed: list[FileChange] | None = None  # with --with-files (``attach_files``)
    notes: list[str] = field(default_factory=list)
    unreadable: bool = False  # its transcript could not be read (counted by its session)

    @property
    def spawn_tool(self) -> str | None:
        return self.link.spawn.tool if self.link.spawn is not None else None


@dataclass
class SessionAgents:
    """One session's tree: every lane (``nodes``, in discovery order), the workflow runs
    their workflow agents hang under, and which lanes are listed."""

    session_id: str
    nodes: dict[str, AgentNode]
    runs: dict[str, WorkflowRun]
    listed: list[str]
    notes: list[str] = field(default_factory=list)
    # the transcripts and workflow journals of the session that exist but could not be
    # read (each said in a note or a lane note): the summary's ``unreadable``
    unreadable: int = 0


def build(sessions: Sequence[SessionScope], *, want_returned: bool = False,
          unread: Unreadable, workers: int | None = None) -> list[SessionAgents]:
    """Every session's tree (see the module doc)."""
    from pysift.disk.fanout import map_ordered

    items: list[tuple[Path, Transcript | None]] = []
    for session in sessions:
        if session.main is not None:
            items.append((session.main, None))
        elif (session.project_dir / f"{session.session_id}.jsonl").is_file():
            items.append((session.session_path, None))  # read for its calls, never listed
        items.extend((lane.path, lane) for lane in session.lanes)
    scans = map_ordered(_scan, items, shared=want_returned,
                        weights=[_size(path) for path, _ in items], workers=workers)
    by_path = {os.fspath(path): scan for (path, _), scan in zip(items, scans)}
    return [_session_tree(session, by_path, want_returned, unread) for session in sessions]


def _session_tree(session: SessionScope, scans: dict[str, TranscriptScan],
                  want_returned: bool, unread: Unreadable) -> SessionAgents:
    main = scans.get(os.fspath(session.session_path))
    out = SessionAgents(session.session_id, {}, {}, [])
    lane_keys = _unique_keys(session, out.notes)
    lane_scans = [scans[os.fspath(lane.path)] for lane in session.lanes]
    keys = [lane_key(key, lane, scan)
            for key, lane, scan in zip(lane_keys, session.lanes, lane_scans)]
    links = link_scanned(main, keys, lane_scans)
    journals: dict[Path, Journal | None] = {}
    out.unreadable = sum(1 for scan in lane_scans if scan.error is not None)
    if main is not None and main.error is not None:
        out.unreadable += 1
        out.notes.append(f"warning: {main.error}; the spawn calls of session "
                         f"{session.session_id} are unknown")
    elif session.lanes and (main is None or _size(session.session_path) == 0):
        # a 0-byte file holds no call either: the starts would read as true triggers
        what = ("has no transcript of its own on disk (only its subagents')" if main is None
                else "'s own transcript is empty (only its subagents' hold records)")
        out.notes.append(
            f"note: session {session.session_id}{' ' if main is None else ''}{what}: the "
            "calls it spawned them with are unknown, so a lane it spawned shows its start "
            "as its trigger and its own last text as its returned message")
    lane_journals = [_journal(lane, journals, out) for lane in session.lanes]
    returns = _returns(session, main, keys, lane_scans, links, lane_journals)
    for lane, key, scan, journal in zip(session.lanes, keys, lane_scans, lane_journals):
        out.nodes[key.agent_id] = _node(lane, key, scan, links[key.agent_id], journal,
                                        want_returned, key.agent_id in returns)
    _runs(session, out, unread)
    _ended_runs(out)
    out.listed = _listed(session, out.nodes)
    return out


def _returns(session: SessionScope, main: TranscriptScan | None, keys: Sequence[LaneKey],
             scans: Sequence[TranscriptScan], links: dict[str, Link],
             journals: Sequence[Journal | None]) -> set[str]:
    """The lanes whose return the harness reported, of those a ``SubagentStop`` hook would
    otherwise hold (``lanes.holding_hook``), read as ``status`` reads them: a journal
    ``result``, the spawning call's result naming the lane (a launch acknowledgement
    excepted), a completion pulse in the main transcript; a result or pulse older than
    the lane's newest record by more than the slack does not count (the lane was resumed
    after it). Only such lanes are asked about, and the main transcript is searched for
    pulses only when one of them was launched without a sync result (none in the real
    corpus)."""
    out: set[str] = set()
    pulses_wanted: dict[str, str | None] = {}
    for lane, key, scan, journal in zip(session.lanes, keys, scans, journals):
        facts = scan.facts
        if facts is None or holding_hook(facts) is None:
            continue
        agent = key.agent_id
        spawn = links[agent].spawn
        result = spawn.result if spawn is not None and spawn.tool != "Workflow" else None
        if (journal is not None and lane.session_id in journal.results) or (
                lane.session_id.startswith(COMPACTION_PREFIX) and facts.ends_with_text):
            out.add(agent)
        elif (result is not None and not result.launch_ack
                and lane.session_id in result.agent_ids):
            if return_stands(result.ts, facts.last_activity):
                out.add(agent)
        else:
            pulses_wanted[lane.session_id] = spawn.tool_use_id if spawn is not None else None
    if pulses_wanted and main is not None and main.error is None:
        try:
            buf = open_buffer(session.session_path)
        except SourceError:
            return out  # said when it was scanned
        found = find_pulses(buf, pulses_wanted)
        for lane, key, scan in zip(session.lanes, keys, scans):
            if lane.session_id in found and scan.facts is not None and return_stands(
                    found[lane.session_id], scan.facts.last_activity):
                out.add(key.agent_id)
    return out


def _unique_keys(session: SessionScope, notes: list[str]) -> list[str]:
    """One key per lane: its agent id, made unique (``<id>~2``…) for a second transcript
    carrying the same id (a copied home), which is listed too, joined by its meta only."""
    out = unique_keys([lane.session_id for lane in session.lanes])
    for lane, key in zip(session.lanes, out):
        if key != lane.session_id:
            notes.append(f"note: session {session.session_id}: {lane.path} carries agent id "
                         f"{lane.session_id} too; both are listed, this one joined by its "
                         "meta only")
    return out


def _journal(lane: Transcript, cache: dict[Path, Journal | None], out: SessionAgents
             ) -> Journal | None:
    path = workflow_journal(lane)
    if path is None:
        return None
    if path not in cache:
        try:
            cache[path] = parse_journal(read_regular(path))
        except FileNotFoundError:
            cache[path] = None
        except OSError as exc:
            cache[path] = None
            out.unreadable += 1
            out.notes.append(f"warning: cannot read the workflow journal {path}: "
                         f"{exc.strerror or exc}; its agents' completion is read from their "
                         "transcripts alone")
        journal = cache[path]
        if journal is not None and journal.skipped_lines:
            out.notes.append(f"note: {journal.skipped_lines} malformed line(s) skipped in "
                             f"{path}")
    return cache[path]


def _text(meta: dict[str, Any], key: str) -> str | None:
    value = meta.get(key)
    return value if isinstance(value, str) and value else None


def _node(lane: Transcript, key: LaneKey, scan: TranscriptScan, link: Link, journal: Journal | None,
          want_returned: bool, returned: bool = False) -> AgentNode:
    facts = scan.facts or LaneFacts()
    meta = scan.meta
    spawn = link.spawn
    teammate = meta.get("taskKind") == TEAMMATE_TASK_KIND
    workflow = lane.kind == KIND_WORKFLOW
    shape = SHAPE_TEAMMATE if teammate else SHAPE_WORKFLOW if workflow else SHAPE_BUILTIN
    journal_done = journal is not None and lane.session_id in journal.results
    # a workflow agent's trigger is its own start: the Workflow call launched the run
    trigger = spawn.ts if spawn is not None and spawn.tool != "Workflow" else None
    one_shot = is_one_shot_side_call(lane.session_id)
    life = lifecycle(facts, trigger, journal_result=journal_done, one_shot=one_shot,
                     returned=returned)
    spawn_type = spawn.subagent_type if spawn is not None else None
    meta_type = _text(meta, "agentType")
    node = AgentNode(
        transcript=lane, agent_id=lane.session_id, shape=shape,
        parent_session_id=lane.parent_session_id, workflow_id=key.workflow_id, link=link,
        life=life,
        agent_type=(spawn_type or meta_type) if teammate else (meta_type or spawn_type),
        name=(_text(meta, "name") or (spawn.name if spawn else None)) if teammate else None,
        team_name=((_text(meta, "teamName") or (spawn.team_name if spawn else None))
                   if teammate else None),
        description=_text(meta, "description") or (spawn.description if spawn else None),
        fork=facts.fork, skipped_lines=facts.skipped_lines)
    if want_returned:
        result = spawn.result if spawn is not None and spawn.tool != "Workflow" else None
        node.returned_message, node.returned_source = returned_message(
            workflow=workflow, result_text=result.text if result is not None else None,
            launch_ack=result.launch_ack if result is not None else False,
            tail_text=facts.tail_text,
            journal_payload=journal.results.get(lane.session_id) if journal else None,
            has_journal_result=journal_done)
    if scan.meta_problem is not None:
        node.notes.append(scan.meta_problem + "; its agent type, description and spawn "
                          "links come from the transcripts alone")
    if facts.error is not None:
        node.unreadable = True
        node.notes.append(f"{facts.error}; its lifecycle is unknown")
    if facts.ends_with_api_error:
        node.notes.append("its last word is an API error Claude Code wrote, not the agent's "
                          "reply: `completed` here means it stopped on that error (pysift show "
                          f"@{lane.session_id} --turn -1)")
    hook = holding_hook(facts, returned=returned or one_shot)
    if hook is not None and life.status == RUNNING and not journal_done:
        node.notes.append(_hook_note(hook))
    if one_shot and life.status == COMPLETED and not facts.ends_with_text:
        node.notes.append("a prompt suggestion Claude Code makes when a turn ends; its reply "
                          "holds no text (it suggested nothing): `completed` at that reply")
    node.notes.extend(link.notes)
    return node


def _ended_runs(out: SessionAgents) -> None:
    """A workflow agent still ``running`` by its transcript whose run's manifest has a
    final word (``killed``, ``failed``, ``completed`` without its result in the journal)
    runs no more: Claude Code writes the manifest when the run ends, and ``status``
    settles such a lane. The status set has no word for "stopped unfinished" (it is
    neither completed nor unknown), so the lane keeps ``running`` and a note says so."""
    for node in out.nodes.values():
        run = out.runs.get(node.workflow_id) if node.workflow_id is not None else None
        word = ended_word(run) if run is not None else None
        if run is not None and word is not None and node.life.status == RUNNING:
            node.notes.append(
                f"its workflow run {run.run_id} has ended (its manifest says {word}) without "
                "its result in the journal: it runs no more, and `running` is where its "
                "transcript stops (`status` reads the lane settled)")


def _hook_note(hook: StopHook) -> str:
    """Why a lane that ends on its words is still ``running``: its ``SubagentStop`` hook
    holds the end of its turn and no return of it is recorded (``status`` reads it so)."""
    since = f" (since {hook.since})" if hook.since else ""
    if hook.state == RUNNING_HOOK:
        return (f"a {hook.event} hook ({hook.detail}) started after its last message{since} "
                "and its return is not written, nor the lane's: `running` until it returns "
                "(`status` reads the lane in-flight)")
    return (f"a {hook.event} hook blocked the end of its turn{since}: {hook.detail}; no newer "
            "reply and no return of the lane are written: `running` (Claude Code sent the "
            "agent back to work; `status` reads it generating)")


def _runs(session: SessionScope, out: SessionAgents, unread: Unreadable) -> None:
    """The runs the session's workflow agents hang under: each manifest, and a stand-in
    for a run directory with agents but no readable manifest (a run still going)."""
    wanted = {n.workflow_id for n in out.nodes.values() if n.workflow_id is not None}
    if not wanted:
        return
    for path in workflow_manifests(session.session_path, unread=unread):
        run_id = path.name[: -len(".json")]
        if run_id not in wanted:
            continue
        try:
            run = parse_manifest(read_regular(path), run_id)
        except OSError as exc:
            run = placeholder_run(run_id, f"its manifest cannot be read ({exc.strerror or exc})")
        out.runs[run_id] = run
    for run_id in sorted(wanted - set(out.runs)):
        manifest = session_dir(session.session_path) / WORKFLOWS_DIR / f"{run_id}.json"
        out.runs[run_id] = placeholder_run(
            run_id, "its manifest cannot be read (not a regular file)"
            if os.path.lexists(manifest) else None)
    for run in out.runs.values():
        if run.problem is not None:
            out.notes.append(f"note: workflow run {run.run_id} of session {session.session_id}: "
                             f"{run.problem}")


def _listed(session: SessionScope, nodes: dict[str, AgentNode]) -> list[str]:
    """Every lane, or the lanes the target named and their descendants."""
    if session.named is None:
        return list(nodes)
    children: dict[str, list[str]] = {}
    for agent, node in nodes.items():
        parent = node.link.parent_agent_id
        if parent is not None:
            children.setdefault(parent, []).append(agent)
    keep: set[str] = set()
    stack = [key for key, node in nodes.items() if node.agent_id in session.named]
    while stack:
        agent = stack.pop()
        if agent in keep:
            continue
        keep.add(agent)
        stack.extend(children.get(agent, ()))
    return [a for a in nodes if a in keep]


def attach_files(nodes: Sequence[AgentNode], *, workers: int | None = None) -> int:
    """Each node's files-changed list: the ``files`` extractors over the lane's own
    transcript (structured edits joined to their results, Bash heuristics included), one
    entry per (path, op) in first-seen order. Returns how many lanes could not be read
    (each said in its notes)."""
    from pysift.disk.fanout import map_ordered
    from pysift.engines.files import transcript_mutations

    found = map_ordered(transcript_mutations, [n.transcript for n in nodes],
                        weights=[_size(n.transcript.path) for n in nodes], workers=workers)
    newly_unread = 0
    for node, result in zip(nodes, found):
        if result.error is not None:
            node.notes.append(f"{result.error}; its files-changed list is unknown")
            newly_unread += not node.unreadable  # unreadable since its first read
            node.unreadable = True
        changes: dict[tuple[str, str], FileChange] = {}
        for row in result.mutations:
            changes.setdefault((row.path, row.op), FileChange(row.path, row.op, row.is_create))
        node.files_changed = list(changes.values())
    return newly_unread


#: lane notes printed before the rest are counted (a home of lanes whose spawn calls were
#: all pruned would otherwise print one line per lane)
LANE_NOTES_SHOWN = 20


def node_notes(sessions: Iterable[SessionAgents]) -> list[str]:
    """The notes of the sessions and of their listed lanes, as stderr lines; past
    ``LANE_NOTES_SHOWN`` lane notes, one line counts the rest and says how to see them."""
    out: list[str] = []
    lane_notes: list[str] = []
    for session in sessions:
        out.extend(session.notes)
        for agent in session.listed:
            for note in session.nodes[agent].notes:
                lane_notes.append(f"note: agent {agent} of session {session.session_id}: {note}")
    out.extend(lane_notes[:LANE_NOTES_SHOWN])
    hidden = len(lane_notes) - LANE_NOTES_SHOWN
    if hidden > 0:
        out.append(f"note: {hidden} more lane note(s) like these not shown; `pysift agents "
                   "--agent <id>` prints one lane's notes")
    return out


# -- subagents inside a session's own transcript ----------------------------------------------

_SIDECHAIN_KEYS = (b'"isSidechain":true', b'"isSidechain": true')


def inline_subagents(scope: Scope) -> list[tuple[Transcript, int]]:
    """The main transcripts of a targeted scope whose session has no subagent transcript,
    each with the subagent prompts its own file holds (a user record flagged
    ``isSidechain`` that opens a thread: Claude Code 1.x wrote a Task subagent's prompt and
    replies there and no transcript of its own, so ``agents`` has no lane to list; 2.0.x's
    "Warmup" ping is not counted).
    Only the lines holding the flag are decoded; an unscoped run reads nothing (the
    engine never reads a session without lanes), and a file that cannot be read counts
    none (the listing never claimed to read it)."""
    if not scope.scoped:
        return []
    with_lanes = {(os.fspath(t.project_dir), t.parent_session_id)
                  for t in scope.transcripts if t.is_subagent}
    out: list[tuple[Transcript, int]] = []
    for t in scope.transcripts:
        if t.is_subagent or (os.fspath(t.project_dir), t.parent_session_id) in with_lanes:
            continue
        try:
            prompts = _inline_prompts(open_buffer(t.path))
        except SourceError:
            continue
        if prompts:
            out.append((t, prompts))
    return out


def _warmup(raw: dict[str, Any]) -> bool:
    """Claude Code 2.0.x's start-up ping of its search agent ("Warmup"), which no call of
    the session spawned: no subagent anyone asked for."""
    message = raw.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        content = "".join(b.get("text", "") for b in content
                          if isinstance(b, dict) and isinstance(b.get("text"), str))
    return isinstance(content, str) and content.strip() == "Warmup"


def _inline_prompts(buf: bytes | Any) -> int:
    from pysift.disk.jsonline import JSONDecodeError, loads

    seen: set[int] = set()  # line starts (a line holds one spelling of the key)
    prompts = 0
    for key in _SIDECHAIN_KEYS:
        at = buf.find(key)
        while at >= 0:
            start = buf.rfind(b"\n", 0, at) + 1
            end = buf.find(b"\n", at)
            end = len(buf) if end < 0 else end
            if start not in seen:
                seen.add(start)
                try:
                    raw = loads(buf[start:end])
                except JSONDecodeError:
                    raw = None
                prompts += (isinstance(raw, dict) and raw.get("type") == "user"
                            and raw.get("isSidechain") is True
                            and raw.get("parentUuid") is None and not _warmup(raw))
            at = buf.find(key, end)
    return prompts
