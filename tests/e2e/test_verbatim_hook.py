"""The SessionStart(compact) hook recipe: scripts/verbatim-hook.py and the settings.json
block the README gives, run as Claude Code runs them (the event JSON on stdin)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from compacted import SID, build

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
HOOK = REPO / "scripts" / "verbatim-hook.py"
PREAMBLE = re.compile(r"^Verbatim turns the compaction summary clipped \(pysift verbatim, part "
                      r"(\d+) of (\d+);[^\n]*\n")


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    return build(tmp_path / "claude")[1]


def event(path: Path, source: str = "compact") -> str:
    return json.dumps({"session_id": SID, "transcript_path": str(path), "cwd": "/w/orbit",
                       "hook_event_name": "SessionStart", "source": source})


def hook(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(HOOK), *args], input=stdin, text=True,
                          capture_output=True, timeout=60, check=False)


def test_the_readme_block_is_a_settings_file_of_k_compact_hooks() -> None:
    readme = (REPO / "README.md").read_text()
    block = readme.split("```json\n", 1)[1].split("```", 1)[0]
    settings = json.loads(block)
    entries = settings["hooks"]["SessionStart"]
    commands = []
    for entry in entries:
        assert entry["matcher"] == "compact"
        [h] = entry["hooks"]
        assert h["type"] == "command"
        commands.append(h["command"].split())
    k = len(entries)
    assert [c[1:] for c in commands] == [[str(n), str(k), "9000"] for n in range(1, k + 1)]
    assert all(c[0].endswith("scripts/verbatim-hook.py") for c in commands)


def test_the_fleet_injects_the_reconstruction_in_order_under_the_cap(transcript: Path) -> None:
    k, window = 3, 600
    outputs = [hook(str(n), str(k), str(window), stdin=event(transcript)) for n in range(1, k + 1)]
    bodies = []
    for n, done in enumerate(outputs, start=1):
        assert done.returncode == 0 and done.stderr == ""
        if not done.stdout:
            continue
        assert len(done.stdout) <= 10_000
        m = PREAMBLE.match(done.stdout)
        assert m and (int(m.group(1)), int(m.group(2))) == (n, k)
        bodies.append(done.stdout[m.end():])
    whole = subprocess.run([sys.executable, "-m", "pysift", "--claude-home",
                            str(transcript.parents[2]), "verbatim", str(transcript),
                            "--window", str(window), "--slices", str(k)],
                           capture_output=True, text=True, check=True).stdout
    assert "".join(bodies) == whole
    assert len(bodies) >= 2 and all(len(b) <= window for b in bodies)


def test_a_later_slice_waits_for_the_one_before(transcript: Path) -> None:
    """Claude Code joins the outputs of one event's hooks in the order they finish."""
    import os

    patient = {**os.environ, "PYSIFT_HOOK_WAIT_S": "60"}  # a loaded machine is slow
    second = subprocess.Popen([sys.executable, str(HOOK), "2", "2", "600"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              env=patient)
    assert second.stdin is not None
    second.stdin.write(event(transcript))
    second.stdin.close()
    time.sleep(1.0)
    assert second.poll() is None  # still waiting for slice 1
    first = hook("1", "2", "600", stdin=event(transcript))
    first_done = time.monotonic()
    assert second.wait(timeout=90) == 0
    second_done = time.monotonic()
    assert first.stdout and second_done >= first_done


@pytest.mark.parametrize("args,source", [(("5", "4", "9000"), "compact"),
                                         (("1", "4", "9000"), "startup"),
                                         (("x",), "compact"),
                                         (("1", "4", "99999"), "compact"),
                                         (("1", "4", "199"), "compact")])
def test_it_fails_open(transcript: Path, args: tuple[str, ...], source: str) -> None:
    done = hook(*args, stdin=event(transcript, source))
    assert (done.returncode, done.stdout) == (0, "")


def test_a_missing_transcript_injects_nothing(tmp_path: Path) -> None:
    done = hook("1", "1", "9000", stdin=event(tmp_path / "gone.jsonl"))
    assert (done.returncode, done.stdout) == (0, "")
