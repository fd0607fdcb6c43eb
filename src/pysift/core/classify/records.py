"""Tolerant readings of a record the classifier's modules share.

The message text as markers are looked for in it (``raw_message_text``) and as the human
reads it (``flat_text``), a record's attachment and queue texts, and ``memoized``, which
keeps a pure per-record verdict on ``Record.memo`` (a scan asks the same question of a
record several times). Every reader is total: a shape it does not expect gives None.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from pysift.core.text import one_line
from pysift.model.record import JsonObj, Record

_T = TypeVar("_T")


def normalize_line(text: str) -> str:
    """Collapse every whitespace run to one space and trim (an excerpt-ready single line)."""
    return one_line(text)


def str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def text_parts(blocks: list[JsonObj]) -> list[str]:
    return [b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)]


def is_error_result(block: JsonObj) -> bool:
    return block.get("is_error") is True


def raw_message_text(rec: Record) -> str | None:
    """The message body for marker detection: the string, or text blocks joined by ``\\n``.

    Not whitespace-normalized (a relay preamble's newline must survive). None when the
    record has no message text at all.
    """
    content = rec.content
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = text_parts(rec.blocks())
        return "\n".join(parts) if parts else None
    return None


def flat_text(rec: Record) -> str:
    """The genuine-user display form: text joined by spaces, whitespace-normalized
    (kept on the record: the genuine-user test and the opener text both need it)."""
    memo = rec.memo
    if memo is None:
        memo = rec.memo = {}
    elif "flat" in memo:
        return memo["flat"]  # type: ignore[no-any-return]
    content = rec.content
    if isinstance(content, str):
        flat = normalize_line(content)
    elif isinstance(content, list):
        flat = normalize_line(" ".join(text_parts(rec.blocks())))
    else:
        flat = ""
    memo["flat"] = flat
    return flat


def memoized(key: str) -> Callable[[Callable[[Record], _T]], Callable[[Record], _T]]:
    """Cache a pure per-record predicate on ``Record.memo`` (a scan asks several times)."""
    def wrap(fn: Callable[[Record], _T]) -> Callable[[Record], _T]:
        def inner(rec: Record) -> _T:
            memo = rec.memo
            if memo is None:
                memo = rec.memo = {}
            elif key in memo:
                return memo[key]  # type: ignore[no-any-return]
            value = memo[key] = fn(rec)
            return value
        inner.__doc__ = fn.__doc__
        inner.__name__ = fn.__name__
        return inner
    return wrap


def tool_use_result(rec: Record) -> JsonObj | None:
    value = rec.tool_use_result
    return value if isinstance(value, dict) else None


def hook_context_text(rec: Record) -> str | None:
    payload = rec.raw.get("attachment")
    if not isinstance(payload, dict) or payload.get("type") != "hook_additional_context":
        return None
    content = payload.get("content")
    if isinstance(content, str):
        return content.strip() or None
    if isinstance(content, list):
        parts = [c for c in content if isinstance(c, str)]
        return "\n".join(parts) if parts else None
    return None


def queued_command_prompt(rec: Record) -> str | None:
    """A ``queued_command`` attachment's prompt (a prompt typed while the agent worked,
    delivered mid-turn): a string, or the text blocks of a list; None for any other
    record, or a prompt holding no text."""
    body = rec.raw.get("attachment") if rec.type == "attachment" else None
    if not isinstance(body, dict) or body.get("type") != "queued_command":
        return None
    prompt = body.get("prompt")
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, list):
        parts = [b["text"] for b in prompt
                 if isinstance(b, dict) and isinstance(b.get("text"), str)]
        return "\n".join(parts) if parts else None
    return None


def queued_text(rec: Record) -> str | None:
    """A queue operation's content: a string, or the text parts of a content-block list
    (an enqueued message with an attachment is written that way)."""
    content = rec.system_content
    if isinstance(content, list):
        parts = [b["text"] for b in content
                 if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)]
        return "\n".join(parts) if parts else None
    return content if isinstance(content, str) else None
