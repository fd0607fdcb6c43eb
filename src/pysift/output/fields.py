"""Shared row fragments written identically by every command."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from pysift.model.ids import is_session_ref


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
    command resolves back (a file named ``small.jsonl`` has no @-form)."""
    return f"@{session_id}" if is_session_ref(session_id) else shlex.quote(str(path))
