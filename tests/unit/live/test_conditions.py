"""The ``--until`` grammar: how a condition's text splits into its patterns."""

from __future__ import annotations

import pytest

from pysift.errors import UsageError
from pysift.live.conditions import parse


@pytest.mark.parametrize(("text", "path", "line"), [
    ("write:C:\\\\src\\\\.*\\.py", "C:\\src\\a.py", None),
    ("write:C:/src/.*\\.py:TODO", "C:/src/a.py", "# TODO"),
    ("write:^D:\\\\ws\\\\a\\.py:^x$", "D:\\ws\\a.py", "x"),
    ("write:(?i)c:\\\\Users\\\\.*", "C:\\Users\\ada\\n.txt", None),
])
def test_a_windows_drive_letter_stays_in_the_path_pattern(text: str, path: str,
                                                          line: str | None) -> None:
    """`write:C:\\src\\…` split at the drive letter's colon made PATH_RE `C` (any path
    holding a C) and the path the LINE_RE: a wait for a Windows write never fired."""
    cond = parse(text)
    assert cond.first.matches(path)
    assert not cond.first.matches("/home/Cara/src/a.py")
    if line is None:
        assert cond.second is None
    else:
        assert cond.second is not None and cond.second.matches(line)


def test_the_first_colon_still_splits_a_posix_path_pattern() -> None:
    cond = parse("write:src/.*\\.py:TODO")
    assert cond.first.matches("/w/src/a.py") and cond.second.matches("TODO: x")
    cond = parse("write:ab:\\\\x")  # two letters: no drive, the first `:` splits
    assert cond.first.matches("/ab") and cond.second is not None


@pytest.mark.parametrize("cond", ["tool:Bash:(unclosed", "write:src/(x", "notification:(x"])
def test_a_bad_regex_is_quoted_as_written(cond: str) -> None:
    """The case-sensitivity prefix pysift adds is its own business: the error shows the
    pattern the user wrote, once."""
    with pytest.raises(UsageError) as caught:
        parse(cond)
    message = str(caught.value)
    pattern = cond.rsplit(":", 1)[1]
    assert "(?-i)" not in message
    assert message.count(pattern) == 1 and f"bad regex `{pattern}`: invalid regex" in message
