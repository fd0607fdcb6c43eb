"""``list``'s rows (SPEC §6.1, §7b): what a session row holds, the cache's facts of it,
and the run over a scope.

A row's facts come from the two ends of its transcript (``listing_read``: forward from
the start to the first human message, backward from EOF to the last human and the last
agent message; imported only when a transcript has to be read), or, for a transcript
the cache holds unchanged, from the facts kept last time: a warm listing imports neither
the record classifier nor the key scanners. What other files say (the clone's origin,
the elicitation sidecar) is read on every run.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import field
from typing import TYPE_CHECKING, Any

from pysift.core.cap import recency
from pysift.core.cleanup import FileTimes, file_times
from pysift.core.decode import decode
from pysift.core.sidecar import pending_one_liner, read_sidecar
from pysift.core.text import excerpt
from pysift.core.timez import parse_ts
from pysift.disk.gcpause import paused_gc
from pysift.disk.layout import Transcript, Unreadable, sidecar_of, top_level_sessions
from pysift.disk.lines import Buffer, iter_spans
from pysift.disk.mapped import open_buffer
from pysift.model.fastdata import dataclass
from pysift.model.record import Record

if TYPE_CHECKING:
    from pysift.disk.cache import Facet, Probe, Store

PREVIEW_MAX_CHARS = 200


@dataclass
class Said:
    """One message of the session: a one-line preview (clipped with an explicit
    ``… (+N chars)`` marker) and its raw timestamp. The preview is made in the worker, so
    the whole message never crosses the process pool."""

    text: str
    ts: str | None
    # an inbound message that is not the human's (a peer message, a task notification):
    # its label and direction, shown before the text
    label: str | None = None
    from_: str | None = None
    to: str | None = None

    def __post_init__(self) -> None:
        self.text = excerpt(self.text, PREVIEW_MAX_CHARS)[0]

    @classmethod
    def previewed(cls, preview: str, ts: str | None, label: str | None = None,
                  from_: str | None = None, to: str | None = None) -> Said:
        """A Said whose ``preview`` is already made (read back from the cache)."""
        said = cls.__new__(cls)
        said.text, said.ts, said.label, said.from_, said.to = preview, ts, label, from_, to
        return said

    def __reduce__(self) -> tuple[Any, ...]:
        # across the pool as a plain tuple: the preview is made already
        return _previewed, (self.text, self.ts, self.label, self.from_, self.to)


def _previewed(preview: str, ts: str | None, label: str | None, from_: str | None,
               to: str | None) -> Said:
    return Said.previewed(preview, ts, label, from_, to)


@dataclass
class SessionSummary:
    transcript: Transcript
    cwd: str | None = None
    version_first: str | None = None
    version_last: str | None = None
    branch_first: str | None = None
    branch_last: str | None = None
    first_user: Said | None = None
    last_user: Said | None = None
    last_agent: Said | None = None
    first_ts: str | None = None  # activity span, from the head and the tail
    last_ts: str | None = None
    skipped_lines: int = 0
    is_clone: bool = False
    clone_boundary_uuid: str | None = None
    clone_of: str | None = None
    sidecar_present: bool = False
    pending: list[str] = field(default_factory=list)
    sidecar_error: str | None = None  # the sidecar exists but could not be read
    error: str | None = None  # the file could not be read (vanished mid-run)
    view: object = None  # the caller's rendering of this row, made in the worker (``prepare``)
    facts: object = None  # what the cache keeps of this transcript (``_facts``), for the parent
    stamp: object = None  # the cache stamp of the bytes the facts come from
    # the file's ``stat`` as this run took it (``core.cleanup.file_times``: the cleanup
    # notice reads it instead of a ``stat`` of its own per file, in the parent)
    file_times: FileTimes | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        # across the pool as the tuple of its fields (a dataclass's own reduce, its class
        # and a dict of 22 fields, took 3 times as long to pickle a worker's rows); a row
        # laid out already as only what the caller reads after the layout (its messages
        # are in the view: over B the pickles back took ~50 ms of CPU, ~10 ms so)
        if self.view is not None:
            return _laid_out, tuple([getattr(self, name) for name in _LAID_OUT])
        return SessionSummary, tuple([getattr(self, name) for name in _SUMMARY_FIELDS])


_SUMMARY_FIELDS = tuple(SessionSummary.__dataclass_fields__)
# what a caller reads of a row laid out by ``prepare`` in a forked worker (``run``), and
# what the parent keeps of it for the cache
_LAID_OUT = ("view", "skipped_lines", "error", "sidecar_error", "first_ts", "last_ts",
             "facts", "stamp", "file_times")


def _laid_out(view: object, skipped_lines: int, error: str | None, sidecar_error: str | None,
              first_ts: str | None, last_ts: str | None, facts: object, stamp: object,
              file_times: FileTimes | None) -> SessionSummary:
    """A row laid out already, as the caller keeps it: its view and ``_LAID_OUT``; every
    other field reads its default off the class (the dataclass keeps each plain default
    there), so a row holds a dict of 11 keys, not 23 (~0.4 KB less a row)."""
    out = SessionSummary.__new__(SessionSummary)
    out.__dict__ = {"transcript": None, "pending": [], "view": view,
                    "skipped_lines": skipped_lines, "error": error,
                    "sidecar_error": sidecar_error, "first_ts": first_ts, "last_ts": last_ts,
                    "facts": facts, "stamp": stamp, "file_times": file_times}
    return out


def _as_laid_out(summary: SessionSummary) -> SessionSummary:
    """What the process keeps of a row ``prepare`` laid out: the row of ``_laid_out``, the
    same a worker sends back. Its messages, envelope and clone facts are in the view; the
    summary they were read into is let go here, so the next file's allocations reuse its
    memory. A run keeps thousands of rows, and memory a process touches for the first
    time costs it a page fault per 4 KiB: over corpus B the full rows had been ~1,000
    faults more, and a fault costs several microseconds on a virtual machine."""
    return _laid_out(*[getattr(summary, name) for name in _LAID_OUT])


def _other_files(out: SessionSummary, transcript: Transcript, buf: Buffer | None) -> None:
    """What a row takes from files other than the transcript (never cached): the clone's
    origin among its siblings, the elicitation sidecar (checked against ``buf``)."""
    if out.is_clone and out.clone_boundary_uuid:
        out.clone_of = find_clone_origin(transcript, out.clone_boundary_uuid)
    sidecar = sidecar_of(transcript)
    if sidecar is not None:
        merge = read_sidecar(sidecar, buf)
        if buf is None and merge.pending:  # the ghost guard needs the transcript's bytes
            try:
                merge = read_sidecar(sidecar, open_buffer(transcript.path))
            except Exception:  # noqa: BLE001 - gone since the probe: no guard to apply
                pass
        out.sidecar_present = merge.present
        out.sidecar_error = merge.error
        out.pending = [pending_one_liner(r) for r in merge.pending]
        out.skipped_lines += merge.skipped_lines


# -- the cache's facts of a row (this engine's own facet) -----------------------------------
# (layouts, head, head region's malformed line offsets, first human's offset or -1, the
#  head region's end, head reusable on growth, tail, malformed lines among those read);
#  a Said as (preview, ts, label, from, to) or None

# 2: in a main transcript a subagent's record (isSidechain) is no human's message (SPEC §4,
# twenty-second session); 3: an inbound protocol message (agent.communication.signal)
# stands in for the human as an inbound peer message does
FACET, SCHEMA = "list", 3


def _said_fact(said: Said | None) -> tuple[object, ...] | None:
    return None if said is None else (said.text, said.ts, said.label, said.from_, said.to)


def _said_of(fact: Any) -> Said | None:  # cached: its shape is checked here
    if fact is None:
        return None
    text, ts, label, from_, to = fact
    if type(text) is not str or not isinstance(ts, _STR_OR_NONE) or not (
            (label is None and from_ is None and to is None)
            or (isinstance(label, _STR_OR_NONE) and isinstance(from_, _STR_OR_NONE)
                and isinstance(to, _STR_OR_NONE))):
        raise ValueError("not a said")
    said = _new_said(Said)
    said.__dict__ = {"text": text, "ts": ts, "label": label, "from_": from_, "to": to}
    return said


_STR_OR_NONE = (str, type(None))
_new_said = Said.__new__


def _facts(out: SessionSummary, file_layouts: tuple[bool, ...], first_start: int,
           head_end: int, head_malformed: list[int], head_ok: bool) -> tuple[object, ...]:
    head = (out.cwd, out.version_first, out.branch_first, _said_fact(out.first_user),
            out.first_ts, out.is_clone, out.clone_boundary_uuid)
    tail = (out.version_last, out.branch_last, _said_fact(out.last_user),
            _said_fact(out.last_agent), out.last_ts)
    return (file_layouts, head, head_malformed, first_start, head_end, head_ok, tail,
            out.skipped_lines)


def _apply_head(out: SessionSummary, head: Any) -> None:
    (out.cwd, out.version_first, out.branch_first, first_user, out.first_ts, out.is_clone,
     out.clone_boundary_uuid) = head
    out.first_user = _said_of(first_user)


def from_facts(transcript: Transcript, facts: Any) -> SessionSummary | None:
    """The row of an unchanged transcript from its cached facts (None: facts of another
    shape, which the caller treats as a miss)."""
    try:
        _, head, _, _, _, _, tail, skipped = facts
        cwd, version_first, branch_first, first_user, first_ts, is_clone, boundary = head
        version_last, branch_last, last_user, last_agent, last_ts = tail
        if type(skipped) is not int:
            return None
        out = _new_summary(SessionSummary)
        # every field, as ``SessionSummary(transcript=…)`` would set it and the facts say
        # (a test holds this to the dataclass's fields)
        out.__dict__ = {
            "transcript": transcript, "cwd": cwd, "version_first": version_first,
            "version_last": version_last, "branch_first": branch_first,
            "branch_last": branch_last, "first_user": _said_of(first_user),
            "last_user": _said_of(last_user), "last_agent": _said_of(last_agent),
            "first_ts": first_ts, "last_ts": last_ts, "skipped_lines": skipped,
            "is_clone": is_clone, "clone_boundary_uuid": boundary, "clone_of": None,
            "sidecar_present": False, "pending": [], "sidecar_error": None, "error": None,
            "view": None, "facts": None, "stamp": None, "file_times": None}
    except (TypeError, ValueError):
        return None
    return out


_new_summary = SessionSummary.__new__


def _readable_ts(rec: Record) -> str | None:
    """The record's timestamp when it names an instant (a span ends on readable ones)."""
    ts = rec.timestamp
    return ts if ts and parse_ts(ts) is not None else None


def summarize(transcript: Transcript, grown: Probe | None = None, *,
              keep: bool = True) -> SessionSummary:
    """One transcript's row, read from its two ends (``listing_read.summarize``, imported
    on first use: an import statement per file cost ~10 us)."""
    if not _READ:
        from pysift.engines.listing_read import summarize as read

        _READ.append(read)
    return _READ[0](transcript, grown, keep=keep)


_READ: list[Callable[..., SessionSummary]] = []


def first_human_message(transcript: Transcript, max_bytes: int | None = None) -> str | None:
    """The preview of a transcript's first human message (``listing_read``)."""
    from pysift.engines.listing_read import first_human_message as read

    return read(transcript, max_bytes)


def find_clone_origin(transcript: Transcript, boundary_uuid: str) -> str | None:
    """The sibling session that holds ``boundary_uuid`` as a real record (not its head).

    Paid only when a clone is detected: a byte search per sibling, a parse only of the
    line holding the uuid.
    """
    from pysift.disk.jsonline import spelled

    needle = spelled(boundary_uuid)
    # the scope's walk already listed this dir (and said what it could not read)
    for sibling in top_level_sessions(transcript.project_dir, unread=Unreadable()):
        if sibling == transcript.path:
            continue
        try:
            buf = open_buffer(sibling)
        except Exception:
            continue
        pos = buf.find(needle)
        while pos >= 0:
            start = buf.rfind(b"\n", 0, pos) + 1
            end = buf.find(b"\n", pos)
            end = len(buf) if end < 0 else end
            rec = decode(buf[start:end], None)
            if (rec is not None and rec.uuid == boundary_uuid
                    and rec.subtype == "compact_boundary" and not _is_head(buf, start)):
                return sibling.stem
            pos = buf.find(needle, end)
    return None


def _is_head(buf: Buffer, offset: int) -> bool:
    """Whether the record at ``offset`` is the file's first timestamped record."""
    for start, end in iter_spans(buf):
        if start >= offset:
            return True
        rec = decode(buf[start:end], None)
        if rec is not None and _readable_ts(rec):
            return False
    return True


def run(transcripts: list[Transcript], *,
        prepare: Callable[[SessionSummary], None] | None = None,
        workers: int | None = None, cache: Store | None = None,
        wait: bool = True) -> list[SessionSummary]:
    """The entry of ``list``: summaries in scope order, spread over the cores when there
    are many files.

    ``prepare`` runs on each summary in the worker that made it (the caller lays out its
    row there, in parallel, in ``view``); a row laid out in a forked worker comes back
    with only its view and the fields a caller reads after the layout (``_LAID_OUT``:
    the skipped lines, the sidecar's error, the activity span; its messages, envelope and
    clone facts are in the view). Workers send summaries back without their ``Transcript`` (the
    parent has it; rebuilding thousands of paths on the way back cost more than the pool
    saved). ``cache``: an unchanged transcript's row comes from its cached facts (what
    other files say, the sidecar and the clone's origin, is read again); a grown one is
    read from its cached head on; every row read is kept for the next run. ``wait``:
    ``fanout.map_ordered``'s (False only for a caller holding nothing its workers
    inherit)."""
    from pysift.disk.fanout import map_ordered, processes

    facet = cache.facet(FACET, SCHEMA) if cache is not None else None
    out: list[SessionSummary | None] = [None] * len(transcripts)
    if (facet is not None and prepare is not None and len(transcripts) >= HIT_POOL_MIN
            and processes(len(transcripts), workers=workers) > 1):
        # a big scope laid out in the workers: every file goes through the pool, hits too
        # (a hit's row, ~30 us with its probe, comes back as its view: a light pickle),
        # one project dir at a time (biggest first, 64 files at most), so that each process
        # loads mostly the shards of its own projects, in parallel, and copies no page of
        # the other's
        groups = _by_project(transcripts)
        with paused_gc():
            grouped = map_ordered(_rows_for_pool, groups, shared=(transcripts, prepare, facet),
                                  workers=workers, min_items=2,
                                  weights=[len(group) for group in groups], wait=wait)
        where: list[int] = [i for group in groups for i in group]
        return _kept(transcripts, where, [row for rows in grouped for row in rows], out, facet)
    todo: list[tuple[Transcript, Probe | None]] = []
    where = []
    # a hit's row is made here, in-process, when the rows come back whole (no layout in
    # the worker: their pickles would cost more than the pool spreads) or when the scope
    # is small (the fork costs more than the hits' work); what has to be read goes
    # through the pool
    with paused_gc():  # the rows are all kept: the collector would walk them for nothing
        for i, transcript in enumerate(transcripts):
            grown = None
            if facet is not None:
                probe = facet.probe(transcript.path)
                if probe.hit:
                    summary = _hit(transcript, probe.facts, prepare, facet)
                    if summary is not None:
                        out[i] = summary
                        continue
                elif probe.state == "grown":
                    grown = probe
            todo.append((transcript, grown))
            where.append(i)
        # no weights: a file's cost here hardly depends on its size (its two ends are
        # read), and the pool's queue evens out what differs. The collector stays off
        # here too: every process keeps its rows, and the parent unpickles a worker's
        # (its passes over the growing heap took ~15 ms of the parent's serial unpickling
        # over B; a record decoded on the way is freed by reference counting)
        made = map_ordered(_summary_for_pool, todo, shared=(prepare, facet is not None),
                           workers=workers, wait=wait)
    return _kept(transcripts, where, made, out, facet)


# From this many transcripts on, a listing laid out in the workers sends its hits through
# the pool as well: over B's 2,428 warm rows the rows' CPU (~70 ms: probe, facts, sidecar,
# layout) is split in two for a fork and ~5 ms of pickles
HIT_POOL_MIN = 600


def _hit(transcript: Transcript, facts: Any,
         prepare: Callable[[SessionSummary], None] | None, facet: Facet
         ) -> SessionSummary | None:
    """The row of a transcript the cache holds unchanged (None: facts of another shape);
    its file times are those of the ``fstat`` the probe that found it took."""
    summary = from_facts(transcript, facts)
    if summary is not None:
        st = facet.seen.get(os.fspath(transcript.path))
        if st is not None:  # (always, after a hit: else the notice takes its own stat)
            summary.file_times = file_times(st)
        _other_files(summary, transcript, None)
        if prepare is not None:
            prepare(summary)
            if summary.view is not None:
                laid_out = _as_laid_out(summary)
                laid_out.transcript = transcript
                return laid_out
    return summary


def _by_project(transcripts: list[Transcript], most: int = 64) -> list[range]:
    """The scope's runs of transcripts of one project dir (the scope lists a project's
    sessions together), at most ``most`` each (a home of one big project still spreads)."""
    groups: list[range] = []
    start = 0
    for i in range(1, len(transcripts) + 1):
        if (i == len(transcripts) or i - start >= most
                or transcripts[i].project_dir != transcripts[start].project_dir):
            groups.append(range(start, i))
            start = i
    return groups


def _rows_for_pool(shared: tuple[list[Transcript], Callable[[SessionSummary], None], Facet],
                   group: range) -> list[SessionSummary]:
    """The rows of the transcripts at ``group``, from the cache or read, laid out."""
    transcripts, prepare, facet = shared
    rows = []
    for i in group:
        transcript = transcripts[i]
        probe = facet.probe(transcript.path)
        summary = _hit(transcript, probe.facts, prepare, facet) if probe.hit else None
        if summary is None:
            summary = _summary_for_pool(
                (prepare, True), (transcript, probe if probe.state == "grown" else None))
        summary.transcript = None  # type: ignore[assignment]
        rows.append(summary)
    return rows


def _kept(transcripts: list[Transcript], where: list[int], made: list[SessionSummary],
          out: list[SessionSummary | None], facet: Facet | None) -> list[SessionSummary]:
    """The rows made at ``where`` back in ``out`` with their transcripts; the facts of
    those read kept in the cache."""
    for i, summary in zip(where, made):
        transcript = transcripts[i]
        summary.transcript = transcript
        if facet is not None and summary.facts is not None:
            facet.put(transcript.path, summary.stamp, summary.facts)  # type: ignore[arg-type]
        summary.facts = summary.stamp = None
        out[i] = summary
    if facet is not None:
        facet.flush()
    return out  # type: ignore[return-value]


def _summary_for_pool(shared: tuple[Callable[[SessionSummary], None] | None, bool],
                      item: tuple[Transcript, Probe | None]) -> SessionSummary:
    """One transcript's row, read from its two ends (its facts go back with it for the
    parent to keep), laid out by ``prepare``."""
    prepare, keep = shared
    transcript, grown = item
    summary = summarize(transcript, grown, keep=keep)
    if prepare is not None:
        prepare(summary)
        if summary.view is not None:
            return _as_laid_out(summary)
    summary.transcript = None  # type: ignore[assignment]
    return summary


def activity_span(summary: SessionSummary) -> tuple[str | None, str | None]:
    """The stamps of the earliest and the latest instant the row read: the file's first
    and last timestamps and its messages' stamps. Records are not always written in time
    order (a resume, a clone's inherited records, an edited file), and a span taken in
    file order alone can run backwards and meet no window although the session was
    active inside it; this widens it to what the head and tail reads saw, never more.
    Read only for ``--since/--until`` (a row of any other listing never pays for it)."""
    stamps = [summary.first_ts, summary.last_ts]
    stamps += [s.ts for s in (summary.first_user, summary.last_user, summary.last_agent)
               if s is not None]
    timed = [(when, ts) for ts in stamps if (when := parse_ts(ts)) is not None]
    if not timed:
        return None, None
    return min(timed)[1], max(timed)[1]


def rank_key(summary: SessionSummary) -> tuple[bool, float]:
    """Recency of the human/agent exchange, by the rule ``stats`` ranks by
    (``core.cap.recency``): the newest INSTANT among the first and last human and the
    last agent message's stamps (never their strings: ``…T23:00:00-05:00`` is later than
    ``…T01:00:00Z`` of the next day's date), else the session's last timestamp, else its
    file's modification time after every row with a stamp. A stamp that names no instant
    counts as none."""
    said = [s.ts for s in (summary.first_user, summary.last_user, summary.last_agent)
            if s is not None and parse_ts(s.ts) is not None]
    times = summary.file_times
    return recency(said or (summary.last_ts,), lambda: times[0] if times else None)

