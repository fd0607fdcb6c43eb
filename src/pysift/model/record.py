"""The tolerant record model (SPEC §3).

A transcript line decodes (orjson) to a dict; ``Record`` wraps it with typed, never-raising
accessors. Presence is ragged across record types, so every accessor returns ``None`` (or
an empty value) when a field is missing or has the wrong JSON type. Unknown fields, record
types and block types are simply carried in ``raw``; nothing here ever raises on content.

Blocks stay plain dicts (``blocks()`` keeps only dict entries); helpers below read them
with the same tolerance.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

JsonObj = dict[str, Any]


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _bool(value: object) -> bool:
    return value is True


class Record:
    """One decoded transcript line: ``raw`` is the JSON object, ``line`` its 1-based number.

    The accessors read ``raw`` inline (no helper call, no accessor calling another): the
    classifier reads them a few dozen times per record, and the calls were a quarter of
    ``list``'s human-message test over corpus B.

    ``line`` is ``None`` for a record merged from the elicitation sidecar (no physical line).
    """

    __slots__ = ("line", "memo", "raw", "source")

    def __init__(self, raw: JsonObj, line: int | None, source: str | None = None) -> None:
        self.raw = raw
        self.line = line
        self.source = source  # "elicitation-sidecar" for a merged pending record
        # derived facts the classifier asks for more than once per record (opens_turn,
        # is_genuine_user): computed once, never part of the record's meaning
        self.memo: dict[str, Any] | None = None

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Record(line={self.line}, type={self.type!r}, uuid={self.uuid!r})"

    # -- envelope -------------------------------------------------------------------
    @property
    def type(self) -> str | None:
        v = self.raw.get("type")
        return v if isinstance(v, str) else None

    @property
    def uuid(self) -> str | None:
        v = self.raw.get("uuid")
        return v if isinstance(v, str) else None

    @property
    def parent_uuid(self) -> str | None:
        v = self.raw.get("parentUuid")
        return v if isinstance(v, str) else None

    @property
    def logical_parent_uuid(self) -> str | None:
        v = self.raw.get("logicalParentUuid")
        return v if isinstance(v, str) else None

    @property
    def timestamp(self) -> str | None:
        v = self.raw.get("timestamp")
        return v if isinstance(v, str) else None

    @property
    def session_id(self) -> str | None:
        v = self.raw.get("sessionId")
        return v if isinstance(v, str) else None

    @property
    def agent_id(self) -> str | None:
        v = self.raw.get("agentId")
        return v if isinstance(v, str) else None

    @property
    def cwd(self) -> str | None:
        v = self.raw.get("cwd")
        return v if isinstance(v, str) else None

    @property
    def version(self) -> str | None:
        v = self.raw.get("version")
        return v if isinstance(v, str) else None

    @property
    def git_branch(self) -> str | None:
        v = self.raw.get("gitBranch")
        return v if isinstance(v, str) else None

    @property
    def slug(self) -> str | None:
        v = self.raw.get("slug")
        return v if isinstance(v, str) else None

    @property
    def is_sidechain(self) -> bool:
        return self.raw.get("isSidechain") is True

    @property
    def is_meta(self) -> bool:
        return self.raw.get("isMeta") is True

    @property
    def is_compact_summary(self) -> bool:
        return self.raw.get("isCompactSummary") is True

    @property
    def subtype(self) -> str | None:
        v = self.raw.get("subtype")
        return v if isinstance(v, str) else None

    @property
    def system_content(self) -> object:
        """Top-level ``content`` (free-form on system / queue-operation records)."""
        return self.raw.get("content")

    @property
    def tool_use_result(self) -> object:
        return self.raw.get("toolUseResult")

    @property
    def source_tool_assistant_uuid(self) -> str | None:
        v = self.raw.get("sourceToolAssistantUUID")
        return v if isinstance(v, str) else None

    @property
    def request_id(self) -> str | None:
        v = self.raw.get("requestId")
        return v if isinstance(v, str) else None

    @property
    def prompt_id(self) -> str | None:
        v = self.raw.get("promptId")
        return v if isinstance(v, str) else None

    # -- message --------------------------------------------------------------------
    @property
    def message(self) -> JsonObj | None:
        msg = self.raw.get("message")
        return msg if isinstance(msg, dict) else None

    @property
    def role(self) -> str | None:
        msg = self.raw.get("message")
        if isinstance(msg, dict):
            role = msg.get("role")
            return role if isinstance(role, str) else None
        return None

    @property
    def content(self) -> str | list[Any] | None:
        """``message.content``: a string, a list, or None (anything else is None)."""
        msg = self.raw.get("message")
        if isinstance(msg, dict):
            content = msg.get("content")
            if isinstance(content, (str, list)):
                return content
        return None

    @property
    def model(self) -> str | None:
        msg = self.message
        return _str(msg.get("model")) if msg is not None else None

    @property
    def message_id(self) -> str | None:
        msg = self.message
        return _str(msg.get("id")) if msg is not None else None

    @property
    def stop_reason(self) -> str | None:
        msg = self.message
        return _str(msg.get("stop_reason")) if msg is not None else None

    @property
    def usage(self) -> JsonObj | None:
        msg = self.message
        if msg is None:
            return None
        usage = msg.get("usage")
        return usage if isinstance(usage, dict) else None

    def blocks(self) -> list[JsonObj]:
        """The content blocks that are JSON objects (a string content has none)."""
        content = self.content
        if isinstance(content, list):
            return [b for b in content if isinstance(b, dict)]
        return []

    def blocks_of(self, block_type: str) -> list[JsonObj]:
        return [b for b in self.blocks() if b.get("type") == block_type]

    def has_block(self, block_type: str) -> bool:
        return any(b.get("type") == block_type for b in self.blocks())

    @property
    def is_user_record(self) -> bool:
        raw = self.raw
        if raw.get("type") != "user":
            return False
        msg = raw.get("message")
        return isinstance(msg, dict) and msg.get("role") == "user"

    @property
    def is_assistant_record(self) -> bool:
        raw = self.raw
        if raw.get("type") != "assistant":
            return False
        msg = raw.get("message")
        return isinstance(msg, dict) and msg.get("role") == "assistant"


def block_type(block: JsonObj) -> str | None:
    return _str(block.get("type"))


def block_name(block: Mapping[str, Any]) -> str | None:
    """The ``name`` of a tool_use block; a name of another JSON type names no tool (an
    object or a list is no key of the tool sets: looking it up raised)."""
    return _str(block.get("name"))


def block_text(block: JsonObj) -> str | None:
    """The ``text`` of a text block (None for any other shape)."""
    return _str(block.get("text"))
