"""Where Claude Code keeps transcripts, and how a cwd names its project dir (SPEC §1, §2).

The tree under ``<claude-home>/projects``::

    <ENCODED>/<session-uuid>.jsonl                               top-level transcript
    <ENCODED>/<session-uuid>/subagents/agent-<id>.jsonl          built-in Task/Agent subagent
    <ENCODED>/<session-uuid>/subagents/agent-<id>.meta.json      its companion (not a transcript)
    <ENCODED>/<session-uuid>/subagents/workflows/wf_<id>/agent-<id>.jsonl   workflow subagent
    <ENCODED>/<session-uuid>/subagents/workflows/wf_<id>/journal.jsonl      event log (never read)
    <ENCODED>/<session-uuid>/elicitations.jsonl                  the pending-elicitation sidecar

``<ENCODED>`` is the session's START cwd run through ``encode_cwd``. The encoding is
many-to-one, so it is never reversed: the human cwd comes from a record's ``cwd`` field.
Everything here takes paths as arguments; nothing reads the process environment. What a
walk finds but cannot read goes into the caller's ``Unreadable`` (every enumerating
function takes one), never into module state.
"""

from __future__ import annotations

import errno
import os
import re
import stat as _stat
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import field
from pathlib import Path
from typing import Any

import orjson
import unicodedata2

from pysift.disk import jsonline
from pysift.disk.home import CLAUDE_CONFIG_DIR, expand_user, resolve_home  # noqa: F401
from pysift.disk.lines import iter_lines
from pysift.disk.mapped import open_buffer, read_regular
from pysift.model.fastdata import dataclass
from pysift.model.ids import agent_id_from_stem, is_uuid

MAX_SANITIZED_LENGTH = 200  # Claude Code's cap on an encoded dir name (longer: + "-<hash>")
SUBAGENTS_DIR = "subagents"
WORKFLOWS_DIR = "workflows"
SIDECAR_NAME = "elicitations.jsonl"

KIND_BUILTIN = "builtin-task"
KIND_WORKFLOW = "workflow"

_HEAD_BYTES = 64 * 1024
_BMP_MAX = 0xFFFF  # above it a code point is two UTF-16 units (a surrogate pair)
_BUILTIN_DEPTH = 4  # path parts of project/<uuid>/subagents/agent-*.jsonl
_WORKFLOW_DEPTH = 6  # … of project/<uuid>/subagents/workflows/wf_*/agent-*.jsonl
_CWD_FIELD = re.compile(rb'"cwd":"((?:[^"\\]|\\.)*)"')


# -- the Claude home ------------------------------------------------------------------------------


# -- cwd -> project dir name ----------------------------------------------------------------------


#: a path Claude Code on Windows recorded: a drive letter (``D:\`` or ``d:/``) or a UNC share
_WINDOWS_ROOTED = re.compile(r"(?:[A-Za-z]:[\\/]|\\\\)")


def is_windows_rooted(path: str) -> bool:
    """Whether ``path`` starts as a Windows absolute path (a drive letter or a UNC
    share): the one test of the commands that read such recorded paths."""
    return _WINDOWS_ROOTED.match(path) is not None


def windows_identity(path: str) -> str:
    """What names one file among the spellings of a Windows path: Win32 reads ``.`` and
    ``..`` lexically, either separator, any case (``D:\\w\\x\\..\\a.txt`` is
    ``d:/w/a.txt``). Case by ``str.lower`` (ntpath's), not ``casefold``: NTFS compares
    through a one-to-one upcase table, so ``straße.txt`` and ``strasse.txt`` are two
    files. The one rule of ``files``, ``recover`` and ``plan`` for such paths."""
    import ntpath

    return ntpath.normcase(ntpath.normpath(path))


def encode_cwd(cwd: str | os.PathLike[str]) -> str:
    """Encode a cwd to its project dir name exactly as Claude Code does (SPEC §2.1).

    NFC first, then one ``-`` per UTF-16 code unit that is not ASCII ``[A-Za-z0-9]``: an
    astral character (two surrogate units) becomes two dashes, dashes are never collapsed,
    case is kept. ``C:\\Users\\x`` gives ``C--Users-x``; a UNC ``\\\\server\\share`` gives
    ``--server-share``. The result is the raw encoding; the 200-char cap is applied by the
    lookup (``find_project_dir``), because the hash suffix cannot be recomputed.
    """
    text = unicodedata2.normalize("NFC", os.fspath(cwd))
    out: list[str] = []
    for ch in text:
        if ch.isascii() and ch.isalnum():
            out.append(ch)
        elif ord(ch) > _BMP_MAX:
            out.append("--")
        else:
            out.append("-")
    return "".join(out)


def read_first_cwd(path: Path) -> str | None:
    """The ``cwd`` of a transcript's first record that has one, from a bounded head read
    (never raises). Many files open with records that carry none (a queue operation, a
    permission mode, a snapshot, a summary)."""
    try:
        with path.open("rb") as fh:
            head = fh.read(_HEAD_BYTES)
    except OSError:
        return None
    for line in head.split(b"\n"):
        if b'"cwd"' not in line:
            continue
        try:
            obj = jsonline.loads(line)
        except jsonline.JSONDecodeError:
            # a line longer than the head (an image on it): pull the field out of the
            # bytes we have; ``cwd`` sits in the envelope, near the start
            found = _CWD_FIELD.search(line)
            if found is None:
                continue
            try:
                value = jsonline.loads(b'"' + found.group(1) + b'"')
            except jsonline.JSONDecodeError:
                continue
            return value if isinstance(value, str) else None
        cwd = obj.get("cwd") if isinstance(obj, dict) else None
        if isinstance(cwd, str) and cwd:
            return cwd
    return None


def _dir_first_cwd(project_dir: Path, unread: Unreadable) -> str | None:
    for session in top_level_sessions(project_dir, unread=unread):
        cwd = read_first_cwd(session)
        if cwd is not None:
            return cwd
    return None


def find_project_dir(projects_root: Path, cwd: str, *, unread: Unreadable) -> Path | None:
    """The project dir holding sessions started in ``cwd``, or None.

    An encoded name over 200 chars is stored as ``<first-200>-<hash>`` with a hash that
    differs between the CLI and the SDK, so (like Claude Code's own ``findProjectDir``) the
    lookup prefix-scans for ``<first-200>-``. Two long paths sharing their first 200
    encoded chars are told apart by the first recorded ``cwd`` (NFC, as the encoding);
    when none of them records it, there is no answer rather than a guess.
    """
    encoded = encode_cwd(cwd)
    if len(encoded) <= MAX_SANITIZED_LENGTH:
        exact = projects_root / encoded
        return exact if is_dir(exact, unread=unread) else None
    prefix = encoded[:MAX_SANITIZED_LENGTH] + "-"
    matches = sorted(d for d in iter_project_dirs(projects_root, unread=unread)
                     if d.name.startswith(prefix))
    if len(matches) > 1:
        wanted = unicodedata2.normalize("NFC", cwd)
        for candidate in matches:
            recorded = _dir_first_cwd(candidate, unread)
            if recorded is not None and unicodedata2.normalize("NFC", recorded) == wanted:
                return candidate
        return None  # several dirs share the prefix and none records this cwd: no guess
    return matches[0] if matches else None


# -- what could not be read ----------------------------------------------------------------------

_MISSING = frozenset({errno.ENOENT, errno.ENOTDIR})


class Unreadable:
    """The dirs and files a walk found but could not read, each with the reason: their
    transcripts are missing from what the walk returns, which the caller must say. The
    caller makes one, hands it to every enumerating call, and reads it at the end
    (``core.resolve`` puts it on the ``Scope``); a walk that has no use for it passes a
    fresh one and says why."""

    __slots__ = ("_found",)

    def __init__(self) -> None:
        self._found: dict[str, str] = {}

    def note(self, path: Path | str, exc: OSError) -> None:
        """A dir or file that exists but cannot be read (a permission, an I/O error). A
        path that does not exist is no news (the layout probes for optional dirs)."""
        if exc.errno not in _MISSING:
            self._found.setdefault(os.fspath(path), exc.strerror or str(exc))

    def note_reason(self, path: Path | str, reason: str) -> None:
        self._found.setdefault(os.fspath(path), reason)

    def items(self) -> list[tuple[str, str]]:
        """``(path, reason)`` of everything noted, sorted by path."""
        return sorted(self._found.items())

    def __len__(self) -> int:
        return len(self._found)


def is_transcript_entry(entry: os.DirEntry[str], unread: Unreadable) -> bool:
    """``entry.is_file()`` for a ``*.jsonl`` entry; a symlink whose target is missing (a
    transcript moved to a disk that is not mounted), or an entry that is no file at all
    (a FIFO), is noted unreadable, not passed over in silence: the session exists, its
    bytes cannot be reached. May raise ``OSError``
    (a loop, a permission), which the caller notes."""
    if entry.is_file():
        return True
    if entry.is_symlink() and not os.path.exists(entry.path):
        unread.note_reason(entry.path, dangling_reason(entry.path))
    elif not entry.is_dir():  # a FIFO, a socket, a device: there, never read (a FIFO blocks)
        unread.note_reason(entry.path, NOT_REGULAR)
    return False


NOT_REGULAR = "not a regular file"


def dangling_reason(path: str | Path) -> str:
    """Why a symlink whose target is gone cannot be read (the readers' and archive's words)."""
    try:
        target = os.readlink(path)
    except OSError:
        target = "?"
    return f"a symlink to {target}, which does not exist"


def is_transcript_path(path: Path, *, unread: Unreadable, there: list[Path] | None = None
                       ) -> bool:
    """``is_file`` for a transcript a target names by its path (``<dir>/<uuid>.jsonl``):
    what is there but cannot be read as one, a symlink whose target is gone, a FIFO, a
    loop of links or a permission, is noted as ``is_transcript_entry`` notes it in a
    listing, never passed over as if nothing were there (a dir of that name is no
    transcript and no news). ``there`` gets the paths known to exist among them: a
    permission on a dir above hides whether the file exists at all."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            unread.note_reason(path, dangling_reason(path))
            _known(there, path)
        return False
    except OSError as exc:
        unread.note(path, exc)
        if exc.errno not in (errno.EACCES, errno.EPERM):  # a loop of links, an I/O error
            _known(there, path)
        return False
    if _stat.S_ISREG(st.st_mode):
        return True
    if not _stat.S_ISDIR(st.st_mode):
        unread.note_reason(path, NOT_REGULAR)
        _known(there, path)
    return False


def _known(there: list[Path] | None, path: Path) -> None:
    if there is not None:
        there.append(path)


def is_file(path: Path, *, unread: Unreadable) -> bool:
    """``path.is_file()``, False (and noted) when a permission hides the answer."""
    return _stat_says(path, path.is_file, unread)


def is_dir(path: Path, *, unread: Unreadable) -> bool:
    """``path.is_dir()``, False (and noted) when a permission hides the answer."""
    return _stat_says(path, path.is_dir, unread)


def _stat_says(path: Path, test: Callable[[], bool], unread: Unreadable) -> bool:
    try:
        return test()
    except OSError as exc:  # pathlib passes only "missing" errors as False
        unread.note(path, exc)
        return False


# ``Path._make_child_relpath`` (Python 3.11 and 3.12 have it: what ``iterdir`` joins a name
# read off a listing with): the child path made from the parent's parts without parsing
# the name again, 0.9 us against 3.4 for ``parent / name`` on the fifteenth session's
# Intel host, for the 2,428 transcripts of corpus B on every run. Another Python joins.
_CHILD_OF = getattr(Path, "_make_child_relpath", None)


def child_path(parent: Path, name: str) -> Path:
    """``parent / name`` for a ``name`` read off a listing of ``parent`` (one component,
    never ``.`` or ``..``), made without parsing it again where this Python allows."""
    if _CHILD_OF is None:
        return parent / name
    child: Path = _CHILD_OF(parent, name)
    if _TEXT_KEPT_BY_HAND:
        # Python 3.11 joins a path's parts into its text at its first ``str``: every walked
        # transcript's, serial before a whole-home listing's pool (~1.3 us each, 2,428 over
        # corpus B); the parent's text and the name are that text, but for the root and ``.``
        parent_text = str(parent)
        if parent_text not in ("/", "."):
            child._str = f"{parent_text}/{name}"  # type: ignore[attr-defined]
    return child


# (3.12's ``_make_child_relpath`` sets the text itself; 3.11's leaves it to ``__str__``)
_TEXT_KEPT_BY_HAND = _CHILD_OF is not None and sys.version_info < (3, 12)


def _entries(directory: Path | str, unread: Unreadable) -> list[os.DirEntry[str]]:
    """A dir's entries; none when it is missing, none and noted when it cannot be read."""
    try:
        with os.scandir(directory) as found:
            return list(found)
    except OSError as exc:
        unread.note(directory, exc)
        return []


# -- enumeration ----------------------------------------------------------------------------------


def iter_project_dirs(projects_root: Path, *, unread: Unreadable) -> Iterator[Path]:
    """Every project dir under the root, sorted by name; a missing root yields nothing.

    Stray files (``.DS_Store``) are skipped; a symlinked project dir is followed.
    """
    for entry in sorted(_entries(projects_root, unread), key=lambda e: e.name):
        try:
            if entry.is_dir():
                yield child_path(projects_root, entry.name)
        except OSError as exc:
            unread.note(entry.path, exc)


def top_level_sessions(project_dir: Path, *, unread: Unreadable) -> list[Path]:
    """The top-level ``*.jsonl`` transcripts of one project dir, sorted, non-recursive.

    Non-recursive on purpose: a subagent file lives in the nested ``<uuid>/`` dir, so it
    can never be mistaken for a session. A dir with no transcript gives an empty list.
    """
    entries = _entries(project_dir, unread)
    out: list[Path] = []
    for entry in entries:
        if not entry.name.endswith(".jsonl"):
            continue
        try:
            if is_transcript_entry(entry, unread):
                out.append(Path(entry.path))
        except OSError as exc:
            unread.note(entry.path, exc)
    out.sort(key=os.fspath)
    return out


def orphan_session_paths(project_dir: Path, *, unread: Unreadable) -> list[Path]:
    """Session paths whose ``<uuid>/`` sidecar dir exists but whose ``<uuid>.jsonl`` does not.

    Such sidecar-only dirs are real (the top-level transcript was removed, the subagents
    stayed). The returned ``<uuid>.jsonl`` paths do NOT exist; they are the keys
    ``subagent_transcripts`` takes, so an explicit agent id can still be found there. The
    all-projects listing never includes them: there is no session to list.
    """
    entries = _entries(project_dir, unread)
    names = {e.name for e in entries}
    out: list[Path] = []
    for entry in entries:
        if not is_uuid(entry.name) or f"{entry.name}.jsonl" in names:
            continue
        try:
            if entry.is_dir():
                out.append(project_dir / f"{entry.name}.jsonl")
        except OSError as exc:
            unread.note(entry.path, exc)
    out.sort(key=os.fspath)
    return out


def session_dir(session_path: Path) -> Path:
    """The per-session sidecar dir ``<dir>/<uuid>/`` beside ``<dir>/<uuid>.jsonl``."""
    return session_path.with_suffix("")


def sidecar_path(session_path: Path) -> Path:
    """Where the elicitation hook writes this session's sidecar (SPEC §6.10)."""
    return session_dir(session_path) / SIDECAR_NAME


def sidecar_of(transcript: Transcript) -> Path | None:
    """The sidecar path to probe for a top-level session; None when none can exist (a
    subagent, or a session whose listing showed no ``<uuid>/`` dir: most sessions, and a
    whole-home search would otherwise pay a failed open for each)."""
    if transcript.is_subagent or transcript.has_session_dir is False:
        return None
    return sidecar_path(transcript.path)


def _agent_files(directory: Path | str, unread: Unreadable) -> list[Path]:
    return _agent_listing(directory, unread)[0]


def _agent_listing(directory: Path | str, unread: Unreadable) -> tuple[list[Path], bool]:
    """The ``agent-*.jsonl`` files of one dir, and whether it holds a ``workflows/`` dir
    (one listing answers both)."""
    entries = _entries(directory, unread)
    out: list[Path] = []
    workflows = False
    base = None  # made for the first file (most sessions have no subagents dir at all)
    for entry in entries:
        name = entry.name
        try:
            if name.startswith("agent-") and name.endswith(".jsonl"):
                if is_transcript_entry(entry, unread):
                    if base is None:
                        base = directory if isinstance(directory, Path) else Path(directory)
                    out.append(child_path(base, name))
            elif name == WORKFLOWS_DIR:
                workflows = entry.is_dir()
        except OSError as exc:
            unread.note(entry.path, exc)
    return out, workflows


def _workflow_dirs(subagents: Path, unread: Unreadable) -> list[Path]:
    entries = _entries(subagents / WORKFLOWS_DIR, unread)
    out: list[Path] = []
    for entry in entries:
        if not entry.name.startswith("wf_"):
            continue
        try:
            if entry.is_dir():
                out.append(Path(entry.path))
        except OSError as exc:
            unread.note(entry.path, exc)
    return out


# -- transcripts ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Transcript:
    """One transcript file and the id trio it carries (wire-format §0.2).

    ``session_id`` is the file's OWN id: the uuid of a top-level session, or the agent id
    of a subagent (``agent-`` stripped). ``parent_session_id`` is the owning top-level uuid
    (equal to ``session_id`` at the top level). ``kind`` is the on-disk shape of a subagent
    (``builtin-task`` | ``workflow``; a teammate needs its meta and is the topology's call)
    and None for a top-level session.
    """

    path: Path
    session_id: str
    is_subagent: bool
    parent_session_id: str
    kind: str | None
    project_dir: Path
    # False when the project dir listing that found this session held no ``<uuid>/`` dir
    # beside it, so no sidecar can exist; None when nobody looked (probe the path).
    has_session_dir: bool | None = field(default=None, compare=False)

    def size(self) -> int:
        """The file's size in bytes (0 when it cannot be read): a fan-out queue weight."""
        try:
            return self.path.stat().st_size
        except OSError:
            return 0

    def id_trio(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "is_subagent": self.is_subagent,
            "parent_session_id": self.parent_session_id,
        }

    @property
    def meta_path(self) -> Path | None:
        """The companion ``agent-<id>.meta.json`` of a subagent (None at the top level)."""
        if not self.is_subagent:
            return None
        return self.path.with_name(self.path.name[: -len(".jsonl")] + ".meta.json")


def top_level_transcript(path: Path, project_dir: Path | None = None,
                         has_session_dir: bool | None = None, *,
                         stem: str | None = None) -> Transcript:
    """A top-level session (``project_dir``: its parent, when the caller holds it;
    ``has_session_dir``: whether its ``<uuid>/`` dir exists, when the caller listed it;
    ``stem``: the file name less ``.jsonl``, when the caller read it off a listing)."""
    if stem is None:
        name = path.name
        stem = name[: -len(".jsonl")] if name.endswith(".jsonl") else path.stem
    return _walked(path, stem, False, stem, None,
                   path.parent if project_dir is None else project_dir, has_session_dir)


def _subagent_transcript(path: Path, session: str, project_dir: Path, kind: str,
                         name: str | None = None) -> Transcript:
    stem = (path.name if name is None else name)[: -len(".jsonl")]
    return _walked(path, agent_id_from_stem(stem) or stem, True, session, kind, project_dir,
                   None)


_new_object = object.__new__


def _walked(path: Path, session_id: str, is_subagent: bool, parent_session_id: str,
            kind: str | None, project_dir: Path, has_session_dir: bool | None) -> Transcript:
    """``Transcript(...)`` of a walk, its fields set straight into the instance: the
    frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``, 2 us a
    transcript against 0.7, and a whole-home scope makes one per transcript before any
    work can start (corpus B: 2,428, serial). The same instance, field for field
    (``tests/unit/disk/test_layout.py`` holds the two to each other)."""
    made = _new_object(Transcript)
    made.__dict__.update(path=path, session_id=session_id, is_subagent=is_subagent,
                         parent_session_id=parent_session_id, kind=kind,
                         project_dir=project_dir, has_session_dir=has_session_dir)
    return made


def transcript_from_path(path: Path) -> Transcript:
    """Classify any ``*.jsonl`` path by where it sits (the path decides, not the content).

    ``…/<uuid>/subagents/agent-<id>.jsonl`` is a built-in subagent, ``…/<uuid>/subagents/
    workflows/wf_<id>/agent-<id>.jsonl`` a workflow subagent; anything else is read as a
    top-level transcript whose id is its stem. Pass an absolute path: a bare basename has
    no parent to classify by.
    """
    parts = path.parts
    if not path.name.startswith("agent-"):
        return top_level_transcript(path)
    # project/<uuid>/subagents/agent-*.jsonl
    if len(parts) >= _BUILTIN_DEPTH and parts[-2] == SUBAGENTS_DIR:
        return _subagent_transcript(path, parts[-3], path.parents[2], KIND_BUILTIN)
    # project/<uuid>/subagents/workflows/wf_*/agent-*.jsonl
    if (
        len(parts) >= _WORKFLOW_DEPTH
        and parts[-4] == SUBAGENTS_DIR
        and parts[-3] == WORKFLOWS_DIR
        and parts[-2].startswith("wf_")
    ):
        return _subagent_transcript(path, parts[-5], path.parents[4], KIND_WORKFLOW)
    return legacy_agent_transcript(path)


KIND_LEGACY = "legacy-sidechain"


def legacy_agent_transcript(path: Path) -> Transcript:
    """An ``agent-<id>.jsonl`` lying directly in a project dir: the layout of older Claude
    Code builds (1.x), which wrote sidechain transcripts beside the sessions. It is a
    subagent: its id drops the ``agent-`` prefix, its parent is the ``sessionId`` its
    records carry (read off the first record that has one, else off the raw bytes of a
    torn or BOM-prefixed head). A file naming no session at all is its own root: every id
    printed must resolve back (``@agent-<id>`` would not), and ``@<id>`` reaches it."""
    stem = path.name[: -len(".jsonl")]
    agent = stem[len("agent-"):] or stem
    parent = _first_session_id(path) or agent
    return Transcript(path=path, session_id=agent, is_subagent=True,
                      parent_session_id=parent, kind=KIND_LEGACY, project_dir=path.parent)


#: A session uuid under the ``sessionId`` key in raw bytes (a line no parser reads).
_RAW_SESSION_ID = re.compile(
    rb'"sessionId"\s*:\s*"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-'
    rb'[0-9a-fA-F]{12})"')


def _first_session_id(path: Path) -> str | None:
    """The ``sessionId`` of the file's first record that has one (of its first 50 lines),
    else the first uuid under that key in its raw head (a torn or BOM-prefixed line)."""
    head: list[bytes] = []
    try:
        with path.open("rb") as fh:
            for _ in range(50):
                line = fh.readline(1 << 20)
                if not line:
                    break
                head.append(line)
                try:
                    obj = jsonline.loads(line)
                except jsonline.JSONDecodeError:
                    continue
                if isinstance(obj, dict) and isinstance(obj.get("sessionId"), str):
                    return str(obj["sessionId"])
    except OSError:
        return None
    found = _RAW_SESSION_ID.search(b"".join(head))
    return found.group(1).decode("ascii") if found else None


def is_legacy_agent_file(path: Path) -> bool:
    return path.name.startswith("agent-") and path.name.endswith(".jsonl")


def old_layout_agents(session_path: Path, *, unread: Unreadable,
                      known: dict[str, Transcript] | None = None) -> list[Transcript]:
    """The old-layout ``agent-<id>.jsonl`` files beside a session's transcript whose
    records name that session (``legacy_agent_transcript``), sorted by path: its
    subagents, as every scope counts them. A file naming another session, or none (its
    own root), is not. ``known`` carries what earlier calls read (a file's ``sessionId``
    never changes once written), so a watcher listing them on every poll reads a file's
    head once; a file that names no session yet (still empty) is read again next time."""
    project_dir = session_path.parent
    session = session_path.name[: -len(".jsonl")]
    try:
        names = sorted(os.listdir(project_dir))
    except OSError as exc:
        unread.note(project_dir, exc)
        return []
    out: list[Transcript] = []
    for name in names:
        if not (name.startswith("agent-") and name.endswith(".jsonl")):
            continue
        path = project_dir / name
        lane = known.get(os.fspath(path)) if known is not None else None
        if lane is None:
            if not is_file(path, unread=unread):
                continue
            lane = legacy_agent_transcript(path)
            if known is not None and lane.parent_session_id != lane.session_id:
                known[os.fspath(path)] = lane
        if lane.parent_session_id == session:
            out.append(lane)
    return out


def subagent_transcripts(session_path: Path, *, unread: Unreadable) -> list[Transcript]:
    """The subagent transcripts of one top-level session, sorted by path.

    Two shapes count: ``subagents/agent-*.jsonl`` and ``subagents/workflows/wf_*/agent-
    *.jsonl``. A workflow ``journal.jsonl`` is an event log and ``*.meta.json`` a
    companion; neither is a transcript. The layout is flat at every depth (a nested
    subagent lands in the same ``subagents/`` dir), so nothing deeper is walked.
    """
    session = session_path.name[: -len(".jsonl")]
    return _session_subagents(session_path.parent, session, unread)


def _session_subagents(project_dir: Path, session: str, unread: Unreadable
                       ) -> list[Transcript]:
    """``subagent_transcripts`` by parts: one listing of ``subagents/``, which also says
    whether a ``workflows/`` dir is there to list."""
    # the dir's path made from its parent's parts (a string parsed again was ~4 us a
    # session dir, ~430 of them over corpus B)
    subagents = child_path(child_path(project_dir, session), SUBAGENTS_DIR)
    files, workflows = _agent_listing(subagents, unread)
    found = [_subagent_transcript(p, session, project_dir, KIND_BUILTIN) for p in files]
    for wf in _workflow_dirs(subagents, unread) if workflows else ():
        found.extend(_subagent_transcript(p, session, project_dir, KIND_WORKFLOW)
                     for p in _agent_files(wf, unread))
    found.sort(key=lambda t: os.fspath(t.path))
    return found


def project_transcripts(project_dir: Path, *, subagents: bool, unread: Unreadable
                        ) -> list[Transcript]:
    """Every transcript of one project dir, from one listing of it (the whole-home scope).

    The same set the per-session calls give: each top-level ``*.jsonl`` (an old-layout
    ``agent-*.jsonl`` is a subagent), and with ``subagents`` the subagents of every
    ``<uuid>/`` session dir, including one whose ``<uuid>.jsonl`` is gone (an orphan).
    """
    entries = _entries(project_dir, unread)
    names = {entry.name for entry in entries}
    found: list[Transcript] = []
    for entry in entries:
        name = entry.name
        try:
            if name.endswith(".jsonl"):
                if not is_transcript_entry(entry, unread):
                    continue
                path = child_path(project_dir, name)  # cheaper than parsing entry.path
                if name.startswith("agent-"):
                    if subagents:
                        found.append(legacy_agent_transcript(path))
                    continue
                stem = name[: -len(".jsonl")]
                found.append(top_level_transcript(path, project_dir, stem in names,
                                                  stem=stem))
                if subagents and stem in names:
                    found.extend(_session_subagents(project_dir, stem, unread))
            elif (subagents and is_uuid(name) and f"{name}.jsonl" not in names
                  and entry.is_dir()):
                found.extend(_session_subagents(project_dir, name, unread))
        except OSError as exc:
            unread.note(entry.path, exc)
    return found


TOOL_RESULTS_DIR = "tool-results"


def persisted_output_count(transcripts: Iterable[Transcript]) -> int:
    """How many persisted tool outputs (``<session-dir>/tool-results/*``) the sessions of
    these transcripts hold, each session dir counted once: what a search without
    ``--resolve-persisted`` leaves unread. One listing per session dir that exists."""
    return sum(1 for _ in persisted_outputs(transcripts))


def persisted_outputs(transcripts: Iterable[Transcript]) -> Iterator[str]:
    """The paths of the persisted tool outputs ``persisted_output_count`` counts, each
    session dir listed once, in no particular order."""
    # subagents share their session's dir: a Path is joined per dir, not per transcript
    # (corpus B: 657 transcripts, 430 dirs; the joins had cost more than the listings)
    pairs = {(t.project_dir, t.parent_session_id) for t in transcripts
             if t.is_subagent or t.has_session_dir is not False}
    dirs = {project / session for project, session in pairs}
    for session_dir in dirs:
        try:
            with os.scandir(os.path.join(session_dir, TOOL_RESULTS_DIR)) as entries:
                files = [entry.path for entry in entries if entry.is_file()]
        except OSError:
            continue
        yield from files


def read_meta(transcript: Transcript) -> dict[str, Any]:
    """A subagent's ``.meta.json`` as a dict; ``{}`` when absent, unreadable or not an object."""
    meta = transcript.meta_path
    if meta is None:
        return {}
    try:
        obj = orjson.loads(read_regular(meta))
    except (OSError, orjson.JSONDecodeError):
        return {}
    return obj if isinstance(obj, dict) else {}


JOURNAL_NAME = "journal.jsonl"


def is_workflow_journal(path: Path) -> bool:
    """A workflow's event log (``subagents/workflows/wf_<id>/journal.jsonl``): its lines
    are ``{agentId, key, type}`` events, never a transcript."""
    return path.name == JOURNAL_NAME and path.parent.name.startswith("wf_")


def is_sidecar_file(path: Path) -> bool:
    """True when ``path`` is an elicitation sidecar rather than a Claude Code transcript.

    Either the sidecar's own name, or a content sniff: every non-blank line carries the
    ``"csift"`` marker key the hook writes. An empty file is not a sidecar. Raises
    ``SourceError`` only when the file cannot be read at all.
    """
    if path.name == SIDECAR_NAME:
        return True
    data = open_buffer(path)
    # line by line from the top: a transcript's first record already says no (the marker
    # search over the whole file this replaced read all of a 225 MB target before a
    # command started on it: ~17% of a `verbatim PATH` run)
    seen = False
    for _, line in iter_lines(data):
        if not line.strip():
            continue
        seen = True
        try:
            obj = jsonline.loads(line)
        except jsonline.JSONDecodeError:
            return False
        if not isinstance(obj, dict) or "csift" not in obj:
            return False
    return seen


def read_meta_checked(transcript: Transcript) -> tuple[dict[str, Any], str | None]:
    """``read_meta`` that says why a companion that exists gave nothing: ``({}, None)``
    when there is none (older builds wrote none), ``({}, problem)`` when it is not a
    readable regular file or not a JSON object."""
    path = os.fspath(transcript.path)
    if not transcript.is_subagent or not path.endswith(".jsonl"):
        return {}, None
    meta = path[: -len(".jsonl")] + ".meta.json"  # Transcript.meta_path without pathlib
    try:
        data = read_regular(meta)
    except FileNotFoundError:
        return {}, None
    except OSError as exc:
        return {}, f"its meta.json cannot be read ({exc.strerror or exc})"
    try:
        obj = jsonline.loads(data)
    except jsonline.JSONDecodeError:
        return {}, "its meta.json is not JSON"
    if not isinstance(obj, dict):
        return {}, "its meta.json is not a JSON object"
    return obj, None


def workflow_manifests(session_path: Path, *, unread: Unreadable) -> list[Path]:
    """The run manifests ``<session>/workflows/wf_*.json`` of one session, sorted (the
    ``scripts/`` dir beside them and anything else are passed over)."""
    out: list[Path] = []
    for entry in _entries(session_dir(session_path) / WORKFLOWS_DIR, unread):
        if not (entry.name.startswith("wf_") and entry.name.endswith(".json")):
            continue
        try:
            if entry.is_file():
                out.append(Path(entry.path))
        except OSError as exc:
            unread.note(entry.path, exc)
    out.sort(key=os.fspath)
    return out


def workflow_journal(transcript: Transcript) -> Path | None:
    """The ``journal.jsonl`` beside a workflow agent's transcript (None for other lanes)."""
    if transcript.kind != KIND_WORKFLOW:
        return None
    return transcript.path.parent / JOURNAL_NAME

