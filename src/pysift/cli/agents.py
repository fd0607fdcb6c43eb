"""``pysift agents``: parse the flags, run commands.agents, emit.

No typer at import: ``execute`` is what ``cli.fastpath`` runs; ``declare`` puts the command
on the typer tree (``cli.app.register``).
"""


from typing import TYPE_CHECKING

from pysift.cli.emit import emit
from pysift.cli.options import RootContext, bad_parameter, one_of, scope_args

if TYPE_CHECKING:  # loaded by declare, the typer side, only
    import typer

SHAPE_CHOICES = ("builtin-task", "workflow", "teammate")
ORDER_CHOICES = ("trigger", "start", "completion")

AGENTS_HELP = """Show the subagents a session spawned, as a tree: each subagent under the
Task/Agent/Workflow call that spawned it (a nested agent under the agent that spawned it,
a workflow's agents under their run), with its lifecycle: when it was triggered (the
spawning call's instant), started and completed, its status, and where a lane is stuck.

Shapes (where the transcript lies): builtin-task <session>/subagents/agent-<id>.jsonl;
workflow <session>/subagents/workflows/wf_<id>/agent-<id>.jsonl; teammate (a builtin
location whose meta.json says in_process_teammate; its id is aName-<hex>). Old-layout
agent-<id>.jsonl files beside the sessions are builtin-task lanes of the session their
records name.

Links, strongest first: the meta.json toolUseId; a spawn call whose result names the
agent (the `agentId:` line, toolUseResult.agentId); the teammate name; the Workflow call
that launched the run; the spawn prompt the lane opened on. The parent agent is the
meta.json parentAgentId, else whoever issued the call. What cannot be joined (a
meta.json that is not JSON, a spawn id found nowhere, a parent cycle) is said on stderr
and the lane is listed all the same.

Status: completed when a workflow journal holds a result for the lane, or when the
lane's last word is the agent's visible text; running when it is not (a lane FROZEN on
an unanswered call says PENDING: escalation-blocked when Claude Code holds the Bash
command for a human yes, awaiting-execution otherwise), or while a SubagentStop hook
holds the end of its turn and no return of it is written (read as `pysift status` reads
it); unknown without a timestamp. Running is read from the transcripts alone: no process
is probed, so `pysift status @<session>` says whether the session still runs.

TARGET: @<uuid> (one session), a project path or encoded dir (every session of it),
@<agent-id> (that agent and its descendants), @main, a *.jsonl file; none: every
project. --since/--until bound the --order-by axis, which also orders the tree."""

AGENTS_EPILOG = """\b
EXAMPLES
  pysift agents @3f6c1e2a                           # one session's subagent tree
  pysift agents .                                   # every session of this project
  pysift agents . --shape workflow                  # workflow agents only
  pysift agents @3f6c1e2a --since 2h                # TRIGGERED in the last two hours
  pysift agents @3f6c1e2a --order-by completion --since 2026-10-06T08:00  # finished since
  pysift agents @3f6c1e2a --returned-message        # what each lane handed back
  pysift agents --agent a4f1c9e27b3d8a605           # one lane: its node and its message
  pysift agents @3f6c1e2a --with-files              # what each lane changed on disk
  pysift agents . --format json | jq 'select(.kind=="agent" and .status=="running")'

\b
JSON (--format json, one object per line; rows in tree pre-order)
  {"kind":"header","command":"agents"}
  {"kind":"session","session_id","runs":N,"agents":N}
  {"kind":"run","session_id","run_id","task_id","workflow_name","status","agent_count",
   "duration_ms","total_tokens","total_tool_calls","default_model","started_utc",
   "started_local"}                          (then the run's agents)
  {"kind":"agent","agent_id","shape","parent_session_id","parent_agent_id","depth",
   "spawn_tool_use_id","spawn_tool","workflow_id","agent_type","name","team_name",
   "description","fork_parent_last_uuid","fork_context_length","trigger_utc",
   "trigger_local","started_utc","started_local","completed_utc","completed_local",
   "last_activity_utc","last_activity_local","duration","status","pending_tool_use_id",
   "pending_tool_name","pending_classification","pending_since_utc","pending_since_local",
   "skipped_lines"  (+ "control_hint" on a teammate; + "returned_message",
   "returned_message_source" with --returned-message or --agent; + "files_changed":
   [{"path","op","is_create"}] with --with-files)}
  {"kind":"summary","sessions":N,"runs":N,"agents":N}
  every summary also holds "unreadable": N, the files and dirs that exist but could
   not be read (each named in a stderr warning)

\b
NOTES
  Nesting is text-only: rebuild the tree from parent_agent_id and depth; a lane no root
  reaches (a parent cycle) comes after the tree, never dropped.
  completed_utc and duration (trigger to completion) are set only when status is
  completed; last_activity_utc is the newest record of every lane (a frozen lane's
  freeze instant). --order-by completion orders and windows on completed_utc: a lane
  that has not completed sorts after the completed ones and --since/--until never
  admit it (the default view, or --format json | jq on status, shows those lanes).
  A workflow agent's trigger is its own start; its spawn_tool_use_id is the Workflow
  call that launched its run. A run's status is its manifest's own word (an open set).
  awaiting-execution means slow, wedged or abandoned: the transcript cannot tell them
  apart, and a lane pending for hours is most likely an abandoned session; weigh
  pending_since yourself.
  returned_message is what the ORCHESTRATOR recorded (sync-tool-result: the spawn
  call's result; async-child-tail: the lane's newest text, when the call only launched
  it; workflow-journal: the journal's result payload). On a lane that is not completed
  it predates the open work (the text brands it). The lane's own last words: pysift
  show @<agent-id> --turn -1.
  skipped_lines counts malformed lines among the head/tail lines read (full census:
  pysift stats @<agent-id>).
  files_changed is one entry per (path, op) the lane's own transcript changed, as
  `pysift files @<agent-id>` finds them (Bash rows are heuristic; op as files spells it).
  --agent is a direct lookup (an id or a unique prefix): it ignores --shape,
  --agent-type and the window; an id that matches nothing is an error."""


def _check_choice(value: str, choices: tuple[str, ...], flag: str) -> str:
    return one_of(value, choices, flag)


def execute(ctx: RootContext, targets: list[str] | None, shape: list[str] | None,
            agent_type: list[str] | None, since: str | None, until: str | None, order_by: str,
            agent: list[str] | None, returned_message: bool, with_files: bool,
            sessions_from: list[str] | None, subagents: bool | None, fmt: str) -> None:
    """The command once its options are read (by typer, or by ``cli.fastpath``)."""
    if agent is not None and len(agent) > 1:  # click kept the last one: a lane dropped
        raise bad_parameter(
            f"takes one agent id, got {len(agent)} ({', '.join(agent)}); run once per lane, "
            "or target their session (@<uuid>) with --returned-message", param_hint="--agent")
    shapes = tuple(_check_choice(s, SHAPE_CHOICES, "--shape") for s in shape or ())
    _check_choice(order_by, ORDER_CHOICES, "--order-by")
    if subagents is not None:
        from pysift.errors import UsageError

        raise UsageError(
            f"agents takes no --{'' if subagents else 'no-'}subagents: it lists a session's "
            "subagents itself; target the session (@<uuid>) or one agent (@<agent-id>)")
    scope, env = scope_args(ctx, targets=targets, sessions_from=sessions_from, fmt=fmt,
                            since=since, until=until)
    from pysift.commands.agents import AgentsOptions, run

    opts = AgentsOptions(
        scope=scope,
        shapes=tuple(dict.fromkeys(shapes)),
        agent_types=tuple(dict.fromkeys(agent_type or ())),
        order_by=order_by,
        agent=agent[0] if agent else None,
        returned_message=returned_message,
        with_files=with_files,
    )
    emit(run(opts, env), fmt)


def declare(app: "typer.Typer") -> None:
    """Register the command on the typer tree (typer is loaded here, not at import)."""
    from typing import Annotated, Optional

    import typer

    from pysift.cli.params import Format, SessionsFrom, Targets, complete_choices

    @app.command("agents", help=AGENTS_HELP, epilog=AGENTS_EPILOG)
    def agents_cmd(
        ctx: typer.Context,
        targets: Targets = None,
        shape: Annotated[Optional[list[str]], typer.Option("--shape", metavar="SHAPE",
            autocompletion=complete_choices(*SHAPE_CHOICES),
            help="Only this transcript shape: builtin-task, workflow or teammate (repeatable).")] = None,
        agent_type: Annotated[Optional[list[str]], typer.Option("--agent-type", metavar="TYPE",
            help="Only lanes of this agent type, exact (repeatable; `fork` lists /fork clones).")] = None,
        since: Annotated[Optional[str], typer.Option("--since", metavar="WHEN",
            help="Only lanes whose --order-by instant is at or after WHEN (ISO, date, 2h, 3d).")] = None,
        until: Annotated[Optional[str], typer.Option("--until", metavar="WHEN",
            help="Only lanes whose --order-by instant is at or before WHEN.")] = None,
        order_by: Annotated[str, typer.Option("--order-by", metavar="trigger|start|completion",
            autocompletion=complete_choices(*ORDER_CHOICES),
            help="The axis that orders the tree and bounds --since/--until.")] = "trigger",
        agent: Annotated[Optional[list[str]], typer.Option("--agent", metavar="ID",
            help="One lane by its agent id (or a unique prefix), with its returned message.")] = None,
        returned_message: Annotated[bool, typer.Option("--returned-message",
            help="Add each lane's returned message (three-way resolved, source-tagged).")] = False,
        with_files: Annotated[bool, typer.Option("--with-files",
            help="Add each lane's files-changed list (the files extractors over its transcript).")] = False,
        sessions_from: SessionsFrom = None,
        subagents: Annotated[Optional[bool], typer.Option("--subagents/--no-subagents",
            hidden=True)] = None,
        fmt: Format = "text",
    ) -> None:
        execute(ctx, targets, shape, agent_type, since, until, order_by, agent,
                returned_message, with_files, sessions_from, subagents, fmt)
