"""The label zone's order (wire-format §2 text layout): ``<glyph> <label>[ <tool>]``, where
the pairing, ``[error]``, tag and direction decorations belong to the label."""

from __future__ import annotations

import pytest

from pysift.output.hitline import label_zone


@pytest.mark.parametrize(("kwargs", "zone"), [
    ({"label": "user.message"}, "◂ user.message"),
    ({"label": "agent.tool.use", "tool_name": "Bash", "pairing": "paired"},
     "▸ agent.tool.use ▹ agent.tool.result Bash"),
    ({"label": "agent.tool.use", "tool_name": "Bash", "pairing": "pending"},
     "▸ agent.tool.use (no result — pending) Bash"),
    ({"label": "agent.tool.result", "tool_name": "Edit", "pairing": "orphan"},
     "▸ agent.tool.result (use not in scope) Edit"),
    ({"label": "agent.tool.result", "tool_name": "Edit", "is_error": True, "pairing": "paired"},
     "▸ agent.tool.result [error] Edit"),
    ({"label": "agent.communication.sent", "tool_name": "Task", "from_": "self",
          "to": "general-purpose"},
     "▸ agent.communication.sent  self ⇨ general-purpose Task"),
    ({"label": "agent.communication.inbox", "from_": "lead", "to": "self"},
     "▸ agent.communication.inbox  lead ⇨ self"),
    ({"label": "user.queued", "tag": "[enqueue]"}, "◂ user.queued [enqueue]"),
])
def test_decorations_stand_with_the_label_and_the_tool_comes_last(kwargs, zone) -> None:
    assert label_zone(**kwargs) == zone
