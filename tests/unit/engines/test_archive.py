"""engines/archive + disk/mirror: what a session brings, and each file's move (SPEC §14)."""

from __future__ import annotations

import errno
import json
import os
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from builders import ClaudeHome, Session, assistant, attachment, text, tool_use, user
from pysift.core.resolve import resolve_scope
from pysift.disk import mirror
from pysift.engines import archive
from pysift.errors import UsageError
from pysift.model.env import Env, FixedClock

SID = "3f6c1e2a-8b4d-4c7e-9a15-2d8e0b7f4c61"
OTHER = "7a2d9c4e-1f3b-4e6a-8c5d-9b0e2f4a6c83"
NOW = datetime(2026, 12, 2, 3, 0, 0, tzinfo=UTC)


def _session(sid: str, prompt: str = "why is the pass late?") -> Session:
    s = Session(sid, cwd="/home/ada/src/orbit")
    s.add(user(prompt))
    s.add(assistant(text("the epoch parse drops the fraction")))
    return s


@pytest.fixture
def built(tmp_path: Path) -> ClaudeHome:
    home = ClaudeHome(tmp_path / "claude")
    main = home.session("/home/ada/src/orbit", SID, _session(SID))
    home.subagent(main, "a4f1c9e27b3d8a605", user("scan the logs"), meta={"agentType": "Explore"})
    home.subagent(main, "a2c8e5f13d9b7a046", user("step one"), workflow="wf_8d3k2p7q")
    home.journal(main, "wf_8d3k2p7q", [{"type": "started", "agentId": "a2c8e5f13d9b7a046"}])
    home.workflow_run(main, "wf_8d3k2p7q", {"status": "done"})
    home.tool_output(main, "b7x2k9qpm", "the whole output\n" * 20)
    home.sidecar(main, [b'{"csift":1,"kind":"pending"}'])
    home.session("/home/ada/src/orbit", OTHER, _session(OTHER, "second session"))
    return home


def _env(home: Path) -> Env:
    return Env(claude_home=home, clock=FixedClock(NOW))


def _run(home: ClaudeHome, dest: Path, targets: list[str] | None = None,
         **kw: object) -> archive.ArchiveRun:
    env = _env(home.root)
    scope = resolve_scope(targets or [], env, subagents=True)
    return archive.run(scope.transcripts, env, archive.ArchiveOptions(dest=dest, **kw))


def _actions(result: archive.ArchiveRun) -> dict[str, str]:
    return {o.entry.rel: o.action for o in result.outcomes}


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".pysift" not in p.parts}


def test_a_session_brings_its_whole_dir_and_the_archive_mirrors_the_home(built, tmp_path):
    dest = tmp_path / "arc"
    result = _run(built, dest)
    assert set(_actions(result).values()) == {archive.COPIED}
    assert _files(dest) == _files(built.root)
    src = built.projects / "-home-ada-src-orbit" / f"{SID}.jsonl"
    copy = dest / "projects" / "-home-ada-src-orbit" / f"{SID}.jsonl"
    assert copy.stat().st_mtime_ns == src.stat().st_mtime_ns


def test_a_subagent_target_archives_its_whole_session_and_nothing_else(built, tmp_path):
    dest = tmp_path / "arc"
    result = _run(built, dest, ["@a4f1c9e27b3d8a605"])
    rels = set(_actions(result))
    assert f"projects/-home-ada-src-orbit/{SID}.jsonl" in rels
    assert f"projects/-home-ada-src-orbit/{SID}/workflows/wf_8d3k2p7q.json" in rels
    assert not any(OTHER in rel for rel in rels)
    assert result.sessions == 1


def test_second_run_skips_everything_by_size_and_time(built, tmp_path):
    dest = tmp_path / "arc"
    _run(built, dest)
    again = _run(built, dest)
    assert set(_actions(again).values()) == {archive.SKIPPED}
    assert again.written == 0


def test_a_project_dir_whose_name_is_no_utf8_is_archived_and_skipped_next_run(tmp_path):
    """A dir named in another encoding (a latin-1 byte): its path reaches the manifest as
    a lone surrogate, which orjson refused to write (a TypeError after the copies)."""
    home = ClaudeHome(tmp_path / "claude")
    project = os.fsencode(home.projects) + b"/-home-caf\xe9"
    os.makedirs(project)
    transcript = project + f"/{SID}.jsonl".encode()
    with open(transcript, "wb") as fh:
        fh.write(_session(SID).lines())
    dest = tmp_path / "archive"
    first = _run(home, dest)
    assert set(_actions(first).values()) == {"copied"}
    assert os.path.exists(os.fsencode(dest) + b"/projects/-home-caf\xe9/" + f"{SID}.jsonl".encode())
    second = _run(home, dest)
    assert set(_actions(second).values()) == {"skipped"}


def test_a_grown_file_gets_only_its_new_bytes(built, tmp_path):
    dest = tmp_path / "arc"
    _run(built, dest)
    src = built.projects / "-home-ada-src-orbit" / f"{SID}.jsonl"
    before = src.stat().st_size
    extra = b'{"type":"user","message":{"role":"user","content":"one more"}}\n'
    with src.open("ab") as fh:
        fh.write(extra)
    again = _run(built, dest)
    rel = f"projects/-home-ada-src-orbit/{SID}.jsonl"
    outcome = next(o for o in again.outcomes if o.entry.rel == rel)
    assert (outcome.action, outcome.written) == (archive.APPENDED, len(extra))
    assert (dest / rel).read_bytes() == src.read_bytes()
    assert (dest / rel).stat().st_size == before + len(extra)
    assert {o.action for o in again.outcomes if o.entry.rel != rel} == {archive.SKIPPED}


def test_a_rewritten_prefix_keeps_the_old_copy_under_a_dated_name(built, tmp_path):
    dest = tmp_path / "arc"
    _run(built, dest)
    src = built.projects / "-home-ada-src-orbit" / f"{OTHER}.jsonl"
    old = src.read_bytes()
    src.write_bytes(old.replace(b"second session", b"SECOND SESSION") + b"\n")
    again = _run(built, dest)
    rel = f"projects/-home-ada-src-orbit/{OTHER}.jsonl"
    outcome = next(o for o in again.outcomes if o.entry.rel == rel)
    assert outcome.action == archive.PRESERVED
    assert outcome.preserved_as == f"{rel}.preserved-20261202T030000Z"
    assert (dest / outcome.preserved_as).read_bytes() == old
    assert (dest / rel).read_bytes() == src.read_bytes()


def test_a_shrunk_file_is_preserved_too_and_nothing_is_truncated(built, tmp_path):
    dest = tmp_path / "arc"
    _run(built, dest)
    src = built.projects / "-home-ada-src-orbit" / f"{OTHER}.jsonl"
    old = src.read_bytes()
    src.write_bytes(old[: len(old) // 2])
    again = _run(built, dest)
    rel = f"projects/-home-ada-src-orbit/{OTHER}.jsonl"
    outcome = next(o for o in again.outcomes if o.entry.rel == rel)
    assert outcome.action == archive.PRESERVED
    assert (dest / outcome.preserved_as).read_bytes() == old
    # a preserved copy does not end in .jsonl: no reader takes it for a session
    assert not outcome.preserved_as.endswith(".jsonl")


def test_same_size_other_time_same_bytes_is_skipped_and_retimed(built, tmp_path):
    dest = tmp_path / "arc"
    _run(built, dest)
    src = built.projects / "-home-ada-src-orbit" / f"{OTHER}.jsonl"
    os.utime(src, ns=(src.stat().st_atime_ns, src.stat().st_mtime_ns + 5_000_000_000))
    again = _run(built, dest)
    rel = f"projects/-home-ada-src-orbit/{OTHER}.jsonl"
    assert _actions(again)[rel] == archive.SKIPPED
    assert (dest / rel).stat().st_mtime_ns == src.stat().st_mtime_ns


def test_plan_files_bound_to_the_sessions_go_under_plans(tmp_path):
    home = ClaudeHome(tmp_path / "claude")
    plan = home.plan("quiet-orbiting-lovelace", "# the plan\n")
    s = Session(SID, cwd="/home/ada/src/orbit")
    s.add(user("plan it"))
    s.add(attachment("plan_mode", {"planFilePath": str(plan), "planExists": True}))
    home.session("/home/ada/src/orbit", SID, s)
    dest = tmp_path / "arc"
    result = _run(home, dest)
    assert _actions(result)["plans/quiet-orbiting-lovelace.md"] == archive.COPIED
    assert (dest / "plans" / "quiet-orbiting-lovelace.md").read_text() == "# the plan\n"
    # an unchanged transcript's binding comes from the manifest: no second read of it
    plan.write_text("# the plan, edited\n")
    from pysift.engines import plans

    def unread(*args: object, **kw: object) -> None:
        raise AssertionError("an unchanged transcript's binding was read again")

    real = plans.resolve_plan_path
    plans.resolve_plan_path = unread  # type: ignore[assignment]
    try:
        again = _run(home, dest)
    finally:
        plans.resolve_plan_path = real
    assert _actions(again)["plans/quiet-orbiting-lovelace.md"] == archive.PRESERVED
    assert (dest / "plans" / "quiet-orbiting-lovelace.md").read_text() == "# the plan, edited\n"


def test_dest_inside_the_home_or_holding_it_is_refused(built, tmp_path):
    with pytest.raises(UsageError, match="inside the Claude home"):
        _run(built, built.root / "archive")
    with pytest.raises(UsageError, match="is inside the archive DEST"):
        _run(built, tmp_path)
    assert not (built.root / "archive").exists()


@pytest.mark.parametrize("which", ["HOME", "CLAUDE_CONFIG_DIR"])
def test_dest_inside_the_users_own_claude_home_is_refused_too(built, tmp_path, which):
    """Archiving another home (`--claude-home` a copy or a backup) into a DEST under
    `~/.claude` or `$CLAUDE_CONFIG_DIR` wrote there: only the home being read was checked,
    while pysift never writes under a Claude home (`image --out` refuses all three)."""
    user = tmp_path / "user"
    live = user / ".claude" if which == "HOME" else tmp_path / "config"
    live.mkdir(parents=True)
    user.mkdir(exist_ok=True)
    environ = {"HOME": str(user)}
    if which == "CLAUDE_CONFIG_DIR":
        environ["CLAUDE_CONFIG_DIR"] = str(live)
    env = Env(claude_home=built.root, clock=FixedClock(NOW), environ=environ)
    scope = resolve_scope([], env, subagents=True)
    with pytest.raises(UsageError, match=f"inside the Claude home {live}"):
        archive.run(scope.transcripts, env, archive.ArchiveOptions(dest=live / "archive"))
    assert list(live.iterdir()) == []
    beside = archive.run(scope.transcripts, env, archive.ArchiveOptions(dest=user / "archive"))
    assert beside.count(archive.COPIED) > 0  # the user's home itself is no Claude home


def test_a_target_spelled_through_a_link_to_the_home_is_in_the_home(built, tmp_path):
    """`~/.claude` a link to a dotfiles dir: a transcript named by the other spelling of
    the same path (`list` takes it) was refused, "is outside the Claude home"."""
    link = tmp_path / "linked-home"
    link.symlink_to(built.root)
    main = built.projects / "-home-ada-src-orbit" / f"{SID}.jsonl"
    dest = tmp_path / "arc"
    for home, target in ((link, main), (built.root, link / main.relative_to(built.root))):
        env = _env(home)
        scope = resolve_scope([str(target)], env, subagents=True)
        result = archive.run(scope.transcripts, env, archive.ArchiveOptions(dest=dest))
        rels = set(_actions(result))
        assert f"projects/-home-ada-src-orbit/{SID}.jsonl" in rels
        assert (f"projects/-home-ada-src-orbit/{SID}/subagents/agent-a4f1c9e27b3d8a605.jsonl"
                in rels)
        assert all(rel.startswith("projects/-home-ada-src-orbit/") for rel in rels)
    assert (dest / "projects" / "-home-ada-src-orbit" / f"{SID}.jsonl").read_bytes() == \
        main.read_bytes()


def test_dest_that_is_a_file_is_refused(built, tmp_path):
    dest = tmp_path / "arc"
    dest.write_text("not a dir")
    with pytest.raises(UsageError, match="not a directory"):
        _run(built, dest)


def test_dest_whose_parent_is_missing_is_refused(built, tmp_path):
    with pytest.raises(UsageError, match="does not exist"):
        _run(built, tmp_path / "no" / "arc")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through permissions")
def test_unwritable_dest_is_one_error(built, tmp_path):
    dest = tmp_path / "arc"
    dest.mkdir()
    dest.chmod(0o500)
    try:
        with pytest.raises(archive.ArchiveError, match="cannot write"):
            _run(built, dest)
    finally:
        dest.chmod(0o700)


def test_a_full_disk_stops_the_run_and_leaves_every_archived_file_whole(built, tmp_path,
                                                                       monkeypatch):
    dest = tmp_path / "arc"
    _run(built, dest)
    before = _files(dest)
    # grow one file, and add a new session: the writer fails part-way through the copy
    src = built.projects / "-home-ada-src-orbit" / f"{SID}.jsonl"
    with src.open("ab") as fh:
        fh.write(b'{"type":"user","message":{"role":"user","content":"later"}}\n')
    third = "c9e4b7a1-5d2f-4a8c-b3e6-1f7d0a9c2e54"
    built.session("/home/ada/src/orbit", third, _session(third, "third " * 4000))
    real = mirror.copy_range

    def failing(src_fd: int, dst_fd: int, offset: int, count: int) -> int:
        os.write(dst_fd, b"x" * min(count, 100))  # a short write, then the disk is full
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(mirror, "copy_range", failing)
    result = _run(built, dest)
    assert result.stopped is not None and "disk is full" in result.stopped
    monkeypatch.setattr(mirror, "copy_range", real)
    after = _files(dest)
    sources = _files(built.root)
    for rel, data in after.items():  # every file is whole: its old copy or its source
        assert data in (before.get(rel), sources[rel])
    assert f"projects/-home-ada-src-orbit/{third}.jsonl" not in after
    assert not any(name.endswith(mirror.PARTIAL_SUFFIX) for name in os.listdir(
        dest / "projects" / "-home-ada-src-orbit"))
    done = _run(built, dest)  # the next run completes it
    assert done.stopped is None
    assert _files(dest) == _files(built.root)


def test_an_append_that_does_not_fit_is_refused_before_a_byte(built, tmp_path, monkeypatch):
    dest = tmp_path / "arc"
    _run(built, dest)
    src = built.projects / "-home-ada-src-orbit" / f"{SID}.jsonl"
    with src.open("ab") as fh:
        fh.write(b"{}\n" * 1000)
    monkeypatch.setattr(mirror, "free_bytes", lambda directory: 10)
    copy = dest / "projects" / "-home-ada-src-orbit" / f"{SID}.jsonl"
    size = copy.stat().st_size
    result = _run(built, dest)
    assert result.stopped is not None and "disk is full" in result.stopped
    assert copy.stat().st_size == size


def test_an_interrupted_append_leaves_a_prefix_at_a_line_end_the_next_run_completes(
        built, tmp_path, monkeypatch):
    dest = tmp_path / "arc"
    _run(built, dest)
    src = built.projects / "-home-ada-src-orbit" / f"{SID}.jsonl"
    with src.open("ab") as fh:
        for i in range(3000):
            fh.write(b'{"type":"progress","n":%d}\n' % i)
    monkeypatch.setattr(mirror, "APPEND_CHUNK", 4096)
    calls = {"n": 0}
    real = mirror.write_all

    def killed(fd: int, data: bytes | memoryview) -> int:
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt  # the process is stopped between two writes
        return real(fd, data)

    monkeypatch.setattr(mirror, "write_all", killed)
    with pytest.raises(KeyboardInterrupt):
        _run(built, dest)
    monkeypatch.setattr(mirror, "write_all", real)
    copy = (dest / "projects" / "-home-ada-src-orbit" / f"{SID}.jsonl").read_bytes()
    assert src.read_bytes().startswith(copy) and copy.endswith(b"\n")
    assert len(copy) < src.stat().st_size
    _run(built, dest)
    assert _files(dest) == _files(built.root)


def test_a_source_that_vanishes_is_a_failed_row_and_the_rest_is_archived(built, tmp_path,
                                                                        monkeypatch):
    dest = tmp_path / "arc"
    gone = built.projects / "-home-ada-src-orbit" / f"{OTHER}.jsonl"
    real = archive.decide

    def vanishing(source: str, target: str) -> archive.Decision:
        decision = real(source, target)
        if source == str(gone):
            gone.unlink()
        return decision

    monkeypatch.setattr(archive, "decide", vanishing)
    result = _run(built, dest)
    rel = f"projects/-home-ada-src-orbit/{OTHER}.jsonl"
    failed = [o for o in result.outcomes if o.action == archive.FAILED]
    assert [o.entry.rel for o in failed] == [rel]
    assert "vanished" in (failed[0].reason or "")
    assert not (dest / rel).exists()
    assert (dest / "projects" / "-home-ada-src-orbit" / f"{SID}.jsonl").exists()


def test_a_source_that_shrinks_mid_copy_leaves_no_copy(built, tmp_path, monkeypatch):
    dest = tmp_path / "arc"
    src = built.projects / "-home-ada-src-orbit" / f"{OTHER}.jsonl"
    real = mirror.copy_range

    def truncating(src_fd: int, dst_fd: int, offset: int, count: int) -> int:
        os.truncate(src, 10)
        return real(src_fd, dst_fd, offset, count)

    monkeypatch.setattr(mirror, "copy_range", truncating)
    env = _env(built.root)
    scope = resolve_scope([f"@{OTHER}"], env, subagents=True)
    result = archive.run(scope.transcripts, env, archive.ArchiveOptions(dest=dest))
    (outcome,) = result.outcomes
    assert outcome.action == archive.FAILED and "shrank" in (outcome.reason or "")
    assert not (dest / outcome.entry.rel).exists()


def test_a_second_archive_into_the_same_dest_waits_or_refuses(built, tmp_path):
    dest = tmp_path / "arc"
    state = archive.prepare_dest(dest)
    with archive.Lock(state, timeout=0):
        with pytest.raises(archive.ArchiveError, match="another pysift archive"):
            _run(built, dest, lock_timeout=0)
        waits: list[str] = []
        release = threading.Event()

        def later() -> None:
            release.wait(5)

        thread = threading.Thread(target=later)
        thread.start()
        with pytest.raises(archive.ArchiveError, match="after waiting"):
            archive.Lock(state, timeout=0.4, on_wait=lambda: waits.append("w"),
                         sleep=lambda s: None).__enter__()
        release.set()
        thread.join()
        assert waits == ["w"]
    assert not _files(dest)
    assert set(_actions(_run(built, dest, lock_timeout=0)).values()) == {archive.COPIED}


def test_dry_run_writes_nothing(built, tmp_path):
    dest = tmp_path / "arc"
    result = _run(built, dest, dry_run=True)
    assert not dest.exists()
    assert set(_actions(result).values()) == {archive.COPIED}
    assert result.written == 0 or all(o.written > 0 for o in result.outcomes)


def test_the_home_is_never_written(built, tmp_path):
    before = {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in built.root.rglob("*")}
    _run(built, tmp_path / "arc")
    after = {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in built.root.rglob("*")}
    assert before == after


def test_tool_use_sessions_archive_like_any(tmp_path):
    # a transcript whose only record is a tool call: still one session, copied whole
    home = ClaudeHome(tmp_path / "claude")
    s = Session(SID, cwd="/w")
    s.add(assistant(tool_use("Read", {"file_path": "a.py"}, id="t1")))
    home.session("/w", SID, s)
    result = _run(home, tmp_path / "arc")
    assert _actions(result) == {f"projects/-w/{SID}.jsonl": archive.COPIED}


# -- twentieth session: the reviewer's findings ------------------------------------------------


def _planned(home: ClaudeHome, slug: str) -> Path:
    """A session that entered Plan Mode: the record names ``plans/<slug>.md`` in this home,
    a file Claude Code writes only when the plan gets its first content."""
    plan = home.root / "plans" / f"{slug}.md"
    s = Session(SID, cwd="/home/ada/src/orbit")
    s.add(user("plan it"))
    s.add(attachment("plan_mode", {"planFilePath": str(plan), "planExists": False}))
    home.session("/home/ada/src/orbit", SID, s)
    return plan


def test_a_plan_written_after_a_run_is_archived_by_the_next(tmp_path):
    """The manifest cached "binds no plan" by the transcript's size and time: the plan
    written later (the transcript unchanged) was never archived, and `complete` said true."""
    home = ClaudeHome(tmp_path / "claude")
    plan = _planned(home, "amber-falcon")
    dest = tmp_path / "arc"
    first = _run(home, dest)
    assert "plans/amber-falcon.md" not in _actions(first)
    home.plan("amber-falcon", "# ship it\n")
    again = _run(home, dest)
    assert _actions(again)["plans/amber-falcon.md"] == archive.COPIED
    assert (dest / "plans" / "amber-falcon.md").read_text() == "# ship it\n"
    assert first.notes == [f"note: 1 plan file(s) bound to the sessions in scope do not exist "
                           f"(not written yet, or deleted): {plan}; nothing to archive for them"]
    assert not again.notes


def test_a_plan_deleted_after_it_was_archived_is_a_note_not_a_failure(tmp_path):
    """It failed every later run ("vanished before it was archived ... run again to
    retry"), a failure no run could clear."""
    home = ClaudeHome(tmp_path / "claude")
    plan = _planned(home, "amber-falcon")
    home.plan("amber-falcon", "# ship it\n")
    dest = tmp_path / "arc"
    assert _actions(_run(home, dest))["plans/amber-falcon.md"] == archive.COPIED
    plan.unlink()
    for _ in range(2):
        again = _run(home, dest)
        assert archive.FAILED not in _actions(again).values()
        assert "plans/amber-falcon.md" not in _actions(again)
        (note,) = [n for n in again.notes if "plan file(s)" in n]
        assert note == (f"note: 1 plan file(s) bound to the sessions in scope do not exist (not "
                        f"written yet, or deleted): {plan}; nothing to archive for them (the "
                        "archive keeps its earlier copy of 1 under plans/)")
    assert (dest / "plans" / "amber-falcon.md").read_text() == "# ship it\n"


def test_a_deleted_plan_recorded_under_a_windows_path_counts_its_archived_copy(tmp_path):
    """A session recorded on Windows names its plan `C:\\Users\\…\\plans\\<slug>.md`; the
    run archives the home's `plans/<slug>.md` (as `plan` relocates it). Once that file was
    deleted, the note said nothing of the copy the archive keeps: it took the whole
    Windows path for the file's name."""
    home = ClaudeHome(tmp_path / "claude")
    recorded = "C:\\Users\\ada\\.claude\\plans\\amber-falcon.md"
    s = Session(SID, cwd="/home/ada/src/orbit")
    s.add(user("plan it"))
    s.add(attachment("plan_mode", {"planFilePath": recorded, "planExists": False}))
    home.session("/home/ada/src/orbit", SID, s)
    local = home.plan("amber-falcon", "# ship it\n")
    dest = tmp_path / "arc"
    assert _actions(_run(home, dest))["plans/amber-falcon.md"] == archive.COPIED
    local.unlink()
    again = _run(home, dest)
    (note,) = [n for n in again.notes if "plan file(s)" in n]
    assert note == (f"note: 1 plan file(s) bound to the sessions in scope do not exist (not "
                    f"written yet, or deleted): {recorded}; nothing to archive for them (the "
                    "archive keeps its earlier copy of 1 under plans/)")


def test_a_bound_plan_path_that_is_no_regular_file_is_named_as_such(tmp_path):
    """A plan path that exists as a directory (or a device, a FIFO) was said not to exist
    ("not written yet, or deleted")."""
    home = ClaudeHome(tmp_path / "claude")
    plan = _planned(home, "amber-falcon")
    plan.mkdir(parents=True)
    result = _run(home, tmp_path / "arc")
    assert archive.FAILED not in _actions(result).values()
    assert result.notes == [f"note: 1 plan file(s) bound to the sessions in scope are not "
                            "regular files (a device, a FIFO, a directory or a dangling link): "
                            f"{plan}; nothing to archive for them"]


def test_a_manifest_of_the_first_format_is_not_trusted(tmp_path):
    """Format 1 stored whether the plan existed ("plans": []): an archive made before the
    fix would have kept its missing plan missing."""
    home = ClaudeHome(tmp_path / "claude")
    _planned(home, "amber-falcon")
    home.plan("amber-falcon", "# ship it\n")
    dest = tmp_path / "arc"
    _run(home, dest)
    (dest / "plans" / "amber-falcon.md").unlink()
    manifest = dest / ".pysift" / "archive.json"
    rel = f"projects/-home-ada-src-orbit/{SID}.jsonl"
    src = home.projects / "-home-ada-src-orbit" / f"{SID}.jsonl"
    manifest.write_text(json.dumps({"format": 1, "homes": [str(home.root)], "bindings": {
        rel: {"size": src.stat().st_size, "mtime_ns": src.stat().st_mtime_ns, "plans": []}}}))
    assert _actions(_run(home, dest))["plans/amber-falcon.md"] == archive.COPIED


def _old_layout_agent(home: ClaudeHome, agent_id: str, session_id: str, prompt: str) -> Path:
    """An ``agent-<id>.jsonl`` beside the sessions (Claude Code 1.x), naming its session."""
    lane = Session(session_id, cwd="/home/ada/src/orbit", agent_id=agent_id)
    lane.add(user(prompt))
    lane.add(assistant(text("done")))
    path = home.project_dir("/home/ada/src/orbit") / f"agent-{agent_id}.jsonl"
    path.write_bytes(lane.lines())
    return path


def test_an_old_layout_agent_target_brings_every_agent_file_of_its_session(built, tmp_path):
    """`archive DEST @<old agent id>` copied the session and that one agent file: `agents`
    over the archive then counted 1 subagent where the home has 3."""
    for agent_id in ("a1111111", "a2222222", "a3333333"):
        _old_layout_agent(built, agent_id, SID, f"look at {agent_id}")
    _old_layout_agent(built, "a9999999", OTHER, "another session's lane")
    result = _run(built, tmp_path / "arc", ["@a2222222"])
    rels = list(_actions(result))
    project = "projects/-home-ada-src-orbit"
    assert [r for r in rels if "/agent-a" in r and r.count("/") == 2] == [
        f"{project}/agent-a1111111.jsonl", f"{project}/agent-a2222222.jsonl",
        f"{project}/agent-a3333333.jsonl"]
    assert f"{project}/{SID}.jsonl" in rels
    assert not any(OTHER in r or "a9999999" in r for r in rels)
    assert result.sessions == 1


def test_a_symlinked_dir_in_a_session_dir_is_archived_as_the_readers_read_it(built, tmp_path):
    """`<uuid>/subagents` linked to a dir elsewhere (moved to a bigger disk): `list` and
    `agents` follow the link, and the archive left the subagents out without a word."""
    session_dir = built.projects / "-home-ada-src-orbit" / SID
    elsewhere = tmp_path / "bigger-disk" / "subagents"
    elsewhere.parent.mkdir()
    (session_dir / "subagents").rename(elsewhere)
    (session_dir / "subagents").symlink_to(elsewhere)
    dest = tmp_path / "arc"
    result = _run(built, dest)
    rel = f"projects/-home-ada-src-orbit/{SID}/subagents/agent-a4f1c9e27b3d8a605.jsonl"
    assert _actions(result)[rel] == archive.COPIED
    assert (dest / rel).read_bytes() == (elsewhere / "agent-a4f1c9e27b3d8a605.jsonl").read_bytes()
    assert not (dest / rel).parent.is_symlink()  # content, never a link out of the archive
    assert not result.notes


def test_a_link_back_to_a_dir_that_holds_it_is_said_not_walked_forever(built, tmp_path):
    session_dir = built.projects / "-home-ada-src-orbit" / SID
    (session_dir / "subagents" / "again").symlink_to(session_dir)
    (session_dir / "tool-results" / "up").symlink_to(session_dir.parent)
    result = _run(built, tmp_path / "arc")
    assert [n.split(" links to ")[0] for n in result.notes] == [
        f"note: {session_dir / 'subagents' / 'again'}", f"note: {session_dir / 'tool-results' / 'up'}"]
    assert all(n.endswith("a dir that holds it (a loop): not followed") for n in result.notes)
    assert not any("/again/" in rel or "/up/" in rel for rel in _actions(result))
    assert result.unread == 0


def test_a_loop_through_a_dir_elsewhere_is_said_not_walked_until_the_kernel_stops_it(
        built, tmp_path):
    """`<uuid>/x` links to a dir elsewhere holding a link back to the session dir: the
    link back holds no dir it sits in, so it was followed, and the walk went on through
    x/y/x/y/… until the kernel's 40-link limit, archiving 20 nested copies of the session
    dir and failing the run with "fix their permissions"."""
    session_dir = built.projects / "-home-ada-src-orbit" / SID
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "notes.txt").write_text("kept\n")
    (session_dir / "x").symlink_to(elsewhere)
    (elsewhere / "y").symlink_to(session_dir)
    dest = tmp_path / "arc"
    result = _run(built, dest)
    rels = list(_actions(result))
    assert f"projects/-home-ada-src-orbit/{SID}/x/notes.txt" in rels
    assert not any("/x/y/" in rel for rel in rels)
    assert archive.FAILED not in _actions(result).values()
    assert result.notes == [f"note: {session_dir / 'x' / 'y'} links to {session_dir}, a dir "
                            "the walk came through (a loop): not followed"]
    assert result.unread == 0


def test_an_unreadable_source_is_its_own_failure_and_the_rest_is_archived(built, tmp_path,
                                                                          monkeypatch):
    """A mode-000 tool output stopped the whole run and blamed DEST ("cannot write …,
    check the archive's permissions")."""
    from conftest import lock

    locked = built.projects / "-home-ada-src-orbit" / SID / "tool-results" / "b7x2k9qpm.txt"
    lock(monkeypatch, locked)
    dest = tmp_path / "arc"
    result = _run(built, dest)
    assert result.stopped is None
    failed = [o for o in result.outcomes if o.action == archive.FAILED]
    assert [(o.entry.source, o.reason, o.unreadable) for o in failed] == [
        (str(locked), "cannot be read: Permission denied", True)]
    copied = {rel for rel, action in _actions(result).items() if action == archive.COPIED}
    assert copied == set(_files(built.root)) - {failed[0].entry.rel}
    assert result.in_scope == len(result.outcomes)


def test_a_file_that_is_no_regular_file_is_not_one_that_changed_while_read(built, tmp_path):
    """A FIFO (and a dangling link) in a session dir was a "changed while read" failure,
    "run again to retry", which no run could clear."""
    lanes = built.projects / "-home-ada-src-orbit" / SID / "subagents"
    os.mkfifo(lanes / "agent-a9e8d7c6b5a493827.meta.json")
    (lanes / "agent-a1b2c3d4e5f6a7b8c.meta.json").symlink_to(tmp_path / "unmounted.json")
    result = _run(built, tmp_path / "arc", [f"@{SID}"])
    failed = {o.entry.rel.rsplit("/", 1)[1]: o for o in result.outcomes
              if o.action == archive.FAILED}
    fifo = failed["agent-a9e8d7c6b5a493827.meta.json"]
    assert (fifo.reason, fifo.unreadable, fifo.irregular) == (
        "not a regular file (a FIFO): it has no bytes to copy", True, True)
    link = failed["agent-a1b2c3d4e5f6a7b8c.meta.json"]
    assert (link.reason, link.unreadable, link.irregular) == (
        f"cannot be read: a symlink to {tmp_path / 'unmounted.json'}, which does not exist",
        True, False)
    assert len(failed) == 2 and result.stopped is None
    with pytest.raises(mirror.SourceChanged, match="vanished"):  # gone is still gone
        mirror.stat_source(lanes / "agent-nothing.meta.json")


def test_a_copy_keeps_its_sources_mode_and_the_dirs_it_makes_are_private(built, tmp_path):
    """A private home (0600 files) was archived world-readable: 0644 copies, 0755 dirs."""
    old_umask = os.umask(0o022)
    try:
        src = built.projects / "-home-ada-src-orbit" / f"{SID}.jsonl"
        src.chmod(0o600)
        shared = built.projects / "-home-ada-src-orbit" / f"{OTHER}.jsonl"
        shared.chmod(0o640)
        dest = tmp_path / "arc"
        _run(built, dest)
    finally:
        os.umask(old_umask)
    arc = dest / "projects" / "-home-ada-src-orbit"

    def mode(path: Path) -> int:
        return path.stat().st_mode & 0o777

    assert (mode(arc / src.name), mode(arc / shared.name)) == (0o600, 0o640)
    made = [dest, dest / ".pysift", dest / "projects", arc, arc / SID, arc / SID / "subagents"]
    assert {mode(d) for d in made} == {0o700}
    assert mode(dest / ".pysift" / "archive.json") == 0o600
    assert mode(dest / ".pysift" / "archive.lock") == 0o600
    # an appended file keeps its copy's mode; a dir that was there is left as it was
    arc.chmod(0o755)
    (arc / src.name).chmod(0o620)
    with src.open("ab") as fh:
        fh.write(b'{"type":"user","message":{"role":"user","content":"later"}}\n')
    assert _actions(_run(built, dest))[f"projects/-home-ada-src-orbit/{SID}.jsonl"] == \
        archive.APPENDED
    assert (mode(arc / src.name), mode(arc)) == (0o620, 0o755)


def test_a_read_only_copy_that_grew_is_copied_anew_not_appended_to(built, tmp_path,
                                                                   monkeypatch):
    """A 0444 source makes a 0444 copy, which an append could not open for writing."""
    src = built.projects / "-home-ada-src-orbit" / f"{OTHER}.jsonl"
    src.chmod(0o444)
    dest = tmp_path / "arc"
    _run(built, dest)
    copy = dest / "projects" / "-home-ada-src-orbit" / f"{OTHER}.jsonl"
    src.chmod(0o644)
    with src.open("ab") as fh:
        fh.write(b'{"type":"user","message":{"role":"user","content":"later"}}\n')
    src.chmod(0o444)
    real = os.access
    monkeypatch.setattr(os, "access", lambda path, how: False if os.fspath(path) == str(copy)
                        else real(path, how))  # root may write a 0444 file: say it may not
    result = _run(built, dest)
    assert _actions(result)[f"projects/-home-ada-src-orbit/{OTHER}.jsonl"] == archive.COPIED
    assert copy.read_bytes() == src.read_bytes()
    assert copy.stat().st_mode & 0o777 == 0o444
    assert not [n for n in os.listdir(copy.parent) if archive.mirror.PRESERVED_INFIX in n]


def test_the_lock_wait_is_reported_as_given(tmp_path):
    """`--lock-timeout 1.5` said "after waiting 2 s" (its 0.2 s steps, rounded)."""
    state = archive.prepare_dest(tmp_path / "arc")
    with archive.Lock(state, timeout=0), \
            pytest.raises(archive.ArchiveError, match=r"after waiting 1\.5 s;"):
        archive.Lock(state, timeout=1.5, sleep=lambda s: None).__enter__()
