"""The root command tree and the one exception -> exit-code site.

Start-up pays only for typer: every command module imports its engine inside the
command body, so ``pysift --version`` and ``pysift <cmd> --help`` stay cheap.
"""


import os
import sys
from typing import Annotated, Optional

import typer

try:  # typer >= 0.20 vendors click as typer._click
    from typer._click.exceptions import ClickException  # type: ignore[import-not-found, unused-ignore]
except ImportError:  # pragma: no cover - older typer on top of click
    from click.exceptions import ClickException  # type: ignore[no-redef, unused-ignore]

from pysift import __version__
from pysift.cli import argv as argv_mod
from pysift.cli.emit import say

# Help and errors are plain click text (rich_markup_mode=None); typer still escapes the
# "[default: …]" suffix for rich whenever rich is importable, which prints a stray
# backslash. pysift never renders help through rich, so tell typer it is not there.
for _module in ("typer.core", "typer.main"):
    _loaded = sys.modules.get(_module)
    if _loaded is not None and hasattr(_loaded, "HAS_RICH"):
        _loaded.HAS_RICH = False  # type: ignore[attr-defined]

app = typer.Typer(
    name="pysift",
    help=(
        "ripgrep for Claude Code session transcripts: list, search, fetch, count and "
        "reconstruct what Claude Code writes under ~/.claude/projects/**/*.jsonl.\n\n"
        "The Claude home is --claude-home (anywhere on the line), else $CLAUDE_CONFIG_DIR, "
        "else ~/.claude. pysift never writes under it."
    ),
    no_args_is_help=True,
    # --install-completion / --show-completion for bash, zsh and fish (cli/complete.py
    # completes the values: @ targets from the home's sessions, formats, labels, axes)
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)


def _version(value: bool) -> None:
    if value:
        print(f"pysift {__version__}")
        raise typer.Exit(0)


@app.callback()
def root(
    ctx: typer.Context,
    claude_home: Annotated[
        Optional[str],
        typer.Option(
            "--claude-home",
            metavar="DIR",
            help="Claude home to read (default: $CLAUDE_CONFIG_DIR, else ~/.claude). "
            "Accepted anywhere on the command line.",
        ),
    ] = None,
    color: Annotated[
        str,
        typer.Option(
            "--color",
            metavar="WHEN",
            help="Colour text output: auto (when stdout is a terminal and NO_COLOR is unset), "
            "always or never. Accepted anywhere on the command line; JSON and --raw are "
            "never coloured.",
        ),
    ] = "auto",
    version: Annotated[
        bool,
        typer.Option("--version", "-V", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
    no_cache: Annotated[
        bool,
        typer.Option("--no-cache", help="Read every transcript afresh: neither use nor update "
                     "the cache of per-transcript facts (also PYSIFT_NO_CACHE=1; see "
                     "`pysift cache info`). Accepted anywhere on the command line."),
    ] = False,
) -> None:
    from pysift.cli.params import check_color

    ctx.obj = {"claude_home": claude_home, "color": check_color(color),
               "no_cache": no_cache}


# The built commands in SPEC order, each with the module whose import registers it. A
# command that is not built is not registered.
COMMAND_MODULES = {"list": "list_", "search": "search", "show": "show", "stats": "stats",
                   "agents": "agents", "whoami": "whoami", "files": "files",
                   "recover": "recover", "plan": "plan", "verbatim": "verbatim",
                   "image": "image", "status": "status", "wait": "wait",
                   # beyond csift's thirteen (no SPEC order to keep): after them
                   "archive": "archive", "skill": "skill",
                   "cache": "cache"}  # housekeeping, after the commands that read transcripts


def register(names: tuple[str, ...] = tuple(COMMAND_MODULES)) -> None:
    """Register ``names`` (all by default), keeping the tree in SPEC order.

    ``main`` registers only the command on the line when it names one: typer turns every
    registered function into a click command on each run (~3 ms a command), which a
    search that takes 0.4 s notices. Help, typos and bare ``pysift`` get the whole tree.
    """
    import importlib

    for name in names:
        importlib.import_module(f"pysift.cli.{COMMAND_MODULES[name]}")
    order = {name: i for i, name in enumerate(COMMAND_MODULES)}
    app.registered_commands.sort(key=lambda c: order.get(c.name or "", len(order)))


def invoked_command(args: list[str]) -> str | None:
    """The built command a normalized argv runs, if its first word names one."""
    at = argv_mod.globals_end(args)
    word = args[at] if at < len(args) else None
    return word if word in COMMAND_MODULES else None


def main(argv: list[str] | None = None) -> None:
    from pysift.errors import ExitCode, SiftError

    raw = sys.argv[1:] if argv is None else argv
    if os.environ.get(COMPLETE_VAR):
        _complete()
    try:
        args = argv_mod.normalize(raw, _project_dir_probe(raw))
        _check_command_given(args)
    except SiftError as exc:
        _report_error(exc)
        sys.exit(int(exc.exit_code))
    command = invoked_command(args)
    register((command,) if command is not None else tuple(COMMAND_MODULES))
    try:
        code = app(args=args, prog_name="pysift", standalone_mode=False)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        sys.exit(ExitCode.INTERRUPTED)
    except ClickException as exc:
        _report_usage(exc)
        sys.exit(exc.exit_code)
    except SiftError as exc:
        _report_error(exc)
        sys.exit(int(exc.exit_code))
    except KeyboardInterrupt:
        sys.exit(ExitCode.INTERRUPTED)
    except BrokenPipeError:
        _quiet_stdout()
        sys.exit(0)
    except OSError as exc:  # a read the typed errors did not foresee, or a failed write
        _report_os_error(exc)
        sys.exit(int(ExitCode.ERROR))
    sys.exit(code if isinstance(code, int) else 0)


COMPLETE_VAR = "_PYSIFT_COMPLETE"


def _complete() -> None:
    """A shell's completion request (the script typer installs sets ``_PYSIFT_COMPLETE``
    and passes the words in the environment): the whole tree is registered and click's
    completion answers and exits. Descriptions go out as plain text (typer renders them
    through rich when it can import it, which costs ~60 ms a keystroke)."""
    import typer._completion_classes as classes

    classes._sanitize_help_text = lambda text: text
    from pysift.cli.complete import request

    req = request()
    command = req.command(COMMAND_MODULES) if req is not None else None
    register((command,) if command is not None else tuple(COMMAND_MODULES))
    try:
        app(prog_name="pysift")
    except SystemExit:
        raise
    except Exception:  # noqa: BLE001 - a completion never prints a traceback into a prompt
        sys.exit(1)
    sys.exit(0)


def _check_command_given(args: list[str]) -> None:
    """A line naming no command at all (``pysift``, ``pysift --claude-home DIR``) is ONE
    usage line saying so; click printed the whole help flattened into the error line, or
    "Missing command." An empty ``--claude-home`` on such a line is the error named."""
    at = argv_mod.globals_end(args)
    valued = at - 1 if args[at - 1:at] == ["--no-cache"] else at
    given = dict(zip(args[0:valued:2], args[1:valued:2]))
    home = given.get("--claude-home")
    rest = args[at:]
    if rest not in ([], ["--"]):
        return
    if home is not None:
        from pathlib import Path

        from pysift.disk.layout import resolve_home

        resolve_home(home, {}, Path.home())  # raises for an empty value
    from pysift.errors import UsageError

    raise UsageError(f"missing command; run `pysift --help` to see the commands "
                     f"({', '.join(COMMAND_MODULES)})")


def _project_dir_probe(raw: list[str]):  # type: ignore[no-untyped-def]
    """Whether a short ``-xyz`` token names a project dir of the Claude home on the line."""
    def is_project_dir(token: str) -> bool:
        from pathlib import Path

        from pysift.disk.layout import resolve_home
        from pysift.errors import SiftError

        try:
            home = resolve_home(argv_mod.home_flag(raw), os.environ, Path.home())
            return (home / "projects" / token).is_dir()
        except (OSError, SiftError):
            return False
    return is_project_dir


def _report_usage(exc: ClickException) -> None:
    """click's usage errors as ONE line (what is wrong, where the help is), like ours."""
    ctx = getattr(exc, "ctx", None)
    path = ctx.command_path if ctx is not None else "pysift"
    import re

    sentences: list[str] = []
    for sentence in re.split(r"(?<=[.?!])\s+", exc.format_message().replace("\n", " ")):
        sentence = sentence.strip()
        if sentence and sentence not in sentences:  # typer and click both suggest names
            sentences.append(sentence)
    say(f"pysift: error: {' '.join(sentences)} (see `{path} --help`)")


def _report_error(exc: BaseException) -> None:
    """ONE line: the message, then any cause it does not already state, in brackets."""
    line = str(exc)
    cause = exc.__cause__
    while cause is not None:
        told = str(cause)
        reason = getattr(cause, "strerror", None) or told
        if told and told not in line and reason not in line:
            line += f" ({told})"
        cause = cause.__cause__
    say(f"pysift: error: {line}")
    _maybe_traceback(exc)


def os_error_line(exc: OSError) -> str:
    """What failed and what to do, for an OSError no typed error caught: a path that
    cannot be read (a permission, a vanished dir), else the output that cannot be written
    (a full disk, a closed stream)."""
    reason = exc.strerror or str(exc)
    if exc.filename is not None:
        return (f"cannot read {exc.filename}: {reason}; check that it exists and is readable "
                "by this user (pysift only reads the Claude home)")
    return f"cannot write the output: {reason}; check where stdout goes (a full disk?)"


def _report_os_error(exc: OSError) -> None:
    say(f"pysift: error: {os_error_line(exc)}")
    _maybe_traceback(exc)


def _maybe_traceback(exc: BaseException) -> None:
    """The full traceback too, when PYSIFT_TRACEBACK asks for it (debugging pysift)."""
    if os.environ.get("PYSIFT_TRACEBACK"):
        import traceback

        traceback.print_exception(exc)


def _quiet_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass
