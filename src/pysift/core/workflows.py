"""Workflow runs: the run manifests and the agents' event journal (csift §1, §6.5).

A workflow launched by the ``Workflow`` tool leaves two side files beside its agents'
transcripts, neither of them a transcript:

- ``<session>/workflows/wf_<id>.json``: the run's manifest (``runId``, ``taskId``,
  ``workflowName``, ``status``, ``agentCount``, ``durationMs``, ``totalTokens``,
  ``totalToolCalls``, ``defaultModel``, ``startTime`` or ``timestamp``), written when the
  run ends. A run still going has none yet; ``placeholder_run`` stands in for it so its
  agents still hang under a run.
- ``<session>/subagents/workflows/wf_<id>/journal.jsonl``: one event per line,
  ``{type: "started"|"result", agentId, key, result?}``. A ``result`` event makes its agent
  ``completed`` whatever its transcript's tail says, and its payload is the agent's
  returned message.

Both are parsed tolerantly: a field that is missing or of the wrong type is None, a line
that is no JSON object is counted, and a manifest that is no JSON object is reported as
the problem it is (the run still stands, from its directory name).
"""

from __future__ import annotations

from dataclasses import field

from pysift.disk import jsonline
from pysift.model.fastdata import dataclass

__all__ = ["Journal", "WorkflowRun", "ended_word", "parse_journal", "parse_manifest",
           "placeholder_run"]

#: a manifest word that would say the run goes on (never seen: manifests are written at
#: the end; such a word is not read as an end)
_RUN_GOING = frozenset({"running", "pending", "in_progress", "started", "queued"})


def ended_word(run: WorkflowRun) -> str | None:
    """The manifest's final word on a run (``completed``, ``failed``, ``killed``…), None
    when there is no manifest or it says nothing final. Claude Code writes the manifest
    when a run ends, so no agent of a run with one is at work any more, whatever its
    transcript shows (``status`` settles its lanes, ``agents`` notes it)."""
    status = run.status  # a stand-in (no manifest read) has none
    return None if status is None or status.strip().lower() in _RUN_GOING else status


@dataclass(slots=True)
class WorkflowRun:
    run_id: str
    task_id: str | None = None
    workflow_name: str | None = None
    status: str | None = None  # the manifest's own word, verbatim (an open set)
    agent_count: int | None = None
    duration_ms: int | None = None
    total_tokens: int | None = None
    total_tool_calls: int | None = None
    default_model: str | None = None
    started: str | None = None
    problem: str | None = None  # why the manifest could not be read, when it could not
    has_manifest: bool = True


@dataclass(slots=True)
class Journal:
    started: set[str] = field(default_factory=set)
    results: dict[str, object] = field(default_factory=dict)  # agent id -> the last payload
    skipped_lines: int = 0


def _text(obj: dict[str, object], key: str) -> str | None:
    value = obj.get(key)
    return value if isinstance(value, str) and value else None


def _count(obj: dict[str, object], key: str) -> int | None:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def placeholder_run(run_id: str, problem: str | None = None) -> WorkflowRun:
    """A run known only from its directory (no manifest yet, or none readable)."""
    return WorkflowRun(run_id=run_id, problem=problem, has_manifest=False)


def parse_manifest(data: bytes, run_id: str) -> WorkflowRun:
    """The run of one manifest; ``run_id`` is its file stem (``wf_<id>``), which names the
    agents' directory and wins over a ``runId`` field that disagrees with it."""
    try:
        obj = jsonline.loads(data)
    except jsonline.JSONDecodeError:
        return placeholder_run(run_id, "its manifest is not JSON")
    if not isinstance(obj, dict):
        return placeholder_run(run_id, "its manifest is not a JSON object")
    declared = _text(obj, "runId")
    return WorkflowRun(
        run_id=run_id,
        task_id=_text(obj, "taskId"),
        workflow_name=_text(obj, "workflowName"),
        status=_text(obj, "status"),
        agent_count=_count(obj, "agentCount"),
        duration_ms=_count(obj, "durationMs"),
        total_tokens=_count(obj, "totalTokens"),
        total_tool_calls=_count(obj, "totalToolCalls"),
        default_model=_text(obj, "defaultModel"),
        started=_text(obj, "startTime") or _text(obj, "timestamp"),
        problem=(f"its manifest names run {declared}" if declared not in (None, run_id)
                 else None),
    )


def parse_journal(data: bytes) -> Journal:
    journal = Journal()
    for line in data.splitlines():
        if not line.strip():
            continue
        try:
            event = jsonline.loads(line)
        except jsonline.JSONDecodeError:
            journal.skipped_lines += 1
            continue
        if not isinstance(event, dict):
            journal.skipped_lines += 1
            continue
        agent = event.get("agentId")
        if not isinstance(agent, str) or not agent:
            continue
        if event.get("type") == "started":
            journal.started.add(agent)
        elif event.get("type") == "result":
            journal.results[agent] = event.get("result")
    return journal
