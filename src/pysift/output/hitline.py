"""The label zone of a hit / record line, shared by search and show (§5.4, §6.2).

``<glyph> <label + decorations>[ <tool>]`` (wire-format §2 text layout): the decorations
belong to the label, the tool name comes last.
``◂ user.message``, ``▸ agent.tool.use ▹ agent.tool.result Bash``,
``▸ agent.tool.result [error] Edit``, ``▸ agent.communication.inbox  lead ⇨ self``,
``▸ agent.communication.sent  self ⇨ general-purpose Task``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from pysift.model.labels import AGENT_TOOL_RESULT, AGENT_TOOL_USE, glyph_of
from pysift.output.terminal import paint, paint_matches


def label_zone(label: str, *, tool_name: str | None = None, pairing: str | None = None,
               is_error: bool | None = None, from_: str | None = None, to: str | None = None,
               tag: str | None = None) -> str:
    """Glyph, dotted label with its decorations (pairing, ``[error]``, tags, direction),
    then the tool name."""
    text = label
    if label == AGENT_TOOL_USE:
        if pairing == "paired":
            text = f"{AGENT_TOOL_USE} ▹ {AGENT_TOOL_RESULT}"
        elif pairing == "pending":
            text = f"{AGENT_TOOL_USE} (no result — pending)"
    elif label == AGENT_TOOL_RESULT and pairing == "orphan":
        text = f"{AGENT_TOOL_RESULT} (use not in scope)"
    if is_error and label == AGENT_TOOL_RESULT:
        text += " [error]"
    if tag:
        text += f" {tag}"
    if label.startswith("agent.communication.") and (from_ or to):
        text += f"  {from_ or '?'} ⇨ {to or '?'}"
    zone = f"{glyph_of(label)} {text}"
    return f"{zone} {tool_name}" if tool_name else zone


def indent_continuation(text: str, indent: str = "      ") -> str:
    """Multi-line record text: continuation lines indented under the record line."""
    return text.replace("\n", "\n" + indent)


def write_unit_line(out: TextIO, indent: str, zone: str, line: int | None, text: str,
                    image_ids: Sequence[str] = (), matches: Sequence[tuple[int, int]] = ()
                    ) -> None:
    """One hit / record line: ``<indent><zone>  L<line>  <text>[  [k image(s): …]]``, the
    zone, the line number and the ``matches`` (offsets in ``text``) painted on a
    painting stream (``output.terminal``); a record merged from the elicitation sidecar
    has no line."""
    out.write(indent)
    paint(out, zone, "label")
    out.write("  ")
    if line is not None:
        paint(out, f"L{line}", "line")
    else:
        out.write("(elicitation sidecar)")
    out.write("  ")
    if matches:
        paint_matches(out, text, matches)
    else:
        out.write(text)
    if image_ids:
        out.write(f"  [{len(image_ids)} image(s): {', '.join(image_ids)}]")
    out.write("\n")
