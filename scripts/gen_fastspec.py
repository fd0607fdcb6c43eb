#!/usr/bin/env python3
"""Write ``src/pysift/cli/fastspec.py``: what ``cli.fastpath`` needs to read a line of a
hot command without typer, taken from the typer tree itself (every option's spellings,
whether it takes a value, repeats or converts, every default), so the two cannot drift:
``tests/cli/test_fastpath.py`` regenerates it and fails when the file differs.

A parameter of a kind the fast path does not read (a callback, an eager flag, an
environment variable, an optional value, a required option, a computed default, a
repeatable flag, a converter other than ``whole_number``), or a command whose parser
settings are not click's defaults, stops the generation: teach ``cli.fastpath`` that kind first, or take the command out of FAST.

Usage: python scripts/gen_fastspec.py [--check]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generated_file import write_or_check  # noqa: E402 - the scripts dir, put on the path above

REPO = Path(__file__).resolve().parents[1]
TARGET = REPO / "src" / "pysift" / "cli" / "fastspec.py"
# The commands a plain line of runs without typer: the ones a hook or an agent calls
# over and over, where the framework's ~50 ms is a large share of the run.
FAST = ("list", "search", "show", "stats", "agents", "whoami", "files", "recover", "plan",
        "verbatim", "image", "status")


def command_spec(name: str, command: Any) -> dict[str, Any]:
    """The fast path's reading of one click command."""
    import click

    from pysift.cli.params import whole_number

    arguments: list[tuple[str, int, Any]] = []
    values: dict[str, str] = {}
    flags: dict[str, tuple[str, bool]] = {}
    multiple: list[str] = []
    integers: list[str] = []
    defaults: dict[str, Any] = {}
    settings = command.context_settings or {}
    if (command.ignore_unknown_options or command.allow_extra_args
            or not command.allow_interspersed_args or settings.get("token_normalize_func")
            or settings.get("auto_envvar_prefix")):
        raise SystemExit(f"{name}: a command whose parser is not click's default")
    for param in command.params:
        where = f"{name} {param.name}"
        if callable(param.default) or param.required:
            raise SystemExit(f"{where}: a required option or a computed default")
        if param.callback is not None or param.is_eager or getattr(param, "envvar", None):
            raise SystemExit(f"{where}: a callback, eager or environment parameter")
        if not param.expose_value:
            raise SystemExit(f"{where}: a parameter not passed to the command")
        if isinstance(param, click.Argument):
            if param.nargs not in (1, -1) or param.required:
                raise SystemExit(f"{where}: an argument of {param.nargs} values or required")
            arguments.append((param.name, param.nargs, param.default))
            continue
        if param.nargs != 1 or getattr(param, "count", False) or param._flag_needs_value:  # type: ignore[attr-defined]
            raise SystemExit(f"{where}: not a plain option")
        if param.is_flag:  # type: ignore[attr-defined]
            if not isinstance(param.type, click.types.BoolParamType) or param.multiple:  # type: ignore[attr-defined]
                raise SystemExit(f"{where}: a flag that is no boolean")
            for opt in param.opts:
                flags[opt] = (param.name, True)
            for opt in param.secondary_opts:
                flags[opt] = (param.name, False)
        else:
            if isinstance(param.type, click.types.FuncParamType):
                if param.type.func is not whole_number:
                    raise SystemExit(f"{where}: a converter the fast path does not know")
                integers.append(param.name)
            elif not isinstance(param.type, click.types.StringParamType):
                raise SystemExit(f"{where}: a {type(param.type).__name__} value")
            for opt in param.opts:
                values[opt] = param.name
            if param.multiple:  # type: ignore[attr-defined]
                multiple.append(param.name)
        defaults[param.name] = param.default
    if [nargs for _, nargs, _ in arguments].count(-1) > 1 or (
            arguments and -1 in [n for _, n, _ in arguments[:-1]]):
        raise SystemExit(f"{name}: a variadic argument before the last")
    return {"module": f"pysift.cli.{command_module(name)}", "arguments": tuple(arguments),
            "values": values, "flags": flags, "multiple": tuple(multiple),
            "integers": tuple(integers), "defaults": defaults}


def command_module(name: str) -> str:
    from pysift.cli.dispatch import COMMAND_MODULES

    return COMMAND_MODULES[name]


def render() -> str:
    """The text of ``fastspec.py`` for the tree as it is now."""
    import typer.main

    from pysift.cli import app as tree

    tree.register(FAST)
    root = typer.main.get_command(tree.app)
    if {"auto_envvar_prefix", "token_normalize_func"} & set(root.context_settings or {}):
        raise SystemExit("the root's context settings change how options are read")
    lines = [
        '"""What cli.fastpath reads a line of a hot command by, taken from the typer tree.',
        "",
        "GENERATED by scripts/gen_fastspec.py: do not edit; run it after changing an option of",
        f"{', '.join(FAST)} (tests/cli/test_fastpath.py fails until then).",
        '"""',
        "",
        "from typing import Any",
        "",
        "COMMANDS: dict[str, dict[str, Any]] = {",
    ]
    for name in FAST:
        spec = command_spec(name, root.commands[name])  # type: ignore[attr-defined]
        lines.append(f"    {name!r}: {{")
        for key, value in spec.items():
            if isinstance(value, dict) and value:  # one entry a line
                lines.append(f"        {key!r}: {{")
                lines.extend(f"            {k!r}: {v!r}," for k, v in value.items())
                lines.append("        },")
            else:
                lines.append(f"        {key!r}: {value!r},")
        lines.append("    },")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> int:
    return write_or_check(TARGET, render(), "gen_fastspec.py")


if __name__ == "__main__":
    sys.exit(main())
