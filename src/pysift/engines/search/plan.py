"""Everything a per-file scan needs, derived once from the options.

The plan is set as a module global before the process pool forks, so compiled regexes
(not picklable) reach the workers for free; workers receive only the transcript.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from pysift.core.grammar.ranges import RangeSpec
from pysift.core.grammar.selectors import LabelFilter
from pysift.model import labels as L

# Leaves whose units ride on ANY tool_result carrier line: only these need every carrier
# decoded. The 98% of user records that are carriers are skipped unparsed otherwise; the
# carriers that open turns (AUQ answers, typed rejections) carry a synthesized-text
# marker and are kept by it.
CARRIER_LEAVES = frozenset({L.AGENT_TOOL_RESULT, L.AGENT_COMM_INBOX})

# Byte markers of the lines a leaf can live on (a necessary condition, spacing-safe:
# the quoted value appears verbatim whatever the JSON spacing around the colon).
_USER_LINE = b'"user"'
_ASSISTANT_LINE = b'"assistant"'
_SYSTEM_LINE = b'"system"'
LEAF_LINE_MARKERS: dict[str, tuple[bytes, ...]] = {
    L.USER_MESSAGE: (_USER_LINE,),
    L.USER_ANSWER: (_USER_LINE,),
    L.USER_REJECTION: (_USER_LINE,),
    L.USER_UNSENT: (_USER_LINE,),
    L.USER_QUEUED: (b'"queue-operation"',),
    L.AGENT_MESSAGE: (_ASSISTANT_LINE,),
    L.AGENT_THINKING: (_ASSISTANT_LINE,),
    L.AGENT_THINKING_NARRATION: (_ASSISTANT_LINE,),
    L.AGENT_TOOL_USE: (_ASSISTANT_LINE,),
    L.AGENT_TOOL_RESULT: (_USER_LINE,),
    L.AGENT_COMM_INBOX: (_USER_LINE,),
    L.AGENT_COMM_SENT: (_ASSISTANT_LINE,),
    L.AGENT_COMM_SIGNAL: (_ASSISTANT_LINE, _USER_LINE),
    L.HARNESS_COMPACTION_BOUNDARY: (b"compact_boundary",),
    L.HARNESS_META_TURN_DURATION: (b"turn_duration",),
    L.HARNESS_META_AWAY_SUMMARY: (b"away_summary",),
    L.HARNESS_META_STOP_HOOKS: (b"stop_hook_summary",),
    L.HARNESS_META_SNAPSHOT: (b'"file-history-',),
    L.HARNESS_META_SYSTEM: (_SYSTEM_LINE,),
    L.HARNESS_META_ATTACHMENT: (b'"attachment"',),
}
for _leaf in L.ALL:
    LEAF_LINE_MARKERS.setdefault(_leaf, (_USER_LINE,))  # every other harness leaf is a user line

# Lines whose matchable text is partly FABRICATED (rendered, not a byte substring of the
# line): they stay candidates even when the pattern's needles are absent.
SYNTH_MARKERS: tuple[bytes, ...] = (
    b"User has answered your question",
    b"Your questions have been answered",
    b"The user answered:",
    b"the user said:",
    b"<task-notification>",
    b"<teammate-message",
    b"<agent-message",
    b"<command-name>",
    b"<command-message>",
)
GATED_SYNTH: dict[str, bytes] = {
    L.HARNESS_COMPACTION_BOUNDARY: b"compact_boundary",
    L.HARNESS_META_TURN_DURATION: b"turn_duration",
    L.HARNESS_META_STOP_HOOKS: b"stop_hook_summary",
    L.HARNESS_META_SNAPSHOT: b'"file-history-',
    L.HARNESS_META_SYSTEM: b'"subtype"',
    L.USER_QUEUED: b'"queue-operation"',
}
PERSISTED_MARKER = b"<persisted-output>"


@dataclass
class SearchPlan:
    pattern: str
    matcher: object  # core.matcher.Matcher
    labels: LabelFilter
    since: datetime | None = None
    until: datetime | None = None
    turns: RangeSpec | None = None
    attachments: bool = False
    additional_context: bool = False
    resolve_persisted: bool = False
    want_raw: bool = False
    siblings: bool = False
    gates: frozenset[str] = field(default_factory=frozenset)

    @property
    def wants_carriers(self) -> bool:
        return bool(self.labels.allowed & CARRIER_LEAVES)

    def line_markers(self) -> tuple[bytes, ...]:
        """Byte markers any candidate line must carry, for the selected leaves."""
        found: list[bytes] = []
        for leaf in sorted(self.labels.allowed):
            if leaf in L.GATED and leaf not in self.gates:
                continue
            for marker in LEAF_LINE_MARKERS[leaf]:
                if marker not in found:
                    found.append(marker)
        if self.additional_context and b"hook_additional_context" not in found:
            found.append(b"hook_additional_context")
        return tuple(found)

    def synth_markers(self) -> tuple[bytes, ...]:
        markers = list(SYNTH_MARKERS)
        if L.HARNESS_COMPACTION_BOUNDARY in self.labels.allowed:
            markers.append(GATED_SYNTH[L.HARNESS_COMPACTION_BOUNDARY])
        for leaf in self.gates:
            if leaf in GATED_SYNTH and GATED_SYNTH[leaf] not in markers:
                markers.append(GATED_SYNTH[leaf])
        if self.resolve_persisted:
            markers.append(PERSISTED_MARKER)
        return tuple(markers)
