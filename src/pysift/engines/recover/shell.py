"""Shell calls in the recover replay: what a Bash or PowerShell call tells about a file.

PowerShell is never parsed lexically: every call is an opaque command of the window.
"""

from __future__ import annotations

from typing import Any

POWERSHELL = "powershell"


def opaque_markers(block: dict[str, Any]) -> list[str]:
    """The window-accounting markers of one shell ``tool_use`` block."""
    name = block.get("name")
    tool_input = block.get("input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if not isinstance(command, str):
        return []
    if name == "PowerShell":
        return [POWERSHELL]
    return []
