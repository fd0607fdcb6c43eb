"""``pysift recover --list-backups``: Claude Code's own checkpoints of one file, listed
oldest first by backup time, never merged into a recovery, an absence proving nothing."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from builders import ClaudeHome, Session, assistant, tool_result, tool_use, user

S1 = "11111111-1111-4111-8111-111111111111"
S2 = "22222222-2222-4222-8222-222222222222"
CWD = "/w/proj"
F = "/w/proj/src/app.py"
KEY = hashlib.sha256(F.encode()).hexdigest()[:16]
JAN, FEB = 1767261600, 1769940000  # 2026-01-01T10:00Z, 2026-02-01T10:00Z


def checkpoint(home: ClaudeHome, session: str, name: str, content: str, when: int) -> Path:
    path = home.root / "file-history" / session / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    os.utime(path, (when, when))
    return path


def run(cli, home: ClaudeHome, *args: str):  # type: ignore[no-untyped-def]
    return cli("--claude-home", str(home.root), "recover", "--list-backups", *args)


def edited_session(home: ClaudeHome, sid: str) -> None:
    s = Session(sid, cwd=CWD)
    s.add(user("fix the app"))
    s.add(assistant(tool_use("Write", {"file_path": F, "content": "x\n"}, id="toolu_1")))
    s.add(tool_result("toolu_1", "File created"))
    home.session(CWD, sid, s)


def test_backups_listed_oldest_first_across_sessions(cli, home: ClaudeHome) -> None:
    home.project_dir(CWD)
    checkpoint(home, S2, f"{KEY}@v1", "second session\n", FEB)
    checkpoint(home, S1, f"{KEY}@v2", "two\n", JAN + 60)
    checkpoint(home, S1, f"{KEY}@v1", "one\n", JAN)
    checkpoint(home, S1, "0123456789abcdef@v1", "another file\n", JAN)
    result = run(cli, home, "--file", F, "--format", "json")
    assert result.code == 0, result.stderr
    header = result.header()
    assert header["mode"] == "list-backups" and header["file"] == F
    assert header["hash"] == KEY and header["store_present"] is True
    rows = result.json_rows("backup")
    assert [(r["session_id"], r["version"], r["bytes"]) for r in rows] == [
        (S1, "v1", 4), (S1, "v2", 4), (S2, "v1", 15)]
    assert rows[0]["backup_utc"] == "2026-01-01T10:00:00.000Z"
    assert rows[0]["path"].endswith(f"file-history/{S1}/{KEY}@v1")
    assert result.summary() == {"kind": "summary", "backups": 3, "sessions": 2,
                                "unreadable": 0}


def test_text_names_the_store_key_and_each_backup(cli, home: ClaudeHome) -> None:
    home.project_dir(CWD)
    checkpoint(home, S1, f"{KEY}@v1", "one\n", JAN)
    result = run(cli, home, "--file", F)
    lines = result.stdout.splitlines()
    assert lines[0] == f"BACKUPS  {F}"
    assert lines[1].startswith(f"  store  {home.root / 'file-history'}  ·  key {KEY}@vN")
    assert lines[2].endswith(f"        4 B  @v1  {home.root / 'file-history' / S1 / (KEY + '@v1')}")
    assert "1 backup(s) in 1 session(s)" in lines
    assert "never merged into a recovery" in result.stdout


def test_a_target_limits_the_listing_to_its_sessions(cli, home: ClaudeHome) -> None:
    edited_session(home, S1)
    edited_session(home, S2)
    checkpoint(home, S1, f"{KEY}@v1", "one\n", JAN)
    checkpoint(home, S2, f"{KEY}@v1", "two\n", FEB)
    result = run(cli, home, f"@{S2[:8]}", "--file", F, "--format", "json")
    assert [r["session_id"] for r in result.json_rows("backup")] == [S2]


def test_a_path_suffix_resolves_through_the_transcripts(cli, home: ClaudeHome) -> None:
    edited_session(home, S1)
    checkpoint(home, S1, f"{KEY}@v1", "one\n", JAN)
    result = run(cli, home, "--file", "src/app.py", "--format", "json")
    assert result.code == 0, result.stderr
    assert result.header()["file"] == F
    assert len(result.json_rows("backup")) == 1


def test_a_suffix_no_transcript_names_is_refused(cli, home: ClaudeHome) -> None:
    edited_session(home, S1)
    result = run(cli, home, "--file", "lib/other.py")
    assert result.code == 2
    assert "needs its absolute path" in result.stderr


def test_an_absent_store_is_no_proof_of_absence(cli, home: ClaudeHome) -> None:
    home.project_dir(CWD)
    result = run(cli, home, "--file", F)
    assert result.code == 0
    assert "no file-history store at" in result.stdout
    assert "an absence proves nothing" in result.stdout
    json = run(cli, home, "--file", F, "--format", "json")
    assert json.header()["store_present"] is False
    assert json.summary()["backups"] == 0


def test_an_empty_listing_is_no_proof_of_absence(cli, home: ClaudeHome) -> None:
    home.project_dir(CWD)
    checkpoint(home, S1, "0123456789abcdef@v1", "another file\n", JAN)
    result = run(cli, home, "--file", F)
    assert result.code == 0
    assert "no backup of this file in the store (an absence proves nothing" in result.stdout


def test_an_unreadable_session_dir_is_said(cli, home: ClaudeHome) -> None:
    home.project_dir(CWD)
    locked = checkpoint(home, S1, f"{KEY}@v1", "one\n", JAN).parent
    checkpoint(home, S2, f"{KEY}@v1", "two\n", FEB)
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):
            pytest.skip("this user reads a mode-0 dir (root): nothing is hidden")
        result = run(cli, home, "--file", F, "--format", "json")
    finally:
        locked.chmod(0o755)
    assert result.code == 1
    assert f"cannot read {locked}" in result.stderr
    assert [r["session_id"] for r in result.json_rows("backup")] == [S2]
    assert result.summary()["unreadable"] == 1  # counted, as every summary counts it


def test_nothing_is_written_and_batch_flags_are_refused(cli, home: ClaudeHome, tmp_path) -> None:
    home.project_dir(CWD)
    out = tmp_path / "out.txt"
    assert run(cli, home, "--file", F, "--out", str(out)).code == 2
    assert not out.exists()
    assert run(cli, home, "--files-from", "-", "--out-dir", str(tmp_path)).code == 2
    assert run(cli, home).code == 2
    both = cli("--claude-home", str(home.root), "recover", "--file", F, "--coverage",
               "--list-backups")
    assert both.code == 2 and "different modes" in both.stderr
