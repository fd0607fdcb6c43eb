"""A dir that cannot be listed, for tests run as root (a mode-0 dir still lists for root):
``os.scandir`` of that one path fails with EACCES, as a permission would make it."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest


def deny_listing(monkeypatch: pytest.MonkeyPatch, locked: Path) -> None:
    """Listing ``locked`` fails with EACCES; every other path lists as before."""
    real = os.scandir

    def guarded(path=".", *a, **kw):  # type: ignore[no-untyped-def]
        if os.fspath(path) == os.fspath(locked):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real(path, *a, **kw)

    monkeypatch.setattr(os, "scandir", guarded)
