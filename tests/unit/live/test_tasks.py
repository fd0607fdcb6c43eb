"""The session's task list: how open tasks are ordered (SPEC §11c)."""

from __future__ import annotations

from pysift.live.tasks import Task, _order


def test_numbered_tasks_come_first_and_an_id_in_other_digits_is_a_name() -> None:
    """`str.isdigit` takes `³`, which `int` refuses: the ordering crashed on such an id;
    it now sorts after the numbered ones, by its text."""
    tasks = [Task("\u00b3", "s", "pending", ()), Task("10", "s", "pending", ()),
             Task("2", "s", "pending", ()), Task("\u0663", "s", "in_progress", ())]
    assert [t.id for t in sorted(tasks, key=_order)] == ["\u0663", "2", "10", "\u00b3"]
