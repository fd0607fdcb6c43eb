"""A warm ``-t user``-style count (``-c``/``-l``, no pattern) is taken straight from the
cache's kept tuples (``kept.KeptCounter``), in-process, without reading the transcript:
it answers byte for byte what a run without the cache answers, whatever the transcripts
hold (superseded drafts, replay copies, tool_result carriers, caveats, interrupts, slash
commands, compaction summaries, garbage and torn lines, subagents, elicitation sidecars
with junk or pending records), and it declines (the scan then reads the file) whenever
the kept facts do not settle the count or have a shape ``FileFacts.load`` would refuse."""

from __future__ import annotations

import marshal
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests import builders as b
from tests.clirun import run_cli

from pysift.core.grammar.selectors import parse_filter
from pysift.core.matcher import compile_pattern
from pysift.disk import fanout
from pysift.engines.search import engine as engine_mod
from pysift.engines.search import scan as scan_mod
from pysift.engines.search.facts import MALFORMED, OTHER, RECORD, FileFacts, UserLine
from pysift.engines.search.kept import KeptCounter, kept_count_applies
from pysift.engines.search.plan import SearchPlan
from pysift.model import labels as L

CWD = "/home/ada/src/orbit"
MID = "2026-10-05T09:00:30Z"  # inside the builders' default clock (09:00:00, 5 s a record)
COUNTS = [
    ("search", "", "-t", "user", "-c"),  # (first: the run whose reads are checked)
    ("search", "", "-t", "user", "-l"),
    ("search", "", "-t", "user.message", "-c", "--format", "json"),
    ("search", "", "-t", "user,user.unsent", "-c"),
    ("search", "", "-t", "user", "--since", MID, "-c", "--format", "json"),
]
KINDS = ("prompt", "resend", "replay", "tool", "caveat", "interrupt", "garbage", "torn",
         "answer", "slash", "compact")


class _Chain:
    """One transcript being written: its session and what a resend or replay repeats."""

    def __init__(self, session: b.Session) -> None:
        self.s = session
        self.prompt: dict[str, Any] | None = None  # the last prompt (a replay copies it)
        self.tools = 0

    def lines(self, kind: str) -> bytes:
        s = self.s
        if kind == "prompt" or (kind in ("resend", "replay") and self.prompt is None):
            self.prompt = s.add(b.user(f"why is pass {len(s.records)} late?"))
            return b.to_line(self.prompt)
        if kind == "resend":  # a sibling of the last prompt: that one becomes a draft
            return b.to_line(s.add(b.user("the pass, again"), parent=self.prompt["parentUuid"]))  # type: ignore[index]
        if kind == "replay":  # the same opener again (same parent, same uuid)
            return b.to_line(self.prompt)  # type: ignore[arg-type]
        if kind == "tool":
            self.tools += 1
            tid = b.tool_use_id(f"{s.session_id}-{self.tools}")
            use = s.add(b.assistant(b.tool_use("Read", {"file_path": "a.py"}, id=tid)))
            return b.to_line(use) + b.to_line(s.add(b.tool_result(tid, "1\timport kestrel")))
        if kind == "caveat":
            return b.to_line(s.add(b.local_command_caveat()))
        if kind == "interrupt":
            return b.to_line(s.add(b.interrupt()))
        if kind == "garbage":
            return b.garbage_line('{"type":"user" <<<<<<< HEAD')
        if kind == "torn":
            return b.torn(b.user("cut short"), 0.5) + b"\n"
        if kind == "slash":
            return b.to_line(s.add(b.slash_command("compact")))
        if kind == "compact":
            return b.to_line(s.add(b.compact_summary("we were fixing the pass")))
        return b.to_line(s.add(b.assistant(b.text("the pass is at 09:14"))))


_kinds = st.lists(st.sampled_from(KINDS), min_size=0, max_size=7)
_sessions = st.lists(st.tuples(_kinds, st.sampled_from(["none", "junk", "pending"]),
                               st.none() | _kinds), min_size=1, max_size=3)


def _build(root: Path, sessions: list[tuple[list[str], str, list[str] | None]]
           ) -> list[Path]:
    """The home's transcripts: one session per entry (its record kinds, its sidecar:
    none, junk lines only, or a pending record besides; its subagent's kinds or None)."""
    home = b.ClaudeHome(root)
    files: list[Path] = []
    for n, (kinds, sidecar, agent) in enumerate(sessions):
        sid = b.stable_uuid(f"kept-{n}")
        chain = _Chain(b.Session(sid, cwd=CWD))
        path = home.project_dir(CWD) / f"{sid}.jsonl"
        path.write_bytes(b"".join(chain.lines(k) for k in kinds))
        files.append(path)
        if sidecar != "none":
            lines: list[Any] = [b"not json at all\n"]
            if sidecar == "pending":
                tid = b.tool_use_id(f"auq-{sid}")
                ask = chain.s.stamp(b.assistant(b.auq_use([{"question": "Ship it?",
                                                             "options": []}], id=tid)),
                                    commit=False)
                lines.append(b.elicitation_pending(ask, tid))
            home.sidecar(path, lines)
        if agent is not None:
            hexid = b.stable_hex(f"agent-{n}", 16)
            sub = _Chain(b.Session(sid, cwd=CWD, agent_id=hexid))
            agent_path = home.sidecar_dir(path) / "subagents" / f"agent-{hexid}.jsonl"
            agent_path.parent.mkdir(parents=True, exist_ok=True)
            agent_path.write_bytes(b"".join(sub.lines(k) for k in ["prompt", *agent]))
            files.append(agent_path)
    return files


@contextmanager
def _cache_env(cache: Path) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in ("PYSIFT_CACHE_DIR", "PYSIFT_NO_CACHE",
                                            "PYSIFT_CACHE_SETTLE_MS", "TZ")}
    os.environ.update({"PYSIFT_CACHE_DIR": str(cache), "PYSIFT_CACHE_SETTLE_MS": "0",
                       "TZ": "UTC"})
    os.environ.pop("PYSIFT_NO_CACHE", None)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@contextmanager
def _scanned() -> Iterator[list[Path]]:
    """The transcripts the scan reads (those the kept tuples did not settle)."""
    read: list[Path] = []
    real = scan_mod.scan_file

    def spy(transcript, *args, **kw):  # type: ignore[no-untyped-def]
        read.append(transcript.path)
        return real(transcript, *args, **kw)

    with mock.patch.object(scan_mod, "scan_file", spy):
        yield read


def _answers(home: Path, *, cache: bool, read: list[Path] | None = None
             ) -> list[tuple[int, str, str]]:
    """Every count's answer; ``read``: the transcripts the first count scans."""
    flag = () if cache else ("--no-cache",)
    out = []
    for n, args in enumerate(COUNTS):
        if n == 0 and read is not None:
            with _scanned() as scanned:
                got = run_cli("--claude-home", str(home), *flag, *args)
            read.extend(scanned)
        else:
            got = run_cli("--claude-home", str(home), *flag, *args)
        out.append((got.code, got.stdout, got.stderr))
    return out


@settings(max_examples=15, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(sessions=_sessions, more=_kinds)
def test_a_warm_count_answers_as_the_bytes_do(sessions: Any, more: list[str]) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="pysift-kept-"))
    try:
        files = _build(tmp / "claude", sessions)
        with _cache_env(tmp / "cache"):
            plain = _answers(tmp / "claude", cache=False)
            assert _answers(tmp / "claude", cache=True) == plain  # cold: the facts are taken
            read: list[Path] = []
            assert _answers(tmp / "claude", cache=True, read=read) == plain  # warm
            # the warm count scanned only an empty file (no stamp is kept of it) or one
            # whose sidecar holds a pending record: the rest came from the kept tuples
            pending = {p for p, (_, sidecar, _) in zip(
                [f for f in files if "subagents" not in f.parts], sessions)
                if sidecar == "pending"}
            assert {p for p in read if p.stat().st_size} <= pending
            # a file grows: counted from its bytes again, then warm from the new facts
            with open(files[0], "ab") as fh:
                fh.write(b"".join(_Chain(b.Session(b.stable_uuid("kept-more"), cwd=CWD))
                                  .lines(k) for k in more))
            plain = _answers(tmp / "claude", cache=False)
            assert _answers(tmp / "claude", cache=True) == plain
            assert _answers(tmp / "claude", cache=True) == plain
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_a_warm_count_forks_nothing(tmp_path: Path) -> None:
    """Many unchanged files (past the fan-out's threshold) are counted in this process:
    the scan's fan-out is handed none of them."""
    sessions = [(["prompt", "tool", "resend", "answer"], "none", None)] * (
        engine_mod.FANOUT_MIN_FILES + 4)
    _build(tmp_path / "claude", sessions)
    handed: list[int] = []
    real = fanout.map_ordered

    def spy(fn, items, **kw):  # type: ignore[no-untyped-def]
        handed.append(len(items))
        return real(fn, items, **kw)

    home = str(tmp_path / "claude")
    with _cache_env(tmp_path / "cache"):
        for args in [("-c",), ("-l",), ("-c", "--format", "json")]:
            plain = run_cli("--claude-home", home, "--no-cache", "search", "", "-t", "user",
                            *args)
            assert plain.code == 0 and plain.stdout.strip()
            cold = run_cli("--claude-home", home, "search", "", "-t", "user", *args)
            with mock.patch.object(fanout, "map_ordered", spy):
                warm = run_cli("--claude-home", home, "search", "", "-t", "user", *args)
            assert (cold.stdout, cold.stderr) == (warm.stdout, warm.stderr) == (
                plain.stdout, plain.stderr)
    assert handed == [0, 0, 0]


# -- the counter on kept tuples ------------------------------------------------------------

def _plan(*labels: str, since: Any = None, light: bool = True, keep_hits: bool = False
          ) -> SearchPlan:
    return SearchPlan(pattern="", matcher=compile_pattern(""), labels=parse_filter(labels, ()),
                      since=since, light=light, keep_hits=keep_hits)


def _raw(users: list[UserLine], unframed: list[int] | None = None, *,
         seed: tuple[str | None, int | None] | None = (None, None)) -> Any:
    facts = FileFacts((False,), unframed=unframed or [], has_records=True,
                      openers=[(u.start, u.parent or "", u.uuid) for u in users if u.opens],
                      users=users, seed=seed)
    return marshal.loads(marshal.dumps(facts.dump()))


MSG = (L.USER_MESSAGE,)


def _line(start: int, uuid: str, parent: str | None, opens: bool = True,
          leaves: tuple[str, ...] = MSG, renders: tuple[str, ...] = MSG) -> UserLine:
    return UserLine(start, start + 50, RECORD, "2026-06-01T10:00:00Z", parent, uuid, opens,
                    leaves, renders)


def test_the_plans_it_takes() -> None:
    assert kept_count_applies(_plan("user"))
    assert kept_count_applies(_plan("user.message"))
    assert not kept_count_applies(_plan("user", light=False))  # rows are rendered
    assert not kept_count_applies(_plan("user", keep_hits=True))  # a census keeps hits
    assert not kept_count_applies(_plan("agent"))  # not the user lines


def test_turns_drafts_and_replays_from_the_rows() -> None:
    users = [
        _line(0, "u1", None),
        UserLine(60, 80, MALFORMED),
        _line(100, "u2", "a1"),  # a draft: u3 has the same parent
        _line(200, "u3", "a1"),
        _line(300, "u3", "a1"),  # a replay copy of u3: opens no turn
        _line(400, "u4", "u3", opens=False),  # in u3's turn, already counted
        _line(500, "u5", "a5"),
    ]
    raw = _raw(users, unframed=[60, 700])
    assert KeptCounter(_plan("user")).count(raw, False) == (3, 1, 2)
    assert KeptCounter(_plan("user", "user.unsent")).count(raw, False) == (4, 0, 2)
    # nothing renders alone: no count (a draft the selection takes as sent is still said)
    silent = [_line(0, "u1", None, leaves=(L.HARNESS_INTERRUPT_USER,), renders=()),
              _line(100, "u2", "a1"), _line(200, "u3", "a1", leaves=MSG, renders=())]
    assert KeptCounter(_plan("user")).count(_raw(silent), False) == (0, 1, 0)
    assert KeptCounter(_plan("user")).count(_raw([]), False) == (0, 0, 0)


def test_it_declines_what_the_facts_do_not_settle() -> None:
    counter = KeptCounter(_plan("user"))
    good = [_line(0, "u1", None), _line(100, "u2", "u1")]
    assert counter.count(_raw(good), True) == (2, 0, 0)
    assert counter.count(_raw(good, seed=None), True) is None  # a subagent without its seed
    assert counter.count(_raw(good, seed=None), False) == (2, 0, 0)
    other = [*good, UserLine(200, 250, OTHER, None, None, "s1", False)]
    assert counter.count(_raw(other), False) is None  # decoded at query time
    raw = list(_raw(good))
    raw[2] = None  # no openers kept
    assert counter.count(tuple(raw), False) is None
    raw = list(_raw([]))
    raw[2] = None  # ... which a file without a user line does not need
    assert counter.count(tuple(raw), False) == (0, 0, 0)
    raw = list(_raw(good))
    raw[4] = None  # no user lines kept
    assert counter.count(tuple(raw), False) is None


def test_it_never_takes_a_row_load_refuses() -> None:
    """Stricter than ``FileFacts.load``: a shape ``load`` refuses is never counted."""
    head = [_line(0, "u1", None)]
    bad_rows: list[tuple[object, ...]] = [
        (310, 330, RECORD, None, None, "u5", False, ("user.nonesuch",), ()),
        (310, 330, RECORD, None, None, "u5", False, MSG, ("x",)),
        (310.0, 330, RECORD, None, None, "u5", False, MSG, ()),
        (310, 330, 7, None, None, "u5", False, MSG, ()),
        (310, 330, RECORD, 5, None, "u5", False, MSG, ()),
        (310, 330, RECORD, None, 5, "u5", False, MSG, ()),
        (310, 330, RECORD, None, None, "u5", False, [L.USER_MESSAGE], ()),
        (310, 330, RECORD, None, None, "u5", False),
        (310, 330, MALFORMED, None, None, None, False, None, ("x",)),
    ]
    for row in bad_rows:
        raw = list(_raw(head))
        raw[4] = [*raw[4], row]
        raw_t = marshal.loads(marshal.dumps(tuple(raw)))
        assert FileFacts.load(raw_t) is None, row
        assert KeptCounter(_plan("user")).count(raw_t, False) is None, row
    # and rows ``dump`` never writes: out of file order, a malformed line opening a turn
    for row in [(0, 330, RECORD, None, None, "u5", False, MSG, ()),
                (310, 330, MALFORMED, None, None, None, True, None, ())]:
        raw = list(_raw(head))
        raw[4] = [*raw[4], row]
        assert KeptCounter(_plan("user")).count(tuple(raw), False) is None, row
    for shape in [None, (), ("x",) * 6, [1, 2, 3, 4, 5, 6]]:
        assert KeptCounter(_plan("user")).count(shape, False) is None, shape
