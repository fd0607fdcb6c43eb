"""Workflow run manifests and journals: every field tolerant, every problem said."""

from __future__ import annotations

import json

from pysift.core.workflows import parse_journal, parse_manifest, placeholder_run


def test_a_full_manifest() -> None:
    run = parse_manifest(json.dumps({
        "runId": "wf_1", "taskId": "task_1", "workflowName": "pass-audit", "status": "killed",
        "agentCount": 3, "durationMs": 5000, "totalTokens": 303, "totalToolCalls": 9,
        "defaultModel": "claude-sonnet-4-6", "timestamp": "2026-06-04T10:00:00.000Z",
        "startTime": "2026-06-04T09:59:58.000Z"}).encode(), "wf_1")
    assert (run.run_id, run.task_id, run.workflow_name, run.status) == (
        "wf_1", "task_1", "pass-audit", "killed")  # the manifest's own word, any value
    assert (run.agent_count, run.duration_ms, run.total_tokens, run.total_tool_calls) == (
        3, 5000, 303, 9)
    assert run.started == "2026-06-04T09:59:58.000Z"  # startTime before timestamp
    assert run.problem is None and run.has_manifest


def test_missing_and_mistyped_fields_are_null() -> None:
    run = parse_manifest(b'{"agentCount": "3", "durationMs": -1, "totalTokens": true, '
                         b'"workflowName": 7}', "wf_2")
    assert run.run_id == "wf_2"
    assert (run.agent_count, run.duration_ms, run.total_tokens, run.workflow_name) == (
        None, None, None, None)
    assert run.problem is None


def test_broken_manifests_keep_the_run() -> None:
    assert parse_manifest(b"{not json", "wf_3").problem == "its manifest is not JSON"
    assert parse_manifest(b"[1, 2]", "wf_3").problem == "its manifest is not a JSON object"
    assert not parse_manifest(b"[1, 2]", "wf_3").has_manifest
    assert parse_manifest(b'{"runId": "wf_9"}', "wf_3").problem == "its manifest names run wf_9"
    assert placeholder_run("wf_4").run_id == "wf_4"


def test_journal() -> None:
    journal = parse_journal(b"\n".join([
        b'{"type":"started","key":"k1","agentId":"a1"}',
        b'{"type":"result","key":"k1","agentId":"a1","result":{"area":"x"}}',
        b'{"type":"started","key":"k2","agentId":"a2"}',
        b"torn {",
        b"[]",
        b'{"type":"result","agentId":"a3"}',  # a result without a payload still counts
        b'{"type":"result","result":"no agent"}',
        b"",
    ]))
    assert journal.started == {"a1", "a2"}
    assert journal.results == {"a1": {"area": "x"}, "a3": None}
    assert journal.skipped_lines == 2
