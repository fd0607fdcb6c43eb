"""``archive``: mirror the sessions in scope into DEST with the Claude home's layout (SPEC §14).

What a session brings (its unit is the whole session, whichever of its transcripts the
scope names): ``projects/<enc>/<uuid>.jsonl``, every regular file under its ``<uuid>/``
dir (subagent transcripts and their ``.meta.json``, workflow manifests and journals, the
elicitation sidecar, persisted tool outputs, whatever else Claude Code keeps there), the
old-layout ``agent-<id>.jsonl`` files beside it that name it (all of them, whichever the
scope named), its checkpoints in ``file-history/<uuid>/``, and the plan files bound to its
transcripts that exist, under ``DEST/plans/<name>``. Each file is decided alone:

- ``skipped``: the archived copy has the source's size and modification time, or the
  same bytes (verified) under another time;
- ``appended``: the archived copy is a verified prefix of a longer source (byte for byte,
  against the same range of the source): only the new bytes are written;
- ``copied``: nothing archived yet;
- ``preserved``: the archived copy is not a prefix of the source (rewritten, or shrunk):
  it is kept under a dated name beside the new copy.

Reads the Claude home only; writes only under DEST (through ``disk.mirror``); a lock file
in DEST keeps two runs from interleaving.
"""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import field, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

import orjson

from pysift.disk import jsonline, mirror
from pysift.disk.home import ARCHIVE_MANIFEST_NAME, ARCHIVE_STATE_DIR
from pysift.disk.layout import (
    KIND_BUILTIN,
    KIND_LEGACY,
    KIND_WORKFLOW,
    Transcript,
    legacy_agent_transcript,
    top_level_transcript,
    transcript_from_path,
)
from pysift.engines.plans import ARCHIVE_PLAN_COPIES
from pysift.engines.recover.backups import STORE_DIR as FILE_HISTORY_DIR
from pysift.errors import SiftError, UsageError
from pysift.model.env import Env
from pysift.model.fastdata import dataclass

STATE_DIR = ARCHIVE_STATE_DIR
LOCK_NAME = "archive.lock"
MANIFEST_NAME = ARCHIVE_MANIFEST_NAME
MANIFEST_FORMAT = 2  # 1 cached whether a bound plan existed: a plan written later was lost
PLANS_DIR = "plans"

COPIED, APPENDED, SKIPPED, PRESERVED, FAILED = "copied", "appended", "skipped", "preserved", \
    "failed"
ACTIONS = (COPIED, APPENDED, SKIPPED, PRESERVED, FAILED)


class ArchiveError(SiftError):
    """The run cannot go on (DEST unwritable, the disk full, the lock held)."""


class Progress(Protocol):
    def start(self, total_bytes: int, files: int) -> None: ...
    def grow(self, more_bytes: int, more_files: int) -> None: ...
    def advance(self, written: int) -> None: ...
    def file_done(self) -> None: ...


# -- where things go ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One source file and where its copy goes (``rel``: a POSIX path under DEST)."""

    source: str
    rel: str
    session_id: str
    transcript: Transcript | None = None  # a session transcript (its plan binding is read)
    subagent_file: bool = False  # an agent-*.jsonl of the session dir, classified on demand

    def as_transcript(self) -> Transcript | None:
        """The transcript this file is, if it is one (a plan may be bound to it)."""
        if self.transcript is not None or not self.subagent_file:
            return self.transcript
        return _transcript_at(self.source)


def _real(path: Path) -> str:
    return os.path.realpath(path)


def _within(inner: str, outer: str) -> bool:
    return inner == outer or inner.startswith(outer.rstrip(os.sep) + os.sep)


def check_dest(home: Path, dest: Path, others: Iterable[Path] = ()) -> None:
    """Refuse a DEST that is a file, lies inside the Claude home (the one read, or
    ``others``: the user's ``~/.claude`` and ``$CLAUDE_CONFIG_DIR``, which a run reading
    another home once wrote into), or holds the home read."""
    if dest.exists() and not dest.is_dir():
        raise UsageError(f"the archive DEST {dest} exists and is not a directory; name a "
                         "directory (it is created when missing)")
    real_home, real_dest = _real(home), _real(dest)
    for claude in (home, *others):
        if _within(real_dest, _real(claude)):
            raise UsageError(f"the archive DEST {dest} is inside the Claude home {claude}; "
                             "pysift never writes there: name a directory outside it")
    if _within(real_home, real_dest):
        raise UsageError(f"the Claude home {home} is inside the archive DEST {dest}; name a "
                         "directory that does not contain the home")


def prepare_dest(dest: Path) -> Path:
    """Create DEST (not its parents) and its state dir; the state dir."""
    parent = dest.parent
    if not dest.exists():
        if not parent.is_dir():
            raise UsageError(f"the parent of the archive DEST {dest} does not exist; create "
                             f"{parent} first or fix the path")
        try:
            dest.mkdir(mirror.DIR_MODE)
        except FileExistsError:
            pass
        except OSError as exc:
            raise ArchiveError(f"cannot create the archive DEST {dest}: "
                               f"{exc.strerror or exc}; check the permissions of {parent}"
                               ) from None
    state = dest / STATE_DIR
    try:
        state.mkdir(mirror.DIR_MODE, exist_ok=True)
    except OSError as exc:
        raise ArchiveError(f"cannot write to the archive DEST {dest}: {exc.strerror or exc}; "
                           "check its permissions (and that its disk is not full or "
                           "read-only)") from None
    return state


class Lock:
    """An exclusive ``flock`` on ``DEST/.pysift/archive.lock`` for the run's length. The
    kernel drops it when the process ends, however it ends: no stale lock survives."""

    def __init__(self, state: Path, timeout: float, on_wait: Callable[[], None] | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.path = state / LOCK_NAME
        self.timeout = timeout
        self.on_wait = on_wait
        self.sleep = sleep
        self.fd = -1

    def __enter__(self) -> Lock:
        import fcntl

        try:
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, mirror.FILE_MODE)
        except OSError as exc:
            raise ArchiveError(f"cannot write to the archive DEST ({self.path}): "
                               f"{exc.strerror or exc}; check its permissions") from None
        waited = 0.0
        told = False
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    raise
            if waited >= self.timeout:
                os.close(self.fd)
                raise ArchiveError(
                    f"another pysift archive is writing into {self.path.parent.parent} "
                    f"(lock {self.path})"
                    f"{' after waiting ' + _secs(self.timeout) if self.timeout else ''}"
                    "; run again when it is done (or raise --lock-timeout)")
            if not told and self.on_wait is not None:
                self.on_wait()
                told = True
            self.sleep(0.2)
            waited += 0.2
        os.ftruncate(self.fd, 0)
        os.write(self.fd, f"{os.getpid()}\n".encode())
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)  # closing the descriptor releases the lock


def _secs(value: float) -> str:
    """The wait as the user gave it (``--lock-timeout 1.5`` waited 1.5 s, not "2 s")."""
    return f"{value:g} s"


# -- the manifest: plan bindings of transcripts already read ------------------------------------


@dataclass
class Manifest:
    """``DEST/.pysift/archive.json``: the homes archived from, and for each transcript the
    size and time it had when its plan binding was read, with the binding read (so an
    unchanged transcript is not read again). The binding is the file the transcript NAMES
    (``[law, file]``, or ``[]`` for none), never whether that file exists: a plan is
    written after Plan Mode names it, and deleted at will, without the transcript changing,
    so each run looks for the file again."""

    homes: list[str] = field(default_factory=list)
    bindings: dict[str, dict[str, Any]] = field(default_factory=dict)
    last_run_utc: str | None = None
    # ``plans/<name>`` -> the file its copy was made from, so ``plan`` over the archive
    # answers a binding by that copy only when it IS the binding's file (two bound plans
    # of one name share the one ``plans/<name>``): ``plans.archived_copy``
    plan_copies: dict[str, str] = field(default_factory=dict)

    @classmethod
    def load(cls, state: Path) -> Manifest:
        try:
            obj = jsonline.loads((state / MANIFEST_NAME).read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return cls()
        if not isinstance(obj, dict):
            return cls()
        homes = obj.get("homes")
        bindings = obj.get("bindings")
        current = obj.get("format") == MANIFEST_FORMAT  # an older format's bindings are read again
        return cls(homes=[h for h in homes if isinstance(h, str)] if isinstance(homes, list)
                   else [],
                   bindings=bindings if current and isinstance(bindings, dict) else {},
                   last_run_utc=obj.get("last_run_utc")
                   if isinstance(obj.get("last_run_utc"), str) else None,
                   plan_copies=_plan_copies(obj.get(ARCHIVE_PLAN_COPIES)))

    def known_binding(self, rel: str, src: mirror.SourceStat) -> list[str] | None:
        """The binding read when the transcript had this size and time (``[law, file]``
        or ``[]``), None when it must be read."""
        entry = self.bindings.get(rel)
        if (isinstance(entry, dict) and entry.get("size") == src.size
                and entry.get("mtime_ns") == src.mtime_ns):
            bound = entry.get("plan")
            if bound == [] or (isinstance(bound, list) and len(bound) == 2
                               and all(isinstance(p, str) for p in bound)):
                return list(bound)
        return None

    def save(self, state: Path) -> None:
        """Written whole through a partial file and a rename (pysift's own state file,
        0600: it names the home's paths)."""
        state_obj = {"format": MANIFEST_FORMAT, "homes": self.homes,
                     "bindings": self.bindings, "last_run_utc": self.last_run_utc,
                     ARCHIVE_PLAN_COPIES: self.plan_copies}
        try:
            body = orjson.dumps(state_obj, option=orjson.OPT_SORT_KEYS)
        except TypeError:  # a name that is no UTF-8 (a dir's undecodable byte, a plan path
            # with a lone surrogate): written as its \udcXX escape, which load reads back
            import json

            body = json.dumps(state_obj, sort_keys=True, separators=(",", ":")).encode()
        partial = state / f".{MANIFEST_NAME}{mirror.PARTIAL_SUFFIX}"
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mirror.FILE_MODE)
        with open(fd, "wb") as fh:
            fh.write(body)
        os.replace(partial, state / MANIFEST_NAME)


def _plan_copies(value: object) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str)}


# -- what the scope brings ---------------------------------------------------------------------


@dataclass
class Plan:
    entries: list[Entry]
    sessions: int
    notes: list[str] = field(default_factory=list)
    unread: int = 0  # dirs under a session's tree that could not be read (each in notes)


def collect(transcripts: Iterable[Transcript], home: Path, said: Collection[str] = ()
            ) -> Plan:
    """The files of every session the transcripts belong to, each once, in scope order:
    a session's transcript, then its ``<uuid>/`` tree (sorted), old-layout agents. Paths
    stay strings here: a home of thousands of files pays for no path objects. ``said``:
    the paths the scope already warned it could not read (not warned or counted again)."""
    prefix = os.path.join(os.fspath(home), "")
    history = os.path.join(prefix, FILE_HISTORY_DIR)
    entries: list[Entry] = []
    seen: set[str] = set()
    notes: list[str] = []
    unread = _Unread(notes, {os.path.normpath(p) for p in said})
    sessions: dict[tuple[str, str], list[Transcript]] = {}
    legacy: dict[tuple[str, str], list[Transcript]] = {}
    respell = _Respelling(home, prefix)
    for t in transcripts:
        t = respell(t)
        key = (os.fspath(t.project_dir), t.parent_session_id)
        sessions.setdefault(key, []).append(t)
        if t.kind == KIND_LEGACY:
            legacy.setdefault(key, []).append(t)
    old_layout = _OldLayout({os.fspath(t.path): t for named in legacy.values() for t in named},
                            unread)

    def add(source: str, session: str, transcript: Transcript | None = None,
            subagent_file: bool = False) -> None:
        rel = source[len(prefix):].replace(os.sep, "/")
        if rel not in seen:
            seen.add(rel)
            entries.append(Entry(source, rel, session, transcript, subagent_file))

    for (project_dir, session), named in sessions.items():
        main = os.path.join(project_dir, f"{session}.jsonl")
        top = next((t for t in named if not t.is_subagent), None)
        if top is not None or os.path.isfile(main):
            add(main, session, top or top_level_transcript(Path(main), Path(project_dir)))
        if top is None or top.has_session_dir is not False:  # else the listing saw no dir
            for path in _tree(os.path.join(project_dir, session), unread):
                name = os.path.basename(path)
                add(path, session, subagent_file=name.startswith("agent-")
                    and name.endswith(".jsonl"))
        for t in old_layout.of(project_dir, session, legacy.get((project_dir, session), ())):
            add(os.fspath(t.path), session, t)
        # Claude Code's checkpoints of the files the session's tools edited (what
        # `recover --list-backups` lists), pruned with the session by the cleanup
        for path in _tree(os.path.join(history, session), unread):
            add(path, session)
    return Plan(entries, len(sessions), notes, len(unread.paths))


class _Respelling:
    """A transcript under the home's own spelling: one named through another spelling of
    the same dir (the home a link, `~/.claude` -> a dotfiles dir, and the path given
    through the link's target, or the other way round; `list` takes it) is moved under
    the home's prefix, so its rows keep the home's layout (it was refused as "outside
    the Claude home"). A transcript outside the home is refused."""

    def __init__(self, home: Path, prefix: str) -> None:
        self.home, self.prefix = home, prefix
        self.real_prefix: str | None = None

    def __call__(self, t: Transcript) -> Transcript:
        if os.fspath(t.path).startswith(self.prefix):
            return t
        if self.real_prefix is None:
            self.real_prefix = os.path.join(os.path.realpath(self.home), "")
        project = os.fspath(t.project_dir)
        # the project dir's own name kept: it may itself be a link to another disk
        real = os.path.join(os.path.realpath(os.path.dirname(project)),
                            os.path.basename(project))
        tail = os.path.relpath(os.fspath(t.path), project)
        if not real.startswith(self.real_prefix) or tail.startswith(os.pardir):
            raise UsageError(f"{t.path} is outside the Claude home {self.home}; archive keeps "
                             "the home's layout, so it takes transcripts of the home only "
                             "(pass --claude-home for another home)")
        spelled = self.prefix + real[len(self.real_prefix):]
        return replace(t, path=Path(spelled, tail), project_dir=Path(spelled))


class _Unread:
    """The dirs of the home a walk of ``collect`` could not read: each said once (not
    again when the scope's own walk said it) and counted."""

    def __init__(self, notes: list[str], said: set[str]) -> None:
        self.notes, self.said = notes, said
        self.paths: list[str] = []

    def failed(self, exc: OSError, what: str = "its files are not archived") -> None:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return
        path = os.path.normpath(str(exc.filename))
        if path in self.said:
            return
        self.said.add(path)
        self.paths.append(path)
        self.notes.append(f"warning: cannot read {exc.filename}: {exc.strerror or exc}; "
                          f"{what}")


class _OldLayout:
    """The old-layout ``agent-*.jsonl`` files of a project dir, by the session they name:
    a session in scope brings every one of them, not only those the scope named (one
    named by ``@<agent id>`` once came without its siblings, and ``agents`` over the
    archive counted 1 of 3). The scope's own transcripts are reused; another file's
    session is read off its head, as the resolver reads it."""

    def __init__(self, in_scope: dict[str, Transcript], unread: _Unread) -> None:
        self.in_scope, self.unread = in_scope, unread
        self.by_dir: dict[str, dict[str, list[Transcript]]] = {}

    def of(self, project_dir: str, session: str, named: Iterable[Transcript]
           ) -> list[Transcript]:
        found = {os.fspath(t.path): t for t in named}
        for t in self._listing(project_dir).get(session, ()):
            found.setdefault(os.fspath(t.path), t)
        return [found[path] for path in sorted(found)]

    def _listing(self, project_dir: str) -> dict[str, list[Transcript]]:
        listing = self.by_dir.get(project_dir)
        if listing is None:
            listing = {}
            try:
                with os.scandir(project_dir) as it:
                    names = sorted(e.name for e in it if e.name.startswith("agent-")
                                   and e.name.endswith(".jsonl") and e.is_file())
            except OSError as exc:
                self.unread.failed(exc, "its old-layout agent-*.jsonl files are not archived")
                names = []
            for name in names:
                path = os.path.join(project_dir, name)
                t = self.in_scope.get(path) or legacy_agent_transcript(Path(path))
                listing.setdefault(t.parent_session_id, []).append(t)
            self.by_dir[project_dir] = listing
        return listing


def _transcript_at(path: str) -> Transcript | None:
    """The subagent transcript at a path of a session dir (``subagents/…/agent-*.jsonl``),
    classified by where it sits; None for any other file."""
    name = os.path.basename(path)
    if not (name.startswith("agent-") and name.endswith(".jsonl")):
        return None
    transcript = transcript_from_path(Path(path))
    return transcript if transcript.kind in (KIND_BUILTIN, KIND_WORKFLOW) else None


def _tree(root: str, unread: _Unread, above: tuple[str, ...] = ()) -> Iterator[str]:
    """Every file under a session dir, sorted, a dir's files before its subdirs. Symlinks
    are followed as the readers follow them: a linked file's content is archived, a
    linked dir is walked (``<uuid>/subagents`` linked elsewhere was once left out). A link
    to a dir that holds it, or holds a dir the walk came through (``above``: a link
    elsewhere whose target links back was once walked x/y/x/y/… to the kernel's link
    limit), is a loop: said and not followed; a dir that cannot be read is said and
    counted in ``unread``."""
    try:
        with os.scandir(root) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as exc:
        unread.failed(exc)
        return
    subdirs: list[str] = []
    for entry in entries:
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False  # as os.walk: the copy says what it is
        if not is_dir:
            yield entry.path
            continue
        if entry.is_symlink():  # only a link can loop: a plain dir costs no realpath
            target = os.path.realpath(entry.path)
            if _within(os.path.realpath(root), target):  # it holds the dir the link is in
                unread.notes.append(f"note: {entry.path} links to {target}, a dir that holds "
                                    "it (a loop): not followed")
                continue
            if any(_within(os.path.realpath(d), target) for d in above):
                unread.notes.append(f"note: {entry.path} links to {target}, a dir the walk "
                                    "came through (a loop): not followed")
                continue
        subdirs.append(entry.path)
    for sub in subdirs:
        yield from _tree(sub, unread, (*above, root))


def start_bindings(entries: list[Entry], stats: dict[str, mirror.SourceStat], env: Env,
                   manifest: Manifest) -> Callable[[], dict[str, list[str]]]:
    """The plan files each transcript entry binds (by rel), as a function to call once:
    from the manifest while the transcript is unchanged, else read by a forked process
    while the caller copies (on a first run this is a pass over every transcript). The
    call records what was read in the manifest. The binding's own notes (a relocated
    recorded path) are not repeated: the rows name the file archived."""
    from pysift.disk.fanout import map_in_background

    found: dict[str, list[str]] = {}
    unknown: list[Entry] = []
    for entry in entries:
        src = stats.get(entry.rel)
        if (entry.transcript is None and not entry.subagent_file) or src is None:
            continue
        known = manifest.known_binding(entry.rel, src)
        if known is None:
            unknown.append(entry)
        else:
            found[entry.rel] = known
    pending = map_in_background(_bound_plan, [e.as_transcript() for e in unknown], shared=env)

    def result() -> dict[str, list[str]]:
        for entry, bound in zip(unknown, pending()):
            found[entry.rel] = bound or []
            if bound is not None:  # an unreadable transcript is read again next run
                src = stats[entry.rel]
                manifest.bindings[entry.rel] = {"size": src.size, "mtime_ns": src.mtime_ns,
                                                "plan": bound}
        return found
    return result


def _bound_plan(env: Env, transcript: Transcript | None) -> list[str] | None:
    """``[law, file]``: the plan file the transcript names, whether or not it exists
    (``plan_path`` finds it on each run); ``[]`` for none; None when it cannot be read."""
    from pysift.engines.plans import resolve_plan_path
    from pysift.errors import SourceError

    if transcript is None:
        return []
    try:
        binding = resolve_plan_path(transcript, env)
    except SourceError:
        return None  # the copy itself reports the unreadable file
    if binding is None:
        return []
    # the path as recorded, or as the slug's law put it: it relocates on each run
    return [binding.binding_source, binding.recorded_file or binding.plan_file]


def plan_path(bound: list[str], env: Env) -> str:
    """Where the plan file of a binding is now, as ``plan`` finds it: a ``plan_mode``
    path that does not exist is looked for in this home's ``plans/`` (a home copied or
    moved keeps the old path in its records); a slug's file is where its law put it; over
    an archive, either one gone is the archive's copy of it (``plans.archived_copy``)."""
    from pysift.engines.plans import BINDING_PLAN_MODE, archived_copy, relocated_plan

    law, named = bound
    if law == BINDING_PLAN_MODE:
        return relocated_plan(named, env)[0]
    archived = None if Path(named).is_file() else archived_copy(named, env)
    return named if archived is None else archived[0]


# -- the run -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    entry: Entry
    action: str
    written: int = 0
    preserved_as: str | None = None
    reason: str | None = None
    unreadable: bool = False  # FAILED because the source cannot be read (its permissions)
    irregular: bool = False  # … because it is no regular file (a FIFO): no run archives it


@dataclass
class ArchiveRun:
    outcomes: list[Outcome]
    sessions: int
    notes: list[str]
    stopped: str | None = None  # the error that ended the run early
    dry_run: bool = False
    unread: int = 0  # dirs of the home the walk could not read (each named in notes)
    in_scope: int = 0  # the files in scope, acted on or not (a stopped run has fewer rows)

    def count(self, action: str) -> int:
        return sum(1 for o in self.outcomes if o.action == action)

    @property
    def written(self) -> int:
        return sum(o.written for o in self.outcomes)


@dataclass(frozen=True)
class Decision:
    action: str  # COPIED | APPENDED | SKIPPED | PRESERVED
    src: mirror.SourceStat
    start: int = 0  # the verified prefix an append starts after

    @property
    def to_write(self) -> int:
        return 0 if self.action == SKIPPED else self.src.size - self.start


def decide(source: str, target: str) -> Decision:
    """What this file needs (reads both; writes nothing). ``mirror.SourceChanged`` when the
    source is gone; ``OSError`` when the target is not a file."""
    src = mirror.stat_source(source)
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return Decision(COPIED, src)
    import stat as stat_mod

    if not stat_mod.S_ISREG(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, "the archived copy is not a regular file",
                                os.fspath(target))
    if st.st_size == src.size and st.st_mtime_ns == src.mtime_ns:
        return Decision(SKIPPED, src)
    if st.st_size <= src.size and mirror.same_prefix(source, target, st.st_size):
        if st.st_size == src.size:
            return Decision(SKIPPED, src, src.size)  # same bytes, another time: retimed
        if not os.access(target, os.W_OK):  # a read-only copy (its source's mode) that grew:
            return Decision(COPIED, src)  # a whole new copy renamed over it, not an append
        return Decision(APPENDED, src, st.st_size)
    return Decision(PRESERVED, src)


def execute(entry: Entry, target: Path, decision: Decision, when: datetime,
            advance: Callable[[int], None] | None, made: set[str] | None = None) -> Outcome:
    """Carry out one decision. ``made``: the dirs this run already made or found (a
    failed mkdir costs a filesystem ~0.15 ms, once per file otherwise)."""
    if decision.action == SKIPPED:
        if decision.start:  # the bytes were verified equal: give the copy the source's time
            mirror.set_times(target, decision.src)
        return Outcome(entry, SKIPPED)
    parent = os.path.dirname(target)
    if made is None or parent not in made:
        mirror.make_dirs(parent)
        if made is not None:
            made.add(parent)
    if decision.action == COPIED:
        written = mirror.copy_new(entry.source, target, decision.src, advance)
        return Outcome(entry, COPIED, written)
    if decision.action == APPENDED:
        written = mirror.append(entry.source, target, decision.start, decision.src, advance)
        return Outcome(entry, APPENDED, written)
    dated, written = mirror.preserve_and_replace(entry.source, target, decision.src, when,
                                                 advance)
    return Outcome(entry, PRESERVED, written, preserved_as=_under(dated, target, entry.rel))


def _under(dated: Path, target: Path, rel: str) -> str:
    return rel[: len(rel) - len(target.name)] + dated.name


@dataclass(frozen=True)
class ArchiveOptions:
    dest: Path
    dry_run: bool = False
    lock_timeout: float = 120.0


def run(transcripts: list[Transcript], env: Env, opts: ArchiveOptions,
        progress: Progress | None = None, on_wait: Callable[[], None] | None = None,
        said: Collection[str] = ()) -> ArchiveRun:
    """Archive the sessions of ``transcripts`` into ``opts.dest``. ``said``: the paths
    the scope already warned it could not read."""
    home = env.claude_home if env.claude_home.is_absolute() else env.cwd / env.claude_home
    dest = opts.dest if opts.dest.is_absolute() else env.cwd / opts.dest
    check_dest(home, dest, _user_claude_homes(env))
    plan = collect(transcripts, home, said)
    if opts.dry_run:
        manifest = Manifest.load(dest / STATE_DIR)
        return _dry_run(plan, dest, env, manifest)
    state = prepare_dest(dest)
    with Lock(state, opts.lock_timeout, on_wait, env.clock.sleep):
        manifest = Manifest.load(state)
        result = _archive(plan, dest, env, manifest, progress)
        manifest.last_run_utc = env.now().strftime("%Y-%m-%dT%H:%M:%SZ")
        home_text = os.fspath(home)
        if home_text not in manifest.homes:
            manifest.homes.append(home_text)
        try:
            manifest.save(state)
        except OSError as exc:
            result.notes.append(f"warning: cannot write {state / MANIFEST_NAME}: "
                                f"{exc.strerror or exc}; the next run reads the plan "
                                "bindings again")
    return result


def _user_claude_homes(env: Env) -> list[Path]:
    """The Claude homes besides the one read that no DEST may lie in: ``~/.claude`` and
    ``$CLAUDE_CONFIG_DIR`` (the cache's rule, ``disk.cache_place.claude_homes``)."""
    from pysift.disk.cache_place import claude_homes
    from pysift.disk.home import user_home

    base = user_home(env.environ)
    return [p if p.is_absolute() else env.cwd / p
            for p in claude_homes(env.environ, base, None)]


def _decide_one(entry: Entry, dest: str) -> Decision | Outcome:
    try:
        return decide(entry.source, os.path.join(dest, entry.rel))
    except mirror.SourceChanged as exc:
        return _source_failed(entry, exc)
    except OSError as exc:
        return Outcome(entry, FAILED, reason=_os_reason(exc, entry))


def _source_failed(entry: Entry, exc: mirror.SourceChanged) -> Outcome:
    return Outcome(entry, FAILED, reason=str(exc),
                   unreadable=isinstance(exc, mirror.SourceUnreadable),
                   irregular=isinstance(exc, mirror.SourceNotRegular))


def _plan_entries(plan: Plan, bound: dict[str, list[str]], dest: Path, env: Env,
                  notes: list[str]) -> list[tuple[Entry, Decision | Outcome]]:
    """The plan files the transcripts bind that exist now, each once under
    ``plans/<name>``, decided. A bound file that is not there (not written yet, or
    deleted) is what the home holds: one note for all of them, no failure (a plan deleted
    after it was archived once failed every later run, "run again to retry"); a bound
    path that is there but is no regular file has a note of its own saying so."""
    root = os.fspath(dest)
    decided: list[tuple[Entry, Decision | Outcome]] = []
    plan_sources: dict[str, str] = {}
    absent: dict[str, None] = {}
    irregular: dict[str, None] = {}  # there, but no file to copy (a device, a FIFO, a dir)
    for entry in plan.entries:
        binding = bound.get(entry.rel)
        if not binding:
            continue
        plan_file = plan_path(binding, env)
        if not os.path.isfile(plan_file):
            (irregular if os.path.lexists(plan_file) else absent)[plan_file] = None
            continue
        rel = f"{PLANS_DIR}/{os.path.basename(plan_file)}"
        known = plan_sources.get(rel)
        if known is not None:
            if os.path.normpath(known) != os.path.normpath(plan_file):
                notes.append(f"warning: {plan_file} and {known} share the name {rel} in "
                             "the archive; only the first is archived")
            continue
        plan_sources[rel] = plan_file
        plan_entry = Entry(plan_file, rel, entry.session_id)
        decided.append((plan_entry, _decide_one(plan_entry, root)))
    if absent:
        notes.append(_absent_note(list(absent), root))
    if irregular:
        shown = ", ".join(list(irregular)[:3]) + (
            f" and {len(irregular) - 3} more" if len(irregular) > 3 else "")
        notes.append(f"note: {len(irregular)} plan file(s) bound to the sessions in scope "
                     f"are not regular files (a device, a FIFO, a directory or a dangling "
                     f"link): {shown}; nothing to archive for them")
    return decided


def _absent_note(paths: list[str], dest: str) -> str:
    shown = ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
    kept = sum(1 for p in paths
               if os.path.lexists(os.path.join(dest, PLANS_DIR, _recorded_name(p))))
    return (f"note: {len(paths)} plan file(s) bound to the sessions in scope do not exist "
            f"(not written yet, or deleted): {shown}; nothing to archive for them"
            + (f" (the archive keeps its earlier copy of {kept} under {PLANS_DIR}/)"
               if kept else ""))


def _recorded_name(path: str) -> str:
    """The file name of a bound plan path as recorded, a Windows one too (``C:\\Users\\…
    \\plans\\x.md`` is ``x.md``, the name ``plan`` relocates it by and the archive keeps its
    copy under; ``os.path.basename`` took the whole Windows path for the name)."""
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def _stats_of(decided: list[tuple[Entry, Decision | Outcome]]) -> dict[str, mirror.SourceStat]:
    return {e.rel: d.src for e, d in decided if isinstance(d, Decision)}


def _os_reason(exc: OSError, entry: Entry) -> str:
    """The error, naming its file only when that is not the source the row names already
    (a row once read "not archived: PATH: PATH: Permission denied")."""
    named = exc.filename and os.fspath(exc.filename) != entry.source
    return f"{exc.filename}: {exc.strerror or exc}" if named else f"{exc.strerror or exc}"


def _archive(plan: Plan, dest: Path, env: Env, manifest: Manifest,
             progress: Progress | None) -> ArchiveRun:
    """The session files are copied while a forked process reads the plan bindings of
    the transcripts that changed; then the plan files are decided and copied."""
    notes = list(plan.notes)
    root = os.fspath(dest)
    decided = [(entry, _decide_one(entry, root)) for entry in plan.entries]
    bindings = start_bindings(plan.entries, _stats_of(decided), env, manifest)
    if progress is not None:
        progress.start(_to_write(decided), len(decided))
    copy = _Copier(dest, env.now(), progress)
    try:
        copy.all(decided)
    finally:
        bound = bindings()  # reaps the reader whatever happened
    plans = _plan_entries(plan, bound, dest, env, notes)  # decided even when stopped: counted
    if copy.stopped is None:
        if progress is not None:
            progress.grow(_to_write(plans), len(plans))
        copy.all(plans)
    planned = {entry.rel for entry, _ in plans}
    for outcome in copy.outcomes:  # what each plans/<name> now holds a copy of
        if outcome.entry.rel in planned and outcome.action != FAILED:
            manifest.plan_copies[outcome.entry.rel] = outcome.entry.source
    return ArchiveRun(copy.outcomes, plan.sessions, notes, copy.stopped, unread=plan.unread,
                      in_scope=len(decided) + len(plans))


def _to_write(decided: list[tuple[Entry, Decision | Outcome]]) -> int:
    return sum(d.to_write for _, d in decided if isinstance(d, Decision))


class _Copier:
    """Carries out decisions in order until one leaves the run unable to go on (a full
    disk, an archive it cannot write): ``stopped`` then says why."""

    def __init__(self, dest: Path, when: datetime, progress: Progress | None) -> None:
        self.dest, self.when, self.progress = dest, when, progress
        self.outcomes: list[Outcome] = []
        self.stopped: str | None = None
        self.made: set[str] = set()

    def all(self, decided: list[tuple[Entry, Decision | Outcome]]) -> None:
        advance = self.progress.advance if self.progress is not None else None
        for entry, decision in decided:
            if self.stopped is not None:
                return
            if isinstance(decision, Outcome):
                self.outcomes.append(decision)
                continue
            if decision.action == SKIPPED and not decision.start:
                self.outcomes.append(Outcome(entry, SKIPPED))
                continue
            self.one(entry, decision, advance)
            if self.progress is not None:
                self.progress.file_done()

    def one(self, entry: Entry, decision: Decision, advance: Callable[[int], None] | None
            ) -> None:
        target = self.dest / entry.rel
        try:
            self.outcomes.append(execute(entry, target, decision, self.when, advance,
                                         self.made))
        except mirror.SourceChanged as exc:  # the source's failure: the run goes on
            self.outcomes.append(_source_failed(entry, exc))
        except mirror.DestFull as exc:
            self.stopped = (f"the archive's disk is full ({exc.strerror}) while writing "
                            f"{target}; every archived file is whole: free space on it and "
                            "run again")
            self.outcomes.append(Outcome(entry, FAILED, reason=exc.strerror))
        except OSError as exc:
            self.stopped = (f"cannot write {exc.filename or target}: {exc.strerror or exc}; "
                            "every archived file is whole: check the archive's permissions "
                            "and run again")
            self.outcomes.append(Outcome(entry, FAILED, reason=_os_reason(exc, entry)))


def _dry_run(plan: Plan, dest: Path, env: Env, manifest: Manifest) -> ArchiveRun:
    notes = list(plan.notes)
    root = os.fspath(dest)
    decided = [(entry, _decide_one(entry, root)) for entry in plan.entries]
    bound = start_bindings(plan.entries, _stats_of(decided), env, manifest)()
    decided += _plan_entries(plan, bound, dest, env, notes)
    outcomes: list[Outcome] = []
    for entry, decision in decided:
        if isinstance(decision, Outcome):
            outcomes.append(decision)
        else:
            outcomes.append(Outcome(entry, decision.action, decision.to_write))
    return ArchiveRun(outcomes, plan.sessions, notes, dry_run=True, unread=plan.unread,
                      in_scope=len(outcomes))
