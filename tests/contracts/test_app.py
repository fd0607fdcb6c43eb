"""The command tree (SPEC §6): registered commands follow SPEC order, and every command's
``--help`` carries EXAMPLES and its JSON schema (SPEC §9)."""

from __future__ import annotations

import pytest

from pysift.cli.app import app, invoked_command, register

register()

SPEC_ORDER = ("list", "search", "show", "stats", "agents", "whoami", "files", "recover",
              "plan", "verbatim", "image", "status", "wait",
              # pysift's own, beyond csift 0.10.2 (SPEC §12a, §14, §15): after csift's thirteen
              "archive", "skill", "cache")


def _registered() -> list[str]:
    return [c.name or c.callback.__name__ for c in app.registered_commands]


def test_registered_commands_follow_spec_order() -> None:
    names = _registered()
    assert len(names) == len(set(names)), names
    unknown = [n for n in names if n not in SPEC_ORDER]
    assert not unknown, f"not a csift 0.10.2 command nor one of pysift's own: {unknown}"
    positions = [SPEC_ORDER.index(n) for n in names]
    assert positions == sorted(positions), names
    assert {"list", "search", "show"} <= set(names)


@pytest.mark.parametrize("command", _registered())
def test_help_has_examples_and_json(cli, command: str) -> None:
    result = cli(command, "--help")
    assert result.code == 0, result.stderr
    assert "EXAMPLES" in result.stdout
    assert "JSON" in result.stdout
    assert f"pysift {command}" in result.stdout


def test_root_help_lists_the_commands(cli) -> None:
    result = cli("--help")
    assert result.code == 0
    for name in _registered():
        assert name in result.stdout


@pytest.mark.parametrize("argv, expected", [
    (["list", "--max-count", "0"], "list"),
    (["--claude-home", "/h", "search", "x"], "search"),
    (["--claude-home", "/h"], None),
    (["--claude-home", "/h", "--no-cache", "list"], "list"),
    (["--no-cache", "stats"], "stats"),
    (["--help"], None),
    (["lst"], None),
    ([], None),
])
def test_invoked_command_is_the_first_word(argv: list[str], expected: str | None) -> None:
    assert invoked_command(argv) == expected


def test_a_single_command_run_keeps_the_tree_in_spec_order(cli) -> None:
    """Registering one command first (as a run of it does) and the rest later still
    yields SPEC order: the root help lists them as csift does."""
    assert cli("whoami", "--help").code == 0
    register()
    test_registered_commands_follow_spec_order()
