"""A byte progress bar on stderr, for a long write when stderr is a terminal (rich)."""

from __future__ import annotations

import sys
from typing import Any


class ByteBar:
    """``engines.archive.Progress`` drawn with rich on stderr; transient (it leaves no line
    behind), so what stays on the terminal is the report."""

    def __init__(self, description: str) -> None:
        self.description = description
        self._bar: Any = None
        self._task: Any = None

    def start(self, total_bytes: int, files: int) -> None:
        if total_bytes <= 0:
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )

        self._bar = Progress("[progress.description]{task.description}", BarColumn(),
                             DownloadColumn(), TransferSpeedColumn(), TimeRemainingColumn(),
                             console=Console(file=sys.stderr), transient=True)
        self._bar.start()
        self._task = self._bar.add_task(f"{self.description} ({files} files)",
                                        total=total_bytes)

    def grow(self, more_bytes: int, more_files: int) -> None:
        """The plan files, known once the bindings are read, join the total."""
        if self._bar is not None and more_bytes > 0:
            task = self._bar.tasks[0]
            self._bar.update(self._task, total=(task.total or 0) + more_bytes)
        elif more_bytes > 0:
            self.start(more_bytes, more_files)

    def advance(self, written: int) -> None:
        if self._bar is not None:
            self._bar.advance(self._task, written)

    def file_done(self) -> None:
        return None

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
