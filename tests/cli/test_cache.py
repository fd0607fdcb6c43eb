"""``pysift cache info|clear`` on a cache a list and a search filled."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from tests.clirun import run_cli


@pytest.fixture
def warm(demo_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("PYSIFT_CACHE_DIR", str(root))
    monkeypatch.setenv("PYSIFT_CACHE_SETTLE_MS", "0")
    assert run_cli("--claude-home", str(demo_home), "list").code == 0
    assert run_cli("--claude-home", str(demo_home), "search", "", "-t", "user", "-c").code == 0
    return root


def test_info_names_the_dir_and_each_command_s_facts(warm: Path) -> None:
    res = run_cli("cache", "info", "--format", "json")
    assert res.code == 0, res.stderr
    facets = {row["name"]: row for row in res.json_rows("facet")}
    assert set(facets) == {"list", "search"}
    assert all(row["entries"] > 0 and row["bytes"] > 0 for row in facets.values())
    summary = res.summary()
    assert summary["root"] == str(warm) and summary["enabled"] is True
    assert summary["bytes"] == sum(row["bytes"] for row in facets.values())
    for shard in warm.rglob("*.marshal"):
        assert stat.S_IMODE(shard.stat().st_mode) == 0o600
    text = run_cli("cache", "info")
    assert text.stdout.startswith(f"cache: {warm}\nstate: on\n")
    assert "list: " in text.stdout and "total: " in text.stdout


def test_info_says_why_the_cache_is_off(warm: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYSIFT_NO_CACHE", "1")
    res = run_cli("cache", "info", "--format", "json")
    assert res.summary()["enabled"] is False
    assert res.summary()["why_off"] == "PYSIFT_NO_CACHE is set"
    assert run_cli("--no-cache", "cache", "info").stdout.splitlines()[1] == \
        "state: off (--no-cache)"


def test_clear_deletes_every_shard_and_the_next_run_is_cold(warm: Path, demo_home: Path
                                                             ) -> None:
    shards = list(warm.rglob("*.marshal"))
    res = run_cli("cache", "clear", "--format", "json")
    assert res.code == 0, res.stderr
    assert res.summary()["removed_files"] == len(shards) > 0
    assert not list(warm.rglob("*.marshal"))
    assert run_cli("cache", "info").stdout.endswith("empty\n")
    assert run_cli("--claude-home", str(demo_home), "list").code == 0
    assert list(warm.rglob("*.marshal"))


def test_a_cache_dir_under_the_claude_home_is_neither_used_nor_cleared(
        demo_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    inside = demo_copy / "pysift-cache"
    monkeypatch.setenv("PYSIFT_CACHE_DIR", str(inside))
    monkeypatch.setenv("PYSIFT_CACHE_SETTLE_MS", "0")
    assert run_cli("--claude-home", str(demo_copy), "list").code == 0
    assert not inside.exists()
    info = run_cli("--claude-home", str(demo_copy), "cache", "info", "--format", "json")
    assert info.summary()["enabled"] is False and "Claude home" in info.summary()["why_off"]
    res = run_cli("--claude-home", str(demo_copy), "cache", "clear")
    assert res.code == 2 and "Claude home" in res.stderr


def test_an_unknown_action_is_a_usage_error() -> None:
    res = run_cli("cache", "purge")
    assert res.code == 2
    assert "use `pysift cache info` or `pysift cache clear`" in res.stderr


@pytest.mark.parametrize("shape", ["read-only", "not a dir"])
def test_an_unusable_cache_dir_changes_nothing(demo_home: Path, tmp_path: Path, shape: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    if shape == "read-only":
        if os.geteuid() == 0:
            pytest.skip("root writes through permissions")
        root = tmp_path / "ro"
        root.mkdir(mode=0o500)
    else:  # a file where the dir should be: nothing can be made under it (root too)
        (tmp_path / "blocked").write_text("x")
        root = tmp_path / "blocked" / "pysift"
    monkeypatch.setenv("PYSIFT_CACHE_DIR", str(root))
    monkeypatch.setenv("PYSIFT_CACHE_SETTLE_MS", "0")
    cached = run_cli("--claude-home", str(demo_home), "list")
    plain = run_cli("--no-cache", "--claude-home", str(demo_home), "list")
    assert cached.code == 0
    assert (cached.code, cached.stdout, cached.stderr) == (plain.code, plain.stdout, plain.stderr)
    searched = run_cli("--claude-home", str(demo_home), "search", "", "-t", "user", "-c")
    assert searched.code == 0 and not searched.stderr.count("cache")
