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
