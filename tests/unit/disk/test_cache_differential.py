"""The cache never changes an answer: a hypothesis state machine changes transcripts the
ways a Claude home changes between two runs (appends, a torn last line, a rewrite that
restores the mtime, a truncation, a rename, a delete, a new session, a subagent lane and
its meta.json written for a spawn) and after every step compares cached with uncached
``list``, ``search`` and ``stats`` byte for byte.

Kept to a few seconds: few, small transcripts (in-process runs, below the fan-out) and a
short run of steps per example."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from tests.builders import (
    ClaudeHome,
    Session,
    assistant,
    garbage_line,
    interrupt,
    local_command_caveat,
    stable_uuid,
    text,
    to_line,
    tool_result,
    tool_use,
    user,
)
from tests.clirun import run_cli

CWD = "/home/ada/src/orbit"
COMMANDS = [
    ("list", "--format", "json"),
    ("list",),
    ("search", "", "-t", "user", "-c"),
    ("search", "kestrel", "-c"),
    ("search", "-i", "KESTREL", "--format", "json"),
    ("search", "", "--count-by", "turn"),
    ("search", "", "-t", "user.message", "--since", "2026-10-05T09:00:20Z", "-c"),
    ("search", "", "-t", "agent.communication.inbox", "-c"),
    ("search", "", "-t", "agent.communication", "--format", "json"),
    ("stats", "--format", "json"),
    ("stats",),
    ("stats", "--max-count", "1"),
    ("stats", "--turn", "1..", "--format", "json"),
    ("stats", "--since", "2026-10-05T09:00:20Z"),
]
ENV = {"TZ": "Australia/Sydney", "PYSIFT_CACHE_SETTLE_MS": "0"}

# what one append adds, by kind (each a few records, some turn openers, some not; "bare":
# a prompt without cwd, version or branch, which list takes from the lines after it)
KINDS = ("prompt", "needle", "tool", "resend", "caveat", "garbage", "interrupt", "answer",
         "bare", "spawn")
_BARE = {"cwd": None, "version": None, "gitBranch": None}


class Transcript:
    """One session file and the builder that continues its chain."""

    def __init__(self, path: Path, session: Session) -> None:
        self.path = path
        self.session = session
        self.prompt_parent: str | None = None
        self.pending_tail: bytes = b""  # the rest of a torn line, written by the next append
        self.tools = 0
        self.spawns: list[str] = []  # Task calls no lane answers yet

    def lines(self, kind: str) -> bytes:
        s = self.session
        if kind in ("prompt", "needle"):
            self.prompt_parent = s.last_uuid
            words = "plan the kestrel pass" if kind == "needle" else "why is the pass late?"
            return to_line(s.add(user(words)))
        if kind == "bare":
            self.prompt_parent = s.last_uuid
            return to_line(s.add(user("where is the kestrel?", **_BARE)))
        if kind == "resend" and self.prompt_parent is not None:  # a superseded draft's sibling
            return to_line(s.add(user("the Kestrel pass, again"), parent=self.prompt_parent))
        if kind == "tool":
            self.tools += 1
            tid = f"t{self.tools}-{stable_uuid(str(self.path))[:8]}"
            use = s.add(assistant(text("reading"), tool_use("Read", {"file_path": "a.py"},
                                                              id=tid)))
            return to_line(use) + to_line(s.add(tool_result(tid, "1\timport kestrel")))
        if kind == "spawn":  # a Task call and its completion, no agentId (older builds)
            self.tools += 1
            tid = f"s{self.tools}-{stable_uuid(str(self.path))[:8]}"
            self.spawns.append(tid)
            use = s.add(assistant(tool_use("Task", {"subagent_type": "Explore",
                                                    "prompt": "map the kestrel"}, id=tid)))
            return to_line(use) + to_line(s.add(old_completion(tid, "the kestrel is mapped")))
        if kind == "caveat":
            return to_line(s.add(local_command_caveat()))
        if kind == "garbage":
            return garbage_line("<<<<<<< HEAD kestrel")
        if kind == "interrupt":
            return to_line(s.add(interrupt()))
        return to_line(s.add(assistant(text("the kestrel pass is at 09:14"))))


def old_completion(tool_use_id: str, answer: str) -> dict[str, object]:
    """A Task completion naming no child (only the lane's meta.json does: SPEC §4)."""
    return tool_result(tool_use_id, [text(answer)], tool_use_result={
        "status": "completed", "prompt": "map the kestrel", "content": [text(answer)]})


def _restore_times(path: Path, before: os.stat_result) -> None:
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


class CacheAgreement(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="pysift-cache-diff-"))
        self.home = ClaudeHome(self.tmp / "claude")
        self.cache = self.tmp / "cache"
        self.files: list[Transcript] = []
        self.made = 0
        self.saved = {k: os.environ.get(k) for k in (*ENV, "PYSIFT_CACHE_DIR",
                                                     "PYSIFT_NO_CACHE")}
        os.environ.update(ENV)
        os.environ["PYSIFT_CACHE_DIR"] = str(self.cache)
        os.environ.pop("PYSIFT_NO_CACHE", None)

    def teardown(self) -> None:
        for key, value in self.saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(self.tmp, ignore_errors=True)

    # -- transcripts ---------------------------------------------------------------------
    def _new(self, kinds: list[str]) -> None:
        self.made += 1
        sid = stable_uuid(f"diff-{self.made}")
        session = Session(sid, cwd=CWD)
        path = self.home.project_dir(CWD) / f"{sid}.jsonl"
        t = Transcript(path, session)
        path.write_bytes(b"".join(t.lines(k) for k in kinds))
        self.files.append(t)

    @initialize(kinds=st.lists(st.lists(st.sampled_from(KINDS), min_size=1, max_size=6),
                               min_size=1, max_size=3))
    def start(self, kinds: list[list[str]]) -> None:
        for one in kinds:
            self._new(["prompt", *one])

    @precondition(lambda self: len(self.files) < 4)
    @rule(kinds=st.lists(st.sampled_from(KINDS), max_size=5))
    def create(self, kinds: list[str]) -> None:
        self._new(kinds)

    @precondition(lambda self: self.files)
    @rule(data=st.data(), kinds=st.lists(st.sampled_from(KINDS), min_size=1, max_size=4))
    def append(self, data: st.DataObject, kinds: list[str]) -> None:
        t = data.draw(st.sampled_from(self.files))
        with open(t.path, "ab") as fh:
            fh.write(t.pending_tail + b"".join(t.lines(k) for k in kinds))
        t.pending_tail = b""

    @precondition(lambda self: self.files)
    @rule(data=st.data(), keep=st.floats(0.1, 0.9))
    def tear(self, data: st.DataObject, keep: float) -> None:
        """CC mid-write: part of a line, no newline (the next append completes it)."""
        t = data.draw(st.sampled_from(self.files))
        if t.pending_tail:
            return
        line = t.lines("needle")
        cut = max(1, int(len(line) * keep))
        with open(t.path, "ab") as fh:
            fh.write(line[:cut])
        t.pending_tail = line[cut:]

    @precondition(lambda self: self.files)
    @rule(data=st.data(), at=st.floats(0, 1), byte=st.sampled_from([b"X", b"{", b"\n", b" "]))
    def rewrite(self, data: st.DataObject, at: float, byte: bytes) -> None:
        """The same size, one byte changed, the mtime put back: only the ctime moved."""
        t = data.draw(st.sampled_from(self.files))
        raw = bytearray(t.path.read_bytes())
        if not raw:
            return
        before = t.path.stat()
        i = min(len(raw) - 1, int(len(raw) * at))
        raw[i:i + 1] = byte
        while True:
            with open(t.path, "r+b") as fh:
                fh.write(raw)
            _restore_times(t.path, before)
            if t.path.stat().st_ctime_ns != before.st_ctime_ns:
                break
            time.sleep(0.005)  # the same clock tick: the file system could not tell

    @precondition(lambda self: self.files)
    @rule(data=st.data(), at=st.floats(0, 1))
    def truncate(self, data: st.DataObject, at: float) -> None:
        t = data.draw(st.sampled_from(self.files))
        size = t.path.stat().st_size
        os.truncate(t.path, int(size * at))
        t.pending_tail = b""

    @precondition(lambda self: self.files)
    @rule(data=st.data(), over=st.booleans())
    def rename(self, data: st.DataObject, over: bool) -> None:
        """A session moved to another name (the same inode), or over another session."""
        t = data.draw(st.sampled_from(self.files))
        others = [o for o in self.files if o is not t]
        if over and others:
            victim = data.draw(st.sampled_from(others))
            target = victim.path
            self.files.remove(victim)
        else:
            self.made += 1
            target = t.path.with_name(f"{stable_uuid(f'diff-{self.made}')}.jsonl")
        os.replace(t.path, target)
        t.path = target

    @precondition(lambda self: self.files)
    @rule(data=st.data())
    def delete(self, data: st.DataObject) -> None:
        t = data.draw(st.sampled_from(self.files))
        t.path.unlink()
        self.files.remove(t)

    @precondition(lambda self: any(t.spawns for t in self.files))
    @rule(data=st.data(), meta_first=st.booleans())
    def lane(self, data: st.DataObject, meta_first: bool) -> None:
        """A subagent lane answers a spawn: its transcript and its meta.json (which names
        the call), in either order; the session's own file is unchanged."""
        t = data.draw(st.sampled_from([t for t in self.files if t.spawns]))
        tid = t.spawns.pop(0)
        self.made += 1
        agent = f"a{stable_uuid(f'lane-{self.made}').replace('-', '')[:16]}"
        lane = Session(t.session.session_id, cwd=CWD, agent_id=agent)
        base = t.path.with_suffix("") / "subagents"
        base.mkdir(parents=True, exist_ok=True)
        meta = base / f"agent-{agent}.meta.json"
        body = (to_line(lane.add(user("map the kestrel")))
                + to_line(lane.add(assistant(text("the kestrel is mapped")))))
        if meta_first:
            meta.write_text(json.dumps({"agentType": "Explore", "toolUseId": tid}))
        (base / f"agent-{agent}.jsonl").write_bytes(body)
        if not meta_first:
            meta.write_text(json.dumps({"agentType": "Explore", "toolUseId": tid}))

    @rule()
    def rest(self) -> None:
        """Nothing changed: the next runs answer from the facts kept."""

    # -- the check -----------------------------------------------------------------------
    @invariant()
    def cached_and_uncached_agree(self) -> None:
        home = str(self.home.root)
        for args in COMMANDS:
            cached = run_cli("--claude-home", home, *args)
            plain = run_cli("--claude-home", home, "--no-cache", *args)
            assert (cached.code, cached.stdout, cached.stderr) == (
                plain.code, plain.stdout, plain.stderr), args


CacheAgreement.TestCase.settings = settings(
    max_examples=5, stateful_step_count=5, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
TestCacheAgreement = CacheAgreement.TestCase


def test_a_grown_file_whose_head_ended_at_its_end_is_read_again() -> None:
    """A head whose envelope lines ran out at the end of the file (fewer than 64 lines, no
    cwd, version or branch among them) is not final: the lines appended since are among
    the 64 an uncached read takes them from (the cache kept `<unknown cwd>`)."""
    machine = CacheAgreement()
    try:
        machine._new(["bare"])
        machine.cached_and_uncached_agree()  # the cold runs keep the rows
        t = machine.files[0]
        with open(t.path, "ab") as fh:
            fh.write(t.lines("answer"))  # an assistant record with cwd, version, branch
        machine.cached_and_uncached_agree()
        listed = run_cli("--claude-home", str(machine.home.root), "list", "--format", "json")
        assert listed.json_rows("session")[0]["cwd"] == CWD
    finally:
        machine.teardown()


def test_the_cache_was_used() -> None:
    """The machine above compares something: a second run reads facts the first kept."""
    machine = CacheAgreement()
    try:
        machine.start([["needle", "tool", "resend"]])
        machine.cached_and_uncached_agree()
        shards = list(machine.cache.rglob("*.marshal"))
        assert {p.parent.name for p in shards} == {"list", "search", "stats", "stats-records"}
        assert {p.parent.parent for p in shards} == {machine.cache / "pysift-cache-v1"}
    finally:
        machine.teardown()


def test_a_meta_written_after_the_cache_changes_both_answers() -> None:
    """A lane's meta.json names the call that spawned it: a Task completion that names no
    child becomes that child's return (agent.communication.inbox) once the meta is there.
    The cache keeps nothing from another file (SPEC §12a): the transcript, unchanged and
    cached, answers the new way with the cache as without it."""
    machine = CacheAgreement()
    try:
        machine._new(["prompt", "spawn", "answer"])
        t = machine.files[0]
        [tid] = t.spawns
        agent = "a0123456789abcdef"
        base = t.path.with_suffix("") / "subagents"
        base.mkdir(parents=True)
        lane = Session(t.session.session_id, cwd=CWD, agent_id=agent)
        (base / f"agent-{agent}.jsonl").write_bytes(
            to_line(lane.add(user("map the kestrel"))) + to_line(lane.add(assistant("done"))))
        home = str(machine.home.root)
        inbox = ("search", "", "-t", "agent.communication.inbox", "-c", "--no-subagents")
        machine.cached_and_uncached_agree()  # the cold runs keep the facts
        machine.cached_and_uncached_agree()  # and the warm ones read them
        assert run_cli("--claude-home", home, *inbox).stdout.split()[-1] == "0"
        (base / f"agent-{agent}.meta.json").write_text(
            json.dumps({"agentType": "Explore", "toolUseId": tid}))
        machine.cached_and_uncached_agree()
        for flag in ((), ("--no-cache",)):
            assert run_cli("--claude-home", home, *flag, *inbox).stdout.split()[-1] == "1"
            said = run_cli("--claude-home", home, *flag, "search", "mapped", "--format", "json",
                           "--no-subagents")
            [hit] = [h for x in said.json_rows("exchange") for h in x["hits"]]
            assert (hit["label"], hit["from"], hit["to"]) == (
                "agent.communication.inbox", agent, "self")
    finally:
        machine.teardown()
