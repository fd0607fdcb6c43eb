"""The outside world, captured once by the CLI and passed down.

Nothing below ``cli/`` reads ``os.environ`` or the real clock: it receives an ``Env``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import field
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pysift.model.fastdata import dataclass

if TYPE_CHECKING:
    from pysift.disk.cache_place import CacheSettings


class SystemClock:
    """The one place that touches ``time``."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


@dataclass(frozen=True)
class FixedClock:
    """A clock pinned at one instant (tests, reproducible runs)."""

    instant: datetime

    def now(self) -> datetime:
        return self.instant

    def sleep(self, seconds: float) -> None:  # pragma: no cover - trivial
        return None


@dataclass(frozen=True, kw_only=True)
class Env:
    claude_home: Path
    environ: Mapping[str, str] = field(default_factory=dict)
    cwd: Path = field(default_factory=Path.cwd)
    clock: SystemClock | FixedClock = field(default_factory=SystemClock)
    tz: tzinfo | None = None  # None = the system local zone
    # the process table status/wait probe for an owner pid's liveness (None = the system's,
    # through psutil; tests pass a fake: ``live.process.ProcessTable``)
    processes: Any = None
    cache: CacheSettings | None = None  # None = no cache (tests, and callers that built no CLI)

    @property
    def projects_root(self) -> Path:
        return self.claude_home / "projects"

    def now(self) -> datetime:
        return self.clock.now()
