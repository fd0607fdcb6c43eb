"""``pysift status``: parse the flags, run commands.status, emit.

No typer at import: ``execute`` is what ``cli.fastpath`` runs; ``declare`` puts the command
on the typer tree (``cli.app.register``).
"""


from typing import TYPE_CHECKING, Any

from pysift.cli.emit import emit
from pysift.cli.options import RootContext, scope_args

if TYPE_CHECKING:  # loaded by declare, the typer side, only
    import typer

STATUS_HELP = """Is that session still working, blocked on a human, or done? One verdict
about NOW for exactly one session, from a three-way join: the harness registry
(<claude-home>/sessions/<pid>.json: busy | shell | idle | waiting, written on transitions
only), the transcript's tail (an unanswered call = a tool in flight; the last stop_reason),
and the owner process (its pid alive, and still the same process: the start time guards
against pid reuse; a row from another machine or pid namespace is never probed).

Verdicts, in precedence order: stale-dead (the owner process is gone) > waiting-hitl (a
question, a permission or plan dialog: registry waiting, the elicitation sidecar, an
unanswered AskUserQuestion/ExitPlanMode) > running (a call in flight, or registry busy) >
waiting-children (a subagent lane in flight or generating, a workflow agent started
without a result) > idle-background-open (the turn ended but background tasks the lens
counts have not returned) > idle-eot (the turn ended) > unknown. Every verdict comes
with the evidence rows it rests on, and every surface that could not be read is said.

Also shown: children (live lanes, settled ones folded to a count), the harness task list,
background tasks (backgrounded shells, async agents, Monitor arms: open ones listed,
closed ones counted), and the last human and assistant messages as 400-character
excerpts. An excerpt is a partial view of the final state, never a review of the work.

NOT RETURNED IS NOT PROOF OF RUNNING: a UI stop, a Monitor timeout or an agent teardown
leaves no transcript marker. The lens decides which open tasks count toward the verdict
(every task is still listed): --background-since WHEN (only tasks launched at or after
WHEN; `now` = this command's start) and --ignore-background RE (not tasks whose
description or command matches; repeatable).

Point-in-time and not reproducible, by design. TARGET: exactly one session: @<uuid> or a
prefix, @main, @<agent-id> (a subagent: its own tail, its parent's process), a session's
.jsonl, or a project path holding one session."""

STATUS_EPILOG = """\b
EXAMPLES
  pysift status @3f6c1e2a                       # is it done?
  pysift status @main --format json | jq -r 'select(.kind=="summary").verdict'
  pysift status @3f6c1e2a --ignore-background 'npm run dev'   # a dev server never returns
  pysift status @3f6c1e2a --background-since 10m              # only tasks launched lately
  pysift status @a4f1c9e27b3d8a605               # one subagent lane

\b
JSON (--format json, one object per line)
  {"kind":"header","command":"status","session_id","is_subagent","parent_session_id"}
  {"kind":"verdict","verdict":"running|waiting-children|waiting-hitl|
   idle-background-open|idle-eot|stale-dead|unknown",
   "evidence":[{"surface":"registry|pid|tail|children|sidecar|background","value",
                "age_secs"}],
   "children":[{"session_id","state":"in-flight|generating","detail"}],
   "settled_children":N,
   "tasks":[{"id","subject","status","blocked_by":[..]}] | null, "tasks_completed":N|null,
   "pending":["AskUserQuestion"|"ExitPlanMode"|"mcp-elicitation"],
   "background":{"open","ignored","completed","failed","killed","stopped","timed_out",
     "scanned_files","tasks":[{"kind":"shell|agent|monitor","id","tool_use_id","lane",
     "state","description","command","launched_utc","launched_local","age_secs",
     "output_file","output_bytes","output_age_secs","ignored_by"}],"notes":[..]},
   "last":{"user":{"ts_utc","ts_local","text","truncated"}|null,"agent":{..}|null},
   "tail_state","notes":[..]}
  {"kind":"summary","verdict"}
  every summary also holds "unreadable": N, the files and dirs that exist but could
   not be read (each named in a stderr warning)

\b
NOTES
  tasks is null when the session has no task directory, [] when it has an empty one;
  children lists live lanes only (settled_children counts the rest).
  A registry row is written on status TRANSITIONS only: an old age means unchanged.
  shell = idle with a background shell open, never a running shape; a `claude -p`
  session's row has status null and never transitions.
  A pending permission prompt leaves no transcript trace: only a current registry row
  (status waiting) shows it; the notes say which status the row carries.
  A Stop hook that runs, or that blocked and sent the agent back to work, reads running;
  builds after ~2.1.4x write nothing while one runs, so without a registry row (or with
  a `claude -p` one) the turn's end_turn reads idle-eot until the hook's reason lands.
  Their per-hook attachments (hook_success, hook_non_blocking_error, ...) are written
  when a hook has RETURNED, and IDE, desktop and SDK sessions write the stop_hook_summary
  only with the next prompt: an attachment without a summary is a finished turn there,
  never read as a running hook. A subagent lane's SubagentStop hook is read the same way
  (in-flight while it runs, generating after a block) until its return is reported.
  Sessions without a registry row (older builds, a copied home) are judged from the
  transcript alone, and the notes say so."""


def build_lens(env: Any, since: str | None, ignore: list[str] | None) -> Any:
    """The background lens from ``--background-since`` / ``--ignore-background``."""
    from pysift.live.background import Lens

    when = None
    if since is not None:
        from pysift.core.grammar.when import parse_when

        when = parse_when(since, env.now(), env.tz, flag="--background-since")
    patterns = []
    if ignore:
        from pysift.live.conditions import compile_exact

        patterns = [(raw, compile_exact(raw, "--ignore-background"))
                    for raw in dict.fromkeys(ignore)]
    return Lens(since=when, since_raw=since, ignore=tuple(patterns))


def execute(ctx: RootContext, targets: list[str] | None, background_since: str | None,
            ignore_background: list[str] | None, subagents: bool, fmt: str) -> None:
    """The command once its options are read (by typer, or by ``cli.fastpath``)."""
    scope, env = scope_args(ctx, targets=targets, subagents=subagents, fmt=fmt)
    from pysift.commands.status import StatusOptions, run

    opts = StatusOptions(scope=scope, lens=build_lens(env, background_since, ignore_background))
    emit(run(opts, env), fmt)


def declare(app: "typer.Typer") -> None:
    """Register the command on the typer tree (typer is loaded here, not at import)."""
    import typer

    from pysift.cli.params import BackgroundSince, Format, IgnoreBackground, Subagents, Targets

    @app.command("status", help=STATUS_HELP, epilog=STATUS_EPILOG)
    def status_cmd(
        ctx: typer.Context,
        targets: Targets = None,
        background_since: BackgroundSince = None,
        ignore_background: IgnoreBackground = None,
        subagents: Subagents = True,
        fmt: Format = "text",
    ) -> None:
        execute(ctx, targets, background_since, ignore_background, subagents, fmt)
