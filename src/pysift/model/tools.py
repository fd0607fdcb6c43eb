"""The Claude Code tools whose calls spawn agents.

Two sets, because two questions are asked of a spawn:

- ``SPAWN_TOOLS``: every tool whose ``tool_use`` launches agents, the ``Task``/``Agent``
  subagent spawn and the ``Workflow`` run. Its call is the parent speaking to the child:
  the classifier labels it ``agent.communication.sent`` (csift SPEC §5.1, §5.3).
- ``META_LINKED_SPAWN_TOOLS``: the spawns a child's ``.meta.json`` links back to, by the
  ``toolUseId`` of the call or, for a teammate, by its ``name`` = the call's
  ``input.name`` (csift SPEC §6.5, the spawn join). A workflow's agents carry no
  ``toolUseId``: they hang under their run's manifest, so a ``Workflow`` call's id never
  names a child and its ``input.name`` must not be taken for a teammate's.
"""

from __future__ import annotations

META_LINKED_SPAWN_TOOLS = frozenset({"Task", "Agent"})
SPAWN_TOOLS = META_LINKED_SPAWN_TOOLS | {"Workflow"}
