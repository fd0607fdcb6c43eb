"""Which recorded paths a ``recover --file`` value names, and the byte needle that gates a
transcript for it.

A value written as an absolute path (POSIX ``/a/b.py``, Windows ``C:\\a\\b.py`` or a UNC
``\\\\srv\\s\\b.py``) matches a recorded path that names the same file: the same text, or
the same path once normalised (``..``/``.``/doubled separators; Windows paths compare
without case and with either separator). A relative recorded path (some subagent
transcripts record them) is first joined to the recording record's own ``cwd``. A value
written relative (``src/app.py``, ``app.py``) is the basename-suffix form: it matches
every recorded path that ends with it at a component boundary (``b.py`` never matches
``ab.py``); when that names two different files the caller refuses to guess.
"""

from __future__ import annotations

import ntpath
import posixpath
import re

from pysift.disk.layout import windows_identity
from pysift.model.fastdata import dataclass

_WINDOWS_ABS = re.compile(r"^(?:[A-Za-z]:[\\/]|\\\\|//)")
#: characters a basename keeps verbatim in every spelling a transcript can give it (a
#: JSON string, a quoted or backslash-escaped shell word); non-ASCII is handled by the
#: needle set, which also searches its \uXXXX spelling
_SAFE = re.compile(r"[A-Za-z0-9._+@%,=~-]|[^\x00-\x7f\ud800-\udfff]")
#: a shorter gate needle is too common to skip a transcript
GATE_MIN_CHARS = 3


def is_windows_path(path: str) -> bool:
    return bool(_WINDOWS_ABS.match(path))


def is_absolute(path: str) -> bool:
    return path.startswith("/") or is_windows_path(path)


def basename(path: str) -> str:
    """The last component, split on either separator."""
    trimmed = path.rstrip("/\\")
    return trimmed.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]


def normalise(path: str) -> str:
    """A comparable spelling: POSIX paths normpath'd, Windows paths also case-folded with
    ``/`` separators."""
    if is_windows_path(path) or ("\\" in path and "/" not in path and ":" in path[:3]):
        return windows_identity(path).replace("\\", "/")
    return posixpath.normpath(path) if path else path


def resolve(path: str, cwd: str | None) -> str:
    """A recorded path made absolute against the record's ``cwd`` (when it is relative
    and the cwd is known); otherwise as recorded."""
    if not path or is_absolute(path) or not cwd or not is_absolute(cwd):
        return path
    if is_windows_path(cwd):
        return ntpath.join(cwd, path)
    return posixpath.join(cwd, path)


def gate_needle(value: str) -> str | None:
    """The longest run of ``value``'s basename that every spelling of the path keeps
    verbatim, or None when it is too short to gate on (then every transcript is read)."""
    name = basename(value)
    best = ""
    run: list[str] = []
    for char in name + "\0":
        if _SAFE.fullmatch(char):
            run.append(char)
            continue
        if len(run) > len(best):
            best = "".join(run)
        run = []
    return best if len(best.encode("utf-8")) >= GATE_MIN_CHARS else None


@dataclass(frozen=True)
class Target:
    """One ``--file`` value, resolved for matching."""

    given: str  # as typed (a resolved @plan path arrives here already substituted)
    absolute: bool
    norm: str  # normalise(given) for an absolute value; the suffix (with / separators) else
    base: str
    needle: str | None

    @property
    def windows(self) -> bool:
        """A Windows path: its names compare without case."""
        return is_windows_path(self.given) or "\\" in self.given

    @classmethod
    def of(cls, value: str) -> Target:
        absolute = is_absolute(value)
        if absolute:
            norm = normalise(value)
        else:
            norm = posixpath.normpath(value.replace("\\", "/")) if value else value
        return cls(value, absolute, norm, basename(value), gate_needle(value))

    def matches(self, recorded: str, cwd: str | None = None) -> str | None:
        """The identity (normalised absolute path, or the recorded spelling when it stays
        relative) of ``recorded`` when it names this target, else None."""
        if not recorded:
            return None
        if basename(recorded) != self.base and not _same_case_blind(recorded, self.base):
            return None
        full = resolve(recorded, cwd)
        norm = normalise(full)
        if self.absolute:
            if recorded == self.given or norm == self.norm:
                return norm
            return None
        suffix = self.norm
        text = norm.replace("\\", "/")
        if windowsish(full):
            suffix = suffix.lower()
        if text == suffix or text.endswith("/" + suffix):
            return norm
        return None


def windowsish(path: str) -> bool:
    return is_windows_path(path)


def _same_case_blind(recorded: str, base: str) -> bool:
    """Windows names compare without case (the basename pre-check must not drop them)."""
    return is_windows_path(recorded) and basename(recorded).lower() == base.lower()
