"""Who talks to whom (§5.3): the comm leaf of a tool_use and the direction of a message.

A ``SendMessage`` is ``agent.communication.sent`` (or ``.signal`` for a control payload),
self ⇨ recipient; a spawn (``model.tools.SPAWN_TOOLS``) is ``.sent``, self ⇨ child; a
tool_result carrying a spawned child's reply is the child's message back
(``is_subagent_return``), unless it is only the launch acknowledgement.
"""

from __future__ import annotations

from pysift.core.blocktext import result_text
from pysift.core.classify.context import ClassifyContext
from pysift.core.classify.markers import ASYNC_LAUNCH_ACK
from pysift.core.classify.records import str_or_none, tool_use_result
from pysift.model import labels as L
from pysift.model.record import JsonObj, Record
from pysift.model.tools import SPAWN_TOOLS


def _send_message_is_signal(payload: object) -> bool:
    if not isinstance(payload, dict):
        return False
    kind = payload.get("type")
    if isinstance(kind, str):
        return kind not in ("message", "direct")
    inner = payload.get("message")
    if isinstance(inner, dict) and isinstance(inner.get("type"), str):
        return inner["type"] not in ("message", "direct")
    return False


def tool_use_comm_leaf(name: object, payload: object) -> str | None:
    if name == "SendMessage":
        return L.AGENT_COMM_SIGNAL if _send_message_is_signal(payload) else L.AGENT_COMM_SENT
    if isinstance(name, str) and name in SPAWN_TOOLS:
        return L.AGENT_COMM_SENT
    return None


def _first_str(payload: object, keys: tuple[str, ...]) -> str | None:
    if not isinstance(payload, dict):
        return None
    for key in keys:
        value = payload.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def tool_use_direction(block: JsonObj, ctx: ClassifyContext) -> tuple[str, str]:
    """``self ⇨ recipient`` for SendMessage, ``self ⇨ child`` for a spawn."""
    payload = block.get("input")
    if block.get("name") == "SendMessage":
        to = _first_str(payload, ("to", "recipient")) or "?"
        return "self", ctx.alias(to)
    # the id-join on the call's id, else the name-join (a teammate's ``input.name``), else
    # the raw spawn name (csift §5.3)
    child = ctx.child_for(str_or_none(block.get("id")))
    if child is None:
        name = _first_str(payload, ("name",))
        named = (ctx.spawn_names.get(name) if name is not None and ctx.spawn_names is not None
                 else None)
        child = (named if isinstance(named, str) and named
                 else _first_str(payload, ("name", "subagent_type")))
    return "self", ctx.alias(child or "?")


def _is_spawn_launch_ack(rec: Record) -> bool:
    """A teammate spawn ack or an async agent launch ack: the launch, not the child's reply."""
    tur = tool_use_result(rec)
    if tur is not None:
        if tur.get("status") in ("teammate_spawned", "async_launched"):
            return True
        if tur.get("isAsync") is True:
            return True
    return any(
        b.get("type") == "tool_result" and "content" in b
        and result_text(b).startswith(ASYNC_LAUNCH_ACK)
        for b in rec.blocks()
    )


def is_subagent_return(rec: Record, ctx: ClassifyContext) -> bool:
    if _is_spawn_launch_ack(rec):
        return False
    return any(
        b.get("type") == "tool_result" and return_child(rec, b, ctx) is not None
        for b in rec.blocks()
    )


def return_child(rec: Record, block: JsonObj, ctx: ClassifyContext) -> str | None:
    """The child agent whose return the tool_result ``block`` of ``rec`` is: by the
    spawn index (the session's metas, ``core.spawnlinks``) when the caller has one, else
    by the record's own ``toolUseResult``, which names the child (``agentId``) on a
    Task/Agent completion when the record holds that one result (decided, twenty-second
    session; older builds name the child only in its meta). A launch acknowledgement is
    no return, nor is an error result (an interrupted or failed spawn: its record names
    no child either, and it keeps its ``[error]`` mark; decided, twenty-third session)."""
    if block.get("is_error") is True:
        return None
    child = ctx.child_for(str_or_none(block.get("tool_use_id")))
    if child is not None:
        return child
    tur = tool_use_result(rec)
    agent = tur.get("agentId") if tur is not None else None
    if not isinstance(agent, str) or not agent or _is_spawn_launch_ack(rec):
        return None
    if sum(1 for b in rec.blocks() if b.get("type") == "tool_result") != 1:
        return None  # whose result the echo describes is not said
    return agent
