"""Positional targets + ``--sessions-from`` -> the transcripts a command reads (SPEC §2.3).

One resolver serves every multi-target command. The law it keeps is FAIL LOUD: a token
that names nothing, or names several things where one was meant, is an error that says
which ids matched or which projects-root path was tried, never a silent empty scope. The
one honest empty is an explicit, empty ``--sessions-from`` list (a pipeline stage that
found nothing): it stays empty instead of widening to every project.

Tokens are a UNION: each one adds its transcripts, duplicates collapse, and the result is
in path order (a session file sorts before its own ``<uuid>/subagents/…``).

Span rule: with ``subagents=True`` a session brings its subagent transcripts and an agent
brings its topological descendants; with ``subagents=False`` each stays alone.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pysift.core.decode import decode
from pysift.disk.gcpause import paused_gc
from pysift.disk.jsonline import spelled
from pysift.disk.layout import (
    Transcript,
    Unreadable,
    encode_cwd,
    find_project_dir,
    is_dir,
    is_file,
    is_legacy_agent_file,
    is_sidecar_file,
    is_transcript_path,
    is_windows_rooted,
    is_workflow_journal,
    iter_project_dirs,
    legacy_agent_transcript,
    old_layout_agents,
    orphan_session_paths,
    project_transcripts,
    subagent_transcripts,
    top_level_sessions,
    top_level_transcript,
    transcript_from_path,
)
from pysift.disk.lines import line_end, line_start
from pysift.disk.mapped import try_open_buffer
from pysift.errors import SourceError, TargetError, UsageError
from pysift.model.env import Env
from pysift.model.fastdata import dataclass
from pysift.model.ids import agent_id_from_stem, is_hex, is_session_ref, is_uuid
from pysift.model.record import block_name

if TYPE_CHECKING:
    from pysift.core.grammar.targets import TargetToken

# The target grammar (``core.grammar.targets``) is imported where a target is read: a
# whole-home scope (``list``, ``search`` with no target) parses none, and its import
# (with ``unicodedata2``'s tables) was ~1.5 ms of every such run's serial start.

SESSION_ID_VARS = ("CLAUDE_CODE_SESSION_ID", "CODEX_COMPANION_SESSION_ID")
SHELL_TOOLS = frozenset({"Bash", "PowerShell"})
TRAP_PROGRAM = "pysift"
MAX_LISTED_CANDIDATES = 20

MAIN_LANE_NOTE = (
    "note: @main resolved the TOP-LEVEL session via env. If you are a subagent this is NOT "
    "your transcript (a subagent's env carries the parent's id); a first-try "
    "`@trap:<marker>` hit names yours."
)

NO_SESSION_ENV_GUIDANCE = (
    "your session id was not found (CLAUDE_CODE_SESSION_ID is unset: an old Claude Code "
    "build, or running outside Claude Code); pass an explicit `@<uuid>` target instead (your "
    "id is the basename of your own transcript; grep a unique recent line you wrote to find "
    "it). Do NOT trust the most-recent-mtime transcript: many sessions may be live."
)


@dataclass
class Scope:
    """The resolved transcripts plus what the caller must tell the user on stderr."""

    transcripts: list[Transcript]
    scoped: bool  # True when any target or --sessions-from was given
    notes: list[str] = field(default_factory=list)  # stderr lines, without the "pysift: "
    # (path, reason) of the dirs and files the walk could not read (each named in ``notes``):
    # what they hold is not in ``transcripts``, so a zero found there is not definitive
    unreadable: list[tuple[str, str]] = field(default_factory=list)

    @property
    def top_level_count(self) -> int:
        return sum(1 for t in self.transcripts if not t.is_subagent)

    @property
    def subagent_count(self) -> int:
        return sum(1 for t in self.transcripts if t.is_subagent)


# -- the calling session --------------------------------------------------------------------------


def calling_session_id(environ: Mapping[str, str]) -> str | None:
    """The env-named calling session: ``CLAUDE_CODE_SESSION_ID``, else the Codex alias.

    Exact names only: a loose ``/session/i`` match would pick up ``SECURITYSESSIONID``.
    The alias is read only when the canonical variable is absent or empty.
    """
    named = _calling_session_var(environ)
    return named[1] if named is not None else None


def _calling_session_var(environ: Mapping[str, str]) -> tuple[str, str] | None:
    """``(variable, value)`` of the env-named calling session."""
    for name in SESSION_ID_VARS:
        value = environ.get(name, "").strip()
        if value:
            return name, value
    return None


def require_calling_session(env: Env, purpose: str,
                            instead: str = "pass an explicit `@<uuid>` target instead") -> str:
    """The env session id as a uuid, or a ``TargetError`` with the way forward
    (``instead``: what the caller can do without it; whoami takes no `@<uuid>`)."""
    named = _calling_session_var(env.environ)
    if named is None:
        raise TargetError(f"{purpose}: {NO_SESSION_ENV_GUIDANCE}")
    name, session_id = named
    if not is_uuid(session_id):
        raise TargetError(
            f"{purpose}: {name}={session_id!r} is not a session uuid (Claude Code sets the "
            f"full uuid); set it to your session's full uuid, or {instead}"
        )
    return session_id.lower()


def projects_root(env: Env) -> Path:
    """``<claude-home>/projects``, anchored at ``env.cwd`` when the home was given relative."""
    root = env.projects_root
    return root if root.is_absolute() else Path(os.path.normpath(env.cwd / root))


def find_session_file(session_id: str, env: Env, *, unread: Unreadable,
                      others: list[Path] | None = None, there: list[Path] | None = None
                      ) -> Path | None:
    """The top-level ``<id>.jsonl``: the encoded ``env.cwd`` dir first, then among every
    project dir's copy the one written last (what cannot be read on the way goes into
    ``unread``, and those of its own copies known to exist into ``there``; the other
    copies found by that scan into ``others``). A session copied
    into two project dirs (a moved or duplicated project) is found twice; the live one is
    the copy Claude Code is writing (decided, twentieth session: the first in listing
    order had been taken)."""
    root = projects_root(env)
    here = find_project_dir(root, os.fspath(env.cwd), unread=unread)
    name = f"{session_id}.jsonl"
    if here is not None and is_transcript_path(here / name, unread=unread, there=there):
        return here / name
    copies = [d / name for d in iter_project_dirs(root, unread=unread)
              if is_transcript_path(d / name, unread=unread, there=there)]
    if not copies:
        return None
    newest = max(copies, key=_written)
    if others is not None:
        others.extend(c for c in copies if c != newest)
    return newest


def _written(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return -1


# -- @trap ----------------------------------------------------------------------------------------


def shell_command_carries(buf: Any, marker: str, program: str = TRAP_PROGRAM, *,
                          copied_from: Any = None) -> bool:
    """True when a Bash/PowerShell ``tool_use`` in ``buf`` (a transcript's bytes, None when
    it cannot be read) ran ``program`` with ``marker``.

    Only the lines holding the (rare) marker are decoded, found by a whole-buffer search,
    so a large main transcript is scanned at C speed. Requiring the literal program name in
    the same command keeps an unrelated ``echo <marker>`` from counting. ``copied_from``
    (the main transcript's bytes): a record whose uuid is a record of it is a copy, not
    the lane's own call: a ``/fork`` clone opens on a copy of the main thread's history,
    so the main thread's own trap call would otherwise name the clone.
    """
    if buf is None:
        return False
    needle = marker.encode()
    pos = buf.find(needle)
    while pos >= 0:
        start, end = line_start(buf, pos), line_end(buf, pos)
        record = decode(buf[start:end], None)
        if record is not None and not _copied(record.uuid, copied_from):
            for block in record.blocks_of("tool_use"):
                command = _tool_command(block)
                if command is not None and marker in command and program in command:
                    return True
        pos = buf.find(needle, end + 1)
    return False


def _copied(uuid: str | None, main: Any) -> bool:
    """``uuid`` is the uuid of a record of ``main`` (either JSON layout)."""
    if main is None or not uuid:
        return False
    return any(main.find(b'"uuid"' + sep + spelled(uuid) + b'"') >= 0
               for sep in (b':"', b': "'))


def _legacy_lanes(main: Path, session_id: str, unread: Unreadable) -> list[Transcript]:
    """The old-layout ``agent-<id>.jsonl`` files beside ``main`` that name its session
    (Claude Code 1.x wrote its sidechains there): subagents of it, as every scope counts
    them (SPEC §3)."""
    return old_layout_agents(main.with_name(f"{session_id}.jsonl"), unread=unread)


def _tool_command(block: Mapping[str, Any]) -> str | None:
    name = block_name(block)
    if name is None or name not in SHELL_TOOLS:
        return None
    tool_input = block.get("input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    return command if isinstance(command, str) else None


def resolve_trap(marker: str, env: Env, notes: list[str] | None = None, *,
                 unread: Unreadable) -> Transcript:
    """The transcript whose shell command carries ``marker`` (SPEC §6.3a).

    Scans the env-named session's main transcript and its subagents (old-layout
    sidechains beside it included; a fork clone's copy of the main history is not the
    clone's own). One subagent wins;
    otherwise a main-only hit is the session itself (said on stderr via ``notes``, since
    the main thread should use ``@main``); no hit or several subagent hits are errors.
    """
    from pysift.core.grammar.targets import validate_trap_marker

    marker = validate_trap_marker(marker.strip())
    session_id = require_calling_session(env, f"@trap:{marker}")
    main = find_session_file(session_id, env, unread=unread)
    if main is None:
        raise TargetError(
            f"@trap: cannot find the calling session {session_id}.jsonl under "
            f"{projects_root(env)}; check --claude-home / $CLAUDE_CONFIG_DIR"
        )
    main_buf = try_open_buffer(main)
    lanes = subagent_transcripts(main, unread=unread) + _legacy_lanes(main, session_id, unread)
    carriers = [t for t in lanes
                if shell_command_carries(try_open_buffer(t.path), marker,
                                         copied_from=main_buf)]
    if len(carriers) == 1:
        return carriers[0]
    if len(carriers) > 1:
        ids = ", ".join(t.session_id for t in carriers)
        raise TargetError(
            f"@trap: marker `{marker}` is AMBIGUOUS: it matched {len(carriers)} subagents "
            f"({ids}); invent a fresher marker (it must be unique within the conversation)"
        )
    if shell_command_carries(main_buf, marker):  # the main transcript, opened once
        if notes is not None:
            notes.append(
                f"note: @trap:{marker} resolved to the TOP-LEVEL session {session_id}: the "
                f"MAIN transcript carries the marker, so you are not a subagent in this lane. "
                f"`@main` answers this directly with no race; @trap is for subagents."
            )
        return top_level_transcript(main)
    raise TargetError(
        f"@trap: marker `{marker}` was not found in a `{TRAP_PROGRAM}` shell (Bash / "
        f"PowerShell) invocation of the calling session. MOST LIKELY you are the TOP-LEVEL "
        f"thread: use `@main` (env-based, no race). Otherwise check that the marker appears "
        f"LITERALLY in this {TRAP_PROGRAM} command (no shell variable or concatenation). LAST, "
        f"to confirm the lane, re-run this EXACT command with the SAME marker as a new, "
        f"separate shell call: the main conversation's record lands ~1-3.4s after dispatch, so "
        f"a first use races it (a fresh marker restarts the race)."
    )


# -- --sessions-from ------------------------------------------------------------------------------


def parse_session_refs(text: str, source: str = "--sessions-from") -> list[str]:
    """The whitespace-separated ids in ``text`` (bare or ``@``-prefixed), ``@`` stripped,
    and the transcript paths, one per line (a line ending in ``.jsonl``, spaces allowed):
    what ``search -l`` prints for a session whose file name is no id.

    Every token must be an id pysift emits (uuid, 4-11 hex prefix, agent id) or such a
    path; anything else fails loud, naming the token.
    """
    ids: list[str] = []
    for line in text.splitlines():
        if line.strip().endswith(".jsonl"):
            ids.append(line.strip())
            continue
        for raw in line.split():
            ident = raw[1:] if raw.startswith("@") else raw
            if not is_session_ref(ident):
                raise TargetError(
                    f"{source}: {raw!r} is not a session id (want a uuid, a 4-11-hex uuid "
                    f"prefix, an agent id, or a transcript path on a line of its own: what "
                    f"`pysift search PATTERN -l` prints)"
                )
            ids.append(ident)
    return ids


# The most an id list may hold: ids are ~40 bytes, so 16 MiB is some 400,000 of them. A
# source without an end (`/dev/zero`, `yes |`) is read this far, then refused, not forever.
SESSIONS_FROM_CAP = 16 * 1024 * 1024


def _check_list_size(size: int, source: str) -> None:
    if size > SESSIONS_FROM_CAP:
        raise UsageError(
            f"{source}: more than {SESSIONS_FROM_CAP // (1024 * 1024)} MiB, which is no id "
            f"list (an id is ~40 bytes); pass a file of session ids, e.g. the output of "
            f"`pysift search PATTERN -l`")


def read_sessions_from(path_or_dash: str, stdin_text: str | None) -> list[str]:
    """The ids of ``--sessions-from FILE|-``; ``-`` reads ``stdin_text`` (the CLI supplies
    it, at most ``SESSIONS_FROM_CAP + 1`` characters). A file is read up to the same cap,
    so a source that never ends (a device, a FIFO fed forever) is refused, not read
    forever; a pipe or a process substitution (``<(...)``) reads like a file."""
    if path_or_dash == "-":
        if stdin_text is None:
            raise UsageError("--sessions-from -: no stdin was given; pipe an id list in")
        _check_list_size(len(stdin_text), "--sessions-from -")
        return parse_session_refs(stdin_text, "--sessions-from -")
    if not path_or_dash.strip():
        raise UsageError("--sessions-from is empty; pass a file of session ids (bare or @, "
                         "whitespace-separated), or `-` for stdin")
    try:
        with open(path_or_dash, "rb") as fh:
            data = fh.read(SESSIONS_FROM_CAP + 1)
    except OSError as exc:
        raise UsageError(
            f"--sessions-from: cannot read {path_or_dash}: {exc.strerror or exc}; pass an "
            f"existing file, or `-` for stdin"
        ) from exc
    _check_list_size(len(data), f"--sessions-from {path_or_dash}")
    text = data.decode("utf-8", errors="replace")
    return parse_session_refs(text, f"--sessions-from {path_or_dash}")


# -- the resolver ---------------------------------------------------------------------------------


def _candidates(ids: Iterable[str]) -> str:
    listed = sorted(set(ids))
    shown = ", ".join(listed[:MAX_LISTED_CANDIDATES])
    hidden = len(listed) - MAX_LISTED_CANDIDATES
    return shown + (f", … and {hidden} more" if hidden > 0 else "")


class _Resolver:
    """One resolution pass; caches the directory walks the tokens share."""

    def __init__(self, env: Env, subagents: bool) -> None:
        self.env = env
        self.subagents = subagents
        self.root = projects_root(env)
        self.notes: list[str] = []
        # what the scope cannot read: the walks of the named targets note here, and the Scope
        # carries it; the id searches (a prefix, an agent id) walk the whole home and note
        # into ``scanned``, of which only what could be a target counts (``_claims``)
        self.unread = Unreadable()
        self.scanned = Unreadable()
        self._claims: list[Callable[[str], bool]] = []
        self.there: list[Path] = []  # session files a target named: there, not readable
        self.listing = False  # resolving the ids of a --sessions-from list
        self.copies = False  # every copy of a uuid in several project dirs (resolve_scope)
        self.found: dict[str, Transcript] = {}  # keyed by path text (see _ordered)
        self._sessions: list[Path] | None = None
        self._agent_owners: list[Path] | None = None  # sessions + sidecar-only dirs
        self._subs: dict[Path, list[Transcript]] = {}
        self._listings: dict[Path, frozenset[str]] = {}
        self._legacy: dict[Path, list[Transcript]] = {}

    # -- enumeration ------------------------------------------------------------------
    def all_sessions(self) -> list[Path]:
        if self._sessions is None:
            self._sessions = [
                s for d in iter_project_dirs(self.root, unread=self.scanned)
                for s in top_level_sessions(d, unread=self.scanned)
            ]
        return self._sessions

    def subs(self, session_path: Path) -> list[Transcript]:
        """The session's subagents: those of its ``<uuid>/`` dir, and the old-layout
        ``agent-*.jsonl`` files beside it whose records name it as their session."""
        cached = self._subs.get(session_path)
        if cached is None:
            # most sessions have no `<uuid>/` dir at all: one listing of the project dir
            # answers that for all of them, instead of a failed scandir per session
            names = self._dir_names(session_path.parent)
            stem = session_path.name[: -len(".jsonl")]
            cached = (subagent_transcripts(session_path, unread=self.scanned) if stem in names
                      else [])
            cached += [a for a in self.legacy_agents(session_path.parent)
                       if a.parent_session_id == stem]
            self._subs[session_path] = cached
        return cached

    def legacy_agents(self, project_dir: Path) -> list[Transcript]:
        """The old-layout sidechain transcripts lying directly in a project dir."""
        cached = self._legacy.get(project_dir)
        if cached is None:
            cached = [legacy_agent_transcript(project_dir / name)
                      for name in sorted(self._dir_names(project_dir))
                      if is_legacy_agent_file(Path(name))
                      and is_file(project_dir / name, unread=self.scanned)]
            self._legacy[project_dir] = cached
        return cached

    def owner_paths(self, session_id: str) -> list[Path]:
        """``<dir>/<id>.jsonl`` keys of a session that has NO file of its own but whose
        subagents are on disk (a sidecar-only ``<uuid>/`` dir, or old-layout agents naming
        it): ``search -l`` prints such ids, so they must resolve to those subagents."""
        out = []
        for project_dir in iter_project_dirs(self.root, unread=self.unread):
            names = self._dir_names(project_dir)
            if f"{session_id}.jsonl" in names:
                continue
            if session_id in names or any(a.parent_session_id == session_id
                                          for a in self.legacy_agents(project_dir)):
                out.append(project_dir / f"{session_id}.jsonl")
        return out

    def _dir_names(self, directory: Path) -> frozenset[str]:
        names = self._listings.get(directory)
        if names is None:
            try:
                names = frozenset(os.listdir(directory))
            except OSError:
                names = frozenset()
            self._listings[directory] = names
        return names

    def agent_owners(self) -> list[Path]:
        """Every session key subagents hang from: the session files, sidecar-only
        ``<uuid>/`` dirs, and the sessions old-layout agents name (file or not)."""
        if self._agent_owners is None:
            owners = {os.fspath(p): p for p in self.all_sessions()}
            for d in iter_project_dirs(self.root, unread=self.scanned):
                for orphan in orphan_session_paths(d, unread=self.scanned):
                    owners.setdefault(os.fspath(orphan), orphan)
                for agent in self.legacy_agents(d):
                    key = d / f"{agent.parent_session_id}.jsonl"
                    owners.setdefault(os.fspath(key), key)
            self._agent_owners = [owners[k] for k in sorted(owners)]
        return self._agent_owners

    def all_agents(self) -> Iterable[Transcript]:
        """Every subagent an id may name, including those of sessions with no file."""
        for session in self.agent_owners():
            yield from self.subs(session)

    def unreadable(self, *claims: Callable[[str], bool]) -> list[tuple[str, str]]:
        """``(path, reason)`` of what the scope could not read: every note of the named
        targets' walks, and of the id searches' walks each one that could hold a target
        (SPEC §3: a dangling link of another session says nothing about this one)."""
        found = dict(self.unread.items())
        every = (*self._claims, *claims)
        for path, reason in self.scanned.items():
            if path not in found and any(claim(path) for claim in every):
                found[path] = reason
        return sorted(found.items())

    def unread_hint(self, claim: Callable[[str], bool] | None = None) -> str:
        """For a "not found" error: the dirs the walk could not read may hold the id
        (an error ends the run before the scope's warnings are printed); ``claim``: what
        of the id search's walk could be the id asked for."""
        items = self.unreadable(claim) if claim is not None else self.unreadable()
        if not items:
            return ""
        named = ", ".join(path for path, _ in items[:3])
        more = f" and {len(items) - 3} more" if len(items) > 3 else ""
        return f" (that could be read: {named}{more} could not, and may hold it)"

    # -- adding ---------------------------------------------------------------------
    def add(self, transcript: Transcript) -> None:
        self.found.setdefault(os.fspath(transcript.path), transcript)

    def add_session(self, session_path: Path) -> None:
        if is_legacy_agent_file(session_path):  # an old-layout sidechain beside the sessions
            if self.subagents:
                self.add(legacy_agent_transcript(session_path))
            return
        # (a session known only by its subagents has no file of its own)
        if is_file(session_path, unread=self.unread):
            self.add(top_level_transcript(session_path))
        if self.subagents:
            self._claims.append(_lanes_of(session_path))
            for sub in self.subs(session_path):
                self.add(sub)

    def add_agent(self, agent: Transcript) -> None:
        self.add(agent)
        if self.subagents:  # a descendant is a lane of the agent's session
            self._claims.append(_lanes_of(agent.project_dir
                                          / f"{agent.parent_session_id}.jsonl"))
            for child in self._descendants(agent):
                self.add(child)

    def _unreadable_session(self, session_id: str) -> SourceError | None:
        """The error for a session whose ``<id>.jsonl`` is there but cannot be read (a
        dangling symlink, a FIFO, a loop of links; not a permission on a dir above, which
        hides whether it exists) and that nothing else holds: "no session" would send the
        user to `pysift list` for a file that exists (SPEC §2)."""
        name = f"{session_id}.jsonl"
        there = {os.fspath(p) for p in self.there if p.name == name}
        found = [(path, reason) for path, reason in self.unreadable() if path in there]
        if not found:
            return None
        named = "; ".join(f"{path}: {reason}" for path, reason in found)
        return SourceError(
            f"session `{session_id}` is there but cannot be read ({named}); what it holds "
            f"is out of reach until it can be (check the path and its permissions)")

    # -- per kind ---------------------------------------------------------------------
    def resolve(self, token: TargetToken) -> None:
        from pysift.core.grammar.targets import TargetKind

        handlers: dict[TargetKind, Callable[[TargetToken], None]] = {
            TargetKind.UUID: self._uuid,
            TargetKind.UUID_PREFIX: self._prefix,
            TargetKind.AGENT: self._agent,
            TargetKind.MAIN: self._main,
            TargetKind.TRAP: self._trap,
            TargetKind.ENCODED_DIR: self._encoded_dir,
            TargetKind.PATH: self._path,
            TargetKind.JSONL: self._jsonl,
        }
        handlers[token.kind](token)

    def _uuid(self, token: TargetToken) -> None:
        name = f"{token.value}.jsonl"
        hits = [p for d in iter_project_dirs(self.root, unread=self.unread)
                if is_transcript_path(p := d / name, unread=self.unread, there=self.there)]
        if not hits:
            hits = self.owner_paths(token.value)
            if hits and not self._require_subagents(token.value):
                return
        if not hits:
            unreadable = self._unreadable_session(token.value)
            if unreadable is not None:
                raise unreadable
            raise TargetError(
                f"no session `{token.value}` under {self.root}{self.unread_hint()}; `pysift "
                f"list` shows the session ids (or check --claude-home / $CLAUDE_CONFIG_DIR)"
            )
        if len(hits) > 1 and not self.copies and all(p.name == name for p in hits):
            hits = [self._one_copy(token.value, hits)]
        for path in hits:
            self.add_session(path)

    def _one_copy(self, session_id: str, copies: list[Path]) -> Path:
        """``@<uuid>`` names ONE session (csift §6.2); a session copied into several
        project dirs (a moved or duplicated project) is read once, from the copy written
        last (the one Claude Code is writing, as ``@main`` reads it), and the note names
        the others (decided, twenty-second session: every copy was read, so stats
        counted the session twice and search named one hit twice)."""
        newest = max(copies, key=_written)
        others = ", ".join(str(c) for c in copies if c != newest)
        self.notes.append(
            f"note: @{session_id} has {len(copies)} copies in different project dirs; read "
            f"the one written last, {newest}; the other(s), {others}, are read by their path")
        return newest

    def _require_subagents(self, session_id: str) -> bool:
        """Whether a session known only by its subagents is kept: it is when subagents
        are spanned. Under --no-subagents a TARGET naming it is an error, and an id of a
        --sessions-from list (``search -l`` prints such ids) is skipped with a note, so
        the documented pipe ``search -l | list --sessions-from - --no-subagents`` goes
        on with the other ids."""
        if self.subagents:
            return True
        if self.listing:
            self.notes.append(
                f"note: --sessions-from: session `{session_id}` has no transcript of its own, "
                f"only subagent transcripts, which --no-subagents leaves out: skipped "
                f"(`pysift list @{session_id}` lists them)")
            return False
        raise TargetError(
            f"session `{session_id}` has no transcript of its own under {self.root}, only "
            f"subagent transcripts: target one as `@<agent-id>` (`pysift list "
            f"@{session_id}` lists them)"
        )

    def _prefix(self, token: TargetToken) -> None:
        prefix = token.value
        claim = _may_be_id(prefix, sessions=True)
        self._claims.append(claim)
        exact = [a for a in self.all_agents() if a.session_id == prefix]
        if exact:  # a short legacy agent id (a + 6 hex) is its own full id
            for agent in exact:
                self.add_agent(agent)
            return
        # a dashless prefix may run past a uuid's first dash (`737790f6e`): sessions are
        # matched with their dashes dropped; agent ids carry none to drop
        dashless = "-" not in prefix
        sessions = [s for s in self.agent_owners()
                    if (s.name.replace("-", "") if dashless else s.name).startswith(prefix)]
        agents = [a for a in self.all_agents() if a.session_id.startswith(prefix)]
        ids = {s.name[: -len(".jsonl")] for s in sessions} | {a.session_id for a in agents}
        if not ids:
            raise TargetError(
                f"no session or agent id starts with `{prefix}` under {self.root}"
                f"{self.unread_hint(claim)}; check the prefix (`pysift list` shows session and "
                f"agent ids)"
            )
        if len(ids) > 1:
            raise TargetError(
                f"`{token.raw}` is AMBIGUOUS: {len(ids)} ids start with it ({_candidates(ids)}); "
                f"give more characters of the id"
            )
        for session in sessions:
            if (not is_file(session, unread=self.unread)
                    and not self._require_subagents(session.name[: -len(".jsonl")])):
                continue
            self.add_session(session)
        for agent in agents:
            self.add_agent(agent)

    def _agent(self, token: TargetToken) -> None:
        agent_id = token.value
        claim = _may_be_id(agent_id, sessions=False, whole=not is_hex(agent_id))
        self._claims.append(claim)
        exact = [a for a in self.all_agents() if a.session_id == agent_id]
        bare = agent_id_from_stem(agent_id)
        if not exact and bare is not None:
            # the lane's file-stem spelling (`agent-<id>`, what the bare-token error
            # suggests with an `@`); an id that IS `agent-…` (a teammate named "gent")
            # matched exactly above
            exact = [a for a in self.all_agents() if a.session_id == bare]
        if not exact and is_hex(agent_id):
            # A collision-lengthened header token may be a literal prefix of a longer id.
            exact = [a for a in self.all_agents() if a.session_id.startswith(agent_id)]
            ids = {a.session_id for a in exact}
            if len(ids) > 1:
                raise TargetError(
                    f"`{token.raw}` is AMBIGUOUS: {len(ids)} agent ids start with it "
                    f"({_candidates(ids)}); give more characters of the id"
                )
        if not exact:
            raise TargetError(
                f"no subagent `{agent_id}` under {self.root}{self.unread_hint(claim)}; list agent "
                f"ids with `pysift list @<session>` (its SUBAGENT rows) and pass one as "
                f"`@<agent-id>`"
            )
        for agent in exact:
            self.add_agent(agent)

    def _main(self, token: TargetToken) -> None:
        session_id = require_calling_session(self.env, "@main")
        path = find_session_file(session_id, self.env, unread=self.unread, there=self.there)
        if MAIN_LANE_NOTE not in self.notes:
            self.notes.append(MAIN_LANE_NOTE)
        if path is None:
            unreadable = self._unreadable_session(session_id)
            if unreadable is not None:
                raise unreadable
            raise TargetError(
                f"@main: the calling session {session_id} has no transcript under "
                f"{self.root}{self.unread_hint()}; check --claude-home / $CLAUDE_CONFIG_DIR"
            )
        self.add_session(path)

    def _trap(self, token: TargetToken) -> None:
        transcript = resolve_trap(token.value, self.env, self.notes, unread=self.unread)
        if transcript.is_subagent:
            self.add_agent(transcript)
        else:
            self.add_session(transcript.path)

    def _add_project_dir(self, project_dir: Path) -> None:
        """Every transcript of the dir; subagents of a session whose file is gone (a
        sidecar-only ``<uuid>/`` dir) included: they are transcripts all the same."""
        for transcript in project_transcripts(project_dir, subagents=self.subagents,
                                              unread=self.unread):
            self.add(transcript)

    def _encoded_dir(self, token: TargetToken) -> None:
        project_dir = self.root / token.value
        if is_dir(project_dir, unread=self.unread):
            self._add_project_dir(project_dir)
            return
        if token.may_be_path:  # a bare C--… token can also be a real relative path
            self._path(token)
            return
        raise TargetError(
            f"no Claude Code project dir named `{token.value}` under {self.root}; `pysift "
            f"list` shows each session's cwd (or pass the real project path)"
        )

    def _expand_home(self, text: str) -> str:
        home = self.env.environ.get("HOME", "")
        if home and (text == "~" or text.startswith("~/")):
            return home + text[1:]
        return text

    def _path(self, token: TargetToken) -> None:
        if os.name != "nt" and is_windows_rooted(token.value):
            self._windows_path(token.value)
            return
        given = Path(self._expand_home(token.value))
        lexical = Path(os.path.normpath(given if given.is_absolute() else self.env.cwd / given))
        name = lexical.name
        root = Path(os.path.normpath(self.env.cwd / self.root))  # `--claude-home ..` too
        from pysift.core.grammar.targets import is_drive_encoded, is_unix_encoded

        if lexical.parent == root and (is_unix_encoded(name) or is_drive_encoded(name)):
            # <projects-root>/<encoded>: the dir named outright
            if is_dir(lexical, unread=self.unread):
                self._add_project_dir(lexical)
                return
            raise TargetError(
                f"no Claude Code project dir named `{name}` under {self.root}; `pysift list` "
                f"shows each session's cwd"
            )
        # `.meta.json`, `tool-results/*.txt`, …: never a project
        if is_file(lexical, unread=self.unread):
            raise TargetError(
                f"{lexical} is a file but not a transcript: a file target must be a "
                f"`*.jsonl` transcript, any other path a project dir or a real project path"
            )
        real = os.path.realpath(lexical)
        project_dir = find_project_dir(self.root, real, unread=self.unread)
        if project_dir is None:
            bare = token.value.rstrip("/")
            hint = (f"; `{bare}` without the slash names the project dir of that name"
                    if bare != token.value and "/" not in bare and bare.startswith("-")
                    and is_dir(self.root / bare, unread=self.unread) else "")
            raise TargetError(
                f"no Claude Code project dir for {real} (looked for "
                f"{self.root / encode_cwd(real)}); check the path, or --claude-home{hint}"
            )
        self._add_project_dir(project_dir)

    def _windows_path(self, value: str) -> None:
        """A Windows cwd (a drive letter or a UNC share) read where no such path exists:
        the project dir Claude Code named after it, from a home copied from Windows.
        Windows names one directory in either separator and any case, and reads ``.``,
        ``..`` and a trailing separator lexically: every project dir whose name encodes
        the path so is its project (two spellings of one cwd give two dirs)."""
        import ntpath

        cwd = ntpath.normpath(value)
        found = find_project_dir(self.root, cwd, unread=self.unread)
        if found is not None:
            self._add_project_dir(found)
            return
        wanted = encode_cwd(cwd).lower()
        alike = sorted(d for d in iter_project_dirs(self.root, unread=self.unread)
                       if d.name.lower() == wanted)
        if not alike:
            raise TargetError(
                f"no Claude Code project dir for the Windows path {value} (looked for "
                f"{self.root / encode_cwd(cwd)}, in any case); `pysift list` shows each "
                f"session's cwd")
        for project_dir in alike:
            self._add_project_dir(project_dir)

    def _jsonl(self, token: TargetToken) -> None:
        path = Path(token.value)
        if not is_file(path, unread=self.unread):
            raise TargetError(
                f"no transcript at {path}; a `*.jsonl` target must be an existing transcript file"
            )
        if is_workflow_journal(path):
            raise TargetError(
                f"{path} is a workflow journal (the workflow's agent start/result events), "
                f"not a transcript; target its agents (`pysift list @<session>` lists them) "
                f"or the session instead"
            )
        if is_sidecar_file(path):
            raise TargetError(
                f"{path} is an elicitation sidecar (hook-written pending markers), not a "
                f"Claude Code transcript; it is merged automatically when you target its "
                f"session, so target the session instead"
            )
        transcript = transcript_from_path(path)
        if transcript.is_subagent:
            self.add_agent(transcript)
        else:
            self.add_session(path)

    # -- topology: an agent's descendants --------------------------------------------
    def _descendants(self, agent: Transcript) -> list[Transcript]:
        """Subagents spawned (transitively) from ``agent``'s own transcript: the links of
        ``core.topology`` walked down among the session's subagents (imported here: a
        search scoped by session or project never walks them)."""
        from pysift.core.topology import descendants

        session_path = agent.project_dir / f"{agent.parent_session_id}.jsonl"
        return descendants(agent, self.subs(session_path), session_path)


def _may_be_id(ident: str, *, sessions: bool, whole: bool = False) -> Callable[[str], bool]:
    """Whether what an id search could not read may be what ``ident`` names: a dir it
    could not list (it may hold any id), an ``agent-<id>.jsonl`` whose id starts with it
    (is it, when ``whole``), and with ``sessions`` a ``<uuid>.jsonl`` whose uuid starts
    with it (dashes dropped for a dashless prefix, as ``_prefix`` matches). Anything
    else is another session's or agent's file, which says nothing about this one."""
    dashless = "-" not in ident

    def claim(path: str) -> bool:
        name = os.path.basename(path)
        if not name.endswith(".jsonl"):
            return True
        stem = name[: -len(".jsonl")]
        if stem.startswith("agent-"):
            agent = stem[len("agent-"):]
            return agent == ident if whole else agent.startswith(ident)
        if not sessions:
            return False
        return (stem.replace("-", "") if dashless else stem).startswith(ident)
    return claim


def _lanes_of(session_path: Path) -> Callable[[str], bool]:
    """Whether what a walk could not read may be a lane of this session: anything under
    its ``<uuid>/`` dir, or an old-layout ``agent-*.jsonl`` beside it (the session it
    names could not be read)."""
    inside = os.path.join(os.fspath(session_path)[: -len(".jsonl")], "")
    project_dir = os.fspath(session_path.parent)

    def claim(path: str) -> bool:
        if path.startswith(inside):
            return True
        head, name = os.path.split(path)
        return head == project_dir and is_legacy_agent_file(Path(name))
    return claim


def _session_ref_token(ident: str) -> TargetToken:
    from pysift.core.grammar.targets import parse_target

    if ident.endswith(".jsonl"):  # a transcript path, as `search -l` prints one
        return parse_target(ident)
    bare = ident[1:] if ident.startswith("@") else ident
    if not is_session_ref(bare):
        raise TargetError(
            f"--sessions-from: {ident!r} is not a session id (want a uuid, a 4-11-hex uuid "
            f"prefix, or an agent id, the ids pysift emits)"
        )
    return parse_target("@" + bare)


def resolve_scope(
    tokens: Sequence[str],
    env: Env,
    *,
    subagents: bool = True,
    sessions_from: Sequence[str] | None = None,
    copies: bool = False,
) -> Scope:
    """Resolve positional targets (and a ``--sessions-from`` id list) to a ``Scope``.

    No tokens and no list means every session of every project (with subagents when
    ``subagents``). Every token is parsed before any is resolved, so a malformed one fails
    before the disk is walked. ``copies``: an ``@<uuid>`` copied into several project dirs
    gives every copy (a single-record fetch then names their paths) instead of the one
    written last.
    """
    resolver = _Resolver(env, subagents)
    resolver.copies = copies
    _require_readable_root(resolver.root)
    if not tokens and sessions_from is None:
        if not is_dir(resolver.root, unread=resolver.unread):
            raise SourceError(
                f"no Claude Code projects dir at {resolver.root}; pass --claude-home DIR or "
                f"set CLAUDE_CONFIG_DIR to the dir holding projects/"
            )
        # the whole home's transcripts are all kept: the collector's passes over them
        # (a dozen young ones and a middle one over B's 2,428) would find nothing
        with paused_gc():
            for project_dir in iter_project_dirs(resolver.root, unread=resolver.unread):
                for transcript in project_transcripts(project_dir, subagents=subagents,
                                                      unread=resolver.unread):
                    resolver.add(transcript)
        return _scope(resolver, scoped=False)
    home_text = env.environ.get("HOME", "")
    home = Path(home_text) if home_text else None
    from pysift.core.grammar.targets import parse_target

    parsed = [parse_target(t, cwd=env.cwd, home=home) for t in tokens]
    listed = [_session_ref_token(i) for i in sessions_from or ()]
    for token in parsed:
        resolver.resolve(token)
    resolver.listing = True
    for token in listed:
        resolver.resolve(token)
    if len(parsed) + len(listed) > 1:  # two spellings of one file (a symlinked home) are one transcript
        _collapse_aliases(resolver.found)
    return _scope(resolver, scoped=True)


def _collapse_aliases(found: dict[str, Transcript]) -> None:
    """Keep one entry per real file (the first path in path order)."""
    seen: set[str] = set()
    for key in sorted(found):
        real = os.path.realpath(key)
        if real in seen:
            del found[key]
        else:
            seen.add(real)


def _require_readable_root(root: Path) -> None:
    """A projects root that exists but cannot be listed hides every session: an error,
    never an empty scope (a missing root is the caller's own message)."""
    try:
        with os.scandir(root):
            return
    except (FileNotFoundError, NotADirectoryError):
        return
    except OSError as exc:
        raise SourceError(
            f"cannot read the projects dir {root}: {exc.strerror or exc}; check its "
            f"permissions (and those of the dirs above it) or pass another --claude-home"
        ) from None


def _scope(resolver: _Resolver, scoped: bool) -> Scope:
    """The scope, with a warning for every dir or file the walk could not read: the
    transcripts behind it are missing, and a search must not call its zero a definitive
    absence."""
    unreadable = resolver.unreadable()
    notes = list(resolver.notes)
    notes.extend(unread_note(path, reason) for path, reason in unreadable)
    return Scope(_ordered(resolver.found), scoped=scoped, notes=notes,
                 unreadable=unreadable)


def unread_note(path: str, reason: str) -> str:
    """The warning for a dir or file a walk found but could not read."""
    return (f"warning: cannot read {path}: {reason}; what it holds is not in scope (check "
            "the path and its permissions)")


def _ordered(found: Mapping[str, Transcript]) -> list[Transcript]:
    """Path order by the path TEXT: ``<uuid>.jsonl`` sorts before ``<uuid>/subagents/…``
    (``.`` < ``/``), which ``Path`` ordering (by components) would invert."""
    return [found[p] for p in sorted(found)]
