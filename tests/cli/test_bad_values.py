"""Flag values that are empty or malformed: ONE stderr line saying what is wrong and what
to write, exit 2, never a silently skipped check or filter (the argv fuzz of the sixth
session)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

LONG = "3f6c1e2a-8b4d-4c7e-9a15-2d8e0b7f4c61"
SHORT = "7a2d9c4e-1f3b-4e6a-8c5d-9b0e2f4a6c83"
BLOCK = "r:toolu_011JGjbLlmMWXdfH65leAzK3"  # the Read of tle.py in the demo home


@pytest.fixture
def run(cli, demo_home: Path):
    def call(*args: str, stdin: str = ""):
        return cli("--claude-home", str(demo_home), *args, stdin=stdin)
    return call


def one_usage_line(result, *needles: str) -> str:
    assert result.code == 2, (result.code, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("pysift: error: "), lines[0]
    for needle in needles:
        assert needle in lines[0], lines[0]
    assert result.stdout == ""
    return lines[0]


# -- show --sha256 --------------------------------------------------------------------------


def _block_digest(run) -> str:
    fetched = run("show", f"@{LONG}", "--block", BLOCK, "--format", "json")
    (row,) = fetched.json_rows("block")
    assert row["sha256"] == hashlib.sha256(row["text"].encode()).hexdigest()
    return row["sha256"]


@pytest.mark.parametrize("value", ["", " ", "zz", "abc", "g" * 64, "0" * 63, "0" * 65,
                                   "sha256:", "sha1:" + "0" * 64])
def test_a_sha256_that_is_no_digest_is_a_usage_error(run, value: str) -> None:
    """`--sha256 ""` skipped the check (exit 0, sha256_verified null); `zz` read as a
    mismatch, exit 1, as if the block had changed."""
    result = run("show", f"@{LONG}", "--block", BLOCK, "--sha256", value)
    one_usage_line(result, "--sha256", "64 hex digits")


def test_an_empty_sha256_without_a_block_is_refused_too(run) -> None:
    result = run("show", f"@{LONG}", "--line", "1", "--sha256", "")
    one_usage_line(result, "--sha256 verifies a --block fetch")


def test_a_sha256_in_upper_case_with_a_prefix_or_padding_verifies(run) -> None:
    digest = _block_digest(run)
    for spelling in (digest.upper(), f"sha256:{digest}", f"SHA256:{digest}", f" {digest}\n"):
        result = run("show", f"@{LONG}", "--block", BLOCK, "--sha256", spelling,
                     "--format", "json")
        assert result.code == 0, (spelling, result.stderr)
        assert result.summary()["sha256_verified"] is True


# -- search -t / -T ---------------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["-t", "-T", "--label", "--label-not"])
@pytest.mark.parametrize("value", ["", " ", ",", " , "])
def test_an_empty_label_selector_is_a_usage_error_naming_the_flag(run, flag: str,
                                                                  value: str) -> None:
    """`-t ''` and `-t ','` searched every label, exit 0, while `-t bogus` was refused."""
    short = "-T" if flag in ("-T", "--label-not") else "-t"
    result = run("search", "TLE", flag, value)
    one_usage_line(result, f"{short} `{value}` names no label", f"drop {short}")


@pytest.mark.parametrize("value", ["user,", ",user", "user,,agent"])
@pytest.mark.parametrize("flag", ["-t", "-T"])
def test_an_empty_item_in_a_selector_list_is_a_usage_error(run, flag: str, value: str) -> None:
    result = run("search", "TLE", flag, value, "-c")
    one_usage_line(result, f"{flag} `{value}` has an empty item")


@pytest.mark.parametrize("mode", [(), ("-c",), ("-l",), ("--count-by", "label"), ("--raw",)])
def test_every_search_mode_refuses_the_empty_selector(run, mode: tuple[str, ...]) -> None:
    one_usage_line(run("search", "TLE", "-t", "", *mode), "names no label")


def test_a_selector_list_with_spaces_still_reads(run) -> None:
    spaced = run("search", "TLE", "-t", "user, agent.message", "-c")
    joined = run("search", "TLE", "-t", "user,agent.message", "-c")
    assert spaced.code == joined.code == 0
    assert spaced.stdout == joined.stdout


# -- range flags ------------------------------------------------------------------------------


@pytest.mark.parametrize(("command", "flag"), [
    (("stats", f"@{SHORT}"), "--turn"),
    (("search", "TLE"), "--turn"),
    (("show", f"@{SHORT}"), "--turn"),
    (("show", f"@{SHORT}"), "--line"),
])
@pytest.mark.parametrize("value", ["", " ", ","])
def test_an_empty_range_is_a_usage_error_naming_its_flag(run, command, flag, value) -> None:
    """`stats --turn ''` counted every turn (exit 0) where search and show refused it."""
    one_usage_line(run(*command, flag, value), f"{flag}: empty range `{value}`")


# -- --since / --until ------------------------------------------------------------------------


@pytest.mark.parametrize("command", [("list",), ("stats",), ("search", "TLE")])
def test_a_reversed_time_window_is_a_usage_error_naming_both_instants(run, command) -> None:
    """list said "no sessions found", stats printed all-zero rows and search called the
    pattern a DEFINITIVE absence, all exit 0. (TZ is Australia/Sydney in the suite.)"""
    result = run(*command, "--since", "2026-10-07", "--until", "2026-10-05T23:00Z")
    one_usage_line(result, "--since `2026-10-07` (2026-10-06T13:00:00Z) is later than "
                   "--until `2026-10-05T23:00Z` (2026-10-05T23:00:00Z)", "swap")


def test_a_reversed_window_of_ages_and_of_fractions_is_refused_too(run) -> None:
    one_usage_line(run("list", "--since", "1h", "--until", "2h"), "`1h` (", "`2h` (")
    line = one_usage_line(run("list", "--since", "2026-10-07T14:11:00.5Z",
                              "--until", "2026-10-07T14:11:00.25Z"))
    assert "(2026-10-07T14:11:00.5Z)" in line and "(2026-10-07T14:11:00.25Z)" in line


def test_a_window_of_one_instant_is_no_reversal(run) -> None:
    result = run("search", "TLE", "--since", "2026-10-07T14:11:00Z",
                 "--until", "2026-10-07T14:11:00Z", "-c")
    assert result.code == 0, result.stderr


# -- no command -------------------------------------------------------------------------------

MISSING = ("pysift: error: missing command; run `pysift --help` to see the commands "
           "(list, search, show, stats, whoami, plan)")


@pytest.mark.parametrize("args", [(), ("--",), ("--claude-home", "/nowhere"),
                                  ("--claude-home=/nowhere", "--")])
def test_no_command_is_one_line_saying_so(cli, args) -> None:
    """Bare `pysift` printed the whole help flattened into its error line (~900 chars)
    and never said a command was missing."""
    result = cli(*args)
    assert result.code == 2
    assert result.stderr.splitlines() == [MISSING]
    assert result.stdout == ""


@pytest.mark.parametrize("args", [("--claude-home", ""), ("--claude-home=",),
                                  ("--claude-home", " ", "--")])
def test_an_empty_home_without_a_command_names_the_empty_home(cli, args) -> None:
    """SPEC §2: an empty --claude-home is a usage error; with no command it said only
    "Missing command."."""
    result = cli(*args)
    assert result.code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith("pysift: error: --claude-home is empty;")


def test_help_and_version_still_need_no_command(cli) -> None:
    assert cli("--version").code == 0
    assert cli("--claude-home", "/nowhere", "--help").code == 0


# -- plan --reverse ---------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["", " "])
def test_an_empty_reverse_is_a_usage_error_not_the_cwd(run, value: str) -> None:
    """`plan --reverse ''` looked up the current directory as a plan file (exit 0)."""
    one_usage_line(run("plan", "--reverse", value), "--reverse is empty", "plan file")
