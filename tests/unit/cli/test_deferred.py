"""The stand-in modules of ``cli.deferred``: nothing loads until a name is read, then the
real module answers, under its name and through every module that bound the stand-in.
Each case runs in a fresh interpreter (the test process imported ``inspect`` long ago)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from builders import one_exchange_home

REPO = Path(__file__).resolve().parents[3]


def _run(code: str, *args: str, cache: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(REPO / "src"), "TZ": "UTC", "HOME": "/nonexistent",
           "PYSIFT_NO_CACHE": "1"}
    if cache is not None:
        env.pop("PYSIFT_NO_CACHE")
        env["PYSIFT_CACHE_DIR"] = str(cache)
        env["PYSIFT_CACHE_SETTLE_MS"] = "0"  # a file written just now is kept as well
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=env, timeout=60, check=True)


def _fresh(code: str, *args: str) -> list[str]:
    return _run(code, *args).stdout.split()


def test_importing_the_deferred_name_loads_nothing_until_a_name_is_read() -> None:
    out = _fresh("""
from pysift.cli.deferred import defer, is_loaded
defer(("inspect",))
import dataclasses, inspect
print(is_loaded("inspect"), "tokenize" in __import__("sys").modules)
@dataclasses.dataclass
class Point:
    x: int
    y: int = 0
print(is_loaded("inspect"), Point.__doc__.replace(" ", ""))
import sys
real = sys.modules["inspect"]
print(type(real).__name__, dataclasses.inspect.signature is real.signature,
      inspect.signature is real.signature)
""")
    # a class without a docstring: the standard decorator reads ``inspect.signature``
    assert out == ["False", "False", "True", "Point(x:int,y:int=0)", "module", "True", "True"]


def test_a_url_with_a_bracketed_host_is_still_checked() -> None:
    out = _fresh("""
from pysift.cli.deferred import defer, is_loaded
defer()
import pathlib
from urllib.parse import urlsplit
print(is_loaded("ipaddress"), urlsplit("http://[::1]:80/").port, is_loaded("ipaddress"))
try:
    urlsplit("http://[zz]/")
except ValueError:
    print("refused")
""")
    assert out == ["False", "80", "True", "refused"]


def test_a_module_already_imported_is_left_alone() -> None:
    out = _fresh("""
import inspect, sys
from pysift.cli.deferred import defer, is_loaded
defer(("inspect",))
print(sys.modules["inspect"] is inspect, is_loaded("inspect"))
""")
    assert out == ["True", "True"]


def test_a_missing_name_fails_as_on_the_real_module_and_the_next_read_still_works() -> None:
    out = _fresh("""
from pysift.cli.deferred import defer
defer(("inspect",))
import inspect
try:
    inspect.no_such_name
except AttributeError as exc:
    print("AttributeError", "no_such_name" in str(exc))
print(callable(inspect.getsource))
""")
    assert out == ["AttributeError", "True", "True"]


# the verdict on stderr, after the command's own output on stdout
_RUN = """
import sys
from pysift.cli.deferred import defer, is_loaded
defer()
from pysift.cli.dispatch import main
code = 0
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
sys.stdout.flush()
sys.stderr.write(f"\\nverdict {code} {is_loaded('inspect')} {is_loaded('ipaddress')}\\n")
"""


def _verdict(*args: str, cache: Path | None = None) -> tuple[list[str], str]:
    done = _run(_RUN, *args, cache=cache)
    return done.stderr.rsplit("verdict", 1)[1].split(), done.stdout


def _home(tmp_path: Path) -> str:
    return str(one_exchange_home(tmp_path / "claude", "deferred-" + tmp_path.name))


@pytest.mark.e2e
@pytest.mark.parametrize("args", [("list",), ("list", "--format", "json"), ("search", "README"),
                                  ("search", "README", "-c"), ("search", "absent-ZQXJ")])
def test_the_fast_path_of_a_command_never_loads_them(tmp_path: Path,
                                                        args: tuple[str, ...]) -> None:
    home = _home(tmp_path)
    for _run_ in ("filling the cache", "from the cache"):
        verdict, out = _verdict("--claude-home", home, *args, cache=tmp_path / "cache")
        assert verdict == ["0", "False", "False"], _run_
        assert out or "absent-ZQXJ" in args  # an absence is told on stderr


@pytest.mark.e2e
def test_stats_from_the_cache_never_loads_them(tmp_path: Path) -> None:
    """(A cold ``stats`` reads assistant lines with msgspec, whose ``typing_extensions``
    reads ``inspect`` as it loads: the stand-in saves nothing there, and costs nothing.)"""
    home, cache = _home(tmp_path), tmp_path / "cache"
    assert _verdict("--claude-home", home, "stats", "--format", "json", cache=cache)[0] \
        == ["0", "True", "False"]
    verdict, out = _verdict("--claude-home", home, "stats", "--format", "json", cache=cache)
    assert verdict == ["0", "False", "False"]
    assert '"claude-' in out


@pytest.mark.e2e
def test_the_help_page_loads_it_on_first_use_and_prints_in_full(tmp_path: Path) -> None:
    """typer reads ``inspect`` to build its commands: the probe above can fail."""
    verdict, out = _verdict("--claude-home", _home(tmp_path), "search", "--help")
    assert verdict[:2] == ["0", "True"]
    assert "--format" in out
