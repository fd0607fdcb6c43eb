"""The tool_use <-> tool_result join by ``tool_use_id`` (SPEC §4.5, §5.4 ``▹``).

A whole-buffer byte search for the id, then a C-level check of each line holding it for
the partner block's type key, then the partner line's own verdict (a line that does not
decode is no record, so no partner: it is malformed, and counted where the caller
counts), then its own content blocks (the bytes may sit in another field of a record that
decodes: ``_holds_block``). A block without an id is joined as csift §4.5 falls back: a result through its
carrier's ``sourceToolUseID`` (the call's id) or ``sourceToolAssistantUUID`` (the calling
record), a call through a carrier naming its record so whose result has no id.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from pysift.core.decode import decode, line_decodes
from pysift.disk.jsonline import spelled
from pysift.disk.lines import Buffer, line_end, line_start, simd_search
from pysift.model import labels as L
from pysift.model.fastdata import dataclass
from pysift.model.record import Record, block_name

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
_TOOL_VIEWS = _USE_VIEWS | _RESULT_VIEWS


def _is_use(label: str | None, labels: tuple[str, ...]) -> bool | None:
    if label in _USE_VIEWS:
        return True
    if label in _RESULT_VIEWS:
        return False
    if L.AGENT_TOOL_USE in labels:
        return True
    return False if L.AGENT_TOOL_RESULT in labels else None


def pair(buf: Buffer, tool_use_id: str | None, labels: tuple[str, ...],
         own_start: int | None, label: str | None = None, *, rec: Record | None = None,
         valid: Callable[[int, int], bool] | None = None) -> Pairing:
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

    A unit without a ``tool_use_id`` is joined through ``rec``, its record (csift §4.5's
    fallback, ``_by_record``). A line is a partner only when ``valid(start, end)`` (by
    default: it decodes, ``core.decode.line_decodes``); a caller that counts malformed
    lines passes its own check, which counts the lines it refuses. No partner found: a
    use is ``pending``, a result ``orphan``; None only for a unit that is no tool unit.
    """
    is_use = _is_use(label, labels)
    if is_use is None or (not tool_use_id and rec is None):
        return Pairing(None)
    check = valid if valid is not None else partial(_decodes, buf)
    found = None
    if tool_use_id:
        found = _by_id(buf, tool_use_id, is_use, own_start, check)
    elif rec is not None:
        found = _by_record(buf, rec, is_use, own_start, check)
    if found is not None:
        return found
    return Pairing("pending" if is_use else "orphan")


def pair_unit(buf: Buffer, unit: Unit, rec: Record, own_start: int | None, *,
              valid: Callable[[int, int], bool] | None = None) -> Pairing:
    """``pair`` for one unit of ``rec``: a tool view read off a tool block without an id
    is joined through its record (a user-facing dual, an answer or a rejection, is read
    off the whole carrier, a text-borne message is no tool block, and a text or thinking
    block of a calling record is no tool view: none of them falls back)."""
    fallback = rec if (not unit.tool_use_id and unit.block_index is not None
                       and unit.label in _TOOL_VIEWS) else None
    return pair(buf, unit.tool_use_id, unit.labels, own_start, unit.label, rec=fallback,
                valid=valid)


def _decodes(buf: Buffer, start: int, end: int) -> bool:
    return line_decodes(buf[start:end])


def _searches(buf: Buffer, own_start: int | None, forward_first: bool
              ) -> list[tuple[Callable[..., Pairing | None], int, int]]:
    """The partner searches in order: the whole file for a unit without a line, else the
    side after its line and the side before it, ``forward_first`` or not."""
    size = len(buf)
    if own_start is None:
        return [(_first, 0, size)]
    own_end = buf.find(b"\n", own_start)
    own_end = size if own_end < 0 else own_end + 1
    after, before = (_first, own_end, size), (_last, 0, own_start)
    return [after, before] if forward_first else [before, after]


def _by_id(buf: Buffer, tool_use_id: str, is_use: bool, own_start: int | None,
           check: Callable[[int, int], bool]) -> Pairing | None:
    """The partner joined by the id (see ``pair``)."""
    ident = spelled(tool_use_id)
    if is_use:
        partner_key, id_keys = _RESULT_KEY, (b'"tool_use_id":"', b'"tool_use_id": "')
        block_type, id_field = "tool_result", "tool_use_id"
    else:
        partner_key, id_keys = _USE_KEY, (b'"id":"', b'"id": "')
        block_type, id_field = "tool_use", "id"
    find = buf.find

    def partner_in(start: int, end: int) -> bool:
        return find(partner_key, start, end) >= 0 and any(
            find(key + ident + b'"', start, end) >= 0 for key in id_keys) and check(
            start, end) and _holds_block(buf[start:end], block_type, id_field, tool_use_id)

    for search, lo, hi in _searches(buf, own_start, is_use):
        found = search(buf, ident, lo, hi, partner_in)
        if found is not None:
            return found
    return None


def _holds_block(line: bytes, block_type: str, id_field: str, tool_use_id: str) -> bool:
    """Whether the record on ``line`` holds, among its own content blocks, the block of
    the join (csift's ``tool_result.tool_use_id == tool_use.id``). The bytes that picked
    the line can sit elsewhere in a record that decodes: a content key written otherwise
    (the real corpus has a carrier whose ``"contenst"`` holds the result block, read by no
    view), an object nested in another field. Such a line was taken for the partner, so
    the call read ``paired`` and stitched a record that shows no result.

    Asked only once the bytes and the caller's check have taken the line (one partner
    per tool hit), and read by simdjson without building the record: the partner lines
    of every tool unit of the real corpus (26 MB) cost 0.04 s so, 0.22 s through
    ``decode``. A line simdjson refuses (a lone surrogate escape) goes to ``decode``."""
    if not _PARSER:
        import simdjson

        _PARSER.append(simdjson.Parser())
    try:
        return _parsed_holds(_PARSER[0].parse(line), block_type, id_field, tool_use_id)
    except (ValueError, RuntimeError):  # UnicodeDecodeError is a ValueError
        rec = decode(line, None)
        return rec is not None and any(block.get(id_field) == tool_use_id
                                       for block in rec.blocks_of(block_type))


_PARSER: list[Any] = []  # one simdjson parser per process, reused line after line


def _parsed_holds(doc: Any, block_type: str, id_field: str, tool_use_id: str) -> bool:
    """``_holds_block`` on simdjson's proxy of the line (dropped when this returns, so the
    parser can be reused): ``message.content``'s objects, as ``Record.blocks`` reads them."""
    message: Any = doc.get("message") if hasattr(doc, "get") else None
    content: Any = message.get("content") if hasattr(message, "get") else None
    if content is None or isinstance(content, str) or not hasattr(content, "__iter__"):
        return False
    return any(hasattr(block, "get") and block.get("type") == block_type
               and block.get(id_field) == tool_use_id for block in content)


_SOURCE_ID = "sourceToolUseID"
_SOURCE_RECORD = "sourceToolAssistantUUID"


def _named_record(raw: dict[str, object]) -> str | None:
    """The calling record a carrier names: its ``sourceToolAssistantUUID``, else, on a
    carrier holding the harness's ``toolUseResult`` echo (which only a tool's own result
    carrier has), its ``parentUuid`` (Claude Code chains a result under the record that
    called; older writers name no source)."""
    named = raw.get(_SOURCE_RECORD)
    if named is None and "toolUseResult" in raw:
        named = raw.get("parentUuid")
    return named if isinstance(named, str) and named else None


def _by_record(buf: Buffer, rec: Record, is_use: bool, own_start: int | None,
               check: Callable[[int, int], bool]) -> Pairing | None:
    """csift §4.5's fallback for a block without an id (legacy carriers omit the
    block-level ``tool_use_id``; "fall back to the carrier's top-level
    ``toolUseResult``/``sourceToolAssistantUUID``"). A result: its carrier's
    ``sourceToolUseID`` joined as an id, else the record its carrier names
    (``_named_record``) when that record calls a tool. A use: the nearest carrier (after
    the call first) that names the use's record and holds a result without an id (a
    result with an id answers the call with that id). Records, not blocks, are joined:
    every id-less call of one record pairs with that carrier."""
    raw = rec.raw
    if is_use:
        wanted = rec.uuid
    else:
        source_id = raw.get(_SOURCE_ID)
        if isinstance(source_id, str) and source_id:
            found = _by_id(buf, source_id, False, own_start, check)
            if found is not None:
                return found
        wanted = _named_record(raw)
    if not wanted:
        return None
    ident = spelled(wanted)
    partner_key = _RESULT_KEY if is_use else _USE_KEY
    find = buf.find

    def partner_in(start: int, end: int) -> bool:
        if find(partner_key, start, end) < 0 or not check(start, end):
            return False
        other = decode(buf[start:end], None)
        if other is None:
            return False
        if is_use:
            return _named_record(other.raw) == wanted and any(
                not block.get("tool_use_id") for block in other.blocks_of("tool_result"))
        return other.uuid == wanted and bool(other.blocks_of("tool_use"))

    for search, lo, hi in _searches(buf, own_start, is_use):
        found = search(buf, ident, lo, hi, partner_in)
        if found is not None:
            return found
    return None


def _first(buf: Buffer, ident: bytes, lo: int, hi: int,
           partner_in: Callable[[int, int], bool]) -> Pairing | None:
    """The nearest partner line in ``[lo, hi)``, searching forward. An empty id names no
    line (it is found everywhere, and the search had stood still on the first line: a
    rejection whose ``tool_use_id`` was ``""`` hung every command that rendered it), and
    each step moves past the last find (an id starting with a newline is found at a line's
    own end)."""
    if not ident:
        return None
    find = buf.find
    pos = find(ident, lo, hi)
    while pos >= 0:
        start, end = _line_around(buf, pos)
        if partner_in(start, end):
            return Pairing("paired", start, end)
        pos = find(ident, max(end, pos + 1), hi)
    return None


def _last(buf: Buffer, ident: bytes, lo: int, hi: int,
           partner_in: Callable[[int, int], bool]) -> Pairing | None:
    """The nearest partner line in ``[lo, hi)``, searching backward (an empty id: none,
    as ``_first``)."""
    if not ident:
        return None
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
    """The name of the tool_use block with ``tool_use_id`` in ``rec``; for an empty id (a
    result joined through its record), the name of the record's one tool_use block."""
    if rec is None:
        return None
    blocks = rec.blocks_of("tool_use")
    if not tool_use_id:
        names = {block_name(b) for b in blocks}  # a name of another JSON type: None
        name = names.pop() if len(names) == 1 else None
        return name if isinstance(name, str) else None
    for block in blocks:
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
        ident = spelled(tool_use_id)

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
        # the SIMD search: the buffer's own ``rfind`` steps through every quote of the
        # transcript before the call (a key ending in one), ~1% of a listing of corpus B
        with simd_search(buf) as (_, rfind):
            for key in _PLAN_MODE_KEYS:
                pos = rfind(key, 0, stop)
                while pos >= 0:
                    start, end = _line_around(buf, pos)
                    rec = decode(buf[start:end], None)
                    payload = rec.raw.get("attachment") if rec is not None else None
                    if isinstance(payload, dict) and payload.get("type") == "plan_mode":
                        path = payload.get("planFilePath")
                        if isinstance(path, str) and path:
                            return path
                    pos = rfind(key, 0, start)
        return None
