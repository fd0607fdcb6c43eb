"""The fold index's harvest bookkeeping, held to a plain reading of its rules."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pysift.seedindex import extract
from pysift.seedindex.extract import Harvest, _Harvested

_LINES = st.lists(st.lists(st.sampled_from([f"error {n}" for n in range(12)]), max_size=9),
                  max_size=12)


def _newest_by_last_place(outputs: list[list[str]], cap: int) -> tuple[list[str], int]:
    """The rule as written: the ``cap`` distinct lines whose last occurrence is newest,
    listed in the order they first occurred; the count of the other distinct lines."""
    flat = [line for output in outputs for line in output]
    last = {line: at for at, line in enumerate(flat)}
    first = {line: at for at, line in reversed(list(enumerate(flat)))}
    kept = sorted(last, key=last.__getitem__, reverse=True)[:cap]
    return sorted(kept, key=first.__getitem__), len(last) - len(kept)


@given(_LINES, st.integers(min_value=0, max_value=14))
def test_errors_keep_the_newest_distinct_lines_in_first_seen_order(
        outputs: list[list[str]], cap: int) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(extract, "ERRORS_CAP", cap)
        harvested = _Harvested()
        for output in outputs:
            harvested.add(Harvest(len(output), output, []))
        assert harvested.errors() == _newest_by_last_place(outputs, cap)


def test_a_line_seen_again_late_is_kept_over_newer_ones_seen_once() -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(extract, "ERRORS_CAP", 2)
        harvested = _Harvested()
        for output in (["error A"], ["error B"], ["error C"], ["error A"]):
            harvested.add(Harvest(7, output, []))
        assert harvested.errors() == (["error A", "error C"], 1)


def _session_with_outputs_around_a_boundary(compacted: bool) -> bytes:
    from builders import Session, assistant, compact_boundary, tool_result, tool_use, user

    s = Session("44444444-4444-4444-8444-444444444444", cwd="/w/p")
    s.add(user("run it"))
    s.add(assistant(tool_use("Bash", {"command": "make"}, id="toolu_before")))
    s.add(tool_result("toolu_before", "error: BEFORE_TOKEN in src/before.py"))
    if compacted:
        s.add(compact_boundary(120000))
    s.add(user("again"))
    s.add(assistant(tool_use("Bash", {"command": "make"}, id="toolu_after")))
    s.add(tool_result("toolu_after", "error: AFTER_TOKEN in src/after.py"))
    return s.lines()


def test_no_output_after_the_last_boundary_is_harvested() -> None:
    """No record lists what follows the last boundary, so it is never harvested; its
    span is still read (a span's part numbers and ids stay whole)."""
    facts = extract.scan_range(_session_with_outputs_around_a_boundary(compacted=True),
                               subagent=False)
    assert [h.identifiers for _, h in facts.harvests] == [["BEFORE_TOKEN"]]
    assert [p for _, p in facts.paths] == ["src/before.py"]
    assert [s[1] for s in facts.spans] == ["r:toolu_before", "r:toolu_after"]


def test_a_transcript_that_never_compacted_harvests_nothing() -> None:
    facts = extract.scan_range(_session_with_outputs_around_a_boundary(compacted=False),
                               subagent=False)
    assert facts.harvests == [] and facts.paths == []
    assert len(facts.spans) == 2


def test_a_subagent_s_prompt_in_a_main_transcript_is_no_user_message() -> None:
    """Claude Code 1.x wrote a Task subagent's prompt into the session file
    (``isSidechain:true``): the fold index's userMessages and turns leave it out there; a
    subagent transcript, every record flagged, keeps it."""
    from builders import Session, assistant, tool_result, tool_use, user

    s = Session("45454545-4444-4444-8444-444444444444", cwd="/w/p")
    s.add(user("run it"))
    s.add(assistant(tool_use("Task", {"prompt": "find the flaky test"}, id="toolu_task")))
    s.add(user("find the flaky test", isSidechain=True), parent=None)
    s.add(assistant("test_clock", isSidechain=True))
    s.add(tool_result("toolu_task", "test_clock"))
    s.add(user("fix it"))
    main = extract.scan_range(s.lines(), subagent=False)
    assert [said for _, said in main.users] == ["run it", "fix it"]
    assert len(main.openers) == 2
    lane = extract.scan_range(s.lines(), subagent=True)
    assert [said for _, said in lane.users] == ["run it", "find the flaky test", "fix it"]
