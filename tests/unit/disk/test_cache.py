"""The cache store: where it lives, when an entry is valid, how it is written."""

from __future__ import annotations

import marshal
import os
import stat
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pysift.disk import cache as C
from pysift.disk.mapped import open_buffer_stat

HOME = Path("/home/ada")


def settings(root: Path, settle_ms: str = "0") -> C.CacheSettings:
    return C.settings_from({"PYSIFT_CACHE_DIR": str(root), "PYSIFT_CACHE_SETTLE_MS": settle_ms},
                           HOME, Path("/home/ada/.claude"))


def transcript(tmp_path: Path, body: bytes = b'{"type":"user"}\n{"type":"assistant"}\n') -> Path:
    path = tmp_path / "claude" / "projects" / "-w-p" / "s.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body)
    return path


def stored(tmp_path: Path, path: Path, facts: object = ("f",)) -> C.Facet:
    store = C.open_store(settings(tmp_path / "cache"))
    assert store is not None
    facet = store.facet("demo", 1)
    buf, st = open_buffer_stat(path)
    facet.put(path, C.stamp_of(st, buf), facts)
    facet.flush()
    return C.open_store(settings(tmp_path / "cache")).facet("demo", 1)  # a fresh run


# -- where, and whether ----------------------------------------------------------------------

def test_a_tilde_in_the_cache_dir_is_the_callers_home(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``PYSIFT_CACHE_DIR='~/c'`` read ``~`` from the process's raw HOME (``/c`` when
    it was empty), where the Claude home took the password database's."""
    monkeypatch.setenv("HOME", "")
    assert C.cache_root({"PYSIFT_CACHE_DIR": "~/c"}, Path("/home/ada")) == Path("/home/ada/c")
    assert Path("/home/ada/x") in C.claude_homes({"CLAUDE_CONFIG_DIR": "~/x"},
                                                 Path("/home/ada"), None)


def test_the_location_follows_the_environment() -> None:
    assert C.cache_root({}, HOME) == HOME / ".cache" / "pysift"
    assert C.cache_root({"XDG_CACHE_HOME": "/x/c"}, HOME) == Path("/x/c/pysift")
    assert C.cache_root({"XDG_CACHE_HOME": "rel"}, HOME) == HOME / ".cache" / "pysift"
    assert C.cache_root({"XDG_CACHE_HOME": "/x/c", "PYSIFT_CACHE_DIR": "/y"}, HOME) == Path("/y")


@pytest.mark.parametrize("environ, flag, why", [
    ({"PYSIFT_NO_CACHE": "1"}, False, "PYSIFT_NO_CACHE"),
    ({"PYSIFT_NO_CACHE": "yes"}, False, "PYSIFT_NO_CACHE"),
    ({}, True, "--no-cache"),
    ({"PYSIFT_CACHE_DIR": "/home/ada/.claude/cache"}, False, "Claude home"),
    ({"XDG_CACHE_HOME": "/srv/claude"}, False, "Claude home"),
    ({"PYSIFT_CACHE_DIR": "/cfg/c", "CLAUDE_CONFIG_DIR": "/cfg"}, False, "Claude home"),
    ({"PYSIFT_CACHE_DIR": "relative/dir"}, False, "absolute"),
])
def test_the_cache_is_off(environ, flag, why) -> None:  # type: ignore[no-untyped-def]
    got = C.settings_from(environ, HOME, Path("/srv/claude"), flag)
    assert not got.enabled and why in (got.why_off or "")
    assert C.open_store(got) is None


def test_the_cache_is_on_by_default() -> None:
    got = C.settings_from({"PYSIFT_NO_CACHE": "0"}, HOME, Path("/srv/claude"))
    assert got.enabled and got.root == HOME / ".cache" / "pysift"


# -- validity -------------------------------------------------------------------------------

def test_an_unchanged_file_hits(tmp_path: Path) -> None:
    path = transcript(tmp_path)
    probe = stored(tmp_path, path, ("facts", 1)).probe(path)
    assert probe.hit and probe.facts == ("facts", 1)


def test_a_rewrite_that_restores_the_mtime_misses(tmp_path: Path) -> None:
    path = transcript(tmp_path)
    facet = stored(tmp_path, path)
    before = path.stat()
    time.sleep(0.02)
    path.write_bytes(b'{"type":"user"}\n{"type":"assistent"}\n')  # the same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert after.st_mtime_ns == before.st_mtime_ns and after.st_size == before.st_size
    if after.st_ctime_ns == before.st_ctime_ns:
        pytest.skip("this file system did not move the ctime")
    assert facet.probe(path).state == C.MISS


def test_the_head_is_read_again_on_every_probe(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    path = transcript(tmp_path)
    facet = stored(tmp_path, path)
    monkeypatch.setattr(C, "_stamp_hash", lambda data: b"other")  # a head that hashes otherwise
    assert facet.probe(path).state == C.MISS


def test_an_appended_file_grows_and_a_truncated_one_misses(tmp_path: Path) -> None:
    path = transcript(tmp_path, b'{"a":1}\n{"b":2}\n{"c":')  # a torn last line
    facet = stored(tmp_path, path)
    with open(path, "ab") as fh:
        fh.write(b'3}\n{"d":4}\n')
    probe = facet.probe(path)
    assert probe.state == C.GROWN and probe.stamp is not None
    assert probe.stamp.scanned == len(b'{"a":1}\n{"b":2}\n')  # the torn line is read again
    assert C.Facet.grown_ok(probe.stamp, path.read_bytes())
    assert not C.Facet.grown_ok(probe.stamp, b'{"a":1}\n{"X":2}\n{"c":3}\n{"d":4}\n')
    assert not C.Facet.grown_ok(probe.stamp, b'{"Z":1}\n{"b":2}\n{"c":3}\n{"d":4}\n')
    with open(path, "r+b") as fh:
        fh.truncate(4)
    assert facet.probe(path).state == C.MISS


def test_a_replaced_file_misses(tmp_path: Path) -> None:
    path = transcript(tmp_path)
    facet = stored(tmp_path, path)
    other = path.with_name("new.jsonl")
    other.write_bytes(path.read_bytes() + b'{"more":1}\n')
    os.replace(other, path)  # another inode, larger: no growth of the old file
    assert facet.probe(path).state == C.MISS


def test_a_freshly_written_file_is_not_stored(tmp_path: Path) -> None:
    path = transcript(tmp_path)
    store = C.open_store(settings(tmp_path / "cache", settle_ms="60000"))
    facet = store.facet("demo", 1)
    buf, st = open_buffer_stat(path)
    facet.put(path, C.stamp_of(st, buf), ("f",))
    facet.flush()
    assert C.open_store(settings(tmp_path / "cache")).facet("demo", 1).probe(path).state == C.MISS


def test_other_rules_other_facets_and_bad_shards_are_ignored(tmp_path: Path) -> None:
    path = transcript(tmp_path)
    stored(tmp_path, path)
    store = C.open_store(settings(tmp_path / "cache"))
    assert store.facet("demo", 2).probe(path).state == C.MISS  # another schema
    assert store.facet("other", 1).probe(path).state == C.MISS
    shard = next((C.namespace(tmp_path / "cache") / "demo").glob("*.marshal"))
    shard.write_bytes(b"\x00garbage")
    assert C.open_store(settings(tmp_path / "cache")).facet("demo", 1).probe(path).state == C.MISS
    shard.write_bytes(marshal.dumps({"format": C.FORMAT, "rules": "x", "entries": {}}))
    assert C.open_store(settings(tmp_path / "cache")).facet("demo", 1).probe(path).state == C.MISS


# -- writing --------------------------------------------------------------------------------

def test_shards_are_private_and_written_whole(tmp_path: Path) -> None:
    path = transcript(tmp_path)
    stored(tmp_path, path)
    root = tmp_path / "cache"
    assert stat.S_IMODE(root.stat().st_mode) == 0o700
    assert stat.S_IMODE(C.namespace(root).stat().st_mode) == 0o700
    assert (C.namespace(root) / "CACHEDIR.TAG").read_bytes() == C.TAG
    shards = list((C.namespace(root) / "demo").iterdir())
    assert [p.suffix for p in shards] == [".marshal"]  # no temporary file left behind
    assert stat.S_IMODE(shards[0].stat().st_mode) == 0o600
    data = marshal.loads(shards[0].read_bytes())
    assert data["format"] == C.FORMAT and str(path) in data["entries"]


def test_a_read_only_cache_dir_means_no_cache(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root writes through permissions")
    path = transcript(tmp_path)
    root = tmp_path / "cache"
    root.mkdir(mode=0o500)
    store = C.open_store(settings(root))
    facet = store.facet("demo", 1)
    buf, st = open_buffer_stat(path)
    facet.put(path, C.stamp_of(st, buf), ("f",))
    facet.flush()  # silently nothing
    assert facet.probe(path).hit  # this run still holds what it put
    assert C.open_store(settings(root)).facet("demo", 1).probe(path).state == C.MISS


def test_an_unwritable_cache_location_means_no_cache(tmp_path: Path) -> None:
    path = transcript(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("not a dir")
    store = C.open_store(settings(blocker / "cache"))
    facet = store.facet("demo", 1)
    buf, st = open_buffer_stat(path)
    facet.put(path, C.stamp_of(st, buf), ("f",))
    facet.flush()  # no exception
    assert not (blocker / "cache").exists()


def test_entries_of_deleted_transcripts_are_dropped(tmp_path: Path) -> None:
    path = transcript(tmp_path)
    gone = path.with_name("gone.jsonl")
    gone.write_bytes(b'{"a":1}\n')
    store = C.open_store(settings(tmp_path / "cache"))
    facet = store.facet("demo", 1)
    for p in (path, gone):
        buf, st = open_buffer_stat(p)
        facet.put(p, C.stamp_of(st, buf), ("f",))
    gone.unlink()
    facet.flush()
    shard = next((C.namespace(tmp_path / "cache") / "demo").glob("*.marshal"))
    assert list(marshal.loads(shard.read_bytes())["entries"]) == [str(path)]


def test_pruning_drops_shards_of_vanished_projects_and_caps_the_size(tmp_path: Path,
                                                                    monkeypatch) -> None:  # type: ignore[no-untyped-def]
    path = transcript(tmp_path)
    stored(tmp_path, path)
    root = C.namespace(tmp_path / "cache")
    dead = root / "demo" / "0123456789abcdef.marshal"
    dead.write_bytes(marshal.dumps({"format": C.FORMAT, "rules": "r",
                                    "entries": {"/nowhere/x.jsonl": ((), ())}}))
    C.maybe_prune(root, force=True)
    assert not dead.exists() and len(list((root / "demo").glob("*.marshal"))) == 1
    monkeypatch.setattr(C, "MAX_BYTES", 0)
    C.maybe_prune(root, force=True)
    assert list((root / "demo").glob("*.marshal")) == []


def test_a_run_prunes_without_reading_the_shards_it_just_wrote(tmp_path: Path,
                                                                  monkeypatch) -> None:  # type: ignore[no-untyped-def]
    path = transcript(tmp_path)
    stored(tmp_path, path)
    root = C.namespace(tmp_path / "cache")
    (root / C._PRUNE_MARK).unlink()  # as on the first run over a cache: no prune mark yet
    dead = root / "demo" / "0123456789abcdef.marshal"  # an older run's, of a vanished file
    dead.write_bytes(marshal.dumps({"format": C.FORMAT, "rules": "r",
                                    "entries": {"/nowhere/x.jsonl": ((), ())}}))
    os.utime(dead, (time.time() - 3600, time.time() - 3600))
    read: list[str] = []
    real_load = marshal.load

    def load(fh):  # type: ignore[no-untyped-def]
        read.append(os.path.basename(fh.name))
        return real_load(fh)

    monkeypatch.setattr(C.marshal, "load", load)
    stored(tmp_path, path)  # this run rewrites its shard, then prunes
    assert read == [dead.name]  # the older shard is read (and found dead), ours is not
    assert not dead.exists() and len(list((root / "demo").glob("*.marshal"))) == 1


def test_usage_and_clear(tmp_path: Path) -> None:
    path = transcript(tmp_path)
    stored(tmp_path, path)
    root = C.namespace(tmp_path / "cache")
    usage = C.usage(root)
    assert usage.facets["demo"][:2] == (1, 1) and usage.total_bytes > 0
    assert C.clear(root) == C.Removed(shards=1, temporary=0, bytes=usage.total_bytes, dirs=1)
    assert C.usage(root).facets == {}
    assert sorted(p.name for p in root.iterdir()) == ["CACHEDIR.TAG"]  # an empty cache


@pytest.mark.parametrize("damage", [
    lambda raw: (*raw[:5], 1 << 62, *raw[6:]),      # a head length no read may take
    lambda raw: (*raw[:5], -1, *raw[6:]),
    lambda raw: (*raw[:5], "4096", *raw[6:]),
    lambda raw: (*raw[:6], "not bytes", *raw[7:]),
    lambda raw: (str(raw[0]), *raw[1:]),               # a device that is no number
    lambda raw: raw[:9],                                # a stamp cut short
])
def test_a_damaged_stamp_is_a_miss_never_a_failure(tmp_path: Path, damage) -> None:  # type: ignore[no-untyped-def]
    """The probe reads a stamp's fields without building a Stamp: whatever a damaged
    shard holds there, the answer is a miss (the facts are computed again)."""
    path = transcript(tmp_path)
    facet = stored(tmp_path, path)
    _, entries = facet._shard(path)
    raw, facts = entries[str(path)]
    entries[str(path)] = (damage(raw), facts)
    assert facet.probe(path).state == C.MISS
    entries[str(path)] = (raw, facts)
    assert facet.probe(path).state == C.HIT


def test_the_cached_size_is_the_stored_one_without_a_look_at_the_file(tmp_path: Path) -> None:
    """A search orders its queue by it: the size the entry was taken at (the file may have
    grown since), None for a file the cache does not hold or a damaged entry."""
    path = transcript(tmp_path)
    facet = stored(tmp_path, path)
    size = path.stat().st_size
    with path.open("ab") as fh:
        fh.write(b'{"type":"user"}\n')
    assert facet.cached_size(path) == size
    assert facet.cached_size(path.with_name("other.jsonl")) is None
    _, entries = facet._shard(path)
    raw, facts = entries[str(path)]
    entries[str(path)] = ((*raw[:2], "big", *raw[3:]), facts)
    assert facet.cached_size(path) is None


def test_the_collector_is_paused_only_inside_and_restored_as_it_was() -> None:
    import gc

    from pysift.disk.gcpause import paused_gc

    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def _project_by_parts(path: Path) -> Path:
    """The shard key as read through ``Path.parts`` (the reading the string one replaced)."""
    parts = path.parts
    for i in range(len(parts) - 2, 0, -1):
        if parts[i - 1] == "projects":
            return Path(*parts[:i + 1])
    return path.parent


@given(st.lists(st.sampled_from(["projects", "-home-dev-app", "p", "subagents", "workflows",
                                 "wf_1", "6f1c0a4e-1111-4222-8333-944455556666", "é x"]),
                max_size=7),
       st.sampled_from(["s.jsonl", "agent-a1.jsonl"]), st.booleans())
def test_the_shard_key_is_the_project_dir_of_a_walked_path(dirs: list[str], name: str,
                                                          absolute: bool) -> None:
    path = Path("/" if absolute else ".", *dirs, name)
    text = os.fspath(path)
    assert C._project_of(text) == os.fspath(_project_by_parts(path))
    assert C.shard_name(C._project_of(text)) == C.shard_name(_project_by_parts(path))


def test_a_probe_keeps_the_stat_it_took_for_the_rest_of_the_run(tmp_path: Path) -> None:
    path = transcript(tmp_path)
    facet = stored(tmp_path, path)
    assert facet.store.seen == {}
    assert facet.probe(path).hit
    assert facet.store.seen[str(path)].st_size == path.stat().st_size
    assert facet.probe(path.with_name("never-stored.jsonl")) is C._MISS
    assert list(facet.store.seen) == [str(path)]  # no entry: no open, nothing seen


# -- only its own files: the namespace, the tag, the names ----------------------------------

def _foreign(root: Path) -> dict[Path, bytes]:
    """Files and dirs under a cache root that pysift did not make, some named as it names
    its own (a ``.marshal`` in another dir, a ``.tmp`` beside them, a tag elsewhere)."""
    files = {
        root / "someapp" / "index.marshal": marshal.dumps({"x": 1}),
        root / ".claude" / "stuff.marshal": marshal.dumps([1]),
        root / "notes" / ".draft.tmp": b"draft",
        root / "list" / "0123456789abcdef.marshal": marshal.dumps({"old": "layout"}),
        root / "CACHEDIR.TAG": C.TAG,
    }
    for path, data in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (root / "emptydir").mkdir()
    return files


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_pruning_and_clearing_touch_only_pysift_s_own_names(tmp_path: Path) -> None:
    """The review's case: every ``*.marshal`` of any subdir was taken for a shard (one
    inside a Claude home was pruned), ``clear`` deleted every ``.*.tmp`` and every empty
    dir, and counted only the shards."""
    path = transcript(tmp_path)
    root = tmp_path / "cache"
    root.mkdir()
    foreign = _foreign(root)
    stored(tmp_path, path)
    ns = C.namespace(root)
    own = ns / "demo"
    stray = {  # in pysift's namespace, but not names pysift makes
        own / "notes.marshal": b"x", own / ".draft.tmp": b"x", ns / "other" / "a.txt": b"x",
        own / "0123456789ABCDEF.marshal": b"x", ns / "README": b"x",
    }
    for stray_path, data in stray.items():
        stray_path.parent.mkdir(parents=True, exist_ok=True)
        stray_path.write_bytes(data)
    temp = own / ".0123456789abcdef.marshal.4242.tmp"
    temp.write_bytes(b"half a shard")
    C.maybe_prune(ns, force=True)  # every foreign file is a shard of no live transcript
    assert all(p.read_bytes() == data for p, data in {**foreign, **stray}.items())
    assert (root / "emptydir").is_dir()
    removed = C.clear(ns)
    assert removed.shards == 1 and removed.temporary == 1 and not temp.exists()
    assert removed.dirs == 0  # the facet dir still holds what is not pysift's
    assert all(p.read_bytes() == data for p, data in {**foreign, **stray}.items())
    assert (root / "emptydir").is_dir()
    assert C.old_layout(root) == [root / "list"]  # named, never read nor deleted


@pytest.mark.parametrize("shape", ["no tag", "another tag", "a link", "projects inside"])
def test_a_namespace_not_provably_pysift_s_is_neither_read_written_nor_emptied(
        tmp_path: Path, shape: str) -> None:
    path = transcript(tmp_path)
    stored(tmp_path, path)
    root = tmp_path / "cache"
    ns = C.namespace(root)
    shard = next((ns / "demo").glob("*.marshal"))
    if shape == "no tag":
        (ns / "CACHEDIR.TAG").unlink()
    elif shape == "another tag":
        (ns / "CACHEDIR.TAG").write_bytes(C.TAG.replace(b"pysift", b"other"))
    elif shape == "a link":
        elsewhere = tmp_path / "elsewhere"
        ns.rename(elsewhere)
        ns.symlink_to(elsewhere)
        shard = elsewhere / "demo" / shard.name
    else:
        (ns / "projects" / "-w-p").mkdir(parents=True)
        (ns / "projects" / "-w-p" / "s.jsonl").write_bytes(b"{}\n")
    before = shard.read_bytes()
    assert not C.owned(ns)
    assert C.open_store(settings(root)).facet("demo", 1).probe(path).state == C.MISS
    store = C.open_store(settings(root))
    facet = store.facet("demo", 2)
    buf, st = open_buffer_stat(path)
    facet.put(path, C.stamp_of(st, buf), ("new",))
    facet.flush()  # nothing written: no second shard
    assert [p.name for p in shard.parent.glob("*.marshal")] == [shard.name]
    C.maybe_prune(ns, force=True)
    assert C.clear(ns) == C.Removed()
    assert C.usage(ns).facets == {}
    assert shard.read_bytes() == before


def test_an_empty_namespace_is_tagged_and_used(tmp_path: Path) -> None:
    """A run that stopped between making the dir and writing its tag left it empty."""
    path = transcript(tmp_path)
    C.namespace(tmp_path / "cache").mkdir(parents=True)
    assert stored(tmp_path, path).probe(path).hit
    assert C.owned(C.namespace(tmp_path / "cache"))


def test_the_files_of_the_older_layout_are_not_read(tmp_path: Path) -> None:
    path = transcript(tmp_path)
    store = C.open_store(settings(tmp_path / "cache"))
    facet = store.facet("demo", 1)
    buf, st = open_buffer_stat(path)
    old = tmp_path / "cache" / "demo" / C.shard_name(path.parent)
    old.parent.mkdir(parents=True)
    old.write_bytes(marshal.dumps({"format": C.FORMAT, "rules": facet.rules, "entries": {
        str(path): (C.stamp_of(st, buf).as_tuple(), ("old",))}}))
    assert facet.probe(path).state == C.MISS


@pytest.mark.parametrize("environ, why", [
    ({"PYSIFT_CACHE_DIR": "/home/ada"}, "holds the Claude home /home/ada/.claude"),
    ({"PYSIFT_CACHE_DIR": "/"}, "holds the Claude home"),
    ({"PYSIFT_CACHE_DIR": "/srv"}, "holds the Claude home /srv/claude"),
    ({"PYSIFT_CACHE_DIR": "/cfg", "CLAUDE_CONFIG_DIR": "/cfg/claude"}, "holds the Claude home"),
])
def test_a_location_holding_a_claude_home_is_refused(environ, why) -> None:  # type: ignore[no-untyped-def]
    got = C.settings_from(environ, HOME, Path("/srv/claude"))
    assert not got.enabled and why in (got.why_off or "") and got.refused == got.why_off
    flagged = C.settings_from(environ, HOME, Path("/srv/claude"), no_cache_flag=True)
    assert flagged.why_off == "--no-cache" and why in (flagged.refused or "")


def test_a_location_that_looks_like_a_claude_home_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "backup-of-a-home"
    (other / "projects" / "-w-p").mkdir(parents=True)
    got = C.settings_from({"PYSIFT_CACHE_DIR": str(other)}, HOME, Path("/srv/claude"))
    assert got.enabled  # projects/ without a transcript: no home
    (other / "projects" / "-w-p" / "s.jsonl").write_bytes(b"{}\n")
    got = C.settings_from({"PYSIFT_CACHE_DIR": str(other)}, HOME, Path("/srv/claude"))
    assert not got.enabled and "looks like a Claude home" in (got.refused or "")


def test_a_namespace_linked_into_a_claude_home_is_refused(tmp_path: Path) -> None:
    claude = tmp_path / "claude"
    claude.mkdir()
    root = tmp_path / "cache"
    root.mkdir()
    C.namespace(root).symlink_to(claude)
    got = C.settings_from({"PYSIFT_CACHE_DIR": str(root)}, HOME, claude)
    assert not got.enabled and "under the Claude home" in (got.refused or "")


def test_what_keeps_a_cache_that_is_on_from_keeping(tmp_path: Path) -> None:
    assert C.unwritable(settings(tmp_path / "new" / "cache")) is None  # made on first write
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert C.unwritable(settings(blocker)) == f"{blocker} is not a directory"
    assert C.unwritable(settings(blocker / "below")) == f"{blocker} is not a directory"
    foreign = tmp_path / "foreign"
    (C.namespace(foreign) / "x").mkdir(parents=True)
    assert "is not pysift's" in (C.unwritable(settings(foreign)) or "")
    if os.geteuid() != 0:
        ro = tmp_path / "ro"
        ro.mkdir(mode=0o500)
        assert C.unwritable(settings(ro)) == f"{ro} cannot be written"


def test_a_dir_the_user_cannot_write_is_said(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """What ``os.access`` answers (root writes through a mode: it answers yes to root)."""
    monkeypatch.setattr(C.os, "access", lambda path, mode: False)
    assert C.unwritable(settings(tmp_path)) == f"{tmp_path} cannot be written"
    assert C.unwritable(settings(tmp_path / "a" / "b")) == f"{tmp_path} cannot be written"
