"""argv normalization: global --claude-home anywhere, leading-dash encoded dirs."""

from __future__ import annotations

import pytest

from pysift.cli.argv import looks_like_encoded_dir, normalize


def test_claude_home_moves_in_front_of_the_subcommand() -> None:
    assert normalize(["list", ".", "--claude-home", "/h"]) == ["--claude-home", "/h", "list", "."]
    assert normalize(["list", "--claude-home=/h"]) == ["--claude-home", "/h", "list"]


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


@pytest.mark.parametrize("token", ["-Users-ada-src", "-home-ada-src-orbit", "-tmp-x", "-Users"])
def test_encoded_dir_shapes(token: str) -> None:
    assert looks_like_encoded_dir(token)
