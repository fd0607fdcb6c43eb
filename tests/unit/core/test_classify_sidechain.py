"""A subagent's record Claude Code wrote into a MAIN transcript (``isSidechain:true``: the
"Warmup" agent of 2.0.x, a Task subagent's prompt in 1.x) is the subagent's, not the
human's: it opens no turn, it is no ``user.message`` but the prompt the subagent received
(``agent.communication.inbox``, self ⇨ ?), and it is nobody's message in a preview. In a
subagent transcript, where every record carries the flag, nothing changes (SPEC §4,
decided in the twenty-second session)."""

from __future__ import annotations

from typing import Any

from pysift.core import classify as C
from pysift.core.classify import ClassifyContext
from pysift.model import labels as L
from pysift.model.record import Record

MAIN = ClassifyContext(owner_id="sess")
LANE = ClassifyContext(owner_id="agent-abc", is_subagent=True, parent_id="sess")


def user(content: Any, line: int | None = 1, **envelope: Any) -> Record:
    return Record({"type": "user", "uuid": "u", "parentUuid": None,
                   "message": {"role": "user", "content": content}, **envelope}, line)


def test_a_warmup_prompt_in_a_main_transcript_is_the_subagent_s_inbox() -> None:
    warmup = user("Warmup", isSidechain=True)
    assert C.is_genuine_user(warmup)  # the shape of a prompt ...
    assert C.in_sidechain(warmup, subagent=False)
    assert not C.opens_turn(warmup, subagent=False)  # ... that is no turn of the session
    assert C.classify(warmup, MAIN) == [L.AGENT_COMM_INBOX]
    [unit] = C.units(warmup, MAIN)
    assert (unit.label, unit.from_, unit.to, unit.text) == (L.AGENT_COMM_INBOX, "self", "?",
                                                            "Warmup")
    assert C.human_message(warmup, MAIN) is None
    assert C.human_message(warmup) is None  # the default context is a main transcript's
    assert C.units(warmup, MAIN, lambda leaf: leaf == L.USER_MESSAGE) == []


def test_the_same_record_in_a_subagent_transcript_is_as_before() -> None:
    prompt = user("Find every caller of parse()", isSidechain=True, agentId="abc")
    assert not C.in_sidechain(prompt, subagent=True)
    assert C.opens_turn(prompt, subagent=True)
    assert C.classify(prompt, LANE) == [L.USER_MESSAGE]  # (no seed named: not the seed)
    seed_ctx = ClassifyContext(owner_id="agent-abc", is_subagent=True, parent_id="sess",
                               seed_line=1)
    [unit] = C.units(prompt, seed_ctx)
    assert (unit.label, unit.from_, unit.to) == (L.AGENT_COMM_INBOX, "sess", "self")
    assert C.human_message(prompt, LANE) == "Find every caller of parse()"


def test_only_a_true_flag_makes_a_record_the_subagent_s() -> None:
    for envelope in ({}, {"isSidechain": False}, {"isSidechain": "true"}, {"isSidechain": 1}):
        prompt = user("configure the linter", **envelope)
        assert C.opens_turn(prompt, subagent=False), envelope
        assert C.classify(prompt, MAIN) == [L.USER_MESSAGE], envelope
        assert C.human_message(prompt, MAIN) == "configure the linter", envelope


def test_a_subagent_s_other_user_records_keep_their_labels_and_open_no_turn() -> None:
    blocks = [{"type": "text", "text": "List every lint config"}]
    prompt = user(blocks, isSidechain=True)
    assert C.classify(prompt, MAIN) == [L.AGENT_COMM_INBOX]
    assert not C.opens_turn(prompt, subagent=False)
    slash = user("<command-message>review</command-message>\n<command-name>/review</command-name>"
                 "\n<command-args>the diff</command-args>", isSidechain=True)
    assert C.classify(slash, MAIN) == [L.HARNESS_COMMAND_INVOCATION]
    assert C.classify(slash, LANE) == [L.USER_MESSAGE, L.HARNESS_COMMAND_INVOCATION]
    interrupt = user("[Request interrupted by user]", isSidechain=True)
    assert C.classify(interrupt, MAIN) == [L.HARNESS_INTERRUPT_USER]
    meta = user("a hook said so", isSidechain=True, isMeta=True)
    assert C.classify(meta, MAIN) == []  # an isMeta record matching no marker: empty, as ever
    rejected = Record({"type": "user", "isSidechain": True, "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "is_error": True,
         "content": "The user doesn't want to proceed with this tool use. The tool use was "
                    "rejected. To tell you how to proceed, the user said:\nuse tabs"}]}}, 1)
    # the human's typed words to the subagent: its label stays, but no turn of the session
    assert C.classify(rejected, MAIN) == [L.USER_REJECTION, L.AGENT_TOOL_RESULT]
    assert not C.opens_turn(rejected, subagent=False)
    assert C.opens_turn(rejected, subagent=True)
    assert C.human_message(rejected, MAIN) is None
