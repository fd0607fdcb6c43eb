"""The closed ``role.class.sub`` label taxonomy (SPEC §5): 34 leaves, in ALL order.

``ALL`` is the single source of truth: selector validation, the help text, census
ordering and the drift test all derive from it.
"""

from __future__ import annotations

USER_MESSAGE = "user.message"
USER_ANSWER = "user.answer"
USER_REJECTION = "user.rejection"
USER_UNSENT = "user.unsent"
USER_QUEUED = "user.queued"
AGENT_MESSAGE = "agent.message"
AGENT_THINKING = "agent.thinking"
AGENT_THINKING_NARRATION = "agent.thinking.narration"
AGENT_TOOL_USE = "agent.tool.use"
AGENT_TOOL_RESULT = "agent.tool.result"
AGENT_COMM_INBOX = "agent.communication.inbox"
AGENT_COMM_SENT = "agent.communication.sent"
AGENT_COMM_SIGNAL = "agent.communication.signal"
HARNESS_NOTIFICATION_WORKFLOW = "harness.notification.workflow"
HARNESS_NOTIFICATION_MONITOR = "harness.notification.monitor"
HARNESS_NOTIFICATION_SUBAGENT = "harness.notification.subagent"
HARNESS_NOTIFICATION_BACKGROUND_COMMAND = "harness.notification.background-command"
HARNESS_NOTIFICATION_TASK = "harness.notification.task"
HARNESS_COMPACTION_SUMMARY = "harness.compaction.summary"
HARNESS_COMPACTION_BOUNDARY = "harness.compaction.boundary"
HARNESS_COMMAND_INVOCATION = "harness.command.invocation"
HARNESS_COMMAND_STDOUT = "harness.command.stdout"
HARNESS_INTERRUPT_USER = "harness.interrupt.user"
HARNESS_INTERRUPT_TOOL = "harness.interrupt.tool"
HARNESS_SCHEDULE_WAKEUP = "harness.schedule.wakeup"
HARNESS_SCHEDULE_CONTINUATION = "harness.schedule.continuation"
HARNESS_META_HOOK = "harness.meta.hook"
HARNESS_META_LOOP = "harness.meta.loop"
HARNESS_META_ATTACHMENT = "harness.meta.attachment"
HARNESS_META_TURN_DURATION = "harness.meta.turn-duration"
HARNESS_META_AWAY_SUMMARY = "harness.meta.away-summary"
HARNESS_META_STOP_HOOKS = "harness.meta.stop-hooks"
HARNESS_META_SNAPSHOT = "harness.meta.snapshot"
HARNESS_META_SYSTEM = "harness.meta.system"

ALL: tuple[str, ...] = (
    USER_MESSAGE,
    USER_ANSWER,
    USER_REJECTION,
    USER_UNSENT,
    USER_QUEUED,
    AGENT_MESSAGE,
    AGENT_THINKING,
    AGENT_THINKING_NARRATION,
    AGENT_TOOL_USE,
    AGENT_TOOL_RESULT,
    AGENT_COMM_INBOX,
    AGENT_COMM_SENT,
    AGENT_COMM_SIGNAL,
    HARNESS_NOTIFICATION_WORKFLOW,
    HARNESS_NOTIFICATION_MONITOR,
    HARNESS_NOTIFICATION_SUBAGENT,
    HARNESS_NOTIFICATION_BACKGROUND_COMMAND,
    HARNESS_NOTIFICATION_TASK,
    HARNESS_COMPACTION_SUMMARY,
    HARNESS_COMPACTION_BOUNDARY,
    HARNESS_COMMAND_INVOCATION,
    HARNESS_COMMAND_STDOUT,
    HARNESS_INTERRUPT_USER,
    HARNESS_INTERRUPT_TOOL,
    HARNESS_SCHEDULE_WAKEUP,
    HARNESS_SCHEDULE_CONTINUATION,
    HARNESS_META_HOOK,
    HARNESS_META_LOOP,
    HARNESS_META_ATTACHMENT,
    HARNESS_META_TURN_DURATION,
    HARNESS_META_AWAY_SUMMARY,
    HARNESS_META_STOP_HOOKS,
    HARNESS_META_SNAPSHOT,
    HARNESS_META_SYSTEM,
)

# Leaves whose lines the byte prefilter admits only when an explicit selector reaches
# them (the gated-leaf law, v0.10.0 / v0.8.1): LLM-invisible bookkeeping lines.
GATED: frozenset[str] = frozenset(
    {
        USER_QUEUED,
        HARNESS_META_ATTACHMENT,
        HARNESS_META_TURN_DURATION,
        HARNESS_META_AWAY_SUMMARY,
        HARNESS_META_STOP_HOOKS,
        HARNESS_META_SNAPSHOT,
        HARNESS_META_SYSTEM,
    }
)

# Leaves a bare role selector (`-t user`, `-t harness`) does NOT expand to: the
# LLM-invisible ones (v0.9.4 visibility law). They need a full path or a glob.
LLM_INVISIBLE: frozenset[str] = GATED | {USER_UNSENT, HARNESS_COMPACTION_BOUNDARY}

ROLE_GLYPH = {"user": "◂", "agent": "▸", "harness": "⚙"}


def role_of(label: str) -> str:
    return label.split(".", 1)[0]


def glyph_of(label: str) -> str:
    return ROLE_GLYPH.get(role_of(label), "·")
