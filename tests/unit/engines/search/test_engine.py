"""engines.search.engine: ``--count-by pairing`` counts what the hits say (SPEC §7)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import builders as b

SID = "6f6f6f6f-1111-4222-8333-944444444444"


def _home(tmp_path: Path) -> Path:
    """Calls and results without ids (legacy carriers, the real corpus' tier2 fixture),
    one linked through ``sourceToolAssistantUUID``, one result linked to nothing."""
    s = b.Session(SID, cwd="/w/p")
    s.add(b.user("list the files"))
    call = s.add(b.assistant(b.text("listing"),
                             {"type": "tool_use", "name": "bash", "input": {"command": "ls"}}))
    for content in ("a.txt", "b.txt"):
        s.add({"type": "user", "sourceToolAssistantUUID": call["uuid"],
               "message": {"role": "user", "content": [{"type": "tool_result",
                                                        "content": content}]}})
    s.add({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "content": "lost"}]}})
    s.add(b.assistant({"type": "tool_use", "name": "bash", "input": {"command": "pwd"}}))
    home = tmp_path / "claude"
    path = home / "projects" / "-w-p" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b.to_jsonl(s.records))
    return home


def test_every_tool_hit_without_an_id_has_a_pairing_and_the_census_counts_it(
        cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    home = _home(tmp_path)
    listed = cli("--claude-home", str(home), "search", "", "-t", "agent.tool", "--format",
                 "json")
    assert listed.code == 0, listed.stderr
    hits = [h for ex in listed.json_rows("exchange") for h in ex["hits"]]
    assert [(h["line"], h["label"], h["pairing"], h["tool_name"]) for h in hits] == [
        (2, "agent.tool.use", "paired", "bash"),
        (3, "agent.tool.result", "paired", "bash"),
        (4, "agent.tool.result", "paired", "bash"),
        (5, "agent.tool.result", "orphan", None),
        (6, "agent.tool.use", "pending", "bash")]
    census = cli("--claude-home", str(home), "search", "", "-t", "agent.tool",
                 "--count-by", "pairing", "--format", "json")
    assert census.code == 0, census.stderr
    counts = {row["key"]: row["records"] for row in census.json_rows("census")}
    assert counts == dict(Counter(h["pairing"] for h in hits))
    assert census.summary()["excluded_records"] == 0
