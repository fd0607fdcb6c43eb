"""The last messages: the newest human prompt and the newest assistant message, as excerpts.

An excerpt is a partial view of the final state, never a review of the work (a model with
a partial context believes it read everything): it helps judge whether a background task
is still meaningful. Each is one-lined and clipped at 400 characters with the explicit
``… (+N chars)`` marker. The two messages are the ones ``list`` previews, read by the same
rules (``classify.human_message``, ``classify.agent_message``): the "human prompt" is the
newest human turn opener (a typed prompt, an AskUserQuestion answer as its question and
answer unit, a rejection's typed words), or the automation pulse that opened the turn
(a task notification), shown as its label; the agent's is the newest assistant text,
from text blocks or a string ``content``.

The tail window's records are looked at first; below it, only lines holding the file's
user (assistant) type key are visited, newest first, and tool_result carriers are passed
over unread.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from pysift.core import classify
from pysift.core.decode import decode
from pysift.core.pairing import PlanIndex
from pysift.core.rawjson import iter_key_lines_backward, layouts, type_needles
from pysift.core.text import excerpt
from pysift.core.timez import local_iso
from pysift.core.turns import is_plain_carrier
from pysift.disk.lines import Buffer
from pysift.live.tail import TailShape
from pysift.model.fastdata import dataclass
from pysift.model.record import Record

LAST_CHARS = 400


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


def human_text(rec: Record, ctx: classify.ClassifyContext | None = None) -> str | None:
    """What the newest human (or automation) turn said, when ``rec`` is one: list's human
    message, else a task-notification pulse as its label."""
    said = classify.human_message(rec, ctx)
    if said is not None:
        return said
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
    return None


def agent_text(rec: Record, ctx: classify.ClassifyContext | None = None) -> str | None:
    return classify.agent_message(rec, ctx)


class _Plans(Mapping[str, str]):
    """A rejection's ``[plan: …]`` pointer, as ``list`` gives it: the transcript's
    ``PlanIndex``, its bytes loaded only when a rejection is rendered."""

    def __init__(self, load: Callable[[], Buffer]) -> None:
        self._load = load
        self._index: PlanIndex | None = None

    def _plans(self) -> PlanIndex:
        if self._index is None:
            self._index = PlanIndex(self._load())
        return self._index

    def __getitem__(self, tool_use_id: str) -> str:
        return self._plans()[tool_use_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._plans())

    def __len__(self) -> int:
        return len(self._plans())


def _may_speak(line: bytes) -> bool:
    """A window line worth decoding for the last messages: anything but a plain
    tool_result carrier (most of a busy tail), judged from its bytes."""
    return not is_plain_carrier(line, 0, len(line))


def last_messages(load: Callable[[], Buffer], shape: TailShape, *, subagent: bool
                  ) -> LastMessages:
    """The two excerpts: from the tail window's records, else from below it (``load``
    gives the whole file, asked for only then, or for a rejection's plan pointer).
    ``subagent``: the file is a subagent transcript (in a main one, a subagent's record
    Claude Code wrote into it is no human's message)."""
    loaded: list[Buffer] = []

    def whole() -> Buffer:
        if not loaded:
            loaded.append(load())
        return loaded[0]

    user = agent = None
    ctx = classify.ClassifyContext(is_subagent=subagent, plan_index=_Plans(whole))
    rec: Record | None  # the tail's records, then lines below it decoded (None: not one)
    for rec in shape.records(_may_speak):
        if user is None and (said := human_text(rec, ctx)) is not None:
            user = _said(rec.timestamp, said)
        if agent is None and (said := agent_text(rec, ctx)) is not None:
            agent = _said(rec.timestamp, said)
        if user is not None and agent is not None:
            return LastMessages(user, agent)
    below = shape.window_start
    if below <= 0:
        return LastMessages(user, agent)
    buf = whole()
    file_layouts = layouts(buf)
    if user is None:
        users = type_needles(buf, "user", file_layouts)
        results = type_needles(buf, "tool_result", file_layouts)
        for start, end in iter_key_lines_backward(buf, users, hi=below):
            if is_plain_carrier(buf, start, end, users, results):
                continue
            rec = decode(buf[start:end], None)
            if rec is not None and (said := human_text(rec, ctx)) is not None:
                user = _said(rec.timestamp, said)
                break
    if agent is None:
        for start, end in iter_key_lines_backward(
                buf, type_needles(buf, "assistant", file_layouts), hi=below):
            if not classify.may_hold_agent_message(buf, start, end):
                continue
            rec = decode(buf[start:end], None)
            if rec is not None and (said := agent_text(rec, ctx)) is not None:
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
