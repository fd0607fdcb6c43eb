"""The section scanner: task-notification and peer-message sections (FINDING-1, G4/G5).

A user record may batch several pulses and relayed peer messages. A section counts only
where it opens at a SECTION BOUNDARY (the start of the text, right after a relay preamble
or a previous section's close tag), so a tag quoted in prose leaves the human the human.
``sections_of`` cuts a record into them, each with its leaf, its rendered text and, for a
message, who sent it; notification spans are scanned first and mask a peer tag quoted
inside them.
"""

from __future__ import annotations

import orjson

from pysift.core.classify.context import ClassifyContext
from pysift.core.classify.markers import (
    AGENT_MESSAGE_CLOSE,
    AGENT_MESSAGE_OPEN,
    PEER_MESSAGE_PREAMBLES,
    TASK_NOTIFICATION_CLOSE,
    TASK_NOTIFICATION_OPEN,
    TEAMMATE_CLOSE,
    TEAMMATE_OPEN,
)
from pysift.core.classify.records import normalize_line
from pysift.model import labels as L
from pysift.model.fastdata import dataclass

_PEER_TAGS = ((TEAMMATE_OPEN, TEAMMATE_CLOSE), (AGENT_MESSAGE_OPEN, AGENT_MESSAGE_CLOSE))
_SECTION_CLOSES: tuple[str, ...] = (TASK_NOTIFICATION_CLOSE, TEAMMATE_CLOSE, AGENT_MESSAGE_CLOSE)
_BOUNDARY_SUFFIXES: tuple[str, ...] = PEER_MESSAGE_PREAMBLES + _SECTION_CLOSES
# A ``<task-id>`` of an orphan-reconciliation pulse: no id, a marker in the label instead.
_ORPHAN_SENTINEL = "__orphan_summary"
_ORPHAN_KIND_SENTINEL = "__orphan_summary__:"


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


def has_notification(text: str) -> bool:
    return _has_boundary_section(text, TASK_NOTIFICATION_OPEN)


def notification_sections(text: str) -> list[str]:
    """The ``<task-notification>`` sections ``text`` delivers, each from its open tag to its
    close tag: only those at a section boundary, as the classifier reads them, so a human
    who quotes the tag mid-sentence delivers none (the live pair had closed a background
    task on such a quote)."""
    if TASK_NOTIFICATION_OPEN not in text:
        return []
    return [section for _offset, section in
            _scan_sections(text, TASK_NOTIFICATION_OPEN, TASK_NOTIFICATION_CLOSE)]


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
class Section:
    label: str
    text: str
    from_: str | None
    to: str | None


def sections_of(raw: str, ctx: ClassifyContext) -> list[Section]:
    """Every notification / inbound-peer section of a (possibly batched) user record.

    Notification spans are scanned first and MASK a peer tag quoted inside them; a
    ``<result>``-bearing pulse (a background agent's report) adds an inbox section
    (child ⇨ self, the child resolved from its ``<tool-use-id>``).
    """
    if not any(tag in raw for tag in (TASK_NOTIFICATION_OPEN, TEAMMATE_OPEN, AGENT_MESSAGE_OPEN)):
        return []
    out: list[tuple[int, Section]] = []
    spans: list[tuple[int, int]] = []
    for offset, section in _scan_sections(raw, TASK_NOTIFICATION_OPEN, TASK_NOTIFICATION_CLOSE):
        label = notification_label(section)
        out.append((offset, Section(notification_leaf(extract_xml_tag(section, "summary")),
                                     label, None, None)))
        if "<result>" in section:
            child = ctx.child_for(extract_xml_tag(section, "tool-use-id")) or "?"
            report = extract_xml_tag(section, "result")
            text = normalize_line(report) if report else ""
            out.append((offset, Section(L.AGENT_COMM_INBOX, text or label,
                                         ctx.alias(child), "self")))
        spans.append((offset, offset + len(section)))
    peers: list[tuple[int, Section]] = []
    for offset, section in _scan_sections(raw, TEAMMATE_OPEN, TEAMMATE_CLOSE):
        leaf = L.AGENT_COMM_SIGNAL if _teammate_signal(section) else L.AGENT_COMM_INBOX
        sender = _open_tag_attr(section, "teammate_id") or "peer"
        peers.append((offset, Section(leaf, normalize_line(section), ctx.alias(sender), "self")))
    for offset, section in _scan_sections(raw, AGENT_MESSAGE_OPEN, AGENT_MESSAGE_CLOSE):
        sender = _open_tag_attr(section, "from") or "peer"
        peers.append((offset, Section(L.AGENT_COMM_INBOX, normalize_line(section),
                                       ctx.alias(sender), "self")))
    peers.sort(key=lambda item: item[0])
    for offset, sec in peers:
        if any(start <= offset < end for start, end in spans):
            continue  # a tag quoted inside a notification body is the notification's text
        out.append((offset, sec))
    return [sec for _offset, sec in out]
