"""The Bash tokenizer: words after quote removal, operators, redirections, heredoc bodies."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pysift.core.shell import parse
from pysift.core.shell.lexer import tokenize


def words(src: str) -> list[str]:
    return [t.word.value for t in tokenize(src)[0] if t.kind == "word"]


def ops(src: str) -> list[str]:
    return [t.op for t in tokenize(src)[0] if t.kind == "op"]


@pytest.mark.parametrize("src, expected", [
    ("echo a b", ["echo", "a", "b"]),
    ("echo 'a b' \"c d\"", ["echo", "a b", "c d"]),
    ("echo a\\ b", ["echo", "a b"]),
    ("echo 'it'\"'\"'s'", ["echo", "it's"]),
    ('echo "a \\"q\\" \\$x \\n"', ["echo", 'a "q" $x \\n']),
    ("echo $'a\\tb'", ["echo", "a\tb"]),
    ("echo $HOME/x ${OUT:-/tmp}/y", ["echo", "$HOME/x", "${OUT:-/tmp}/y"]),
    ("echo $(date +%s) `whoami`", ["echo", "$(date +%s)", "`whoami`"]),
    ("rm -rf a\\\n  b", ["rm", "-rf", "a", "b"]),
    ("ls # a comment > not-a-file", ["ls"]),
    ("echo a#b", ["echo", "a#b"]),
    ("echo 2024-01-02", ["echo", "2024-01-02"]),
])
def test_words_after_quote_removal(src: str, expected: list[str]) -> None:
    assert words(src) == expected


def test_operators_between_commands() -> None:
    assert ops("a && b || c; d | e |& f & g\nh") == ["&&", "||", ";", "|", "|&", "&", "\n"]


def test_word_kinds() -> None:
    toks = {t.word.raw: t.word for t in tokenize("a \"$X\" *.py ~/x 'lit*' {a,b}.c a[0] \\*")[0]
            if t.kind == "word"}
    assert toks["a"].literal
    assert toks['"$X"'].dynamic and not toks['"$X"'].literal
    assert toks["*.py"].glob
    assert toks["~/x"].tilde
    assert toks["'lit*'"].literal  # a quoted star is a star
    assert toks["{a,b}.c"].glob
    assert toks["a[0]"].glob
    assert toks["\\*"].literal


def test_redirections_with_fds() -> None:
    redirs = [t.redirect for t in tokenize("cmd >out 2>>err &>all 2>&1 >&- <in 3>x >|y")[0]
              if t.kind == "redir"]
    got = [(r.op, r.fd, r.target.value, r.writes_file) for r in redirs]
    assert got == [(">", None, "out", True), (">>", 2, "err", True), ("&>", None, "all", True),
                   (">&", 2, "1", False), (">&", None, "-", False), ("<", None, "in", False),
                   (">", 3, "x", True), (">|", None, "y", True)]


def test_dev_sinks_are_not_files() -> None:
    redirs = [t.redirect for t in tokenize("cmd >/dev/null 2>/dev/stderr")[0] if t.kind == "redir"]
    assert [r.writes_file for r in redirs] == [False, False]


def test_heredoc_body_is_taken_off_the_command_stream() -> None:
    script = parse("cat > f.py <<'EOF'\nx = 1 > 0  # not a redirect\nrm -rf /\nEOF\npython f.py")
    assert [c.argv for c in script.commands] == [("cat",), ("python", "f.py")]
    doc = script.commands[0].redirects[1].heredoc
    assert doc.delimiter == "EOF" and doc.quoted and doc.terminated
    assert doc.body == "x = 1 > 0  # not a redirect\nrm -rf /\n"


def test_heredoc_dash_strips_tabs_and_unquoted_delimiter() -> None:
    doc = parse("cat <<-END\n\tone\n\t\ttwo\n\tEND\n").commands[0].redirects[0].heredoc
    assert doc.body == "one\ntwo\n" and not doc.quoted and doc.strip_tabs


def test_two_heredocs_on_one_line_read_in_order() -> None:
    script = parse("paste <(cat <<A\n1\nA\n) <<B\nb\nB\n")
    outer = script.commands[-1]
    assert outer.redirects[0].heredoc.body == "b\n"


def test_unterminated_heredoc_feeds_to_the_end() -> None:
    script = parse("cat > out <<EOF\nline one\nline two")
    doc = script.commands[0].redirects[-1].heredoc
    assert doc.body == "line one\nline two\n" and not doc.terminated
    assert script.complete  # bash runs it (with a warning)
    assert any("here-document" in p for p in script.problems)


def test_commit_message_idiom_substitution_with_a_heredoc() -> None:
    """The apostrophe and parenthesis in the body do not end the substitution early."""
    script = parse("git commit -m \"$(cat <<'EOF'\nDon't (really) fix it\nEOF\n)\" && git push")
    assert [c.argv[:2] for c in script.commands if c.substitution == 0] == [
        ("git", "commit"), ("git", "push")]
    inner = [c for c in script.commands if c.substitution == 1]
    assert inner[0].argv == ("cat",)
    assert inner[0].redirects[0].heredoc.body == "Don't (really) fix it\n"
    assert script.complete


@pytest.mark.parametrize("src", ["echo 'open", 'echo "open', "echo $(open", "echo `open",
                                 "echo ${open"])
def test_unterminated_constructs_are_refused_with_their_line(src: str) -> None:
    """bash refuses the line holding an unterminated construct: nothing of it ran."""
    script = parse(src)
    assert script.refusal is not None and script.refusal.cut == 0
    assert script.commands == ()
    script = parse("echo ran\n" + src)
    assert script.refusal is not None and script.refusal.cut == len("echo ran\n")
    assert [c.argv for c in script.commands] == [("echo", "ran")]
    assert not any(c.certain for c in script.commands)


def test_test_brackets_compare_instead_of_redirecting() -> None:
    script = parse("[[ $a > b ]] && echo ok > log")
    assert [r.target.value for c in script.commands for r in c.redirects] == ["log"]


def test_arithmetic_is_one_word() -> None:
    script = parse("(( i > 3 )) && touch x")
    assert script.commands[0].redirects == ()


# -- ANSI-C quotes: decoded as bash and zsh decode them, or not trusted ------------------------


@pytest.mark.parametrize("src, value", [
    ("rm $'\\x71'.txt", "q.txt"),
    ("rm $'q\\056txt'", "q.txt"),
    ("rm $'\\161.txt'", "q.txt"),
    ("rm $'\\u0071'.txt", "q.txt"),
    ("rm $'\\U00000071'.txt", "q.txt"),
    ("rm $'\\x7'", "\x07"),
    ("rm $'\\1611'", "q1"),
    ("rm $'\\0161'", "\x0e1"),
    ("rm $'\\xc3\\xa9'.txt", "é.txt"),  # UTF-8 bytes: the same name in every shell
    ("rm $'a\\tb\\e\\\\\\'\\\"\\?'", "a\tb\x1b\\'\"?"),
])
def test_ansi_c_escapes_are_decoded(src: str, value: str) -> None:
    [_, word] = [t.word for t in tokenize(src)[0] if t.kind == "word"]
    assert word.value == value and word.literal


@pytest.mark.parametrize("quote", [
    "$'\\cA'",  # zsh prints cA
    "$'\\q'", "$'\\8'",  # bash keeps the backslash, zsh drops it
    "$'\\x'", "$'\\u'", "$'\\x{71}'",
    "$'a\\0b'", "$'\\x00'", "$'\\400'",  # a NUL: bash ends the word, zsh keeps it
    "$'\\u00e9'", "$'\\U0001F600'",  # written in the locale's encoding (or refused)
    "$'\\xff'",  # not UTF-8
])
def test_an_ansi_c_quote_the_shells_may_read_apart_is_no_literal(quote: str) -> None:
    [_, word] = [t.word for t in tokenize(f"rm {quote}.txt")[0] if t.kind == "word"]
    assert word.dynamic and not word.literal and word.value == f"{quote}.txt"


_SHELLS = [s for s in ("bash", "zsh") if shutil.which(s)]
_ESCAPE = st.one_of(
    st.sampled_from(["\\a", "\\b", "\\e", "\\E", "\\f", "\\n", "\\r", "\\t", "\\v", "\\\\",
                     "\\'", '\\"', "\\?", "\\c", "\\q", "\\x", "\\u", "\\0"]),
    st.builds(lambda d, n: "\\x" + d[:n], st.text("0123456789abcdefABCDEFg", min_size=2,
                                                    max_size=2), st.integers(1, 2)),
    st.builds(lambda d: "\\" + d, st.text("012345678", min_size=1, max_size=4)),
    st.builds(lambda u, d: u + d, st.sampled_from(["\\u", "\\U"]),
              st.text("0123456789abcdef", min_size=1, max_size=9)),
    st.sampled_from(["\\ca", "\\cZ", "\\c@", "\\c[", "\\c?", "\\c1", "\\c\\\\"]),
    st.text("abq. _-", min_size=1, max_size=3),
)


@pytest.mark.skipif(len(_SHELLS) < 2, reason="needs bash and zsh")
@settings(max_examples=150, deadline=None)
@given(st.lists(_ESCAPE, min_size=1, max_size=4))
def test_prop_a_certain_ansi_c_value_is_what_bash_and_zsh_print(pieces: list[str]) -> None:
    from pysift.core.shell.lexer import ansi_c

    quote = "$'" + "".join(pieces) + "'"
    value, end, certain, closed = ansi_c(quote, 2)
    assert closed and end == len(quote)
    if not certain:
        return
    for name in _SHELLS:
        printed = subprocess.run([name, "-c", f"printf %s {quote}"], capture_output=True,
                                 check=False, timeout=10,
                                 env={"PATH": os.environ.get("PATH", ""),
                                      "LC_ALL": "C.UTF-8"}).stdout
        assert printed == value.encode("utf-8"), (name, quote)


@pytest.mark.parametrize(("src", "argv"), [
    ("rm ${s//{/x} b", ("rm", "${s//{/x}", "b")),
    ("rm ${a{b} c", ("rm", "${a{b}", "c")),
    ("rm ${a:-${b}}/c d", ("rm", "${a:-${b}}/c", "d")),
    ("rm ${a:-$(echo })} d", ("rm", "${a:-$(echo })}", "d")),
])
def test_a_parameter_expansion_ends_where_bash_ends_it(src: str, argv: tuple[str, ...]) -> None:
    """Inside ``${ }`` a bare ``{`` opens nothing (bash closes at the first ``}``); the
    reader had counted it and run the word to the end of the text, the next operands in it."""
    [command] = [c for c in parse(src).commands if not c.substitution]
    assert command.argv == argv
