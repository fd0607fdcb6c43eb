"""``core.queued``: the queue's pairing of typed prompts with their fates, and what a
torn queue-operation line still says (shared by verbatim and the fold index)."""

from __future__ import annotations

from pysift.core.queued import (
    DELIVERED,
    Entry,
    queued_prompts,
    said_key,
    timeline,
    torn_operations,
)


def _q(*entries: tuple[int, str, str | None]) -> list[Entry]:
    """A queue's entries, each keyed by its words as the engines key them."""
    return [(offset, op, words, said_key(words)) for offset, op, words in entries]


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
    assert queued_prompts(_q(*queue)) == [(5, "folded")]


def test_a_torn_enqueue_is_recalled_or_kept_by_a_popall_as_either_may_be() -> None:
    """A popAll recalls the human's waiting entries and keeps a harness rider: a torn
    enqueue may have been either, so the removal after it folds in a prompt only when
    both readings agree."""
    queue = [(1, "~enqueue", None), (2, "popAll", None), (3, "enqueue", "retyped"),
             (4, "remove", None)]
    assert queued_prompts(_q(*queue)) == []  # the rider kept would be the one removed
    sure = [(1, "~enqueue", None), (2, "remove", None), (3, "popAll", None),
            (4, "enqueue", "retyped"), (5, "remove", None)]
    assert queued_prompts(_q(*sure)) == [(4, "retyped")]


def test_a_lost_operation_folds_in_only_what_every_reading_folds() -> None:
    queue = [(1, "enqueue", "first"), (2, "~", None), (3, DELIVERED, "delivered words"),
             (4, "remove", None)]
    assert queued_prompts(_q(*queue)) == [(3, "delivered words")]
    # a remove or an enqueue would fold "first" in; a dequeue or a popAll would not
    assert queued_prompts(_q((1, "enqueue", "first"), (2, "remove", None), (3, "~", None))) == [
        (1, "first")]


def test_too_many_lost_operations_pair_the_queue_up_to_the_one_past_the_limit() -> None:
    """Past 256 readings the queue is paired up to the torn line that passes them; the
    delivered attachments after it still stand (they pair with nothing)."""
    head = [(1, "enqueue", "early"), (2, "remove", None)]
    torn = [(10 + k, "~", None) for k in range(5)]  # 4**5 readings
    tail = [(20, "enqueue", "late"), (21, "remove", None), (22, DELIVERED, "attached")]
    assert queued_prompts(_q(*head, *torn, *tail)) == [(1, "early"), (22, "attached")]


def test_a_rider_delivered_on_its_own_leaves_the_line() -> None:
    """Claude Code delivers a task notification queued while the agent worked as a user
    record of its own once the agent stops, and writes no dequeue: the record's words
    name the entry, which leaves the line, so the next removal takes the human's
    prompt (it took the rider, and the prompt after it waited forever)."""
    note = "<task-notification>\n<task-id>b1</task-id>\n</task-notification>"
    queue = timeline(_q((1, "enqueue", note), (5, "enqueue", "in French"), (6, "remove", None)),
                     [], [(3, said_key(note) or b"")], [2, 4])
    assert queued_prompts(queue) == [(5, "in French")]


def test_an_opener_whose_words_wait_in_line_was_that_prompt_sent() -> None:
    """A prompt sent as a turn of its own whose dequeue is missing: the opener's words
    name it, so the next removal takes the prompt folded after it rather than listing
    the sent one again."""
    queue = timeline(_q((1, "enqueue", "and commit"), (4, "enqueue", "and tag it"),
                        (5, "remove", None)),
                     [(2, said_key("and  commit\n"))], [], [3])
    assert queued_prompts(queue) == [(4, "and tag it")]


def test_a_prompt_still_waiting_when_the_next_turn_opens_is_listed_once() -> None:
    """Its removal is missing: the agent wrote after it and a turn opened, so Claude
    Code had folded (or sent) it by then. It is listed, and the prompts after it pair
    with their own removals; without the opener nothing resynchronises, and the last
    prompt waits unlisted as before."""
    entries = _q((1, "enqueue", "also the lexer"), (5, "enqueue", "in French"),
                 (6, "remove", None), (8, "enqueue", "and the docs"), (9, "remove", None))
    queue = timeline(entries, [(3, said_key("now the parser"))], [], [2, 7])
    assert queued_prompts(queue) == [(1, "also the lexer"), (5, "in French"),
                                     (8, "and the docs")]
    assert queued_prompts(timeline(entries, [], [], [2, 7])) == [
        (1, "also the lexer"), (5, "in French")]
    # typed after the agent last wrote, it may wait for the turn that opens (a race)
    assert queued_prompts(timeline(_q((3, "enqueue", "late"), (5, "dequeue", None)),
                                   [(4, said_key("now"))], [], [2])) == []


def test_an_attachment_names_the_entry_it_delivered() -> None:
    """An enqueue and the attachment delivering it carry the same words: the prompt is
    listed once, at its enqueue, whether its removal came before the attachment or
    after (each prompt of a batch printed twice). A removal carrying words (newer
    builds) takes the entry they name."""
    queue = _q((1, "enqueue", "in French"), (2, "enqueue", "with examples"),
               (3, DELIVERED, "in French"), (4, "remove", None), (5, "remove", None),
               (6, DELIVERED, "with examples"))
    assert queued_prompts(timeline(queue, [], [], [])) == [(1, "in French"),
                                                            (2, "with examples")]
    named = _q((1, "enqueue", "sent later"), (2, "enqueue", "folded"),
               (3, "remove", "folded"), (4, "dequeue", None))
    assert queued_prompts(timeline(named, [], [], [])) == [(2, "folded")]


def test_two_prompts_that_open_alike_are_two_prompts() -> None:
    """The fold index keys an entry by its whole words but lists its first line: two
    prompts typed in a row whose first lines match are two prompts (an observer's notes
    that all open `Observation:` were one), and the same words twice in a row stay one."""
    queue: list[Entry] = [
        (1, "enqueue", "Observation:", said_key("Observation:\nthe build is red")),
        (2, "enqueue", "Observation:", said_key("Observation:\nthe lexer is slow")),
        (3, "remove", None, None), (4, "remove", None, None)]
    assert queued_prompts(queue) == [(1, "Observation:"), (2, "Observation:")]
    again = _q((1, "enqueue", "run the tests"), (2, "enqueue", "run the tests"),
               (3, "remove", None), (4, "remove", None))
    assert queued_prompts(again) == [(1, "run the tests")]
