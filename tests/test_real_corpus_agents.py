"""``agents`` over the real corpus (../shared/corpus/real and its tier2 home; skipped when
absent): every subagent transcript on disk is listed exactly once, under its owning session,
each with the call that spawned it where its parent transcript holds one.

The expectation is computed here from the file tree and plain ``json`` reads, without any of
pysift's code: the lanes are the ``agent-*.jsonl`` files (``<uuid>/subagents/``, its
``workflows/wf_*/``, and old-layout files beside the sessions, owned by the ``sessionId``
their records carry); a lane's spawning call is, in this order, the call its meta.json names,
a call whose result names the lane (``toolUseResult.agentId`` or an ``agentId: <id>`` line),
the Workflow call whose result names the lane's run, or a call whose prompt is the lane's
opening message."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.real

SPAWN_TOOLS = {"Task", "Agent", "Workflow"}
AGENT_LINE = re.compile(r"(?m)^agentId: ([A-Za-z0-9][A-Za-z0-9_-]*)")


def _records(path: Path) -> list[dict]:
    out = []
    for raw in path.read_bytes().splitlines():
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


def _blocks(record: dict) -> list[dict]:
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _result_text(block: dict) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(i["text"] for i in content if isinstance(i, dict)
                         and isinstance(i.get("text"), str))
    return ""


def _opening_text(records: list[dict]) -> str | None:
    for record in records:
        if record.get("type") == "user":
            content = (record.get("message") or {}).get("content")
            if isinstance(content, str):
                return content
            texts = [b["text"] for b in _blocks(record) if isinstance(b.get("text"), str)]
            return "\n".join(texts) if texts else None
        if record.get("type") == "assistant":
            return None
    return None


def _lanes(home: Path) -> dict[tuple[str, str], dict]:
    """(session id, agent id) -> {path, session dir, workflow, meta} for every lane on disk."""
    lanes: dict[tuple[str, str], dict] = {}
    projects = home / "projects"
    for path in sorted(projects.glob("*/*/subagents/agent-*.jsonl")) + sorted(
            projects.glob("*/*/subagents/workflows/wf_*/agent-*.jsonl")):
        session_dir = path.parent.parent if path.parent.name == "subagents" else path.parents[3]
        workflow = path.parent.name if path.parent.name.startswith("wf_") else None
        lanes[(session_dir.name, path.name[6:-6])] = {"path": path, "dir": session_dir,
                                                      "workflow": workflow}
    for path in sorted(projects.glob("*/agent-*.jsonl")):
        agent = path.name[6:-6]
        owner = next((r["sessionId"] for r in _records(path)
                      if isinstance(r.get("sessionId"), str)), agent)
        lanes[(owner, agent)] = {"path": path, "dir": path.parent / owner, "workflow": None}
    for lane in lanes.values():
        meta = lane["path"].with_name(lane["path"].name[:-6] + ".meta.json")
        try:
            lane["meta"] = json.loads(meta.read_text()) if meta.is_file() else {}
        except ValueError:
            lane["meta"] = {}
    return lanes


def _calls(transcripts: list[Path]) -> tuple[dict, dict]:
    """Spawn calls (id -> its input) and their results (id -> (agent ids, run id))."""
    calls: dict[str, dict] = {}
    results: dict[str, tuple[set[str], str | None]] = {}
    for path in transcripts:
        if not path.is_file():
            continue
        for record in _records(path):
            for block in _blocks(record):
                if block.get("type") == "tool_use" and block.get("name") in SPAWN_TOOLS \
                        and isinstance(block.get("id"), str):
                    calls.setdefault(block["id"], block.get("input") or {})
                if block.get("type") == "tool_result" and block.get("tool_use_id") in calls:
                    echo = record.get("toolUseResult")
                    named = set(AGENT_LINE.findall(_result_text(block)))
                    run = None
                    if isinstance(echo, dict):
                        if isinstance(echo.get("agentId"), str):
                            named.add(echo["agentId"])
                        run = echo.get("runId")
                    results.setdefault(block["tool_use_id"], (named, run))
    return calls, results


def _expected(home: Path) -> dict[tuple[str, str], str | None]:
    lanes = _lanes(home)
    by_session: dict[str, list] = {}
    for (session, agent), lane in lanes.items():
        by_session.setdefault(session, []).append((agent, lane))
    out: dict[tuple[str, str], str | None] = {}
    for session, members in by_session.items():
        main = members[0][1]["dir"].with_suffix(".jsonl")
        calls, results = _calls([main] + [lane["path"] for _, lane in members])
        claimed: set[str] = set()
        for agent, lane in members:
            found = None
            declared = lane["meta"].get("toolUseId")
            if declared in calls:
                found = declared
            found = found or next((c for c, (named, _) in results.items() if agent in named), None)
            if found is None and lane["workflow"] is not None:
                found = next((c for c, (_, run) in results.items() if run == lane["workflow"]), None)
            if found is None and lane["workflow"] is None:
                opening = _opening_text(_records(lane["path"]))
                found = next((c for c, payload in calls.items() if opening is not None
                              and payload.get("prompt") == opening and c not in claimed), None)
            if found is not None and calls.get(found) is not None:
                claimed.add(found)
            out[(session, agent)] = found
    return out


@pytest.mark.parametrize("tier", ["", "tier2"])
def test_every_lane_once_with_its_spawning_call(cli, real_home: Path, tier: str) -> None:
    home = real_home / tier if tier else real_home
    expected = _expected(home)
    assert expected, "no subagent transcript found: the corpus moved?"
    result = cli("--claude-home", str(home), "agents", "--format", "json")
    assert result.code == 0, result.stderr
    assert "Traceback" not in result.stderr
    rows = result.json_rows("agent")
    listed = [(r["parent_session_id"], r["agent_id"]) for r in rows]
    assert len(listed) == len(set(listed)), "a lane listed twice"
    assert sorted(listed) == sorted(expected)
    got = {(r["parent_session_id"], r["agent_id"]): r["spawn_tool_use_id"] for r in rows}
    assert got == expected
    assert result.summary()["agents"] == len(expected)
    # and the text tree shows every lane once too
    text = cli("--claude-home", str(home), "agents").stdout
    for _, agent in expected:
        assert len(re.findall(rf"(?m)^ +{re.escape(agent)}  ", text)) == 1, agent


def test_a_completion_window_admits_completed_lanes_only(cli, real_home: Path) -> None:
    """`--order-by completion --since/--until` bound `completed_utc`: a lane still running
    or frozen has none and is never admitted (a real frozen Explore lane, a7a7a15, was
    listed as "finished since"); every completed lane is."""
    home = real_home
    every = cli("--claude-home", str(home), "agents", "--format", "json").json_rows("agent")
    completed = {r["agent_id"] for r in every if r["completed_utc"]}
    assert completed and len(completed) < len(every)  # lanes that never completed too
    for bound in (("--since", "2000-01-01T00:00:00Z"), ("--until", "2100-01-01T00:00:00Z")):
        rows = cli("--claude-home", str(home), "agents", "--order-by", "completion", *bound,
                   "--format", "json").json_rows("agent")
        assert {r["agent_id"] for r in rows} == completed, bound
        assert all(r["status"] == "completed" for r in rows), bound


def test_real_corpus_counts(real_home: Path) -> None:
    """The corpus the test above reads holds the lanes the issue counted (130 + 7)."""
    assert len(_expected(real_home)) == 130
    assert len(_expected(real_home / "tier2")) == 7
    joined = [c for c in _expected(real_home).values() if c is not None]
    assert len(joined) >= 25
