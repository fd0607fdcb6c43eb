"""The recover engine entry: scan the scope once for every asked-for file, then one
history per file and session group (SPEC §6.7)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import field

from pysift.disk.fanout import map_ordered
from pysift.disk.layout import Transcript
from pysift.engines.recover.extract import TargetIndex, TranscriptScan, scan_transcript
from pysift.engines.recover.history import GroupHistory, Window, group_histories
from pysift.engines.recover.target import Target
from pysift.model.fastdata import dataclass

#: below this many transcripts the scan stays in-process
FANOUT_MIN_FILES = 8
#: a scan that reports progress runs in this many slices (each spread over the cores)
PROGRESS_SLICES = 20


@dataclass
class FileHistory:
    """Everything the scope holds about one asked-for file."""

    target: Target
    groups: list[GroupHistory]
    excluded: int  # integrity-relevant events the window left out
    identities: set[str] = field(default_factory=set)  # distinct recorded files matched
    neighbours: set[str] = field(default_factory=set)  # other files with its basename


@dataclass
class ScopeScan:
    files: list[FileHistory]
    skipped_lines: int
    warnings: list[str]
    transcripts: int  # read (not gated out)


@dataclass(frozen=True)
class _ScanPlan:
    """What every transcript's scan shares (handed to each call, never a module global)."""

    index: TargetIndex
    gate: Target | None
    turns: bool
    lines: bool


def _scan_one(plan: _ScanPlan, transcript: Transcript) -> TranscriptScan:
    return scan_transcript(transcript, plan.index, gate=plan.gate, turns=plan.turns,
                           lines=plan.lines)


def _size(t: Transcript) -> int:
    try:
        return os.stat(t.path).st_size
    except OSError:
        return 0


def run(transcripts: Sequence[Transcript], targets: Sequence[Target], window: Window, *,
        merge: bool = True, progress: Callable[[int, int], None] | None = None,
        turns: bool = True, lines: bool = True) -> ScopeScan:
    """Scan ``transcripts`` for ``targets`` (one file: each transcript gated on its
    basename; several: one structural pass each) and build their histories (``merge``:
    a session's transcripts into one stream per group). ``progress(done, total)`` is
    called between slices of the scan when given; without ``turns`` (and no turn
    window) the events carry no turn index, without ``lines`` no jsonl line number."""
    index = TargetIndex(targets)
    gate = targets[0] if len(targets) == 1 else None
    plan = _ScanPlan(index, gate, turns or window.turns is not None, lines)
    items = list(transcripts)
    sizes = [_size(t) for t in items]
    if progress is None:
        scans: list[TranscriptScan] = map_ordered(_scan_one, items, shared=plan,
                                                  min_items=FANOUT_MIN_FILES, weights=sizes)
    else:
        scans = []
        step = max(FANOUT_MIN_FILES, len(items) // PROGRESS_SLICES)
        for at in range(0, len(items), step):
            scans += map_ordered(_scan_one, items[at:at + step], shared=plan,
                                 min_items=FANOUT_MIN_FILES, weights=sizes[at:at + step])
            progress(min(at + step, len(items)), len(items))
    warnings = [f"warning: skipped: {s.error}" for s in scans if s.error]
    holding: dict[int, list[TranscriptScan]] = {}  # target -> the scans that name it
    for scan in scans:
        for i in scan.files:
            holding.setdefault(i, []).append(scan)
    files = []
    for i, target in enumerate(targets):
        mine = holding.get(i, [])
        groups, excluded = group_histories(mine, i, window, merge=merge)
        history = FileHistory(target, groups, excluded)
        for scan in mine:
            found = scan.files[i]
            history.identities |= found.identities
            history.neighbours |= found.neighbours
        files.append(history)
    return ScopeScan(files, sum(s.skipped_lines for s in scans), warnings,
                     sum(1 for s in scans if not s.gated_out and not s.error))
