"""A zero match's last question: does the pattern sit in records the search did not read?

A search reads only the units its classification produces under the run's gates. Three
kinds of record can hold the pattern's text yet yield no unit the run could match:

- ``unclassified``: a record that classifies to no leaf at all (an ``isMeta`` user record
  matching no harness marker, as csift classifies it: a skill body, a slash-command
  expansion; an unmodeled record type);
- ``gated``: a unit under a gated leaf the run did not open (``user.queued`` and the
  ``harness.meta.*`` bookkeeping leaves on the default surface, an attachment without
  ``--attachments``, hook context without ``--additional-context``), when the search had
  no -t/-T or its -t names that leaf;
- a record's second view: a record under two leaves renders its richest view only (an
  answer, not the tool_result it came in; ``/name args``, not the command wrapper), so
  the other leaf's text is read only by a -t naming it (``_hidden_view``);
- ``UNRENDERED``: message text no view renders (a task notification shows as
  ``[kind id status] summary``, so its ``<output-file>``, ``<tool-use-id>`` and
  ``<usage>`` tags are read by no selection, as in csift), or a string of the record no
  view renders at all (a carrier's ``toolUseResult`` echo, a message's ``model``);
- ``ESCAPED``: a string a view renders only JSON-escaped (a tool call's input, an
  attachment's payload: a quote reads ``\\"``), so the pattern as the string reads is
  found by no selection;
- a pending record of the elicitation sidecar (``sidecar_unseen``): merged as
  ``agent.tool.use``, it renders its tool_use alone, so the text CC will write beside the
  question (an ``agent.message``, a thinking block) is read by no selection until the
  question is answered; an MCP elicitation's pending record renders its ``content``
  alone, so the rest of what the hook wrote (the server's name, the requested schema's
  titles and descriptions) is read by no selection either.

Calling the zero definitive would then be false. The check runs only after a zero match,
over the lines the needle pass already found (``FileOutcome.candidates``: line starts of
the files that had no hit), so it decodes a handful of lines, never a file; a pattern
with no needle has its candidate lines found by the pattern itself over the raw bytes
(``needleless_unseen``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from pysift.core import classify
from pysift.core.decode import decode
from pysift.core.grammar.selectors import LabelFilter
from pysift.core.timez import parse_ts
from pysift.core.turns import build_turn_map, pending_turn, subagent_seed, turns_with_pending
from pysift.disk.jsonline import compact_json
from pysift.disk.layout import Transcript
from pysift.disk.lines import Buffer, LineCounter
from pysift.disk.mapped import open_buffer
from pysift.engines.search.plan import SearchPlan
from pysift.model import labels as L
from pysift.model.fastdata import dataclass
from pysift.model.record import Record

UNCLASSIFIED = "unclassified"
# the envelope keys of a line (ids, stamps, place, version): text of no record
_ENVELOPE = frozenset({"type", "subtype", "sessionId", "uuid", "parentUuid", "leafUuid",
                       "logicalParentUuid", "timestamp", "cwd", "version", "gitBranch",
                       "userType", "isSidechain", "isMeta", "requestId", "agentId", "slug",
                       "entrypoint", "messageId"})
UNRENDERED = "text its rendering leaves out"
# a string a view renders only JSON-escaped (a tool call's input: `"` as `\"`), so the
# pattern as the string reads is found by no selection
ESCAPED = "text its rendering spells escaped"


@dataclass(frozen=True)
class Unseen:
    """One record holding the pattern that the run did not read: where, and why
    (``UNCLASSIFIED`` or the gated leaf it would be read under). A pending record of the
    elicitation sidecar has no line: ``sidecar`` is the file that holds it, ``uuid`` its
    record's."""

    session: str
    line: int | None
    why: str
    sidecar: str | None = None
    uuid: str | None = None


# what an Unseen of the elicitation sidecar adds to the leaf it names
IN_SIDECAR = " (elicitation sidecar)"


# The check stops once this many records are found (the note then says "at least"): on
# the default surface a common word of the attachments is in hundreds of thousands.
UNSEEN_LIMIT = 100


def unseen_records(transcript: Transcript, starts: list[int], plan: SearchPlan,
                   limit: int = UNSEEN_LIMIT) -> list[Unseen]:
    """The records starting at ``starts`` (candidate lines of ``transcript``, which had
    no hit) that hold the pattern in text the run did not read, at most ``limit``;
    admitted by the run's time and turn windows, so a record those windows exclude is
    never reported.

    Under an explicit -t/-T selection every candidate line is decoded too: a record the
    selection left out can still hold the pattern in text no view renders, which the
    label probe cannot name.
    """
    try:
        buf = open_buffer(transcript.path)
    except Exception:  # noqa: BLE001 - SourceError: already reported by the run
        return []
    selection = plan.labels
    matcher = plan.matcher
    seed_uuid, seed_line = (subagent_seed(buf) if transcript.is_subagent else (None, None))
    run_ctx = classify.ClassifyContext(
        owner_id=transcript.session_id, is_subagent=transcript.is_subagent,
        parent_id=transcript.parent_session_id, seed_uuid=seed_uuid, seed_line=seed_line,
        gates=plan.gates, additional_context=plan.additional_context,
        **plan.link_fields(transcript, returns=True))
    open_ctx = replace(run_ctx, gates=L.GATED, additional_context=True)
    counter = LineCounter(buf)
    turns = (build_turn_map(buf, subagent=transcript.is_subagent) if plan.turns is not None
             else None)
    allowed = (set(plan.turns.resolve(0, turns.turn_count - 1))
               if turns is not None and plan.turns is not None else None)
    found: list[Unseen] = []
    for start in sorted(starts):
        end = buf.find(b"\n", start)
        rec = decode(buf[start:len(buf) if end < 0 else end], None)
        if rec is None or not _in_time(rec, plan):
            continue
        run_leaves = set(classify.classify(rec, run_ctx))
        why = _why_unseen(rec, run_leaves, open_ctx, matcher, selection)
        if why is None:
            continue
        if allowed is not None and turns is not None and turns.turn_of_offset(start) not in allowed:
            continue
        found.append(Unseen(transcript.session_id, counter.line_at(start), why))
        if len(found) >= limit:
            break
    return found


def needleless_unseen(transcripts: list[Transcript], plan: SearchPlan) -> list[Unseen]:
    """``unseen_records`` for a pattern no literal is required by (``\\d{3}-\\d{4}``,
    ``(?:session|xx) y``): with no needle pass there are no candidate lines, so the lines
    whose raw bytes the pattern matches as a JSON line may spell the match
    (``Matcher.json_bytes_regex``: an escaped quote, line break or non-ASCII character
    inside it) stand in for them, one whole-buffer search per transcript over both
    cores, decoded in scope order until ``UNSEEN_LIMIT`` records are found. A pattern
    the parser cannot place is searched as it reads (``bytes_regex``), best effort.
    Paid only on a zero."""
    raw = plan.matcher.json_bytes_regex() or plan.matcher.bytes_regex()
    if raw is None:
        return []
    from pysift.disk.fanout import map_ordered

    # the whole-buffer searches over both cores (over a sixth of corpus B the serial
    # pass added ~0.4 s to a 2 s zero); the few lines found are decoded here, in order
    per_file = map_ordered(_needleless_starts, transcripts, shared=raw)
    found: list[Unseen] = []
    for transcript, starts in zip(transcripts, per_file, strict=True):
        if len(found) >= UNSEEN_LIMIT:
            break
        if starts:
            found += unseen_records(transcript, starts, plan, UNSEEN_LIMIT - len(found))
    return found


def _needleless_starts(raw: Any, transcript: Transcript) -> list[int]:
    """The starts of the lines of ``transcript`` whose raw bytes ``raw`` matches (none
    when it cannot be read: the run reported it)."""
    try:  # read whole: the crate copies a mapped file page by page (0.8 s for 225 MB)
        buf = open_buffer(transcript.path, read_up_to=sys.maxsize)
    except Exception:  # noqa: BLE001 - SourceError: already reported by the run
        return []
    return _raw_line_starts(buf, raw)


def _raw_line_starts(buf: Buffer, raw: Any) -> list[int]:
    """The starts of the lines holding a match of ``raw`` (``Matcher.bytes_regex``), each once."""
    starts: list[int] = []
    size = len(buf)
    pos = 0
    while pos < size:
        match = raw.search(buf, pos)
        if match is None:
            break
        at = match.start()
        start = buf.rfind(b"\n", 0, at) + 1
        starts.append(start)
        end = buf.find(b"\n", at)
        pos = size if end < 0 else end + 1
    return starts


def _why_unseen(rec: object, run_leaves: set[str],
                open_ctx: classify.ClassifyContext, matcher: object,
                selection: LabelFilter) -> str | None:
    """Why the run did not read the pattern in ``rec``: the gated leaf that holds it, or
    ``UNCLASSIFIED``; None when the run read it or the user's own -t/-T selection left
    out a view that holds it (an explicit selection that does not name that leaf excluded
    it, as the label probe then says; only the default surface, or a selection naming
    the leaf, wanted it). Text no view renders as it reads (``_hidden_view``, ``ESCAPED``,
    ``UNRENDERED``, an unclassified record's) is named under any selection: the label
    probe renders the same views, so it would call the pattern "genuinely absent".
    ``run_leaves``: the leaves the run read the record under."""
    search = matcher.search  # type: ignore[attr-defined]
    default = not selection.include and not selection.exclude
    opened = classify.units(rec, open_ctx)  # type: ignore[arg-type]
    left_out = False
    for unit in opened:
        if search(unit.text) is None:
            continue
        if not (default or any(selection.selects(leaf) for leaf in unit.labels)):
            left_out = True
        elif not run_leaves.intersection(unit.labels):
            gated = [leaf for leaf in unit.labels if leaf in L.GATED]
            return gated[0] if gated else unit.label
    hidden = _hidden_view(rec, open_ctx, opened, search)
    if hidden is not None:
        return hidden
    if left_out:
        return None  # a view the -t/-T left out holds it (the label probe names it)
    leaves = classify.classify(rec, open_ctx)  # type: ignore[arg-type]
    held = _held_strings(rec, search)
    if held and _spelled_escaped(held, rec, open_ctx, opened, leaves):
        return ESCAPED
    text = classify.record_raw_text(rec)  # type: ignore[arg-type]
    if text is None and not opened and not leaves:
        # a metadata line no view renders (a session's `ai-title`, `custom-title`, a
        # 1.0.x `summary` title, `last-prompt`, a record type Claude Code adds later):
        # its own strings, so a title's words make no "definitive" zero (its envelope,
        # ids and stamps every line carries, is no text, as on any other record)
        raw = rec.raw  # type: ignore[attr-defined]
        text = "\n".join(_strings({k: v for k, v in raw.items() if k not in _ENVELOPE}))
    if (not text or search(text) is None) and not held:
        return None
    return UNRENDERED if opened or leaves else UNCLASSIFIED


def sidecar_unseen(transcript: Transcript, plan: SearchPlan, limit: int = UNSEEN_LIMIT
                   ) -> list[Unseen]:
    """The pending records of ``transcript``'s elicitation sidecar (those the run merged:
    the ghost guard drops the ones the transcript answered, whose text the transcript's
    own check reads) that hold the pattern in text the merge does not render, at most
    ``limit``; admitted by the run's time window and, standing in the latest turn as the
    scan puts them, by its turn window.

    Named under any selection, as a record's second view is: the label probe renders the
    merged record as the run does, so no -t/-T diagnosis would point at the text.
    """
    from pysift.core.sidecar import read_sidecar
    from pysift.disk.layout import sidecar_of

    path = sidecar_of(transcript)
    if path is None:
        return []
    try:
        buf = open_buffer(transcript.path)
    except Exception:  # noqa: BLE001 - SourceError: already reported by the run
        return []
    pending = read_sidecar(path, buf).pending  # (an unread sidecar: the run warned)
    if plan.turns is not None and pending:
        count = build_turn_map(buf, subagent=transcript.is_subagent).turn_count
        domain = turns_with_pending(count, True)  # a transcript with no record: their t0
        if pending_turn(count) not in set(plan.turns.resolve(0, domain - 1)):
            return []
    open_ctx = classify.ClassifyContext(
        owner_id=transcript.session_id, is_subagent=transcript.is_subagent,
        parent_id=transcript.parent_session_id, gates=L.GATED, additional_context=True,
        **plan.link_fields(transcript, returns=True))
    found: list[Unseen] = []
    for rec in pending:
        if not _in_time(rec, plan):
            continue
        why = _why_pending_unseen(rec, open_ctx, plan.matcher)
        if why is not None:
            found.append(Unseen(transcript.session_id, None, why + IN_SIDECAR,
                                sidecar=str(path), uuid=rec.uuid))
            if len(found) >= limit:
                break
    return found


def _why_pending_unseen(rec: Record, open_ctx: classify.ClassifyContext,
                        matcher: object) -> str | None:
    """The leaf (or reason) under which the record CC will write for the pending ``rec``
    holds the pattern, when what the merge renders does not hold it; None when it does
    (the run read it, or its -t/-T left ``agent.tool.use`` out and the label probe says
    so) or no view holds it."""
    search = matcher.search  # type: ignore[attr-defined]
    if any(search(unit.text) is not None for unit in classify.units(rec, open_ctx)):
        return None
    native = Record({k: v for k, v in rec.raw.items() if not k.startswith("csift")}, None)
    why = _why_unseen(native, set(), open_ctx, matcher, _ANY_SELECTION)
    if why is None and not any(b.get("type") == "tool_use" for b in rec.blocks()):
        # an MCP elicitation (no tool_use: the merge renders its ``content`` string, as
        # csift's arm matches it): whatever else the hook wrote of the request, the
        # server's name, the requested schema's titles and descriptions, is read by no
        # view, yet it is what the user sees asked; its own strings, as a metadata
        # line's, the envelope left out
        text = "\n".join(_strings({k: v for k, v in native.raw.items() if k not in _ENVELOPE}))
        if search(text) is not None:
            return UNRENDERED
    return why


# a selection that takes every leaf (no -t/-T): a pending record's unread text is named
# whatever the run selected
_ANY_SELECTION = LabelFilter(allowed=frozenset(L.ALL))


# keys whose string values are no text a reader looks for, at any depth: schema tags,
# stamps, opaque payloads (a thinking block's signature, base64 image or redacted data)
_NO_TEXT_KEYS = frozenset({"type", "role", "timestamp", "signature", "data"})


def _held_strings(rec: object, search: Any) -> list[str]:
    """The record's own strings the pattern matches as they decode (not as its line
    spells them): its envelope keys at the top, and ids, schema tags, stamps and opaque
    payloads at any depth, left out. What the views render of them can spell them
    otherwise (a tool call's input, an attachment's payload dumped as JSON: a quote reads
    ``\\"``) or not at all (a tool's ``toolUseResult`` echo, a message's ``model``)."""
    raw = rec.raw  # type: ignore[attr-defined]
    if not isinstance(raw, dict):
        return []
    return [text for key, value in raw.items() if key not in _ENVELOPE
            for text in _text_values(value) if search(text) is not None]


def _text_values(value: object) -> Iterator[str]:
    """``_strings`` without the values of ``_NO_TEXT_KEYS`` and of id keys."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str) and (key in _NO_TEXT_KEYS or _is_id_key(key)):
                continue
            yield from _text_values(item)
    elif isinstance(value, list):
        for item in value:
            yield from _text_values(item)


def _is_id_key(key: object) -> bool:
    """``id``, ``tool_use_id``, ``parentToolUseID``, ``sourceToolAssistantUUID``, ``agentId``."""
    return isinstance(key, str) and (key == "id" or key.endswith(("_id", "Id", "ID", "uuid",
                                                                    "Uuid", "UUID")))


def _spelled_escaped(held: list[str], rec: object, open_ctx: classify.ClassifyContext,
                     opened: list[classify.Unit], leaves: list[str]) -> bool:
    """Whether a view of ``rec`` renders one of the ``held`` strings only JSON-escaped
    (its quotes, backslashes, line breaks and controls written as escapes), so that no
    selection finds the pattern as the string reads: every leaf's view is looked at, the
    richest and the others."""
    escaped = [spelled[1:-1] for spelled in map(compact_json, held) if spelled[1:-1] not in held]
    if not escaped:
        return False
    texts = [unit.text for unit in opened]
    rendered = {unit.label for unit in opened}
    for leaf in leaves:
        if leaf not in rendered:
            texts += [unit.text for unit in classify.units(
                rec, open_ctx, leaf.__eq__)]  # type: ignore[arg-type]
    return any(form in text for form in escaped for text in texts)


def _strings(value: object) -> Iterator[str]:
    """Every string value of a decoded JSON value, depth first (keys are no text)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _hidden_view(rec: object, open_ctx: classify.ClassifyContext,
                 opened: list[classify.Unit], search: object) -> str | None:
    """The leaf of ``rec`` whose own view holds the pattern although no selection without
    that leaf renders it: a record under two leaves is read under its richest view alone
    (an AskUserQuestion answer or a rejection, not its tool_result; a slash command's
    ``/name args``, not its wrapper), unless the -t names the other one. Neither the run
    nor the label probe (which lifts the -t but keeps the richest view) reads that text,
    so without this its pattern would make a false "definitive" zero."""
    rendered = {unit.label for unit in opened}
    for leaf in classify.classify(rec, open_ctx):  # type: ignore[arg-type]
        if leaf in rendered:
            continue
        for unit in classify.units(rec, open_ctx, leaf.__eq__):  # type: ignore[arg-type]
            if search(unit.text) is not None:  # type: ignore[operator]
                return leaf
    return None


def _in_time(rec: object, plan: SearchPlan) -> bool:
    if plan.since is None and plan.until is None:
        return True
    when = parse_ts(rec.timestamp)  # type: ignore[attr-defined]
    if when is None:
        return False
    if plan.since is not None and when < plan.since:
        return False
    return not (plan.until is not None and when > plan.until)
