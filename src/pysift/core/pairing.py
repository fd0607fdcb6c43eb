"""The tool_use <-> tool_result join by ``tool_use_id`` (SPEC §4.5, §5.4 ``▹``).

A whole-buffer byte search for the id, then a C-level check of each line holding it for
the partner block's type key: no parse unless the partner record itself is wanted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from pysift.core.decode import decode
from pysift.disk.lines import Buffer, line_end, line_start
from pysift.model import labels as L
from pysift.model.fastdata import dataclass
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


# -- the [plan: <path>] pointer of an ExitPlanMode rejection (csift §4.2.4) -----------------

_PLAN_MODE_KEYS = (b'"type":"plan_mode"', b'"type": "plan_mode"')


class PlanIndex(Mapping[str, str]):
    """ExitPlanMode ``tool_use_id`` -> the plan file it presented, read off one
    transcript's bytes on demand (a rejection is rare: nothing is read until one is
    rendered). The path is the call's own ``input.planFilePath`` (Claude Code 2.x writes
    it), else the ``planFilePath`` of the newest ``plan_mode`` attachment before the call;
    a session bound only by its slug (older builds) gives no pointer."""

    __slots__ = ("_buf", "_found")

    def __init__(self, buf: Buffer) -> None:
        self._buf = buf
        self._found: dict[str, str | None] = {}

    def __getitem__(self, tool_use_id: str) -> str:
        if tool_use_id not in self._found:
            self._found[tool_use_id] = self._look_up(tool_use_id)
        path = self._found[tool_use_id]
        if path is None:
            raise KeyError(tool_use_id)
        return path

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(k for k, v in self._found.items() if v is not None)

    def __len__(self) -> int:
        return sum(1 for v in self._found.values() if v is not None)

    def _look_up(self, tool_use_id: str) -> str | None:
        buf = self._buf
        ident = tool_use_id.encode()

        def use_in(start: int, end: int) -> bool:
            return buf.find(_USE_KEY, start, end) >= 0 and any(
                buf.find(key + ident + b'"', start, end) >= 0
                for key in (b'"id":"', b'"id": "'))

        found = _first(buf, ident, 0, len(buf), use_in)
        if found is None or found.partner_start is None:
            return None
        rec = found.partner(buf)
        for block in rec.blocks_of("tool_use") if rec is not None else ():
            if block.get("id") != tool_use_id or block.get("name") != "ExitPlanMode":
                continue
            given = block.get("input")
            path = given.get("planFilePath") if isinstance(given, dict) else None
            if isinstance(path, str) and path:
                return path
            return self._plan_mode_before(found.partner_start)
        return None

    def _plan_mode_before(self, stop: int) -> str | None:
        """The newest ``plan_mode`` attachment's ``planFilePath`` on a line before ``stop``."""
        buf = self._buf
        for key in _PLAN_MODE_KEYS:
            pos = buf.rfind(key, 0, stop)
            while pos >= 0:
                start, end = _line_around(buf, pos)
                rec = decode(buf[start:end], None)
                payload = rec.raw.get("attachment") if rec is not None else None
                if isinstance(payload, dict) and payload.get("type") == "plan_mode":
                    path = payload.get("planFilePath")
                    if isinstance(path, str) and path:
                        return path
                pos = buf.rfind(key, 0, start)
        return None
