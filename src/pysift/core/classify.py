"""Record semantics: who is speaking, which leaves a record carries, what each unit says.

SPEC §4 and §5. Three questions are answered here, and they are deliberately separate:

- ``opens_turn``: does this record start a turn? Exactly four cases (§4.1): a genuine
  human message, an answered AskUserQuestion, a tool rejection carrying typed text, and an
  inbound peer message. Nothing else (no ``<task-notification>``, no synthesized marker).
- ``classify``: the record's full ``role.class.sub`` label set (34 leaves, multi-label,
  richest first). Gated leaves (``labels.GATED``) exist only when the caller selected them.
- ``units``: what a search/show renders: one ``Unit`` per block for assistant records, per
  section for batched notification/peer records, one per record otherwise, each under the
  richest label the caller's selection accepts (the Q4 dedup of §5.2).

Every function is total: any dict decodes without raising, unknown shapes yield no label.
Text matching uses ``str.startswith`` / ``find`` / exact ``==`` only, never byte offsets into
user prose, so CJK bodies are never split.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from pysift.model import labels as L
from pysift.model.record import JsonObj, Record
from pysift.model.tools import SPAWN_TOOLS
from pysift.core.blocktext import result_text
from pysift.core.text import one_line
from pysift.core.timez import format_duration_ms
from pysift.disk.jsonline import compact_json

# ---------------------------------------------------------------------------------------
# Markers Claude Code synthesizes (§4.2, §4.4, §5.1). Exact strings, measured on disk.
# ---------------------------------------------------------------------------------------

INTERRUPT_USER = "[Request interrupted by user]"
INTERRUPT_TOOL = "[Request interrupted by user for tool use]"
LOCAL_COMMAND_STDOUT = "<local-command-stdout>"
LOCAL_COMMAND_CAVEAT = "<local-command-caveat>"
COMMAND_NAME_OPEN = "<command-name>"
COMMAND_MESSAGE_OPEN = "<command-message>"
COMMAND_ARGS_OPEN = "<command-args>"
COMMAND_ARGS_CLOSE = "</command-args>"
COMMAND_NAME_CLOSE = "</command-name>"

CONTINUATION_MARKER = "Continue from where you left off."
WAKEUP_SENTINEL = "<<autonomous-loop-dynamic>>"
WAKEUP_LOOP_CHECK = "# Autonomous loop check"
WAKEUP_TIMER = "You're being invoked on a timer"
STOP_HOOK_FEEDBACK = "Stop hook feedback:"
EDIT_RETRY = "The last Edit failed because the target file was modified"
LOOP_TICK = "# Autonomous loop tick"
LOOP_CHECK_DRIVER = "Run the autonomous check"
IMAGE_SOURCE = "[Image: source:"
AGENTS_STOPPED = "stopped by the user"

# AskUserQuestion answers: three shipped phrasings (the unanswered branch "The user did not
# answer the questions." is deliberately absent: it never opens a turn).
AUQ_ANSWER_MARKERS: tuple[str, ...] = (
    "User has answered your questions",
    "Your questions have been answered",
    "The user answered:",
)
REJECTION_MARKER = "The user doesn't want to proceed with this tool use"
REJECTION_USER_SAID = "To tell you how to proceed, the user said:\n"
# The other shipped phrasing (every typed rejection in the real corpus, CC 2.1.121 on).
REJECTION_REASON = "The user provided the following reason for the rejection:"
REJECTION_TYPED_MARKERS: tuple[str, ...] = (REJECTION_USER_SAID, REJECTION_REASON)

TASK_NOTIFICATION_OPEN = "<task-notification>"
TASK_NOTIFICATION_CLOSE = "</task-notification>"
TEAMMATE_OPEN = "<teammate-message"
TEAMMATE_CLOSE = "</teammate-message>"
AGENT_MESSAGE_OPEN = "<agent-message"
AGENT_MESSAGE_CLOSE = "</agent-message>"
# Claude Code 2.1.258 relays a peer message under any of these (v0.10.1 ledger ⑩a).
PEER_MESSAGE_PREAMBLES: tuple[str, ...] = (
    "Another Claude session sent a message:",
    "Another Claude session sent a message while you were working:",
    "A peer session sent a message while you were working:",
)
_PEER_TAGS = ((TEAMMATE_OPEN, TEAMMATE_CLOSE), (AGENT_MESSAGE_OPEN, AGENT_MESSAGE_CLOSE))
_SECTION_CLOSES: tuple[str, ...] = (TASK_NOTIFICATION_CLOSE, TEAMMATE_CLOSE, AGENT_MESSAGE_CLOSE)
_BOUNDARY_SUFFIXES: tuple[str, ...] = PEER_MESSAGE_PREAMBLES + _SECTION_CLOSES

ASYNC_LAUNCH_ACK = "Async agent launched successfully"
ELICITATION_MARKER = "elicitation-marker-v1"
REDACTED_THINKING_TEXT = "[redacted thinking]"
NARRATION_TAG_TEXT = "[narration summary]"
_ORPHAN_SENTINEL = "__orphan_summary"
_ORPHAN_KIND_SENTINEL = "__orphan_summary__:"

# The system subtypes promoted to their own leaf (v0.10.0); every OTHER subtype except the
# compaction boundary is harness.meta.system (v0.10.1).
_PROMOTED_SYSTEM = {
    "turn_duration": L.HARNESS_META_TURN_DURATION,
    "away_summary": L.HARNESS_META_AWAY_SUMMARY,
    "stop_hook_summary": L.HARNESS_META_STOP_HOOKS,
}

# ---------------------------------------------------------------------------------------
# Public data types
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Unit:
    """One rendered, matchable unit of a record (a block, a section, or the record).

    ``label`` is the view this unit renders under and is always one of ``labels`` (the
    record's full set, richest first). ``text`` is what a pattern is matched against.
    ``from_``/``to`` are set on ``agent.communication.*`` units only; the transcript owner
    renders as ``self``. ``is_error`` is a bool on tool-result units and None elsewhere.
    ``tag`` is a label-zone marker (``[narration summary]``, ``[enqueue]``, ...), display only.
    """

    label: str
    labels: tuple[str, ...]
    text: str
    tool_name: str | None = None
    tool_use_id: str | None = None
    is_error: bool | None = None
    from_: str | None = None
    to: str | None = None
    image_count: int = 0
    queue_operation: str | None = None
    queue_reason: str | None = None
    block_index: int | None = None
    tag: str | None = None


@dataclass(slots=True)
class ClassifyContext:
    """Cross-record facts a single record cannot supply.

    - ``owner_id``: the transcript owner's id (session uuid / agent id); renders as ``self``.
    - ``is_subagent`` / ``parent_id``: the transcript is a subagent lane and who spawned it.
    - ``seed_line``: line of a subagent transcript's spawn-prompt seed (its first turn
      opener). That record is ``agent.communication.inbox`` (parent ⇨ self), not the human.
      Leave None for top-level transcripts and for ``/fork`` clones (no seed, ledger ③).
    - ``gates``: the gated leaves (``labels.GATED``) the caller's selector explicitly
      reaches; a gated leaf is produced only when listed here or in ``address_mode``.
    - ``address_mode``: ``show --line/--uuid`` fetches render every leaf flag-free.
    - ``additional_context``: ``search --additional-context``: hook-context attachments
      classify ``harness.meta.hook`` (reaching ``harness.meta.attachment`` implies it).
    - ``spawn_index`` / ``spawn_names``: spawn ``tool_use_id`` (resp. spawn name) -> child
      agent id, for comm directions and subagent-return detection. Optional.
    - ``plan_index``: ExitPlanMode ``tool_use_id`` -> plan file path (``[plan: …]`` pointer).
    """

    owner_id: str | None = None
    is_subagent: bool = False
    parent_id: str | None = None
    seed_line: int | None = None
    seed_uuid: str | None = None
    gates: frozenset[str] = field(default_factory=frozenset)
    address_mode: bool = False
    additional_context: bool = False
    spawn_index: Mapping[str, str] | None = None
    spawn_names: Mapping[str, str] | None = None
    plan_index: Mapping[str, str] | None = None

    def admits(self, leaf: str) -> bool:
        """Whether ``leaf`` may be produced: ungated, explicitly gated in, or addressed."""
        return leaf not in L.GATED or self.address_mode or leaf in self.gates

    def admits_hook_attachment(self) -> bool:
        return (
            self.address_mode
            or self.additional_context
            or L.HARNESS_META_ATTACHMENT in self.gates
        )

    def child_for(self, tool_use_id: str | None) -> str | None:
        if tool_use_id is None or self.spawn_index is None:
            return None
        child = self.spawn_index.get(tool_use_id)
        return child if isinstance(child, str) and child else None

    def alias(self, party: str) -> str:
        """The owner's own id renders as the literal ``self`` (§5.3)."""
        return "self" if self.owner_id is not None and party == self.owner_id else party


_DEFAULT_CTX = ClassifyContext()

# ---------------------------------------------------------------------------------------
# Small tolerant helpers
# ---------------------------------------------------------------------------------------


def normalize_line(text: str) -> str:
    """Collapse every whitespace run to one space and trim (an excerpt-ready single line)."""
    return one_line(text)


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: object) -> int | None:
    """An integer field: an int (not a bool) or a whole, finite, non-negative float."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value == value and value not in (float("inf"), float("-inf")):
        if value.is_integer() and value >= 0:
            return int(value)
    return None


def _block_type(block: JsonObj) -> object:
    return block.get("type")


def _text_blocks(blocks: list[JsonObj]) -> list[str]:
    return [b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)]


def _is_error(block: JsonObj) -> bool:
    return block.get("is_error") is True


def _count_images(block: JsonObj) -> int:
    if block.get("type") == "image":
        return 1
    content = block.get("content")
    if isinstance(content, list):
        return sum(1 for item in content if isinstance(item, dict) and item.get("type") == "image")
    return 0


def raw_message_text(rec: Record) -> str | None:
    """The message body for marker detection: the string, or text blocks joined by ``\\n``.

    Not whitespace-normalized (a relay preamble's newline must survive). None when the
    record has no message text at all.
    """
    content = rec.content
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = _text_blocks(rec.blocks())
        return "\n".join(parts) if parts else None
    return None


def _flatten(rec: Record) -> str:
    """The genuine-user display form: text joined by spaces, whitespace-normalized
    (kept on the record: the genuine-user test and the opener text both need it)."""
    memo = rec.memo
    if memo is None:
        memo = rec.memo = {}
    elif "flat" in memo:
        return memo["flat"]  # type: ignore[no-any-return]
    content = rec.content
    if isinstance(content, str):
        flat = normalize_line(content)
    elif isinstance(content, list):
        flat = normalize_line(" ".join(_text_blocks(rec.blocks())))
    else:
        flat = ""
    memo["flat"] = flat
    return flat


# ---------------------------------------------------------------------------------------
# Section scanning: task-notification and peer-message sections (FINDING-1, G4/G5)
# ---------------------------------------------------------------------------------------


def _at_boundary(text: str, pos: int) -> bool:
    """Is an open tag at ``pos`` at a SECTION BOUNDARY?

    True at the content start (modulo whitespace), right after a peer relay preamble, or
    right after a previous section's close tag. A tag QUOTED mid-prose is not a boundary,
    so a human who mentions ``<teammate-message>`` stays the human.
    """
    end = pos
    while end > 0 and text[end - 1].isspace():
        end -= 1
    if end == 0:
        return True
    return any(text.endswith(suffix, 0, end) for suffix in _BOUNDARY_SUFFIXES)


def _scan_sections(text: str, open_tag: str, close_tag: str) -> list[tuple[int, str]]:
    """Every boundary-anchored ``open…close`` section as ``(offset, section_text)``.

    A section without its close tag runs to the end of the text (a torn record still
    classifies); the scan always advances, so it terminates.
    """
    found: list[tuple[int, str]] = []
    idx = 0
    while True:
        start = text.find(open_tag, idx)
        if start < 0:
            return found
        if not _at_boundary(text, start):
            idx = start + len(open_tag)
            continue
        close = text.find(close_tag, start)
        stop = len(text) if close < 0 else close + len(close_tag)
        found.append((start, text[start:stop]))
        idx = stop


def _has_boundary_section(text: str, open_tag: str) -> bool:
    idx = 0
    while True:
        start = text.find(open_tag, idx)
        if start < 0:
            return False
        if _at_boundary(text, start):
            return True
        idx = start + len(open_tag)


def is_peer_message(text: str) -> bool:
    """A ``<teammate-message>`` or ``<agent-message>`` at a section boundary, outside every
    ``<task-notification>`` span (a relay quoted in a pulse's report is the pulse's text,
    exactly as the classifier masks it)."""
    if TEAMMATE_OPEN not in text and AGENT_MESSAGE_OPEN not in text:
        return False
    if TASK_NOTIFICATION_OPEN not in text:
        return _has_boundary_section(text, TEAMMATE_OPEN) or _has_boundary_section(
            text, AGENT_MESSAGE_OPEN
        )
    spans = [
        (offset, offset + len(section))
        for offset, section in _scan_sections(text, TASK_NOTIFICATION_OPEN, TASK_NOTIFICATION_CLOSE)
    ]
    for open_tag, close_tag in _PEER_TAGS:
        for offset, _section in _scan_sections(text, open_tag, close_tag):
            if not any(start <= offset < end for start, end in spans):
                return True
    return False


def _has_notification(text: str) -> bool:
    return _has_boundary_section(text, TASK_NOTIFICATION_OPEN)


def extract_xml_tag(text: str, tag: str) -> str | None:
    """The trimmed body of the first ``<tag>…</tag>``; None when absent, unclosed or empty."""
    open_tag, close_tag = f"<{tag}>", f"</{tag}>"
    start = text.find(open_tag)
    if start < 0:
        return None
    start += len(open_tag)
    end = text.find(close_tag, start)
    if end < 0:
        return None
    inner = text[start:end].strip()
    return inner or None


def _all_xml_tags(text: str, tag: str) -> list[str]:
    open_tag, close_tag = f"<{tag}>", f"</{tag}>"
    out: list[str] = []
    at = 0
    while True:
        start = text.find(open_tag, at)
        if start < 0:
            return out
        start += len(open_tag)
        end = text.find(close_tag, start)
        if end < 0:
            return out
        inner = text[start:end].strip()
        if inner:
            out.append(inner)
        at = end + len(close_tag)


def _open_tag_attr(section: str, attr: str) -> str | None:
    """An attribute of the section's OPEN tag only (the body never leaks in)."""
    head_end = section.find(">")
    head = section if head_end < 0 else section[:head_end]
    needle = f'{attr}="'
    start = head.find(needle)
    if start < 0:
        return None
    start += len(needle)
    end = head.find('"', start)
    if end < 0:
        return None
    value = head[start:end].strip()
    return value or None


def _section_body(section: str, close_tag: str) -> str:
    gt = section.find(">")
    body = section if gt < 0 else section[gt + 1 :]
    if body.endswith(close_tag):
        body = body[: -len(close_tag)]
    return body.strip()


def _teammate_signal(section: str) -> str | None:
    """The ``type`` of a ``{"type": …}`` control payload body; None for prose."""
    body = _section_body(section, TEAMMATE_CLOSE)
    if not body.startswith("{"):
        return None
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    if isinstance(value, dict):
        kind = value.get("type")
        if isinstance(kind, str) and kind:
            return kind
    return None


def notification_leaf(summary: str | None) -> str:
    """The ``harness.notification.*`` leaf from a pulse's ``<summary>`` leading phrase.

    A ``Background command "…"`` pulse is always background-command whatever its quoted
    name says (v0.10.0 retired the quoted-name heuristic); Monitor/Scheduled/cron openers
    are the Monitor tool's own pulses; ``Agent …`` is the subagent pulse.
    """
    head = (summary or "").lstrip().lower()
    if head.startswith("background command"):
        return L.HARNESS_NOTIFICATION_BACKGROUND_COMMAND
    if head.startswith(("dynamic workflow", "workflow")):
        return L.HARNESS_NOTIFICATION_WORKFLOW
    if head.startswith(("monitor", "scheduled", "cron")):
        return L.HARNESS_NOTIFICATION_MONITOR
    if head.startswith("agent"):
        return L.HARNESS_NOTIFICATION_SUBAGENT
    return L.HARNESS_NOTIFICATION_TASK


_KIND_SLUG = {
    L.HARNESS_NOTIFICATION_BACKGROUND_COMMAND: "background-command",
    L.HARNESS_NOTIFICATION_WORKFLOW: "workflow",
    L.HARNESS_NOTIFICATION_MONITOR: "monitor",
    L.HARNESS_NOTIFICATION_SUBAGENT: "agent",
    L.HARNESS_NOTIFICATION_TASK: "task",
}


def notification_label(section: str) -> str:
    """``[<kind> <id>[, <id>…] <status>] <summary>``: one pulse, attributed, on one line.

    The status slot prefers ``<status>``, then a Monitor's ``<event>``, then ``completed``.
    Orphan-reconciliation sentinels never count as ids; they add a marker instead.
    """
    close = section.find(TASK_NOTIFICATION_CLOSE)
    scope = section if close < 0 else section[:close]
    ids: list[str] = []
    orphan_kind: str | None = None
    for tag in _all_xml_tags(scope, "task-id"):
        if tag.startswith(_ORPHAN_KIND_SENTINEL):
            kind = tag[len(_ORPHAN_KIND_SENTINEL) :]
            if orphan_kind is None and kind:
                orphan_kind = kind
        elif not tag.startswith(_ORPHAN_SENTINEL):
            ids.append(tag)
    summary = extract_xml_tag(section, "summary")
    status = extract_xml_tag(section, "status")
    event = extract_xml_tag(section, "event")
    if status is None and event is not None:
        status = normalize_line(event)
    head = f"[{_KIND_SLUG[notification_leaf(summary)]} {', '.join(ids) if ids else '?'} "
    head += f"{status or 'completed'}]"
    if orphan_kind is not None:
        head += f" (orphan reconciliation: {orphan_kind})"
    return f"{head} {normalize_line(summary)}" if summary else head


@dataclass(frozen=True, slots=True)
class _Section:
    label: str
    text: str
    from_: str | None
    to: str | None


def _sections(raw: str, ctx: ClassifyContext) -> list[_Section]:
    """Every notification / inbound-peer section of a (possibly batched) user record.

    Notification spans are scanned first and MASK a peer tag quoted inside them; a
    ``<result>``-bearing pulse (a background agent's report) adds an inbox section
    (child ⇨ self, the child resolved from its ``<tool-use-id>``).
    """
    if not any(tag in raw for tag in (TASK_NOTIFICATION_OPEN, TEAMMATE_OPEN, AGENT_MESSAGE_OPEN)):
        return []
    out: list[tuple[int, _Section]] = []
    spans: list[tuple[int, int]] = []
    for offset, section in _scan_sections(raw, TASK_NOTIFICATION_OPEN, TASK_NOTIFICATION_CLOSE):
        label = notification_label(section)
        out.append((offset, _Section(notification_leaf(extract_xml_tag(section, "summary")),
                                     label, None, None)))
        if "<result>" in section:
            child = ctx.child_for(extract_xml_tag(section, "tool-use-id")) or "?"
            report = extract_xml_tag(section, "result")
            text = normalize_line(report) if report else ""
            out.append((offset, _Section(L.AGENT_COMM_INBOX, text or label,
                                         ctx.alias(child), "self")))
        spans.append((offset, offset + len(section)))
    peers: list[tuple[int, _Section]] = []
    for offset, section in _scan_sections(raw, TEAMMATE_OPEN, TEAMMATE_CLOSE):
        leaf = L.AGENT_COMM_SIGNAL if _teammate_signal(section) else L.AGENT_COMM_INBOX
        sender = _open_tag_attr(section, "teammate_id") or "peer"
        peers.append((offset, _Section(leaf, normalize_line(section), ctx.alias(sender), "self")))
    for offset, section in _scan_sections(raw, AGENT_MESSAGE_OPEN, AGENT_MESSAGE_CLOSE):
        sender = _open_tag_attr(section, "from") or "peer"
        peers.append((offset, _Section(L.AGENT_COMM_INBOX, normalize_line(section),
                                       ctx.alias(sender), "self")))
    peers.sort(key=lambda item: item[0])
    for offset, sec in peers:
        if any(start <= offset < end for start, end in spans):
            continue  # a tag quoted inside a notification body is the notification's text
        out.append((offset, sec))
    return [sec for _offset, sec in out]


# ---------------------------------------------------------------------------------------
# Narration-tagged thinking (§5.1, v0.9.2)
# ---------------------------------------------------------------------------------------

NARRATION = "narration"
# "narration" as it appears in base64 at each of the three byte alignments. A signature
# containing none of them cannot decode to the tag, so the (whole-string) decode is skipped.
_NARRATION_B64 = ("bmFycmF0aW9u", "5hcnJhdGlvb", "uYXJyYXRpb2")


def _varint(data: bytes, pos: int) -> tuple[int, int] | None:
    value = 0
    for i in range(10):
        if pos + i >= len(data):
            return None
        byte = data[pos + i]
        value |= (byte & 0x7F) << (7 * i)
        if not byte & 0x80:
            return value, i + 1
    return None


def _last_len_delimited(data: bytes, want: int) -> bytes | None:
    """The payload of the LAST wire-type-2 field ``want`` at one protobuf level.

    Varint and fixed fields are skipped; an unknown wire type or any truncation is None.
    """
    pos, found, size = 0, None, len(data)
    while pos < size:
        key = _varint(data, pos)
        if key is None:
            return None
        pos += key[1]
        number, wire = key[0] >> 3, key[0] & 7
        if wire == 0:
            skip = _varint(data, pos)
            if skip is None:
                return None
            pos += skip[1]
        elif wire in (1, 5):
            pos += 8 if wire == 1 else 4
            if pos > size:
                return None
        elif wire == 2:
            length = _varint(data, pos)
            if length is None:
                return None
            pos += length[1]
            end = pos + length[0]
            if end > size:
                return None
            if number == want:
                found = data[pos:end]
            pos = end
        else:
            return None
    return found


def _b64decode(text: str) -> bytes | None:
    """Standard (else URL-safe) base64, padding optional, embedded whitespace ignored."""
    compact = "".join(text.split()) if _has_whitespace(text) else text
    try:
        data = compact.encode("ascii")
    except UnicodeEncodeError:
        return None
    data += b"=" * (-len(data) % 4)
    for altchars in (None, b"-_"):
        try:
            return base64.b64decode(data, altchars=altchars, validate=True)
        except (binascii.Error, ValueError):
            continue
    return None


def narration_tag(signature: object) -> str | None:
    """The tag hidden in a thinking block's base64 ``signature`` (protobuf path 2→1→8).

    The whole string is decoded (signatures reach 200K+ chars). Any failure - absent or
    empty signature, bad base64, truncation, unknown wire type, non-UTF-8 - is None, which
    callers treat as plain ``agent.thinking``. The tag set is open; only ``narration``
    selects the narration leaf.
    """
    if not isinstance(signature, str) or not signature:
        return None
    data = _b64decode(signature)
    if data is None:
        return None
    level = data
    for field_number in (2, 1, 8):
        nested = _last_len_delimited(level, field_number)
        if nested is None:
            return None
        level = nested
    try:
        return level.decode("utf-8")
    except UnicodeDecodeError:
        return None


def thinking_leaf(signature: object) -> str:
    """``agent.thinking.narration`` iff the signature's tag reads ``narration``.

    Hot-path gate: a signature carrying none of the tag's three base64 alignments cannot
    decode to it, so the decode is skipped (whitespace inside the base64 could split a
    needle, so it conservatively re-opens the gate).
    """
    if not isinstance(signature, str) or not signature:
        return L.AGENT_THINKING
    if not any(needle in signature for needle in _NARRATION_B64) and not _has_whitespace(
        signature
    ):
        return L.AGENT_THINKING
    return L.AGENT_THINKING_NARRATION if narration_tag(signature) == NARRATION else L.AGENT_THINKING


def _has_whitespace(text: str) -> bool:
    return any(ch in text for ch in " \t\r\n")


# ---------------------------------------------------------------------------------------
# The genuine-user and turn-opener rules (§4.1 - §4.4)
# ---------------------------------------------------------------------------------------


def is_slash_command_wrapper(text: str) -> bool:
    """The templated slash-command expansion, in EITHER tag order (§4.2.3)."""
    return text.startswith((COMMAND_NAME_OPEN, COMMAND_MESSAGE_OPEN))


def is_agents_stopped_notice(text: str) -> bool:
    """The harness's ``N background agents were stopped by the user: …`` notice (v0.10.0)."""
    head = text.lstrip()
    if head.startswith('Background agent "') and " was stopped by the user" in head:
        return True
    digits = 0
    while digits < len(head) and head[digits] in "0123456789":
        digits += 1
    if digits == 0:
        return False
    rest = head[digits:]
    return rest.startswith(
        (" background agent was stopped by the user", " background agents were stopped by the user")
    ) and AGENTS_STOPPED in rest


def _is_synthetic_marker(text: str) -> bool:
    return (
        text in (INTERRUPT_USER, INTERRUPT_TOOL)
        or text.startswith(LOCAL_COMMAND_STDOUT)
        or is_slash_command_wrapper(text)
        or is_agents_stopped_notice(text)
    )


# Where the markers of the genuine-user test, the user-text ladder and the section parser
# can stand. Every tag starts with ``<`` and every bracketed marker with ``[`` (two memchr
# scans); the prose markers either open the text (``_MARKED_HEADS``, and the digit of an
# agents-stopped count) or hold one of ``_MARKED_PHRASES`` anywhere. A text with none of
# these is a typed prompt, settled by five C-level scans instead of the whole ladder
# (81% of the prompts of a large corpus). tests/unit/core/test_classify_unmarked.py holds
# the ladder to these lists.
_MARKED_HEADS: tuple[str, ...] = (
    CONTINUATION_MARKER, WAKEUP_LOOP_CHECK, LOOP_TICK, STOP_HOOK_FEEDBACK,
    'Background agent "',
)
_MARKED_PHRASES: tuple[str, ...] = (WAKEUP_TIMER, EDIT_RETRY, LOOP_CHECK_DRIVER)
_HEAD_WINDOW = 128  # leading whitespace beyond this: the ladder decides


def is_unmarked(text: str) -> bool:
    """No synthesized marker, tag or section can be in ``text`` (a False is no verdict)."""
    if "<" in text or "[" in text:
        return False
    head = text[:_HEAD_WINDOW].lstrip()
    if len(text) > _HEAD_WINDOW and len(head) < _HEAD_WINDOW // 2:
        return False
    if head.startswith(_MARKED_HEADS) or head[:1].isdigit():
        return False
    for phrase in _MARKED_PHRASES:
        if phrase in text:
            return False
    return True


def _not_human(text: str) -> bool:
    """Text the operator never typed although it rides a plain user record."""
    if is_unmarked(text):
        return False
    return _is_synthetic_marker(text) or is_peer_message(text) or _has_notification(text)


def _memoized(key: str):  # type: ignore[no-untyped-def]
    """Cache a pure per-record predicate on ``Record.memo`` (a scan asks several times)."""
    def wrap(fn):  # type: ignore[no-untyped-def]
        def inner(rec: Record) -> bool:
            memo = rec.memo
            if memo is None:
                memo = rec.memo = {}
            elif key in memo:
                return memo[key]  # type: ignore[no-any-return]
            value = memo[key] = fn(rec)
            return value  # type: ignore[no-any-return]
        inner.__doc__ = fn.__doc__
        inner.__name__ = fn.__name__
        return inner
    return wrap


@_memoized("genuine")
def is_genuine_user(rec: Record) -> bool:
    """A human turn: type+role user, not a compaction summary, not ``isMeta``, string or
    text-only content that is no synthesized marker, no peer message and no pulse (§4.1)."""
    if rec.type != "user" or rec.is_compact_summary or rec.is_meta or rec.role != "user":
        return False
    content = rec.content
    if isinstance(content, str):  # (the unmarked verdict is kept for classify to reuse)
        return _unmarked_user_body(rec) is not None or not _not_human(content)
    if isinstance(content, list):
        blocks = rec.blocks()
        if any(b.get("type") == "tool_result" for b in blocks):
            return False
        if not any(b.get("type") == "text" and isinstance(b.get("text"), str) for b in blocks):
            return False
        # the blocks joined as the label ladder reads them (an interrupt marker is an
        # exact match there: a whitespace block after it keeps it a message on both sides)
        return not _not_human("\n".join(_text_blocks(blocks)))
    return False


def is_peer_message_record(rec: Record) -> bool:
    """An inbound ``<teammate-message>`` / ``<agent-message>`` at a section boundary (a
    compaction summary quoting one is still the summary, and never opens a turn)."""
    if rec.type != "user" or rec.is_compact_summary:
        return False
    text = raw_message_text(rec)
    return text is not None and is_peer_message(text)


def _tool_use_result(rec: Record) -> JsonObj | None:
    value = rec.tool_use_result
    return value if isinstance(value, dict) else None


def _auq_marker_text(rec: Record) -> str | None:
    for block in rec.blocks():
        if block.get("type") == "tool_result" and "content" in block:
            text = result_text(block)
            if text.lstrip().startswith(AUQ_ANSWER_MARKERS):
                return text
    return None


def is_auq_answer_boundary(rec: Record) -> bool:
    """An ANSWERED AskUserQuestion carrier (§4.4): only non-errored tool_results, and a
    non-empty ``toolUseResult.answers`` or the synthesized answer marker."""
    if rec.type != "user":
        return False
    results = [b for b in rec.blocks() if b.get("type") == "tool_result"]
    if not results or any(_is_error(b) for b in results):
        return False
    tur = _tool_use_result(rec)
    answers = tur.get("answers") if tur is not None else None
    if isinstance(answers, dict) and answers:
        return True
    return _auq_marker_text(rec) is not None


def _rejection(rec: Record) -> tuple[str | None, str] | None:
    """``(rejected tool_use_id, typed message)`` of a rejection carrying text (§4.2.4)."""
    if rec.type != "user":
        return None
    for block in rec.blocks():
        if block.get("type") != "tool_result" or not _is_error(block) or "content" not in block:
            continue
        text = result_text(block)
        if REJECTION_MARKER not in text:
            continue
        for marker in REJECTION_TYPED_MARKERS:
            _head, sep, tail = text.partition(marker)
            message = tail.strip()
            if sep and message:
                return _str(block.get("tool_use_id")), message
    return None


def rejection_message(rec: Record) -> str | None:
    """The instruction typed with a tool rejection; None for the click-only rejection."""
    found = _rejection(rec)
    return found[1] if found is not None else None


@_memoized("opens")
def opens_turn(rec: Record) -> bool:
    """The single turn delimiter (§4.1/§6.4): exactly the four cases, nothing else."""
    return (
        is_genuine_user(rec)
        or is_auq_answer_boundary(rec)
        or _rejection(rec) is not None
        or is_peer_message_record(rec)
    )


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _answer_text(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ", ".join(v if isinstance(v, str) else compact_json(v) for v in value)
    return "" if value is None else compact_json(value)


def _auq_note(annotations: object, question: str) -> str | None:
    if not isinstance(annotations, dict):
        return None
    entry = annotations.get(question)
    note = entry.get("notes") if isinstance(entry, dict) else None
    return note if isinstance(note, str) and note.strip() else None


def auq_exchange(rec: Record) -> str | None:
    """The whole AskUserQuestion exchange as one user unit (§4.4).

    ``[AskUserQuestion · N questions]`` then per question ``Qn (header): question options:
    a | b`` and ``An: answer`` (plus ``note: …`` when the user attached notes, which is
    where a "(notes only)" answer keeps its prose). Built from the structured
    ``toolUseResult``; falls back to the synthesized marker string when it is absent.
    """
    if not is_auq_answer_boundary(rec):
        return None
    tur = _tool_use_result(rec) or {}
    answers = tur.get("answers")
    if isinstance(answers, dict) and answers:
        questions = tur.get("questions")
        annotations = tur.get("annotations")
        lines: list[str] = []
        if isinstance(questions, list):
            asked = [q for q in questions if isinstance(q, dict)]
            lines.append(f"[AskUserQuestion · {_plural(len(asked), 'question')}]")
            for n, q in enumerate(asked, start=1):
                question = _str(q.get("question")) or ""
                header = _str(q.get("header"))
                line = f"Q{n} " + (f"({normalize_line(header)}): " if header else "")
                line += normalize_line(question)
                options = q.get("options")
                labels_ = [
                    normalize_line(o["label"])
                    for o in (options if isinstance(options, list) else [])
                    if isinstance(o, dict) and isinstance(o.get("label"), str)
                ]
                if labels_:
                    line += " options: " + " | ".join(labels_)
                lines.append(line)
                lines.append(f"A{n}: {normalize_line(_answer_text(answers.get(question)))}")
                note = _auq_note(annotations, question)
                if note is not None:
                    lines.append(f"   note: {normalize_line(note)}")
        else:
            lines.append(f"[AskUserQuestion · {_plural(len(answers), 'question')}]")
            for n, (question, answer) in enumerate(answers.items(), start=1):
                lines.append(f"Q{n}: {normalize_line(str(question))}")
                lines.append(f"A{n}: {normalize_line(_answer_text(answer))}")
                note = _auq_note(annotations, str(question))
                if note is not None:
                    lines.append(f"   note: {normalize_line(note)}")
        return "\n".join(lines)
    marker = _auq_marker_text(rec)
    return f"[AskUserQuestion] {normalize_line(marker)}" if marker is not None else None


def slash_command_parts(rec: Record) -> tuple[str, str | None] | None:
    """``(name, args)`` of a slash-command wrapper record; args None when none were typed."""
    content = rec.content
    if not isinstance(content, str) or not is_slash_command_wrapper(content):
        return None
    return _slash_parts(content)


def _slash_parts(text: str) -> tuple[str, str | None] | None:
    name = _between(text, COMMAND_NAME_OPEN, COMMAND_NAME_CLOSE)
    args = _between(text, COMMAND_ARGS_OPEN, COMMAND_ARGS_CLOSE)
    args = normalize_line(args) if args else None
    if not name and not args:
        return None
    return name or "", args or None


def _between(text: str, open_tag: str, close_tag: str) -> str | None:
    start = text.find(open_tag)
    if start < 0:
        return None
    start += len(open_tag)
    end = text.find(close_tag, start)
    inner = (text[start:] if end < 0 else text[start:end]).strip()
    return inner or None


def slash_command_name(rec: Record) -> str | None:
    """The invoked command line ``/name args`` (just ``/name`` when no args were typed)."""
    parts = slash_command_parts(rec)
    if parts is None:
        return None
    return _slash_render(*parts)


def _slash_render(name: str, args: str | None) -> str:
    if args is None:
        return name
    return f"{name} {args}" if name else args


# ---------------------------------------------------------------------------------------
# Comm helpers (§5.3)
# ---------------------------------------------------------------------------------------


def _send_message_is_signal(payload: object) -> bool:
    if not isinstance(payload, dict):
        return False
    kind = payload.get("type")
    if isinstance(kind, str):
        return kind not in ("message", "direct")
    inner = payload.get("message")
    if isinstance(inner, dict) and isinstance(inner.get("type"), str):
        return inner["type"] not in ("message", "direct")
    return False


def _tool_use_comm_leaf(name: object, payload: object) -> str | None:
    if name == "SendMessage":
        return L.AGENT_COMM_SIGNAL if _send_message_is_signal(payload) else L.AGENT_COMM_SENT
    if isinstance(name, str) and name in SPAWN_TOOLS:
        return L.AGENT_COMM_SENT
    return None


def _first_str(payload: object, keys: tuple[str, ...]) -> str | None:
    if not isinstance(payload, dict):
        return None
    for key in keys:
        value = payload.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _tool_use_direction(block: JsonObj, ctx: ClassifyContext) -> tuple[str, str]:
    """``self ⇨ recipient`` for SendMessage, ``self ⇨ child`` for a spawn."""
    payload = block.get("input")
    if block.get("name") == "SendMessage":
        to = _first_str(payload, ("to", "recipient")) or "?"
        return "self", ctx.alias(to)
    child = ctx.child_for(_str(block.get("id")))
    if child is None:
        spawn_name = _first_str(payload, ("name", "subagent_type"))
        if spawn_name is not None:
            named = ctx.spawn_names.get(spawn_name) if ctx.spawn_names is not None else None
            child = named if isinstance(named, str) and named else spawn_name
    return "self", ctx.alias(child or "?")


def render_tool_use(block: JsonObj) -> str:
    """``name {compact input}``: the name first (so ``search AskUserQuestion`` works), then
    the arguments as compact JSON so a pattern can reach them."""
    name = _str(block.get("name")) or ""
    if "input" in block:
        return f"{name} {compact_json(block.get('input'))}"
    return name


def _is_spawn_launch_ack(rec: Record) -> bool:
    """A teammate spawn ack or an async agent launch ack: the launch, not the child's reply."""
    tur = _tool_use_result(rec)
    if tur is not None:
        if tur.get("status") in ("teammate_spawned", "async_launched"):
            return True
        if tur.get("isAsync") is True:
            return True
    return any(
        b.get("type") == "tool_result" and "content" in b
        and result_text(b).startswith(ASYNC_LAUNCH_ACK)
        for b in rec.blocks()
    )


def _is_subagent_return(rec: Record, ctx: ClassifyContext) -> bool:
    if ctx.spawn_index is None or _is_spawn_launch_ack(rec):
        return False
    return any(
        b.get("type") == "tool_result" and ctx.child_for(_str(b.get("tool_use_id"))) is not None
        for b in rec.blocks()
    )


# ---------------------------------------------------------------------------------------
# classify
# ---------------------------------------------------------------------------------------


class _Labels:
    """An ordered, deduplicated label accumulator (first seen = richest)."""

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, *leaves: str) -> None:
        for leaf in leaves:
            if leaf not in self.items:
                self.items.append(leaf)


def _is_elicitation_marker(rec: Record) -> bool:
    return rec.raw.get("csift") == ELICITATION_MARKER


def _is_seed(rec: Record, ctx: ClassifyContext) -> bool:
    if not ctx.is_subagent:
        return False
    if ctx.seed_uuid is not None and rec.uuid is not None:
        return rec.uuid == ctx.seed_uuid
    return ctx.seed_line is not None and rec.line == ctx.seed_line


def _hook_context_text(rec: Record) -> str | None:
    payload = rec.raw.get("attachment")
    if not isinstance(payload, dict) or payload.get("type") != "hook_additional_context":
        return None
    content = payload.get("content")
    if isinstance(content, str):
        return content.strip() or None
    if isinstance(content, list):
        parts = [c for c in content if isinstance(c, str)]
        return "\n".join(parts) if parts else None
    return None


def queued_text(rec: Record) -> str | None:
    """A queue operation's content: a string, or the text parts of a content-block list
    (an enqueued message with an attachment is written that way)."""
    content = rec.system_content
    if isinstance(content, list):
        parts = [b["text"] for b in content
                 if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)]
        return "\n".join(parts) if parts else None
    return content if isinstance(content, str) else None


def _queued_leaf(rec: Record) -> str | None:
    text = queued_text(rec)
    if text is None or not text.strip():
        return None  # a content-less dequeue carries no label
    if text.lstrip().startswith(TASK_NOTIFICATION_OPEN) or is_peer_message(text):
        return None  # a harness rider: its delivered twin carries the label
    return L.USER_QUEUED


def _promoted_leaf(rec: Record) -> str | None:
    kind = rec.type
    if kind == "queue-operation":
        return _queued_leaf(rec)
    if kind == "system":
        subtype = rec.subtype
        if subtype is None:
            return None
        if subtype == "compact_boundary":
            return L.HARNESS_COMPACTION_BOUNDARY
        return _PROMOTED_SYSTEM.get(subtype, L.HARNESS_META_SYSTEM)
    if kind in ("file-history-snapshot", "file-history-delta"):
        return L.HARNESS_META_SNAPSHOT
    return None


def _user_string_leaves(rec: Record, text: str, ctx: ClassifyContext, out: _Labels) -> None:
    """The marker ladder for a plain user body (§4.2, §5.1), first match wins."""
    if is_unmarked(text):
        _typed_leaves(rec, ctx, out)  # no marker below can match
    elif text == INTERRUPT_USER:
        out.add(L.HARNESS_INTERRUPT_USER)
    elif text == INTERRUPT_TOOL:
        out.add(L.HARNESS_INTERRUPT_TOOL)
    elif text.startswith(LOCAL_COMMAND_STDOUT):
        out.add(L.HARNESS_COMMAND_STDOUT)
    elif is_slash_command_wrapper(text):
        parts = _slash_parts(text)
        if parts is not None and parts[1] is not None:
            out.add(L.USER_MESSAGE)  # the typed args are the richer view (§4.2.3)
        out.add(L.HARNESS_COMMAND_INVOCATION)
    elif text.lstrip().startswith(CONTINUATION_MARKER):
        out.add(L.HARNESS_SCHEDULE_CONTINUATION)
    elif WAKEUP_SENTINEL in text or text.startswith(WAKEUP_LOOP_CHECK) or WAKEUP_TIMER in text:
        out.add(L.HARNESS_SCHEDULE_WAKEUP)
    elif text.startswith((STOP_HOOK_FEEDBACK, LOCAL_COMMAND_CAVEAT)) or EDIT_RETRY in text:
        out.add(L.HARNESS_META_HOOK)
    elif text.startswith(LOOP_TICK) or LOOP_CHECK_DRIVER in text:
        out.add(L.HARNESS_META_LOOP)
    elif text.startswith(IMAGE_SOURCE) and rec.is_meta:
        return  # an isMeta image reference: excluded, never user.message (a typed
        # prompt that opens the same way is the human's, below)
    elif is_agents_stopped_notice(text):
        out.add(L.HARNESS_NOTIFICATION_SUBAGENT)
    else:
        _typed_leaves(rec, ctx, out)


def _typed_leaves(rec: Record, ctx: ClassifyContext, out: _Labels) -> _Labels:
    """The ladder's last rungs: a body that is no marker."""
    if _is_seed(rec, ctx):
        out.add(L.AGENT_COMM_INBOX)  # the delivered spawn prompt: parent ⇨ self
    elif not rec.is_meta:
        out.add(L.USER_MESSAGE)  # an isMeta record matching no marker classifies empty
    return out


@_memoized("unmarked")
def _unmarked_user_body(rec: Record) -> str | None:
    """The string body of a ``user`` record that no marker, tag or section can be in (and
    that is no compaction summary or sidecar marker), else None. For such a record the
    whole classification is ``_typed_leaves``: every earlier rung needs a marker."""
    raw = rec.raw
    if raw.get("type") != "user" or raw.get("isCompactSummary") is True:
        return None
    message = raw.get("message")
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    if not isinstance(content, str) or not is_unmarked(content):
        return None
    return None if _is_elicitation_marker(rec) else content


def _user_leaves(rec: Record, ctx: ClassifyContext, out: _Labels) -> None:
    if rec.is_compact_summary:
        out.add(L.HARNESS_COMPACTION_SUMMARY)
        return
    raw = raw_message_text(rec)
    if raw is not None:
        sections = _sections(raw, ctx)
        if sections:
            out.add(*(s.label for s in sections))
            return
    content = rec.content
    if isinstance(content, str):
        _user_string_leaves(rec, content, ctx, out)
        return
    blocks = rec.blocks()
    if any(b.get("type") == "tool_result" for b in blocks):
        if is_auq_answer_boundary(rec):
            out.add(L.USER_ANSWER, L.AGENT_TOOL_RESULT)
        elif _rejection(rec) is not None:
            out.add(L.USER_REJECTION, L.AGENT_TOOL_RESULT)
        elif _is_subagent_return(rec, ctx):
            out.add(L.AGENT_COMM_INBOX, L.AGENT_TOOL_RESULT)
        else:
            out.add(L.AGENT_TOOL_RESULT)
        return
    joined = "\n".join(_text_blocks(blocks))
    if joined.strip():
        _user_string_leaves(rec, joined, ctx, out)


def _assistant_leaves(rec: Record, out: _Labels) -> None:
    content = rec.content
    if isinstance(content, str):
        if content.strip():
            out.add(L.AGENT_MESSAGE)
        return
    for block in rec.blocks():
        kind = _block_type(block)
        if kind == "text":
            text = block.get("text")
            if isinstance(text, str) and text.strip():
                out.add(L.AGENT_MESSAGE)
        elif kind == "thinking":
            out.add(thinking_leaf(block.get("signature")))
        elif kind == "redacted_thinking":
            out.add(L.AGENT_THINKING)
        elif kind == "tool_use":
            comm = _tool_use_comm_leaf(block.get("name"), block.get("input"))
            if comm is not None:
                out.add(comm)
            out.add(L.AGENT_TOOL_USE)
        elif kind == "tool_result":
            out.add(L.AGENT_TOOL_RESULT)


def classify(rec: Record, ctx: ClassifyContext | None = None, *, draft: bool = False) -> list[str]:
    """The record's full label set, richest first, deduplicated (§5).

    ``draft=True`` is the scan layer's superseded-draft verdict (C-18): the record then
    carries the single label ``user.unsent`` whatever its shape. An unmodeled record, an
    ``isMeta`` record matching no harness marker, and a gated leaf the caller did not
    select all yield ``[]``.
    """
    if draft:
        return [L.USER_UNSENT]
    ctx = ctx or _DEFAULT_CTX
    if _unmarked_user_body(rec) is not None:  # the common typed prompt, in a few lookups
        return _typed_leaves(rec, ctx, _Labels()).items
    out = _Labels()
    if _is_elicitation_marker(rec):
        # A pending sidecar marker stands in for the tool_use CC has not written yet
        # (§6.10); a resolved one is a pairing artifact.
        if rec.raw.get("csiftPhase") == "pending":
            out.add(L.AGENT_TOOL_USE)
        return out.items
    kind = rec.type
    if kind == "attachment":
        if "attachment" in rec.raw:
            if _hook_context_text(rec) is not None:
                if ctx.admits_hook_attachment():
                    out.add(L.HARNESS_META_HOOK)
            elif ctx.admits(L.HARNESS_META_ATTACHMENT):
                out.add(L.HARNESS_META_ATTACHMENT)
        return out.items
    promoted = _promoted_leaf(rec)
    if promoted is not None:
        if ctx.admits(promoted):
            out.add(promoted)
        return out.items
    if kind == "assistant":
        _assistant_leaves(rec, out)
    elif kind == "user":
        _user_leaves(rec, ctx, out)
    return out.items


# ---------------------------------------------------------------------------------------
# Rendered text of the non-message lines (§4.7, §5.1)
# ---------------------------------------------------------------------------------------


_TURN_DURATION_FIELDS = (
    "durationMs", "messageCount", "pendingBackgroundAgentCount", "pendingWorkflowCount"
)


def _turn_duration_text(raw: JsonObj) -> str | None:
    fields = [
        (key, _int(raw.get(key)))
        for key in _TURN_DURATION_FIELDS
    ]
    present = [f"{key}={value}" for key, value in fields if value is not None]
    if not present:
        return None  # nothing is fabricated
    duration = fields[0][1]
    head = [format_duration_ms(duration)] if duration is not None else []
    return "[turn duration: " + " · ".join(head + [" ".join(present)]) + "]"


def _stop_hooks_text(raw: JsonObj) -> str:
    count = _int(raw.get("hookCount")) or 0
    errors = raw.get("hookErrors")
    prevented = raw.get("preventedContinuation") is True
    lines = [
        f"[stop hooks: count={count} errors={len(errors) if isinstance(errors, list) else 0} "
        f"prevented={'true' if prevented else 'false'}]"
    ]
    infos = raw.get("hookInfos")
    for info in infos if isinstance(infos, list) else []:
        if not isinstance(info, dict) or not isinstance(info.get("command"), str):
            continue
        duration = _int(info.get("durationMs"))
        command = info["command"]
        lines.append(f"{command} ({duration}ms)" if duration is not None else command)
    return "\n".join(lines)


def _snapshot_text(rec: Record) -> str | None:
    raw = rec.raw
    if rec.type == "file-history-delta":
        path = _str(raw.get("trackingPath"))
        if path is None:
            return None
        backup = raw.get("backup")
        backup = backup if isinstance(backup, dict) else {}
        version = _int(backup.get("version"))
        text = f"[file-history delta at {rec.timestamp or '?'}: {path}"
        if version is not None:
            text += f"@v{version}"
        name = _str(backup.get("backupFileName"))
        if name is not None:
            text += f" backup={name}"
        return text + "]"
    snapshot = raw.get("snapshot")
    if not isinstance(snapshot, dict):
        return None
    stamp = _str(snapshot.get("timestamp")) or "?"
    tracked = snapshot.get("trackedFileBackups")
    entries: list[str] = []
    if isinstance(tracked, dict):
        for path in sorted(tracked):
            entry = tracked[path]
            version = _int(entry.get("version")) if isinstance(entry, dict) else None
            entries.append(f"{path}@v{version}" if version is not None else path)
    if not entries:
        return f"[file-history snapshot at {stamp}]"
    return f"[file-history snapshot at {stamp}: {', '.join(entries)}]"


def _system_text(rec: Record) -> str:
    level = _str(rec.raw.get("level"))
    head = f"[{rec.subtype}{' ' + level if level else ''}]"
    content = rec.system_content
    if isinstance(content, str):
        return f"{head} {content}" if content.strip() else head
    if content is None:
        return head
    return f"{head} {compact_json(content)}"


def compaction_boundary_text(rec: Record) -> str | None:
    """``Conversation compacted [compaction boundary: trigger=… preTokens=…]`` (D7)."""
    parts: list[str] = []
    content = rec.system_content
    if isinstance(content, str) and content.strip():
        parts.append(content.strip())
    meta = rec.raw.get("compactMetadata")
    if isinstance(meta, dict):
        fields = [
            f"{key}={meta[key] if isinstance(meta[key], str) else compact_json(meta[key])}"
            for key in ("trigger", "preTokens", "postTokens", "durationMs")
            if key in meta
        ]
        if fields:
            parts.append(f"[compaction boundary: {' '.join(fields)}]")
    return " ".join(parts) if parts else None


def record_raw_text(rec: Record) -> str | None:
    """The record's own text, for a marker render or an address with no modeled leaf:
    the message string or its text blocks joined by newlines; for a message-less line the
    render of its line type; for an attachment its payload."""
    if rec.type == "attachment":
        hook = _hook_context_text(rec)
        if hook is not None:
            return hook
        return compact_json(rec.raw["attachment"]) if "attachment" in rec.raw else None
    if rec.message is not None:
        return raw_message_text(rec)
    return _line_text(rec)


def _line_text(rec: Record) -> str | None:
    """The render of a message-less line (queue, system, file-history), or None."""
    kind = rec.type
    if kind == "queue-operation":
        return queued_text(rec)
    if kind in ("file-history-snapshot", "file-history-delta"):
        return _snapshot_text(rec)
    if kind == "system":
        subtype = rec.subtype
        if subtype == "compact_boundary":
            return compaction_boundary_text(rec)
        if subtype == "turn_duration":
            return _turn_duration_text(rec.raw)
        if subtype == "stop_hook_summary":
            return _stop_hooks_text(rec.raw)
        if subtype == "away_summary":
            content = rec.system_content
            return content if isinstance(content, str) else None
        if subtype is not None:
            return _system_text(rec)
    content = rec.system_content
    return content if isinstance(content, str) and content.strip() else None


def opener_text(rec: Record, ctx: ClassifyContext | None = None) -> str | None:
    """The rendered body of a turn-opening record (§4.1 ``reconstructed_user_text``).

    Genuine text (whitespace-normalized), the AUQ exchange, the rejection instruction with
    its ``[plan: …]`` pointer, a slash command's ``/name args``, or a peer message body.
    """
    ctx = ctx or _DEFAULT_CTX
    if is_genuine_user(rec):
        return _flatten(rec)
    exchange = auq_exchange(rec)
    if exchange is not None:
        return normalize_line(exchange)
    rejected = _rejection(rec)
    if rejected is not None:
        return _rejection_text(rejected, ctx)
    parts = slash_command_parts(rec)
    if parts is not None and parts[1] is not None:
        return _slash_render(*parts)
    if is_peer_message_record(rec):
        return _flatten(rec)
    return None


def opener_source(rec: Record, ctx: ClassifyContext | None = None) -> str | None:
    """A text whose ``one_line`` is ``opener_text``: a genuine message's own words, not
    yet collapsed, so a preview can clip them without collapsing all of a long paste."""
    if is_genuine_user(rec):
        content = rec.content
        if isinstance(content, str):
            return content
        return " ".join(_text_blocks(rec.blocks()))
    return opener_text(rec, ctx)


def _rejection_text(rejected: tuple[str | None, str], ctx: ClassifyContext) -> str:
    tool_use_id, message = rejected
    text = normalize_line(message)
    if tool_use_id is not None and ctx.plan_index is not None:
        path = ctx.plan_index.get(tool_use_id)
        if isinstance(path, str) and path:
            text += f" [plan: {path}]"
    return text


# ---------------------------------------------------------------------------------------
# units
# ---------------------------------------------------------------------------------------

Select = Callable[[str], bool]

def _queue_tag(operation: str | None, reason: str | None) -> str | None:
    if operation is None:
        return None
    return f"[{operation} · {reason}]" if reason else f"[{operation}]"


class _Emitter:
    """Builds the units of one record; every unit's label is checked against the set."""

    __slots__ = ("accept", "labels", "label_set", "out", "images_pending")

    def __init__(self, labels: tuple[str, ...], accept: Select, images: int) -> None:
        self.labels = labels
        self.label_set = frozenset(labels)
        self.accept = accept
        self.out: list[Unit] = []
        self.images_pending = images  # record-level images ride the first record-level unit

    def pick(self, *views: str) -> str | None:
        """The richest of ``views`` the record carries and the selection accepts."""
        for view in views:
            if view in self.label_set and self.accept(view):
                return view
        return None

    def emit(self, label: str, text: str, *, record_images: bool = False, **facts: Any) -> None:
        if record_images:
            facts["image_count"] = facts.get("image_count", 0) + self.images_pending
            self.images_pending = 0
        self.out.append(Unit(label=label, labels=self.labels, text=text, **facts))


def _record_images(rec: Record) -> int:
    return sum(1 for b in rec.blocks() if b.get("type") == "image")


def units(
    rec: Record,
    ctx: ClassifyContext | None = None,
    select: Select | None = None,
    *,
    draft: bool = False,
) -> list[Unit]:
    """The rendered units of ``rec``, each under its richest label ``select`` accepts.

    One unit per block on assistant records, per section on batched notification/peer
    records, and one per record otherwise. A multi-label unit (an AUQ answer, a typed
    rejection, a slash command with args, a SendMessage/spawn, a subagent return) renders
    ONCE under its richest accepted view (Q4 dedup); a unit no view of which is accepted is
    dropped. ``draft=True`` renders a superseded draft as its single ``user.unsent`` unit.
    """
    ctx = ctx or _DEFAULT_CTX
    accept: Select = select if select is not None else (lambda _leaf: True)
    if draft:
        if not accept(L.USER_UNSENT):
            return []
        text = opener_text(rec, ctx) or record_raw_text(rec) or ""
        return [Unit(L.USER_UNSENT, (L.USER_UNSENT,), text, image_count=_record_images(rec))]
    found = classify(rec, ctx)
    if not found:
        return []
    em = _Emitter(tuple(found), accept, _record_images(rec))
    kind = rec.type
    if _is_elicitation_marker(rec):
        _elicitation_units(rec, em)
    elif kind == "assistant":
        _assistant_units(rec, ctx, em)
    elif kind == "user":
        _user_units(rec, ctx, em)
    else:
        _line_units(rec, em)
    return em.out


def renders_unit(rec: Record, ctx: ClassifyContext | None, select: Select,
                 leaves: list[str], accepted: list[str], *, draft: bool = False) -> bool:
    """Whether ``units(rec, ctx, select, draft=draft)`` yields a unit, for a record whose
    ``classify`` leaves are ``leaves``, of which ``select`` accepts ``accepted`` (not
    empty, in the same order).

    A label can stand for a piece that renders nothing (a tool_result block with null or
    absent content, a turn_duration record without its duration fields), so a count that
    goes by the labels alone (``search '' -c``/``-l``) would count records the rows never
    show. The records a transcript is mostly made of answer without rendering: a typed
    prompt (its one leaf renders the body), an assistant record (every leaf but
    ``agent.tool.result`` renders whenever it is found), a plain carrier (its results
    render when their content is there). Every other record is rendered.
    """
    if draft:
        return True  # user.unsent renders whatever the draft holds (``units(draft=True)``)
    kind = rec.type
    if kind == "assistant":
        if not _is_elicitation_marker(rec):
            return accepted != _PLAIN_CARRIER_LEAVES or _any_result_renders(rec)
    elif kind == "user" and not _is_elicitation_marker(rec):
        if leaves == _PLAIN_CARRIER_LEAVES:  # ``_tool_result_unit`` per block
            return _any_result_renders(rec)
        if _unmarked_user_body(rec) is not None:
            return True
    return bool(units(rec, ctx, select))


_PLAIN_CARRIER_LEAVES = [L.AGENT_TOOL_RESULT]


def _any_result_renders(rec: Record) -> bool:
    """A tool_result block ``_tool_result_unit`` renders (its content is there)."""
    content = rec.content
    if isinstance(content, list):
        for b in content:
            if isinstance(b, dict) and b.get("type") == "tool_result" \
                    and b.get("content") is not None:
                return True
    return False


def _elicitation_units(rec: Record, em: _Emitter) -> None:
    if em.pick(L.AGENT_TOOL_USE) is None:
        return
    tool_uses = [(i, b) for i, b in enumerate(_content_blocks(rec)) if b.get("type") == "tool_use"]
    for index, block in tool_uses:
        em.emit(L.AGENT_TOOL_USE, render_tool_use(block), tool_name=_str(block.get("name")),
                tool_use_id=_str(block.get("id")), block_index=index)
    if not tool_uses:
        content = rec.system_content
        if isinstance(content, str):
            em.emit(L.AGENT_TOOL_USE, content, tool_name=_str(rec.raw.get("csiftKind")))


def _content_blocks(rec: Record) -> list[JsonObj]:
    """Blocks WITH their original index positions kept meaningful (non-dicts become {})."""
    content = rec.content
    if not isinstance(content, list):
        return []
    return [b if isinstance(b, dict) else {} for b in content]


def _line_units(rec: Record, em: _Emitter) -> None:
    label = em.labels[0]
    if em.pick(label) is None:
        return
    text = record_raw_text(rec) if rec.type == "attachment" else _line_text(rec)
    if text is None:
        return
    if label == L.USER_QUEUED:
        operation = _str(rec.raw.get("operation"))
        reason = _str(rec.raw.get("reason"))
        em.emit(label, text, queue_operation=operation, queue_reason=reason,
                tag=_queue_tag(operation, reason))
    else:
        em.emit(label, text)


def _assistant_units(rec: Record, ctx: ClassifyContext, em: _Emitter) -> None:
    content = rec.content
    if isinstance(content, str):
        if content.strip() and em.pick(L.AGENT_MESSAGE):
            em.emit(L.AGENT_MESSAGE, content)
        return
    for index, block in enumerate(_content_blocks(rec)):
        kind = block.get("type")
        if kind == "text":
            text = block.get("text")
            if isinstance(text, str) and text.strip() and em.pick(L.AGENT_MESSAGE):
                em.emit(L.AGENT_MESSAGE, text, block_index=index)
        elif kind == "thinking":
            leaf = thinking_leaf(block.get("signature"))
            if em.pick(leaf):
                em.emit(leaf, _str(block.get("thinking")) or "", block_index=index,
                        tag=NARRATION_TAG_TEXT if leaf == L.AGENT_THINKING_NARRATION else None)
        elif kind == "redacted_thinking":
            if em.pick(L.AGENT_THINKING):
                em.emit(L.AGENT_THINKING, REDACTED_THINKING_TEXT, block_index=index)
        elif kind == "tool_use":
            comm = _tool_use_comm_leaf(block.get("name"), block.get("input"))
            view = em.pick(comm, L.AGENT_TOOL_USE) if comm else em.pick(L.AGENT_TOOL_USE)
            if view is None:
                continue
            facts: dict[str, Any] = {}
            if view != L.AGENT_TOOL_USE:
                facts["from_"], facts["to"] = _tool_use_direction(block, ctx)
            em.emit(view, render_tool_use(block), tool_name=_str(block.get("name")),
                    tool_use_id=_str(block.get("id")), block_index=index, **facts)
        elif kind == "tool_result":
            _tool_result_unit(block, index, None, em)


def _tool_result_unit(block: JsonObj, index: int, inbox_from: str | None, em: _Emitter) -> None:
    if "content" not in block or block.get("content") is None:
        return
    view = em.pick(L.AGENT_COMM_INBOX, L.AGENT_TOOL_RESULT) if inbox_from else em.pick(
        L.AGENT_TOOL_RESULT
    )
    if view is None:
        return
    facts: dict[str, Any] = {}
    if view == L.AGENT_COMM_INBOX:
        facts["from_"], facts["to"] = inbox_from, "self"
    em.emit(view, result_text(block), tool_use_id=_str(block.get("tool_use_id")),
            is_error=_is_error(block), image_count=_count_images(block), block_index=index,
            **facts)


# The labels a plain user record renders from its record-level text.
_RECORD_TEXT_LEAVES = frozenset(
    {
        L.USER_MESSAGE,
        L.AGENT_COMM_INBOX,
        L.HARNESS_NOTIFICATION_SUBAGENT,
        L.HARNESS_COMPACTION_SUMMARY,
        L.HARNESS_COMMAND_INVOCATION,
        L.HARNESS_COMMAND_STDOUT,
        L.HARNESS_INTERRUPT_USER,
        L.HARNESS_INTERRUPT_TOOL,
        L.HARNESS_SCHEDULE_WAKEUP,
        L.HARNESS_SCHEDULE_CONTINUATION,
        L.HARNESS_META_HOOK,
        L.HARNESS_META_LOOP,
    }
)


def _user_units(rec: Record, ctx: ClassifyContext, em: _Emitter) -> None:
    if rec.is_compact_summary:
        if em.pick(L.HARNESS_COMPACTION_SUMMARY):
            em.emit(L.HARNESS_COMPACTION_SUMMARY, raw_message_text(rec) or "", record_images=True)
        return
    raw = raw_message_text(rec)
    sections = _sections(raw, ctx) if raw is not None else []
    if sections:
        for section in sections:
            if em.pick(section.label):
                em.emit(section.label, section.text, from_=section.from_, to=section.to,
                        record_images=True)
        return
    blocks = _content_blocks(rec)
    if any(b.get("type") == "tool_result" for b in blocks):
        _carrier_units(rec, ctx, blocks, em)
        return
    for view in em.labels:
        if view not in _RECORD_TEXT_LEAVES or not em.accept(view):
            continue
        text, facts = _record_view(rec, view, ctx)
        if text is not None:
            em.emit(view, text, record_images=True, **facts)
            return


def _record_view(rec: Record, view: str, ctx: ClassifyContext) -> tuple[str | None, dict[str, Any]]:
    """The text (and comm direction) of one record-level view of a plain user record."""
    if view == L.USER_MESSAGE:
        raw = raw_message_text(rec) or ""
        if is_slash_command_wrapper(raw):
            parts = _slash_parts(raw)
            return (_slash_render(*parts) if parts else None), {}
        return _flatten(rec), {}
    if view == L.AGENT_COMM_INBOX:  # the subagent seed: parent ⇨ self
        return _flatten(rec), {"from_": ctx.alias(ctx.parent_id or "parent"), "to": "self"}
    if view == L.HARNESS_NOTIFICATION_SUBAGENT:
        return f"[subagent stopped] {normalize_line(raw_message_text(rec) or '')}", {}
    return raw_message_text(rec), {}


def _carrier_units(rec: Record, ctx: ClassifyContext, blocks: list[JsonObj], em: _Emitter) -> None:
    """A tool_result carrier: the user-facing dual once (richest), else one unit per result."""
    dual = em.pick(L.USER_ANSWER, L.USER_REJECTION)
    if dual is not None:
        if dual == L.USER_ANSWER:
            exchange = auq_exchange(rec)
            text = normalize_line(exchange) if exchange is not None else None
        else:
            rejected = _rejection(rec)
            text = _rejection_text(rejected, ctx) if rejected is not None else None
        if text is not None:
            images = sum(_count_images(b) for b in blocks) + em.images_pending
            em.images_pending = 0
            # the record is a tool result too: its hit says whether that result errored
            errored = any(_is_error(b) for b in blocks if b.get("type") == "tool_result")
            em.emit(dual, text, image_count=images, is_error=errored)
            return
    for index, block in enumerate(blocks):
        if block.get("type") != "tool_result":
            continue
        child = ctx.child_for(_str(block.get("tool_use_id")))
        is_return = child is not None and L.AGENT_COMM_INBOX in em.label_set
        inbox_from = ctx.alias(child) if is_return and child is not None else None
        _tool_result_unit(block, index, inbox_from, em)
