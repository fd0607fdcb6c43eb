"""What a session changed on disk (``files``, SPEC §6.6): one forward pass per transcript.

Sources, each row carrying its jsonl ``line`` (the tool_use record's line) and instant:

- AUTHORITATIVE: ``Write``/``Edit``/``MultiEdit`` (``input.file_path``) and
  ``NotebookEdit`` (``input.notebook_path``), joined to their tool_result by tool_use id:
  ``toolUseResult.type == "create"`` makes ``is_create``; a result with ``is_error:true``
  (a rejected or cancelled op) never landed and is excluded.
- HEURISTIC: ``Bash`` commands read by ``core.shell`` (operands resolved against the
  tool_use record's own ``cwd``); a command whose result errored keeps its rows, flagged
  ``command_errored`` (which arms of a chain ran is unknowable).
- INFERRED: a settings-family file (``settings.json`` / ``settings.local.json`` under a
  ``.claude`` dir) whose ``file-history-snapshot`` version went up with no tool record of
  it in between: an ``external_write`` row (Claude Code rewrote it in-process).
- BOUNDARIES: a ``File has been modified since read`` error, attributed to the file of
  the structured op it rejected (the op's input names it).

Speed: the transcript is never decoded whole. One Rust-regex pass over the bytes (the
``rurex`` crate: SIMD literal search) finds the only lines that can matter: tool_use
blocks of the five tools, ``"type":"create"`` results, ``"is_error":true`` results, and
lines naming a settings file. A second one finds the lines that are not ``{...}``-framed
(the malformed-line count covers the whole file, as csift's does). Only the first set is
decoded, and only small strings are kept from it (never ``content``/``originalFile``).
The turn map is built only for a transcript whose rows need turn numbers.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache, partial
from typing import Any, NamedTuple

import orjson

from pysift.core import shell
from pysift.core.grammar.pathfilter import PathFilter
from pysift.core.grammar.ranges import RangeSpec
from pysift.core.timez import parse_ts
from pysift.core.turns import TurnMap, build_turn_map
from pysift.disk import fanout
from pysift.disk.layout import Transcript
from pysift.disk.lines import Buffer, count_in
from pysift.disk.mapped import keep_big_reads_on_the_heap, open_buffer
from pysift.errors import SourceError

# -- vocabulary ----------------------------------------------------------------------------------

STRUCTURED_TOOLS = {"Write": "write", "Edit": "edit", "MultiEdit": "multi_edit",
                    "NotebookEdit": "notebook_edit"}
OPS = ("write", "edit", "notebook_edit", "multi_edit", "bash", "external_write")
OP_LABELS = {"write": "write", "edit": "edit", "notebook_edit": "notebook-edit",
             "multi_edit": "multi-edit", "bash": "bash", "external_write": "external write"}
DETAIL_LEVELS = ("summary", "dir", "file", "timeline")
MODIFIED_SINCE_READ = "modified_since_read"
_MODIFIED_PHRASES = ("has been modified since read", "File has been modified")
_SETTINGS_NAMES = ("settings.json", "settings.local.json")


class Mutation(NamedTuple):
    """One change to one path. ``turn`` is filled when the turn map was built (None
    otherwise, and for a line outside turn numbering)."""

    path: str
    op: str
    ts: str | None
    line: int
    is_create: bool
    heuristic: bool
    resolution: str | None
    path_verbatim: str | None
    command_errored: bool
    detail: str | None
    turn: int | None = None


class Boundary(NamedTuple):
    """An Edit-before-Read boundary: the harness refused an op on ``path`` because the
    file changed outside the tool stream. ``line``/``ts`` are the error result's."""

    path: str
    line: int
    ts: str | None
    cause: str
    turn: int | None = None


@dataclass(slots=True)
class TranscriptFiles:
    """One transcript's rows (in line order) and what its scan had to skip."""

    transcript: Transcript
    mutations: list[Mutation] = field(default_factory=list)
    boundaries: list[Boundary] = field(default_factory=list)
    skipped_lines: int = 0
    turn_count: int | None = None
    error: str | None = None


# -- the byte scan ----------------------------------------------------------------------------------

# One alternation, searched by the Rust regex crate over the file's bytes.
_CANDIDATE_SOURCE = (
    rb'"name":[ \t]*"(?:Bash|Edit|Write|MultiEdit|NotebookEdit)"'
    rb'|"type":[ \t]*"create"'
    rb'|"is_error":[ \t]*true'
    rb'|settings(?:\.local)?\.json'
)
# A newline whose line does not end in `}` (CR allowed), or after which a line does not
# start with `{`: where the not-{...}-framed lines can be. Blank lines also show up here
# and are told apart in Python.
_UNFRAMED_SOURCE = rb"[^}\r\n][ \t\r]*\n|\n[ \t]*[^{\n \t]"
# Files up to this size are read whole into bytes (the crate reads bytes in place and
# copies anything else); a bigger one is mapped and searched in slices of _CHUNK.
READ_WHOLE_BYTES = 512 << 20
_CHUNK = 16 << 20

_compiled: tuple[Any, Any, Any] | None = None


def _patterns() -> tuple[Any, Any, Any]:
    global _compiled
    if _compiled is None:
        import rurex

        _compiled = (rurex.compile(_CANDIDATE_SOURCE), rurex.compile(_UNFRAMED_SOURCE),
                     rurex.compile(rb"\n"))
    return _compiled


def _chunks(buf: Buffer) -> Iterator[tuple[int, bytes]]:
    """``(offset, bytes)`` slices of the buffer ending at newlines: the whole of a
    ``bytes`` buffer, copies of an mmap's slices."""
    if isinstance(buf, bytes):
        yield 0, buf
        return
    size = len(buf)
    pos = 0
    while pos < size:
        cut = buf.find(b"\n", pos + _CHUNK - 1) if pos + _CHUNK < size else -1
        end = size if cut < 0 else cut + 1
        yield pos, buf[pos:end]
        pos = end


def newline_counter(buf: Buffer) -> Callable[[int, int], int]:
    """``count(start, end)``: the newlines in ``buf[start:end]`` (the crate's SIMD search
    on bytes, several times faster than ``bytes.count``)."""
    if isinstance(buf, bytes):
        findall = _patterns()[2].findall
        return lambda start, end: len(findall(buf, start, end))
    return lambda start, end: count_in(buf, b"\n", start, end)


def _framed(line: bytes) -> bool:
    stripped = line.strip()
    return not stripped or (stripped[:1] == b"{" and stripped[-1:] == b"}")


def scan_bytes(buf: Buffer) -> tuple[list[tuple[int, int, bool]], int]:
    """The candidate lines ``(start, end, is_tool_use)`` in file order (``is_tool_use``:
    the line names one of the five tools; the others are results and snapshots), and the
    count of non-blank lines that are not ``{...}``-framed."""
    candidates, unframed, _ = _patterns()
    spans: list[tuple[int, int, bool]] = []
    suspects: set[int] = {0}
    last = -1
    rfind, find, size = buf.rfind, buf.find, len(buf)
    for offset, chunk in _chunks(buf):
        for match in candidates.finditer(chunk):
            at = offset + match.start()
            tool = chunk[match.start():match.start() + 2] == b'"n'
            if at < last:
                if tool and not spans[-1][2]:
                    spans[-1] = (spans[-1][0], spans[-1][1], True)
                continue
            start = rfind(b"\n", 0, at) + 1
            nl = find(b"\n", at)
            end = size if nl < 0 else nl
            spans.append((start, end, tool))
            last = end
        suspects.add(offset)  # a chunk's first line: its leading newline is in the last chunk
        for match in unframed.finditer(chunk):
            at = offset + match.start()
            if chunk[match.start():match.start() + 1] == b"\n":
                suspects.add(at + 1)
            else:
                suspects.add(rfind(b"\n", 0, at) + 1)
    malformed = 0
    for start in suspects:
        if start >= size:
            continue
        nl = find(b"\n", start)
        if not _framed(buf[start:size if nl < 0 else nl]):
            malformed += 1
    return spans, malformed


# -- decoding the candidates -------------------------------------------------------------------------


class _Facts:
    """What the candidate lines of one transcript say, before the joins."""

    __slots__ = ("bash", "boundary_ids", "creates", "failed", "snapshots", "structured")

    def __init__(self) -> None:
        # (tool_use_id, op, path, line, ts)
        self.structured: list[tuple[str | None, str, str, int, str | None]] = []
        # (tool_use_id, command, cwd, line, ts)
        self.bash: list[tuple[str | None, str, str | None, int, str | None]] = []
        self.creates: dict[str, str] = {}  # tool_use_id -> filePath of a create result
        self.failed: set[str] = set()
        self.boundary_ids: list[tuple[str, int, str | None]] = []  # (id, line, ts)
        # settings-family snapshot entries: (path, version, line, ts)
        self.snapshots: list[tuple[str, int, int, str | None]] = []


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _result_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content
                         if isinstance(b, dict) and isinstance(b.get("text"), str))
    return ""


def _settings_family(path: str) -> bool:
    parts = path.replace("\\", "/").rsplit("/", 2)
    return len(parts) >= 2 and parts[-1] in _SETTINGS_NAMES and parts[-2] == ".claude"


def _read_record(obj: dict[str, Any], line: int, facts: _Facts) -> None:
    ts = _str(obj.get("timestamp"))
    kind = obj.get("type")
    if kind == "file-history-snapshot":
        snap = obj.get("snapshot")
        tracked = snap.get("trackedFileBackups") if isinstance(snap, dict) else None
        if isinstance(tracked, dict):
            snap_ts = _str(snap.get("timestamp")) or ts
            for path, entry in tracked.items():
                version = entry.get("version") if isinstance(entry, dict) else None
                if (_settings_family(path) and isinstance(version, int)
                        and not isinstance(version, bool)):
                    facts.snapshots.append((path, version, line, snap_ts))
        return
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return
    result_ids: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype == "tool_use":
            name = block.get("name")
            tool_id = _str(block.get("id"))
            args = block.get("input")
            if not isinstance(args, dict):
                args = {}
            op = STRUCTURED_TOOLS.get(name) if isinstance(name, str) else None
            if op is not None:
                key = "notebook_path" if name == "NotebookEdit" else "file_path"
                path = _str(args.get(key)) or _str(args.get("file_path")) or ""
                facts.structured.append((tool_id, op, path, line, ts))
            elif name == "Bash":
                command = args.get("command")
                if isinstance(command, str):
                    facts.bash.append((tool_id, command, _str(obj.get("cwd")), line, ts))
        elif btype == "tool_result":
            tool_id = _str(block.get("tool_use_id"))
            if tool_id is None:
                continue
            result_ids.append(tool_id)
            if block.get("is_error") is True:
                facts.failed.add(tool_id)
                text = _result_text(block.get("content"))
                if any(phrase in text for phrase in _MODIFIED_PHRASES):
                    facts.boundary_ids.append((tool_id, line, ts))
    echo = obj.get("toolUseResult")
    if result_ids and isinstance(echo, dict) and echo.get("type") == "create":
        facts.creates[result_ids[0]] = _str(echo.get("filePath")) or ""


_RESULT_ID_KEYS = (b'"tool_use_id":"', b'"tool_use_id": "')
_OPEN_BRACE, _CLOSE_BRACE = 0x7B, 0x7D
_TRAILING = b" \t\r"


def _result_ids(buf: Buffer, start: int, end: int) -> list[str] | None:
    """The ``tool_use_id`` values of a result line read off its bytes (a raw, unescaped
    ``"tool_use_id":"`` is always a key: inside a string its quotes are escaped), or
    None when they cannot be read that way (the line is then decoded)."""
    ids: list[str] = []
    find = buf.find
    for key in _RESULT_ID_KEYS:
        pos = find(key, start, end)
        while pos >= 0:
            value = pos + len(key)
            close = find(b'"', value, end)
            if close < 0:
                return None
            raw = buf[value:close]
            if b"\\" in raw:
                return None
            ids.append(raw.decode("utf-8", "replace"))
            pos = find(key, close, end)
    return ids or None


def _decode_candidates(buf: Buffer, spans: list[tuple[int, int, bool]]) -> tuple[_Facts, int]:
    """Decode the candidate lines, tool_use lines first; a result line answering only
    calls of other tools (a failed Read, a Grep) is passed over undecoded. Also counts
    the decoded lines that are framed but no JSON object (an unframed one is counted by
    the shape pass; a line passed over is shape-checked only, as every other line)."""
    from pysift.disk.jsonline import refused_by_orjson

    facts = _Facts()
    bad = 0
    count = newline_counter(buf)
    view = memoryview(buf)
    loads, error = orjson.loads, orjson.JSONDecodeError
    size = len(buf)

    def read(start: int, end: int, line: int) -> None:
        nonlocal bad
        while end > start and buf[end - 1] in _TRAILING:
            end -= 1
        if end <= start or buf[start] != _OPEN_BRACE or buf[end - 1] != _CLOSE_BRACE:
            return  # unframed (leading blanks too): the shape pass counted it
        try:
            obj = loads(view[start:end])
        except error as refused:
            try:  # a lone surrogate escape: the stdlib reads it
                obj = refused_by_orjson(bytes(view[start:end]), refused)
            except error:
                bad += 1
                return
        if not isinstance(obj, dict):
            bad += 1
            return
        _read_record(obj, line, facts)

    tool_starts: list[int] = []
    tool_lines: list[int] = []
    newlines, counted = 0, 0
    for start, end, tool in spans:
        if not tool:
            continue
        newlines += count(counted, start)
        counted = start
        tool_starts.append(start)
        tool_lines.append(newlines + 1)
        read(start, min(end, size), newlines + 1)
    known = {t for t, *_ in facts.structured if t is not None}
    known.update(t for t, *_ in facts.bash if t is not None)
    for start, end, tool in spans:
        if tool:
            continue
        ids = _result_ids(buf, start, end)
        if ids is not None and known.isdisjoint(ids):
            continue
        at = bisect_right(tool_starts, start) - 1
        base, line = (tool_starts[at], tool_lines[at]) if at >= 0 else (0, 1)
        read(start, end, line + count(base, start))
    return facts, bad


# -- the joins ---------------------------------------------------------------------------------------


def _paths_match(a: str, b: str) -> bool:
    if a == b:
        return True
    a2, b2 = a.replace("\\", "/"), b.replace("\\", "/")
    return a2.endswith("/" + b2) or b2.endswith("/" + a2)


def join_facts(facts: _Facts) -> tuple[list[Mutation], list[Boundary]]:
    """Rows from one transcript's facts: structured ops joined to their results, bash
    commands read, settings-family snapshot jumps, boundaries attributed."""
    rows: list[Mutation] = []
    op_paths: dict[str, str] = {}
    for tool_id, op, path, line, ts in facts.structured:
        if tool_id is not None and path:
            op_paths.setdefault(tool_id, path)
        if tool_id is not None and tool_id in facts.failed:
            continue
        created = tool_id is not None and tool_id in facts.creates
        if not path and created:
            path = facts.creates.get(tool_id or "", "")
        if not path:
            continue
        rows.append(Mutation(path, op, ts, line, created, False, None, None, False, None))
    for tool_id, command, cwd, line, ts in facts.bash:
        errored = tool_id is not None and tool_id in facts.failed
        for m in shell.mutations(command, cwd):
            rows.append(Mutation(
                m.path, "bash", ts, line, m.is_create, True, m.resolution,
                m.verbatim if m.verbatim != m.path else None, errored, None))
    rows.extend(_external_writes(facts.snapshots, rows))
    rows.sort(key=lambda m: m.line)
    boundaries = [Boundary(op_paths[tool_id], line, ts, MODIFIED_SINCE_READ)
                  for tool_id, line, ts in facts.boundary_ids if tool_id in op_paths]
    return rows, boundaries


def _external_writes(snapshots: list[tuple[str, int, int, str | None]],
                     rows: list[Mutation]) -> list[Mutation]:
    """A settings-family version bump with no tool row of that path in between. A
    DECREASE starts a new generation (Claude Code restarted): never read as a jump."""
    by_path: dict[str, list[tuple[int, int, str | None]]] = {}
    for path, version, line, ts in snapshots:
        by_path.setdefault(path, []).append((line, version, ts))
    out: list[Mutation] = []
    for path, seq in sorted(by_path.items()):
        prev: tuple[int, int] | None = None
        for line, version, ts in seq:
            if prev is not None and version > prev[1]:
                touched = any(prev[0] < m.line <= line and _paths_match(path, m.path)
                              for m in rows)
                if not touched:
                    detail = (f"inferred: file-history v{prev[1]}->v{version} with no tool "
                              f"record in L{prev[0]}..L{line}")
                    out.append(Mutation(path, "external_write", ts, line, False, False, None,
                                        None, False, detail))
            prev = (line, version)
    return out


# -- one transcript -----------------------------------------------------------------------------------


def transcript_mutations(transcript: Transcript, *, turns: bool = False) -> TranscriptFiles:
    """The rows of ONE transcript, unwindowed (``agents --with-files`` and ``files``).
    ``turns``: number every row's turn (also done when the transcript has boundaries,
    which always show their turn). A file that cannot be read gives ``error``."""
    result = TranscriptFiles(transcript)
    keep_big_reads_on_the_heap()
    try:
        buf = open_buffer(transcript.path, read_up_to=READ_WHOLE_BYTES)
    except SourceError as exc:
        result.error = str(exc)
        return result
    spans, unframed = scan_bytes(buf)
    facts, bad = _decode_candidates(buf, spans)
    result.skipped_lines = unframed + bad
    rows, boundaries = join_facts(facts)
    if (turns or boundaries) and (rows or boundaries):
        turn_map = build_turn_map(buf)
        result.turn_count = turn_map.turn_count
        rows = [m._replace(turn=turn_map.turn_of(m.line)) for m in rows]
        boundaries = [b._replace(turn=turn_map.turn_of(b.line)) for b in boundaries]
    result.mutations = rows
    result.boundaries = boundaries
    return result


# -- a scope, windowed -------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class FilesPlan:
    """What to keep: rows inside the time window (a row with no timestamp never falls
    inside a bounded one) AND the turn window (turns numbered over the whole transcript)
    AND the path filters; ``by`` says whether every row needs its turn number."""

    by: str = "summary"
    since: datetime | None = None
    until: datetime | None = None
    turns: RangeSpec | None = None
    paths: PathFilter = field(default_factory=PathFilter)

    @property
    def timed(self) -> bool:
        return self.since is not None or self.until is not None

    def admits_ts(self, raw: str | None) -> bool:
        if not self.timed:
            return True
        instant = parse_ts(raw)
        if instant is None:
            return False
        if self.since is not None and instant < self.since:
            return False
        return self.until is None or instant <= self.until


def _windowed(found: TranscriptFiles, plan: FilesPlan) -> TranscriptFiles:
    allowed: set[int] | None = None
    if plan.turns is not None:
        count = found.turn_count or 0
        allowed = set(plan.turns.resolve(0, count - 1)) if count else set()

    def keep(path: str, ts: str | None, turn: int | None) -> bool:
        if allowed is not None and (turn is None or turn not in allowed):
            return False
        return plan.admits_ts(ts) and plan.paths.keeps(path)

    found.mutations = [m for m in found.mutations if keep(m.path, m.ts, m.turn)]
    found.boundaries = [b for b in found.boundaries if keep(b.path, b.ts, b.turn)]
    return found


def _work(plan: FilesPlan, transcript: Transcript) -> tuple[Any, ...] | None:
    """One transcript's windowed rows, as plain tuples (None when it has nothing to say):
    the answer crosses a process boundary, and the parent holds the transcript."""
    found = transcript_mutations(transcript, turns=plan.turns is not None
                                 or plan.by == "timeline")
    if found.error is None:
        found = _windowed(found, plan)
    if not (found.mutations or found.boundaries or found.skipped_lines or found.error):
        return None
    return ([tuple(m) for m in found.mutations], [tuple(b) for b in found.boundaries],
            found.skipped_lines, found.turn_count, found.error)


def _size(transcript: Transcript) -> int:
    try:
        return transcript.path.stat().st_size
    except OSError:
        return 0


def run(transcripts: Sequence[Transcript], plan: FilesPlan,
        workers: int | None = None) -> list[TranscriptFiles]:
    """Every transcript's windowed rows, in input order (a fork pool when there are
    many; a transcript that cannot be read comes back with ``error``)."""
    keep_big_reads_on_the_heap()  # before the fork: every worker inherits it
    answers = fanout.map_ordered(partial(_work, plan), list(transcripts), workers=workers,
                                 min_items=8, weights=[_size(t) for t in transcripts])
    out: list[TranscriptFiles] = []
    for transcript, answer in zip(transcripts, answers):
        if answer is None:
            out.append(TranscriptFiles(transcript))
            continue
        rows, bounds, skipped, turn_count, error = answer
        out.append(TranscriptFiles(transcript, [Mutation(*r) for r in rows],
                                   [Boundary(*b) for b in bounds], skipped, turn_count, error))
    return out


# -- rollups -------------------------------------------------------------------------------------------


def is_marker(path: str) -> bool:
    return shell.is_marker(path)


def parent_dir(path: str) -> str:
    """A path's directory, lexically (``/`` and ``\\`` both separate): ``./`` for a bare
    name, the marker's class head (``git:``) for a class marker."""
    if is_marker(path):
        return path.split(":", 1)[0] + ":"
    trimmed = path.rstrip("/\\") or path
    cut = max(trimmed.rfind("/"), trimmed.rfind("\\"))
    if cut < 0:
        return "./"
    if cut == 0:
        return trimmed[0]
    head = trimmed[:cut]
    if len(head) == 2 and head[1] == ":" and head[0].isalpha():
        return head + trimmed[cut]  # `C:\x` -> `C:\`
    return head


KEYS: dict[str, Callable[[str], str]] = {
    "summary": parent_dir,
    "dir": parent_dir,
    "file": lambda path: path,
}


_CANONICAL_TS_LEN = 24  # 2026-01-05T10:00:00.000Z: Claude Code's own shape
_NO_COUNTS = dict.fromkeys(OPS, 0)


class Group:
    """Per-op counts for one bucket, directory or file of one transcript; the first and
    last instant are kept as the rows are added (string order while every stamp has
    Claude Code's own shape, by instant once one does not)."""

    __slots__ = ("counts", "files", "first_ts", "last_ts", "odd", "path")

    def __init__(self, path: str) -> None:
        self.path = path
        self.counts = _NO_COUNTS.copy()
        self.files: set[str] = set()
        self.first_ts: str | None = None
        self.last_ts: str | None = None
        self.odd: list[str] | None = None  # every stamp, once one is not canonical

    def add_stamp(self, ts: str) -> None:
        if self.odd is not None or len(ts) != _CANONICAL_TS_LEN or ts[-1] != "Z":
            if self.odd is None:
                self.odd = [s for s in (self.first_ts, self.last_ts) if s]
            self.odd.append(ts)
            self.first_ts, self.last_ts = span_of(self.odd)
            return
        if self.first_ts is None or ts < self.first_ts:
            self.first_ts = ts
        if self.last_ts is None or ts > self.last_ts:
            self.last_ts = ts

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def distinct_files(self) -> int:
        return len(self.files)

    def ops_label(self) -> str:
        return _ops_label(tuple(self.counts.values()))


def ops_label(counts: dict[str, int]) -> str:
    """``12 write, 3 edit, 2 bash (heuristic)``; ``0`` when empty."""
    return _ops_label(tuple(counts.get(op, 0) for op in OPS))


@lru_cache(maxsize=4096)
def _ops_label(counts: tuple[int, ...]) -> str:
    parts = []
    for op, n in zip(OPS, counts, strict=True):
        if not n:
            continue
        suffix = " (heuristic)" if op == "bash" else " (inferred)" if op == "external_write" else ""
        parts.append(f"{n} {OP_LABELS[op]}{suffix}")
    return ", ".join(parts) or "0"


def span_of(stamps: Iterable[str]) -> tuple[str | None, str | None]:
    """Earliest and latest timestamp, as written; by instant when one is not in Claude
    Code's own shape (string order would misplace it)."""
    written = [s for s in stamps if s]
    if not written:
        return None, None
    if all(len(s) == 24 and s.endswith("Z") for s in written):
        return min(written), max(written)
    dated = [(when, s) for s in written if (when := parse_ts(s)) is not None]
    if not dated:
        return None, None
    return min(dated)[1], max(dated)[1]


def groups(rows: Iterable[Mutation], by: str) -> list[Group]:
    """One transcript's rows grouped by ``by`` (summary/dir/file), keys sorted."""
    key = KEYS[by]
    found: dict[str, Group] = {}
    for m in rows:
        k = key(m.path)
        group = found.get(k)
        if group is None:
            group = found[k] = Group(k)
        group.counts[m.op] += 1
        if not is_marker(m.path):
            group.files.add(m.path)
        if m.ts:
            group.add_stamp(m.ts)
    return [found[k] for k in sorted(found)]


def timeline(rows: Iterable[Mutation]) -> list[Mutation]:
    """Chronological: by instant (rows with none last), then by line."""
    def order(m: Mutation) -> tuple[bool, float, int]:
        when = parse_ts(m.ts)
        return (when is None, when.timestamp() if when is not None else 0.0, m.line)

    return sorted(rows, key=order)


def distinct_files(found: Iterable[TranscriptFiles]) -> int:
    """Distinct paths over every row (class markers are no file)."""
    return len({m.path for t in found for m in t.mutations if not is_marker(m.path)})

