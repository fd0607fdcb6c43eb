"""Shared option plumbing: building the Env, the format check, --sessions-from reading,
the --since/--until window."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

FORMATS = ("text", "json")


# Shell completion of values (cli/complete.py, imported only while completing).
def complete_targets(ctx: typer.Context, incomplete: str) -> list[tuple[str, str]]:
    from pysift.cli.complete import targets

    return targets(ctx, incomplete)


def complete_format(incomplete: str) -> list[tuple[str, str]]:
    from pysift.cli.complete import formats

    return formats(incomplete)


def complete_label(incomplete: str) -> list[str]:
    from pysift.cli.complete import labels

    return labels(incomplete)


def complete_axis(incomplete: str) -> list[str]:
    from pysift.cli.complete import count_axes

    return count_axes(incomplete)


# The options every spanning command spells the same way (csift's shared surface).
Targets = Annotated[Optional[list[str]], typer.Argument(metavar="[TARGET]...",
                                                        show_default=False,
                                                        autocompletion=complete_targets)]
Subagents = Annotated[bool, typer.Option(
    "--subagents/--no-subagents",
    help="Span subagent transcripts (default) or top-level sessions only.")]
SessionsFrom = Annotated[Optional[list[str]], typer.Option(
    "--sessions-from", metavar="FILE|-",
    help="Union the scope with the ids listed in FILE (or stdin); repeatable.")]
Format = Annotated[str, typer.Option("--format", metavar="text|json", help="Output format.",
                                     autocompletion=complete_format)]


def build_env(ctx: typer.Context) -> Any:
    from pysift.disk.layout import resolve_home
    from pysift.model.env import Env

    root = ctx.find_root()
    flag = (root.obj or {}).get("claude_home") if root.obj else None
    environ = dict(os.environ)
    home = resolve_home(flag, environ, Path.home()).absolute()  # rows print whole paths
    return Env(claude_home=home, environ=environ, cwd=Path.cwd())


def check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise typer.BadParameter(f"'{fmt}' is not one of text, json", param_hint="--format")
    return fmt


def read_sessions_from(values: list[str] | None) -> tuple[str, ...] | None:
    """The ids named by every ``--sessions-from FILE|-`` (None when the flag is absent):
    the lists are a union, as targets are (stdin is read once, however often named)."""
    if not values:
        return None
    from pysift.core.resolve import SESSIONS_FROM_CAP
    from pysift.core.resolve import read_sessions_from as parse

    # capped: a stdin that never ends (`yes |`) is refused past the cap, not read forever
    stdin_text = sys.stdin.read(SESSIONS_FROM_CAP + 1) if "-" in values else None
    ids: list[str] = []
    for value in dict.fromkeys(values):
        ids.extend(parse(value, stdin_text if value == "-" else None))
    return tuple(ids)


def check_max_count(value: int | None) -> None:
    """``--max-count`` is 0 (uncapped) or a positive cap on list, show and stats."""
    if value is not None and value < 0:
        raise typer.BadParameter("must be 0 (uncapped) or a positive count",
                                 param_hint="--max-count")


def parse_window(since: str | None, until: str | None, env: Any) -> tuple[Any, Any]:
    """``--since``/``--until`` as UTC instants against the Env's clock and zone (None when
    absent); a value that is no WHEN is a usage error naming its flag."""
    from pysift.core.grammar.when import parse_when

    now = env.now()
    start = parse_when(since, now, env.tz, flag="--since") if since is not None else None
    end = parse_when(until, now, env.tz, flag="--until") if until is not None else None
    if start is not None and end is not None and start > end:
        from pysift.errors import UsageError

        fine = start.replace(microsecond=0) == end.replace(microsecond=0)

        def instant(text: str, at: Any) -> str:  # fractions only where they tell them apart
            fraction = f".{at.microsecond:06d}".rstrip("0") if fine else ""
            return f"`{text}` ({at.strftime('%Y-%m-%dT%H:%M:%S')}{fraction}Z)"

        raise UsageError(f"the time window is reversed: --since {instant(since, start)} is "
                         f"later than --until {instant(until, end)}; a window runs from "
                         "--since to --until, so swap the two values")
    return start, end
