"""The fast path reads a line exactly as the typer tree does, or leaves it to the tree.

Three guards: the spec it reads by is the one the tree gives now; for any line made of the
hot commands' own options (and of pieces that nearly are), what it reads equals what
typer would pass the command, and the root options equal the root callback's; and whole
runs over the demo home print the same bytes and exit the same way by either route.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import DEMO_HOME, LONG, REPO
from pysift.cli import fastpath
from pysift.cli.dispatch import prepare
from pysift.cli.fastspec import COMMANDS


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("gen_fastspec",
                                                  REPO / "scripts" / "gen_fastspec.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_spec_is_the_trees_own() -> None:
    generator = _generator()
    assert generator.render() == generator.TARGET.read_text(encoding="utf-8"), (
        "src/pysift/cli/fastspec.py is out of date: run python scripts/gen_fastspec.py")


def typer_reading(args: list[str]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """What the typer tree passes ``execute`` for a normalized argv, with the root's
    options; None when it refuses the line (a usage error) or does not run it."""
    import click

    from pysift.cli import app as tree
    from pysift.cli.dispatch import invoked_command

    command = invoked_command(args)
    assert command is not None
    tree.register((command,))
    module = importlib.import_module(COMMANDS[command]["module"])
    real = module.execute
    seen: list[tuple[dict[str, Any], dict[str, Any]]] = []

    def record(ctx: Any, *values: Any) -> None:
        names = list(inspect.signature(real).parameters)[1:]
        seen.append((dict(ctx.find_root().obj), dict(zip(names, values))))

    module.execute = record
    try:
        tree.app(args=args, prog_name="pysift", standalone_mode=False)
    except (click.ClickException, click.exceptions.Exit, SystemExit):
        return None
    except Exception as exc:  # noqa: BLE001 - a typed error from the root callback
        from pysift.errors import SiftError

        if isinstance(exc, SiftError):
            return None
        raise
    finally:
        module.execute = real
    return seen[0] if seen else None


def fast_reading(args: list[str]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    run = fastpath.plan(args)
    if run is None:
        return None
    from pysift.cli.options import check_color
    from pysift.errors import SiftError

    root = dict(run.root)
    try:
        root["color"] = check_color(root["color"])
    except SiftError:
        return None
    return root, run.values


PLAIN_LINES = [
    ["stats"], ["stats", "--format", "json"], ["stats", "@abc", "--no-subagents"],
    ["stats", "--max-count=3", "--turn", "-3..", "--since", "2h"],
    ["list", "--max-count", "0"], ["list", ".", "--format=json", "--sessions-from", "-"],
    ["search", "", "-t", "user", "-c"], ["search", "-i", "kestrel", "-c"],
    ["search", "-ic", "kestrel"], ["search", "x", "-tuser", "-T", "agent.*", "-l"],
    ["search", "-e", "-dash", "@s1", "@s2", "--max-count", "-5"],
    ["search", "x", "--", "--not-an-option"],
    ["--claude-home", "/h", "--color", "always", "--no-cache", "search", "x", "--raw"],
    ["verbatim", "--slice", "1"], ["verbatim", "@s", "--budget=9000", "--fold-index"],
    ["show", "@s", "--line", "3", "--line", "5..7", "--raw"], ["whoami", "--format", "json"],
    ["agents", "@s", "--shape", "tree"], ["files", "--by", "dir"], ["plan", "@s"],
    ["image", "@s", "--id", "3", "--out", "d"], ["status", "@s", "--no-subagents"],
    ["recover", "--file", "a.py", "--coverage"],
]


@pytest.mark.parametrize("line", PLAIN_LINES, ids=" ".join)
def test_plain_lines_are_read_fast_and_as_typer_reads_them(line: list[str]) -> None:
    args = prepare(line)
    fast = fast_reading(args)
    assert fast is not None, "a plain line of a hot command must not need typer"
    assert fast == typer_reading(args)


DECLINED = [
    ["stats", "--help"], ["search", "-h"], ["list", "--format"], ["stats", "--raw"],
    ["search", "x", "--raw=1"], ["stats", "--max-count", "x"], ["search", "-q"],
    ["list", "--frmat", "json"], ["search", "-ix"], ["wait", "@s"], ["cache", "info"],
    ["archive", "d"], ["stats", "--max-count=1_0"], ["list", "--max-count", "1" * 4301],
]


@pytest.mark.parametrize("line", DECLINED, ids=" ".join)
def test_what_it_does_not_read_is_left_to_the_tree(line: list[str]) -> None:
    assert fastpath.plan(prepare(line)) is None


def _given_twice() -> list[list[str]]:
    """Every one-value option of every fast command given twice (each spelling, and a
    short one in a cluster), and both halves of every switch: the tree refuses them."""
    lines = []
    for command, spec in sorted(COMMANDS.items()):
        lead = [command] + (["x"] if command == "search" else [])
        for option, name in spec["values"].items():
            if name in spec["multiple"]:
                continue
            second = f"{option}b" if len(option) == 2 else f"{option}=2"
            lines.append([*lead, option, "1", second])
        halves: dict[str, set[bool]] = {}
        for name, value in spec["flags"].values():
            halves.setdefault(name, set()).add(value)
        for name in (n for n, values in halves.items() if len(values) == 2):
            on, off = (o for value in (True, False) for o, (n, v) in spec["flags"].items()
                       if n == name and v == value)
            lines.append([*lead, on, off])
    return lines


@pytest.mark.parametrize("line", _given_twice(), ids=" ".join)
def test_a_one_value_option_given_twice_is_left_to_the_tree(line: list[str]) -> None:
    """The fast path kept the last value, as click did: `list --since A --since B`
    answered for B alone. The tree names both values (SPEC §13)."""
    args = prepare(line)
    assert fastpath.plan(args) is None
    assert typer_reading(args) is None


def test_a_run_asked_to_warn_or_to_trace_is_left_to_the_tree(
        monkeypatch: pytest.MonkeyPatch) -> None:
    line = prepare(["stats"])
    assert fastpath.plan(line) is not None
    monkeypatch.setattr(sys, "warnoptions", ["default"])  # typer's import warns then
    assert fastpath.plan(line) is None
    monkeypatch.setattr(sys, "warnoptions", [])
    monkeypatch.setenv("PYSIFT_TRACEBACK", "1")  # the tree's frames, as always
    assert fastpath.plan(line) is None


class _Raising:
    command = "stats"

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    def run(self) -> None:
        raise self.exc


def _typer_errors() -> Any:
    import click

    return click


@pytest.mark.parametrize(("make", "code", "stderr"), [
    (lambda c: EOFError(), 130, "\n"),
    (lambda c: c.exceptions.Exit(3), 3, ""),
    (lambda c: c.Abort(), 130, ""),
    (lambda c: c.BadParameter("no good", param_hint="--since"), 2,
     "pysift: error: Invalid value for --since: no good (see `pysift stats --help`)\n"),
    (lambda c: KeyboardInterrupt(), 130, ""),
])
def test_what_escapes_a_fast_run_exits_as_on_the_tree(
        make: Any, code: int, stderr: str, capsys: pytest.CaptureFixture[str]) -> None:
    from pysift.cli.dispatch import run_fast

    with pytest.raises(SystemExit) as ended:
        run_fast(_Raising(make(_typer_errors())))
    assert ended.value.code == code
    assert capsys.readouterr().err == stderr


def _pieces(command: str) -> st.SearchStrategy[list[str]]:
    spec = COMMANDS[command]
    names = list(spec["values"]) + list(spec["flags"])
    shorts = [n[1] for n in names if len(n) == 2]
    near = ["--", "-", "---x", "--no-such", "-h", "--help", "-3", "-3..", "=", "--format=",
            "@s", "x", "0", "-0", "+2", "1_0", " 3", "json", "text", "2h", ""]
    token = st.one_of(
        st.sampled_from(names), st.sampled_from(near),
        st.builds(lambda n, v: f"{n}={v}", st.sampled_from(names), st.sampled_from(near)),
        st.builds(lambda cs, v: "-" + "".join(cs) + v,
                  st.lists(st.sampled_from(shorts + ["q", "x"]), min_size=1, max_size=3)
                  if shorts else st.just(["q"]), st.sampled_from(["", "user", "=x", "5"])),
        st.text(alphabet="ab-=@.", max_size=4))
    return st.lists(token, max_size=8)


@pytest.mark.parametrize("command", sorted(COMMANDS))
@given(data=st.data())
def test_any_line_is_read_as_typer_reads_it_or_left_to_it(command: str,
                                                          data: st.DataObject) -> None:
    globals_ = data.draw(st.lists(st.sampled_from(
        [["--no-cache"], ["--color", "never"], ["--color", "sometimes"],
         ["--claude-home", "/h"]]), max_size=2))
    line = [tok for group in globals_ for tok in group] + [command] + data.draw(
        _pieces(command))
    try:
        args = prepare(line)
    except Exception:  # noqa: BLE001 - refused before either route reads it
        return
    fast = fast_reading(args)
    if fast is not None:
        assert fast == typer_reading(args)


RUNS = [
    ["stats", f"@{LONG}"], ["stats", "--format", "json"], ["stats", "--format", "xml"],
    ["stats", f"@{LONG}", "--turn", "1..2", "--format", "json"],
    ["list"], ["list", "--max-count", "0", "--format", "json"], ["list", "--max-count", "-1"],
    ["list", "@nosuch"], ["search", "orbit", "-c"], ["search", "-i", "ORBIT", "--format", "json"],
    ["search", "", "-t", "user", "-c"], ["search", "(", "-c"], ["search", "x", "-t", "nolabel"],
    ["search", "zzzz-absent"], ["search", "orbit", "--max-count", "-1", "--siblings"],
    ["--color", "always", "search", "orbit"], ["--color", "bogus", "stats"],
    ["search", "orbit", "--count-by", "label"], ["search", "orbit", "--count-by", "nope"],
    ["verbatim", f"@{LONG}", "--slice", "1"], ["verbatim", f"@{LONG}", "--slice", "0"],
    ["show", f"@{LONG}", "--line", "3"], ["show", f"@{LONG}", "--turn", "1", "--format", "json"],
    ["whoami"], ["agents", f"@{LONG}"], ["agents", "--shape", "nope"], ["files"],
    ["files", "--by", "tree"], ["plan", f"@{LONG}"], ["image", f"@{LONG}", "--format", "json"],
    ["recover", "--file", "src/orbit/core.py", "--coverage"],  # (status: ages move between runs)
    ["recover", "--file", "a", "--diff", "--coverage"],
    ["list", "--since", "1d", "--since", "2d"], ["search", "x", "-c", "--max-count", "1",
                                                  "--max-count=2"],
    ["stats", "--no-subagents", "--subagents"], ["search", "-e", "a", "-eb"],
    ["search", "x", "-c", "--no-subagents", "--no-subagents"],
]


@pytest.mark.parametrize("line", RUNS, ids=" ".join)
def test_a_run_prints_the_same_by_either_route(line: list[str]) -> None:
    from clirun import run_cli
    from pysift.cli import app as tree

    argv = ["--claude-home", str(DEMO_HOME), *line]
    fast = run_cli(*argv)
    slow = _run_with(tree.main, argv)
    assert (fast.code, fast.stdout_bytes, fast.stderr) == (slow.code, slow.stdout_bytes,
                                                           slow.stderr)


def _run_with(main: Any, argv: list[str]) -> Any:
    import clirun
    from pysift.cli import dispatch

    real = dispatch.main
    dispatch.main = main
    try:
        return clirun.run_cli(*argv)
    finally:
        dispatch.main = real


def test_a_fast_run_leaves_typer_unloaded(tmp_path: Path) -> None:
    from importprobe import imported_by

    code, loaded = imported_by(("--claude-home", str(DEMO_HOME), "stats"),
                               ("typer", "click", "rich"))
    assert (code, loaded) == ("0", [])
