"""A zero match's look at the persisted tool outputs a search without
``--resolve-persisted`` reads only as their previews (``persisted_unseen``).

Kept apart from ``unseen`` (which loads the classifier): a zero over a home with persisted
outputs reads them without paying for the classifier's import.
"""

from __future__ import annotations

import os

from pysift.disk.layout import Transcript, persisted_outputs
from pysift.disk.mapped import open_buffer, read_regular
from pysift.engines.search.plan import SearchPlan

# the check stops once this many files are found (the note then says "at least")
PERSISTED_LIMIT = 100


def persisted_unseen(transcripts: list[Transcript], plan: SearchPlan,
                     limit: int = PERSISTED_LIMIT) -> list[str]:
    """The persisted tool outputs (``<session>/tool-results/*``) of the sessions in scope
    whose text the pattern matches and that a transcript of their session names (a tool
    result's pointer, which ``--resolve-persisted`` follows), at most ``limit``: a search
    without the flag reads only the preview its carrier holds, as csift does, so a pattern
    only in the rest made a DEFINITIVE zero that the flag turned into a match. Each file
    is read whole (as the flag reads it), after a zero only; one that cannot be read is
    passed over (the flag's run would warn; this one never reads them), and so is one no
    transcript names (a background task's output: no record's text, nor the flag's)."""
    needles = plan.matcher.needles  # every match holds one, as the file spells it
    found: list[str] = []
    for path in sorted(persisted_outputs(transcripts)):
        try:
            data = read_regular(path)
        except OSError:
            continue
        if needles is not None and not needles.any_in(data):
            continue
        text = data.decode("utf-8", errors="replace")
        if plan.matcher.search(text) is not None and _named_by_its_session(path, transcripts):
            found.append(path)
            if len(found) >= limit:
                break
    return found


def _named_by_its_session(path: str, transcripts: list[Transcript]) -> bool:
    """Whether a transcript of the session whose dir holds ``path`` names its file."""
    session_dir = os.path.dirname(os.path.dirname(path))
    name = os.path.basename(path).encode("utf-8", "surrogateescape")
    for transcript in transcripts:
        if str(transcript.project_dir / transcript.parent_session_id) != session_dir:
            continue
        try:
            if open_buffer(transcript.path).find(name) >= 0:
                return True
        except Exception:  # noqa: BLE001 - SourceError: already reported by the run
            continue
    return False
