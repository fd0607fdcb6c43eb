"""Which commands of a string certainly run, exactly once, when it ends with status 0
(``Command.certain``, what recover asks before it replays a write): by example, and held
against real bash running random chains."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pysift.core.shell import parse


def certain(command: str) -> dict[str, bool]:
    """``{command text: certain}`` for the commands holding a redirection."""
    return {c.text: c.certain for c in parse(command).commands if c.redirects}


@pytest.mark.parametrize("command", [
    "echo x > f",
    "cd sub; echo x > f",
    "cd sub && echo x > f",  # a cd is presumed to succeed: a failing one writes stderr
    "mkdir -p d && echo x > f",  # the final status 0 proves the && chain ran
    "a || b && echo x > f",
    "echo x > f && git add f",
    "echo x > f && a || b; c",
    "echo x > f || true",
    "echo x > f; exit 0",
    "true && echo x > f; ls",
    "if a; then b; fi; echo x > f",
    "for i in 1 2; do b; done\necho x > f",
    "f() { b; }; echo x > f",
    "(exit 1); echo x > f",  # an exit in a subshell ends only the subshell
    "echo x > f && y | z",
])
def test_certain(command: str) -> None:
    assert certain(command)["echo x > f"] is True


@pytest.mark.parametrize("command", [
    "test -f f || echo x > f",
    "true || echo x > f",
    "[ -e x ] && echo x > f; true",  # a later list hides the && status
    "mkdir -p d && echo x > f\nls",
    "a; b || echo x > f && c",
    "if [ -f f ]; then :; else echo x > f; fi",
    "if a; then echo x > f; fi",
    "for i in 1 2 3; do echo x > f; done",
    "while false; do echo x > f; done",
    "until true; do echo x > f; done",
    "case y in x) echo x > f;; esac",
    "f() { echo x > f; }; echo done",
    "f() {\n  echo x > f\n}",
    "function f {\n  echo x > f\n}",
    "{ echo x > f; } &",
    "echo x > f &",
    "a && echo x > f &",  # the whole list goes to the background
    "a && (b) &\necho x > g; echo x > f &",
    "exit 0; echo x > f",
    "return 2>/dev/null; echo x > f",
    "exec 3>&1; echo x > f",
    "cd sub 2>/dev/null && echo x > f; ls",  # a cd failing in silence is not presumed
    "echo x > f | cat",
    "echo $(echo x > f)",
    "coproc echo x > f",
])
def test_not_certain(command: str) -> None:
    assert certain(command)["echo x > f"] is False


def test_a_one_line_function_keyword_body_is_never_certain() -> None:
    assert certain("function f { echo x > f; }; echo y > g") == {
        "function f { echo x > f": False, "echo y > g": True}


# -- held against bash -----------------------------------------------------------------------
# Random chains of steps (tests that hold or fail, cds that succeed or fail loudly or
# quietly, exits, loops, ifs, groups, functions, subshells, background jobs) around marker
# writes `echo N >> LOG`, run by bash: whenever the run ends with status 0 and an empty
# stderr (what a compound anchor demands), every marker the reading calls certain was
# written exactly once.

_STEPS = ["true", "true", "false", "[ -e yes ]", "[ -e no ]", "cd d", "cd nowhere",
          "cd nowhere 2>/dev/null", "exit 0", "exit 0", "exit 1", *["W"] * 7]
_JOINS = ["; ", " && ", " || ", "\n", " | "]


@st.composite
def _chain(draw: st.DrawFn, depth: int = 0) -> list:
    items: list = []
    for _ in range(draw(st.integers(1, 4))):
        join = draw(st.sampled_from(_JOINS)) if items else ""
        kind = draw(st.integers(0, 9)) if depth < 2 else 9
        if kind == 0:
            items.append((join, ("if", draw(_chain(depth + 1)), draw(_chain(depth + 1)),
                                 draw(st.one_of(st.none(), _chain(depth + 1))))))
        elif kind == 1:
            items.append((join, (draw(st.sampled_from(["for", "while", "until"])),
                                 draw(_chain(depth + 1)))))
        elif kind == 2:
            items.append((join, (draw(st.sampled_from(["{", "(", "f", "def"])),
                                 draw(_chain(depth + 1)))))
        else:
            items.append((join, draw(st.sampled_from(_STEPS))))
        if draw(st.integers(0, 14)) == 0:
            items.append(("", "&"))
    return items


def _render(items: list, log: str, counter: list[int]) -> str:
    out = []
    for join, step in items:
        if step == "&":
            out.append(" &")
            continue
        if isinstance(step, tuple):
            kind, *parts = step
            if kind == "if":
                cond, body, other = parts
                text = f"if {_render(cond, log, counter)}; then {_render(body, log, counter)}"
                if other is not None:
                    text += f"; else {_render(other, log, counter)}"
                text += "; fi"
            elif kind == "for":
                text = f"for i in 1 2; do {_render(parts[0], log, counter)}; done"
            elif kind in ("while", "until"):
                test = "false" if kind == "while" else "true"
                text = f"{kind} {test}; do {_render(parts[0], log, counter)}; done"
            elif kind == "{":
                text = f"{{ {_render(parts[0], log, counter)}; }}"
            elif kind == "(":
                text = f"( {_render(parts[0], log, counter)} )"
            else:  # a function of its own name (never calling itself), called or not
                counter[1] += 1
                name = f"g{counter[1]}"
                text = f"{name}() {{ {_render(parts[0], log, counter)}; }}"
                text += f"; {name}" if kind == "f" else ""
        elif step == "W":
            counter[0] += 1
            text = f"echo {counter[0]} >> {log}"
        else:
            text = step
        out.append(join + text)
    return "".join(out)


_BASH = shutil.which("bash")


@pytest.mark.skipif(_BASH is None, reason="needs bash")
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_chain())
def test_a_certain_write_ran_once_whenever_bash_ended_clean(items: list) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "d").mkdir()
        (root / "yes").touch()
        log = str(root / "log")
        command = _render(items, log, [0, 0])
        run = subprocess.run([_BASH or "bash", "-c", command], check=False, cwd=root,
                             capture_output=True, timeout=20,
                             env={"PATH": os.environ.get("PATH", "")})
        if run.returncode != 0 or run.stderr:
            return  # an anchor is never admitted from such a run
        written = Path(log).read_text().split() if Path(log).exists() else []
        for c in parse(command).commands:
            if c.certain and c.argv[:1] == ("echo",) and c.redirects:
                marker = c.argv[1]
                assert written.count(marker) == 1, (command, marker, written)
