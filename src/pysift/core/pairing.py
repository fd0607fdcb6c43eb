"""The tool_use <-> tool_result join by ``tool_use_id`` (SPEC §4.5, §5.4 ``▹``).

A whole-buffer byte search for the id, then a C-level check of each line holding it for
the partner block's type key: no parse unless the partner record itself is wanted.
"""

from __future__ import annotations

from dataclasses import dataclass

from pysift.core.decode import decode
from pysift.disk.lines import Buffer
from pysift.model import labels as L
from pysift.model.record import Record

_RESULT_KEY = b'"tool_result"'
_USE_KEY = b'"tool_use"'


@dataclass(frozen=True, slots=True)
class Pairing:
    state: str | None  # "paired" | "pending" | "orphan" | None (not a tool unit)
    partner_start: int | None = None
    partner_end: int | None = None

    def partner(self, buf: Buffer) -> Record | None:
        if self.partner_start is None or self.partner_end is None:
            return None
        return decode(buf[self.partner_start:self.partner_end], None)


def pair(buf: Buffer, tool_use_id: str | None, labels: tuple[str, ...],
         own_start: int | None) -> Pairing:
    """Where the partner of a tool unit lives, if anywhere in this transcript."""
    if not tool_use_id:
        return Pairing(None)
    if L.AGENT_TOOL_USE in labels:
        partner_key, absent = _RESULT_KEY, "pending"
    elif L.AGENT_TOOL_RESULT in labels:
        partner_key, absent = _USE_KEY, "orphan"
    else:
        return Pairing(None)
    needle = tool_use_id.encode()
    find, rfind = buf.find, buf.rfind
    pos = find(needle)
    while pos >= 0:
        start = rfind(b"\n", 0, pos) + 1
        end = find(b"\n", pos)
        end = len(buf) if end < 0 else end
        if start != own_start and partner_key in buf[start:end]:
            return Pairing("paired", start, end)
        pos = find(needle, end)
    return Pairing(absent)


def tool_name_of_use(rec: Record | None, tool_use_id: str) -> str | None:
    """The name of the tool_use block with ``tool_use_id`` in ``rec``."""
    if rec is None:
        return None
    for block in rec.blocks_of("tool_use"):
        if block.get("id") == tool_use_id and isinstance(block.get("name"), str):
            return block["name"]
    return None


def with_result_tool_name(unit, joined: Pairing, buf: Buffer):
    """A tool_result unit names its tool (read off the paired tool_use record)."""
    if unit.tool_name or L.AGENT_TOOL_RESULT not in unit.labels or joined.state != "paired":
        return unit
    name = tool_name_of_use(joined.partner(buf), unit.tool_use_id or "")
    if name is None:
        return unit
    from dataclasses import replace

    return replace(unit, tool_name=name)
