"""The user's home: a non-empty HOME, else the password database (csift's lookup)."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

from pysift.disk.home import user_home


def test_a_set_home_is_the_users_home() -> None:
    assert user_home({"HOME": "/home/ada"}) == Path("/home/ada")


def test_an_empty_or_missing_home_is_the_password_databases() -> None:
    """``Path.home()`` answered ``/`` for an empty HOME, and pysift read /.claude."""
    entry = Path(pwd.getpwuid(os.getuid()).pw_dir)
    assert user_home({"HOME": ""}) == entry
    assert user_home({}) == entry


def test_an_empty_home_on_the_command_line_reads_the_users_claude_home(
        cli, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("HOME", "")
    monkeypatch.setattr(pwd, "getpwuid", lambda uid: type("E", (), {"pw_dir": str(tmp_path)}))
    (tmp_path / ".claude" / "projects").mkdir(parents=True)
    result = cli("list")
    assert result.code == 0 and "/.claude/projects" not in result.stderr.replace(
        str(tmp_path), "")


def test_an_empty_home_expands_a_quoted_tilde_target_as_the_claude_home_does(
        cli, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``list '~/work/app'`` with an empty HOME: the commands read ``~`` raw from the
    environment and found no such path, where the Claude home came from the password
    database."""
    monkeypatch.setenv("HOME", "")
    monkeypatch.setattr(pwd, "getpwuid", lambda uid: type("E", (), {"pw_dir": str(tmp_path)}))
    project = tmp_path / "work" / "app"
    project.mkdir(parents=True)
    from pysift.disk.layout import encode_cwd

    encoded = encode_cwd(project)
    sessions = tmp_path / ".claude" / "projects" / encoded
    sessions.mkdir(parents=True)
    (sessions / "0b6a9a3e-1c1f-4a43-9d0e-3c2f5b2f0a11.jsonl").write_text(
        '{"type":"user","message":{"role":"user","content":"hello"},'
        '"timestamp":"2026-01-02T03:04:05Z","uuid":"u1","cwd":"%s"}\n' % project)
    result = cli("list", "~/work/app", "--format", "json")
    assert result.code == 0, result.stderr
    assert "0b6a9a3e" in result.stdout


def test_a_removed_current_directory_is_the_shells_pwd(
        cli, demo_home: Path, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A coding agent in a deleted worktree: every command said "cannot write the
    output". The shell's PWD stands for the removed directory."""
    gone = tmp_path / "worktree"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    monkeypatch.setenv("PWD", str(gone))
    listed = cli("--claude-home", str(demo_home), "list")
    assert listed.code == 0 and "cannot write" not in listed.stderr
    monkeypatch.delenv("PWD")
    refused = cli("--claude-home", str(demo_home), "list")
    assert refused.code == 2
    assert "the current directory no longer exists" in refused.stderr


def test_a_user_named_path_expands_a_leading_tilde_and_joins_the_cwd(tmp_path: Path) -> None:
    from pysift.disk.home import user_named_path

    env = {"HOME": str(tmp_path / "me")}
    cwd = tmp_path / "work"
    assert user_named_path("~/out/a.png", cwd, env) == tmp_path / "me" / "out" / "a.png"
    assert user_named_path("~", cwd, env) == tmp_path / "me"
    assert user_named_path("out", cwd, env) == cwd / "out"
    assert user_named_path("./~", cwd, env) == cwd / "~"  # a dir named ~, spelled so
    assert user_named_path("~other/x", cwd, env) == cwd / "~other" / "x"  # no user lookup
    assert user_named_path("/abs/x", cwd, env) == Path("/abs/x")
