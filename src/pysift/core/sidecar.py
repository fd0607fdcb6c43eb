"""The elicitation sidecar merge (SPEC §6.10).

A Claude Code hook writes ``<session-dir>/<uuid>/elicitations.jsonl``: a ``pending`` line
when an AskUserQuestion / ExitPlanMode / MCP elicitation appears, a ``resolved`` line when
it closes. The native transcript holds nothing while such a question is open, so the
pending record is merged into what pysift reads, as if native: no physical line,
``source = "elicitation-sidecar"``. Pairing by ``csiftKey`` drops every resolved pending,
so nothing is ever shown twice. The file is only read, never written.
"""

from __future__ import annotations

from dataclasses import field
from pathlib import Path
from typing import Any

from pysift.disk import jsonline
from pysift.disk.lines import Buffer
from pysift.disk.mapped import read_regular
from pysift.model.fastdata import dataclass
from pysift.model.record import Record

SENTINEL = "elicitation-marker-v1"
SOURCE = "elicitation-sidecar"
PHASES = ("pending", "resolved")


@dataclass
class SidecarMerge:
    present: bool = False  # the sidecar FILE exists (the hook is installed)
    pending: list[Record] = field(default_factory=list)  # unresolved, oldest first
    skipped_lines: int = 0  # malformed or schema-skewed marker lines (counted, never silent)
    error: str | None = None  # the file exists but could not be read: pending unknown


def read_sidecar(path: Path, transcript: Buffer | None = None) -> SidecarMerge:
    """Unresolved pending records of one top-level session's sidecar.

    ``transcript`` (the session's bytes), when given, is the ghost guard: a pending whose
    tool_use id already stands in the native transcript was answered there, so it is
    not merged even if its ``resolved`` line never landed.
    """
    try:  # os-level: most sessions have no sidecar, and a listing asks for thousands
        data = read_regular(path)
    except (FileNotFoundError, NotADirectoryError):  # no file (a stray FILE named <uuid>)
        return SidecarMerge()
    except OSError as exc:  # a directory, a FIFO, no permission: there, but not read
        reason = exc.strerror or str(exc)
        return SidecarMerge(present=True, error=f"cannot read the elicitation sidecar "
                                                f"{path}: {reason}")
    merge = SidecarMerge(present=True)
    pendings: dict[str, tuple[int, dict[str, Any]]] = {}
    resolved: set[str] = set()
    for index, line in enumerate(data.split(b"\n")):
        if not line.strip():
            continue
        try:
            obj = jsonline.loads(line)  # a lone surrogate escape read as the transcript's
        except jsonline.JSONDecodeError:
            merge.skipped_lines += 1
            continue
        if not isinstance(obj, dict) or obj.get("csift") != SENTINEL:
            merge.skipped_lines += 1
            continue
        phase, key = obj.get("csiftPhase"), obj.get("csiftKey")
        if phase not in PHASES or not isinstance(key, str):
            merge.skipped_lines += 1  # provably ours, yet unreadable: a schema-skewed fossil
            continue
        if phase == "pending":
            pendings.setdefault(key, (index, obj))
        else:
            resolved.add(key)
    for key, (_, obj) in sorted(pendings.items(), key=lambda kv: kv[1][0]):
        if key in resolved or _answered_natively(obj, transcript):
            continue
        merge.pending.append(Record(obj, None, SOURCE))
    return merge


def unread_warning(error: str) -> str:
    """The stderr line for a sidecar that exists but could not be read: what it held is
    unknown, so no listing may read as "nothing pending" and no zero as definitive."""
    return (f"warning: {error}; this session's pending elicitations are unknown (fix the "
            f"file's type or permissions and rerun)")


def _answered_natively(obj: dict[str, Any], transcript: Buffer | None) -> bool:
    """The pending call's id already stands in the transcript as a tool block's own id
    (``tool_use.id`` or ``tool_result.tool_use_id``): the native record exists, the
    sidecar copy is a ghost. Structural, per csift v0.6.3: the id quoted in prose does
    not count. Only lines holding the id's bytes are decoded."""
    if transcript is None:
        return False
    message = obj.get("message")
    if not isinstance(message, dict) or not isinstance(message.get("content"), list):
        return False
    for block in message["content"]:
        if isinstance(block, dict) and isinstance(block.get("id"), str) and block["id"]:
            if _has_tool_block(transcript, block["id"]):
                return True
    return False


def _has_tool_block(transcript: Buffer, tool_id: str) -> bool:
    needle = jsonline.spelled(tool_id)
    find, size = transcript.find, len(transcript)
    pos = find(needle)
    while pos >= 0:
        start = transcript.rfind(b"\n", 0, pos) + 1
        end = find(b"\n", pos)
        end = size if end < 0 else end
        try:
            obj = jsonline.loads(transcript[start:end])
        except jsonline.JSONDecodeError:
            obj = None
        if isinstance(obj, dict) and any(
                block.get("id") == tool_id or block.get("tool_use_id") == tool_id
                for block in Record(obj, None).blocks()):
            return True
        pos = find(needle, end)
    return False


def kind_of(rec: Record) -> str:
    kind = rec.raw.get("csiftKind")
    return kind if isinstance(kind, str) else "elicitation"


def pending_one_liner(rec: Record) -> str:
    """A one-line description of a pending elicitation (list rows, status evidence)."""
    kind = kind_of(rec)
    detail = ""
    for block in rec.blocks():
        if block.get("type") != "tool_use":
            continue
        data = block.get("input")
        if isinstance(data, dict):
            questions = data.get("questions")
            if isinstance(questions, list) and questions and isinstance(questions[0], dict):
                detail = str(questions[0].get("question") or "")
                if len(questions) > 1:
                    detail += f" (+{len(questions) - 1} more question(s))"
            elif isinstance(data.get("plan"), str):
                detail = data["plan"]
        break
    if not detail and isinstance(rec.raw.get("content"), str):
        detail = rec.raw["content"]
    detail = " ".join(detail.split())
    if len(detail) > 160:
        detail = detail[:160] + f"… (+{len(detail) - 160} chars)"
    return f"{kind}: {detail}" if detail else kind
