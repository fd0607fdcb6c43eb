"""One-scan aggregates per transcript for ``stats`` (SPEC §6.12).

The scan is built for the 225 MB session: it never parses the whole file at once. One
forward walk over the newlines (C-level ``find``) counts the physical lines and hands each
line to simdjson once, which validates it (the exact census of malformed lines) and reads
its TOP-LEVEL ``type``; a line of any type but user and assistant is then counted with no
further work. Assistant lines (tokens, models, tools, thinking signatures) are read with
msgspec; user lines, and the rare lines simdjson refuses or cannot type, are settled by
the byte reading below (``_line_settler``), which is also the reference the tests hold
the scan to (``scan_by_probe``).

Reading ``type`` off the bytes is exact, not a guess. In compact JSON a quote inside a
string is escaped, so a raw ``"type":"`` is always a key, and a key sits inside an object
that opens before it and closes after it. So the FIRST such key is the record's own when
no ``{`` precedes it on the line, and the LAST one is when no ``}`` follows it before the
line's closing brace (a brace inside a string only sends the line to the decoder). Claude
Code writes both shapes: ``type`` before the payload on user/system/progress lines, after
it on assistant/attachment lines. A line neither test settles, or one whose serializer
spaces its colons, is decoded.

A user record's own ``timestamp`` comes from the same simdjson parse when it is an ASCII
string; any other is read as the byte proof always read it, without decoding the (often
huge) tool_result carrier: the last timestamp key before the record's ``toolUseResult``
(or before the closing brace) with no ``}`` in between. A ``BashOutput`` echo carries a nested
``timestamp`` of its own inside ``toolUseResult``, which is why the cut exists.

Malformed lines: a line simdjson accepts is a valid object (csift's full-scan law: a
framed line with a broken inside counts as malformed, not under its type), unless it
opens with a byte order mark, which simdjson skips and the decoder refuses; one it refuses
goes to the settler, where a non-blank line that is not ``{…}``-framed is decoded (and
counted by the decoder's tally), and a framed line whose type the bytes settle is
validated whole (``LineValidator``: simdjson, then the decoder's own law for what simdjson
is stricter about, a big integer or a lone surrogate escape).

Counting law (§6.12, v0.9.2 TOKEN CORRECTION): Claude Code writes one line per content
block and repeats the identical ``message.usage`` on each, so usage is deduplicated per
FILE by ``message.id`` with a per-field MAX (a compaction replay re-writes an id with
zeroed usage); an id-less record counts alone. Scope totals sum the per-file rows and
never dedupe across files (a spawn message copied into each child is a fact of each).
"""

from __future__ import annotations

import io
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import field
from datetime import datetime
from itertools import chain
from operator import itemgetter
from typing import TYPE_CHECKING, Any, NamedTuple

import orjson

from pysift.core.classify import could_open_turn, narration_tag
from pysift.core.decode import LineValidator, Tally, decode
from pysift.core.grammar.ranges import RangeSpec
from pysift.core.rawjson import at_top_level, layouts, type_needles
from pysift.core.timez import all_in_cc_shape, in_cc_shape, parse_ts, readable_span, within
from pysift.core.turns import (
    CARRIER_OPENER_WORDS,
    TurnMap,
    is_plain_carrier,
    turn_map_from_openers,
)
from pysift.disk import fanout
from pysift.disk.gcpause import paused_gc
from pysift.disk.layout import Transcript
from pysift.disk.lines import Buffer, count_in, iter_spans
from pysift.disk.mapped import keep_big_reads_on_the_heap, open_buffer_stat
from pysift.errors import SourceError
from pysift.model.fastdata import dataclass
from pysift.model.record import Record

if TYPE_CHECKING:
    from pysift.disk.cache import Store

UNKNOWN_MODEL = "(unknown)"
UNNAMED_TOOL = "(unnamed)"
UNTYPED = "(untyped)"
NARRATION = "narration"
THINKING = "thinking"

# From this size on, one transcript's scan and its turn grouping share every core.
SPLIT_MIN_BYTES = 32 * 1024 * 1024
# Files below this size are read whole into ``bytes`` (on a heap that keeps its pages:
# ``mapped.keep_big_reads_on_the_heap``), a bigger one is mapped (its split scan shares
# the mapping). Measured over B's 2,437 files, most of them 256 KiB to 4 MiB: ~8% less
# CPU than mapping every file past 256 KiB (no page faults per file, no mapping set up).
READ_WHOLE_BYTES = SPLIT_MIN_BYTES

_TYPE_KEY = b'"type":"'
_TS_KEY = b'"timestamp":"'
_TOOL_USE_RESULT_KEY = b',"toolUseResult":'
_OPEN = 0x7B  # "{"
_CLOSE = 0x7D  # "}"

USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_read_input_tokens",
                "cache_creation_input_tokens")

Usage = tuple[int, int, int, int]


# -- per-record facts (what the windows filter) ----------------------------------------------


class UserFact(NamedTuple):
    line: int
    ts: str | None
    compact: bool


class AssistantFact(NamedTuple):
    line: int
    ts: str | None
    model: str
    message_id: str | None
    usage: Usage | None
    tools: tuple[str, ...]
    narration: int
    unknown_tags: int


@dataclass
class FileScan:
    """The window-independent facts of one transcript (or of one byte range of it).

    Facts are tuples on purpose: a big file's scan crosses a process boundary, and tuples
    pickle several times faster than class instances (a worker even hands back plain
    tuples, so ``aggregate`` unpacks them by position).
    """

    lines: int = 0
    line_types: dict[str, int] = field(default_factory=dict)
    skipped_lines: int = 0
    users: list[UserFact] = field(default_factory=list)
    assistants: list[AssistantFact] = field(default_factory=list)
    # the turn openers: (offset of the line, its decoded object), in file order, and the
    # line number of each (the scan counts lines: the map needs no newline count for them);
    # a subagent's record of a main transcript among them too (``turn_map_of`` drops it)
    openers: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    opener_numbers: list[int] = field(default_factory=list)

    def extend(self, later: FileScan) -> None:
        """Append the scan of the byte range that follows this one (its line numbers
        already count from the start of the file)."""
        self.users.extend(later.users)
        self.assistants.extend(later.assistants)
        self.openers.extend(later.openers)
        self.opener_numbers.extend(later.opener_numbers)
        for name, n in later.line_types.items():
            self.line_types[name] = self.line_types.get(name, 0) + n
        self.lines += later.lines
        self.skipped_lines += later.skipped_lines


# -- the byte scan ---------------------------------------------------------------------------


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def thinking_tag_kind(signature: object) -> str | None:
    """``narration``, ``unknown`` or None (plain thinking) for one thinking signature.

    The decode is ``classify.narration_tag`` (protobuf path 2→1→8, whole string); every
    failure there is None, i.e. plain thinking, never an unknown tag.
    """
    tag = narration_tag(signature)
    if tag is None or tag == THINKING:
        return None
    return NARRATION if tag == NARRATION else "unknown"


def _usage(raw: object) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    get = raw.get
    return _counts(get("input_tokens"), get("output_tokens"),
                   get("cache_read_input_tokens"), get("cache_creation_input_tokens"))


def _counts(a: Any, b: Any, c: Any, d: Any) -> Usage:
    # bool is not a count (type(True) is not int)
    return (a if type(a) is int else 0, b if type(b) is int else 0,  # noqa: E721
            c if type(c) is int else 0, d if type(d) is int else 0)  # noqa: E721


def assistant_fact(obj: dict[str, Any], line: int) -> AssistantFact:
    """The countable facts of one decoded assistant record (tolerant of any shape)."""
    message = obj.get("message")
    if not isinstance(message, dict):
        message = {}
    model = message.get("model")
    if not isinstance(model, str) or not model:
        model = UNKNOWN_MODEL
    tools: list[str] = []
    narration = unknown = 0
    content = message.get("content")
    if isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "tool_use":
                name = block.get("name")
                tools.append(name if isinstance(name, str) else UNNAMED_TOOL)
            elif kind == "thinking":
                tag = thinking_tag_kind(block.get("signature"))
                if tag == NARRATION:
                    narration += 1
                elif tag is not None:
                    unknown += 1
    message_id = message.get("id")
    ts = obj.get("timestamp")
    return AssistantFact(line, ts if isinstance(ts, str) else None, model,
                         message_id if isinstance(message_id, str) and message_id else None,
                         _usage(message.get("usage")), tuple(tools), narration, unknown)


def _user_fact(obj: dict[str, Any], line: int) -> UserFact:
    return UserFact(line, _str(obj.get("timestamp")), obj.get("isCompactSummary") is True)


def _decoded_type(obj: dict[str, Any]) -> str:
    name = obj.get("type")
    return name if isinstance(name, str) else UNTYPED


# -- an assistant line read for what stats counts, and nothing else ---------------------------
#
# msgspec reads the line into the structs of ``stats_lines`` (only the counted fields are
# built; measured ~5x faster than orjson's decode of these lines). Any shape the structs
# cannot hold sends the line to orjson, as does invalid UTF-8 inside a string msgspec
# stepped over (orjson refuses such a line); an integer beyond 64 bits counts 0, as
# orjson's float would (``_wide_usage``). One difference is kept and documented (SPEC
# §9): msgspec reads a number beyond a double's range (``1e400``, which no JSON writer
# Claude Code uses can produce) where orjson calls the line malformed.

_struct_decoder: Any = None
_strict_decode: Any = None
_astuple: Any = None


def _decoder() -> Any:
    global _struct_decoder, _strict_decode, _astuple
    if _struct_decoder is None:
        from msgspec.structs import astuple

        from pysift.engines.stats_lines import decoder, strict_decoder

        _struct_decoder, _strict_decode, _astuple = decoder, strict_decoder.decode, astuple
    return _struct_decoder


def read_assistant(data: bytes, line: int, utf8: bool = False) -> AssistantFact | None:
    """The facts of the assistant record ``data`` (one line's bytes); None when the line
    is no JSON object or no assistant record (the decoder then settles and counts it).
    ``utf8``: simdjson accepted the line, so it is valid UTF-8 and holds no integer
    beyond 64 bits (simdjson refuses one).

    The line is read with the strict shape first (``stats_lines.StrictLine``: facts ready
    to use), then, when it does not fit, with the loose one, then with orjson."""
    if _strict_decode is None:
        _decoder()
    try:
        rec = _strict_decode(data)
    except Exception:  # noqa: BLE001 - msgspec's Decode/ValidationError, RecursionError
        return _read_loose(data, line, utf8)
    if not (utf8 or data.isascii() or _utf8(data)):
        return _read_loose(data, line, utf8)
    if rec.type != "assistant":
        return None
    message = rec.message
    if message is None:
        return _new_fact(AssistantFact, (line, rec.timestamp, UNKNOWN_MODEL, None, None, (),
                                         0, 0))
    content = message.content
    tools, narration, unknown = (_block_facts(content) if content and content.__class__ is list
                                 else _NO_BLOCKS)
    usage = message.usage
    if usage is not None:
        usage = _astuple(usage)
        if not utf8 and (max(usage) > _INT_MAX or min(usage) < _INT_MIN):
            usage = tuple(v if _INT_MIN <= v <= _INT_MAX else 0 for v in usage)
    return _new_fact(AssistantFact, (line, rec.timestamp, message.model, message.id, usage,
                                     tools, narration, unknown))


_new_fact = tuple.__new__  # a NamedTuple built without its Python-level ``__new__``
_NO_BLOCKS: tuple[tuple[str, ...], int, int] = ((), 0, 0)


def _block_facts(content: list[Any]) -> tuple[tuple[str, ...], int, int]:
    """The tool calls by name, the narration blocks and the unknown thinking tags of a
    content list of msgspec-read blocks (``stats_lines.Block`` or ``StrictBlock``)."""
    names: list[str] = []
    narration = unknown = 0
    for block in content:
        kind = block.type
        if kind == "tool_use":
            name = block.name
            names.append(name if name.__class__ is str else UNNAMED_TOOL)
        elif kind == "thinking":
            tag = thinking_tag_kind(block.signature)
            if tag == NARRATION:
                narration += 1
            elif tag is not None:
                unknown += 1
    return (tuple(names) if names else ()), narration, unknown


def _read_loose(data: bytes, line: int, utf8: bool) -> AssistantFact | None:
    """``read_assistant`` of a line the strict shape does not fit: the loose shape (any
    value, judged here), else orjson."""
    try:
        rec = _decoder().decode(data)
    except Exception:  # noqa: BLE001 - msgspec's Decode/ValidationError, RecursionError
        rec = None
    if rec is not None and (utf8 or data.isascii() or _utf8(data)):
        if rec.type != "assistant":
            return None
        message = rec.message
        ts = rec.timestamp
        if message is None:
            return AssistantFact(line, ts if isinstance(ts, str) else None, UNKNOWN_MODEL,
                                 None, None, (), 0, 0)
        content = message.content
        tools_seen, narration, unknown = (_block_facts(content)
                                          if content and not isinstance(content, str)
                                          else _NO_BLOCKS)
        model, message_id = message.model, message.id
        return AssistantFact(line, ts if isinstance(ts, str) else None,
                             model if isinstance(model, str) and model else UNKNOWN_MODEL,
                             message_id if isinstance(message_id, str) and message_id
                             else None, _wide_usage(message.usage), tools_seen, narration,
                             unknown)
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    if isinstance(obj, dict) and obj.get("type") == "assistant":
        return assistant_fact(obj, line)
    return None


_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1  # orjson's int range; beyond it, a float


def _wide_usage(raw: Any) -> Usage | None:
    """``_usage`` of a msgspec-read usage struct (``stats_lines.Usage`` or None): msgspec
    keeps an integer of any size, orjson reads one outside 64 bits as a float, which is no
    count (0)."""
    if raw is None:
        return None
    usage = _counts(raw.input_tokens, raw.output_tokens, raw.cache_read_input_tokens,
                    raw.cache_creation_input_tokens)
    if max(usage) > _INT_MAX or min(usage) < _INT_MIN:
        return tuple(v if _INT_MIN <= v <= _INT_MAX else 0  # type: ignore[return-value]
                     for v in usage)
    return usage


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# -- user lines ------------------------------------------------------------------------------


class _Keys(NamedTuple):
    """The byte spellings of the keys the scan reads, in one file's JSON layout."""

    type: bytes
    timestamp: bytes
    tool_use_result: bytes
    users: tuple[bytes, ...]  # the "type":"user" key in every layout the file uses
    results: tuple[bytes, ...]  # the "type":"tool_result" key, likewise


def _keys(buf: Buffer) -> _Keys:
    found = layouts(buf)
    spaced = found == (True,)  # a mixed file reads the compact spelling (the rest decoded)
    return _Keys(b'"type": "' if spaced else b'"type":"',
                 b'"timestamp": "' if spaced else b'"timestamp":"',
                 b', "toolUseResult": ' if spaced else b',"toolUseResult":',
                 type_needles(buf, "user", found), type_needles(buf, "tool_result", found))


def _user_timestamp(buf: Buffer, start: int, end: int, keys: _Keys = None  # type: ignore[assignment]
                    ) -> str | None:
    """A user record's own ``timestamp`` read off the bytes; None when not proven (the
    caller decodes the line, which also settles a record that has no timestamp).

    The candidate is the last ``"timestamp":"`` key before the first ``,"toolUseResult":``
    (message content cannot hold that key: it is only ever structural at the record's
    level) or before the closing brace, accepted only when no ``}`` lies between its
    value and that cut, so no object enclosing it closes there.
    """
    ts_key, cut_key = ((_TS_KEY, _TOOL_USE_RESULT_KEY) if keys is None
                       else (keys.timestamp, keys.tool_use_result))
    find = buf.find
    cut = find(cut_key, start, end)
    stop = end - 1 if cut < 0 else cut
    key = buf.rfind(ts_key, start, stop)
    if key < 0:
        return None
    value_start = key + len(ts_key)
    value_end = find(b'"', value_start, stop)
    if value_end < 0 or find(b"}", value_end, stop) >= 0:
        return None
    value = buf[value_start:value_end]
    if b"\\" in value:
        return None
    # as the decoder reads it (it read as ASCII, and `é` became two U+FFFD); a line that
    # is no valid UTF-8 is malformed, which its validation settles apart
    return value.decode("utf-8", "replace")


# Words whose presence in a user line changes how it is read: a compaction summary is
# decoded whole, and a carrier holding an opener word has every block looked at.
_COMPACT_NAME = b'"isCompactSummary"'
_RARE_WORDS = (_COMPACT_NAME, *CARRIER_OPENER_WORDS)
_rare_words: Any = None
_CONTENT_ARRAY = b'"content":['


def _words_finder() -> Any:
    """``findall(data[, lo, hi])`` of the Rust regex crate's multi-literal search for
    ``_RARE_WORDS`` (SIMD; ``bytes`` are searched in place)."""
    global _rare_words
    if _rare_words is None:
        import rurex

        _rare_words = rurex.compile(b"|".join(_RARE_WORDS))
    return _rare_words.findall


def scan_range(buf: Buffer, lo: int = 0, hi: int | None = None, first_line: int = 1
               ) -> FileScan:
    """Scan the lines of ``buf[lo:hi]`` (``lo`` at a line start, ``hi`` just after a newline
    or at the end); the line at ``lo`` is numbered ``first_line``.

    Every line is first parsed by simdjson, which both validates it (the full census of
    malformed lines) and reads its top-level ``type``: a line of any other type is
    counted at once (most lines: attachments, snapshots, system records), an assistant
    line is read for its facts (``read_assistant``), a user line goes through the byte
    reading of ``_line_settler`` with its validation already done. A line simdjson
    refuses or that names no string type (a blank, torn or junk line, a big integer, a
    lone surrogate escape, a record without a type), and a line of another type that
    does not open with ``{`` (simdjson skips a leading UTF-8 byte order mark, which the
    decoder refuses; user and assistant lines meet the law on their own paths), is
    settled by ``_line_settler`` alone, the per-line law, so the answer is the same line for line as
    ``scan_by_probe``'s (duplicate top-level ``type`` keys aside: see SPEC §12).

    Measured in one process over every third file of corpus B (about 500 MB, same run,
    load 4-8): 1.99-2.17 s of CPU with the byte probe of every line followed by a
    separate validation (``scan_by_probe``), 1.45 s with the one parse (census lines
    2.9 -> 1.3 us each; an assistant line is parsed twice, simdjson then msgspec, for no
    more than the probe cost). Twelfth session, same subset, instructions (callgrind):
    796M -> 680M, from the lines taken by the buffer's own line reader (``_lines_from``),
    an assistant line read by the strict structs (``read_assistant``), and the thinking
    signatures' alphabet checked by a SIMD set search (``signature._fast_tag``).
    """
    stop = len(buf) if hi is None else hi
    out = FileScan()
    by_name = out.line_types
    assistants = out.assistants
    settle, tally = _line_settler(buf, out)
    parse = _parser()
    pos, line = lo, first_line - 1
    for data in _lines_from(buf, lo):
        # ``data`` ends with its newline, if it has one (JSON reads it as white space)
        if pos >= stop:
            break
        line += 1
        nxt = pos + len(data)
        if nxt > stop:  # a range cut inside a line (callers cut after a newline)
            data = data[:stop - pos]
            nxt = stop
        try:
            doc = parse(data)
            kind = doc.get("type")
            # a user record's own timestamp, as the byte reading would give it: an ASCII
            # string (a raw non-ASCII one reads differently there: the settler decides)
            ts = doc.get("timestamp") if kind == "user" else None
        except _REFUSED:
            kind = ts = None
        doc = None  # the proxy is dropped at once: the parser is reused line after line
        if kind.__class__ is not str:
            settle(pos, nxt - 1 if data[-1] == _NEWLINE else nxt, line, False, None)
        elif kind == "assistant":
            fact = read_assistant(data, line, True)
            if fact is None:  # not what the parse said after all: the law settles it
                settle(pos, nxt - 1 if data[-1] == _NEWLINE else nxt, line, True, None)
            else:
                by_name["assistant"] = by_name.get("assistant", 0) + 1
                assistants.append(fact)
        elif kind == "user":
            settle(pos, nxt - 1 if data[-1] == _NEWLINE else nxt, line, True,
                   ts if ts.__class__ is str and ts.isascii() else None)
        elif data[0] == _OPEN:
            by_name[kind] = by_name.get(kind, 0) + 1
        else:  # simdjson skips a leading byte order mark, the decoder does not: the law
            settle(pos, nxt - 1 if data[-1] == _NEWLINE else nxt, line, False, None)
        pos = nxt
    out.lines = line - (first_line - 1)
    out.skipped_lines = tally.malformed
    return out


_NEWLINE = 0x0A


def _lines_from(buf: Buffer, lo: int) -> Iterator[bytes]:
    """The lines of ``buf`` from offset ``lo`` on, each with its newline (the last one may
    have none), by the buffer's own C-level line reader: ``io.BytesIO`` over ``bytes``
    (it shares them, no copy), an mmap's ``readline`` from ``lo`` (the mapping's position
    is this process's own). Measured ~13% fewer instructions for the per-line loop than a
    ``find`` and a slice per line (``bytes.find`` parses its three arguments the slow way).
    """
    if isinstance(buf, bytes):
        source = io.BytesIO(buf)
        source.seek(lo)
        return source
    buf.seek(lo)
    return iter(buf.readline, b"")


# What a line simdjson cannot type raises: its parse errors (ValueError, UnicodeDecodeError
# among them), and a JSON value that is no object (no ``get``).
_REFUSED = (ValueError, RuntimeError, AttributeError, TypeError)


def _parser() -> Any:
    """A fresh simdjson parser's ``parse`` (one per scan: a parser holds one document)."""
    import simdjson

    return simdjson.Parser().parse


def scan_by_probe(buf: Buffer, lo: int = 0, hi: int | None = None, first_line: int = 1
                  ) -> FileScan:
    """``scan_range`` with every line settled by ``_line_settler`` (the byte probe, then a
    separate validation): the reference the tests hold ``scan_range`` to."""
    out = FileScan()
    settle, tally = _line_settler(buf, out)
    for out.lines, (start, end) in enumerate(iter_spans(buf, lo, hi), 1):
        settle(start, end, first_line - 1 + out.lines, False, None)
    out.skipped_lines = tally.malformed
    return out


def _line_settler(buf: Buffer, out: FileScan
                  ) -> tuple[Callable[[int, int, int, bool, str | None], None], Tally]:
    """``settle(pos, end, line, validated, ts)``: count the line ``buf[pos:end]`` into
    ``out`` (its type, its facts, a turn opener, or one malformed line) by the per-line
    law; ``validated``: the line is already known to be a valid JSON object; ``ts``: a
    user record's own timestamp when already read (an ASCII string, which the byte
    reading would give too), else None. The tally returned with it counts the malformed
    lines.

    The type is read straight off the bytes where that is proven (see the module
    docstring); only assistant lines and the rare lines the byte probe cannot settle go
    through a decoder. It also collects the turn openers (``FileScan.openers``), deciding
    each user line exactly as ``turns.build_turn_map`` does, so no second walk is needed
    for the turn map (the records that open a turn in either kind of file: ``turn_map_of``
    applies the file's kind).
    """
    by_name = out.line_types
    users, assistants, openers = out.users, out.assistants, out.openers
    opener_numbers = out.opener_numbers
    tally = Tally()
    keys = _keys(buf)
    type_key, user_keys, result_keys = keys.type, keys.users, keys.results
    key_len = len(type_key)
    # one spelling of each key: a plain carrier is recognised inline (see below)
    simple = len(user_keys) == 1 and len(result_keys) == 1 and type_key == b'"type":"'
    result_key = result_keys[0]
    words_in = _words_finder()
    in_place = isinstance(buf, bytes)
    check: list[LineValidator] = []
    find, rfind = buf.find, buf.rfind

    def valid(data: bytes) -> bool:
        if not check:
            check.append(LineValidator())
        return check[0](data)

    def settle(pos: int, end: int, line: int, validated: bool, known_ts: str | None) -> None:
        # kind: the type read off the bytes; None = not proven (decode the line below);
        # b"" = this line is already counted.
        kind: bytes | None = None
        first_key = True  # the type key proven is the line's first one
        key = -1
        if end > pos and buf[pos] == _OPEN and buf[end - 1] == _CLOSE:
            key = find(type_key, pos, end)
            if key > pos + 1 and find(b"{", pos + 1, key) >= 0:
                first_key = False
                key = rfind(type_key, key, end)
                if rfind(b"}", key, end - 1) >= 0:
                    key = -1
            if key >= 0:
                value_end = find(b'"', key + key_len, end)
                if value_end >= 0:
                    kind = buf[key + key_len : value_end]
                    # an escape, or an empty name (b"" means "counted" below): decoded
                    if not kind or b"\\" in kind:
                        kind = None
        if kind == b"assistant":
            fact = read_assistant(buf[pos:end], line, validated)
            if fact is not None:
                by_name["assistant"] = by_name.get("assistant", 0) + 1
                assistants.append(fact)
                kind = b""  # done
            else:
                kind = None  # not what the bytes said: the decoder settles and counts it
        elif kind == b"user":
            words = words_in(buf, pos, end) if in_place else words_in(buf[pos:end])
            if not (words and _COMPACT_NAME in words):  # a summary is decoded whole, below
                kind = b""
                ts = known_ts or _user_timestamp(buf, pos, end, keys)
                rec = None
                if ts is None:
                    rec = decode(buf[pos:end], line, tally)
                    ts = rec.timestamp if rec is not None else None
                elif not (validated or valid(buf[pos:end])):
                    tally.malformed += 1  # framed, broken inside: malformed (the law)
                    ts = None
                if ts is not None or rec is not None:  # else malformed after all: counted
                    by_name["user"] = by_name.get("user", 0) + 1
                    users.append(_new_fact(UserFact, (line, ts, False)))
                    # A plain carrier, as ``is_plain_carrier`` judges it: the file spells
                    # each key one way, no opener word is in the line, the line's first
                    # type key is the user key (so the first tool_result key comes after
                    # it), a content array opens before that block, and the user key
                    # stands at the top level.
                    plain = False
                    if simple and first_key and not words:
                        block = find(result_key, key, end)
                        plain = (block >= 0 and find(_CONTENT_ARRAY, pos, block) >= 0
                                 and at_top_level(buf, pos, key))
                    if not plain and not is_plain_carrier(
                            buf, pos, end, user_keys, result_keys,
                            words_absent=not any(w != _COMPACT_NAME for w in words)):
                        if rec is None:
                            rec = decode(buf[pos:end], line)
                        if rec is not None and could_open_turn(rec):
                            openers.append((pos, rec.raw))
                            opener_numbers.append(line)
        if kind is None or kind == b"user":
            rec = decode(buf[pos:end], line, tally)
            if rec is not None:
                obj = rec.raw
                name = _decoded_type(obj)
                by_name[name] = by_name.get(name, 0) + 1
                if name == "assistant":
                    assistants.append(assistant_fact(obj, line))
                elif name == "user":
                    users.append(_user_fact(obj, line))
                    if (any(find(k, pos, end) >= 0 for k in user_keys)
                            and not is_plain_carrier(buf, pos, end, user_keys, result_keys)
                            and could_open_turn(rec)):
                        openers.append((pos, obj))
                        opener_numbers.append(line)
        elif kind:
            if validated or valid(buf[pos:end]):
                name = kind.decode("utf-8", "replace")
                by_name[name] = by_name.get(name, 0) + 1
            else:
                tally.malformed += 1

    return settle, tally


def split_points(buf: Buffer, parts: int) -> list[int]:
    """Newline-aligned cut offsets dividing ``buf`` into ``parts`` ranges."""
    size = len(buf)
    cuts = [0]
    for k in range(1, parts):
        nl = buf.find(b"\n", size * k // parts)
        cut = size if nl < 0 else nl + 1
        if cut > cuts[-1]:
            cuts.append(cut)
    if cuts[-1] != size:
        cuts.append(size)
    return cuts


# -- windows and aggregation ------------------------------------------------------------------


@dataclass(frozen=True)
class Window:
    """What the counted records must satisfy: a time bound and/or a turn range (AND)."""

    since: datetime | None = None
    until: datetime | None = None
    turns: RangeSpec | None = None

    @property
    def timed(self) -> bool:
        return self.since is not None or self.until is not None

    def admits_ts(self, raw: str | None) -> bool:
        """A record with no (parseable) timestamp never falls inside a bounded window."""
        return within(raw, self.since, self.until)


@dataclass
class TokenSums:
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_creation: int = 0

    def add(self, usage: Sequence[int]) -> None:
        self.input += usage[0]
        self.output += usage[1]
        self.cache_read += usage[2]
        self.cache_creation += usage[3]

    def merge(self, other: TokenSums) -> None:
        self.add((other.input, other.output, other.cache_read, other.cache_creation))

    def as_json(self) -> dict[str, int]:
        return {"input": self.input, "output": self.output, "cache_read": self.cache_read,
                "cache_creation": self.cache_creation}


@dataclass
class SessionStats:
    """One transcript's row."""

    transcript: Transcript
    lines: int = 0
    line_types: dict[str, int] = field(default_factory=dict)
    skipped_lines: int = 0
    user_records: int = 0
    assistant_records: int = 0
    turns: int = 0
    compactions: int = 0
    first_ts: str | None = None
    last_ts: str | None = None
    tokens: dict[str, TokenSums] = field(default_factory=dict)
    narration_blocks: dict[str, int] = field(default_factory=dict)
    unknown_thinking_tags: int = 0
    tools: dict[str, int] = field(default_factory=dict)
    turn_count: int = 0  # turns in the whole transcript (for the --turn miss note)
    error: str | None = None
    stamp: object = None  # the cache stamp of the bytes the row was counted from
    records: object = None  # the per-record facts it was summed from (``records_of``)

    def __reduce__(self) -> tuple[Any, ...]:
        # across the pool as plain values and without its transcript, which the parent
        # puts back (``run``): the default reduce (the class, a dict of 18 fields, a
        # ``Transcript`` of paths, a ``TokenSums`` per model) took ~15-20 ms to pickle
        # and as long to unpickle for half of corpus B's rows, serially in the parent
        return _sent_row, (self.dump(), self.error, self.stamp, self.records)

    # -- the cache's shape (marshal: tuples, dicts, strings, ints, None) ------------------
    def dump(self) -> tuple[object, ...]:
        """The row's figures (an unwindowed row only: they depend on no query)."""
        return (self.lines, self.line_types, self.skipped_lines, self.user_records,
                self.assistant_records, self.turns, self.compactions, self.first_ts,
                self.last_ts, {model: (t.input, t.output, t.cache_read, t.cache_creation)
                               for model, t in self.tokens.items()},
                self.narration_blocks, self.unknown_thinking_tags, self.tools,
                self.turn_count)

    @classmethod
    def load(cls, transcript: Transcript, raw: Any) -> SessionStats | None:
        """A row read back from the cache; None when the facts have another shape."""
        try:
            (lines, line_types, skipped, users, assistants, turns, compactions, first, last,
             tokens, narration, unknown, tools, turn_count) = raw
            # (the type checks map ``type`` and compare sets: a row's ~20 generator
            # steps were ~15% of a warm stats run's own work over corpus B)
            ints = (lines, skipped, users, assistants, turns, compactions, unknown, turn_count)
            if set(map(type, ints)) != _INT_ONLY:
                return None
            if not ((first is None or type(first) is str)
                    and (last is None or type(last) is str)):
                return None
            sums = {}
            for model, counts in tokens.items():
                if (type(model) is not str or len(counts) != 4
                        or set(map(type, counts)) != _INT_ONLY):
                    return None
                sums[model] = TokenSums(*counts)
            return cls(transcript, lines=lines, line_types=_counts_of(line_types),
                       skipped_lines=skipped, user_records=users, assistant_records=assistants,
                       turns=turns, compactions=compactions, first_ts=first, last_ts=last,
                       tokens=sums, narration_blocks=_counts_of(narration),
                       unknown_thinking_tags=unknown, tools=_counts_of(tools),
                       turn_count=turn_count)
        except (TypeError, ValueError, AttributeError):
            return None


def _sent_row(figures: tuple[Any, ...], error: str | None, stamp: object, records: object
              ) -> SessionStats:
    """A row as ``SessionStats.__reduce__`` sent it (its transcript is put back by the
    receiver)."""
    (lines, line_types, skipped, users, assistants, turns, compactions, first, last, tokens,
     narration, unknown, tools, turn_count) = figures
    return SessionStats(None, lines=lines, line_types=line_types,  # type: ignore[arg-type]
                        skipped_lines=skipped, user_records=users,
                        assistant_records=assistants, turns=turns, compactions=compactions,
                        first_ts=first, last_ts=last,
                        tokens={model: TokenSums(*counts) for model, counts in tokens.items()},
                        narration_blocks=narration, unknown_thinking_tags=unknown, tools=tools,
                        turn_count=turn_count, error=error, stamp=stamp, records=records)


def _counts_of(raw: Any) -> dict[str, int]:
    """A ``{name: n}`` map read back from the cache (ValueError: another shape)."""
    if type(raw) is not dict:
        raise ValueError("counts")
    if raw and (set(map(type, raw)) != _STR_ONLY or set(map(type, raw.values())) != _INT_ONLY):
        raise ValueError("counts")
    return raw


_INT_ONLY = {int}  # exactly int: a bool is another type here, as ``type(x) is int`` says
_STR_ONLY = {str}


def _turn_filter(turn_map: TurnMap, spec: RangeSpec) -> list[tuple[int, int]]:
    count = turn_map.turn_count
    return spec.intervals(0, count - 1) if count else []


def aggregate(transcript: Transcript, scan: FileScan, turn_map: TurnMap | None,
              window: Window) -> SessionStats:
    """Apply the windows to one transcript's facts and sum what they admit."""
    if not window.timed and window.turns is None:
        return whole_file(transcript, scan, turn_map)
    return windowed(transcript, scan, turn_map, window)


def whole_file(transcript: Transcript, scan: FileScan, turn_map: TurnMap | None
               ) -> SessionStats:
    """``windowed`` with no window (every record admitted), computed with C-level
    passes over the facts where the windowed walk decides record by record: the same
    figures (``tests/unit/engines/test_stats.py`` compares the two)."""
    row = SessionStats(transcript, lines=scan.lines, line_types=dict(scan.line_types),
                       skipped_lines=scan.skipped_lines)
    users, assistants = scan.users, scan.assistants
    row.turn_count = turn_map.turn_count if turn_map is not None else 0
    row.user_records = len(users)
    row.assistant_records = len(assistants)
    row.compactions = sum(map(itemgetter(2), users))
    user_lines = list(map(itemgetter(0), users))
    assistant_lines = list(map(itemgetter(0), assistants))
    row.turns = _turns_holding(turn_map, user_lines, assistant_lines)
    peaks: dict[tuple[str, str], Sequence[int]] = {}
    peak_of = peaks.get
    tokens = row.tokens
    narration_blocks = row.narration_blocks
    unknown_tags = 0
    for _, _, model, message_id, usage, _, narration, unknown in assistants:
        if usage is not None:
            if message_id:
                key = (model, message_id)
                peak = peak_of(key)
                if peak is None:
                    peaks[key] = usage
                elif peak != usage:  # a block line repeats its message's usage as is
                    peaks[key] = tuple(map(max, peak, usage))
            else:
                sums = tokens.get(model)
                if sums is None:
                    sums = tokens[model] = TokenSums()
                sums.add(usage)
        if narration:
            narration_blocks[model] = narration_blocks.get(model, 0) + narration
        unknown_tags += unknown
    row.unknown_thinking_tags = unknown_tags
    per_model: dict[str, list[Sequence[int]]] = {}
    for (model, _), peak in peaks.items():
        per_model.setdefault(model, []).append(peak)
    for model, rows in per_model.items():
        tokens.setdefault(model, TokenSums()).add(tuple(map(sum, zip(*rows, strict=True))))
    tools = Counter(chain.from_iterable(map(itemgetter(5), assistants)))
    row.tools = dict(tools)
    stamps = [ts for ts in chain(map(itemgetter(1), users), map(itemgetter(1), assistants))
              if ts is not None]
    if stamps:
        first, last = min(stamps), max(stamps)
        # a timestamp not in Claude Code's one shape (2026-01-05T10:00:00.000Z), or one of
        # that shape naming no instant: strings no longer order them (see ``windowed``)
        if (not all_in_cc_shape(stamps) or parse_ts(first) is None
                or parse_ts(last) is None):
            first, last = readable_span(stamps)
        row.first_ts, row.last_ts = first, last
    return row


def _turns_holding(turn_map: TurnMap | None, *record_lines: list[int]) -> int:
    """How many turns hold at least one record of ``record_lines`` (each list sorted),
    a superseded draft belonging to none: ``len({turn_map.turn_of(n) for n in lines} -
    {None})``, counted per turn by bisection instead of per record."""
    if not any(record_lines):
        return 0
    if turn_map is None:
        return 1  # every record is turn 0
    openers = turn_map.opener_lines
    drafts = sorted(d for d in turn_map.draft_lines
                    if any(_holds(lines, d) for lines in record_lines))
    # turn k runs from its opener to the next one; turn 0 also holds the lines before
    # the first opener
    bounds: list[int | None] = [*openers[1:], None]
    held = 0
    start: int | None = None
    for end in bounds:
        records = -_between(drafts, start, end)
        for lines in record_lines:
            records += _between(lines, start, end)
        held += records > 0
        start = end
    return held


def _between(lines: list[int], start: int | None, end: int | None) -> int:
    """How many of the sorted ``lines`` are in ``[start, end)`` (None: unbounded)."""
    lo = 0 if start is None else bisect_left(lines, start)
    hi = len(lines) if end is None else bisect_left(lines, end)
    return hi - lo


def _holds(lines: list[int], line: int) -> bool:
    at = bisect_left(lines, line)
    return at < len(lines) and lines[at] == line


def windowed(transcript: Transcript, scan: FileScan, turn_map: TurnMap | None,
             window: Window) -> SessionStats:
    """Apply the windows to one transcript's facts and sum what they admit, record by
    record."""
    row = SessionStats(transcript, lines=scan.lines, line_types=dict(scan.line_types),
                       skipped_lines=scan.skipped_lines)
    row.turn_count = turn_map.turn_count if turn_map is not None else 0
    intervals = (_turn_filter(turn_map, window.turns)
                 if turn_map is not None and window.turns is not None else None)

    def turn_of(line: int) -> int | None:
        return turn_map.turn_of(line) if turn_map is not None else 0

    def admitted(line: int, ts: str | None) -> bool:
        if not window.admits_ts(ts):
            return False
        if intervals is None:
            return True
        turn = turn_of(line)
        return turn is not None and any(a <= turn <= b for a, b in intervals)

    turns_seen: set[int] = set()
    first: str | None = None
    last: str | None = None
    odd = False  # a timestamp not in Claude Code's one shape: strings no longer order it

    def note_ts(ts: str | None) -> None:
        nonlocal first, last, odd
        if ts is None:
            return
        if not in_cc_shape(ts):
            odd = True
        if first is None or ts < first:
            first = ts
        if last is None or ts > last:
            last = ts

    # Facts are unpacked by position: they arrive as plain tuples from a worker process.
    for line, ts, compact in scan.users:
        if not admitted(line, ts):
            continue
        row.user_records += 1
        if compact:
            row.compactions += 1
        note_ts(ts)
        turn = turn_of(line)
        if turn is not None:
            turns_seen.add(turn)
    peaks: dict[tuple[str, str], list[int]] = {}
    for line, ts, model, message_id, usage, tools, narration, unknown in scan.assistants:
        if not admitted(line, ts):
            continue
        row.assistant_records += 1
        note_ts(ts)
        turn = turn_of(line)
        if turn is not None:
            turns_seen.add(turn)
        if usage is not None:
            if message_id:
                peak = peaks.get((model, message_id))
                if peak is None:
                    peaks[(model, message_id)] = list(usage)
                else:
                    for i, value in enumerate(usage):
                        peak[i] = max(peak[i], value)
            else:
                row.tokens.setdefault(model, TokenSums()).add(usage)
        for name in tools:
            row.tools[name] = row.tools.get(name, 0) + 1
        if narration:
            row.narration_blocks[model] = row.narration_blocks.get(model, 0) + narration
        row.unknown_thinking_tags += unknown
    for (model, _), peak in peaks.items():
        row.tokens.setdefault(model, TokenSums()).add(peak)
    row.turns = len(turns_seen)
    if not odd and first is not None and (parse_ts(first) is None or parse_ts(last) is None):
        odd = True  # Claude Code's shape but no instant (`0000-00-00T…`, a leap second)
    if odd:
        # a timestamp naming no instant ("[trimmed]") sorts past every real one as a
        # string, an offset or a missing fraction misorders: the span is taken again over
        # the readable ones, by instant
        stamps = ([ts for line, ts, *_ in scan.users if admitted(line, ts)]
                  + [ts for line, ts, *_ in scan.assistants if admitted(line, ts)])
        first, last = readable_span(stamps)
    row.first_ts, row.last_ts = first, last
    return row


# -- one transcript, end to end -----------------------------------------------------------------


def turn_map_of(scan: FileScan, buf: Buffer, *, subagent: bool) -> TurnMap:
    """The transcript's turn map from the openers its scan collected (the same map
    ``turns.build_turn_map`` builds for a file of ``subagent``'s kind: the scan, which
    does not know it, collected the records that open a turn in either kind)."""
    return turn_map_from_openers([(offset, Record(raw, None)) for offset, raw in scan.openers],
                                 buf, scan.opener_numbers, subagent=subagent)


def _part(buf: Buffer, bounds: tuple[int, int]) -> FileScan:
    """One worker's share of ``buf``: a byte range scanned."""
    lo, hi = bounds
    scan = scan_range(buf, lo, hi, count_in(buf, b"\n", 0, lo) + 1)
    # Plain tuples pickle several times faster than named ones; ``aggregate`` unpacks
    # both by position.
    scan.users = list(map(tuple, scan.users))  # type: ignore[arg-type]
    scan.assistants = list(map(tuple, scan.assistants))  # type: ignore[arg-type]
    return scan


def _parallel(buf: Buffer, cores: int) -> FileScan:
    """A big transcript over ``cores`` processes, each scanning one newline-aligned range."""
    cuts = split_points(buf, cores)
    parts = fanout.map_ordered(_part, list(zip(cuts, cuts[1:], strict=False)), shared=buf,
                               workers=cores, min_items=1)
    scan = FileScan()
    for part in parts:
        scan.extend(part)
    return scan


def stats_of(transcript: Transcript, window: Window, *, cores: int = 1,
             keep_records: bool = False, stamped: bool = True) -> SessionStats:
    """One transcript's row; a file that cannot be read gives a row carrying ``error``.
    ``cores``: the processes a big file's scan may spread over (one inside a spread
    batch). With ``stamped`` the row carries the cache stamp of the bytes it counted (a
    run without a cache has no use for it), and with ``keep_records`` the facts it was
    summed from (``records_of``)."""
    keep_big_reads_on_the_heap()
    try:
        buf, st = open_buffer_stat(transcript.path, READ_WHOLE_BYTES)
    except SourceError as exc:
        return SessionStats(transcript, error=str(exc))
    # the facts all stay alive until the row is summed: no collector pass can free any
    with paused_gc():
        if cores > 1 and len(buf) >= SPLIT_MIN_BYTES:
            scan = _parallel(buf, cores)
        else:
            scan = scan_range(buf)
        turn_map = turn_map_of(scan, buf, subagent=transcript.is_subagent)
        row = aggregate(transcript, scan, turn_map, window)
    if stamped:
        from pysift.disk.cache import stamp_of

        row.stamp = stamp_of(st, buf)
    if keep_records:
        row.records = records_of(scan, turn_map)
    return row


# Below this many transcripts the files are read one after another (a big one may still
# spread its own scan over the cores); above it they fan out over a process pool.
FANOUT_MIN_FILES = 8

# The cache's facets: an unwindowed row's figures (what a run without a window reads),
# and the per-record facts a windowed run sums at query time; only the transcript's bytes
# decide either.
# 2: in a main transcript a subagent's record (isSidechain) opens no turn (SPEC §4,
# twenty-second session): the turn figures and the kept turn map change
FACET, SCHEMA = "stats", 2
RECORDS_FACET, RECORDS_SCHEMA = "stats-records", 2


def records_of(scan: FileScan, turn_map: TurnMap) -> tuple[object, ...]:
    """What the records facet keeps of a transcript: its file facts, every user and
    assistant record's facts (line, timestamp as written, model, id, usage, tools, tags)
    and its turn map by line (openers, drafts, replays)."""
    return (scan.lines, scan.line_types, scan.skipped_lines, [tuple(u) for u in scan.users],
            [tuple(a) for a in scan.assistants], list(turn_map.opener_lines),
            sorted(turn_map.draft_lines), sorted(turn_map.replay_lines),
            bool(turn_map.has_records))


def scan_from_records(raw: Any) -> tuple[FileScan, TurnMap] | None:
    """The facts ``records_of`` kept, read back; None when they have another shape."""
    try:
        (lines, line_types, skipped, users, assistants, openers, drafts, replays,
         has_records) = raw
        if not (type(lines) is int and type(skipped) is int and type(has_records) is bool
                and type(users) is list and type(assistants) is list):
            return None
        for line, ts, compact in users:
            if type(line) is not int or type(compact) is not bool or not _opt_str(ts):
                return None
        for line, ts, model, message_id, usage, tools, narration, unknown in assistants:
            if not (type(line) is int and _opt_str(ts) and type(model) is str
                    and _opt_str(message_id) and type(narration) is int
                    and type(unknown) is int and type(tools) is tuple
                    and all(type(name) is str for name in tools)):
                return None
            if usage is not None and not (type(usage) is tuple and len(usage) == 4 and all(
                    type(n) is int for n in usage)):
                return None
        for kept in (openers, drafts, replays):
            if type(kept) is not list or not all(type(n) is int for n in kept):
                return None
        scan = FileScan(lines=lines, line_types=_counts_of(line_types), skipped_lines=skipped,
                        users=users, assistants=assistants)
    except (TypeError, ValueError):
        return None
    return scan, TurnMap(opener_lines=openers, draft_lines=set(drafts),
                         replay_lines=set(replays), has_records=has_records)


def _opt_str(value: object) -> bool:
    return value is None or type(value) is str


def run(transcripts: Sequence[Transcript], window: Window, cache: Store | None = None
        ) -> list[SessionStats]:
    """A row per transcript, in scope order: many files are spread over the cores, a few
    are read one after another, each free to use every core.

    ``cache``: an unchanged transcript's row comes from what is kept of it (a grown or
    changed one is counted again, and kept for the next run): without a window, its
    figures; with one, its per-record facts, which the window is applied to now."""
    windowed_run = window.timed or window.turns is not None
    facet = None
    if cache is not None:
        facet = (cache.facet(RECORDS_FACET, RECORDS_SCHEMA) if windowed_run
                 else cache.facet(FACET, SCHEMA))
    out: list[SessionStats | None] = [None] * len(transcripts)
    todo: list[Transcript] = []
    where: list[int] = []
    for i, transcript in enumerate(transcripts):
        if facet is not None:
            probe = facet.probe(transcript.path)
            if probe.hit:
                row = _kept_row(transcript, probe.facts, window, windowed_run)
                if row is not None:
                    out[i] = row
                    continue
        todo.append(transcript)
        where.append(i)
    spread = fanout.processes(len(todo), FANOUT_MIN_FILES)
    cores = fanout.cpu_workers() if spread == 1 else 1
    if todo:  # (a warm run reads nothing)
        keep_big_reads_on_the_heap()  # before the fork: every worker inherits it
    keep_records = facet is not None and windowed_run
    made = fanout.map_ordered(_row, todo, shared=(window, cores, keep_records, facet is not None),
                              min_items=FANOUT_MIN_FILES, weights=_sizes(todo))
    for i, row in zip(where, made, strict=True):
        row.transcript = transcripts[i]
        if facet is not None and row.error is None:
            facts = row.records if windowed_run else row.dump()
            facet.put(row.transcript.path, row.stamp, facts)  # type: ignore[arg-type]
        row.stamp = row.records = None
        out[i] = row
    if facet is not None:
        facet.flush()
    return out  # type: ignore[return-value]


def _kept_row(transcript: Transcript, facts: object, window: Window, windowed_run: bool
              ) -> SessionStats | None:
    if not windowed_run:
        return SessionStats.load(transcript, facts)
    kept = scan_from_records(facts)
    if kept is None:
        return None
    scan, turn_map = kept
    return aggregate(transcript, scan, turn_map, window)


def _sizes(transcripts: Sequence[Transcript]) -> list[int]:
    sizes = []
    for t in transcripts:
        try:
            sizes.append(t.path.stat().st_size)
        except OSError:
            sizes.append(0)
    return sizes


def _row(shared: tuple[Window, int, bool, bool], transcript: Transcript) -> SessionStats:
    window, cores, keep_records, stamped = shared
    return stats_of(transcript, window, cores=cores, keep_records=keep_records,
                    stamped=stamped)
