"""A ``-t user``-style count (``-c``/``-l`` with no pattern) of an unchanged transcript,
read straight from the tuples the cache keeps (``facts.FileFacts.dump``).

A warm count of corpus B spends most of its time per file, not per line (2,437 files,
~3 kept user lines each): the general path builds ``FileFacts`` and a ``UserLine`` per
kept line, a turn map, a scanner with its classifier context and a ``Hit`` per counted
record, only to count distinct exchanges. Here one walk over the kept rows makes the
same decisions as ``_Scanner.count_kept_lines`` (same order, same tests):

- the turn a line falls in is the number of real openers (drafts and replay copies left
  out, as ``turns.collapse_keys`` decides) up to it, counted as the rows go by, never
  below turn 0: ``TurnMap.turn_of_offset`` on rows in file order;
- a line in a turn already counted is passed over (its exchange counts once);
- a superseded draft is an exchange of its own when ``user.unsent`` is selected, else,
  when the selection would take it as sent, one collapsed draft;
- a record counts when the first leaf the selection takes exists and a taken leaf renders
  a unit alone (``_Scanner._kept_verdict``).

The walk declines (None) whenever the general path would not count from the facts, or
would not trust them: a part not kept, a line that is no user record, a subagent without
its seed, and any value of another shape than ``FileFacts.load`` accepts (it is stricter
than ``load``: a row that is not exactly what ``dump`` writes declines). Declining costs
only the time spent: the caller goes the general way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pysift.disk.layout import Transcript, sidecar_of
from pysift.engines.search.facts import MALFORMED, RECORD
from pysift.model import labels as L

if TYPE_CHECKING:
    from pysift.engines.search.plan import SearchPlan

_LABELS = frozenset(L.ALL)
_INVALID = object()  # a kept (leaves, renders) pair holding something no label is


def kept_count_applies(plan: SearchPlan) -> bool:
    """Whether a count under ``plan`` can be taken by ``KeptCounter``: a light count with
    no pattern over the user lines (``SearchPlan.counts_user_lines``), keeping no bare hit
    and with no ``--turn`` window."""
    return plan.counts_user_lines() and not plan.keep_hits and plan.turns is None


def sidecar_share(transcript: Transcript) -> tuple[int, str | None] | None:
    """What a top-level session's elicitation sidecar adds to a count taken without the
    transcript's bytes: its skipped lines and its read error; None when it holds a
    pending record (merged against those bytes: the file must be read)."""
    sidecar = sidecar_of(transcript)
    if sidecar is None:
        return 0, None
    from pysift.core.sidecar import read_sidecar

    merge = read_sidecar(sidecar, None)
    if merge.pending:
        return None
    return merge.skipped_lines, merge.error


class KeptCounter:
    """The count of one plan over kept facts; one per run (its verdict per pair of kept
    leaves and renders is the plan's, whatever the file)."""

    def __init__(self, plan: SearchPlan) -> None:
        self.plan = plan
        self._select = plan.labels.selects
        self._unsent = plan.labels.selects(L.USER_UNSENT)
        self._windowed = plan.since is not None or plan.until is not None
        self._verdicts: dict[tuple[Any, Any], object] = {}

    def _verdict(self, leaves: Any, renders: Any) -> object:
        """The label a kept record counts under (None: it does not count), or
        ``_INVALID`` for leaves that are not labels (``_kept_verdict``'s rule)."""
        key = (leaves, renders)
        found = self._verdicts.get(key, _INVALID)
        if found is not _INVALID or key in self._verdicts:
            return found
        if (type(leaves) is not tuple or type(renders) is not tuple
                or not _LABELS.issuperset(leaves) or not _LABELS.issuperset(renders)):
            self._verdicts[key] = _INVALID
            return _INVALID
        select = self._select
        taken = [leaf for leaf in leaves if select(leaf)]
        found = self._verdicts[key] = (
            taken[0] if taken and any(select(x) for x in renders) else None)
        return found

    def count(self, raw: Any, is_subagent: bool) -> tuple[int, int, int] | None:
        """``(exchanges, collapsed drafts, malformed lines)`` of the transcript whose
        kept facts are ``raw`` (its sidecar is the caller's), or None: not from these."""
        try:
            return self._count(raw, is_subagent)
        except (TypeError, ValueError):  # another shape (unpacking, comparing): decline
            return None

    def _count(self, raw: Any, is_subagent: bool) -> tuple[int, int, int] | None:
        if type(raw) is not tuple:
            return None
        _layouts, unframed, openers, _has_records, rows, seed = raw
        if rows is None or unframed is None or (openers is None and rows):
            return None  # a part not kept yet (a file without a user line needs no turns)
        if seed is None and is_subagent:
            return None  # the lines' classes need the seed they were taken under
        if type(rows) is not list or type(unframed) is not list:
            return None
        # one walk: every row checked, and the count as if every opener were a real one
        # (what it is unless two openers collapse, which the second walk then handles)
        verdicts, verdict_of = self._verdicts, self._verdict
        in_window = self.plan.in_window_ts if self._windowed else None
        keys: list[tuple[str, str | None] | None] = []
        turn = last = -1
        exchanges = malformed = 0
        previous = -1
        for start, end, kind, ts, parent, uuid, opens, leaves, renders in rows:
            if type(start) is not int or type(end) is not int or start <= previous:
                return None  # rows are kept in file order, one per line
            previous = start
            if ((ts is not None and type(ts) is not str)
                    or (parent is not None and type(parent) is not str)
                    or (uuid is not None and type(uuid) is not str)):
                return None
            if kind == MALFORMED:
                if opens:  # (``dump`` never writes one: a malformed line opens nothing)
                    return None
                if verdict_of(() if leaves is None else leaves, renders) is _INVALID:
                    return None
                malformed += 1
                keys.append(None)
                continue
            if kind != RECORD or leaves is None:
                return None  # a line decided at query time: the general path reads it
            verdict = verdicts.get((leaves, renders), _INVALID)
            if verdict is _INVALID:
                verdict = verdict_of(leaves, renders)
                if verdict is _INVALID:
                    return None
            if opens:
                keys.append((parent or "", uuid))
                turn += 1
            else:
                keys.append(None)
            if verdict is None:
                continue
            at = turn if turn > 0 else 0
            if at != last and (in_window is None or in_window(ts)):
                exchanges += 1
                last = at
        collapsed = 0
        # two openers collapse (a draft and its sibling, a replay and its original) only
        # when they share a parent: most files have none that do, and skip the walk
        parents = [key[0] for key in keys if key is not None]
        if len(set(parents)) < len(parents):
            from pysift.core.turns import collapse_keys

            collapse = collapse_keys(keys)
            if collapse.drafts or collapse.replays:
                exchanges, collapsed = self._collapsed(rows, keys, collapse.drafts,
                                                       collapse.replays)
        if unframed:
            for start in unframed:
                if type(start) is not int:
                    return None
            starts = {row[0] for row in rows}
            malformed += sum(1 for start in unframed if start not in starts)
        return exchanges, collapsed, malformed

    def _collapsed(self, rows: list[Any], keys: list[tuple[str, str | None] | None],
                   drafts: dict[int, int], replays: set[int]) -> tuple[int, int]:
        """``(exchanges, collapsed drafts)`` of checked rows some of whose openers are
        superseded drafts or replay copies (which open no turn)."""
        verdicts = self._verdicts
        in_window = self.plan.in_window_ts if self._windowed else None
        turn = last = -1
        exchanges = collapsed = 0
        for index, row in enumerate(rows):
            if row[2] == MALFORMED:
                continue
            draft = index in drafts
            if keys[index] is not None and not draft and index not in replays:
                turn += 1  # a real opener starts the next turn
            verdict = verdicts[(row[7], row[8])]
            if in_window is not None and not in_window(row[3]):
                continue
            if draft:
                if not self._unsent:
                    if verdict is not None:
                        collapsed += 1  # hidden by the selection: said
                    continue
                exchanges += 1  # a superseded draft is an exchange of its own
            elif verdict is not None:
                at = turn if turn > 0 else 0
                if at != last:
                    exchanges += 1
                    last = at
        return exchanges, collapsed
