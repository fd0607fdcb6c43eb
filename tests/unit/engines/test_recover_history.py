"""``engines.recover.history``: one history per file and session group. A transcript whose
events are only a window account (a sibling's Bash call that may change the file) joins
its session's group and never makes one; the opaque commands of every transcript of the
session are the group's window, its own by line, the others' by time."""

from __future__ import annotations

from pathlib import Path

from pysift.core import replay as rp
from pysift.disk.layout import Transcript
from pysift.engines.recover.extract import FileScan, Opaque, TranscriptScan
from pysift.engines.recover.history import Window, disclose, group_histories, latest_stamp

MAIN = "11111111-1111-4111-8111-111111111111"
OTHER = "22222222-2222-4222-8222-222222222222"
AGENT = "a1b2c3d4e5f6a7b8c"


def _transcript(sid: str, parent: str) -> Transcript:
    sub = sid != parent
    return Transcript(Path(f"/h/p/{parent}{'/subagents/agent-' + sid if sub else ''}.jsonl"),
                      sid, sub, parent, "builtin-task" if sub else None, Path("/h/p"))


def _scan(sid: str, parent: str, *events: rp.Event, account: bool = False,
          opaque: tuple[Opaque, ...] = ()) -> TranscriptScan:
    files = {0: FileScan(list(events), account=account)} if events else {}
    return TranscriptScan(_transcript(sid, parent), files, list(opaque), accounted=True)


def _ts(minute: int) -> str:
    return f"2026-10-05T09:{minute:02d}:00.000Z"


WRITE = rp.Snapshot(("a", ""), rp.SOURCE_WRITE)
SED = rp.BashMutation("sed-i", "*.txt (a pattern that may name the file)", "unresolved")


def test_an_account_joins_its_sessions_group() -> None:
    main = _scan(MAIN, MAIN, rp.Event(3, 0, _ts(1), WRITE, MAIN, 3))
    agent = _scan(AGENT, MAIN, rp.Event(2, 0, _ts(5), SED, AGENT, 2), account=True)
    [group], excluded = group_histories([main, agent], 0, Window())
    assert excluded == 0 and group.merged and group.contributors == (MAIN, AGENT)
    assert [type(e.op) for e in group.events] == [rp.Snapshot, rp.BashMutation]


def test_an_account_never_makes_a_group() -> None:
    agent = _scan(AGENT, OTHER, rp.Event(2, 0, _ts(5), SED, AGENT, 2), account=True)
    main = _scan(MAIN, MAIN, rp.Event(3, 0, _ts(1), WRITE, MAIN, 3))
    [group], _ = group_histories([main, agent], 0, Window())
    assert group.session_id == MAIN and not group.merged
    assert group_histories([agent], 0, Window()) == ([], 0)


def test_one_group_per_transcript_keeps_an_account_inside_its_sessions_groups() -> None:
    """--patches (no merge): the account joined the groups as one of its own, a group of
    guessed boundaries alone."""
    main = _scan(MAIN, MAIN, rp.Event(3, 0, _ts(1), WRITE, MAIN, 3))
    agent = _scan(AGENT, MAIN, rp.Event(2, 0, _ts(5), SED, AGENT, 2), account=True)
    [group], _ = group_histories([main, agent], 0, Window(), merge=False)
    assert group.session_id == MAIN
    assert [type(e.op) for e in group.events] == [rp.Snapshot, rp.BashMutation]


def test_the_sessions_other_transcripts_opaque_commands_are_its_window_by_time() -> None:
    def ruff(sid: str, line: int, minute: int) -> Opaque:
        return Opaque(sid, line, 0, _ts(minute), "fmt:ruff")

    main = _scan(MAIN, MAIN, rp.Event(3, 0, _ts(2), WRITE, MAIN, 3),
                 rp.Event(9, 0, _ts(6), WRITE, MAIN, 9), opaque=(ruff(MAIN, 1, 0),))
    agent = _scan(AGENT, MAIN, opaque=(ruff(AGENT, 4, 1), ruff(AGENT, 5, 4), ruff(AGENT, 6, 8)))
    stranger = _scan(OTHER, OTHER, opaque=(ruff(OTHER, 5, 4),))
    [group], _ = group_histories([main, agent, stranger], 0, Window())
    assert not group.merged
    assert [(o.session_id, o.line) for o in disclose(group, None, "q.txt").opaque] == [
        (AGENT, 5), (AGENT, 6)]  # before the first event: outside; at the end: inside
    assert [(o.session_id, o.line) for o in disclose(group, 3, "q.txt").opaque] == []


def test_the_latest_stamp_is_the_latest_instant_never_the_latest_spelling() -> None:
    def at(ts: str | None) -> rp.Event:
        return rp.Event(1, 0, ts, WRITE, MAIN, 1)

    offset = [at("2026-03-08T10:00:00.000Z"), at("2026-03-08T12:00:00.000+05:00")]
    assert latest_stamp(offset) == "2026-03-08T10:00:00.000Z"  # 12:00+05:00 is 07:00Z
    junk = [at("2026-03-08T10:00:00.000Z"), at("[trimmed]"), at(None), at("")]
    assert latest_stamp(junk) == "2026-03-08T10:00:00.000Z"  # unknown, never the latest
    no_millis = [at("2026-03-08T10:00:00.900Z"), at("2026-03-08T10:00:00Z")]
    assert latest_stamp(no_millis) == "2026-03-08T10:00:00.900Z"
    assert latest_stamp([at("[trimmed]"), at("2026-03-08T10:00:00")]) is None  # no offset
    assert latest_stamp([]) is None


def test_one_transcripts_window_opens_at_the_first_events_call() -> None:
    """A formatter called after the Read and before its result (L3 between the call at L2
    and the result at L4) may have run after the read: it is in the window."""
    read = rp.Snapshot(("a", ""), rp.SOURCE_FULL_READ)
    ruff = Opaque(MAIN, 3, 0, _ts(1), "fmt:ruff")
    early = Opaque(MAIN, 1, 0, _ts(0), "fmt:ruff")
    main = _scan(MAIN, MAIN, rp.Event(4, 0, _ts(1), read, MAIN, 4, 2), opaque=(early, ruff))
    [group], _ = group_histories([main], 0, Window())
    shown = disclose(group, None, "q.txt")
    assert [o.line for o in shown.opaque] == [3]
    assert shown.suggested is not None and f"--since {_ts(1)} --until {_ts(1)}" in shown.suggested
