"""A zero match's look at the persisted tool outputs a search without
``--resolve-persisted`` reads only as their previews (``persisted_unseen``).

Kept apart from ``unseen`` (which loads the classifier): a zero over a home with persisted
outputs reads them without paying for the classifier's import, which only a file holding
the pattern and named by a line of its session needs (that line is read as the search
reads it, to learn whether the search reached it).
"""

from __future__ import annotations

import os
from dataclasses import replace

from pysift.disk.layout import Transcript, persisted_outputs
from pysift.disk.lines import Buffer, line_end, line_start
from pysift.disk.mapped import open_buffer, read_regular
from pysift.engines.search.plan import SearchPlan
from pysift.model import labels as L
from pysift.model.record import Record

# the check stops once this many files are found (the note then says "at least")
PERSISTED_LIMIT = 100


def persisted_unseen(transcripts: list[Transcript], plan: SearchPlan,
                     limit: int = PERSISTED_LIMIT,
                     with_pending: frozenset[str] = frozenset()) -> list[str]:
    """The persisted tool outputs (``<session>/tool-results/*``) of the sessions in scope
    whose text the pattern matches and that the same search with ``--resolve-persisted``
    would have matched, at most ``limit``: a search without the flag reads only the
    preview its carrier holds, as csift does, so a pattern only in the rest made a
    DEFINITIVE zero that the flag turned into a match. Each file is read whole (as the
    flag reads it), after a zero only; one that cannot be read is passed over (the flag's
    run would warn; this one never reads them). A file counts only through a tool result
    of a transcript in scope that names it and that the search reached (``_reached``: its
    window, turns and labels): one no transcript names (a background task's output) is no
    record's text, and one whose pointer lies outside ``--since``/``--until`` made the
    zero look NOT definitive although the flag's run would find nothing either.
    ``with_pending``: the paths of the transcripts whose elicitation sidecar the run
    merged (a pending record is a turn of its own for ``--turn``)."""
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
        if plan.matcher.search(text) is not None and _reached(path, transcripts, plan,
                                                              with_pending):
            found.append(path)
            if len(found) >= limit:
                break
    return found


def _reached(path: str, transcripts: list[Transcript], plan: SearchPlan,
             with_pending: frozenset[str]) -> bool:
    """Whether a line of a transcript in scope of the session whose dir holds ``path``
    names its file and, read as the search reads it with ``--resolve-persisted``, matches:
    the record is in the window, its turn in ``--turn``, a tool result the selection
    takes (the scanner's own ``consider``, so the gates are the run's)."""
    session_dir = os.path.dirname(os.path.dirname(path))
    name = os.path.basename(path).encode("utf-8", "surrogateescape")
    resolving = replace(plan, resolve_persisted=True, light=True, keep_hits=False,
                        want_raw=False, leaf_views=False)
    for transcript in transcripts:
        if str(transcript.project_dir / transcript.parent_session_id) != session_dir:
            continue
        try:
            buf = open_buffer(transcript.path)
        except Exception:  # noqa: BLE001 - SourceError: already reported by the run
            continue
        lines = _lines_naming(buf, name)
        if lines and _matches_resolved(transcript, buf, lines, resolving,
                                       str(transcript.path) in with_pending):
            return True
    return False


def _lines_naming(buf: Buffer, name: bytes) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each line of ``buf`` holding ``name``, each line once."""
    out: list[tuple[int, int]] = []
    at = buf.find(name)
    while at >= 0:
        start, end = line_start(buf, at), line_end(buf, at)
        out.append((start, end))
        at = buf.find(name, end)
    return out


def _matches_resolved(transcript: Transcript, buf: Buffer, lines: list[tuple[int, int]],
                      plan: SearchPlan, pending: bool) -> bool:
    from pysift.core.decode import decode
    from pysift.engines.search.scan import FileScan, _Scanner

    result = FileScan(transcript=transcript, index=0, buf=buf)
    if pending:
        result.pending = [Record({}, None)]  # only its presence counts (``allowed_turn``)
    scanner = _Scanner(plan, transcript, buf, result)
    for start, end in lines:
        line = buf[start:end]
        rec = decode(line, None)
        if rec is not None:
            scanner.consider(rec, start, line)
            if any(L.AGENT_TOOL_RESULT in hit.labels for hit in result.hits):
                return True
    return False
