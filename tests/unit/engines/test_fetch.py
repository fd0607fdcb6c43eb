"""The addressing view of one transcript (``engines.fetch``): its elicitation sidecar."""

from __future__ import annotations

from builders import (
    ClaudeHome,
    Session,
    assistant,
    auq_use,
    elicitation_pending,
    garbage_line,
    stable_uuid,
    user,
)
from pysift.disk.layout import transcript_from_path
from pysift.engines.fetch import TranscriptView


def test_the_sidecar_is_read_once_and_its_malformed_lines_count_once(home: ClaudeHome) -> None:
    """show asks for the pending records at more than one place (t0 of an empty file, the
    latest turn, a --uuid): a second read had added the sidecar's torn lines again."""
    sid = stable_uuid("fetch-sidecar")
    s = Session(sid, cwd="/w/db")
    s.add(user("pick a database"))
    path = home.session("/w/db", sid, s)
    ask = s.stamp(assistant(auq_use([{"question": "Which?", "options": ["A", "B"]}],
                                    id="toolu_db")), commit=False)
    home.sidecar(path, [elicitation_pending(ask, "toolu_db"), garbage_line()])
    view = TranscriptView(transcript_from_path(path))
    first = view.sidecar_records()
    assert [r.uuid for r in first] == [ask["uuid"]]
    assert view.sidecar_records() == first
    assert view.tally.malformed == 1
