"""The recover replay over hand-built event streams: every boundary kind, every guard, and
two properties (a history of full reads, writes and clean edits restores its file byte for
byte; a replay never holds a line the file did not have)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builders import structured_patch
from pysift.core import replay as rp
from pysift.core.replay import Event, replay, split_content

FILE = "a\nb\nc\nd\ne\nf\ng\nh\n"


def ev(line: int, op: rp.Op, turn: int = 0, ts: str | None = None) -> Event:
    return Event(line, turn, ts, op, "s", line)


def full(content: str) -> rp.Snapshot:
    return rp.Snapshot(split_content(content), rp.SOURCE_FULL_READ)


def write(content: str) -> rp.Snapshot:
    return rp.Snapshot(split_content(content), rp.SOURCE_WRITE)


def window(content: str, start: int, count: int) -> rp.Window:
    lines = split_content(content)
    return rp.Window(start, lines[start - 1:start - 1 + count], len(lines))


def edit(before: str, old: str, new: str, *, original: bool = True, patch: bool = True,
         stale: bool = False) -> rp.Edit:
    after = before.replace(old, new, 1)
    hunks = tuple(rp.Hunk(h["oldStart"], h["oldLines"], h["newLines"], tuple(h["lines"]))
                  for h in structured_patch(before, after)) if patch else ()
    return rp.Edit(hunks, (rp.Replacement(old, new),), before if original else None, stale)


# -- anchors and splices ---------------------------------------------------------------------


def test_full_read_is_a_byte_exact_snapshot_final_newline_or_not() -> None:
    for content in (FILE, FILE.rstrip("\n"), "", "\n", "only"):
        out = replay([ev(3, full(content))])
        assert out.buffer.complete and out.buffer.content() == content
        assert out.counts.read_full == 1


def test_windowed_reads_splice_without_padding() -> None:
    out = replay([ev(1, window(FILE, 2, 2)), ev(2, window(FILE, 6, 2))])
    buf = out.buffer
    assert buf.known() == [(2, "b"), (3, "c"), (6, "f"), (7, "g")]
    assert buf.total == 9 and not buf.complete
    assert rp.gaps([n for n, _ in buf.known()], buf.extent()) == [(1, 1), (4, 5), (8, 9)]
    assert out.counts.read_windowed == 2


def test_windows_that_cover_the_file_complete_it() -> None:
    out = replay([ev(1, window(FILE, 1, 4)), ev(2, window(FILE, 5, 5))])
    assert out.buffer.complete and out.buffer.content() == FILE


def test_a_window_that_contradicts_the_map_keeps_only_itself() -> None:
    changed = FILE.replace("b", "B")
    out = replay([ev(1, full(FILE)), ev(2, window(changed, 1, 3))])
    assert out.buffer.known() == [(1, "a"), (2, "B"), (3, "c")]
    assert [b.cause for b in out.boundaries] == ["read_disagreement"] and out.hard == 1
    longer = replay([ev(1, full(FILE)), ev(2, window(FILE + "x\n", 1, 2))])  # a new line
    assert [b.cause for b in longer.boundaries] == ["read_disagreement"]
    assert longer.buffer.known() == [(1, "a"), (2, "b")]
    agreeing = replay([ev(1, full(FILE)), ev(2, window(FILE, 2, 2))])
    assert not agreeing.boundaries and agreeing.buffer.complete


def test_a_full_read_that_contradicts_the_map_is_a_boundary() -> None:
    out = replay([ev(1, full(FILE)), ev(2, full(FILE.replace("h", "H")))])
    assert [b.cause for b in out.boundaries] == ["read_disagreement"]
    assert out.buffer.content() == FILE.replace("h", "H") and len(out.segments) == 2


def test_write_is_a_snapshot_and_its_segment_shows_it_as_a_change() -> None:
    out = replay([ev(1, full(FILE)), ev(2, write("x\n"))])
    assert out.buffer.content() == "x\n" and out.counts.write == 1
    assert [s.anchor_source for s in out.segments] == ["full-read"]
    fresh = replay([ev(1, write("x\n"))])
    assert fresh.segments[0].start.is_empty and fresh.segments[0].anchor_source == "write"


# -- edits -------------------------------------------------------------------------------------


def test_edit_by_structured_patch_position() -> None:
    out = replay([ev(1, full(FILE)), ev(2, edit(FILE, "e\n", "E1\nE2\n"))])
    assert out.buffer.content() == FILE.replace("e\n", "E1\nE2\n")
    assert out.counts.edit == 1 and not out.holes


def test_edit_changing_the_final_newline_either_way() -> None:
    bare = FILE.rstrip("\n")
    grown = replay([ev(1, full(bare)),
                    ev(2, rp.Edit(tuple(rp.Hunk(h["oldStart"], h["oldLines"], h["newLines"],
                                                tuple(h["lines"]))
                                        for h in structured_patch(bare, FILE)), (), bare))])
    assert grown.buffer.content() == FILE
    cut = replay([ev(1, full(FILE)),
                  ev(2, rp.Edit(tuple(rp.Hunk(h["oldStart"], h["oldLines"], h["newLines"],
                                              tuple(h["lines"]))
                                      for h in structured_patch(FILE, bare)), (), FILE))])
    assert cut.buffer.content() == bare


def test_string_fallback_on_a_complete_file() -> None:
    out = replay([ev(1, full(FILE)), ev(2, edit(FILE, "c\nd", "CD", patch=False))])
    assert out.buffer.content() == FILE.replace("c\nd", "CD")


def test_string_fallback_inside_one_known_run_shifts_the_rest() -> None:
    out = replay([ev(1, window(FILE, 2, 2)), ev(2, window(FILE, 6, 2)),
                  ev(3, edit(FILE, "b\n", "b1\nb2\n", patch=False, original=False))])
    assert out.buffer.known() == [(2, "b1"), (3, "b2"), (4, "c"), (7, "f"), (8, "g")]
    assert out.buffer.total == 10


def test_guard_old_region_unknown_is_a_hole_and_a_gap() -> None:
    out = replay([ev(1, window(FILE, 1, 3)), ev(2, window(FILE, 8, 2)),
                  ev(3, edit(FILE, "e\n", "E\nE\n", original=False))])
    assert out.counts.edit_unanchorable == 1 and out.holes[0].reason == "old region not known"
    known = dict(out.buffer.known())
    assert known == {1: "a", 2: "b", 3: "c", 9: "h", 10: ""}  # after the hole: shifted by 1
    assert all(text != "E" for text in known.values())


def test_guard_a_hunk_past_the_known_end_leaves_the_length_unknown() -> None:
    # the replay holds a\nb\n (three separator lines); an Edit with no originalFile patches
    # lines 4..5 of a longer file: the file grew outside the stream, so its end is unknown
    hunk = rp.Hunk(4, 2, 2, (" c", "-d", "+D"))
    out = replay([ev(1, write("a\nb\n")), ev(2, rp.Edit((hunk,), (rp.Replacement("d", "D"),)))])
    assert out.counts.edit_unanchorable == 1
    assert out.holes[0].reason == "hunk past the known end of the file"
    assert out.buffer.total is None and not out.buffer.complete
    assert dict(out.buffer.known()) == {1: "a", 2: "b"}  # the old empty last line is not


def test_a_hunk_that_ends_on_the_known_end_still_anchors() -> None:
    before, after = "a\nb\n", "a\nb"  # the final newline dropped: the hunk reaches line 3
    out = replay([ev(1, write(before)), ev(2, edit(before, "b\n", "b", original=False))])
    assert out.counts.edit_unanchorable == 0 and out.buffer.content() == after


def test_guard_patch_context_disagrees_clears_the_map() -> None:
    stale = FILE.replace("d", "D")
    out = replay([ev(1, full(stale)), ev(2, edit(FILE, "e\n", "E\n", original=False))])
    assert out.counts.edit_unanchorable == 1
    assert out.buffer.is_empty


def test_guard_string_not_located_keeps_only_the_safe_prefix() -> None:
    # the old text "d\ne" is not in the known lines; it could start inside line 4's tail
    out = replay([ev(1, window(FILE, 1, 4)), ev(2, window(FILE, 7, 2)),
                  ev(3, edit(FILE, "d\ne", "X", patch=False, original=False))])
    assert out.holes and out.buffer.known() == [(1, "a"), (2, "b"), (3, "c")]
    assert out.buffer.total == 8


def test_guard_string_seen_in_a_run_may_be_overlapped_from_the_unknown_lines() -> None:
    # Claude Code counts "y\ny" once in "x\nxy\ny\ny\n" (left to right, no overlap) and
    # replaces the one that begins at the end of line 2; the replay sees lines 3..5 only:
    # the "y\ny" they hold is not the one replaced, so it must not be rewritten there
    content = "x\nxy\ny\ny\n"
    out = replay([ev(1, rp.Window(3, ("y", "y", ""), None)), ev(2, rp.Window(1, ("x",), None)),
                  ev(3, rp.Edit((), (rp.Replacement("y\ny", ""),), None))])
    truth = split_content(content.replace("y\ny", "", 1))
    assert all(n <= len(truth) and truth[n - 1] == text for n, text in out.buffer.known())
    assert out.counts.edit_unanchorable == 1
    clean = replay([ev(1, rp.Window(4, ("q", "y", "y"), None)),
                    ev(2, rp.Edit((), (rp.Replacement("y\ny", "z"),), None))])
    assert clean.buffer.known() == [(4, "q"), (5, "z")]  # no newline in reach: placed


def test_a_new_text_claude_code_may_have_normalised_leaves_those_lines_unknown() -> None:
    # an Edit known only from its input: Claude Code strips the new text's trailing
    # blanks (outside markdown) in the versions that normalise it, not in the others
    rep = rp.Replacement("b\nc", "b  \nc2\nc3 ", alt="b\nc2\nc3")
    out = replay([ev(1, full(FILE)), ev(2, rp.Edit((), (rep,), None))]).buffer
    assert out.total == 10 and not out.complete
    assert out.known() == [(n, t) for n, t in enumerate(split_content(
        FILE.replace("b\nc", "b\nc2\nc3")), 1) if n not in (2, 4)]
    partial = replay([ev(1, window(FILE, 1, 4)), ev(2, rp.Edit((), (rep,), None))]).buffer
    assert partial.known() == [(1, "a"), (3, "c2"), (5, "d")]


def test_guard_string_twice_in_the_known_lines_clears() -> None:
    text = "x\ny\nx\n"
    out = replay([ev(1, window(text, 1, 3)),
                  ev(2, rp.Edit((), (rp.Replacement("x", "z"),), None))])
    assert out.holes and out.buffer.is_empty


def test_guard_insertion_with_an_unknown_neighbourhood() -> None:
    hunk = rp.Hunk(5, 0, 1, ("+new",))
    out = replay([ev(1, window(FILE, 1, 2)), ev(2, rp.Edit((hunk,), (), None))])
    assert out.holes and out.holes[0].reason == "neighbourhood not known"
    assert out.buffer.known() == [(1, "a"), (2, "b")]


def test_edit_creating_the_file_from_nothing() -> None:
    out = replay([ev(1, rp.Edit((), (rp.Replacement("", "new\n"),), None))])
    assert out.buffer.complete and out.buffer.content() == "new\n"


# -- boundaries --------------------------------------------------------------------------------


def test_modified_since_read_is_hard_and_invalidates() -> None:
    out = replay([ev(1, full(FILE)),
                  ev(2, rp.Integrity(rp.MODIFIED_SINCE_READ, "File has been modified since read")),
                  ev(3, window(FILE, 1, 2))])
    assert [b.cause for b in out.boundaries] == ["modified_since_read"]
    assert out.hard == 1 and out.fragments == 2 and out.boundaries[0].confidence == "authoritative"
    assert out.buffer.known() == [(1, "a"), (2, "b")]


def test_other_integrity_errors_are_counted_annotations() -> None:
    out = replay([ev(1, full(FILE))] + [
        ev(n, rp.Integrity(kind, "x")) for n, kind in
        enumerate((rp.NOT_READ_YET, rp.STRING_NOT_FOUND, rp.FILE_NOT_EXIST), 2)])
    assert out.counts.integrity_error == 3 and not out.boundaries and out.buffer.complete


def test_hint_and_external_edit_are_hard() -> None:
    out = replay([ev(1, full(FILE)), ev(2, rp.StaleHint("/p/a.txt"))])
    assert out.boundaries[0].cause == "hint_modified" and out.buffer.is_empty
    snippet = ((2, "B"), (3, "c"))
    out = replay([ev(1, full(FILE)), ev(2, rp.ExternalEdit(snippet))])
    assert out.boundaries[0].cause == "external_edit" and out.fragments == 2
    assert out.buffer.known() == [(2, "B"), (3, "c")]
    empty = replay([ev(1, full(FILE)), ev(2, rp.ExternalEdit(()))])
    assert "no snippet" in empty.boundaries[0].detail and empty.buffer.is_empty


def test_original_file_disagreement_is_soft_and_rebases() -> None:
    disk = FILE.replace("a", "A")  # a formatter ran between the read and the edit
    out = replay([ev(1, full(FILE)), ev(2, edit(disk, "e\n", "E\n"))])
    assert [b.cause for b in out.boundaries] == ["original_file_disagreement"]
    assert out.hard == 0 and out.soft == 1 and out.fragments == 1
    assert out.buffer.content() == disk.replace("e\n", "E\n")
    assert len(out.segments) == 2  # no diff spans the boundary


def test_stale_recovered_annotates_and_applies() -> None:
    out = replay([ev(1, full(FILE)), ev(2, edit(FILE, "e\n", "E\n", stale=True))])
    assert [b.cause for b in out.boundaries] == ["stale_recovered"]
    assert out.counts.stale_recovered == 1 and out.buffer.content() == FILE.replace("e", "E")


def test_bash_mutation_is_soft_and_keeps_the_buffer() -> None:
    out = replay([ev(1, full(FILE)), ev(2, rp.BashMutation("sed-i", "/p/a.txt", "absolute"))])
    b = out.boundaries[0]
    assert b.cause == "bash_mutation" and b.confidence == "heuristic" and out.fragments == 1
    assert out.buffer.complete


def test_bash_append_placed_or_unplaced() -> None:
    placed = replay([ev(1, full(FILE)), ev(2, rp.BashAppend("i\n"))])
    assert placed.buffer.content() == FILE + "i\n" and placed.counts.bash_write_anchor == 1
    bare = replay([ev(1, full("a\nb")), ev(2, rp.BashAppend("i\n"))])
    assert bare.boundaries[0].cause == "bash_append_unplaced"
    assert "not newline-terminated" in bare.boundaries[0].detail
    partial = replay([ev(1, window(FILE, 1, 2)), ev(2, rp.BashAppend("i\n"))])
    assert partial.boundaries[0].cause == "bash_append_unplaced"


def test_an_unplaced_append_leaves_the_end_of_the_file_unknown() -> None:
    # the bytes landed after the file's last line: that line (it had no newline) and the
    # length are not what the replay held any more; every line before the last is
    bare = replay([ev(1, full("a\nb")), ev(2, rp.BashAppend("c\n"))]).buffer
    assert not bare.complete and bare.known() == [(1, "a")] and bare.total is None
    tail = replay([ev(1, window(FILE, 6, 4)), ev(2, rp.BashAppend("x"))]).buffer
    assert tail.known() == [(6, "f"), (7, "g"), (8, "h")] and tail.total is None
    head = replay([ev(1, window(FILE, 1, 2)), ev(2, rp.BashAppend("x"))]).buffer
    assert head.known() == [(1, "a"), (2, "b")] and head.total is None
    unsized = replay([ev(1, rp.Window(3, ("c", "d"), None)), ev(2, rp.BashAppend("x"))]).buffer
    assert unsized.known() == [(3, "c")]  # line 4 may have been the last one


def test_history_version_jumps() -> None:
    quiet = replay([ev(1, full(FILE)), ev(2, rp.HistoryMarker(1)), ev(3, rp.HistoryMarker(2))])
    assert [b.cause for b in quiet.boundaries] == ["external_write"] and quiet.buffer.is_empty
    explained = replay([ev(1, rp.HistoryMarker(1)), ev(2, write(FILE)), ev(3, rp.HistoryMarker(1)),
                        ev(4, rp.HistoryMarker(2))])
    assert not explained.boundaries and explained.buffer.complete
    restart = replay([ev(1, full(FILE)), ev(2, rp.HistoryMarker(4)), ev(3, rp.HistoryMarker(1))])
    assert not restart.boundaries
    gone = replay([ev(1, rp.HistoryMarker(2, present=False)),
                   ev(2, rp.HistoryMarker(3, present=False))])  # no file then, none now
    assert not gone.boundaries
    rebased = replay([ev(1, full(FILE)), ev(2, rp.HistoryMarker(3, "z\n"))])
    assert rebased.boundaries[0].cause == "external_write" and rebased.buffer.content() == "z\n"


def test_a_call_without_a_result_lands_by_file_history() -> None:
    lost = rp.Unanswered("Write", write(FILE))
    before = rp.HistoryMarker(1, present=False, update=True)
    landed = [ev(1, before), ev(2, lost), ev(3, rp.HistoryMarker(2))]
    assert rp.landing(landed, 1)[0] is True
    out = replay(landed)
    assert out.buffer.complete and out.buffer.content() == FILE and out.counts.write == 1
    assert [(b.cause, b.hard) for b in out.boundaries] == [("result_missing", False)]
    # judged on the whole history: a cutoff before the version still replays it
    assert replay(landed, cutoff=2).buffer.content() == FILE
    # a pre-edit backup written after the call shows the state before it: skipped
    late_update = [ev(1, before), ev(2, lost), ev(3, rp.HistoryMarker(1, present=False,
                                                                       update=True)),
                   ev(4, rp.HistoryMarker(2))]
    assert rp.landing(late_update, 1)[0] is True
    kept = [ev(1, full(FILE)), ev(2, rp.HistoryMarker(3)), ev(3, rp.Unanswered("Write", write("x\n"))),
            ev(4, rp.HistoryMarker(3))]
    assert rp.landing(kept, 2)[0] is False
    assert replay(kept).buffer.content() == FILE
    for unknown in (
            [ev(1, lost)],  # no version at all
            [ev(1, before), ev(2, lost), ev(3, write("y\n")), ev(4, rp.HistoryMarker(2))],
            [ev(1, rp.HistoryMarker(5)), ev(2, lost), ev(3, rp.HistoryMarker(1))]):  # restart
        index = next(i for i, e in enumerate(unknown) if e.op is lost)
        assert rp.landing(unknown, index)[0] is None


def test_an_unconfirmed_call_keeps_only_what_both_outcomes_hold() -> None:
    changed = FILE.replace("c\n", "C\n")
    lost_edit = rp.Unanswered("Edit", edit(FILE, "c\n", "C\n", original=False))
    out = replay([ev(1, full(FILE)), ev(2, lost_edit)])
    assert [(b.cause, b.hard) for b in out.boundaries] == [("unconfirmed_write", True)]
    assert [n for n, _ in out.buffer.known()] == [1, 2, 4, 5, 6, 7, 8, 9]
    assert out.buffer.total == 9 and not out.buffer.complete
    longer = replay([ev(1, full(FILE)), ev(2, rp.Unanswered("Write", write("a\nb\n")))])
    assert longer.buffer.known() == [(1, "a"), (2, "b")] and longer.buffer.total is None
    created = replay([ev(1, rp.Unanswered("Write", write(changed)))])
    assert created.buffer.is_empty
    # a version rise after it may be the call's: never an external write on top
    later = replay([ev(1, full(FILE)), ev(2, rp.HistoryMarker(1)), ev(3, write(FILE)),
                    ev(4, lost_edit), ev(5, rp.HistoryMarker(2))])
    assert [b.cause for b in later.boundaries] == ["unconfirmed_write"]


def test_fragments_count_hard_boundaries_only() -> None:
    out = replay([ev(1, full(FILE)), ev(2, rp.BashMutation("rm", "/p", "absolute")),
                  ev(3, rp.StaleHint("/p")), ev(4, full(FILE)),
                  ev(5, rp.Integrity(rp.MODIFIED_SINCE_READ, "m")), ev(6, full(FILE))])
    assert (out.hard, out.soft, out.fragments) == (2, 1, 3)


def test_cutoff_is_inclusive() -> None:
    events = [ev(1, full(FILE)), ev(5, edit(FILE, "a", "A")), ev(9, write("z"))]
    assert replay(events, cutoff=4).buffer.content() == FILE
    assert replay(events, cutoff=5).buffer.content() == FILE.replace("a", "A")
    assert replay(events, cutoff=0).buffer.is_empty


# -- properties ---------------------------------------------------------------------------------

LINES = st.lists(st.sampled_from(["", "x", "y", "z", "xy", " x", "x\r"]), min_size=0, max_size=8)
CONTENT = st.builds(lambda lines, nl: "\n".join(lines) + ("\n" if nl and lines else ""),
                    LINES, st.booleans())


@st.composite
def clean_history(draw: st.DrawFn) -> tuple[list[Event], str]:
    content = draw(CONTENT)
    events: list[Event] = [ev(1, draw(st.sampled_from([full, write]))(content))]
    for n in range(2, draw(st.integers(1, 12)) + 2):
        kind = draw(st.sampled_from(["read", "write", "edit", "edit", "edit"]))
        if kind == "read":
            events.append(ev(n, full(content)))
        elif kind == "write":
            content = draw(CONTENT)
            events.append(ev(n, write(content)))
        else:
            after = draw(CONTENT)
            hunks = tuple(rp.Hunk(h["oldStart"], h["oldLines"], h["newLines"], tuple(h["lines"]))
                          for h in structured_patch(content, after))
            events.append(ev(n, rp.Edit(hunks, (), content if draw(st.booleans()) else None)))
            content = after
    return events, content


@given(clean_history())
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
def test_property_clean_history_restores_byte_for_byte(case: tuple[list[Event], str]) -> None:
    events, content = case
    out = replay(events)
    assert out.buffer.complete, out
    assert out.buffer.content() == content
    assert not out.boundaries and not out.holes


@st.composite
def truthful_history(draw: st.DrawFn) -> tuple[list[Event], list[str]]:
    """Events that tell the truth about a hidden file, or say that it changed; the second
    item is the true file after each event."""
    content = draw(CONTENT)
    events: list[Event] = []
    truths: list[str] = []
    for n in range(1, draw(st.integers(1, 14)) + 1):
        lines = split_content(content)
        kind = draw(st.sampled_from(["full", "window", "window", "write", "patch", "patch",
                                     "string", "string", "reported", "append"]))
        if kind == "full":
            op: rp.Op = full(content)
        elif kind == "window":
            start = draw(st.integers(1, len(lines)))
            op = rp.Window(start, lines[start - 1:start - 1 + draw(st.integers(1, 4))],
                           len(lines) if draw(st.booleans()) else None)
        elif kind == "write":
            content = draw(CONTENT)
            op = write(content)
        elif kind == "patch":
            after = draw(CONTENT)
            hunks = tuple(rp.Hunk(h["oldStart"], h["oldLines"], h["newLines"], tuple(h["lines"]))
                          for h in structured_patch(content, after))
            op = rp.Edit(hunks, (), content if draw(st.booleans()) else None)
            content = after
        elif kind == "string":
            if not content:
                continue
            a = draw(st.integers(0, len(content) - 1))
            b = draw(st.integers(a + 1, len(content)))
            old = content[a:b]
            if content.count(old) != 1:
                continue
            new = draw(st.sampled_from(["", "q", "q\n", "\nq", "x\ny", "q \n", "x \ny "]))
            # a new text known from the input only: Claude Code may have stripped each
            # line's trailing blanks before it wrote (the truth takes either spelling)
            alt = "\n".join(line.rstrip(" ") for line in new.split("\n"))
            op = rp.Edit((), (rp.Replacement(old, new, alt=alt if alt != new else None),), None)
            written = alt if draw(st.booleans()) else new
            content = content.replace(old, written, 1)  # Claude Code's rule: the first one
        elif kind == "append":
            text = draw(st.sampled_from(["q\n", "q", "x\ny\n"]))
            op = rp.BashAppend(text)
            content = content + text  # placed or not, the bytes went to the end of the file
        else:  # the file changed outside the stream, and Claude Code said so
            content = draw(CONTENT)
            op = draw(st.sampled_from([
                rp.Integrity(rp.MODIFIED_SINCE_READ, "m"), rp.StaleHint("/p"),
                rp.ExternalEdit(tuple((i, t) for i, t in enumerate(split_content(content), 1)
                                      if i % 2))]))
        events.append(ev(n, op))
        truths.append(content)
    return events, truths


@given(truthful_history())
@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
def test_property_a_replay_never_holds_a_line_the_file_did_not_have(
        case: tuple[list[Event], list[str]]) -> None:
    events, truths = case
    for k, truth in enumerate(truths, 1):
        buf = replay(events[:k]).buffer
        lines = split_content(truth)
        for n, text in buf.known():
            assert n <= len(lines) and lines[n - 1] == text, (k, n, text, lines)
        if buf.total is not None:
            assert buf.total == len(lines)
        if buf.complete:
            assert buf.content() == truth


# -- a write call the replay cannot read ------------------------------------------------------


def test_an_unreadable_edit_is_a_hole_over_the_whole_file() -> None:
    out = replay([ev(1, write(FILE)), ev(2, rp.Unreadable("MultiEdit", "no readable edits"))])
    assert out.buffer.is_empty and out.buffer.total is None  # every line, and the length
    assert (out.counts.write, out.counts.edit, out.counts.edit_unanchorable) == (1, 1, 1)
    [hole] = out.holes
    assert hole.event.line == 2 and hole.reason == "MultiEdit: no readable edits"
    [seg] = out.segments  # the segment shows the change
    assert seg.last.line == 2 and seg.end.is_empty
    # a read afterwards anchors the file again
    again = replay([ev(1, write(FILE)), ev(2, rp.Unreadable("Edit", "x")), ev(3, full("z\n"))])
    assert again.buffer.complete and again.buffer.content() == "z\n"
    # an unreadable Write counts as a write, and its hole too
    w = replay([ev(1, full(FILE)), ev(2, rp.Unreadable("Write", "its content is not a string"))])
    assert w.buffer.is_empty and (w.counts.write, w.counts.edit_unanchorable) == (1, 1)


def test_an_unreadable_call_without_a_result() -> None:
    lost = rp.Unanswered("MultiEdit", rp.Unreadable("MultiEdit", "no readable edits"))
    landed = replay([ev(1, full(FILE)), ev(2, rp.HistoryMarker(1)), ev(3, lost),
                     ev(4, rp.HistoryMarker(2))])
    assert landed.buffer.is_empty and len(landed.holes) == 1
    unknown = replay([ev(1, full(FILE)), ev(2, lost)])
    assert unknown.buffer.is_empty and unknown.buffer.total is None
    assert [b.cause for b in unknown.boundaries] == ["unconfirmed_write"]
    # an unreadable write between the call and the version is another write of the file
    other = rp.Unreadable("Edit", "no readable old and new strings")
    assert rp.landing([ev(1, rp.HistoryMarker(1)), ev(2, lost), ev(3, other),
                       ev(4, rp.HistoryMarker(2))], 1)[0] is None


def test_boundaries_record_the_segments_opened_before_them() -> None:
    snippet = rp.ExternalEdit(((1, "a"), (2, "B")))
    out = replay([ev(1, full(FILE)), ev(2, edit(FILE, "e\n", "E\n")), ev(3, snippet),
                  ev(4, edit(FILE, "f\n", "F\n", original=False, patch=False, stale=True))])
    assert [s.first.line for s in out.segments] == [1, 3]
    # the external edit opens segment 2 at its own line: it comes after segment 1 only;
    # the stale_recovered note annotates an edit inside segment 2
    assert [(b.cause, b.after_segment) for b in out.boundaries] == [
        ("external_edit", 1), ("stale_recovered", 2)]
