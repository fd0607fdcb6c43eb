"""The rendered text of the lines that carry no message (§4.7, §5.1).

System records (turn duration, stop hooks, compaction boundary, any other subtype), queue
operations, file-history snapshots and deltas, attachments: each renders one line of
text a pattern can match. A piece of it the raw line does not hold is fabricated, which
the search prefilter must know (``engines/search/plan.py::FABRICATIONS``), and a number it
dumps is re-spelled by orjson (``tests/unit/engines/search/test_respelled_numbers.py``).
"""

from __future__ import annotations

import math

from pysift.core.classify.records import (
    hook_context_text,
    queued_text,
    raw_message_text,
    str_or_none,
)
from pysift.core.timez import format_duration_ms
from pysift.disk.jsonline import compact_json
from pysift.model.record import JsonObj, Record


def _int(value: object) -> int | None:
    """An integer field: an int (not a bool) or a whole, finite, non-negative float."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        if value.is_integer() and value >= 0:
            return int(value)
    return None


_TURN_DURATION_FIELDS = (
    "durationMs", "messageCount", "pendingBackgroundAgentCount", "pendingWorkflowCount"
)


def _turn_duration_text(raw: JsonObj) -> str | None:
    fields = [
        (key, _int(raw.get(key)))
        for key in _TURN_DURATION_FIELDS
    ]
    present = [f"{key}={value}" for key, value in fields if value is not None]
    if not present:
        return None  # nothing is fabricated
    duration = fields[0][1]
    head = [format_duration_ms(duration)] if duration is not None else []
    return "[turn duration: " + " · ".join(head + [" ".join(present)]) + "]"


def _stop_hooks_text(raw: JsonObj) -> str:
    count = _int(raw.get("hookCount")) or 0
    errors = raw.get("hookErrors")
    prevented = raw.get("preventedContinuation") is True
    lines = [
        f"[stop hooks: count={count} errors={len(errors) if isinstance(errors, list) else 0} "
        f"prevented={'true' if prevented else 'false'}]"
    ]
    infos = raw.get("hookInfos")
    for info in infos if isinstance(infos, list) else []:
        if not isinstance(info, dict) or not isinstance(info.get("command"), str):
            continue
        duration = _int(info.get("durationMs"))
        command = info["command"]
        lines.append(f"{command} ({duration}ms)" if duration is not None else command)
    return "\n".join(lines)


def _snapshot_text(rec: Record) -> str | None:
    raw = rec.raw
    if rec.type == "file-history-delta":
        path = str_or_none(raw.get("trackingPath"))
        if path is None:
            return None
        backup = raw.get("backup")
        backup = backup if isinstance(backup, dict) else {}
        version = _int(backup.get("version"))
        text = f"[file-history delta at {rec.timestamp or '?'}: {path}"
        if version is not None:
            text += f"@v{version}"
        name = str_or_none(backup.get("backupFileName"))
        if name is not None:
            text += f" backup={name}"
        return text + "]"
    snapshot = raw.get("snapshot")
    if not isinstance(snapshot, dict):
        return None
    stamp = str_or_none(snapshot.get("timestamp")) or "?"
    tracked = snapshot.get("trackedFileBackups")
    entries: list[str] = []
    if isinstance(tracked, dict):
        for path in sorted(tracked):
            entry = tracked[path]
            version = _int(entry.get("version")) if isinstance(entry, dict) else None
            entries.append(f"{path}@v{version}" if version is not None else path)
    if not entries:
        return f"[file-history snapshot at {stamp}]"
    return f"[file-history snapshot at {stamp}: {', '.join(entries)}]"


def _system_text(rec: Record) -> str:
    level = str_or_none(rec.raw.get("level"))
    head = f"[{rec.subtype}{' ' + level if level else ''}]"
    content = rec.system_content
    if isinstance(content, str):
        return f"{head} {content}" if content.strip() else head
    if content is None:
        return head
    return f"{head} {compact_json(content)}"


def compaction_boundary_text(rec: Record) -> str | None:
    """``Conversation compacted [compaction boundary: trigger=… preTokens=…]`` (D7), then
    ``[logicalParent=<uuid>]`` when the boundary names the record a compaction re-links
    to (csift v0.8.1: the fork facts of ``show --branch-points`` read it too)."""
    parts: list[str] = []
    content = rec.system_content
    if isinstance(content, str) and content.strip():
        parts.append(content.strip())
    meta = rec.raw.get("compactMetadata")
    if isinstance(meta, dict):
        fields = [
            f"{key}={meta[key] if isinstance(meta[key], str) else compact_json(meta[key])}"
            for key in ("trigger", "preTokens", "postTokens", "durationMs")
            if key in meta
        ]
        if fields:
            parts.append(f"[compaction boundary: {' '.join(fields)}]")
    logical_parent = rec.logical_parent_uuid
    if logical_parent:
        parts.append(f"[logicalParent={logical_parent}]")
    return " ".join(parts) if parts else None


def record_raw_text(rec: Record) -> str | None:
    """The record's own text, for a marker render or an address with no modeled leaf:
    the message string or its text blocks joined by newlines; for a message-less line the
    render of its line type; for an attachment its payload."""
    if rec.type == "attachment":
        hook = hook_context_text(rec)
        if hook is not None:
            return hook
        return compact_json(rec.raw["attachment"]) if "attachment" in rec.raw else None
    if rec.message is not None:
        return raw_message_text(rec)
    return line_text(rec)


def line_text(rec: Record) -> str | None:
    """The render of a message-less line (queue, system, file-history), or None."""
    kind = rec.type
    if kind == "queue-operation":
        return queued_text(rec)
    if kind in ("file-history-snapshot", "file-history-delta"):
        return _snapshot_text(rec)
    if kind == "system":
        subtype = rec.subtype
        if subtype == "compact_boundary":
            return compaction_boundary_text(rec)
        if subtype == "turn_duration":
            return _turn_duration_text(rec.raw)
        if subtype == "stop_hook_summary":
            return _stop_hooks_text(rec.raw)
        if subtype == "away_summary":
            content = rec.system_content
            return content if isinstance(content, str) else None
        if subtype is not None:
            return _system_text(rec)
    content = rec.system_content
    return content if isinstance(content, str) and content.strip() else None
