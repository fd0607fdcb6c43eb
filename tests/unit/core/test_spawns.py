"""core.spawns: the spawns a child's .meta.json can link back to (Task/Agent, not Workflow)."""

from __future__ import annotations

from pathlib import Path

import builders as b
from pysift.core.spawns import IssuedBy, Spawns, spawned_by, spawns_in


def _transcript(tmp_path: Path, *records: dict) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b.to_jsonl(records))
    return path


def test_task_and_agent_calls_are_linked_spawns_a_workflow_run_is_not(tmp_path: Path) -> None:
    path = _transcript(
        tmp_path,
        b.user("survey the repo"),
        b.assistant(b.tool_use("Task", {"subagent_type": "Explore", "prompt": "look"},
                               id="toolu_task")),
        b.assistant(b.tool_use("Agent", {"name": "reviewer", "prompt": "review"},
                               id="toolu_agent")),
        # a workflow's agents carry no toolUseId: its id and name link no child
        b.assistant(b.tool_use("Workflow", {"name": "pass-audit", "script": "x"},
                               id="toolu_wf")),
    )
    found = spawns_in(path)
    assert found.tool_use_ids == {"toolu_task", "toolu_agent"}
    assert found.names == {"reviewer"}
    issued = IssuedBy(path)
    assert spawned_by({"toolUseId": "toolu_task"}, "p", found, lambda _id: False)
    assert not spawned_by({"toolUseId": "toolu_wf"}, "p", found, lambda _id: False)
    assert spawned_by({"name": "reviewer"}, "p", found, issued)
    assert not spawned_by({"name": "pass-audit"}, "p", found, issued)


def test_an_unreadable_transcript_issues_no_spawns(tmp_path: Path) -> None:
    assert spawns_in(tmp_path / "gone.jsonl") == Spawns()
    assert IssuedBy(tmp_path / "gone.jsonl")("toolu_task") is False
