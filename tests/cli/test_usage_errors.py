"""A usage error is ONE stderr line naming the problem and the help to read, exit 2."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(("args", "needle"), [
    (("list", "--bogus"), "No such option '--bogus'"),
    (("lsit",), "Did you mean 'list'?"),
    (("search", "x", "--max-count", "abc"), "'abc' is not a valid integer"),
    (("list", "--format", "yaml"), "'yaml' is not one of text, json"),
])
def test_usage_errors_are_one_line_with_the_help_to_read(cli, args, needle) -> None:
    result = cli(*args)
    assert result.code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("pysift: error: ") and needle in lines[0]
    assert "--help`" in lines[0]
    assert lines[0].count("Did you mean") <= 1


@pytest.mark.parametrize("command", [("list",), ("search", "x"), ("stats",)])
@pytest.mark.parametrize("flag", ["--since", "--until"])
def test_an_empty_time_is_a_usage_error_not_an_absent_filter(cli, demo_home, command,
                                                             flag) -> None:
    """`--since ""` ran unfiltered, exit 0, while `--until " "` was refused."""
    result = cli("--claude-home", str(demo_home), *command, flag, "")
    assert result.code == 2
    assert result.stderr.startswith(f"pysift: error: {flag}: cannot read `` as a time")


@pytest.mark.parametrize("value", ["1_0", " 3", "3 ", "\u0663", "\uff13", "0x3", "3.0", ""])
@pytest.mark.parametrize("command", [("list",), ("search", "x"), ("show", "@x"), ("stats",),
                                     ("wait", "@x", "--timeout", "1")])
def test_an_integer_is_a_sign_and_ascii_digits_only(cli, demo_home, command, value) -> None:
    """csift parses a count as Rust does: `1_0`, a padded ` 3` and the digits of other
    scripts were read by Python's `int` as 10 and 3; each is now the usage error an `x`
    gets, before anything is read."""
    flag = "--interval" if command[0] == "wait" else "--max-count"
    result = cli("--claude-home", str(demo_home), *command, flag, value)
    assert result.code == 2, result.stderr
    assert result.stdout == ""
    assert f"Invalid value for '{flag}': {value!r} is not a valid integer." in result.stderr


@pytest.mark.parametrize("value", ["+2", "2", "-2", "02"])
def test_a_signed_count_still_reads(cli, demo_home, value) -> None:
    result = cli("--claude-home", str(demo_home), "search", "the", "--max-count", value, "-c")
    assert result.code == 0, result.stderr


# -- a one-value option takes one value (SPEC §13) ----------------------------------------------


def _tree_options() -> list[tuple[str, str, bool]]:
    """``(command, option, is a --x/--no-x switch)`` for every option of every command of
    the tree that takes one value, and every switch: what a second value must refuse."""
    import click
    import typer.main

    from pysift.cli import app as tree

    tree.register()
    root = typer.main.get_command(tree.app)
    found = []
    for name, command in root.commands.items():  # type: ignore[attr-defined]
        for param in command.params:
            if not isinstance(param, click.Option) or param.multiple or param.count:
                continue
            if param.is_flag and param.secondary_opts:
                found.append((name, param.opts[0], True))
            elif not param.is_flag:
                found.append((name, max(param.opts, key=len), False))
    return found


ONE_VALUE = _tree_options()


def test_every_command_is_walked() -> None:
    from pysift.cli.dispatch import COMMAND_MODULES

    named = {command for command, _, _ in ONE_VALUE}
    assert named == set(COMMAND_MODULES) - {"skill"}  # skill takes no option at all
    assert ("list", "--since", False) in ONE_VALUE and ("search", "--regexp", False) in ONE_VALUE


@pytest.mark.parametrize(("command", "option", "switch"), ONE_VALUE,
                         ids=[f"{c} {o}" for c, o, _ in ONE_VALUE])
def test_a_one_value_option_given_twice_is_refused_naming_both(cli, demo_home, command,
                                                               option, switch) -> None:
    """click kept the last value silently: `list --since 2026-01-01 --since 2026-05-01`
    answered for the second alone, `search --max-count 1 --max-count 2` showed 2."""
    if switch:
        other = "--no-" + option[2:]
        result = cli("--claude-home", str(demo_home), command, option, other)
        needle = f"Invalid value for {option}/{other}: both halves given; pass one"
    else:
        result = cli("--claude-home", str(demo_home), command, option, "7", option, "9")
        needle = f"Invalid value for {option}: given 2 times (7, 9); it takes one value"
    assert result.code == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("pysift: error: ") and needle in line, line
    assert line.endswith(f"(see `pysift {command} --help`)")
    assert result.stdout == ""


def test_a_switch_given_twice_the_same_way_and_help_are_read_as_before(cli, demo_home) -> None:
    home = ("--claude-home", str(demo_home))
    twice = cli(*home, "list", "--no-subagents", "--no-subagents", "--format", "json")
    once = cli(*home, "list", "--no-subagents", "--format", "json")
    assert (twice.code, twice.stdout) == (0, once.stdout)
    helped = cli(*home, "list", "--since", "1d", "--since", "2d", "--help")
    assert helped.code == 0 and helped.stdout.startswith("Usage: pysift list")


@pytest.mark.parametrize("option", ["--claude-home", "--color"])
def test_a_global_option_given_twice_is_refused_naming_both(cli, demo_home, option) -> None:
    """The last `--claude-home` was read silently: an answer about another home."""
    result = cli("--claude-home", str(demo_home), "--color", "never", "list", option, "auto")
    assert result.code == 2
    (line,) = result.stderr.splitlines()
    first = str(demo_home) if option == "--claude-home" else "never"
    assert line == (f"pysift: error: {option} given 2 times ({first}, auto); it takes one "
                    "value, pass one (see `pysift --help`)")
