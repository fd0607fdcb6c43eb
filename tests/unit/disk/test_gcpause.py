"""The collector is held off through start-up and back on (with start-up's objects
frozen) once a command has read its options; never touched when pysift is a library."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pysift.disk import gcpause


@pytest.fixture
def collector() -> Iterator[None]:
    was = gc.isenabled()
    yield
    gcpause._held = gcpause._command_run = False
    gc.unfreeze()
    if was:
        gc.enable()


def test_start_up_done_without_a_hold_changes_nothing(collector: None) -> None:
    gc.enable()
    gcpause.start_up_done()
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_a_held_start_up_is_frozen_and_switched_back_on(collector: None) -> None:
    gcpause.hold_start_up()
    assert not gc.isenabled()
    gcpause.start_up_done()
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0
    gcpause.start_up_done()  # a second call (a command reading two envs) is a no-op
    assert gc.isenabled()


def test_a_paused_phase_of_a_command_run_is_frozen_when_it_ends(collector: None) -> None:
    """What the phase kept (a listing's rows) is out of the collector's sight after it,
    so the next pass does not walk it; the collector is back on."""
    gcpause.hold_start_up()
    gcpause.start_up_done()
    frozen = gc.get_freeze_count()
    with gcpause.paused_gc():
        kept = [[i] for i in range(1000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= frozen + len(kept)


def test_a_library_callers_paused_phase_is_never_frozen(collector: None) -> None:
    gc.enable()
    with gcpause.paused_gc():
        kept = [[i] for i in range(1000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0
    assert kept


PROBE = """
import gc, sys
from pysift.cli import options
from pysift.cli.entry import main
seen = []
build = options.build_env
def spy(ctx):
    seen.append(gc.isenabled())
    env = build(ctx)
    seen.append(gc.isenabled())
    return env
options.build_env = spy
import os
real_exit = os._exit
def leave(status):
    sys.stderr.write(f"collector:{seen}\\n")
    sys.stderr.flush()
    real_exit(status)
os._exit = leave
main(["--claude-home", sys.argv[1], "whoami", "--format", "json"])
"""


def test_a_command_run_turns_the_collector_back_on_once_its_options_are_read(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "projects").mkdir(parents=True)
    done = subprocess.run([sys.executable, "-c", PROBE, str(home)], capture_output=True,
                          text=True, timeout=60, check=False)
    assert "collector:[False, True]" in done.stderr, done.stderr
