"""What landed while ``wait`` waited: a census of the records appended after the baseline,
classified by the classifier ``search -t`` uses (tool calls by name, thinking, agent
messages, human prompts, notifications), across every watched lane. A pulse delivered
mid-turn rides a queue enqueue line or a ``queued_command`` attachment, never a labelled
record, and is counted as the notification it is, so the census agrees with what
``--until notification`` fires on. A record is classified as the kind of file it landed in
says (a subagent's prompt Claude Code wrote into the main transcript is no human prompt)."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from pysift.core import classify
from pysift.live.background import delivered_pulses
from pysift.live.session import NewRecord
from pysift.model import labels as L
from pysift.model.fastdata import dataclass

_MAIN, _LANE = classify.ClassifyContext(), classify.ClassifyContext(is_subagent=True)


@dataclass
class Activity:
    records: int = 0
    lanes: set[str] = field(default_factory=set)
    tools: dict[str, int] = field(default_factory=dict)
    thinking: int = 0
    agent_messages: int = 0
    user_prompts: int = 0
    notifications: int = 0
    #: the pulse sections counted: Claude Code writes each delivery on two carriers (a
    #: queue enqueue line, then the user record or the queued_command attachment), the
    #: same section text on both, so a section is one notification however often it lands
    pulses: set[str] = field(default_factory=set)

    def _deliver(self, sections: list[str]) -> None:
        for section in sections:
            if section not in self.pulses:
                self.pulses.add(section)
                self.notifications += 1

    def fold(self, new: NewRecord) -> None:
        if new.is_sidecar:
            return  # the sidecar mirrors asks; it is not the session's own record stream
        rec = new.rec
        self.records += 1
        self.lanes.add(new.lane)
        if rec.type in ("queue-operation", "attachment"):
            if new.is_main:
                self._deliver(delivered_pulses(rec))
            return
        labels = classify.classify(rec, _MAIN if new.is_main else _LANE)
        pulsed = False
        for label in labels:
            if label == L.AGENT_TOOL_USE:
                for block in rec.blocks_of("tool_use"):
                    name = block.get("name")
                    key = name if isinstance(name, str) and name else "(unnamed)"
                    self.tools[key] = self.tools.get(key, 0) + 1
            elif label in (L.AGENT_THINKING, L.AGENT_THINKING_NARRATION):
                self.thinking += 1
            elif label == L.AGENT_MESSAGE:
                self.agent_messages += 1
            elif label == L.USER_MESSAGE:
                self.user_prompts += 1
            elif label.startswith("harness.notification."):
                sections = delivered_pulses(rec) if new.is_main else []
                if not sections:
                    self.notifications += 1
                elif not pulsed:
                    self._deliver(sections)
                pulsed = True

    def words(self) -> str:
        if self.records == 0:
            return "nothing landed after the baseline"
        if self.tools:
            ranked = sorted(self.tools.items(), key=lambda kv: (-kv[1], kv[0]))
            tools = "tools " + " ".join(f"{name} x{count}" for name, count in ranked)
        else:
            tools = "no tools"
        return (f"{self.records} record(s) in {len(self.lanes)} lane(s): {tools} · thinking "
                f"{self.thinking} · messages {self.agent_messages} · prompts "
                f"{self.user_prompts} · notifications {self.notifications}")

    def to_json(self) -> dict[str, Any]:
        return {"records": self.records, "lanes": len(self.lanes), "tools": dict(self.tools),
                "thinking": self.thinking, "agent_messages": self.agent_messages,
                "user_prompts": self.user_prompts, "notifications": self.notifications}
