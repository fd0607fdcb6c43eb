"""``pysift whoami``: parse the flags, run commands.whoami, emit.

No typer at import: ``execute`` is what ``cli.fastpath`` runs; ``declare`` puts the command
on the typer tree (``cli.app.register``).
"""


from typing import TYPE_CHECKING

from pysift.cli.emit import emit
from pysift.cli.options import RootContext, build_env, check_format

if TYPE_CHECKING:  # loaded by declare, the typer side, only
    import typer

WHOAMI_HELP = """Identify the CALLING Claude Code session and its transcript, false-positive
safe: the id comes from $CLAUDE_CODE_SESSION_ID (exact name; $CODEX_COMPANION_SESSION_ID
only as the fallback alias), the file from the encoded cwd's project dir, else from
scanning every project dir. With neither variable set it is an error with the way forward:
pysift never guesses from file mtimes or process trees (many sessions may be live).

Claude Code puts the TOP-LEVEL session id in EVERY lane's environment, subagents
included, so the env form cannot say which lane is asking: its is_subagent,
parent_session_id and depth are null and a stderr note says so. A SUBAGENT names itself
with @trap:<marker>: invent a marker (exactly 3 CamelCase words + 4 non-trivial digits),
put it LITERALLY in the command, and pysift finds the transcript whose shell call carries
it, then walks up the spawn links to the top-level root (self first, depth 0). @main is
the env form. No other target is accepted (inspect other sessions with list)."""

WHOAMI_EPILOG = """\b
EXAMPLES
  pysift whoami                                  # the calling session (env), lane unknown
  pysift whoami @main                            # the same, named explicitly
  pysift whoami @trap:<YourOwnMarker1739>        # a subagent: which transcript am I?
  pysift whoami --format json | jq -r 'select(.kind=="identity").path'
  pysift show "@$(pysift whoami --format json | jq -r 'select(.kind=="identity").session_id')" --turn -1

\b
JSON (--format json, one object per line)
  {"kind":"header","command":"whoami"}
  {"kind":"identity","session_id","is_subagent","parent_session_id","depth","path"}
     env form: exactly one row; is_subagent, parent_session_id, depth are null
     @trap form: one row per ancestry link, self first (depth 0) ... top-level root last
  {"kind":"summary","identities":N}
  every summary also holds "unreadable": N, the files and dirs that exist but could
   not be read (each named in a stderr warning)

\b
EXIT
  0 with the id: the variable's value is the answer, found or not (a transcript not
  found reads `<not found …>` on the path line, JSON path null, and a note says where
  it looked); 1 when neither variable is set, the id is not a uuid, or the @trap marker
  is malformed, unseen or ambiguous (each error says what to do next)."""


def execute(ctx: RootContext, token: str | None, fmt: str) -> None:
    """The command once its options are read (by typer, or by ``cli.fastpath``)."""
    check_format(fmt)
    env = build_env(ctx)
    from pysift.commands.whoami import WhoamiOptions, run

    emit(run(WhoamiOptions(token=token), env), fmt)


def declare(app: "typer.Typer") -> None:
    """Register the command on the typer tree (typer is loaded here, not at import)."""
    from typing import Annotated, Optional

    import typer

    @app.command("whoami", help=WHOAMI_HELP, epilog=WHOAMI_EPILOG)
    def whoami_cmd(
        ctx: typer.Context,
        token: Annotated[Optional[str], typer.Argument(metavar="[@main|@trap:MARKER]",
                                                       show_default=False)] = None,
        fmt: Annotated[str, typer.Option("--format", metavar="text|json",
                                         help="Output format.")] = "text",
    ) -> None:
        execute(ctx, token, fmt)
