"""The parser never raises, whatever the string, and its answers keep their shape."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pysift.core import shell

# Fragments that steer generated text into every lexer state: quotes, escapes,
# substitutions, heredocs, redirections, operators, cd chains, launchers, globs.
FRAGMENTS = [
    "'", '"', "\\", "\\\n", "$", "$(", ")", "(", "`", "${", "}", "{", "$((", "))", "<<",
    "<<-", "<<'EOF'", "EOF", "\n", "<<<", ">", ">>", "2>", "&>", ">&", "2>&1", "<", "|", "||",
    "&&", ";", "&", "#", "[[", "]]", "*", "?", "[", "~", "=", " ", "\t", "cd ", "cd -",
    "pushd ", "popd", "rm ", "mv ", "cp ", "tee ", "sed -i ", "perl -pi -e ", "git ",
    "checkout -- ", "python3 -c ", "node -e ", "open('x','w')", "cat ", "echo ", "printf ",
    "truncate -s 0 ", "head -n 3 ", "sed -n '1,2p' ", "sudo ", "env A=1 ", "timeout ",
    "/tmp/", "a.txt", "C:\\x", "..", "-t", "--", "-o", "of=", "tar -czf ", "npx ", "$HOME",
    "\x00", "é", "\r", "xargs ", "-I{} ", "-0 ", "find ", "-name ", "-path ", "-exec ",
    "{}", "\\;", " + ", "-delete", "!", "-o ", "-type f ", "..", "./",
]
shellish = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=4)),
                    max_size=40).map("".join)
cwds = st.one_of(st.none(), st.sampled_from(["/w", "d:\\w", "\\\\srv\\share", "rel", ""]),
                 st.text(max_size=8))


def check(command: str, cwd: str | None) -> None:
    script = shell.parse(command)
    assert isinstance(script.complete, bool)
    for c in script.commands:
        assert c.index == script.commands.index(c)
    for m in shell.mutations(command, cwd):
        if m.marker:
            assert m.resolution is None and shell.is_marker(m.path)
        else:
            assert m.resolution in shell.RESOLUTIONS
            if m.resolution == shell.UNRESOLVED:
                assert m.path == m.verbatim
            else:
                assert shell.is_absolute(m.path)
    for w in shell.content_writes(command, cwd):
        assert w.mode in ("truncate", "append")
    for r in shell.content_reads(command, cwd):
        assert r.start >= 1 and (r.end is None or r.end >= r.start)
    shell.opaque_markers(command)
    for m in shell.mutations(command, cwd):
        for path in ("/w/a.txt", "d:/w/a.txt"):
            assert isinstance(shell.may_name(m, path), bool)
            assert isinstance(shell.may_reach(m, path), bool)


@given(st.text(), cwds)
def test_any_text(command: str, cwd: str | None) -> None:
    check(command, cwd)


@given(shellish, cwds)
def test_shell_shaped_text(command: str, cwd: str | None) -> None:
    check(command, cwd)


def test_deep_nesting_is_bounded() -> None:
    for opener in ("$(", "`", "<(", "(", "${", "$(("):
        check(opener * 3000 + "rm x", "/w")
        check("echo " + '"$(' * 2000 + "touch y", "/w")


def test_found_by_the_fuzzer() -> None:
    check("²<<<", None)  # a Unicode digit is no file descriptor
    check("head -n ٣ a.txt", "/w")
    assert shell.content_reads("head -n ٣ a.txt", "/w") == ()
    assert shell.content_reads("sed -n '٣p' a.txt", "/w") == ()


# -- the cwd never names a directory no run could be in -------------------------------------
# A command list of cds, tests and touches joined by ; && || (and `if` blocks) is run in
# every way it can run (each cd and test may succeed or fail); a touch the reading resolves
# must be in a directory one of those runs gives it, and a run where every cd succeeded
# and the touch ran must agree with the reading when it resolves the touch after ``;``.

_STEPS = ["cd a", "cd b", "cd ..", "[ -d x ]", "true", "false", "exit 1", "touch"]
_JOINS = ["; ", " && ", " || ", "\n"]


@st.composite
def _lists(draw: st.DrawFn, depth: int = 0) -> list:
    items: list = []
    for _ in range(draw(st.integers(1, 5))):
        join = draw(st.sampled_from(_JOINS)) if items else ""
        if depth == 0 and draw(st.integers(0, 5)) == 0:
            cond = draw(_lists(depth + 1))
            body = draw(_lists(depth + 1))
            other = draw(st.one_of(st.none(), _lists(depth + 1)))
            items.append((join if join in ("; ", "\n") else "; ", ("if", cond, body, other)))
        else:
            items.append((join, draw(st.sampled_from(_STEPS))))
    return items


def _render(items: list, counter: list[int]) -> str:
    out = []
    for join, step in items:
        if isinstance(step, tuple):
            _, cond, body, other = step
            text = f"if {_render(cond, counter)}; then {_render(body, counter)}"
            if other is not None:
                text += f"; else {_render(other, counter)}"
            text += "; fi"
        elif step == "touch":
            counter[0] += 1
            text = f"touch f{counter[0]}"
        else:
            text = step
        out.append(join + text)
    return "".join(out)


def _runs(items: list, cwd: str, status: int, seen: dict[str, set[str]], counter: list[int]
          ) -> list[tuple[str, int, bool]]:
    """Every (cwd, status, alive) the list can end in; ``seen`` collects each touch's
    directories."""
    ways = [(cwd, status, True)]
    for join, step in items:
        nxt: list[tuple[str, int, bool]] = []
        if isinstance(step, tuple):
            _, cond, body, other = step
            snapshot = counter[0]
            for c, s, alive in ways:
                counter[0] = snapshot
                runs_it = alive and (join.strip() in (";", "") or (join.strip() == "&&" and s == 0)
                                     or (join.strip() == "||" and s != 0))
                if not runs_it:
                    nxt.append((c, s, alive))
                    counter[0] = snapshot + _touches([(None, step)])
                    continue
                cond_ways = _runs(cond, c, s, seen, counter)
                mark = counter[0]  # the touches before the body, for every way of the test
                for c2, s2, a2 in cond_ways:
                    counter[0] = mark
                    if not a2:
                        nxt.append((c2, s2, a2))
                        continue
                    if s2 == 0:
                        nxt += _runs(body, c2, 0, seen, counter)
                        counter[0] = mark + _touches(body) + (_touches(other) if other else 0)
                    else:
                        counter[0] = mark + _touches(body)
                        nxt += _runs(other, c2, 0, seen, counter) if other else [(c2, 0, True)]
                        counter[0] = mark + _touches(body) + (_touches(other) if other else 0)
                counter[0] = snapshot + _touches([(None, step)])
            ways = nxt
            continue
        number = counter[0] + 1 if step == "touch" else 0
        for c, s, alive in ways:
            j = join.strip()
            if not alive or not (j in {"", ";"} or (j == "&&" and s == 0) or (j == "||" and s != 0)):
                nxt.append((c, s, alive))
                continue
            if step in ("cd a", "cd b", "cd .."):
                target = step[3:]
                moved = (c.rsplit("/", 1)[0] or "/") if target == ".." else f"{c.rstrip('/')}/{target}"
                nxt += [(moved, 0, True), (c, 1, True)]
            elif step == "[ -d x ]":
                nxt += [(c, 0, True), (c, 1, True)]
            elif step == "true":
                nxt.append((c, 0, True))
            elif step == "false":
                nxt.append((c, 1, True))
            elif step == "exit 1":
                nxt.append((c, 1, False))
            else:
                seen.setdefault(f"f{number}", set()).add(c)
                nxt += [(c, 0, True), (c, 1, True)]
        if step == "touch":
            counter[0] += 1
        ways = list(dict.fromkeys(nxt))
    return ways


def _touches(items: list) -> int:
    total = 0
    for _, step in items:
        if isinstance(step, tuple):
            _, cond, body, other = step
            total += _touches(cond) + _touches(body) + (_touches(other) if other else 0)
        elif step == "touch":
            total += 1
    return total


@given(_lists())
def test_a_resolved_cwd_is_one_some_run_is_in(items: list) -> None:
    command = _render(items, [0])
    seen: dict[str, set[str]] = {}
    _runs(items, "/w", 0, seen, [0])
    for m in shell.mutations(command, "/w"):
        if m.resolution == shell.UNRESOLVED:
            assert m.floating
            continue
        directory, name = m.path.rsplit("/", 1)
        if name in seen:  # a touch some run reaches
            assert (directory or "/") in seen[name], (command, m.path, seen[name])
