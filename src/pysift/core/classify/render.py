"""Unit rendering: what a search or a show prints of a record (§5.2).

One ``Unit`` per block for assistant records, per section for batched notification/peer
records, one per record otherwise, each under the richest label the caller's selection
accepts (the Q4 dedup). ``renders_unit`` answers "would ``units`` yield anything" without
rendering, for the records a count goes through by the million.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pysift.core.blocktext import result_text
from pysift.core.classify.comms import return_child, tool_use_comm_leaf, tool_use_direction
from pysift.core.classify.context import DEFAULT_CTX, ClassifyContext
from pysift.core.classify.ladder import classify
from pysift.core.classify.linetext import line_text, record_raw_text
from pysift.core.classify.markers import (
    is_elicitation_marker,
    is_slash_command_wrapper,
    unmarked_user_body,
)
from pysift.core.classify.openers import (
    auq_exchange,
    in_sidechain,
    opener_text,
    rejection,
    rejection_text,
    slash_parts,
    slash_render,
)
from pysift.core.classify.records import (
    flat_text,
    is_error_result,
    normalize_line,
    raw_message_text,
    str_or_none,
)
from pysift.core.classify.sections import sections_of
from pysift.core.classify.signature import thinking_leaf
from pysift.disk.jsonline import compact_json
from pysift.model import labels as L
from pysift.model.fastdata import dataclass
from pysift.model.record import JsonObj, Record

# Texts pysift writes itself: a redacted block's body, and the label-zone tag of narration.
REDACTED_THINKING_TEXT = "[redacted thinking]"
NARRATION_TAG_TEXT = "[narration summary]"


@dataclass(frozen=True, slots=True)
class Unit:
    """One rendered, matchable unit of a record (a block, a section, or the record).

    ``label`` is the view this unit renders under and is always one of ``labels`` (the
    record's full set, richest first). ``text`` is what a pattern is matched against.
    ``from_``/``to`` are set on ``agent.communication.*`` units only; the transcript owner
    renders as ``self``. ``is_error`` is a bool on tool-result units and None elsewhere.
    ``tag`` is a label-zone marker (``[narration summary]``, ``[enqueue]``, ...), display only.
    """

    label: str
    labels: tuple[str, ...]
    text: str
    tool_name: str | None = None
    tool_use_id: str | None = None
    is_error: bool | None = None
    from_: str | None = None
    to: str | None = None
    queue_operation: str | None = None
    queue_reason: str | None = None
    block_index: int | None = None
    tag: str | None = None


def render_tool_use(block: JsonObj) -> str:
    """``name {compact input}``: the name first (so ``search AskUserQuestion`` works), then
    the arguments as compact JSON so a pattern can reach them."""
    name = str_or_none(block.get("name")) or ""
    if "input" in block:
        return f"{name} {compact_json(block.get('input'))}"
    return name


Select = Callable[[str], bool]


def _queue_tag(operation: str | None, reason: str | None) -> str | None:
    if operation is None:
        return None
    return f"[{operation} · {reason}]" if reason else f"[{operation}]"


class _Emitter:
    """Builds the units of one record; every unit's label is checked against the set."""

    __slots__ = ("accept", "label_set", "labels", "out")

    def __init__(self, labels: tuple[str, ...], accept: Select) -> None:
        self.labels = labels
        self.label_set = frozenset(labels)
        self.accept = accept
        self.out: list[Unit] = []

    def pick(self, *views: str) -> str | None:
        """The richest of ``views`` the record carries and the selection accepts."""
        for view in views:
            if view in self.label_set and self.accept(view):
                return view
        return None

    def emit(self, label: str, text: str, **facts: Any) -> None:
        self.out.append(Unit(label=label, labels=self.labels, text=text, **facts))


def units(
    rec: Record,
    ctx: ClassifyContext | None = None,
    select: Select | None = None,
    *,
    draft: bool = False,
) -> list[Unit]:
    """The rendered units of ``rec``, each under its richest label ``select`` accepts.

    One unit per block on assistant records, per section on batched notification/peer
    records, and one per record otherwise. A multi-label unit (an AUQ answer, a typed
    rejection, a slash command with args, a SendMessage/spawn, a subagent return) renders
    ONCE under its richest accepted view (Q4 dedup); a unit no view of which is accepted is
    dropped. ``draft=True`` renders a superseded draft as its single ``user.unsent`` unit.
    """
    ctx = ctx or DEFAULT_CTX
    accept: Select = select if select is not None else (lambda _leaf: True)
    if draft:
        if not accept(L.USER_UNSENT):
            return []
        text = opener_text(rec, ctx) or record_raw_text(rec) or ""
        return [Unit(L.USER_UNSENT, (L.USER_UNSENT,), text)]
    found = classify(rec, ctx)
    if not found:
        return []
    em = _Emitter(tuple(found), accept)
    kind = rec.type
    if is_elicitation_marker(rec):
        _elicitation_units(rec, em)
    elif kind == "assistant":
        _assistant_units(rec, ctx, em)
    elif kind == "user":
        _user_units(rec, ctx, em)
    else:
        _line_units(rec, em)
    return em.out


def renders_unit(rec: Record, ctx: ClassifyContext | None, select: Select,
                 leaves: list[str], accepted: list[str], *, draft: bool = False) -> bool:
    """Whether ``units(rec, ctx, select, draft=draft)`` yields a unit, for a record whose
    ``classify`` leaves are ``leaves``, of which ``select`` accepts ``accepted`` (not
    empty, in the same order).

    A label can stand for a piece that renders nothing (a tool_result block with null or
    absent content, a turn_duration record without its duration fields), so a count that
    goes by the labels alone (``search '' -c``/``-l``) would count records the rows never
    show. The records a transcript is mostly made of answer without rendering: a typed
    prompt (its one leaf renders the body), an assistant record (every leaf but
    ``agent.tool.result`` renders whenever it is found), a plain carrier (its results
    render when their content is there). Every other record is rendered.
    """
    if draft:
        return True  # user.unsent renders whatever the draft holds (``units(draft=True)``)
    kind = rec.type
    if kind == "assistant":
        if not is_elicitation_marker(rec):
            return accepted != _PLAIN_CARRIER_LEAVES or _any_result_renders(rec)
    elif kind == "user" and not is_elicitation_marker(rec):
        if leaves == _PLAIN_CARRIER_LEAVES:  # ``_tool_result_unit`` per block
            return _any_result_renders(rec)
        if unmarked_user_body(rec) is not None:
            return True
        return _user_renders(rec, ctx or DEFAULT_CTX, select, leaves)
    return bool(units(rec, ctx, select))


def _user_renders(rec: Record, ctx: ClassifyContext, select: Select, leaves: list[str]
                  ) -> bool:
    """Whether ``_user_units`` emits a unit for a plain user record (or a tool_result
    carrier), decided the way it decides but without building a text (a one-lined body
    costs a split of the whole message)."""
    if rec.is_compact_summary:
        return L.HARNESS_COMPACTION_SUMMARY in leaves and select(L.HARNESS_COMPACTION_SUMMARY)
    raw = raw_message_text(rec)
    sections = sections_of(raw, ctx) if raw is not None else []
    if sections:
        return any(s.label in leaves and select(s.label) for s in sections)
    blocks = _content_blocks(rec)
    if any(b.get("type") == "tool_result" for b in blocks):
        return _carrier_renders(rec, ctx, blocks, leaves, select)
    for view in leaves:
        if view in _RECORD_TEXT_LEAVES and select(view) and _has_record_view(view, raw):
            return True
    return False


def _carrier_renders(rec: Record, ctx: ClassifyContext, blocks: list[JsonObj],
                     leaves: list[str], select: Select) -> bool:
    """Whether ``_carrier_units`` emits a unit, decided the way it decides but without
    building a text (a rejection's text looks its plan file up: a search through the
    transcript's bytes for the ExitPlanMode call)."""

    def pick(*views: str) -> bool:
        return any(view in leaves and select(view) for view in views)

    if pick(L.USER_ANSWER):  # the dual, under its richest accepted view
        if auq_exchange(rec) is not None:
            return True
    elif pick(L.USER_REJECTION) and rejection(rec) is not None:
        return True
    for block in blocks:
        if block.get("type") != "tool_result" or block.get("content") is None:
            continue
        child = return_child(rec, block, ctx)
        if pick(L.AGENT_COMM_INBOX, L.AGENT_TOOL_RESULT) if (
                child is not None and L.AGENT_COMM_INBOX in leaves) else pick(
                L.AGENT_TOOL_RESULT):
            return True
    return False


def _has_record_view(view: str, raw: str | None) -> bool:
    """``_record_view(rec, view, ctx)[0] is not None``, ``raw`` the record's raw text."""
    if view == L.USER_MESSAGE:
        body = raw or ""
        return not is_slash_command_wrapper(body) or bool(slash_parts(body))
    if view in (L.AGENT_COMM_INBOX, L.HARNESS_NOTIFICATION_SUBAGENT):
        return True  # a flat text or a fixed prefix: never None
    return raw is not None


_PLAIN_CARRIER_LEAVES = [L.AGENT_TOOL_RESULT]


def _any_result_renders(rec: Record) -> bool:
    """A tool_result block ``_tool_result_unit`` renders (its content is there)."""
    content = rec.content
    if isinstance(content, list):
        for b in content:
            if isinstance(b, dict) and b.get("type") == "tool_result" \
                    and b.get("content") is not None:
                return True
    return False


def _elicitation_units(rec: Record, em: _Emitter) -> None:
    if em.pick(L.AGENT_TOOL_USE) is None:
        return
    tool_uses = [(i, b) for i, b in enumerate(_content_blocks(rec)) if b.get("type") == "tool_use"]
    for index, block in tool_uses:
        em.emit(L.AGENT_TOOL_USE, render_tool_use(block), tool_name=str_or_none(block.get("name")),
                tool_use_id=str_or_none(block.get("id")), block_index=index)
    if not tool_uses:
        content = rec.system_content
        if isinstance(content, str):
            em.emit(L.AGENT_TOOL_USE, content, tool_name=str_or_none(rec.raw.get("csiftKind")))


def _content_blocks(rec: Record) -> list[JsonObj]:
    """Blocks WITH their original index positions kept meaningful (non-dicts become {})."""
    content = rec.content
    if not isinstance(content, list):
        return []
    return [b if isinstance(b, dict) else {} for b in content]


def _line_units(rec: Record, em: _Emitter) -> None:
    label = em.labels[0]
    if em.pick(label) is None:
        return
    text = record_raw_text(rec) if rec.type == "attachment" else line_text(rec)
    if text is None:
        return
    if label == L.USER_QUEUED:
        operation = str_or_none(rec.raw.get("operation"))
        reason = str_or_none(rec.raw.get("reason"))
        em.emit(label, text, queue_operation=operation, queue_reason=reason,
                tag=_queue_tag(operation, reason))
    else:
        em.emit(label, text)


def _assistant_units(rec: Record, ctx: ClassifyContext, em: _Emitter) -> None:
    content = rec.content
    if isinstance(content, str):
        if content.strip() and em.pick(L.AGENT_MESSAGE):
            em.emit(L.AGENT_MESSAGE, content)
        return
    for index, block in enumerate(_content_blocks(rec)):
        kind = block.get("type")
        if kind == "text":
            text = block.get("text")
            if isinstance(text, str) and text.strip() and em.pick(L.AGENT_MESSAGE):
                em.emit(L.AGENT_MESSAGE, text, block_index=index)
        elif kind == "thinking":
            leaf = thinking_leaf(block.get("signature"))
            if em.pick(leaf):
                em.emit(leaf, str_or_none(block.get("thinking")) or "", block_index=index,
                        tag=NARRATION_TAG_TEXT if leaf == L.AGENT_THINKING_NARRATION else None)
        elif kind == "redacted_thinking":
            if em.pick(L.AGENT_THINKING):
                em.emit(L.AGENT_THINKING, REDACTED_THINKING_TEXT, block_index=index)
        elif kind == "tool_use":
            comm = tool_use_comm_leaf(block.get("name"), block.get("input"))
            view = em.pick(comm, L.AGENT_TOOL_USE) if comm else em.pick(L.AGENT_TOOL_USE)
            if view is None:
                continue
            facts: dict[str, Any] = {}
            if view != L.AGENT_TOOL_USE:
                facts["from_"], facts["to"] = tool_use_direction(block, ctx)
            em.emit(view, render_tool_use(block), tool_name=str_or_none(block.get("name")),
                    tool_use_id=str_or_none(block.get("id")), block_index=index, **facts)
        elif kind == "tool_result":
            _tool_result_unit(block, index, None, em)


def _tool_result_unit(block: JsonObj, index: int, inbox_from: str | None, em: _Emitter) -> None:
    if "content" not in block or block.get("content") is None:
        return
    view = em.pick(L.AGENT_COMM_INBOX, L.AGENT_TOOL_RESULT) if inbox_from else em.pick(
        L.AGENT_TOOL_RESULT
    )
    if view is None:
        return
    facts: dict[str, Any] = {}
    if view == L.AGENT_COMM_INBOX:
        facts["from_"], facts["to"] = inbox_from, "self"
    em.emit(view, result_text(block), tool_use_id=str_or_none(block.get("tool_use_id")),
            is_error=is_error_result(block), block_index=index,
            **facts)


# The labels a plain user record renders from its record-level text.
_RECORD_TEXT_LEAVES = frozenset(
    {
        L.USER_MESSAGE,
        L.AGENT_COMM_INBOX,
        L.HARNESS_NOTIFICATION_SUBAGENT,
        L.HARNESS_COMPACTION_SUMMARY,
        L.HARNESS_COMMAND_INVOCATION,
        L.HARNESS_COMMAND_STDOUT,
        L.HARNESS_INTERRUPT_USER,
        L.HARNESS_INTERRUPT_TOOL,
        L.HARNESS_SCHEDULE_WAKEUP,
        L.HARNESS_SCHEDULE_CONTINUATION,
        L.HARNESS_META_HOOK,
        L.HARNESS_META_LOOP,
    }
)


def _user_units(rec: Record, ctx: ClassifyContext, em: _Emitter) -> None:
    if rec.is_compact_summary:
        if em.pick(L.HARNESS_COMPACTION_SUMMARY):
            em.emit(L.HARNESS_COMPACTION_SUMMARY, raw_message_text(rec) or "")
        return
    raw = raw_message_text(rec)
    sections = sections_of(raw, ctx) if raw is not None else []
    if sections:
        for section in sections:
            if em.pick(section.label):
                em.emit(section.label, section.text, from_=section.from_, to=section.to)
        return
    blocks = _content_blocks(rec)
    if any(b.get("type") == "tool_result" for b in blocks):
        _carrier_units(rec, ctx, blocks, em)
        return
    for view in em.labels:
        if view not in _RECORD_TEXT_LEAVES or not em.accept(view):
            continue
        text, facts = _record_view(rec, view, ctx)
        if text is not None:
            em.emit(view, text, **facts)
            return


def _record_view(rec: Record, view: str, ctx: ClassifyContext) -> tuple[str | None, dict[str, Any]]:
    """The text (and comm direction) of one record-level view of a plain user record."""
    if view == L.USER_MESSAGE:
        raw = raw_message_text(rec) or ""
        if is_slash_command_wrapper(raw):
            parts = slash_parts(raw)
            return (slash_render(*parts) if parts else None), {}
        return flat_text(rec), {}
    if view == L.AGENT_COMM_INBOX:
        if in_sidechain(rec, subagent=ctx.is_subagent):
            # a subagent's prompt in the main transcript: this session's side sent it, to
            # a subagent no record names (no agentId: ``?``, as a spawn's unknown child)
            return flat_text(rec), {"from_": "self", "to": "?"}
        # the subagent seed: parent ⇨ self
        return flat_text(rec), {"from_": ctx.seed_sender(), "to": "self"}
    if view == L.HARNESS_NOTIFICATION_SUBAGENT:
        return f"[subagent stopped] {normalize_line(raw_message_text(rec) or '')}", {}
    return raw_message_text(rec), {}


def _carrier_units(rec: Record, ctx: ClassifyContext, blocks: list[JsonObj], em: _Emitter) -> None:
    """A tool_result carrier: the user-facing dual once (richest), else one unit per result."""
    dual = em.pick(L.USER_ANSWER, L.USER_REJECTION)
    if dual is not None:
        if dual == L.USER_ANSWER:
            exchange = auq_exchange(rec)
            text = normalize_line(exchange) if exchange is not None else None
        else:
            rejected = rejection(rec)
            text = rejection_text(rejected, ctx) if rejected is not None else None
        if text is not None:
            # the record is a tool result too: its hit says whether that result errored
            errored = any(is_error_result(b) for b in blocks if b.get("type") == "tool_result")
            em.emit(dual, text, is_error=errored)
            return
    for index, block in enumerate(blocks):
        if block.get("type") != "tool_result":
            continue
        child = return_child(rec, block, ctx)
        is_return = child is not None and L.AGENT_COMM_INBOX in em.label_set
        inbox_from = ctx.alias(child) if is_return and child is not None else None
        _tool_result_unit(block, index, inbox_from, em)
