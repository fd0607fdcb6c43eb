"""One transcript -> turn slices and compactions (the verbatim scan).

One forward pass over the lines reads each line's record type off its bytes (the
record's own ``"type"`` key: the first one when nothing nests before it, else the last
one with nothing closing after it) and decodes only what the reconstruction uses:

- user records that are not plain tool_result carriers (prompts, answers, rejections,
  peer messages, compaction summaries); a carrier is recognised from its bytes
  (``core.turns.is_plain_carrier``) and decoded only when it holds an erroring result;
- assistant records holding a text block (the agent messages); an assistant record's
  tool calls are counted off its bytes when it names one block type key and the line is
  a record (validated, ``core.decode.line_decodes``: a broken line's call is no call,
  and the line is counted malformed), decoded when it names more;
- ``compact_boundary`` system records;
- queue operations and ``queued_command`` attachments (rare): the prompts typed while
  the agent worked that Claude Code folded into the running turn (``core.queued``).

In a main transcript a subagent's record Claude Code wrote into it (``isSidechain:true``:
the "Warmup" agent, a Task subagent's prompt and replies, builds 1.x and 2.0.x) is no
part of the session's own back-and-forth: it opens no turn, and neither its words nor
its tool calls are the main agent's (a line that would be counted off its bytes is
decoded when it holds the flag). A subagent transcript is read whole, as it is.

Every other line is only checked for its ``{…}`` framing (a line that is not framed is
malformed and counted; csift's residue: a framed line is validated only when decoded or
counted as a call).
A big file is scanned in two halves by two processes.

The turn structure is the shared one (``core.turns``): openers found here build the
same ``TurnMap`` show and search number turns with.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import field
from functools import partial
from typing import Any

from pysift.core import classify
from pysift.core.decode import Tally, decode, line_decodes
from pysift.core.image_handles import image_ids
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
from pysift.core.sidecar import read_sidecar
from pysift.core.text import one_line
from pysift.core.turns import (
    is_plain_carrier,
    pending_turn,
    subagent_seed,
    turn_map_from_openers,
)
from pysift.disk import fanout
from pysift.disk.layout import Transcript, sidecar_of
from pysift.disk.lines import Buffer
from pysift.disk.mapped import open_buffer
from pysift.engines.verbatim.model import (
    ASSISTANT,
    DEDUP_PREFIX,
    SIDECAR_SOURCE,
    USER,
    AgentMsg,
    Compaction,
    Inbound,
    TurnSlice,
    TurnUnit,
)
from pysift.errors import SourceError
from pysift.model import labels as L
from pysift.model.fastdata import dataclass
from pysift.model.record import Record

_OPEN, _CLOSE = 0x7B, 0x7D
# A torn line holding one of these keys is still that record: its compaction is kept.
_TORN_SUMMARY = (b'"isCompactSummary":true', b'"isCompactSummary": true')
_TORN_BOUNDARY = (b'"subtype":"compact_boundary"', b'"subtype": "compact_boundary"')
_TORN_QUEUE = (b'"queue-operation"',)
_WS = b" \t\r"
_SIDECHAIN = (b'"isSidechain":true', b'"isSidechain": true')

# Above this size a transcript is scanned by two processes, one half each.
SPLIT_BYTES = 32 << 20


@dataclass
class Facts:
    """What one byte range holds, in file order. Lines are counted from the range's
    first line (the caller shifts them); offsets are the buffer's."""

    openers: list[tuple[int, int, dict[str, Any]]] = field(default_factory=list)
    # (offset, line, (one-line text, original when it had newlines), timestamp, image ids)
    agents: list[tuple[int, int, tuple[str, str | None], str | None, tuple[str, ...]]] = field(
        default_factory=list)
    calls: list[tuple[int, int, int]] = field(default_factory=list)
    summaries: list[tuple[int, int, str | None, str | None]] = field(default_factory=list)
    boundaries: list[tuple[int, int, str | None, int | None]] = field(default_factory=list)
    # (offset, line, operation, the human's words, the key of its words, timestamp) of
    # every queue operation and every prompt delivered mid-turn (``core.queued``)
    queue: list[tuple[int, int, str, str | None, bytes | None, str | None]] = field(
        default_factory=list)
    # (offset, key of its words) of a user record delivering a harness rider on its own
    # (``core.queued.rider_key``: what resynchronises the queue)
    riders: list[tuple[int, bytes]] = field(default_factory=list)
    # (offset, line, image ids, timestamp) of a prompt delivered mid-turn carrying images
    # (a ``queued_command`` attachment: the images pasted while the agent worked)
    queued_images: list[tuple[int, int, tuple[str, ...], str | None]] = field(
        default_factory=list)
    malformed: int = 0
    lines: int = 0

    def shifted(self, by: int) -> Facts:
        if not by:
            return self
        return Facts(
            openers=[(o, n + by, r) for o, n, r in self.openers],
            agents=[(o, n + by, t, ts, tuple(_shift_locator(x, n, by) for x in i))
                    for o, n, t, ts, i in self.agents],
            calls=self.calls,
            summaries=[(o, n + by, b, ts) for o, n, b, ts in self.summaries],
            boundaries=[(o, n + by, ts, p) for o, n, ts, p in self.boundaries],
            queue=[(o, n + by, op, t, k, ts) for o, n, op, t, k, ts in self.queue],
            riders=self.riders,
            queued_images=[(o, n + by, tuple(_shift_locator(x, n, by) for x in i), ts)
                           for o, n, i, ts in self.queued_images],
            malformed=self.malformed, lines=self.lines)


def _shift_locator(ident: str, line: int, by: int) -> str:
    """An image id of the record at range line ``line``, its ``L<line>i<n>`` locator
    moved to the file's line (a ``#N`` handle stays): the second half of a big file
    named its images by the half's own line numbers, so ``image --id`` found another
    line's image or none."""
    head = f"L{line}i"
    return f"L{line + by}i{ident[len(head):]}" if ident.startswith(head) else ident


def _agent_text(rec: Record) -> str | None:
    """An assistant record's words: its non-blank text blocks joined by newlines (a
    string content as it is); None when it says nothing."""
    content = rec.content
    if isinstance(content, str):
        return content if content.strip() else None
    parts = [b["text"] for b in rec.blocks()
             if b.get("type") == "text" and isinstance(b.get("text"), str) and b["text"].strip()]
    return "\n".join(parts) if parts else None


def _block_counts(rec: Record) -> tuple[int, int]:
    """(tool_use blocks, erroring tool_result blocks) of a decoded record."""
    calls = failed = 0
    for b in rec.blocks():
        kind = b.get("type")
        if kind == "tool_use":
            calls += 1
        elif kind == "tool_result" and b.get("is_error") is True:
            failed += 1
    return calls, failed


def _preTokens(raw: dict[str, Any]) -> int | None:
    meta = raw.get("compactMetadata")
    value = meta.get("preTokens") if isinstance(meta, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# The keys the scan looks for, in one RE2 pass per range (the file's JSON layouts).
_PATTERNS: dict[tuple[bool, ...], Any] = {}


def _pattern(file_layouts: tuple[bool, ...]):  # type: ignore[no-untyped-def]
    found = _PATTERNS.get(file_layouts)
    if found is None:
        import re2

        parts: list[str] = []
        for spaced in file_layouts:
            sep, colon = ('": "', '": ') if spaced else ('":"', '":')
            parts += [f'type{sep}(?:text|tool_use|user|assistant|queue-operation'
                      '|queued_command)"', f"is_error{colon}true",
                      f'subtype{sep}compact_boundary"', 'isCompactSummary"']
        found = _PATTERNS[file_layouts] = re2.compile(
            ('"(?:' + "|".join(dict.fromkeys(parts)) + ")").encode())
    return found


from re2 import _re2  # noqa: E402  (RE2's matcher, called without the wrapper's objects)

_UNANCHORED = _re2.RE2.Anchor.UNANCHORED

# Per-line flags gathered from the key matches.
_F_TEXT, _F_CALL, _F_USER, _F_ASSISTANT, _F_ERROR, _F_COMPACTION = 1, 2, 4, 8, 16, 32
_F_QUEUE = 64  # a queue operation or a queued prompt's attachment (rare: decoded)
_FLAG_OF_VALUE = {b"text": _F_TEXT, b"tool_use": _F_CALL, b"user": _F_USER,
                  b"assistant": _F_ASSISTANT, b"queue-operation": _F_QUEUE,
                  b"queued_command": _F_QUEUE}


def _key_flag(buf: Buffer, start: int, end: int) -> int:
    """The flag of one key match, read off its distinguishing bytes."""
    second = buf[start + 1]
    if second == 0x69:  # "i…: is_error or isCompactSummary
        return _F_ERROR if buf[start + 3] == 0x5F else _F_COMPACTION
    if second == 0x73:  # "s…: subtype compact_boundary
        return _F_COMPACTION
    return _FLAG_OF_VALUE[buf[buf.rfind(b'"', start, end - 1) + 1:end - 1]]


def key_hits(pattern, buf: Buffer, lo: int,  # type: ignore[no-untyped-def]
             hi: int) -> list[tuple[int, int]]:
    """``(offset, flag)`` of every key match in ``buf[lo:hi)``: RE2's matcher called
    directly (the ``re2`` wrapper builds a match object per hit, which doubled the time
    of this pass over a 225 MB transcript)."""
    match = pattern._regexp.Match
    anchor = _UNANCHORED
    out: list[tuple[int, int]] = []
    append = out.append
    pos = lo
    while True:
        start, end = match(anchor, buf, pos, hi)[0]
        if start < 0:
            return out
        append((start, _key_flag(buf, start, end)))
        pos = end


def scan_range(buf: Buffer, lo: int = 0, hi: int | None = None, *, subagent: bool) -> Facts:
    """The facts of ``buf[lo:hi)`` (``lo`` at a line start, ``hi`` after a newline or at
    the end) of a file of ``subagent``'s kind.

    One RE2 pass finds the keys that can matter (the type keys of text, tool_use, user and
    assistant, an errored result, a compaction); one walk over the lines checks each
    line's ``{…}`` framing, counts it, and settles the lines that hold keys. The walk is
    deliberately flat: it runs once per line of files with 100K+ lines."""
    stop = len(buf) if hi is None else hi
    out = Facts()
    tally = Tally()
    main = not subagent
    file_layouts = layouts(buf)
    hits = key_hits(_pattern(file_layouts), buf, lo, stop)
    hits.append((stop + 1, 0))  # sentinel
    user_keys = type_needles(buf, "user", file_layouts)
    result_keys = type_needles(buf, "tool_result", file_layouts)
    find = buf.find
    pos, line, at = lo, 0, 0
    next_hit = hits[0][0]
    while pos < stop:
        nl = find(b"\n", pos, stop)
        end = stop if nl < 0 else nl
        line += 1
        if next_hit < end:
            flags = calls = 0
            while next_hit < end:
                flag = hits[at][1]
                flags |= flag
                calls += flag == _F_CALL
                at += 1
                next_hit = hits[at][0]
            if buf[pos] == _OPEN and buf[end - 1] == _CLOSE:
                _settle(buf, pos, end, line, flags, calls, out, tally, user_keys,
                        result_keys, main)
            else:
                _unframed(buf, pos, end, line, out, tally, main)
        elif end > pos and (buf[pos] != _OPEN or buf[end - 1] != _CLOSE):
            _unframed(buf, pos, end, line, out, tally, main)
        if nl < 0:
            break
        pos = nl + 1
    out.lines = line
    out.malformed = tally.malformed
    return out


def _unframed(buf: Buffer, pos: int, end: int, line: int, out: Facts, tally: Tally,
              main: bool) -> None:
    """A line not ``{…}``-framed: blank (nothing), a record after all (whitespace around
    it), or malformed (counted; a torn compaction record still counts as one)."""
    if buf[pos:end].strip(_WS):
        _read(buf, pos, end, line, out, tally, main)


_CONTENT_KEYS = (b'"content":', b'"content": ')
_HEAD = 4096  # where an assistant record's message content opens


def _settle(buf: Buffer, pos: int, end: int, line: int, flags: int, calls: int, out: Facts,
            tally: Tally, user_keys: tuple[bytes, ...], result_keys: tuple[bytes, ...],
            main: bool) -> None:
    """Decide one framed line that holds keys: decode it, count it off its bytes, or
    pass it over (``main``: the file is a main transcript, whose subagent records are
    left out: a call is counted off the bytes only of a line without the flag)."""
    if flags & (_F_COMPACTION | _F_QUEUE):
        decodes = True
    elif flags & _F_USER:
        # a plain tool_result carrier is read only when one of its results errored
        decodes = bool(flags & _F_ERROR) or not is_plain_carrier(buf, pos, end, user_keys,
                                                                  result_keys)
    else:
        kind = own_type(buf, pos, end)
        if kind == b"assistant":
            if flags & (_F_TEXT | _F_ERROR) or calls > 1:
                decodes = True
            elif (calls and not (main and _holds(buf, _SIDECHAIN, pos, end))
                  and line_decodes(buf[pos:end])):
                out.calls.append((pos, 1, 0))  # one tool_use key of a record: one call
                return
            elif calls:  # no record (broken inside): the decoder counts it
                decodes = True
            else:  # a thinking block; (never from Claude Code) a string content
                decodes = _string_content(buf, pos, end)
        else:
            decodes = kind is None  # another record type holds no message of its own
    if decodes:
        _read(buf, pos, end, line, out, tally, main)


def _read(buf: Buffer, pos: int, end: int, line: int, out: Facts, tally: Tally,
          main: bool) -> None:
    """Decode one line and file its facts; a line that does not decode is counted and,
    when it names a compaction's record, kept as that compaction."""
    rec = decode(buf[pos:end], None, tally)
    if rec is not None:
        _take(rec, pos, line, out, main and rec.is_sidechain)
    else:
        _torn(buf, pos, end, line, out)


def _string_content(buf: Buffer, pos: int, end: int) -> bool:
    """Whether an assistant line's message content is a string: its first content key
    (the message's, which Claude Code writes near the head) is followed by a quote.
    Unsure (no key near the head) is yes: the line is decoded."""
    stop = min(end, pos + _HEAD)
    for key in _CONTENT_KEYS:
        at = buf.find(key, pos, stop)
        if at >= 0:
            return buf[at + len(key):at + len(key) + 1] == b'"'
    return True


def _torn(buf: Buffer, pos: int, end: int, line: int, out: Facts) -> None:
    """A line that did not decode but names a compaction's record by its key: the
    compaction stands (shown and counted), its summary unread. One naming a queue
    operation keeps its entry's place in the queue, its words lost (``core.queued``:
    left out, it shifted the fates of the prompts queued after it)."""
    if _holds(buf, _TORN_SUMMARY, pos, end):
        out.summaries.append((pos, line, None, None))
    elif _holds(buf, _TORN_BOUNDARY, pos, end):
        out.boundaries.append((pos, line, None, None))
    if _holds(buf, _TORN_QUEUE, pos, end):
        out.queue += [(pos, line, op, None, None, None)
                      for op in torn_operations(buf[pos:end])]


def _holds(buf: Buffer, needles: tuple[bytes, ...], start: int, end: int) -> bool:
    return any(buf.find(n, start, end) >= 0 for n in needles)


def _take(rec: Record, pos: int, line: int, out: Facts, side: bool) -> None:
    """File one decoded record's facts (``side``: a subagent's record in a main
    transcript, whose calls, words and prompt are not the session's; a compaction stays
    the file's)."""
    kind = rec.type
    n_calls, n_failed = _block_counts(rec) if not side else (0, 0)
    if n_calls or n_failed:
        out.calls.append((pos, n_calls, n_failed))
    if kind == "assistant":
        text = _agent_text(rec) if rec.role == ASSISTANT and not side else None
        if text is not None:
            # one-lined here, in the worker that read it (the parent has the rest to do)
            out.agents.append((pos, line, (one_line(text), text if "\n" in text else None),
                               rec.timestamp, _images(rec, line)))
    elif kind == "user":
        if rec.is_compact_summary:
            # a string, or text blocks (a user record's other spelling): readable either way
            out.summaries.append((pos, line, classify.raw_message_text(rec), rec.timestamp))
        elif not side and classify.opens_turn(rec, subagent=True):  # (side: a main's)
            out.openers.append((pos, line, rec.raw))
        elif not side and (rider := rider_key(rec.raw)) is not None:
            out.riders.append((pos, rider))
    elif kind == "system" and rec.subtype == "compact_boundary":
        out.boundaries.append((pos, line, rec.timestamp, _preTokens(rec.raw)))
    elif kind in ("queue-operation", "attachment") and not side:
        entry = queue_entry(rec.raw)
        if entry is not None:
            op, said = entry
            out.queue.append((pos, line, op, said if is_human(said) else None,
                              said_key(said), rec.timestamp))
            if kind == "attachment" and (ids := _images(rec, line)):
                out.queued_images.append((pos, line, ids, rec.timestamp))


def scan_facts(buf: Buffer, *, cores: int = 1, subagent: bool) -> Facts:
    """The facts of a whole buffer (a file of ``subagent``'s kind); a big one in two
    halves by two processes when the caller grants two cores."""
    parts = fanout.in_halves(partial(scan_range, subagent=subagent), buf, cores=cores,
                             min_bytes=SPLIT_BYTES)
    if len(parts) == 1:
        return parts[0]
    first, second = parts
    second = second.shifted(first.lines)
    return Facts(openers=first.openers + second.openers, agents=first.agents + second.agents,
                 calls=first.calls + second.calls,
                 summaries=first.summaries + second.summaries,
                 boundaries=first.boundaries + second.boundaries,
                 queue=first.queue + second.queue, riders=first.riders + second.riders,
                 queued_images=first.queued_images + second.queued_images,
                 malformed=first.malformed + second.malformed,
                 lines=first.lines + second.lines)


# -- building the session ------------------------------------------------------------------


@dataclass
class SessionScan:
    """One transcript, ready to plan: its turn slices (file order) and compactions."""

    transcript: Transcript
    turns: list[TurnSlice]
    compactions: list[Compaction]
    skipped_lines: int = 0
    sidecar_error: str | None = None
    error: str | None = None


def scan_session(transcript: Transcript, *, cores: int = 1) -> SessionScan:
    """Read one transcript into turn slices and compactions (``cores``: the processes a
    big file's scan may use; one inside a spread batch)."""
    try:
        buf = open_buffer(transcript.path)
    except SourceError as exc:
        return SessionScan(transcript, [], [], error=str(exc))
    facts = scan_facts(buf, cores=cores, subagent=transcript.is_subagent)
    return build_session(transcript, buf, facts)


def build_session(transcript: Transcript, buf: Buffer, facts: Facts) -> SessionScan:
    found = [(offset, Record(raw, line)) for offset, line, raw in facts.openers]
    turn_map = turn_map_from_openers(found, buf, subagent=transcript.is_subagent)
    ctx = _context(transcript, buf)
    compactions = _compactions(facts)
    positions = sorted(c.line for c in compactions)

    openers = turn_map.opener_offsets  # sorted, drafts and replay copies left out
    opener_set = set(openers)
    drafts = turn_map.draft_offsets
    events: list[tuple[int, int, Any]] = []
    events += [(o, 0, (line, rec)) for (o, rec), (_, line, _raw) in zip(found, facts.openers)]
    events += [(o, 1, (c, f)) for o, c, f in facts.calls]
    events += [(o, 2, (line, text, ts, images)) for o, line, text, ts, images in facts.agents]
    events += _midturn_prompts(facts, opener_set)
    events += [(o, 4, (line, ids, ts)) for o, line, ids, ts in facts.queued_images]
    events.sort()  # by offset, then kind: one record's calls before its words
    slices: dict[int, TurnSlice] = {}
    turn, at = 0, 0
    current: TurnSlice | None = None
    calls = failed = 0  # since the turn's last agent message
    for offset, what, data in events:
        while at < len(openers) and openers[at] <= offset:  # the turns opened so far
            at += 1
        if offset in drafts:
            continue  # a superseded draft: outside turn numbering
        if current is None or max(0, at - 1) != turn:
            turn = max(0, at - 1)
            current = slices.get(turn)
            if current is None:
                current = slices[turn] = TurnSlice(turn, None, 0)
                calls = failed = 0
        if what == 0:
            line, rec = data
            if current.user is None and offset in opener_set:
                current.user = _opener_unit(rec, line, ctx)
        elif what == 1:
            n_calls, n_failed = data
            current.tool_calls += n_calls
            calls += n_calls
            if offset not in opener_set:  # a rejection opening the turn answers the last
                failed += n_failed        # turn's call: no failure of this turn's messages
        elif what == 3:
            _add_midturn(current, positions, *data)
        elif what == 4:
            _add_midturn_images(current, positions, *data)
        else:
            line, (text, raw), ts, images = data
            unit = TurnUnit(line=line, role=ASSISTANT, text=text, raw=raw, ts=ts,
                            image_ids=images)
            current.agents.append(AgentMsg(unit, calls, failed))
            calls = failed = 0
    turns = [s for _, s in sorted(slices.items()) if s.user is not None or s.agents]
    # a summary is a member of the turn in progress when it came (never a delimiter): a
    # turn is behind the compactions from the next turn's first line on
    for k, s in enumerate(turns):
        end = turns[k + 1].first_line if k + 1 < len(turns) else None
        s.compactions_before = 0 if end is None else len(positions) - bisect_left(
            positions, end)
        stop = len(positions) if end is None else bisect_left(positions, end)
        s.crossed = positions[bisect_right(positions, s.first_line):stop]
    scan = SessionScan(transcript, turns, compactions, skipped_lines=facts.malformed)
    if not transcript.is_subagent:
        _merge_sidecar(scan, buf, ctx, turn_map.turn_count)
    return scan


def _midturn_prompts(facts: Facts, openers: set[int]) -> list[tuple[int, int, Any]]:
    """The prompts the human typed while the agent worked and Claude Code folded into
    the running turn (``core.queued``), as events at the line of their words; paired
    with the turn openers (``openers``: their offsets, drafts and replay copies left
    out), the riders delivered on their own and the agent's records, which
    resynchronise the queue."""
    if not facts.queue:
        return []
    where = {o: (line, ts) for o, line, _op, _t, _k, ts in facts.queue}
    agents = sorted({o for o, _n, *_ in facts.agents}
                    | {o for o, n, _f in facts.calls if n})
    paired = queued_prompts(timeline(
        [(o, op, t, k) for o, _line, op, t, k, _ts in facts.queue],
        [(o, message_key(raw)) for o, _line, raw in facts.openers if o in openers],
        facts.riders, agents))
    return [(o, 3, (where[o][0], said, where[o][1])) for o, said in paired]


MIDTURN_MARK = "[typed while the agent worked · L{line}]"


def _add_midturn(turn: TurnSlice, positions: list[int], line: int, said: str,
                 ts: str | None) -> None:
    """A prompt folded into ``turn`` joins its user side after the opener, marked with
    its own line (the model read it mid-turn; leaving it out lost the human's words).
    One that came after a compaction the opener predates is a user unit of its own at
    its line (``turn.typed``; the later prompts past the same compaction join it): the
    document follows the transcript, so it prints below that compaction's banner, where
    joined to the opener it printed above it. ``positions``: the compactions' lines,
    sorted."""
    mark = MIDTURN_MARK.format(line=line)
    host, made = _typed_host(turn, positions, line, f"{mark} {said}", ts)
    if made:
        return
    base = host.raw if host.raw is not None else host.text
    raw = f"{base}\n{mark} {said}"
    host.text = one_line(raw)
    host.raw = raw
    host._newlines = None


def _add_midturn_images(turn: TurnSlice, positions: list[int], line: int,
                        ids: tuple[str, ...], ts: str | None) -> None:
    """The images pasted with a prompt folded into ``turn`` join the ids of the user unit
    that holds the prompt, as an opener's do (``image`` lists them; the prompt's words
    came as event 3, so a prompt after a compaction the opener predates has its own unit
    by now). Images without words get the mark alone, in the unit their words would
    have joined."""
    host, _ = _typed_host(turn, positions, line, MIDTURN_MARK.format(line=line), ts)
    host.image_ids = host.image_ids + ids


def _typed_host(turn: TurnSlice, positions: list[int], line: int, raw: str,
                ts: str | None) -> tuple[TurnUnit, bool]:
    """The user unit a prompt typed at ``line`` joins, and whether it was made here (of
    ``raw``): the turn's newest typed unit, else its opener, unless a compaction stands
    between that unit and the prompt; a new typed unit then, or the opener when the
    turn has none."""
    host = turn.typed[-1] if turn.typed else turn.user
    if host is None:
        turn.user = _unit(line, USER, raw, ts)
        return turn.user, True
    if host.line is not None and (bisect_left(positions, host.line)
                                  != bisect_left(positions, line)):
        made = _unit(line, USER, raw, ts)
        turn.typed.append(made)
        return made, True
    return host, False


def _unit(line: int | None, role: str, raw: str, ts: str | None,
          source: str | None = None) -> TurnUnit:
    text = one_line(raw)
    return TurnUnit(line=line, role=role, text=text, raw=raw if "\n" in raw else None, ts=ts,
                    source=source)


def _context(transcript: Transcript, buf: Buffer) -> classify.ClassifyContext:
    seed_uuid, seed_line = subagent_seed(buf) if transcript.is_subagent else (None, None)
    return classify.ClassifyContext(owner_id=transcript.session_id,
                                    is_subagent=transcript.is_subagent,
                                    parent_id=transcript.parent_session_id,
                                    seed_uuid=seed_uuid, seed_line=seed_line)


_PEER_CLOSE = ("</teammate-message>", "</agent-message>")


def _opener_unit(rec: Record, line: int, ctx: classify.ClassifyContext) -> TurnUnit | None:
    """The opener as verbatim prints it: a typed prompt's words, an AskUserQuestion
    exchange, a rejection's instruction; a peer message's body under its comm label."""
    if classify.is_peer_message_record(rec) and not classify.is_genuine_user(rec):
        for unit in classify.units(rec, ctx):
            if unit.label in (L.AGENT_COMM_INBOX, L.AGENT_COMM_SIGNAL) and unit.from_:
                body = one_line(_peer_inner(unit.text))
                raw = _peer_section(rec, unit.text)
                return TurnUnit(line=line, role=USER, text=body,
                                raw=_original(_peer_inner(raw) if raw else None, body),
                                ts=rec.timestamp, inbound=Inbound(unit.label, unit.from_),
                                image_ids=_images(rec, line))
    text = classify.opener_text(rec, ctx)
    if text is None:
        return None
    if classify.is_genuine_user(rec):
        raw = _raw_body(rec)
    else:  # an AskUserQuestion exchange, a rejection's instruction (and its plan pointer)
        raw = classify.auq_exchange(rec) or classify.rejection_message(rec)
        if raw is not None and text.startswith(flat := one_line(raw)):
            raw += text[len(flat):]
    return TurnUnit(line=line, role=USER, text=text, raw=_original(raw, text),
                    ts=rec.timestamp, image_ids=_images(rec, line))


def _original(raw: str | None, text: str) -> str | None:
    """``raw`` when ``text`` is its one-line form and it had newlines (the ellipsis counts
    the lines a cut removes in it), else None."""
    if raw is None or "\n" not in raw or one_line(raw) != text:
        return None
    return raw


def _images(rec: Record, line: int | None) -> tuple[str, ...]:
    """The ids of the record's images as the model saw them: ``#N`` when the record's
    ``[Image #N]`` markers pair with its images, else their ``L<line>i<n>`` locators."""
    return tuple(image_ids(rec, line))


_PEER_OPEN = ("<teammate-message", "<agent-message")


def _peer_section(rec: Record, flat: str) -> str | None:
    """The section of the record's own text whose one-line form is ``flat`` (a peer
    message's unit text), newlines kept; None when none is."""
    content = _raw_body(rec)
    if content is None or "\n" not in content:
        return None
    for open_tag, close in zip(_PEER_OPEN, _PEER_CLOSE, strict=True):
        start = content.find(open_tag)
        while start >= 0:
            end = content.find(close, start)
            if end < 0:
                break
            section = content[start:end + len(close)]
            if one_line(section) == flat:
                return section
            start = content.find(open_tag, end)
    return None


def _peer_inner(section: str) -> str:
    """A peer section's text without its open and close tags (not yet one-lined)."""
    body = section
    if body.startswith("<"):
        gt = body.find(">")
        if gt >= 0:
            body = body[gt + 1:]
    body = body.rstrip()
    for close in _PEER_CLOSE:
        if body.endswith(close):
            body = body[: -len(close)]
    return body


def _raw_body(rec: Record) -> str | None:
    content = rec.content
    if isinstance(content, str):
        return content
    parts = [b["text"] for b in rec.blocks()
             if b.get("type") == "text" and isinstance(b.get("text"), str) and b["text"].strip()]
    return "\n".join(parts) if parts else None


def _compactions(facts: Facts) -> list[Compaction]:
    """Pair each ``compact_boundary`` with the summary Claude Code writes right after it
    (no prompt or agent message between them). A boundary whose summary is missing or
    unreadable, and a summary with no boundary before it (older Claude Code), are
    compactions all the same: the boundary is shown and counted, never lost with its
    summary."""
    content = sorted([o for o, *_ in facts.openers] + [o for o, *_ in facts.agents])
    # (offset, 0, [line, ts, preTokens]) for a boundary, (offset, 1, [line, body, ts]) a summary
    events: list[tuple[int, int, Any]] = sorted([(o, 0, b) for o, *b in facts.boundaries]
                    + [(o, 1, s) for o, *s in facts.summaries], key=lambda e: (e[0], e[1]))
    out: list[Compaction] = []
    pending: tuple[int, tuple[int, str | None, int | None]] | None = None  # (offset, boundary)
    for offset, what, data in events:
        if what == 0:
            if pending is not None:
                out.append(_compaction(pending[1], None))
            pending = (offset, data)  # data: (line, ts, preTokens)
            continue
        line, body, ts = data
        if pending is not None and bisect_right(content, pending[0]) != bisect_right(
                content, offset):
            out.append(_compaction(pending[1], None))  # the conversation went on between
            pending = None
        out.append(_compaction(pending[1] if pending is not None else None, (line, body, ts)))
        pending = None
    if pending is not None:
        out.append(_compaction(pending[1], None))
    return out


def _compaction(boundary: tuple[int, str | None, int | None] | None,
                summary: tuple[int, str | None, str | None] | None) -> Compaction:
    b_line, b_ts, pre = boundary if boundary is not None else (None, None, None)
    if summary is not None and (body := summary[1]) is not None:
        line, ts = summary[0], summary[2]
        return Compaction(line=line, boundary_line=b_line, summary_line=line,
                          summary_chars=len(body), fingerprints=fingerprints(body),
                          summary_read=True, ts=b_ts or ts, pre_tokens=pre)
    s_line = summary[0] if summary is not None else None
    at = b_line if b_line is not None else s_line
    assert at is not None
    return Compaction(line=at, boundary_line=b_line, summary_line=s_line, summary_chars=0,
                      fingerprints=(), summary_read=False, ts=b_ts, pre_tokens=pre)


# -- the summary's verbatim quotes --------------------------------------------------------


def fingerprint(text: str) -> str:
    """A text's dedup key: lowercased, whitespace collapsed, its first 80 characters."""
    return one_line(text).lower()[:DEDUP_PREFIX]


_CLIPPED = ("...", "…")


def _unclipped(quote: str) -> str:
    """A quote without the ellipsis a summary clipped it with (its opening is verbatim)."""
    stripped = quote.rstrip()
    for mark in _CLIPPED:
        if stripped.endswith(mark):
            return stripped[: -len(mark)]
    return quote


def _quoted(text: str) -> str | None:
    start = text.find('"')
    if start < 0:
        return None
    end = text.find('"', start + 1)
    return None if end < 0 else text[start + 1:end]


def fingerprints(body: str) -> tuple[str, ...]:
    """The keys of what a summary quotes verbatim: its bullets (the quoted part when a
    bullet quotes, else the whole bullet) and every other quoted run (the assistant
    quote), each line once."""
    out: list[str] = []
    for raw_line in body.split("\n"):
        line = raw_line.lstrip()
        if line.startswith("- "):
            inner = _quoted(line[2:])
            key = fingerprint(_unclipped(inner if inner is not None else line[2:]))
        else:
            inner = _quoted(line)
            key = fingerprint(_unclipped(inner)) if inner is not None else ""
        if key:
            out.append(key)
    return tuple(out)


# -- the elicitation sidecar ----------------------------------------------------------------


def _merge_sidecar(scan: SessionScan, buf: Buffer, ctx: classify.ClassifyContext,
                   turn_count: int) -> None:
    """Each pending elicitation is its own turn slice, after the native ones: what the
    session is blocked on now (user side, no line), numbered as search and show number
    it, in the latest turn (``core.turns.pending_turn``): ``--turn`` and the JSON rows
    name the turn ``show --turn`` fetches it with."""
    sidecar = sidecar_of(scan.transcript)
    if sidecar is None:
        return
    merge = read_sidecar(sidecar, buf)
    scan.skipped_lines += merge.skipped_lines
    scan.sidecar_error = merge.error
    index = max(turn_count, scan.turns[-1].turn_index + 1 if scan.turns else 0)
    for rec in merge.pending:
        text = "\n".join(u.text for u in classify.units(rec, ctx) if u.text)
        if not text.strip():
            continue
        unit = _unit(None, USER, text, rec.timestamp, SIDECAR_SOURCE)
        unit.image_ids = _images(rec, None)
        scan.turns.append(TurnSlice(index, unit, 0, numbered=pending_turn(turn_count)))
        index += 1
