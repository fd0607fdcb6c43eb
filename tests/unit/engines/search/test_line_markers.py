"""The label scan's line markers reach every record that can carry the selected leaf.

A search with ``-t LEAF`` and no needle looks only at lines holding one of the plan's
line markers (``LEAF_LINE_MARKERS[LEAF]``, a record type as its ``"type":"…"`` key or a
byte string, plus the hook-context marker of ``--additional-context``); a record carrying
LEAF on any other line would be silently dropped. So for every record we can lay hands
on, each label the classifier gives it (every gate open) must have a marker of the plan
selecting that label alone which the record's line satisfies.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

import builders as b
from conftest import DEMO_HOME
from pysift.core import classify
from pysift.core.decode import decode
from pysift.core.grammar.selectors import parse_filter
from pysift.engines.search.plan import SearchPlan
from pysift.engines.search.scan import _TYPE_MARKERS
from pysift.model import labels as L

_EVERY_GATE = classify.ClassifyContext(owner_id="s", parent_id="s", address_mode=True,
                                       additional_context=True)


def _markers(label: str) -> tuple[bytes, ...]:
    """The line markers of ``pysift search '' -t LABEL`` (the gate the label needs open;
    a hook-context attachment is classified only under --additional-context)."""
    plan = SearchPlan(pattern="", matcher=None, labels=parse_filter([label]),
                      gates=frozenset({label}) & L.GATED,
                      additional_context=label == L.HARNESS_META_HOOK)
    return plan.line_markers()


def _unreached(line: bytes) -> list[str]:
    """The labels of the record on ``line`` that no marker of theirs reaches."""
    rec = decode(line, 1)
    if rec is None:
        return []
    missed = []
    for label in classify.classify(rec, _EVERY_GATE):
        markers = _markers(label)
        if not any(rec.type == _TYPE_MARKERS[m] if m in _TYPE_MARKERS else m in line
                   for m in markers):
            missed.append(f"{label} on a {rec.type!r} record")
    return missed


def _lines(home: Path) -> Iterator[tuple[str, bytes]]:
    for path in sorted((home / "projects").rglob("*.jsonl")):
        for number, line in enumerate(path.read_bytes().splitlines(), start=1):
            if line.strip():
                yield f"{path.relative_to(home)}:{number}", line


SERVER_TOOL_RESULT = b.assistant(
    {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_fetch",
     "input": {"url": "https://example.org"}},
    {"type": "tool_result", "tool_use_id": "srvtoolu_1", "content": "fetched: the page text"},
    "Here is what the page says.",
)
BUILT = {
    "server-side tool_result in an assistant record": SERVER_TOOL_RESULT,
    "prompt": b.user("deploy the staging build"),
    "carrier": b.tool_result("toolu_1", "ok", tool_use_result=b.bash_result("ok")),
    "rejection": b.rejection("toolu_2", "use the staging bucket"),
    "auq answer": b.auq_answer("toolu_3", {"Ship where?": "PyPI"}),
    "interrupt": b.interrupt(),
    "slash command": b.slash_command("review", "the parser"),
    "local command stdout": b.local_command_stdout("done"),
    "task notification": b.task_notification("bg1", "completed", "Background command done",
                                              tool_use_id="toolu_4"),
    "teammate message": b.teammate_message("lead", "ship it"),
    "compact summary": b.compact_summary("what happened so far"),
    "thinking": b.assistant(b.thinking("let me see")),
    "redacted thinking": b.assistant(b.redacted_thinking()),
    "tool_use": b.assistant(b.tool_use("Bash", {"command": "ls"})),
    "spawn": b.assistant(b.tool_use("Task", {"prompt": "look around",
                                             "subagent_type": "Explore"})),
}


@pytest.mark.parametrize("name", sorted(BUILT))
def test_each_label_of_a_built_record_is_reached_by_its_markers(name: str) -> None:
    assert _unreached(orjson.dumps(BUILT[name])) == []


def test_a_server_side_tool_result_is_an_agent_tool_result() -> None:
    """The case the assistant marker exists for (a provider wrote it; the real corpus has
    two): dropping it made ``-t agent.tool.result`` miss text a bare search finds."""
    rec = decode(orjson.dumps(SERVER_TOOL_RESULT), 1)
    assert rec is not None and L.AGENT_TOOL_RESULT in classify.classify(rec, _EVERY_GATE)


def test_every_record_of_the_demo_home_is_reached() -> None:
    lines = list(_lines(DEMO_HOME))
    assert len(lines) >= 400, f"only {len(lines)} lines in the demo home"  # 439 today
    missed = [f"{where}: {m}" for where, line in lines for m in _unreached(line)]
    assert missed == []


def test_every_record_of_the_real_corpus_is_reached(real_home: Path) -> None:
    lines = list(_lines(real_home))
    assert len(lines) >= 15_000, f"only {len(lines)} lines in the real corpus"  # 15,311
    missed = [f"{where}: {m}" for where, line in lines for m in _unreached(line)]
    assert missed == []
