"""The live pair against a live fake session: ``pysift wait`` runs as a real process with
its file watcher while a WRITER process appends records, flips the registry row, creates a
child lane and a sidecar; ``status`` probes real processes (a live owner, a dead one, a
reused pid). Each writer starts only after wait's readiness line, as the help tells a
script to do. Bounded: every wait has a short --timeout and every process a hard one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import orjson
import psutil
import pytest

from builders import (
    ClaudeHome,
    Session,
    assistant,
    auq_use,
    elicitation_pending,
    text,
    to_line,
    tool_result,
    tool_use,
    user,
)
from livekit import asctime

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
SID = "3f6c1e2a-8b4d-4c7e-9a15-2d8e0b7f4c61"
CWD = "/home/ada/src/orbit"

WRITER = r"""
import json, os, sys, time
for step in json.load(open(sys.argv[1])):
    op = step[0]
    if op == "sleep":
        time.sleep(step[1])
    elif op == "append":
        with open(step[1], "ab") as fh:
            fh.write(step[2].encode())
    elif op == "write":
        os.makedirs(os.path.dirname(step[1]), exist_ok=True)
        tmp = step[1] + ".tmp"
        with open(tmp, "w") as fh:
            fh.write(step[2])
        os.replace(tmp, step[1])
    elif op == "truncate":
        os.truncate(step[1], step[2])
"""


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("CLAUDE_CONFIG_DIR", "CLAUDE_CODE_SESSION_ID", "PYSIFT_TRACEBACK")}
    env["PYTHONPATH"] = str(REPO / "src")
    env["TZ"] = "UTC"
    return env


def pysift(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pysift", *args], capture_output=True,
                          text=True, env=_env(), cwd=REPO, timeout=60, check=False)


class Watch:
    """``pysift wait`` in the background; ``ready()`` blocks on its readiness line."""

    def __init__(self, home: Path, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pysift", "--claude-home", str(home), "wait", *args,
             "--format", "json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(), cwd=REPO)
        self.stderr: list[str] = []

    def ready(self) -> str:
        assert self.proc.stderr is not None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline().decode()
            if not line:
                break
            self.stderr.append(line)
            if "watching" in line:
                return line
        raise AssertionError(f"no readiness line: {self.stderr}")

    def result(self) -> tuple[int, dict, str]:
        out, err = self.proc.communicate(timeout=60)
        return self.proc.returncode, orjson.loads(out), "".join(self.stderr) + err.decode()


def _write(tmp_path: Path, steps: list) -> subprocess.Popen[bytes]:  # type: ignore[type-arg]
    plan = tmp_path / f"plan-{time.monotonic_ns()}.json"
    plan.write_text(json.dumps(steps))
    return subprocess.Popen([sys.executable, "-c", WRITER, str(plan)])


@pytest.fixture
def live(home: ClaudeHome):  # type: ignore[no-untyped-def]
    s = Session(SID, cwd=CWD, start=datetime.now(UTC).replace(microsecond=0))
    s.add(user("run the suite and fix what fails"))
    s.add(assistant(tool_use("Bash", {"command": "pytest -x"}, id="h1")))
    s.add(tool_result("h1", "1 failed"))
    s.add(assistant(text("looking at the failure"), stop_reason=None))
    path = home.session(CWD, SID, s)
    return home, s, path


def test_writer_appends_flips_spawns_and_asks(live, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    home, s, path = live
    me = psutil.Process()
    row = {"pid": os.getpid(), "sessionId": SID, "status": "busy", "kind": "interactive",
           "procStart": asctime(datetime.fromtimestamp(me.create_time(), UTC)),
           "statusUpdatedAt": int(time.time() * 1000)}
    registry = home.root / "sessions" / f"{os.getpid()}.json"
    registry.parent.mkdir(parents=True)
    registry.write_text(json.dumps(row))
    lane = Session(SID, cwd=CWD, agent_id="a3333333333333333")
    lane_path = path.with_suffix("") / "subagents" / "agent-a3333333333333333.jsonl"
    ask = s.stamp(assistant(auq_use([{"question": "Drop the flaky test?", "header": "Flaky",
                                      "multiSelect": False, "options": []}], id="ask7")),
                  commit=False)
    sidecar = path.with_suffix("") / "elicitations.jsonl"
    watch = Watch(home.root, f"@{SID}", "--until", "auq", "--timeout", "20")
    ready = watch.ready()
    assert "watching 1 file(s)" in ready
    writer = _write(tmp_path, [
        ["append", str(path), to_line(s.stamp(assistant(
            tool_use("Read", {"file_path": "tests/test_x.py"}, id="n1")))).decode()],
        ["sleep", 0.15],
        ["write", str(registry), json.dumps({**row, "status": "waiting"})],
        ["write", str(lane_path), (to_line(lane.stamp(user("find the flaky test")))
                                   + to_line(lane.stamp(assistant(tool_use(
                                       "Grep", {"pattern": "sleep"}, id="g1"))))).decode()],
        ["sleep", 0.15],
        ["write", str(sidecar), to_line(elicitation_pending(ask, "ask7")).decode()],
    ])
    code, obj, stderr = watch.result()
    writer.wait(timeout=10)
    assert code == 0, stderr
    assert obj["fired"] == "auq"
    assert obj["verdict"] == "waiting-hitl"
    assert obj["activity"]["records"] == 3 and obj["activity"]["lanes"] == 2
    assert obj["activity"]["tools"] == {"Grep": 1, "Read": 1}
    assert obj["waited_secs"] < 10
    assert "Traceback" not in stderr


def test_stop_fires_when_the_turn_ends(live, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    home, s, path = live
    watch = Watch(home.root, f"@{SID}", "--until", "stop", "--until", "tool:Write",
                  "--timeout", "20")
    watch.ready()
    _write(tmp_path, [["sleep", 0.1],
                      ["append", str(path), to_line(s.stamp(assistant("fixed: 3 passed"))).decode()]])
    code, obj, stderr = watch.result()
    assert code == 0, stderr
    assert obj["fired"] == "stop" and obj["verdict"] == "idle-eot"
    assert obj["last"]["agent"]["text"] == "fixed: 3 passed"


def test_torn_tail_completed_on_the_next_write(live, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    home, s, path = live
    line = to_line(s.stamp(assistant(tool_use("Bash", {"command": "make release"}, id="m1"))))
    watch = Watch(home.root, f"@{SID}", "--until", "tool:Bash:release", "--timeout", "20")
    watch.ready()
    started = time.monotonic()
    _write(tmp_path, [["append", str(path), line[:40].decode()], ["sleep", 0.6],
                      ["append", str(path), line[40:].decode()]])
    code, obj, stderr = watch.result()
    assert code == 0, stderr
    assert time.monotonic() - started >= 0.6  # not before the line was whole
    assert obj["fired"] == "tool:Bash:release" and obj["activity"]["records"] == 1


def test_truncated_while_watched(live, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    home, s, path = live
    watch = Watch(home.root, f"@{SID}", "--until", "tool:Edit", "--timeout", "20")
    watch.ready()
    _write(tmp_path, [["truncate", str(path), 100], ["sleep", 0.3],
                      ["append", str(path), "\n" + to_line(s.stamp(assistant(tool_use(
                          "Edit", {"file_path": "a.py", "old_string": "x", "new_string": "y"},
                          id="e9")))).decode()]])
    code, obj, stderr = watch.result()
    assert code == 0, stderr
    assert obj["fired"] == "tool:Edit"
    assert any("truncated while watched" in n for n in obj["notes"])
    assert "Traceback" not in stderr


def test_timeout_with_nothing_landing_is_124(live) -> None:  # type: ignore[no-untyped-def]
    home, _s, _path = live
    started = time.monotonic()
    result = pysift("--claude-home", str(home.root), "wait", f"@{SID}", "--until", "tool:X",
                    "--timeout", "1", "--format", "json")
    assert result.returncode == 124
    assert orjson.loads(result.stdout)["fired"] == "timeout"
    assert time.monotonic() - started < 10


def _status(home: ClaudeHome) -> dict:
    result = pysift("--claude-home", str(home.root), "status", f"@{SID}", "--format", "json")
    assert result.returncode == 0, result.stderr
    return next(r for r in map(orjson.loads, result.stdout.splitlines())
                if r["kind"] == "verdict")


def test_real_owner_alive_then_dead(live) -> None:  # type: ignore[no-untyped-def]
    home, _s, _path = live
    owner = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        started = datetime.fromtimestamp(psutil.Process(owner.pid).create_time(), UTC)
        home.registry_row(owner.pid, SID, "busy", procStart=asctime(started))
        row = _status(home)
        assert row["verdict"] == "running"
        assert {"surface": "pid", "value": "alive (start-time guard matched)",
                "age_secs": None} in row["evidence"]
    finally:
        owner.kill()
        owner.wait(timeout=10)
    row = _status(home)
    assert row["verdict"] == "stale-dead"
    assert {"surface": "pid", "value": "dead", "age_secs": None} in row["evidence"]


def test_real_pid_reuse_is_caught(live) -> None:  # type: ignore[no-untyped-def]
    home, _s, _path = live
    long_ago = datetime(2020, 1, 1, tzinfo=UTC)  # the row's process started then; ours did not
    home.registry_row(os.getpid(), SID, "busy", procStart=asctime(long_ago))
    row = _status(home)
    assert row["verdict"] == "stale-dead"
    assert any(e["value"] == "pid reused by another process" for e in row["evidence"])
