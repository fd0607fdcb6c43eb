"""Fixed-fleet mode (``--slices K``, csift §6.8): whatever the session, the window and the
fleet, the K slices hold the newest WHOLE turns, no slice opens inside a turn that fits
one, nothing between the kept turns is skipped, and the slices join to the document."""

from __future__ import annotations

import re
from datetime import UTC
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from builders import ClaudeHome
from compacted import session_of_turns
from pysift.disk.layout import transcript_from_path
from pysift.engines.verbatim.document import document
from pysift.engines.verbatim.fleet import UNCAPPED, banners, fleet, size, text, turn_lines
from pysift.engines.verbatim.geometry import BOTH
from pysift.engines.verbatim.model import MIN_CAP, MIN_WINDOW, Richness
from pysift.engines.verbatim.scan import SessionScan, scan_session

WORDS = st.sampled_from(["fix", "the", "epoch", "パス", "bug", "`x.py:3`", "found", "Let me",
                         "\n", "ok", "14 tests", "deadbeef1", "a" * 120])
TEXT = st.lists(WORDS, min_size=1, max_size=120).map(" ".join)
# (prompt or None, replies, tool calls, a compaction after it)
TURN = st.tuples(st.one_of(st.none(), TEXT), st.lists(TEXT, max_size=4), st.integers(0, 2),
                 st.booleans())
HEADER = re.compile(r"^[▽△] L(\d+)", re.MULTILINE)
CUT = re.compile(r"^(.*) … \[\+(\d+) chars(?:, \d+ lines elided)?\] … (.*)$", re.MULTILINE)


def assert_cuts_keep_min_cap_and_shorten(chunks: list[str]) -> None:
    """Every body the fleet cut keeps at least MIN_CAP of its characters and prints
    shorter than it was whole."""
    for m in CUT.finditer("".join(chunks)):
        kept = len(m.group(1)) + len(m.group(3))
        assert kept >= MIN_CAP, m.group(0)
        assert len(m.group(0)) < kept + int(m.group(2)), m.group(0)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(turns=st.lists(TURN, min_size=1, max_size=10), width=st.integers(MIN_WINDOW, 3000),
       k=st.integers(1, 4), mode=st.sampled_from(["longest", "eot-only", "rich", "all"]))
# (found by hypothesis, thirty-second session: the newer turn's banner, moved onto the older
# turn, made it 202 characters at --window 200; it spanned two slices, nothing cut, yet
# carried a cap)
@example(turns=[("fix", ["fix"], 1, True), ("fix", [" ".join(["fix"] * 10)], 0, False)],
         width=200, k=3, mode="longest")
def test_the_fleet_holds_the_newest_whole_turns(tmp_path_factory, turns, width, k,  # type: ignore[no-untyped-def]
                                                mode) -> None:
    root = tmp_path_factory.mktemp("home")
    home = ClaudeHome(Path(root))
    s = session_of_turns(turns)
    path = home.session("/w/p", s.session_id, s)
    scan = scan_session(transcript_from_path(path))
    cfg = Richness(mode=mode)
    [plan], chunks = fleet([scan], [scan.turns], slices=k, width=width, max_compactions=0,
                           cfg=cfg, tz=UTC)

    assert len(chunks) <= k
    assert all(0 < len(c) <= width for c in chunks)
    assert "".join(chunks) == document([plan], cfg, UTC)  # the slices join to the document
    assert_cuts_keep_min_cap_and_shorten(chunks)

    # the kept turns are the newest ones, none skipped, each printed with both sides
    kept = [sel.turn for sel in plan.selected]
    assert [id(t) for t in kept] == [id(t) for t in plan.turns[len(plan.turns) - len(kept):]]
    assert all(sel.sides == BOTH for sel in plan.selected)
    if not kept:
        assert chunks == []

    # a turn that fits a window sits in one slice; it is cut only when it alone exceeds one
    where = banners(plan, cfg, UTC)
    index = {id(t): i for i, t in enumerate(plan.turns)}
    home_of: dict[int, set[int]] = {}
    owner = {}
    for sel in plan.selected:
        for e in turn_lines(sel.turn, where[index[id(sel.turn)]], UNCAPPED, False, cfg, UTC):
            if (m := HEADER.match(e)) is not None:
                owner[int(m.group(1))] = id(sel.turn)
    for n, chunk in enumerate(chunks):
        for m in HEADER.finditer(chunk):
            home_of.setdefault(owner[int(m.group(1))], set()).add(n)
    for sel in plan.selected:
        i = index[id(sel.turn)]
        assert sel.cap is not None
        printed = size(turn_lines(sel.turn, where[i], sel.cap, True, cfg, UTC))
        if len(home_of.get(id(sel.turn), ())) > 1:
            assert printed > width
        if sel.cap != UNCAPPED:  # ellipsized only when it alone exceeds one window
            assert size(turn_lines(sel.turn, where[i], UNCAPPED, True, cfg, UTC)) > width


def test_a_cut_keeps_a_phrase_of_each_body_and_never_lengthens_one(tmp_path: Path) -> None:
    # the fleet at --window 230 cut the prompt "fix the epoch parse in tle.py" to
    # `fix … [+24 chars] … py` and printed "Let me look." as `Let … [+7 chars] … k.`,
    # longer than the words it stood for
    from compacted import build

    _, path = build(tmp_path)
    scan = scan_session(transcript_from_path(path))
    cfg = Richness(mode="all")
    for width in range(MIN_WINDOW, 600, 10):
        [plan], chunks = fleet([scan], [scan.turns], slices=6, width=width,
                               max_compactions=0, cfg=cfg, tz=UTC)
        assert chunks and all(len(c) <= width for c in chunks)
        assert_cuts_keep_min_cap_and_shorten(chunks)
        doc = "".join(chunks)
        if "△ L2  ASSISTANT" in doc:
            assert "\nLet me look.\n" in doc, width
        assert all(sel.cap is not None and sel.cap >= MIN_CAP for sel in plan.selected)


def _turns_around_a_compaction(tmp_path: Path, sid: str, *exchanges: tuple[str, str]
                               ) -> tuple[SessionScan, Richness, list[str]]:
    """t0 ("q1"/"a1"), a compaction, then one turn per exchange: the scan, the richness,
    and the lines of the whole document in one slice (its banner at index 4)."""
    from builders import Session, assistant, compact_boundary, compact_summary, user

    s = Session(sid, cwd="/w/p")
    s.add(user("q1"))
    s.add(assistant("a1"))
    s.add(compact_boundary(150000))
    s.add(compact_summary('6. All user messages:\n- "an earlier question"\n'))
    for question, answer in exchanges:
        s.add(user(question))
        s.add(assistant(answer))
    path = ClaudeHome(tmp_path).session("/w/p", s.session_id, s)
    scan = scan_session(transcript_from_path(path))
    cfg = Richness()
    [_every], [whole] = fleet([scan], [scan.turns], slices=1, width=100000, max_compactions=0,
                             cfg=cfg, tz=UTC)
    lines = whole.split("\n")
    assert lines[4] == "══ compaction boundary · summary at L4 ══"
    return scan, cfg, lines


def test_a_turn_its_banner_keeps_out_of_the_slice_opens_the_next_one(tmp_path: Path) -> None:
    # t0, a compaction, t1, t2; the window holds t2 and t1 without the banner before it,
    # not with it: t1 (banner and all) opens the second slice, where t0 fits too. The
    # fleet used to place t1 bare as its oldest turn and stop, leaving slice 2 empty and
    # saying t0 "did not fit".
    scan, cfg, lines = _turns_around_a_compaction(
        tmp_path, "5e5e5e5e-3333-4222-8333-444455556666",
        ("second question about the cache", "second answer: the cache is warm."),
        ("third question about the release", "third answer: tagged."))
    t1, t2 = lines[5:9], lines[9:13]
    width = size(t2) + size(t1) + 5  # t1 fits beside t2 only without its banner
    [plan], chunks = fleet([scan], [scan.turns], slices=2, width=width, max_compactions=0,
                           cfg=cfg, tz=UTC)
    assert len(plan.selected) == 3
    assert chunks == ["\n".join(lines[:9]) + "\n", "\n".join(t2) + "\n"]


def test_a_turn_no_window_holds_with_its_banner_leaves_it_to_the_older_turn(
        tmp_path: Path) -> None:
    # t0, a compaction, t1, t2; a window holds t1 only without the banner before it.
    # The fleet kept t1 bare as its oldest turn and stopped: the third slice stayed
    # empty and t0 "did not fit". The banner now ends t0's slice, where the document
    # prints it too.
    scan, cfg, lines = _turns_around_a_compaction(
        tmp_path, "5e5e5e5e-4444-4222-8333-444455556666",
        ("second question about the cache, and why it is cold after a restart",
         "second answer: the cache is rebuilt lazily; warm it at start-up."),
        ("third question", "third answer"))
    t0, banner, t1, t2 = lines[:4], lines[4:5], lines[5:9], lines[9:13]
    assert banner == ["══ compaction boundary · summary at L4 ══"]
    width = size(t1) + 10  # t1 fits a window, not with its banner
    assert size(banner + t1) > width >= max(size(t0 + banner), size(t2))
    [plan], chunks = fleet([scan], [scan.turns], slices=3, width=width, max_compactions=0,
                           cfg=cfg, tz=UTC)
    assert len(plan.selected) == 3
    assert chunks == [text(t0 + banner), text(t1), text(t2)]
    assert "".join(chunks) == document([plan], cfg, UTC)


def test_the_fleet_of_a_project_holds_the_newest_session_s_turns(tmp_path: Path) -> None:
    # a project scope lists its sessions by name; the fleet's "newest" turns are the
    # newest session's, whatever its name (a project of the real corpus kept the oldest
    # session's turns and called the newest session's "older", left out)
    from datetime import datetime

    from builders import Session, assistant, user

    home = ClaudeHome(tmp_path)
    scans = []
    for sid, day, word in (("11111111-1111-4111-8111-111111111111", 20, "new"),
                           ("99999999-9999-4999-8999-999999999999", 1, "old")):
        s = Session(sid, cwd="/w/p", start=datetime(2026, 5, day, 9, 0, tzinfo=UTC))
        for k in range(3):
            s.add(user(f"{word} question {k}"))
            s.add(assistant(f"{word} answer {k}"))
        scans.append(scan_session(transcript_from_path(home.session("/w/p", sid, s))))
    cfg = Richness()
    plans, chunks = fleet(scans, [s.turns for s in scans], slices=1, width=600,
                          max_compactions=0, cfg=cfg, tz=UTC)
    # the plans come back oldest session first, as the slices print them
    old, new = ([sel.turn.user.text for sel in p.selected if sel.turn.user] for p in plans)
    assert new == ["new question 0", "new question 1", "new question 2"]
    assert old == ["old question 2"]  # what room is left: the old session's newest turn
    # two transcripts: each session's lines stand under its title
    [chunk] = chunks
    assert chunk.startswith("SESSION 99999999-9999-4999-8999-999999999999\n▽ L5  USER  (")
    assert "\nSESSION 11111111-1111-4111-8111-111111111111\n▽ L1  USER  (" in chunk
    assert chunk.endswith("new answer 2\n") and len(chunk) <= 600
    assert chunk == document(plans, cfg, UTC)


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(first=st.lists(TURN, min_size=1, max_size=5), second=st.lists(TURN, min_size=1, max_size=5),
       width=st.integers(60, 2000), k=st.integers(1, 4))
def test_a_fleet_over_two_sessions_keeps_the_newest_turns_under_their_titles(  # type: ignore[no-untyped-def]
        tmp_path_factory, first, second, width, k) -> None:
    home = ClaudeHome(Path(tmp_path_factory.mktemp("home")))
    scans = []
    for n, (turns, day) in enumerate(((first, 20), (second, 1))):  # the first is newer
        s = session_of_turns(turns)
        s.session_id = f"{n + 1}{'0' * 7}-0000-4000-8000-000000000000"
        s.records = [dict(r, sessionId=s.session_id,
                          timestamp=r["timestamp"].replace("2026-10-05", f"2026-05-{day:02d}"))
                     if "timestamp" in r else r for r in s.records]
        scans.append(scan_session(transcript_from_path(home.session("/w/p", s.session_id, s))))
    cfg = Richness()
    plans, chunks = fleet(scans, [s.turns for s in scans], slices=k, width=width,
                          max_compactions=0, cfg=cfg, tz=UTC)
    assert len(chunks) <= k and all(0 < len(c) <= width for c in chunks)
    assert "".join(chunks) == document(plans, cfg, UTC)
    older, newer = plans  # oldest session first
    assert newer.scan is scans[0]
    for plan in plans:
        kept = [id(sel.turn) for sel in plan.selected]
        assert kept == [id(t) for t in plan.turns[len(plan.turns) - len(kept):]]
    if older.selected:  # nothing of the newer session was left out for it
        assert len(newer.selected) == len(newer.turns)
