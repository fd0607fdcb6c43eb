"""Prompts the human typed while the agent worked, paired with their fates.

Claude Code logs a typed prompt's fate on its queue: ``enqueue``, then ``dequeue`` when
it is sent as a turn of its own (that user record opens the turn), or ``remove`` when it
is folded into the running turn. Older versions put the prompt's text on the enqueue
line; newer ones deliver it as a ``queued_command`` attachment. The fold index lists
these prompts and verbatim prints them in their turn, so both pair them here.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

from pysift.core import classify
from pysift.model.record import Record

# the operation a queued prompt delivered mid-turn (a ``queued_command`` attachment) is
# filed under among the queue operations
DELIVERED = "delivered"


def queue_entry(raw: dict[str, Any]) -> tuple[str, str | None] | None:
    """``(operation, text)`` of a queue operation or of a prompt delivered mid-turn as a
    ``queued_command`` attachment; None for any other record."""
    rec = Record(raw, None)
    if rec.type == "queue-operation":
        op = raw.get("operation")
        return (op, classify.queued_text(rec)) if isinstance(op, str) else None
    body = raw.get("attachment")
    if (isinstance(body, dict) and body.get("type") == "queued_command"
            and body.get("commandMode", "prompt") == "prompt"):
        return DELIVERED, classify.queued_command_prompt(rec)
    return None


def is_human(text: str | None) -> bool:
    """Whether a queued text is the human's: not blank, and no harness rider (a task
    notification, a peer message), whose delivered twin is no prompt."""
    if text is None or not text.strip():
        return False
    return not (text.lstrip().startswith(classify.TASK_NOTIFICATION_OPEN)
                or classify.is_peer_message(text))  # (the rule of the ``user.queued`` leaf)


def queued_prompts(queue: Sequence[tuple[int, str, str | None]]) -> list[tuple[int, str]]:
    """The prompts folded into a running turn, ``(offset, text)`` in file order: a
    prompt from an enqueue whose entry (first in, first out) was removed, and from every
    delivered attachment; a ``popAll`` takes the human's waiting entries back to the
    input box (sent again, they are enqueued again; a harness rider stays queued); the
    same words twice in a row (an enqueue and its attachment both carrying them) once.
    ``text`` None is no prompt (a rider, a blank)."""
    waiting: deque[tuple[int, str | None]] = deque()
    out: list[tuple[int, str]] = []
    for offset, op, text in queue:
        if op == "enqueue":
            waiting.append((offset, text))
        elif op in ("dequeue", "remove"):
            if waiting:
                first, said = waiting.popleft()
                if op == "remove" and said is not None:
                    out.append((first, said))
        elif op == "popAll":  # the human's entries recalled to the input box, unsent
            waiting = deque(entry for entry in waiting if entry[1] is None)
        elif op == DELIVERED and text is not None:
            out.append((offset, text))
    out.sort(key=lambda item: item[0])
    kept: list[tuple[int, str]] = []
    for offset, text in out:
        if not kept or kept[-1][1] != text:
            kept.append((offset, text))
    return kept
