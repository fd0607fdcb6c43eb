"""Record semantics: genuine user, turn openers, the 34-leaf classifier and its units."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pysift.core import classify as C
from pysift.core.classify import ClassifyContext, Unit
from pysift.model import labels as L
from pysift.model.record import Record

# ---------------------------------------------------------------------------------------
# Builders that read like a transcript
# ---------------------------------------------------------------------------------------

_line = iter(range(1, 10**9))


def rec(raw: dict[str, Any], line: int | None = None) -> Record:
    return Record(raw, next(_line) if line is None else line)


def user(content: Any, line: int | None = None, **envelope: Any) -> Record:
    return rec({"type": "user", "uuid": "u", "parentUuid": "p",
                "message": {"role": "user", "content": content}, **envelope}, line)


def assistant(*blocks: dict[str, Any], **envelope: Any) -> Record:
    return rec({"type": "assistant", "uuid": "a",
                "message": {"role": "assistant", "content": list(blocks)}, **envelope})


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def thinking(value: str, signature: str | None = None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "thinking", "thinking": value}
    if signature is not None:
        block["signature"] = signature
    return block


def tool_use(name: str, payload: Any, use_id: str = "toolu_1") -> dict[str, Any]:
    return {"type": "tool_use", "id": use_id, "name": name, "input": payload}


def result(use_id: str, content: Any, is_error: bool | None = None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": use_id, "content": content}
    if is_error is not None:
        block["is_error"] = is_error
    return block


def carrier(*results: dict[str, Any], tool_use_result: Any = None) -> Record:
    raw: dict[str, Any] = {"type": "user", "uuid": "c", "parentUuid": "a",
                           "message": {"role": "user", "content": list(results)}}
    if tool_use_result is not None:
        raw["toolUseResult"] = tool_use_result
    return rec(raw)


def system(subtype: str | None, **fields: Any) -> Record:
    raw: dict[str, Any] = {"type": "system", "uuid": "s", **fields}
    if subtype is not None:
        raw["subtype"] = subtype
    return rec(raw)


def line(kind: str, **fields: Any) -> Record:
    return rec({"type": kind, **fields})


def labels_of(record: Record, ctx: ClassifyContext | None = None) -> list[str]:
    return C.classify(record, ctx)


def one_unit(record: Record, ctx: ClassifyContext | None = None, select=None) -> Unit:
    found = C.units(record, ctx, select)
    assert len(found) == 1, found
    return found[0]


def only(*leaves: str):
    return lambda leaf: leaf in leaves


GATED_ALL = ClassifyContext(gates=frozenset(L.GATED))

# ---------------------------------------------------------------------------------------
# §4.1 genuine user and the four turn openers
# ---------------------------------------------------------------------------------------


def test_plain_prose_is_the_human_and_opens_a_turn() -> None:
    record = user("please fix the login bug")
    assert C.is_genuine_user(record) and C.opens_turn(record, subagent=False)
    assert labels_of(record) == [L.USER_MESSAGE]
    assert one_unit(record).text == "please fix the login bug"


def test_text_block_prose_is_the_human_and_renders_normalized() -> None:
    record = user([text("first line\n\n  second"), {"type": "image", "source": {}}])
    assert C.is_genuine_user(record)
    unit = one_unit(record)
    assert (unit.label, unit.text) == (L.USER_MESSAGE, "first line second")


def test_tool_result_carrier_is_not_the_human() -> None:
    record = carrier(result("toolu_1", "file contents"))
    assert not C.is_genuine_user(record) and not C.opens_turn(record, subagent=False)
    unit = one_unit(record)
    assert (unit.label, unit.text, unit.is_error, unit.tool_use_id) == (
        L.AGENT_TOOL_RESULT, "file contents", False, "toolu_1")


def test_is_meta_pseudo_turn_with_no_marker_classifies_empty() -> None:
    record = user("Some injected reminder the human never typed", isMeta=True)
    assert not C.is_genuine_user(record) and not C.opens_turn(record, subagent=False)
    assert labels_of(record) == [] and C.units(record) == []


def test_is_meta_image_reference_is_excluded() -> None:
    assert labels_of(user("[Image: source: /tmp/x.png]", isMeta=True)) == []
    # typed by the human (no isMeta), the same opening is their message: it opens a turn,
    # so search must be able to find it
    assert labels_of(user("[Image: source: /tmp/x.png] why is this red?")) == ["user.message"]


def test_the_opener_test_and_the_labels_read_the_same_text() -> None:
    """Hand-made shapes where they once disagreed: each record either opens a turn and
    carries a user label, or does neither."""
    interrupt_then_blank = user([text("[Request interrupted by user]"), text("  ")])
    assert C.opens_turn(interrupt_then_blank, subagent=False)
    assert labels_of(interrupt_then_blank) == ["user.message"]
    summary_quoting_a_peer = user('<teammate-message teammate_id="x">\nquoted\n'
                                  "</teammate-message>\nrest of summary",
                                  isCompactSummary=True)
    assert not C.opens_turn(summary_quoting_a_peer, subagent=False)
    assert labels_of(summary_quoting_a_peer) == ["harness.compaction.summary"]


def test_compaction_summary_is_harness_and_never_opens() -> None:
    record = user("This session is being continued from a previous conversation…",
                  isCompactSummary=True, isVisibleInTranscriptOnly=True)
    assert not C.opens_turn(record, subagent=False)
    unit = one_unit(record)
    assert unit.label == L.HARNESS_COMPACTION_SUMMARY
    assert unit.text.startswith("This session is being continued")


@pytest.mark.parametrize(
    ("body", "leaf"),
    [("[Request interrupted by user]", L.HARNESS_INTERRUPT_USER),
     ("[Request interrupted by user for tool use]", L.HARNESS_INTERRUPT_TOOL)],
)
def test_interrupt_markers_match_exactly(body: str, leaf: str) -> None:
    for record in (user(body), user([text(body)])):
        assert labels_of(record) == [leaf]
        assert not C.opens_turn(record, subagent=False)


def test_a_message_quoting_the_interrupt_phrase_stays_the_human() -> None:
    for body in ("why did I see [Request interrupted by user] here?",
                 "[Request interrupted by user] twice"):
        record = user(body)
        assert C.opens_turn(record, subagent=False) and labels_of(record) == [L.USER_MESSAGE]


def test_local_command_stdout_is_harness_output() -> None:
    record = user("<local-command-stdout>See ya!</local-command-stdout>")
    assert labels_of(record) == [L.HARNESS_COMMAND_STDOUT]
    assert not C.opens_turn(record, subagent=False)


OLD_ORDER_ARGS = ("<command-name>/review</command-name>\n"
                  "<command-message>review</command-message>\n"
                  "<command-args>the auth   module</command-args>")
NEW_ORDER_ARGS = ("<command-message>review is running…</command-message>\n"
                  "<command-name>/review</command-name>\n"
                  "<command-args>the auth module</command-args>")
OLD_ORDER_BARE = "<command-name>/clear</command-name>\n<command-message>clear</command-message>"
NEW_ORDER_BARE = ("<command-message>clear</command-message>\n<command-name>/clear</command-name>\n"
                  "<command-args></command-args>")


@pytest.mark.parametrize("body", [OLD_ORDER_ARGS, NEW_ORDER_ARGS])
def test_slash_command_with_args_renders_the_typed_command_line(body: str) -> None:
    record = user(body)
    assert not C.opens_turn(record, subagent=False)
    assert labels_of(record) == [L.USER_MESSAGE, L.HARNESS_COMMAND_INVOCATION]
    unit = one_unit(record)
    assert (unit.label, unit.text) == (L.USER_MESSAGE, "/review the auth module")
    assert C.slash_command_name(record) == "/review the auth module"
    assert C.slash_command_parts(record) == ("/review", "the auth module")
    wrapper = one_unit(record, select=only(L.HARNESS_COMMAND_INVOCATION))
    assert (wrapper.label, wrapper.text) == (L.HARNESS_COMMAND_INVOCATION, body)


@pytest.mark.parametrize("body", [OLD_ORDER_BARE, NEW_ORDER_BARE])
def test_slash_command_without_args_is_invocation_only(body: str) -> None:
    record = user(body)
    assert labels_of(record) == [L.HARNESS_COMMAND_INVOCATION]
    assert not C.opens_turn(record, subagent=False)
    assert C.slash_command_name(record) == "/clear"
    assert one_unit(record).text == body


# ---------------------------------------------------------------------------------------
# AskUserQuestion answers (§4.4) and rejections (§4.2.4)
# ---------------------------------------------------------------------------------------

QUESTION = "Which database should we use?"
AUQ_RESULT = {
    "questions": [{"question": QUESTION, "header": "Storage", "multiSelect": False,
                   "options": [{"label": "Postgres", "description": "relational"},
                               {"label": "SQLite", "description": "embedded"}]}],
    "answers": {QUESTION: "Postgres, but keep SQLite for tests"},
}
AUQ_MARKER = f'User has answered your questions: "{QUESTION}"="Postgres". You can now continue.'


def test_auq_answer_opens_a_turn_and_renders_question_options_answer() -> None:
    record = carrier(result("toolu_q", AUQ_MARKER), tool_use_result=AUQ_RESULT)
    assert C.is_auq_answer_boundary(record) and C.opens_turn(record, subagent=False)
    assert not C.is_genuine_user(record)
    assert labels_of(record) == [L.USER_ANSWER, L.AGENT_TOOL_RESULT]
    assert C.auq_exchange(record) == (
        "[AskUserQuestion · 1 question]\n"
        "Q1 (Storage): Which database should we use? options: Postgres | SQLite\n"
        "A1: Postgres, but keep SQLite for tests")
    unit = one_unit(record)
    assert unit.label == L.USER_ANSWER
    assert unit.text.startswith("[AskUserQuestion · 1 question] Q1 (Storage):")
    plain = one_unit(record, select=only(L.AGENT_TOOL_RESULT))
    assert (plain.label, plain.text, plain.is_error) == (L.AGENT_TOOL_RESULT, AUQ_MARKER, False)


def test_auq_answer_without_structured_echo_falls_back_to_the_marker() -> None:
    for marker in C.AUQ_ANSWER_MARKERS:
        record = carrier(result("toolu_q", f'{marker}: "Q"="A".'))
        assert C.opens_turn(record, subagent=False)
        assert C.auq_exchange(record) == f'[AskUserQuestion] {marker}: "Q"="A".'


def test_auq_notes_only_answer_keeps_the_users_prose() -> None:
    echo = {"questions": [{"question": "Q?", "options": []}], "answers": {"Q?": "(notes only)"},
            "annotations": {"Q?": {"notes": "do it the other way"}}}
    record = carrier(result("toolu_q", "User has answered your questions: ..."),
                     tool_use_result=echo)
    assert "note: do it the other way" in (C.auq_exchange(record) or "")


def test_cancelled_or_unanswered_auq_is_not_a_boundary() -> None:
    errored = carrier(result("toolu_q", AUQ_MARKER, is_error=True), tool_use_result=AUQ_RESULT)
    unanswered = carrier(result("toolu_q", "The user did not answer the questions."))
    quoted = carrier(result("toolu_r", f"grep output: {AUQ_MARKER}"))
    for record in (errored, unanswered, quoted):
        assert not C.opens_turn(record, subagent=False)
        assert labels_of(record) == [L.AGENT_TOOL_RESULT]


REJECT = "The user doesn't want to proceed with this tool use. The tool use was rejected."


def test_rejection_with_typed_message_opens_a_turn_with_plan_pointer() -> None:
    body = f"{REJECT} To tell you how to proceed, the user said:\n  split the plan into two PRs \n"
    record = carrier(result("toolu_plan", body, is_error=True))
    assert C.rejection_message(record) == "split the plan into two PRs"
    assert C.opens_turn(record, subagent=False)
    assert labels_of(record) == [L.USER_REJECTION, L.AGENT_TOOL_RESULT]
    ctx = ClassifyContext(plan_index={"toolu_plan": "/home/me/.claude/plans/p.md"})
    unit = one_unit(record, ctx)
    assert (unit.label, unit.text) == (
        L.USER_REJECTION, "split the plan into two PRs [plan: /home/me/.claude/plans/p.md]")
    raw = one_unit(record, ctx, select=only(L.AGENT_TOOL_RESULT))
    assert (raw.label, raw.is_error) == (L.AGENT_TOOL_RESULT, True)


def test_rejection_without_message_is_only_a_result() -> None:
    body = f"{REJECT} STOP what you are doing and wait for the user to tell you how to proceed."
    record = carrier(result("toolu_x", body, is_error=True))
    assert C.rejection_message(record) is None and not C.opens_turn(record, subagent=False)
    assert labels_of(record) == [L.AGENT_TOOL_RESULT]


def test_plan_approval_is_not_a_boundary() -> None:
    record = carrier(result("toolu_plan", "User has approved your plan. You can now start coding."))
    assert not C.opens_turn(record, subagent=False)


# ---------------------------------------------------------------------------------------
# Peer messages, spawns, comm directions (§5.2, §5.3)
# ---------------------------------------------------------------------------------------

TEAMMATE = ('<teammate-message teammate_id="team-lead" summary="go">\n'
            "Take task 7, please.\n</teammate-message>")


def test_teammate_message_at_start_is_inbox_from_the_sender_and_opens_a_turn() -> None:
    record = user(TEAMMATE)
    assert not C.is_genuine_user(record)
    assert C.is_peer_message_record(record) and C.opens_turn(record, subagent=False)
    unit = one_unit(record, ClassifyContext(owner_id="sess-1"))
    assert (unit.label, unit.from_, unit.to) == (L.AGENT_COMM_INBOX, "team-lead", "self")
    assert "Take task 7, please." in unit.text


@pytest.mark.parametrize("preamble", C.PEER_MESSAGE_PREAMBLES)
def test_agent_message_after_any_relay_preamble_is_inbox(preamble: str) -> None:
    record = user(f'{preamble}\n<agent-message from="architect">ship it</agent-message>\n\nfooter',
                  isMeta=True)
    assert C.opens_turn(record, subagent=False)
    unit = one_unit(record)
    assert (unit.label, unit.from_, unit.to) == (L.AGENT_COMM_INBOX, "architect", "self")


def test_peer_tag_quoted_mid_prose_stays_the_human() -> None:
    record = user("How should we parse <teammate-message teammate_id=\"x\"> tags here?")
    assert C.is_genuine_user(record) and not C.is_peer_message_record(record)
    assert labels_of(record) == [L.USER_MESSAGE]


def test_teammate_control_payload_is_a_signal() -> None:
    record = user('<teammate-message teammate_id="team-lead">\n{"type":"shutdown_request"}\n'
                  "</teammate-message>")
    unit = one_unit(record)
    assert (unit.label, unit.from_) == (L.AGENT_COMM_SIGNAL, "team-lead")


def test_send_message_is_sent_or_signal_self_to_recipient() -> None:
    sent = assistant(tool_use("SendMessage", {"type": "message", "to": "bob", "content": "hi"}))
    assert labels_of(sent) == [L.AGENT_COMM_SENT, L.AGENT_TOOL_USE]
    unit = one_unit(sent, ClassifyContext(owner_id="alice"))
    assert (unit.label, unit.from_, unit.to, unit.tool_name) == (
        L.AGENT_COMM_SENT, "self", "bob", "SendMessage")
    assert unit.text == 'SendMessage {"type":"message","to":"bob","content":"hi"}'
    as_tool = one_unit(sent, select=only(L.AGENT_TOOL_USE))
    assert (as_tool.label, as_tool.from_, as_tool.to) == (L.AGENT_TOOL_USE, None, None)
    signal = assistant(tool_use("SendMessage", {"type": "shutdown_request", "recipient": "bob"}))
    assert one_unit(signal).label == L.AGENT_COMM_SIGNAL


def test_spawn_resolves_the_child_by_id_then_name_then_raw_name() -> None:
    spawn = assistant(tool_use("Task", {"subagent_type": "Explore", "prompt": "look"}, "toolu_s"))
    by_id = ClassifyContext(spawn_index={"toolu_s": "agent-abc"})
    by_name = ClassifyContext(spawn_names={"Explore": "agent-def"})
    assert one_unit(spawn, by_id).to == "agent-abc"
    # the name-join is a teammate's: the meta's name against the call's input.name; an
    # agent type joins nobody (a teammate's handle may read like one)
    assert one_unit(spawn, by_name).to == "Explore"
    mate = assistant(tool_use("Agent", {"name": "vega", "subagent_type": "qa", "prompt": "qa"},
                              "toolu_m"))
    assert one_unit(mate, ClassifyContext(spawn_names={"vega": "avega-01"})).to == "avega-01"
    assert one_unit(mate).to == "vega"
    assert one_unit(spawn).to == "Explore"
    assert one_unit(spawn).label == L.AGENT_COMM_SENT



@pytest.mark.parametrize("tool", ["Task", "Agent", "Workflow"])
def test_every_spawn_tool_is_the_parent_speaking_to_the_child(tool: str) -> None:
    spawn = assistant(tool_use(tool, {"description": "audit", "prompt": "go"}, "toolu_w"))
    assert labels_of(spawn) == [L.AGENT_COMM_SENT, L.AGENT_TOOL_USE]
    assert labels_of(assistant(tool_use("Bash", {"command": "ls"}))) == [L.AGENT_TOOL_USE]

def test_subagent_return_is_inbox_from_the_child_but_a_launch_ack_is_a_result() -> None:
    ctx = ClassifyContext(owner_id="sess", spawn_index={"toolu_s": "agent-abc"})
    back = carrier(result("toolu_s", [{"type": "text", "text": "Found 3 call sites."}]))
    assert labels_of(back, ctx) == [L.AGENT_COMM_INBOX, L.AGENT_TOOL_RESULT]
    unit = one_unit(back, ctx)
    assert (unit.label, unit.from_, unit.to, unit.text) == (
        L.AGENT_COMM_INBOX, "agent-abc", "self", "Found 3 call sites.")
    ack = carrier(result("toolu_s", "Async agent launched successfully.\nagentId: abc"),
                  tool_use_result={"isAsync": True, "status": "async_launched"})
    assert labels_of(ack, ctx) == [L.AGENT_TOOL_RESULT]


def test_subagent_seed_is_inbox_from_the_parent() -> None:
    seed = user("Find every caller of parse()", line=1, isSidechain=True)
    ctx = ClassifyContext(owner_id="agent-abc", is_subagent=True, parent_id="sess", seed_line=1)
    assert C.opens_turn(seed, subagent=True)
    unit = one_unit(seed, ctx)
    assert (unit.label, unit.from_, unit.to) == (L.AGENT_COMM_INBOX, "sess", "self")
    assert labels_of(seed, ClassifyContext(is_subagent=True)) == [L.USER_MESSAGE]


# ---------------------------------------------------------------------------------------
# <task-notification> pulses: never a turn, one unit per section
# ---------------------------------------------------------------------------------------


def pulse(summary: str, task_id: str = "b1", status: str | None = "completed",
          extra: str = "") -> str:
    status_tag = f"<status>{status}</status>\n" if status else ""
    return (f"<task-notification>\n<task-id>{task_id}</task-id>\n{status_tag}"
            f"<summary>{summary}</summary>\n{extra}</task-notification>")


@pytest.mark.parametrize(
    ("summary", "leaf"),
    [('Background command "npm test" completed (exit code 0)',
      L.HARNESS_NOTIFICATION_BACKGROUND_COMMAND),
     ('Background command "re-arm monitor loop" completed',
      L.HARNESS_NOTIFICATION_BACKGROUND_COMMAND),
     ('Dynamic workflow "deploy" completed', L.HARNESS_NOTIFICATION_WORKFLOW),
     ('Monitor "PR checks" stream ended', L.HARNESS_NOTIFICATION_MONITOR),
     ('Agent "Coverage analysis" completed', L.HARNESS_NOTIFICATION_SUBAGENT),
     ("Something else finished", L.HARNESS_NOTIFICATION_TASK)],
)
def test_notification_kind_comes_from_the_summary(summary: str, leaf: str) -> None:
    record = user(pulse(summary))
    assert labels_of(record) == [leaf]
    assert not C.is_genuine_user(record) and not C.opens_turn(record, subagent=False)


def test_notification_renders_an_attribution_label() -> None:
    record = user(pulse('Background command "npm test" failed with exit code 1', "bx9",
                        "failed") + "\nRead the output file to retrieve the result: /tmp/x")
    assert one_unit(record).text == (
        '[background-command bx9 failed] Background command "npm test" failed with exit code 1')
    event = user(pulse('Monitor "ci"', "m1", None, "<event>BUILD_GREEN</event>\n"))
    assert one_unit(event).text == '[monitor m1 BUILD_GREEN] Monitor "ci"'


def test_batched_record_yields_one_unit_per_section() -> None:
    body = (pulse('Background command "a" completed', "b1") + "\n"
            + pulse('Agent "scan" completed', "a2", extra="<tool-use-id>toolu_s</tool-use-id>\n"
                    "<result>Scan done: 2 issues.</result>\n") + "\n" + TEAMMATE)
    ctx = ClassifyContext(spawn_index={"toolu_s": "agent-xyz"})
    record = user(body)
    assert labels_of(record, ctx) == [
        L.HARNESS_NOTIFICATION_BACKGROUND_COMMAND, L.HARNESS_NOTIFICATION_SUBAGENT,
        L.AGENT_COMM_INBOX]
    found = C.units(record, ctx)
    assert [(u.label, u.from_) for u in found] == [
        (L.HARNESS_NOTIFICATION_BACKGROUND_COMMAND, None),
        (L.HARNESS_NOTIFICATION_SUBAGENT, None),
        (L.AGENT_COMM_INBOX, "agent-xyz"),
        (L.AGENT_COMM_INBOX, "team-lead")]
    assert found[2].text == "Scan done: 2 issues."
    assert C.opens_turn(record, subagent=False)  # the peer section is a delivered message (case 4)
    harness_only = C.units(record, ctx, select=lambda leaf: leaf.startswith("harness."))
    assert [u.label for u in harness_only] == [
        L.HARNESS_NOTIFICATION_BACKGROUND_COMMAND, L.HARNESS_NOTIFICATION_SUBAGENT]


def test_peer_tag_quoted_inside_a_notification_is_masked() -> None:
    # The quoted relay sits at a section boundary (after the preamble), so only the
    # notification span keeps it from becoming a peer section of its own.
    record = user(pulse('Agent "x" completed', extra="<result>Another Claude session sent a "
                        "message:\n<teammate-message teammate_id=\"q\">quoted</teammate-message>"
                        "</result>\n"))
    assert labels_of(record) == [L.HARNESS_NOTIFICATION_SUBAGENT, L.AGENT_COMM_INBOX]
    assert [u.from_ for u in C.units(record)] == [None, "?"]
    assert not C.opens_turn(record, subagent=False)


def test_agents_stopped_notice_is_a_subagent_notification() -> None:
    for body in ("2 background agents were stopped by the user: scan, lint",
                 'Background agent "scan" was stopped by the user.'):
        record = user(body)
        assert not C.opens_turn(record, subagent=False)
        unit = one_unit(record)
        assert unit.label == L.HARNESS_NOTIFICATION_SUBAGENT
        assert unit.text == f"[subagent stopped] {body}"


# ---------------------------------------------------------------------------------------
# Harness schedule / meta markers (§4.2, §5.1)
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "leaf"),
    [("Continue from where you left off.", L.HARNESS_SCHEDULE_CONTINUATION),
     ("<<autonomous-loop-dynamic>> check the queue", L.HARNESS_SCHEDULE_WAKEUP),
     ("# Autonomous loop check\n\nYou're being invoked on a timer", L.HARNESS_SCHEDULE_WAKEUP),
     ("Stop hook feedback:\nlint failed", L.HARNESS_META_HOOK),
     ("<local-command-caveat>Caveat: …</local-command-caveat>", L.HARNESS_META_HOOK),
     ("Note: The last Edit failed because the target file was modified", L.HARNESS_META_HOOK),
     ("# Autonomous loop tick\nRun the autonomous check", L.HARNESS_META_LOOP)],
)
def test_injected_markers_classify_as_harness(body: str, leaf: str) -> None:
    record = user(body, isMeta=True)
    assert labels_of(record) == [leaf] and not C.opens_turn(record, subagent=False)
    assert one_unit(record).text == body


# ---------------------------------------------------------------------------------------
# Assistant blocks, thinking and narration
# ---------------------------------------------------------------------------------------


def test_assistant_renders_one_unit_per_block() -> None:
    record = assistant(thinking("weigh the options"), text("Done."),
                       tool_use("Read", {"file_path": "/a.py"}, "toolu_r"),
                       {"type": "redacted_thinking", "data": "xx"}, text("   "))
    assert labels_of(record) == [L.AGENT_THINKING, L.AGENT_MESSAGE, L.AGENT_TOOL_USE]
    found = C.units(record)
    assert [(u.label, u.block_index, u.text) for u in found] == [
        (L.AGENT_THINKING, 0, "weigh the options"),
        (L.AGENT_MESSAGE, 1, "Done."),
        (L.AGENT_TOOL_USE, 2, 'Read {"file_path":"/a.py"}'),
        (L.AGENT_THINKING, 3, "[redacted thinking]")]
    assert found[2].tool_use_id == "toolu_r" and found[2].tool_name == "Read"
    assert all(u.is_error is None for u in found)


def _ld(field: int, payload: bytes) -> bytes:
    return _varint((field << 3) | 2) + _varint(len(payload)) + payload


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def signature(tag: bytes, *, lead: bytes = b"") -> str:
    inner = _varint(3 << 3) + _varint(7) + _ld(8, b"thinking") + _ld(8, tag)
    outer = _varint(1 << 3) + _varint(4) + _ld(2, _ld(1, lead + inner))
    return base64.b64encode(outer).decode()


def test_narration_tag_decodes_the_last_field_at_each_level() -> None:
    assert C.narration_tag(signature(b"narration")) == "narration"
    assert C.narration_tag(signature(b"thinking")) == "thinking"
    for lead in (b"", b"\x00", b"\x00\x00"):  # every base64 alignment passes the gate
        sig = signature(b"narration", lead=_ld(9, lead))
        record = assistant(thinking("Checking the parser.", sig))
        assert labels_of(record) == [L.AGENT_THINKING_NARRATION]
        unit = one_unit(record)
        assert (unit.tag, unit.text) == ("[narration summary]", "Checking the parser.")


@pytest.mark.parametrize(
    "bad", [None, "", "!!!not base64!!!", base64.b64encode(b"\x0a\x05ab").decode(),
            base64.b64encode(b"\x12\x7f").decode(), base64.b64encode(b"\x0f").decode()],
)
def test_undecodable_signatures_degrade_to_plain_thinking(bad: str | None) -> None:
    assert C.narration_tag(bad) is None
    assert labels_of(assistant(thinking("x", bad))) == [L.AGENT_THINKING]


def test_narration_gate_reopens_for_whitespace_in_the_base64() -> None:
    sig = signature(b"narration")
    split = sig[:5] + "\n" + sig[5:]
    assert C.thinking_leaf(split) == L.AGENT_THINKING_NARRATION


def test_tool_result_units_carry_error_side() -> None:
    """(A record's images are numbered by ``core.image_handles`` alone, not per unit.)"""
    record = carrier(
        result("toolu_1", [{"type": "text", "text": "see"}, {"type": "image", "source": {}},
                           {"type": "tool_reference", "tool_name": "Grep"}], is_error=True))
    unit = one_unit(record)
    assert (unit.text, unit.is_error) == ("see\nGrep", True)


# ---------------------------------------------------------------------------------------
# Non-message lines: compaction boundary, promoted leaves, attachments, sidecar
# ---------------------------------------------------------------------------------------


def test_compaction_boundary_renders_its_metadata_and_is_not_gated() -> None:
    record = system("compact_boundary", content="Conversation compacted",
                    compactMetadata={"trigger": "auto", "preTokens": 158881,
                                     "preservedSegment": {}})
    assert labels_of(record) == [L.HARNESS_COMPACTION_BOUNDARY]
    assert one_unit(record).text == (
        "Conversation compacted [compaction boundary: trigger=auto preTokens=158881]")


def test_compaction_boundary_names_the_logical_parent_it_relinks_to() -> None:
    record = system("compact_boundary", content="Conversation compacted",
                    logicalParentUuid="3fb37f26-0000-4000-8000-000000000001",
                    compactMetadata={"trigger": "manual", "preTokens": 9000})
    assert one_unit(record).text == (
        "Conversation compacted [compaction boundary: trigger=manual preTokens=9000] "
        "[logicalParent=3fb37f26-0000-4000-8000-000000000001]")


def test_gated_leaves_exist_only_when_selected_or_addressed() -> None:
    records = {
        L.USER_QUEUED: line("queue-operation", operation="enqueue", content="also run lint"),
        L.HARNESS_META_TURN_DURATION: system("turn_duration", durationMs=64911, messageCount=908),
        L.HARNESS_META_AWAY_SUMMARY: system("away_summary", content="Two checks finished."),
        L.HARNESS_META_STOP_HOOKS: system("stop_hook_summary", hookCount=1),
        L.HARNESS_META_SNAPSHOT: line("file-history-snapshot", snapshot={"timestamp": "t"}),
        L.HARNESS_META_SYSTEM: system("api_error", level="error"),
        L.HARNESS_META_ATTACHMENT: line("attachment", attachment={"type": "date_change"}),
    }
    assert set(records) == set(L.GATED)
    for leaf, record in records.items():
        assert labels_of(record) == [], leaf
        assert labels_of(record, ClassifyContext(gates=frozenset({leaf}))) == [leaf]
        assert labels_of(record, ClassifyContext(address_mode=True)) == [leaf]
        assert one_unit(record, ClassifyContext(gates=frozenset({leaf}))).label == leaf


def test_queue_operation_carries_operation_and_reason() -> None:
    enqueue = line("queue-operation", operation="enqueue", content="also run lint")
    unit = one_unit(enqueue, GATED_ALL)
    assert (unit.label, unit.text, unit.tag, unit.queue_operation) == (
        L.USER_QUEUED, "also run lint", "[enqueue]", "enqueue")
    removed = line("queue-operation", operation="remove", reason="absorbed_mid_turn", content="x")
    unit = one_unit(removed, GATED_ALL)
    assert (unit.tag, unit.queue_reason) == ("[remove · absorbed_mid_turn]", "absorbed_mid_turn")
    for rider in (line("queue-operation", operation="dequeue"),
                  line("queue-operation", operation="enqueue", content=pulse("Agent x")),
                  line("queue-operation", operation="enqueue", content=TEAMMATE)):
        assert labels_of(rider, GATED_ALL) == []


def test_turn_duration_render_lists_present_fields_only() -> None:
    full = system("turn_duration", durationMs=64911, messageCount=908,
                  pendingBackgroundAgentCount=2)
    assert one_unit(full, GATED_ALL).text == (
        "[turn duration: 1m 5s · durationMs=64911 messageCount=908 pendingBackgroundAgentCount=2]")
    assert C.units(system("turn_duration"), GATED_ALL) == []  # nothing fabricated


def test_stop_hooks_snapshot_and_system_renders() -> None:
    hooks = system("stop_hook_summary", hookCount=2, preventedContinuation=True,
                   hookInfos=[{"command": "/x/a.sh", "durationMs": 9}, {"command": "/x/b.sh"}],
                   hookErrors=[{"command": "/x/b.sh"}])
    assert one_unit(hooks, GATED_ALL).text == (
        "[stop hooks: count=2 errors=1 prevented=true]\n/x/a.sh (9ms)\n/x/b.sh")
    snap = line("file-history-snapshot", snapshot={
        "timestamp": "2026-06-07T05:00:00.000Z",
        "trackedFileBackups": {"/z/b.md": {"version": 1}, "/a/f.txt": {"version": 3}}})
    assert one_unit(snap, GATED_ALL).text == (
        "[file-history snapshot at 2026-06-07T05:00:00.000Z: /a/f.txt@v3, /z/b.md@v1]")
    delta = line("file-history-delta", trackingPath="/a/f.txt", timestamp="T",
                 backup={"backupFileName": "f.txt@v4", "version": 4})
    assert one_unit(delta, GATED_ALL).text == (
        "[file-history delta at T: /a/f.txt@v4 backup=f.txt@v4]")
    warn = system("informational", level="warning", content="Remote Control disconnected")
    assert one_unit(warn, GATED_ALL).text == "[informational warning] Remote Control disconnected"
    assert one_unit(system("agents_killed"), GATED_ALL).text == "[agents_killed]"
    assert one_unit(system("api_error", content={"status": 529}), GATED_ALL).text == (
        '[api_error] {"status":529}')
    assert labels_of(system(None), GATED_ALL) == []


def test_hook_context_attachment_needs_its_own_gate() -> None:
    hook = line("attachment", attachment={"type": "hook_additional_context",
                                          "content": ["ctx line 1", "ctx line 2"]})
    assert labels_of(hook) == []
    unit = one_unit(hook, ClassifyContext(additional_context=True))
    assert (unit.label, unit.text) == (L.HARNESS_META_HOOK, "ctx line 1\nctx line 2")
    other = line("attachment", attachment={"type": "date_change", "newDate": "2026-06-08"})
    unit = one_unit(other, GATED_ALL)
    assert unit.text == '{"type":"date_change","newDate":"2026-06-08"}'


def test_pending_sidecar_markers_are_tool_use_and_resolved_ones_nothing() -> None:
    marker = {"csift": "elicitation-marker-v1", "csiftKind": "AskUserQuestion", "csiftKey": "k"}
    pending = rec({**marker, "csiftPhase": "pending", "type": "assistant", "message": {
        "role": "assistant", "content": [tool_use("AskUserQuestion", {"questions": []}, "k")]}})
    assert labels_of(pending) == [L.AGENT_TOOL_USE]
    assert one_unit(pending).tool_name == "AskUserQuestion"
    mcp = rec({**marker, "csiftKind": "mcp-elicitation", "csiftPhase": "pending",
               "type": "system", "subtype": "informational", "content": "MCPPROBE asks"})
    unit = one_unit(mcp)
    assert (unit.label, unit.text, unit.tool_name) == (L.AGENT_TOOL_USE, "MCPPROBE asks",
                                                       "mcp-elicitation")
    resolved = rec({**marker, "csiftPhase": "resolved", "type": "csift-elicitation-resolved"})
    assert labels_of(resolved) == []


@pytest.mark.parametrize("kind", ["last-prompt", "ai-title", "mode", "fork-context-ref", "summary"])
def test_bookkeeping_lines_carry_no_label(kind: str) -> None:
    assert labels_of(line(kind, lastPrompt="x", content="y"), GATED_ALL) == []


# ---------------------------------------------------------------------------------------
# Drafts, selection, invariants, tolerance
# ---------------------------------------------------------------------------------------


def test_a_draft_is_a_single_unsent_unit_whatever_its_shape() -> None:
    for record in (user("first try"), user(TEAMMATE), user(pulse("Agent x"))):
        assert C.classify(record, draft=True) == [L.USER_UNSENT]
        unit = one_unit_draft(record)
        assert (unit.label, unit.labels) == (L.USER_UNSENT, (L.USER_UNSENT,))
        assert C.units(record, select=only(L.USER_MESSAGE), draft=True) == []
    assert one_unit_draft(user("first  try")).text == "first try"


def one_unit_draft(record: Record) -> Unit:
    found = C.units(record, draft=True)
    assert len(found) == 1
    return found[0]


def test_a_unit_the_selection_rejects_entirely_is_dropped() -> None:
    record = assistant(thinking("t"), text("m"))
    assert [u.label for u in C.units(record, select=only(L.AGENT_MESSAGE))] == [L.AGENT_MESSAGE]
    assert C.units(record, select=only(L.USER_MESSAGE)) == []


def test_owner_id_renders_as_self_on_either_side() -> None:
    ctx = ClassifyContext(owner_id="bob")
    to_self = assistant(tool_use("SendMessage", {"to": "bob", "message": "note"}))
    assert (one_unit(to_self, ctx).from_, one_unit(to_self, ctx).to) == ("self", "self")


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["type", "text", "content", "name", "input", "id", "is_error",
                         "signature", "thinking", "tool_use_id", "x"]), children, max_size=4),
    max_leaves=12,
)
_block = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "thinking", "redacted_thinking", "tool_use", "tool_result",
                              "image", "weird"])},
    optional={"text": _json, "thinking": _json, "signature": st.text(max_size=40) | _json,
              "content": _json, "name": st.sampled_from(["SendMessage", "Task", "Read"]) | _json,
              "input": _json, "id": _json, "tool_use_id": _json, "is_error": _json},
)
_record = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["user", "assistant", "system", "attachment", "queue-operation",
                                 "file-history-snapshot", "file-history-delta", "weird"]) | _json,
        "message": st.fixed_dictionaries(
            {}, optional={"role": st.sampled_from(["user", "assistant"]) | _json,
                          "content": st.lists(_block, max_size=4) | st.text(max_size=60) | _json}),
        "isMeta": _json, "isCompactSummary": _json, "subtype": _json, "content": _json,
        "toolUseResult": _json, "attachment": _json, "snapshot": _json, "compactMetadata": _json,
        "csift": st.just("elicitation-marker-v1"), "csiftPhase": _json, "operation": _json,
        "parentUuid": _json, "uuid": _json, "level": _json, "hookInfos": _json,
    },
)
_any_ctx = st.builds(
    ClassifyContext, owner_id=st.none() | st.text(max_size=5), is_subagent=st.booleans(),
    seed_line=st.none() | st.just(1),
    gates=st.sets(st.sampled_from(sorted(L.GATED))).map(frozenset),
    address_mode=st.booleans(), additional_context=st.booleans(),
    spawn_index=st.none() | st.just({"toolu_1": "child"}),
)


@settings(max_examples=400, deadline=None)
@given(raw=_record, ctx=_any_ctx)
def test_any_dict_classifies_without_raising_and_units_stay_in_their_label_set(
    raw: dict[str, Any], ctx: ClassifyContext
) -> None:
    record = Record(raw, 1)
    found = C.classify(record, ctx)
    assert len(found) == len(set(found)) and set(found) <= set(L.ALL)
    for unit in C.units(record, ctx):
        assert unit.label in unit.labels and isinstance(unit.text, str)
    C.opens_turn(record, subagent=ctx.is_subagent)
    C.is_genuine_user(record)
    C.record_raw_text(record)
    C.opener_text(record, ctx)


@settings(max_examples=200, deadline=None)
@given(raw=st.dictionaries(st.text(max_size=8), _json, max_size=6))
def test_arbitrary_objects_never_raise(raw: dict[str, Any]) -> None:
    record = Record(raw, None)
    C.units(record, GATED_ALL)
    C.opens_turn(record, subagent=False)
    json.dumps(C.classify(record, GATED_ALL))


# ---------------------------------------------------------------------------------------
# renders_unit: the count path's verdict agrees with units()
# ---------------------------------------------------------------------------------------

_SELECTIONS = ((), ("agent.tool.result",), ("user",), ("agent",), ("agent.message",),
               ("harness.meta.turn-duration",), ("harness",), ("user.answer",),
               ("agent.tool.result,user.rejection",), ("harness.*",), ("user.*",),
               ("user,agent,harness.*",), ("user.message",), ("harness.command.*",),
               ("harness.compaction.*",))
_EDGE_RECORDS = [
    {"type": "user", "uuid": "c1", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": None}]}},
    {"type": "user", "uuid": "c2", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1"}]}},
    {"type": "user", "uuid": "c3", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1"},
        {"type": "tool_result", "tool_use_id": "t2", "content": ""}]}},
    {"type": "assistant", "uuid": "a1", "message": {"role": "assistant", "content": [
        {"type": "text", "text": "  "},
        {"type": "tool_result", "tool_use_id": "s1", "content": None}]}},
    {"type": "assistant", "uuid": "a2", "message": {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "", "signature": ""},
        {"type": "tool_result", "tool_use_id": "s1", "content": None}]}},
    {"type": "system", "subtype": "turn_duration", "uuid": "s1"},
    {"type": "system", "subtype": "turn_duration", "durationMs": 1200, "uuid": "s2"},
    {"type": "system", "subtype": "away_summary", "content": None, "uuid": "s3"},
    {"type": "file-history-snapshot", "messageId": "m"},
    {"type": "user", "uuid": "e1", "csift": "elicitation-marker-v1", "csiftPhase": "pending",
     "message": {"role": "assistant", "content": []}},
    # the plain user records renders_unit decides without rendering a text
    {"type": "user", "uuid": "u1", "message": {"role": "user", "content":
        "<command-name></command-name>\n<command-args></command-args>"}},
    {"type": "user", "uuid": "u2", "message": {"role": "user", "content":
        "<command-message>review</command-message>\n<command-name>/review</command-name>"}},
    {"type": "user", "uuid": "u3", "message": {"role": "user", "content":
        "<command-name>/x</command-name>\n<command-args>  fix   it </command-args>"}},
    {"type": "user", "uuid": "u4", "isCompactSummary": True,
     "message": {"role": "user", "content": "This session is being continued"}},
    {"type": "user", "uuid": "u5", "isCompactSummary": True, "message": {"role": "user"}},
    {"type": "user", "uuid": "u6", "message": {"role": "user", "content": [
        {"type": "text", "text": "[Request interrupted by user]"}]}},
    {"type": "user", "uuid": "u7", "message": {"role": "user", "content": [
        {"type": "text", "text": "look"}, {"type": "image", "source": {}}]}},
    {"type": "user", "uuid": "u8", "isMeta": True, "message": {"role": "user", "content":
        "<local-command-stdout>ok</local-command-stdout>"}},
    {"type": "user", "uuid": "u9", "message": {"role": "user", "content":
        "<task-notification><status>completed</status></task-notification>"}},
]


def _renders_unit_agrees(record: Record) -> set[str]:
    """Check the verdicts on ``record`` under every selection; the leaves compared."""
    from pysift.core.grammar.selectors import parse_filter

    compared: set[str] = set()
    for selection in _SELECTIONS:
        labels = parse_filter(list(selection))
        ctx = ClassifyContext(gates=labels.gates, additional_context=bool(selection))
        for draft in (False, True):
            leaves = C.classify(record, ctx, draft=draft)
            accepted = [leaf for leaf in leaves if labels.selects(leaf)]
            if not accepted:
                continue
            want = bool(C.units(record, ctx, labels.selects, draft=draft))
            assert C.renders_unit(record, ctx, labels.selects, leaves, accepted,
                                  draft=draft) is want, (record.raw, selection, draft)
            compared.update(accepted)
    return compared


def _sweep(root) -> tuple[int, set[str]]:  # type: ignore[no-untyped-def]
    """``_renders_unit_agrees`` over every record under ``root``: how many records were
    read and which leaves were compared (a sweep over nothing must not pass)."""
    count, compared = 0, set()
    for record in _all_records(root):
        count += 1
        compared |= _renders_unit_agrees(record)
    return count, compared


def _all_records(root):  # type: ignore[no-untyped-def]
    from pysift.core.decode import decode

    for path in sorted(root.rglob("*.jsonl")):
        for number, line in enumerate(path.read_bytes().splitlines(), start=1):
            record = decode(line, number)
            if record is not None:
                yield record


def test_renders_unit_agrees_with_units_on_edge_records() -> None:
    for raw in _EDGE_RECORDS:
        _renders_unit_agrees(rec(raw))


def _carrier(*blocks: dict, **top: object) -> dict:  # type: ignore[type-arg]
    return {"type": "user", "uuid": "k", **top,
            "message": {"role": "user", "content": list(blocks)}}


_REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was "
             "rejected. To tell you how to proceed, the user said:\nuse the other plan")
# tool_result carriers renders_unit decides without rendering (a rejection's text looks
# its plan file up through the transcript's bytes): the dual, each result, the inbox
_CARRIERS = [
    _carrier({"type": "tool_result", "tool_use_id": "p1", "is_error": True,
              "content": _REJECTED}),
    _carrier({"type": "tool_result", "tool_use_id": "p1", "is_error": True,
              "content": "The user doesn't want to proceed with this tool use."}),
    _carrier({"type": "tool_result", "tool_use_id": "p1", "is_error": True,
              "content": [{"type": "text", "text": _REJECTED}]},
             {"type": "tool_result", "tool_use_id": "p2", "content": None}),
    _carrier({"type": "tool_result", "tool_use_id": "q1",
              "content": "User has answered your questions: \"Which?\"=\"A\"."},
             toolUseResult={"questions": [{"question": "Which?", "header": "Pick",
                                           "options": [{"label": "A"}]}],
                            "answers": {"Which?": "A"}}),
    _carrier({"type": "tool_result", "tool_use_id": "q1", "content": None},
             toolUseResult={"answers": {}}),
    _carrier({"type": "tool_result", "tool_use_id": "spawn1", "content": "done: 3 files"}),
    _carrier({"type": "tool_result", "tool_use_id": "spawn1", "content": None},
             {"type": "tool_result", "tool_use_id": "other"}),
    _carrier({"type": "tool_result", "tool_use_id": "spawn1", "content": "x"},
             {"type": "text", "text": "and a note"}),
]
_CARRIER_SELECTIONS = ((), ("user",), ("user.answer",), ("user.rejection",),
                       ("agent.tool.result",), ("agent.communication.inbox",),
                       ("agent.communication.*",), ("user.rejection,agent.tool.result",),
                       ("user.answer,agent.communication.inbox",), ("agent",))


def test_renders_unit_agrees_with_units_on_tool_result_carriers() -> None:
    """The carrier verdict, with and without a spawn index (a result returning from a
    child renders as the inbox) and a plan index that knows the rejected call."""
    from pysift.core.grammar.selectors import parse_filter

    compared: set[str] = set()
    for raw in _CARRIERS:
        record = rec(raw)
        for spawns in (None, {"spawn1": "agent-7"}):
            for selection in _CARRIER_SELECTIONS:
                labels = parse_filter(list(selection))
                ctx = ClassifyContext(owner_id="s", gates=labels.gates, spawn_index=spawns,
                                      plan_index={"p1": "/home/dev/.claude/plans/p.md"})
                leaves = C.classify(record, ctx)
                accepted = [leaf for leaf in leaves if labels.selects(leaf)]
                if not accepted:
                    continue
                want = bool(C.units(record, ctx, labels.selects))
                assert C.renders_unit(record, ctx, labels.selects, leaves,
                                      accepted) is want, (raw, selection, spawns)
                compared.update(accepted)
    assert {"user.answer", "user.rejection", "agent.tool.result",
            "agent.communication.inbox"} <= compared, sorted(compared)


def test_renders_unit_agrees_with_units_on_the_demo_home(demo_home) -> None:  # type: ignore[no-untyped-def]
    count, compared = _sweep(demo_home / "projects")
    # the demo home holds 438 records showing 23 leaves (scripts/make_demo_home.py)
    assert count >= 400, f"only {count} records read from the demo home"
    assert len(compared) >= 20, sorted(compared)


@pytest.mark.real
def test_renders_unit_agrees_with_units_on_the_real_corpus(real_home) -> None:  # type: ignore[no-untyped-def]
    count, compared = _sweep(real_home / "projects")
    # the corpus holds 15,309 records showing 28 leaves: a sweep over a part of it fails
    assert count >= 15_000, f"only {count} records read from the real corpus"
    assert len(compared) >= 25, sorted(compared)


def test_the_package_still_answers_to_the_names_of_the_one_module_classify() -> None:
    """Code written against ``core/classify.py`` (other branches in flight) imports these."""
    from pysift.core.blocktext import result_text
    from pysift.core.timez import format_duration_ms
    from pysift.disk.jsonline import compact_json

    missing = [name for name in C.__all__ if not hasattr(C, name)]
    assert missing == []
    assert (C.result_text, C.compact_json, C.format_duration_ms) == (
        result_text, compact_json, format_duration_ms)
    assert {"ClassifyContext", "Unit", "classify", "units", "renders_unit", "opens_turn",
            "opener_text", "opener_source", "narration_tag", "raw_message_text",
            "is_genuine_user", "is_peer_message_record", "TEAMMATE_OPEN"} <= set(C.__all__)


@pytest.mark.parametrize("depth", [255, 985, 1020])
def test_a_tool_input_nested_deeper_than_orjson_writes_renders(depth: int) -> None:
    """A valid record whose tool input nests past orjson's 254 written levels went to the
    stdlib writer, whose RecursionError from ~980 levels crashed search and show."""
    import orjson

    from pysift.disk.jsonline import deep_enough

    nest = b'{"k":' * depth + b"1.5" + b"}" * depth
    raw = orjson.loads(b'{"type":"assistant","uuid":"a","message":{"role":"assistant",'
                       b'"content":[{"type":"tool_use","id":"t1","name":"Deep","input":'
                       + nest + b"}]}}")
    (unit,) = C.units(rec(raw))
    assert unit.label == L.AGENT_TOOL_USE
    assert unit.text == "Deep " + nest.decode()
    with deep_enough():
        assert json.loads(unit.text[len("Deep "):]) == json.loads(nest)


def test_a_task_completion_naming_its_child_is_a_subagent_return_without_an_index() -> None:
    """No caller filled the spawn index, so no subagent return was ever inbox: the
    completion's own ``toolUseResult.agentId`` names the child."""
    done = {"status": "completed", "agentId": "ea02459f", "content": [], "totalTokens": 9}
    back = carrier(result("toolu_t", "the child's summary"), tool_use_result=done)
    assert labels_of(back, ClassifyContext(owner_id="sess")) == [
        L.AGENT_COMM_INBOX, L.AGENT_TOOL_RESULT]
    [inbox] = [u for u in C.units(back, ClassifyContext(owner_id="sess"))
               if u.label == L.AGENT_COMM_INBOX]
    assert (inbox.from_, inbox.text) == ("ea02459f", "the child's summary")
    launch = carrier(result("toolu_t", "Async agent launched"),
                     tool_use_result={"status": "async_launched", "isAsync": True,
                                      "agentId": "ea02459f"})
    assert labels_of(launch, ClassifyContext()) == [L.AGENT_TOOL_RESULT]
    two = carrier(result("toolu_a", "a"), result("toolu_b", "b"), tool_use_result=done)
    assert labels_of(two, ClassifyContext()) == [L.AGENT_TOOL_RESULT]  # whose echo: unsaid
