"""``pysift whoami`` through the real argv path: env reading, @trap, help, exits."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import ClaudeHome, assistant, tool_use, user

S1 = "11111111-1111-4111-8111-111111111111"
AGENT = "a4ca7529859c158c2"
MARKER = "AmberFinchHollow6271"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ClaudeHome:
    h = ClaudeHome(tmp_path / "claude")
    cwd = tmp_path / "w" / "proj"
    cwd.mkdir(parents=True)
    monkeypatch.chdir(cwd)
    main = h.session(str(cwd), S1, user("go"), assistant(tool_use("Task", {"prompt": "p"}, id="tk")))
    h.subagent(main, AGENT, user("task"),
               assistant(tool_use("Bash", {"command": f"pysift whoami @trap:{MARKER}"})),
               meta={"toolUseId": "tk"})
    return h


def test_help(cli) -> None:
    result = cli("whoami", "--help")
    assert result.code == 0
    for needle in ("EXAMPLES", "@trap", '"kind":"identity"', "null", "mtimes"):
        assert needle in result.stdout


def test_env_form(cli, home: ClaudeHome, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", S1)
    result = cli("--claude-home", str(home.root), "whoami", "--format", "json")
    assert result.code == 0, result.stderr
    assert result.header() == {"kind": "header", "command": "whoami"}
    [row] = result.json_rows("identity")
    assert row["session_id"] == S1 and row["path"].endswith(f"{S1}.jsonl")
    assert (row["is_subagent"], row["parent_session_id"], row["depth"]) == (None, None, None)
    assert result.summary() == {"kind": "summary", "identities": 1, "unreadable": 0}
    assert "found in the project dir of the current cwd" in result.stderr


def test_secondary_alias_only_when_the_canonical_is_absent(cli, home: ClaudeHome,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_COMPANION_SESSION_ID", S1)
    monkeypatch.setenv("SECURITYSESSIONID", "186a5")  # the macOS decoy is never read
    result = cli("--claude-home", str(home.root), "whoami")
    assert result.code == 0 and result.stdout.startswith(f"session  {S1}\n")
    assert "$CODEX_COMPANION_SESSION_ID" in result.stderr


def test_no_variable_is_an_error_with_the_next_step(cli, home: ClaudeHome) -> None:
    result = cli("--claude-home", str(home.root), "whoami")
    assert result.code == 1
    assert result.stdout == ""
    assert "will not guess" in result.stderr and "pysift search" in result.stderr


def test_trap_form(cli, home: ClaudeHome, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", S1)
    result = cli("--claude-home", str(home.root), "whoami", f"@trap:{MARKER}", "--format", "json")
    assert result.code == 0, result.stderr
    rows = result.json_rows("identity")
    assert [(r["session_id"], r["depth"], r["is_subagent"]) for r in rows] == [
        (AGENT, 0, True), (S1, 1, False)]


@pytest.mark.parametrize("args, needle", [
    (("@trap:lowercase1234",), "CamelCase"),
    (("@trap:JollyShinyBrook4283",), "RESERVED"),
    (("@trap:QuietRiverStone1111",), "trivial"),
    (("@trap:QuietRiverStone8305",), "was not found"),
    ((f"@{S1}",), "whoami takes no target"),
    (("--format", "yaml"), "is not one of"),
])
def test_bad_input_is_one_clear_error(cli, home: ClaudeHome, monkeypatch: pytest.MonkeyPatch,
                                      args: tuple[str, ...], needle: str) -> None:
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", S1)
    result = cli("--claude-home", str(home.root), "whoami", *args)
    assert result.code != 0
    assert needle in result.stderr
    assert result.stdout == ""


def test_an_unknown_id_is_the_answer_with_its_path_not_found(cli, home: ClaudeHome,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """csift §6.3: the variable's value IS the answer; the path line says not found
    (issue 21 item 7: it exited 1)."""
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", "44444444-4444-4444-8444-444444444444")
    result = cli("--claude-home", str(home.root), "whoami")
    assert result.code == 0
    assert "session  44444444-4444-4444-8444-444444444444" in result.stdout
    assert "path     <not found under" in result.stdout
    assert "check --claude-home" in result.stderr and "error" not in result.stderr


def test_a_bad_alias_value_is_named_by_its_own_variable(cli, home: ClaudeHome,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The error named CLAUDE_CODE_SESSION_ID, which was not even set."""
    monkeypatch.delenv("CLAUDE_CODE_SESSION_ID", raising=False)
    monkeypatch.setenv("CODEX_COMPANION_SESSION_ID", "garbage")
    result = cli("--claude-home", str(home.root), "whoami")
    assert result.code != 0
    assert "CODEX_COMPANION_SESSION_ID='garbage' is not a session uuid" in result.stderr
    # the way forward is one whoami takes (it refuses an `@<uuid>` target)
    assert "@<uuid>" not in result.stderr and "whoami @trap:<marker>" in result.stderr
