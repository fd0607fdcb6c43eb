"""commands.plan: forward, --reverse, --audit, the calling-session default (§6.7.1)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from builders import (
    ClaudeHome,
    Session,
    assistant,
    attachment,
    plan_approval,
    rejection,
    tool_use,
    user,
)
from pysift.commands.plan import PlanOptions, run
from pysift.commands.scope import ScopeArgs
from pysift.errors import TargetError, UsageError
from pysift.model.env import Env

S1 = "11111111-1111-4111-8111-111111111111"
S2 = "22222222-2222-4222-8222-222222222222"
AGENT = "a4ca7529859c158c2"
CWD = "/w/proj"


def _opts(*, reverse: str | None = None, audit: bool = False, **scope: Any) -> PlanOptions:
    return PlanOptions(scope=ScopeArgs(**scope), reverse=reverse, audit=audit)


def env_of(home: ClaudeHome, **environ: str) -> Env:
    return Env(claude_home=home.root, environ=environ, cwd=Path("/"))


def plan_mode(path: str, sub: bool = False) -> dict:
    return attachment("plan_mode", {"isSubAgent": sub, "planFilePath": path, "planExists": False})


def text_of(report) -> str:
    out = io.StringIO()
    report.text(out)
    return out.getvalue()


def planned(home: ClaudeHome) -> tuple[Path, str, str]:
    """S1 bound by plan_mode (file on disk), its subagent with its own plan; S2 slug-only."""
    plan = str(home.plan("nested-prancing-popcorn", "# plan\n"))
    main = home.session(CWD, S1, user("plan"), Session(S1, cwd=CWD, slug="nested-prancing-popcorn")
                        .stamp(plan_mode(plan)))
    sub_plan = f"{home.root}/plans/nested-prancing-popcorn-agent-{AGENT}.md"
    home.subagent(main, AGENT, user("task"), plan_mode(sub_plan, sub=True))
    clone = Session(S2, cwd=CWD, slug="quiet-harbor-relay")
    clone.add(user("forked"))
    home.session(CWD, S2, clone)
    return main, plan, sub_plan


def test_forward_rows_top_level_first(home: ClaudeHome) -> None:
    _, plan, sub_plan = planned(home)
    report = run(_opts(targets=(CWD,)), env_of(home))
    assert [(r["session_id"], r["binding_source"]) for r in report.rows] == [
        (S1, "plan_mode"), (S2, "slug-only"), (AGENT, "plan_mode")]
    first = report.rows[0]
    assert first == {"kind": "plan", "session_id": S1, "is_subagent": False,
                     "parent_session_id": S1, "line": 2, "plan_file": plan, "plan_exists": True,
                     "slug": "nested-prancing-popcorn", "binding_source": "plan_mode",
                     "minted_at_compaction": False}
    assert report.rows[2]["plan_file"] == sub_plan and report.rows[2]["is_subagent"]
    assert report.summary == {"plans": 3}
    text = text_of(report)
    assert f"session  {S1}\nplan     {plan}  [exists]\nslug     nested-prancing-popcorn\nline     L2\n" in text
    assert f"session  {AGENT}  (subagent)\nplan     {sub_plan}  [missing]\n" in text
    assert f"parent   {S1}\n" in text
    assert "binding  slug only — no plan_mode attachment" in text


def test_no_subagents(home: ClaudeHome) -> None:
    planned(home)
    report = run(_opts(targets=(f"@{S1}",), subagents=False), env_of(home))
    assert [r["session_id"] for r in report.rows] == [S1]


def test_no_target_means_the_calling_session(home: ClaudeHome) -> None:
    planned(home)
    report = run(_opts(), env_of(home, CLAUDE_CODE_SESSION_ID=S2))
    assert [r["session_id"] for r in report.rows] == [S2]
    with pytest.raises(TargetError, match="CLAUDE_CODE_SESSION_ID is unset"):
        run(_opts(), env_of(home))


def test_no_binding_is_an_honest_empty(home: ClaudeHome) -> None:
    home.session(CWD, S1, user("nothing planned"))
    report = run(_opts(targets=(f"@{S1}",)), env_of(home))
    assert (report.rows, report.summary, report.exit_code) == ([], {"plans": 0}, 0)
    assert text_of(report) == ""
    assert any("no plan file is bound" in n for n in report.notes)


def test_a_session_whose_plans_live_in_its_exit_plan_mode_calls_is_told_so(home: ClaudeHome
                                                                        ) -> None:
    """Claude Code 1.x/2.0 kept the plan inside the ExitPlanMode call (no plan file, no
    slug): "the session never entered Plan Mode" was false for a session that proposed
    two plans (real: f852ad25, 1.0.128, four calls)."""
    first = tool_use("ExitPlanMode", {"plan": "## Plan A"}, id="toolu_plan_a")
    second = tool_use("ExitPlanMode", {"plan": "## Plan B"}, id="toolu_plan_b")
    home.session(CWD, S1, user("plan it"), assistant(first), rejection("toolu_plan_a"),
                 assistant(second), plan_approval("toolu_plan_b", "## Plan B", ""))
    report = run(_opts(targets=(f"@{S1}",)), env_of(home))
    assert (report.rows, report.summary, report.exit_code) == ([], {"plans": 0}, 0)
    assert not any("never entered Plan Mode" in n for n in report.notes)
    assert any("no plan file is bound" in n for n in report.notes)
    inline = [n for n in report.notes if "ExitPlanMode" in n]
    assert len(inline) == 1
    assert f"@{S1} (L2, L4)" in inline[0]
    assert f"pysift search ExitPlanMode @{S1} -t agent.tool.use" in inline[0]


def test_a_bound_scope_names_its_sessions_with_inline_plans_too(home: ClaudeHome) -> None:
    """A project's old session beside a bound one: its plans are no rows, and are said."""
    planned(home)
    old = "33333333-3333-4333-8333-333333333333"
    home.session(CWD, old, user("plan it"),
                 assistant(tool_use("ExitPlanMode", {"plan": "## Old"}, id="toolu_old")))
    report = run(_opts(targets=(CWD,)), env_of(home))
    assert [r["session_id"] for r in report.rows] == [S1, S2, AGENT]
    inline = [n for n in report.notes if "ExitPlanMode" in n]
    assert len(inline) == 1 and f"@{old} (L2)" in inline[0]


def test_a_session_whose_own_transcript_is_gone_is_not_sent_back_to_itself(home: ClaudeHome
                                                                           ) -> None:
    """Only its subagents remain (real: K3RN 636e512c): the note said "the plan is the
    parent's: pysift plan @<the same session>", a loop. It now says the session's own
    records are gone and names the slug its subagents inherited."""
    main = home.session(CWD, S1, user("plan"))
    home.subagent(main, AGENT, Session(S1, cwd=CWD, agent_id=AGENT,
                                       slug="stateful-wibbling-scroll").stamp(user("task")))
    main.unlink()
    report = run(_opts(targets=(f"@{S1}",)), env_of(home))
    assert (report.rows, report.exit_code) == ([], 0)
    (note,) = [n for n in report.notes if "no plan file is bound" in n]
    assert f"pysift plan @{S1}" not in note
    assert f"session {S1} has no transcript of its own on disk" in note
    assert "`stateful-wibbling-scroll`" in note
    # with the parent's transcript on disk, a lane target is still sent to its parent
    home.session(CWD, S1, user("plan"))
    report = run(_opts(targets=(f"@{AGENT}",)), env_of(home))
    assert any(f"the plan is the parent's: pysift plan @{S1}" in n for n in report.notes)


def test_invalid_settings_note_reaches_the_report(home: ClaudeHome) -> None:
    planned(home)
    (home.root / "settings.json").write_text("{broken")
    report = run(_opts(targets=(f"@{S2}",)), env_of(home))
    assert report.rows[0]["plan_file"] == f"{home.root}/plans/quiet-harbor-relay.md"
    assert any("is not valid JSON" in n for n in report.notes)


def test_reverse_names_the_binders(home: ClaudeHome, tmp_path: Path) -> None:
    _, plan, _ = planned(home)
    report = run(_opts(reverse=plan), env_of(home))
    assert [r["session_id"] for r in report.rows] == [S1]
    assert text_of(report) == (f"plan     {plan}\nsession  {S1}\nslug     nested-prancing-popcorn\n"
                               f"bound at jsonl L2\n")
    relative = run(_opts(reverse="plans/nested-prancing-popcorn.md"),
                   Env(claude_home=home.root, environ={}, cwd=home.root))
    assert [r["session_id"] for r in relative.rows] == [S1]
    nobody = run(_opts(reverse=str(tmp_path / "nobody.md")), env_of(home))
    assert nobody.rows == [] and any("is bound to no session in scope" in n for n in nobody.notes)


def test_reverse_and_audit_conflict(home: ClaudeHome) -> None:
    with pytest.raises(UsageError, match="pick one"):
        run(_opts(reverse="x.md", audit=True), env_of(home))


def test_audit(home: ClaudeHome) -> None:
    _, plan, _ = planned(home)
    other = f"{home.root}/plans/quiet-harbor-relay.md"
    home.session(CWD, "33333333-3333-4333-8333-333333333333", user("x"),
                 assistant(tool_use("Edit", {"file_path": plan, "old_string": "a",
                                             "new_string": "b"})),
                 assistant(tool_use("Write", {"file_path": other, "content": "x"})))
    report = run(_opts(targets=("@33333333-3333-4333-8333-333333333333",), audit=True),
                 env_of(home))
    assert report.header == {"mode": "audit"}
    edits = [r for r in report.rows if r["kind"] == "plan-edit"]
    assert [(e["path"], e["bound_by_owner"], e["binder_session_id"]) for e in edits] == [
        (plan, False, S1), (other, False, S2)]
    assert report.summary == {"bindings": 0, "plan_files_touched": 2, "warnings": 2,
                              "skipped_lines": 0}
    text = text_of(report)
    assert text.startswith("PLAN AUDIT\nbinds    none")
    assert "[NOT bound by the mutating session]" in text
    assert f"warning: 1 mutation(s) to {plan} by session 33333333" in text


def test_audit_of_a_session_editing_its_own_plan(home: ClaudeHome) -> None:
    plan = str(home.plan("own-plan", "# x\n"))
    home.session(CWD, S1, user("x"), plan_mode(plan),
                 assistant(tool_use("Write", {"file_path": plan, "content": "y"})))
    report = run(_opts(targets=(f"@{S1}",), audit=True), env_of(home))
    assert [r["kind"] for r in report.rows] == ["binding", "plan-edit"]
    assert report.rows[1]["bound_by_owner"] is True
    assert "ok: every audited plan-file edit targets the mutating session's own plan" in text_of(report)
