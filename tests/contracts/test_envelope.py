"""Envelope v2 on list, show, search, verbatim and image (SPEC §8.2, wire-format
§0.1-§0.3): header first, summary last, one of each, closed row kinds, the id trio on
every spanning row, and every ``*_utc`` paired with its ``*_local``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

LONG = "3f6c1e2a-8b4d-4c7e-9a15-2d8e0b7f4c61"
EXPLORE = "a4f1c9e27b3d8a605"

ROW_KINDS = {
    "list": {"session"},
    "search": {"exchange", "census"},
    "show": {"record", "branch-point", "block"},
    "image": {"image", "extract"},
    "verbatim": {"turn", "compaction_boundary", "collapsed_agents"},
}
#: row kinds that name a transcript and must carry the trio (wire-format §0.2)
TRIO_KINDS = {"session", "exchange", "record", "block", "image", "extract", "turn",
              "collapsed_agents"}
TRIO = ("session_id", "is_subagent", "parent_session_id")
LOCAL_FORM = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$")

INVOCATIONS = [
    ("list", "--max-count", "0"),
    ("list", "--no-subagents"),
    ("list", "--since", "2026-10-06", "--until", "2026-10-07"),
    ("search", "epoch"),
    ("search", "svalbard", "--siblings"),
    ("search", "published", "-t", "agent.tool.use"),
    ("search", "configurable", f"@{LONG}"),
    ("search", "zzqqxxnothere"),
    ("search", "cProfile", "-t", "user.message"),
    ("search", "epoch", "-c"),
    ("search", "", f"@{LONG}", "--count-by", "label"),
    ("search", "", f"@{LONG}", "--count-by", "turn"),
    ("search", "release", "--max-count", "-2"),
    ("show", f"@{LONG}", "--line", "1..40"),
    ("show", f"@{LONG}", "--turn", "-2.."),
    ("show", f"@{EXPLORE}", "--line", "1.."),
    ("show", f"@{LONG}", "--branch-points"),
    ("verbatim", f"@{LONG}"),
    ("verbatim", f"@{LONG}", "--budget", "3000", "--agent-msgs", "all"),
    ("verbatim", f"@{LONG}", "--subagents", "--turn", "-3.."),
    ("image",),
    ("image", f"@{LONG}", "--no-subagents", "--id", "1"),
    ("image", "--since", "2026-10-07"),
]


def _walk(obj: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every JSON object inside ``obj`` (itself included), with a readable path."""
    if isinstance(obj, dict):
        yield path, obj
        for key, value in obj.items():
            yield from _walk(value, f"{path}.{key}")
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            yield from _walk(value, f"{path}[{i}]")


@pytest.mark.parametrize("args", INVOCATIONS, ids=lambda a: " ".join(a))
def test_envelope(cli, demo_home: Path, args: tuple[str, ...]) -> None:
    command = args[0]
    result = cli("--claude-home", str(demo_home), *args, "--format", "json")
    assert result.code == 0, result.stderr
    rows = result.json_rows()
    kinds = [r.get("kind") for r in rows]
    assert kinds[0] == "header" and kinds[-1] == "summary"
    assert kinds.count("header") == 1 and kinds.count("summary") == 1
    assert rows[0]["command"] == command
    for row in rows[1:-1]:
        assert row["kind"] in ROW_KINDS[command], row["kind"]
        if row["kind"] in TRIO_KINDS:
            for key in TRIO:
                assert key in row, (row["kind"], key)
            assert isinstance(row["is_subagent"], bool)
            if not row["is_subagent"]:
                assert row["session_id"] == row["parent_session_id"]
    for row in rows:
        for where, obj in _walk(row):
            for key in [k for k in obj if k.endswith("_utc")]:
                local = key[: -len("_utc")] + "_local"
                assert local in obj, f"{where}.{key} has no {local}"
                if obj[key] is None:
                    assert obj[local] is None
                else:
                    assert LOCAL_FORM.match(obj[local]), (where, obj[local])


def test_image_extraction_envelope(cli, demo_home: Path, tmp_path: Path) -> None:
    result = cli("--claude-home", str(demo_home), "image", f"@{LONG}", "--out",
                 str(tmp_path / "imgs"), "--format", "json")
    assert result.code == 0, result.stderr
    rows = result.json_rows()
    assert [r["kind"] for r in rows] == ["header", "extract", "summary"]
    assert rows[0] == {"kind": "header", "command": "image"}
    assert tuple(rows[1][k] for k in TRIO) == (LONG, False, LONG)
    assert set(rows[2]) == {"kind", "extracted", "url_skipped", "skipped_lines"}


def test_hits_and_siblings_carry_the_trio(cli, demo_home: Path) -> None:
    result = cli("--claude-home", str(demo_home), "search", "svalbard", "--siblings",
                 "--format", "json")
    checked = 0
    for ex in result.json_rows("exchange"):
        for obj in [*ex["hits"], *ex.get("siblings", [])]:
            assert tuple(obj[k] for k in TRIO) == tuple(ex[k] for k in TRIO)
            assert "kind" not in obj  # hit objects are not envelope rows
            checked += 1
    assert checked > 5


def test_count_only_json_is_header_and_summary(cli, demo_home: Path) -> None:
    result = cli("--claude-home", str(demo_home), "search", "epoch", "-c", "--format", "json")
    rows = result.json_rows()
    assert [r["kind"] for r in rows] == ["header", "summary"]
    assert set(rows[1]) == {"kind", "matched"}
