"""The label zone of a hit / record line, shared by search and show (§5.4, §6.2).

``◂ user.message``, ``▸ agent.tool.use ▹ agent.tool.result Bash``,
``▸ agent.communication.inbox  lead ⇨ self``, ``▸ agent.tool.result Edit [error]``.
"""

from __future__ import annotations

from pysift.model.labels import AGENT_TOOL_RESULT, AGENT_TOOL_USE, glyph_of


def label_zone(label: str, *, tool_name: str | None = None, pairing: str | None = None,
               is_error: bool | None = None, from_: str | None = None, to: str | None = None,
               tag: str | None = None) -> str:
    """Glyph, dotted label with its pairing/direction decoration, tool name and tags."""
    text = label
    if label == AGENT_TOOL_USE:
        if pairing == "paired":
            text = f"{AGENT_TOOL_USE} ▹ {AGENT_TOOL_RESULT}"
        elif pairing == "pending":
            text = f"{AGENT_TOOL_USE} (no result — pending)"
    elif label == AGENT_TOOL_RESULT and pairing == "orphan":
        text = f"{AGENT_TOOL_RESULT} (use not in scope)"
    parts = [glyph_of(label), text]
    if tool_name:
        parts.append(tool_name)
    if is_error and label == AGENT_TOOL_RESULT:
        parts.append("[error]")
    if tag:
        parts.append(tag)
    zone = " ".join(parts)
    if label.startswith("agent.communication.") and (from_ or to):
        zone += f"  {from_ or '?'} ⇨ {to or '?'}"
    return zone


def indent_continuation(text: str, indent: str = "      ") -> str:
    """Multi-line record text: continuation lines indented under the record line."""
    return text.replace("\n", "\n" + indent)
