"""``pysift plan`` through the real argv path: help, forward/reverse/audit, exits."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import ClaudeHome, attachment, user

S1 = "11111111-1111-4111-8111-111111111111"
CWD = "/w/proj"


@pytest.fixture
def home(tmp_path: Path) -> ClaudeHome:
    h = ClaudeHome(tmp_path / "claude")
    plan = h.plan("nested-prancing-popcorn", "# plan\n")
    h.session(CWD, S1, user("plan"), attachment("plan_mode", {
        "isSubAgent": False, "planFilePath": str(plan), "planExists": True}))
    return h


def test_help(cli) -> None:
    result = cli("plan", "--help")
    assert result.code == 0
    for needle in ("EXAMPLES", "--reverse", "--audit", '"binding_source":"plan_mode"|"slug-only"',
                   "plansDirectory"):
        assert needle in result.stdout


def test_forward_json(cli, home: ClaudeHome) -> None:
    result = cli("--claude-home", str(home.root), "plan", f"@{S1}", "--format", "json")
    assert result.code == 0, result.stderr
    assert result.header() == {"kind": "header", "command": "plan"}
    [row] = result.json_rows("plan")
    assert row["plan_exists"] is True and row["line"] == 2
    assert result.summary() == {"kind": "summary", "plans": 1, "unreadable": 0}


def test_calling_session_default(cli, home: ClaudeHome, monkeypatch: pytest.MonkeyPatch) -> None:
    assert cli("--claude-home", str(home.root), "plan").code == 1
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", S1)
    result = cli("--claude-home", str(home.root), "plan")
    assert result.code == 0 and "[exists]" in result.stdout


def test_reverse_text(cli, home: ClaudeHome) -> None:
    plan = home.root / "plans" / "nested-prancing-popcorn.md"
    result = cli("--claude-home", str(home.root), "plan", "--reverse", str(plan))
    assert result.code == 0
    assert result.stdout == f"plan     {plan}\nsession  {S1}\nbound at jsonl L2\n"


def test_empty_is_exit_0(cli, home: ClaudeHome, tmp_path: Path) -> None:
    home.session(CWD, "22222222-2222-4222-8222-222222222222", user("no plan"))
    result = cli("--claude-home", str(home.root), "plan", "@22222222-2222-4222-8222-222222222222")
    assert (result.code, result.stdout) == (0, "")
    assert "no plan file is bound" in result.stderr
    json_result = cli("--claude-home", str(home.root), "plan",
                      "@22222222-2222-4222-8222-222222222222", "--format", "json")
    assert json_result.summary()["plans"] == 0


def test_audit_header_and_conflict(cli, home: ClaudeHome) -> None:
    result = cli("--claude-home", str(home.root), "plan", f"@{S1}", "--audit", "--format", "json")
    assert result.header()["mode"] == "audit"
    assert [r["kind"] for r in result.json_rows()][1:-1] == ["binding"]
    clash = cli("--claude-home", str(home.root), "plan", "--audit", "--reverse", "x.md")
    assert clash.code == 2 and "pick one" in clash.stderr


def test_real_forked_session_binds_by_slug(cli, real_home: Path) -> None:
    sid = "9fc1e192-8e23-499e-a8e0-705727373284"  # no plan_mode; slug minted at a compaction
    result = cli("--claude-home", str(real_home), "plan", f"@{sid}", "--format", "json")
    [row] = result.json_rows("plan")
    assert (row["binding_source"], row["minted_at_compaction"], row["line"]) == (
        "slug-only", True, 392)
    assert row["plan_file"].endswith("/plans/luminous-growing-penguin.md")


def test_a_plan_recorded_under_another_home_is_found_in_this_one(cli, demo_home) -> None:
    """The demo home was recorded at /home/ada/.claude: the plan_mode record names that
    path, and the same file sits in this home's plans/ dir (SPEC §11)."""
    result = cli("--claude-home", str(demo_home), "plan", "@3f6c1e2a", "--format", "json")
    assert result.code == 0, result.stderr
    (row,) = result.json_rows("plan")
    assert row["plan_exists"] is True
    assert row["plan_file"] == str(demo_home / "plans" / "quiet-orbiting-lovelace.md")
    assert "/home/ada/.claude/plans/quiet-orbiting-lovelace.md does not exist" in result.stderr


def test_a_relocated_plan_still_answers_to_its_recorded_path(cli, demo_home) -> None:
    """Once the plan was found in this home's plans/, `--reverse` of the path the records
    name found nobody and `--audit` matched no edit of it."""
    recorded = "/home/ada/.claude/plans/quiet-orbiting-lovelace.md"
    result = cli("--claude-home", str(demo_home), "plan", "--reverse", recorded,
                 "--format", "json")
    assert result.code == 0, result.stderr
    assert [r["session_id"] for r in result.json_rows("plan")] == [
        "3f6c1e2a-8b4d-4c7e-9a15-2d8e0b7f4c61"]


def test_no_target_is_the_calling_session_whoami_names(cli, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """One id in two project dirs: `plan` printed both dirs' plans, `whoami` one file
    (the encoded $PWD dir first)."""
    h = ClaudeHome(tmp_path / "claude")
    here, there = tmp_path / "proj", tmp_path / "other"
    here.mkdir()
    mine, other = h.plan("plan-of-proj", "# a\n"), h.plan("plan-of-other", "# b\n")
    h.session(str(here), S1, user("here"), attachment("plan_mode", {
        "isSubAgent": False, "planFilePath": str(mine), "planExists": True}))
    h.session(str(there), S1, user("there"), attachment("plan_mode", {
        "isSubAgent": False, "planFilePath": str(other), "planExists": True}))
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", S1)
    monkeypatch.chdir(here)
    result = cli("--claude-home", str(h.root), "plan", "--format", "json")
    assert [r["plan_file"] for r in result.json_rows("plan")] == [str(mine)]
    who = cli("--claude-home", str(h.root), "whoami", "--format", "json")
    assert who.json_rows("identity")[0]["path"].startswith(str(h.root / "projects"))


def test_reverse_with_no_binder_prints_nothing_on_stdout(cli, home: ClaudeHome) -> None:
    result = cli("--claude-home", str(home.root), "plan", "--reverse", "/nowhere/plan.md")
    assert (result.code, result.stdout) == (0, "")
    assert "is bound to no session in scope" in result.stderr


def test_a_subagent_alone_is_told_that_its_plan_is_its_parents(cli, demo_home) -> None:
    """Its records carry the parent's slug: "the session never entered Plan Mode" was
    false."""
    result = cli("--claude-home", str(demo_home), "plan", "@a4f1c9e27b3d8a605")
    assert result.code == 0
    assert "never entered Plan Mode" not in result.stderr
    assert "the plan is the parent's: pysift plan @3f6c1e2a-8b4d-4c7e-9a15-2d8e0b7f4c61" \
        in result.stderr
