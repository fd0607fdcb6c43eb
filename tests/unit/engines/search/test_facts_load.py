"""The search facet's facts read back from a cache shard: the same facts, or None for a
shape that is not theirs (a corrupt or foreign entry is recomputed, never trusted)."""

from __future__ import annotations

import marshal

from pysift.engines.search.facts import MALFORMED, OTHER, RECORD, FileFacts, UserLine
from pysift.model import labels as L


def _facts() -> FileFacts:
    facts = FileFacts((False,), unframed=[0, 90], has_records=True,
                      openers=[(10, "", "u1"), (200, "u1", "u2")],
                      seed=(None, None))
    facts.users = [
        UserLine(10, 90, RECORD, "2026-06-01T10:00:00Z", None, "u1", True,
                 (L.USER_MESSAGE,), (L.USER_MESSAGE,)),
        UserLine(95, 120, MALFORMED),
        UserLine(130, 190, RECORD, None, "u1", "u9", False,
                 (L.HARNESS_INTERRUPT_USER,), ()),
        UserLine(200, 260, RECORD, "2026-06-01T10:05:00Z", "u1", "u2", True,
                 (L.USER_MESSAGE,), (L.USER_MESSAGE,)),
        UserLine(270, 300, OTHER, None, None, "s1", False),
    ]
    return facts


def test_facts_come_back_as_they_were_kept() -> None:
    kept = _facts()
    back = FileFacts.load(marshal.loads(marshal.dumps(kept.dump())))
    assert back is not None
    assert back.dump() == kept.dump()
    assert back.users is not None
    # a leaf is the label's own string, and a repeated tuple one object
    assert back.users[0].leaves is back.users[3].leaves
    assert back.users[0].leaves is not None and back.users[0].leaves[0] is L.USER_MESSAGE


def _with_row(row: tuple[object, ...]) -> object:
    raw = list(_facts().dump())
    raw[4] = [*raw[4], row]  # type: ignore[misc]
    return marshal.loads(marshal.dumps(tuple(raw)))


def test_a_row_of_another_shape_is_not_trusted() -> None:
    good = (310, 330, RECORD, None, None, "u5", False, (L.USER_MESSAGE,), ())
    assert FileFacts.load(_with_row(good)) is not None
    for bad in [
        (310, 330, RECORD, None, None, "u5", False, ("user.nonesuch",), ()),  # no such leaf
        (310, 330, RECORD, None, None, "u5", False, (L.USER_MESSAGE,), ("x",)),
        (310.0, 330, RECORD, None, None, "u5", False, None, ()),  # not an offset
        (310, 330, 7, None, None, "u5", False, None, ()),  # no such kind
        (310, 330, RECORD, 5, None, "u5", False, None, ()),  # a stamp that is no text
        (310, 330, RECORD, None, None, "u5", False, [L.USER_MESSAGE], ()),  # not a tuple
        (310, 330, RECORD, None, None, "u5", False),  # too short
    ]:
        assert FileFacts.load(_with_row(bad)) is None, bad
