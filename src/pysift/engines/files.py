"""What a session changed on disk (``files``, SPEC §6.6): one forward pass per transcript.

Sources, each row carrying its record's instant and jsonl ``line`` (the tool_use record's
line; counted only when the answer shows it):

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

Speed: the transcript is read whole into ``bytes`` (the Rust regex crate reads bytes in
place; an mmap it copies) and never decoded whole. One Rust-regex pass (``rurex``: SIMD
literal search) finds the only lines that can matter: tool_use blocks of the five tools,
``"type":"create"`` results, ``"is_error":true`` results, and lines naming a settings
file; for a Bash call in Claude Code's key order it also yields the command, and a
command that changes nothing (``ls``, ``git status``, a test run) is never decoded. A
second pass finds the lines that are not ``{...}``-framed (the malformed-line count
covers the whole file, as csift's does). Calls are decoded first; a result line is
decoded only when it answers one of them. Only small strings are kept (never
``content``/``originalFile``); line numbers and the turn map are computed only for an
answer that shows them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import field
from functools import lru_cache, partial
from typing import Any, NamedTuple

import orjson

from pysift.core import shell
from pysift.core.blocktext import result_text
from pysift.core.grammar.pathfilter import PathFilter
from pysift.core.timez import all_in_cc_shape, in_cc_shape, parse_ts
from pysift.core.turns import build_turn_map
from pysift.disk import fanout
from pysift.disk.layout import Transcript, is_windows_rooted, windows_identity
from pysift.disk.lines import Buffer, count_in
from pysift.disk.mapped import keep_big_reads_on_the_heap, open_buffer
from pysift.engines.stats import Window, split_points
from pysift.errors import SourceError
from pysift.model.fastdata import dataclass

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
    """One change to one path. ``line`` (the jsonl line of the tool_use record) and
    ``turn`` are filled when asked for (None otherwise; ``turn`` is also None for a line
    outside turn numbering); ``offset`` is where that record's line starts."""

    path: str
    op: str
    ts: str | None
    line: int | None
    is_create: bool
    heuristic: bool
    resolution: str | None
    path_verbatim: str | None
    command_errored: bool
    detail: str | None
    turn: int | None = None
    offset: int = 0


class Boundary(NamedTuple):
    """An Edit-before-Read boundary: the harness refused an op on ``path`` because the
    file changed outside the tool stream. ``line``/``offset`` are the error result's
    (always numbered); ``ts`` and ``turn`` are the refused call's, as ``recover`` times
    its events (decided, twenty-second session), at ``call_offset``."""

    path: str
    line: int | None
    ts: str | None
    cause: str
    turn: int | None = None
    offset: int = 0
    call_offset: int = -1


@dataclass(slots=True)
class TranscriptFiles:
    """One transcript's rows (in line order) and what its scan had to skip."""

    transcript: Transcript
    mutations: list[Mutation] = field(default_factory=list)
    boundaries: list[Boundary] = field(default_factory=list)
    skipped_lines: int = 0
    turn_count: int | None = None
    error: str | None = None
    # PowerShell calls (never read: only Bash commands are): (offset, ts, turn) each, the
    # windowed count once a plan applies
    powershell: list[tuple[int, str | None, int | None]] = field(default_factory=list)


# -- the byte scan ----------------------------------------------------------------------------------

# One alternation, searched by the Rust regex crate over the file's bytes.
# A Bash call written in Claude Code's key order also yields its command's JSON string
# (group 1): a call whose command changes nothing is never decoded.
_CANDIDATE_SOURCE = (
    rb'"name":[ \t]*"(?:Bash"(?:,[ \t]*"input":[ \t]*\{[ \t]*"command":[ \t]*'
    rb'("(?:[^"\\]|\\.)*"))?|Edit"|Write"|MultiEdit"|NotebookEdit"|PowerShell")'
    rb'|"type":[ \t]*"create"'
    rb'|"is_error":[ \t]*true'
    rb'|settings(?:\.local)?\.json'
)
# What a candidate line holds: a result or snapshot, a tool call, or only a Bash call
# whose command changes nothing (and no other match: no error or create result that
# could answer another call).
RESULT, CALL, INERT_CALL = 0, 1, 2
_N, _NEWLINE = ord("n"), ord("\n")
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


def _chunks(buf: Buffer, lo: int, hi: int) -> Iterator[tuple[int, bytes, int, int]]:
    """``(offset, data, start, end)``: where to search ``buf[lo:hi]`` (``lo`` at a line
    start, ``hi`` after a newline or at the end): in a ``bytes`` buffer itself (the crate
    takes the range, no copy), in an mmap through copies of newline-ended slices. A
    position ``p`` found in ``data`` is ``offset + p`` in the buffer."""
    if isinstance(buf, bytes):
        yield 0, buf, lo, hi
        return
    pos = lo
    while pos < hi:
        cut = buf.find(b"\n", pos + _CHUNK - 1, hi) if pos + _CHUNK < hi else -1
        end = hi if cut < 0 else cut + 1
        data = buf[pos:end]
        yield pos, data, 0, len(data)
        pos = end


def newline_counter(buf: Buffer) -> Callable[[int, int], int]:
    """``count(start, end)``: the newlines in ``buf[start:end]`` (the crate's SIMD search
    on bytes, several times faster than ``bytes.count``)."""
    if isinstance(buf, bytes):
        findall = _patterns()[2].findall
        return lambda start, end: len(findall(buf, start, end))
    return lambda start, end: count_in(buf, b"\n", start, end)


_BLANKS = b" \t\r\n"  # what the record decoder (core.decode) strips around a line


def _framed(line: bytes) -> bool:
    stripped = line.strip(_BLANKS)
    return not stripped or (stripped[:1] == b"{" and stripped[-1:] == b"}")


_INERT: dict[bytes, bool] = {}  # a command's JSON string -> it changes nothing


def _inert_bash(match: Any) -> bool:
    """The match is a Bash call whose command, read off the bytes, changes nothing."""
    raw = match.group(1)
    if raw is None:
        return False
    known = _INERT.get(raw)
    if known is None:
        try:
            command = orjson.loads(raw)
        except orjson.JSONDecodeError:
            command = None
        known = _INERT[raw] = isinstance(command, str) and shell.changes_nothing(command)
        if len(_INERT) > 65536:  # a corpus of one-off commands: keep memory bounded
            _INERT.clear()
    return known


def scan_bytes(buf: Buffer, lo: int = 0, hi: int | None = None
               ) -> tuple[list[tuple[int, int, int]], int]:
    """The candidate lines of ``buf[lo:hi]`` as ``(start, end, kind)`` in file order
    (``kind``: RESULT, CALL, or INERT_CALL for a line whose one tool call is a Bash
    command that changes nothing), and the count of its non-blank lines that are not
    ``{...}``-framed. ``lo`` is a line start, ``hi`` the end or just after a newline."""
    candidates, unframed, _ = _patterns()
    size = len(buf)
    stop = size if hi is None else hi
    spans: list[tuple[int, int, int]] = []
    suspects: set[int] = {lo}
    last = -1
    rfind, find = buf.rfind, buf.find
    for offset, data, start_at, end_at in _chunks(buf, lo, stop):
        for match in candidates.finditer(data, start_at, end_at):
            here = match.start()
            at = offset + here
            call = data[here + 1] == _N  # `"name"...`: a tool call
            if at < last:  # another match on the same line: decode it whole
                if call or spans[-1][2] == INERT_CALL:
                    spans[-1] = (spans[-1][0], spans[-1][1], CALL)
                continue
            start = rfind(b"\n", 0, at) + 1
            nl = find(b"\n", at, stop)
            end = stop if nl < 0 else nl
            spans.append((start, end, (INERT_CALL if _inert_bash(match) else CALL) if call
                          else RESULT))
            last = end
        suspects.add(offset + start_at)  # a slice's first line: its newline is before it
        # the last line when no newline ends it (a torn write): the patterns miss it
        suspects.add(offset + max(data.rfind(b"\n", start_at, end_at) + 1, start_at))
        for match in unframed.finditer(data, start_at, end_at):
            here = match.start()
            if data[here] == _NEWLINE:
                suspects.add(offset + here + 1)
            else:
                suspects.add(rfind(b"\n", 0, offset + here) + 1)
                # the match took the newline the next line's own start test needs (the
                # matches never overlap): the next line is a suspect too
                suspects.add(offset + match.end())
    malformed = 0
    for start in suspects:
        if start >= stop:
            continue
        nl = find(b"\n", start, stop)
        if not _framed(buf[start:stop if nl < 0 else nl]):
            malformed += 1
    return spans, malformed


# -- decoding the candidates -------------------------------------------------------------------------


class _Facts:
    """What the candidate lines of one transcript say, before the joins."""

    __slots__ = ("bash", "boundary_ids", "creates", "failed", "powershell", "snapshots",
                 "structured")

    def __init__(self) -> None:
        # (tool_use_id, op, path, offset, ts): offset = where the record's line starts
        # (tool_use id, op, path, offset, ts, the call record's cwd)
        self.structured: list[tuple[str | None, str, str, int, str | None, str | None]] = []
        # (tool_use_id, command, cwd, offset, ts)
        self.bash: list[tuple[str | None, str, str | None, int, str | None]] = []
        self.creates: dict[str, str] = {}  # tool_use_id -> filePath of a create result
        self.failed: set[str] = set()
        self.boundary_ids: list[tuple[str, int, str | None]] = []  # (id, offset, ts)
        # settings-family snapshot entries: (path, version, offset, ts)
        self.snapshots: list[tuple[str, int, int, str | None]] = []
        self.powershell: list[tuple[int, str | None]] = []  # (offset, ts) of each call

    def extend(self, later: _Facts) -> None:
        """Add the facts of the byte range that follows this one."""
        self.structured.extend(later.structured)
        self.bash.extend(later.bash)
        self.creates.update(later.creates)
        self.failed.update(later.failed)
        self.boundary_ids.extend(later.boundary_ids)
        self.snapshots.extend(later.snapshots)
        self.powershell.extend(later.powershell)


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _settings_family(path: str) -> bool:
    parts = path.replace("\\", "/").rsplit("/", 2)
    return len(parts) >= 2 and parts[-1] in _SETTINGS_NAMES and parts[-2] == ".claude"


def _read_record(obj: dict[str, Any], line: int, facts: _Facts) -> None:
    """Note what one decoded record says (``line``: the byte offset its line starts at)."""
    ts = _str(obj.get("timestamp"))
    kind = obj.get("type")
    if kind == "file-history-snapshot":
        snap = obj.get("snapshot")
        tracked = snap.get("trackedFileBackups") if isinstance(snap, dict) else None
        if isinstance(snap, dict) and isinstance(tracked, dict):
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
                facts.structured.append((tool_id, op, path, line, ts, _str(obj.get("cwd"))))
            elif name == "Bash":
                command = args.get("command")
                if isinstance(command, str):
                    facts.bash.append((tool_id, command, _str(obj.get("cwd")), line, ts))
            elif name == "PowerShell":
                facts.powershell.append((line, ts))
        elif btype == "tool_result":
            tool_id = _str(block.get("tool_use_id"))
            if tool_id is None:
                continue
            result_ids.append(tool_id)
            if block.get("is_error") is True:
                facts.failed.add(tool_id)
                text = result_text(block)
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


class _Decoder:
    """Decodes candidate lines of one buffer into ``facts``; ``bad`` counts the lines it
    found framed but no JSON object (an unframed one is counted by the shape pass; a
    line passed over is shape-checked only, as every other line). Facts carry byte
    offsets: line numbers are counted later, and only when an answer shows them."""

    def __init__(self, buf: Buffer, facts: _Facts) -> None:
        self.buf = buf
        self.view = memoryview(buf)
        self.facts = facts
        self.bad = 0

    def read(self, start: int, end: int) -> None:
        buf = self.buf
        while end > start and buf[end - 1] in _TRAILING:
            end -= 1
        first = start
        while first < end and buf[first] in _TRAILING:  # indented: read, as core.decode does
            first += 1
        if end <= first or buf[first] != _OPEN_BRACE or buf[end - 1] != _CLOSE_BRACE:
            return  # unframed: the shape pass counted it
        try:
            obj = orjson.loads(self.view[first:end])
        except orjson.JSONDecodeError as refused:
            from pysift.disk.jsonline import refused_by_orjson

            try:  # a lone surrogate escape: the stdlib reads it
                obj = refused_by_orjson(bytes(self.view[first:end]), refused)
            except orjson.JSONDecodeError:
                self.bad += 1
                return
        if not isinstance(obj, dict):
            self.bad += 1
            return
        _read_record(obj, start, self.facts)

    def calls(self, spans: Iterable[tuple[int, int, int]]) -> None:
        """The tool-call lines (a Bash call that changes nothing is passed over)."""
        for start, end, kind in spans:
            if kind == CALL:
                self.read(start, end)

    def results(self, spans: Iterable[tuple[int, int, int]]) -> None:
        """The result and snapshot lines, once every call is known: a result answering
        only calls of other tools (a failed Read, a Grep, an inert Bash call) is passed
        over undecoded."""
        facts = self.facts
        known = {t for t, *_ in facts.structured if t is not None}
        known.update(t for t, *_ in facts.bash if t is not None)
        for start, end, kind in spans:
            if kind != RESULT:
                continue
            ids = _result_ids(self.buf, start, end)
            if ids is not None and known.isdisjoint(ids):
                continue
            self.read(start, end)


def _decode_candidates(buf: Buffer, spans: list[tuple[int, int, int]]) -> tuple[_Facts, int]:
    """Facts of the candidate lines (calls first, then the results that answer them)
    and the count of decoded lines that were no JSON object."""
    decoder = _Decoder(buf, _Facts())
    decoder.calls(spans)
    decoder.results(spans)
    return decoder.facts, decoder.bad


# From this size on, one transcript's scan is spread over the cores it is granted.
SPLIT_MIN_BYTES = 32 << 20


def _scan_part(buf: Buffer, job: tuple[int, int]) -> tuple[_Facts, list[tuple[int, int, int]], int]:
    """One worker's share of a big transcript: its byte range scanned and its calls
    decoded; the result lines go back undecoded (a result may answer a call of another
    range)."""
    lo, hi = job
    spans, unframed = scan_bytes(buf, lo, hi)
    decoder = _Decoder(buf, _Facts())
    decoder.calls(spans)
    return decoder.facts, [span for span in spans if span[2] == RESULT], unframed + decoder.bad


def _scan_spread(buf: Buffer, cores: int) -> tuple[_Facts, int]:
    """``scan_bytes`` + ``_decode_candidates`` over ``cores`` processes (the forked
    workers read the parent's buffer); the results are decoded here, once every call
    of every range is known."""
    cuts = split_points(buf, cores)
    parts = fanout.map_ordered(_scan_part, list(zip(cuts, cuts[1:])), shared=buf,
                               workers=cores, min_items=1)
    facts = _Facts()
    results: list[tuple[int, int, int]] = []
    skipped = 0
    for part, part_results, part_skipped in parts:
        facts.extend(part)
        results.extend(part_results)
        skipped += part_skipped
    decoder = _Decoder(buf, facts)
    decoder.results(results)
    return facts, skipped + decoder.bad


# -- the joins ---------------------------------------------------------------------------------------


def _paths_match(a: str, b: str) -> bool:
    if a == b:
        return True
    a2, b2 = a.replace("\\", "/"), b.replace("\\", "/")
    return a2.endswith("/" + b2) or b2.endswith("/" + a2)


def line_numbers(buf: Buffer, offsets: Iterable[int]) -> dict[int, int]:
    """The 1-based line of each line-start ``offset`` (one newline count up to the last)."""
    count = newline_counter(buf)
    numbers: dict[int, int] = {}
    line, pos = 1, 0
    for offset in sorted(set(offsets)):
        line += count(pos, offset)
        pos = offset
        numbers[offset] = line
    return numbers


def join_facts(facts: _Facts, number: Callable[[Iterable[int]], dict[int, int]],
               lines: bool = True) -> tuple[list[Mutation], list[Boundary]]:
    """Rows from one transcript's facts: structured ops joined to their results, bash
    commands read, settings-family snapshot jumps, boundaries attributed. ``number``
    turns line-start offsets into line numbers; rows get theirs only when ``lines``
    (boundaries always)."""
    rows: list[Mutation] = []
    op_paths: dict[str, str] = {}
    op_calls: dict[str, tuple[int, str | None]] = {}  # tool_use id -> the call's place, ts
    for tool_id, op, written, offset, ts, cwd in facts.structured:
        path, resolution, verbatim = _structured_path(written, cwd)
        if tool_id is not None and path:
            op_paths.setdefault(tool_id, path)
            op_calls.setdefault(tool_id, (offset, ts))
        if tool_id is not None and tool_id in facts.failed:
            continue
        created = tool_id is not None and tool_id in facts.creates
        if not path and created:
            path, resolution, verbatim = _structured_path(facts.creates.get(tool_id or "", ""), cwd)
        if not path:
            continue
        rows.append(Mutation(path, op, ts, None, created, False, resolution, verbatim, False,
                             None, None, offset))
    for tool_id, command, cwd, offset, ts in facts.bash:
        errored = tool_id is not None and tool_id in facts.failed
        for m in shell.mutations(command, cwd):
            if m.reach is not None and _spared_file(m, rows, offset):
                continue
            rows.append(Mutation(
                m.path, "bash", ts, None, m.is_create, True, m.resolution,
                m.verbatim if m.verbatim != m.path else None, errored, None, None, offset))
    rows.extend(_external_writes(facts.snapshots, rows, number))
    rows.sort(key=lambda m: m.offset)
    found = [(op_paths[tool_id], offset, op_calls[tool_id]) for tool_id, offset, _ts
             in facts.boundary_ids if tool_id in op_paths]
    wanted = [offset for _, offset, _ in found]
    if lines:
        wanted += [m.offset for m in rows]
    numbers = number(wanted) if wanted else {}
    if lines:
        rows = [m._replace(line=numbers[m.offset]) for m in rows]
    boundaries = [Boundary(path, numbers[offset], call_ts, MODIFIED_SINCE_READ, None, offset,
                           call_offset)
                  for path, offset, (call_offset, call_ts) in found]
    return rows, boundaries


def _spared_file(m: shell.Mutation, rows: list[Mutation], offset: int) -> bool:
    """Whether ``m``, a ``find`` row of its start point, is one the session showed to be
    a file (written or edited before the call at ``offset``) whose expression cannot
    match it: GNU find tests a start that is a file as any other path (``find ./a.txt
    -name '*.pyc' -delete`` leaves it alone). A start never shown to be a file may be a
    directory, and keeps its row (what it holds may have changed); so does one the
    session may have made again since its last write (``rm``/``mkdir`` of it, a write
    under it or of a directory above it, a pattern that may name it: it may be a
    directory by the time of the find)."""
    if m.resolution in (None, shell.UNRESOLVED) or shell.may_reach(m, m.path):
        return False
    start = _slashed(m.path)
    written = max((r.offset for r in rows if not r.heuristic and r.offset < offset
                   and shell.is_absolute(r.path) and _slashed(shell.join(r.path)) == start),
                  default=None)
    if written is None:
        return False
    for r in rows:  # what came after that write, up to this find (its command's own rows)
        if not written < r.offset <= offset:
            continue
        if r.resolution in (None, shell.UNRESOLVED) or not shell.is_absolute(r.path):
            return False  # a pattern or a floating path: it may name the start
        path = _slashed(shell.join(r.path))
        if path == start or path.startswith(start + "/") or start.startswith(
                path.rstrip("/") + "/"):
            return False  # (a directory above it too: ``rsync -a snap/ proj/`` may make it)
    return True


def _slashed(path: str) -> str:
    """``file_identity`` with a Windows path's separators as ``/`` (a prefix test needs
    one), for comparing two joined paths."""
    return file_identity(path).replace("\\", "/") if is_windows_rooted(path) else path


def _structured_path(written: str, cwd: str | None) -> tuple[str, str | None, str | None]:
    """``(path, resolution, path_verbatim)`` of a Write/Edit/MultiEdit/NotebookEdit path: as
    written when absolute; a relative one (some subagent transcripts record them) joined
    to the call record's own absolute ``cwd``, classed ``cwd-joined`` with the written
    spelling kept, as ``recover`` joins it (the path filters match the full path)."""
    if not written or shell.is_absolute(written) or not cwd or not shell.is_absolute(cwd):
        return written, None, None
    return shell.join(cwd, written), shell.CWD_JOINED, written


def _external_writes(snapshots: list[tuple[str, int, int, str | None]], rows: list[Mutation],
                     number: Callable[[Iterable[int]], dict[int, int]]) -> list[Mutation]:
    """A settings-family version bump with no tool row of that path in between. A
    DECREASE starts a new generation (Claude Code restarted): never read as a jump."""
    by_path: dict[str, list[tuple[int, int, str | None]]] = {}
    for path, version, offset, ts in snapshots:
        by_path.setdefault(path, []).append((offset, version, ts))
    jumps: list[tuple[str, int, int, int, int, str | None]] = []
    for path, seq in sorted(by_path.items()):
        prev: tuple[int, int] | None = None
        for offset, version, ts in seq:
            if prev is not None and version > prev[1]:
                touched = any(prev[0] < m.offset <= offset and _paths_match(path, m.path)
                              for m in rows)
                if not touched:
                    jumps.append((path, prev[0], prev[1], offset, version, ts))
            prev = (offset, version)
    if not jumps:
        return []
    numbers = number([o for _, before, _, after, _, _ in jumps for o in (before, after)])
    return [Mutation(path, "external_write", ts, numbers[after], False, False, None, None,
                     False, f"inferred: file-history v{v0}->v{v1} with no tool record in "
                            f"L{numbers[before]}..L{numbers[after]}", None, after)
            for path, before, v0, after, v1, ts in jumps]


# -- one transcript -----------------------------------------------------------------------------------


def transcript_mutations(transcript: Transcript, *, turns: bool = False,
                         lines: bool = True, cores: int = 1) -> TranscriptFiles:
    """The rows of ONE transcript, unwindowed, in file order (``agents --with-files``
    and ``files``). ``lines``: give every row its jsonl line (a rollup that shows none
    saves the count); ``turns``: its turn (boundaries always get both); ``cores``: the
    processes a big transcript's scan may spread over (one inside a spread batch). A
    file that cannot be read gives ``error``."""
    result = TranscriptFiles(transcript)
    keep_big_reads_on_the_heap()
    try:
        buf = open_buffer(transcript.path, read_up_to=READ_WHOLE_BYTES)
    except SourceError as exc:
        result.error = str(exc)
        return result
    if cores > 1 and len(buf) >= SPLIT_MIN_BYTES:
        facts, result.skipped_lines = _scan_spread(buf, cores)
    else:
        spans, unframed = scan_bytes(buf)
        facts, bad = _decode_candidates(buf, spans)
        result.skipped_lines = unframed + bad
    rows, boundaries = join_facts(facts, partial(line_numbers, buf), lines)
    result.powershell = [(offset, ts, None) for offset, ts in facts.powershell]
    if (turns or boundaries) and (rows or boundaries or result.powershell):
        turn_map = build_turn_map(buf, subagent=transcript.is_subagent)
        result.turn_count = turn_map.turn_count
        rows = [m._replace(turn=turn_map.turn_of_offset(m.offset)) for m in rows]
        boundaries = [b._replace(turn=turn_map.turn_of_offset(
            b.call_offset if b.call_offset >= 0 else b.offset)) for b in boundaries]
        result.powershell = [(offset, ts, turn_map.turn_of_offset(offset))
                             for offset, ts, _ in result.powershell]
    result.mutations = rows
    result.boundaries = boundaries
    return result


# -- a scope, windowed -------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class FilesPlan:
    """What to keep: rows inside ``window`` (its time bound, where a row with no
    timestamp never falls inside a bounded one, AND its turn range, turns numbered over
    the whole transcript) AND the path filters; ``by`` says whether every row needs its
    line and turn numbers."""

    by: str = "summary"
    window: Window = field(default_factory=Window)
    paths: PathFilter = field(default_factory=PathFilter)


def _windowed(found: TranscriptFiles, plan: FilesPlan) -> TranscriptFiles:
    window = plan.window
    allowed: set[int] | None = None
    if window.turns is not None:
        count = found.turn_count or 0
        allowed = set(window.turns.resolve(0, count - 1)) if count else set()

    def keep(path: str, ts: str | None, turn: int | None) -> bool:
        if allowed is not None and (turn is None or turn not in allowed):
            return False
        return window.admits_ts(ts) and plan.paths.keeps(path)

    found.mutations = [m for m in found.mutations if keep(m.path, m.ts, m.turn)]
    found.boundaries = [b for b in found.boundaries if keep(b.path, b.ts, b.turn)]
    # a PowerShell call names no path the filters could test: inside the window it counts
    found.powershell = [call for call in found.powershell
                        if (allowed is None or call[2] in allowed) and window.admits_ts(call[1])]
    return found


def _work(shared: tuple[FilesPlan, int], transcript: Transcript) -> tuple[Any, ...] | None:
    """One transcript's windowed rows, as plain tuples (None when it has nothing to say):
    the answer crosses a process boundary, and the parent holds the transcript."""
    plan, cores = shared
    timeline = plan.by == "timeline"
    found = transcript_mutations(transcript, turns=plan.window.turns is not None or timeline,
                                 lines=timeline, cores=cores)
    if found.error is None:
        found = _windowed(found, plan)
    if not (found.mutations or found.boundaries or found.skipped_lines or found.error
            or found.powershell):
        return None
    return ([tuple(m) for m in found.mutations], [tuple(b) for b in found.boundaries],
            found.skipped_lines, found.turn_count, found.error, found.powershell)


FANOUT_MIN_FILES = 8


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
    # a batch too small to spread over the cores lets each big file spread its own scan
    spread = fanout.processes(len(transcripts), FANOUT_MIN_FILES, workers)
    cores = (workers or fanout.cpu_workers()) if spread == 1 else 1
    answers = fanout.map_ordered(_work, list(transcripts), shared=(plan, cores),
                                 workers=workers, min_items=FANOUT_MIN_FILES,
                                 weights=[_size(t) for t in transcripts])
    out: list[TranscriptFiles] = []
    for transcript, answer in zip(transcripts, answers):
        if answer is None:
            out.append(TranscriptFiles(transcript))
            continue
        rows, bounds, skipped, turn_count, error, powershell = answer
        out.append(TranscriptFiles(transcript, [Mutation(*r) for r in rows],
                                   [Boundary(*b) for b in bounds], skipped, turn_count, error,
                                   powershell))
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
        if self.odd is not None or not in_cc_shape(ts):
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
    if all_in_cc_shape(written):
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
    """Chronological: by instant (rows with none last), then in file order."""
    def order(m: Mutation) -> tuple[bool, float, int]:
        when = parse_ts(m.ts)
        return (when is None, when.timestamp() if when is not None else 0.0, m.offset)

    return sorted(rows, key=order)




def file_identity(path: str) -> str:
    """What names one file: a Windows path (a drive letter or a UNC share) by
    ``windows_identity`` (``D:\\w\\a.txt`` is ``d:/w/a.txt``: Claude Code's tools spell one
    file both ways), any other path as written."""
    return windows_identity(path) if is_windows_rooted(path) else path


def distinct_files(found: Iterable[TranscriptFiles]) -> int:
    """Distinct files over every row (class markers are no file), a Windows path known
    by its ``file_identity``."""
    return len({file_identity(m.path) for t in found for m in t.mutations
                if not is_marker(m.path)})

