"""Spawn links between transcripts: which Task/Agent tool_use issued which subagent.

Shared by the target resolver (walking DOWN to an agent's descendants) and whoami
(walking UP an ancestry chain). A child names its spawner in ``.meta.json``:
``parentAgentId`` when present, else ``toolUseId`` matched against the Task/Agent
tool_use ids of the candidate parent's transcript, else a teammate ``name``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pysift.core.decode import decode
from pysift.disk.lines import Buffer, line_end, line_start
from pysift.disk.mapped import try_open_buffer
from pysift.model.tools import META_LINKED_SPAWN_TOOLS

# A line holding a linked spawn holds its tool's name as a JSON string.
_SPAWN_NEEDLES = tuple(sorted(f'"{tool}"'.encode() for tool in META_LINKED_SPAWN_TOOLS))


@dataclass
class Spawns:
    tool_use_ids: set[str] = field(default_factory=set)
    names: set[str] = field(default_factory=set)


def spawns_in(path: Path) -> Spawns:
    """The Task/Agent ``tool_use`` ids (and ``input.name``s) issued in one transcript."""
    spawns = Spawns()
    buf = try_open_buffer(path)  # an unreadable file issues no spawns
    if buf is None or buf.find(b'"tool_use"') < 0:
        return spawns
    starts: set[int] = set()
    for needle in _SPAWN_NEEDLES:
        pos = buf.find(needle)
        while pos >= 0:
            start = line_start(buf, pos)
            starts.add(start)
            pos = buf.find(needle, line_end(buf, pos) + 1)
    for start in sorted(starts):
        record = decode(buf[start : line_end(buf, start)], None)
        if record is None:
            continue
        for block in record.blocks_of("tool_use"):
            if block.get("name") not in META_LINKED_SPAWN_TOOLS:
                continue
            tool_use_id = block.get("id")
            if isinstance(tool_use_id, str):
                spawns.tool_use_ids.add(tool_use_id)
            tool_input = block.get("input")
            name = tool_input.get("name") if isinstance(tool_input, dict) else None
            if isinstance(name, str) and name:
                spawns.names.add(name)
    return spawns


class IssuedBy:
    """Lazy "did this transcript itself issue tool_use id X" check (one buffer, opened once).

    Only a ``tool_use`` block of the record's own message counts: older Claude Code builds
    copy a subagent's messages into the main transcript as ``progress`` records, whose
    nested blocks were issued by the subagent, not by the main thread.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._buf: Buffer | None = None
        self._opened = False

    def __call__(self, tool_use_id: str) -> bool:
        if not self._opened:
            self._opened = True
            self._buf = try_open_buffer(self.path) if self.path.is_file() else None
        buf = self._buf
        if buf is None:
            return False
        needle = f'"{tool_use_id}"'.encode()
        pos = buf.find(needle)
        while pos >= 0:
            start, end = line_start(buf, pos), line_end(buf, pos)
            record = decode(buf[start:end], None)
            if record is not None and any(
                block.get("id") == tool_use_id for block in record.blocks_of("tool_use")
            ):
                return True
            pos = buf.find(needle, end + 1)
        return False


def spawned_by(
    meta: Mapping[str, Any], parent_id: str, spawns: Spawns, main_issued: IssuedBy
) -> bool:
    declared = meta.get("parentAgentId")
    if isinstance(declared, str) and declared:
        return declared == parent_id
    tool_use_id = meta.get("toolUseId")
    if isinstance(tool_use_id, str) and tool_use_id:
        return tool_use_id in spawns.tool_use_ids and not main_issued(tool_use_id)
    name = meta.get("name")
    return isinstance(name, str) and name in spawns.names
