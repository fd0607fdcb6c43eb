"""The one line an OSError no typed error caught becomes: it says what failed."""

from __future__ import annotations

import errno

from pysift.cli.dispatch import os_error_line


def test_a_full_output_says_where_stdout_goes() -> None:
    line = os_error_line(OSError(errno.ENOSPC, "No space left on device"))
    assert line.startswith("cannot write the output: No space left on device")


def test_a_path_that_cannot_be_read_is_named() -> None:
    line = os_error_line(PermissionError(errno.EACCES, "Permission denied", "/h/x.jsonl"))
    assert line.startswith("cannot read /h/x.jsonl: Permission denied")


def test_another_failure_is_no_full_disk() -> None:
    # (a live pid's start time past the year 9999 had been reported as a full output)
    line = os_error_line(OSError(errno.EOVERFLOW, "Value too large for defined data type"))
    assert "output" not in line and "full disk" not in line
    assert line.startswith("a system call failed: Value too large")
