"""``pysift verbatim TARGET --fold-index``: the seed-index v2 records of the compactions.

The output is the bare record stream, one JSON object per line and no envelope, so that
redirected to a file it is a valid ``seed-index.jsonl``. A transcript with no compaction
adds nothing and says so on stderr."""

from __future__ import annotations

import orjson

from pysift.core.resolve import Scope
from pysift.model.env import Env
from pysift.output.fields import target_ref
from pysift.output.report import Report


def _line(record: dict) -> bytes:  # type: ignore[type-arg]
    try:
        return orjson.dumps(record)
    except TypeError:  # a lone surrogate (a transcript's cut emoji) is spelled out
        from pysift.output.surrogates import json_safe

        return orjson.dumps(json_safe(record))


def fold_index_report(scope: Scope, env: Env) -> Report:
    from pysift.errors import SourceError
    from pysift.seedindex.extract import fold_index

    report = Report(command="verbatim")
    report.notes.extend(scope.notes)
    lines: list[bytes] = []
    for transcript in scope.transcripts:
        ref = target_ref(transcript.session_id, transcript.path)
        try:
            index = fold_index(transcript)
        except SourceError as exc:
            report.note(f"warning: skipped: {exc}")
            continue
        if not index.records:
            report.note(f"note: {ref} has no compaction — its fold index is empty")
        if index.skipped_lines:
            report.note(f"note: {ref}: {index.skipped_lines} malformed line(s) skipped among "
                        "the records read (pysift stats counts the whole file)")
        lines.extend(_line(record) for record in index.records)
    report.raw_lines = lines
    return report
