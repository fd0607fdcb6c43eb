"""Durable block ids and the text a block id stands for (port decisions, fold index).

A block is named by an id that never moves when the transcript grows:

- ``r:<tool_use_id>``: a tool_result block, its content joined as text exactly as search
  renders (and ``show --block`` prints) it;
- ``a:<message.id>:p<n>``: part ``n`` (0-based) of an assistant message, counting the
  content blocks of every record carrying that ``message.id`` in file order (Claude Code
  writes one block per line, all sharing the id).

``show --block`` resolves an id and the fold index (``seedindex``) names blocks by it, so
both read the text, its sha256 and its size through the functions here: a span the index
prints always verifies through ``show``.
"""

from __future__ import annotations

import hashlib

from pysift.core import classify

JsonObj = dict[str, object]


def result_block_id(tool_use_id: str) -> str:
    return f"r:{tool_use_id}"


def assistant_block_id(message_id: str, part: int) -> str:
    return f"a:{message_id}:p{part}"


def assistant_part_text(block: JsonObj) -> str:
    """The text of one assistant content block: a text block's text, a thinking block's
    thinking, a tool_use as ``Name {compact JSON input}`` (as search renders a tool_use
    unit), any other block as its compact JSON."""
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text") or "")
    if kind == "thinking":
        return str(block.get("thinking") or "")
    # compact_json, as search renders a tool_use unit: it also takes what orjson refuses
    # (a lone surrogate the stdlib fallback of core.decode kept, an int beyond 64 bits)
    if kind == "tool_use":
        return f"{block.get('name')} " + classify.compact_json(block.get("input"))
    return classify.compact_json(block)


def text_bytes(text: str) -> bytes:
    """A block's text as UTF-8. A lone surrogate (a transcript's cut emoji) has no UTF-8:
    it is spelled as the writers print it (``\\ud83d``, SPEC §5), so a digest or a size is
    that of the ``text`` a reader receives."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        from pysift.output.surrogates import escaped

        return escaped(text).encode("utf-8")


def block_sha256(text: str) -> str:
    """The hex sha256 of a block's text (``text_bytes``)."""
    return hashlib.sha256(text_bytes(text)).hexdigest()


def block_code(block_id: str) -> str:
    """The short recall handle of a block: the first 6 hex chars of sha256(blockId)."""
    return hashlib.sha256(block_id.encode("utf-8", "surrogatepass")).hexdigest()[:6]


def line_count(data: bytes) -> int:
    """Lines of a block's text: its newlines, plus one for a last line without one."""
    if not data:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
