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
    "\x00", "é", "\r",
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
