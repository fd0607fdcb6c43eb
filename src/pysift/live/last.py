"""The last messages: the newest human prompt and the newest assistant message, as excerpts.

An excerpt is a partial view of the final state, never a review of the work (a model with
a partial context believes it read everything): it helps judge whether a background task
is still meaningful. Each is one-lined and clipped at 400 characters with the explicit
``… (+N chars)`` marker. The "human prompt" is the newest genuine prompt, or the
automation pulse that opened the turn (a task notification), shown as its label.

The tail window's records are looked at first; below it, only lines holding the file's
user (assistant) type key are visited, newest first, and tool_result carriers are passed
over unread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pysift.core import classify
from pysift.core.decode import decode
from pysift.core.rawjson import iter_key_lines_backward, layouts, type_needles
from pysift.core.text import excerpt
from pysift.core.timez import local_iso
from pysift.core.turns import is_plain_carrier
from pysift.disk.lines import Buffer
from pysift.live.tail import TailShape
from pysift.model.fastdata import dataclass
from pysift.model.record import Record

LAST_CHARS = 400
_TEXT_KEY = b'"text"'


@dataclass(frozen=True, slots=True)
class Said:
    ts: str | None
    text: str  # the excerpt, clipped with its marker
    truncated: bool


@dataclass(frozen=True, slots=True)
class LastMessages:
    user: Said | None = None
    agent: Said | None = None


def _said(ts: str | None, text: str) -> Said:
    shown, dropped = excerpt(text, LAST_CHARS)
    return Said(ts, shown, dropped > 0)


def human_text(rec: Record) -> str | None:
    """What the newest human (or automation) turn said, when ``rec`` is one."""
    if rec.type != "user":
        return None
    content = rec.content
    raw = content if isinstance(content, str) else None
    if raw is not None and classify.TASK_NOTIFICATION_OPEN in raw:
        sections = classify.notification_sections(raw)
        if sections and not classify.is_genuine_user(rec):
            label = classify.notification_label(sections[0])
            more = f" (+{len(sections) - 1} more pulse(s))" if len(sections) > 1 else ""
            return label + more
    if classify.is_genuine_user(rec):
        return classify.opener_text(rec)
    return None


def agent_text(rec: Record) -> str | None:
    if rec.type != "assistant":
        return None
    texts = [b["text"] for b in rec.blocks_of("text")
             if isinstance(b.get("text"), str) and b["text"].strip()]
    return "\n".join(texts) if texts else None


def _may_speak(line: bytes) -> bool:
    """A window line worth decoding for the last messages: anything but a plain
    tool_result carrier (most of a busy tail), judged from its bytes."""
    return not is_plain_carrier(line, 0, len(line))


def last_messages(load: Callable[[], Buffer], shape: TailShape) -> LastMessages:
    """The two excerpts: from the tail window's records, else from below it (``load``
    gives the whole file, asked for only then)."""
    user = agent = None
    rec: Record | None  # the tail's records, then lines below it decoded (None: not one)
    for rec in shape.records(_may_speak):
        if user is None and (said := human_text(rec)) is not None:
            user = _said(rec.timestamp, said)
        if agent is None and (said := agent_text(rec)) is not None:
            agent = _said(rec.timestamp, said)
        if user is not None and agent is not None:
            return LastMessages(user, agent)
    below = shape.window_start
    if below <= 0:
        return LastMessages(user, agent)
    buf = load()
    file_layouts = layouts(buf)
    if user is None:
        users = type_needles(buf, "user", file_layouts)
        results = type_needles(buf, "tool_result", file_layouts)
        for start, end in iter_key_lines_backward(buf, users, hi=below):
            if is_plain_carrier(buf, start, end, users, results):
                continue
            rec = decode(buf[start:end], None)
            if rec is not None and (said := human_text(rec)) is not None:
                user = _said(rec.timestamp, said)
                break
    if agent is None:
        for start, end in iter_key_lines_backward(
                buf, type_needles(buf, "assistant", file_layouts), hi=below):
            if buf.find(_TEXT_KEY, start, end) < 0:
                continue
            rec = decode(buf[start:end], None)
            if rec is not None and (said := agent_text(rec)) is not None:
                agent = _said(rec.timestamp, said)
                break
    return LastMessages(user, agent)


def said_json(said: Said | None, tz: Any) -> dict[str, Any] | None:
    if said is None:
        return None
    return {"ts_utc": said.ts, "ts_local": local_iso(said.ts, tz), "text": said.text,
            "truncated": said.truncated}


def last_json(last: LastMessages, tz: Any) -> dict[str, Any]:
    return {"user": said_json(last.user, tz), "agent": said_json(last.agent, tz)}
