"""A tool_result's content as text: the one reading search, show and the classifier share.

Search matches it and hashes it into a hit's block id, ``show r:<tool_use_id>`` prints it
back, and the classifier looks in it for the markers of an AskUserQuestion answer, a
rejection and an agent launch acknowledgement; all of them must read the same text.
"""

from __future__ import annotations

from pysift.disk.jsonline import compact_json
from pysift.model.record import JsonObj


def result_text(block: JsonObj) -> str:
    """A tool_result's content as matchable text (§4.5).

    A string as is; an array's ``text`` parts (and a ``tool_reference``'s ``tool_name``)
    joined by newlines, images contributing nothing; any other JSON value compactly.
    """
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for item in content:
            if not isinstance(item, dict):
                continue
            text = item.get("text")
            if isinstance(text, str):
                parts.append(text)
                continue
            name = item.get("tool_name")
            if isinstance(name, str):
                parts.append(name)
        return "\n".join(parts)
    if content is None:
        return ""
    return compact_json(content)
