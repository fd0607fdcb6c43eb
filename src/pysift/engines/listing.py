"""Head/tail session summaries for ``list`` (SPEC §6.1, §7b).

Each transcript is read only at its two ends: forward from the start until the first
human message (and the first timestamp, cwd, version and branch), backward from EOF
until the last human message and the last agent message. Lines are tested with C-level
substring checks first; orjson parses only the lines that can answer an open question.
Malformed lines are counted among the lines read (the full census is ``stats``'s job).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pysift.core import classify
from pysift.core.decode import Tally, decode, is_blank, is_framed
from pysift.core.sidecar import pending_one_liner, read_sidecar
from pysift.disk.layout import Transcript, sidecar_path, top_level_sessions
from pysift.disk.lines import iter_backward, iter_spans
from pysift.disk.mapped import open_buffer
from pysift.model.record import Record

_USER = b'"user"'
_ASSISTANT = b'"assistant"'
_TOOL_RESULT = b'"tool_result"'
_AUQ_MARK = b"User has answered your question"
_REJECT_MARK = b"the user said:"
_REJECT_REASON = b"reason for the rejection:"
_TEXT_BLOCK = b'"text"'


@dataclass
class Said:
    """One message of the session: its rendered text and its raw timestamp."""

    text: str
    ts: str | None


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
    error: str | None = None  # the file could not be read (vanished mid-run)


def _may_be_human(line: bytes) -> bool:
    """Cheap necessary condition for a human-message line (genuine, AUQ answer, rejection)."""
    if _USER not in line:
        return False
    if _TOOL_RESULT not in line:
        return True
    return _AUQ_MARK in line or _REJECT_MARK in line or _REJECT_REASON in line


def _human_text(rec: Record, ctx: classify.ClassifyContext) -> str | None:
    """The human's words if ``rec`` is a human turn-opener (never a peer agent)."""
    if not rec.is_user_record or classify.is_peer_message_record(rec):
        return None
    if not classify.opens_turn(rec):
        return None
    for unit in classify.units(rec, ctx):
        if unit.label.startswith("user."):
            return unit.text
    return None


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
    tally = Tally()
    head_end = _read_head(buf, out, ctx, tally)
    _read_tail(buf, out, ctx, tally, head_end)
    out.skipped_lines = tally.malformed
    if out.is_clone and out.clone_boundary_uuid:
        out.clone_of = find_clone_origin(transcript, out.clone_boundary_uuid)
    if not transcript.is_subagent:
        merge = read_sidecar(sidecar_path(transcript.path), buf)
        out.sidecar_present = merge.present
        out.pending = [pending_one_liner(r) for r in merge.pending]
        out.skipped_lines += merge.skipped_lines
    return out


def _read_head(buf: bytes, out: SessionSummary, ctx: classify.ClassifyContext,
               tally: Tally) -> int:
    """Forward scan; returns the offset where it stopped (the tail never recounts below it)."""
    need_ts = need_user = True
    stop = 0
    for start, end in iter_spans(buf):
        stop = end + 1
        line = buf[start:end]
        if is_blank(line):
            continue
        if not is_framed(line):
            tally.malformed += 1
            continue
        need_meta = out.cwd is None or out.version_first is None or out.branch_first is None
        user_candidate = need_user and _may_be_human(line)
        if not (need_ts or user_candidate or (need_meta and b'"cwd"' in line)):
            continue
        rec = decode(line, None, tally)
        if rec is None:
            continue
        out.cwd = out.cwd or rec.cwd
        out.version_first = out.version_first or rec.version
        out.branch_first = out.branch_first or rec.git_branch
        if need_ts and rec.timestamp:
            need_ts = False
            out.first_ts = rec.timestamp
            if rec.type == "system" and rec.subtype == "compact_boundary":
                out.is_clone = True
                out.clone_boundary_uuid = rec.uuid
        if user_candidate:
            said = _human_text(rec, ctx)
            if said is not None:
                out.first_user = Said(said, rec.timestamp)
                need_user = False
        if not need_ts and not need_user and not need_meta:
            break
    return stop


def _read_tail(buf: bytes, out: SessionSummary, ctx: classify.ClassifyContext, tally: Tally,
               head_end: int) -> None:
    need_user = need_agent = need_ts = need_version = need_branch = True
    for start, line in iter_backward(buf):
        counted = start >= head_end  # lines below head_end were already counted
        if is_blank(line):
            continue
        if not is_framed(line):
            if counted:
                tally.malformed += 1
            continue
        want_user = need_user and _may_be_human(line)
        want_agent = need_agent and _ASSISTANT in line and _TEXT_BLOCK in line
        want_meta = (
            (need_ts and b'"timestamp"' in line)
            or (need_version and b'"version"' in line)
            or (need_branch and b'"gitBranch"' in line)
        )
        if not (want_user or want_agent or want_meta):
            continue
        rec = decode(line, None, tally if counted else None)
        if rec is None:
            continue
        if need_ts and rec.timestamp:
            out.last_ts, need_ts = rec.timestamp, False
        if need_version and rec.version:
            out.version_last, need_version = rec.version, False
        if need_branch and rec.git_branch:
            out.branch_last, need_branch = rec.git_branch, False
        if want_user:
            said = _human_text(rec, ctx)
            if said is not None:
                out.last_user, need_user = Said(said, rec.timestamp), False
        if want_agent:
            said = _agent_text(rec)
            if said is not None:
                out.last_agent, need_agent = Said(said, rec.timestamp), False
        if not (need_user or need_agent or need_ts or need_version or need_branch):
            break
        if not (need_user or need_agent) and start < head_end:
            break  # the head already saw everything older; metadata there is absent


def find_clone_origin(transcript: Transcript, boundary_uuid: str) -> str | None:
    """The sibling session that holds ``boundary_uuid`` as a real record (not its head).

    Paid only when a clone is detected: a byte search per sibling, a parse only of the
    line holding the uuid.
    """
    needle = boundary_uuid.encode()
    for sibling in top_level_sessions(transcript.project_dir):
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


def _is_head(buf: bytes, offset: int) -> bool:
    """Whether the record at ``offset`` is the file's first timestamped record."""
    for start, end in iter_spans(buf):
        if start >= offset:
            return True
        rec = decode(buf[start:end], None)
        if rec is not None and rec.timestamp:
            return False
    return True


def summarize_all(transcripts: list[Transcript], workers: int | None = None) -> list[SessionSummary]:
    """Summaries in input order, spread over a process pool when there are many files."""
    from pysift.disk.fanout import map_ordered

    return map_ordered(summarize, transcripts, workers=workers)


def rank_key(summary: SessionSummary) -> str:
    """Recency of the human/agent exchange (ISO strings in UTC compare chronologically)."""
    stamps = [s.ts for s in (summary.first_user, summary.last_user, summary.last_agent)
              if s is not None and s.ts]
    if not stamps and summary.last_ts:
        stamps = [summary.last_ts]
    return max(stamps) if stamps else ""


def path_key(summary: SessionSummary) -> Path:
    return summary.transcript.path
