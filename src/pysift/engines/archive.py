"""``archive``: mirror the sessions in scope into DEST with the Claude home's layout (SPEC §14).

What a session brings (its unit is the whole session, whichever of its transcripts the
scope names): ``projects/<enc>/<uuid>.jsonl``, every regular file under its ``<uuid>/``
dir (subagent transcripts and their ``.meta.json``, workflow manifests and journals, the
elicitation sidecar, persisted tool outputs, whatever else Claude Code keeps there), the
old-layout ``agent-<id>.jsonl`` files in scope that name it, its checkpoints in
``file-history/<uuid>/``, and the plan files bound to its transcripts, under
``DEST/plans/<name>``. Each file is decided alone:

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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

import orjson

from pysift.disk import mirror
from pysift.disk.layout import (
    KIND_BUILTIN,
    KIND_LEGACY,
    KIND_WORKFLOW,
    Transcript,
    top_level_transcript,
    transcript_from_path,
)
from pysift.engines.recover.backups import STORE_DIR as FILE_HISTORY_DIR
from pysift.errors import SiftError, UsageError
from pysift.model.env import Env
from pysift.model.fastdata import dataclass

STATE_DIR = ".pysift"
LOCK_NAME = "archive.lock"
MANIFEST_NAME = "archive.json"
MANIFEST_FORMAT = 1
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
    transcript: Transcript | None = None  # a transcript in scope (its plan binding is read)
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


def check_dest(home: Path, dest: Path) -> None:
    """Refuse a DEST that is a file, lies inside the Claude home, or holds it."""
    if dest.exists() and not dest.is_dir():
        raise UsageError(f"the archive DEST {dest} exists and is not a directory; name a "
                         "directory (it is created when missing)")
    real_home, real_dest = _real(home), _real(dest)
    if _within(real_dest, real_home):
        raise UsageError(f"the archive DEST {dest} is inside the Claude home {home}; pysift "
                         "never writes there: name a directory outside it")
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
            dest.mkdir()
        except FileExistsError:
            pass
        except OSError as exc:
            raise ArchiveError(f"cannot create the archive DEST {dest}: "
                               f"{exc.strerror or exc}; check the permissions of {parent}"
                               ) from None
    state = dest / STATE_DIR
    try:
        state.mkdir(exist_ok=True)
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
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
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
                    f"(lock {self.path}){' after waiting ' + _secs(waited) if waited else ''}"
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
    return f"{value:.0f} s"


# -- the manifest: plan bindings of transcripts already read ------------------------------------


@dataclass
class Manifest:
    """``DEST/.pysift/archive.json``: the homes archived from, and for each transcript the
    size and time it had when its plan binding was read, with the plan files it bound
    (so an unchanged transcript is not read again)."""

    homes: list[str] = field(default_factory=list)
    bindings: dict[str, dict[str, Any]] = field(default_factory=dict)
    last_run_utc: str | None = None

    @classmethod
    def load(cls, state: Path) -> Manifest:
        try:
            obj = orjson.loads((state / MANIFEST_NAME).read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return cls()
        if not isinstance(obj, dict) or obj.get("format") != MANIFEST_FORMAT:
            return cls()
        homes = obj.get("homes")
        bindings = obj.get("bindings")
        return cls(homes=[h for h in homes if isinstance(h, str)] if isinstance(homes, list)
                   else [],
                   bindings=bindings if isinstance(bindings, dict) else {},
                   last_run_utc=obj.get("last_run_utc")
                   if isinstance(obj.get("last_run_utc"), str) else None)

    def known_plans(self, rel: str, src: mirror.SourceStat) -> list[str] | None:
        entry = self.bindings.get(rel)
        if (isinstance(entry, dict) and entry.get("size") == src.size
                and entry.get("mtime_ns") == src.mtime_ns
                and isinstance(entry.get("plans"), list)):
            return [p for p in entry["plans"] if isinstance(p, str)]
        return None

    def save(self, state: Path) -> None:
        """Written whole through a partial file and a rename (pysift's own state file)."""
        body = orjson.dumps({"format": MANIFEST_FORMAT, "homes": self.homes,
                             "bindings": self.bindings, "last_run_utc": self.last_run_utc},
                            option=orjson.OPT_SORT_KEYS)
        partial = state / f".{MANIFEST_NAME}{mirror.PARTIAL_SUFFIX}"
        with open(partial, "wb") as fh:
            fh.write(body)
        os.replace(partial, state / MANIFEST_NAME)


# -- what the scope brings ---------------------------------------------------------------------


@dataclass
class Plan:
    entries: list[Entry]
    sessions: int
    notes: list[str] = field(default_factory=list)
    unread: int = 0  # dirs under a session's tree that could not be read (each in notes)


def collect(transcripts: Iterable[Transcript], home: Path) -> Plan:
    """The files of every session the transcripts belong to, each once, in scope order:
    a session's transcript, then its ``<uuid>/`` tree (sorted), old-layout agents. Paths
    stay strings here: a home of thousands of files pays for no path objects."""
    prefix = os.path.join(os.fspath(home), "")
    history = os.path.join(prefix, FILE_HISTORY_DIR)
    entries: list[Entry] = []
    seen: set[str] = set()
    notes: list[str] = []
    unread: list[str] = []  # the dirs _tree could not read
    sessions: dict[tuple[str, str], list[Transcript]] = {}
    legacy: dict[tuple[str, str], list[Transcript]] = {}
    for t in transcripts:
        if not os.fspath(t.path).startswith(prefix):
            raise UsageError(f"{t.path} is outside the Claude home {home}; archive keeps the "
                             "home's layout, so it takes transcripts of the home only (pass "
                             "--claude-home for another home)")
        key = (os.fspath(t.project_dir), t.parent_session_id)
        sessions.setdefault(key, []).append(t)
        if t.kind == KIND_LEGACY:
            legacy.setdefault(key, []).append(t)

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
            for path in _tree(os.path.join(project_dir, session), notes, unread):
                name = os.path.basename(path)
                add(path, session, subagent_file=name.startswith("agent-")
                    and name.endswith(".jsonl"))
        for t in legacy.get((project_dir, session), ()):
            add(os.fspath(t.path), session, t)
        # Claude Code's checkpoints of the files the session's tools edited (what
        # `recover --list-backups` lists), pruned with the session by the cleanup
        for path in _tree(os.path.join(history, session), notes, unread):
            add(path, session)
    return Plan(entries, len(sessions), notes, len(unread))


def _transcript_at(path: str) -> Transcript | None:
    """The subagent transcript at a path of a session dir (``subagents/…/agent-*.jsonl``),
    classified by where it sits; None for any other file."""
    name = os.path.basename(path)
    if not (name.startswith("agent-") and name.endswith(".jsonl")):
        return None
    transcript = transcript_from_path(Path(path))
    return transcript if transcript.kind in (KIND_BUILTIN, KIND_WORKFLOW) else None


def _tree(root: str, notes: list[str], unread: list[str]) -> Iterator[str]:
    """Every file under a session dir, sorted, symlinked files followed (their content is
    archived), a dir that cannot be read said and counted in ``unread``."""
    def failed(exc: OSError) -> None:
        if exc.errno not in (errno.ENOENT, errno.ENOTDIR):
            unread.append(str(exc.filename))
            notes.append(f"warning: cannot read {exc.filename}: {exc.strerror or exc}; its "
                         "files are not archived")

    for directory, dirs, files in os.walk(root, onerror=failed):
        dirs.sort()
        for name in sorted(files):
            yield os.path.join(directory, name)


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
        known = manifest.known_plans(entry.rel, src)
        if known is None:
            unknown.append(entry)
        else:
            found[entry.rel] = known
    pending = map_in_background(_bound_plan, [e.as_transcript() for e in unknown], shared=env)

    def result() -> dict[str, list[str]]:
        for entry, plans in zip(unknown, pending()):
            found[entry.rel] = plans
            src = stats[entry.rel]
            manifest.bindings[entry.rel] = {"size": src.size, "mtime_ns": src.mtime_ns,
                                            "plans": plans}
        return found
    return result


def _bound_plan(env: Env, transcript: Transcript | None) -> list[str]:
    from pysift.engines.plans import resolve_plan_path
    from pysift.errors import SourceError

    if transcript is None:
        return []
    try:
        binding = resolve_plan_path(transcript, env)
    except SourceError:
        return []  # the copy itself reports the unreadable file
    return [binding.plan_file] if binding is not None and binding.plan_exists else []


# -- the run -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    entry: Entry
    action: str
    written: int = 0
    preserved_as: str | None = None
    reason: str | None = None


@dataclass
class ArchiveRun:
    outcomes: list[Outcome]
    sessions: int
    notes: list[str]
    stopped: str | None = None  # the error that ended the run early
    dry_run: bool = False
    unread: int = 0  # dirs of the home the walk could not read (each named in notes)

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
        os.makedirs(parent, exist_ok=True)
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
        ) -> ArchiveRun:
    """Archive the sessions of ``transcripts`` into ``opts.dest``."""
    home = env.claude_home if env.claude_home.is_absolute() else env.cwd / env.claude_home
    dest = opts.dest if opts.dest.is_absolute() else env.cwd / opts.dest
    check_dest(home, dest)
    plan = collect(transcripts, home)
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


def _decide_one(entry: Entry, dest: str) -> Decision | Outcome:
    try:
        return decide(entry.source, os.path.join(dest, entry.rel))
    except mirror.SourceChanged as exc:
        return Outcome(entry, FAILED, reason=str(exc))
    except OSError as exc:
        return Outcome(entry, FAILED, reason=_os_reason(exc))


def _plan_entries(plan: Plan, bound: dict[str, list[str]], dest: Path, notes: list[str]
                  ) -> list[tuple[Entry, Decision | Outcome]]:
    """The plan files the transcripts bind, each once under ``plans/<name>``, decided."""
    root = os.fspath(dest)
    decided: list[tuple[Entry, Decision | Outcome]] = []
    plan_sources: dict[str, str] = {}
    for entry in plan.entries:
        for plan_file in bound.get(entry.rel, ()):
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
    return decided


def _stats_of(decided: list[tuple[Entry, Decision | Outcome]]) -> dict[str, mirror.SourceStat]:
    return {e.rel: d.src for e, d in decided if isinstance(d, Decision)}


def _os_reason(exc: OSError) -> str:
    where = f"{exc.filename}: " if exc.filename else ""
    return f"{where}{exc.strerror or exc}"


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
    if copy.stopped is None:
        plans = _plan_entries(plan, bound, dest, notes)
        if progress is not None:
            progress.grow(_to_write(plans), len(plans))
        copy.all(plans)
    return ArchiveRun(copy.outcomes, plan.sessions, notes, copy.stopped, unread=plan.unread)


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
        except mirror.SourceChanged as exc:
            self.outcomes.append(Outcome(entry, FAILED, reason=str(exc)))
        except mirror.DestFull as exc:
            self.stopped = (f"the archive's disk is full ({exc.strerror}) while writing "
                            f"{target}; every archived file is whole: free space on it and "
                            "run again")
            self.outcomes.append(Outcome(entry, FAILED, reason=exc.strerror))
        except OSError as exc:
            self.stopped = (f"cannot write {exc.filename or target}: {exc.strerror or exc}; "
                            "every archived file is whole: check the archive's permissions "
                            "and run again")
            self.outcomes.append(Outcome(entry, FAILED, reason=_os_reason(exc)))


def _dry_run(plan: Plan, dest: Path, env: Env, manifest: Manifest) -> ArchiveRun:
    notes = list(plan.notes)
    root = os.fspath(dest)
    decided = [(entry, _decide_one(entry, root)) for entry in plan.entries]
    bound = start_bindings(plan.entries, _stats_of(decided), env, manifest)()
    decided += _plan_entries(plan, bound, dest, notes)
    outcomes: list[Outcome] = []
    for entry, decision in decided:
        if isinstance(decision, Outcome):
            outcomes.append(decision)
        else:
            outcomes.append(Outcome(entry, decision.action, decision.to_write))
    return ArchiveRun(outcomes, plan.sessions, notes, dry_run=True, unread=plan.unread)
