"""The harness task list: ``<claude-home>/tasks/<owner>/*.json``, as it is now.

Claude Code's task tools keep one JSON file per task (``{id, subject, description,
activeForm, status, blocks, blockedBy}``, string ids) in a per-session directory named in
one of two forms seen on real disks: the full session uuid, or ``session-<first 8
characters of it>``. Both are read and merged (a task id found in both is taken from the
full-uuid directory). ``status`` is an open set (``pending``, ``in_progress``,
``completed`` seen): everything not ``completed`` is an open task, shown with its status
verbatim, ``in_progress`` first, then by id.
"""

from __future__ import annotations

import os
from dataclasses import field
from pathlib import Path

from pysift.disk import jsonline
from pysift.disk.mapped import read_regular
from pysift.model.fastdata import dataclass

_FILE_CAP = 4 << 20


@dataclass(frozen=True, slots=True)
class Task:
    id: str
    subject: str
    status: str
    blocked_by: tuple[str, ...]


@dataclass
class TasksReport:
    found: bool = False  # a task directory exists for the session (else: never used)
    open: list[Task] = field(default_factory=list)
    completed: int = 0
    dirs: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unreadable: int = 0  # task dirs and files that exist but could not be read


def _ident(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return "?"


def _order(task: Task) -> tuple[int, int, str]:
    number = int(task.id) if task.id.isascii() and task.id.isdigit() else 1 << 62
    return (0 if task.status == "in_progress" else 1, number, task.id)


def read_tasks(claude_home: Path, session_id: str) -> TasksReport:
    out = TasksReport()
    root = claude_home / "tasks"
    seen: set[str] = set()
    bad: list[str] = []
    for name in dict.fromkeys((session_id, f"session-{session_id[:8]}")):
        directory = root / name
        try:
            entries = sorted(e.name for e in os.scandir(directory) if e.name.endswith(".json"))
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as exc:
            out.found = True
            out.unreadable += 1
            out.notes.append(f"cannot read the task list {directory}: {exc.strerror or exc}; "
                             "its tasks are unknown")
            continue
        out.found = True
        out.dirs.append(name)
        for entry in entries:
            try:
                data = read_regular(directory / entry)
                obj = jsonline.loads(data) if len(data) <= _FILE_CAP else None
            except OSError:
                out.unreadable += 1
                obj = None
            except jsonline.JSONDecodeError:
                obj = None
            if not isinstance(obj, dict):
                bad.append(f"{name}/{entry}")
                continue
            ident = _ident(obj.get("id", entry[: -len(".json")]))
            if ident in seen:
                continue
            seen.add(ident)
            status = obj.get("status")
            if not isinstance(status, str):
                status = "(no status)"
            if status == "completed":
                out.completed += 1
                continue
            subject = obj.get("subject")
            blocked = obj.get("blockedBy")
            out.open.append(Task(
                id=ident,
                subject=subject if isinstance(subject, str) else "(no subject)",
                status=status,
                blocked_by=tuple(_ident(b) for b in blocked) if isinstance(blocked, list) else ()))
    out.open.sort(key=_order)
    if bad:
        shown = ", ".join(bad[:5]) + (f" (+{len(bad) - 5} more)" if len(bad) > 5 else "")
        out.notes.append(f"{len(bad)} task file(s) could not be read as JSON objects ({shown}); "
                         "they are not counted")
    return out
