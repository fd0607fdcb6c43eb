"""Record semantics: who is speaking, which leaves a record carries, what each unit says.

SPEC §4 and §5. Three questions are answered here, and they are deliberately separate:

- ``opens_turn``: does this record start a turn? Exactly four cases (§4.1): a genuine
  human message, an answered AskUserQuestion, a tool rejection carrying typed text, and an
  inbound peer message. Nothing else (no ``<task-notification>``, no synthesized marker),
  and in a main transcript no subagent's record (``isSidechain:true``): the caller says
  which kind of file it reads.
- ``classify``: the record's full ``role.class.sub`` label set (34 leaves, multi-label,
  richest first). Gated leaves (``labels.GATED``) exist only when the caller selected them.
- ``units``: what a search/show renders: one ``Unit`` per block for assistant records, per
  section for batched notification/peer records, one per record otherwise, each under the
  richest label the caller's selection accepts (the Q4 dedup of §5.2).

Every function is total: any dict decodes without raising, unknown shapes yield no label.
Text matching uses ``str.startswith`` / ``find`` / exact ``==`` only, never byte offsets into
user prose, so CJK bodies are never split.

The package, by job (each module imports only those above it):

- ``records``: tolerant readings of a record's text the others share;
- ``context``: ``ClassifyContext``, the cross-record facts a record cannot supply;
- ``markers``: the strings Claude Code synthesizes, and the typed-prompt shortcut;
- ``sections``: the section scanner (task notifications, relayed peer messages);
- ``signature``: the thinking-signature decoder (narration-tagged thinking);
- ``openers``: the genuine-user and turn-opener rules, and an opener's text;
- ``comms``: the comm leaf and the direction of a SendMessage, a spawn, a return;
- ``ladder``: ``classify``, the label ladder;
- ``messages``: the human's and the agent's message a preview shows (list, status);
- ``linetext``: the rendered text of the lines that carry no message;
- ``render``: ``units``, the unit rendering.

Import from the package (``from pysift.core.classify import units``); the modules are
its layout, not its interface.
"""

from __future__ import annotations

# Not classification, named here only for code written against the one-module classify
# (engines/fetch.py and the branches in flight): import them from their homes,
# core.blocktext, disk.jsonline and core.timez.
from pysift.core.blocktext import result_text
from pysift.core.classify.context import ClassifyContext
from pysift.core.classify.ladder import classify
from pysift.core.classify.linetext import compaction_boundary_text, record_raw_text
from pysift.core.classify.markers import (
    AGENT_MESSAGE_CLOSE,
    AGENT_MESSAGE_OPEN,
    AGENTS_STOPPED,
    ASYNC_LAUNCH_ACK,
    AUQ_ANSWER_MARKERS,
    COMMAND_ARGS_CLOSE,
    COMMAND_ARGS_OPEN,
    COMMAND_MESSAGE_OPEN,
    COMMAND_NAME_CLOSE,
    COMMAND_NAME_OPEN,
    CONTINUATION_MARKER,
    EDIT_RETRY,
    ELICITATION_MARKER,
    IMAGE_SOURCE,
    INTERRUPT_TOOL,
    INTERRUPT_USER,
    LOCAL_COMMAND_CAVEAT,
    LOCAL_COMMAND_STDOUT,
    LOOP_CHECK_DRIVER,
    LOOP_TICK,
    PEER_MESSAGE_PREAMBLES,
    REJECTION_MARKER,
    REJECTION_REASON,
    REJECTION_TYPED_MARKERS,
    REJECTION_USER_SAID,
    STOP_HOOK_FEEDBACK,
    TASK_NOTIFICATION_CLOSE,
    TASK_NOTIFICATION_OPEN,
    TEAMMATE_CLOSE,
    TEAMMATE_OPEN,
    WAKEUP_LOOP_CHECK,
    WAKEUP_SENTINEL,
    WAKEUP_TIMER,
    is_agents_stopped_notice,
    is_slash_command_wrapper,
    is_unmarked,
)
from pysift.core.classify.messages import agent_message, human_message, may_hold_agent_message
from pysift.core.classify.openers import (
    auq_exchange,
    could_open_turn,
    in_sidechain,
    is_auq_answer_boundary,
    is_genuine_user,
    is_peer_message_record,
    opener_source,
    opener_text,
    opens_turn,
    rejection_message,
    slash_command_name,
    slash_command_parts,
)
from pysift.core.classify.records import (
    normalize_line,
    queued_command_prompt,
    queued_text,
    raw_message_text,
)
from pysift.core.classify.render import (
    NARRATION_TAG_TEXT,
    REDACTED_THINKING_TEXT,
    Select,
    Unit,
    render_tool_use,
    renders_unit,
    units,
)
from pysift.core.classify.sections import (
    extract_xml_tag,
    is_peer_message,
    notification_label,
    notification_leaf,
    notification_sections,
)
from pysift.core.classify.signature import NARRATION, narration_tag, thinking_leaf
from pysift.core.timez import format_duration_ms
from pysift.disk.jsonline import compact_json

__all__ = [
    "AGENTS_STOPPED", "AGENT_MESSAGE_CLOSE", "AGENT_MESSAGE_OPEN", "ASYNC_LAUNCH_ACK",
    "AUQ_ANSWER_MARKERS", "COMMAND_ARGS_CLOSE", "COMMAND_ARGS_OPEN", "COMMAND_MESSAGE_OPEN",
    "COMMAND_NAME_CLOSE", "COMMAND_NAME_OPEN", "CONTINUATION_MARKER", "EDIT_RETRY",
    "ELICITATION_MARKER", "IMAGE_SOURCE", "INTERRUPT_TOOL", "INTERRUPT_USER",
    "LOCAL_COMMAND_CAVEAT", "LOCAL_COMMAND_STDOUT", "LOOP_CHECK_DRIVER", "LOOP_TICK",
    "NARRATION", "NARRATION_TAG_TEXT", "PEER_MESSAGE_PREAMBLES", "REDACTED_THINKING_TEXT",
    "REJECTION_MARKER", "REJECTION_REASON", "REJECTION_TYPED_MARKERS", "REJECTION_USER_SAID",
    "STOP_HOOK_FEEDBACK", "TASK_NOTIFICATION_CLOSE", "TASK_NOTIFICATION_OPEN",
    "TEAMMATE_CLOSE", "TEAMMATE_OPEN", "WAKEUP_LOOP_CHECK", "WAKEUP_SENTINEL", "WAKEUP_TIMER",
    "ClassifyContext", "Select", "Unit",
    "agent_message", "auq_exchange", "classify", "compact_json", "compaction_boundary_text",
    "could_open_turn", "extract_xml_tag",
    "format_duration_ms", "human_message", "in_sidechain",
    "is_agents_stopped_notice", "is_auq_answer_boundary", "is_genuine_user", "is_peer_message",
    "is_peer_message_record", "is_slash_command_wrapper", "is_unmarked",
    "may_hold_agent_message", "narration_tag",
    "normalize_line", "notification_label", "notification_leaf", "notification_sections", "opener_source",
    "opener_text", "opens_turn", "queued_command_prompt", "queued_text", "raw_message_text",
    "record_raw_text",
    "rejection_message", "render_tool_use", "renders_unit", "result_text",
    "slash_command_name", "slash_command_parts", "thinking_leaf", "units",
]
