"""``status`` on every top-level session of the real corpus (../shared/corpus/real; skipped
when absent) answers without error. The corpus holds no registry rows, so every verdict is
the transcript's alone, and each says so; a session with an open call or a live lane also
says that nothing confirms its owner is alive."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.real

VERDICTS = {"running", "waiting-children", "waiting-hitl", "idle-background-open", "idle-eot",
            "stale-dead", "unknown"}


def _sessions(home: Path) -> list[Path]:
    return sorted(p for p in (home / "projects").glob("*/*.jsonl")
                  if not p.name.startswith("agent-"))


def test_status_answers_on_every_top_level_session(cli, real_home: Path) -> None:
    sessions = _sessions(real_home)
    assert len(sessions) > 50
    seen: set[str] = set()
    for path in sessions:
        result = cli("--claude-home", str(real_home), "status", str(path), "--format", "json")
        assert result.code == 0, (path, result.stderr)
        assert "Traceback" not in result.stderr
        rows = result.json_rows()
        assert [r["kind"] for r in rows] == ["header", "verdict", "summary"], path
        row = rows[1]
        assert row["verdict"] in VERDICTS
        seen.add(row["verdict"])
        assert any("verdict from the transcript alone" in n for n in row["notes"]), path
        if row["verdict"] in ("running", "waiting-children", "waiting-hitl"):
            assert any("a session abandoned in this state reads the same" in n
                       for n in row["notes"]), path
        if row["verdict"] == "unknown":
            assert any("cannot be ranked" in n or "no record could be read" in n
                       for n in row["notes"]), path
    assert {"idle-eot", "running", "unknown"} <= seen


def test_status_text_on_a_session_with_an_open_dev_server(cli, real_home: Path) -> None:
    """A real session that ended its turn with two backgrounded dev servers nobody stopped."""
    path = next((p for p in _sessions(real_home) if p.stem.startswith("7acd37a8")), None)
    if path is None:
        pytest.skip("the JSSoundRecorder session is not in this corpus")
    result = cli("--claude-home", str(real_home), "status", str(path))
    assert result.code == 0
    assert "verdict  idle-background-open" in result.stdout
    assert result.stdout.count("\n  bg        shell   ") == 2
