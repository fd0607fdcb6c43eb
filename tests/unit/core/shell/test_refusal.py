"""A command the shell refuses (a syntax error) changed nothing: half-formed Bash gives
no mutation row, no write recover could replay, and the lines bash ran before the
refused one keep theirs. Each shape is held to bash's own parser (``bash -n``) when
bash is on the machine."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pysift.core.shell import content_reads, content_writes, mutations, opaque_markers, parse

CWD = "/home/ada/proj"
_BASH = shutil.which("bash")


def bash_parses(source: str) -> bool:
    """Whether bash's parser takes ``source`` (extglob off, as Claude Code runs it). A
    ``[[ ]]`` syntax error is printed while ``bash -n`` still exits 0: any stderr line
    but a warning (a here-document ended by the text's end) is a refusal."""
    assert _BASH is not None
    done = subprocess.run([_BASH, "-n", "-c", source], check=False, capture_output=True,
                          timeout=10)
    said = [line for line in done.stderr.decode(errors="replace").splitlines()
            if line.strip() and "warning:" not in line]
    return done.returncode == 0 and not said


# Half-formed commands, each of which bash refuses with a syntax error.
HALF_FORMED = [
    "rm <( ${X}/a",  # an unclosed process substitution (the shape found)
    "rm >( tee a",
    "rm $(ls a",
    "rm `ls a",
    "rm 'a b",
    'rm "a b',
    "rm ${X/a",
    "rm $'a",
    "{ rm a",
    "{ rm a; echo b",
    "( rm a",
    "rm a; (",
    "rm a )",
    "rm a b)",
    "mv a b &&",
    "rm a ||",
    "rm a |",
    "rm a && && rm b",
    "; rm a",
    "rm a; ; rm b",
    "rm a;;",
    "if true; then rm a",
    "for f in a b; do rm $f",
    "while true; do rm a",
    "case $x in a) rm a",
    "rm a; done",
    "rm a && fi",
    "rm a; }",
    "rm a; esac",
    "echo hi > a.txt 'oops",
    "echo hi >",
    "cat <<",
    "( rm a && )",
    "f() ",
    "touch a && { rm b; ( rm c; }",
    "echo $(rm a",
]

# Whole commands that look half-formed to a careless reader: bash parses every one.
WHOLE = [
    "{ rm a; }",
    "( rm a ) && rm b",
    "f() { rm a; }",
    "f()\n{\n  rm a\n}",
    "case $x in a) rm a;; (b|c) rm b;; *) ;; esac",
    "case $x in\n  a) rm a\nesac",
    "x=$(case a in a) echo;; esac); rm a",
    "if [ -f a ]; then rm a; elif true; then rm b; else rm c; fi",
    "for f in a b; do rm $f; done",
    "for ((i=0; i<3; i++)); do rm a$i; done",
    "while read l; do rm \"$l\"; done < list",
    "[[ -f a && ( -f b || -f c ) ]] && rm a",
    "(( x > 1 )) && rm a",
    "rm a &&\n  rm b",
    "rm a |\n  cat",
    "rm a &\nrm b",
    "! rm a",
    "time rm a",
    "arr=(a b); rm \"${arr[@]}\"",
    "echo $(( (1 + 2) * 3 )) > n",
    "cat > a <<'EOF'\n)\n}\nfi\nEOF",
    "echo ')' '}' \"fi\" > a",
    "rm a # ( unclosed in a comment",
    "echo \"$(rm a)\"",
    "rm $(ls 'a)')",
    "cat <<EOF > out\nno end",
    "rm ${s//{/x} b",  # a bare { inside ${ } opens nothing (bash closes at the first })
    "echo ${a:-$(echo })} > f",
    "echo ${a:-`echo }`} > f",
    "cd d:/w && time",  # `time` or `!` alone is a whole command (found cutting real ones)
    "rm a && !",
    "time ; ! ; rm a",
    "! { rm a; }",
]


@pytest.mark.parametrize("source", HALF_FORMED)
def test_a_half_formed_command_changes_nothing(source: str) -> None:
    script = parse(source)
    assert script.refusal is not None and script.refusal.cut == 0, script.problems
    assert script.commands == ()
    assert mutations(source, CWD) == ()
    assert content_writes(source, CWD) == ()
    assert content_reads(source, CWD) == ()
    assert opaque_markers(source) == ()


@pytest.mark.parametrize("source", WHOLE)
def test_a_whole_command_is_read(source: str) -> None:
    script = parse(source)
    assert script.refusal is None, (script.refusal, script.problems)
    assert script.commands


@pytest.mark.skipif(_BASH is None, reason="needs bash")
@pytest.mark.parametrize("source", HALF_FORMED)
def test_bash_refuses_each_half_formed_shape(source: str) -> None:
    assert not bash_parses(source)


@pytest.mark.skipif(_BASH is None, reason="needs bash")
@pytest.mark.parametrize("source", WHOLE)
def test_bash_parses_each_whole_shape(source: str) -> None:
    assert bash_parses(source)


@pytest.mark.parametrize("source", HALF_FORMED)
def test_the_lines_before_the_refused_one_ran(source: str) -> None:
    """bash reads a ``-c`` string a complete line at a time: the lines before the one
    holding the error ran, read as they would be alone (never certain: the string
    ended refused)."""
    head = "cd src && touch made.txt\nrm -f old.txt\n"
    script = parse(head + source)
    assert script.refusal is not None and script.refusal.cut == len(head)
    assert [(m.path, m.resolution) for m in mutations(head + source, CWD)] == [
        (f"{CWD}/src/made.txt", "cd-tracked"), (f"{CWD}/src/old.txt", "cd-tracked")]
    assert not any(c.certain for c in script.commands)


def test_a_line_joined_to_the_refused_one_did_not_run() -> None:
    # an && at a line's end, an open group, a pending pipe: one command line with the next
    for head in ("touch a &&\n", "{ touch a\n", "touch a |\n", "if true; then touch a\n"):
        assert mutations(head + "rm b )", CWD) == (), head


def test_content_writes_of_the_lines_that_ran_are_never_clean() -> None:
    source = "cat > a.txt <<'EOF'\nhello\nEOF\necho 'oops"
    [write] = content_writes(source, CWD)
    assert (write.path, write.content, write.clean) == (f"{CWD}/a.txt", "hello\n", False)


@pytest.mark.skipif(_BASH is None, reason="needs bash")
def test_a_whole_command_cut_anywhere_is_refused_only_as_bash_refuses_it() -> None:
    """A command cut short (a transcript's half-formed call) at every position: a
    refusal is bash's, and the lines before its cut parse (a cut real command had shown
    `cd x && time` refused: a bare `time` is a command)."""
    for whole in WHOLE:
        for end in range(1, len(whole)):
            source = whole[:end]
            script = parse(source)
            if script.refusal is not None:
                assert not bash_parses(source), (source, script.refusal)
                assert bash_parses(source[:script.refusal.cut]), (source, script.refusal)


# -- generated: bash has the last word ------------------------------------------------------


_PIECES = ["rm a", "touch b", "${a{b}", "echo c > d", "cd x", "mv e f", ";", "&&", "||", "|", "&",
           "\n", "(", ")", "{", "}", "if true; then", "fi", "for i in 1; do", "done",
           "case $x in", "a)", ";;", "esac", "$(", "<(", "`", "'", '"', "${X", "# c", "f()",
           "[[ -f a ]]", "((1))", "cat <<EOF\nbody\nEOF\n"]


@pytest.mark.skipif(_BASH is None, reason="needs bash")
@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_PIECES), st.sampled_from([" ", "\n"])),
                min_size=1, max_size=12))
def test_a_refusal_is_bashs_and_the_lines_before_it_parse(
        pieces: list[tuple[str, str]]) -> None:
    """Whatever the pieces: a string pysift calls refused is one bash refuses, the
    text before its cut is one bash parses, and its rows are those of that text."""
    source = "".join(piece + gap for piece, gap in pieces)
    script = parse(source)
    if script.refusal is None:
        return
    assert not bash_parses(source), (source, script.refusal)
    prefix = source[:script.refusal.cut]
    assert bash_parses(prefix), (source, script.refusal)
    assert mutations(source, CWD) == mutations(prefix, CWD)


def test_a_brace_inside_a_parameter_expansion_opens_nothing() -> None:
    """``${s//{/x}`` ends at its first ``}`` as bash reads it (the reader had counted the
    ``{`` and run the word to the end of the text: unterminated, so refused)."""
    assert [(m.path, m.resolution) for m in mutations("rm ${s//{/x} b", CWD)] == [
        ("${s//{/x}", "unresolved"), (f"{CWD}/b", "cwd-joined")]


# -- a `}` word inside a `{` group: bash's argument, zsh's closing brace -------------------

# (source, the paths its rows name under CWD, whether bash parses it). A `}` after a
# command's first word is an argument to bash, so `{ rm a }` leaves the group open and
# bash refuses the whole string; zsh closes the group there and removes `a`. Only zsh
# can have run a string bash refuses, so its reading is the one kept; where bash parses
# the string, bash's stands. A file named `}` is never a row of a group bash refused.
BRACE_WORDS = [
    ("{ rm a }", ["a"], False),
    ("{ rm a; }", ["a"], True),
    ("{ rm a }; rm b", ["a", "b"], False),
    ("{ rm a } && rm b", ["a", "b"], False),
    ("{ rm a }\nrm b", ["a", "b"], False),
    ("{ echo x > f }", ["f"], False),
    ("{ { rm a } }", ["a"], False),
    ("( { rm a } )", ["a"], False),
    ("echo $( { rm a } )", ["a"], False),
    ("{ echo } ; }", [], True),  # bash: echo prints `}`; the group closes at the last one
    ("{ rm a }; }", ["a", "}"], True),  # bash removes a file named `}` (zsh refuses it)
    ("rm a }", ["a", "}"], True),  # no group open: bash's argument
    ("rm '}' \"}\" \\}", ["}", "}", "}"], True),  # quoted: a name in both shells
    ("{ rm ${x} a; }", ["${x}", "a"], True),
    ("{ rm ${x} }", ["${x}"], False),
    # zsh not known to take these: bash's refusal stands, nothing of the line ran
    ("{ if true; then rm a }", [], False),
    ("touch t\n{ rm a } }", ["t"], False),
    ("{ rm a}", [], False),  # (zsh splits `a}`: not modelled, so claimed as nothing)
]


def _paths(source: str) -> list[str]:
    return [m.path.removeprefix(CWD + "/") for m in mutations(source, CWD)]


@pytest.mark.parametrize(("source", "paths", "bash_ok"), BRACE_WORDS)
def test_a_brace_word_in_a_group_is_read_by_the_shell_that_can_have_run_it(
        source: str, paths: list[str], bash_ok: bool) -> None:
    assert _paths(source) == paths, parse(source).problems
    if paths == [] and not bash_ok:
        assert parse(source).refusal is not None


@pytest.mark.skipif(_BASH is None, reason="needs bash")
@pytest.mark.parametrize(("source", "paths", "bash_ok"), BRACE_WORDS)
def test_bash_parses_each_brace_word_shape_as_the_table_says(
        source: str, paths: list[str], bash_ok: bool) -> None:
    assert bash_parses(source) is bash_ok


def test_a_group_closed_by_zsh_runs_nothing_certain_inside_it() -> None:
    """What follows a group zsh closed mid-line runs as after any group (certain when
    the string ends with status 0: only zsh can have ended so); the group's body never
    is, as in `{ a; }`."""
    script = parse("{ echo x > f }; touch g")
    assert [(c.argv, c.certain) for c in script.commands] == [
        (("echo", "x"), False), (("touch", "g"), True)]
    [write] = content_writes("{ echo x > f }", CWD)
    assert (write.path, write.content, write.clean) == (f"{CWD}/f", "x\n", False)
