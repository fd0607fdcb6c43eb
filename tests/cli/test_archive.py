"""``pysift archive`` through the real argv path: the archive answers every command as the
live home does, the envelope, bad DESTs, the lock, a full disk, the progress bar."""

from __future__ import annotations

import contextlib
import os
import pty
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from builders import ClaudeHome, Session, assistant, attachment, text, user
from denied import deny_listing
from pysift.engines import archive

REPO = Path(__file__).resolve().parents[2]
LONG = "3f6c1e2a-8b4d-4c7e-9a15-2d8e0b7f4c61"
EXPLORE = "a4f1c9e27b3d8a605"
PLAN = "quiet-orbiting-lovelace"

#: what must answer the same over the live home and over its archive (paths aside)
SAME_ANSWER = [
    ("list", "--max-count", "0"),
    ("list", "--max-count", "0", "--format", "json"),
    ("search", "epoch"),
    ("search", "epoch", "--format", "json"),
    ("search", "", "--count-by", "label"),
    ("search", "helper_442", "--resolve-persisted", "--siblings"),
    ("search", "release", "-l"),
    ("search", "", "-t", "harness.*", "--attachments", "--format", "json"),
    ("show", f"@{LONG}", "--turn", "..", "--max-count", "0"),
    ("show", f"@{LONG}", "--line", "1..", "--raw"),
    ("show", f"@{EXPLORE}", "--line", "1..", "--format", "json"),
    ("show", f"@{LONG}", "--branch-points", "--format", "json"),
    ("stats",),
    ("stats", "--format", "json"),
    ("plan", f"@{LONG}"),
    ("plan", f"@{LONG}", "--format", "json"),
    ("plan", f"@{LONG}", "--audit", "--format", "json"),
    ("agents", "--returned-message", "--with-files"),
    ("agents", "--format", "json"),
    ("files", f"@{LONG}", "--by", "timeline"),
    ("files", "--by", "file", "--format", "json"),
    ("image", "--format", "json"),
    ("recover", f"@{LONG}", "--file", "src/orbit/tle.py", "--coverage"),
    ("recover", f"@{LONG}", "--file", "src/orbit/tle.py", "--salvage"),
]


def _answer(cli, home: Path, args: tuple[str, ...]) -> tuple[int, str, str]:
    result = cli("--claude-home", str(home), *args)
    return (result.code, result.stdout.replace(str(home), "<HOME>"),
            result.stderr.replace(str(home), "<HOME>"))


def test_every_command_answers_over_the_archive_as_over_the_live_home(cli, demo_home,
                                                                      tmp_path, monkeypatch):
    dest = tmp_path / "archive"
    made = cli("--claude-home", str(demo_home), "archive", str(dest))
    assert made.code == 0, made.stderr
    monkeypatch.setenv("PYSIFT_ARCHIVE", str(dest))
    for args in SAME_ANSWER:
        live = _answer(cli, demo_home, args)
        assert live[0] == 0 and live[1], (args, live)
        assert _answer(cli, dest, args) == live, args


def test_a_grown_and_a_rewritten_session_answer_the_same_after_the_next_run(cli, tmp_path,
                                                                           monkeypatch):
    home = tmp_path / "claude"
    shutil.copytree(REPO / "fixtures" / "demo-home", home)
    dest = tmp_path / "archive"
    assert cli("--claude-home", str(home), "archive", str(dest)).code == 0
    grown = home / "projects" / "-home-ada-src-orbit" / f"{LONG}.jsonl"
    s = Session(LONG, cwd="/home/ada/src/orbit")
    s.add(user("one more question about the kestrel pass"))
    s.add(assistant(text("the kestrel pass is at 04:10")))
    with grown.open("ab") as fh:
        from builders import to_jsonl
        fh.write(to_jsonl(s.records))
    again = cli("--claude-home", str(home), "archive", str(dest), "--format", "json")
    actions = {r["path"]: r["action"] for r in again.json_rows("file")}
    assert actions[f"projects/-home-ada-src-orbit/{LONG}.jsonl"] == "appended"
    assert list(actions.values()).count("appended") == 1
    monkeypatch.setenv("PYSIFT_ARCHIVE", str(dest))
    for args in (("search", "kestrel"), ("list", "--max-count", "0"), ("stats", f"@{LONG}")):
        assert _answer(cli, dest, args) == _answer(cli, home, args), args


def test_help_has_examples_and_the_json_schema(cli):
    result = cli("archive", "--help")
    assert result.code == 0
    for needle in ("EXAMPLES", "pysift archive ~/claude-archive", '"kind":"file"',
                   "copied|appended|skipped|preserved|failed", "preserved_as", "EXIT",
                   "PYSIFT_ARCHIVE", "--lock-timeout"):
        assert needle in result.stdout, needle


def test_json_envelope_and_the_text_report(cli, demo_home, tmp_path):
    dest = tmp_path / "archive"
    first = cli("--claude-home", str(demo_home), "archive", str(dest), f"@{LONG}",
                "--format", "json")
    assert first.code == 0, first.stderr
    header = first.header()
    assert header == {"kind": "header", "command": "archive", "dest": str(dest),
                      "claude_home": str(demo_home), "sessions_in_scope": 1,
                      "files_in_scope": 14, "dry_run": False}
    rows = first.json_rows("file")
    assert [r["kind"] for r in first.json_rows()[1:-1]] == ["file"] * 14
    assert {r["action"] for r in rows} == {"copied"}
    assert rows[-1]["path"] == f"plans/{PLAN}.md"
    summary = first.summary()
    assert summary["copied"] == 14 and summary["complete"] is True
    assert summary["bytes_written"] == sum(r["bytes_written"] for r in rows)
    second = cli("--claude-home", str(demo_home), "archive", str(dest), f"@{LONG}")
    assert second.code == 0
    assert second.stdout == (f"archived 1 session(s), 14 file(s), into {dest}: 0 copied, "
                             "0 appended, 0 preserved, 14 unchanged; 0 B written\n")


def test_dry_run_says_what_it_would_write_and_writes_nothing(cli, demo_home, tmp_path):
    dest = tmp_path / "archive"
    result = cli("--claude-home", str(demo_home), "archive", str(dest), "--dry-run")
    assert result.code == 0
    assert not dest.exists()
    assert result.stdout.splitlines()[0].startswith("to copy    projects/")
    assert "would archive 5 session(s), 18 file(s)" in result.stdout


def _one_error(result, code: int, *needles: str) -> None:
    assert result.code == code, (result.code, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pysift: error: "), lines
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    assert result.stdout == ""


def test_bad_dests_are_one_line_each(cli, demo_home, tmp_path):
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")
    _one_error(cli("--claude-home", str(demo_home), "archive", str(a_file)), 2,
               "not a directory")
    _one_error(cli("--claude-home", str(demo_home), "archive", str(demo_home / "arc")), 2,
               "inside the Claude home")
    _one_error(cli("--claude-home", str(demo_home), "archive", str(REPO)), 2,
               "is inside the archive DEST")
    _one_error(cli("--claude-home", str(demo_home), "archive", str(tmp_path / "a" / "b")), 2,
               "does not exist")
    _one_error(cli("--claude-home", str(demo_home), "archive", ""), 2, "DEST is empty")
    _one_error(cli("--claude-home", str(demo_home), "archive", str(tmp_path / "x"),
                   "--lock-timeout", "-1"), 2, "--lock-timeout")
    assert not (demo_home / "arc").exists()


def test_the_home_is_left_untouched(cli, demo_home, tmp_path):
    from contracts.test_readonly import tree_digest

    home = tmp_path / "claude"
    shutil.copytree(demo_home, home)
    before = tree_digest(home)
    assert cli("--claude-home", str(home), "archive", str(tmp_path / "arc")).code == 0
    assert tree_digest(home) == before


def test_a_held_lock_refuses_or_waits(cli, demo_home, tmp_path):
    dest = tmp_path / "archive"
    state = archive.prepare_dest(dest)
    with archive.Lock(state, timeout=0):
        _one_error(cli("--claude-home", str(demo_home), "archive", str(dest),
                       "--lock-timeout", "0"), 1, "another pysift archive")
        waited = cli("--claude-home", str(demo_home), "archive", str(dest),
                     "--lock-timeout", "0.4")
        assert waited.code == 1
        assert waited.stderr.splitlines()[0].startswith("pysift: note: another pysift archive")
        assert "after waiting" in waited.stderr
    assert cli("--claude-home", str(demo_home), "archive", str(dest)).code == 0


@pytest.mark.e2e
def test_two_concurrent_archives_never_interleave(demo_home, tmp_path):
    home = tmp_path / "claude"
    shutil.copytree(demo_home, home)
    big = home / "projects" / "-home-ada-src-orbit" / f"{LONG}.jsonl"
    line = big.read_bytes().splitlines(keepends=True)[5]
    with big.open("ab") as fh:
        fh.write(line * 20000)  # ~ tens of MB: the two runs overlap
    dest = tmp_path / "archive"
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    cmd = [sys.executable, "-m", "pysift", "--claude-home", str(home), "archive", str(dest),
           "--format", "json"]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
             for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    copied = [out.decode().count('"action":"copied"') for out, _ in outs]
    assert sorted(copied) == [0, 18]  # one did the work, the other found it done
    for path in (home / "projects").rglob("*"):
        if path.is_file() and "memory" not in path.parts:  # project memory is not a session's
            assert (dest / path.relative_to(home)).read_bytes() == path.read_bytes()


@contextlib.contextmanager
def _mounted_tmpfs(where: Path, size: str) -> Iterator[Path]:
    where.mkdir()
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs",
                               str(where)], capture_output=True, check=False)
    except OSError:
        done = None
    if done is None or done.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


@pytest.mark.e2e
def test_a_full_disk_is_one_line_and_every_archived_file_is_whole(cli, demo_home, tmp_path):
    with _mounted_tmpfs(tmp_path / "small", "160k") as small:
        dest = small / "archive"
        result = cli("--claude-home", str(demo_home), "archive", str(dest))
        assert result.code == 1
        errors = [ln for ln in result.stderr.splitlines() if ln.startswith("pysift: error:")]
        assert len(errors) == 1 and "disk is full" in errors[0], result.stderr
        assert "every archived file is whole" in errors[0]
        kept = [p for p in dest.rglob("*") if p.is_file() and ".pysift" not in p.parts]
        assert kept
        for path in kept:
            assert path.read_bytes() == (demo_home / path.relative_to(dest)).read_bytes()
        subprocess.run(["mount", "-o", "remount,size=4m", str(small)], check=True)
        again = cli("--claude-home", str(demo_home), "archive", str(dest), "--format", "json")
        assert again.code == 0 and again.summary()["complete"] is True


@pytest.mark.e2e
def test_an_unwritable_dest_is_one_line(cli, demo_home, tmp_path):
    with _mounted_tmpfs(tmp_path / "ro", "64k") as ro:
        subprocess.run(["mount", "-o", "remount,ro", str(ro)], check=True)
        _one_error(cli("--claude-home", str(demo_home), "archive", str(ro)), 1,
                   "cannot write to the archive DEST")
        _one_error(cli("--claude-home", str(demo_home), "archive", str(ro / "new")), 1,
                   "cannot create the archive DEST")


@pytest.mark.e2e
def test_the_progress_bar_goes_to_a_terminal_stderr_only(demo_home, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "TERM": "xterm"}
    cmd = [sys.executable, "-m", "pysift", "--claude-home", str(demo_home), "archive"]
    piped = subprocess.run([*cmd, str(tmp_path / "a")], capture_output=True, env=env,
                           check=False)
    assert piped.returncode == 0 and piped.stderr == b""
    leader, follower = pty.openpty()
    try:
        done = subprocess.run([*cmd, str(tmp_path / "b")], stdout=subprocess.PIPE,
                              stderr=follower, env=env, check=False, timeout=60)
        os.close(follower)
        drawn = b""
        with contextlib.suppress(OSError):
            while chunk := os.read(leader, 65536):
                drawn += chunk
    finally:
        os.close(leader)
    assert done.returncode == 0
    assert b"archiving" in drawn and b"\x1b[" in drawn
    assert b"\x1b[" not in done.stdout and done.stdout.startswith(b"copied")


def test_a_session_that_binds_a_plan_brings_it(cli, tmp_path):
    home = ClaudeHome(tmp_path / "claude")
    plan = home.plan("amber-falcon", "# ship it\n")
    sid = "11111111-1111-4111-8111-111111111111"
    home.session("/w", sid, user("plan"), attachment("plan_mode", {
        "planFilePath": str(plan), "planExists": True}))
    dest = tmp_path / "arc"
    result = cli("--claude-home", str(home.root), "archive", str(dest))
    assert result.code == 0, result.stderr
    assert (dest / "plans" / "amber-falcon.md").read_text() == "# ship it\n"
    assert _answer(cli, dest, ("plan", f"@{sid}"))[0] == 0


def test_what_the_home_cannot_read_makes_the_run_incomplete(cli, demo_home, tmp_path):
    home = tmp_path / "claude"
    shutil.copytree(demo_home, home)
    # a session moved to a disk that is not mounted: it exists, its bytes cannot be read
    gone = home / "projects" / "-home-ada-src-orbit" / "0badc0de-0000-4000-8000-000000000000.jsonl"
    gone.symlink_to(tmp_path / "unmounted" / "session.jsonl")
    result = cli("--claude-home", str(home), "archive", str(tmp_path / "arc"),
                 "--format", "json")
    assert result.code == 1
    assert result.summary()["complete"] is False
    assert result.summary()["copied"] == 18
    assert "could not be read" in result.stderr.splitlines()[-1]


def test_what_the_home_cannot_read_of_another_session_leaves_a_target_complete(
        cli, demo_copy, tmp_path):
    """`archive DEST @<prefix>` exited 1, `complete:false`, for a dangling link of an
    unrelated session, though the session asked for was archived whole."""
    gone = demo_copy / "projects" / "-home-ada-src-orbit" / "0badc0de-0000-4000-8000-000000000000.jsonl"
    gone.symlink_to(tmp_path / "unmounted" / "session.jsonl")
    for target in (f"@{LONG[:8]}", f"@{EXPLORE}"):
        result = cli("--claude-home", str(demo_copy), "archive", str(tmp_path / "arc"), target,
                     "--format", "json")
        assert (result.code, result.stderr) == (0, ""), target
        summary = result.summary()
        assert (summary["complete"], summary["unreadable"], summary["failed"]) == (True, 0, 0)
    result = cli("--claude-home", str(demo_copy), "archive", str(tmp_path / "arc"), "@0bad")
    assert result.code == 1 and str(gone) in result.stderr  # that one could be the target


def test_a_fifo_in_a_session_dir_is_named_as_no_regular_file_not_retried(cli, demo_copy,
                                                                         tmp_path):
    """It was a file that "changed while read": "run again to retry", which never helps."""
    lanes = demo_copy / "projects" / "-home-ada-src-orbit" / LONG / "subagents"
    fifo = lanes / f"agent-{EXPLORE}.meta.json"
    fifo.unlink()
    os.mkfifo(fifo)
    result = cli("--claude-home", str(demo_copy), "archive", str(tmp_path / "arc"),
                 f"@{LONG}", "--format", "json")
    assert result.code == 1
    summary = result.summary()
    assert (summary["complete"], summary["unreadable"], summary["failed"]) == (False, 1, 1)
    (row,) = [r for r in result.json_rows("file") if r["action"] == "failed"]
    assert (row["source"], row["error"]) == (
        str(fifo), "not a regular file (a FIFO): it has no bytes to copy")
    assert result.stderr.splitlines() == [
        f"pysift: warning: not archived: {fifo}: not a regular file (a FIFO): it has no "
        "bytes to copy",
        "pysift: error: 1 file(s) of the Claude home are not regular files (a FIFO, a socket "
        "or a device; each named above): they have no bytes to copy, and running again does "
        "not change that (what the archive holds is whole)"]
    assert "retry" not in result.stderr


def test_a_session_brings_its_file_history_checkpoints(cli, tmp_path):
    """Claude Code's checkpoints of the files a session's tools edited (`recover
    --list-backups`) go with the session; another session's stay out of a targeted run."""
    from pysift.engines.recover.backups import store_key

    home = ClaudeHome(tmp_path / "claude")
    mine, other = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
    name = f"{store_key('/w/app.py')}@v1"
    for sid in (mine, other):
        home.session("/w", sid, user("fix app.py"))
        store = home.root / "file-history" / sid
        store.mkdir(parents=True)
        (store / name).write_text(f"print('{sid[:2]}')\n")
        os.utime(store / name, (1767261600, 1767261600))
    dest = tmp_path / "arc"
    result = cli("--claude-home", str(home.root), "archive", str(dest), f"@{mine}",
                 "--format", "json")
    assert result.code == 0, result.stderr
    rows = {r["path"]: r for r in result.json_rows("file")}
    checkpoint = f"file-history/{mine}/{name}"
    assert rows[checkpoint]["action"] == "copied" and rows[checkpoint]["session_id"] == mine
    assert not (dest / "file-history" / other).exists()
    cli("--claude-home", str(home.root), "archive", str(dest))
    listed = ("recover", "--list-backups", "--file", "/w/app.py", "--format", "json")
    live, over = _answer(cli, home.root, listed), _answer(cli, dest, listed)
    assert live == over and '"backups":2' in live[1]
    assert (dest / "file-history" / other / name).stat().st_mtime == 1767261600


def test_an_unreadable_source_file_is_one_failed_row_and_the_rest_is_archived(cli, demo_copy,
                                                                             tmp_path,
                                                                             monkeypatch):
    """A mode-000 tool output stopped the run with "cannot write …, check the archive's
    permissions", the header counting 13 files of 18, and its row said the path twice."""
    from conftest import lock

    locked = (demo_copy / "projects" / "-home-ada-src-orbit" / LONG / "tool-results"
              / "b7x2k9qpm.txt")
    lock(monkeypatch, locked)
    result = cli("--claude-home", str(demo_copy), "archive", str(tmp_path / "arc"),
                 "--format", "json")
    assert result.code == 1
    assert result.header()["files_in_scope"] == 18
    summary = result.summary()
    assert (summary["files"], summary["copied"], summary["failed"]) == (18, 17, 1)
    assert (summary["complete"], summary["unreadable"]) == (False, 1)
    (row,) = [r for r in result.json_rows("file") if r["action"] == "failed"]
    assert (row["source"], row["error"]) == (str(locked), "cannot be read: Permission denied")
    assert result.stderr.splitlines() == [
        f"pysift: warning: not archived: {locked}: cannot be read: Permission denied",
        "pysift: error: 1 dir(s) or file(s) of the Claude home could not be read (each named "
        "above): what they hold is not archived; fix their permissions and run again"]


def test_an_unreadable_session_dir_is_said_and_counted_once(cli, demo_copy, tmp_path,
                                                            monkeypatch):
    """The scope's walk and the archive's walk each warned about it: `unreadable:2`."""
    denied = demo_copy / "projects" / "-home-ada-src-orbit" / LONG / "subagents"
    deny_listing(monkeypatch, denied)
    result = cli("--claude-home", str(demo_copy), "archive", str(tmp_path / "arc"),
                 "--format", "json")
    assert result.code == 1
    assert result.summary()["unreadable"] == 1 and result.summary()["complete"] is False
    warned = [ln for ln in result.stderr.splitlines() if str(denied) in ln]
    assert len(warned) == 1 and "Permission denied" in warned[0]
    assert result.stderr.splitlines()[-1].startswith("pysift: error: 1 dir(s) or file(s)")


def test_a_plan_written_after_the_archive_answers_over_it(cli, demo_copy, tmp_path):
    """The plan landed after the first run: `plan @S` said [exists] over the home and
    [missing] over the archive, every later run `complete`."""
    plan = demo_copy / "plans" / f"{PLAN}.md"
    written = plan.read_bytes()
    plan.unlink()
    dest = tmp_path / "arc"
    first = cli("--claude-home", str(demo_copy), "archive", str(dest))
    assert first.code == 0
    plan.write_bytes(written)
    again = cli("--claude-home", str(demo_copy), "archive", str(dest), "--format", "json")
    assert again.code == 0
    assert [r["path"] for r in again.json_rows("file") if r["action"] == "copied"] == [
        f"plans/{PLAN}.md"]
    assert "plan file(s) bound to the sessions in scope do not exist" in first.stderr
    over = _answer(cli, dest, ("plan", f"@{LONG}"))[1]
    assert over == _answer(cli, demo_copy, ("plan", f"@{LONG}"))[1]
    plan.unlink()  # deleted after it was archived: a note, never a failure to retry
    last = cli("--claude-home", str(demo_copy), "archive", str(dest))
    assert last.code == 0 and "earlier copy of 1 under plans/" in last.stderr


def _plan_json(cli, home: Path, sid: str) -> dict:
    result = cli("--claude-home", str(home), "plan", f"@{sid}", "--format", "json")
    assert result.code == 0, result.stderr
    (row,) = [r for r in result.json_rows() if r.get("kind") not in ("header", "summary")]
    return row


def test_a_plan_kept_outside_a_plans_dir_answers_over_the_archive_once_it_is_gone(
        cli, tmp_path):
    """A plan bound through ``plan_mode`` in a dir not named ``plans`` (a project's own
    ``plansDirectory``) is archived as ``DEST/plans/<name>``; once the original is deleted
    the live home calls it missing, and the archive answers with its copy (it called it
    missing too: only a ``plans/`` parent was looked for in the home)."""
    notes = tmp_path / "proj" / "notes"
    notes.mkdir(parents=True)
    original = notes / "amber-falcon.md"
    original.write_text("# ship it\n")
    home = ClaudeHome(tmp_path / "claude")
    sid = "11111111-1111-4111-8111-111111111111"
    home.session(str(tmp_path / "proj"), sid, user("plan"), attachment("plan_mode", {
        "planFilePath": str(original), "planExists": True}))
    dest = tmp_path / "arc"
    assert cli("--claude-home", str(home.root), "archive", str(dest)).code == 0
    assert (dest / "plans" / "amber-falcon.md").read_text() == "# ship it\n"
    original.unlink()
    assert _plan_json(cli, home.root, sid)["plan_exists"] is False
    over = _plan_json(cli, dest, sid)
    assert (over["plan_file"], over["plan_exists"]) == (
        str(dest / "plans" / "amber-falcon.md"), True)
    again = cli("--claude-home", str(dest), "plan", f"@{sid}")
    assert "this archive holds the copy" in again.stderr


def test_a_slug_plan_of_a_project_plans_directory_answers_over_the_archive_once_gone(
        cli, tmp_path):
    """The slug law's file under a project's ``plansDirectory`` (its settings still on
    disk) is archived as ``DEST/plans/<slug>.md``; deleted, the archive still answers."""
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text('{"plansDirectory": "docs/notes"}')
    (project / "docs" / "notes").mkdir(parents=True)
    original = project / "docs" / "notes" / "calm-river.md"
    original.write_text("# the plan\n")
    home = ClaudeHome(tmp_path / "claude")
    sid = "22222222-2222-4222-8222-222222222222"
    s = Session(sid, cwd=str(project), slug="calm-river")
    s.add(user("plan it"))
    home.session(str(project), sid, s)
    assert _plan_json(cli, home.root, sid)["plan_file"] == str(original)
    dest = tmp_path / "arc"
    assert cli("--claude-home", str(home.root), "archive", str(dest)).code == 0
    original.unlink()
    assert _plan_json(cli, home.root, sid)["plan_exists"] is False
    over = _plan_json(cli, dest, sid)
    assert (over["plan_file"], over["plan_exists"]) == (
        str(dest / "plans" / "calm-river.md"), True)
    # the binding stored is the law's file: a run from the archive keeps the copy
    second = tmp_path / "arc2"
    assert cli("--claude-home", str(dest), "archive", str(second)).code == 0
    assert (second / "plans" / "calm-river.md").read_text() == "# the plan\n"


@pytest.mark.parametrize("dir_name", ["notes", "plans"])
def test_two_bound_plans_of_one_name_are_never_answered_by_the_other_s_copy(cli, tmp_path,
                                                                           dir_name):
    """``DEST/plans/<name>`` holds the first of two bound plans sharing a name; with both
    originals gone, the session whose plan it is gets it, the other is missing with a note
    (never the other's text). A ``plans/`` parent too: the home's ``plans/`` relocation (a
    home copied elsewhere) answered both sessions with the one copy."""
    home = ClaudeHome(tmp_path / "claude")
    sids = ("11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222")
    originals = []
    for n, sid in enumerate(sids):
        where = tmp_path / f"proj{n}" / dir_name
        where.mkdir(parents=True)
        (where / "twin-name.md").write_text(f"# plan {n}\n")
        originals.append(where / "twin-name.md")
        home.session(str(tmp_path / f"proj{n}"), sid, user("plan"), attachment(
            "plan_mode", {"planFilePath": str(where / "twin-name.md"), "planExists": True}))
    dest = tmp_path / "arc"
    made = cli("--claude-home", str(home.root), "archive", str(dest))
    assert "share the name plans/twin-name.md" in made.stderr
    kept = int((dest / "plans" / "twin-name.md").read_text().split()[-1])
    for original in originals:
        original.unlink()
    for n, sid in enumerate(sids):
        row = _plan_json(cli, dest, sid)
        said = cli("--claude-home", str(dest), "plan", f"@{sid}").stderr
        if n == kept:
            assert (row["plan_file"], row["plan_exists"]) == (
                str(dest / "plans" / "twin-name.md"), True)
        else:
            assert (row["plan_file"], row["plan_exists"]) == (str(originals[n]), False)
            assert f"is not its copy: it was copied from {originals[kept]}" in said, said


def test_a_later_targeted_run_that_replaces_a_plan_copy_moves_the_answer_with_it(cli,
                                                                                tmp_path):
    """Two targeted runs archive two sessions whose plans share a name: the second run
    preserves the first copy and writes its own; over the archive the first session's
    plan (gone) is no longer answered by ``plans/<name>``, which is the second's now."""
    home = ClaudeHome(tmp_path / "claude")
    sids = ("11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222")
    originals = []
    for n, sid in enumerate(sids):
        where = tmp_path / f"proj{n}" / "notes"
        where.mkdir(parents=True)
        (where / "twin-name.md").write_text(f"# plan {n} of the pair\n")
        originals.append(where / "twin-name.md")
        home.session(str(tmp_path / f"proj{n}"), sid, user("plan"), attachment(
            "plan_mode", {"planFilePath": str(where / "twin-name.md"), "planExists": True}))
    dest = tmp_path / "arc"
    for sid in sids:
        assert cli("--claude-home", str(home.root), "archive", str(dest), f"@{sid}").code == 0
    assert (dest / "plans" / "twin-name.md").read_text() == "# plan 1 of the pair\n"
    for original in originals:
        original.unlink()
    assert _plan_json(cli, dest, sids[0])["plan_exists"] is False
    assert _plan_json(cli, dest, sids[1])["plan_exists"] is True


@pytest.mark.parametrize("settings_gone", [False, True])
def test_a_slug_plan_is_never_answered_by_a_same_named_copy_of_another_dir(cli, tmp_path,
                                                                         settings_gone):
    """Two sessions with one slug: one binds it under its project's ``plansDirectory``, the
    other under the home's ``plans/``; ``DEST/plans/<slug>.md`` keeps one copy. Both
    originals gone, over the archive the slug law lands on that copy for the session whose
    plans dir is the home's (and for the other too once its project's settings are gone):
    it answered with the copy unchecked, so one session was shown the other's plan. Each
    now gets its own copy or is missing with a note."""
    home = ClaudeHome(tmp_path / "claude")
    sids = ("11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222")
    project = tmp_path / "proj0"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text('{"plansDirectory": "notes"}')
    (project / "notes").mkdir()
    originals = [project / "notes" / "twin-slug.md", home.plan("twin-slug", "# plan 1\n")]
    originals[0].write_text("# plan 0\n")
    for n, sid in enumerate(sids):
        s = Session(sid, cwd=str(tmp_path / f"proj{n}"), slug="twin-slug")
        s.add(user("plan it"))
        home.session(str(tmp_path / f"proj{n}"), sid, s)
    assert [_plan_json(cli, home.root, sid)["plan_file"] for sid in sids] == [
        str(p) for p in originals]
    dest = tmp_path / "arc"
    made = cli("--claude-home", str(home.root), "archive", str(dest))
    assert made.code == 0 and "share the name plans/twin-slug.md" in made.stderr
    copy = dest / "plans" / "twin-slug.md"
    kept = int(copy.read_text().split()[-1])
    for original in originals:
        original.unlink()
    if settings_gone:
        shutil.rmtree(project / ".claude")
    for n, sid in enumerate(sids):
        row = _plan_json(cli, dest, sid)
        said = cli("--claude-home", str(dest), "plan", f"@{sid}").stderr
        if n == kept:
            assert (row["plan_file"], row["plan_exists"]) == (str(copy), True), said
        else:
            assert (row["plan_file"], row["plan_exists"]) == (str(originals[n]), False), said
            assert f"it was copied from {originals[kept]}" in said, said
        restored = cli("--claude-home", str(dest), "recover", f"@{sid}", "--file", "@plan")
        assert f"# plan {1 - n}" not in restored.stdout


def test_a_slug_plan_of_one_home_is_never_answered_by_another_home_s_copy(cli, tmp_path):
    """Two homes archived into one DEST, each with a session whose slug names
    ``plans/twin-slug.md``: the second run keeps its copy; over the archive the first
    home's session was answered with the second home's plan."""
    sids = ("11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222")
    dest = tmp_path / "arc"
    originals = []
    for n, sid in enumerate(sids):
        home = ClaudeHome(tmp_path / f"claude{n}")
        originals.append(home.plan("twin-slug", f"# home {n}\n"))
        s = Session(sid, cwd=str(tmp_path / "proj"), slug="twin-slug")
        s.add(user("plan it"))
        home.session(str(tmp_path / "proj"), sid, s)
        assert cli("--claude-home", str(home.root), "archive", str(dest)).code == 0
    copy = dest / "plans" / "twin-slug.md"
    assert copy.read_text() == "# home 1\n"
    first = _plan_json(cli, dest, sids[0])
    said = cli("--claude-home", str(dest), "plan", f"@{sids[0]}").stderr
    assert (first["plan_file"], first["plan_exists"]) == (str(originals[0]), True), said
    assert "is not this session's plan" in said
    originals[0].unlink()
    gone = _plan_json(cli, dest, sids[0])
    assert (gone["plan_file"], gone["plan_exists"]) == (str(originals[0]), False)
    second = _plan_json(cli, dest, sids[1])
    assert (second["plan_file"], second["plan_exists"]) == (str(copy), True)


def test_a_plan_mode_plan_of_one_home_is_never_answered_by_another_home_s_copy(cli, tmp_path):
    """The same across two homes for ``plan_mode`` paths: each names its own home's
    ``plans/twin-name.md``; the second run keeps its copy; with the first home's file gone,
    the home-relocation took the copy as "the same name in a home archived from"."""
    sids = ("11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222")
    dest = tmp_path / "arc"
    originals = []
    for n, sid in enumerate(sids):
        home = ClaudeHome(tmp_path / f"claude{n}")
        originals.append(home.plan("twin-name", f"# home {n}\n"))
        home.session(str(tmp_path / "proj"), sid, user("plan"), attachment(
            "plan_mode", {"planFilePath": str(originals[n]), "planExists": True}))
        assert cli("--claude-home", str(home.root), "archive", str(dest)).code == 0
    copy = dest / "plans" / "twin-name.md"
    assert copy.read_text() == "# home 1\n"
    for original in originals:
        original.unlink()
    first = _plan_json(cli, dest, sids[0])
    said = cli("--claude-home", str(dest), "plan", f"@{sids[0]}").stderr
    assert (first["plan_file"], first["plan_exists"]) == (str(originals[0]), False), said
    assert f"it was copied from {originals[1]}" in said
    second = _plan_json(cli, dest, sids[1])
    assert (second["plan_file"], second["plan_exists"]) == (str(copy), True)
