"""Claude-home resolution, cwd encoding and transcript discovery (SPEC §1, §2)."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pysift.disk.layout import (
    MAX_SANITIZED_LENGTH,
    Transcript,
    Unreadable,
    child_path,
    encode_cwd,
    find_project_dir,
    is_sidecar_file,
    iter_project_dirs,
    orphan_session_paths,
    persisted_output_count,
    project_transcripts,
    read_first_cwd,
    read_meta,
    resolve_home,
    sidecar_of,
    sidecar_path,
    subagent_transcripts,
    top_level_sessions,
    transcript_from_path,
)
from pysift.errors import UsageError

SESSION = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
USER_HOME = Path("/home/ada")


def write_jsonl(path: Path, *records: dict[str, object]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return path


def first_record(cwd: str) -> dict[str, object]:
    return {
        "type": "user",
        "cwd": cwd,
        "sessionId": SESSION,
        "message": {"role": "user", "content": "hi"},
    }


# -- resolve_home ---------------------------------------------------------------------------------


def test_home_flag_wins_over_env() -> None:
    env = {"CLAUDE_CONFIG_DIR": "/cfg"}
    assert resolve_home("/flag", env, USER_HOME) == Path("/flag")


def test_home_env_wins_over_default() -> None:
    assert resolve_home(None, {"CLAUDE_CONFIG_DIR": "/cfg"}, USER_HOME) == Path("/cfg")


def test_home_default_is_dot_claude_under_user_home() -> None:
    assert resolve_home(None, {}, USER_HOME) == USER_HOME / ".claude"


@pytest.mark.parametrize("value", ["", "   "])
def test_empty_config_dir_counts_as_unset(value: str) -> None:
    assert resolve_home(None, {"CLAUDE_CONFIG_DIR": value}, USER_HOME) == USER_HOME / ".claude"


def test_home_expands_tilde_against_the_given_user_home() -> None:
    assert resolve_home("~/alt", {}, USER_HOME) == USER_HOME / "alt"
    assert resolve_home(None, {"CLAUDE_CONFIG_DIR": "~"}, USER_HOME) == USER_HOME
    assert resolve_home(None, {"CLAUDE_CONFIG_DIR": "~/cfg"}, USER_HOME) == USER_HOME / "cfg"


def test_empty_home_flag_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="--claude-home is empty"):
        resolve_home("", {}, USER_HOME)


# -- encode_cwd -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cwd", "encoded"),
    [
        (
            "/Users/testuser/Projects/widget_app_prototype",
            "-Users-testuser-Projects-widget-app-prototype",
        ),
        (
            "/Users/testuser/Projects/Acme/widget_factory-worktrees/main",
            "-Users-testuser-Projects-Acme-widget-factory-worktrees-main",
        ),
        ("/a/.claude/b", "-a--claude-b"),
        (
            "/Users/testuser/Projects/Acme/widget_factory/.cache-worktrees/sunny-meadow",
            "-Users-testuser-Projects-Acme-widget-factory--cache-worktrees-sunny-meadow",
        ),
        ("C:\\Users\\x", "C--Users-x"),
        ("\\\\server\\share", "--server-share"),
        ("/", "-"),
    ],
)
def test_encode_cwd_worked_examples(cwd: str, encoded: str) -> None:
    assert encode_cwd(cwd) == encoded


def test_encode_cwd_counts_utf16_units() -> None:
    assert encode_cwd("/tmp/é") == "-tmp--"  # one BMP unit
    assert encode_cwd("/tmp/😀") == "-tmp---"  # a surrogate pair: two dashes


def test_encode_cwd_nfd_and_nfc_converge() -> None:
    nfc = "/Users/José/src"
    nfd = unicodedata.normalize("NFD", nfc)
    assert nfd != nfc
    assert encode_cwd(nfd) == encode_cwd(nfc) == "-Users-Jos--src"


def test_encode_cwd_accepts_a_path() -> None:
    assert encode_cwd(Path("/a/b_c")) == "-a-b-c"


@given(st.text())
def test_prop_encoding_alphabet_is_alnum_and_dash(cwd: str) -> None:
    encoded = encode_cwd(cwd)
    assert all((c.isascii() and c.isalnum()) or c == "-" for c in encoded)


@given(st.text())
def test_prop_encoding_is_idempotent(cwd: str) -> None:
    once = encode_cwd(cwd)
    assert encode_cwd(once) == once


@given(st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E)))
def test_prop_ascii_keeps_its_length_and_never_collapses(cwd: str) -> None:
    encoded = encode_cwd(cwd)
    assert len(encoded) == len(cwd)
    for original, out in zip(cwd, encoded, strict=True):
        assert out == (original if original.isalnum() else "-")


@given(st.lists(st.sampled_from(["/", ".", "_", " ", "-"]), min_size=1))
def test_prop_separators_each_map_to_one_dash(chars: list[str]) -> None:
    assert encode_cwd("".join(chars)) == "-" * len(chars)


# -- find_project_dir -----------------------------------------------------------------------------


def test_find_project_dir_exact(tmp_path: Path) -> None:
    (tmp_path / "-w-proj").mkdir()
    assert find_project_dir(tmp_path, "/w/proj", unread=Unreadable()) == tmp_path / "-w-proj"
    assert find_project_dir(tmp_path, "/w/other", unread=Unreadable()) is None


def test_find_project_dir_long_path_prefix_scan(tmp_path: Path) -> None:
    cwd = "/w/" + "deep/" * 50 + "proj"
    encoded = encode_cwd(cwd)
    assert len(encoded) > MAX_SANITIZED_LENGTH
    stored = tmp_path / (encoded[:MAX_SANITIZED_LENGTH] + "-1a2b3c")
    stored.mkdir()
    assert find_project_dir(tmp_path, cwd, unread=Unreadable()) == stored


def test_find_project_dir_long_path_collision_picks_recorded_cwd(tmp_path: Path) -> None:
    base = "/w/" + "deep/" * 50
    mine, theirs = base + "mine", base + "theirs"
    prefix = encode_cwd(mine)[:MAX_SANITIZED_LENGTH]
    assert encode_cwd(theirs)[:MAX_SANITIZED_LENGTH] == prefix
    write_jsonl(tmp_path / (prefix + "-aaaa") / f"{SESSION}.jsonl", first_record(theirs))
    write_jsonl(tmp_path / (prefix + "-bbbb") / f"{SESSION}.jsonl", first_record(mine))
    assert find_project_dir(tmp_path, mine, unread=Unreadable()) == tmp_path / (prefix + "-bbbb")


def test_short_path_never_prefix_scans(tmp_path: Path) -> None:
    (tmp_path / "-w-proj-1a2b").mkdir()
    assert find_project_dir(tmp_path, "/w/proj", unread=Unreadable()) is None


# -- enumeration ----------------------------------------------------------------------------------


def test_iter_project_dirs_skips_files_and_tolerates_a_missing_root(tmp_path: Path) -> None:
    assert list(iter_project_dirs(tmp_path / "absent", unread=Unreadable())) == []
    (tmp_path / "-b").mkdir()
    (tmp_path / "-a").mkdir()
    (tmp_path / ".DS_Store").write_text("x")
    assert list(iter_project_dirs(tmp_path, unread=Unreadable())) == [tmp_path / "-a",
                                                                      tmp_path / "-b"]


def test_top_level_sessions_is_non_recursive(tmp_path: Path) -> None:
    project = tmp_path / "-w"
    main = write_jsonl(project / f"{SESSION}.jsonl", first_record("/w"))
    write_jsonl(project / SESSION / "subagents" / "agent-a1.jsonl", first_record("/w"))
    (project / "memory").mkdir()
    (project / "notes.txt").write_text("x")
    assert top_level_sessions(project, unread=Unreadable()) == [main]
    assert top_level_sessions(tmp_path / "absent", unread=Unreadable()) == []


def test_subagent_transcripts_covers_both_shapes_and_skips_journal_and_meta(
    tmp_path: Path,
) -> None:
    project = tmp_path / "-w"
    main = write_jsonl(project / f"{SESSION}.jsonl", first_record("/w"))
    subagents = project / SESSION / "subagents"
    builtin = write_jsonl(subagents / "agent-a4ca7529859c158c2.jsonl", first_record("/w"))
    (subagents / "agent-a4ca7529859c158c2.meta.json").write_text('{"agentType":"Explore"}')
    teammate = write_jsonl(subagents / "agent-aVSRepro-68a2a1661c9390c1.jsonl", first_record("/w"))
    workflow = write_jsonl(
        subagents / "workflows" / "wf_9" / "agent-b00c.jsonl", first_record("/w")
    )
    write_jsonl(subagents / "workflows" / "wf_9" / "journal.jsonl", {"agentId": "b00c"})
    (project / SESSION / "elicitations.jsonl").write_text('{"csift":"x"}\n')

    found = subagent_transcripts(main, unread=Unreadable())

    assert [t.path for t in found] == [builtin, teammate, workflow]
    assert [t.session_id for t in found] == [
        "a4ca7529859c158c2",
        "aVSRepro-68a2a1661c9390c1",
        "b00c",
    ]
    assert [t.kind for t in found] == ["builtin-task", "builtin-task", "workflow"]
    assert all(t.is_subagent and t.parent_session_id == SESSION for t in found)
    assert all(t.project_dir == project for t in found)


def test_subagent_transcripts_of_a_session_without_a_sidecar_dir(tmp_path: Path) -> None:
    main = write_jsonl(tmp_path / "-w" / f"{SESSION}.jsonl", first_record("/w"))
    assert subagent_transcripts(main, unread=Unreadable()) == []


def test_orphan_session_paths_are_sidecar_dirs_without_a_transcript(tmp_path: Path) -> None:
    project = tmp_path / "-w"
    other = "22222222-2222-4222-8222-222222222222"
    write_jsonl(project / f"{SESSION}.jsonl", first_record("/w"))
    (project / SESSION / "subagents").mkdir(parents=True)
    (project / other / "subagents").mkdir(parents=True)
    (project / "memory").mkdir()
    assert orphan_session_paths(project, unread=Unreadable()) == [project / f"{other}.jsonl"]
    assert orphan_session_paths(tmp_path / "absent", unread=Unreadable()) == []


def _every_shape(project: Path) -> None:
    """A project dir holding each on-disk shape a whole-home scope must find."""
    other = "22222222-2222-4222-8222-222222222222"
    write_jsonl(project / f"{SESSION}.jsonl", first_record("/w"))
    subagents = project / SESSION / "subagents"
    write_jsonl(subagents / "agent-a1.jsonl", first_record("/w"))
    (subagents / "agent-a1.meta.json").write_text("{}")
    write_jsonl(subagents / "workflows" / "wf_1" / "agent-b2.jsonl", first_record("/w"))
    write_jsonl(subagents / "workflows" / "wf_1" / "journal.jsonl", {"agentId": "b2"})
    write_jsonl(project / other / "subagents" / "agent-c3.jsonl", first_record("/w"))  # orphan
    write_jsonl(project / "agent-d4.jsonl", {**first_record("/w"), "sessionId": SESSION})
    write_jsonl(project / "33333333-3333-4333-8333-333333333333.jsonl", first_record("/w"))
    (project / "memory").mkdir()
    (project / "notes.txt").write_text("x")


@pytest.mark.parametrize("subagents", [True, False])
def test_project_transcripts_is_the_per_session_assembly(tmp_path: Path,
                                                         subagents: bool) -> None:
    """One listing of the dir finds what the per-session calls find, shape for shape."""
    project = tmp_path / "-w"
    _every_shape(project)
    expected = []
    for session in top_level_sessions(project, unread=Unreadable()):
        if session.name.startswith("agent-"):
            if subagents:
                expected.append(transcript_from_path(session))
            continue
        expected.append(transcript_from_path(session))
        if subagents:
            expected.extend(subagent_transcripts(session, unread=Unreadable()))
    if subagents:
        for orphan in orphan_session_paths(project, unread=Unreadable()):
            expected.extend(subagent_transcripts(orphan, unread=Unreadable()))
    found = project_transcripts(project, subagents=subagents, unread=Unreadable())
    assert sorted(found, key=lambda t: os.fspath(t.path)) == \
        sorted(expected, key=lambda t: os.fspath(t.path))
    assert len(found) == (6 if subagents else 2)
    assert project_transcripts(tmp_path / "absent", subagents=subagents,
                               unread=Unreadable()) == []


def test_persisted_outputs_are_counted_once_per_session_dir(tmp_path: Path) -> None:
    """A session and its subagents share ``<uuid>/tool-results/``: two outputs there are
    two, however many transcripts of the session are in scope; a sub-dir is no output."""
    project = tmp_path / "-w"
    bare = "11111111-1111-4111-8111-111111111111"
    write_jsonl(project / f"{bare}.jsonl", first_record("/w"))
    write_jsonl(project / f"{SESSION}.jsonl", first_record("/w"))
    for agent in ("a1", "a2"):
        write_jsonl(project / SESSION / "subagents" / f"agent-{agent}.jsonl", first_record("/w"))
    results = project / SESSION / "tool-results"
    results.mkdir()
    (results / "toolu_1.txt").write_text("out")
    (results / "toolu_2.txt").write_text("out")
    (results / "nested").mkdir()
    found = project_transcripts(project, subagents=True, unread=Unreadable())
    assert len(found) == 4
    assert persisted_output_count(found) == 2
    assert persisted_output_count([t for t in found if t.is_subagent]) == 2
    assert persisted_output_count([t for t in found if t.session_id == bare]) == 0
    assert persisted_output_count([]) == 0


def test_a_listed_session_without_its_dir_has_no_sidecar_to_probe(tmp_path: Path) -> None:
    """The project listing says which sessions have a ``<uuid>/`` dir; only those (and
    sessions nobody listed) are probed for an elicitation sidecar."""
    project = tmp_path / "-w"
    bare = "11111111-1111-4111-8111-111111111111"
    write_jsonl(project / f"{bare}.jsonl", first_record("/w"))
    write_jsonl(project / f"{SESSION}.jsonl", first_record("/w"))
    (project / SESSION).mkdir()
    found = project_transcripts(project, subagents=True, unread=Unreadable())
    by_id = {t.session_id: t for t in found}
    assert by_id[bare].has_session_dir is False
    assert sidecar_of(by_id[bare]) is None
    assert sidecar_of(by_id[SESSION]) == sidecar_path(project / f"{SESSION}.jsonl")
    unlisted = transcript_from_path(project / f"{bare}.jsonl")
    assert unlisted.has_session_dir is None
    assert sidecar_of(unlisted) == sidecar_path(project / f"{bare}.jsonl")
    assert unlisted == by_id[bare]  # the listing's knowledge is no part of identity


def test_transcript_from_path_classifies_by_location(tmp_path: Path) -> None:
    project = tmp_path / "-w"
    top = transcript_from_path(project / f"{SESSION}.jsonl")
    assert top == Transcript(project / f"{SESSION}.jsonl", SESSION, False, SESSION, None, project)
    sub = transcript_from_path(project / SESSION / "subagents" / "agent-abc.jsonl")
    assert (sub.session_id, sub.parent_session_id, sub.kind, sub.project_dir) == (
        "abc",
        SESSION,
        "builtin-task",
        project,
    )
    wf = transcript_from_path(
        project / SESSION / "subagents" / "workflows" / "wf_1" / "agent-d.jsonl"
    )
    assert (wf.session_id, wf.parent_session_id, wf.kind, wf.project_dir) == (
        "d",
        SESSION,
        "workflow",
        project,
    )
    stray = transcript_from_path(tmp_path / "agent-abc.jsonl")  # old layout: beside sessions
    assert stray.is_subagent and stray.kind == "legacy-sidechain"
    assert stray.session_id == "abc"


def test_a_legacy_agent_names_a_parent_that_resolves(tmp_path: Path) -> None:
    """Its parent is the sessionId its records carry, read off the raw head when no line
    parses (a BOM, a torn write); a file naming no session is its own root, never the
    unresolvable ``agent-<id>`` stem."""
    record = ('{"parentUuid":null,"isSidechain":true,"cwd":"/w","sessionId":"%s",'
              '"type":"user","message":{"role":"user","content":"task"}}' % SESSION)
    cases = {"agent-bom.jsonl": b"\xef\xbb\xbf" + record.encode() + b"\n",
             "agent-torn.jsonl": record.encode()[:105],
             "agent-cut.jsonl": record.encode()[:40],
             "agent-fine.jsonl": record.encode() + b"\n"}
    parents = {}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        found = transcript_from_path(tmp_path / name)
        parents[found.session_id] = found.parent_session_id
    assert parents == {"bom": SESSION, "torn": SESSION, "cut": "cut", "fine": SESSION}

def test_id_trio() -> None:
    project = Path("/p/-w")
    top = transcript_from_path(project / f"{SESSION}.jsonl")
    sub = transcript_from_path(project / SESSION / "subagents" / "agent-abc.jsonl")
    assert top.id_trio() == {
        "session_id": SESSION,
        "is_subagent": False,
        "parent_session_id": SESSION,
    }
    assert sub.id_trio() == {"session_id": "abc", "is_subagent": True, "parent_session_id": SESSION}


def test_read_meta_is_tolerant(tmp_path: Path) -> None:
    sub_path = write_jsonl(tmp_path / "-w" / SESSION / "subagents" / "agent-abc.jsonl", {})
    sub = transcript_from_path(sub_path)
    assert read_meta(sub) == {}
    assert sub.meta_path is not None
    sub.meta_path.write_text("[1, 2]")
    assert read_meta(sub) == {}
    sub.meta_path.write_text("{not json")
    assert read_meta(sub) == {}
    sub.meta_path.write_text('{"toolUseId": "toolu_1"}')
    assert read_meta(sub) == {"toolUseId": "toolu_1"}


# -- sidecar --------------------------------------------------------------------------------------


def test_sidecar_path_sits_in_the_session_dir() -> None:
    main = Path("/p/-w") / f"{SESSION}.jsonl"
    assert sidecar_path(main) == Path("/p/-w") / SESSION / "elicitations.jsonl"


def test_sidecar_detection_by_name_and_by_content(tmp_path: Path) -> None:
    named = tmp_path / "elicitations.jsonl"
    named.write_text("")
    assert is_sidecar_file(named)
    sniffed = write_jsonl(
        tmp_path / "copy.jsonl",
        {"csift": "elicitation-marker-v1"},
        {"csift": "elicitation-marker-v1", "csiftPhase": "resolved"},
    )
    assert is_sidecar_file(sniffed)
    mixed = write_jsonl(tmp_path / "mixed.jsonl", {"csift": "x"}, first_record("/w"))
    assert not is_sidecar_file(mixed)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert not is_sidecar_file(empty)
    transcript = write_jsonl(tmp_path / f"{SESSION}.jsonl", first_record("/w"))
    assert not is_sidecar_file(transcript)


def test_the_sidecar_sniff_reads_no_further_than_a_transcripts_first_record(
        tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A `*.jsonl` target is sniffed before any command runs on it; a search of the whole
    file for the marker read all 225 MB of a big session first (~170 ms)."""
    import pysift.disk.layout as layout_mod

    path = write_jsonl(tmp_path / f"{SESSION}.jsonl", first_record("/w"), {"csift": "x"})

    class Guarded(bytes):
        def find(self, *args, **kwargs):  # type: ignore[no-untyped-def, override]
            if len(args) < 2:
                raise AssertionError("a whole-buffer search")
            return super().find(*args, **kwargs)

    monkeypatch.setattr(layout_mod, "open_buffer", lambda p: Guarded(path.read_bytes()))
    assert not is_sidecar_file(path)


def test_read_first_cwd_survives_a_huge_first_line(tmp_path: Path) -> None:
    record = {"type": "user", "cwd": "/w/proj", "blob": "x" * 200_000}
    path = write_jsonl(tmp_path / "big.jsonl", record)
    assert read_first_cwd(path) == "/w/proj"
    assert read_first_cwd(tmp_path / "absent.jsonl") is None


@pytest.mark.real
def test_real_corpus_subagent_ids_match_their_records(real_home: Path) -> None:
    """The id pysift derives from a file name equals the ``agentId`` its records carry."""
    seen = 0
    for project in iter_project_dirs(real_home / "projects", unread=Unreadable()):
        for session in top_level_sessions(project, unread=Unreadable()):
            for sub in subagent_transcripts(session, unread=Unreadable()):
                head = sub.path.read_bytes().split(b"\n", 1)[0]
                try:
                    agent_id = orjson.loads(head).get("agentId")
                except orjson.JSONDecodeError:
                    continue
                if isinstance(agent_id, str):
                    assert agent_id == sub.session_id, os.fspath(sub.path)
                    seen += 1
    if seen == 0:
        pytest.skip("no subagent transcript in the real corpus")


def test_only_what_exists_and_cannot_be_read_is_noted_unreadable(tmp_path: Path) -> None:
    import errno

    unread = Unreadable()
    unread.note(tmp_path / "gone", FileNotFoundError(errno.ENOENT, "No such file"))
    unread.note(tmp_path / "f.jsonl" / "x", NotADirectoryError(errno.ENOTDIR, "Not a dir"))
    unread.note(tmp_path / "locked", PermissionError(errno.EACCES, "Permission denied"))
    assert unread.items() == [(str(tmp_path / "locked"), "Permission denied")]
    assert len(Unreadable()) == 0  # each walk has its own: nothing is left over to drain


def test_a_dangling_transcript_link_is_noted_by_the_walk_that_met_it(tmp_path: Path) -> None:
    project = tmp_path / "-w"
    project.mkdir()
    (project / f"{SESSION}.jsonl").symlink_to(tmp_path / "unmounted" / "x.jsonl")
    unread = Unreadable()
    assert top_level_sessions(project, unread=unread) == []
    [(path, reason)] = unread.items()
    assert path == str(project / f"{SESSION}.jsonl") and "does not exist" in reason


def test_long_path_collision_reads_past_records_without_a_cwd(tmp_path: Path) -> None:
    """A session opening with a queue operation (no cwd) made the collision check fail,
    and the lookup fell back to the first dir by name: the other project's sessions."""
    import unicodedata

    base = "/w/" + "deep/" * 50
    mine, theirs = base + "é2", base + "é1"
    prefix = encode_cwd(mine)[:MAX_SANITIZED_LENGTH]
    queued = {"type": "queue-operation", "operation": "enqueue", "content": "hi"}
    write_jsonl(tmp_path / (prefix + "-aaaa") / f"{SESSION}.jsonl", queued, first_record(theirs))
    write_jsonl(tmp_path / (prefix + "-bbbb") / f"{SESSION}.jsonl", queued, first_record(mine))
    assert find_project_dir(tmp_path, mine, unread=Unreadable()) == tmp_path / (prefix + "-bbbb")
    # the shell may spell the cwd decomposed (macOS): it is the same directory
    assert find_project_dir(tmp_path, unicodedata.normalize("NFD", mine), unread=Unreadable()) == \
        tmp_path / (prefix + "-bbbb")
    # a third path sharing the prefix that no dir records gets no guess
    assert find_project_dir(tmp_path, base + "e3", unread=Unreadable()) is None



def test_read_meta_checked_says_why_a_companion_gave_nothing(tmp_path: Path) -> None:
    from pysift.disk.layout import read_meta_checked, transcript_from_path

    sub = tmp_path / "p" / "11111111-1111-4111-8111-111111111111" / "subagents"
    sub.mkdir(parents=True)
    lane = sub / "agent-a1.jsonl"
    lane.write_text("{}\n")
    t = transcript_from_path(lane)
    assert read_meta_checked(t) == ({}, None)  # none: older builds wrote none
    meta = sub / "agent-a1.meta.json"
    meta.write_text('{"agentType": "Explore"}')
    assert read_meta_checked(t) == ({"agentType": "Explore"}, None)
    meta.write_text("{nope")
    assert read_meta_checked(t) == ({}, "its meta.json is not JSON")
    meta.write_text("[1]")
    assert read_meta_checked(t) == ({}, "its meta.json is not a JSON object")
    meta.unlink()
    meta.mkdir()
    assert read_meta_checked(t)[1].startswith("its meta.json cannot be read")


def test_workflow_manifests(tmp_path: Path) -> None:
    from pysift.disk.layout import Unreadable, workflow_manifests

    session = tmp_path / "p" / "11111111-1111-4111-8111-111111111111.jsonl"
    wf = session.with_suffix("") / "workflows"
    (wf / "scripts").mkdir(parents=True)
    (wf / "wf_b.json").write_text("{}")
    (wf / "wf_a.json").write_text("{}")
    (wf / "notes.json").write_text("{}")
    (wf / "wf_dir.json").mkdir()
    unread = Unreadable()
    assert [p.name for p in workflow_manifests(session, unread=unread)] == [
        "wf_a.json", "wf_b.json"]
    assert workflow_manifests(tmp_path / "none.jsonl", unread=unread) == []
    assert not unread


def test_a_transcript_that_is_no_regular_file_is_noted(tmp_path: Path) -> None:
    # a FIFO named like a session (or a subagent lane) was passed over in silence by every
    # walk: list, search (its zero read "definitive"), agents, files, image
    project = tmp_path / "-w"
    lanes = project / SESSION / "subagents"
    lanes.mkdir(parents=True)
    os.mkfifo(project / f"{SESSION}.jsonl")
    os.mkfifo(lanes / "agent-a1b2c3d4e5f6a7b8c.jsonl")
    unread = Unreadable()
    assert top_level_sessions(project, unread=unread) == []
    assert subagent_transcripts(project / f"{SESSION}.jsonl", unread=unread) == []
    assert unread.items() == [(str(project / f"{SESSION}.jsonl"), "not a regular file"),
                              (str(lanes / "agent-a1b2c3d4e5f6a7b8c.jsonl"), "not a regular file")]


def test_a_transcript_named_by_its_path_that_cannot_be_read_is_noted(tmp_path: Path) -> None:
    """`@<uuid>` asked `Path.is_file()`, which says False for a dangling link, a FIFO and
    a loop of links alike: the session read as absent, "no session", with no warning."""
    from pysift.disk.layout import is_transcript_path

    project = tmp_path / "-w"
    project.mkdir()
    good, gone, fifo, loop = (project / f"{n}.jsonl" for n in ("good", "gone", "fifo", "a"))
    good.write_text("{}\n")
    gone.symlink_to(tmp_path / "unmounted" / "x.jsonl")
    os.mkfifo(fifo)
    loop.symlink_to(project / "b.jsonl")
    (project / "b.jsonl").symlink_to(loop)
    (project / "dir.jsonl").mkdir()
    unread, there = Unreadable(), []
    found = [is_transcript_path(project / f"{n}.jsonl", unread=unread, there=there)
             for n in ("good", "gone", "fifo", "a", "dir", "absent")]
    assert found == [True, False, False, False, False, False]
    reasons = dict(unread.items())
    assert reasons[str(gone)] == f"a symlink to {tmp_path / 'unmounted' / 'x.jsonl'}, which does not exist"
    assert reasons[str(fifo)] == "not a regular file"
    assert str(loop) in reasons and len(reasons) == 3  # a dir of that name is no news
    assert there == [gone, fifo, loop]


def test_a_path_a_permission_hides_is_noted_but_not_known_to_be_there(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A dir without search permission makes every name in it EACCES, there or not."""
    import errno

    from pysift.disk.layout import is_transcript_path

    def denied(path, *a, **kw):  # type: ignore[no-untyped-def]
        raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))

    monkeypatch.setattr(os, "stat", denied)
    unread, there = Unreadable(), []
    assert not is_transcript_path(tmp_path / "x.jsonl", unread=unread, there=there)
    assert unread.items() == [(str(tmp_path / "x.jsonl"), "Permission denied")]
    assert there == []


# a name a directory listing can give: one component, never "." or ".."
_LISTED_NAME = st.text(st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",)),
                       min_size=1, max_size=40).filter(lambda name: name not in (".", ".."))


@given(name=_LISTED_NAME, parent=st.sampled_from(["/", "/home/u/.claude/projects",
                                                   "relative/dir", ".", "C:x", "//net/share"]))
def test_a_child_path_is_the_joined_path(name: str, parent: str) -> None:
    made = child_path(Path(parent), name)
    joined = Path(parent) / name
    assert made == joined
    assert str(made) == str(joined) and made.name == joined.name
    assert made.parent == joined.parent and made.parts == joined.parts
    # a child of a child made so (the walk's ``<session>/subagents``), its text first
    grand = child_path(made, "subagents")
    assert str(grand) == str(joined / "subagents") and grand == joined / "subagents"


def test_windows_identity_reads_dots_separators_and_case_as_win32_does() -> None:
    from pysift.disk.layout import windows_identity

    one = {windows_identity(p) for p in ("D:\\w\\a.txt", "d:/w/a.txt", "D:\\w\\x\\..\\A.TXT",
                                         "D:/w//./a.txt")}
    assert one == {"d:\\w\\a.txt"}
    assert windows_identity("C:\\straße") != windows_identity("C:\\STRASSE")
    assert windows_identity("\\\\srv\\Share\\F.md") == windows_identity("//SRV/share/f.md")


def test_a_walked_transcript_is_the_dataclass_made_field_for_field(tmp_path: Path) -> None:
    """The walk sets a transcript's fields straight into the instance (``layout._walked``):
    the same fields, values, equality and hash as the frozen dataclass's own ``__init__``,
    so a field added to ``Transcript`` without the walk setting it fails here."""
    from dataclasses import fields

    from pysift.disk import layout

    project = tmp_path / "-w"
    made = [layout.top_level_transcript(project / "s1.jsonl", project, True, stem="s1"),
            layout.top_level_transcript(project / "s2.jsonl"),
            layout._subagent_transcript(project / "s1" / "subagents" / "agent-a1.jsonl", "s1",
                                        project, layout.KIND_BUILTIN)]
    for walked in made:
        built = layout.Transcript(**{f.name: getattr(walked, f.name) for f in fields(walked)})
        assert vars(walked) == vars(built)
        assert walked == built and hash(walked) == hash(built)
    assert (made[0].session_id, made[0].has_session_dir, made[1].has_session_dir) == ("s1", True, None)
    assert (made[2].session_id, made[2].parent_session_id, made[2].is_subagent) == ("a1", "s1", True)
