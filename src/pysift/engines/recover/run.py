"""The recover engine entry: scan the scope once for every asked-for file, read the
window account of the other transcripts of every session holding events (a subagent's
``sed -i … *.txt`` never spells the file, so the gate passes it over, yet the session's
window runs through it), then one history per file and session group (SPEC §6.7)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import field

from pysift.disk.fanout import map_ordered
from pysift.disk.layout import Transcript
from pysift.engines.recover.extract import (
    FileScan,
    TargetIndex,
    TranscriptScan,
    account_transcript,
    scan_transcript,
)
from pysift.engines.recover.history import GroupHistory, Window, group_histories
from pysift.engines.recover.target import Target, is_absolute
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


def _account_one(plan: _ScanPlan, item: tuple[Transcript, dict[int, set[str]]]
                 ) -> TranscriptScan:
    transcript, files = item
    return account_transcript(transcript, plan.index, files, turns=plan.turns,
                              lines=plan.lines)


def _families(scans: list[TranscriptScan]) -> dict[int, set[str]]:
    """Target -> the session groups (top-level ids) holding its events."""
    families: dict[int, set[str]] = {}
    for scan in scans:
        for i, found in scan.files.items():
            if found.events:
                families.setdefault(i, set()).add(scan.transcript.parent_session_id)
    return families


def _accounts_wanted(scans: list[TranscriptScan], targets: Sequence[Target],
                     families: dict[int, set[str]]) -> list[tuple[int, dict[int, set[str]]]]:
    """The transcripts whose window account is still owed: each one in the session group
    of a transcript with events of a target while it holds none (a subagent, the main
    transcript of a subagent's edits), with those targets' absolute paths (its Bash calls
    may change them without naming them), or whose opaque commands were never collected.
    The gate skips a transcript that never spells the file; the group's window still
    runs through it."""
    paths: dict[int, set[str]] = {}  # target -> its absolute paths
    for scan in scans:
        for i, found in scan.files.items():
            paths.setdefault(i, set()).update(p for p in found.identities if is_absolute(p))
    for i, target in enumerate(targets):
        if target.absolute:
            paths[i] = {target.norm}
    wanted = []
    for at, scan in enumerate(scans):
        if scan.error:
            continue
        family = scan.transcript.parent_session_id
        mine = [i for i, groups in families.items() if family in groups]
        files = {i: paths[i] for i in mine if paths.get(i)
                 and not (i in scan.files and scan.files[i].events)}
        if files or (mine and not scan.accounted):
            wanted.append((at, files))
    return wanted


def _take_account(scan: TranscriptScan, account: TranscriptScan) -> None:
    for i, found in account.files.items():
        if found.events:
            mine = scan.files.setdefault(i, FileScan())
            mine.events.extend(found.events)
            mine.account = True
    if not scan.accounted:
        scan.opaque = account.opaque
        scan.accounted = True
    if not scan.turn_count:
        scan.turn_count = account.turn_count


def _size(t: Transcript) -> int:
    try:
        return os.stat(t.path).st_size
    except OSError:
        return 0


def run(transcripts: Sequence[Transcript], targets: Sequence[Target], window: Window, *,
        merge: bool = True, progress: Callable[[int, int], None] | None = None,
        turns: bool = True, lines: bool = True) -> ScopeScan:
    """Scan ``transcripts`` for ``targets`` (one file: each transcript gated on its
    basename; several: one structural pass each), read the window account of each other
    transcript of a session holding events, and build their histories (``merge``: a
    session's transcripts into one stream per group). ``progress(done, total)`` is
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
    families = _families(scans)
    wanted = _accounts_wanted(scans, targets, families)
    if wanted:
        accounts: list[TranscriptScan] = map_ordered(
            _account_one, [(items[at], files) for at, files in wanted], shared=plan,
            min_items=FANOUT_MIN_FILES, weights=[sizes[at] for at, _ in wanted])
        for (at, _), account in zip(wanted, accounts, strict=True):
            if account.error:
                scans[at].error = account.error
            else:
                _take_account(scans[at], account)
    warnings = [f"warning: skipped: {s.error}" for s in scans if s.error]
    # target -> the scans that name it, and every transcript of a session holding its
    # events (their opaque commands are that session's window too)
    holding: dict[int, list[TranscriptScan]] = {}
    for scan in scans:
        parent = scan.transcript.parent_session_id
        for i in set(scan.files) | {i for i, groups in families.items() if parent in groups}:
            holding.setdefault(i, []).append(scan)
    files = []
    for i, target in enumerate(targets):
        mine = holding.get(i, [])
        groups, excluded = group_histories(mine, i, window, merge=merge)
        history = FileHistory(target, groups, excluded)
        for scan in mine:
            found = scan.files.get(i)
            if found is not None:
                history.identities |= found.identities
                history.neighbours |= found.neighbours
        files.append(history)
    return ScopeScan(files, sum(s.skipped_lines for s in scans), warnings,
                     sum(1 for s in scans if not s.gated_out and not s.error))
