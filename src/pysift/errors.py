"""Typed errors raised deep and mapped to exit codes once, in ``cli.app.main``.

Every message says what is wrong and what to do next: the reader is usually an agent
that will act on the line without checking.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    ERROR = 1
    USAGE = 2
    TIMEOUT = 124
    INTERRUPTED = 130


class SiftError(Exception):
    """Base of every pysift error; exits 1 unless a subclass says otherwise."""

    exit_code: ExitCode = ExitCode.ERROR


class UsageError(SiftError):
    """A bad flag value or combination found after parsing (exit 2)."""

    exit_code = ExitCode.USAGE


class TargetError(SiftError):
    """A malformed, unmatched or ambiguous target token, or an empty pinned scope."""


class NotFoundError(SiftError):
    """An explicit address (show --line/--uuid/--turn, an image id) that names nothing."""


class IncompleteError(SiftError):
    """A reconstruction that cannot be completed from the transcript."""


class SourceError(SiftError):
    """A transcript or sidecar that cannot be read at all."""
