"""``pysift verbatim TARGET --fold-index``: the seed-index v2 records of the compactions.

The output is the bare record stream, one JSON object per line and no envelope, so that
redirected to a file it is a valid ``seed-index.jsonl``. A transcript with no compaction
adds nothing and says so on stderr."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from pysift.core.resolve import Scope
from pysift.model.fastdata import dataclass
from pysift.output.fields import target_ref
from pysift.output.report import Report

if TYPE_CHECKING:
    from pysift.seedindex.extract import FoldIndex


def _line(record: dict[str, Any]) -> bytes:
    from pysift.seedindex.extract import raw_json  # the spans, laid out by the engine

    try:
        return orjson.dumps(record, default=raw_json)
    except TypeError:  # a lone surrogate (a transcript's cut emoji) is spelled out
        from pysift.output.surrogates import json_safe

        return orjson.dumps(json_safe(record), default=raw_json)


@dataclass(frozen=True)
class FoldIndexResult:
    """The fold indexes of the transcripts in scope, in scope order: the record stream
    stdout carries, and what stderr says about each transcript."""

    indexes: list[FoldIndex]

    def lines(self) -> list[bytes]:
        return [_line(record) for index in self.indexes for record in index.records]

    def notes(self) -> list[str]:
        notes = []
        for index in self.indexes:
            t = index.transcript
            if index.error is not None:
                continue  # said and counted by the report (``unread``)
            ref = target_ref(t.session_id, t.path)
            if not index.records:
                notes.append(f"note: {ref} has no compaction — its fold index is empty")
            if index.skipped_lines:
                notes.append(f"note: {ref}: {index.skipped_lines} malformed line(s) skipped")
        return notes


def fold_index_report(scope: Scope) -> Report:
    from pysift.seedindex import extract

    result = FoldIndexResult(extract.run(scope.transcripts))
    report = Report(command="verbatim")
    report.take_scope(scope)
    for index in result.indexes:
        if index.error is not None:
            report.unread(f"warning: skipped: {index.error}")
    report.notes.extend(result.notes())
    report.raw_lines = result.lines()
    return report
