"""The scope header and banner every spanning command shares (wire-format §0.1, §0.7)."""

from __future__ import annotations

from typing import Any

from pysift.core.resolve import Scope


def scope_header(scope: Scope) -> dict[str, Any]:
    return {
        "sessions_in_scope": scope.top_level_count + scope.subagent_count,
        "top_level_sessions": scope.top_level_count,
        "subagent_sessions": scope.subagent_count,
    }


def scope_banner(scope: Scope) -> str | None:
    """The text banner, printed only when subagents are in scope."""
    if not scope.subagent_count:
        return None
    n = scope.top_level_count + scope.subagent_count
    noun = "session" if n == 1 else "sessions"
    return (f"scope  {n} {noun} in scope ({scope.top_level_count} top-level + "
            f"{scope.subagent_count} subagent)")
