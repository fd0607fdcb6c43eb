"""Plan binding: the plan_mode law, the slug law, the plans dir, the audit join (§6.7.1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders import (
    ClaudeHome,
    Session,
    assistant,
    attachment,
    compact_boundary,
    compact_summary,
    plan_approval,
    tool_use,
    user,
)
from pysift.disk.layout import Unreadable, subagent_transcripts, top_level_transcript
from pysift.engines.plans import (
    BINDING_PLAN_MODE,
    BINDING_SLUG_ONLY,
    choose_plan,
    join_edits,
    plans_dir,
    resolve_plan_path,
    slug_is_valid,
    structured_edits,
)
from pysift.model.env import Env

S1 = "11111111-1111-4111-8111-111111111111"
S2 = "22222222-2222-4222-8222-222222222222"
AGENT = "a4ca7529859c158c2"
SLUG = "nested-prancing-popcorn"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The project root the transcripts record as their cwd."""
    path = tmp_path / "src" / "orbit"
    path.mkdir(parents=True)
    return path


def env_of(home: ClaudeHome, **environ: str) -> Env:
    return Env(claude_home=home.root, environ=environ, cwd=Path("/"))


def plan_mode(path: str, exists: bool = False, sub: bool = False) -> dict:
    return attachment("plan_mode", {"reminderType": "full", "isSubAgent": sub,
                                    "planFilePath": path, "planExists": exists})


def bind(home: ClaudeHome, session_path: Path):
    return resolve_plan_path(top_level_transcript(session_path), env_of(home))


# -- law 1: plan_mode ---------------------------------------------------------------------------


def test_plan_mode_attachment_binds_and_the_latest_wins(home: ClaudeHome, root: Path) -> None:
    plan = home.plan(SLUG, "# plan\n")
    s = Session(S1, cwd=str(root))
    s.add(user("plan it"))
    s.add(plan_mode(str(plan)))
    s.slug = SLUG
    s.add(user("more"))
    last = s.add(plan_mode(str(plan), exists=True))
    b = bind(home, home.session(str(root), S1, s))
    assert b is not None
    assert (b.plan_file, b.plan_exists, b.binding_source, b.slug) == (
        str(plan), True, BINDING_PLAN_MODE, SLUG)
    assert b.line == s.records.index(last) + 1
    assert not b.minted_at_compaction


def test_a_missing_plan_file_is_a_binding_not_an_error(home: ClaudeHome, root: Path) -> None:
    path = str(home.root / "plans" / "drifting-sniffing-waterfall.md")
    b = bind(home, home.session(str(root), S1, user("x"), plan_mode(path)))
    assert b is not None and b.plan_file == path and not b.plan_exists


def test_editing_a_plan_path_or_mentioning_plan_mode_never_binds(home: ClaudeHome, root: Path) -> None:
    other = str(home.root / "plans" / "someone-elses-plan.md")
    session = home.session(str(root), S1,
                           user("what does plan_mode do?"),
                           assistant(tool_use("Edit", {"file_path": other, "old_string": "a",
                                                       "new_string": "b"})),
                           attachment("file", {"note": "plan_mode"}),
                           attachment("plan_mode", {"isSubAgent": False}))  # no planFilePath
    assert bind(home, session) is None


# -- law 2: the first valid slug ------------------------------------------------------------------


def test_slug_only_binding_uses_the_default_plans_dir(home: ClaudeHome, root: Path) -> None:
    s = Session(S1, cwd=str(root))
    s.add(user("hi"))
    s.slug = "Not_Valid"
    s.add(user("an invalid slug is skipped"))
    s.slug = SLUG
    first = s.add(user("first valid"))
    s.add(user("later"))
    b = bind(home, home.session(str(root), S1, s))
    assert b is not None
    assert b.binding_source == BINDING_SLUG_ONLY
    assert b.plan_file == str(home.root / "plans" / f"{SLUG}.md")
    assert b.line == s.records.index(first) + 1
    assert (b.slug, b.plan_exists, b.minted_at_compaction) == (SLUG, False, False)


def test_slug_minted_at_a_compaction_boundary(home: ClaudeHome, root: Path) -> None:
    s = Session(S1, cwd=str(root))
    s.add(user("work"))
    s.slug = SLUG
    s.add(compact_boundary(120_000))
    s.add(compact_summary("so far"))
    home.plan(SLUG, "# rebuilt\n")
    b = bind(home, home.session(str(root), S1, s))
    assert b is not None and b.minted_at_compaction and b.plan_exists


def test_plan_mode_wins_over_an_earlier_slug(home: ClaudeHome, root: Path) -> None:
    s = Session(S1, cwd=str(root), slug="earlier-slug")
    s.add(user("x"))
    s.add(plan_mode("/elsewhere/bound.md"))
    b = bind(home, home.session(str(root), S1, s))
    assert b is not None and (b.binding_source, b.plan_file) == (BINDING_PLAN_MODE, "/elsewhere/bound.md")


def test_a_subagent_binds_only_through_its_own_plan_mode(home: ClaudeHome, root: Path) -> None:
    parent = Session(S1, cwd=str(root), slug=SLUG)
    parent.add(user("x"))
    main = home.session(str(root), S1, parent)
    lane = Session(S1, cwd=str(root), agent_id=AGENT, slug=SLUG)  # inherits the parent's slug
    lane.add(user("task"))
    home.subagent(main, AGENT, lane)
    [agent] = subagent_transcripts(main, unread=Unreadable())
    assert resolve_plan_path(agent, env_of(home)) is None
    parent_binding = bind(home, main)
    assert parent_binding is not None and parent_binding.binding_source == BINDING_SLUG_ONLY
    sub_plan = f"/plans/{SLUG}-agent-{AGENT}.md"
    lane.add(plan_mode(sub_plan, sub=True))
    home.subagent(main, AGENT, lane)
    b = resolve_plan_path(agent, env_of(home))
    assert b is not None and b.plan_file == sub_plan and b.transcript.is_subagent


@pytest.mark.parametrize("slug, ok", [
    (SLUG, True), ("a", True), ("9lives", True), ("x" * 120, True), ("x" * 121, False),
    ("-lead", False), ("Upper", False), ("under_score", False), ("", False), (None, False),
])
def test_slug_validity(slug: object, ok: bool) -> None:
    assert slug_is_valid(slug) is ok


# -- the plans directory -------------------------------------------------------------------------


def settings(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"plansDirectory": value}) if not isinstance(value, bytes)
                    else value.decode())


def test_plans_dir_scopes_merge_later_wins(home: ClaudeHome, root: Path) -> None:
    env = env_of(home)
    assert plans_dir(env, str(root)).path == home.root / "plans"
    settings(home.root / "settings.json", "docs/plans")
    assert plans_dir(env, str(root)).path == root / "docs" / "plans"
    settings(root / ".claude" / "settings.json", "project-plans")
    assert plans_dir(env, str(root)).path == root / "project-plans"
    settings(root / ".claude" / "settings.local.json", "local-plans")
    assert plans_dir(env, str(root)).path == root / "local-plans"


def test_plans_dir_refuses_an_escaping_value(home: ClaudeHome, root: Path) -> None:
    for value in ("../outside", "/etc/plans", "a/../../.."):
        settings(root / ".claude" / "settings.json", value)
        got = plans_dir(env_of(home), str(root))
        assert got.path == home.root / "plans"
        assert "escapes the project root" in got.notes[0]
    settings(root / ".claude" / "settings.json", str(root / "inside"))
    assert plans_dir(env_of(home), str(root)).path == root / "inside"


def test_an_invalid_settings_file_is_a_note_and_the_default(home: ClaudeHome, root: Path) -> None:
    settings(root / ".claude" / "settings.json", b"{not json")
    got = plans_dir(env_of(home), str(root))
    assert got.path == home.root / "plans"
    assert "is not valid JSON" in got.notes[0]
    settings(root / ".claude" / "settings.json", 42)
    assert "not a non-empty string" in plans_dir(env_of(home), str(root)).notes[0]


def test_slug_law_resolves_against_the_first_recorded_cwd(home: ClaudeHome, root: Path) -> None:
    settings(root / ".claude" / "settings.json", "plans-here")
    s = Session(S1, cwd=str(root))
    s.add(user("start"))
    s.cwd = str(root / "sub")  # a shell `cd` moved the record cwd before the slug appeared
    (root / "sub").mkdir()
    s.slug = SLUG
    s.add(user("slugged"))
    b = bind(home, home.session(str(root), S1, s))
    assert b is not None and b.plan_file == str(root / "plans-here" / f"{SLUG}.md")


# -- @plan choice and the audit join --------------------------------------------------------------


def test_choose_plan_prefers_top_level_and_refuses_ambiguity(home: ClaudeHome, root: Path) -> None:
    a = bind(home, home.session(str(root), S1, user("x"), plan_mode("/p/one.md")))
    b = bind(home, home.session(str(root), S2, user("x"), plan_mode("/p/two.md")))
    assert a is not None and b is not None
    assert choose_plan([a]) is a
    assert "DIFFERENT plan files" in str(choose_plan([a, b]))
    assert "no plan file is bound" in str(choose_plan([]))


def test_audit_join_marks_who_binds_the_edited_plan(home: ClaudeHome, root: Path) -> None:
    mine, theirs = "/p/mine.md", "/p/theirs.md"
    s1 = home.session(str(root), S1, user("x"), plan_mode(mine),
                      assistant(tool_use("Write", {"file_path": mine, "content": "a"})),
                      assistant(tool_use("Edit", {"file_path": theirs, "old_string": "a",
                                                  "new_string": "b"})),
                      assistant(tool_use("Edit", {"file_path": "/src/app.py", "old_string": "a",
                                                  "new_string": "b"})))
    s2 = home.session(str(root), S2, user("x"), plan_mode(theirs))
    edits = structured_edits([top_level_transcript(s1)])
    assert edits.counts == {(S1, mine): 1, (S1, theirs): 1, (S1, "/src/app.py"): 1}
    corpus = [bind(home, s1), bind(home, s2)]
    rows = join_edits(edits, [b for b in corpus if b is not None])
    assert [(r.path, r.bound_by_owner, r.binder.transcript.session_id if r.binder else None)
            for r in rows] == [(mine, True, S1), (theirs, False, S2)]


def test_a_root_recorded_on_windows_joins_and_contains_by_windows_rules(home: ClaudeHome) -> None:
    """`..\\escape` under `d:\\ClaudeWorkspace` was glued on with a `/` and accepted;
    `C:\\elsewhere` was taken for a relative name inside the root."""
    env = env_of(home)
    root = "d:\\ClaudeWorkspace"
    for value in ("..\\escape", "C:\\Users\\Administrator\\myplans"):
        settings(home.root / "settings.json", value)
        got = plans_dir(env, root)
        assert got.path == home.root / "plans", value
        assert "escapes the project root" in got.notes[0]
    settings(home.root / "settings.json", "D:\\ClaudeWorkspace\\inside")
    inside = plans_dir(env, root)
    assert str(inside.path) == "D:\\ClaudeWorkspace\\inside"
    assert inside.file("s.md") == "D:\\ClaudeWorkspace\\inside\\s.md"
    settings(home.root / "settings.json", "plans")
    assert plans_dir(env, root).file("s.md") == "d:\\ClaudeWorkspace\\plans\\s.md"


WIN_PLAN = "C:\\Users\\Administrator\\.claude\\plans\\dazzling-strolling-lemon.md"


@pytest.mark.parametrize("spelling", [
    WIN_PLAN,
    "C:/Users/Administrator/.claude/plans/dazzling-strolling-lemon.md",
    "c:\\users\\administrator\\.claude\\PLANS\\dazzling-strolling-lemon.md",
])
def test_a_windows_plan_path_is_one_file_in_any_spelling(home: ClaudeHome, spelling: str) -> None:
    """A plan recorded on Windows is one file whichever separator or case names it (SPEC
    §11: Windows paths by Windows rules, wherever pysift runs): `--reverse C:/…/x.md` said
    the plan is bound to no session, and the audit matched no Edit spelled so."""
    from pysift.engines.plans import PlanQuery, run

    root = "d:\\ClaudeWorkspace"
    binder = home.session(root, S1, user("x", cwd=root), plan_mode(WIN_PLAN))
    editor = home.session(root, S2, user("x", cwd=root),
                          assistant(tool_use("Edit", {"file_path": spelling, "old_string": "a",
                                                      "new_string": "b"}), cwd=root))
    env = env_of(home)
    transcripts = [top_level_transcript(binder), top_level_transcript(editor)]
    reverse = run(transcripts, PlanQuery(reverse=spelling), env)
    assert [b.transcript.session_id for b in reverse.bindings] == [S1]
    edits = structured_edits([transcripts[1]])
    binding = bind(home, binder)
    assert binding is not None
    [row] = join_edits(edits, [binding])
    assert (row.owner, row.path, row.mutations, row.bound_by_owner) == (
        S2, spelling, 1, False)
    assert row.binder is binding


# -- --reverse: the plan path another Claude home spells ----------------------------------------

FOREIGN_SLUG = "luminous-growing-penguin"


def reverse_ids(home: ClaudeHome, *sessions: Path, wanted: str) -> tuple[list[str], list[str]]:
    from pysift.engines.plans import PlanQuery, run

    answer = run([top_level_transcript(s) for s in sessions], PlanQuery(reverse=wanted),
                 env_of(home))
    return [b.transcript.session_id for b in answer.bindings], getattr(answer, "notes", [])


def slug_session(home: ClaudeHome, root: str, sid: str, slug: str, *records: dict) -> Path:
    s = Session(sid, cwd=root, slug=slug)
    s.add(user("plan it", cwd=root))
    for record in records:
        s.add(record)
    return home.session(root, sid, s)


def test_reverse_of_a_copied_homes_plan_path_finds_the_slug_binder(
        home: ClaudeHome, root: Path) -> None:
    """Transcripts copied from /home/alice/.claude: the approval's path named no binder,
    the slug law joining the home read (SPEC §11, thirty-second session)."""
    session = slug_session(home, str(root), S1, FOREIGN_SLUG)
    other = slug_session(home, str(root), S2, "other-slug")
    wanted = f"/home/alice/.claude/plans/{FOREIGN_SLUG}.md"
    ids, notes = reverse_ids(home, session, other, wanted=wanted)
    assert ids == [S1]
    assert "not in the Claude home read" in notes[0]
    # another slug, another dir name, a subdir of plans/: never this plan
    for miss in (f"/home/alice/.claude/plans/{FOREIGN_SLUG}-agent-a1.md",
                 f"/home/alice/.claude/notes/{FOREIGN_SLUG}.md",
                 f"/home/alice/.claude/plans/x/{FOREIGN_SLUG}.md"):
        assert reverse_ids(home, session, other, wanted=miss)[0] == [], miss
    # a home not named .claude, which the session never recorded: not taken, said so
    ids, notes = reverse_ids(home, session, wanted=f"/srv/cc/plans/{FOREIGN_SLUG}.md")
    assert ids == [] and "nothing in its records names /srv/cc" in notes[0]


def test_reverse_of_another_home_goes_by_the_home_the_session_recorded(
        home: ClaudeHome, root: Path) -> None:
    """A configured home the session recorded (its approval's "saved to") binds; another
    `.claude` home it did not run under never does."""
    cfg = f"/srv/cc/plans/{FOREIGN_SLUG}.md"
    session = slug_session(home, str(root), S1, FOREIGN_SLUG,
                           assistant(tool_use("Write", {"file_path": cfg, "content": "# p\n"})),
                           plan_approval("toolu_1", "# p", cfg))
    assert reverse_ids(home, session, wanted=cfg)[0] == [S1]
    ids, notes = reverse_ids(home, session, wanted=f"/home/alice/.claude/plans/{FOREIGN_SLUG}.md")
    assert ids == [] and "elsewhere than /home/alice/.claude" in notes[0]
    # the home read itself, recorded: another home's file of that name is not this plan
    own = str(home.root / "plans" / f"{FOREIGN_SLUG}.md")
    mine = slug_session(home, str(root), S2, FOREIGN_SLUG, plan_approval("toolu_2", "# p", own))
    assert reverse_ids(home, mine, wanted=f"/home/alice/.claude/plans/{FOREIGN_SLUG}.md")[0] == []
    assert reverse_ids(home, mine, wanted=own)[0] == [S2]


@pytest.mark.parametrize("spelling", [
    f"C:\\Users\\Alice\\.claude\\plans\\{FOREIGN_SLUG}.md",
    f"c:/users/alice/.CLAUDE/PLANS/{FOREIGN_SLUG.upper()}.MD",
])
def test_reverse_of_a_windows_homes_plan_path_by_windows_rules(
        home: ClaudeHome, spelling: str) -> None:
    """The home a Windows session recorded (its compaction pointer to its own transcript)
    matches in either separator and any case; another user's home does not."""
    root = "d:\\ClaudeWorkspace"
    pointer = f"read the full transcript at: C:\\Users\\Alice\\.claude\\projects\\d--ClaudeWorkspace\\{S1}.jsonl"
    session = slug_session(home, root, S1, FOREIGN_SLUG, compact_summary(pointer, cwd=root))
    assert reverse_ids(home, session, wanted=spelling)[0] == [S1]
    bob = f"C:\\Users\\Bob\\.claude\\plans\\{FOREIGN_SLUG}.md"
    assert reverse_ids(home, session, wanted=bob)[0] == []


def test_reverse_of_another_home_never_takes_a_configured_dir_or_a_plan_mode_path(
        home: ClaudeHome, root: Path) -> None:
    """The slug law naming a project's plansDirectory binds that file, not any home's; a
    plan_mode binding answers to the path it recorded only."""
    settings(root / ".claude" / "settings.json", "docs/plans")
    configured = slug_session(home, str(root), S1, FOREIGN_SLUG)
    recorded = home.session(str(root), S2, user("x", cwd=str(root)),
                            plan_mode(f"/home/bob/.claude/plans/{FOREIGN_SLUG}.md"))
    wanted = f"/home/alice/.claude/plans/{FOREIGN_SLUG}.md"
    assert reverse_ids(home, configured, recorded, wanted=wanted)[0] == []
    assert reverse_ids(home, configured, recorded,
                       wanted=f"/home/bob/.claude/plans/{FOREIGN_SLUG}.md")[0] == [S2]


def test_reverse_over_an_archive_takes_the_plan_path_its_manifest_recorded(
        home: ClaudeHome, root: Path, tmp_path: Path) -> None:
    """Over an archive, the home archived from (named `claude` here, no `.claude`) is the
    home the binding named when archived: its `plans/<slug>.md` binds the session."""
    from pysift.core.resolve import resolve_scope
    from pysift.engines import archive

    session = slug_session(home, str(root), S1, FOREIGN_SLUG)
    env = env_of(home)
    scope = resolve_scope([], env, subagents=True)
    dest = tmp_path / "kept"
    archive.run(scope.transcripts, env, archive.ArchiveOptions(dest=dest))
    kept = ClaudeHome(dest)
    copied = dest / session.relative_to(home.root)
    original = str(home.root / "plans" / f"{FOREIGN_SLUG}.md")
    assert reverse_ids(kept, copied, wanted=original)[0] == [S1]
    assert reverse_ids(kept, copied, wanted=f"/srv/cc/plans/{FOREIGN_SLUG}.md")[0] == []
