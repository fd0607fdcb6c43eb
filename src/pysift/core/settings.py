"""Claude Code's settings scopes, read as Claude Code merges them (SPEC §11, §14).

User ``<claude-home>/settings.json``, then the project's ``<root>/.claude/settings.json``,
then its ``<root>/.claude/settings.local.json``: a later scope overrides an earlier one,
key by key. Managed (enterprise) settings are not read. Each file is read only when it is
a regular file (``disk.mapped.read_regular``); a scope that cannot be read or is not JSON
is reported to the caller, which says what it falls back to.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from pysift.disk.mapped import read_regular
from pysift.model.fastdata import dataclass


def settings_files(claude_home: Path, project_root: str | None) -> list[Path]:
    """The settings scopes in precedence order (a later file overrides an earlier one)."""
    files = [claude_home / "settings.json"]
    if project_root:
        files += [Path(project_root) / ".claude" / "settings.json",
                  Path(project_root) / ".claude" / "settings.local.json"]
    return files


@dataclass(frozen=True)
class Scope:
    path: Path
    values: dict[str, Any]  # {} when the file is absent, unreadable or not an object
    problem: str | None = None  # "cannot read X: why" / "X is not valid JSON"


def read_scopes(files: list[Path]) -> Iterator[Scope]:
    """Each present scope in order; an absent file is the normal case and yields nothing."""
    for settings in files:
        try:
            raw = read_regular(settings)
        except FileNotFoundError:
            continue
        except OSError as exc:  # there, but a dir, a FIFO or locked: said, never waited on
            yield Scope(settings, {}, f"cannot read {settings}: {exc.strerror or exc}")
            continue
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            yield Scope(settings, {}, f"{settings} is not valid JSON")
            continue
        yield Scope(settings, obj if isinstance(obj, dict) else {})
