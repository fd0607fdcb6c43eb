"""The cleanup notice ``list`` and ``stats`` add under their rows (SPEC §14)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pysift.core.cleanup import FileTimes, Notice, file_times, near_cleanup
from pysift.disk.layout import Transcript
from pysift.model.env import Env
from pysift.output.report import Report

if TYPE_CHECKING:
    from pysift.disk.cache import Store


def cleanup_notice(report: Report, transcripts: list[Transcript], env: Env,
                   known: Sequence[FileTimes | None] | None = None) -> Notice | None:
    """The sessions in scope Claude Code is about to delete and the archive lacks (None
    when there are none): the result object puts it in the summary (``cleanup_notice``)
    and under the text. What could not be read of the settings goes to the notes.
    ``known``: the transcripts' ``stat`` as the caller took it this run (``near_cleanup``)."""
    notice, notes = near_cleanup(transcripts, env.claude_home, env.environ, env.cwd,
                                 env.now(), known)
    report.notes.extend(notes)
    return notice


def probed_times(store: Store | None, transcripts: list[Transcript]
                 ) -> list[FileTimes | None] | None:
    """What the run's cache probes found of each transcript's ``stat`` (None where no
    probe looked at it in this process), for ``cleanup_notice``'s ``known``."""
    if store is None:
        return None
    seen = store.seen
    found = [seen.get(os.fspath(t.path)) for t in transcripts]
    return [None if st is None else file_times(st) for st in found]
