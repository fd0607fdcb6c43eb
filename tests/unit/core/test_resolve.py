"""Targets -> transcripts: the shared resolver and its fail-loud law (SPEC §2.3, §6.2, §6.3a)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest

from pysift.core.resolve import (
    MAIN_LANE_NOTE,
    Scope,
    calling_session_id,
    find_session_file,
    read_sessions_from,
    resolve_scope,
    resolve_trap,
)
from pysift.disk.layout import Unreadable, encode_cwd
from pysift.errors import SourceError, TargetError, UsageError
from pysift.model.env import Env

S1 = "11111111-1111-4111-8111-111111111111"
S2 = "22222222-2222-4222-8222-222222222222"
S3 = "11112222-3333-4444-8555-666666666666"  # shares the "1111" prefix with S1
AGENT = "a4ca7529859c158c2"
CHILD = "a0e6e567ae29721a6"
GRANDCHILD = "a52886dc180afb356"
TEAMMATE = "aVSRepro-68a2a1661c9390c1"
MARKER = "CrimsonWillowFen5180"

Json = dict[str, Any]


# -- a tiny Claude home ---------------------------------------------------------------------------


def user(text: str, cwd: str = "/w/proj") -> Json:
    return {"type": "user", "cwd": cwd, "message": {"role": "user", "content": text}}


def tool_use(tool: str, tool_use_id: str, **tool_input: Any) -> Json:
    return {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": tool_use_id, "name": tool, "input": tool_input}],
        },
    }


def tool_result(tool_use_id: str, text: str) -> Json:
    return {
        "type": "user",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": tool_use_id, "content": text}],
        },
    }


def spawn(tool_use_id: str, tool: str = "Task", name: str | None = None) -> Json:
    extra = {"name": name} if name else {}
    return tool_use(tool, tool_use_id, description="go", prompt="do it", **extra)


def shell(command: str, tool: str = "Bash", tool_use_id: str = "toolu_sh") -> Json:
    return tool_use(tool, tool_use_id, command=command)


class Home:
    """A Claude home on ``tmp_path``: sessions, subagents and the Env to read them."""

    def __init__(self, tmp_path: Path) -> None:
        self.claude = tmp_path / "claude"
        self.projects = self.claude / "projects"
        self.projects.mkdir(parents=True)
        self.cwd = tmp_path / "work"
        self.cwd.mkdir()

    @staticmethod
    def write(path: Path, *records: Json) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
        return path

    def session(self, enc: str, session_id: str, *records: Json) -> Path:
        return self.write(self.projects / enc / f"{session_id}.jsonl", *(records or (user("hi"),)))

    def agent(
        self,
        enc: str,
        session_id: str,
        agent_id: str,
        *records: Json,
        meta: Json | None = None,
        workflow: str | None = None,
    ) -> Path:
        directory = self.projects / enc / session_id / "subagents"
        if workflow:
            directory = directory / "workflows" / workflow
        path = self.write(directory / f"agent-{agent_id}.jsonl", *(records or (user("task"),)))
        if meta is not None:
            (directory / f"agent-{agent_id}.meta.json").write_bytes(orjson.dumps(meta))
        return path

    def env(self, cwd: Path | None = None, **environ: str) -> Env:
        return Env(claude_home=self.claude, environ=environ, cwd=cwd or self.cwd)


def ids(scope: Scope) -> list[str]:
    return [t.session_id for t in scope.transcripts]


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return Home(tmp_path)


# -- no target: every project ---------------------------------------------------------------------


def test_no_target_spans_every_session_and_its_subagents(home: Home) -> None:
    home.session("-w-a", S1)
    home.agent("-w-a", S1, AGENT)
    home.agent("-w-a", S1, "b00c", workflow="wf_1")
    home.session("-w-b", S2)
    (home.projects / "-w-empty" / "memory").mkdir(parents=True)  # a jsonl-less project dir

    scope = resolve_scope([], home.env())

    assert ids(scope) == [S1, AGENT, "b00c", S2]  # a session precedes its own subagents
    assert (scope.scoped, scope.top_level_count, scope.subagent_count) == (False, 2, 2)
    assert scope.notes == []


def test_no_target_without_subagents(home: Home) -> None:
    home.session("-w-a", S1)
    home.agent("-w-a", S1, AGENT)
    assert ids(resolve_scope([], home.env(), subagents=False)) == [S1]


def test_missing_projects_root_is_an_error_naming_it(tmp_path: Path) -> None:
    env = Env(claude_home=tmp_path / "nope", environ={}, cwd=tmp_path)
    with pytest.raises(SourceError, match=str(tmp_path / "nope" / "projects")):
        resolve_scope([], env)


def test_relative_claude_home_is_anchored_at_env_cwd(home: Home, tmp_path: Path) -> None:
    home.session("-w-a", S1)
    env = Env(claude_home=Path("claude"), environ={}, cwd=tmp_path)
    scope = resolve_scope([f"@{S1}"], env)
    assert scope.transcripts[0].path == home.projects / "-w-a" / f"{S1}.jsonl"


# -- @uuid / @prefix ------------------------------------------------------------------------------


def test_uuid_target_takes_the_session_and_its_subagents(home: Home) -> None:
    home.session("-w-a", S1)
    home.agent("-w-a", S1, AGENT)
    home.session("-w-a", S2)
    scope = resolve_scope([f"@{S1}"], home.env())
    assert ids(scope) == [S1, AGENT]
    assert scope.scoped
    assert ids(resolve_scope([f"@{S1}"], home.env(), subagents=False)) == [S1]


def test_a_session_copied_into_two_project_dirs_is_read_once_from_the_newest_copy(
        home: Home) -> None:
    """``@<uuid>`` is one session: reading both copies doubled stats and search."""
    old = home.session("-w-old", S1)
    new = home.session("-w-new", S1)
    home.agent("-w-old", S1, AGENT)
    home.agent("-w-new", S1, CHILD)
    os.utime(old, ns=(1_000_000_000, 1_000_000_000))
    os.utime(new, ns=(2_000_000_000, 2_000_000_000))
    scope = resolve_scope([f"@{S1}"], home.env())
    assert [t.path for t in scope.transcripts if not t.is_subagent] == [new]
    assert ids(scope) == [S1, CHILD]  # the newest copy's own subagents
    [note] = scope.notes
    assert f"@{S1} has 2 copies" in note and str(new) in note and str(old) in note
    os.utime(old, ns=(3_000_000_000, 3_000_000_000))
    assert [t.path for t in resolve_scope([f"@{S1}"], home.env(), subagents=False)
            .transcripts] == [old]
    both = resolve_scope([str(old), str(new)], home.env(), subagents=False)
    assert len(both.transcripts) == 2 and both.notes == []  # each copy by its path


def test_unknown_uuid_names_the_projects_root(home: Home) -> None:
    home.session("-w-a", S1)
    with pytest.raises(TargetError, match=f"no session `{S2}` under {home.projects}"):
        resolve_scope([f"@{S2}"], home.env())


def test_unique_prefix_resolves(home: Home) -> None:
    home.session("-w-a", S1)
    home.session("-w-b", S2)
    assert ids(resolve_scope(["@2222"], home.env())) == [S2]
    assert ids(resolve_scope([f"@{S2[:13]}"], home.env())) == [S2]  # layout-prefix header token


def test_ambiguous_prefix_lists_the_candidates(home: Home) -> None:
    home.session("-w-a", S1)
    home.session("-w-b", S3)
    with pytest.raises(TargetError, match=f"AMBIGUOUS: 2 ids start with it \\({S1}, {S3}\\)"):
        resolve_scope(["@1111"], home.env())


def test_prefix_matching_nothing_names_the_root(home: Home) -> None:
    home.session("-w-a", S1)
    with pytest.raises(TargetError, match=f"starts with `beef` under {home.projects}"):
        resolve_scope(["@beef"], home.env())


def test_prefix_domain_includes_agent_ids(home: Home) -> None:
    home.session("-w-a", S1)
    home.agent("-w-a", S1, AGENT)
    assert ids(resolve_scope(["@a4ca7529"], home.env())) == [AGENT]


def test_short_legacy_agent_id_matches_exactly_before_prefixing(home: Home) -> None:
    home.session("-w-a", S1)
    home.agent("-w-a", S1, "a45c98b")
    home.agent("-w-a", S1, "a45c98bf00")
    assert ids(resolve_scope(["@a45c98b"], home.env())) == ["a45c98b"]


# -- @agent ---------------------------------------------------------------------------------------


def test_agent_target_takes_the_agent_and_its_descendants(home: Home) -> None:
    home.session("-w-a", S1, spawn("toolu_main"))
    home.agent("-w-a", S1, AGENT, spawn("toolu_child"), meta={"toolUseId": "toolu_main"})
    home.agent(
        "-w-a", S1, CHILD, spawn("toolu_grand", tool="Agent"), meta={"toolUseId": "toolu_child"}
    )
    home.agent("-w-a", S1, GRANDCHILD, meta={"toolUseId": "toolu_grand"})
    home.agent("-w-a", S1, "a0947bbfd262bd69a", meta={"toolUseId": "toolu_other"})

    # path order: agent-a0e6… < agent-a4ca… < agent-a528…
    assert ids(resolve_scope([f"@{AGENT}"], home.env())) == [CHILD, AGENT, GRANDCHILD]
    assert ids(resolve_scope([f"@{CHILD}"], home.env())) == [CHILD, GRANDCHILD]
    assert ids(resolve_scope([f"@{AGENT}"], home.env(), subagents=False)) == [AGENT]


def test_declared_parent_agent_id_wins_over_the_tool_use_join(home: Home) -> None:
    home.session("-w-a", S1)
    home.agent("-w-a", S1, AGENT, spawn("toolu_x"))
    home.agent("-w-a", S1, CHILD, meta={"toolUseId": "toolu_x", "parentAgentId": "aelsewhere00"})
    home.agent("-w-a", S1, GRANDCHILD, meta={"parentAgentId": AGENT})
    assert set(ids(resolve_scope([f"@{AGENT}"], home.env()))) == {AGENT, GRANDCHILD}


def test_teammate_joins_its_spawner_by_name(home: Home) -> None:
    home.session("-w-a", S1)
    home.agent("-w-a", S1, AGENT, spawn("toolu_tm", tool="Agent", name="VSRepro"))
    home.agent("-w-a", S1, TEAMMATE, meta={"name": "VSRepro", "taskKind": "in_process_teammate"})
    assert set(ids(resolve_scope([f"@{AGENT}"], home.env()))) == {AGENT, TEAMMATE}
    assert ids(resolve_scope([f"@{TEAMMATE}"], home.env())) == [TEAMMATE]


def test_fork_clone_does_not_adopt_the_main_threads_children(home: Home) -> None:
    # A /fork child is a copy of the main transcript, so it carries main's spawn tool_use.
    home.session("-w-a", S1, spawn("toolu_main"))
    home.agent("-w-a", S1, AGENT, spawn("toolu_main"))
    home.agent("-w-a", S1, CHILD, meta={"toolUseId": "toolu_main"})
    assert ids(resolve_scope([f"@{AGENT}"], home.env())) == [AGENT]


def test_progress_copies_in_the_main_transcript_do_not_steal_a_grandchild(home: Home) -> None:
    # Older builds mirror a subagent's messages into main as nested ``progress`` records.
    progress = {"type": "progress", "data": {"message": spawn("toolu_c")}}
    home.session("-w-a", S1, spawn("toolu_main"), progress)
    home.agent("-w-a", S1, AGENT, spawn("toolu_c"), meta={"toolUseId": "toolu_main"})
    home.agent("-w-a", S1, CHILD, meta={"toolUseId": "toolu_c"})
    assert ids(resolve_scope([f"@{AGENT}"], home.env())) == [CHILD, AGENT]


def test_a_child_named_by_its_spawn_result_is_a_descendant(home: Home) -> None:
    # older builds write no meta toolUseId: the call's result names the child it spawned
    home.session("-w-a", S1, spawn("toolu_main"))
    home.agent("-w-a", S1, AGENT, spawn("toolu_c"),
               tool_result("toolu_c", f"done.\nagentId: {CHILD} (use SendMessage)"))
    home.agent("-w-a", S1, CHILD)
    home.agent("-w-a", S1, GRANDCHILD)  # named by nobody: not a descendant
    assert ids(resolve_scope([f"@{AGENT}"], home.env())) == [CHILD, AGENT]


def test_spawn_named_in_a_tool_result_is_not_a_spawn(home: Home) -> None:
    home.session("-w-a", S1)
    home.agent("-w-a", S1, AGENT, tool_result("toolu_x", 'the "Task" tool'))
    home.agent("-w-a", S1, CHILD, meta={"toolUseId": "toolu_x"})
    assert ids(resolve_scope([f"@{AGENT}"], home.env())) == [AGENT]


def test_long_hex_agent_token_falls_back_to_a_unique_prefix(home: Home) -> None:
    home.session("-w-a", S1)
    home.agent("-w-a", S1, AGENT)
    home.agent("-w-a", S1, "a4ca7529859cffff0")
    assert ids(resolve_scope(["@a4ca7529859c158"], home.env())) == [AGENT]
    with pytest.raises(TargetError, match="AMBIGUOUS: 2 agent ids"):
        resolve_scope(["@a4ca7529859c"], home.env())


def test_unknown_agent_is_an_error(home: Home) -> None:
    home.session("-w-a", S1)
    with pytest.raises(TargetError, match=f"no subagent `{AGENT}` under {home.projects}"):
        resolve_scope([f"@{AGENT}"], home.env())


def test_the_file_stem_spelling_of_an_agent_id_resolves(home: Home) -> None:
    """`agent-<id>` is the lane's file name: the bare-token error suggests `@agent-<id>`,
    which then failed ("no subagent"), although `agents --agent` takes that spelling."""
    home.session("-w-a", S1)
    home.agent("-w-a", S1, AGENT)
    assert ids(resolve_scope([f"@agent-{AGENT}"], home.env())) == [AGENT]
    with pytest.raises(TargetError, match="no subagent `agent-a4ca7529859cffff0`"):
        resolve_scope(["@agent-a4ca7529859cffff0"], home.env())


def test_a_teammate_whose_name_makes_its_id_look_like_a_stem_still_resolves(
        home: Home) -> None:
    home.session("-w-a", S1)
    home.agent("-w-a", S1, "agent-68a2a1661c9390c1")  # teammate "gent": a<Name>-<hex>
    assert ids(resolve_scope(["@agent-68a2a1661c9390c1"], home.env())) == [
        "agent-68a2a1661c9390c1"]


def test_agent_of_a_sidecar_only_session_is_still_targetable(home: Home) -> None:
    home.agent("-w-a", S1, AGENT)  # the session's own transcript is gone
    # an all-projects scope still includes it (omitting a transcript would be silent)
    assert ids(resolve_scope([], home.env(), sessions_from=None)) == [AGENT]
    assert resolve_scope([], home.env(), subagents=False).transcripts == []
    scope = resolve_scope([f"@{AGENT}"], home.env())
    assert [t.id_trio() for t in scope.transcripts] == [
        {"session_id": AGENT, "is_subagent": True, "parent_session_id": S1}
    ]
    assert ids(resolve_scope(["@a4ca75"], home.env())) == [AGENT]


def test_a_long_candidate_list_is_capped_and_counted(home: Home) -> None:
    for n in range(22):
        home.session("-w-a", f"abcd{n:04d}-0000-4000-8000-000000000000")
    with pytest.raises(TargetError, match=r"AMBIGUOUS: 22 ids .*, … and 2 more\)"):
        resolve_scope(["@abcd"], home.env())


def test_workflow_agent_is_targetable(home: Home) -> None:
    home.session("-w-a", S1)
    home.agent("-w-a", S1, "b00cafe00cafe", workflow="wf_1")
    scope = resolve_scope(["@b00cafe00cafe"], home.env())
    assert [(t.session_id, t.kind) for t in scope.transcripts] == [("b00cafe00cafe", "workflow")]


# -- @main ----------------------------------------------------------------------------------------


def test_main_reads_the_env_session_and_notes_the_lane(home: Home) -> None:
    home.session("-w-a", S1)
    home.agent("-w-a", S1, AGENT)
    scope = resolve_scope(["@main"], home.env(CLAUDE_CODE_SESSION_ID=S1))
    assert ids(scope) == [S1, AGENT]
    assert scope.notes == [MAIN_LANE_NOTE]


def test_codex_alias_only_when_the_canonical_var_is_empty() -> None:
    assert (
        calling_session_id({"CLAUDE_CODE_SESSION_ID": S1, "CODEX_COMPANION_SESSION_ID": S2}) == S1
    )
    assert (
        calling_session_id({"CLAUDE_CODE_SESSION_ID": "", "CODEX_COMPANION_SESSION_ID": S2}) == S2
    )
    assert calling_session_id({"CODEX_COMPANION_SESSION_ID": S2}) == S2
    assert calling_session_id({"SECURITYSESSIONID": S2}) is None


def test_main_without_env_explains_what_to_do(home: Home) -> None:
    with pytest.raises(TargetError, match="pass an explicit `@<uuid>` target"):
        resolve_scope(["@main"], home.env())


def test_main_with_a_non_uuid_env_value(home: Home) -> None:
    with pytest.raises(TargetError, match="is not a session uuid"):
        resolve_scope(["@main"], home.env(CLAUDE_CODE_SESSION_ID="abc"))


def test_main_session_without_a_transcript(home: Home) -> None:
    with pytest.raises(TargetError, match=f"has no transcript under {home.projects}"):
        resolve_scope(["@main"], home.env(CLAUDE_CODE_SESSION_ID=S1))


def test_find_session_file_prefers_the_cwd_project(home: Home, tmp_path: Path) -> None:
    proj = tmp_path / "w" / "proj"
    proj.mkdir(parents=True)
    elsewhere = home.session("-a-elsewhere", S1)
    here = home.session(encode_cwd(os.path.realpath(proj)), S1)
    os.utime(here, ns=(1_000_000_000, 1_000_000_000))  # the cwd's copy, written long ago
    assert find_session_file(S1, home.env(cwd=proj), unread=Unreadable()) == here
    # from elsewhere: the copy written last (Claude Code is writing the live one)
    assert find_session_file(S1, home.env(), unread=Unreadable()) == elsewhere
    os.utime(elsewhere, ns=(500_000_000, 500_000_000))
    assert find_session_file(S1, home.env(), unread=Unreadable()) == here
    assert find_session_file(S2, home.env(), unread=Unreadable()) is None


# -- @trap ----------------------------------------------------------------------------------------


def trap_env(home: Home) -> Env:
    return home.env(CLAUDE_CODE_SESSION_ID=S1)


def test_trap_finds_the_one_subagent_carrying_the_marker(home: Home) -> None:
    home.session("-w-a", S1)
    home.agent("-w-a", S1, AGENT, shell(f"pysift whoami @trap:{MARKER}"))
    home.agent("-w-a", S1, CHILD, shell("ls"))
    assert resolve_trap(MARKER, trap_env(home), unread=Unreadable()).session_id == AGENT
    scope = resolve_scope([f"@trap:{MARKER}"], trap_env(home))
    assert ids(scope) == [AGENT]
    assert scope.notes == []


def test_trap_agent_brings_its_descendants(home: Home) -> None:
    home.session("-w-a", S1)
    home.agent("-w-a", S1, AGENT, shell(f"pysift search x @trap:{MARKER}"), spawn("toolu_c"))
    home.agent("-w-a", S1, CHILD, meta={"toolUseId": "toolu_c"})
    assert set(ids(resolve_scope([f"@trap:{MARKER}"], trap_env(home)))) == {AGENT, CHILD}
    assert ids(resolve_scope([f"@trap:{MARKER}"], trap_env(home), subagents=False)) == [AGENT]


def test_trap_accepts_powershell(home: Home) -> None:
    home.session("-w-a", S1)
    home.agent("-w-a", S1, AGENT, shell(f"pysift agents @trap:{MARKER}", tool="PowerShell"))
    assert resolve_trap(MARKER, trap_env(home), unread=Unreadable()).session_id == AGENT


def test_trap_in_the_main_transcript_resolves_the_session_with_a_note(home: Home) -> None:
    home.session("-w-a", S1, shell(f"pysift list @trap:{MARKER}"))
    home.agent("-w-a", S1, AGENT)
    scope = resolve_scope([f"@trap:{MARKER}"], trap_env(home))
    assert ids(scope) == [S1, AGENT]
    assert len(scope.notes) == 1
    assert "resolved to the TOP-LEVEL session" in scope.notes[0]
    assert "@main" in scope.notes[0]


def test_a_fork_clone_s_copy_of_the_main_call_is_not_the_clone_s_own(home: Home) -> None:
    """A ``/fork`` clone opens on a copy of the main history (same uuids): the main
    thread's trap call in that copy must not name the clone."""
    call = {**shell(f"pysift whoami @trap:{MARKER}"), "uuid": "a1"}
    home.session("-w-a", S1, {**user("go"), "uuid": "u1"}, call,
                 {**tool_result("toolu_sh", "not found"), "uuid": "r1"},
                 {**shell(f"pysift whoami @trap:{MARKER}", tool_use_id="toolu_2"), "uuid": "a2"})
    home.agent("-w-a", S1, AGENT, {"type": "fork-context-ref", "parentLastUuid": "r1"},
               {**user("go"), "uuid": "u1"}, call,
               {**tool_result("toolu_sh", "not found"), "uuid": "r1"},
               {**user("now the fork's own work"), "uuid": "f1"})
    found = resolve_trap(MARKER, trap_env(home), unread=Unreadable())
    assert (found.session_id, found.is_subagent) == (S1, False)
    # the clone's own call after the fork point still names it
    home.agent("-w-a", S1, AGENT, {"type": "fork-context-ref", "parentLastUuid": "r1"},
               {**user("go"), "uuid": "u1"}, call,
               {**shell(f"pysift whoami @trap:{MARKER}", tool_use_id="toolu_f"), "uuid": "f2"})
    assert resolve_trap(MARKER, trap_env(home), unread=Unreadable()).session_id == AGENT


def test_an_old_layout_sidechain_carrying_the_marker_is_the_caller(home: Home) -> None:
    """Claude Code 1.x wrote ``agent-<id>.jsonl`` beside the session: a subagent of the
    session its records name, searched like the ``subagents/`` ones."""
    home.session("-w-a", S1)
    home.write(home.projects / "-w-a" / "agent-5f3e2a1b.jsonl",
               {**shell(f"pysift whoami @trap:{MARKER}"), "sessionId": S1})
    home.write(home.projects / "-w-a" / "agent-6a6a6a6a.jsonl",
               {**shell(f"pysift whoami @trap:{MARKER}"), "sessionId": S2})
    assert resolve_trap(MARKER, trap_env(home), unread=Unreadable()).session_id == "5f3e2a1b"


def test_subagent_carrier_wins_over_the_main_transcript(home: Home) -> None:
    home.session("-w-a", S1, shell(f"pysift list @trap:{MARKER}"))
    home.agent("-w-a", S1, AGENT, shell(f"pysift list @trap:{MARKER}"))
    assert resolve_trap(MARKER, trap_env(home), unread=Unreadable()).session_id == AGENT


@pytest.mark.parametrize(
    "record",
    [
        shell(f"echo {MARKER}"),  # the literal program name is missing
        shell(f"pysift list @trap:{MARKER}", tool="Read"),  # not a shell tool
        tool_result("toolu_sh", f"pysift list @trap:{MARKER}"),  # an echo in a result
        user(f"pysift list @trap:{MARKER}"),  # typed prose
    ],
)
def test_trap_miss_routes_to_main_first(home: Home, record: Json) -> None:
    home.session("-w-a", S1)
    home.agent("-w-a", S1, AGENT, record)
    with pytest.raises(TargetError, match="MOST LIKELY you are the TOP-LEVEL thread: use `@main`"):
        resolve_trap(MARKER, trap_env(home), unread=Unreadable())


def test_trap_matching_two_subagents_is_ambiguous(home: Home) -> None:
    home.session("-w-a", S1)
    home.agent("-w-a", S1, AGENT, shell(f"pysift list @trap:{MARKER}"))
    home.agent("-w-a", S1, CHILD, shell(f"pysift list @trap:{MARKER}"))
    with pytest.raises(
        TargetError, match=f"AMBIGUOUS: it matched 2 subagents \\({CHILD}, {AGENT}\\)"
    ):
        resolve_trap(MARKER, trap_env(home), unread=Unreadable())


def test_trap_needs_the_env_session(home: Home) -> None:
    with pytest.raises(TargetError, match="CLAUDE_CODE_SESSION_ID is unset"):
        resolve_trap(MARKER, home.env(), unread=Unreadable())


def test_trap_refuses_a_bad_marker_before_touching_disk(home: Home) -> None:
    with pytest.raises(TargetError, match="RESERVED"):
        resolve_trap("JollyShinyBrook4283", trap_env(home), unread=Unreadable())


# -- encoded dirs and real paths ------------------------------------------------------------------


def test_encoded_dir_targets(home: Home) -> None:
    home.session("-w-a", S1)
    home.agent("-w-a", S1, AGENT)
    home.session("-w-b", S2)
    assert ids(resolve_scope(["@-w-a"], home.env())) == [S1, AGENT]
    assert ids(resolve_scope(["-w-a"], home.env())) == [S1, AGENT]
    assert ids(resolve_scope([str(home.projects / "-w-b")], home.env())) == [S2]


def test_unc_and_drive_encoded_dirs(home: Home) -> None:
    home.session("--server-share", S1)
    home.session("C--Users-x", S2)
    assert ids(resolve_scope(["@--server-share"], home.env())) == [S1]
    assert ids(resolve_scope(["@C--Users-x"], home.env())) == [S2]
    assert ids(resolve_scope(["C--Users-x"], home.env())) == [S2]


def test_missing_encoded_dir_names_the_root(home: Home) -> None:
    with pytest.raises(
        TargetError, match=f"no Claude Code project dir named `-w-zz` under {home.projects}"
    ):
        resolve_scope(["-w-zz"], home.env())
    with pytest.raises(TargetError, match="no Claude Code project dir named `C--zz`"):
        resolve_scope(["@C--zz"], home.env())


def test_bare_drive_token_falls_back_to_a_real_relative_path(home: Home) -> None:
    real = home.cwd / "C--zz"
    real.mkdir()
    home.session(encode_cwd(os.path.realpath(real)), S1)
    assert ids(resolve_scope(["C--zz"], home.env())) == [S1]


def test_real_path_targets(home: Home) -> None:
    project = home.cwd / "my_proj"
    project.mkdir()
    home.session(encode_cwd(os.path.realpath(project)), S1)
    assert ids(resolve_scope(["my_proj"], home.env())) == [S1]
    assert ids(resolve_scope(["."], home.env(cwd=project))) == [S1]
    assert ids(resolve_scope([str(project)], home.env())) == [S1]


def test_real_path_with_tilde_uses_the_env_home(home: Home, tmp_path: Path) -> None:
    user_home = tmp_path / "ada"
    (user_home / "src").mkdir(parents=True)
    home.session(encode_cwd(os.path.realpath(user_home / "src")), S1)
    assert ids(resolve_scope(["~/src"], home.env(HOME=str(user_home)))) == [S1]


def test_real_path_without_a_project_dir_names_what_was_tried(home: Home) -> None:
    target = os.path.realpath(home.cwd)
    looked_for = home.projects / encode_cwd(target)
    with pytest.raises(
        TargetError, match=f"no Claude Code project dir for {target} \\(looked for {looked_for}\\)"
    ):
        resolve_scope(["."], home.env())


def test_collision_sibling_sessions_are_included(home: Home) -> None:
    """Two cwds that encode alike share one dir; pysift mirrors Claude Code and keeps both."""
    project = home.cwd / "a_b"
    project.mkdir()
    enc = encode_cwd(os.path.realpath(project))
    home.session(enc, S1, user("hi", cwd=os.path.realpath(project)))
    home.session(enc, S2, user("hi", cwd=os.path.realpath(project).replace("a_b", "a-b")))
    assert ids(resolve_scope(["a_b"], home.env())) == [S1, S2]


# -- *.jsonl targets ------------------------------------------------------------------------------


def test_top_level_jsonl_target(home: Home) -> None:
    path = home.session("-w-a", S1)
    home.agent("-w-a", S1, AGENT)
    assert ids(resolve_scope([str(path)], home.env())) == [S1, AGENT]
    assert ids(resolve_scope([f"{S1}.jsonl"], home.env(cwd=path.parent))) == [S1, AGENT]


def test_subagent_jsonl_target_scopes_to_the_agent_subtree(home: Home) -> None:
    home.session("-w-a", S1)
    agent_path = home.agent("-w-a", S1, AGENT, spawn("toolu_c"))
    home.agent("-w-a", S1, CHILD, meta={"toolUseId": "toolu_c"})
    assert set(ids(resolve_scope([str(agent_path)], home.env()))) == {AGENT, CHILD}
    bare = resolve_scope([agent_path.name], home.env(cwd=agent_path.parent), subagents=False)
    assert [(t.session_id, t.is_subagent, t.parent_session_id) for t in bare.transcripts] == [
        (AGENT, True, S1)
    ]


def test_missing_jsonl_target(home: Home) -> None:
    with pytest.raises(TargetError, match=r"no transcript at .*gone\.jsonl"):
        resolve_scope(["gone.jsonl"], home.env())


def test_sidecar_targets_are_refused(home: Home) -> None:
    home.session("-w-a", S1)
    by_name = home.write(
        home.projects / "-w-a" / S1 / "elicitations.jsonl",
        {"csift": "elicitation-marker-v1", "csiftPhase": "pending"},
    )
    with pytest.raises(TargetError, match="is an elicitation sidecar"):
        resolve_scope([str(by_name)], home.env())
    copied = home.write(home.cwd / "copy.jsonl", {"csift": "elicitation-marker-v1"})
    with pytest.raises(TargetError, match="is an elicitation sidecar"):
        resolve_scope([str(copied)], home.env())


# -- --sessions-from ------------------------------------------------------------------------------


def test_empty_sessions_from_is_an_empty_scope_not_every_project(home: Home) -> None:
    home.session("-w-a", S1)
    scope = resolve_scope([], home.env(), sessions_from=[])
    assert (scope.transcripts, scope.scoped) == ([], True)


def test_sessions_from_unions_with_positionals(home: Home) -> None:
    home.session("-w-a", S1)
    home.agent("-w-a", S1, AGENT)
    home.session("-w-b", S2)
    scope = resolve_scope(["@-w-b"], home.env(), sessions_from=[f"@{S1}", S2, AGENT])
    assert ids(scope) == [S1, AGENT, S2]


def test_sessions_from_is_fail_loud_per_id(home: Home) -> None:
    home.session("-w-a", S1)
    with pytest.raises(TargetError, match=f"no session `{S2}`"):
        resolve_scope([], home.env(), sessions_from=[S1, S2])
    with pytest.raises(TargetError, match="'main' is not a session id"):
        resolve_scope([], home.env(), sessions_from=["main"])


def test_read_sessions_from_file_and_stdin(tmp_path: Path) -> None:
    listing = tmp_path / "ids.txt"
    listing.write_text(f"{S1}\n  @{S2}\t{AGENT}\n\n")
    assert read_sessions_from(str(listing), None) == [S1, S2, AGENT]
    assert read_sessions_from("-", f"{S1} 1111") == [S1, "1111"]
    assert read_sessions_from("-", "") == []
    # what `search -l` prints for a file named no id: its path, a line of its own
    assert read_sessions_from("-", f"{S1}\n/h/projects/-p/edge cases.jsonl\n@{S2}\n") == [
        S1, "/h/projects/-p/edge cases.jsonl", S2]


def test_read_sessions_from_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read"):
        read_sessions_from(str(tmp_path / "absent.txt"), None)
    with pytest.raises(UsageError, match="no stdin"):
        read_sessions_from("-", None)
    with pytest.raises(TargetError, match="'/w/proj' is not a session id"):
        read_sessions_from("-", f"{S1} /w/proj")


# -- union, dedup, order --------------------------------------------------------------------------


def test_overlapping_targets_dedup_in_path_order(home: Home) -> None:
    home.session("-w-b", S2)
    session = home.session("-w-a", S1)
    home.agent("-w-a", S1, AGENT)
    scope = resolve_scope([f"@{S2}", f"@{AGENT}", f"@{S1}", "-w-a", str(session)], home.env())
    assert ids(scope) == [S1, AGENT, S2]


def test_a_malformed_token_fails_before_any_resolution(home: Home) -> None:
    with pytest.raises(TargetError, match="too short"):
        resolve_scope([f"@{S1}", "@ab"], home.env())


# -- old-layout agents, sessions known only by their subagents ---------------------------------

LEGACY = "a278a89"  # CC 1.x wrote `agent-<7 hex>.jsonl` beside the sessions
LEGACY_NEAR = "a2782344069307731"


def _legacy(home: Home, enc: str, agent_id: str, session_id: str) -> Path:
    record = {**user("look around"), "sessionId": session_id, "isSidechain": True}
    return home.write(home.projects / enc / f"agent-{agent_id}.jsonl", record)


def test_a_session_brings_its_old_layout_agents(home: Home) -> None:
    """`@<uuid>` dropped them: a search of the session said DEFINITIVE absence of text
    its project dir held."""
    home.session("-w-a", S1)
    home.session("-w-a", S2)
    _legacy(home, "-w-a", LEGACY, S1)
    assert ids(resolve_scope([f"@{S1}"], home.env())) == [S1, LEGACY]
    assert ids(resolve_scope([f"@{S1}"], home.env(), subagents=False)) == [S1]
    assert ids(resolve_scope([f"@{S2}"], home.env())) == [S2]
    assert ids(resolve_scope(["@1111"], home.env())) == [S1, LEGACY]


def test_an_old_layout_agent_is_targetable_by_its_id(home: Home) -> None:
    home.session("-w-a", S1)
    _legacy(home, "-w-a", LEGACY, S1)
    scope = resolve_scope([f"@{LEGACY}"], home.env())
    assert [t.id_trio() for t in scope.transcripts] == [
        {"session_id": LEGACY, "is_subagent": True, "parent_session_id": S1}
    ]


def test_an_old_layout_agent_makes_a_prefix_ambiguous(home: Home) -> None:
    home.session("-w-a", S1)
    home.agent("-w-a", S1, LEGACY_NEAR)
    _legacy(home, "-w-a", LEGACY, S1)
    with pytest.raises(TargetError, match=f"AMBIGUOUS: 2 ids .*{LEGACY_NEAR}, {LEGACY}"):
        resolve_scope(["@a278"], home.env())


def test_a_session_known_only_by_its_subagents_resolves_to_them(home: Home) -> None:
    """`search -l` names the owning session of every hit, file or not; its id must take
    the next pipeline stage to the same transcripts (and refuse --no-subagents loudly)."""
    home.agent("-w-a", S1, AGENT)  # a sidecar-only dir: the session file is gone
    _legacy(home, "-w-b", LEGACY, S2)  # an old-layout agent whose session file is gone
    assert ids(resolve_scope([f"@{S1}"], home.env())) == [AGENT]
    assert ids(resolve_scope([f"@{S2}"], home.env())) == [LEGACY]
    assert ids(resolve_scope([], home.env(), sessions_from=[S1, S2])) == [AGENT, LEGACY]
    assert ids(resolve_scope(["@2222"], home.env())) == [LEGACY]
    with pytest.raises(TargetError, match=r"no transcript of its own.*target one as `@<agent-id>`"):
        resolve_scope([f"@{S1}"], home.env(), subagents=False)


def test_a_dashless_prefix_may_run_past_the_first_dash(home: Home) -> None:
    """The grammar's 4-11 dashless hex chars: `@737790f6e` is the start of `737790f6-e…`."""
    session = "737790f6-ecad-441f-9cb1-03788982d8ff"
    home.session("-w-a", session)
    home.session("-w-a", "737790f6-0000-4000-8000-000000000000")
    assert ids(resolve_scope(["@737790f6e"], home.env())) == [session]
    assert ids(resolve_scope(["@737790f6-e"], home.env())) == [session]
    with pytest.raises(TargetError, match="AMBIGUOUS: 2 ids"):
        resolve_scope(["@737790f6"], home.env())


def test_a_workflow_journal_is_refused(home: Home) -> None:
    home.session("-w-a", S1)
    home.agent("-w-a", S1, AGENT, workflow="wf_demo01")
    journal = home.write(home.projects / "-w-a" / S1 / "subagents" / "workflows" / "wf_demo01"
                         / "journal.jsonl", {"agentId": AGENT, "key": "k", "type": "started"})
    with pytest.raises(TargetError, match="is a workflow journal"):
        resolve_scope([str(journal)], home.env())


def test_a_file_that_is_no_transcript_is_refused_as_such(home: Home) -> None:
    home.session("-w-a", S1)
    meta = home.projects / "-w-a" / S1 / "subagents" / f"agent-{AGENT}.meta.json"
    home.agent("-w-a", S1, AGENT, meta={"agentType": "Explore"})
    with pytest.raises(TargetError, match="is a file but not a transcript"):
        resolve_scope([str(meta)], home.env())


# -- what cannot be read counts where it could be the target (SPEC §3) ----------------------------


def dangle(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(path.parent / "unmounted" / path.name)
    return path


def test_a_prefix_counts_only_what_could_be_its_target(home: Home) -> None:
    """`@2222` took on every unreadable file of the home: a dangling link of another
    session made its zero "not definitive" and its archive incomplete."""
    home.session("-w-a", S2)
    dangle(home.projects / "-w-a" / f"{S1}.jsonl")
    scope = resolve_scope(["@2222"], home.env())
    assert (ids(scope), scope.unreadable, scope.notes) == ([S2], [], [])
    with pytest.raises(TargetError) as found:  # nor is it named as a place the id may be
        resolve_scope(["@beef"], home.env())
    assert "could not" not in str(found.value)
    # a file whose name the prefix matches may be the session asked for: it counts
    maybe = dangle(home.projects / "-w-b" / "22223333-0000-4000-8000-000000000000.jsonl")
    scope = resolve_scope(["@2222"], home.env())
    assert ids(scope) == [S2]
    assert [path for path, _ in scope.unreadable] == [str(maybe)]
    # and is named where a prefix (dashless, past the first dash) finds nothing else
    with pytest.raises(TargetError, match=f"that could be read: {maybe} could not"):
        resolve_scope(["@222233330"], home.env())


def test_an_agent_id_counts_what_could_be_it_or_its_lanes(
        home: Home, monkeypatch: pytest.MonkeyPatch) -> None:
    home.session("-w-a", S1, spawn("toolu_main"))
    home.agent("-w-a", S1, AGENT, meta={"toolUseId": "toolu_main"})
    home.session("-w-a", S2)
    elsewhere = home.projects / "-w-a" / S2 / "subagents"
    elsewhere.mkdir(parents=True)
    os.mkfifo(elsewhere / f"agent-{CHILD}.jsonl")  # another session's lane
    dangle(home.projects / "-w-b" / f"{S3}.jsonl")  # another session
    for target in (f"@{AGENT}", f"@{AGENT[:9]}"):  # the id, and a prefix of it
        scope = resolve_scope([target], home.env())
        assert (ids(scope), scope.unreadable) == ([AGENT], []), target
    # a file beside it in its session's dir may be one of its descendants
    lane = home.projects / "-w-a" / S1 / "subagents" / f"agent-{GRANDCHILD}.jsonl"
    os.mkfifo(lane)
    assert resolve_scope([f"@{AGENT}"], home.env()).unreadable == [
        (str(lane), "not a regular file")]
    assert resolve_scope([f"@{AGENT}"], home.env(), subagents=False).unreadable == []
    # a dir that cannot be listed may hold the id itself
    from denied import deny_listing

    deny_listing(monkeypatch, elsewhere)
    scope = resolve_scope([f"@{AGENT}"], home.env(), subagents=False)
    assert [path for path, _ in scope.unreadable] == [str(elsewhere)]


def test_a_session_target_counts_what_may_be_its_lanes(home: Home) -> None:
    home.session("-w-a", S1)
    home.agent("-w-a", S1, AGENT)
    lane = dangle(home.projects / "-w-a" / S1 / "subagents" / f"agent-{CHILD}.jsonl")
    home.session("-w-a", S2)
    dangle(home.projects / "-w-a" / S2 / "subagents" / f"agent-{GRANDCHILD}.jsonl")
    for target in (f"@{S1}", "@1111"):
        scope = resolve_scope([target], home.env())
        assert [path for path, _ in scope.unreadable] == [str(lane)], target


def test_a_uuid_that_is_there_but_cannot_be_read_says_so(home: Home) -> None:
    """`@<uuid>` of a dangling link or a FIFO said "no session …; `pysift list` shows
    the session ids", as if the file were not there (SPEC §2: it still exists)."""
    gone = dangle(home.projects / "-w-a" / f"{S1}.jsonl")
    os.mkfifo(home.projects / "-w-a" / f"{S2}.jsonl")
    with pytest.raises(SourceError, match=f"session `{S1}` is there but cannot be read "
                       f"\\({gone}: a symlink to .*unmounted.*, which does not exist\\)"):
        resolve_scope([f"@{S1}"], home.env())
    with pytest.raises(SourceError, match=f"{S2}.jsonl: not a regular file\\)"):
        resolve_scope([f"@{S2}"], home.env())
    with pytest.raises(SourceError, match="is there but cannot be read"):
        resolve_scope(["@main"], home.env(CLAUDE_CODE_SESSION_ID=S1))
    # a readable copy in another project dir is the session; the other one is said
    copy = home.session("-w-b", S1)
    scope = resolve_scope([f"@{S1}"], home.env())
    assert [t.path for t in scope.transcripts] == [copy]
    assert [path for path, _ in scope.unreadable] == [str(gone)]
