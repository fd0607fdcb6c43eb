"""The two-end read of one transcript for ``list`` (SPEC §6.1, §7b).

Each transcript is read only at its two ends: forward from the start until the first
human message (and the first timestamp, cwd, version and branch), backward from EOF
until the last human message and the last agent message. Lines are tested with C-level
substring checks first; orjson parses only the lines that can answer an open question.
Malformed lines are counted among the lines read (the full census is ``stats``'s job):
csift's head reader walks every line up to the first human message and its tail reader
every line back to the older of the last human and the last agent message, floored at
the head's end (v0.6.8). Here the lines of those two regions get the shape check
(``unframed_lines``) and the lines decoded anywhere are counted by the decoder, each line
once (by the offset it starts at).

A module of its own so that a listing served from the cache never imports it (nor the
classifier and the key scanners it needs).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import stringzilla

from pysift.core import classify
from pysift.core.cleanup import file_times
from pysift.core.decode import Tally, decode, unframed_lines
from pysift.core.keyscan import carrier_verdict
from pysift.core.pairing import PlanIndex
from pysift.core.rawjson import iter_key_lines, iter_key_lines_backward, layouts, type_needles
from pysift.disk.layout import Transcript
from pysift.disk.lines import Buffer, iter_backward, iter_spans, line_end, line_start
from pysift.disk.mapped import open_buffer, open_buffer_stat
from pysift.engines.listing import (
    Said,
    SessionSummary,
    _apply_head,
    _facts,
    _other_files,
    _readable_ts,
)
from pysift.errors import SourceError
from pysift.model import labels as L
from pysift.model.record import Record

if TYPE_CHECKING:
    from pysift.disk.cache import Probe

# a peer's message (``inbox``) or its protocol object (``signal``: a shutdown or plan
# request a lead sends, an idle notice), and the harness's task notifications
_INBOUND = (L.AGENT_COMM_INBOX, L.AGENT_COMM_SIGNAL, L.HARNESS_NOTIFICATION_WORKFLOW, L.HARNESS_NOTIFICATION_MONITOR,
            L.HARNESS_NOTIFICATION_SUBAGENT, L.HARNESS_NOTIFICATION_BACKGROUND_COMMAND,
            L.HARNESS_NOTIFICATION_TASK)


def _inbound(rec: Record, ctx: classify.ClassifyContext) -> Said | None:
    """A message the session received that is no human's: an inbound peer message or a
    ``<task-notification>``, as its first such unit with its label and direction (the
    previews of a session no human spoke in: csift shows them, pysift showed `—`). A
    subagent's prompt Claude Code wrote into a main transcript is none: the subagent,
    not the session, received it."""
    if not rec.is_user_record or classify.in_sidechain(rec, subagent=ctx.is_subagent):
        return None
    for unit in classify.units(rec, ctx):
        if unit.label in _INBOUND and unit.text.strip():
            return Said(unit.text, rec.timestamp, unit.label, unit.from_, unit.to)
    return None


def summarize(transcript: Transcript, grown: Probe | None = None, *,
              keep: bool = True) -> SessionSummary:
    """One transcript's row facts, read from its two ends; ``grown``: the cache's entry
    of a file that grew since (its head facts are kept when the head read stayed inside
    the bytes it was taken from; the tail is read again). ``keep``: the query-independent
    facts go back to the caller in ``facts``/``stamp`` for the cache (a run without a
    cache neither stamps the bytes nor gathers them)."""
    out = SessionSummary(transcript=transcript)
    try:
        buf, st = open_buffer_stat(transcript.path, READ_WHOLE_UP_TO)
    except Exception as exc:  # SourceError: reported on the row, never fatal for a listing
        out.error = str(exc)
        return out
    out.file_times = file_times(st)
    ctx = classify.ClassifyContext(
        owner_id=transcript.session_id,
        is_subagent=transcript.is_subagent,
        parent_id=transcript.parent_session_id,
        plan_index=PlanIndex(buf),
    )
    stamp = None
    if keep:
        from pysift.disk.cache import stamp_of

        stamp = stamp_of(st, buf)
    lines = _Lines(buf)
    file_layouts = layouts(buf)  # read once: every key needle below is spelled in it
    head = None
    first_human: tuple[int, Record | None] | None
    if grown is not None and grown.stamp is not None:
        from pysift.disk.cache import Facet

        if Facet.grown_ok(grown.stamp, buf):
            head = _kept_head(grown.facts, file_layouts, out, lines)
    if head is None:
        first_human = _read_head(lines, out, ctx, file_layouts)
        head_end = lines.head_end
        lines.malformed.update(unframed_lines(buf, 0, head_end))
        head_malformed = sorted(lines.malformed) if keep else []
        head_ok = (first_human is not None and out.first_ts is not None
                   and lines.head_final and stamp is not None
                   and lines.reach < stamp.scanned and head_end <= stamp.scanned)
        first_start = first_human[0] if first_human is not None else -1
    else:
        first_start, head_end, head_malformed, head_ok = head
        first_human = (first_start, None) if first_start >= 0 else None
    tail_low = _read_tail(lines, out, ctx, first_human, file_layouts)
    if tail_low < len(buf):
        lines.malformed.update(unframed_lines(buf, max(head_end, tail_low)))
    out.skipped_lines = len(lines.malformed)
    lines.close()
    if keep:
        out.stamp = stamp
        out.facts = _facts(out, file_layouts, first_start, head_end, head_malformed, head_ok)
    _other_files(out, transcript, buf)
    return out



def _kept_head(facts: Any, file_layouts: tuple[bool, ...], out: SessionSummary,
               lines: _Lines) -> tuple[int, int, list[int], bool] | None:
    """The head facts of a grown file, when they still hold: the same layouts, and the
    head's reads (its region, through the first human message) stayed inside the bytes
    scanned then and its envelope lines stopped by their own rule, not at the end of the
    file (``head_ok``: lines appended since would have been among them). The head region's malformed lines are counted again (a
    set: a line the tail reads too counts once)."""
    try:
        old_layouts, head, head_malformed, first_start, head_end, head_ok, _, _ = facts
        if not head_ok or tuple(old_layouts) != file_layouts or first_start < 0:
            return None
        _apply_head(out, head)
        malformed = [int(x) for x in head_malformed]
        lines.malformed.update(malformed)
        lines.head_end = int(head_end)
    except (TypeError, ValueError):
        return None
    return first_start, int(head_end), malformed, True



_META_LINES = 64  # the envelope fields come from the first (and last) few records

#: Files up to this size are read whole, larger ones mapped. A listing touches a file's
#: two ends only, yet over corpus B a copy up to 1 MiB cost a little less CPU than
#: mapping every file over 256 KiB, the mapping's own default: 2.08 s against 2.11 s for
#: three passes over the 2,428 rows, each file read both ways in turn (the order
#: alternating); the map's page faults and unmapping cost about what the copy of the
#: bytes between the two ends does. ``keep_big_reads_on_the_heap`` changed nothing here
#: (2.09 s against 2.13 s; glibc's own threshold rises after the first big read freed)
#: and would import ctypes before the fork.
READ_WHOLE_UP_TO = 1 << 20


class _Lines:
    """The lines of one file as the listing decodes them. A malformed line is remembered
    by the offset it starts at, so a line both ends of the read reach counts once, and
    every line read counts (``skipped_lines`` is the malformed lines among those read)."""

    __slots__ = ("_decoded", "_tally", "_view", "buf", "head_end", "head_final",
                 "malformed", "reach", "sz")

    def __init__(self, buf: Buffer) -> None:
        self.buf = buf
        # stringzilla's SIMD find/rfind over the buffer in place (~13 GB/s where the
        # buffer's own run at ~2.3): the backward key searches read a tail of the file
        self._view = memoryview(buf)
        self.sz = stringzilla.Str(self._view)
        self.malformed: set[int] = set()
        self.head_end = len(buf)  # where the head's walk ends (a line start, or EOF)
        self.reach = -1  # the furthest line end decoded (a cache keeps a head read below it)
        # the head's envelope lines stopped by their own rule (64 lines, or the envelope
        # whole), not at the end of the file: what they found holds when the file grows
        self.head_final = False
        self._tally = Tally()
        # the records decoded so far, by line start: the two ends' questions meet on the
        # same lines (a first line that is the envelope and the first prompt, a last line
        # that is the envelope and the last answer; a third of the real corpus's decodes)
        self._decoded: dict[int, Record | None] = {}

    def record(self, start: int, end: int, line: bytes | None = None) -> Record | None:
        """The record of the line ``[start, end)`` (``line``: its bytes, when at hand)."""
        self.reach = max(self.reach, end)
        if start in self._decoded:
            return self._decoded[start]
        before = self._tally.malformed
        rec = decode(self.buf[start:end] if line is None else line, None, self._tally)
        if self._tally.malformed != before:
            self.malformed.add(start)
        self._decoded[start] = rec
        return rec

    def close(self) -> None:
        """Let go of the buffer (the search object is not used after this)."""
        self._view.release()



def _read_head(lines: _Lines, out: SessionSummary, ctx: classify.ClassifyContext,
               file_layouts: tuple[bool, ...]) -> tuple[int, Record] | None:
    """Forward: the first few lines for the envelope (first timestamp, cwd, version,
    branch, the clone probe), then a whole-buffer search for user lines until the first
    human message. Returns that message's record with the offset its line starts at."""
    buf = lines.buf
    stop = 0
    count = 0
    for count, (start, end) in enumerate(iter_spans(buf), 1):
        if count > _META_LINES or (out.first_ts and out.cwd and out.version_first):
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
    else:  # the end of the file: final only if the rule would stop at the next line
        count += 1
    lines.head_final = (count > _META_LINES
                        or bool(out.first_ts and out.cwd and out.version_first))
    first = None
    inbound: list[Said] = []  # the first and the newest inbound message no human sent
    found = _first_human(lines, ctx, file_layouts, inbound)
    if found is not None:
        start, rec, said = found
        out.first_user = Said(said, rec.timestamp)
        first = (start, rec)
    elif inbound:
        # no human message anywhere (the walk read every user line): the session's
        # inbound messages, labelled, stand in (a teammate lane, a notification-driven run)
        out.first_user, out.last_user = inbound[0], inbound[-1]
    # the head's walk: through the first human message's line, the envelope lines at
    # least; without a human message it walked the whole file
    lines.head_end = (min(len(buf), max(stop, line_end(buf, first[0]) + 1))
                      if first is not None else len(buf))
    _head_envelope_beyond(lines, out, stop, first)
    return first


def _first_human(lines: _Lines, ctx: classify.ClassifyContext, file_layouts: tuple[bool, ...],
                 inbound: list[Said] | None = None) -> tuple[int, Record, str] | None:
    """The first human message: its line's offset, its record and its words (a
    whole-buffer search for user lines, carriers skipped unread). ``inbound`` (when
    given) gets the first and the newest inbound message no human sent before it."""
    for start, end in _human_candidates_forward(lines, file_layouts):
        rec = lines.record(start, end)
        if rec is None:
            continue
        said = classify.human_message(rec, ctx)
        if said is not None:
            return start, rec, said
        if inbound is not None:
            other = _inbound(rec, ctx)
            if other is not None:
                inbound[min(len(inbound), 1):] = [other]
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
    if first is not None and (out.cwd is None or out.version_first is None):
        _envelope_past_first(lines, out, first[0])


def _envelope_past_first(lines: _Lines, out: SessionSummary, first: int) -> None:
    """cwd and version first seen AFTER the first human message, when no record up to it
    carried them (the wire format's "first-seen record cwd": a session whose opening
    records lack them still names where it ran). Never the branch: a session outside git
    has none, and looking for it would walk every such file to its end. A field found
    nowhere leaves the head not final (a line appended later may carry it)."""
    after = line_end(lines.buf, first) + 1
    for name in ("cwd", "version"):
        attr = _FIRST_ATTR[name]
        if getattr(out, attr) is None:
            rec = _first_having(lines, name, after, len(lines.buf))
            if rec is None:
                lines.head_final = False
            else:
                setattr(out, attr, getattr(rec, name) or None)


def _read_tail(lines: _Lines, out: SessionSummary, ctx: classify.ClassifyContext,
               first_human: tuple[int, Record | None] | None,
               file_layouts: tuple[bool, ...]) -> int:
    """Backward: the last few lines for the envelope (last timestamp, version, branch),
    then, separately, the newest human message and the newest agent message, each found
    by ``rfind`` on its type key (the tool traffic between is skipped in C). Returns
    where the tail's walk ends: the older of the two messages' lines, the envelope lines
    at least; 0 when it did not find both (it walked down to the head)."""
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
    # no human message at all: the head walked every user line and found none
    humans = _human_candidates_backward(lines, file_layouts) if first_human is not None else ()
    for start, end in humans:
        if first_human is not None and start == first_human[0]:
            # back at the first human message: the same record, classified once
            out.last_user = out.first_user
            anchors.append(start)
            break
        rec = lines.record(start, end)
        if rec is None:
            continue
        said = classify.human_message(rec, ctx)
        if said is not None:
            out.last_user = Said(said, rec.timestamp)
            anchors.append(start)
            break
    find = lines.sz.find
    for start, end in iter_key_lines_backward(buf, type_needles(buf, "assistant", file_layouts),
                                              search=lines.sz.rfind):
        if not classify.may_hold_agent_message(buf, start, end, find):
            continue
        rec = lines.record(start, end)
        if rec is None:
            continue
        said = classify.agent_message(rec, ctx)
        if said is not None:
            out.last_agent = Said(said, rec.timestamp)
            anchors.append(start)
            break
    reach = min(anchors) if len(anchors) == 2 else 0
    _tail_envelope_beyond(lines, out, low, reach)
    return min(low, reach)


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


def _plain_carrier(buf: Buffer, find: Any, first_of: Any, start: int, end: int,
                   user_keys: tuple[bytes, ...], result_keys: tuple[bytes, ...]) -> bool:
    """``turns.is_plain_carrier`` of the line ``[start, end)``: its type keys collected by
    ``find`` (the SIMD search: a carrier's body is read once, at memory speed), the
    verdict by ``keyscan.carrier_verdict`` (the same test on the same keys, its searches
    near each key by ``find`` and ``first_of`` too: with ``bytes.find`` they were a
    quarter of the backward walk's time over corpus B)."""
    results = _keys_at(find, result_keys, start, end)
    if not results:
        return False
    return carrier_verdict(buf, start, end, _keys_at(find, user_keys, start, results[0]),
                           results, find, first_of)


def _keys_at(find: Any, keys: tuple[bytes, ...], start: int, end: int) -> list[int]:
    """Where each of ``keys`` stands in ``[start, end)``, in order."""
    found: list[int] = []
    for key in keys:
        step = len(key)
        at = find(key, start, end)
        while at >= 0:
            found.append(at)
            at = find(key, at + step, end)
    if len(keys) > 1:
        found.sort()
    return found


def _human_candidates_forward(lines: _Lines, file_layouts: tuple[bool, ...]
                              ) -> Iterator[tuple[int, int]]:
    """User lines in file order, minus plain tool_result carriers: ``keyscan.user_lines``'
    answers, searched a line at a time (the walk stops at the first human message, which
    the one-pass scan read past, to the next user key)."""
    buf, sz = lines.buf, lines.sz
    user_needles = type_needles(buf, "user", file_layouts)
    result_keys = type_needles(buf, "tool_result", file_layouts)
    for start, end in iter_key_lines(buf, user_needles, search=sz.find):
        if not _plain_carrier(buf, sz.find, sz.find_first_of, start, end, user_needles,
                              result_keys):
            yield start, end


def _human_candidates_backward(lines: _Lines, file_layouts: tuple[bool, ...]
                               ) -> Iterator[tuple[int, int]]:
    """User lines newest first, minus plain tool_result carriers (``is_plain_carrier``)."""
    buf, sz = lines.buf, lines.sz
    user_needles = type_needles(buf, "user", file_layouts)
    result_keys = type_needles(buf, "tool_result", file_layouts)
    if len(user_needles) == 1:
        yield from _backward_in_one_layout(buf, sz.find, sz.rfind, sz.find_first_of,
                                           user_needles[0], result_keys[0])
        return
    for start, end in iter_key_lines_backward(buf, user_needles, search=sz.rfind):
        if not _plain_carrier(buf, sz.find, sz.find_first_of, start, end, user_needles,
                              result_keys):
            yield start, end


def _backward_in_one_layout(buf: Buffer, find: Any, rfind: Any, first_of: Any, user: bytes,
                            result: bytes) -> Iterator[tuple[int, int]]:
    """``_human_candidates_backward`` of a file in one layout, its steps inline: the same
    searches, in the same order, as ``iter_key_lines_backward``, ``_plain_carrier`` and
    ``_keys_at`` make (a test holds the two walks to each other). The walk back to a
    session's last human message passes every tool_result carrier after it (a subagent's
    is its first prompt: the whole file), and the generators' and helpers' calls per
    carrier were most of its time over corpus B."""
    size = len(buf)
    line_back, line_on = buf.rfind, buf.find
    user_step, result_step = len(user), len(result)
    pos = rfind(user, 0, size)
    while pos >= 0:
        start = line_back(b"\n", 0, pos) + 1
        end = line_on(b"\n", pos)
        if end < 0:
            end = size
        at = find(result, start, end)
        if at < 0:
            yield start, end
        else:
            results = [at]
            at = find(result, at + result_step, end)
            while at >= 0:
                results.append(at)
                at = find(result, at + result_step, end)
            first = results[0]
            users = []
            at = find(user, start, first)
            while at >= 0:
                users.append(at)
                at = find(user, at + user_step, first)
            if not carrier_verdict(buf, start, end, users, results, find, first_of):
                yield start, end
        pos = rfind(user, 0, start)
