"""Shared row fragments written identically by every command."""

from __future__ import annotations

from typing import Any


def id_trio(session_id: str, is_subagent: bool, parent_session_id: str) -> dict[str, Any]:
    """The id trio every spanning row carries (wire-format §0.2)."""
    return {
        "session_id": session_id,
        "is_subagent": is_subagent,
        "parent_session_id": parent_session_id,
    }
