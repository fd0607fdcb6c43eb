"""The words a session's previews show: the human's message and the agent's message.

``list`` (its first and last human message, its last agent message) and ``status`` (its
last ◂ and last ▸) read records through these two rules, so the two commands never name
different records as a session's newest human or agent message (SPEC §6, §11c).

- ``human_message``: a turn opener other than a peer agent's message (a genuine prompt,
  an AskUserQuestion answer, a rejection carrying typed text), rendered as search renders
  the opener (an answer as its Q+options+answer unit), and not an opener search files
  under the harness only (a fired wakeup tick, a resume's "Continue from where you left
  off." written without isMeta: they open a turn but are nobody's message).
- ``agent_message``: an assistant record's non-blank text blocks joined by newlines, or
  its ``message.content`` when that is a string (csift §3.4: content is a string or a
  block list; search reads such a record as ``agent.message``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from pysift.core.classify.context import DEFAULT_CTX, ClassifyContext
from pysift.core.classify.ladder import classify
from pysift.core.classify.markers import is_elicitation_marker, is_unmarked, unmarked_user_body
from pysift.core.classify.openers import (
    in_sidechain,
    is_peer_message_record,
    opener_source,
    opens_turn,
)
from pysift.core.classify.records import text_parts
from pysift.model.record import Record

if TYPE_CHECKING:
    from pysift.disk.lines import Buffer

_TEXT_KEY = b'"text"'
#: ``"content":"`` (any spacing): what a line whose ``message.content`` is a string holds
#: where a text block's line holds ``"text"`` (a tool input's ``content`` matches too: the
#: decoded record decides)
_STRING_CONTENT = re.compile(rb'"content"[ \t\r\n]*:[ \t\r\n]*"')


def human_message(rec: Record, ctx: ClassifyContext | None = None) -> str | None:
    """The human's words if ``rec`` is a human turn-opener (never a peer agent), not yet
    one-lined (a preview clips them a prefix at a time); None otherwise.

    A typed prompt (``unmarked_user_body``: a string body no marker, tag or section can be
    in) of a plain user message is settled in a few lookups: it holds no ``<``, so it is no
    peer message; it is a genuine user message, so it opens a turn unless it is a
    subagent's record in a main transcript; its labels are ``_typed_leaves``', never
    ``harness.*`` for a record that is not ``isMeta``; and its words are the body itself.
    An ``isMeta`` one, or one whose role is not ``user``, is no genuine message, and a
    string body is none of the other openers (an answer or a rejection is a tool result,
    a peer message a tag): no human's.
    That is every verdict of the rules below (``_by_the_rules``, which a test holds this
    to), without their two dozen calls: over corpus B's listing 85% of the records asked
    about are such prompts, and the rules cost ~9 us each."""
    body = unmarked_user_body(rec)
    if body is not None:
        raw = rec.raw
        if raw.get("isMeta") is True or raw["message"].get("role") != "user":
            return None  # no genuine message, and a string body is no other opener
        if raw.get("isSidechain") is True and not (ctx or DEFAULT_CTX).is_subagent:
            return None  # a subagent's record in a main transcript (``in_sidechain``)
        return body
    raw = rec.raw
    message = raw.get("message")
    if (isinstance(message, dict) and type(message.get("content")) is list
            and raw.get("type") == "user" and message.get("role") == "user"
            and raw.get("isMeta") is not True and raw.get("isCompactSummary") is not True
            and not is_elicitation_marker(rec)):
        words = _typed_blocks(message["content"])
        if words is not None:
            if raw.get("isSidechain") is True and not (ctx or DEFAULT_CTX).is_subagent:
                return None
            return words
    return _by_the_rules(rec, ctx)


def _typed_blocks(content: list[object]) -> str | None:
    """The words of a block list that is a typed prompt (text blocks, an image beside
    them, no tool result; their text joined as the ladder reads it, not blank and
    unmarked), joined as ``opener_source`` joins them; None: the rules decide. A plain
    user record with such blocks is a genuine message whose labels are the typed
    prompt's, as a string body is."""
    blocks = [b for b in content if isinstance(b, dict)]
    if any(b.get("type") == "tool_result" for b in blocks):
        return None
    parts = text_parts(blocks)
    if not parts:
        return None
    joined = "\n".join(parts)
    if not joined.strip() or not is_unmarked(joined):
        return None
    return " ".join(parts)


def _by_the_rules(rec: Record, ctx: ClassifyContext | None = None) -> str | None:
    """``human_message`` by the opener and label rules themselves."""
    if not rec.is_user_record or is_peer_message_record(rec):
        return None
    if not opens_turn(rec, subagent=(ctx or DEFAULT_CTX).is_subagent):
        return None  # (in a main transcript, a subagent's record is nobody's message here)
    if not any(not label.startswith("harness.") for label in classify(rec, ctx)):
        return None
    return opener_source(rec, ctx)


def agent_message(rec: Record, ctx: ClassifyContext | None = None) -> str | None:
    """The assistant's words in ``rec``; None when it says nothing, or when it is a
    subagent's record in a main transcript (``in_sidechain``: a "Warmup" agent's reply
    was the session's last ▸)."""
    if not rec.is_assistant_record:
        return None
    if in_sidechain(rec, subagent=(ctx or DEFAULT_CTX).is_subagent):
        return None
    content = rec.content
    if isinstance(content, str):
        return content if content.strip() else None
    texts = [b["text"] for b in rec.blocks_of("text") if isinstance(b.get("text"), str)]
    texts = [t for t in texts if t.strip()]
    return "\n".join(texts) if texts else None


def may_hold_agent_message(buf: Buffer, start: int, end: int,
                           find: Callable[[bytes, int, int], int] | None = None) -> bool:
    """Whether the assistant line ``buf[start:end]`` can hold an ``agent_message``, from
    its bytes (``find``: the caller's substring search, ``buf.find`` by default): a text
    block's key or a string content. A line without either is passed over undecoded."""
    found = (find or buf.find)(_TEXT_KEY, start, end)
    return found >= 0 or _STRING_CONTENT.search(buf, start, end) is not None
