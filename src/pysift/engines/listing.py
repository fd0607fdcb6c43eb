"""Head/tail session summaries for ``list`` (SPEC §6.1, §7b).

Each transcript is read only at its two ends: forward from the start until the first
human message (and the first timestamp, cwd, version and branch), backward from EOF
until the last human message and the last agent message. Lines are tested with C-level
substring checks first; orjson parses only the lines that can answer an open question.
Malformed lines are counted among the lines read (the full census is ``stats``'s job).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pysift.core import classify
from pysift.core.decode import Tally, decode
from pysift.core.rawjson import iter_key_lines, iter_key_lines_backward, layouts, type_needles
from pysift.core.sidecar import pending_one_liner, read_sidecar
from pysift.core.text import excerpt
from pysift.core.timez import parse_ts
from pysift.core.turns import is_plain_carrier
from pysift.disk.layout import Transcript, Unreadable, sidecar_of, top_level_sessions
from pysift.disk.lines import Buffer, iter_backward, iter_spans, line_end, line_start
from pysift.disk.mapped import open_buffer
from pysift.errors import SourceError
from pysift.model.record import Record

_TEXT_BLOCK = b'"text"'


PREVIEW_MAX_CHARS = 200


@dataclass
class Said:
    """One message of the session: a one-line preview (clipped with an explicit
    ``… (+N chars)`` marker) and its raw timestamp. The preview is made in the worker, so
    the whole message never crosses the process pool."""

    text: str
    ts: str | None

    def __post_init__(self) -> None:
        self.text = excerpt(self.text, PREVIEW_MAX_CHARS)[0]


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


def _human_text(rec: Record, ctx: classify.ClassifyContext) -> str | None:
    """The human's words if ``rec`` is a human turn-opener (never a peer agent), rendered
    as search renders its opener (an AUQ answer as its Q+options+answer unit). An opener
    search files under the harness only (a fired wakeup tick, a resume's "Continue from
    where you left off." written without isMeta) opens a turn but is nobody's message."""
    if not rec.is_user_record or classify.is_peer_message_record(rec):
        return None
    if not classify.opens_turn(rec):
        return None
    if not any(not label.startswith("harness.") for label in classify.classify(rec, ctx)):
        return None
    return classify.opener_source(rec, ctx)  # one-lined by the preview, a prefix at a time


def _agent_text(rec: Record) -> str | None:
    if not rec.is_assistant_record:
        return None
    texts = [b["text"] for b in rec.blocks_of("text") if isinstance(b.get("text"), str)]
    texts = [t for t in texts if t.strip()]
    return "\n".join(texts) if texts else None


def summarize(transcript: Transcript) -> SessionSummary:
    out = SessionSummary(transcript=transcript)
    try:
        buf = open_buffer(transcript.path)
    except Exception as exc:  # SourceError: reported on the row, never fatal for a listing
        out.error = str(exc)
        return out
    ctx = classify.ClassifyContext(
        owner_id=transcript.session_id,
        is_subagent=transcript.is_subagent,
        parent_id=transcript.parent_session_id,
    )
    lines = _Lines(buf)
    file_layouts = layouts(buf)  # read once: every key needle below is spelled in it
    first_human = _read_head(lines, out, ctx, file_layouts)
    _read_tail(lines, out, ctx, first_human, file_layouts)
    out.skipped_lines = len(lines.malformed)
    if out.is_clone and out.clone_boundary_uuid:
        out.clone_of = find_clone_origin(transcript, out.clone_boundary_uuid)
    sidecar = sidecar_of(transcript)
    if sidecar is not None:
        merge = read_sidecar(sidecar, buf)
        out.sidecar_present = merge.present
        out.sidecar_error = merge.error
        out.pending = [pending_one_liner(r) for r in merge.pending]
        out.skipped_lines += merge.skipped_lines
    return out


_META_LINES = 64  # the envelope fields come from the first (and last) few records


class _Lines:
    """The lines of one file as the listing decodes them. A malformed line is remembered
    by the offset it starts at, so a line both ends of the read reach counts once, and
    every line read counts (``skipped_lines`` is the malformed lines among those read)."""

    __slots__ = ("_tally", "buf", "malformed")

    def __init__(self, buf: Buffer) -> None:
        self.buf = buf
        self.malformed: set[int] = set()
        self._tally = Tally()

    def record(self, start: int, end: int, line: bytes | None = None) -> Record | None:
        """The record of the line ``[start, end)`` (``line``: its bytes, when at hand)."""
        before = self._tally.malformed
        rec = decode(self.buf[start:end] if line is None else line, None, self._tally)
        if self._tally.malformed != before:
            self.malformed.add(start)
        return rec


def _readable_ts(rec: Record) -> str | None:
    """The record's timestamp when it names an instant (a span ends on readable ones)."""
    ts = rec.timestamp
    return ts if ts and parse_ts(ts) is not None else None


def _read_head(lines: _Lines, out: SessionSummary, ctx: classify.ClassifyContext,
               file_layouts: tuple[bool, ...]) -> tuple[int, Record] | None:
    """Forward: the first few lines for the envelope (first timestamp, cwd, version,
    branch, the clone probe), then a whole-buffer search for user lines until the first
    human message. Returns that message's record with the offset its line starts at."""
    buf = lines.buf
    stop = 0
    for count, (start, end) in enumerate(iter_spans(buf)):
        if count >= _META_LINES or (out.first_ts and out.cwd and out.version_first):
            break  # the first full envelope; a branch-less session stops here too
        stop = end + 1
        rec = lines.record(start, end)
        if rec is None:
            continue
        out.cwd = out.cwd or rec.cwd or None
        out.version_first = out.version_first or rec.version or None
        out.branch_first = out.branch_first or rec.git_branch or None
        if out.first_ts is None and _readable_ts(rec):
            _first_timestamped(out, rec)
    first = None
    found = _first_human(lines, ctx, file_layouts)
    if found is not None:
        start, rec, said = found
        out.first_user = Said(said, rec.timestamp)
        first = (start, rec)
    _head_envelope_beyond(lines, out, stop, first)
    return first


def _first_human(lines: _Lines, ctx: classify.ClassifyContext, file_layouts: tuple[bool, ...]
                 ) -> tuple[int, Record, str] | None:
    """The first human message: its line's offset, its record and its words (a
    whole-buffer search for user lines, carriers skipped unread)."""
    buf = lines.buf
    result_keys = type_needles(buf, "tool_result", file_layouts)
    user_keys = type_needles(buf, "user", file_layouts)
    for start, end in iter_key_lines(buf, user_keys):
        if is_plain_carrier(buf, start, end, user_keys, result_keys):
            continue
        rec = lines.record(start, end)
        if rec is None:
            continue
        said = _human_text(rec, ctx)
        if said is not None:
            return start, rec, said
    return None


def first_human_message(transcript: Transcript, max_bytes: int | None = None) -> str | None:
    """The one-line preview of a transcript's first human message (``list``'s "first"),
    or None: the shell completion's description of a session. ``max_bytes`` reads only
    the file's head (a long session's first prompt is near its start)."""
    try:
        if max_bytes is None:
            buf: Buffer = open_buffer(transcript.path)
        else:
            with open(transcript.path, "rb") as fh:
                buf = fh.read(max_bytes)
    except (OSError, SourceError):  # a description is optional, never an error
        return None
    ctx = classify.ClassifyContext(owner_id=transcript.session_id,
                                   is_subagent=transcript.is_subagent,
                                   parent_id=transcript.parent_session_id)
    found = _first_human(_Lines(buf), ctx, layouts(buf))
    return None if found is None else Said(found[2], None).text


def _first_timestamped(out: SessionSummary, rec: Record) -> None:
    """The span opens on the first readable timestamp; a file whose first timestamped
    record is a compaction boundary is a clone (§6.1)."""
    out.first_ts = rec.timestamp
    if rec.type == "system" and rec.subtype == "compact_boundary":
        out.is_clone = True
        out.clone_boundary_uuid = rec.uuid


def _head_envelope_beyond(lines: _Lines, out: SessionSummary, stop: int,
                          first: tuple[int, Record] | None) -> None:
    """What the first lines lacked, past them: the first timestamp anywhere (the activity
    span and the clone probe must not depend on how many timestamp-less records a file
    opens with), cwd / version / branch first seen between them and the first human
    message, else on that message. Only lines holding the field's key are decoded."""
    if out.first_ts is None:
        rec = _first_having(lines, "timestamp", stop, len(lines.buf))
        if rec is not None:
            _first_timestamped(out, rec)
    region_end = first[0] if first is not None else len(lines.buf)
    for name in ("cwd", "version", "git_branch"):
        attr = _FIRST_ATTR[name]
        if getattr(out, attr) is None:
            rec = _first_having(lines, name, stop, region_end)
            if rec is None and first is not None:
                rec = first[1]
            if rec is not None:
                setattr(out, attr, getattr(rec, name) or None)


def _read_tail(lines: _Lines, out: SessionSummary, ctx: classify.ClassifyContext,
               first_human: tuple[int, Record] | None, file_layouts: tuple[bool, ...]) -> None:
    """Backward: the last few lines for the envelope (last timestamp, version, branch),
    then, separately, the newest human message and the newest agent message, each found
    by ``rfind`` on its type key (the tool traffic between is skipped in C)."""
    buf = lines.buf
    low = len(buf)  # where the envelope lines read so far begin
    for count, (start, line) in enumerate(iter_backward(buf)):
        if count >= _META_LINES or (out.last_ts and out.version_last):
            break  # the newest full envelope
        low = start
        rec = lines.record(start, start + len(line), line)
        if rec is None:
            continue
        out.last_ts = out.last_ts or _readable_ts(rec)
        out.version_last = out.version_last or rec.version or None
        out.branch_last = out.branch_last or rec.git_branch or None
    anchors: list[int] = []  # where the last human and the last agent message start
    for start, end in _human_candidates_backward(buf, file_layouts):
        if first_human is not None and start == first_human[0]:
            # back at the first human message: the same record, classified once
            out.last_user = out.first_user
            anchors.append(start)
            break
        rec = lines.record(start, end)
        if rec is None:
            continue
        said = _human_text(rec, ctx)
        if said is not None:
            out.last_user = Said(said, rec.timestamp)
            anchors.append(start)
            break
    for start, end in iter_key_lines_backward(buf, type_needles(buf, "assistant", file_layouts)):
        if buf.find(_TEXT_BLOCK, start, end) < 0:
            continue
        rec = lines.record(start, end)
        if rec is None:
            continue
        said = _agent_text(rec)
        if said is not None:
            out.last_agent = Said(said, rec.timestamp)
            anchors.append(start)
            break
    _tail_envelope_beyond(lines, out, low, min(anchors) if len(anchors) == 2 else 0)


def _tail_envelope_beyond(lines: _Lines, out: SessionSummary, low: int, reach: int) -> None:
    """What the last lines lacked, below them: the newest timestamp anywhere (the
    activity span), version and branch last seen down to ``reach``, where the tail read
    found its older message (the start of the file when it found only one). Only lines
    holding the field's key are decoded."""
    if out.last_ts is None:
        rec = _newest_having(lines, "timestamp", 0, low)
        out.last_ts = rec.timestamp if rec is not None else None
    for name in ("version", "git_branch"):
        attr = _LAST_ATTR[name]
        if getattr(out, attr) is None:
            rec = _newest_having(lines, name, reach, low)
            if rec is not None:
                setattr(out, attr, getattr(rec, name) or None)


# envelope fields: the record attribute, its key in the raw line, the summary fields
_KEYS = {"timestamp": b'"timestamp"', "cwd": b'"cwd"', "version": b'"version"',
         "git_branch": b'"gitBranch"'}
_FIRST_ATTR = {"cwd": "cwd", "version": "version_first", "git_branch": "branch_first"}
_LAST_ATTR = {"version": "version_last", "git_branch": "branch_last"}


def _empty_value(buf: Buffer, at: int) -> bool:
    """The key ending at ``at`` has the empty string for value (compact or spaced)."""
    after = buf[at:at + 4]
    return after[:3] == b':""' or after == b': ""'


def _first_having(lines: _Lines, field: str, lo: int, hi: int) -> Record | None:
    """The first record on a line starting in ``[lo, hi)`` whose ``field`` is a non-empty
    string (a readable instant for the timestamp; ``lo`` a line start). A line is decoded
    only when it holds the field's key with a value other than the empty string."""
    buf = lines.buf
    key = _KEYS[field]
    find = buf.find
    pos = find(key, lo, hi)
    while pos >= 0:
        if _empty_value(buf, pos + len(key)):
            pos = find(key, pos + len(key), hi)
            continue
        _start, end, rec = _line_having(lines, pos, field)
        if rec is not None:
            return rec
        pos = find(key, end, hi)
    return None


def _newest_having(lines: _Lines, field: str, lo: int, hi: int) -> Record | None:
    """``_first_having`` newest first: lines ending before ``hi`` (a line start)."""
    buf = lines.buf
    key = _KEYS[field]
    rfind = buf.rfind
    pos = rfind(key, lo, hi)
    while pos >= 0:
        if _empty_value(buf, pos + len(key)):
            pos = rfind(key, lo, pos)
            continue
        start, _, rec = _line_having(lines, pos, field)
        if rec is not None:
            return rec
        pos = rfind(key, lo, start) if start > lo else -1
    return None


def _line_having(lines: _Lines, pos: int, field: str) -> tuple[int, int, Record | None]:
    """The bounds of the line holding ``pos``, and its record when ``field`` is set there."""
    start, end = line_start(lines.buf, pos), line_end(lines.buf, pos)
    rec = lines.record(start, end)
    if rec is None:
        return start, end, None
    found = _readable_ts(rec) if field == "timestamp" else getattr(rec, field)
    return start, end, rec if found else None


def _human_candidates_backward(buf: Buffer, file_layouts: tuple[bool, ...]):  # type: ignore[no-untyped-def]
    """User lines newest first, minus plain tool_result carriers (``is_plain_carrier``)."""
    find, rfind, size = buf.find, buf.rfind, len(buf)
    user_needles = type_needles(buf, "user", file_layouts)
    result_keys = type_needles(buf, "tool_result", file_layouts)
    for needle in user_needles if len(user_needles) == 1 else ():
        pos = rfind(needle)
        while pos >= 0:
            start = rfind(b"\n", 0, pos) + 1
            end = find(b"\n", pos)
            end = size if end < 0 else end
            if not is_plain_carrier(buf, start, end, user_needles, result_keys):
                yield start, end
            pos = rfind(needle, 0, start)
        return
    for start, end in iter_key_lines_backward(buf, user_needles):  # mixed layouts
        if not is_plain_carrier(buf, start, end, user_needles, result_keys):
            yield start, end


def find_clone_origin(transcript: Transcript, boundary_uuid: str) -> str | None:
    """The sibling session that holds ``boundary_uuid`` as a real record (not its head).

    Paid only when a clone is detected: a byte search per sibling, a parse only of the
    line holding the uuid.
    """
    needle = boundary_uuid.encode()
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
        workers: int | None = None) -> list[SessionSummary]:
    """The entry of ``list``: summaries in scope order, spread over the cores when there
    are many files.

    ``prepare`` runs on each summary in the worker that made it (the caller lays out its
    row there, in parallel). Workers send summaries back without their ``Transcript`` (the
    parent has it; rebuilding thousands of paths on the way back cost more than the pool
    saved)."""
    from pysift.disk.fanout import map_ordered

    # no weights: a file's cost here hardly depends on its size (its two ends are read),
    # and the pool's queue evens out what differs
    out = map_ordered(_summary_for_pool, transcripts, shared=prepare, workers=workers)
    for summary, transcript in zip(out, transcripts):
        summary.transcript = transcript
    return out


def _summary_for_pool(prepare: Callable[[SessionSummary], None] | None,
                      transcript: Transcript) -> SessionSummary:
    summary = summarize(transcript)
    if prepare is not None:
        prepare(summary)
    summary.transcript = None  # type: ignore[assignment]
    return summary


def rank_key(summary: SessionSummary) -> str:
    """Recency of the human/agent exchange (ISO strings in UTC compare chronologically)."""
    stamps = [s.ts for s in (summary.first_user, summary.last_user, summary.last_agent)
              if s is not None and s.ts]
    if not stamps and summary.last_ts:
        stamps = [summary.last_ts]
    return max(stamps) if stamps else ""

