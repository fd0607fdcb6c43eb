"""Transcripts re-encoded by JSON writers other than Claude Code's: the same decoded text
must be found whatever the spelling (SPEC §7, prefilter.OPTIONAL_ESCAPES)."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from builders import ClaudeHome
from pysift.core.matcher import escape_literal

SID = "11111111-1111-4111-8111-111111111111"
PROMPT = "see https://github.com/obra/x and <command-name> ok, a=b & it's c+d `e`"


def _record() -> dict:
    return {"type": "user", "message": {"role": "user", "content": PROMPT}, "uuid": "u1",
            "parentUuid": None, "timestamp": "2026-01-01T00:00:00.000Z", "sessionId": SID,
            "cwd": "/w/p"}


def _php(record: dict) -> bytes:
    return json.dumps(record, separators=(",", ":")).encode().replace(b"/", b"\\/")


def _go(record: dict) -> bytes:
    line = orjson.dumps(record)
    for char in "<>&":
        line = line.replace(char.encode(), f"\\u{ord(char):04x}".encode())
    return line


def _dotnet(record: dict) -> bytes:
    line = orjson.dumps(record)
    for char in "<>&='+`":
        line = line.replace(char.encode(), f"\\u{ord(char):04X}".encode())
    return line


@pytest.mark.parametrize("writer", [_php, _go, _dotnet])
@pytest.mark.parametrize("needle", ["github.com/obra", "obra/x", "<command-name>",
                                    "command-name>", "a=b", "it's", "c+d", "`e`", "b & it"])
def test_a_needle_is_found_whatever_the_writer_escapes(cli, tmp_path: Path, writer,  # type: ignore[no-untyped-def]
                                                       needle: str) -> None:
    home = ClaudeHome(tmp_path / "claude")
    path = home.project_dir("/w/p") / f"{SID}.jsonl"
    ClaudeHome.raw_lines(path, [writer(_record()) + b"\n"])
    assert orjson.loads(path.read_bytes()) == _record()  # the same record, spelled otherwise
    result = cli("--claude-home", str(home.root), "search", escape_literal(needle), "-c")
    assert result.stdout.strip() == "1", (writer.__name__, needle, result.stderr)
