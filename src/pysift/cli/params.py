"""The typer side of the shared options: the annotated parameters every scoped command
declares alike, their shell completion, the WHEN help section and the integer parser
typer calls. What the options mean once read is ``cli.options`` (no typer there: the
fast path of ``cli.fastpath`` runs it without loading the framework)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

import typer

from pysift.cli.options import integer

if TYPE_CHECKING:
    from collections.abc import Callable

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


def complete_choices(*values: str) -> Callable[[str], list[str]]:
    """Completion for a flag with a closed set of values (``--by``, ``--order-by``)."""

    def complete(incomplete: str) -> list[str]:
        return [value for value in values if value.startswith(incomplete)]

    return complete


def complete_condition(incomplete: str) -> list[str]:
    from pysift.cli.complete import conditions

    return conditions(incomplete)


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
# A pattern given as an option (grep's and ripgrep's -e): one that starts with a dash is
# read as a pattern, never as a flag, and every positional is then a target.
Regexp = Annotated[Optional[str], typer.Option(
    "--regexp", "-e", metavar="PATTERN",
    help="The pattern, for one that starts with a dash (-e -foo); the positionals are "
         "then all targets.")]


# status's and wait's background-task lens
BackgroundSince = Annotated[Optional[str], typer.Option(
    "--background-since", metavar="WHEN",
    help="Count only background tasks launched at or after WHEN (ISO, date, 2h, now).")]
IgnoreBackground = Annotated[Optional[list[str]], typer.Option(
    "--ignore-background", metavar="RE",
    help="Do not count background tasks whose description or command matches RE "
         "(case-sensitive; repeatable).")]


def when_help() -> str:
    """The WHEN section of a command's --help: every form --since/--until take (errors
    name the common ones and point here)."""
    import textwrap

    from pysift.core.grammar.forms import WHEN_FORMS

    body = textwrap.fill(f"Write {WHEN_FORMS}.", width=88, initial_indent="  ",
                         subsequent_indent="  ")
    return f"\b\nWHEN (--since/--until)\n{body}"


def whole_number(text: str) -> int:
    """An integer option's value, read as csift's parser reads one (``integer``)."""
    number = integer(text)
    if number is None:
        raise typer.BadParameter(f"{text!r} is not a valid integer.")
    return number


