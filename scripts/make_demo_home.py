#!/usr/bin/env python3
"""Write fixtures/demo-home: a small, realistic Claude home for README examples and tests.

Everything here is invented (Ada's `orbit` and `ledger_app` projects) and built with
tests/builders.py, so the tree is byte-identical on every run: ids are hashes of fixed
seeds and timestamps are a fixed start plus fixed steps. Re-run after changing builders:

    .venv/bin/python scripts/make_demo_home.py            # -> fixtures/demo-home
    .venv/bin/python scripts/make_demo_home.py /tmp/home  # anywhere else

The home was "recorded" at /home/ada/.claude, so absolute pointers inside records
(persistedOutputPath, planFilePath) name /home/ada/.claude/...; the files they point to
exist at the same place relative to the demo home. fixtures/README.md says what each
session demonstrates.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from builders import (  # noqa: E402  (path set up above)
    ClaudeHome,
    JsonObj,
    Session,
    ai_title,
    assistant,
    assistant_split,
    attachment,
    auq_answer,
    auq_use,
    bash_result,
    compact_boundary,
    compact_summary,
    edit_result,
    elicitation_pending,
    elicitation_resolved,
    encode_cwd,
    file_history_snapshot,
    image,
    interrupt,
    iso,
    journal_result,
    journal_started,
    last_prompt,
    local_command_caveat,
    local_command_stdout,
    message_id,
    meta_user,
    numbered,
    permission_mode,
    persisted_output,
    plan_approval,
    queue_op,
    read_result,
    rejection,
    slash_command,
    stable_uuid,
    stop_hook_summary,
    subagent_return,
    task_notification,
    text,
    thinking,
    tiny_png,
    tool_result,
    tool_use,
    tool_use_id,
    torn,
    turn_duration,
    user,
    user_with_images,
    write_result,
)

RECORDED_HOME = "/home/ada/.claude"

ORBIT = "/home/ada/src/orbit"
LEDGER = "/home/ada/src/ledger_app"
WINDOWS = "C:\\Users\\ada\\work"
SANDBOX = "/home/ada/src/sandbox"

ORBIT_LONG = "3f6c1e2a-8b4d-4c7e-9a15-2d8e0b7f4c61"
ORBIT_SHORT = "7a2d9c4e-1f3b-4e6a-8c5d-9b0e2f4a6c83"
ORBIT_CLONE = "c9e4b7a1-5d2f-4a8c-b3e6-1f7d0a9c2e54"
LEDGER_SESSION = "5b8e2f6a-3c1d-4f9b-a7e2-8d4c6b0f1a97"
WINDOWS_SESSION = "e2a7c5d9-6b3f-4d1e-8f4a-7c9b2e0d5a18"

AGENT_EXPLORE = "a4f1c9e27b3d8a605"
AGENT_REVIEW = "a9b2e7d40c6f1a385"
WORKFLOW_RUN = "wf_8d3k2p7q"
AGENT_WF_GREENWICH = "a2c8e5f13d9b7a046"
AGENT_WF_SVALBARD = "a6e0d3b8f2c4a7195"

PLAN_SLUG = "quiet-orbiting-lovelace"
PERSISTED_ID = "b7x2k9qpm"

OPUS = "claude-opus-4-6"
SONNET = "claude-sonnet-4-6"
HAIKU = "claude-haiku-4-5"


THINK_TIMES = (38, 52, 71, 44, 95, 63, 29, 57)


def at(day: int, hh: int, mm: int, ss: int = 0) -> datetime:
    return datetime(2026, 10, day, hh, mm, ss, tzinfo=UTC)


# ── a lane: one transcript with a virtual working tree ─────────────────────────────────


class Lane:
    """Drives one Session like an agent would: tool calls whose results agree with a
    virtual working tree, so Read/Edit/Write chains replay consistently (recover/files)."""

    def __init__(self, session: Session, tag: str, root: str, model: str, files: dict[str, str], sep: str = "/") -> None:
        self.s = session
        self.tag = tag
        self.root = root
        self.model = model
        self.files = files
        self.sep = sep
        self._tools = 0
        self._msgs = 0
        self._turn_start: datetime | None = None
        self._humans = 0
        self._turn_records = 0

    # ids and paths ----------------------------------------------------------------------

    def tid(self) -> str:
        self._tools += 1
        return tool_use_id(f"{self.tag}:{self._tools}")

    def mid(self) -> str:
        self._msgs += 1
        return message_id(f"{self.tag}:{self._msgs}")

    def abs(self, rel: str) -> str:
        return self.root + self.sep + rel.replace("/", self.sep)

    # turns ------------------------------------------------------------------------------

    def human(self, record: JsonObj, *, think: float | None = None, **kw: Any) -> JsonObj:
        """A turn opener. Unless a gap was already set, the human takes a while to type."""
        if think is not None:
            self.s.wait(think)
        elif not self.s.gap_pending:
            self.s.wait(THINK_TIMES[self._humans % len(THINK_TIMES)])
        self._humans += 1
        self._turn_start = self.s.now
        self._turn_records = len(self.s)
        return self.s.add(record, **kw)

    def end_turn(self, **extra: Any) -> None:
        if self._turn_start is None:
            return
        ms = int((self.s.now - self._turn_start).total_seconds() * 1000) + 2000
        count = len(self.s) - self._turn_records + 1
        self.s.add(turn_duration(ms, message_count=count, **extra))

    # assistant actions ------------------------------------------------------------------

    def say(self, *blocks: JsonObj | str) -> JsonObj:
        return self.s.add(assistant_split(*blocks, model=self.model, msg_id=self.mid()))

    def call(
        self,
        name: str,
        payload: dict[str, Any],
        result: str | list[JsonObj],
        *,
        pre: Sequence[JsonObj | str] = (),
        echo: object = None,
        is_error: bool = False,
        gap: float | None = None,
    ) -> str:
        tid = self.tid()
        self.s.add(assistant_split(*pre, tool_use(name, payload, id=tid), model=self.model, msg_id=self.mid()))
        if gap is not None:
            self.s.wait(gap)
        self.s.add(tool_result(tid, result, is_error=is_error, tool_use_result=echo))
        return tid

    def bash(self, command: str, stdout: str, *, desc: str, pre: Sequence[JsonObj | str] = (), error: bool = False, gap: float | None = None) -> str:
        if error:
            return self.call("Bash", {"command": command, "description": desc}, stdout, pre=pre, is_error=True, gap=gap)
        return self.call(
            "Bash", {"command": command, "description": desc}, stdout, pre=pre, echo=bash_result(stdout), gap=gap
        )

    def powershell(self, command: str, stdout: str, *, desc: str, pre: Sequence[JsonObj | str] = ()) -> str:
        return self.call("PowerShell", {"command": command, "description": desc}, stdout, pre=pre, echo=bash_result(stdout))

    def read(self, rel: str, *, pre: Sequence[JsonObj | str] = ()) -> str:
        content = self.files[rel]
        return self.call(
            "Read", {"file_path": self.abs(rel)}, numbered(content), pre=pre, echo=read_result(self.abs(rel), content)
        )

    def edit(self, rel: str, old: str, new: str, *, pre: Sequence[JsonObj | str] = (), replace_all: bool = False) -> str:
        original = self.files[rel]
        if old not in original:
            raise AssertionError(f"{self.tag}: edit of {rel} does not apply: {old!r}")
        updated = original.replace(old, new) if replace_all else original.replace(old, new, 1)
        self.files[rel] = updated
        payload: dict[str, Any] = {"file_path": self.abs(rel), "old_string": old, "new_string": new}
        if replace_all:
            payload["replace_all"] = True
        return self.call(
            "Edit",
            payload,
            f"The file {self.abs(rel)} has been updated successfully.",
            pre=pre,
            echo=edit_result(self.abs(rel), old, new, original, replace_all=replace_all),
        )

    def write(self, rel: str, content: str, *, pre: Sequence[JsonObj | str] = ()) -> str:
        original = self.files.get(rel)
        self.files[rel] = content
        message = (
            f"File created successfully at: {self.abs(rel)}"
            if original is None
            else f"The file {self.abs(rel)} has been updated successfully."
        )
        return self.call(
            "Write",
            {"file_path": self.abs(rel), "content": content},
            message,
            pre=pre,
            echo=write_result(self.abs(rel), content, original=original),
        )

    def grep(self, pattern: str, hits: list[str], *, pre: Sequence[JsonObj | str] = ()) -> str:
        body = "\n".join(hits)
        return self.call(
            "Grep",
            {"pattern": pattern, "path": self.root, "output_mode": "content", "-n": True},
            body,
            pre=pre,
            echo={
                "mode": "content",
                "numFiles": len({h.split(":")[0] for h in hits}),
                "filenames": sorted({self.abs(h.split(":")[0]) for h in hits}),
                "content": body,
                "numLines": len(hits),
            },
        )


# ── orbit: the working tree the long session edits ─────────────────────────────────────

TLE_PY = '''"""Two-line element (TLE) parsing."""

from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass(frozen=True)
class TLE:
    norad_id: int
    epoch: datetime
    inclination: float
    raan: float
    eccentricity: float
    arg_perigee: float
    mean_anomaly: float
    mean_motion: float


def parse_epoch(field: str) -> datetime:
    year = int(field[:2])
    year += 2000 if year < 57 else 1900
    day = float(field[2:])
    return datetime(year, 1, 1) + timedelta(days=day)


def parse(line1: str, line2: str) -> TLE:
    return TLE(
        norad_id=int(line1[2:7]),
        epoch=parse_epoch(line1[18:32]),
        inclination=float(line2[8:16]),
        raan=float(line2[17:25]),
        eccentricity=float("0." + line2[26:33]),
        arg_perigee=float(line2[34:42]),
        mean_anomaly=float(line2[43:51]),
        mean_motion=float(line2[52:63]),
    )
'''

PROPAGATE_PY = '''"""Two-body propagation: coarse, but enough to predict visible passes."""

import math
from datetime import datetime

from orbit.tle import TLE

MU = 398600.4418  # km^3 / s^2


def mean_anomaly_at(tle: TLE, when: datetime) -> float:
    dt = when.timestamp() - tle.epoch.timestamp()
    n = tle.mean_motion * 2 * math.pi / 86400.0
    return math.radians(tle.mean_anomaly) + n * dt


def propagate(tle: TLE, when: datetime) -> tuple[float, float, float]:
    """ECI position (km) of the satellite at `when`."""
    return _raw_propagate(tle, mean_anomaly_at(tle, when))


def _raw_propagate(tle: TLE, mean_anomaly: float) -> tuple[float, float, float]:
    n = tle.mean_motion * 2 * math.pi / 86400.0
    a = (MU / n**2) ** (1 / 3)
    e = tle.eccentricity
    E = mean_anomaly
    for _ in range(8):
        E = E - (E - e * math.sin(E) - mean_anomaly) / (1 - e * math.cos(E))
    x = a * (math.cos(E) - e)
    y = a * math.sqrt(1 - e * e) * math.sin(E)
    return _rotate(tle, x, y)
'''

PASSES_PY = '''"""Find visible passes of a satellite over a ground site."""

from datetime import datetime, timedelta

from orbit.geometry import elevation


def find_passes(tle, site, start: datetime, days: int = 10, min_elevation: float = 10.0):
    passes, rise = [], None
    t, end = start, start + timedelta(days=days)
    while t < end:
        above = elevation(tle, site, t) >= min_elevation
        if above and rise is None:
            rise = t
        elif not above and rise is not None:
            passes.append((rise, t))
            rise = None
        t += timedelta(seconds=1)
    return passes
'''

CLI_PY = '''"""`orbit passes`: print upcoming passes for a NORAD id."""

import argparse
from datetime import datetime

from orbit.catalog import load_tle
from orbit.passes import find_passes
from orbit.site import Site


def main(argv=None):
    p = argparse.ArgumentParser(prog="orbit")
    p.add_argument("command", choices=["passes"])
    p.add_argument("--norad", type=int, required=True)
    p.add_argument("--lat", type=float, default=51.4779)
    p.add_argument("--lon", type=float, default=-0.0015)
    p.add_argument("--date", default=None)
    p.add_argument("--days", type=int, default=1)
    args = p.parse_args(argv)
    start = datetime.fromisoformat(args.date) if args.date else datetime.now()
    for rise, set_ in find_passes(load_tle(args.norad), Site(args.lat, args.lon), start, args.days):
        print(f"{rise:%Y-%m-%d %H:%M:%S}  ->  {set_:%H:%M:%S}")
'''

DOPPLER_PY = '''"""Doppler shift of a downlink as seen from a ground site."""

from orbit.propagate import _raw_propagate, mean_anomaly_at
from orbit.site import range_rate

C = 299_792.458  # km/s


def doppler(tle, site, when, f_hz: float) -> float:
    pos = _raw_propagate(tle, mean_anomaly_at(tle, when))
    return -range_rate(site, pos, when) / C * f_hz
'''

CHANGELOG_MD = """# Changelog

All notable changes to orbit are documented here (Keep a Changelog format).

## [Unreleased]

## [0.3.2] - 2026-08-30

### Fixed
- `orbit passes --days 0` no longer loops forever.
"""

README_MD = """# orbit

Predict visible satellite passes from two-line elements.

```console
$ orbit passes --norad 25544 --date 2026-10-05
2026-10-05 19:02:11  ->  19:08:47
2026-10-05 20:38:40  ->  20:44:02
```

The scan steps one second at a time, so long windows are slow.
"""

PYPROJECT = """[project]
name = "orbit"
version = "0.3.2"
requires-python = ">=3.11"
dependencies = []

[project.scripts]
orbit = "orbit.cli:main"
"""

ISS_TLE = """ISS (ZARYA)
1 25544U 98067A   26277.54791667  .00016717  00000+0  30160-3 0  9993
2 25544  51.6392 208.9163 0006317  69.9862 290.2147 15.50103472476170
"""

TODO_MD = """# TODO

- [ ] epoch drift vs heavens-above (ISS ~1h late)
- [ ] pass finder is slow for long windows
- [ ] cache propagated states
- [ ] JSON output for `orbit passes`
- [ ] Celestrak rate limiter
- [ ] ground stations from a config file
"""


def profile_output() -> str:
    """A deterministic cProfile dump, large enough that CC externalises it (> 30 KB)."""
    rows = [
        "         8640517 function calls (8640398 primitive calls) in 4.117 seconds",
        "",
        "   Ordered by: cumulative time",
        "",
        "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)",
        "        1    0.000    0.000    4.117    4.117 {built-in method builtins.exec}",
        "        1    0.000    0.000    4.117    4.117 cli.py:10(main)",
        "        1    0.412    0.412    4.101    4.101 passes.py:8(find_passes)",
        "   864000    0.655    0.000    3.489    0.000 geometry.py:22(elevation)",
        "   864000    0.297    0.000    2.102    0.000 propagate.py:18(propagate)",
        "   864000    1.318    0.000    1.805    0.000 propagate.py:23(_raw_propagate)",
        "   864000    0.201    0.000    0.248    0.000 propagate.py:12(mean_anomaly_at)",
        "   864000    0.332    0.000    0.731    0.000 geometry.py:9(eci_to_topocentric)",
        "  6912000    0.310    0.000    0.310    0.000 {built-in method math.sin}",
        "  6912000    0.298    0.000    0.298    0.000 {built-in method math.cos}",
    ]
    modules = ["argparse", "re", "enum", "typing", "dataclasses", "functools", "inspect", "tokenize", "linecache", "ast"]
    n = 0
    while sum(len(r) + 1 for r in rows) < 34_000:
        mod = modules[n % len(modules)]
        calls = 1 + (n * 37) % 211
        tot = ((n * 13) % 97) / 100000
        cum = tot + ((n * 7) % 53) / 100000
        rows.append(f"{calls:>9}    {tot:.3f}    0.000    {cum:.3f}    0.000 {mod}.py:{100 + (n * 29) % 900}(<helper_{n:03d}>)")
        n += 1
    return "\n".join(rows) + "\n"


# ── the long orbit session ─────────────────────────────────────────────────────────────


def long_orbit_session(home: ClaudeHome) -> tuple[Path, list[JsonObj]]:  # noqa: PLR0915 - a screenplay
    s = Session(ORBIT_LONG, cwd=ORBIT, version="2.1.262", git_branch="main", start=at(5, 8, 42, 10), step=4)
    files = {
        "src/orbit/tle.py": TLE_PY,
        "src/orbit/propagate.py": PROPAGATE_PY,
        "src/orbit/passes.py": PASSES_PY,
        "src/orbit/cli.py": CLI_PY,
        "src/orbit/doppler.py": DOPPLER_PY,
        "CHANGELOG.md": CHANGELOG_MD,
        "README.md": README_MD,
        "pyproject.toml": PYPROJECT,
        "tests/data/iss.tle": ISS_TLE,
        "TODO.md": TODO_MD,
    }
    o = Lane(s, "orbit-long", ORBIT, OPUS, files)
    session_path = home.project_dir(ORBIT) / f"{ORBIT_LONG}.jsonl"
    sidecar_lines: list[JsonObj] = []
    raw_inserts: dict[int, bytes] = {}

    # ── day 1 ───────────────────────────────────────────────────────────────────────
    s.add(permission_mode("default"))
    s.add(
        attachment(
            "hook_success",
            {
                "hookName": "SessionStart:startup",
                "toolUseID": "SessionStart",
                "hookEvent": "SessionStart",
                "content": "",
                "stdout": "",
                "stderr": "",
                "exitCode": 0,
                "command": "~/.claude/hooks/session-start.sh",
                "durationMs": 41,
            },
        )
    )
    s.add(attachment("deferred_tools_delta", {"addedNames": ["AskUserQuestion", "NotebookEdit", "WebFetch"], "addedLines": ["AskUserQuestion", "NotebookEdit", "WebFetch"], "removedNames": []}))
    first = o.human(
        user(
            "passes from `orbit passes` are about an hour late compared to heavens-above for the ISS. "
            "can you look at how we parse and propagate the TLE and tell me where it drifts?"
        )
    )
    s.add(file_history_snapshot(first["uuid"]))
    s.add(ai_title("Fix ISS pass prediction drift in orbit"))
    o.read(
        "src/orbit/tle.py",
        pre=[
            thinking(
                "Passes about an hour late. Exactly one hour smells like a timezone: BST is UTC+1 right now. "
                "Check how the epoch is built and whether propagation uses naive datetimes."
            ),
            text("I'll start with the epoch parsing, then the propagator."),
        ],
    )
    o.read("src/orbit/propagate.py")
    o.say(
        thinking(
            "parse_epoch returns a naive datetime; mean_anomaly_at calls .timestamp() on it, which "
            "interprets naive values as LOCAL time. On a BST machine the epoch moves by 3600 s. "
            "Also day-of-year is 1-based in TLEs, timedelta(days=day) adds one day too many."
        ),
        text(
            "Found it. `parse_epoch` in `src/orbit/tle.py` builds a **naive** datetime, and "
            "`mean_anomaly_at` in `src/orbit/propagate.py:12` calls `.timestamp()` on it. Python treats a "
            "naive datetime as *local* time, so on your machine (BST, UTC+1) the epoch is shifted by "
            "exactly 3600 s, which is the hour you see.\n\nThere is a second, smaller bug on the same line: "
            "the TLE day-of-year is 1-based (`001.5` is 1 January, 12:00), but we add `timedelta(days=day)`, "
            "which puts the epoch one day late. Fixing the timezone alone will not make it exact."
        ),
    )
    o.end_turn()

    o.human(
        user(
            "ok fix it: make every datetime in orbit tz-aware UTC, and add a regression test with the ISS TLE "
            "in tests/data/iss.tle"
        )
    )
    s.add(last_prompt("ok fix it: make every datetime in orbit tz-aware UTC, and add a regression test with the ISS TLE in tests/data/iss.tle"))
    o.read("tests/data/iss.tle", pre=[text("Let me look at the fixture first.")])
    o.edit(
        "src/orbit/tle.py",
        "from datetime import datetime, timedelta\n",
        "from datetime import UTC, datetime, timedelta\n",
    )
    o.edit(
        "src/orbit/tle.py",
        "    return datetime(year, 1, 1) + timedelta(days=day)\n",
        "    return datetime(year, 1, 1, tzinfo=UTC) + timedelta(days=day)\n",
    )
    o.edit(
        "src/orbit/cli.py",
        "    start = datetime.fromisoformat(args.date) if args.date else datetime.now()\n",
        "    start = datetime.fromisoformat(args.date).replace(tzinfo=UTC) if args.date else datetime.now(UTC)\n",
    )
    o.edit("src/orbit/cli.py", "from datetime import datetime\n", "from datetime import UTC, datetime\n")
    test_epoch = (
        "from datetime import UTC, datetime\n\nfrom orbit.tle import parse\n\n\n"
        "def test_iss_epoch_is_utc_and_one_based():\n"
        "    lines = open(\"tests/data/iss.tle\").read().splitlines()\n"
        "    tle = parse(lines[1], lines[2])\n"
        "    assert tle.epoch == datetime(2026, 10, 4, 13, 9, tzinfo=UTC)\n"
    )
    o.write("tests/test_epoch.py", test_epoch)
    o.bash(
        "python -m pytest tests/test_epoch.py -q",
        "Exit code 1\nF                                                                        [100%]\n"
        "=================================== FAILURES ===================================\n"
        "______________________ test_iss_epoch_is_utc_and_one_based ______________________\n"
        ">       assert tle.epoch == datetime(2026, 10, 4, 13, 9, tzinfo=UTC)\n"
        "E       AssertionError: assert datetime.datetime(2026, 10, 5, 13, 9, tzinfo=datetime.timezone.utc) "
        "== datetime.datetime(2026, 10, 4, 13, 9, tzinfo=datetime.timezone.utc)\n"
        "FAILED tests/test_epoch.py::test_iss_epoch_is_utc_and_one_based - AssertionError\n1 failed in 0.04s",
        desc="Run the new epoch regression test",
        error=True,
    )
    o.edit(
        "src/orbit/tle.py",
        "    return datetime(year, 1, 1, tzinfo=UTC) + timedelta(days=day)\n",
        "    # TLE day-of-year is 1-based: 001.5 is 1 January, 12:00 UTC.\n"
        "    return datetime(year, 1, 1, tzinfo=UTC) + timedelta(days=day - 1)\n",
        pre=[text("As expected the test catches the 1-based day as well. Fixing that:")],
    )
    o.bash("python -m pytest tests/test_epoch.py -q", ".                                                                        [100%]\n1 passed in 0.03s", desc="Re-run the epoch regression test")
    o.say(
        "Both fixes are in:\n\n- `parse_epoch` now returns an aware UTC datetime and subtracts one day "
        "(TLE day-of-year is 1-based).\n- `orbit passes --date` is interpreted as UTC; without `--date` we use "
        "`datetime.now(UTC)`.\n- `tests/test_epoch.py` pins the ISS epoch from `tests/data/iss.tle` to "
        "2026-10-04 13:09:00 UTC."
    )
    o.end_turn()

    o.human(
        user_with_images(
            "[Image #1] this is heavens-above for tonight from Greenwich. our output should match within 30 s",
            image(tiny_png(16, 10, (12, 18, 40))),
        ),
    )
    s.wait(0)  # CC writes the image-source line in the same instant as the prompt
    s.add(meta_user("[Image: source: /home/ada/Pictures/Screenshots/heavens-above-2026-10-05.png]"))
    o.bash(
        "python -m orbit passes --norad 25544 --lat 51.4779 --lon -0.0015 --date 2026-10-05",
        "2026-10-05 18:03:52  ->  18:09:41\n2026-10-05 19:40:07  ->  19:46:12\n"
        "2026-10-05 21:17:30  ->  21:21:58\n2026-10-05 22:54:41  ->  22:57:03",
        desc="Predict tonight's ISS passes over Greenwich",
        pre=[thinking("Compare with the screenshot: four passes, first rise 18:03:40 on heavens-above.")],
    )
    o.say(
        "All four rise times are within 12 s of the screenshot (largest gap: 18:03:52 vs 18:03:40), and the "
        "set times are within 9 s. That is inside your 30 s budget."
    )
    o.end_turn()

    # a local command (no turn): caveat, wrapper, stdout
    s.wait(40)
    s.add(local_command_caveat())
    s.add(slash_command("cost"))
    s.add(
        local_command_stdout(
            "Total cost:            $1.84\nTotal duration (API):  3m 12.4s\nTotal duration (wall): 14m 55.0s\n"
            "Total code changes:    14 lines added, 3 lines removed"
        )
    )

    # a custom slash command with args (new tag order), expanded by an isMeta prompt
    s.wait(20)
    o.human(slash_command("changelog", args="add the UTC epoch fix under Unreleased"))
    s.add(
        meta_user(
            "Update CHANGELOG.md (Keep a Changelog format). Add this entry under the right heading of the "
            "`[Unreleased]` section, creating the heading if needed:\n\nadd the UTC epoch fix under Unreleased"
        )
    )
    o.read("CHANGELOG.md")
    o.edit(
        "CHANGELOG.md",
        "## [Unreleased]\n",
        "## [Unreleased]\n\n### Fixed\n- TLE epochs are parsed as UTC and the 1-based day-of-year is honoured "
        "(passes were up to an hour late).\n",
    )
    o.say("Added under `[Unreleased]` → `### Fixed`.")
    o.end_turn()

    # profiling: a persisted (externalised) tool output whose file exists under tool-results/
    s.wait(95)
    o.human(user("the pass finder is slow, about 4 s for a 10-day window. can you profile it?"))
    profile = profile_output()
    saved_to = f"{RECORDED_HOME}/projects/{encode_cwd(ORBIT)}/{ORBIT_LONG}/tool-results/{PERSISTED_ID}.txt"
    home.tool_output(session_path, PERSISTED_ID, profile)
    tid = o.tid()
    s.add(
        assistant_split(
            text("Profiling a 10-day window:"),
            tool_use(
                "Bash",
                {
                    "command": "python -m cProfile -s cumtime -m orbit passes --norad 25544 --days 10 2>&1 | head -400",
                    "description": "Profile a 10-day pass search",
                },
                id=tid,
            ),
            model=OPUS,
            msg_id=o.mid(),
        )
    )
    s.wait(6)
    s.add(
        tool_result(
            tid,
            persisted_output(saved_to, profile),
            tool_use_result=bash_result(
                profile, persistedOutputPath=saved_to, persistedOutputSize=len(profile.encode())
            ),
        )
    )
    o.say(
        thinking("864000 elevation() calls = 10 days * 86400 s. The per-second scan is the whole cost."),
        text(
            "The profile is dominated by the scan itself: `find_passes` calls `elevation()` 864,000 times "
            "(10 days × 86,400 s), and each call propagates the orbit. 85% of the 4.1 s is in "
            "`_raw_propagate`. The fix is algorithmic: step coarsely, then refine rise and set."
        ),
    )

    # AskUserQuestion, answered (structured answers) + the sidecar's resolved pair
    auq_id = o.tid()
    auq_block = auq_use(
        [
            {
                "question": "How should the pass finder refine rise and set times?",
                "header": "Refinement",
                "options": [
                    {"label": "Bisection on elevation (Recommended)", "description": "About 20 evaluations per event, sub-second accuracy"},
                    {"label": "Golden-section on max elevation", "description": "Also finds culmination, slightly more code"},
                    {"label": "Keep the 1 s scan", "description": "Simple, but stays slow for long windows"},
                ],
            },
            {
                "question": "Should the coarse step be configurable?",
                "header": "Coarse step",
                "options": [
                    {"label": "Fixed 60 s", "description": "Short passes (< 60 s above the mask) could be missed"},
                    {"label": "Configurable", "description": "A --step option with a 60 s default"},
                ],
            },
        ],
        id=auq_id,
    )
    asked = s.add(assistant(text("Two choices before I rewrite it:"), auq_block, model=OPUS, msg_id=o.mid()))
    pending = dict(asked)
    pending["uuid"] = stable_uuid(f"{ORBIT_LONG}:sidecar:{auq_id}")
    sidecar_lines.append(elicitation_pending(pending, auq_id))
    s.wait(75)
    answered = o.human(
        auq_answer(
            auq_id,
            {
                "How should the pass finder refine rise and set times?": "Bisection on elevation (Recommended)",
                "Should the coarse step be configurable?": "Configurable, but default 60 s and keep it out of --help for now",
            },
        )
    )
    sidecar_lines.append(elicitation_resolved(auq_id, answered["timestamp"], session_id=ORBIT_LONG))
    o.edit(
        "src/orbit/passes.py",
        PASSES_PY.split("def find_passes", 1)[1],
        "(tle, site, start: datetime, days: int = 10, min_elevation: float = 10.0, step_s: int = 60):\n"
        "    def up(t):\n        return elevation(tle, site, t) >= min_elevation\n\n"
        "    def edge(lo, hi):\n        while (hi - lo).total_seconds() > 0.5:\n"
        "            mid = lo + (hi - lo) / 2\n            lo, hi = (mid, hi) if up(mid) == up(lo) else (lo, mid)\n"
        "        return hi\n\n"
        "    passes, rise = [], None\n    t, end = start, start + timedelta(days=days)\n"
        "    step = timedelta(seconds=step_s)\n    while t < end:\n"
        "        if up(t + step) != up(t):\n            at = edge(t, t + step)\n"
        "            if rise is None:\n                rise = at\n            else:\n"
        "                passes.append((rise, at))\n                rise = None\n"
        "        t += step\n    return passes\n",
        pre=[thinking("Bisection with a 60 s coarse step; expose step_s as a keyword but not in the CLI help.")],
    )
    o.bash("python -m pytest -q", "........                                                                 [100%]\n8 passed in 0.41s", desc="Run the test suite")
    o.bash("time python -m orbit passes --norad 25544 --days 10 > /dev/null", "\nreal\t0m0.31s\nuser\t0m0.27s\nsys\t0m0.03s", desc="Time a 10-day search")
    o.say(
        "Rewritten with a 60 s coarse step and bisection on the elevation mask (`step_s` is a keyword of "
        "`find_passes`, not in `--help`). A 10-day window now takes **0.31 s** instead of 4.1 s, and the tests pass."
    )
    o.end_turn()

    # plan mode: plan written, ExitPlanMode REJECTED with a typed instruction, then approved
    s.wait(300)
    o.human(user("great. next: caching propagated states. I want to see a plan before any code."))
    plan_path = f"{RECORDED_HOME}/plans/{PLAN_SLUG}.md"
    s.slug = PLAN_SLUG
    s.add(attachment("plan_mode", {"reminderType": "full", "isSubAgent": False, "planFilePath": plan_path, "planExists": False}))
    o.grep(
        "propagate\\(",
        [
            "src/orbit/propagate.py:18:def propagate(tle: TLE, when: datetime) -> tuple[float, float, float]:",
            "src/orbit/geometry.py:24:    pos = propagate(tle, when)",
            "src/orbit/doppler.py:10:    pos = _raw_propagate(tle, mean_anomaly_at(tle, when))",
        ],
        pre=[text("Let me see who calls the propagator before planning.")],
    )
    plan_v1 = (
        "# Cache propagated states\n\n1. Add `orbit/cache.py`: an on-disk cache under `~/.cache/orbit/` keyed by "
        "(norad_id, epoch) storing minute-resolution state vectors.\n2. Wrap `propagate()` with an in-memory LRU "
        "in front of the disk cache.\n3. Add a Celestrak rate limiter so refreshing TLEs cannot hammer the API.\n"
        "4. Tests: cache hit/miss, invalidation on a new epoch, limiter backoff.\n"
    )
    home.plan(PLAN_SLUG, plan_v1)
    write_tid = o.tid()
    s.add(assistant_split(tool_use("Write", {"file_path": plan_path, "content": plan_v1}, id=write_tid), model=OPUS, msg_id=o.mid()))
    s.add(tool_result(write_tid, f"File created successfully at: {plan_path}", tool_use_result=write_result(plan_path, plan_v1)))
    exit1 = o.tid()
    s.add(assistant_split(tool_use("ExitPlanMode", {"plan": plan_v1, "planFilePath": plan_path}, id=exit1), model=OPUS, msg_id=o.mid()))
    s.wait(140)
    o.human(
        rejection(
            exit1,
            "Too much at once. Drop the disk cache, an in-memory LRU keyed by (norad_id, epoch, minute) is enough "
            "for now. And keep the Celestrak rate limiter out of this change.",
        )
    )
    plan_v2 = (
        "# Cache propagated states\n\n1. Add `orbit/cache.py`: an in-memory LRU keyed by (norad_id, epoch, minute) "
        "holding ECI state vectors.\n2. Route `propagate()` through it; `_raw_propagate` stays uncached.\n"
        "3. Tests: hit/miss, a new epoch never hits an old entry.\n\nOut of scope: disk cache, Celestrak rate limiter.\n"
    )
    edit_tid = o.tid()
    s.add(
        assistant_split(
            text("Understood, trimming the plan to the in-memory LRU only."),
            tool_use("Write", {"file_path": plan_path, "content": plan_v2}, id=edit_tid),
            model=OPUS,
            msg_id=o.mid(),
        )
    )
    s.add(tool_result(edit_tid, f"The file {plan_path} has been updated successfully.", tool_use_result=write_result(plan_path, plan_v2, original=plan_v1)))
    home.plan(PLAN_SLUG, plan_v2)
    exit2 = o.tid()
    s.add(assistant_split(tool_use("ExitPlanMode", {"plan": plan_v2, "planFilePath": plan_path}, id=exit2), model=OPUS, msg_id=o.mid()))
    s.wait(35)
    s.add(plan_approval(exit2, plan_v2, plan_path))
    s.add(attachment("plan_mode_exit", {"planFilePath": plan_path, "planExists": True}))
    cache_py = (
        '"""In-memory LRU of propagated states, keyed by (norad_id, epoch, minute)."""\n\n'
        "from collections import OrderedDict\n\nMAX_ENTRIES = 512\n_entries: OrderedDict = OrderedDict()\n\n\n"
        "def cached(key, compute):\n    if key in _entries:\n        _entries.move_to_end(key)\n        return _entries[key]\n"
        "    value = _entries[key] = compute()\n    if len(_entries) > MAX_ENTRIES:\n        _entries.popitem(last=False)\n"
        "    return value\n"
    )
    o.write("src/orbit/cache.py", cache_py)
    o.edit(
        "src/orbit/propagate.py",
        '    """ECI position (km) of the satellite at `when`."""\n    return _raw_propagate(tle, mean_anomaly_at(tle, when))\n',
        '    """ECI position (km) of the satellite at `when` (cached per minute)."""\n'
        "    key = (tle.norad_id, tle.epoch, int(when.timestamp() // 60))\n"
        "    return cached(key, lambda: _raw_propagate(tle, mean_anomaly_at(tle, when)))\n",
    )
    o.edit("src/orbit/propagate.py", "from orbit.tle import TLE\n", "from orbit.cache import cached\nfrom orbit.tle import TLE\n")
    o.bash("python -m pytest -q", "..........                                                               [100%]\n10 passed in 0.38s", desc="Run the test suite")
    o.say("The LRU is in `src/orbit/cache.py` and `propagate()` goes through it. Tests pass (10).")
    o.end_turn()

    # built-in subagent #1: Task -> Explore (sync; its answer comes back as the tool_result)
    s.wait(60)
    o.human(
        user(
            "before going further, get an Explore agent to map every place we call the propagator, so we don't "
            "miss a call site that bypasses the cache"
        )
    )
    explore_prompt = (
        "Find every call site of `propagate(` and `_raw_propagate(` in /home/ada/src/orbit (src and tests). "
        "For each, give file:line and whether it goes through `orbit.cache.cached`. Report only; do not edit."
    )
    task_id = o.tid()
    s.add(
        assistant_split(
            text("Spawning an Explore agent to map the call sites."),
            tool_use("Task", {"description": "Map propagator call sites", "subagent_type": "Explore", "prompt": explore_prompt}, id=task_id),
            model=OPUS,
            msg_id=o.mid(),
        )
    )
    explore = Session(ORBIT_LONG, cwd=ORBIT, version="2.1.262", git_branch="main", agent_id=AGENT_EXPLORE, start=s.now + timedelta(seconds=2.4), step=3, slug=PLAN_SLUG)
    e = Lane(explore, "orbit-explore", ORBIT, HAIKU, files)
    explore.add(user(explore_prompt))
    e.grep(
        "(_raw_)?propagate\\(",
        [
            "src/orbit/propagate.py:18:def propagate(tle: TLE, when: datetime) -> tuple[float, float, float]:",
            "src/orbit/propagate.py:22:    return cached(key, lambda: _raw_propagate(tle, mean_anomaly_at(tle, when)))",
            "src/orbit/geometry.py:24:    pos = propagate(tle, when)",
            "src/orbit/doppler.py:10:    pos = _raw_propagate(tle, mean_anomaly_at(tle, when))",
            "tests/test_propagate.py:14:    assert propagate(tle, epoch) == pytest.approx(expected, rel=1e-6)",
        ],
    )
    e.read("src/orbit/doppler.py")
    explore_answer = (
        "Call sites of the propagator:\n\n"
        "| file:line | call | cached? |\n|---|---|---|\n"
        "| src/orbit/propagate.py:22 | `_raw_propagate` inside `propagate` | yes (this is the cache) |\n"
        "| src/orbit/geometry.py:24 | `propagate(tle, when)` | yes |\n"
        "| src/orbit/doppler.py:10 | `_raw_propagate(...)` | **no, bypasses the cache** |\n"
        "| tests/test_propagate.py:14 | `propagate(tle, epoch)` | yes |\n\n"
        "Only `doppler.py` calls `_raw_propagate` directly."
    )
    e.say(explore_answer)
    home.subagent(session_path, AGENT_EXPLORE, explore, meta={"agentType": "Explore", "description": "Map propagator call sites", "toolUseId": task_id})
    s.at(explore.now + timedelta(seconds=1.2))
    s.add(subagent_return(task_id, explore_answer, agent_id=AGENT_EXPLORE, agent_type="Explore", prompt=explore_prompt, total_tokens=18734, tool_uses=2, duration_ms=11800))
    o.edit(
        "src/orbit/doppler.py",
        "    pos = _raw_propagate(tle, mean_anomaly_at(tle, when))\n",
        "    pos = propagate(tle, when)\n",
        pre=[text("One call site bypasses the cache: `doppler.py`. Routing it through `propagate()`:")],
    )
    o.edit("src/orbit/doppler.py", "from orbit.propagate import _raw_propagate, mean_anomaly_at\n", "from orbit.propagate import propagate\n")
    o.bash("python -m pytest -q", "..........                                                               [100%]\n10 passed in 0.36s", desc="Run the test suite")
    o.say("`doppler.py` now uses `propagate()`, so every call site goes through the cache. Tests still pass.")
    o.end_turn()

    # built-in subagent #2: Agent -> general-purpose, in parallel with a Read
    s.wait(45)
    o.human(user("also have a second agent review cache.py for thread-safety while you update the README"))
    review_prompt = (
        "Review /home/ada/src/orbit/src/orbit/cache.py for thread-safety. orbit's CLI is single-threaded today, "
        "but the upcoming web dashboard will call propagate() from a thread pool. List concrete races, if any, "
        "and the smallest fix."
    )
    agent_id_tool = o.tid()
    readme_tid = o.tid()
    s.add(
        assistant_split(
            text("Starting the review agent and reading the README in parallel."),
            tool_use("Agent", {"description": "Review cache thread-safety", "subagent_type": "general-purpose", "prompt": review_prompt}, id=agent_id_tool),
            tool_use("Read", {"file_path": o.abs("README.md")}, id=readme_tid),
            model=OPUS,
            msg_id=o.mid(),
        )
    )
    spawn_time = s.now
    s.add(tool_result(readme_tid, numbered(files["README.md"]), tool_use_result=read_result(o.abs("README.md"), files["README.md"])))
    review = Session(ORBIT_LONG, cwd=ORBIT, version="2.1.262", git_branch="main", agent_id=AGENT_REVIEW, start=spawn_time + timedelta(seconds=3.1), step=5, slug=PLAN_SLUG)
    r = Lane(review, "orbit-review", ORBIT, SONNET, files)
    review.add(user(review_prompt))
    r.read("src/orbit/cache.py")
    review_answer = (
        "`cached()` is not thread-safe. Two races:\n\n1. `move_to_end` + read is not atomic: a concurrent "
        "`popitem(last=False)` can evict the key between the membership test and the lookup (KeyError).\n"
        "2. Two threads missing the same key both compute and both insert; harmless but wasteful.\n\n"
        "Smallest fix: guard the whole body with a module-level `threading.Lock()`; computing outside the lock "
        "is possible but not worth it at 512 entries."
    )
    r.say(thinking("OrderedDict ops are individually atomic under the GIL but the sequence is not."), text(review_answer))
    home.subagent(session_path, AGENT_REVIEW, review, meta={"agentType": "general-purpose", "description": "Review cache thread-safety", "toolUseId": agent_id_tool})
    s.at(review.now + timedelta(seconds=0.9))
    s.add(subagent_return(agent_id_tool, review_answer, agent_id=AGENT_REVIEW, agent_type="general-purpose", prompt=review_prompt, total_tokens=21406, tool_uses=1, duration_ms=14300))
    o.edit(
        "src/orbit/cache.py",
        "def cached(key, compute):\n    if key in _entries:\n        _entries.move_to_end(key)\n        return _entries[key]\n"
        "    value = _entries[key] = compute()\n    if len(_entries) > MAX_ENTRIES:\n        _entries.popitem(last=False)\n"
        "    return value\n",
        "def cached(key, compute):\n    with _lock:\n        if key in _entries:\n            _entries.move_to_end(key)\n"
        "            return _entries[key]\n        value = _entries[key] = compute()\n"
        "        if len(_entries) > MAX_ENTRIES:\n            _entries.popitem(last=False)\n        return value\n",
        pre=[text("The reviewer found a real race. Adding a lock:")],
    )
    o.edit("src/orbit/cache.py", "from collections import OrderedDict\n", "import threading\nfrom collections import OrderedDict\n")
    o.edit("src/orbit/cache.py", "_entries: OrderedDict = OrderedDict()\n", "_entries: OrderedDict = OrderedDict()\n_lock = threading.Lock()\n")
    o.edit(
        "README.md",
        "The scan steps one second at a time, so long windows are slow.\n",
        "Passes are found with a 60 s coarse scan refined by bisection, and propagated states are cached in "
        "memory, so a 10-day window takes well under a second.\n",
    )
    o.say("Lock added (review findings in the agent's report above) and the README describes the new pass finder.")
    o.end_turn()

    # a rejected tool use WITHOUT a typed message, then the interrupt marker, then the real instruction
    s.wait(30)
    o.human(user("run the full suite including the slow network tests"))
    slow = o.tid()
    s.add(assistant_split(tool_use("Bash", {"command": "python -m pytest -q --runslow", "description": "Run all tests including slow ones"}, id=slow), model=OPUS, msg_id=o.mid()))
    s.wait(9)
    s.add(rejection(slow))
    s.add(interrupt(for_tool_use=True))
    s.wait(25)
    o.human(user("actually skip the slow ones, they hit Celestrak. unit tests only, then commit."))
    o.bash("python -m pytest -q", "..........                                                               [100%]\n10 passed in 0.37s", desc="Run the unit tests")
    o.bash(
        'git add -A && git commit -m "Fix UTC epoch parsing, faster pass finder, propagation cache"',
        "[main 4e1c2ab] Fix UTC epoch parsing, faster pass finder, propagation cache\n 9 files changed, 96 insertions(+), 21 deletions(-)\n"
        " create mode 100644 src/orbit/cache.py\n create mode 100644 tests/test_epoch.py",
        desc="Commit the work",
    )
    o.say("Committed as `4e1c2ab` (unit tests green; slow Celestrak tests skipped).")
    s.add(stop_hook_summary([("~/.claude/hooks/notify-done.sh", 212)]))
    o.end_turn()

    o.human(user("how much did we change today?"))
    o.bash(
        "git diff --stat a71d9f3..HEAD",
        " CHANGELOG.md            |  5 ++++\n README.md               |  3 +-\n src/orbit/cache.py      | 19 +++++++++++\n"
        " src/orbit/cli.py        |  4 +--\n src/orbit/doppler.py    |  4 +--\n src/orbit/passes.py     | 34 ++++++++++++-------\n"
        " src/orbit/propagate.py  |  6 ++--\n src/orbit/tle.py        |  6 ++--\n tests/test_epoch.py     |  9 +++++\n"
        " 9 files changed, 96 insertions(+), 21 deletions(-)",
        desc="Summarise today's changes",
    )
    o.say("96 lines added and 21 removed across 9 files since 0.3.2, most of it the new pass finder and the cache.")
    o.end_turn()

    # a superseded draft: sent, esc-recalled, edited, re-sent under the SAME parent
    s.wait(600)
    draft = s.add(user("can you make the cache size configurable"))
    s.wait(7)
    o.human(
        user("make the cache size configurable through ORBIT_CACHE_SIZE (default 512) and document it in the README"),
        parent=draft["parentUuid"],
    )
    o.edit(
        "src/orbit/cache.py",
        "MAX_ENTRIES = 512\n",
        'MAX_ENTRIES = int(os.environ.get("ORBIT_CACHE_SIZE", "512"))\n',
    )
    s.add(queue_op("enqueue", "also bump the version to 0.4.0-dev in pyproject when you're done"))
    o.edit("src/orbit/cache.py", "import threading\n", "import os\nimport threading\n")
    s.add(queue_op("remove", "also bump the version to 0.4.0-dev in pyproject when you're done", reason="absorbed_mid_turn"))
    s.add(attachment("queued_command", {"prompt": "also bump the version to 0.4.0-dev in pyproject when you're done", "commandMode": "prompt"}))
    o.edit(
        "README.md",
        "so a 10-day window takes well under a second.\n",
        "so a 10-day window takes well under a second.\n\nSet `ORBIT_CACHE_SIZE` to change the number of cached "
        "states (default 512).\n",
    )
    o.edit("pyproject.toml", 'version = "0.3.2"\n', 'version = "0.4.0.dev0"\n', pre=[text("And the version bump you queued:")])
    o.say("`ORBIT_CACHE_SIZE` is read at import (default 512) and documented; `pyproject.toml` is at `0.4.0.dev0`.")
    o.end_turn()
    s.add(last_prompt("make the cache size configurable through ORBIT_CACHE_SIZE (default 512) and document it in the README"))

    # the process died mid-write here; the session was resumed the next morning
    crash = assistant(text("Pushed the branch; the release work can start tomorrow."), model=OPUS, msg_id=o.mid())
    raw_inserts[len(s.records)] = torn(s.stamp(crash, commit=False), keep=0.55) + b"\n"

    # ── day 2 ───────────────────────────────────────────────────────────────────────
    s.at(at(6, 8, 5, 30))
    o.human(user("morning. add a `--format json` option to `orbit passes` so I can pipe it into jq"))
    o.read("src/orbit/cli.py")
    o.edit(
        "src/orbit/cli.py",
        '    p.add_argument("--days", type=int, default=1)\n',
        '    p.add_argument("--days", type=int, default=1)\n    p.add_argument("--format", choices=["text", "json"], default="text")\n',
    )
    o.edit(
        "src/orbit/cli.py",
        '    for rise, set_ in find_passes(load_tle(args.norad), Site(args.lat, args.lon), start, args.days):\n'
        '        print(f"{rise:%Y-%m-%d %H:%M:%S}  ->  {set_:%H:%M:%S}")\n',
        "    found = find_passes(load_tle(args.norad), Site(args.lat, args.lon), start, args.days)\n"
        '    if args.format == "json":\n'
        '        print(json.dumps([{"rise": r.isoformat(), "set": s.isoformat()} for r, s in found], indent=2))\n'
        "        return\n    for rise, set_ in found:\n"
        '        print(f"{rise:%Y-%m-%d %H:%M:%S}  ->  {set_:%H:%M:%S}")\n',
    )
    o.edit("src/orbit/cli.py", "import argparse\n", "import argparse\nimport json\n")
    o.bash(
        "python -m orbit passes --norad 25544 --date 2026-10-06 --format json | head -8",
        '[\n  {\n    "rise": "2026-10-06T17:15:02+00:00",\n    "set": "2026-10-06T17:21:19+00:00"\n  },\n  {\n'
        '    "rise": "2026-10-06T18:51:40+00:00",\n    "set": "2026-10-06T18:57:33+00:00"',
        desc="Try the JSON output",
    )
    o.say("`--format json` prints a list of `{rise, set}` objects with ISO timestamps.")
    o.end_turn()

    o.human(user("the json should use a Z suffix, not +00:00"))
    o.edit(
        "src/orbit/cli.py",
        '        print(json.dumps([{"rise": r.isoformat(), "set": s.isoformat()} for r, s in found], indent=2))\n',
        '        z = lambda t: t.strftime("%Y-%m-%dT%H:%M:%SZ")  # noqa: E731\n'
        '        print(json.dumps([{"rise": z(r), "set": z(s)} for r, s in found], indent=2))\n',
    )
    o.bash(
        "python -m orbit passes --norad 25544 --date 2026-10-06 --format json | head -4",
        '[\n  {\n    "rise": "2026-10-06T17:15:02Z",\n    "set": "2026-10-06T17:21:19Z"',
        desc="Check the Z suffix",
    )
    o.say("Timestamps now end in `Z`.")
    o.end_turn()

    o.human(user("add ground stations from a TOML config (~/.config/orbit/stations.toml) so I can say --station greenwich"))
    stations_py = (
        '"""Named ground stations from ~/.config/orbit/stations.toml."""\n\nimport tomllib\nfrom dataclasses import dataclass\n'
        "from pathlib import Path\n\nCONFIG = Path.home() / \".config\" / \"orbit\" / \"stations.toml\"\n\n\n"
        "@dataclass(frozen=True)\nclass Station:\n    name: str\n    lat: float\n    lon: float\n    elevation_m: float = 0.0\n\n\n"
        "def load(path: Path = CONFIG) -> dict[str, Station]:\n    data = tomllib.loads(path.read_text())\n"
        "    return {name: Station(name, **fields) for name, fields in data.items()}\n"
    )
    o.write("src/orbit/stations.py", stations_py)
    o.edit(
        "src/orbit/cli.py",
        '    p.add_argument("--date", default=None)\n',
        '    p.add_argument("--station", default=None)\n    p.add_argument("--date", default=None)\n',
    )
    o.write(
        "tests/test_stations.py",
        "from orbit.stations import load\n\n\ndef test_load(tmp_path):\n    cfg = tmp_path / \"stations.toml\"\n"
        '    cfg.write_text("[greenwich]\\nlat = 51.4779\\nlon = -0.0015\\nelevation_m = 46\\n")\n'
        '    assert load(cfg)["greenwich"].elevation_m == 46\n',
    )
    o.bash("python -m pytest -q", "...........                                                              [100%]\n11 passed in 0.40s", desc="Run the test suite")
    o.say("`--station NAME` looks the site up in `~/.config/orbit/stations.toml` (`[name]` tables with `lat`, `lon`, `elevation_m`).")
    o.end_turn()

    o.human(user("what happens if the toml has a station with no elevation?"))
    o.say(
        thinking("Station has elevation_m default 0.0, so a missing key silently becomes sea level."),
        text(
            "It silently becomes sea level: `Station.elevation_m` defaults to `0.0`, so a station without "
            "`elevation_m` loads fine and every elevation angle is computed from 0 m. For Svalbard (~500 m) that "
            "shifts rise and set by a few seconds."
        ),
    )
    o.end_turn()

    o.human(user("is the doppler sign right? it should be positive while the satellite approaches"))
    o.say(
        thinking("range_rate < 0 while approaching; -range_rate/c*f > 0. Correct."),
        text(
            "Yes. While the ISS approaches, the slant range shrinks, so `range_rate` is negative and "
            "`-range_rate / c × f` is positive: the received frequency is above 145.800 MHz before culmination "
            "and below it after."
        ),
    )
    o.end_turn()

    o.human(user("make elevation required then, and give a clear error naming the station"))
    o.edit("src/orbit/stations.py", "    elevation_m: float = 0.0\n", "    elevation_m: float\n")
    o.edit(
        "src/orbit/stations.py",
        "    return {name: Station(name, **fields) for name, fields in data.items()}\n",
        "    missing = [name for name, fields in data.items() if \"elevation_m\" not in fields]\n"
        "    if missing:\n        raise ValueError(f\"{path}: station(s) without elevation_m: {', '.join(missing)}\")\n"
        "    return {name: Station(name, **fields) for name, fields in data.items()}\n",
    )
    o.bash("python -m pytest -q", "...........                                                              [100%]\n11 passed in 0.39s", desc="Run the test suite")
    o.say("`elevation_m` is now required; a station without it fails with `stations.toml: station(s) without elevation_m: <names>`.")
    o.end_turn()

    o.human(user("add Doppler shift for the 145.800 MHz downlink to the json output"))
    o.read("src/orbit/doppler.py")
    o.edit(
        "src/orbit/cli.py",
        '        print(json.dumps([{"rise": z(r), "set": z(s)} for r, s in found], indent=2))\n',
        '        rows = [{"rise": z(r), "set": z(s), "doppler_hz_at_rise": round(doppler(tle, site, r, 145.8e6))} for r, s in found]\n'
        "        print(json.dumps(rows, indent=2))\n",
    )
    o.edit("src/orbit/cli.py", "from orbit.catalog import load_tle\n", "from orbit.catalog import load_tle\nfrom orbit.doppler import doppler\n")
    o.bash(
        "python -m orbit passes --norad 25544 --date 2026-10-06 --format json | head -6",
        '[\n  {\n    "rise": "2026-10-06T17:15:02Z",\n    "set": "2026-10-06T17:21:19Z",\n    "doppler_hz_at_rise": 3412\n  },',
        desc="Check the Doppler field",
    )
    o.say("Each pass now carries `doppler_hz_at_rise` for the 145.800 MHz downlink (+3.4 kHz at rise, as expected for an approaching ISS).")
    o.end_turn()

    o.human(user("explain how the range-rate is computed there"))
    s.add(
        assistant(
            text(
                "`range_rate(site, pos, when)` differentiates the slant range numerically. It first rotates the "
                "site into ECI at `when` (Earth rotation angle from the GMST at that instant), then takes the "
                "satellite position one second before and one second after, and"
            ),
            model=OPUS,
            msg_id=o.mid(),
            stop_reason=None,
        )
    )
    s.wait(3)
    s.add(interrupt())
    o.human(user("sorry, shorter please. two sentences"))
    o.say(
        "Range-rate is the central difference of the site-to-satellite distance one second either side of the "
        "instant. Doppler is then `-range_rate / c × f`."
    )
    o.end_turn()

    # ── auto compaction (the clone session is forked from this boundary) ────────────
    s.wait(240)
    boundary = s.add(compact_boundary(167412, "auto", post_tokens=9873, duration_ms=61234))
    summary = s.add(
        compact_summary(
            "Summary:\n1. Primary Request and Intent:\n   Ada is improving `orbit`, a CLI that predicts satellite "
            "passes from TLEs. Requests so far: fix ISS passes being ~1 h late; speed up the pass finder; cache "
            "propagated states (plan approved after trimming to an in-memory LRU); route every call site through "
            "the cache; make the cache thread-safe and its size configurable (ORBIT_CACHE_SIZE); `--format json` "
            "with Z timestamps; ground stations from ~/.config/orbit/stations.toml with required elevation; Doppler "
            "for the 145.800 MHz downlink.\n\n2. Key Technical Concepts:\n   - TLE epochs are UTC and day-of-year is "
            "1-based\n   - coarse 60 s scan + bisection on the elevation mask\n   - OrderedDict LRU guarded by a "
            "threading.Lock\n\n3. Files and Code Sections:\n   - src/orbit/tle.py: aware UTC epoch, `day - 1`\n   - "
            "src/orbit/passes.py: `find_passes(..., step_s=60)`\n   - src/orbit/cache.py: `cached(key, compute)`\n   - "
            "src/orbit/cli.py: `--format json`, `--station`, `doppler_hz_at_rise`\n\n4. Errors and fixes:\n   - the "
            "epoch regression test failed on the off-by-one day; fixed in parse_epoch.\n\n5. Pending Tasks:\n   - "
            "validate the Doppler numbers against the 0.3.2 release\n   - release 0.4.0\n\n6. Current Work:\n   Just "
            "explained how range-rate is computed (two sentences, as requested)."
        )
    )
    s.add(attachment("compact_file_reference", {"filename": o.abs("src/orbit/cli.py"), "displayPath": "src/orbit/cli.py"}))
    copied_for_clone = [boundary, summary, s.records[-1]]

    # a workflow: launched async, agents run in the background, a task-notification reports back
    s.wait(95)
    o.human(
        user(
            "ok where were we. run the pass-audit workflow over greenwich and svalbard to sanity-check the doppler "
            "numbers against the 0.3.2 release"
        )
    )
    wf_tid = o.tid()
    wf_script = (
        "export const meta = { name: 'pass-audit', description: 'Compare passes and Doppler against a release', "
        "phases: [{ title: 'Audit' }] }\nphase('Audit')\nconst stations = ['greenwich', 'svalbard']\n"
        "return await parallel(stations.map(s => () => agent(`Audit station ${s} against orbit 0.3.2`)))\n"
    )
    s.add(assistant_split(text("Launching the pass-audit workflow."), tool_use("Workflow", {"script": wf_script}, id=wf_tid), model=OPUS, msg_id=o.mid()))
    launched_at = s.now
    transcript_dir = f"{ORBIT_LONG}/subagents/workflows/{WORKFLOW_RUN}"
    s.add(
        tool_result(
            wf_tid,
            f"Workflow launched in background. Task ID: task_{WORKFLOW_RUN[3:]}\nSummary: Compare passes and Doppler against a release.",
            tool_use_result={
                "isAsync": True,
                "status": "async_launched",
                "runId": WORKFLOW_RUN,
                "taskId": f"task_{WORKFLOW_RUN[3:]}",
                "transcriptDir": transcript_dir,
                "scriptPath": f"{ORBIT_LONG}/workflows/scripts/pass-audit-{WORKFLOW_RUN}.js",
            },
        )
    )
    o.say("The pass-audit workflow is running in the background (two agents); I'll report when it finishes.")
    o.end_turn(pendingWorkflowCount=1)
    results: dict[str, Any] = {}
    last_wf = launched_at
    for offset, (hexid, station, shift) in enumerate(
        [(AGENT_WF_GREENWICH, "greenwich", "+1.6 Hz"), (AGENT_WF_SVALBARD, "svalbard", "-0.8 Hz")]
    ):
        wf = Session(ORBIT_LONG, cwd=ORBIT, version="2.1.262", git_branch="main", agent_id=hexid, start=launched_at + timedelta(seconds=2.5 + offset * 0.7), step=7, slug=PLAN_SLUG)
        w = Lane(wf, f"orbit-wf-{station}", ORBIT, SONNET, files)
        wf.add(user(f"Audit station {station} against orbit 0.3.2: compare rise/set times and Doppler at rise for the next 3 days. Report the largest differences."))
        w.bash(
            f"uvx --from orbit==0.3.2 orbit passes --norad 25544 --station {station} --days 3 > /tmp/old-{station}.txt && "
            f"python -m orbit passes --norad 25544 --station {station} --days 3 --format json > /tmp/new-{station}.json && "
            f"python scripts/compare.py /tmp/old-{station}.txt /tmp/new-{station}.json",
            f"passes compared: {14 if station == 'greenwich' else 31}\nmax rise delta: {'3588' if station == 'greenwich' else '3591'} s "
            f"(0.3.2 epoch bug)\nafter removing the 1 h offset: max rise delta 2.1 s\nmax doppler delta: {shift}",
            desc=f"Compare 0.3.2 and current output for {station}",
        )
        finding = {
            "station": station,
            "passes": 14 if station == "greenwich" else 31,
            "rise_offset_s": 3600,
            "residual_rise_delta_s": 2.1,
            "max_doppler_delta": shift,
            "verdict": "consistent once the 0.3.2 epoch bug is accounted for",
        }
        w.say(f"Station {station}: the 0.3.2 release is 1 h late everywhere (the epoch bug); after removing that offset rise times agree within 2.1 s and Doppler within {shift}.")
        results[hexid] = finding
        home.subagent(session_path, hexid, wf, meta={"agentType": "workflow-subagent"}, workflow=WORKFLOW_RUN)
        last_wf = max(last_wf, wf.now)
    home.journal(
        session_path,
        WORKFLOW_RUN,
        [
            journal_started(AGENT_WF_GREENWICH, "v2:4b1e9c"),
            journal_started(AGENT_WF_SVALBARD, "v2:7f20d3"),
            journal_result(AGENT_WF_GREENWICH, "v2:4b1e9c", results[AGENT_WF_GREENWICH]),
            journal_result(AGENT_WF_SVALBARD, "v2:7f20d3", results[AGENT_WF_SVALBARD]),
        ],
    )
    home.workflow_run(
        session_path,
        WORKFLOW_RUN,
        {
            "runId": WORKFLOW_RUN,
            "taskId": f"task_{WORKFLOW_RUN[3:]}",
            "status": "completed",
            "workflowName": "pass-audit",
            "timestamp": iso(launched_at),
            "durationMs": int((last_wf - launched_at).total_seconds() * 1000),
            "agentCount": 2,
            "totalTokens": 30912,
            "totalToolCalls": 2,
            "defaultModel": SONNET,
            "scriptPath": f"{ORBIT_LONG}/workflows/scripts/pass-audit-{WORKFLOW_RUN}.js",
            "phases": [{"title": "Audit", "detail": "compare against 0.3.2"}],
            "result": [results[AGENT_WF_GREENWICH], results[AGENT_WF_SVALBARD]],
        },
    )
    s.at(last_wf + timedelta(seconds=2))
    notice_body = (
        "greenwich: 14 passes, residual rise delta 2.1 s, Doppler within +1.6 Hz\n"
        "svalbard: 31 passes, residual rise delta 2.1 s, Doppler within -0.8 Hz"
    )
    s.add(queue_op("enqueue", f"<task-notification>\n<task-id>task_{WORKFLOW_RUN[3:]}</task-id>\n<status>completed</status>\n<summary>Workflow \"pass-audit\" completed</summary>\n</task-notification>"))
    s.add(
        task_notification(
            f"task_{WORKFLOW_RUN[3:]}",
            "completed",
            'Workflow "pass-audit" completed',
            result=notice_body,
            usage={"total_tokens": 30912, "tool_uses": 2, "duration_ms": int((last_wf - launched_at).total_seconds() * 1000)},
        )
    )
    o.say(
        "The audit is back: both stations agree with 0.3.2 once the old release's 1 h epoch bug is removed "
        "(residual rise delta 2.1 s). Doppler differs by at most 1.6 Hz (greenwich) and 0.8 Hz (svalbard), well "
        "inside the 5 Hz we care about."
    )

    o.human(user("good. write that up in docs/validation.md"))
    o.write(
        "docs/validation.md",
        "# Validation against orbit 0.3.2 (2026-10-06)\n\n| station | passes | residual rise delta | max Doppler delta |\n"
        "|---|---|---|---|\n| greenwich | 14 | 2.1 s | +1.6 Hz |\n| svalbard | 31 | 2.1 s | -0.8 Hz |\n\n"
        "0.3.2 is one hour late everywhere (naive-datetime epoch bug, fixed in 0.4.0).\n",
    )
    o.say("Written to `docs/validation.md`.")
    o.end_turn()

    o.human(user("what's our test coverage on passes.py?"))
    o.bash(
        "python -m pytest -q --cov=orbit.passes --cov-report=term-missing",
        "Name                 Stmts   Miss  Cover   Missing\n--------------------------------------------------\n"
        "src/orbit/passes.py     24      3    88%   31-33\n--------------------------------------------------\n"
        "TOTAL                   24      3    88%\n11 passed in 0.52s",
        desc="Measure coverage of passes.py",
    )
    o.say("88%: lines 31-33 (a pass that is still above the mask at the end of the window) are never exercised.")
    o.end_turn()

    o.human(user("why did the coverage run take longer than a normal run?"))
    o.say("Coverage traces every executed line (0.52 s vs 0.40 s here); the overhead is the tracer, not the tests.")
    o.end_turn()

    o.human(user("add a test for that case, and one for a pass that spans midnight UTC"))
    o.write(
        "tests/test_passes_edges.py",
        "from datetime import UTC, datetime\n\nfrom orbit.passes import find_passes\n\n\n"
        "def test_pass_open_at_window_end(iss, greenwich):\n    end = datetime(2026, 10, 5, 18, 6, tzinfo=UTC)\n"
        "    assert find_passes(iss, greenwich, end.replace(hour=17), days=0.0458)[-1][1] is None\n\n\n"
        "def test_pass_spanning_midnight(iss, svalbard):\n    start = datetime(2026, 10, 6, 23, 50, tzinfo=UTC)\n"
        "    rise, set_ = find_passes(iss, svalbard, start, days=0.02)[0]\n    assert rise.day == 6 and set_.day == 7\n",
    )
    o.bash(
        "python -m pytest -q tests/test_passes_edges.py",
        "Exit code 1\n.F\nE   TypeError: '>=' not supported between instances of 'NoneType' and 'datetime'\n1 failed, 1 passed in 0.09s",
        desc="Run the new edge-case tests",
        error=True,
    )
    o.edit(
        "src/orbit/passes.py",
        "        t += step\n    return passes\n",
        "        t += step\n    if rise is not None:\n        passes.append((rise, None))\n    return passes\n",
        pre=[text("`find_passes` drops a pass that is still open at the end of the window. Keeping it with `set=None`:")],
    )
    o.bash("python -m pytest -q", ".............                                                            [100%]\n13 passed in 0.44s", desc="Run the test suite")
    o.say("Both edge cases are covered; an open pass at the window end is now returned as `(rise, None)`.")
    o.end_turn()

    o.human(user("rename min_elevation to min_elevation_deg everywhere"))
    o.grep("min_elevation\\b", ["src/orbit/passes.py:9:def find_passes(tle, site, start: datetime, days: int = 10, min_elevation: float = 10.0, step_s: int = 60):", "src/orbit/passes.py:11:        return elevation(tle, site, t) >= min_elevation"])
    o.edit("src/orbit/passes.py", "min_elevation", "min_elevation_deg", replace_all=True)
    o.bash("python -m pytest -q", ".............                                                            [100%]\n13 passed in 0.43s", desc="Run the test suite")
    o.say("Renamed (2 occurrences, both in `passes.py`); tests pass.")
    o.end_turn()

    o.human(user("release prep: bump to 0.4.0, date the changelog, commit and tag. don't push."))
    o.edit("pyproject.toml", 'version = "0.4.0.dev0"\n', 'version = "0.4.0"\n')
    o.edit("CHANGELOG.md", "## [Unreleased]\n", "## [Unreleased]\n\n## [0.4.0] - 2026-10-06\n")
    o.bash(
        'git commit -am "Release 0.4.0" && git tag v0.4.0',
        "[main 9b07d5e] Release 0.4.0\n 2 files changed, 3 insertions(+), 1 deletion(-)",
        desc="Commit and tag the release",
    )
    o.say("Committed `9b07d5e` and tagged `v0.4.0` locally. Nothing pushed.")
    o.end_turn()

    o.human(user("what does git log --oneline -5 look like?"))
    o.bash(
        "git log --oneline -5",
        "9b07d5e (HEAD -> main, tag: v0.4.0) Release 0.4.0\n3c2f1aa Validate Doppler against 0.3.2\n"
        "8e11b40 JSON output, ground stations, Doppler\n4e1c2ab Fix UTC epoch parsing, faster pass finder, propagation cache\n"
        "a71d9f3 (origin/main) 0.3.2",
        desc="Show recent history",
    )
    o.say("Four commits ahead of `origin/main`, with `v0.4.0` on `9b07d5e`.")
    o.end_turn()

    # ── day 3 ───────────────────────────────────────────────────────────────────────
    s.at(at(7, 7, 31, 5))
    o.human(user("one more thing before pushing: the README example still shows the old output. refresh it from a real run"))
    o.bash(
        "python -m orbit passes --norad 25544 --date 2026-10-05",
        "2026-10-05 18:03:52  ->  18:09:41\n2026-10-05 19:40:07  ->  19:46:12",
        desc="Produce a fresh README example",
    )
    o.edit(
        "README.md",
        "2026-10-05 19:02:11  ->  19:08:47\n2026-10-05 20:38:40  ->  20:44:02\n",
        "2026-10-05 18:03:52  ->  18:09:41\n2026-10-05 19:40:07  ->  19:46:12\n",
    )
    o.say("The README example now matches a real run (the old one was an hour late).")
    o.end_turn()

    o.human(user("amend that into the release commit and move the tag"))
    o.bash(
        "git commit -a --amend --no-edit && git tag -f v0.4.0",
        "[main 5d8a2e1] Release 0.4.0\n 3 files changed, 5 insertions(+), 3 deletions(-)\nUpdated tag 'v0.4.0' (was 9b07d5e)",
        desc="Amend the release commit and move the tag",
    )
    o.say("Amended into `5d8a2e1`; `v0.4.0` moved there.")
    o.end_turn()

    o.human(user("run the tests on python 3.11 and 3.13 via uv"))
    o.bash("uv run --python 3.11 pytest -q", ".............                                                            [100%]\n13 passed in 0.47s", desc="Tests on Python 3.11")
    o.bash("uv run --python 3.13 pytest -q", ".............                                                            [100%]\n13 passed in 0.41s", desc="Tests on Python 3.13")
    o.say("Green on both 3.11 and 3.13 (13 tests).")
    o.end_turn()

    o.human(user("does the sdist include tests/data? it shouldn't"))
    o.bash("uv build --sdist && tar tzf dist/orbit-0.4.0.tar.gz | grep tests/data", "orbit-0.4.0/tests/data/iss.tle", desc="Inspect the sdist")
    o.edit("pyproject.toml", "[project.scripts]\n", '[tool.hatch.build.targets.sdist]\nexclude = ["tests/data"]\n\n[project.scripts]\n')
    o.bash("rm -rf dist && uv build --sdist && tar tzf dist/orbit-0.4.0.tar.gz | grep -c tests/data", "0", desc="Rebuild and re-check")
    o.say("It did; `tests/data` is now excluded from the sdist (rebuilt and checked: 0 entries).")
    o.end_turn()

    o.human(user("tidy TODO.md: tick what we finished this week"))
    o.read("TODO.md")
    o.write(
        "TODO.md",
        "# TODO\n\n- [x] epoch drift vs heavens-above (ISS ~1h late)\n- [x] pass finder is slow for long windows\n"
        "- [x] cache propagated states\n- [x] JSON output for `orbit passes`\n- [ ] Celestrak rate limiter\n"
        "- [x] ground stations from a config file\n",
    )
    o.say("Ticked five items; only the Celestrak rate limiter is left.")
    o.end_turn()

    o.human(user("write GitHub release notes for 0.4.0 from the changelog"))
    o.read("CHANGELOG.md")
    o.say(
        "## orbit 0.4.0\n\n**Fixed**\n- Passes were up to an hour late: TLE epochs are now parsed as UTC and the "
        "1-based day-of-year is honoured.\n\n**Faster**\n- The pass finder uses a 60 s coarse scan refined by "
        "bisection: a 10-day window takes 0.3 s instead of 4 s.\n- Propagated states are cached in memory "
        "(`ORBIT_CACHE_SIZE`, default 512).\n\n**New**\n- `orbit passes --format json` with Doppler at rise for the "
        "145.800 MHz downlink.\n- Named ground stations from `~/.config/orbit/stations.toml`."
    )
    o.end_turn()

    o.human(user("amend again and move the tag, then we're ready"))
    o.bash(
        "git commit -a --amend --no-edit && git tag -f v0.4.0",
        "[main 0f6c93b] Release 0.4.0\n 5 files changed, 11 insertions(+), 6 deletions(-)\nUpdated tag 'v0.4.0' (was 5d8a2e1)",
        desc="Amend the release commit again",
    )
    o.say("Done: `v0.4.0` is on `0f6c93b`.")
    o.end_turn()

    o.human(user("ok, let's ship it"))
    s.add(last_prompt("ok, let's ship it"))
    # The reply is an AskUserQuestion that CC has not flushed (a single-question AUQ stays in
    # memory until answered): it exists only in the elicitation sidecar. The last bytes on disk
    # are a half-written UserPromptSubmit hook attachment (a live tail).
    last_native = s.now
    ship_id = tool_use_id("orbit-long:ship")
    ship = assistant(
        text("Before I push, one decision:"),
        auq_use(
            [
                {
                    "question": "Where should 0.4.0 be published?",
                    "header": "Publish",
                    "options": [
                        {"label": "TestPyPI first (Recommended)", "description": "Install-test from TestPyPI, then publish to PyPI"},
                        {"label": "PyPI directly", "description": "Push the tag and publish in one go"},
                    ],
                }
            ],
            id=ship_id,
        ),
        model=OPUS,
        msg_id=o.mid(),
    )
    s.wait(11)
    pending_ship = s.stamp(ship, commit=False)
    sidecar_lines.append(elicitation_pending(pending_ship, ship_id))
    tail = s.stamp(
        attachment("hook_success", {"hookName": "UserPromptSubmit", "toolUseID": "UserPromptSubmit", "hookEvent": "UserPromptSubmit", "content": "", "exitCode": 0, "durationMs": 18}),
        commit=False,
    )
    tail["timestamp"] = iso(last_native + timedelta(milliseconds=300))

    lines: list[JsonObj | bytes] = []
    for index, record in enumerate(s.records):
        if index in raw_inserts:
            lines.append(raw_inserts[index])
        lines.append(record)
    lines.append(torn(tail, keep=0.7))
    home.session(ORBIT, ORBIT_LONG, lines)
    home.sidecar(session_path, sidecar_lines)
    return session_path, copied_for_clone


# ── the other sessions ─────────────────────────────────────────────────────────────────


def short_orbit_session(home: ClaudeHome) -> Path:
    s = Session(ORBIT_SHORT, cwd=ORBIT, version="2.1.263", git_branch="main", start=at(7, 14, 10, 0), step=6)
    files = {
        "TODO.md": "# TODO\n\n- [x] epoch drift vs heavens-above (ISS ~1h late)\n- [x] pass finder is slow for long windows\n"
        "- [x] cache propagated states\n- [x] JSON output for `orbit passes`\n- [ ] Celestrak rate limiter\n"
        "- [x] ground stations from a config file\n"
    }
    o = Lane(s, "orbit-short", ORBIT, OPUS, files)
    s.add(permission_mode("acceptEdits"))
    o.human(user("what's left in TODO.md after the 0.4.0 release?"))
    s.add(ai_title("Plan the Celestrak rate limiter issue"))
    o.read("TODO.md")
    o.say("One item: the **Celestrak rate limiter**. Everything else was done for 0.4.0.")
    o.end_turn()
    o.human(user("draft an issue for it in docs/issues/rate-limiter.md: token bucket, 1 request per 2 s, honour Retry-After"))
    o.write(
        "docs/issues/rate-limiter.md",
        "# Rate-limit Celestrak requests\n\nCelestrak asks clients to stay gentle. Add a token bucket (1 request per 2 s) "
        "in `orbit.catalog`, and honour `Retry-After` on 429/503.\n\n## Acceptance\n- refreshing 50 TLEs never exceeds "
        "the rate\n- a 429 with `Retry-After: 30` waits 30 s once, then retries\n",
    )
    o.say("Drafted `docs/issues/rate-limiter.md` with the token bucket, the rate and the `Retry-After` handling.")
    o.end_turn()
    o.human(user("thanks, that's all for today"))
    o.say("You're welcome. 0.4.0 is tagged and the rate limiter is written up for next time.")
    o.end_turn()
    s.add(last_prompt("thanks, that's all for today"))
    return home.session(ORBIT, ORBIT_SHORT, s)


def clone_session(home: ClaudeHome, fork_point: list[JsonObj]) -> Path:
    """A background-job fork: the file starts with records COPIED from the long session at its
    compaction boundary (uuids and timestamps preserved, slug stripped, sessionId rewritten)."""
    copied = []
    for record in fork_point:
        clone = {k: v for k, v in record.items() if k != "slug"}
        clone["sessionId"] = ORBIT_CLONE
        copied.append(clone)
    s = Session(ORBIT_CLONE, cwd=ORBIT, version="2.1.262", git_branch="main", start=at(6, 10, 52, 0), step=5)
    s.adopt(copied)
    o = Lane(s, "orbit-clone", ORBIT, OPUS, {})
    o.human(user("background job: re-run the pass audit for hobart only and write the numbers to docs/validation-hobart.md"))
    o.bash(
        "python -m orbit passes --norad 25544 --station hobart --days 3 --format json | python scripts/compare.py --against 0.3.2 -",
        "passes compared: 12\nmax rise delta: 3590 s (0.3.2 epoch bug)\nafter removing the 1 h offset: max rise delta 1.8 s\nmax doppler delta: +1.1 Hz",
        desc="Audit hobart against 0.3.2",
    )
    o.write(
        "docs/validation-hobart.md",
        "# Validation: hobart (2026-10-06)\n\n12 passes; residual rise delta 1.8 s; Doppler within +1.1 Hz of 0.3.2 "
        "(after the 1 h epoch offset).\n",
    )
    o.say("Hobart agrees with 0.3.2 once the epoch offset is removed: rise within 1.8 s, Doppler within 1.1 Hz. Written to `docs/validation-hobart.md`.")
    o.end_turn()
    return home.session(ORBIT, ORBIT_CLONE, s)


def ledger_session(home: ClaudeHome) -> Path:
    s = Session(LEDGER_SESSION, cwd=LEDGER, version="2.1.263", git_branch="feature/fx-rates", start=at(8, 13, 20, 0), step=5)
    files = {
        "ledger/report.py": "def total(entries):\n    return round(sum(e.amount for e in entries), 2)\n",
        "data/eurofxref.csv": "Date,USD,GBP,CHF\n2026-10-07,1.0931,0.8412,0.9377\n",
    }
    o = Lane(s, "ledger", LEDGER, SONNET, files)
    s.add(permission_mode("default"))
    o.human(user("add EUR to GBP conversion using the ECB daily rates in data/eurofxref.csv"))
    s.add(ai_title("Add FX conversion and fix rounding in ledger_app"))
    o.read("data/eurofxref.csv")
    o.write(
        "ledger/fx.py",
        '"""Convert amounts with the ECB reference rates (EUR base)."""\n\nimport csv\nfrom decimal import Decimal\n\n\n'
        "def load_rates(path):\n    with open(path) as fh:\n        row = list(csv.DictReader(fh))[-1]\n"
        "    return {k: Decimal(v) for k, v in row.items() if k != \"Date\"}\n\n\n"
        "def eur_to(amount, currency, rates):\n    return amount * rates[currency]\n",
    )
    o.bash("cd ledger && python -m pytest -q", "....                                                                     [100%]\n4 passed in 0.12s", desc="Run the ledger tests")
    s.cwd = LEDGER + "/ledger"  # the shell stayed in the subdirectory: later records carry it
    o.say("`ledger/fx.py` loads the latest ECB row and converts with `eur_to(amount, \"GBP\", rates)`.")
    o.end_turn()
    o.human(user("the totals on the march report are off by a penny"))
    o.read("ledger/report.py")
    o.say(
        thinking("round(float_sum, 2) on binary floats: 0.125 style halves round unpredictably."),
        text(
            "`total()` sums binary floats and then calls `round(x, 2)`. Values like 0.125 are not exact in binary, so "
            "halves round either way and the report drifts by a penny. Money should be summed as `Decimal` with an "
            "explicit rounding mode."
        ),
    )
    o.end_turn()
    # CC updated itself between the two sittings: the resumed session writes a newer version
    s.wait(2400)
    s.version = "2.1.264"
    o.human(user("let's fix it on its own branch off main: fix/rounding-half-even"))
    o.bash(
        "git stash && git checkout main && git checkout -b fix/rounding-half-even",
        "Saved working directory and index state WIP on feature/fx-rates: 1d2e3f4 FX rates\nSwitched to branch 'main'\n"
        "Switched to a new branch 'fix/rounding-half-even'",
        desc="Create the fix branch",
    )
    s.git_branch = "fix/rounding-half-even"
    o.say("On `fix/rounding-half-even` (your FX work is stashed on `feature/fx-rates`).")
    o.end_turn()
    o.human(user("use Decimal with ROUND_HALF_EVEN wherever money is summed"))
    o.edit(
        "ledger/report.py",
        "def total(entries):\n    return round(sum(e.amount for e in entries), 2)\n",
        "from decimal import ROUND_HALF_EVEN, Decimal\n\nCENT = Decimal(\"0.01\")\n\n\n"
        "def total(entries):\n    return sum((Decimal(str(e.amount)) for e in entries), Decimal(0)).quantize(CENT, ROUND_HALF_EVEN)\n",
    )
    o.bash("python -m pytest -q", ".....                                                                    [100%]\n5 passed in 0.13s", desc="Run the ledger tests")
    o.say("`total()` now sums `Decimal`s and quantizes to cents with `ROUND_HALF_EVEN`; the March report matches the bank statement.")
    o.end_turn()
    o.human(user("commit it"))
    o.bash(
        'git commit -am "Sum money as Decimal with banker\'s rounding"',
        "[fix/rounding-half-even 8c4d1b2] Sum money as Decimal with banker's rounding\n 1 file changed, 5 insertions(+), 1 deletion(-)",
        desc="Commit the rounding fix",
    )
    o.say("Committed as `8c4d1b2` on `fix/rounding-half-even`.")
    o.end_turn()
    s.add(last_prompt("commit it"))
    return home.session(LEDGER, LEDGER_SESSION, s)


def windows_session(home: ClaudeHome) -> Path:
    s = Session(WINDOWS_SESSION, cwd=WINDOWS, version="2.1.264", git_branch=None, start=at(9, 7, 15, 0), step=6, entrypoint="claude-vscode")
    o = Lane(s, "windows", WINDOWS, SONNET, {}, sep="\\")
    o.human(user("merge the .txt meeting notes in notes\\ into one markdown file, oldest first"))
    s.add(ai_title("Merge meeting notes into one markdown file"))
    o.powershell(
        "Get-ChildItem notes\\*.txt | Sort-Object Name | Select-Object Name, Length",
        "Name              Length\n----              ------\n2026-09-28.txt       812\n2026-10-02.txt      1204\n2026-10-08.txt       655",
        desc="List the meeting notes",
    )
    o.write(
        "notes/meetings.md",
        "# Meetings\n\n## 2026-09-28\n\nKick-off: orbit dashboard scope, owners.\n\n## 2026-10-02\n\nDecided on a thread pool "
        "for propagation; cache must be thread-safe.\n\n## 2026-10-08\n\n0.4.0 released; next: Celestrak rate limiter.\n",
    )
    o.say("Merged the three notes into `notes\\meetings.md`, oldest first.")
    o.end_turn()
    o.human(user("nice, now delete the txt files"))
    rm = o.tid()
    s.add(assistant_split(tool_use("PowerShell", {"command": "Remove-Item notes\\*.txt", "description": "Delete the merged notes"}, id=rm), model=SONNET, msg_id=o.mid()))
    s.wait(20)
    o.human(rejection(rm, "no, move them to notes\\archive instead"))
    o.powershell(
        "New-Item -ItemType Directory -Force notes\\archive | Out-Null; Move-Item notes\\*.txt notes\\archive\\",
        "",
        desc="Archive the merged notes",
    )
    o.say("Moved the three `.txt` files to `notes\\archive\\` instead of deleting them.")
    o.end_turn()
    s.add(last_prompt("nice, now delete the txt files"))
    return home.session(WINDOWS, WINDOWS_SESSION, s)


def sandbox_memory(home: ClaudeHome) -> Path:
    """A project dir with no top-level transcript: only CC's auto-memory files."""
    home.memory(
        SANDBOX,
        "MEMORY.md",
        "# Memory index\n\n- [user_prefs.md](user_prefs.md): Ada prefers uv, pytest -q, and UTC everywhere\n",
    )
    return home.memory(
        SANDBOX,
        "user_prefs.md",
        "---\nname: user_prefs\ndescription: tooling preferences\n---\n\nAda uses uv for environments, runs pytest with -q, "
        "and wants every timestamp in UTC.\n",
    )


def build(out: Path) -> ClaudeHome:
    """Write the whole demo home under ``out`` (previous contents of projects/ and plans/ go)."""
    for sub in ("projects", "plans"):
        shutil.rmtree(out / sub, ignore_errors=True)
    home = ClaudeHome(out)
    _, fork_point = long_orbit_session(home)
    short_orbit_session(home)
    clone_session(home, fork_point)
    ledger_session(home)
    windows_session(home)
    sandbox_memory(home)
    return home


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else ROOT / "fixtures" / "demo-home"
    if out.exists() and any(out.iterdir()) and not (out / "projects").is_dir():
        print(f"refusing to overwrite {out}: it exists and is not a Claude home", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    build(out)
    total = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"wrote {out} ({total / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
