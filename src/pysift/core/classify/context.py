"""``ClassifyContext``: what the classifier needs to know beyond the record itself."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field

from pysift.model import labels as L
from pysift.model.fastdata import dataclass


@dataclass(slots=True)
class ClassifyContext:
    """Cross-record facts a single record cannot supply.

    - ``owner_id``: the transcript owner's id (session uuid / agent id); renders as ``self``.
    - ``is_subagent`` / ``parent_id``: the transcript is a subagent lane and who spawned it.
      The kind also says what an ``isSidechain:true`` record is: in a main transcript a
      subagent's record Claude Code wrote into it (``openers.in_sidechain``), never the
      human's; the default context is a main transcript's.
    - ``seed_line``: line of a subagent transcript's spawn-prompt seed (its first turn
      opener). That record is ``agent.communication.inbox`` (parent ⇨ self), not the human.
      Leave None for top-level transcripts and for ``/fork`` clones (no seed, ledger ③).
    - ``gates``: the gated leaves (``labels.GATED``) the caller's selector explicitly
      reaches; a gated leaf is produced only when listed here or in ``address_mode``.
    - ``address_mode``: ``show --line/--uuid`` fetches render every leaf flag-free.
    - ``additional_context``: ``search --additional-context``: hook-context attachments
      classify ``harness.meta.hook`` (reaching ``harness.meta.attachment`` implies it).
    - ``spawn_index`` / ``spawn_names``: spawn ``tool_use_id`` (resp. a teammate's
      ``input.name``) -> child agent id, for comm directions and subagent-return
      detection; filled from the session's metas (``core.spawnlinks``). Optional.
    - ``issuer``: asked for the agent that spawned this lane when its seed's direction is
      rendered (a nested subagent's prompt reads ``<issuer> ⇨ self``); None from it, or
      no ``issuer``: ``parent_id`` (the session). Optional.
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
    issuer: Callable[[], str | None] | None = None
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

    def seed_sender(self) -> str:
        """Who sent a subagent's seed prompt: the lane that spawned it, else the session."""
        issuer = self.issuer() if self.issuer is not None else None
        return self.alias(issuer or self.parent_id or "parent")

    def alias(self, party: str) -> str:
        """The owner's own id renders as the literal ``self`` (§5.3)."""
        return "self" if self.owner_id is not None and party == self.owner_id else party


DEFAULT_CTX = ClassifyContext()
