"""The fold index of a Claude Code session (seed index v2, port decisions).

One record per ``compact_boundary`` of a transcript, in file order. Record ``k``
re-extracts ALL the history before its boundary (a ``compact`` record); its capped
fields favour the newest blocks. Everything is lexical and deterministic: the same
transcript gives the same bytes.

- ``spans``: every tool_result block (``r:<tool_use_id>``) and every assistant text part
  (``a:<message.id>:p<n>``) before the boundary, first occurrence of each id, with the
  sha256, UTF-8 size and line count of the text ``show --block`` prints for it (the same
  functions, ``core.blocks``), so every span resolves and verifies through ``show``.
- ``files``: the paths tool inputs name (all history) and the path-shaped tokens of the
  harvested outputs, relative to the session's first recorded cwd when under it.
- ``commands``: Bash / PowerShell inputs, verbatim.
- ``errors``, ``identifiers``: harvested from the tool outputs of the last
  ``HARVEST_BYTES`` of transcript before the boundary (newest first): error-lexicon lines
  (at most ``ERRORS_CAP``, the newest kept) and identifiers (at most 64, tokens of large
  outputs first, then rarer, longer, newer). What a cap drops is counted in ``dropped``.
- ``userMessages``: the first line of every genuine user message, with its turn.

A big transcript is read by two processes, one half each; the halves' facts are merged in
file order, so the output does not depend on the split.
"""

from __future__ import annotations

import hashlib
import os
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import orjson

from pysift.core import classify
from pysift.core.blocks import (
    assistant_block_id,
    assistant_part_text,
    block_code,
    line_count,
    result_block_id,
    text_bytes,
)
from pysift.core.decode import Tally, decode
from pysift.core.rawjson import layouts, own_type, type_needles
from pysift.core.turns import is_plain_carrier, turn_map_from_openers
from pysift.disk import fanout
from pysift.disk.layout import Transcript, read_first_cwd
from pysift.disk.lines import Buffer
from pysift.disk.mapped import open_buffer
from pysift.errors import SourceError
from pysift.model.record import Record
from pysift.seedindex.lexicon import error_lines, identifiers, path_tokens

HARVEST_BYTES = 1 << 20
LARGE_OUTPUT = 4096
IDENTIFIERS_CAP = 64
ERRORS_CAP = 200
FIRST_LINE_CHARS = 200
SHELL_TOOLS = frozenset({"Bash", "PowerShell"})
PATH_KEYS = ("file_path", "notebook_path", "path")
SPLIT_BYTES = 32 << 20

_BOUNDARY_KEYS = (b'"subtype":"compact_boundary"', b'"subtype": "compact_boundary"')
_CUT = b',"toolUseResult":'
_PERSISTED = "<persisted-output>"
_OPEN, _CLOSE = 0x7B, 0x7D


@dataclass
class Harvest:
    chars: int
    errors: list[str]
    identifiers: list[str]
    paths: list[str]


@dataclass
class Facts:
    """One byte range's findings, in file order (offsets are the buffer's)."""

    boundaries: list[tuple[int, str | None, int | None]] = field(default_factory=list)
    openers: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    users: list[tuple[int, str]] = field(default_factory=list)
    # (offset, message id, block count, [(part index in record, sha256, bytes, lines)])
    parts: list[tuple[int, str, int, list[tuple[int, str, int, int]]]] = field(
        default_factory=list)
    # (offset, tool_use id, name, command, paths)
    uses: list[tuple[int, str | None, str | None, str | None, tuple[str, ...]]] = field(
        default_factory=list)
    # (offset, tool_use id, sha256, bytes, lines, persisted path, harvest)
    # (offset, tool_use id, sha256, bytes, lines, persisted path, harvest, code)
    results: list[tuple[int, str, str, int, int, str | None, Harvest | None, str]] = field(
        default_factory=list)
    malformed: int = 0

    def extend(self, later: Facts) -> None:
        for name in ("boundaries", "openers", "users", "parts", "uses", "results"):
            getattr(self, name).extend(getattr(later, name))
        self.malformed += later.malformed


def _windows(buf: Buffer, boundaries: list[int], hi: int) -> list[tuple[int, int]]:
    """The harvest windows reaching into a range: the ``HARVEST_BYTES`` before each of its
    ``boundaries`` (line starts of the boundary keys the pass found) and before each one
    within ``HARVEST_BYTES`` past its end ``hi``."""
    stop = min(len(buf), hi + HARVEST_BYTES)
    starts = list(boundaries)
    for key in _BOUNDARY_KEYS:
        at = buf.find(key, hi, stop)
        while at >= 0:
            starts.append(buf.rfind(b"\n", 0, at) + 1)
            at = buf.find(key, at + len(key), stop)
    return sorted((max(0, start - HARVEST_BYTES), start) for start in starts)


def _is_boundary(buf: Buffer, pos: int, end: int) -> bool:
    return any(buf.find(key, pos, end) >= 0 for key in _BOUNDARY_KEYS)


def _in_windows(offset: int, windows: list[tuple[int, int]]) -> bool:
    for a, b in windows:
        if a <= offset < b:
            return True
    return False


_PATTERNS: dict[tuple[bool, ...], Any] = {}


def _pattern(file_layouts: tuple[bool, ...]):  # type: ignore[no-untyped-def]
    """The record type keys the index reads (user, assistant) and a boundary's subtype."""
    found = _PATTERNS.get(file_layouts)
    if found is None:
        import re2

        parts: list[str] = []
        for spaced in file_layouts:
            sep = '": "' if spaced else '":"'
            parts += [f'type{sep}(?:user|assistant|thinking)"',
                      f'subtype{sep}compact_boundary"']
        found = _PATTERNS[file_layouts] = re2.compile(
            ('"(?:' + "|".join(dict.fromkeys(parts)) + ")").encode())
    return found


# What a key hit is: a record type key, a thinking block's, a boundary's subtype.
_RECORD, _THINKS, _BOUNDS = 1, 2, 4


def _hits(buf: Buffer, file_layouts: tuple[bool, ...], lo: int, hi: int
          ) -> list[tuple[int, int]]:
    """``(offset, what)`` of every key match in ``buf[lo:hi)``."""
    from re2 import _re2

    match = _pattern(file_layouts)._regexp.Match
    anchor = _re2.RE2.Anchor.UNANCHORED
    out: list[tuple[int, int]] = []
    pos = lo
    while True:
        start, end = match(anchor, buf, pos, hi)[0]
        if start < 0:
            return out
        if buf[start + 1] == 0x73:  # "s…: subtype
            what = _BOUNDS
        elif buf[end - 2] == 0x67 and buf[end - 3] == 0x6E:  # …ng": thinking
            what = _THINKS
        else:
            what = _RECORD
        out.append((start, what))
        pos = end


def scan_range(buf: Buffer, lo: int = 0, hi: int | None = None) -> Facts:
    """The facts of ``buf[lo:hi)`` (``lo`` at a line start, ``hi`` after a newline or at
    the end). One RE2 pass finds the lines holding a user or assistant type key, a
    thinking block's, or a boundary's subtype, and only those lines are read: every user
    and assistant record is decoded (a plain tool_result carrier without its
    ``toolUseResult`` echo, which the index does not read; a lone thinking block off its
    bytes), and every boundary (a torn one still counts). The malformed count is of those
    lines (``stats`` is the whole file's census)."""
    stop = len(buf) if hi is None else hi
    out = Facts()
    tally = Tally()
    file_layouts = layouts(buf)
    hits = _hits(buf, file_layouts, lo, stop)
    find, rfind = buf.find, buf.rfind
    windows = _windows(buf, [rfind(b"\n", 0, h) + 1 for h, what in hits if what == _BOUNDS],
                       stop)
    user_keys = type_needles(buf, "user", file_layouts)
    result_keys = type_needles(buf, "tool_result", file_layouts)
    hits.append((stop + 1, 0))  # sentinel
    at = 0
    while at < len(hits) - 1:
        start = hits[at][0]
        before = rfind(b"\n", lo, start)
        pos = before + 1 if before >= 0 else lo
        nl = find(b"\n", start, stop)
        end = stop if nl < 0 else nl
        keys = 0
        while hits[at][0] < end:  # this line's keys
            keys |= hits[at][1]
            at += 1
        framed = buf[pos] == _OPEN and buf[end - 1] == _CLOSE
        _line(buf, pos, end, framed, bool(keys & _THINKS), out, tally, windows, user_keys,
              result_keys)
    out.malformed = tally.malformed
    return out


def _line(buf: Buffer, pos: int, end: int, framed: bool, thinks: bool, out: Facts,
          tally: Tally, windows: list[tuple[int, int]], user_keys: tuple[bytes, ...],
          result_keys: tuple[bytes, ...]) -> None:
    before = tally.malformed
    rec = None
    kind = own_type(buf, pos, end) if framed else None
    if kind == b"assistant" and thinks:
        part = _thinking_only(buf, pos, end)
        if part is not None:  # a lone thinking block: only its place in the message counts
            out.parts.append((pos, part, 1, []))
            return
    plain = kind == b"user" and is_plain_carrier(buf, pos, end, user_keys, result_keys)
    if plain:
        rec = _carrier(buf, pos, end, tally)
    elif kind in (b"user", b"assistant", None) or (
            kind == b"system" and _is_boundary(buf, pos, end)):
        rec = decode(buf[pos:end], None, tally)
    if rec is not None:
        _take(rec, pos, out, windows, plain)
    elif tally.malformed > before and _is_boundary(buf, pos, end):
        out.boundaries.append((pos, None, None))  # torn: the compaction still happened


_BLOCK_OPEN = b'{"type":"'
_THINKING = (b'{"type":"thinking"', b'{"type":"redacted_thinking"')
_CONTENT_OPEN = b'"content":['
_HEAD = 4096  # where an assistant record's message content opens


def _thinking_only(buf: Buffer, pos: int, end: int) -> str | None:
    """The message id of a compact assistant line holding one thinking block and nothing
    else (a quarter of a long session's bytes), read off its bytes; None when the bytes
    do not settle it (the line is then decoded). Its thinking text is a JSON string, so
    no block key can hide in it unescaped."""
    find = buf.find
    at = find(_CONTENT_OPEN, pos, min(end, pos + _HEAD))
    if at < 0:
        return None
    first = at + len(_CONTENT_OPEN)
    if not any(buf[first:first + len(key)] == key for key in _THINKING):
        return None
    if find(_BLOCK_OPEN, first + 1, end) >= 0 or find(b'"tool_result"', pos, end) >= 0:
        return None  # more than one block
    head = find(b'"message":{', pos, first)
    if head < 0 or find(b'"role":"assistant"', head, first) < 0:
        return None
    key = find(b'"id":"', head, first)
    if key < 0:
        return None
    stop = find(b'"', key + 6, first)
    value = buf[key + 6:stop] if stop > key else b""
    if not value or b"\\" in value:
        return None
    return value.decode("utf-8", "replace")


def _carrier(buf: Buffer, pos: int, end: int, tally: Tally) -> Record | None:
    """A plain tool_result carrier, decoded without its ``toolUseResult`` (which repeats
    the output) when that key stands at the record's level (it cannot occur unescaped
    inside the message); the whole line when a result was persisted (its path is there)."""
    cut = buf.find(_CUT, pos, end)
    if cut > pos:
        head = buf[pos:cut]
        if _PERSISTED.encode() not in head:
            try:
                obj = orjson.loads(head + b"}")
            except orjson.JSONDecodeError:
                obj = None
            if isinstance(obj, dict):
                return Record(obj, None)
    return decode(buf[pos:end], None, tally)


def _take(rec: Record, pos: int, out: Facts, windows: list[tuple[int, int]],
          plain: bool = False) -> None:
    """File one decoded record's facts (``plain``: a tool_result carrier that cannot open
    a turn, read for its results only)."""
    raw = rec.raw  # read directly: this runs for every user and assistant record
    kind = raw.get("type")
    if kind == "system":
        if rec.subtype == "compact_boundary":
            meta = raw.get("compactMetadata")
            pre = meta.get("preTokens") if isinstance(meta, dict) else None
            pre = pre if isinstance(pre, int) and not isinstance(pre, bool) else None
            out.boundaries.append((pos, rec.timestamp, pre))
        return
    message = raw.get("message")
    if not isinstance(message, dict):
        return
    content = message.get("content")
    blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    if plain:
        pass
    elif kind == "user":
        if classify.opens_turn(rec):
            out.openers.append((pos, raw))
        if classify.is_genuine_user(rec):
            out.users.append((pos, _first_line(classify.raw_message_text(rec) or "")))
    elif kind == "assistant" and message.get("role") == "assistant":
        msg_id = message.get("id")
        if isinstance(msg_id, str):
            parts = []
            for index, block in enumerate(blocks):
                if block.get("type") == "text":
                    data = text_bytes(assistant_part_text(block))
                    parts.append((index, hashlib.sha256(data).hexdigest(), len(data),
                                  line_count(data)))
            out.parts.append((pos, msg_id, len(blocks), parts))
        for block in blocks:
            if block.get("type") == "tool_use":
                out.uses.append(_use(pos, block))
    harvest = _in_windows(pos, windows)
    for block in blocks:
        if block.get("type") != "tool_result":
            continue
        tool_id = block.get("tool_use_id")
        if not isinstance(tool_id, str) or not tool_id:
            continue
        text = classify.result_text(block)
        data = text_bytes(text)
        out.results.append((pos, tool_id, hashlib.sha256(data).hexdigest(), len(data),
                            line_count(data), _persisted_path(rec, text),
                            _harvest(len(text), data) if harvest else None,
                            block_code(result_block_id(tool_id))))  # hashed in the worker


def _use(pos: int, block: dict[str, Any]) -> tuple[int, str | None, str | None, str | None,
                                                   tuple[str, ...]]:
    tool_id = block.get("id")
    name = block.get("name")
    payload = block.get("input")
    command = None
    paths: list[str] = []
    if isinstance(payload, dict):
        if name in SHELL_TOOLS and isinstance(payload.get("command"), str):
            command = payload["command"]
        for key in PATH_KEYS:
            value = payload.get(key)
            if isinstance(value, str) and value.strip():
                paths.append(value.strip())
    return (pos, tool_id if isinstance(tool_id, str) else None,
            name if isinstance(name, str) else None, command, tuple(paths))


def _persisted_path(rec: Record, text: str) -> str | None:
    """The file a persisted (externalised) output was saved to, when this one was."""
    if _PERSISTED not in text:
        return None
    tur = rec.tool_use_result
    if isinstance(tur, dict) and isinstance(tur.get("persistedOutputPath"), str):
        return str(tur["persistedOutputPath"])
    marker = "Full output saved to: "
    at = text.find(marker)
    if at < 0:
        return None
    return text[at + len(marker):].split("\n", 1)[0].strip() or None


def _harvest(chars: int, data: bytes) -> Harvest:
    return Harvest(chars, error_lines(data), identifiers(data), path_tokens(data))


def _first_line(text: str) -> str:
    """The first non-blank line of a message, at most 200 characters (199 and ``…``
    when longer)."""
    for line in text.split("\n"):
        line = line.strip()
        if line:
            return line if len(line) <= FIRST_LINE_CHARS else line[:FIRST_LINE_CHARS - 1] + "…"
    return ""


def scan_facts(buf: Buffer, *, cores: int = 1) -> Facts:
    """The facts of a whole buffer; a big one in two halves by two processes when the
    caller grants two cores."""
    parts = fanout.in_halves(scan_range, buf, cores=cores, min_bytes=SPLIT_BYTES)
    for later in parts[1:]:
        parts[0].extend(later)
    return parts[0]


# -- records ----------------------------------------------------------------------------------


@dataclass
class FoldIndex:
    """One transcript's records (none when it has no compaction), the malformed lines
    among those read, and ``error`` when the file could not be read."""

    transcript: Transcript
    records: list[dict[str, Any]]
    skipped_lines: int
    error: str | None = None


# Below this many transcripts they are indexed one after another (a big one still splits
# itself over the cores); above it they fan out over the cores, one core each.
FANOUT_MIN_FILES = 8


def run(transcripts: Sequence[Transcript]) -> list[FoldIndex]:
    """The engine entry: every transcript's fold index, in scope order; many files are
    spread over the cores (heaviest first), a few are read one after another, each free
    to use every core."""
    items = list(transcripts)
    spread = fanout.processes(len(items), FANOUT_MIN_FILES)
    cores = fanout.cpu_workers() if spread == 1 else 1
    return fanout.map_ordered(_index, items, shared=cores, min_items=FANOUT_MIN_FILES,
                              weights=[t.size() for t in items])


def _index(cores: int, transcript: Transcript) -> FoldIndex:
    try:
        return fold_index(transcript, cores=cores)
    except SourceError as exc:
        return FoldIndex(transcript, [], 0, error=str(exc))


def fold_index(transcript: Transcript, *, cores: int = 1) -> FoldIndex:
    """The fold-index records of one transcript (none when it has no compaction);
    ``cores``: the processes a big file's scan may use."""
    buf = open_buffer(transcript.path)
    facts = scan_facts(buf, cores=cores)
    if not facts.boundaries:
        return FoldIndex(transcript, [], facts.malformed)
    turn_map = turn_map_from_openers([(o, Record(raw, None)) for o, raw in facts.openers], buf)
    cwd = read_first_cwd(transcript.path)
    names = {u[1]: u[2] for u in facts.uses if u[1] is not None}
    spans = _spans(facts, turn_map, names)
    span_offsets = [o for o, _ in spans]
    users = [(o, {"turn": turn_map.turn_of_offset(o), "firstLine": line})
             for o, line in facts.users]
    user_offsets = [o for o, _ in users]
    commands = _first_seen((o, c) for o, _i, _n, c, _p in facts.uses if c is not None)
    command_offsets = [o for o, _ in commands]
    inputs = [(o, _relative(p, cwd)) for o, _i, _n, _c, paths in facts.uses for p in paths]
    records = []
    for seq, (offset, at, pre) in enumerate(facts.boundaries, start=1):
        window = [r for r in facts.results
                  if offset - HARVEST_BYTES <= r[0] < offset and r[6] is not None]
        errors, errors_dropped = _errors(window)
        idents, idents_dropped = _identifiers(window)
        record: dict[str, Any] = {
            "v": 2,
            "kind": "fold-index",
            "harness": "pysift",
            "session": transcript.session_id,
            "seq": seq,
            "at": at,
            "trigger": "compact",
            "usage": {"tokens": pre, "contextWindow": None, "fraction": None},
            "files": _files(inputs, window, offset, cwd),
            "commands": [c for _, c in commands[:bisect_left(command_offsets, offset)]],
            "errors": errors,
            "identifiers": idents,
            "userMessages": [u for _, u in users[:bisect_left(user_offsets, offset)]],
            "spans": [s for _, s in spans[:bisect_left(span_offsets, offset)]],
            "dropped": {"errors": errors_dropped, "identifiers": idents_dropped},
        }
        records.append(record)
    return FoldIndex(transcript, records, facts.malformed)


def _first_seen(items) -> list[tuple[int, str]]:  # type: ignore[no-untyped-def]
    seen: set[str] = set()
    out = []
    for offset, value in items:
        if value not in seen:
            seen.add(value)
            out.append((offset, value))
    return out


def _spans(facts: Facts, turn_map, names: dict[str, str | None]  # type: ignore[no-untyped-def]
           ) -> list[tuple[int, dict[str, Any]]]:
    """Every block's span in file order, the first occurrence of each block id."""
    events: list[tuple[int, int, dict[str, Any]]] = []
    parts_seen: dict[str, int] = {}
    for offset, msg_id, count, parts in facts.parts:
        base = parts_seen.get(msg_id, 0)
        parts_seen[msg_id] = base + count
        for index, sha, size, lines in parts:
            block_id = assistant_block_id(msg_id, base + index)
            events.append((offset, index, _span(block_id, None, turn_map.turn_of_offset(offset),
                                                size, lines, sha, None)))
    for offset, tool_id, sha, size, lines, persisted, _harvest_, code in facts.results:
        block_id = result_block_id(tool_id)
        events.append((offset, 0, _span(block_id, names.get(tool_id),
                                        turn_map.turn_of_offset(offset), size, lines, sha,
                                        persisted, code)))
    events.sort(key=lambda e: (e[0], e[1]))
    seen: set[str] = set()
    out = []
    for offset, _index, span in events:
        if span["blockId"] in seen:
            continue
        seen.add(span["blockId"])
        out.append((offset, span))
    return out


def _span(block_id: str, tool: str | None, turn: int | None, size: int, lines: int, sha: str,
          persisted: str | None, code: str | None = None) -> dict[str, Any]:
    span: dict[str, Any] = {"blockId": block_id, "code": code or block_code(block_id),
                            "tool": tool,
                            "turn": turn, "log": {"bytes": size, "lines": lines},
                            "sha256": sha}
    if persisted is not None:
        span["fullOutputPath"] = persisted
    return span


@lru_cache(maxsize=1 << 16)
def _relative(path: str, cwd: str | None) -> str:
    """A path relative to the session's first cwd when it lies under it."""
    if cwd and os.path.isabs(path):
        base = cwd.rstrip("/\\")
        if path.startswith(base + "/") or path.startswith(base + "\\"):
            return path[len(base) + 1:]
    return path


def _files(inputs: list[tuple[int, str]], window, offset: int,  # type: ignore[no-untyped-def]
           cwd: str | None) -> list[str]:
    """Tool-input paths before the boundary and the window's output path tokens, merged
    in file order, first occurrence each."""
    found = [(o, 0, p) for o, p in inputs if o < offset]
    for r in window:
        found.extend((r[0], 1, _relative(p, cwd)) for p in r[6].paths)
    found.sort(key=lambda e: (e[0], e[1]))
    return [p for _, p in _first_seen((o, p) for o, _k, p in found)]


def _errors(window) -> tuple[list[str], int]:  # type: ignore[no-untyped-def]
    """The newest ``ERRORS_CAP`` distinct error lines of the window, in file order."""
    distinct: dict[str, int] = {}
    position = 0
    for r in window:
        for line in r[6].errors:
            distinct[line] = position  # the last position wins: newest first below
            position += 1
    ranked = sorted(distinct.items(), key=lambda kv: kv[1], reverse=True)
    kept = {line for line, _ in ranked[:ERRORS_CAP]}
    ordered = [line for line in _first_seen((0, line) for r in window for line in r[6].errors)]
    return [line for _, line in ordered if line in kept], max(0, len(distinct) - ERRORS_CAP)


def _identifiers(window) -> tuple[list[str], int]:  # type: ignore[no-untyped-def]
    """At most 64 identifiers: tokens of large outputs first, then rarer, longer, newer,
    then in code-point order."""
    counts: Counter[str] = Counter()
    large: set[str] = set()
    newest: dict[str, int] = {}
    position = 0
    for r in window:
        harvest = r[6]
        counts.update(harvest.identifiers)
        if harvest.chars >= LARGE_OUTPUT:
            large.update(harvest.identifiers)
        for token in harvest.identifiers:
            newest[token] = position  # the token's last place in the window
            position += 1
    ranked = sorted(counts, key=lambda t: (t not in large, counts[t], -len(t), -newest[t], t))
    return ranked[:IDENTIFIERS_CAP], max(0, len(ranked) - IDENTIFIERS_CAP)
