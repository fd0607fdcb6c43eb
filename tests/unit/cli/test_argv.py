"""argv normalization: global --claude-home anywhere, leading-dash encoded dirs."""

from __future__ import annotations

import pytest

from pysift.cli.argv import home_flag, looks_like_encoded_dir, normalize
from pysift.errors import UsageError


def test_claude_home_moves_in_front_of_the_subcommand() -> None:
    assert normalize(["list", ".", "--claude-home", "/h"]) == ["--claude-home", "/h", "list", "."]
    assert normalize(["list", "--claude-home=/h"]) == ["--claude-home", "/h", "list"]
    assert normalize(["list", ".", "--no-cache", "--claude-home", "/h"]) == [
        "--claude-home", "/h", "--no-cache", "list", "."]
    assert normalize(["search", "--", "--no-cache"]) == ["search", "--", "--no-cache"]


def test_encoded_dirs_go_behind_a_double_dash_in_order() -> None:
    got = normalize(["search", "foo", "-Users-ada-x", "--since", "2h", "-home-b"])
    assert got == ["search", "foo", "--since", "2h", "--", "-Users-ada-x", "-home-b"]


def test_option_values_are_never_moved() -> None:
    assert normalize(["show", "@a", "--turn", "-3"]) == ["show", "@a", "--turn", "-3"]
    assert normalize(["search", "x", "-t", "user"]) == ["search", "x", "-t", "user"]


def test_tokens_after_double_dash_stay_put() -> None:
    assert normalize(["search", "--", "-Users-x"]) == ["search", "--", "-Users-x"]


@pytest.mark.parametrize("token", ["-c", "-ci", "-l", "-3", "--no-subagents", "-t"])
def test_flags_and_numbers_are_not_encoded_dirs(token: str) -> None:
    assert not looks_like_encoded_dir(token)


@pytest.mark.parametrize("token", ["-Users-ada-src", "-home-ada-src-orbit", "-tmp-x", "-Users",
                                   "-home-ada-src-orbit/"])  # tab completion adds the slash
def test_encoded_dir_shapes(token: str) -> None:
    assert looks_like_encoded_dir(token)


# -- short encoded dirs: `/tmp` encodes to `-tmp`, shaped like `-t mp` ------------------------


def test_a_short_token_the_projects_root_holds_is_a_dir() -> None:
    """`list -tmp` used to fail with "No such option '-t'" (and `search x -tmp` with "'mp'
    is not a label selector") although `-tmp` is the project dir of cwd /tmp."""
    holds = {"-tmp", "-srv", "-ci"}.__contains__
    assert normalize(["list", "-tmp"], holds) == ["list", "--", "-tmp"]
    assert normalize(["search", "x", "-srv", "-c"], holds) == ["search", "x", "-c", "--", "-srv"]


def test_a_cluster_of_boolean_flags_stays_flags_even_when_a_dir_has_its_name() -> None:
    holds = {"-ci", "-c", "-l"}.__contains__
    assert normalize(["search", "x", "-ci"], holds) == ["search", "x", "-ci"]
    assert normalize(["search", "x", "-c", "-l"], holds) == ["search", "x", "-c", "-l"]


def test_a_short_token_no_dir_holds_stays_a_flag_cluster() -> None:
    assert normalize(["search", "x", "-tmp"], lambda token: False) == ["search", "x", "-tmp"]
    assert normalize(["search", "x", "-tmp"]) == ["search", "x", "-tmp"]


def test_the_home_flag_is_read_from_anywhere_on_the_line() -> None:
    assert home_flag(["list", "-tmp", "--claude-home", "/h"]) == "/h"
    assert home_flag(["--claude-home=/a", "list"]) == "/a"
    assert home_flag(["list", "--", "--claude-home", "/x"]) is None


def test_a_valueless_claude_home_says_so() -> None:
    """Left behind the subcommand it read "No such option '--claude-home'"."""
    from pysift.errors import UsageError

    with pytest.raises(UsageError, match="--claude-home needs a value"):
        normalize(["list", "--claude-home"])


@pytest.mark.parametrize("line", [
    ["--claude-home", "/a", "list", "--claude-home", "/b"],
    ["list", "--claude-home=/a", ".", "--claude-home", "/b"],
    ["--color", "never", "search", "x", "--color=always"],
])
def test_a_global_given_twice_is_refused_naming_both(line: list[str]) -> None:
    """The last one was read silently: `--claude-home /a … --claude-home /b` answered
    about /b alone."""
    name = line[0].split("=")[0] if line[0].startswith("--") else line[1].split("=")[0]
    first, second = ("/a", "/b") if name == "--claude-home" else ("never", "always")
    with pytest.raises(UsageError, match=f"^{name} given 2 times \\({first}, {second}\\)"):
        normalize(line)
    # after `--` a token is a positional, never a global
    assert normalize(["--claude-home", "/a", "search", "--", "--claude-home"])[:2] == [
        "--claude-home", "/a"]


def test_every_option_that_takes_a_value_is_known_to_the_normalizer() -> None:
    """A value the normalizer does not know for one is taken for an encoded dir when it
    opens with a dash (``status --background-since -2h`` failed: "No such option '-2'")."""
    import click
    import typer

    from pysift.cli import app as tree
    from pysift.cli.argv import VALUE_OPTIONS

    tree.register()
    unknown: set[tuple[str, str]] = set()

    def walk(command: click.Command) -> None:
        for param in command.params:
            if isinstance(param, click.Option) and not param.is_flag and not param.count:
                unknown.update((command.name or "", o) for o in param.opts
                               if o not in VALUE_OPTIONS)
        if isinstance(command, click.Group):
            for sub in command.commands.values():
                walk(sub)

    walk(typer.main.get_command(tree.app))
    assert unknown == set()


@pytest.mark.parametrize("args", [
    ["status", "@a", "--background-since", "-2h"],
    ["wait", "@a", "--ignore-background", "-x-y"],
    ["recover", "@a", "--file", "f", "--file-lines", "-10"],
    ["files", "@a", "--regex", "-test-"],
])
def test_a_dash_led_value_stays_with_its_option(args: list[str]) -> None:
    assert normalize(args) == args
