"""The builders emit faithful Claude Code records, and fixtures/demo-home is what the
generator writes (so README examples and tests can rely on its ids and quirks)."""

from __future__ import annotations

import base64
import importlib.util
import json
import struct
import sys
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from builders import (  # noqa: E402
    INTERRUPT_TOOL_USE,
    ClaudeHome,
    Session,
    ai_title,
    assistant,
    assistant_split,
    attachment,
    auq_answer,
    auq_use,
    compact_boundary,
    compact_summary,
    elicitation_pending,
    elicitation_resolved,
    encode_cwd,
    file_history_snapshot,
    garbage_line,
    image,
    interrupt,
    iso,
    journal_result,
    journal_started,
    last_prompt,
    meta_user,
    permission_mode,
    queue_op,
    rejection,
    slash_command,
    task_notification,
    teammate_message,
    text,
    thinking,
    thinking_signature,
    tiny_png,
    to_jsonl,
    to_line,
    tool_result,
    tool_use,
    torn,
    turn_duration,
    user,
    user_blocks,
)

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "fixtures" / "demo-home"
SID = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
START = datetime(2026, 10, 5, 9, 0, tzinfo=UTC)


def load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_demo_home", REPO / "scripts" / "make_demo_home.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN = load_generator()


def read_jsonl(path: Path) -> tuple[list[dict[str, Any]], list[tuple[int, bytes]]]:
    """(parsed records, [(line number, raw bytes) of lines that do not parse])."""
    records, bad = [], []
    for number, raw in enumerate(path.read_bytes().split(b"\n"), 1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except ValueError:
            bad.append((number, raw))
            continue
        assert isinstance(value, dict), f"{path}:{number} is JSON but not an object"
        records.append(value)
    return records, bad


# ── serialisation ─────────────────────────────────────────────────────────────────────


def every_builder() -> list[dict[str, Any]]:
    questions = [{"question": "Which?", "header": "Pick", "options": ["a", {"label": "b", "description": "B"}]}]
    return [
        user("hello \"quoted\"\nnext line, ünïcode ✓"),
        user_blocks("text block", image()),
        meta_user("<local-command-caveat>x</local-command-caveat>"),
        interrupt(),
        slash_command("review", args="PR 42"),
        task_notification("b1", "completed", 'Background command "x" completed (exit code 0)'),
        teammate_message("team-lead", "go ahead", summary="ok"),
        compact_summary("Summary: ..."),
        assistant(thinking("hm"), text("ok"), tool_use("Read", {"file_path": "/a"}, id="t1")),
        tool_result("t1", "content"),
        auq_answer("q1", {"Which?": "a"}, questions=questions),
        rejection("t1", "do it differently"),
        compact_boundary(1000, "manual", post_tokens=10, duration_ms=5),
        turn_duration(1234, message_count=3),
        attachment("hook_success", {"hookName": "SessionStart:startup"}),
        queue_op("enqueue", "later"),
        last_prompt("hello"),
        ai_title("Title"),
        permission_mode("plan"),
        file_history_snapshot("m1", {"a.py": 2}, timestamp="2026-10-05T09:00:00.000Z"),
        journal_started("a1", "k"),
        journal_result("a1", "k", {"ok": True}),
        elicitation_resolved("q1", "2026-10-05T09:00:00.000Z"),
    ]


@pytest.mark.parametrize("record", every_builder(), ids=lambda r: str(r.get("type")))
def test_every_builder_serialises_to_one_compact_json_line(record: dict[str, Any]) -> None:
    line = to_line(record)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert b'", "' not in line and b'": ' not in line  # CC writes compact separators
    assert json.loads(line) == record


def test_to_jsonl_writes_raw_bytes_verbatim_between_records() -> None:
    blob = to_jsonl([user("a"), b"\x00garbage\n", "tail-without-newline"])
    lines = blob.split(b"\n")
    assert json.loads(lines[0])["type"] == "user"
    assert lines[1] == b"\x00garbage"
    assert lines[2] == b"tail-without-newline"


def test_torn_and_garbage_lines_do_not_parse() -> None:
    fragment = torn(user("a long enough prompt to cut in the middle"))
    assert not fragment.endswith(b"\n") and fragment.startswith(b"{")
    with pytest.raises(json.JSONDecodeError):
        json.loads(fragment)
    with pytest.raises(json.JSONDecodeError):
        json.loads(garbage_line())


# ── block and record shapes ───────────────────────────────────────────────────────────


def test_tool_use_ids_are_stable_hashes_unless_given() -> None:
    a = tool_use("Bash", {"command": "ls"})
    assert a == tool_use("Bash", {"command": "ls"})
    assert a["id"].startswith("toolu_01") and len(a["id"]) == 30
    assert a["id"] != tool_use("Bash", {"command": "pwd"})["id"]
    assert tool_use("Bash", {"command": "ls"}, id="x")["id"] == "x"
    assert a["caller"] == {"type": "direct"}


def test_assistant_picks_stop_reason_from_its_blocks() -> None:
    assert assistant(text("done"))["message"]["stop_reason"] == "end_turn"
    assert assistant(tool_use("Read", {}))["message"]["stop_reason"] == "tool_use"
    message = assistant("plain", model="claude-sonnet-4-6", msg_id="msg_x")["message"]
    assert message["content"] == [text("plain")] and message["model"] == "claude-sonnet-4-6"
    assert message["id"] == "msg_x" and message["role"] == "assistant"


def test_assistant_split_writes_one_record_per_block_sharing_the_message() -> None:
    records = assistant_split(thinking("t"), text("x"), tool_use("Read", {"file_path": "/a"}))
    assert [len(r["message"]["content"]) for r in records] == [1, 1, 1]
    assert len({r["message"]["id"] for r in records}) == 1
    assert len({r["requestId"] for r in records}) == 1
    assert [r["message"]["stop_reason"] for r in records] == [None, None, "tool_use"]


def test_tool_result_is_a_user_carrier_and_errors_echo_a_string() -> None:
    carrier = tool_result("t1", "boom", is_error=True)
    block = carrier["message"]["content"][0]
    assert carrier["type"] == "user" and carrier["message"]["role"] == "user"
    assert block == {"tool_use_id": "t1", "type": "tool_result", "content": "boom", "is_error": True}
    assert carrier["toolUseResult"] == "Error: boom"
    assert "is_error" not in tool_result("t1", "fine")["message"]["content"][0]


def test_auq_answer_carries_the_synthesized_string_and_structured_answers() -> None:
    carrier = auq_answer("q1", {"Which colour?": "blue, but darker"})
    body = carrier["message"]["content"][0]["content"]
    assert body.startswith('User has answered your questions: "Which colour?"="blue, but darker"')
    assert body.endswith("You can now continue with the user's answers in mind.")
    assert carrier["toolUseResult"]["answers"] == {"Which colour?": "blue, but darker"}


def test_rejection_wordings() -> None:
    typed = rejection("t", "use pnpm")["message"]["content"][0]
    assert typed["is_error"] is True
    assert typed["content"].endswith("To tell you how to proceed, the user said:\nuse pnpm")
    legacy = rejection("t", "use pnpm", legacy=True)["message"]["content"][0]["content"]
    assert legacy.endswith("The user provided the following reason for the rejection:  use pnpm")
    bare = rejection("t")["message"]["content"][0]["content"]
    assert bare.endswith("STOP what you are doing and wait for the user to tell you how to proceed.")
    assert bare.startswith("The user doesn't want to proceed with this tool use.")


def test_slash_command_tag_orders() -> None:
    new = slash_command("changelog", args="add the fix")["message"]["content"]
    assert new == (
        "<command-message>changelog</command-message>\n<command-name>/changelog</command-name>\n"
        "<command-args>add the fix</command-args>"
    )
    assert "<command-args>" not in slash_command("cost")["message"]["content"]
    old = slash_command("/exit", new_order=False)["message"]["content"]
    assert old.startswith("<command-name>/exit</command-name>\n            <command-message>exit")
    assert old.endswith("<command-args></command-args>")


def test_markers_and_meta_shapes() -> None:
    assert interrupt(for_tool_use=True)["message"]["content"] == [text(INTERRUPT_TOOL_USE)]
    assert meta_user("x")["isMeta"] is True
    summary = compact_summary("S")
    assert summary["isCompactSummary"] is True and summary["isVisibleInTranscriptOnly"] is True
    assert summary["message"]["content"].startswith("This session is being continued from a previous conversation")
    notice = task_notification("t9", "completed", 'Agent "x" completed', result="R", usage={"tool_uses": 2})
    assert notice["origin"] == {"kind": "task-notification"}
    assert "<result>R</result>" in notice["message"]["content"]
    assert teammate_message("alice", "hi")["message"]["content"].startswith('<teammate-message teammate_id="alice">')


def _fields(buf: bytes) -> list[tuple[int, int, bytes | int]]:
    out, i = [], 0
    while i < len(buf):
        key, i = _varint(buf, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(buf, i)
            out.append((field, wire, value))
        elif wire == 2:
            size, i = _varint(buf, i)
            out.append((field, wire, buf[i : i + size]))
            i += size
        else:
            raise AssertionError(f"unexpected wire type {wire}")
    return out


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = buf[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, i


def _last_ld(buf: bytes, field: int) -> bytes:
    hits = [v for f, w, v in _fields(buf) if f == field and w == 2]
    assert hits, f"no length-delimited field {field}"
    value = hits[-1]
    assert isinstance(value, bytes)
    return value


@pytest.mark.parametrize("tag", ["thinking", "narration"])
def test_thinking_signature_carries_its_tag_at_protobuf_path_2_1_8(tag: str) -> None:
    raw = base64.b64decode(thinking_signature(tag, seed="x"))
    assert _last_ld(_last_ld(_last_ld(raw, 2), 1), 8) == tag.encode()
    assert thinking("t", tag=tag)["signature"] == thinking_signature(tag, "t")


def test_tiny_png_is_a_decodable_png() -> None:
    png = tiny_png(5, 2, (1, 2, 3))
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(png):
        (size,) = struct.unpack(">I", png[pos : pos + 4])
        kind, data = png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + size]
        (crc,) = struct.unpack(">I", png[pos + 8 + size : pos + 12 + size])
        assert crc == zlib.crc32(kind + data)
        chunks[kind] = data
        pos += 12 + size
    assert struct.unpack(">II", chunks[b"IHDR"][:8]) == (5, 2)
    assert zlib.decompress(chunks[b"IDAT"]) == (b"\x00" + bytes([1, 2, 3]) * 5) * 2
    source = image(png)["source"]
    assert source["media_type"] == "image/png" and base64.b64decode(source["data"]) == png


# ── Session: envelope, chaining, time ─────────────────────────────────────────────────


def test_session_stamps_the_envelope_and_chains_parents() -> None:
    s = Session(SID, cwd="/home/ada/src/orbit", version="2.1.262", git_branch="main", start=START, step=5)
    first = s.add(user("hi"))
    reply = s.add(assistant(text("hello")))
    assert first["parentUuid"] is None and reply["parentUuid"] == first["uuid"]
    for key, value in {"sessionId": SID, "cwd": "/home/ada/src/orbit", "version": "2.1.262", "gitBranch": "main", "userType": "external", "isSidechain": False}.items():
        assert first[key] == value and reply[key] == value
    assert first["timestamp"] == "2026-10-05T09:00:00.000Z"
    assert reply["timestamp"] == "2026-10-05T09:00:05.000Z"
    assert list(first)[:3] == ["parentUuid", "isSidechain", "promptId"]


def test_session_is_deterministic() -> None:
    def build() -> bytes:
        s = Session(SID, cwd="/x", start=START)
        s.add(user("a"), assistant_split(thinking("b"), text("c")))
        return s.lines()

    assert build() == build()


def test_tool_result_parent_is_the_issuing_tool_use_record() -> None:
    s = Session(SID, cwd="/x", start=START)
    s.add(user("go"))
    issued = s.add(assistant_split(text("two reads"), tool_use("Read", {"file_path": "/a"}, id="ra"), tool_use("Read", {"file_path": "/b"}, id="rb")))
    owner_a = s.owner_of("ra")
    result_b = s.add(tool_result("rb", "B"))
    result_a = s.add(tool_result("ra", "A"))
    assert result_b["parentUuid"] == issued["uuid"] == result_b["sourceToolAssistantUUID"]
    assert result_a["parentUuid"] == owner_a["uuid"] == result_a["sourceToolAssistantUUID"]
    assert s.add(assistant(text("done")))["parentUuid"] == result_a["uuid"]
    assert result_a["promptId"] == s.records[0]["promptId"]


def test_auq_answer_questions_are_filled_from_the_tool_use() -> None:
    s = Session(SID, cwd="/x", start=START)
    s.add(user("decide"))
    block = auq_use([{"question": "Which?", "options": ["a", "b"]}], id="q1")
    s.add(assistant(block))
    answered = s.add(auq_answer("q1", {"Which?": "b"}))
    assert answered["toolUseResult"]["questions"] == block["input"]["questions"]
    assert answered["toolUseResult"]["answers"] == {"Which?": "b"}


def test_compact_boundary_restarts_the_chain() -> None:
    s = Session(SID, cwd="/x", start=START)
    before = s.add(user("a"))
    boundary = s.add(compact_boundary(150_000))
    summary = s.add(compact_summary("S"))
    assert boundary["parentUuid"] is None and boundary["logicalParentUuid"] == before["uuid"]
    assert boundary["compactMetadata"] == {"trigger": "auto", "preTokens": 150_000}
    assert summary["parentUuid"] == boundary["uuid"]


def test_superseded_draft_shares_the_resend_parent() -> None:
    s = Session(SID, cwd="/x", start=START)
    s.add(user("first"), assistant(text("answer")))
    draft = s.add(user("draft"))
    resend = s.add(user("resend"), parent=draft["parentUuid"])
    assert resend["parentUuid"] == draft["parentUuid"] != draft["uuid"]


def test_metadata_lines_have_no_uuid_and_queue_ops_have_a_timestamp() -> None:
    s = Session(SID, cwd="/x", start=START, step=2)
    prompt = s.add(user("a"))
    title = s.add(ai_title("T"))
    queued = s.add(queue_op("enqueue", "later"))
    snapshot = s.add(file_history_snapshot(backups={"a.py": 1}))
    for line in (title, queued, snapshot):
        assert "uuid" not in line and "parentUuid" not in line
    assert title == {"type": "ai-title", "aiTitle": "T", "sessionId": SID}
    assert queued["timestamp"] == iso(START + timedelta(seconds=2)) and queued["sessionId"] == SID
    assert snapshot["messageId"] == prompt["uuid"] and "timestamp" not in snapshot
    assert snapshot["snapshot"]["timestamp"] == queued["timestamp"]
    assert s.add(assistant(text("b")))["parentUuid"] == prompt["uuid"]


def test_clock_wait_at_and_drift_attributes() -> None:
    s = Session(SID, cwd="/x", start=START, step=3)
    s.add(user("a"))
    s.wait(60)
    late = s.add(assistant(text("b")))
    s.at(datetime(2026, 10, 6, 8, 0, tzinfo=UTC))
    s.version, s.git_branch, s.cwd, s.slug = "2.1.264", "fix/x", "/x/sub", "calm-slug"
    next_day = s.add(user("c"))
    assert late["timestamp"] == "2026-10-05T09:01:00.000Z"
    assert next_day["timestamp"] == "2026-10-06T08:00:00.000Z"
    assert (next_day["version"], next_day["gitBranch"], next_day["cwd"], next_day["slug"]) == ("2.1.264", "fix/x", "/x/sub", "calm-slug")


def test_subagent_session_marks_every_record() -> None:
    s = Session(SID, cwd="/x", agent_id="a0123456789abcdef", start=START)
    opener = s.add(user("spawn prompt"))
    reply = s.add(assistant(text("report")))
    assert opener["parentUuid"] is None
    for record in (opener, reply):
        assert record["isSidechain"] is True and record["agentId"] == "a0123456789abcdef" and record["sessionId"] == SID


def test_detached_stamp_does_not_move_the_chain() -> None:
    s = Session(SID, cwd="/x", start=START)
    last = s.add(user("a"))
    pending = s.stamp(assistant(auq_use([{"question": "Q?", "options": ["y"]}], id="k")), commit=False)
    assert pending["parentUuid"] == last["uuid"] and len(s) == 1
    marker = elicitation_pending(pending, "k")
    assert (marker["csift"], marker["csiftPhase"], marker["csiftKind"], marker["csiftKey"]) == ("elicitation-marker-v1", "pending", "AskUserQuestion", "k")
    assert s.add(assistant(text("b")))["parentUuid"] == last["uuid"]


# ── ClaudeHome layout ─────────────────────────────────────────────────────────────────


def test_home_writes_sessions_under_the_encoded_cwd(tmp_path: Path) -> None:
    home = ClaudeHome(tmp_path)
    unix = home.session("/home/ada/src/ledger_app", SID, user("hi"), assistant(text("yo")))
    windows = home.session("C:\\Users\\ada\\work", SID, user("hi"))
    encoded = home.session("-srv-app", SID, user("hi"))
    assert unix == tmp_path / "projects" / "-home-ada-src-ledger-app" / f"{SID}.jsonl"
    assert windows.parent.name == "C--Users-ada-work"
    for path in (unix, windows, encoded):
        records, bad = read_jsonl(path)
        assert not bad and encode_cwd(records[0]["cwd"]) == path.parent.name
    records, _ = read_jsonl(unix)
    assert records[1]["parentUuid"] == records[0]["uuid"]


def test_home_subagent_workflow_journal_sidecar_and_raw_lines(tmp_path: Path) -> None:
    home = ClaudeHome(tmp_path)
    session = home.session("/srv/app", SID, user("hi"))
    lane = home.subagent(session, "a1b2c3d4e5f60718", user("do it"), meta={"agentType": "Explore", "toolUseId": "t1"})
    wf = home.subagent(session, "a99", user("audit"), meta={"agentType": "workflow-subagent"}, workflow="wf_x1")
    journal = home.journal(session, "wf_x1", [journal_started("a99", "k"), journal_result("a99", "k", "ok")])
    sidecar = home.sidecar(session, [elicitation_resolved("k", "2026-10-05T09:00:00.000Z")])
    base = tmp_path / "projects" / "-srv-app" / SID
    assert lane == base / "subagents" / "agent-a1b2c3d4e5f60718.jsonl"
    assert json.loads((base / "subagents" / "agent-a1b2c3d4e5f60718.meta.json").read_text()) == {"agentType": "Explore", "toolUseId": "t1"}
    assert wf == base / "subagents" / "workflows" / "wf_x1" / "agent-a99.jsonl"
    assert journal == base / "subagents" / "workflows" / "wf_x1" / "journal.jsonl"
    assert sidecar == base / "elicitations.jsonl"
    opener = read_jsonl(lane)[0][0]
    assert opener["isSidechain"] is True and opener["agentId"] == "a1b2c3d4e5f60718"
    assert opener["sessionId"] == SID and opener["cwd"] == "/srv/app"
    ClaudeHome.raw_lines(session, [b"not json\n", b'{"type":"user","mess'])
    tail = session.read_bytes().split(b"\n")
    assert tail[-2:] == [b"not json", b'{"type":"user","mess']


# ── fixtures/demo-home ────────────────────────────────────────────────────────────────

ORBIT_DIR = DEMO / "projects" / "-home-ada-src-orbit"
LONG = ORBIT_DIR / f"{GEN.ORBIT_LONG}.jsonl"
LONG_SIDECAR = ORBIT_DIR / GEN.ORBIT_LONG


def test_demo_home_matches_the_generator(tmp_path: Path) -> None:
    GEN.build(tmp_path)
    expected = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    committed = sorted(p.relative_to(DEMO) for p in DEMO.rglob("*") if p.is_file())
    assert committed == expected, "fixtures/demo-home is stale: run scripts/make_demo_home.py"
    for rel in expected:
        assert (DEMO / rel).read_bytes() == (tmp_path / rel).read_bytes(), f"{rel} differs from the generator"


def test_demo_home_has_the_expected_tree() -> None:
    expected = [
        f"projects/-home-ada-src-orbit/{GEN.ORBIT_LONG}.jsonl",
        f"projects/-home-ada-src-orbit/{GEN.ORBIT_SHORT}.jsonl",
        f"projects/-home-ada-src-orbit/{GEN.ORBIT_CLONE}.jsonl",
        f"projects/-home-ada-src-ledger-app/{GEN.LEDGER_SESSION}.jsonl",
        f"projects/C--Users-ada-work/{GEN.WINDOWS_SESSION}.jsonl",
        "projects/-home-ada-src-sandbox/memory/MEMORY.md",
        f"projects/-home-ada-src-orbit/{GEN.ORBIT_LONG}/subagents/agent-{GEN.AGENT_EXPLORE}.jsonl",
        f"projects/-home-ada-src-orbit/{GEN.ORBIT_LONG}/subagents/agent-{GEN.AGENT_EXPLORE}.meta.json",
        f"projects/-home-ada-src-orbit/{GEN.ORBIT_LONG}/subagents/agent-{GEN.AGENT_REVIEW}.jsonl",
        f"projects/-home-ada-src-orbit/{GEN.ORBIT_LONG}/subagents/agent-{GEN.AGENT_REVIEW}.meta.json",
        f"projects/-home-ada-src-orbit/{GEN.ORBIT_LONG}/subagents/workflows/{GEN.WORKFLOW_RUN}/agent-{GEN.AGENT_WF_GREENWICH}.jsonl",
        f"projects/-home-ada-src-orbit/{GEN.ORBIT_LONG}/subagents/workflows/{GEN.WORKFLOW_RUN}/agent-{GEN.AGENT_WF_SVALBARD}.meta.json",
        f"projects/-home-ada-src-orbit/{GEN.ORBIT_LONG}/subagents/workflows/{GEN.WORKFLOW_RUN}/journal.jsonl",
        f"projects/-home-ada-src-orbit/{GEN.ORBIT_LONG}/workflows/{GEN.WORKFLOW_RUN}.json",
        f"projects/-home-ada-src-orbit/{GEN.ORBIT_LONG}/tool-results/{GEN.PERSISTED_ID}.txt",
        f"projects/-home-ada-src-orbit/{GEN.ORBIT_LONG}/elicitations.jsonl",
        f"plans/{GEN.PLAN_SLUG}.md",
    ]
    for rel in expected:
        assert (DEMO / rel).is_file(), rel
    assert not list((DEMO / "projects" / "-home-ada-src-sandbox").glob("*.jsonl"))
    total = sum(p.stat().st_size for p in DEMO.rglob("*") if p.is_file())
    assert total < 1_000_000


def test_demo_sessions_parse_except_the_two_planted_lines() -> None:
    for path in sorted((DEMO / "projects").rglob("*.jsonl")):
        records, bad = read_jsonl(path)
        if path == LONG:
            assert [n for n, _ in bad] == [164, len(path.read_bytes().split(b"\n"))]
            assert not path.read_bytes().endswith(b"\n"), "the torn final line has no newline"
        else:
            assert not bad, path
            assert path.read_bytes().endswith(b"\n")
        if path.parent.parent.name == "projects":  # a top-level session: cwd re-encodes to the dir
            first_cwd = next(r["cwd"] for r in records if "cwd" in r)
            assert encode_cwd(first_cwd) == path.parent.name
            assert all(r.get("sessionId") == path.stem for r in records if r.get("type") != "file-history-snapshot")
        uuids = [r["uuid"] for r in records if "uuid" in r]
        assert len(uuids) == len(set(uuids)), path
        stamps = [r["timestamp"] for r in records if "timestamp" in r]
        assert stamps == sorted(stamps), path


def _long() -> list[dict[str, Any]]:
    return read_jsonl(LONG)[0]


def _tool_uses(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out = {}
    for record in records:
        content = record.get("message", {}).get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_use":
                out[block["id"]] = block
    return out


def _results(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out = {}
    for record in records:
        content = record.get("message", {}).get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_result":
                out[block["tool_use_id"]] = record
    return out


def test_demo_long_session_carries_each_feature() -> None:
    records = _long()
    types = {(r["type"], r.get("subtype") or r.get("attachment", {}).get("type") or r.get("operation")) for r in records}
    for needed in [
        ("system", "compact_boundary"), ("system", "turn_duration"), ("system", "stop_hook_summary"),
        ("queue-operation", "enqueue"), ("queue-operation", "remove"), ("attachment", "plan_mode"),
        ("attachment", "queued_command"), ("attachment", "hook_success"), ("file-history-snapshot", None),
        ("last-prompt", None), ("ai-title", None), ("permission-mode", None),
    ]:
        assert needed in types, needed
    contents = [r["message"]["content"] for r in records if r["type"] == "user"]
    strings = [c for c in contents if isinstance(c, str)]
    assert any(c.startswith("<command-message>changelog</command-message>") and "<command-args>" in c for c in strings)
    assert any(c.startswith("<local-command-stdout>") for c in strings)
    assert any(r.get("isMeta") and "<local-command-caveat>" in r["message"]["content"] for r in records if r["type"] == "user")
    assert any(r.get("isCompactSummary") for r in records)
    assert any(isinstance(c, list) and c == [text("[Request interrupted by user]")] for c in contents)
    assert any(isinstance(c, list) and c == [text(INTERRUPT_TOOL_USE)] for c in contents)
    assert any(isinstance(c, list) and any(b.get("type") == "image" for b in c) for c in contents)
    errored = [b for c in contents if isinstance(c, list) for b in c if b.get("type") == "tool_result" and b.get("is_error")]
    assert any("the user said:\n" in b["content"] for b in errored)
    assert any(b["content"].endswith("how to proceed.") for b in errored)
    assert any(b["content"].startswith("Exit code 1") for b in errored)
    answers = [r["toolUseResult"] for r in records if isinstance(r.get("toolUseResult"), dict) and "answers" in r["toolUseResult"]]
    assert len(answers) == 1 and len(answers[0]["questions"]) == 2


def test_demo_superseded_draft_is_an_unanswered_sibling_opener() -> None:
    records = _long()
    children = {r.get("parentUuid") for r in records}
    by_parent: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        if r["type"] == "user" and isinstance(r["message"]["content"], str) and not r.get("isMeta"):
            by_parent.setdefault(r["parentUuid"], []).append(r)
    siblings = [group for group in by_parent.values() if len(group) == 2]
    assert len(siblings) == 1
    draft, resend = siblings[0]
    assert draft["uuid"] not in children and resend["uuid"] in children


def test_demo_persisted_output_file_exists_in_the_home() -> None:
    echo = next(r["toolUseResult"] for r in _long() if isinstance(r.get("toolUseResult"), dict) and "persistedOutputPath" in r["toolUseResult"])
    recorded = echo["persistedOutputPath"]
    assert recorded.startswith(GEN.RECORDED_HOME + "/projects/")
    local = DEMO / recorded.removeprefix(GEN.RECORDED_HOME + "/")
    assert local.is_file() and local.stat().st_size == echo["persistedOutputSize"] > 30_000


def test_demo_subagents_join_their_spawning_tool_use() -> None:
    records = _long()
    uses, results = _tool_uses(records), _results(records)
    for agent, spawn_name in [(GEN.AGENT_EXPLORE, "Task"), (GEN.AGENT_REVIEW, "Agent")]:
        lane = LONG_SIDECAR / "subagents" / f"agent-{agent}.jsonl"
        meta = json.loads(lane.with_suffix("").with_suffix(".meta.json").read_text())
        assert set(meta) == {"agentType", "description", "toolUseId"}
        spawn = uses[meta["toolUseId"]]
        assert spawn["name"] == spawn_name and spawn["input"]["description"] == meta["description"]
        lane_records, _ = read_jsonl(lane)
        assert all(r["agentId"] == agent and r["isSidechain"] for r in lane_records)
        assert lane_records[0]["message"]["content"] == spawn["input"]["prompt"]
        final = lane_records[-1]["message"]["content"][-1]["text"]
        returned = results[meta["toolUseId"]]
        assert returned["message"]["content"][0]["content"][0]["text"] == final
        assert returned["toolUseResult"]["agentId"] == agent
        spawned_at = next(
            r["timestamp"] for r in records if r["type"] == "assistant" and spawn in r["message"]["content"]
        )
        assert lane_records[0]["timestamp"] > spawned_at  # the child starts after its trigger


def test_demo_workflow_journal_and_notification() -> None:
    wf_dir = LONG_SIDECAR / "subagents" / "workflows" / GEN.WORKFLOW_RUN
    events, bad = read_jsonl(wf_dir / "journal.jsonl")
    assert not bad
    agents = {GEN.AGENT_WF_GREENWICH, GEN.AGENT_WF_SVALBARD}
    assert {e["agentId"] for e in events if e["type"] == "started"} == agents
    assert {e["agentId"] for e in events if e["type"] == "result"} == agents
    for agent in agents:
        assert json.loads((wf_dir / f"agent-{agent}.meta.json").read_text()) == {"agentType": "workflow-subagent"}
    manifest = json.loads((LONG_SIDECAR / "workflows" / f"{GEN.WORKFLOW_RUN}.json").read_text())
    assert manifest["runId"] == GEN.WORKFLOW_RUN and manifest["agentCount"] == 2
    assert any(
        r["type"] == "user" and isinstance(r["message"]["content"], str) and r["message"]["content"].startswith("<task-notification>")
        and 'Workflow "pass-audit" completed' in r["message"]["content"]
        for r in _long()
    )


def test_demo_elicitation_sidecar_has_one_resolved_pair_and_one_pending() -> None:
    lines, bad = read_jsonl(LONG_SIDECAR / "elicitations.jsonl")
    assert not bad and all(line["csift"] == "elicitation-marker-v1" and line["timestamp"] for line in lines)
    phases: dict[str, set[str]] = {}
    for line in lines:
        phases.setdefault(line["csiftKey"], set()).add(line["csiftPhase"])
    resolved = [k for k, p in phases.items() if p == {"pending", "resolved"}]
    pending = [k for k, p in phases.items() if p == {"pending"}]
    assert len(resolved) == 1 and len(pending) == 1
    native = _tool_uses(_long())
    assert resolved[0] in native and pending[0] not in native
    marker = next(line for line in lines if line["csiftKey"] == pending[0])
    assert marker["type"] == "assistant" and marker["csiftKind"] == "AskUserQuestion"
    block = next(b for b in marker["message"]["content"] if b.get("type") == "tool_use")
    assert block["name"] == "AskUserQuestion" and len(block["input"]["questions"]) == 1
    last_native = max(r["timestamp"] for r in _long() if "timestamp" in r)
    assert marker["timestamp"] > last_native


def test_demo_clone_starts_at_the_long_sessions_boundary() -> None:
    clone, _ = read_jsonl(ORBIT_DIR / f"{GEN.ORBIT_CLONE}.jsonl")
    head = next(r for r in clone if "timestamp" in r)
    assert head["type"] == "system" and head["subtype"] == "compact_boundary"
    origin = [r for r in _long() if r.get("uuid") == head["uuid"]]
    assert len(origin) == 1 and origin[0]["subtype"] == "compact_boundary"
    assert origin[0]["timestamp"] == head["timestamp"]
    assert not any("slug" in r for r in clone)


def test_demo_ledger_drifts_in_version_branch_and_cwd() -> None:
    records, _ = read_jsonl(DEMO / "projects" / "-home-ada-src-ledger-app" / f"{GEN.LEDGER_SESSION}.jsonl")
    enveloped = [r for r in records if "version" in r]
    assert [enveloped[0]["version"], enveloped[-1]["version"]] == ["2.1.263", "2.1.264"]
    assert [enveloped[0]["gitBranch"], enveloped[-1]["gitBranch"]] == ["feature/fx-rates", "fix/rounding-half-even"]
    assert [enveloped[0]["cwd"], enveloped[-1]["cwd"]] == [GEN.LEDGER, GEN.LEDGER + "/ledger"]


def test_demo_windows_session() -> None:
    records, _ = read_jsonl(DEMO / "projects" / "C--Users-ada-work" / f"{GEN.WINDOWS_SESSION}.jsonl")
    enveloped = [r for r in records if "cwd" in r]
    assert all(r["cwd"] == "C:\\Users\\ada\\work" and "gitBranch" not in r for r in enveloped)
    assert {b["name"] for b in _tool_uses(records).values()} == {"PowerShell", "Write"}


def test_fixtures_readme_names_every_id() -> None:
    readme = (REPO / "fixtures" / "README.md").read_text()
    for ident in [
        GEN.ORBIT_LONG, GEN.ORBIT_SHORT, GEN.ORBIT_CLONE, GEN.LEDGER_SESSION, GEN.WINDOWS_SESSION,
        GEN.AGENT_EXPLORE, GEN.AGENT_REVIEW, GEN.AGENT_WF_GREENWICH, GEN.AGENT_WF_SVALBARD, GEN.WORKFLOW_RUN,
        GEN.PLAN_SLUG, GEN.PERSISTED_ID,
    ]:
        assert ident in readme, ident
    assert "line 164" in readme


def test_the_demo_ids_the_tests_name_are_the_generators() -> None:
    import conftest

    assert (conftest.LONG, conftest.SHORT, conftest.CLONE, conftest.LEDGER, conftest.WINDOWS) \
        == (GEN.ORBIT_LONG, GEN.ORBIT_SHORT, GEN.ORBIT_CLONE, GEN.LEDGER_SESSION,
            GEN.WINDOWS_SESSION)
    assert (conftest.EXPLORE, conftest.REVIEW, conftest.GREENWICH, conftest.SVALBARD) \
        == (GEN.AGENT_EXPLORE, GEN.AGENT_REVIEW, GEN.AGENT_WF_GREENWICH, GEN.AGENT_WF_SVALBARD)
    assert conftest.DEMO_HOME == DEMO
