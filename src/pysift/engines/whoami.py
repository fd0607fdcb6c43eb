"""Who is calling? The env identity and the ``@trap`` ancestry chain (SPEC §6.3, §6.3a).

Two sources, never a guess:

* the ENV form reads ``CLAUDE_CODE_SESSION_ID`` (the Codex alias second) and finds that
  session's transcript: the project dir of the encoded cwd first, then every project dir.
  Claude Code sets the TOP-LEVEL id in every Bash environment, subagents included, so
  the env cannot tell which lane is asking: ``is_subagent``, ``parent_session_id`` and
  ``depth`` are unknown there and stay None (never fabricated).
* the ``@trap:<marker>`` form finds the transcript whose shell ``tool_use`` carries the
  marker (``resolve.resolve_trap``) and walks UP the spawn links to the top-level root,
  one identity per link, self first at depth 0.

Neither reads process trees or file mtimes: with dozens of live sessions both are wrong
more often than right.
"""

from __future__ import annotations

import os
from pathlib import Path

from pysift.core.resolve import (
    SESSION_ID_VARS,
    find_session_file,
    projects_root,
    require_calling_session,
    resolve_trap,
)
from pysift.core.spawns import IssuedBy, Spawns, spawned_by, spawns_in
from pysift.disk.layout import (
    Transcript,
    Unreadable,
    find_project_dir,
    read_meta,
    subagent_transcripts,
    top_level_transcript,
)
from pysift.model.env import Env
from pysift.model.fastdata import dataclass

WHOAMI_PURPOSE = "whoami"


@dataclass(frozen=True)
class Identity:
    """One link of the answer. ``is_subagent``/``parent_session_id``/``depth`` are None
    when the lane cannot be known (the env form)."""

    session_id: str
    is_subagent: bool | None
    parent_session_id: str | None
    depth: int | None
    path: Path | None


@dataclass
class WhoamiAnswer:
    identities: list[Identity]
    source: str  # the env variable read, or "@trap"
    marker: str | None = None
    found_in_cwd_project: bool = False  # env form: the file sat in the encoded-$PWD dir
    #: env form, found by scanning: the other project dirs' copies of the transcript
    other_copies: list[Path] | None = None
    notes: list[str] | None = None
    # (path, reason) of the dirs and files the lookup could not read: a transcript there
    # is one it could not see (the command says so, and counts them)
    unreadable: list[tuple[str, str]] | None = None


def env_variable_used(env: Env) -> str | None:
    """Which of the two accepted variables carried the id (exact names only)."""
    for name in SESSION_ID_VARS:
        if env.environ.get(name, "").strip():
            return name
    return None


def whoami_from_env(env: Env) -> WhoamiAnswer:
    """The env identity: one row, lane unknown; ``path`` None when no transcript matches."""
    session_id = require_calling_session(
        env, WHOAMI_PURPOSE, instead="write a unique marker in this session and run "
                                     "`pysift whoami @trap:<marker>`")
    # a dir that cannot be read on the way may hold the file: the command says so
    unread = Unreadable()
    others: list[Path] = []  # found by scanning: the other copies are named, none silent
    path = find_session_file(session_id, env, unread=unread, others=others)
    in_cwd_dir = False
    if path is not None:
        here = find_project_dir(projects_root(env), os.fspath(env.cwd), unread=unread)
        in_cwd_dir = here is not None and path.parent == here
    identity = Identity(session_id, None, None, None, path)
    return WhoamiAnswer([identity], source=env_variable_used(env) or SESSION_ID_VARS[0],
                        found_in_cwd_project=in_cwd_dir, other_copies=others,
                        unreadable=unread.items())


class _Lane:
    """One session's subagents and, read lazily and once each, their spawn sets."""

    def __init__(self, session_path: Path, unread: Unreadable) -> None:
        # a sibling that cannot be listed cannot be seen as a link of the chain: noted
        self.siblings = subagent_transcripts(session_path, unread=unread)
        self.main_issued = IssuedBy(session_path)
        self._spawns: dict[str, Spawns] = {}

    def spawns(self, transcript: Transcript) -> Spawns:
        found = self._spawns.get(transcript.session_id)
        if found is None:
            found = self._spawns[transcript.session_id] = spawns_in(transcript.path)
        return found

    def link_of(self, child: Transcript) -> tuple[Transcript | None, str | None]:
        """The subagent that spawned ``child`` (None when the top-level session did) and,
        when there is none because the child's meta names a parent agent with no
        transcript in the session, that agent's id (``agents`` notes the same lane).

        The same links the resolver walks DOWN (``topology.spawned_by``): the child's meta
        ``parentAgentId``; else its meta ``toolUseId`` among a sibling's spawn calls that
        the main transcript did not itself issue; else a sibling's call whose result names
        the child; else its meta ``name`` among a sibling's spawn names.
        """
        meta = read_meta(child)
        declared = meta.get("parentAgentId")
        parent = self._parent(child, meta, declared)
        if parent is None and isinstance(declared, str) and declared:
            return None, declared
        return parent, None

    def _parent(self, child: Transcript, meta: dict[str, object], declared: object
                ) -> Transcript | None:
        for candidate in self.siblings:
            if candidate.session_id == child.session_id:
                continue
            if isinstance(declared, str) and declared:
                if candidate.session_id == declared:
                    return candidate
                continue
            if spawned_by(meta, candidate.session_id, self.spawns(candidate), self.main_issued,
                          child.session_id):
                return candidate
        return None


def ancestry(self_transcript: Transcript, unread: Unreadable | None = None,
             notes: list[str] | None = None) -> list[Transcript]:
    """``self_transcript`` then each spawning ancestor, ending at the top-level session
    (``unread`` collects the dirs the walk could not list; ``notes`` gets a line when a
    link's meta names a parent agent whose transcript is not there: the chain shown
    skips what lies above it, as ``agents`` says of that lane)."""
    chain = [self_transcript]
    if not self_transcript.is_subagent:
        return chain
    session_path = self_transcript.project_dir / f"{self_transcript.parent_session_id}.jsonl"
    lane = _Lane(session_path, Unreadable() if unread is None else unread)
    seen = {self_transcript.session_id}
    current = self_transcript
    while True:
        parent, missing = lane.link_of(current)
        if notes is not None:
            if missing == current.session_id:
                notes.append(
                    f"note: agent {current.session_id}: its meta.json names the agent itself "
                    f"as its parent; the links above it are unknown, so the chain goes on "
                    f"at the top-level session (the depths count the links found)")
            elif missing is not None:
                notes.append(
                    f"note: agent {current.session_id}: its meta.json names parent agent "
                    f"{missing}, which has no transcript in this session; the links above "
                    f"it are unknown, so the chain goes on at the top-level session (the "
                    f"depths count the links found)")
            elif parent is not None and parent.session_id in seen:
                notes.append(
                    f"note: agent {current.session_id}: its spawner {parent.session_id} is "
                    f"already in the chain below it (the metas name a loop); the links "
                    f"above are unknown, so the chain goes on at the top-level session (the "
                    f"depths count the links found)")
        if parent is None or parent.session_id in seen:
            break
        chain.append(parent)
        seen.add(parent.session_id)
        current = parent
    chain.append(top_level_transcript(session_path))
    return chain


def whoami_from_trap(marker: str, env: Env) -> WhoamiAnswer:
    """The ``@trap`` identity chain: self at depth 0, the top-level root last."""
    notes: list[str] = []
    unread = Unreadable()
    found = resolve_trap(marker, env, notes, unread=unread)
    chain = ancestry(found, unread, notes)
    identities = [
        Identity(t.session_id, t.is_subagent, t.parent_session_id, depth,
                 t.path if t.path.is_file() else None)
        for depth, t in enumerate(chain)
    ]
    return WhoamiAnswer(identities, source="@trap", marker=marker.strip(), notes=notes,
                        unreadable=unread.items())
