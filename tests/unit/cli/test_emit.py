"""Writing a report out: the text view is held and flushed (output.terminal.HeldTextOut)."""

from __future__ import annotations

from typing import TextIO

import pytest

from pysift.cli.emit import emit
from pysift.output.report import Report


def test_a_text_view_that_fails_half_way_still_shows_what_it_wrote(
        capsys: pytest.CaptureFixture[str]) -> None:
    def render(out: TextIO) -> None:
        out.write("SESSION 1\n")
        raise RuntimeError("a bug in the view")

    report = Report(command="list")
    report.text = render
    with pytest.raises(RuntimeError):
        emit(report)
    assert capsys.readouterr().out == "SESSION 1\n"


def test_a_text_view_goes_out_whole_and_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    report = Report(command="list")
    report.text = lambda out: [out.write(f"row {i}\x1b\n") for i in range(3)]
    emit(report)
    assert capsys.readouterr().out == "row 0\\x1b\nrow 1\\x1b\nrow 2\\x1b\n"
