"""One Report per command; two writers (text, NDJSON envelope) consume it.

A command builds a ``Report`` and never prints. ``header`` and ``summary`` are the JSON
envelope's first and last lines; ``rows`` are kind-tagged dicts projected key by key;
``text`` lays the same data out for a reader; ``notes`` go to stderr.

The summary and the text view come from ONE object, the command's result (``Answer``):
it holds every figure both state (totals, drops, skipped lines), so the JSON summary and
the text footer cannot drift apart. ``Report.answer(result)`` takes both from it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol, TextIO

Row = dict[str, Any]


class Answer(Protocol):
    """What a command found, as the one object its JSON summary and its text view read."""

    def summary(self) -> Row: ...

    def render_text(self, out: TextIO) -> None: ...


@dataclass
class Report:
    command: str
    header: Row = field(default_factory=dict)
    rows: list[Row] = field(default_factory=list)
    summary: Row = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # stderr lines (without the prefix)
    exit_code: int = 0
    text: Callable[[TextIO], object] | None = None  # text view; None = no text form
    raw_lines: Iterable[bytes] | None = None  # --raw: verbatim bytes for stdout
    bare_json: Row | None = None  # a command whose JSON is one object, no envelope
    row_builder: Callable[[], list[Row]] | None = None  # rows built only if JSON is written

    def json_rows(self) -> list[Row]:
        if self.row_builder is not None and not self.rows:
            self.rows = self.row_builder()
            self.row_builder = None
        return self.rows

    def note(self, message: str) -> None:
        self.notes.append(message)

    def answer(self, result: Answer) -> None:
        """The summary and the text view, both from ``result``."""
        self.summary = result.summary()
        self.text = result.render_text
