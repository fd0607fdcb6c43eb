"""``pysift plan``: parse the flags, run commands.plan, emit.

No typer at import: ``execute`` is what ``cli.fastpath`` runs; ``declare`` puts the command
on the typer tree (``cli.app.register``).
"""


from typing import TYPE_CHECKING

from pysift.cli.emit import emit
from pysift.cli.options import RootContext, scope_args

if TYPE_CHECKING:  # loaded by declare, the typer side, only
    import typer

PLAN_HELP = """Locate the plan file BOUND to a session (this LOCATES the file and says
whether it still exists; `--audit` lists the edits made to plan files).

Two binding laws, in order, never a path guess: the session's `plan_mode` attachment
(written on entering Plan Mode; its planFilePath IS the plan), else Claude Code's own
rule: the FIRST record carrying a valid `slug` binds <plans-dir>/<slug>.md, where
<plans-dir> is plansDirectory from the merged settings (user <claude-home>/settings.json,
then <root>/.claude/settings.json, then <root>/.claude/settings.local.json) resolved
against the session's FIRST recorded cwd and kept only inside it, else
<claude-home>/plans. A session that edits ANOTHER session's plan file does not bind it.

No target means the calling session ($CLAUDE_CODE_SESSION_ID). Subagents are spanned by
default and their own plans flagged (a subagent inherits its parent's slug, so only its
own plan_mode attachment binds it). A bound plan whose file is not written yet shows
[missing]: the name is minted before the file exists. No binding is an honest empty
answer (exit 0)."""

PLAN_EPILOG = """\b
EXAMPLES
  pysift plan                                    # my session's plan (env)
  pysift plan @3f6c1e2a                          # a session and its subagents
  pysift plan . --no-subagents                   # this project's top-level sessions
  pysift plan --reverse ~/.claude/plans/nested-prancing-popcorn.md   # who binds it?
  pysift plan @3f6c1e2a --audit                  # edits to plan files vs their binders
  pysift plan @3f6c1e2a --format json | jq -r 'select(.kind=="plan").plan_file'

\b
JSON (--format json, one object per line)
  {"kind":"header","command":"plan"}                (--audit adds "mode":"audit")
  {"kind":"plan","session_id","is_subagent","parent_session_id","line","plan_file",
   "plan_exists","slug","binding_source":"plan_mode"|"slug-only","minted_at_compaction"}
  {"kind":"summary","plans":N}
  --reverse: the same plan rows, one per binding session.
  --audit: {"kind":"binding", ...the plan-row keys}, {"kind":"plan-edit",
   "owner_session_id","path","mutations","bound_by_owner","binder_session_id",
   "binder_line"}; summary {"bindings","plan_files_touched","warnings","skipped_lines"}
  every summary also holds "unreadable": N, the files and dirs that exist but could
   not be read (each named in a stderr warning)

\b
NOTES
  line is the jsonl line of the binding record. minted_at_compaction is true when the
  slug's first carrier is a compaction boundary (a forked clone's mint site).
  --audit joins Write/Edit/MultiEdit/NotebookEdit calls against every session's binding;
  shell-side edits (sed, redirects) are outside it."""


def execute(ctx: RootContext, targets: list[str] | None, reverse: str | None, audit: bool,
            subagents: bool, sessions_from: list[str] | None, fmt: str) -> None:
    """The command once its options are read (by typer, or by ``cli.fastpath``)."""
    scope, env = scope_args(ctx, targets=targets, subagents=subagents,
                            sessions_from=sessions_from, fmt=fmt)
    from pysift.commands.plan import PlanOptions, run

    emit(run(PlanOptions(scope=scope, reverse=reverse, audit=audit), env), fmt)


def declare(app: "typer.Typer") -> None:
    """Register the command on the typer tree (typer is loaded here, not at import)."""
    from typing import Annotated, Optional

    import typer

    from pysift.cli.params import Format, SessionsFrom, Subagents, Targets

    @app.command("plan", help=PLAN_HELP, epilog=PLAN_EPILOG)
    def plan_cmd(
        ctx: typer.Context,
        targets: Targets = None,
        reverse: Annotated[Optional[str], typer.Option("--reverse", metavar="PLAN_FILE",
            help="Which sessions bind this plan file (scope: every project, or the targets).")]
            = None,
        audit: Annotated[bool, typer.Option("--audit",
            help="Audit the scope's edits to plan files against who binds them.")] = False,
        subagents: Subagents = True,
        sessions_from: SessionsFrom = None,
        fmt: Format = "text",
    ) -> None:
        execute(ctx, targets, reverse, audit, subagents, sessions_from, fmt)
