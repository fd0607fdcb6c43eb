"""One watched session: every surface ``status`` and ``wait`` read, kept current.

``LiveSession.load`` reads the session once: the anchor transcript's tail window, its
whole body through the background scan's needle passes, each subagent lane's tail, the
elicitation sidecar. ``status`` reads the files as one snapshot (an mmap for a big file);
``wait`` reads them into memory (``robust``), so a file truncated under it is a shorter
read, never a fault, and then follows them by byte offsets: ``poll`` reads only the
complete lines appended since (a torn tail is held until its newline lands), feeds them to
the background scanner and the return tracker, re-reads the tail of whatever grew, and
hands the new records back for the event conditions. Lanes and a sidecar that appear
after the start join with a zero baseline (all they hold is new). ``assess`` joins the
surfaces into a verdict at any moment, reading only the registry, the pid and the
journals again.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from pysift.core.lanes import digest, is_warmup, opening_prompt
from pysift.core.resolve import Scope, resolve_scope
from pysift.core.sidecar import kind_of, pending_one_liner, read_sidecar
from pysift.core.workflows import parse_manifest
from pysift.disk.layout import (
    KIND_LEGACY,
    Transcript,
    Unreadable,
    old_layout_agents,
    session_dir,
    sidecar_path,
    subagent_transcripts,
)
from pysift.disk.lines import Buffer
from pysift.disk.mapped import open_buffer, read_regular
from pysift.errors import SourceError, TargetError, UsageError
from pysift.live import background, children, process, registry, verdict
from pysift.live.files import View, complete_lines, read_range, size_of
from pysift.live.last import last_messages
from pysift.live.tail import TailShape, read_tail
from pysift.live.tasks import read_tasks
from pysift.model.env import Env
from pysift.model.fastdata import dataclass
from pysift.model.record import Record

MAX_NAMED = 20
#: how an old-layout lane's return is said when its spawning call was found by its prompt
_BY_PROMPT = ("its spawning call's result is in the main transcript (the call found by the "
              "lane's prompt: the result names no agent)")


@dataclass(frozen=True)
class Target:
    transcript: Transcript  # the transcript the verdict is about
    session_path: Path  # its top-level session's transcript (sidecar, lanes, registry)
    owner_id: str  # the top-level session's id

    @property
    def is_subagent(self) -> bool:
        return self.transcript.is_subagent


def resolve_target(tokens: list[str], env: Env, command: str,
                   on_scope: Callable[[Scope], object] | None = None) -> Target:
    """The one session a live command reads (``status``/``wait`` take exactly one); the
    resolved scope (what its walk could not read) goes to ``on_scope``."""
    if not tokens:
        raise UsageError(f"{command} needs a target: exactly one session (@<uuid>, @main, "
                         f"@<agent-id>, a session's .jsonl, or a project path holding one "
                         f"session)")
    if len(tokens) > 1:
        raise UsageError(f"{command} reads exactly one session per call; got {len(tokens)} "
                         f"targets ({' '.join(tokens)}): run one {command} per session")
    scope = resolve_scope(tokens, env, subagents=False)
    if on_scope is not None:
        on_scope(scope)
    found = scope.transcripts
    if not found:
        raise TargetError(f"`{tokens[0]}` names no transcript; `pysift list` shows the "
                          "sessions there are")
    if len(found) > 1:
        ids = [t.session_id for t in found]
        shown = ", ".join(ids[:MAX_NAMED]) + (f" (+{len(ids) - MAX_NAMED} more)"
                                              if len(ids) > MAX_NAMED else "")
        how = ("as @<uuid>" if len(set(ids)) == len(ids) else
               "by its path (" + ", ".join(str(t.path) for t in found[:MAX_NAMED]) + ")")
        raise TargetError(f"`{tokens[0]}` names {len(found)} sessions ({shown}); {command} "
                          f"reads exactly one: pass one of them {how}")
    transcript = found[0]
    if transcript.is_subagent:
        session = transcript.project_dir / f"{transcript.parent_session_id}.jsonl"
    else:
        session = transcript.path
    return Target(transcript, session, transcript.parent_session_id)


@dataclass
class _Watched:
    """A file followed by byte offset."""

    path: Path
    lane: str
    is_main: bool  # the MAIN transcript (completions land there)
    is_anchor: bool = False
    is_sidecar: bool = False
    offset: int = 0  # end of the complete lines read so far (the baseline at first)
    tail: TailShape | None = None
    size: int = 0


@dataclass
class NewRecord:
    """A record that landed after the baseline."""

    rec: Record
    lane: str
    is_main: bool  # from the main transcript (notifications land only there)
    is_sidecar: bool


#: what is read of an old-layout lane's head to tell the "Warmup" ping: its opening
#: records are a few hundred bytes (a longer first record opens no ping)
_WARMUP_HEAD_BYTES = 64 << 10


class LiveSession:
    def __init__(self, target: Target, env: Env, *, subagents: bool, lens: background.Lens,
                 robust: bool) -> None:
        self.target = target
        self.env = env
        self.subagents = subagents
        self.lens = lens
        self.robust = robust
        self.table: process.ProcessTable = env.processes or process.SystemProcesses()
        self.scanner = background.Scanner()
        self.files: dict[str, _Watched] = {}
        self.returns: dict[str, str | None] = {}  # agent id -> the return's timestamp
        self.native_ids: set[str] = set()  # tool ids that landed natively (ghost guard)
        self._pending: list[Record] = []  # the sidecar's unresolved pending records
        self.sidecar_error: str | None = None
        self.sidecar_skipped = 0
        self.notes: list[str] = []  # reading problems, once each
        self.unread: set[str] = set()  # the notes about what exists but cannot be read
        self.journals_unread = 0
        self._anchor_buf: Buffer | None = None
        self.main_unread = False  # a subagent target's session transcript is missing/unread
        self._seen_row: registry.RegistryRow | None = None  # the newest row read (wait)
        # old-layout lanes (``agent-<id>.jsonl`` beside the sessions): every such file read
        # so far, by path (``old_layout_agents``), those that are this session's lanes,
        # and the prompt each opens on once its head holds its first record
        self._old_known: dict[str, Transcript] = {}
        self._old_lanes: dict[str, Transcript] = {}
        self._old_seeds: dict[str, str | None] = {}
        self._prompts: children.PromptReturns | None = None  # built when first needed

    # -- reading --------------------------------------------------------------------------

    @property
    def anchor(self) -> _Watched:
        return next(w for w in self.files.values() if w.is_anchor)

    @property
    def top_level(self) -> bool:
        return not self.target.is_subagent

    @property
    def rootless(self) -> bool:
        """An old-layout agent whose records name no session: its own root (its parent id
        is its own), so "its session" is no file to point at or to read."""
        t = self.target.transcript
        return t.kind == KIND_LEGACY and t.parent_session_id == t.session_id

    def _list_lanes(self) -> list[Transcript]:
        """The session's lanes now: those of its ``<uuid>/subagents/`` dir and the
        old-layout ``agent-<id>.jsonl`` files beside it that name it (Claude Code 2.0.x
        and older wrote its sidechains there); a dir that cannot be listed is said
        (once)."""
        unread = Unreadable()
        lanes = subagent_transcripts(self.target.session_path, unread=unread)
        old = old_layout_agents(self.target.session_path, unread=unread, known=self._old_known)
        for lane in old:
            self._old_lanes.setdefault(os.fspath(lane.path), lane)
        for path, reason in unread.items():
            self._unread(f"cannot read {path}: {reason}; the lanes there are not read")
        return lanes + old

    def _whole(self, path: Path) -> Buffer | None:
        """A file's bytes now (``None`` when it cannot be read: said once in the notes)."""
        if self.robust:
            size = size_of(path)
            if size is None:
                self._unread(f"cannot read {path}: it is gone or unreadable")
                return None
            return read_range(path, 0, size)
        try:
            return open_buffer(path)
        except SourceError as exc:
            self._unread(str(exc))
            return None

    def _note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def _unread(self, text: str) -> None:
        self._note(text)
        self.unread.add(text)

    @property
    def unreadable(self) -> int:
        """What exists but could not be read (files, dirs, the sidecar, the journals),
        each also said in the notes: the summary's ``unreadable``."""
        return len(self.unread) + (self.sidecar_error is not None) + self.journals_unread

    def load(self) -> None:
        """Read every surface once; the offsets reached are the baseline."""
        t = self.target
        anchor = _Watched(t.transcript.path, t.transcript.session_id,
                          is_main=self.top_level, is_anchor=True)
        self.files[os.fspath(anchor.path)] = anchor
        buf = self._load_file(anchor, scan=True)
        if buf is None:
            raise SourceError(f"cannot read the transcript {anchor.path}; check that it "
                              "exists and is readable")
        self._anchor_buf = buf
        archived = registry.archive_note(self.env.claude_home)
        if archived is not None:  # its registry and task lists were not archived
            self._note(archived)
        main_buf: Buffer | None = buf
        scanned: list[Buffer] = [buf]
        if not self.top_level and t.session_path.exists():
            main = _Watched(t.session_path, t.owner_id, is_main=True)
            self.files[os.fspath(main.path)] = main
            main_buf = self._load_file(main, scan=True)
            if main_buf is not None:
                scanned.append(main_buf)
        elif not self.top_level and self.rootless:
            main_buf = None
            self._note("this old-layout agent names no session (no record carries a "
                       "sessionId): no main transcript holds its return or its background "
                       "tasks' completions")
        elif not self.top_level:
            main_buf = None
            self._note(f"its session's main transcript {t.session_path} is not there: this "
                       "lane's return and its background tasks' completions cannot be read")
        self.main_unread = main_buf is None
        if self.top_level and self.subagents:
            for lane in self._list_lanes():
                watched = _Watched(lane.path, lane.session_id, is_main=False)
                self.files[os.fspath(lane.path)] = watched
                lane_buf = self._load_file(watched, scan=True)
                if lane_buf is not None:
                    scanned.append(lane_buf)
                    self._read_seed(watched, lane_buf)
        elif t.transcript.kind == KIND_LEGACY:  # an old-layout lane's own return
            self._old_lanes[os.fspath(t.transcript.path)] = t.transcript
            self._read_seed(anchor, buf)
        if self._old_lanes and main_buf is not None:
            self._prompts = children.PromptReturns()
            self._prompts.load(main_buf)
        self.scanner.task_tool_words(scanned)
        if main_buf is not None:
            self._initial_returns(main_buf)
        if self.top_level:
            self._load_sidecar(main_buf, baseline=True)
        if self.robust:
            self._anchor_buf = None  # wait follows by offsets; the snapshot is history
            # the row at the start: its pid stays the owner if the row is removed later
            self._seen_row = registry.lookup(self.env.claude_home, t.owner_id).row

    def _load_file(self, watched: _Watched, *, scan: bool) -> Buffer | None:
        buf = self._whole(watched.path)
        if buf is None:
            return None
        watched.size = len(buf)
        watched.offset = buf.rfind(b"\n") + 1
        watched.tail = read_tail(View(watched.path, len(buf), buf),
                                 subagent=not watched.is_main)
        if scan:
            self.scanner.scan(buf, watched.lane, is_main=watched.is_main,
                              key=os.fspath(watched.path))
        return buf

    def _read_seed(self, watched: _Watched, buf: Buffer | None = None) -> None:
        """The prompt an old-layout lane opens on, once its head holds its first record
        (read once): its spawning call is found by it when the call's result names no
        agent, and a "Warmup" ping is told by it."""
        key = os.fspath(watched.path)
        if key not in self._old_lanes or watched.lane in self._old_seeds:
            return
        if buf is None:
            size = size_of(watched.path)
            if not size:
                return
            buf = read_range(watched.path, 0, size)
        seen, prompt = opening_prompt(buf)
        if seen:
            self._old_seeds[watched.lane] = prompt

    def _is_warmup_target(self) -> bool:
        """The target is an old-layout lane opening on the "Warmup" ping (its head read)."""
        t = self.target.transcript
        if t.kind != KIND_LEGACY:
            return False
        size = min(size_of(t.path) or 0, _WARMUP_HEAD_BYTES)  # the ping's records are tiny
        return bool(size) and is_warmup(opening_prompt(read_range(t.path, 0, size))[1])

    def _prompt_returns(self, lanes: list[str]) -> dict[str, str | None]:
        """The old-layout lanes among ``lanes`` that the main transcript reports returned
        by their prompt alone (``children.PromptReturns``): lane id -> when. A "Warmup"
        ping is never paired (no call spawned it)."""
        if self._prompts is None:
            return {}
        seeds = {lane: digest(prompt) for lane in lanes
                 if (prompt := self._old_seeds.get(lane)) and not is_warmup(prompt)}
        return self._prompts.settle(seeds) if seeds else {}

    def _initial_returns(self, main_buf: Buffer) -> None:
        """Returns already in the main transcript, for the lanes whose tail reads live
        (a settled lane needs none)."""
        now = self.env.now()
        live = [w.lane for w in self._lanes()
                if w.tail is not None and children.child_state(w.lane, w.tail, now).state
                != "settled"]
        if not self.top_level:  # a subagent target: its own return ends its turn
            live.append(self.target.transcript.session_id)
        self.returns.update(children.find_returns(main_buf, set(live)))

    def _load_sidecar(self, main_buf: Buffer | None, *, baseline: bool) -> None:
        path = sidecar_path(self.target.session_path)
        merge = read_sidecar(path, main_buf)
        if baseline and self.robust and main_buf is not None and merge.present:
            # (wait) asks the transcript already answered (their resolved line never landed): a
            # later re-read, when the sidecar grows, has no transcript to check them by
            kept = {r.raw.get("csiftKey") for r in merge.pending}
            for rec in read_sidecar(path, None).pending:
                if rec.raw.get("csiftKey") not in kept:
                    self._native(rec)
        self.sidecar_error = merge.error
        self.sidecar_skipped = merge.skipped_lines
        self._pending = merge.pending
        key = os.fspath(path)
        if merge.present and key not in self.files:
            size = size_of(path) or 0
            data = read_range(path, 0, size) if baseline else b""
            self.files[key] = _Watched(path, self.target.owner_id, is_main=False,
                                       is_sidecar=True, size=size,
                                       offset=data.rfind(b"\n") + 1 if baseline else 0)

    def pending(self) -> list[verdict.Pending]:
        """The sidecar's open elicitations, less those whose native record has landed."""
        return [verdict.Pending(kind_of(r), pending_one_liner(r)) for r in self._pending
                if not self._answered(r)]

    def _answered(self, rec: Record) -> bool:
        return any(isinstance(b.get("id"), str) and b["id"] in self.native_ids
                   for b in rec.blocks())

    def _lanes(self) -> list[_Watched]:
        return [w for w in self.files.values() if not w.is_main and not w.is_anchor
                and not w.is_sidecar]

    def watched_count(self) -> int:
        return len(self.files)

    def watch_roots(self) -> tuple[list[Path], bool]:
        """What a file watcher should follow: ``(paths, recursive)``."""
        home_sessions = self.env.claude_home / "sessions"
        extra = [home_sessions] if home_sessions.is_dir() else []
        sdir = session_dir(self.target.session_path)
        if sdir.is_dir():
            files = [w.path for w in self.files.values() if not w.is_sidecar
                     and not _inside(w.path, sdir)]
            return [*files, sdir, *extra], True
        return [self.target.session_path.parent, *extra], False

    # -- following (wait) -----------------------------------------------------------------

    def poll(self) -> list[NewRecord]:
        """The complete records appended since the last read, every watched file."""
        out: list[NewRecord] = []
        if self.top_level and self.subagents:
            for lane in self._list_lanes():
                key = os.fspath(lane.path)
                if key not in self.files:  # born after the start: zero baseline
                    self.files[key] = _Watched(lane.path, lane.session_id, is_main=False)
            if self._old_lanes and self._prompts is None:
                # the first old-layout lane joined: the calls so far, then fed line by line
                self._prompts = children.PromptReturns()
                self._prompts.load(read_range(self.anchor.path, 0, self.anchor.offset))
        if self.top_level:
            path = sidecar_path(self.target.session_path)
            if os.fspath(path) not in self.files and path.exists():
                self.files[os.fspath(path)] = _Watched(path, self.target.owner_id,
                                                       is_main=False, is_sidecar=True)
        sidecar_grew = False
        for watched in list(self.files.values()):
            lines = self._appended(watched)
            if watched.is_sidecar:
                sidecar_grew = sidecar_grew or bool(lines)
            if not lines:
                continue
            self._read_seed(watched)
            if not watched.is_sidecar:
                self.scanner.feed(lines, watched.lane, is_main=watched.is_main,
                                  key=os.fspath(watched.path))
            for _offset, line in lines:
                rec = _decode(line)
                if rec is None:
                    continue
                if watched.is_main:
                    for ident in children.returned_agents(rec):
                        self.returns[ident] = rec.timestamp
                    if self._prompts is not None:
                        self._prompts.feed(rec)
                    self._native(rec)
                if self.top_level or watched.is_anchor:  # a lane's watch: its own records
                    out.append(NewRecord(rec, watched.lane, watched.is_main,
                                         watched.is_sidecar))
        if sidecar_grew:
            self._load_sidecar(None, baseline=False)
        return out

    def _native(self, rec: Record) -> None:
        for block in rec.blocks():
            for key in ("id", "tool_use_id"):
                value = block.get(key)
                if isinstance(value, str) and value:
                    self.native_ids.add(value)

    def _appended(self, watched: _Watched) -> list[tuple[int, bytes]]:
        size = size_of(watched.path)
        if size is None:
            return []
        if size < watched.offset:
            self._note(f"{watched.path} was truncated while watched ({watched.offset} -> "
                       f"{size} bytes): its baseline moved to its new end, and what was "
                       "rewritten below it is not read as new")
            data = read_range(watched.path, 0, size)
            watched.offset = data.rfind(b"\n") + 1
            watched.size = size
            if not watched.is_sidecar:
                watched.tail = read_tail(View(watched.path, size), subagent=not watched.is_main)
            return []
        if size == watched.size and watched.tail is not None:
            return []
        data = read_range(watched.path, watched.offset, size)
        lines, end = complete_lines(data, watched.offset)
        watched.offset = end
        watched.size = size
        if not watched.is_sidecar:
            watched.tail = read_tail(View(watched.path, size), subagent=not watched.is_main)
        return lines

    # -- judging --------------------------------------------------------------------------

    def surfaces(self, now: datetime) -> verdict.Surfaces:
        t = self.target
        lookup = registry.lookup(self.env.claude_home, t.owner_id)
        liveness = None
        row = lookup.row
        probe = row
        gone_note = None
        if row is not None:
            self._seen_row = row
        elif self._seen_row is not None and self._seen_row.pid is not None:
            # wait saw this session's row, and it is gone: Claude Code removes it when the
            # session exits, so the pid it named is still the owner to probe
            probe = self._seen_row
            gone_note = (f"the registry row {probe.path.name} that named this session is "
                         f"gone (Claude Code removes it when the session exits): the pid it "
                         f"named ({probe.pid}) is probed as the owner")
        if probe is not None and probe.pid is not None:
            recorded = process.read_proc_start(probe.proc_start,
                                               filetime_key=probe.proc_start_is_filetime)
            liveness = process.probe_owner(probe.pid, recorded, probe.pid_domain, self.table)
        report = self.scanner.report(self.lens, now, lane=None if self.top_level
                                     else t.transcript.session_id,
                                     run_status=self._run_status)
        kids = None
        skipped = None
        if self.top_level and self.subagents:
            returns = self._settled_returns(report)
            lanes = [(self._transcript(w), w.tail) for w in self._lanes() if w.tail is not None]
            lanes.sort(key=lambda pair: os.fspath(pair[0].path))
            for ident, ts in self._prompt_returns(
                    [lane.session_id for lane, _ in lanes
                     if lane.kind == KIND_LEGACY and lane.session_id not in returns]).items():
                returns[ident] = (ts, _BY_PROMPT)
            journals = children.read_journals(t.session_path)
            self.journals_unread = journals.unreadable
            warmups = frozenset(lane for lane, prompt in self._old_seeds.items()
                                if is_warmup(prompt))
            kids = children.build(lanes, now, returns=returns, journals=journals,
                                  warmups=warmups)
        elif self.top_level:
            skipped = "children were not read (--no-subagents)"
        elif self.rootless:
            skipped = ("this is a subagent naming no session: it has no children, task list "
                       "or elicitation sidecar to read")
        elif t.session_path.exists():
            skipped = ("this is a subagent: the children, the task list and the elicitation "
                       f"sidecar belong to its session (pysift status @{t.owner_id})")
        else:  # its session has no transcript of its own: status of it would be refused
            skipped = ("this is a subagent: the children, the task list and the elicitation "
                       f"sidecar belong to its session {t.owner_id}, which has no transcript "
                       f"of its own here (pysift list @{t.owner_id} lists its subagents)")
        notes = list(self.notes)
        if gone_note is not None:
            notes.append(gone_note)
        if not self.top_level and row is not None:
            notes.append("the registry row is the parent session's: its pid says whether this "
                         "lane's process lives; its status speaks for the parent, not this "
                         "lane, and is not read as a signal")
        anchor = self.anchor
        assert anchor.tail is not None
        returned = None
        journal_settled = False
        if not self.top_level:
            lane_id = t.transcript.session_id
            journals = children.read_journals(t.session_path)
            self.journals_unread = journals.unreadable
            notes.extend(journals.notes)
            returned = children.journal_return(lane_id, journals)
            journal_settled = returned is not None
            if returned is None:
                whole = self.scanner.report(self.lens, now, lane=None,
                                            run_status=self._run_status)
                found = self._settled_returns(whole).get(lane_id)
                if found is None and lane_id in self._prompt_returns([lane_id]):
                    found = (self._prompt_returns([lane_id])[lane_id], _BY_PROMPT)
                returned = children.return_words(found, anchor.tail)
            if returned is None and children.exited(anchor.tail):
                returned = "returned (it approved its shutdown request and exited)"
            if returned is None and not anchor.tail.open_calls and self._is_warmup_target():
                # no call spawned it, so nothing reports its return: it answered the ping
                returned = ("is Claude Code's start-up Warmup ping: no call spawned it, and "
                            "it answered")
        return verdict.Surfaces(
            registry=lookup, liveness=liveness, tail=anchor.tail, children=kids,
            pending=self.pending(), background=report, is_subagent=not self.top_level,
            children_skipped=skipped, sidecar_error=self.sidecar_error,
            sidecar_skipped_lines=self.sidecar_skipped, extra_notes=notes,
            returned=returned, journal_settled=journal_settled,
            main_unread=self.main_unread)

    def _run_status(self, run_id: str) -> tuple[str, str | None] | None:
        """A Workflow run's status and instant from its manifest
        (``<uuid>/workflows/<run_id>.json``, written when the run ends); None when there is
        none, or it cannot be read (the task then stays open, as its notification says)."""
        if not run_id or run_id in (".", "..") or "/" in run_id or "\\" in run_id:
            return None
        path = session_dir(self.target.session_path) / "workflows" / f"{run_id}.json"
        try:
            data = read_regular(path)
        except OSError:
            return None
        run = parse_manifest(data, run_id)
        return (run.status, run.started) if run.status else None

    def _settled_returns(self, report: background.BackgroundReport
                         ) -> dict[str, tuple[str | None, str]]:
        """Agents the harness reported returned: by a completion pulse, or by their
        spawning call's result (agent id -> (when, how))."""
        out: dict[str, tuple[str | None, str]] = {}
        for task in report.tasks:
            if task.kind == background.AGENT and task.id and not task.is_open:
                out[task.id] = (task.returned, task.closed_by
                                or "its completion pulse is in the main transcript")
        for ident, ts in self.returns.items():
            out.setdefault(ident, (ts, "its spawning call's result is in the main transcript"))
        return out

    def _transcript(self, watched: _Watched) -> Transcript:
        from pysift.disk.layout import transcript_from_path

        old = self._old_lanes.get(os.fspath(watched.path))  # (its parent read off its head)
        return old if old is not None else transcript_from_path(watched.path)

    def assess(self, now: datetime) -> verdict.Assessment:
        return verdict.assess(self.surfaces(now), now)

    def report(self, now: datetime) -> verdict.Assessment:
        """The verdict with what only the full report carries: the task list and the last
        messages."""
        result = self.assess(now)
        if self.top_level:
            result.tasks = read_tasks(self.env.claude_home, self.target.owner_id)
            result.notes.extend(result.tasks.notes)
        anchor = self.anchor
        held = self._anchor_buf

        def whole() -> Buffer:
            if held is not None and len(held) == anchor.size:
                return held
            return read_range(anchor.path, 0, anchor.size)

        assert anchor.tail is not None
        result.last = last_messages(whole, anchor.tail, subagent=self.target.is_subagent)
        return result


def _inside(path: Path, directory: Path) -> bool:
    try:
        path.relative_to(directory)
    except ValueError:
        return False
    return True


def _decode(line: bytes) -> Record | None:
    from pysift.core.decode import decode

    return decode(line, None)
