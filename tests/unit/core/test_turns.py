"""Turn grouping: openers, the turn-0 preamble, superseded drafts, the fast buffer pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pysift.core.classify import opens_turn
from pysift.core.decode import Tally, decode
from pysift.core.turns import (
    TurnMap,
    build_turn_map,
    build_turn_map_from_records,
    collapse_openers,
    is_plain_carrier,
    superseded_drafts,
)
from pysift.disk.lines import iter_lines
from pysift.model.record import Record

# ---------------------------------------------------------------------------------------
# Transcript builders (dicts, then serialized the way Claude Code or json.dumps would)
# ---------------------------------------------------------------------------------------


def human(uuid: str, parent: str | None, text: str) -> dict[str, Any]:
    return {"type": "user", "uuid": uuid, "parentUuid": parent,
            "message": {"role": "user", "content": text}}


def reply(uuid: str, parent: str, text: str = "ok") -> dict[str, Any]:
    return {"type": "assistant", "uuid": uuid, "parentUuid": parent,
            "message": {"role": "assistant", "content": [{"type": "text", "text": text}]}}


def tool_call(uuid: str, parent: str, use_id: str) -> dict[str, Any]:
    return {"type": "assistant", "uuid": uuid, "parentUuid": parent,
            "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": use_id, "name": "Read", "input": {"file_path": "/a"}}]}}


def tool_back(uuid: str, parent: str, use_id: str, content: str, **extra: Any) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": use_id, "content": content}
    block.update(extra.pop("block", {}))
    return {"type": "user", "uuid": uuid, "parentUuid": parent,
            "message": {"role": "user", "content": [block]}, **extra}


def meta(uuid: str, parent: str, text: str) -> dict[str, Any]:
    return {**human(uuid, parent, text), "isMeta": True}


def records_of(rows: list[dict[str, Any]]) -> list[Record]:
    return [Record(row, number) for number, row in enumerate(rows, start=1)]


def compact(rows: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(r, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
                    for r in rows)


def spaced(rows: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in rows)  # `"type": "user"`


def decoded(buf: bytes) -> list[Record]:
    out = []
    for number, raw in iter_lines(buf):
        rec = decode(raw, number)
        if rec is not None:
            out.append(rec)
    return out


SESSION = [
    {"type": "permission-mode", "permissionMode": "default"},                    # 1 preamble
    meta("m0", "x", "<local-command-caveat>Caveat</local-command-caveat>"),       # 2 preamble
    human("u1", "m0", "add a login page"),                                        # 3 opens t0
    tool_call("a1", "u1", "toolu_1"),                                             # 4
    tool_back("r1", "a1", "toolu_1", "file body"),                                # 5
    reply("a2", "r1"),                                                            # 6
    {"type": "user", "uuid": "i1", "parentUuid": "a2",                            # 7 interrupt
     "message": {"role": "user", "content": [{"type": "text",
                                              "text": "[Request interrupted by user]"}]}},
    human("u2", "i1", "actually use OAuth"),                                      # 8 opens t1
    reply("a3", "u2"),                                                            # 9
    tool_back("q1", "a3", "toolu_q", 'User has answered your questions: "Q"="A".',  # 10 opens t2
              toolUseResult={"answers": {"Q": "A"}, "questions": []}),
    human("d1", "q1", "ship it now"),                                             # 11 draft
    human("d2", "q1", "ship it after the tests pass"),                            # 12 opens t3
    {"type": "user", "uuid": "n1", "parentUuid": "d2",                            # 13 pulse
     "message": {"role": "user", "content": "<task-notification>\n<task-id>b1</task-id>\n"
                 "<summary>Background command \"npm test\" completed</summary>\n"
                 "</task-notification>"}},
    reply("a4", "n1"),                                                            # 14
]


def test_openers_drafts_and_the_turn_zero_preamble() -> None:
    tm = build_turn_map_from_records(records_of(SESSION), subagent=False)
    assert tm.opener_lines == [3, 8, 10, 12]
    assert tm.draft_lines == {11}
    assert tm.turn_count == 4
    assert [tm.turn_of(n) for n in range(1, 15)] == [
        0, 0, 0, 0, 0, 0, 0, 1, 1, 2, None, 3, 3, 3]
    assert tm.line_span(0, 14) == (1, 7)
    assert tm.line_span(2, 14) == (10, 11)
    assert tm.line_span(3, 14) == (12, 14)
    with pytest.raises(IndexError):
        tm.line_span(4, 14)


@pytest.mark.parametrize("serialize", [compact, spaced])
def test_buffer_pass_equals_the_decode_everything_pass(serialize) -> None:
    buf = serialize(SESSION)
    fast = build_turn_map(buf, subagent=False)
    full = build_turn_map_from_records(decoded(buf), subagent=False)
    assert (fast.opener_lines, fast.draft_lines, fast.turn_count) == (
        full.opener_lines, full.draft_lines, full.turn_count)
    assert fast.opener_lines == [3, 8, 10, 12]


def test_buffer_pass_keeps_exact_line_numbers_across_blank_torn_and_final_lines() -> None:
    rows = [compact([human("u1", "p", "one")]), b"\n", b"   \n", b"{torn json\n",
            b"not json at all\n", compact([reply("a1", "u1")]),
            json.dumps(human("u2", "a1", "two")).encode()]  # last line: no trailing newline
    buf = b"".join(rows)
    tally = Tally()
    tm = build_turn_map(buf, tally, subagent=False)
    assert tm.opener_lines == [1, 7]
    assert tm.opener_lines == build_turn_map_from_records(decoded(buf), subagent=False).opener_lines
    assert tally.malformed == 0  # the torn lines carry no "type":"user", so were never decoded


def test_carrier_markers_are_decoded_and_plain_carriers_skipped() -> None:
    reject = ("The user doesn't want to proceed with this tool use. To tell you how to proceed, "
              "the user said:\nuse a feature flag")
    rows = [human("u1", "p", "go"), tool_call("a1", "u1", "t1"),
            tool_back("r1", "a1", "t1", "plain output mentioning nothing"),
            tool_back("r2", "r1", "t2", reject, block={"is_error": True}),
            tool_back("r3", "r2", "t3", "answer: 42 (not an AskUserQuestion)")]
    for serialize in (compact, spaced):
        buf = serialize(rows)
        assert build_turn_map(buf, subagent=False).opener_lines == [1, 4]
        assert build_turn_map_from_records(decoded(buf), subagent=False).opener_lines == [1, 4]


REJECT_TYPED = ("The user doesn't want to proceed with this tool use. To tell you how to "
                "proceed, the user said:\nkeep the tabs")


def carrier_of(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"type": "user", "uuid": "r9", "parentUuid": "a1",
            "message": {"role": "user", "content": list(blocks)}}


def result_block(use_id: str, content: str, is_error: bool = False) -> dict[str, Any]:
    block: dict[str, Any] = {"tool_use_id": use_id, "type": "tool_result", "content": content}
    if is_error:
        block["is_error"] = True
    return block


def test_a_rejection_in_a_second_block_opens_a_turn_behind_a_long_first_block() -> None:
    long_output = "x" * 5000
    rows = [human("u1", "p", "go"), tool_call("a1", "u1", "t1"),
            carrier_of(result_block("t1", long_output), result_block("t2", REJECT_TYPED, True))]
    for serialize in (compact, spaced):
        buf = serialize(rows)
        assert build_turn_map_from_records(decoded(buf), subagent=False).opener_lines == [1, 3]
        assert build_turn_map(buf, subagent=False).opener_lines == [1, 3]


@pytest.mark.parametrize("prompt", [
    human("u2", "a1", "tool_result"),  # a prompt that reads tool_result
    # a prompt whose record nests a {"type":"tool_result"} object in another field: no
    # content array holds that key, so it is no block
    {**human("u2", "a1", "second"), "extra": result_block("t1", "x")},
], ids=["reads-tool_result", "nests-a-tool_result-object"])
def test_a_typed_prompt_is_no_carrier(prompt: dict[str, Any]) -> None:
    rows = [human("u1", None, "go"), reply("a1", "u1"), prompt, reply("a2", "u2")]
    for serialize in (compact, spaced):
        buf = serialize(rows)
        start = buf.index(b"\n", buf.index(b"\n") + 1) + 1
        end = buf.index(b"\n", start)
        assert not is_plain_carrier(buf, start, end)
        assert build_turn_map(buf, subagent=False).opener_lines == [1, 3]


def _server_result_reply(nested_first: bool) -> dict[str, Any]:
    """An assistant record as some providers write it (a server tool's result inside the
    message), with a ``{"type":"user"}`` object nested in a tool_use input before it; the
    record's own type key after the message, as Claude Code orders an assistant record."""
    blocks: list[dict[str, Any]] = [
        {"type": "tool_use", "id": "t9", "name": "Relay",
         "input": {"msg": {"type": "user", "text": "hi"}}},
        {"type": "server_tool_use", "id": "srv_1", "name": "webReader", "input": {}},
        {"type": "tool_result", "tool_use_id": "srv_1", "content": "page"}]
    if not nested_first:
        blocks.reverse()
    return {"parentUuid": "u1", "message": {"role": "assistant", "content": blocks},
            "type": "assistant", "uuid": "a9"}


def test_only_a_user_records_own_type_key_makes_a_carrier() -> None:
    """A line holding a tool_result block and a ``"type":"user"`` key before it is a
    carrier only when that key is the record's own (top level), not a nested object's."""
    progress = {"parentUuid": "a1", "type": "progress", "uuid": "p9",
                "data": {"message": {"type": "user", "message": {
                    "role": "user", "content": [result_block("t1", "out")]}}}}
    braced = {"parentUuid": "a1", "cwd": "/w/[x]{y}", "tags": ["a", {"b": "}"}],
              **carrier_of(result_block("t1", "out"))}
    late = {"uuid": "r9", "message": {"role": "user", "content": [result_block("t1", "o")]},
            "type": "user"}
    for serialize in (compact, spaced):
        for row, carrier in ((_server_result_reply(True), False), (progress, False),
                             (braced, True), (carrier_of(result_block("t1", "o")), True),
                             (late, False)):
            line = serialize([row]).rstrip(b"\n")
            assert is_plain_carrier(line, 0, len(line)) is carrier, (row, serialize)
            rec = decode(line, 1)
            assert rec is not None and (rec.type == "user" or not carrier)


def test_an_assistant_record_nesting_a_user_key_is_decoded_by_the_turn_pass() -> None:
    rows = [human("u1", None, "look it up"), _server_result_reply(True),
            human("u2", "a9", "thanks")]
    for serialize in (compact, spaced):
        buf = serialize(rows)
        start = buf.index(b"\n") + 1
        end = buf.index(b"\n", start)
        assert not is_plain_carrier(buf, start, end)
        assert build_turn_map(buf, subagent=False).opener_lines == [1, 3]


_filler = st.text(alphabet=st.sampled_from(list("ab \n\"\\é{}:,")), max_size=40)


@st.composite
def carrier_blocks(draw) -> dict[str, Any]:
    kind = draw(st.sampled_from(["plain", "typed", "stop", "auq", "long"]))
    use_id = f"toolu_{draw(st.integers(0, 99))}"
    if kind == "typed":
        return result_block(use_id, REJECT_TYPED + draw(_filler), True)
    if kind == "stop":
        return result_block(use_id, "The user doesn't want to proceed with this tool use. "
                            "STOP what you are doing.", True)
    if kind == "auq":
        return result_block(use_id, 'User has answered your questions: "Q"="A". '
                            + draw(_filler))
    if kind == "long":
        return result_block(use_id, draw(_filler) * draw(st.integers(50, 200)),
                            draw(st.booleans()))
    return result_block(use_id, draw(_filler), draw(st.booleans()))


@settings(max_examples=300, deadline=None)
@given(st.lists(carrier_blocks(), min_size=1, max_size=4),
       st.sampled_from([compact, spaced]), st.booleans())
def test_prop_a_skipped_carrier_never_opens_a_turn(blocks, serialize, echo) -> None:
    """The byte verdict is sound: a line it calls a plain carrier decodes to a record
    that opens no turn, however many blocks it holds and however long they are."""
    row = carrier_of(*blocks)
    if echo:
        row["toolUseResult"] = {"stdout": "y" * 900}
    line = serialize([row]).rstrip(b"\n")
    rec = decode(line, 1)
    assert rec is not None
    if is_plain_carrier(line, 0, len(line)):
        assert not opens_turn(rec, subagent=True)  # (the wider rule: either kind)


_wrapper = st.sampled_from(["carrier", "progress", "assistant", "system", "sorted"])


@settings(max_examples=200, deadline=None)
@given(st.lists(carrier_blocks(), min_size=1, max_size=3), _wrapper, _filler,
       st.sampled_from([compact, spaced]))
def test_prop_a_skipped_carrier_is_a_user_record(blocks, wrapper, filler, serialize) -> None:
    """Whatever nests a user message or a ``"type":"user"`` object (a progress record, a
    tool_use input, a system record's payload), and whatever strings with brackets stand
    before the type key, a line the byte check calls a carrier decodes to a user record."""
    inner = carrier_of(*blocks)
    if wrapper == "carrier":
        row = {"cwd": filler, "slug": [filler, {"k": filler}], **inner}
    elif wrapper == "progress":
        row = {"cwd": filler, "type": "progress", "data": {"message": inner}}
    elif wrapper == "assistant":
        row = {"cwd": filler, "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t", "name": "X", "input": inner}, *blocks]},
            "type": "assistant"}
    elif wrapper == "system":
        row = {"cwd": filler, "content": {"echo": inner}, "type": "system", "subtype": "x"}
    else:  # keys sorted: the own type key after the message
        row = dict(sorted({"cwd": filler, **inner}.items()))
    line = serialize([row]).rstrip(b"\n")
    rec = decode(line, 1)
    assert rec is not None
    if is_plain_carrier(line, 0, len(line)):
        assert rec.type == "user" and not opens_turn(rec, subagent=True)


def test_a_peer_message_opens_a_turn_and_a_pulse_never_does() -> None:
    rows = [human("u1", "p", "start"),
            human("t1", "u1", '<teammate-message teammate_id="lead">take #7</teammate-message>'),
            human("n1", "t1", "<task-notification>\n<summary>Agent \"x\" completed</summary>\n"
                              "</task-notification>")]
    assert build_turn_map(compact(rows), subagent=False).opener_lines == [1, 2]


def test_superseded_drafts_follow_the_shared_parent_rule() -> None:
    openers = records_of([
        human("d1", "a1", "first"), human("d2", "a1", "second"), human("s", "a1", "third"),
        human("x", None, "no parent"), human("y", None, "no parent either"),
        human("z", "", "empty parent"), human("w", "", "empty parent too"),
    ])
    collapse = collapse_openers(openers, subagent=False)
    assert collapse.drafts == {0: 2, 1: 2}
    assert superseded_drafts(openers, subagent=False) == {0, 1}


def test_a_draft_that_drew_a_reply_is_still_a_draft() -> None:
    rows = [human("d1", "a0", "first"), reply("a1", "d1", "answered the draft"),
            human("d2", "a0", "edited and resent"), reply("a2", "d2")]
    tm = build_turn_map(compact(rows), subagent=False)
    assert (tm.opener_lines, tm.draft_lines) == ([3], {1})
    assert tm.turn_of(2) == 0  # the draft's reply still belongs to turn numbering


def test_a_replay_copy_neither_supersedes_nor_opens() -> None:
    original = human("u1", "a0", "the one message")
    rows = [original, reply("a1", "u1"),
            {"type": "system", "subtype": "compact_boundary", "uuid": "cb"},
            dict(original, promptId="other"), reply("a2", "u1")]
    tm = build_turn_map_from_records(records_of(rows), subagent=False)
    assert (tm.opener_lines, tm.draft_lines, tm.replay_lines) == ([1], set(), {4})
    assert tm.turn_of(5) == 0
    assert build_turn_map(compact(rows), subagent=False).replay_lines == {4}


def test_a_replayed_root_opener_is_a_replay_copy_too() -> None:
    """The session's first prompt has no parent; a re-anchor replays it all the same."""
    first, second = human("u1", None, "first question"), human("u2", "a1", "second question")
    rows = [first, reply("a1", "u1"), second, reply("a2", "u2"),
            {"type": "system", "subtype": "compact_boundary", "uuid": "cb"},
            dict(first), dict(second), reply("a3", "u2")]
    tm = build_turn_map_from_records(records_of(rows), subagent=False)
    assert (tm.opener_lines, tm.draft_lines, tm.replay_lines) == ([1, 3], set(), {6, 7})
    assert build_turn_map(compact(rows), subagent=False).opener_lines == [1, 3]
    # two different first prompts without a parent are no drafts of each other
    two_roots = [human("r1", None, "one"), reply("b1", "r1"), human("r2", None, "two")]
    assert build_turn_map_from_records(records_of(two_roots), subagent=False).opener_lines == [1, 3]


def test_a_transcript_without_openers_is_one_turn_and_an_empty_one_none() -> None:
    leading = [reply("a1", "p"), tool_back("r1", "a1", "t", "x")]
    tm = build_turn_map(compact(leading), subagent=False)
    assert (tm.opener_lines, tm.turn_count, tm.turn_of(2)) == ([], 1, 0)
    assert tm.line_span(0, 2) == (1, 2)
    empty = build_turn_map(b"\n  \n", subagent=False)
    assert empty.turn_count == 0 and build_turn_map_from_records([], subagent=False).turn_count == 0
    # torn and garbage lines are no records: no turn either (as the decoded map says)
    torn = b'{"type":"user","message":{"ro\n<<<<<<< HEAD\n'
    assert build_turn_map(torn, subagent=False).turn_count == 0
    assert build_turn_map_from_records(decoded(torn), subagent=False).turn_count == 0
    with_a_record = torn + compact([{"type": "system", "subtype": "x"}])
    assert build_turn_map(with_a_record, subagent=False).turn_count == 1


def test_turn_map_is_a_plain_value() -> None:
    tm = TurnMap(opener_lines=[2, 5], draft_lines={4})
    assert [tm.turn_of(n) for n in range(1, 7)] == [0, 0, 0, None, 1, 1]


REAL = Path(__file__).resolve().parents[4] / "shared" / "corpus" / "real"


@pytest.mark.real
@pytest.mark.skipif(not REAL.is_dir(), reason="real corpus not present")
def test_buffer_pass_agrees_on_every_real_transcript() -> None:
    files = sorted(REAL.rglob("*.jsonl"))
    assert files
    for path in files:
        buf = path.read_bytes()
        fast = build_turn_map(buf, subagent=False)
        full = build_turn_map_from_records(decoded(buf), subagent=False)
        assert (fast.opener_lines, fast.draft_lines, fast.replay_lines) == (
            full.opener_lines, full.draft_lines, full.replay_lines), path
