"""Prompts the human typed while the agent worked, paired with their fates.

Claude Code logs a typed prompt's fate on its queue: ``enqueue``, then ``dequeue`` when
it is sent as a turn of its own (that user record opens the turn), or ``remove`` when it
is folded into the running turn. Older versions put the prompt's text on the enqueue
line; newer ones deliver it as a ``queued_command`` attachment. The fold index lists
these prompts and verbatim prints them in their turn, so both pair them here.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Sequence
from itertools import product
from typing import Any

from pysift.core import classify
from pysift.model.record import Record

# the operation a queued prompt delivered mid-turn (a ``queued_command`` attachment) is
# filed under among the queue operations
DELIVERED = "delivered"

# A queue operation's type key (either JSON layout) and the operation Claude Code writes
# right after it, read off the bytes of a line that does not decode.
_QUEUE_KEY = re.compile(rb'"type"\s*:\s*"queue-operation"')
_OPERATION = re.compile(rb'"operation"\s*:\s*"([A-Za-z]+)"')
# A torn line's operation is marked with this before it (alone: the bytes no longer name
# one); its words are lost.
TORN = "~"
# What an operation the bytes no longer name may have been; past this many readings of
# the torn lines together the queue is paired only up to the torn line that passes it.
_OPERATIONS = ("enqueue", "dequeue", "remove", "popAll")
_MAX_READINGS = 256


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


def torn_operations(line: bytes) -> list[str]:
    """The queue operations a line that does not decode (torn, malformed) still names,
    marked ``TORN`` (``~enqueue``; ``~`` alone when the bytes no longer spell one): one
    per queue-operation type key in it (two records run together are two). Each keeps
    its entry's place in the queue (``queued_prompts``), so a torn line costs its own
    entry and never shifts which fate the entries after it are paired with."""
    keys = [m.end() for m in _QUEUE_KEY.finditer(line)]
    out: list[str] = []
    for k, at in enumerate(keys):
        stop = keys[k + 1] if k + 1 < len(keys) else len(line)
        found = _OPERATION.search(line, at, stop)
        out.append(TORN + (found.group(1).decode() if found is not None else ""))
    return out


def is_human(text: str | None) -> bool:
    """Whether a queued text is the human's: not blank, and no harness rider (a task
    notification, a peer message), whose delivered twin is no prompt."""
    if text is None or not text.strip():
        return False
    return not (text.lstrip().startswith(classify.TASK_NOTIFICATION_OPEN)
                or classify.is_peer_message(text))  # (the rule of the ``user.queued`` leaf)


Entry = tuple[int, str, "str | None"]


def queued_prompts(queue: Sequence[Entry]) -> list[tuple[int, str]]:
    """The prompts folded into a running turn, ``(offset, text)`` in file order: a
    prompt from an enqueue whose entry (first in, first out) was removed, and from every
    delivered attachment; a ``popAll`` takes the human's waiting entries back to the
    input box (sent again, they are enqueued again; a harness rider stays queued); the
    same words twice in a row (an enqueue and its attachment both carrying them) once.
    ``text`` None is no prompt (a rider, a blank).

    A torn line's entry (``torn_operations``) keeps its place with its words lost: an
    enqueue still waits in line (a rider or the human's, for a ``popAll``), a remove or
    dequeue still takes the first entry. One whose operation is lost is paired under
    each it may have been, and a prompt is folded in only when every reading folds it:
    a guess, like leaving the line out, pairs the entries after it with other entries'
    fates (a prompt sent as a turn of its own printed again as folded into the last)."""
    choices = [_readings(entry) for entry in queue]
    count = 1
    for k, options in enumerate(choices):
        count *= len(options)
        if count > _MAX_READINGS:  # paired up to here; attachments stand alone
            choices = [*choices[:k], *([e] for e in queue[k:] if e[1] == DELIVERED)]
            break
    found: set[tuple[int, str]] | None = None
    for reading in product(*choices):
        folded = set(_folded(reading))
        found = folded if found is None else found & folded
    kept: list[tuple[int, str]] = []
    for offset, text in sorted(found or ()):
        if not kept or kept[-1][1] != text:
            kept.append((offset, text))
    return kept


# a torn enqueue's words: lost, the human's ("": recalled by a popAll) or a rider's (None)
_LOST_WORDS: tuple[str | None, ...] = ("", None)


def _readings(entry: Entry) -> list[Entry]:
    """What one entry may have been: itself, or each reading of a torn line's."""
    offset, op, _words = entry
    if not op.startswith(TORN):
        return [entry]
    ops = (op[len(TORN):],) if op != TORN else _OPERATIONS
    return [(offset, o, words) for o in ops
            for words in (_LOST_WORDS if o == "enqueue" else (None,))]


def _folded(queue: Sequence[Entry]) -> list[tuple[int, str]]:
    """The folded prompts of a queue whose every operation is read (``queued_prompts``),
    in no particular order; an entry whose words are lost ("") is listed nowhere."""
    waiting: deque[tuple[int, str | None]] = deque()
    out: list[tuple[int, str]] = []
    for offset, op, text in queue:
        if op == "enqueue":
            waiting.append((offset, text))
        elif op in ("dequeue", "remove"):
            if waiting:
                first, said = waiting.popleft()
                if op == "remove" and said:
                    out.append((first, said))
        elif op == "popAll":  # the human's entries recalled to the input box, unsent
            waiting = deque(entry for entry in waiting if entry[1] is None)
        elif op == DELIVERED and text:
            out.append((offset, text))
    return out
