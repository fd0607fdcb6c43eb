"""The harness session registry: ``<claude-home>/sessions/<pid>.json``.

Claude Code keeps one row per running TOP-LEVEL session (a subagent has none; pysift
never makes one up): ``{pid, sessionId, cwd, startedAt, procStart, status,
statusUpdatedAt, updatedAt, pidDomain, entrypoint, kind, …}``. The row is written on a
status TRANSITION only, never as a heartbeat: an hours-old ``statusUpdatedAt`` means the
status has not changed, not that the row is stale. A SIGKILLed session leaves its row
behind, which the pid probe (``live.process``) refutes.

``status`` is the binary's closed set ``busy | shell | idle | waiting``: ``busy`` while
loading or delegating, ``waiting`` while a dialog blocks the session (a question, a
permission prompt, a plan approval, a sandbox or worker request), ``idle`` otherwise,
relabelled ``shell`` while a background shell is open (so ``shell`` is idle, never a
running shape). A ``claude -p`` session writes a row whose status is null and never
transitions.

Rows are read as data: a row that is not JSON, or not a JSON object, is counted and named
(it may be this session's, written mid-way); files beside the rows (``<pid>.<hash>.key``)
are not rows.
"""

from __future__ import annotations

import os
from dataclasses import field
from pathlib import Path
from typing import Any

from pysift.disk import jsonline
from pysift.disk.mapped import read_regular
from pysift.model.fastdata import dataclass

STATUSES = ("busy", "shell", "idle", "waiting")
#: a registry row is a few hundred bytes; anything past this is not one
_ROW_CAP = 1 << 20


@dataclass(frozen=True, slots=True)
class RegistryRow:
    path: Path
    pid: int | None
    status: str | None
    has_status: bool  # the key is there (a ``claude -p`` row carries it as null)
    status_updated_ms: int | None
    updated_ms: int | None
    proc_start: object  # ``procStartFt`` when present, else ``procStart`` (raw)
    proc_start_is_filetime: bool
    pid_domain: str | None
    entrypoint: str | None


@dataclass
class RegistryLookup:
    row: RegistryRow | None = None
    dir_exists: bool = False
    others: list[RegistryRow] = field(default_factory=list)  # older rows naming the session
    unreadable: list[str] = field(default_factory=list)  # "<file>: <why>"

    def notes(self) -> list[str]:
        out: list[str] = []
        if self.others:
            names = ", ".join(r.path.name for r in self.others)
            out.append(f"{len(self.others) + 1} registry rows name this session; the newest "
                       f"({self.row.path.name if self.row else '?'}) is read, not {names}")
        if self.unreadable and self.row is None:
            shown = "; ".join(self.unreadable[:5])
            more = f" (+{len(self.unreadable) - 5} more)" if len(self.unreadable) > 5 else ""
            out.append(f"{len(self.unreadable)} registry row(s) could not be read ({shown}"
                       f"{more}): if one is this session's, its status is unknown")
        return out


def _int(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _row(path: Path, obj: dict[str, Any]) -> RegistryRow:
    if "procStartFt" in obj and obj["procStartFt"] is not None:
        start, filetime = obj["procStartFt"], True
    else:
        start, filetime = obj.get("procStart"), False
    status = obj.get("status")
    return RegistryRow(
        path=path,
        pid=_int(obj.get("pid")),
        status=status if isinstance(status, str) else None,
        has_status="status" in obj,
        status_updated_ms=_int(obj.get("statusUpdatedAt")),
        updated_ms=_int(obj.get("updatedAt")),
        proc_start=start,
        proc_start_is_filetime=filetime,
        pid_domain=_str(obj.get("pidDomain")),
        entrypoint=_str(obj.get("entrypoint")),
    )


def lookup(claude_home: Path, session_id: str) -> RegistryLookup:
    """The row naming ``session_id`` (the newest when several do)."""
    directory = claude_home / "sessions"
    out = RegistryLookup()
    try:
        entries = [e for e in os.scandir(directory)
                   if e.name.endswith(".json") and not e.name.startswith(".")]
    except (FileNotFoundError, NotADirectoryError):
        return out
    except OSError as exc:
        out.dir_exists = True
        out.unreadable.append(f"{directory}: {exc.strerror or exc}")
        return out
    out.dir_exists = True
    found: list[tuple[tuple[int, float], RegistryRow]] = []
    wanted = session_id.encode()
    for entry in sorted(entries, key=lambda e: e.name):
        path = Path(entry.path)
        try:
            data = read_regular(path)
        except FileNotFoundError:
            continue  # removed between the listing and the read (a session ended)
        except OSError as exc:
            out.unreadable.append(f"{entry.name}: {exc.strerror or exc}")
            continue
        if len(data) > _ROW_CAP:
            out.unreadable.append(f"{entry.name}: {len(data)} bytes, too large for a row")
            continue
        try:
            obj = jsonline.loads(data)
        except jsonline.JSONDecodeError:
            out.unreadable.append(f"{entry.name}: not JSON")
            continue
        if not isinstance(obj, dict):
            out.unreadable.append(f"{entry.name}: not a JSON object")
            continue
        if wanted not in data or obj.get("sessionId") != session_id:
            continue
        row = _row(path, obj)
        try:
            mtime = entry.stat().st_mtime
        except OSError:
            mtime = 0.0
        newest = max(row.status_updated_ms or 0, row.updated_ms or 0)
        found.append(((newest, mtime), row))
    if found:
        found.sort(key=lambda item: item[0], reverse=True)
        out.row = found[0][1]
        out.others = [row for _, row in found[1:]]
    return out


def archive_note(claude_home: Path) -> str | None:
    """What status and wait say over a home ``pysift archive`` made (it holds
    ``.pysift/archive.json``), else None: the archive keeps the transcripts, not the live
    state read beside them (the registry rows, the task lists), so a missing row or task
    list there is no evidence the session has none; the homes it was made from are named
    when the manifest can be read."""
    from pysift.disk.home import ARCHIVE_MANIFEST

    marker = claude_home / ARCHIVE_MANIFEST
    try:
        data = read_regular(marker)
    except FileNotFoundError:
        return None
    except OSError:
        if not marker.exists():
            return None
        data = b""  # an archive whose manifest cannot be read is still an archive
    try:
        obj = jsonline.loads(data) if data else None
    except jsonline.JSONDecodeError:
        obj = None
    homes = obj.get("homes") if isinstance(obj, dict) else None
    named = [h for h in homes if isinstance(h, str)] if isinstance(homes, list) else []
    origin = f" of {', '.join(named)}" if named else ""
    return (f"this Claude home is an archive{origin} made by `pysift archive` ({marker}): "
            f"it keeps the transcripts but not the registry (sessions/) or the task lists "
            f"(tasks/), so no registry row and no task list here do not mean the session "
            f"has none; for its live state run status over the home it was archived from")
