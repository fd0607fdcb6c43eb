"""Shell completion (bash, zsh, fish) through typer: subcommands and flags come from the
command tree; these callbacks add the values (SPEC §16).

``@`` targets complete from the sessions of the resolved Claude home (``--claude-home``
on the line, else ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``): the shortest unambiguous
prefix of each session's uuid (8 hex characters at least), described by its first human
message, newest sessions first. Nothing here runs outside a completion request.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Any

#: at most this many sessions are offered (the newest): a shell lists them all
MAX_SESSIONS = 60
#: a session's description reads at most its first bytes
HEAD_BYTES = 256 * 1024
DESCRIPTION_CHARS = 70
PREFIX_MIN = 8


def formats(incomplete: str) -> list[tuple[str, str]]:
    choices = [("text", "for a reader"), ("json", "NDJSON: header, kind-tagged rows, summary")]
    return [c for c in choices if c[0].startswith(incomplete)]


def count_axes(incomplete: str) -> list[str]:
    from pysift.commands.search import COUNT_BY_AXES

    return [axis for axis in COUNT_BY_AXES if axis.startswith(incomplete)]


def labels(incomplete: str) -> list[str]:
    """Label selectors: the 34 leaves and every prefix of them (``user``, ``agent.tool``),
    completed after the last comma of a list (``user,agent.m`` -> ``user,agent.message``)."""
    from pysift.model.labels import ALL

    head, _, last = incomplete.rpartition(",")
    lead = f"{head}," if head else ""
    paths: set[str] = set()
    for leaf in ALL:
        parts = leaf.split(".")
        paths.update(".".join(parts[:n]) for n in range(1, len(parts) + 1))
    return [lead + p for p in sorted(paths) if p.startswith(last)]


def targets(ctx: Any, incomplete: str) -> list[tuple[str, str]]:
    """``@`` session targets of the resolved home; nothing for other words (the shell
    then completes paths)."""
    if not incomplete.startswith("@"):
        return []
    home = _home(ctx)
    if home is None:
        return []
    wanted = incomplete[1:].lower().replace("-", "")
    out: list[tuple[str, str]] = []
    if "main".startswith(incomplete[1:]):
        out.append(("@main", "the calling session ($CLAUDE_CODE_SESSION_ID)"))
    out.extend(session_targets(home, wanted))
    return out


def session_targets(home: Path, wanted: str) -> list[tuple[str, str]]:
    """``(@prefix, first human message)`` of the sessions whose dashless uuid starts with
    ``wanted``, newest first, at most ``MAX_SESSIONS``."""
    from pysift.disk.layout import top_level_transcript
    from pysift.engines.listing import first_human_message
    from pysift.model.ids import is_uuid

    sessions: list[tuple[float, str, Path]] = []
    all_ids: list[str] = []
    try:
        projects = list(os.scandir(home / "projects"))
    except OSError:
        return []
    for project in projects:
        try:
            if not project.is_dir():
                continue
            entries = list(os.scandir(project.path))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if not name.endswith(".jsonl") or not is_uuid(name[:-6]):
                continue
            sid = name[:-6].lower()
            all_ids.append(sid)
            if not sid.replace("-", "").startswith(wanted):
                continue
            try:
                mtime = entry.stat().st_mtime
            except OSError:
                continue
            sessions.append((mtime, sid, Path(entry.path)))
    sessions.sort(reverse=True)
    out = []
    for _, sid, path in sessions[:MAX_SESSIONS]:
        said = first_human_message(top_level_transcript(path), HEAD_BYTES)
        out.append((f"@{_short(sid, all_ids)}", _describe(said)))
    return out


def _short(sid: str, all_ids: list[str]) -> str:
    """The shortest prefix (8 characters at least, whole dash groups past 11) that names
    ``sid`` alone; the full uuid when no shorter one does."""
    for n in (PREFIX_MIN, 11):
        head = sid[:n]
        if sum(1 for other in all_ids if other.startswith(head)) == 1:
            return head
    return sid


def _describe(said: str | None) -> str:
    if not said:
        return "(no human message)"
    text = " ".join(said.split())
    return text if len(text) <= DESCRIPTION_CHARS else text[: DESCRIPTION_CHARS - 1] + "…"


def _home(ctx: Any) -> Path | None:
    """The home the line names (``--claude-home`` before the command, or anywhere in the
    words the shell passed), else the environment's."""
    from pysift.disk.layout import resolve_home

    flag = ctx.find_root().params.get("claude_home") if ctx is not None else None
    if flag is None:
        flag = _home_in_words()
    try:
        home = resolve_home(flag, os.environ, Path.home())
    except Exception:  # noqa: BLE001 - an empty flag while typing: nothing to offer
        return None
    return home if home.is_absolute() else Path.cwd() / home


def _home_in_words() -> str | None:
    """``--claude-home DIR`` anywhere among the words being completed (bash and zsh pass
    them in COMP_WORDS, fish in _TYPER_COMPLETE_ARGS)."""
    raw = os.environ.get("COMP_WORDS") or os.environ.get("_TYPER_COMPLETE_ARGS") or ""
    try:
        words = shlex.split(raw)
    except ValueError:
        words = raw.split()
    for i, word in enumerate(words):
        if word == "--claude-home" and i + 1 < len(words):
            return os.path.expanduser(words[i + 1])
        if word.startswith("--claude-home="):
            return os.path.expanduser(word.split("=", 1)[1])
    return None
