"""One Report per command; two writers (text, NDJSON envelope) consume it.

A command builds a ``Report`` and never prints. ``header`` and ``summary`` are the JSON
envelope's first and last lines; ``rows`` are kind-tagged dicts projected key by key;
``text`` lays the same data out for a reader; ``notes`` go to stderr.

The summary and the text view come from ONE object, the command's result (``Answer``):
it holds every figure both state (totals, drops, skipped lines), so the JSON summary and
the text footer cannot drift apart. ``Report.answer(result)`` takes both from it.

What exists but could not be read is said twice: each thing by a stderr warning, and
their number as the summary's ``unreadable`` (every command's, written by the envelope):
``take_scope`` brings the scope's, ``unread`` adds what the command's own reads met.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import field
from typing import Any, Protocol, TextIO

from pysift.model.fastdata import dataclass

Row = dict[str, Any]


class ScopeLike(Protocol):
    """What a resolved scope tells the report (``core.resolve.Scope``)."""

    notes: list[str]
    unreadable: list[tuple[str, str]]


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
    # files and dirs that exist but could not be read (each named in a note): the
    # summary's ``unreadable``
    unreadable: int = 0

    def json_rows(self) -> list[Row]:
        if self.row_builder is not None and not self.rows:
            self.rows = self.row_builder()
            self.row_builder = None
        return self.rows

    def note(self, message: str) -> None:
        self.notes.append(message)

    def take_scope(self, scope: ScopeLike) -> None:
        """The scope's warnings (what its walk could not read) and their count."""
        self.notes.extend(scope.notes)
        self.unreadable += len(scope.unreadable)

    def unread(self, warning: str) -> None:
        """A file the command's own reads could not read: said and counted."""
        self.notes.append(warning)
        self.unreadable += 1

    def unread_each(self, warnings: Iterable[str]) -> None:
        """Each warning about a file the command could not read, said and counted once
        (a second read of the same file, by another pass, warns in the same words)."""
        for warning in warnings:
            if warning not in self.notes:
                self.unread(warning)

    def answer(self, result: Answer) -> None:
        """The summary and the text view, both from ``result``."""
        self.summary = result.summary()
        self.text = result.render_text
