"""The fold index of a Claude Code session (seed index v2, port decisions).

One record per ``compact_boundary`` of a transcript, in file order (and per compaction
summary Claude Code 1.0.x wrote without a boundary: ``fold_points``). Record ``k``
re-extracts ALL the history before its boundary (a ``compact`` record); its capped
fields favour the newest blocks. Everything is lexical and deterministic: the same
transcript gives the same bytes.

- ``spans``: every tool_result block (``r:<tool_use_id>``) and every assistant text part
  (``a:<message.id>:p<n>``) before the boundary, first occurrence of each id, with the
  sha256, UTF-8 size and line count of the text ``show --block`` prints for it (the same
  functions, ``core.blocks``), so every span resolves and verifies through ``show``.
- ``files``: the paths tool inputs name and the path-shaped tokens of the tool outputs
  (all history: a record keeps every path an earlier one listed), relative to the
  session's first recorded cwd when under it (a Windows one too, its case ignored).
- ``commands``: Bash / PowerShell inputs, verbatim.
- ``errors``, ``identifiers``: harvested from every tool output before the boundary:
  error-lexicon lines (at most ``ERRORS_CAP``, the newest kept) and identifiers (at most
  64: those of the last ``HARVEST_BYTES`` of transcript before the boundary first, tokens
  of large outputs first, then rarer, longer, newer; then those of older outputs, in the
  same order). What a cap drops is counted in ``dropped``.
- ``userMessages``: the first line of every genuine user message, with its turn: a
  typed prompt's, a tool rejection's typed reason's, an AskUserQuestion answer's (its
  ``A<n>: answer`` lines, as verbatim renders them), each under the turn it opens.

A big transcript is read in pieces by two processes, each taking the next piece when it is
done with one; the pieces' facts are merged in file order, so the output does not depend
on the split. The tool outputs after the last ``compact_boundary`` bytes of the file are
in no record: their paths, errors and identifiers are not harvested (all of a transcript
that never compacted), which also makes equal pieces unequal work, hence the queue. The processes that read the
blocks also lay their spans out as JSON (all but the tool name and the turn, which need
the whole file): the parent only joins them.
"""

from __future__ import annotations

import hashlib
import heapq
import os
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from dataclasses import field
from functools import lru_cache, partial
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
from pysift.core.decode import Tally, decode, unframed_lines
from pysift.core.queued import (
    is_human,
    message_key,
    queue_entry,
    queued_prompts,
    rider_key,
    said_key,
    timeline,
    torn_operations,
)
from pysift.core.rawjson import layouts, own_type, type_needles
from pysift.core.turns import TurnMap, is_plain_carrier, turn_map_from_openers
from pysift.disk import fanout
from pysift.disk.layout import Transcript, is_windows_rooted, read_first_cwd
from pysift.disk.lines import Buffer
from pysift.disk.mapped import open_buffer
from pysift.errors import SourceError
from pysift.model.fastdata import dataclass
from pysift.model.record import Record, block_name
from pysift.seedindex.lexicon import error_lines, identifiers, path_tokens

HARVEST_BYTES = 1 << 20
LARGE_OUTPUT = 4096
IDENTIFIERS_CAP = 64
ERRORS_CAP = 200
FIRST_LINE_CHARS = 200
SHELL_TOOLS = frozenset({"Bash", "PowerShell"})
PATH_KEYS = ("file_path", "notebook_path", "path")
SPLIT_BYTES = 32 << 20
# a split transcript's pieces: about this many bytes each, at most ``MAX_PIECES``
PIECE_BYTES = 16 << 20
MAX_PIECES = 8

_BOUNDARY_KEYS = (b'"subtype":"compact_boundary"', b'"subtype": "compact_boundary"')
_CUT = b',"toolUseResult":'
_PERSISTED = "<persisted-output>"
_OPEN, _CLOSE = 0x7B, 0x7D


@dataclass
class Harvest:
    chars: int
    errors: list[str]
    identifiers: list[str]


# A block's span as a range reads it, laid out as JSON but for the tool name and the turn:
# (offset, block id, JSON up to the tool's value, JSON after the turn, the tool_use id of a
# result, the message id and part number of an assistant part, counted from the range's
# start).
Span = tuple[int, str, bytes, bytes, "str | None", "str | None", int]


@dataclass
class Facts:
    """One byte range's findings, in file order (offsets are the buffer's)."""

    boundaries: list[tuple[int, str | None, int | None]] = field(default_factory=list)
    # (offset, timestamp) of every compaction summary (``isCompactSummary``): the fold
    # point of a compaction Claude Code wrote no boundary record for (1.0.x)
    summaries: list[tuple[int, str | None]] = field(default_factory=list)
    openers: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    users: list[tuple[int, str]] = field(default_factory=list)
    names: dict[str, str | None] = field(default_factory=dict)  # tool_use id -> its name
    # Bash / PowerShell commands, and the paths of tool inputs and outputs (relative to the
    # session's cwd; a record's inputs before its outputs), each at its first use in the
    # range: (offset, value)
    commands: list[tuple[int, str]] = field(default_factory=list)
    paths: list[tuple[int, str]] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)
    # (offset, harvest) of every result
    harvests: list[tuple[int, Harvest]] = field(default_factory=list)
    # message id -> content blocks its records hold in the range (part numbering)
    blocks: dict[str, int] = field(default_factory=dict)
    # (offset, operation, the human's first line or None, the key of its words) of
    # every queue operation and every queued prompt delivered mid-turn (operation
    # ``core.queued.DELIVERED``)
    queue: list[tuple[int, str, str | None, bytes | None]] = field(default_factory=list)
    # what resynchronises the queue's pairing (``core.queued.timeline``): (offset, key of
    # its words) of a user record delivering a harness rider on its own, and the offset
    # of every assistant record
    riders: list[tuple[int, bytes]] = field(default_factory=list)
    agents: list[int] = field(default_factory=list)
    malformed: int = 0


def _is_boundary(buf: Buffer, pos: int, end: int) -> bool:
    return any(buf.find(key, pos, end) >= 0 for key in _BOUNDARY_KEYS)


_PATTERNS: dict[tuple[bool, ...], Any] = {}


def _pattern(file_layouts: tuple[bool, ...]):  # type: ignore[no-untyped-def]
    """The record type keys the index reads (user, assistant, a queue operation), a
    thinking block's, a queued prompt attachment's, and a boundary's subtype, spelled from
    their ``y`` on: RE2 skips to that byte with ``memchr`` (a pattern opening on ``"``,
    every few bytes of JSON, ran 1.7x slower). The bytes before a match say whether it
    is one of the keys (``_what``)."""
    found = _PATTERNS.get(file_layouts)
    if found is None:
        import re2

        seps = sorted({'": "' if spaced else '":"' for spaced in file_layouts})
        found = _PATTERNS[file_layouts] = re2.compile(
            ("ype(?:" + "|".join(seps) + ")(?:user|assistant|thinking|compact_boundary"
             '|queue-operation|queued_command)"').encode())
    return found


# What a key match is: a record type key (or a queued prompt attachment's), a thinking
# block's, a boundary's subtype (0: none of them, e.g. a "prototype" field or a type named
# like a subtype).
_RECORD, _THINKS, _BOUNDS = 1, 2, 4


def _what(buf: Buffer, start: int, stop: int) -> int:
    last = buf[stop - 2]  # the value's last letter
    if last == 0x79:  # compact_boundary: a subtype key's
        return _BOUNDS if start >= 5 and buf[start - 5:start] == b'"subt' else 0
    if start < 2 or buf[start - 2:start] != b'"t':
        return 0
    return _THINKS if last == 0x67 else _RECORD


# A line the key pass found: (start, end, framed, its own record type off the bytes or
# None, whether it may hold a thinking block)
KeyLine = tuple[int, int, bool, "bytes | None", bool]


def _key_lines(buf: Buffer, file_layouts: tuple[bool, ...], lo: int, hi: int
               ) -> list[KeyLine]:
    """The lines of ``buf[lo:hi)`` holding a key match.

    The pass leaves a line at its first match when the line is a user or an assistant
    record by its own type key: no other key of such a line is needed (a thinking block's
    key after the match is looked for with ``find``), so RE2 never reads the tool output
    a carrier repeats. Every other line has all its keys read."""
    from re2 import _re2

    match = _pattern(file_layouts)._regexp.Match
    anchor = _re2.RE2.Anchor.UNANCHORED
    find, rfind = buf.find, buf.rfind
    thinking = type_needles(buf, "thinking", file_layouts)
    lines: list[KeyLine] = []
    at = lo
    while True:
        start, stop = match(anchor, buf, at, hi)[0]
        if start < 0:
            return lines
        what = _what(buf, start, stop)
        if not what:
            at = stop
            continue
        before = rfind(b"\n", lo, start)
        pos = before + 1 if before >= 0 else lo
        nl = find(b"\n", start, hi)
        end = hi if nl < 0 else nl
        framed = buf[pos] == _OPEN and buf[end - 1] == _CLOSE
        kind = own_type(buf, pos, end) if framed else None
        if kind == b"user":
            thinks = False  # (only an assistant line's thinking blocks are looked at)
        elif kind == b"assistant":
            thinks = what == _THINKS or any(find(key, stop, end) >= 0 for key in thinking)
        else:
            while True:  # every key of the line
                start, stop = match(anchor, buf, stop, end)[0]
                if start < 0:
                    break
                what |= _what(buf, start, stop)
            thinks = bool(what & _THINKS)
        lines.append((pos, end, framed, kind, thinks))
        if nl < 0:
            return lines
        at = nl + 1


def scan_range(buf: Buffer, lo: int = 0, hi: int | None = None, cwd: str | None = None,
               harvest_end: int | None = None, *, subagent: bool) -> Facts:
    """The facts of ``buf[lo:hi)`` (``lo`` at a line start, ``hi`` after a newline or at
    the end; ``cwd`` the session's first recorded one, paths are made relative to it). One
    RE2 pass finds the lines holding a user, assistant or queue-operation type key, a
    thinking block's, a queued prompt attachment's, or a boundary's subtype, and only
    those lines are read: every user and assistant record is decoded (a plain tool_result
    carrier without its ``toolUseResult`` echo, which the index does not read; a lone
    thinking block off its bytes), every queue operation and queued prompt, and every
    boundary (a torn one still counts). The malformed count is exact (csift's law): those
    lines by the decoder, every other line of the range by the ``{…}`` shape check.
    ``harvest_end``: no output of a line starting past it is harvested (``harvest_end``,
    read off the buffer when not given). ``subagent``: the file's kind (in a main
    transcript a subagent's user record opens no turn and is no user message)."""
    stop = len(buf) if hi is None else hi
    file_layouts = layouts(buf)
    lines = _key_lines(buf, file_layouts, lo, stop)
    if harvest_end is None:
        harvest_end = last_boundary_key(buf)
    with memoryview(buf) as view:
        scan = _Scan(buf, view, file_layouts, cwd, harvest_end, subagent)
        for line in lines:
            scan.line(*line)
    # a line the key pass found and did not frame was decoded (counted by the tally)
    read = {pos for pos, _end, framed, *_ in lines if not framed}
    scan.out.malformed = scan.tally.malformed + sum(
        1 for pos in unframed_lines(buf, lo, stop) if pos not in read)
    return scan.out


_BLOCK_OPEN = b'{"type":"'
_THINKING = (b'{"type":"thinking"', b'{"type":"redacted_thinking"')
_CONTENT_OPEN = b'"content":['
_HEAD = 4096  # where an assistant record's message content opens


class _Scan:
    """One range's walk: the lines the key pass found, each settled once."""

    def __init__(self, buf: Buffer, view: memoryview, file_layouts: tuple[bool, ...],
                 cwd: str | None, harvest_end: int, subagent: bool) -> None:
        self.buf, self.view, self.cwd = buf, view, cwd
        self.subagent = subagent
        self.harvest_end = harvest_end
        self.out = Facts()
        self.tally = Tally()
        self.user_keys = type_needles(buf, "user", file_layouts)
        self.result_keys = type_needles(buf, "tool_result", file_layouts)
        self.commands: set[str] = set()  # seen in the range
        self.paths: set[str] = set()

    def line(self, pos: int, end: int, framed: bool, kind: bytes | None, thinks: bool
             ) -> None:
        """Settle one line the key pass found (``kind``: its own type off the bytes)."""
        buf, tally = self.buf, self.tally
        before = tally.malformed
        if kind == b"assistant":
            if thinks:
                part = _thinking_only(buf, pos, end)
                if part is not None:  # a lone thinking block: only its place counts
                    blocks = self.out.blocks
                    blocks[part] = blocks.get(part, 0) + 1
                    return
            raw = self.loads(pos, end)
        elif kind == b"user" and is_plain_carrier(buf, pos, end, self.user_keys,
                                                  self.result_keys):
            raw = self.carrier(pos, end)
            if raw is not None:
                self.take(raw, pos, plain=True)
                return
        elif (kind in (b"user", b"queue-operation", None)
              or (kind == b"system" and _is_boundary(buf, pos, end))
              or (kind == b"attachment" and buf.find(b"queued_command", pos, end) >= 0)):
            raw = self.decode(pos, end)
        else:
            return  # another record type holds no message the index reads
        if raw is not None:
            self.take(raw, pos)
        elif tally.malformed > before:
            if _is_boundary(buf, pos, end):
                self.out.boundaries.append((pos, None, None))  # torn: it happened
            if buf.find(b'"queue-operation"', pos, end) >= 0:
                # a torn queue operation keeps its entry's place, its words lost
                self.out.queue += [(pos, op, None, None)
                                   for op in torn_operations(buf[pos:end])]

    def decode(self, pos: int, end: int) -> dict[str, Any] | None:
        rec = decode(self.buf[pos:end], None, self.tally)
        return None if rec is None else rec.raw

    def loads(self, pos: int, end: int) -> dict[str, Any] | None:
        """A framed line's object read in place (no copy); anything orjson refuses, or
        that is no object, goes to ``decode`` (the stdlib for a lone surrogate, else
        counted as malformed)."""
        try:
            obj = orjson.loads(self.view[pos:end])
        except orjson.JSONDecodeError:
            obj = None
        return obj if isinstance(obj, dict) else self.decode(pos, end)

    def carrier(self, pos: int, end: int) -> dict[str, Any] | None:
        """A plain tool_result carrier, decoded without its ``toolUseResult`` (which
        repeats the output) when that key stands at the record's level (it cannot occur
        unescaped inside the message): the head is copied once, its ``,`` turned into the
        object's ``}``. The whole line when a result was persisted (its path is there)."""
        buf = self.buf
        cut = buf.find(_CUT, pos, end)
        if cut > pos and buf.find(_PERSISTED_BYTES, pos, cut) < 0:
            head = bytearray(self.view[pos:cut + 1])
            head[-1] = _CLOSE
            try:
                obj = orjson.loads(head)
            except orjson.JSONDecodeError:
                obj = None
            if isinstance(obj, dict):
                return obj
        return self.decode(pos, end)

    def take(self, raw: dict[str, Any], pos: int, plain: bool = False) -> None:
        """File one decoded record's facts (``plain``: a tool_result carrier that cannot
        open a turn, read for its results only)."""
        out = self.out
        kind = raw.get("type")
        if kind in ("queue-operation", "attachment"):
            self.queued(raw, pos)
            return
        if kind == "system":
            if raw.get("subtype") == "compact_boundary":
                meta = raw.get("compactMetadata")
                pre = meta.get("preTokens") if isinstance(meta, dict) else None
                pre = pre if isinstance(pre, int) and not isinstance(pre, bool) else None
                out.boundaries.append((pos, Record(raw, None).timestamp, pre))
            return
        message = raw.get("message")
        if not isinstance(message, dict):
            return
        parts: list[tuple[int, Span]] = []
        if plain:
            pass
        elif kind == "user":
            rec = Record(raw, None)
            if rec.is_compact_summary:
                out.summaries.append((pos, rec.timestamp))
            if classify.in_sidechain(rec, subagent=self.subagent):
                pass  # a subagent's record in a main transcript: no turn, nobody's words
            elif classify.opens_turn(rec, subagent=self.subagent):
                out.openers.append((pos, raw))
                said = _user_words(rec)
                if said is not None:
                    out.users.append((pos, said))
            else:  # a slash command typed with arguments is a user message in its turn
                slash = classify.slash_command_parts(rec)
                if slash is not None and slash[1] is not None:
                    out.users.append((pos, _first_line(classify.slash_command_name(rec) or "")))
                elif (rider := rider_key(raw)) is not None:
                    out.riders.append((pos, rider))
        elif kind == "assistant" and message.get("role") == "assistant":
            if self.subagent or raw.get("isSidechain") is not True:
                out.agents.append(pos)  # the agent wrote (a subagent's record: not the turn's)
            parts = self.assistant(message, pos)
        self.results(raw, pos, message, parts)

    def queued(self, raw: dict[str, Any], pos: int) -> None:
        """A queue operation (its prompt's text when it carries one), or a prompt the
        human typed while the agent worked, delivered mid-turn as a ``queued_command``
        attachment: their fates are paired in file order by ``queued_prompts``."""
        entry = queue_entry(raw)
        if entry is not None:
            self.out.queue.append((pos, entry[0], _human_queued(entry[1]),
                                   said_key(entry[1])))

    def assistant(self, message: dict[str, Any], pos: int) -> list[tuple[int, Span]]:
        """An assistant record's tool calls, and its text parts' spans with each one's
        index among the record's blocks."""
        out = self.out
        content = message.get("content")
        if not isinstance(content, list):
            content = ()
        parts: list[tuple[int, Span]] = []
        msg_id = message.get("id")
        if isinstance(msg_id, str):
            blocks = out.blocks
            base = blocks.get(msg_id, 0)
            index = 0
            for block in content:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "text":
                    data = text_bytes(assistant_part_text(block))
                    block_id = assistant_block_id(msg_id, base + index)
                    parts.append((index, (pos, block_id, _head(block_id), _tail(data, None),
                                          None, msg_id, base + index)))
                index += 1
            blocks[msg_id] = base + index
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                self.use(pos, block)
        return parts

    def use(self, pos: int, block: dict[str, Any]) -> None:
        """A tool call: its name by id, its command (a shell tool's), the paths it names."""
        out = self.out
        tool_id = block.get("id")
        name = block_name(block)
        if isinstance(tool_id, str):
            out.names[tool_id] = name
        payload = block.get("input")
        if not isinstance(payload, dict):
            return
        command = payload.get("command")
        if name in SHELL_TOOLS and isinstance(command, str) and command not in self.commands:
            self.commands.add(command)
            out.commands.append((pos, command))
        for key in PATH_KEYS:
            value = payload.get(key)
            if isinstance(value, str) and value.strip():
                self.path(pos, _relative(value.strip(), self.cwd))

    def path(self, pos: int, path: str) -> None:
        """A path a tool input names or an output holds, at its first use in the range."""
        if path not in self.paths:
            self.paths.add(path)
            self.out.paths.append((pos, path))

    def results(self, raw: dict[str, Any], pos: int, message: dict[str, Any],
                parts: list[tuple[int, Span]]) -> None:
        """The record's tool_result spans (a result's text hashed as ``show --block``
        prints it), filed in the order the index lists a record's blocks: its part 0,
        its results, then its other parts."""
        content = message.get("content")
        spans = self.out.spans
        rest = parts
        if parts and parts[0][0] == 0:
            spans.append(parts[0][1])
            rest = parts[1:]
        if isinstance(content, list):
            harvest = pos < self.harvest_end  # (else no record lists its harvest)
            for block in content:
                if not isinstance(block, dict) or block.get("type") != "tool_result":
                    continue
                tool_id = block.get("tool_use_id")
                if not isinstance(tool_id, str) or not tool_id:
                    continue
                text = classify.result_text(block)
                data = text_bytes(text)
                block_id = result_block_id(tool_id)
                spans.append((pos, block_id, _head(block_id),
                              _tail(data, _persisted_path(raw, text)), tool_id, None, 0))
                if not harvest:
                    continue
                for token in path_tokens(data):
                    self.path(pos, _relative(token, self.cwd))
                self.out.harvests.append((pos, _harvest(len(text), data)))
        spans.extend(span for _, span in rest)


_PERSISTED_BYTES = _PERSISTED.encode()


def _json_str(text: str) -> bytes:
    """A string as orjson writes it; a lone surrogate spelled out (``json_safe``)."""
    try:
        return orjson.dumps(text)
    except TypeError:
        from pysift.output.surrogates import escaped

        return orjson.dumps(escaped(text))


def _head(block_id: str) -> bytes:
    """A span's JSON up to the value of ``tool``."""
    return (b'{"blockId":' + _json_str(block_id) + b',"code":"' + block_code(block_id).encode()
            + b'","tool":')


def _tail(data: bytes, persisted: str | None) -> bytes:
    """A span's JSON after its turn: the size, line count and sha256 of the block's text
    (``data``) and, for a persisted output, the file it was saved to."""
    tail = b',"log":{"bytes":%d,"lines":%d},"sha256":"%s"' % (
        len(data), line_count(data), hashlib.sha256(data).hexdigest().encode())
    if persisted is not None:
        tail += b',"fullOutputPath":' + _json_str(persisted)
    return tail + b"}"


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


def _persisted_path(raw: dict[str, Any], text: str) -> str | None:
    """The file a persisted (externalised) output was saved to, when this one was."""
    if _PERSISTED not in text:
        return None
    tur = raw.get("toolUseResult")
    if isinstance(tur, dict) and isinstance(tur.get("persistedOutputPath"), str):
        return str(tur["persistedOutputPath"])
    marker = "Full output saved to: "
    at = text.find(marker)
    if at < 0:
        return None
    return text[at + len(marker):].split("\n", 1)[0].strip() or None


def _harvest(chars: int, data: bytes) -> Harvest:
    """One output's harvest (its error lines and identifiers)."""
    return Harvest(chars, error_lines(data), identifiers(data))


def _user_words(rec: Record) -> str | None:
    """The first line of what the human said in a record that opens a turn: a typed
    prompt's words (past the notices an IDE puts before them), the reason typed with a
    tool rejection, an AskUserQuestion's answers (the ``A<n>: …`` lines of the exchange
    verbatim renders, joined by a space; the synthesized answer string when the record
    carries no structured answers). None for an opener that is not the human (an inbound
    peer message)."""
    if classify.is_genuine_user(rec):
        return _first_line(_without_ide_notices(classify.raw_message_text(rec) or ""))
    reason = classify.rejection_message(rec)
    if reason is not None:
        return _first_line(reason)
    exchange = classify.auq_exchange(rec)
    if exchange is None:
        return None
    lines = exchange.split("\n")
    answers = [line.strip() for line in lines if _ANSWER_LINE.match(line)]
    return _first_line(" ".join(answers) if answers else classify.normalize_line(exchange))


# what an IDE extension puts before the words typed with them: the file open in the
# editor, the lines selected in it (``<ide_opened_file>…</ide_opened_file>``,
# ``<ide_selection>…</ide_selection>``), each in a text block of its own
_IDE_NOTICE = re.compile(r"\s*<(ide_[a-z_]+)>.*?</\1>\s*", re.DOTALL)


def _without_ide_notices(text: str) -> str:
    """A message's text past the IDE notices it opens with; the text itself when nothing
    but notices is left (then the notice is all there is to list)."""
    at = 0
    while (found := _IDE_NOTICE.match(text, at)) is not None:
        at = found.end()
    rest = text[at:]
    return rest if rest.strip() else text


# an answer line of ``auq_exchange`` (``A2: …``) or the note under it (``   note: …``)
_ANSWER_LINE = re.compile(r"A\d+: |   note: ")


def _first_line(text: str) -> str:
    """The first non-blank line of a message, at most 200 characters (199 and ``…``
    when longer)."""
    for line in text.split("\n"):
        line = line.strip()
        if line:
            return line if len(line) <= FIRST_LINE_CHARS else line[:FIRST_LINE_CHARS - 1] + "…"
    return ""


def _human_queued(text: str | None) -> str | None:
    """The first line of a queued text the human typed; None for none, or for a harness
    rider (a task notification, a peer message), whose delivered twin is no prompt."""
    if not is_human(text):
        return None
    assert text is not None
    return _first_line(_without_ide_notices(text)) or None


def scan_facts(buf: Buffer, *, cores: int = 1, cwd: str | None = None, subagent: bool
               ) -> list[Facts]:
    """The facts of a whole buffer (a file of ``subagent``'s kind), one per byte range in
    file order: a big buffer is read in pieces by two processes when the caller grants
    two cores."""
    pieces = min(MAX_PIECES, max(2, len(buf) // PIECE_BYTES))
    return fanout.in_pieces(partial(scan_range, cwd=cwd, harvest_end=last_boundary_key(buf),
                                    subagent=subagent),
                            buf, cores=cores, min_bytes=SPLIT_BYTES, pieces=pieces)


_BOUNDARY_VALUE = b"compact_boundary"
_SUMMARY_KEY = b"isCompactSummary"


def last_boundary_key(buf: Buffer) -> int:
    """Where the buffer's last ``compact_boundary`` or ``isCompactSummary`` bytes stand
    (-1: none): every fold point (a boundary record, or the summary of a compaction
    written without one) holds them after its line's start, so an output on a line
    starting past them comes after every fold point. SIMD searches back from the end."""
    from pysift.disk.lines import simd_search

    with simd_search(buf) as (_, rfind):
        return max(int(rfind(_BOUNDARY_VALUE, 0, len(buf))),
                   int(rfind(_SUMMARY_KEY, 0, len(buf))))


def fold_points(boundaries: Sequence[tuple[int, str | None, int | None]],
                summaries: Sequence[tuple[int, str | None]]
                ) -> list[tuple[int, str | None, int | None]]:
    """The compactions of a transcript, in file order: every boundary record, and every
    compaction summary with no boundary since the previous compaction (Claude Code 1.0.x
    compacted without writing a boundary; its summary, a new thread root, is the fold
    point, with no token count). A current compaction's summary follows its boundary and
    adds nothing."""
    if not summaries:
        return list(boundaries)
    events = sorted([(b[0], 0, b) for b in boundaries]
                    + [(o, 1, (o, at, None)) for o, at in summaries],
                    key=lambda e: (e[0], e[1]))
    points: list[tuple[int, str | None, int | None]] = []
    folded = False  # a boundary stands since the last summary
    for _offset, is_summary, point in events:
        if not is_summary:
            points.append(point)
            folded = True
        elif folded:
            folded = False
        else:
            points.append(point)
    return points


# -- records ----------------------------------------------------------------------------------


@dataclass
class FoldIndex:
    """One transcript's records (none when it has no compaction), its malformed lines
    (every one, csift's law), and ``error`` when the file could not be read."""

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
    return fanout.map_with_cores(_index, items, min_items=FANOUT_MIN_FILES,
                                 weights=[t.size() for t in items])


def _index(cores: int, transcript: Transcript) -> FoldIndex:
    try:
        return fold_index(transcript, cores=cores)
    except SourceError as exc:
        return FoldIndex(transcript, [], 0, error=str(exc))


def fold_index(transcript: Transcript, *, cores: int = 1) -> FoldIndex:
    """The fold-index records of one transcript (none when it has no compaction);
    ``cores``: the processes a big file's scan may use. The records' ``spans`` are
    ``RawJson`` (JSON already laid out: ``orjson.dumps(record, default=raw_json)``)."""
    buf = open_buffer(transcript.path)
    return assemble(transcript, buf, scan_facts(buf, cores=cores,
                                                cwd=read_first_cwd(transcript.path),
                                                subagent=transcript.is_subagent))


def _queued_prompts(ranges: list[Facts], turn_map: TurnMap) -> list[tuple[int, str]]:
    """The prompts typed while the agent worked and folded into its turn, paired as
    verbatim pairs them (``core.queued``): with the turn openers (drafts and replay
    copies left out), the riders delivered on their own and the assistant records,
    which resynchronise the queue."""
    queue = [q for f in ranges for q in f.queue]
    if not queue:
        return []
    openers = set(turn_map.opener_offsets)
    return queued_prompts(timeline(
        queue, [(o, message_key(raw)) for f in ranges for o, raw in f.openers if o in openers],
        [r for f in ranges for r in f.riders], [a for f in ranges for a in f.agents]))


def assemble(transcript: Transcript, buf: Buffer, ranges: list[Facts]) -> FoldIndex:
    """The records from the facts of consecutive byte ranges covering ``buf``."""
    malformed = sum(f.malformed for f in ranges)
    boundaries = fold_points([b for f in ranges for b in f.boundaries],
                             [m for f in ranges for m in f.summaries])
    if not boundaries:
        return FoldIndex(transcript, [], malformed)
    turn_map = turn_map_from_openers([(o, Record(raw, None)) for f in ranges
                                      for o, raw in f.openers], buf,
                                     subagent=transcript.is_subagent)
    names: dict[str, str | None] = {}
    for f in ranges:
        names.update(f.names)  # the last tool_use of an id names it
    span_offsets, span_json = _spans(ranges, turn_map, names)
    replays = turn_map.replay_offsets  # a re-anchor's copy of a prompt listed once
    said = [(o, line) for f in ranges for o, line in f.users if o not in replays]
    said += _queued_prompts(ranges, turn_map)
    said.sort(key=lambda item: item[0])
    users = [(o, {"turn": turn_map.turn_of_offset(o), "firstLine": line}) for o, line in said]
    user_offsets = [o for o, _ in users]
    commands = _first_seen(c for f in ranges for c in f.commands)
    command_offsets = [o for o, _ in commands]
    paths = _first_seen(p for f in ranges for p in f.paths)
    path_offsets = [o for o, _ in paths]
    harvests = [h for f in ranges for h in f.harvests]
    harvested = _Harvested()
    taken = 0
    records = []
    spans = _Prefixes(span_json)
    for seq, (offset, at, pre) in enumerate(boundaries, start=1):
        while taken < len(harvests) and harvests[taken][0] < offset:
            harvested.add(harvests[taken][1])
            taken += 1
        window = [h for o, h in harvests[:taken] if o >= offset - HARVEST_BYTES]
        errors, errors_dropped = harvested.errors()
        idents, idents_dropped = harvested.identifiers(window)
        record: dict[str, Any] = {
            "v": 2,
            "kind": "fold-index",
            "harness": "pysift",
            "session": transcript.session_id,
            "seq": seq,
            "at": at,
            "trigger": "compact",
            "usage": {"tokens": pre, "contextWindow": None, "fraction": None},
            "files": [p for _, p in paths[:bisect_left(path_offsets, offset)]],
            "commands": [c for _, c in commands[:bisect_left(command_offsets, offset)]],
            "errors": errors,
            "identifiers": idents,
            "userMessages": [u for _, u in users[:bisect_left(user_offsets, offset)]],
            "spans": spans.upto(bisect_left(span_offsets, offset)),
            "dropped": {"errors": errors_dropped, "identifiers": idents_dropped},
        }
        records.append(record)
    return FoldIndex(transcript, records, malformed)


class _Prefixes:
    """The JSON arrays of the first ``n`` spans for an ``n`` that never shrinks (the
    boundaries come in file order), each span joined once: only the part added since the
    last array is joined item by item."""

    def __init__(self, items: list[bytes]) -> None:
        self.items = items
        self.chunks: list[bytes] = []
        self.done = 0

    def upto(self, n: int) -> RawJson:
        if n > self.done:
            self.chunks.append(b",".join(self.items[self.done:n]))
            self.done = n
        return RawJson(b"[" + b",".join(self.chunks) + b"]")


class RawJson:
    """JSON already laid out (a record's ``spans``). Not an ``orjson.Fragment``: that
    cannot be pickled, and a fold index made in a forked worker comes back as a pickle;
    a writer passes ``default=raw_json`` to ``orjson.dumps``. (No dataclass: orjson would
    write one as an object instead of calling ``default``.)"""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data


def raw_json(obj: object) -> orjson.Fragment:
    """``orjson.dumps``'s ``default``: a ``RawJson`` is written as it is."""
    if isinstance(obj, RawJson):
        return orjson.Fragment(obj.data)
    raise TypeError(f"{type(obj).__name__} is not JSON serializable")


def _first_seen(items) -> list[tuple[int, str]]:  # type: ignore[no-untyped-def]
    seen: set[str] = set()
    out = []
    for offset, value in items:
        if value not in seen:
            seen.add(value)
            out.append((offset, value))
    return out


def _spans(ranges: list[Facts], turn_map, names: dict[str, str | None]  # type: ignore[no-untyped-def]
           ) -> tuple[list[int], list[bytes]]:
    """Every block's span in file order, the first occurrence of each block id: offsets
    and JSON. A range's part numbers continue those of the ranges before it (a message
    whose records straddle a split); the tool name (the last tool_use of that id) and the
    turn are filled in here, where the whole file is known."""
    openers, drafts = turn_map.opener_offsets, turn_map.draft_offsets
    last_opener = len(openers)
    tools: dict[str | None, bytes] = {None: b"null"}
    counts: dict[str, int] = {}
    seen: set[str] = set()
    offsets: list[int] = []
    out: list[bytes] = []
    k = 0
    turn_json = b',"turn":0'
    for facts in ranges:
        for offset, block_id, head, tail, tool_id, msg_id, part in facts.spans:
            if msg_id is not None:
                base = counts.get(msg_id)
                if base:
                    block_id = assistant_block_id(msg_id, base + part)
                    head = _head(block_id)
            if block_id in seen:
                continue
            seen.add(block_id)
            if k < last_opener and openers[k] <= offset:
                while k < last_opener and openers[k] <= offset:
                    k += 1
                turn_json = b',"turn":%d' % (k - 1 if k else 0)
            if tool_id is None:
                tool_json = b"null"
            else:
                name = names.get(tool_id)
                tool_json = tools.get(name)  # type: ignore[assignment]
                if tool_json is None:
                    tool_json = tools[name] = _json_str(name)
            offsets.append(offset)
            if drafts and offset in drafts:
                out.append(head + tool_json + b',"turn":null' + tail)
            else:
                out.append(head + tool_json + turn_json + tail)
        for msg_id, n in facts.blocks.items():
            counts[msg_id] = counts.get(msg_id, 0) + n
    return offsets, out


@lru_cache(maxsize=1 << 16)
def _relative(path: str, cwd: str | None) -> str:
    """A path relative to the session's first cwd when it lies under it. A Windows cwd
    (``D:\\Work``, a UNC share) takes a path under it whatever its case (``d:\\work``)
    and either separator; the rest keeps the spelling the transcript has."""
    if not cwd:
        return path
    base = cwd.rstrip("/\\")
    if is_windows_rooted(cwd):
        n = len(base)
        if (len(path) > n + 1 and path[n] in "/\\"
                and _fold(path[:n]) == _fold(base)):
            return path[n + 1:]
    elif os.path.isabs(path) and (path.startswith(base + "/")
                                  or path.startswith(base + "\\")):
        return path[len(base) + 1:]
    return path


# a Windows absolute path: a drive letter and a separator, or a UNC share


def _fold(path: str) -> str:
    """A Windows path compared as Windows does: case ignored, either separator."""
    return path.replace("/", "\\").lower()


class _Harvested:
    """The harvest of every tool output before a boundary, grown output by output in file
    order (the boundaries come in file order too, so each output is added once)."""

    def __init__(self) -> None:
        self.first: dict[str, int] = {}  # error line -> its first place
        self.lines: list[str] = []  # every error line, in order
        self.counts: Counter[str] = Counter()  # identifier -> occurrences
        self.large: set[str] = set()  # identifiers seen in a large output
        self.newest: dict[str, int] = {}  # identifier -> its last place
        self.tokens = 0

    def add(self, harvest: Harvest) -> None:
        errors, tokens = harvest.errors, harvest.identifiers
        if errors:
            places = range(len(self.lines), len(self.lines) + len(errors))
            earliest = dict(zip(reversed(errors), reversed(places)))
            first = self.first
            first.update({line: at for line, at in earliest.items() if line not in first})
            self.lines += errors
        if tokens:
            self.counts.update(tokens)
            if harvest.chars >= LARGE_OUTPUT:
                self.large.update(tokens)
            self.newest.update(zip(tokens, range(self.tokens, self.tokens + len(tokens))))
            self.tokens += len(tokens)

    def errors(self) -> tuple[list[str], int]:
        """The newest ``ERRORS_CAP`` distinct error lines (by last occurrence), listed
        in the order they first occurred; and how many older ones the cap dropped. Read
        back from the newest line until the cap (or every distinct line) is met: the
        first ``ERRORS_CAP`` distinct lines met so are those whose last places are the
        greatest."""
        first = self.first
        want = min(ERRORS_CAP, len(first))
        kept: dict[str, None] = {}
        for line in reversed(self.lines):
            if len(kept) == want:
                break
            kept[line] = None
        newest = sorted(kept, key=first.__getitem__)
        return newest, len(first) - len(newest)

    def identifiers(self, window: list[Harvest]) -> tuple[list[str], int]:
        """At most 64 identifiers: those of the outputs in ``window`` (the last
        ``HARVEST_BYTES`` before the boundary: the capped fields favour recent blocks)
        first, ranked within it; then, while room is left, those of older outputs ranked
        over the whole history. Each ranking puts tokens of large outputs first, then
        rarer, longer, newer, then code-point order. The count of every other distinct
        identifier of the history is what the cap dropped."""
        kept = _ranked(window)[:IDENTIFIERS_CAP]
        room = IDENTIFIERS_CAP - len(kept)
        if room > 0 and len(self.counts) > len(kept):
            counts, large, newest = self.counts, self.large, self.newest
            chosen = set(kept)
            kept += heapq.nsmallest(
                room, (t for t in counts if t not in chosen),
                key=lambda t: (t not in large, counts[t], -len(t), -newest[t], t))
        return kept, len(self.counts) - len(kept)


def _ranked(window: list[Harvest]) -> list[str]:
    """The identifiers of ``window``: tokens of large outputs first, then rarer, longer,
    newer, then in code-point order."""
    counts: Counter[str] = Counter()
    large: set[str] = set()
    newest: dict[str, int] = {}
    position = 0
    for harvest in window:
        counts.update(harvest.identifiers)
        if harvest.chars >= LARGE_OUTPUT:
            large.update(harvest.identifiers)
        for token in harvest.identifiers:
            newest[token] = position  # the token's last place in the window
            position += 1
    return sorted(counts, key=lambda t: (t not in large, counts[t], -len(t), -newest[t], t))
