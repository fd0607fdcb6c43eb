"""What search keeps of a transcript in the cache (its facet): only what the transcript's
own bytes say, whatever the query.

- ``unframed``: the lines failing the shape check (the malformed-line law's census of the
  lines a scan does not parse): a whole-file newline walk, ~0.2 s of CPU over corpus B.
- ``openers``: every turn opener's offset, ``parentUuid`` and ``uuid``, and whether the
  file holds a record at all: the turn map, its draft and replay collapse recomputed
  from them at query time (``turns.collapse_keys``), so a later sibling appended to a
  grown file still supersedes an earlier one.
- ``users``: every user-key line that is not a plain tool_result carrier (the
  candidates of a ``-t user``-style scan), each with what a count needs of it: whether
  it decodes, its timestamp, its parent and uuid, whether it opens a turn, and for a
  user record (whose labels no gate or flag changes) its leaves and the leaves that
  render a unit on their own. A selection's verdict is then ``any(select(leaf) for leaf
  in renders)``, as ``classify.renders_unit`` decides (checked on every record of the
  demo home and the real corpus for every subset of its leaves).
- ``seed``: a subagent transcript's spawn-prompt seed.

Nothing from another file (the sidecar, persisted outputs, spawn indexes) and nothing a
query decides (the window, the gates, the pattern) is kept. Parts are computed when a
run needs them and kept from then on; a grown file's parts are extended from the length
scanned last time (``extend``).

The leaves are taken without the session's spawn index (``core.spawnlinks``: the lanes'
meta.json files, SPEC §4). The one leaf it changes on a user record is a tool_result
carrier's ``agent.communication.inbox`` (a completion a meta names as a return: a
carrier's leaves are ``agent.tool.result`` with or without it), and a count from the kept
leaves runs only under a selection that takes neither (``SearchPlan.counts_user_lines``
wants no carrier leaf), so such a line counts nowhere either way; every other use of the
kept lines decodes them at query time, under the index. Marking those lines unsettled
instead would make a warm ``-t user -c`` read every file holding one (30 of the real
corpus's 210 hold a carrier the byte test cannot call plain).
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any

from pysift.core.decode import Tally, decode, unframed_lines
from pysift.disk.lines import Buffer
from pysift.model import labels as L
from pysift.model.fastdata import dataclass

if TYPE_CHECKING:
    # a search whose needles find no line reads no record: imported where one is read
    from pysift.core import classify
    from pysift.core.turns import TurnMap
    from pysift.model.record import Record

# 2: in a main transcript a subagent's record (isSidechain) opens no turn and is
# agent.communication.inbox, not user.message (SPEC §4, twenty-second session)
FACET, SCHEMA = "search", 2

MALFORMED, RECORD, OTHER = 0, 1, 2  # a candidate user line: torn/junk, a user record, else


@dataclass(slots=True)
class UserLine:
    """One candidate user line (not a plain carrier) and what a count needs of it."""

    start: int
    end: int
    kind: int
    ts: str | None = None
    parent: str | None = None
    uuid: str | None = None
    opens: bool = False
    leaves: tuple[str, ...] | None = None  # a user record's labels (None: decode to know)
    renders: tuple[str, ...] = ()  # the leaves that render a unit on their own

    def as_tuple(self) -> tuple[object, ...]:
        return (self.start, self.end, self.kind, self.ts, self.parent, self.uuid, self.opens,
                self.leaves, self.renders)


def user_line(start: int, end: int, rec: Record | None, ctx: classify.ClassifyContext
              ) -> UserLine:
    """The facts of a decoded candidate (``rec`` None: it failed to decode)."""
    if rec is None:
        return UserLine(start, end, MALFORMED)
    from pysift.core import classify

    opens = rec.type == "user" and classify.opens_turn(rec, subagent=ctx.is_subagent)
    leaves: tuple[str, ...] | None = None
    renders: tuple[str, ...] = ()
    if rec.type == "user" and rec.raw.get("csift") is None:  # no sidecar marker
        found = classify.classify(rec, ctx)
        leaves = tuple(found)
        renders = tuple(leaf for leaf in found if classify.renders_unit(
            rec, ctx, leaf.__eq__, found, [leaf]))
    return UserLine(start, end, RECORD if leaves is not None else OTHER, _str(rec.timestamp),
                    _str(rec.parent_uuid), _str(rec.uuid), opens, leaves, renders)


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


@dataclass
class FileFacts:
    """One transcript's search facts; ``None`` parts are not computed yet."""

    layouts: tuple[bool, ...]
    unframed: list[int] | None = None
    openers: list[tuple[int, str, str | None]] | None = None  # (offset, parent or "", uuid)
    has_records: bool | None = None
    users: list[UserLine] | None = None
    seed: tuple[str | None, int | None] | None = None
    changed: bool = field(default=False, compare=False)  # to be stored

    # -- the cache's shape (marshal: tuples, lists, strings, ints, bools, None) ----------
    def dump(self) -> tuple[object, ...]:
        return (self.layouts, self.unframed, self.openers, self.has_records,
                None if self.users is None else [u.as_tuple() for u in self.users],
                self.seed)

    @classmethod
    def load(cls, raw: Any) -> FileFacts | None:
        """Facts read back from the cache; None when they have another shape."""
        try:
            layouts, unframed, openers, has_records, users, seed = raw
            out = cls(tuple(bool(x) for x in layouts))
            if unframed is not None:
                out.unframed = [int(x) for x in unframed]
            if openers is not None:
                out.openers = [(int(o), str(p), u if u is None else str(u))
                               for o, p, u in openers]
                out.has_records = bool(has_records)
            if users is not None:
                seen: dict[Any, tuple[str, ...]] = {}
                out.users = [_user_of(row, seen) for row in users]
            if seed is not None:
                uuid, line = seed
                out.seed = (uuid if uuid is None else str(uuid),
                            line if line is None else int(line))
        except (TypeError, ValueError, KeyError):
            return None
        return out

    # -- the parts -----------------------------------------------------------------------
    def turn_map(self, buf: Buffer | None) -> TurnMap | None:
        """The transcript's turn map from the kept openers (None: not kept)."""
        if self.openers is None or self.has_records is None:
            return None
        return turn_map_of(self.openers, bool(self.has_records), buf)

    def take_openers(self, found: list[tuple[int, Record]], has_records: bool) -> None:
        self.openers = [(offset, rec.parent_uuid or "", rec.uuid) for offset, rec in found]
        self.has_records = has_records
        self.changed = True

    def extend(self, buf: Buffer, scanned: int, ctx_of, is_subagent: bool) -> bool:  # type: ignore[no-untyped-def]
        """Bring the parts of a grown file up to date from ``scanned`` (where the last
        complete line scanned then ended: the lines before it are unchanged, a torn last
        line is read again). False when they cannot be (another seed: the classes of the
        lines kept were taken under it), and the caller starts afresh."""
        from pysift.core.turns import find_openers, holds_a_record, subagent_seed

        if is_subagent and self.seed is not None:
            if subagent_seed(buf) != self.seed:
                return False
        if self.unframed is not None:
            self.unframed = [s for s in self.unframed if s < scanned] + unframed_lines(
                buf, scanned)
        if self.openers is not None:
            kept = [o for o in self.openers if o[0] < scanned]
            more = find_openers(buf, scanned, len(buf), None, subagent=is_subagent)
            self.openers = kept + [(o, r.parent_uuid or "", r.uuid) for o, r in more]
            if not self.has_records:
                self.has_records = bool(self.openers) or holds_a_record(buf)
        if self.users is not None:
            ctx = ctx_of(self.seed if self.seed is not None else (None, None))
            kept_users = [u for u in self.users if u.start < scanned]
            self.users = kept_users + walk_users(buf, ctx, self.layouts, scanned)[0]
        self.changed = True
        return True


_LEAVES = {leaf: leaf for leaf in L.ALL}  # a kept leaf read back as the label's own string
_KINDS = frozenset((MALFORMED, RECORD, OTHER))


def _leaves_of(raw: Any, seen: dict[Any, tuple[str, ...]]) -> tuple[str, ...]:
    """A kept tuple of leaves, each checked to be a label (KeyError: it is not); one
    tuple per distinct value of a transcript (``seen``)."""
    found = seen.get(raw)
    if found is None:
        if type(raw) is not tuple:
            raise ValueError("leaves")
        found = seen[raw] = tuple(_LEAVES[x] for x in raw)
    return found


def _user_of(row: Any, seen: dict[Any, tuple[str, ...]]) -> UserLine:  # cached: its shape is checked here
    start, end, kind, ts, parent, uuid, opens, leaves, renders = row
    if kind not in _KINDS or type(start) is not int or type(end) is not int:
        raise ValueError("kind")
    for value in (ts, parent, uuid):
        if value is not None and type(value) is not str:
            raise ValueError("field")
    if leaves is not None:  # the common tuples are met again: looked up before the call
        found = seen.get(leaves)
        leaves = _leaves_of(leaves, seen) if found is None else found
    kept = seen.get(renders)  # (often the empty tuple: found, though falsy)
    return UserLine(start, end, kind, ts, parent, uuid, bool(opens), leaves,
                    _leaves_of(renders, seen) if kept is None else kept)


def turn_map_of(openers: list[tuple[int, str, str | None]], has_records: bool,
                buf: Buffer | None) -> TurnMap:
    """The turn map from kept ``(offset, parent or "", uuid)`` openers: the draft and
    replay collapse recomputed from them."""
    from pysift.core import turns as turns_mod

    collapse = turns_mod.collapse_keys([(parent, uuid) for _, parent, uuid in openers])
    return turns_mod.turn_map_of([offset for offset, _, _ in openers], collapse, has_records,
                                 buf)


def walk_users(buf: Buffer, ctx: classify.ClassifyContext | None,
               file_layouts: tuple[bool, ...], lo: int = 0, tally: Tally | None = None, *,
               keep: bool = True, unframed: list[int] | None = None
               ) -> tuple[list[UserLine], list[tuple[int, bytes, Record]]]:
    """Every candidate user line from ``lo`` (one key scan; carriers stepped over),
    decoded: their facts, and the decoded records with their bytes (what a scan that
    walked them for its own candidates goes on with). ``keep`` False (nothing is kept: no
    cache): each line is only MALFORMED or OTHER, nothing is classified here.
    ``unframed``: the file's unframed lines from ``lo`` are wanted too, appended to it by
    a walk that runs behind their proof (``keyscan.proved_user_lines``)."""
    from pysift.core.keyscan import proved_user_lines, user_lines

    facts: list[UserLine] = []
    decoded: list[tuple[int, bytes, Record]] = []
    for start, end, _ in (user_lines(buf, file_layouts, lo, carriers=False) if unframed is None
                          else proved_user_lines(buf, file_layouts, lo, unframed, carriers=False)):
        line = buf[start:end]
        rec = decode(line, None, tally)
        if keep:
            assert ctx is not None  # (a context is needed to classify a line kept)
            facts.append(user_line(start, end, rec, ctx))
        else:
            facts.append(UserLine(start, end, MALFORMED if rec is None else OTHER))
        if rec is not None:
            decoded.append((start, line, rec))
    return facts, decoded


def settled(users: list[UserLine]) -> bool:
    """Whether kept user lines answer a count alone: each one malformed or a user record
    with its leaves (no line of another kind, decoded at query time)."""
    return all(u.kind == MALFORMED or (u.kind == RECORD and u.leaves is not None)
               for u in users)
