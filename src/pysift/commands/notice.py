"""The cleanup notice ``list`` and ``stats`` add under their rows (SPEC §14)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pysift.core.cleanup import Notice, near_cleanup
from pysift.disk.layout import Transcript
from pysift.model.env import Env
from pysift.output.report import Report

if TYPE_CHECKING:
    from pysift.disk.cache import Store


def cleanup_notice(report: Report, transcripts: list[Transcript], env: Env,
                   store: Store | None = None) -> Notice | None:
    """The sessions in scope Claude Code is about to delete and the archive lacks (None
    when there are none): the result object puts it in the summary (``cleanup_notice``)
    and under the text. What could not be read of the settings goes to the notes.
    ``store``: the run's cache, whose probes already took most files' ``stat``."""
    if store is None:
        notice, notes = near_cleanup(transcripts, env.claude_home, env.environ, env.cwd,
                                     env.now())
    else:
        notice, notes = near_cleanup(transcripts, env.claude_home, env.environ, env.cwd,
                                     env.now(), store.stat)
    report.notes.extend(notes)
    return notice
