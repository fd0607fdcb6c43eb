"""A plain line of a hot command (``list``, ``search``, ``stats``), read without typer.

Loading typer and click, and building the command from its annotations, is ~50 ms of every
run: a warm ``stats`` over a big home is ~0.4 s, a hook's search less. The typer tree
stays the definition of the command line; ``cli.fastspec`` is generated from it
(``scripts/gen_fastspec.py``, held current by a test), and this module reads a line by
that spec exactly as click's parser does for the shapes it accepts:

- long options ``--name VALUE`` and ``--name=VALUE``, flags and ``--x/--no-x`` pairs;
- short clusters (``-ic``, ``-tuser``, ``-t user``), a value taking the rest of the token
  or the next one, whatever it looks like;
- ``--`` ending the options, options and positionals interleaved, a repeatable option
  collecting its values in order;
- the global options ``cli.argv.normalize`` put in front.

Everything else is declined (None) and the typer tree reads the line, untouched: an
unknown option, ``--help``, a flag given a value, a value missing at the end, an integer
that does not parse, more positionals than the command takes, a one-value option given
twice or both halves of a ``--x/--no-x`` switch (the tree's usage error names them), a
run asked to warn or to print tracebacks. Declining costs nothing but
the framework's load, since nothing has run yet; a usage error the command's own checks
raise later (a ``--format`` that is no format) is reported as the tree reports it.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from pysift.cli import argv as argv_mod
from pysift.cli.fastspec import COMMANDS


class FastContext:
    """What a command reads of its context: the root's options (``RootContext``)."""

    def __init__(self, obj: dict[str, Any]) -> None:
        self.obj = obj

    def find_root(self) -> FastContext:
        return self


class FastRun:
    """A line read: the command's name, its module's ``execute`` and the values."""

    def __init__(self, command: str, root: dict[str, Any], values: dict[str, Any]) -> None:
        self.command = command
        self.root = root
        self.values = values

    def run(self) -> None:
        """The root callback's check, then the command, as the tree runs them."""
        from pysift.cli import options

        root = dict(self.root)
        root["color"] = options.check_color(root["color"])
        module = importlib.import_module(COMMANDS[self.command]["module"])
        options.fast_root = root
        try:
            module.execute(FastContext(root), **self.values)
        finally:
            options.fast_root = None


def plan(args: list[str]) -> FastRun | None:
    """The run a normalized argv asks for, or None when the typer tree must read it.

    Also None when warnings are asked for (``-W``, ``PYTHONWARNINGS``, dev mode: typer's
    import warns there, and that stderr must not depend on the route) or a traceback is
    (``PYSIFT_TRACEBACK``: the tree's frames, as always)."""
    if sys.warnoptions or sys.flags.dev_mode or os.environ.get("PYSIFT_TRACEBACK"):
        return None
    at = argv_mod.globals_end(args)
    if at >= len(args) or args[at] not in COMMANDS:
        return None
    root = _root(args[:at])
    values = _command(COMMANDS[args[at]], args[at + 1:])
    if root is None or values is None:
        return None
    return FastRun(args[at], root, values)


def _root(tokens: list[str]) -> dict[str, Any] | None:
    """The root callback's values from the global options in front."""
    root: dict[str, Any] = {"claude_home": None, "color": "auto", "no_cache": False}
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token == "--no-cache":
            root["no_cache"] = True
            i += 1
        elif token in ("--claude-home", "--color") and i + 1 < len(tokens):
            root[token[2:].replace("-", "_")] = tokens[i + 1]
            i += 2
        else:
            return None
    return root


def _command(spec: dict[str, Any], tokens: list[str]) -> dict[str, Any] | None:
    """The command's keyword values from its tokens, or None to decline."""
    values_of: dict[str, str] = spec["values"]
    flags: dict[str, tuple[str, bool]] = spec["flags"]
    multiple = spec["multiple"]
    given: dict[str, Any] = {}
    positionals: list[str] = []

    def put(name: str, value: str) -> bool:
        """Take a value; False for a second one of a one-value option (declined)."""
        if name in multiple:
            given.setdefault(name, []).append(value)
        elif name in given:
            return False
        else:
            given[name] = value
        return True

    def switch(name: str, value: bool) -> bool:
        """Set a flag; False when the other half of its switch was given (declined)."""
        if given.setdefault(name, value) != value:
            return False
        return True

    i = 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        if token == "--":
            positionals.extend(tokens[i:])
            break
        if token[:1] != "-" or len(token) == 1:
            positionals.append(token)
        elif token[:2] == "--":
            name, eq, value = token.partition("=")
            if name in values_of:
                if not eq:
                    if i >= len(tokens):
                        return None
                    value = tokens[i]
                    i += 1
                if not put(values_of[name], value):
                    return None
            elif name in flags and not eq:
                if not switch(*flags[name]):
                    return None
            else:
                return None
        else:  # a cluster of short options
            j = 1
            while j < len(token):
                opt = "-" + token[j]
                j += 1
                if opt in flags:
                    if not switch(*flags[opt]):
                        return None
                elif opt in values_of:
                    if j < len(token):
                        value = token[j:]
                    elif i < len(tokens):
                        value = tokens[i]
                        i += 1
                    else:
                        return None
                    if not put(values_of[opt], value):
                        return None
                    break
                else:
                    return None
    return _finish(spec, given, positionals)


def _finish(spec: dict[str, Any], given: dict[str, Any], positionals: list[str]
            ) -> dict[str, Any] | None:
    """The values typer would pass: positionals dealt to the arguments, integers
    converted, defaults for the rest."""
    from pysift.cli.options import integer

    values = dict(spec["defaults"])
    values.update(given)
    for name in spec["integers"]:
        if name in given:
            try:
                number = integer(given[name])
            except ValueError:  # past int()'s digit limit: click's message, from the tree
                return None
            if number is None:
                return None
            values[name] = number
    rest = list(positionals)
    for name, nargs, default in spec["arguments"]:
        if nargs == -1:
            values[name] = rest if rest else default
            rest = []
        else:
            values[name] = rest.pop(0) if rest else default
    if rest:  # more positionals than the command takes: click's error
        return None
    return values
