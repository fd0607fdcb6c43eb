"""Content-bearing writes and reads (what recover can replay from the command text)."""

from __future__ import annotations

import pytest

from pysift.core.shell import content_reads, content_writes

CWD = "/w"


def writes(command: str) -> list[tuple]:
    return [(w.path, w.mode, w.content, w.source, w.clean, w.exclusive)
            for w in content_writes(command, CWD)]


@pytest.mark.parametrize("command, expected", [
    ("cat > a.txt <<'EOF'\nx = $HOME\n`y`\nEOF", [("/w/a.txt", "truncate", "x = $HOME\n`y`\n", "heredoc", True, True)]),
    ("cat <<EOF > a.txt\nplain\nEOF", [("/w/a.txt", "truncate", "plain\n", "heredoc", True, True)]),
    ("cat <<EOF > a.txt\nhome is $HOME\nEOF", [("/w/a.txt", "truncate", None, "heredoc", True, True)]),
    ("cat >> log <<'EOF'\nmore\nEOF", [("/w/log", "append", "more\n", "heredoc", True, True)]),
    ("cat > a.txt <<'EOF'\nunfinished", [("/w/a.txt", "truncate", None, "heredoc", True, True)]),
    ("tee notes.md <<'EOF'\n# t\nEOF", [("/w/notes.md", "truncate", "# t\n", "tee", True, True)]),
    ("tee -a notes.md <<'EOF'\n- item\nEOF", [("/w/notes.md", "append", "- item\n", "tee", True, True)]),
    ("echo hello world > g.txt", [("/w/g.txt", "truncate", "hello world\n", "echo", True, True)]),
    ("echo -n 'a  b' > g.txt", [("/w/g.txt", "truncate", "a  b", "echo", True, True)]),
    ("echo -e 'a\\nb' > g.txt", [("/w/g.txt", "truncate", None, "echo", True, True)]),
    ("echo $X > g.txt", [("/w/g.txt", "truncate", None, "echo", False, True)]),
    ("printf 'no newline' > p", [("/w/p", "truncate", "no newline", "printf", True, True)]),
    ("printf '%s\\n' a > p", [("/w/p", "truncate", None, "printf", True, True)]),
    (": > empty.log", [("/w/empty.log", "truncate", "", "colon", True, True)]),
    ("truncate -s 0 big.log", [("/w/big.log", "truncate", "", "truncate", True, True)]),
    ("truncate -s 10M big.log", []),
    ("make > build.log 2>&1", [("/w/build.log", "truncate", None, "redirect", True, True)]),
    ("npm test 2> err.log", [("/w/err.log", "truncate", None, "redirect", True, True)]),
    ("echo a > x && echo b >> x", [("/w/x", "truncate", "a\n", "echo", True, False),
                                   ("/w/x", "append", "b\n", "echo", True, False)]),
    ("cat > run.sh <<'EOF'\necho hi\nEOF\nchmod +x run.sh && ./run.sh",
     [("/w/run.sh", "truncate", "echo hi\n", "heredoc", True, True)]),
    ("(cd sub && echo x > y)", [("/w/sub/y", "truncate", "x\n", "echo", False, True)]),
])
def test_content_writes(command: str, expected: list[tuple]) -> None:
    assert writes(command) == expected


def test_python_heredoc_is_a_script_not_file_content() -> None:
    assert writes("python3 - <<'PY' > out.txt\nprint(1)\nPY") == [
        ("/w/out.txt", "truncate", None, "redirect", True, True)]


@pytest.mark.parametrize("command, expected", [
    ("cat src/a.py", [("/w/src/a.py", 1, None, "cat")]),
    ("head -n 40 a.py", [("/w/a.py", 1, 40, "head")]),
    ("head -n40 a.py", [("/w/a.py", 1, 40, "head")]),
    ("head -25 a.py", [("/w/a.py", 1, 25, "head")]),
    ("sed -n '10,20p' a.py", [("/w/a.py", 10, 20, "sed")]),
    ("sed -n '7p' a.py", [("/w/a.py", 7, 7, "sed")]),
    ("sed -n '30,$p' a.py", [("/w/a.py", 30, None, "sed")]),
    ("cat a.py b.py", []),
    ("cat -n a.py", []),
    ("cat a.py | head", []),
    ("cd src && cat a.py", []),
    ("cat a.py > b.py", []),
    ("cat $F", []),
    ("sed -n '20,10p' a.py", []),
    ("head -n 0 a.py", []),
    ("tail -n 5 a.py", []),
])
def test_content_reads(command: str, expected: list[tuple]) -> None:
    got = [(r.path, r.start, r.end, r.source) for r in content_reads(command, CWD)]
    assert got == expected


@pytest.mark.parametrize("command", [
    "test -f g.txt || echo x > g.txt",
    "true || echo x > g.txt",
    "[ -e x ] && echo x > g.txt; true",
    "if [ -f g.txt ]; then :; else echo x > g.txt; fi",
    "for i in 1 2 3; do echo x >> g.txt; done",
    "while false; do echo x > g.txt; done",
    "case y in x) echo x > g.txt;; esac",
    "f() { echo x > g.txt; }; echo done",
    "exit 0; echo x > g.txt",
])
def test_a_write_that_may_not_run_once_is_never_clean(command: str) -> None:
    [(path, _, content, _, clean, _)] = writes(command)
    assert path == "/w/g.txt" and content is not None and clean is False


@pytest.mark.parametrize("command", [
    "mkdir -p d && echo x > g.txt",  # a final status 0 proves the && chain ran
    "cd /w && echo x > g.txt",
    "echo x > g.txt || true",
    "echo x > g.txt; exit 0",
])
def test_a_write_that_certainly_runs_once_stays_clean(command: str) -> None:
    [(_, _, _, _, clean, _)] = writes(command)
    assert clean is True


@pytest.mark.parametrize("command, content", [
    # zsh (a Mac's shell) expands backslash escapes in echo's arguments, drops a lone
    # `-` first operand and expands `=word`; a record never says which shell ran
    ("echo 'a\\tb' > g.txt", None),
    ('echo "a\\\\b" > g.txt', None),
    ("echo a\\\\b > g.txt", None),
    ("echo - x > g.txt", None),
    ("echo =ls > g.txt", None),
    ("echo -E 'a\\tb' > g.txt", "a\\tb\n"),  # both shells print it as typed
    ("echo a = b > g.txt", "a = b\n"),
    ("echo -- x > g.txt", "-- x\n"),  # both print the --
    ("printf 'tab-free' > g.txt", "tab-free"),
])
def test_echo_is_an_anchor_only_where_bash_and_zsh_agree(command: str, content: str | None
                                                         ) -> None:
    [(_, _, got, _, _, _)] = writes(command)
    assert got == content


@pytest.mark.parametrize("command, exclusive", [
    ("echo hi > g.txt && sed -i s/h/j/ *.txt", False),  # the glob may match g.txt
    ('echo hi > g.txt; rm -f "$TMP"', False),  # $TMP may be g.txt, or a dir holding it
    ("echo hi > g.txt && sed -i s/h/j/ *.md", True),
    ('echo hi > g.txt; rm -f "$TMP/out.log"', True),  # its last name is not g.txt
    ("echo hi > g.txt; rm -f /tmp/*.txt", True),  # another directory
])
def test_a_pattern_that_may_name_the_written_file_makes_it_not_exclusive(
        command: str, exclusive: bool) -> None:
    assert writes(command)[0][5] is exclusive
