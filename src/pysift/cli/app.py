"""The root command tree and the one exception -> exit-code site.

Start-up pays only for typer: every command module imports its engine inside the
command body, so ``pysift --version`` and ``pysift <cmd> --help`` stay cheap.
"""


import os
import sys
from typing import Annotated, Any, Optional

import typer
from typer.core import TyperCommand

try:  # typer >= 0.20 vendors click as typer._click
    from typer._click.exceptions import ClickException  # type: ignore[import-not-found, unused-ignore]
except ImportError:  # pragma: no cover - older typer on top of click
    from click.exceptions import ClickException  # type: ignore[no-redef, unused-ignore]

from pysift import __version__
from pysift.cli.dispatch import (
    COMMAND_MODULES,
    COMPLETE_VAR,
    invoked_command,
    prepared,
    quiet_stdout,
    report_error,
    report_os_error,
    report_usage,
)

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
    from pysift.cli.options import check_color

    ctx.obj = {"claude_home": claude_home, "color": check_color(color),
               "no_cache": no_cache}


class OnceCommand(TyperCommand):
    """A command whose one-value options take one value (SPEC §13): click kept the last
    of several silently, so `list --since A --since B` answered for B alone. The parser
    collects each such option's values and hands the command the one; two or more are
    the usage error naming them all, and so are both halves of a `--x/--no-x` switch.
    A repeatable option (`-t`, `--sessions-from`), a plain flag and the positionals are
    read as click reads them; a line asking for help, and shell completion, are left to
    click as they were."""

    def make_parser(self, ctx: Any) -> Any:
        parser: Any = super().make_parser(ctx)  # click's own parser, its options retuned
        single: dict[str, Any] = {}  # dest -> its parameter, for values and switches alike
        for option in {id(o): o for o in (*parser._long_opt.values(),
                                            *parser._short_opt.values())}.values():
            if option.action == "store":
                option.action = "append"
            elif option.action == "store_const" and getattr(option.obj, "secondary_opts",
                                                            None):
                option.action = "append_const"
            else:
                continue
            single[option.dest] = option.obj
        parse = parser.parse_args

        def parse_args(args: list[str]) -> Any:
            opts, rest, order = parse(args=args)
            lenient = ctx.resilient_parsing or any(p.is_eager for p in order)
            for dest, param in single.items():
                given = opts.get(dest)
                if given is None:
                    continue
                twice = len(set(given)) > 1 if param.is_flag else len(given) > 1
                if twice and not lenient:
                    raise _given_twice(param, given, ctx)
                opts[dest] = given[-1]
            return opts, rest, order

        parser.parse_args = parse_args
        return parser


def _given_twice(param: Any, given: list[Any], ctx: Any) -> Exception:
    if param.is_flag:  # a --x/--no-x switch given as both halves (one repeated is one)
        halves = f"{param.opts[0]}/{param.secondary_opts[0]}"
        return typer.BadParameter("both halves given; pass one", ctx=ctx, param_hint=halves)
    values = ", ".join(v if isinstance(v, str) else " ".join(map(str, v)) for v in given)
    return typer.BadParameter(f"given {len(given)} times ({values}); it takes one value, "
                              "pass one", ctx=ctx, param_hint=max(param.opts, key=len))


_declared: set[str] = set()


def register(names: tuple[str, ...] = tuple(COMMAND_MODULES)) -> None:
    """Register ``names`` (all by default), keeping the tree in SPEC order.

    ``run_tree`` registers only the command on the line when it names one: typer turns
    every registered function into a click command on each run (~3 ms a command), which a
    search that takes 0.4 s notices. Help, typos and bare ``pysift`` get the whole tree.
    A module's import registers its command, or its ``declare(app)`` does (the modules
    ``cli.fastpath`` runs, which load typer only there), once.
    """
    import importlib

    for name in names:
        module = importlib.import_module(f"pysift.cli.{COMMAND_MODULES[name]}")
        declare = getattr(module, "declare", None)
        if declare is not None and name not in _declared:
            _declared.add(name)
            declare(app)
    for info in app.registered_commands:  # every command's one-value options take one
        if info.cls in (None, TyperCommand):  # typer's default, or none given
            info.cls = OnceCommand
    order = {name: i for i, name in enumerate(COMMAND_MODULES)}
    app.registered_commands.sort(key=lambda c: order.get(c.name or "", len(order)))


def main(argv: list[str] | None = None) -> None:
    """A whole run through the typer tree, whatever the line (``cli.dispatch.main`` is the
    console's, which reads a plain line of a hot command without typer)."""
    raw = sys.argv[1:] if argv is None else argv
    if os.environ.get(COMPLETE_VAR):
        _complete()
    run_tree(prepared(raw))


def run_tree(args: list[str]) -> None:
    """Run a normalized argv through the typer tree and exit with its status."""
    from pysift.errors import ExitCode, SiftError

    command = invoked_command(args)
    register((command,) if command is not None else tuple(COMMAND_MODULES))
    try:
        code = app(args=args, prog_name="pysift", standalone_mode=False)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        sys.exit(ExitCode.INTERRUPTED)
    except ClickException as exc:
        report_usage(exc)
        sys.exit(exc.exit_code)
    except SiftError as exc:
        report_error(exc)
        sys.exit(int(exc.exit_code))
    except KeyboardInterrupt:
        sys.exit(ExitCode.INTERRUPTED)
    except BrokenPipeError:
        quiet_stdout()
        sys.exit(0)
    except OSError as exc:  # a read the typed errors did not foresee, or a failed write
        report_os_error(exc)
        sys.exit(int(ExitCode.ERROR))
    sys.exit(code if isinstance(code, int) else 0)


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


