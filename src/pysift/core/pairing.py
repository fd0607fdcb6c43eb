"""The tool_use <-> tool_result join by ``tool_use_id`` (SPEC §4.5, §5.4 ``▹``).

A whole-buffer byte search for the id, then a C-level check of each line holding it for
the partner block's type key: no parse unless the partner record itself is wanted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pysift.core.decode import decode
from pysift.disk.lines import Buffer, line_end, line_start
from pysift.model import labels as L
from pysift.model.record import Record

if TYPE_CHECKING:
    from pysift.core.classify.render import Unit

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


# the unit's own view decides its side of the join; a communication view rides the tool
# block it was read from (a SendMessage/spawn is a use, a subagent return a result)
_USE_VIEWS = frozenset({L.AGENT_TOOL_USE, L.AGENT_COMM_SENT, L.AGENT_COMM_SIGNAL})
_RESULT_VIEWS = frozenset({L.AGENT_TOOL_RESULT, L.AGENT_COMM_INBOX})


def _is_use(label: str | None, labels: tuple[str, ...]) -> bool | None:
    if label in _USE_VIEWS:
        return True
    if label in _RESULT_VIEWS:
        return False
    if L.AGENT_TOOL_USE in labels:
        return True
    return False if L.AGENT_TOOL_RESULT in labels else None


def pair(buf: Buffer, tool_use_id: str | None, labels: tuple[str, ...],
         own_start: int | None, label: str | None = None) -> Pairing:
    """Where the partner of a tool unit lives, if anywhere in this transcript.

    The partner is the line holding the other block of the join: a result's
    ``"tool_use_id":"<id>"`` beside a ``"tool_result"`` key, or a use's ``"id":"<id>"``
    beside a ``"tool_use"`` key (the id alone is not enough: a progress line names its
    Task as ``parentToolUseID`` and embeds the subagent's own results). A result follows
    its use, so a use looks FORWARD from its own line and a result BACKWARD from its own
    first (the partner is usually a few lines away, and the cost never grows with how
    deep in a 200 MB file the unit sits); only when that misses is the other side
    searched, since a writer may put a result above its call. A unit without a line (a
    sidecar record) looks at the whole file. ``label`` is the view the unit renders.
    """
    if not tool_use_id:
        return Pairing(None)
    is_use = _is_use(label, labels)
    if is_use is None:
        return Pairing(None)
    ident = tool_use_id.encode()
    if is_use:
        partner_key, id_keys, absent = _RESULT_KEY, (b'"tool_use_id":"', b'"tool_use_id": "'), \
            "pending"
    else:
        partner_key, id_keys, absent = _USE_KEY, (b'"id":"', b'"id": "'), "orphan"
    find, size = buf.find, len(buf)

    def partner_in(start: int, end: int) -> bool:
        return find(partner_key, start, end) >= 0 and any(
            find(key + ident + b'"', start, end) >= 0 for key in id_keys)

    if own_start is None:
        searches = [(_first, 0, size)]
    else:
        own_end = find(b"\n", own_start)
        own_end = size if own_end < 0 else own_end + 1
        after, before = (_first, own_end, size), (_last, 0, own_start)
        searches = [after, before] if is_use else [before, after]
    for search, lo, hi in searches:
        found = search(buf, ident, lo, hi, partner_in)
        if found is not None:
            return found
    return Pairing(absent)


def _first(buf: Buffer, ident: bytes, lo: int, hi: int,
           partner_in: Callable[[int, int], bool]) -> Pairing | None:
    """The nearest partner line in ``[lo, hi)``, searching forward."""
    find = buf.find
    pos = find(ident, lo, hi)
    while pos >= 0:
        start, end = _line_around(buf, pos)
        if partner_in(start, end):
            return Pairing("paired", start, end)
        pos = find(ident, end, hi)
    return None


def _last(buf: Buffer, ident: bytes, lo: int, hi: int,
           partner_in: Callable[[int, int], bool]) -> Pairing | None:
    """The nearest partner line in ``[lo, hi)``, searching backward."""
    rfind = buf.rfind
    pos = rfind(ident, lo, hi)
    while pos >= 0:
        start, end = _line_around(buf, pos)
        if partner_in(start, end):
            return Pairing("paired", start, end)
        pos = rfind(ident, lo, start)
    return None


def _line_around(buf: Buffer, pos: int) -> tuple[int, int]:
    return line_start(buf, pos), line_end(buf, pos)


def tool_name_of_use(rec: Record | None, tool_use_id: str) -> str | None:
    """The name of the tool_use block with ``tool_use_id`` in ``rec``."""
    if rec is None:
        return None
    for block in rec.blocks_of("tool_use"):
        name = block.get("name")
        if block.get("id") == tool_use_id and isinstance(name, str):
            return name
    return None


def with_result_tool_name(unit: Unit, joined: Pairing, buf: Buffer) -> Unit:
    """A tool_result unit names its tool (read off the paired tool_use record)."""
    if unit.tool_name or L.AGENT_TOOL_RESULT not in unit.labels or joined.state != "paired":
        return unit
    name = tool_name_of_use(joined.partner(buf), unit.tool_use_id or "")
    if name is None:
        return unit
    from dataclasses import replace

    return replace(unit, tool_name=name)
