"""The strings Claude Code synthesizes into a transcript, and the tests on them.

SPEC §4.2, §4.4 and §5.1. Every marker is an exact string measured on disk; the ladder
(``ladder``), the section scanner (``sections``) and the turn-opener rules (``openers``)
all read them from here.

``is_unmarked`` is the typed-prompt shortcut: it lists where every marker of the
user-text ladder can stand, so a text holding none of them is settled as typed prose
without walking the ladder. A marker added to the ladder must be covered by it
(tests/unit/core/test_classify_unmarked.py draws every string constant of this package
into its texts and fails when the shortcut and the ladder disagree).
"""

from __future__ import annotations

from pysift.core.classify.records import memoized
from pysift.model.record import Record

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

ASYNC_LAUNCH_ACK = "Async agent launched successfully"
# csift's own: an elicitation sidecar line merged into the transcript (§6.10).
ELICITATION_MARKER = "elicitation-marker-v1"

# ---------------------------------------------------------------------------------------
# Tests on them
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


def is_synthetic_marker(text: str) -> bool:
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
    return all(phrase not in text for phrase in _MARKED_PHRASES)


def is_elicitation_marker(rec: Record) -> bool:
    return rec.raw.get("csift") == ELICITATION_MARKER


@memoized("unmarked")
def unmarked_user_body(rec: Record) -> str | None:
    """The string body of a ``user`` record that no marker, tag or section can be in (and
    that is no compaction summary or sidecar marker), else None. For such a record the
    whole classification is ``ladder._typed_leaves``: every earlier rung needs a marker."""
    raw = rec.raw
    if raw.get("type") != "user" or raw.get("isCompactSummary") is True:
        return None
    message = raw.get("message")
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    if not isinstance(content, str) or not is_unmarked(content):
        return None
    return None if is_elicitation_marker(rec) else content
