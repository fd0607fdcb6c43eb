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
    """Where the partner of a tool unit lives, if anywhere in this transcript.

    A result follows its use, so a use looks FORWARD from its own line and a result
    BACKWARD from its own: the partner is usually a few lines away, and the cost never
    grows with how deep in a 200 MB file the unit sits. A unit without a line (a sidecar
    record) looks at the whole file.
    """
    if not tool_use_id:
        return Pairing(None)
    if L.AGENT_TOOL_USE in labels:
        partner_key, absent, forward = _RESULT_KEY, "pending", True
    elif L.AGENT_TOOL_RESULT in labels:
        partner_key, absent, forward = _USE_KEY, "orphan", False
    else:
        return Pairing(None)
    needle = tool_use_id.encode()
    find, rfind, size = buf.find, buf.rfind, len(buf)
    if own_start is None:
        forward, lo, hi = True, 0, size
    elif forward:
        own_end = find(b"\n", own_start)
        lo, hi = (size if own_end < 0 else own_end + 1), size
    else:
        lo, hi = 0, own_start
    if forward:
        pos = find(needle, lo, hi)
        while pos >= 0:
            start, end = _line_around(buf, pos)
            if start != own_start and find(partner_key, start, end) >= 0:
                return Pairing("paired", start, end)
            pos = find(needle, end, hi)
    else:
        pos = rfind(needle, lo, hi)
        while pos >= 0:
            start, end = _line_around(buf, pos)
            if find(partner_key, start, end) >= 0:
                return Pairing("paired", start, end)
            pos = rfind(needle, lo, start)
    return Pairing(absent)


def _line_around(buf: Buffer, pos: int) -> tuple[int, int]:
    start = buf.rfind(b"\n", 0, pos) + 1
    end = buf.find(b"\n", pos)
    return start, len(buf) if end < 0 else end


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
