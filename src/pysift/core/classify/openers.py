"""The genuine-user and turn-opener rules (§4.1 - §4.4), and what an opener says.

``opens_turn`` is the single turn delimiter: a genuine human message, an answered
AskUserQuestion, a tool rejection carrying typed text, or an inbound peer message;
nothing else (no ``<task-notification>``, no synthesized marker), and in a main
transcript no subagent's record Claude Code wrote into it (``in_sidechain``: the rule
needs the file's kind, so every caller says which it reads). ``opener_text`` renders
the body of such a record (the §4.1 ``reconstructed_user_text``): the typed words, the
whole AskUserQuestion exchange, the rejection's instruction, a slash command's line.
"""

from __future__ import annotations

from pysift.core.blocktext import result_text
from pysift.core.classify.context import DEFAULT_CTX, ClassifyContext
from pysift.core.classify.markers import (
    AUQ_ANSWER_MARKERS,
    COMMAND_ARGS_CLOSE,
    COMMAND_ARGS_OPEN,
    COMMAND_NAME_CLOSE,
    COMMAND_NAME_OPEN,
    REJECTION_MARKER,
    REJECTION_TYPED_MARKERS,
    is_slash_command_wrapper,
    is_synthetic_marker,
    is_unmarked,
    unmarked_user_body,
)
from pysift.core.classify.records import (
    flat_text,
    is_error_result,
    memoized,
    normalize_line,
    raw_message_text,
    str_or_none,
    text_parts,
    tool_use_result,
)
from pysift.core.classify.sections import has_notification, is_peer_message
from pysift.disk.jsonline import compact_json
from pysift.model.record import Record


def _not_human(text: str) -> bool:
    """Text the operator never typed although it rides a plain user record."""
    if is_unmarked(text):
        return False
    return is_synthetic_marker(text) or is_peer_message(text) or has_notification(text)


@memoized("genuine")
def is_genuine_user(rec: Record) -> bool:
    """A human turn's shape: type+role user, not a compaction summary, not ``isMeta``,
    string or text-only content that is no synthesized marker, no peer message and no pulse
    (§4.1). The shape only: in a main transcript a subagent's record of this shape is not
    the human (``in_sidechain``); ``opens_turn`` and ``messages.human_message`` say so."""
    if rec.type != "user" or rec.is_compact_summary or rec.is_meta or rec.role != "user":
        return False
    content = rec.content
    if isinstance(content, str):  # (the unmarked verdict is kept for classify to reuse)
        return unmarked_user_body(rec) is not None or not _not_human(content)
    if isinstance(content, list):
        blocks = rec.blocks()
        if any(b.get("type") == "tool_result" for b in blocks):
            return False
        if not any(b.get("type") == "text" and isinstance(b.get("text"), str) for b in blocks):
            return False
        # the blocks joined as the label ladder reads them (an interrupt marker is an
        # exact match there: a whitespace block after it keeps it a message on both sides)
        return not _not_human("\n".join(text_parts(blocks)))
    return False


def is_peer_message_record(rec: Record) -> bool:
    """An inbound ``<teammate-message>`` / ``<agent-message>`` at a section boundary (a
    compaction summary quoting one is still the summary, and never opens a turn)."""
    if rec.type != "user" or rec.is_compact_summary:
        return False
    text = raw_message_text(rec)
    return text is not None and is_peer_message(text)


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
    if not results or any(is_error_result(b) for b in results):
        return False
    tur = tool_use_result(rec)
    answers = tur.get("answers") if tur is not None else None
    if isinstance(answers, dict) and answers:
        return True
    return _auq_marker_text(rec) is not None


def rejection(rec: Record) -> tuple[str | None, str] | None:
    """``(rejected tool_use_id, typed message)`` of a rejection carrying text (§4.2.4)."""
    if rec.type != "user":
        return None
    for block in rec.blocks():
        if (block.get("type") != "tool_result" or not is_error_result(block)
                or "content" not in block):
            continue
        text = result_text(block)
        if REJECTION_MARKER not in text:
            continue
        for marker in REJECTION_TYPED_MARKERS:
            _head, sep, tail = text.partition(marker)
            message = tail.strip()
            if sep and message:
                return str_or_none(block.get("tool_use_id")), message
    return None


def rejection_message(rec: Record) -> str | None:
    """The instruction typed with a tool rejection; None for the click-only rejection."""
    found = rejection(rec)
    return found[1] if found is not None else None


@memoized("opens")
def could_open_turn(rec: Record) -> bool:
    """One of the four cases, in whichever kind of file: what ``opens_turn`` says in a
    subagent transcript. A scan that does not know its file's kind (a forked range of a
    big file) collects these; the turn map's builder applies the kind
    (``turns.turn_map_from_openers``)."""
    return (
        is_genuine_user(rec)
        or is_auq_answer_boundary(rec)
        or rejection(rec) is not None
        or is_peer_message_record(rec)
    )


def in_sidechain(rec: Record, *, subagent: bool) -> bool:
    """A subagent's record in a MAIN transcript: ``isSidechain:true`` in a file that is no
    subagent transcript (``subagent``: the file's kind, from its path). Claude Code 1.x and
    2.0.x wrote some subagent records into the session's own file (the "Warmup" agent at
    session start, a Task subagent's prompt and replies); in a subagent transcript every
    record carries the flag, and none of them is foreign there."""
    return not subagent and rec.is_sidechain


def opens_turn(rec: Record, *, subagent: bool) -> bool:
    """The single turn delimiter (§4.1/§6.4): exactly the four cases, nothing else; and in
    a main transcript never a subagent's record (``in_sidechain``: it stays inside the main
    turn it falls in). ``subagent``: the kind of the file ``rec`` was read from."""
    return could_open_turn(rec) and not in_sidechain(rec, subagent=subagent)


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
    tur = tool_use_result(rec) or {}
    answers = tur.get("answers")
    if isinstance(answers, dict) and answers:
        questions = tur.get("questions")
        annotations = tur.get("annotations")
        lines: list[str] = []
        if isinstance(questions, list):
            asked = [q for q in questions if isinstance(q, dict)]
            lines.append(f"[AskUserQuestion · {_plural(len(asked), 'question')}]")
            for n, q in enumerate(asked, start=1):
                question = str_or_none(q.get("question")) or ""
                header = str_or_none(q.get("header"))
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
    return slash_parts(content)


def slash_parts(text: str) -> tuple[str, str | None] | None:
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
    return slash_render(*parts)


def slash_render(name: str, args: str | None) -> str:
    if args is None:
        return name
    return f"{name} {args}" if name else args


def opener_text(rec: Record, ctx: ClassifyContext | None = None) -> str | None:
    """The rendered body of a turn-opening record (§4.1 ``reconstructed_user_text``).

    Genuine text (whitespace-normalized), the AUQ exchange, the rejection instruction with
    its ``[plan: …]`` pointer, a slash command's ``/name args``, or a peer message body.
    """
    ctx = ctx or DEFAULT_CTX
    if is_genuine_user(rec):
        return flat_text(rec)
    exchange = auq_exchange(rec)
    if exchange is not None:
        return normalize_line(exchange)
    rejected = rejection(rec)
    if rejected is not None:
        return rejection_text(rejected, ctx)
    parts = slash_command_parts(rec)
    if parts is not None and parts[1] is not None:
        return slash_render(*parts)
    if is_peer_message_record(rec):
        return flat_text(rec)
    return None


def opener_source(rec: Record, ctx: ClassifyContext | None = None) -> str | None:
    """A text whose ``one_line`` is ``opener_text``: a genuine message's own words, not
    yet collapsed, so a preview can clip them without collapsing all of a long paste."""
    if is_genuine_user(rec):
        content = rec.content
        if isinstance(content, str):
            return content
        return " ".join(text_parts(rec.blocks()))
    return opener_text(rec, ctx)


def rejection_text(rejected: tuple[str | None, str], ctx: ClassifyContext) -> str:
    tool_use_id, message = rejected
    text = normalize_line(message)
    if tool_use_id is not None and ctx.plan_index is not None:
        path = ctx.plan_index.get(tool_use_id)
        if isinstance(path, str) and path:
            text += f" [plan: {path}]"
    return text
