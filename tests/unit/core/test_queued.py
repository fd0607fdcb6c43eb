"""``core.queued``: the queue's pairing of typed prompts with their fates, and what a
torn queue-operation line still says (shared by verbatim and the fold index)."""

from __future__ import annotations

from pysift.core.queued import DELIVERED, queued_prompts, torn_operations


def test_a_torn_line_names_its_operation_in_either_layout() -> None:
    assert torn_operations(b'{"type":"queue-operation","operation":"enqueue","timesta') == [
        "~enqueue"]
    assert torn_operations(b'{"type": "queue-operation", "operation": "remove", "ti') == [
        "~remove"]
    assert torn_operations(b'{"type":"queue-operation","operation":"deq') == ["~"]
    assert torn_operations(b'{"type":"user","message":{"content":"a') == []


def test_two_records_run_together_are_two_entries() -> None:
    """A line cut mid-write with the next record written onto it holds both: the cut
    one's operation and the whole one's, in order."""
    glued = (b'{"type":"queue-operation","operation":"enqueue","content":"fix th'
             b'{"type":"queue-operation","operation":"remove","timestamp":"t"}')
    assert torn_operations(glued) == ["~enqueue", "~remove"]
    cut_early = (b'{"type":"queue-operation","oper'
                 b'{"type":"queue-operation","operation":"dequeue"}')
    assert torn_operations(cut_early) == ["~", "~dequeue"]


def test_a_torn_enqueue_keeps_its_place_in_line() -> None:
    queue = [(1, "~enqueue", None), (2, "enqueue", "sent on its own"), (3, "remove", None),
             (4, "dequeue", None), (5, "enqueue", "folded"), (6, "remove", None)]
    assert queued_prompts(queue) == [(5, "folded")]


def test_a_torn_enqueue_is_recalled_or_kept_by_a_popall_as_either_may_be() -> None:
    """A popAll recalls the human's waiting entries and keeps a harness rider: a torn
    enqueue may have been either, so the removal after it folds in a prompt only when
    both readings agree."""
    queue = [(1, "~enqueue", None), (2, "popAll", None), (3, "enqueue", "retyped"),
             (4, "remove", None)]
    assert queued_prompts(queue) == []  # the rider kept would be the one removed
    sure = [(1, "~enqueue", None), (2, "remove", None), (3, "popAll", None),
            (4, "enqueue", "retyped"), (5, "remove", None)]
    assert queued_prompts(sure) == [(4, "retyped")]


def test_a_lost_operation_folds_in_only_what_every_reading_folds() -> None:
    queue = [(1, "enqueue", "first"), (2, "~", None), (3, DELIVERED, "delivered words"),
             (4, "remove", None)]
    assert queued_prompts(queue) == [(3, "delivered words")]
    # a remove or an enqueue would fold "first" in; a dequeue or a popAll would not
    assert queued_prompts([(1, "enqueue", "first"), (2, "remove", None), (3, "~", None)]) == [
        (1, "first")]


def test_too_many_lost_operations_pair_the_queue_up_to_the_one_past_the_limit() -> None:
    """Past 256 readings the queue is paired up to the torn line that passes them; the
    delivered attachments after it still stand (they pair with nothing)."""
    head = [(1, "enqueue", "early"), (2, "remove", None)]
    torn = [(10 + k, "~", None) for k in range(5)]  # 4**5 readings
    tail = [(20, "enqueue", "late"), (21, "remove", None), (22, DELIVERED, "attached")]
    assert queued_prompts(head + torn + tail) == [(1, "early"), (22, "attached")]
