"""One-scan aggregates per transcript for ``stats`` (SPEC §6.12).

The scan is built for the 225 MB session: it never parses the whole file. One forward
walk over the newlines (C-level ``find``) counts the physical lines and reads each line's
TOP-LEVEL ``type`` straight off the bytes; only assistant lines (tokens, models, tools,
thinking signatures) and the rare lines the byte probe cannot settle go through orjson.

Reading ``type`` off the bytes is exact, not a guess. In compact JSON a quote inside a
string is escaped, so a raw ``"type":"`` is always a key, and a key sits inside an object
that opens before it and closes after it. So the FIRST such key is the record's own when
no ``{`` precedes it on the line, and the LAST one is when no ``}`` follows it before the
line's closing brace (a brace inside a string only sends the line to the decoder). Claude
Code writes both shapes: ``type`` before the payload on user/system/progress lines, after
it on assistant/attachment lines. A line neither test settles, or one whose serializer
spaces its colons, is decoded.

The same proof reads a user record's own ``timestamp`` without parsing the (often huge)
tool_result carrier: the last timestamp key before the record's ``toolUseResult`` (or
before the closing brace) with no ``}`` in between. A ``BashOutput`` echo carries a nested
``timestamp`` of its own inside ``toolUseResult``, which is why the cut exists.

Malformed lines: a non-blank line that is not ``{…}``-framed is decoded (and counted by
the decoder's tally); a framed line is trusted unless it is one of the decoded ones.

Counting law (§6.12, v0.9.2 TOKEN CORRECTION): Claude Code writes one line per content
block and repeats the identical ``message.usage`` on each, so usage is deduplicated per
FILE by ``message.id`` with a per-field MAX (a compaction replay re-writes an id with
zeroed usage); an id-less record counts alone. Scope totals sum the per-file rows and
never dedupe across files (a spawn message copied into each child is a fact of each).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

import orjson

from pysift.core.classify import narration_tag
from pysift.core.decode import Tally, decode
from pysift.core.grammar.ranges import RangeSpec
from pysift.core.timez import parse_ts
from pysift.core.turns import TurnMap, build_turn_map
from pysift.disk import fanout
from pysift.disk.layout import Transcript
from pysift.disk.lines import Buffer, count_in
from pysift.disk.mapped import open_buffer
from pysift.errors import SourceError

UNKNOWN_MODEL = "(unknown)"
UNNAMED_TOOL = "(unnamed)"
UNTYPED = "(untyped)"
NARRATION = "narration"
THINKING = "thinking"

# From this size on, one transcript's scan and its turn grouping share every core.
SPLIT_MIN_BYTES = 32 * 1024 * 1024
# Two cores: the share of the file the turn-grouping worker also scans (measured on the
# 225 MB benchmark session: grouping ~0.29 s, scan ~0.67 s of CPU).
GROUPING_SHARE = 0.28

_TYPE_KEY = b'"type":"'
_TS_KEY = b'"timestamp":"'
_TOOL_USE_RESULT_KEY = b',"toolUseResult":'
_COMPACT_KEY = b'"isCompactSummary":true'
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

    def extend(self, later: FileScan) -> None:
        """Append the scan of the byte range that follows this one (its line numbers
        already count from the start of the file)."""
        self.users.extend(later.users)
        self.assistants.extend(later.assistants)
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
    values = [raw.get(name) for name in USAGE_FIELDS]
    return tuple(  # type: ignore[return-value]
        v if type(v) is int else 0 for v in values  # noqa: E721 - bool is not a count
    )


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


def _user_timestamp(buf: Buffer, start: int, end: int) -> str | None:
    """A user record's own ``timestamp`` read off the bytes; None when not proven (the
    caller decodes the line, which also settles a record that has no timestamp).

    The candidate is the last ``"timestamp":"`` key before the first ``,"toolUseResult":``
    (message content cannot hold that key: it is only ever structural at the record's
    level) or before the closing brace, accepted only when no ``}`` lies between its
    value and that cut, so no object enclosing it closes there.
    """
    find = buf.find
    cut = find(_TOOL_USE_RESULT_KEY, start, end)
    stop = end - 1 if cut < 0 else cut
    key = buf.rfind(_TS_KEY, start, stop)
    if key < 0:
        return None
    value_end = find(b'"', key + 13, stop)
    if value_end < 0 or find(b"}", value_end, stop) >= 0:
        return None
    value = buf[key + 13 : value_end]
    if b"\\" in value:
        return None
    return value.decode("ascii", "replace")


def _compact_line_starts(buf: Buffer, lo: int, hi: int) -> set[int]:
    """Line starts (within ``[lo, hi)``) of the lines carrying ``"isCompactSummary":true``."""
    starts: set[int] = set()
    find = buf.find
    pos = find(_COMPACT_KEY, lo, hi)
    while pos >= 0:
        starts.add(max(lo, buf.rfind(b"\n", lo, pos) + 1))
        nl = find(b"\n", pos, hi)
        if nl < 0:
            break
        pos = find(_COMPACT_KEY, nl + 1, hi)
    return starts


def scan_range(buf: Buffer, lo: int = 0, hi: int | None = None, first_line: int = 1) -> FileScan:
    """Scan the lines of ``buf[lo:hi]`` (``lo`` at a line start, ``hi`` just after a newline
    or at the end); the line at ``lo`` is numbered ``first_line``.

    The loop is deliberately flat: it runs once per physical line of files with 100K+
    lines, so every C call saved per line shows in the wall time.
    """
    stop = len(buf) if hi is None else hi
    out = FileScan()
    by_bytes: dict[bytes, int] = {}
    by_name = out.line_types
    users, assistants = out.users, out.assistants
    tally = Tally()
    compact_starts = _compact_line_starts(buf, lo, stop)
    find, rfind = buf.find, buf.rfind
    type_key = _TYPE_KEY
    loads, JSONDecodeError = orjson.loads, orjson.JSONDecodeError
    pos, line = lo, first_line - 1
    while pos < stop:
        nl = find(b"\n", pos, stop)
        end = stop if nl < 0 else nl
        line += 1
        # kind: the type read off the bytes; None = not proven (decode the line below);
        # b"" = this line is already counted.
        kind: bytes | None = None
        if end > pos and buf[pos] == _OPEN and buf[end - 1] == _CLOSE:
            key = find(type_key, pos, end)
            if key > pos + 1 and find(b"{", pos + 1, key) >= 0:
                key = rfind(type_key, key, end)
                if rfind(b"}", key, end - 1) >= 0:
                    key = -1
            if key >= 0:
                value_end = find(b'"', key + 8, end)
                if value_end >= 0:
                    kind = buf[key + 8 : value_end]
                    if b"\\" in kind:
                        kind = None
        if kind == b"assistant":
            try:
                obj = loads(buf[pos:end])
            except JSONDecodeError:
                obj = None
            if isinstance(obj, dict) and obj.get("type") == "assistant":
                by_bytes[kind] = by_bytes.get(kind, 0) + 1
                assistants.append(assistant_fact(obj, line))
                kind = b""  # done
            else:
                kind = None  # not what the bytes said: the decoder settles and counts it
        elif kind == b"user" and pos not in compact_starts:
            ts = _user_timestamp(buf, pos, end)
            if ts is None:
                rec = decode(buf[pos:end], line, tally)
                ts = rec.timestamp if rec is not None else None
                kind = b"" if rec is None else kind  # malformed after all: counted, not typed
            if kind:
                by_bytes[kind] = by_bytes.get(kind, 0) + 1
                users.append(UserFact(line, ts, False))
            kind = b""
        if kind is None or (kind and pos in compact_starts):
            rec = decode(buf[pos:end], line, tally)
            if rec is not None:
                obj = rec.raw
                name = _decoded_type(obj)
                by_name[name] = by_name.get(name, 0) + 1
                if name == "assistant":
                    assistants.append(assistant_fact(obj, line))
                elif name == "user":
                    users.append(_user_fact(obj, line))
        elif kind:
            by_bytes[kind] = by_bytes.get(kind, 0) + 1
        if nl < 0:
            break
        pos = nl + 1
    for raw, n in by_bytes.items():
        name = raw.decode("utf-8", "replace")
        by_name[name] = by_name.get(name, 0) + n
    out.lines = line - (first_line - 1)
    out.skipped_lines = tally.malformed
    return out


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
        if not self.timed:
            return True
        instant = parse_ts(raw)
        if instant is None:
            return False
        if self.since is not None and instant < self.since:
            return False
        return not (self.until is not None and instant > self.until)


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


def _turn_filter(turn_map: TurnMap, spec: RangeSpec) -> list[tuple[int, int]]:
    count = turn_map.turn_count
    return spec.intervals(0, count - 1) if count else []


def aggregate(transcript: Transcript, scan: FileScan, turn_map: TurnMap | None,
              window: Window) -> SessionStats:
    """Apply the windows to one transcript's facts and sum what they admit."""
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
        if len(ts) != 24 or ts[-1] != "Z":  # 2026-01-05T10:00:00.000Z
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


def readable_span(stamps: Sequence[str | None]) -> tuple[str | None, str | None]:
    """The earliest and the latest of the timestamps that name an instant, as written."""
    instants = [(when, ts) for ts in stamps if ts and (when := parse_ts(ts)) is not None]
    if not instants:
        return None, None
    return min(instants)[1], max(instants)[1]


# -- one transcript, end to end -----------------------------------------------------------------


def _portable(turn_map: TurnMap) -> TurnMap:
    """A line-keyed copy that can cross a process boundary (a buffer-built map holds the
    buffer it numbers lines from)."""
    return TurnMap(opener_lines=list(turn_map.opener_lines),
                   draft_lines=set(turn_map.draft_lines),
                   replay_lines=set(turn_map.replay_lines), has_records=turn_map.has_records)


def _part(buf: Buffer, job: tuple[bool, int, int]) -> tuple[FileScan, TurnMap | None, int]:
    """One worker's share of ``buf``: a byte range scanned, plus the turn grouping when
    asked."""
    with_turns, lo, hi = job
    turn_map = _portable(build_turn_map(buf)) if with_turns else None
    scan = scan_range(buf, lo, hi, count_in(buf, b"\n", 0, lo) + 1)
    # Plain tuples pickle several times faster than named ones; ``aggregate`` unpacks
    # both by position.
    scan.users = list(map(tuple, scan.users))  # type: ignore[arg-type]
    scan.assistants = list(map(tuple, scan.assistants))  # type: ignore[arg-type]
    return scan, turn_map, lo


def _parallel(buf: Buffer, cores: int) -> tuple[FileScan, TurnMap]:
    """A big transcript over ``cores`` processes: the turn grouping is one job, the scan
    the rest.

    With two cores the grouping job also scans the head of the file (``GROUPING_SHARE``
    of it: the grouping costs about 40% of a scan), so both workers finish together.
    """
    size = len(buf)
    if cores >= 3:
        cuts = split_points(buf, cores - 1)
        jobs = [(True, 0, 0)] + [(False, lo, hi)
                                 for lo, hi in zip(cuts, cuts[1:], strict=False)]
    else:
        cut = buf.find(b"\n", int(size * GROUPING_SHARE))
        cut = size if cut < 0 else cut + 1
        jobs = [(True, 0, cut), (False, cut, size)]
    parts = fanout.map_ordered(_part, jobs, shared=buf, workers=min(cores, len(jobs)),
                               min_items=1)
    scan = FileScan()
    turn_map: TurnMap | None = None
    for part_scan, part_turns, _ in parts:
        scan.extend(part_scan)
        turn_map = part_turns or turn_map
    assert turn_map is not None  # the first job always carries it
    return scan, turn_map


def stats_of(transcript: Transcript, window: Window, *, cores: int = 1) -> SessionStats:
    """One transcript's row; a file that cannot be read gives a row carrying ``error``.
    ``cores``: the processes a big file's scan may spread over (one inside a spread
    batch)."""
    try:
        buf = open_buffer(transcript.path)
    except SourceError as exc:
        return SessionStats(transcript, error=str(exc))
    if cores > 1 and len(buf) >= SPLIT_MIN_BYTES:
        scan, turn_map = _parallel(buf, cores)
    else:
        scan = scan_range(buf)
        turn_map = build_turn_map(buf)
    return aggregate(transcript, scan, turn_map, window)


# Below this many transcripts the files are read one after another (a big one may still
# spread its own scan over the cores); above it they fan out over a process pool.
FANOUT_MIN_FILES = 8


def run(transcripts: Sequence[Transcript], window: Window) -> list[SessionStats]:
    """A row per transcript, in scope order: many files are spread over the cores, a few
    are read one after another, each free to use every core."""
    spread = fanout.processes(len(transcripts), FANOUT_MIN_FILES)
    cores = fanout.cpu_workers() if spread == 1 else 1
    return fanout.map_ordered(_row, transcripts, shared=(window, cores),
                              min_items=FANOUT_MIN_FILES)


def _row(shared: tuple[Window, int], transcript: Transcript) -> SessionStats:
    window, cores = shared
    return stats_of(transcript, window, cores=cores)
