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
