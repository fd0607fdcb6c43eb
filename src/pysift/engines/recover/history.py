"""From per-transcript scans to one history per file per session group, and what a
replay of it discloses (SPEC §6.7).

A group is a top-level session with its own subagents (keyed by ``parent_session_id``).
When two or more of its transcripts touched the file, their events are merged into one
stream ordered by timestamp (each transcript's own order kept), and re-numbered 1..N: that
number is the ``--at @line:`` coordinate of the merged stream, while every event keeps
its real transcript and line (``source_session`` / ``source_line``). A group with one
contributing transcript keeps that transcript's id and jsonl lines. Unrelated sessions
are never merged.

The ``--turn``/``--since``/``--until`` window keeps the events inside it (a turn is the
event's own transcript's); the replay sees nothing else. An event is timed by its tool
call (``Event.ts``/``turn``, as ``files`` and ``search`` place a call), and stamps are
compared as the instants they name, never as strings.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from dataclasses import field
from datetime import datetime

from pysift.core import replay as rp
from pysift.core.grammar.ranges import RangeSpec
from pysift.core.timez import parse_ts, readable_span, within
from pysift.engines.recover.extract import Opaque, TranscriptScan
from pysift.model.fastdata import dataclass

#: ops whose loss a window must say (they make or could make a boundary)
_INTEGRITY_OPS = (rp.ExternalEdit, rp.StaleHint, rp.BashMutation, rp.BashAppend,
                  rp.Unanswered)


@dataclass(frozen=True)
class Window:
    turns: RangeSpec | None = None
    since: datetime | None = None
    until: datetime | None = None

    @property
    def active(self) -> bool:
        return self.turns is not None or self.since is not None or self.until is not None

    def admits(self, turn: int, ts: str | None, turn_count: int) -> bool:
        if self.turns is not None and not self.turns.contains(turn, 0, max(turn_count - 1, 0)):
            return False
        return within(ts, self.since, self.until)


@dataclass
class GroupHistory:
    """One file's history in one session group."""

    session_id: str
    is_subagent: bool
    parent_session_id: str
    events: list[rp.Event]
    merged: bool
    opaque: list[Opaque] = field(default_factory=list)
    contributors: tuple[str, ...] = ()

    @property
    def trio(self) -> dict[str, object]:
        return {"session_id": self.session_id, "is_subagent": self.is_subagent,
                "parent_session_id": self.parent_session_id}


def latest_stamp(events: Iterable[rp.Event]) -> str | None:
    """The stamp, as written, of the latest instant among ``events``: ordered by the instant
    it names, never by its spelling (``…T12:00:00+05:00`` is before ``…T10:00:00Z``; a stamp
    without milliseconds sorts after one with them), and a stamp naming no instant
    (``[trimmed]``) is unknown, never the latest."""
    return readable_span(e.ts for e in events)[1]


def _is_integrity(event: rp.Event) -> bool:
    op = event.op
    if isinstance(op, _INTEGRITY_OPS):
        return True
    if isinstance(op, rp.Integrity):
        return op.kind == rp.MODIFIED_SINCE_READ
    return isinstance(op, rp.Edit) and op.stale_recovered


def _ts_key(events: Sequence[rp.Event]) -> list[tuple[float, rp.Event]]:
    """Sort keys that keep a transcript's own order: an untimed event takes the time of
    the event before it."""
    out = []
    last = float("-inf")
    for e in events:
        instant = parse_ts(e.ts)
        if instant is not None:
            last = max(last, instant.timestamp())
        out.append((last, e))
    return out


def _opaque_time(o: Opaque) -> float:
    instant = parse_ts(o.ts)
    return instant.timestamp() if instant is not None else float("inf")


def group_histories(scans: Iterable[TranscriptScan], target: int, window: Window, *,
                    merge: bool = True) -> tuple[list[GroupHistory], int]:
    """The groups holding events of target ``target``, sorted by id, and how many
    integrity-relevant events the window left out. Without ``merge`` every transcript
    is its own group (``--patches`` keeps each transcript's own diff history). A
    transcript whose events are only a window account (a sibling's Bash call that may
    change the file) joins its session's group, never makes one; the opaque commands of
    every transcript of the session are the group's (its window runs through them)."""
    by_parent: dict[str, list[tuple[TranscriptScan, list[rp.Event]]]] = {}
    excluded = 0
    accounts: list[tuple[TranscriptScan, list[rp.Event]]] = []
    sessions: dict[str, list[Opaque]] = {}  # a session's opaque commands in the window
    for scan in scans:
        count = scan.turn_count
        sessions.setdefault(scan.transcript.parent_session_id, []).extend(
            o for o in scan.opaque if window.admits(o.turn, o.ts, count))
        found = scan.files.get(target)
        if found is None or not found.events:
            continue
        admitted = [window.admits(e.turn, e.ts, count) for e in found.events]
        kept = [e for e, ok in zip(found.events, admitted, strict=True) if ok]
        excluded += sum(1 for e, ok in zip(found.events, admitted, strict=True)
                        if not ok and _is_integrity(e))
        if not kept:
            continue
        if found.account:
            accounts.append((scan, kept))
            continue
        key = scan.transcript.parent_session_id if merge else str(scan.transcript.path)
        by_parent.setdefault(key, []).append((scan, kept))
    held = {members[0][0].transcript.parent_session_id for members in by_parent.values()}
    for scan, kept in accounts:
        parent = scan.transcript.parent_session_id
        if parent not in held:
            continue  # an account's events never make a group of their own
        if merge:
            by_parent[parent].append((scan, kept))
            continue
        # one group per transcript (--patches): the account joins each of its session's
        for members in by_parent.values():
            if members[0][0].transcript.parent_session_id == parent:
                members.append((scan, kept))
    groups: list[GroupHistory] = []
    order = sorted(by_parent, key=lambda k: (by_parent[k][0][0].transcript.parent_session_id,
                                            by_parent[k][0][0].transcript.is_subagent,
                                            by_parent[k][0][0].transcript.session_id))
    for key in order:
        members = by_parent[key]
        parent = members[0][0].transcript.parent_session_id
        if len(members) == 1:
            scan, kept = members[0]
            t = scan.transcript
            own = [o for o in sessions.get(parent, []) if o.session_id == t.session_id]
            others = sorted((o for o in sessions.get(parent, []) if o.session_id != t.session_id),
                            key=_opaque_time)
            groups.append(GroupHistory(t.session_id, t.is_subagent, t.parent_session_id, kept,
                                       False, own + others, (t.session_id,)))
            continue
        members.sort(key=lambda m: (m[0].transcript.is_subagent, m[0].transcript.session_id))
        streams = [_ts_key(kept) for _, kept in members]
        merged = [e for _, e in heapq.merge(*streams, key=lambda pair: pair[0])]
        events = [rp.restamp(e, n) for n, e in enumerate(merged, 1)]
        rank = {m[0].transcript.session_id: n for n, m in enumerate(members)}
        opaque = sorted(sessions.get(parent, []),
                        key=lambda o: (_opaque_time(o), rank.get(o.session_id, len(rank))))
        groups.append(GroupHistory(parent, False, parent, events, True, opaque,
                                   tuple(m[0].transcript.session_id for m in members)))
    return groups, excluded


# -- the --at cutoff ---------------------------------------------------------------------------


@dataclass(frozen=True)
class At:
    """A parsed ``--at`` value: ``@latest``, ``@line:N``, ``@turn:N`` or an instant."""

    kind: str  # "latest" | "line" | "turn" | "time"
    number: int = 0
    instant: datetime | None = None
    text: str = ""


LATEST = At("latest", text="@latest")


def cutoff_of(at: At, events: Sequence[rp.Event]) -> int | None:
    """The replay coordinate ``at`` names in ``events`` (None: no cutoff, the final state).
    An ``@turn``/instant bound before every event is 0 (nothing replayed)."""
    if at.kind == "latest":
        return None
    if at.kind == "line":
        return at.number
    if at.kind == "turn":
        lines = [e.line for e in events if e.turn <= at.number]
    else:
        bound = at.instant
        lines = [e.line for e in events
                 if (i := parse_ts(e.ts)) is not None and bound is not None and i <= bound]
    return max(lines, default=0)


# -- what a replay window discloses ---------------------------------------------------------


@dataclass
class Disclosure:
    """The window's opaque commands and the search that inspects it."""

    opaque: list[Opaque]
    classes: dict[str, int]
    powershell: int
    suggested: str | None

    @property
    def opaque_classes(self) -> int:
        return sum(self.classes.values())

    @property
    def clean(self) -> bool:
        return not self.opaque

    def note(self) -> str | None:
        """``2 mutating-class command(s) whose file set is not in the command text
        (fmt:prettier x2) and 1 PowerShell command(s), never parsed``."""
        parts = []
        if self.classes:
            listed = ", ".join(f"{m} x{n}" if n > 1 else m for m, n in sorted(self.classes.items()))
            parts.append(f"{self.opaque_classes} mutating-class command(s) whose file set is "
                         f"not in the command text ({listed})")
        if self.powershell:
            parts.append(f"{self.powershell} PowerShell command(s), never parsed")
        return " and ".join(parts) or None


def _regex_escape(text: str) -> str:
    return "".join("\\" + c if c in "\\.+*?()|[]{}^$#&-~" else c for c in text)


def suggested_search(base: str, parent: str, first: str | None, last: str | None) -> str:
    """A ready-to-run search listing every tool call naming the file in the window."""
    pattern = _regex_escape(base).replace("'", "'\\''")
    cmd = f"pysift search '{pattern}' @{parent} -t agent.tool.use"
    if first:
        cmd += f" --since {first}"
    if last:
        cmd += f" --until {last}"
    return cmd


def disclose(group: GroupHistory, cutoff: int | None, base: str) -> Disclosure:
    """The opaque commands between the group's first replayed event and its cutoff (the
    end when None): in one transcript by line, in a merged group (and in the session's
    other transcripts) by time. An event's time is its call's (``Event.ts``), so the
    suggested search's ``--since``/``--until`` list every call of the window."""
    replayed = [e for e in group.events if cutoff is None or e.line <= cutoff]
    stamps = [(parse_ts(e.ts), e.ts) for e in replayed]
    timed = [(i, raw) for i, raw in stamps if i is not None]
    first = min(timed)[1] if timed else None
    last = max(timed)[1] if timed else None
    if not replayed:
        return Disclosure([], {}, 0, None)
    lo = min(timed)[0] if timed else None
    hi = max(timed)[0] if timed and cutoff is not None else None

    def in_time(o: Opaque) -> bool:
        instant = parse_ts(o.ts)
        return instant is None or ((lo is None or instant >= lo)
                                   and (hi is None or instant <= hi))

    if group.merged:
        inside = [o for o in group.opaque if in_time(o)]
    else:  # its own commands by line, its session's other transcripts' by time; the
        # window opens at the first event's call (a command called after it and before
        # its result may have run after it)
        lo_line = min(e.call_line or e.line for e in replayed)
        inside = [o for o in group.opaque
                  if (o.line >= lo_line and (cutoff is None or o.line <= cutoff)
                      if o.session_id == group.session_id else in_time(o))]
    classes: dict[str, int] = {}
    powershell = 0
    from pysift.engines.recover.shell import POWERSHELL

    for o in inside:
        if o.marker == POWERSHELL:
            powershell += 1
        else:
            classes[o.marker] = classes.get(o.marker, 0) + 1
    return Disclosure(inside, classes, powershell,
                      suggested_search(base, group.parent_session_id, first, last))
