"""Shared row fragments written identically by every command."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from pysift.model.ids import is_session_ref, is_uuid


def id_trio(session_id: str, is_subagent: bool, parent_session_id: str) -> dict[str, Any]:
    """The id trio every spanning row carries (wire-format §0.2)."""
    return {
        "session_id": session_id,
        "is_subagent": is_subagent,
        "parent_session_id": parent_session_id,
    }


def target_ref(session_id: str, path: Path | str) -> str:
    """The target of a ready-to-run command for one transcript: ``@<id>`` when its id is
    one the @-grammar takes, else the transcript's path (shell-quoted), so every printed
    command resolves back (a file named ``small.jsonl`` has no @-form). A top-level
    transcript (``<id>.jsonl``) takes it only with a full uuid: a hex stem is read as a
    uuid prefix (``cafe1234`` is ambiguous beside ``cafe1234-…``) or, from 12 digits, as
    an agent id; a subagent's agent id resolves by exact match."""
    top_level = Path(path).name == f"{session_id}.jsonl"
    ok = is_uuid(session_id) if top_level else is_session_ref(session_id)
    return f"@{session_id}" if ok else shlex.quote(str(path))
