"""Claude Code's own file-history checkpoint store, listed for one file.

Claude Code copies a file into ``<home>/file-history/<session>/<key>@v<N>`` before a tool
edits it, ``key`` being the first 16 hex digits of the sha256 of the file's absolute path.
The store is the harness's, not the transcript's: it holds tool-layer writes only (a shell
command or an editor never lands there), it is pruned wholesale, and the ``@vN`` counter
restarts in every session dir and is reused, so only a backup's mtime orders it among the
others. pysift lists it and never merges its content into a reconstruction: nothing in the
transcript anchors a checkpoint's bytes to a moment of the replay.

Read-only: one directory listing per session dir and one ``stat`` per matching entry.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import field
from pathlib import Path

from pysift.model.fastdata import dataclass

STORE_DIR = "file-history"
KEY_HEX = 16


def store_key(absolute_path: str) -> str:
    """The store's key for a file: sha256 of its absolute path, first 16 hex digits."""
    return hashlib.sha256(absolute_path.encode("utf-8", "surrogateescape")).hexdigest()[:KEY_HEX]


@dataclass(frozen=True, slots=True)
class Backup:
    session_id: str
    version: str  # the ``vN`` token as the file name spells it
    path: str
    bytes: int
    mtime_ns: int


@dataclass(slots=True)
class StoreListing:
    store: str
    key: str
    present: bool  # the store dir exists and is a directory
    backups: list[Backup] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)

    @property
    def sessions(self) -> int:
        return len({b.session_id for b in self.backups})


def list_backups(claude_home: Path, absolute_path: str,
                 sessions: set[str] | None = None) -> StoreListing:
    """Every backup of ``absolute_path`` in the store, oldest first (by mtime, then
    session and version, so ties print in a stable order).

    ``sessions`` limits the walk to those session dirs (None: every dir in the store). A
    session dir or entry that cannot be read is reported in ``unreadable``, never skipped
    in silence; an entry that is no regular file (a dir, a FIFO) is not a backup.
    """
    store = claude_home / STORE_DIR
    key = store_key(absolute_path)
    listing = StoreListing(store=str(store), key=key, present=store.is_dir())
    if not listing.present:
        return listing
    try:
        names = sorted(os.listdir(store)) if sessions is None else sorted(sessions)
    except OSError as exc:
        listing.unreadable.append((str(store), exc.strerror or type(exc).__name__))
        return listing
    prefix = key + "@"
    for session_id in names:
        session_dir = store / session_id
        try:
            entries = os.scandir(session_dir)
        except FileNotFoundError:
            continue  # a named session with no store dir: no backups, nothing hidden
        except NotADirectoryError:
            continue  # a stray file at the store's top level is no session dir
        except OSError as exc:
            listing.unreadable.append((str(session_dir), exc.strerror or type(exc).__name__))
            continue
        with entries:
            for entry in entries:
                if not entry.name.startswith(prefix):
                    continue
                version = entry.name[len(prefix):]
                if not _is_version(version):
                    continue
                try:
                    st = entry.stat(follow_symlinks=True)
                except OSError as exc:
                    listing.unreadable.append((entry.path, exc.strerror or type(exc).__name__))
                    continue
                if not stat.S_ISREG(st.st_mode):
                    continue
                listing.backups.append(Backup(session_id, version, entry.path, st.st_size,
                                              st.st_mtime_ns))
    listing.backups.sort(key=lambda b: (b.mtime_ns, b.session_id, _version_number(b.version)))
    return listing


def _is_version(token: str) -> bool:
    return (len(token) > 1 and token[0] == "v" and token[1:].isascii()
            and token[1:].isdigit())


def _version_number(token: str) -> int:
    return int(token[1:])
