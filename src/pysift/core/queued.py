"""Prompts the human typed while the agent worked, paired with their fates.

Claude Code logs a typed prompt's fate on its queue: ``enqueue``, then ``dequeue`` when
it is sent as a turn of its own (that user record opens the turn), or ``remove`` when it
is folded into the running turn. Older versions put the prompt's text on the enqueue
line; newer ones deliver it as a ``queued_command`` attachment. The fold index lists
these prompts and verbatim prints them in their turn, so both pair them here.

The queue's lines name no entry (no id; a dequeue or a remove carries no words in most
builds), so they are paired first in, first out, and one missing from the file (never
written: Claude Code delivers a task notification queued while the agent worked as a user
record of its own with no dequeue; or lost) would shift every pairing after it. The
pairing resynchronises on what the records do say (``timeline``): words that name an
entry, and the next turn opening once the agent stopped.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from hashlib import blake2b
from itertools import product
from typing import Any

from pysift.core import classify
from pysift.model.record import Record

# the operation a queued prompt delivered mid-turn (a ``queued_command`` attachment) is
# filed under among the queue operations
DELIVERED = "delivered"
# The evidence ``timeline`` files among them: a user record that opened a turn, one that
# delivered a harness rider (a task notification, a peer message) without opening one,
# and the agent writing.
OPENED = "opened"
SENT = "sent"
AGENT = "agent"

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


Entry = tuple[int, str, "str | None", "bytes | None"]


def said_key(text: str | None) -> bytes | None:
    """What a queued text is matched by: a digest of its words with their whitespace
    collapsed (an enqueue's content, an attachment's prompt and the user record that
    sent it spell the same words with other line breaks); None for no text."""
    if text is None:
        return None
    words = " ".join(text.split())
    if not words:
        return None
    return blake2b(words.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def message_key(raw: dict[str, Any]) -> bytes | None:
    """``said_key`` of a user record's words: its string content, or its text blocks
    joined as a queue operation's are."""
    return said_key(_message_text(raw))


def rider_key(raw: dict[str, Any]) -> bytes | None:
    """``said_key`` of a user record that delivered a harness rider (a task notification,
    a peer message) on its own, as Claude Code delivers one queued while the agent
    worked once it stopped, with no dequeue; None for any other record."""
    text = _message_text(raw)
    return said_key(text) if text is not None and text.strip() and not is_human(text) else None


def _message_text(raw: dict[str, Any]) -> str | None:
    message = raw.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        parts = [b["text"] for b in content
                 if isinstance(b, dict) and b.get("type") == "text"
                 and isinstance(b.get("text"), str)]
        content = "\n".join(parts) if parts else None
    return content if isinstance(content, str) else None


def timeline(queue: Sequence[Entry], opened: Iterable[tuple[int, bytes | None]],
             sent: Iterable[tuple[int, bytes | None]], agents: Sequence[int]) -> list[Entry]:
    """The queue's entries with the evidence that resynchronises their pairing, in file
    order: the turn openers (``OPENED``) and the riders delivered as user records of
    their own (``SENT``), each with the ``said_key`` of its words, and an ``AGENT`` mark
    wherever the agent wrote (``agents``: the offsets of its records, sorted) since the
    event before. Empty when the file has no queue entry."""
    if not queue:
        return []
    events = sorted([*queue, *((o, OPENED, None, k) for o, k in opened),
                     *((o, SENT, None, k) for o, k in sent)], key=lambda e: e[0])
    out: list[Entry] = []
    spoke = 0
    for event in events:
        upto = bisect_left(agents, event[0])
        if upto > spoke:
            out.append((agents[upto - 1], AGENT, None, None))
            spoke = upto
        out.append(event)
    return out


def queued_prompts(queue: Sequence[Entry]) -> list[tuple[int, str]]:
    """The prompts folded into a running turn, ``(offset, words)`` in file order, of a
    ``timeline``: a prompt from an enqueue whose entry (first in, first out) was removed,
    and from every delivered attachment; a ``popAll`` takes the human's waiting entries
    back to the input box (sent again, they are enqueued again; a harness rider stays
    queued); the same words twice in a row once. ``words`` None is no prompt (a rider, a
    blank). Resynchronised where the records name an entry (``_folded``).

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
    found: set[tuple[int, str, bytes | None]] | None = None
    for reading in product(*choices):
        folded = set(_folded(reading))
        found = folded if found is None else found & folded
    kept: list[tuple[int, str]] = []
    last: tuple[str, bytes | None] | None = None
    for offset, text, key in sorted(found or (), key=lambda item: item[0]):
        # the same words twice in a row once: the words listed and the whole words'
        # key alike (the fold index lists a prompt's first line, and two prompts that
        # open alike are two)
        if last != (text, key):
            kept.append((offset, text))
        last = (text, key)
    return kept


# a torn enqueue's words: lost, the human's ("": recalled by a popAll) or a rider's (None)
_LOST_WORDS: tuple[str | None, ...] = ("", None)


def _readings(entry: Entry) -> list[Entry]:
    """What one entry may have been: itself, or each reading of a torn line's."""
    offset, op, _words, _key = entry
    if not op.startswith(TORN):
        return [entry]
    ops = (op[len(TORN):],) if op != TORN else _OPERATIONS
    return [(offset, o, words, None) for o in ops
            for words in (_LOST_WORDS if o == "enqueue" else (None,))]


class _Waiting:
    """An entry in line: its enqueue's offset, words (None: a rider or none) and key, the
    count of the agent's writes before it, and whether an attachment named it."""

    __slots__ = ("epoch", "key", "named", "offset", "words")

    def __init__(self, offset: int, words: str | None, key: bytes | None, epoch: int) -> None:
        self.offset, self.words, self.key, self.epoch = offset, words, key, epoch
        self.named = False


def _named_by(items: list[_Waiting], key: bytes | None, *,
              unnamed: bool = True) -> _Waiting | None:
    """The first entry of ``items`` whose words ``key`` names (``unnamed``: no
    attachment having named it yet)."""
    if key is not None:
        for item in items:
            if item.key == key and not (unnamed and item.named):
                return item
    return None


def _folded(queue: Sequence[Entry]) -> list[tuple[int, str, bytes | None]]:
    """The folded prompts of a timeline whose every operation is read
    (``queued_prompts``), in no particular order; an entry whose words are lost ("") is
    listed nowhere.

    First in, first out, save where the records name the entry (decided, thirty-second
    session: one operation missing from the file left every later removal taking the
    entry before its own, so the prompt typed last was listed nowhere and a prompt sent
    as a turn of its own was listed again as folded):

    - a removal whose own words (newer builds) are a waiting entry's takes that entry;
    - an attachment's words name the entry it delivered, waiting or just removed: that
      prompt is listed once, at its enqueue (listed by the removal and again by the
      attachment, every prompt of a batch had printed twice);
    - a user record whose words are a waiting entry's sent it (a turn opener whose
      dequeue is lost, a rider delivered with no dequeue): it leaves the line, unlisted;
    - a turn opens once the agent stopped, and Claude Code has sent or folded by then
      every prompt typed before the agent last wrote: one still waiting lost the line
      of its fate, and is listed as folded (a prompt listed once rather than dropped;
      one sent as a turn was taken by its dequeue or named by its opener)."""
    waiting: list[_Waiting] = []
    removed: list[_Waiting] = []  # taken by a removal in the turn running, not yet named
    listed: dict[int, tuple[str, bytes | None]] = {}  # offset -> words listed, their key
    epoch = 0
    for offset, op, words, key in queue:
        if op == "enqueue":
            waiting.append(_Waiting(offset, words, key, epoch))
        elif op in ("dequeue", "remove"):
            item = _named_by(waiting, key, unnamed=False) or (waiting[0] if waiting else None)
            if item is None:
                continue
            waiting.remove(item)
            if op == "remove":
                if item.words:
                    listed[item.offset] = (item.words, item.key)
                removed.append(item)
        elif op == "popAll":  # the human's entries recalled to the input box, unsent
            waiting = [item for item in waiting if item.words is None or item.named]
        elif op == DELIVERED:
            item = _named_by(waiting, key) or _named_by(removed, key)
            if item is not None:
                item.named = True
                if item.words:
                    listed[item.offset] = (item.words, item.key)
                    continue
            if words:
                listed[offset] = (words, key)
        elif op == AGENT:
            epoch += 1
        elif op in (OPENED, SENT):
            item = _named_by(waiting, key)
            if item is not None:
                waiting.remove(item)
            if op == OPENED:
                for item in waiting:
                    if item.epoch < epoch and item.words and not item.named:
                        listed[item.offset] = (item.words, item.key)
                waiting = [item for item in waiting if item.epoch >= epoch]
                removed = []
    return [(offset, words, key) for offset, (words, key) in listed.items()]
