"""``pysift agents``: a session's subagent tree with each lane's lifecycle (csift §6.5).

The engine links every lane; this module selects (``--shape``, ``--agent-type``, the
``--since``/``--until`` window on the ``--order-by`` axis, or one ``--agent``), orders
(the axis instant, then the id; workflow runs first, each followed by its agents, then
the other roots, each followed by the agents it spawned), and lays the same ``AgentsView``
out twice: the text tree and the flat pre-order JSON rows.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import field
from typing import Any, TextIO

from pysift.commands.scope import ScopeArgs
from pysift.core.lanes import (
    ESCALATION_BLOCKED,
    RUNNING,
    SYNC_TOOL_RESULT,
    UNKNOWN,
    seconds_label,
)
from pysift.core.text import excerpt, one_line
from pysift.core.timez import parse_ts, text_ts, ts_pair
from pysift.core.topology import preorder
from pysift.core.workflows import WorkflowRun
from pysift.engines.agents import SHAPE_TEAMMATE, SHAPES, AgentNode, SessionAgents
from pysift.errors import UsageError
from pysift.model.env import Env
from pysift.model.fastdata import dataclass
from pysift.output.fields import target_ref
from pysift.output.report import Report
from pysift.output.terminal import paint

ORDER_AXES = ("trigger", "start", "completion")
RETURNED_PREVIEW_CHARS = 200
_AGENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
_RUN = "\x00run:"  # pseudo ids of workflow runs in the session's pre-order

TEAMMATE_HINT_TEXT = (
    "note: teammate rows are in-process agents: steer one BY NAME (the `(@name)` shown) with "
    "SendMessage, and end it with SendMessage `message:{\"type\":\"shutdown_request\"}`.",
    "      TaskStop (a background-task tool) and pkill do not reach a teammate: the "
    "aName-<hex> id above is a transcript id, not a task id, and a teammate runs inside its "
    "orchestrator's process.",
)
TEAMMATE_HINT_JSON = (
    "in-process teammate: steer it with SendMessage addressed to `name`; message "
    "{type:\"shutdown_request\"} ends it; TaskStop does not take its aName-<hex> id (a "
    "transcript id, not a task id) and pkill cannot reach it (it shares the orchestrator's "
    "process)")
HELD_EXPLANATION = (
    "↑ a Bash removal under a bare $VAR/ that Claude Code holds for a human yes even when "
    "permissions are bypassed: most likely waiting for approval in the main UI, not dead.")
HISTORY_BRAND = "history — predates the still-open lane, NOT the outcome"


def _history(status: str, completed: object, source: str) -> bool:
    """Whether the returned message is branded as history (csift v0.6.4: a lane without
    a completion). A lane of unknown status (its transcript empty or unreadable) whose
    return is the orchestrator's sync tool result is no still-open lane: a sync spawn's
    result is written when the child ends, so that result is the outcome."""
    if completed is not None:
        return False
    return not (status == UNKNOWN and source == SYNC_TOOL_RESULT)


@dataclass(frozen=True, kw_only=True)
class AgentsOptions:
    # the scope (subagents always spanned) and the --since/--until window on the
    # --order-by axis
    scope: ScopeArgs = field(default_factory=ScopeArgs)
    shapes: tuple[str, ...] = ()  # empty: every shape
    agent_types: tuple[str, ...] = ()  # empty: every agent type
    order_by: str = "trigger"
    agent: str | None = None  # one lane by id: ignores every filter, implies the message
    returned_message: bool = False
    with_files: bool = False


# -- the view both layouts read ----------------------------------------------------------------


@dataclass
class SessionView:
    session_id: str
    runs: list[WorkflowRun]
    # (kind, payload, level): ("run", WorkflowRun, 0) or ("agent", AgentNode, level)
    entries: list[tuple[str, Any, int]] = field(default_factory=list)

    @property
    def agents(self) -> list[AgentNode]:
        return [payload for kind, payload, _ in self.entries if kind == "agent"]


@dataclass
class AgentsView:
    """What ``agents`` found, selected and ordered: the one object its JSON rows, its
    summary and its text tree all read."""

    sessions: list[SessionView]
    shapes: tuple[str, ...]
    order_by: str
    with_message: bool
    single: bool  # an --agent grab: the node alone, no tree
    env: Env
    with_files: bool = False

    def summary(self) -> dict[str, Any]:
        return {"sessions": len(self.sessions), "runs": self.run_count,
                "agents": self.agent_count}

    def render_text(self, out: TextIO) -> None:
        render_text(out, self, self.env)

    @property
    def agent_count(self) -> int:
        return sum(len(s.agents) for s in self.sessions)

    @property
    def run_count(self) -> int:
        return sum(len(s.runs) for s in self.sessions)

    @property
    def has_teammate(self) -> bool:
        return any(n.shape == SHAPE_TEAMMATE for s in self.sessions for n in s.agents)


def run(opts: AgentsOptions, env: Env) -> Report:
    from pysift.engines import agents as engine

    if opts.order_by not in ORDER_AXES:
        raise UsageError(f"--order-by {opts.order_by!r} is not one of {', '.join(ORDER_AXES)}")
    unknown = [shape for shape in opts.shapes if shape not in SHAPES]
    if unknown:
        raise UsageError(f"--shape {unknown[0]!r} is not one of {', '.join(SHAPES)}")
    if any(not t.strip() for t in opts.agent_types):
        raise UsageError("--agent-type is empty; give an agent type exactly as the agent_type "
                         "column shows it (Explore, general-purpose, fork…), or leave it out")
    ident = _agent_id_form(opts.agent) if opts.agent is not None else None  # before the walk
    scope = opts.scope.resolve(env)
    trees, notes = engine.run(scope, engine.AgentsWork(
        want_returned=opts.returned_message or ident is not None, agent=ident))
    view = _view(trees, opts, ident is not None, env)
    report = Report(command="agents")
    if opts.with_files:
        view.with_files = True
        report.unreadable += engine.attach_files(
            [node for session in view.sessions for node in session.agents])
    report.take_scope(scope)
    for warning in notes:
        report.unread(warning)
    report.unreadable += sum(tree.unreadable for tree in trees)
    report.notes.extend(engine.node_notes(trees))
    for transcript, prompts in engine.inline_subagents(scope):
        ref = target_ref(transcript.session_id, transcript.path)
        report.note(f"note: {ref} holds {prompts} subagent prompt(s) inside its own transcript "
                    "(Claude Code 1.x wrote a Task subagent's records there, flagged "
                    "isSidechain, and no subagent transcript): agents lists subagent "
                    f"transcripts only; read them with `pysift search {ref} -t "
                    "agent.communication` (or `show` the lines it names)")
    running = sum(1 for session in view.sessions for node in session.agents
                  if node.life.status == RUNNING)
    if running:
        report.note(_running_note(running))
    if not view.agent_count and ident is None and _filtered(opts):
        report.note(f"note: no subagent passed the filters ({_filter_words(opts)}); drop them "
                    "to see every subagent in scope")
    report.rows = rows_of(view, env)
    report.answer(view)
    return report


def _running_note(count: int) -> str:
    """What ``running`` means here (decided, thirty-second session): the transcripts show
    no end, nothing more. ``agents`` stays a pure read of the home and probes no process,
    so a lane of a session whose process exited or died reads the same as a live one;
    ``status`` asks the registry and the process table (``stale-dead``)."""
    return (f"note: {count} lane(s) read `running` from their transcripts alone (no end is "
            "written: frozen on a call, mid-turn, or held by a SubagentStop hook); agents "
            "probes no process, so a lane whose session's process has exited or died reads "
            "the same: `pysift status @<session>` says whether it still runs")


def _agent_id_form(raw: str) -> str:
    """``--agent``'s value as an id: ``@`` and an ``agent-`` file prefix dropped."""
    ident = raw.strip()
    ident = ident[1:] if ident.startswith("@") else ident
    ident = ident[len("agent-"):] if ident.startswith("agent-") else ident
    if not _AGENT_ID.match(ident):
        raise UsageError(
            f"--agent {raw!r} is not an agent id; pass one as `pysift agents` prints it: a "
            "bare hex id (a4f1c9e27b3d8a605), a teammate id (aName-<hex>) or a unique prefix")
    return ident


def _filtered(opts: AgentsOptions) -> bool:
    return bool(opts.shapes or opts.agent_types or opts.scope.windowed)


def _filter_words(opts: AgentsOptions) -> str:
    words = []
    if opts.shapes:
        words.append("--shape " + ",".join(opts.shapes))
    if opts.agent_types:
        words.append("--agent-type " + ",".join(opts.agent_types))
    if opts.scope.windowed:
        words.append(f"the --since/--until window on the {opts.order_by} axis")
    return "; ".join(words)


# -- selection and order -------------------------------------------------------------------------


def axis_instant(node: AgentNode, axis: str) -> str | None:
    """The node's instant on the ordering axis. Completion is the instant a COMPLETED lane
    completed (``completed_utc``): a lane still running, frozen or unknown has none, so it
    sorts after the dated lanes and a bounded window never admits it (csift windowed on
    the last activity, and `--order-by completion --since X` listed running lanes as
    "finished since X")."""
    life = node.life
    if axis == "start":
        return life.started
    if axis == "completion":
        return life.completed
    return life.trigger


def _admits(node: AgentNode, opts: AgentsOptions) -> bool:
    if opts.shapes and node.shape not in opts.shapes:
        return False
    if opts.agent_types and node.agent_type not in opts.agent_types:
        return False
    since, until = opts.scope.since, opts.scope.until
    if since is None and until is None:
        return True
    instant = parse_ts(axis_instant(node, opts.order_by))
    if instant is None:  # a bounded window never admits a lane without the instant
        return False
    return (since is None or instant >= since) and (until is None or instant <= until)


def _key(node: AgentNode, axis: str) -> tuple[int, float, str]:
    instant = parse_ts(axis_instant(node, axis))
    return (0, instant.timestamp(), node.agent_id) if instant else (1, 0.0, node.agent_id)


def _view(trees: list[SessionAgents], opts: AgentsOptions, single: bool, env: Env
          ) -> AgentsView:
    out = []
    for tree in trees:
        chosen = {a: tree.nodes[a] for a in tree.listed
                  if single or _admits(tree.nodes[a], opts)}
        if chosen:
            out.append(_session_view(tree, chosen, opts.order_by, single))
    return AgentsView(out, opts.shapes, opts.order_by,
                      with_message=opts.returned_message or single, single=single, env=env)


def _session_view(tree: SessionAgents, chosen: dict[str, AgentNode], axis: str,
                  single: bool) -> SessionView:
    view = SessionView(tree.session_id, [])
    keys: dict[str, tuple[Any, ...]] = {a: (1, *_key(n, axis)) for a, n in chosen.items()}
    parents: dict[str, str | None] = {}
    runs: dict[str, list[str]] = {}
    for agent, node in chosen.items():
        parent = node.link.parent_agent_id
        if node.workflow_id is not None and not single:
            inside = parent in chosen and chosen[parent].workflow_id == node.workflow_id
            parents[agent] = parent if inside else _RUN + node.workflow_id
            runs.setdefault(node.workflow_id, []).append(agent)
        else:
            parents[agent] = parent if parent in chosen and not single else None
    for run_id, members in runs.items():
        keys[_RUN + run_id] = (0, *min(keys[m][1:] for m in members))
    order = preorder(list(keys), parents, sort_key=keys.__getitem__)
    for ident, level in order:
        if ident.startswith(_RUN):
            run = tree.runs[ident[len(_RUN):]]
            view.runs.append(run)
            view.entries.append(("run", run, level))
        else:
            view.entries.append(("agent", chosen[ident], level))
    return view


# -- JSON --------------------------------------------------------------------------------------------


def rows_of(view: AgentsView, env: Env) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for session in view.sessions:
        rows.append({"kind": "session", "session_id": session.session_id,
                     "runs": len(session.runs), "agents": len(session.agents)})
        for kind, payload, _ in session.entries:
            rows.append(run_row(payload, session.session_id, env) if kind == "run"
                        else agent_row(payload, view.with_message, env, view.with_files))
    return rows


def run_row(run: WorkflowRun, session_id: str, env: Env) -> dict[str, Any]:
    return {
        "kind": "run",
        "session_id": session_id,
        "run_id": run.run_id,
        "task_id": run.task_id,
        "workflow_name": run.workflow_name,
        "status": run.status,
        "agent_count": run.agent_count,
        "duration_ms": run.duration_ms,
        "total_tokens": run.total_tokens,
        "total_tool_calls": run.total_tool_calls,
        "default_model": run.default_model,
        **ts_pair("started", run.started, env.tz),
    }


def agent_row(node: AgentNode, with_message: bool, env: Env, with_files: bool = False
              ) -> dict[str, Any]:
    life, link, pending = node.life, node.link, node.life.pending
    row: dict[str, Any] = {
        "kind": "agent",
        "agent_id": node.agent_id,
        "shape": node.shape,
        "parent_session_id": node.parent_session_id,
        "parent_agent_id": link.parent_agent_id,
        "depth": link.depth,
        "spawn_tool_use_id": link.spawn_tool_use_id,
        "spawn_tool": node.spawn_tool,
        "workflow_id": node.workflow_id,
        "agent_type": node.agent_type,
        "name": node.name,
        "team_name": node.team_name,
        "description": node.description,
        "fork_parent_last_uuid": node.fork.parent_last_uuid if node.fork else None,
        "fork_context_length": node.fork.context_length if node.fork else None,
        **ts_pair("trigger", life.trigger, env.tz),
        **ts_pair("started", life.started, env.tz),
        **ts_pair("completed", life.completed, env.tz),
        **ts_pair("last_activity", life.last_activity, env.tz),
        "duration": life.duration,
        "status": life.status,
        "pending_tool_use_id": pending.tool_use_id if pending else None,
        "pending_tool_name": pending.tool_name if pending else None,
        "pending_classification": pending.classification if pending else None,
        **ts_pair("pending_since", pending.since if pending else None, env.tz),
        "skipped_lines": node.skipped_lines,
    }
    if node.shape == SHAPE_TEAMMATE:
        row["control_hint"] = TEAMMATE_HINT_JSON
    if with_message:
        row["returned_message"] = node.returned_message
        row["returned_message_source"] = node.returned_source
    if with_files:
        row["files_changed"] = [{"path": c.path, "op": c.op, "is_create": c.is_create}
                                for c in node.files_changed or ()]
    return row


# -- text --------------------------------------------------------------------------------------------


def render_text(out: TextIO, view: AgentsView, env: Env) -> None:
    w = out.write
    if not view.agent_count:
        w("no subagents found\n")
        return
    for i, session in enumerate(view.sessions):
        if view.single:
            for node in session.agents:
                _node_block(out, node, 1, view, env)
            continue
        if i:
            w("\n")
        w("SESSION  ")
        paint(out, session.session_id, "id")
        w("\n")
        for kind, payload, level in session.entries:
            if kind == "run":
                _run_block(w, payload)
            else:
                _node_block(out, payload, level + 1, view, env)
    kinds = ",".join(view.shapes) if view.shapes else "all"
    w(f"\n{view.agent_count} subagent(s)  ·  kind={kinds}  ·  window-axis={view.order_by}\n")
    if view.has_teammate:
        w("\n" + "\n".join(TEAMMATE_HINT_TEXT) + "\n")


def _run_block(w: Callable[[str], object], run: WorkflowRun) -> None:
    head = f"  WORKFLOW  {run.run_id}"
    if run.workflow_name:
        head += f"  [{run.workflow_name}]"
    if run.status:
        head += f"  {run.status}"
    w(head + "\n")
    if run.agent_count is not None:
        w(f"      agents     {run.agent_count}\n")
    if run.duration_ms is not None:
        w(f"      duration   {seconds_label(run.duration_ms // 1000)}\n")
    if run.total_tokens is not None:
        w(f"      tokens     {run.total_tokens}\n")
    if run.default_model:
        w(f"      model      {run.default_model}\n")


def _node_block(out: TextIO, node: AgentNode, depth: int, view: AgentsView,
                env: Env) -> None:
    w = out.write
    ind, ind2 = "  " * depth, "  " * (depth + 1)
    life, pending = node.life, node.life.pending
    w(ind)
    paint(out, node.agent_id, "id")
    head = f"  {node.shape}"
    if node.workflow_id:
        head += f"  ({node.workflow_id})"
    if node.agent_type:
        head += f"  [{node.agent_type}]"
    w(f"{head}  {life.status}\n")
    if pending is not None:
        w(f"{ind2}PENDING    {pending.classification} · {pending.tool_name} "
          f"({pending.tool_use_id}) · frozen since {text_ts(pending.since, env.tz)}\n")
        if pending.classification == ESCALATION_BLOCKED:
            w(f"{ind2}           {HELD_EXPLANATION}\n")
    if node.team_name:
        w(f"{ind2}team       {node.team_name}" + (f"  (@{node.name})" if node.name else "") + "\n")
    if node.description:
        w(f"{ind2}desc       {one_line(node.description)}\n")
    if node.fork is not None:
        w(f"{ind2}forked-at  {node.fork.parent_last_uuid or '—'}"
          f" (context {node.fork.context_length if node.fork.context_length is not None else '?'})\n")
    w(f"{ind2}triggered  {text_ts(life.trigger, env.tz)}\n")
    w(f"{ind2}started    {text_ts(life.started, env.tz)}\n")
    if life.completed is not None:
        w(f"{ind2}completed  {text_ts(life.completed, env.tz)}\n")
        if life.duration is not None:
            w(f"{ind2}duration   {life.duration}\n")
    elif pending is None:
        w(f"{ind2}last-seen  {text_ts(life.last_activity, env.tz)}\n")
    if view.with_message:
        if node.returned_message is not None and node.returned_source is not None:
            source = (node.returned_source if not _history(life.status, life.completed,
                                                           node.returned_source)
                      else f"{node.returned_source} · {HISTORY_BRAND}")
            preview = excerpt(node.returned_message, RETURNED_PREVIEW_CHARS)[0]
            w(f"{ind2}returned   ({source}) {preview}\n")
        else:
            w(f"{ind2}returned   (unresolved)\n")
    if view.with_files:
        from pysift.engines.files import OP_LABELS

        changes = node.files_changed or []
        if not changes:
            w(f"{ind2}files      (none)\n")
        else:
            w(f"{ind2}files      {len(changes)} changed\n")
            for change in changes:
                tag = "create" if change.is_create else OP_LABELS.get(change.op, change.op)
                w(f"{ind2}  {tag:<12} ")
                paint(out, change.path, "path")
                w("\n")
    if node.skipped_lines:
        w(f"{ind2}note     {node.skipped_lines} malformed line(s) skipped (among the head/tail "
          "lines read — full census: pysift stats)\n")
