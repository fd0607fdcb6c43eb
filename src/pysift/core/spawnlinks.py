"""A session's spawn links as the classifier's directions need them (csift §5.2-§5.3,
SPEC §4), read from the session's other files at first use.

Three facts of a record's direction are in no transcript line of its own:

- ``children``: the spawning call's ``tool_use_id`` -> the child's agent id, from each
  lane's ``.meta.json`` (``toolUseId``; the child's id is its transcript's, ``agent-``
  stripped, as ``agents`` prints it). A spawn reads ``self ⇨ <child>``, a ``<result>``
  pulse ``<child> ⇨ self`` (its ``<tool-use-id>``), and a completion the record does not
  name its child in (older builds: no ``agentId``) is the child's return.
- ``names``: a teammate's ``name`` -> its agent id (its meta carries no ``toolUseId``: the
  spawn's ``input.name`` joins it). A name two lanes carry joins neither.
- ``issuer(lane)``: the lane that spawned a nested subagent, whose prompt then reads
  ``<issuer> ⇨ self``: the meta's ``parentAgentId``, else the links ``agents`` makes
  (``topology.link_scanned`` over every transcript of the session, read once); None: the
  session itself (or nobody found). A meta naming a spawn call of the main transcript
  needs no more than that transcript's calls: the join folds the main transcript's calls
  first, so it links such a lane to the session whatever the other lanes hold.

Nothing here is kept in the cache (SPEC §12a): a meta.json is another file than the
transcript a cache entry is validated by. Each part is read only when a lookup asks for
it, and a session whose listing showed no ``<uuid>/`` dir is never looked at. A meta that
cannot be read or parsed counts as absent (as ``agents`` takes it, which notes it).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pysift.disk.layout import Transcript, Unreadable, read_meta, subagent_transcripts

if TYPE_CHECKING:
    from pysift.core.topology import IssuedBy, Link


class LazyMap(Mapping[str, str]):
    """A mapping built by ``load`` at its first lookup (the classifier asks for a spawn
    index only on the records whose direction or return it decides)."""

    __slots__ = ("_load", "_map")

    def __init__(self, load: Callable[[], Mapping[str, str]]) -> None:
        self._load = load
        self._map: Mapping[str, str] | None = None

    def _loaded(self) -> Mapping[str, str]:
        if self._map is None:
            self._map = self._load()
        return self._map

    def __getitem__(self, key: str) -> str:
        return self._loaded()[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self._loaded().get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._loaded()

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaded())

    def __len__(self) -> int:
        return len(self._loaded())


def session_path_of(transcript: Transcript) -> Path:
    """The main transcript path of the session ``transcript`` belongs to."""
    if not transcript.is_subagent:
        return transcript.path
    return transcript.project_dir / f"{transcript.parent_session_id}.jsonl"


class SessionLinks:
    """One session's spawn links (see the module doc), each part read at first use."""

    def __init__(self, session_path: Path, *, has_lanes: bool = True) -> None:
        self.session_path = session_path
        self._has_lanes = has_lanes
        self._lanes: list[Transcript] | None = None
        self._metas: dict[str, dict[str, Any]] | None = None  # by lane path
        self._children: dict[str, str] | None = None
        self._names: dict[str, str] | None = None
        self._links: dict[str, Link] | None = None
        self._main: IssuedBy | None = None  # the main transcript's spawn calls, by id
        self._keys: dict[str, str] = {}  # lane path -> its key in ``_links``
        self._extra: list[Transcript] = []  # lanes asked about beside ``lanes()``

    # -- the lanes and their metas -------------------------------------------------------
    def lanes(self) -> list[Transcript]:
        """The session's subagent transcripts (none when the session has no dir)."""
        if self._lanes is None:
            self._lanes = (subagent_transcripts(self.session_path, unread=Unreadable())
                           if self._has_lanes else [])
        return self._lanes

    def metas(self) -> dict[str, dict[str, Any]]:
        """Each lane's meta by its path (``{}`` when it has none or it is unreadable)."""
        if self._metas is None:
            self._metas = {os.fspath(lane.path): read_meta(lane) for lane in self.lanes()}
        return self._metas

    def _meta(self, lane: Transcript) -> dict[str, Any]:
        found = self.metas().get(os.fspath(lane.path))
        return found if found is not None else read_meta(lane)

    # -- the maps ------------------------------------------------------------------------
    def children(self) -> dict[str, str]:
        """Spawn ``tool_use_id`` -> child agent id. A call two metas name goes to the
        first lane that is no ``/fork`` clone (a clone's meta may copy its origin's)."""
        if self._children is None:
            out: dict[str, str] = {}
            metas = self.metas()
            ordered = sorted(self.lanes(),  # stable: discovery order within each group
                             key=lambda t: metas[os.fspath(t.path)].get("isFork") is True)
            for lane in ordered:
                call = metas[os.fspath(lane.path)].get("toolUseId")
                if isinstance(call, str) and call:
                    out.setdefault(call, lane.session_id)
            self._children = out
        return self._children

    def names(self) -> dict[str, str]:
        """A lane's meta ``name`` -> its agent id, for the names one lane alone carries,
        among the lanes no call id joins (a teammate): a named lane its meta ties to one
        call is that call's child only, as ``agents`` joins it (another spawn of the same
        name, an errored one, was linked to it)."""
        if self._names is None:
            found: dict[str, set[str]] = {}
            for lane in self.lanes():
                meta = self.metas()[os.fspath(lane.path)]
                call = meta.get("toolUseId")
                if isinstance(call, str) and call:
                    continue
                name = meta.get("name")
                if isinstance(name, str) and name:
                    found.setdefault(name, set()).add(lane.session_id)
            self._names = {name: next(iter(ids)) for name, ids in found.items()
                           if len(ids) == 1}
        return self._names

    # -- a lane's issuer -----------------------------------------------------------------
    def issuer(self, lane: Transcript) -> str | None:
        """The agent that spawned ``lane`` (None: the session, or unknown)."""
        meta = self._meta(lane)
        declared = meta.get("parentAgentId")
        if isinstance(declared, str) and declared and declared != lane.session_id:
            return declared
        call = meta.get("toolUseId")
        if isinstance(call, str) and call and self._main_issued(call):
            return None  # the session's own call (the join's first fold, ``issuer`` None)
        links = self._linked(lane)
        link = links.get(self._keys.get(os.fspath(lane.path), ""))
        return link.parent_agent_id if link is not None else None

    def _main_issued(self, call: str) -> bool:
        """Whether the main transcript issued the spawn call ``call`` (a search for its
        id, where a call stands before its result: the first line holding it, mostly)."""
        if self._main is None:
            from pysift.core.topology import IssuedBy
            from pysift.model.tools import SPAWN_TOOLS

            self._main = IssuedBy(self.session_path, tools=SPAWN_TOOLS)
        return self._main(call)

    def _linked(self, lane: Transcript) -> dict[str, Link]:
        """The links ``agents`` makes for the session: its lanes, and those asked about
        that are not among them (an old-layout agent beside the sessions); made once, and
        again only for such a lane."""
        if self._links is None or os.fspath(lane.path) not in self._keys:
            from pysift.core.topology import (
                lane_key,
                link_scanned,
                scan_transcript,
                unique_keys,
            )

            if self._links is not None or all(os.fspath(t.path) != os.fspath(lane.path)
                                              for t in self.lanes()):
                self._extra.append(lane)
            lanes = [*self.lanes(), *self._extra]
            main = (scan_transcript(self.session_path, None)
                    if self.session_path.is_file() else None)
            scans = [scan_transcript(t.path, t) for t in lanes]
            keys = unique_keys([t.session_id for t in lanes])
            self._keys = {os.fspath(t.path): key for t, key in zip(lanes, keys)}
            self._links = link_scanned(
                main, [lane_key(key, t, scan) for key, t, scan in zip(keys, lanes, scans)],
                scans)
        return self._links

    # -- what a classifier context takes -------------------------------------------------
    def context_fields(self, transcript: Transcript, *, returns: bool = True,
                       directions: bool = True) -> dict[str, Any]:
        """``ClassifyContext`` fields for a transcript of this session, each read at its
        first lookup: the spawn index (``returns``: a return's label or a direction may
        be shown), the names and the issuer (``directions``: a direction may be shown)."""
        out: dict[str, Any] = {}
        if returns or directions:
            out["spawn_index"] = LazyMap(self.children)
        if directions:
            out["spawn_names"] = LazyMap(self.names)
            if transcript.is_subagent:
                out["issuer"] = lambda: self.issuer(transcript)
        return out


class LinkBook:
    """The ``SessionLinks`` of the sessions one process meets, one per session."""

    __slots__ = ("_by_session",)

    def __init__(self) -> None:
        self._by_session: dict[str, SessionLinks] = {}

    def of(self, transcript: Transcript) -> SessionLinks:
        path = session_path_of(transcript)
        key = os.fspath(path)
        found = self._by_session.get(key)
        if found is None:
            # a main transcript whose listing showed no ``<uuid>/`` dir has no lanes
            has_lanes = transcript.is_subagent or transcript.has_session_dir is not False
            found = self._by_session[key] = SessionLinks(path, has_lanes=has_lanes)
        return found

    def context_fields(self, transcript: Transcript, *, returns: bool = True,
                       directions: bool = True) -> dict[str, Any]:
        return self.of(transcript).context_fields(transcript, returns=returns,
                                                  directions=directions)
