"""Test doubles and record builders for the live pair (status, wait).

``Processes`` stands in for the host's process table (``Env.processes``): each pid is
alive with a start time, or gone. ``ManualClock`` is a clock whose ``sleep`` moves it, so
a wait loop runs through its timeout in no real time. The builders make the records a
background task leaves (a backgrounded shell and its receipt, a Monitor arm, an async
agent launch) in Claude Code's shapes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from builders import assistant, tool_result, tool_use
from pysift.live.process import ProcInfo
from pysift.model.env import Env

#: asctime as Claude Code renders procStart (UTC)
ASCTIME = "%a %b %d %H:%M:%S %Y"


def asctime(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime(ASCTIME)


@dataclass
class Processes:
    """A fake process table: ``alive`` maps pid -> start instant (epoch s or None)."""

    alive: dict[int, float | None] = field(default_factory=dict)
    ticks: dict[int, int] = field(default_factory=dict)
    domain: tuple[str, ...] = ("linux", "linux:m1:pid:[4026531836]")
    error: str | None = None
    probes: int = 0

    def probe(self, pid: int) -> ProcInfo:
        self.probes += 1
        if self.error is not None:
            return ProcInfo(False, error=self.error)
        if pid not in self.alive:
            return ProcInfo(False)
        return ProcInfo(True, started=self.alive[pid], boot_ticks=self.ticks.get(pid))

    def domains(self) -> tuple[str, ...]:
        return self.domain

    def clock_ticks(self) -> int | None:
        return 100


class ManualClock:
    """``now`` moves only by ``sleep`` (or ``advance``)."""

    def __init__(self, start: datetime) -> None:
        self.instant = start
        self.sleeps: list[float] = []

    def now(self) -> datetime:
        return self.instant

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.instant += timedelta(seconds=seconds)

    def advance(self, seconds: float) -> None:
        self.instant += timedelta(seconds=seconds)


def live_env(home: Path, now: datetime, processes: Processes | None = None,
             clock: Any = None) -> Env:
    from pysift.model.env import FixedClock

    return Env(claude_home=home, environ={}, cwd=home, clock=clock or FixedClock(now),
               processes=processes or Processes())


# -- background-task records ----------------------------------------------------------------


def bg_shell(command: str, description: str, call_id: str, **kw: Any) -> dict:
    return assistant(tool_use("Bash", {"command": command, "description": description,
                                       "run_in_background": True}, id=call_id), **kw)


def bg_shell_receipt(call_id: str, task_id: str, output: str = "/tmp/claude/tasks") -> dict:
    text = (f"Command running in background with ID: {task_id}. Output is being written to: "
            f"{output}/{task_id}.output")
    return tool_result(call_id, text, tool_use_result={
        "stdout": "", "stderr": "", "interrupted": False, "isImage": False,
        "backgroundTaskId": task_id})


def monitor_arm(command: str, description: str, call_id: str) -> dict:
    return assistant(tool_use("Monitor", {"description": description, "command": command,
                                          "timeout_ms": 3600000, "persistent": False},
                              id=call_id))


def monitor_receipt(call_id: str, task_id: str) -> dict:
    return tool_result(call_id, f"Monitor started (task {task_id}, timeout 3600000ms).",
                       tool_use_result={"taskId": task_id})


def async_agent_launch(call_id: str, agent_id: str, description: str) -> list[dict]:
    return [
        assistant(tool_use("Agent", {"description": description, "prompt": "go",
                                     "subagent_type": "general-purpose",
                                     "run_in_background": True}, id=call_id)),
        tool_result(call_id, [{"type": "text", "text": (
            f"Async agent launched successfully.\nagentId: {agent_id} (internal ID - do not "
            "mention to user.)\nThe agent is working in the background.")}],
            tool_use_result={"isAsync": True, "status": "async_launched", "agentId": agent_id,
                             "description": description,
                             "outputFile": f"/tmp/claude/tasks/{agent_id}.output"}),
    ]


def pulse(task_id: str, status: str, summary: str, *, tool_use_id: str | None = None,
          event: str | None = None) -> str:
    parts = ["<task-notification>", f"<task-id>{task_id}</task-id>"]
    if tool_use_id:
        parts.append(f"<tool-use-id>{tool_use_id}</tool-use-id>")
    if status:
        parts.append(f"<status>{status}</status>")
    if event:
        parts.append(f"<event>{event}</event>")
    parts += [f"<summary>{summary}</summary>", "</task-notification>"]
    return "\n".join(parts)
