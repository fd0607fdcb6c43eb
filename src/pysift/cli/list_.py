"""``pysift list``: parse the flags, run commands.list_, emit.

No typer at import: ``execute`` is what ``cli.fastpath`` runs; ``declare`` puts the command
on the typer tree (``cli.app.register``).
"""


from typing import TYPE_CHECKING

from pysift.cli.emit import emit
from pysift.cli.options import RootContext, scope_args

if TYPE_CHECKING:  # loaded by declare, the typer side, only
    import typer

LIST_HELP = """List sessions: for each transcript, the quick-identity tuple (first and last
human message, last agent message, cwd, branch, Claude Code version), read from the
head and tail of the file only.

With no target every session of every project is listed, capped to the 50 most
recently active (the drop is reported; --max-count 0 lists all). A target (a cwd, an
encoded project dir, @<uuid>, @<prefix>, @main, @<agent-id>, a *.jsonl file) or
--sessions-from lists exactly that scope, uncapped. Subagent transcripts are listed
by default; --no-subagents restricts to top-level sessions."""

LIST_EPILOG = """\b
EXAMPLES
  pysift list                                   # every session, all projects (50 most recent)
  pysift list .                                 # sessions of the current directory's project
  pysift list /home/ada/src/orbit               # a real cwd
  pysift list -home-ada-src-orbit               # a pre-encoded project dir
  pysift list @3f6c1e2a                         # one session by uuid prefix
  pysift list --since 2d --no-subagents         # top-level sessions active in the last 2 days
  pysift list --max-count 0 --format json       # everything, machine-readable
  pysift search deadline -l | pysift list --sessions-from -

\b
JSON (--format json, one object per line)
  {"kind":"header","command":"list","sessions_in_scope":N,"top_level_sessions":N,
   "subagent_sessions":N}
  {"kind":"session","session_id","is_subagent","parent_session_id","path","cwd",
   "version","version_first","version_last","git_branch","git_branch_first",
   "git_branch_last","first_user","last_user","last_agent"  ({excerpt,ts_utc,ts_local}|null),
   "skipped_lines","sidecar_present","pending_elicitations":[...],
   "with_elicitation_sidecar","is_clone","clone_of","clone_boundary_uuid"}
  {"kind":"summary","sessions":N,"skipped_lines":N,"dropped_by_cap":N}
  every summary also holds "unreadable": N, the files and dirs that exist but could
   not be read (each named in a stderr warning)

\b
NOTES
  skipped_lines counts malformed lines among the head/tail lines read (from the start
  through the first human message, from the end back to the older of the last human
  and last agent message); the full census is `pysift stats`. sidecar_present=false means the elicitation hook is not
  installed, so "nothing pending" cannot be concluded."""


def execute(ctx: RootContext, targets: list[str] | None, since: str | None,
            until: str | None, max_count: int | None, subagents: bool,
            sessions_from: list[str] | None, fmt: str) -> None:
    """The command once its options are read (by typer, or by ``cli.fastpath``)."""
    scope, env = scope_args(ctx, targets=targets, subagents=subagents,
                            sessions_from=sessions_from, fmt=fmt, max_count=max_count,
                            since=since, until=until)
    import sys

    from pysift.cli.options import plain_utf8
    from pysift.commands.list_ import ListOptions, run

    options = ListOptions(scope=scope, encoded_rows=fmt == "text" and plain_utf8(sys.stdout))
    emit(run(options, env), fmt)


def declare(app: "typer.Typer") -> None:
    """Register the command on the typer tree (typer is loaded here, not at import)."""
    from typing import Annotated, Optional

    import typer

    from pysift.cli.params import Format, SessionsFrom, Subagents, Targets, when_help, whole_number

    @app.command("list", help=LIST_HELP, epilog=LIST_EPILOG + "\n\n" + when_help())
    def list_cmd(
        ctx: typer.Context,
        targets: Targets = None,
        since: Annotated[Optional[str], typer.Option("--since", metavar="WHEN",
            help="Keep sessions whose activity span reaches after WHEN (ISO, date, 2h, 3d, now).")] = None,
        until: Annotated[Optional[str], typer.Option("--until", metavar="WHEN",
            help="Keep sessions whose activity span starts before WHEN.")] = None,
        max_count: Annotated[Optional[int], typer.Option("--max-count", metavar="N", parser=whole_number,
            help="Cap the rows (0 = uncapped). Default: 50 on an unscoped run, else uncapped.")] = None,
        subagents: Subagents = True,
        sessions_from: SessionsFrom = None,
        fmt: Format = "text",
    ) -> None:
        execute(ctx, targets, since, until, max_count, subagents, sessions_from, fmt)
