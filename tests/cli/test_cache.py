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
    assert summary["dir"] == str(warm / "pysift-cache-v1") and summary["writable"] is True
    assert summary["why_unwritable"] is None and summary["old_layout"] == []
    assert summary["bytes"] == sum(row["bytes"] for row in facets.values())
    for shard in warm.rglob("*.marshal"):
        assert stat.S_IMODE(shard.stat().st_mode) == 0o600
    text = run_cli("cache", "info")
    assert text.stdout.startswith(f"cache: {warm / 'pysift-cache-v1'}\nstate: on\n")
    assert "list: " in text.stdout and "total: " in text.stdout
    # an entry outlives its transcript until a prune: entries, never "transcripts"
    assert f"list: {facets['list']['entries']} entries in " in text.stdout


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
    assert res.summary()["removed_files"] == res.summary()["removed_shards"] == len(shards) > 0
    assert res.summary()["removed_temp_files"] == 0
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


def _tree(root: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(root.rglob("*"))}


def test_a_cache_location_holding_the_claude_home_is_refused_and_nothing_is_touched(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The review's case (HOME=B, PYSIFT_CACHE_DIR=B): one list deleted
    ``B/.claude/stuff.marshal`` and ``B/someapp/index.marshal``; clear then deleted
    ``B/notes/.draft.tmp`` and three empty dirs, and said "removed 1 shard files"."""
    b = tmp_path / "b"
    session = b / ".claude" / "projects" / "-w-p" / "aaaaaaaa-0000-4000-8000-000000000001.jsonl"
    session.parent.mkdir(parents=True)
    session.write_bytes(b'{"type":"user","message":{"role":"user","content":"hi"},'
                        b'"timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w/p"}\n')
    for name, data in (("someapp/index.marshal", b"\xfb0"), (".claude/stuff.marshal", b"[0"),
                       ("notes/.draft.tmp", b"draft")):
        (b / name).parent.mkdir(parents=True, exist_ok=True)
        (b / name).write_bytes(data)
    (b / "emptydir").mkdir()
    before = _tree(b)
    monkeypatch.setenv("HOME", str(b))
    monkeypatch.setenv("PYSIFT_CACHE_DIR", str(b))
    monkeypatch.setenv("PYSIFT_CACHE_SETTLE_MS", "0")
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    assert run_cli("list").code == 0
    assert _tree(b) == before
    info = run_cli("cache", "info")
    assert info.stdout.splitlines()[1] == (f"state: off ({b} holds the Claude home "
                                           f"{b / '.claude'} (pysift keeps its cache apart "
                                           "from it))")
    res = run_cli("cache", "clear")
    assert res.code == 2 and res.stderr.count("\n") == 1
    assert f"{b} holds the Claude home" in res.stderr
    assert _tree(b) == before
    # --no-cache turns the cache off; the location stays refused
    assert run_cli("--no-cache", "cache", "clear").code == 2
    assert _tree(b) == before


def test_clear_removes_only_pysift_s_files_and_says_so(warm: Path) -> None:
    ns = warm / "pysift-cache-v1"
    facet = ns / "list"
    (facet / ".0123456789abcdef.marshal.77.tmp").write_bytes(b"half")
    (facet / "mine.marshal").write_bytes(b"not pysift's")
    (warm / "search").mkdir()  # the older layout, beside the namespace
    (warm / "search" / "0123456789abcdef.marshal").write_bytes(b"old")
    shards = len(list(ns.rglob("*.marshal"))) - 1
    text = run_cli("cache", "clear")
    assert text.code == 0, text.stderr
    assert text.stdout.splitlines()[1].startswith(
        f"removed {shards} shard files and 1 temporary file (")
    assert text.stdout.splitlines()[2] == (
        f"note: {warm / 'search'} hold the files of an older pysift cache layout, which "
        "pysift no longer reads or deletes: remove them by hand")
    assert (facet / "mine.marshal").read_bytes() == b"not pysift's"
    assert (warm / "search" / "0123456789abcdef.marshal").read_bytes() == b"old"
    again = run_cli("cache", "clear", "--format", "json").summary()
    assert (again["removed_files"], again["old_layout"]) == (0, [str(warm / "search")])


def test_clear_refuses_a_namespace_that_is_not_pysift_s(warm: Path) -> None:
    tag = warm / "pysift-cache-v1" / "CACHEDIR.TAG"
    tag.unlink()
    shards = sorted(warm.rglob("*.marshal"))
    res = run_cli("cache", "clear")
    assert res.code == 1 and "nothing removed" in res.stderr
    assert sorted(warm.rglob("*.marshal")) == shards
    info = run_cli("cache", "info", "--format", "json").summary()
    assert info["writable"] is False and "is not pysift's" in info["why_unwritable"]


@pytest.mark.parametrize("shape", ["a regular file", "read-only"])
def test_info_says_when_nothing_can_be_kept(tmp_path: Path, shape: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    if shape == "read-only":
        if os.geteuid() == 0:
            pytest.skip("root writes through permissions")
        root = tmp_path / "ro"
        root.mkdir(mode=0o500)
        why = f"{root} cannot be written"
    else:
        root = tmp_path / "file"
        root.write_text("x")
        why = f"{root} is not a directory"
    monkeypatch.setenv("PYSIFT_CACHE_DIR", str(root))
    text = run_cli("cache", "info")
    assert text.stdout.splitlines()[1] == f"state: on, but {why}: nothing is kept"
    summary = run_cli("cache", "info", "--format", "json").summary()
    assert (summary["enabled"], summary["writable"], summary["why_unwritable"]) == (
        True, False, why)
