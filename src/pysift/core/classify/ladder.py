"""The label ladder: a record's full ``role.class.sub`` label set (§5).

34 leaves, multi-label, richest first. A plain user body walks the marker ladder
(``_user_string_leaves``, first match wins); a batched notification/peer record takes one
leaf per section; a tool_result carrier is an answer, a rejection, a subagent's return or
a plain result; an assistant record takes a leaf per block; message-less lines are
promoted by their type and subtype. Gated leaves (``labels.GATED``) exist only when the
caller selected them. Unknown shapes yield no label, never an error.
"""

from __future__ import annotations

from pysift.core.classify.comms import is_subagent_return, tool_use_comm_leaf
from pysift.core.classify.context import DEFAULT_CTX, ClassifyContext
from pysift.core.classify.markers import (
    CONTINUATION_MARKER,
    EDIT_RETRY,
    IMAGE_SOURCE,
    INTERRUPT_TOOL,
    INTERRUPT_USER,
    LOCAL_COMMAND_CAVEAT,
    LOCAL_COMMAND_STDOUT,
    LOOP_CHECK_DRIVER,
    LOOP_TICK,
    STOP_HOOK_FEEDBACK,
    TASK_NOTIFICATION_OPEN,
    WAKEUP_LOOP_CHECK,
    WAKEUP_SENTINEL,
    WAKEUP_TIMER,
    is_agents_stopped_notice,
    is_elicitation_marker,
    is_slash_command_wrapper,
    is_unmarked,
    unmarked_user_body,
)
from pysift.core.classify.openers import (
    in_sidechain,
    is_auq_answer_boundary,
    rejection,
    slash_parts,
)
from pysift.core.classify.records import (
    hook_context_text,
    queued_text,
    raw_message_text,
    text_parts,
)
from pysift.core.classify.sections import is_peer_message, sections_of
from pysift.core.classify.signature import thinking_leaf
from pysift.model import labels as L
from pysift.model.record import JsonObj, Record

# The system subtypes promoted to their own leaf (v0.10.0); every OTHER subtype except the
# compaction boundary is harness.meta.system (v0.10.1).
_PROMOTED_SYSTEM = {
    "turn_duration": L.HARNESS_META_TURN_DURATION,
    "away_summary": L.HARNESS_META_AWAY_SUMMARY,
    "stop_hook_summary": L.HARNESS_META_STOP_HOOKS,
}


def _block_type(block: JsonObj) -> object:
    return block.get("type")


class _Labels:
    """An ordered, deduplicated label accumulator (first seen = richest)."""

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, *leaves: str) -> None:
        for leaf in leaves:
            if leaf not in self.items:
                self.items.append(leaf)


def _is_seed(rec: Record, ctx: ClassifyContext) -> bool:
    if not ctx.is_subagent:
        return False
    if ctx.seed_uuid is not None and rec.uuid is not None:
        return rec.uuid == ctx.seed_uuid
    return ctx.seed_line is not None and rec.line == ctx.seed_line


def _queued_leaf(rec: Record) -> str | None:
    text = queued_text(rec)
    if text is None or not text.strip():
        return None  # a content-less dequeue carries no label
    if text.lstrip().startswith(TASK_NOTIFICATION_OPEN) or is_peer_message(text):
        return None  # a harness rider: its delivered twin carries the label
    return L.USER_QUEUED


def _promoted_leaf(rec: Record) -> str | None:
    kind = rec.type
    if kind == "queue-operation":
        return _queued_leaf(rec)
    if kind == "system":
        subtype = rec.subtype
        if subtype is None:
            return None
        if subtype == "compact_boundary":
            return L.HARNESS_COMPACTION_BOUNDARY
        return _PROMOTED_SYSTEM.get(subtype, L.HARNESS_META_SYSTEM)
    if kind in ("file-history-snapshot", "file-history-delta"):
        return L.HARNESS_META_SNAPSHOT
    return None


def _user_string_leaves(rec: Record, text: str, ctx: ClassifyContext, out: _Labels) -> None:
    """The marker ladder for a plain user body (§4.2, §5.1), first match wins."""
    if is_unmarked(text):
        _typed_leaves(rec, ctx, out)  # no marker below can match
    elif text == INTERRUPT_USER:
        out.add(L.HARNESS_INTERRUPT_USER)
    elif text == INTERRUPT_TOOL:
        out.add(L.HARNESS_INTERRUPT_TOOL)
    elif text.startswith(LOCAL_COMMAND_STDOUT):
        out.add(L.HARNESS_COMMAND_STDOUT)
    elif is_slash_command_wrapper(text):
        parts = slash_parts(text)
        if (parts is not None and parts[1] is not None
                and not in_sidechain(rec, subagent=ctx.is_subagent)):
            out.add(L.USER_MESSAGE)  # the typed args are the richer view (§4.2.3)
        out.add(L.HARNESS_COMMAND_INVOCATION)
    elif text.lstrip().startswith(CONTINUATION_MARKER):
        out.add(L.HARNESS_SCHEDULE_CONTINUATION)
    elif WAKEUP_SENTINEL in text or text.startswith(WAKEUP_LOOP_CHECK) or WAKEUP_TIMER in text:
        out.add(L.HARNESS_SCHEDULE_WAKEUP)
    elif text.startswith((STOP_HOOK_FEEDBACK, LOCAL_COMMAND_CAVEAT)) or EDIT_RETRY in text:
        out.add(L.HARNESS_META_HOOK)
    elif text.startswith(LOOP_TICK) or LOOP_CHECK_DRIVER in text:
        out.add(L.HARNESS_META_LOOP)
    elif text.startswith(IMAGE_SOURCE) and rec.is_meta:
        return  # an isMeta image reference: excluded, never user.message (a typed
        # prompt that opens the same way is the human's, below)
    elif is_agents_stopped_notice(text):
        out.add(L.HARNESS_NOTIFICATION_SUBAGENT)
    else:
        _typed_leaves(rec, ctx, out)


def _typed_leaves(rec: Record, ctx: ClassifyContext, out: _Labels) -> _Labels:
    """The ladder's last rungs: a body that is no marker. A subagent's prompt Claude Code
    wrote into a main transcript (``in_sidechain``) is the prompt that subagent received,
    as its own transcript's seed is: ``agent.communication.inbox`` (self ⇨ ?), never the
    human's ``user.message``."""
    if _is_seed(rec, ctx):
        out.add(L.AGENT_COMM_INBOX)  # the delivered spawn prompt: parent ⇨ self
    elif not rec.is_meta:  # an isMeta record matching no marker classifies empty
        out.add(L.AGENT_COMM_INBOX if in_sidechain(rec, subagent=ctx.is_subagent)
                else L.USER_MESSAGE)
    return out


def _user_leaves(rec: Record, ctx: ClassifyContext, out: _Labels) -> None:
    if rec.is_compact_summary:
        out.add(L.HARNESS_COMPACTION_SUMMARY)
        return
    raw = raw_message_text(rec)
    if raw is not None:
        sections = sections_of(raw, ctx)
        if sections:
            out.add(*(s.label for s in sections))
            return
    content = rec.content
    if isinstance(content, str):
        _user_string_leaves(rec, content, ctx, out)
        return
    blocks = rec.blocks()
    if any(b.get("type") == "tool_result" for b in blocks):
        if is_auq_answer_boundary(rec):
            out.add(L.USER_ANSWER, L.AGENT_TOOL_RESULT)
        elif rejection(rec) is not None:
            out.add(L.USER_REJECTION, L.AGENT_TOOL_RESULT)
        elif is_subagent_return(rec, ctx):
            out.add(L.AGENT_COMM_INBOX, L.AGENT_TOOL_RESULT)
        else:
            out.add(L.AGENT_TOOL_RESULT)
        return
    joined = "\n".join(text_parts(blocks))
    if joined.strip():
        _user_string_leaves(rec, joined, ctx, out)


def _assistant_leaves(rec: Record, out: _Labels) -> None:
    content = rec.content
    if isinstance(content, str):
        if content.strip():
            out.add(L.AGENT_MESSAGE)
        return
    for block in rec.blocks():
        kind = _block_type(block)
        if kind == "text":
            text = block.get("text")
            if isinstance(text, str) and text.strip():
                out.add(L.AGENT_MESSAGE)
        elif kind == "thinking":
            out.add(thinking_leaf(block.get("signature")))
        elif kind == "redacted_thinking":
            out.add(L.AGENT_THINKING)
        elif kind == "tool_use":
            comm = tool_use_comm_leaf(block.get("name"), block.get("input"))
            if comm is not None:
                out.add(comm)
            out.add(L.AGENT_TOOL_USE)
        elif kind == "tool_result":
            out.add(L.AGENT_TOOL_RESULT)


def classify(rec: Record, ctx: ClassifyContext | None = None, *, draft: bool = False) -> list[str]:
    """The record's full label set, richest first, deduplicated (§5).

    ``draft=True`` is the scan layer's superseded-draft verdict (C-18): the record then
    carries the single label ``user.unsent`` whatever its shape. An unmodeled record, an
    ``isMeta`` record matching no harness marker, and a gated leaf the caller did not
    select all yield ``[]``.
    """
    if draft:
        return [L.USER_UNSENT]
    ctx = ctx or DEFAULT_CTX
    if unmarked_user_body(rec) is not None:  # the common typed prompt, in a few lookups
        return _typed_leaves(rec, ctx, _Labels()).items
    out = _Labels()
    if is_elicitation_marker(rec):
        # A pending sidecar marker stands in for the tool_use CC has not written yet
        # (§6.10); a resolved one is a pairing artifact.
        if rec.raw.get("csiftPhase") == "pending":
            out.add(L.AGENT_TOOL_USE)
        return out.items
    kind = rec.type
    if kind == "attachment":
        if "attachment" in rec.raw:
            if hook_context_text(rec) is not None:
                if ctx.admits_hook_attachment():
                    out.add(L.HARNESS_META_HOOK)
            elif ctx.admits(L.HARNESS_META_ATTACHMENT):
                out.add(L.HARNESS_META_ATTACHMENT)
        return out.items
    promoted = _promoted_leaf(rec)
    if promoted is not None:
        if ctx.admits(promoted):
            out.add(promoted)
        return out.items
    if kind == "assistant":
        _assistant_leaves(rec, out)
    elif kind == "user":
        _user_leaves(rec, ctx, out)
    return out.items
