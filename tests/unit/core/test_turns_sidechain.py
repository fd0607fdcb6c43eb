"""The turn map of a main transcript holding a subagent's records (``isSidechain:true``, as
Claude Code 1.x and 2.0.x wrote them into the session file): they open no turn there and
stay inside the main turn they fall in; the same bytes read as a subagent transcript keep
every opener. The buffer pass, the decode-everything pass and stats' one-scan collection
build the same map for either kind."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pysift.core.decode import decode
from pysift.core.turns import build_turn_map, build_turn_map_from_records, openers_of
from pysift.disk.lines import iter_lines
from pysift.engines.stats import scan_range, turn_map_of
from pysift.model.record import Record


def prompt(uuid: str, parent: str | None, text: str, side: bool = False) -> dict[str, Any]:
    return {"parentUuid": parent, "isSidechain": side, "type": "user", "uuid": uuid,
            "message": {"role": "user", "content": text}}


def reply(uuid: str, parent: str, text: str, side: bool = False, **block: Any) -> dict[str, Any]:
    content = [block] if block else [{"type": "text", "text": text}]
    return {"parentUuid": parent, "isSidechain": side, "type": "assistant", "uuid": uuid,
            "message": {"role": "assistant", "content": content}}


def result(uuid: str, parent: str, use_id: str, text: str) -> dict[str, Any]:
    return {"parentUuid": parent, "isSidechain": False, "type": "user", "uuid": uuid,
            "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": use_id, "content": text}]}}


TASK = {"type": "tool_use", "id": "toolu_task", "name": "Task",
        "input": {"subagent_type": "Explore", "prompt": "List every lint config"}}
SESSION = [
    prompt("w1", None, "Warmup", side=True),                        # 1  the Warmup agent
    reply("w2", "w1", "I'm ready to help", side=True),              # 2
    prompt("u1", None, "configure the linter"),                     # 3  turn 0
    reply("a1", "u1", "", **TASK),                                  # 4
    prompt("s1", None, "List every lint config", side=True),        # 5  the Task's prompt
    reply("s2", "s1", "Found .ruff.toml", side=True),               # 6
    result("r1", "a1", "toolu_task", "Found .ruff.toml"),           # 7
    reply("a2", "r1", "It is .ruff.toml"),                          # 8
    prompt("u2", "a2", "now fix the warnings"),                     # 9  turn 1
    reply("a3", "u2", "fixed"),                                     # 10
]


def compact(rows: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in rows)


def spaced(rows: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in rows)


def decoded(buf: bytes) -> list[Record]:
    out = []
    for number, line in iter_lines(buf):
        rec = decode(line, number)
        if rec is not None:
            out.append(rec)
    return out


@pytest.mark.parametrize("serialize", [compact, spaced])
def test_a_main_transcript_s_subagent_prompts_open_no_turn(serialize: Any) -> None:
    buf = serialize(SESSION)
    main = build_turn_map(buf, subagent=False)
    assert main.opener_lines == [3, 9] and main.turn_count == 2
    assert [main.turn_of(n) for n in range(1, 11)] == [0] * 8 + [1, 1]  # the result in t0
    as_lane = build_turn_map(buf, subagent=True)  # the same bytes as a subagent transcript
    assert as_lane.opener_lines == [1, 3, 5, 9]
    for subagent, built in ((False, main), (True, as_lane)):
        full = build_turn_map_from_records(decoded(buf), subagent=subagent)
        scanned = turn_map_of(scan_range(buf), buf, subagent=subagent)
        for other in (full, scanned):
            assert (other.opener_lines, other.draft_lines, other.turn_count) == (
                built.opener_lines, built.draft_lines, built.turn_count)
    assert [o for o, _ in openers_of(buf, subagent=False)] == main.opener_offsets


def test_a_session_of_only_the_warmup_pair_has_one_turn_and_no_opener() -> None:
    buf = compact(SESSION[:2])
    tm = build_turn_map(buf, subagent=False)
    assert tm.opener_lines == [] and tm.turn_count == 1 and tm.has_records


def test_a_subagent_record_never_supersedes_the_human_s_prompt() -> None:
    """A sidechain record sharing the human prompt's parent is no earlier sibling: the
    prompt is no superseded draft in the main transcript."""
    rows = [prompt("u0", None, "start"), reply("a0", "u0", "ok"),
            prompt("s1", "a0", "subagent words", side=True),
            prompt("u1", "a0", "the human's next prompt"), reply("a1", "u1", "done")]
    tm = build_turn_map(compact(rows), subagent=False)
    assert (tm.opener_lines, tm.draft_lines) == ([1, 4], set())
    lane = build_turn_map(compact(rows), subagent=True)
    assert (lane.opener_lines, lane.draft_lines) == ([1, 4], {3})
