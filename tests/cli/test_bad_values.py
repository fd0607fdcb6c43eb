"""Flag values that are empty or malformed: ONE stderr line saying what is wrong and what
to write, exit 2, never a silently skipped check or filter (the argv fuzz of the sixth
session)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from conftest import LONG, SHORT

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

def _missing() -> str:
    from pysift.cli.app import COMMAND_MODULES

    return ("pysift: error: missing command; run `pysift --help` to see the commands "
            f"({', '.join(COMMAND_MODULES)})")


MISSING = _missing()


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


# -- --sessions-from --------------------------------------------------------------------------


@pytest.mark.parametrize("command", [("list",), ("search", "TLE"), ("stats",), ("plan",)])
@pytest.mark.parametrize("value", ["", " "])
def test_an_empty_sessions_from_says_it_is_empty(run, command, value: str) -> None:
    """It said "cannot read : Is a directory" (the empty path read as the cwd)."""
    one_usage_line(run(*command, "--sessions-from", value), "--sessions-from is empty")


def test_an_id_list_over_the_cap_is_refused(run, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from pysift.core import resolve

    monkeypatch.setattr(resolve, "SESSIONS_FROM_CAP", 64, raising=False)
    listed = tmp_path / "ids.txt"
    listed.write_text(f"@{SHORT}\n" * 3)  # 114 bytes
    one_usage_line(run("list", "--sessions-from", str(listed)), "more than", "no id list")
    one_usage_line(run("list", "--sessions-from", "-", stdin=f"@{SHORT}\n" * 3),
                   "--sessions-from -: more than")
    listed.write_text(f"@{SHORT}\n")
    assert run("list", "--sessions-from", str(listed)).code == 0


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
@pytest.mark.parametrize("source", ["file", "stdin"])
def test_an_endless_source_is_refused_not_read_forever(demo_home: Path, source: str) -> None:
    """`--sessions-from /dev/zero` read until memory ran out. (The child is held to 1 GiB
    of address space, so an unbounded read fails fast instead of eating the machine.)"""
    import os
    import resource
    import subprocess
    import sys

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(repo / "src")}
    env.pop("PYSIFT_TRACEBACK", None)
    value = "/dev/zero" if source == "file" else "-"
    with open("/dev/zero", "rb") as zero:
        proc = subprocess.run(
            [sys.executable, "-m", "pysift", "--claude-home", str(demo_home), "list",
             "--sessions-from", value], stdin=zero if source == "stdin" else None,
            capture_output=True, text=True, env=env, timeout=60, preexec_fn=limit,
            check=False)
    assert proc.returncode == 2, proc.stderr[-500:]
    assert proc.stderr.splitlines() == [
        f"pysift: error: --sessions-from {value}: more than 16 MiB, which is no id list (an "
        "id is ~40 bytes); pass a file of session ids, e.g. the output of `pysift search "
        "PATTERN -l`"]


# -- show --uuid / --block --------------------------------------------------------------------


@pytest.mark.parametrize(("args", "needle"), [
    (("--uuid", ""), "--uuid `` names no uuid"),
    (("--uuid", ","), "--uuid `,` names no uuid"),
    (("--uuid", " "), "--uuid ` ` names no uuid"),
    (("--uuid", "x,"), "--uuid `x,` has an empty item"),
    (("--block", ""), "--block is empty"),
    (("--block", " "), "--block is empty"),
])
def test_an_empty_show_address_says_it_is_empty(run, args, needle) -> None:
    """Each said "show needs an address" although one was given (`--uuid ' '` looked
    for a record whose uuid is a space, exit 1)."""
    line = one_usage_line(run("show", f"@{SHORT}", *args), needle)
    assert "needs an address" not in line


def test_uuids_with_spaces_after_the_commas_still_read(run) -> None:
    first = run("show", f"@{SHORT}", "--line", "1,2", "--format", "json").json_rows("record")
    uuids = [r["uuid"] for r in first]
    spaced = run("show", f"@{SHORT}", "--uuid", ", ".join(uuids), "--format", "json")
    assert spaced.code == 0, spaced.stderr
    assert [r["uuid"] for r in spaced.json_rows("record")] == uuids


def test_an_offset_beyond_fourteen_hours_is_still_an_instant(run) -> None:
    """Decided (SPEC §13): no zone uses +23:59, but the string names one exact instant."""
    far = run("search", "TLE", "--since", "2026-10-08T14:10:00+23:59", "-c")
    near = run("search", "TLE", "--since", "2026-10-07T14:11:00Z", "-c")
    assert far.code == near.code == 0, far.stderr
    assert far.stdout == near.stdout


# -- numbers in other digits --------------------------------------------------------------------


@pytest.mark.parametrize("digits", ["\u00b3", "\u0663", "1\u00b2"])
def test_a_number_in_other_digits_is_a_usage_error_not_a_crash(run, digits: str) -> None:
    """`str.isdigit` takes a superscript (which `int` refuses: a traceback) and the
    digits of other scripts (which `int` read as a number csift's parser refuses)."""
    one_usage_line(run("recover", f"@{LONG}", "--file", "/x", "--at", f"@line:{digits}"),
                   "--at", "@line:N needs a whole number")
    one_usage_line(run("show", f"@{LONG}", "--block", f"a:msg_x:p{digits}"),
                   "is not a block id")


@pytest.mark.parametrize("flag", ["--slices", "--budget", "--max-compactions"])
@pytest.mark.parametrize("value", ["++3", "+-3", "\u00b3", "1_0"])
def test_a_verbatim_count_in_no_integer_spelling_is_a_usage_error(run, flag: str,
                                                                  value: str) -> None:
    """`lstrip("+")` let `++3` through to `int`, which raised a traceback."""
    one_usage_line(run("verbatim", f"@{LONG}", flag, value), flag, f"got `{value}`")
