"""Text output on a terminal (issue 21 items 15-17): what a transcript stores can never drive
the reader's terminal, colour only where asked, and the small CLI conveniences."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from builders import ClaudeHome, Session, assistant, text, tool_result, tool_use, user

SID = "21212121-0015-4000-8000-000000000015"
REPO = Path(__file__).resolve().parents[2]
# what a hostile or merely colourful transcript holds: clear screen, a window title (OSC,
# BEL-terminated), a carriage return that rewrites the line, an 8-bit CSI, coloured output
PROMPT = "clear \x1b[2J\x1b]0;pwned\x07 then\rOVERWRITE and \x9b31m C1"
OUTPUT = "\x1b[32mPASSED\x1b[0m 3 tests\x1b[K"
SGR = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture
def loud(tmp_path: Path) -> Path:
    home = ClaudeHome(tmp_path / "claude")
    s = Session(SID, cwd="/w")
    s.add(user(PROMPT))
    s.add(assistant(text("running"), tool_use("Bash", {"command": "pytest"}, id="t1")))
    s.add(tool_result("t1", OUTPUT))
    s.add(assistant(text("tests PASSED")))
    home.session("/w", SID, s)
    return home.root


def _raw_controls(text_out: str) -> set[str]:
    return {c for c in text_out if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F}


@pytest.mark.parametrize("argv", [
    ("show", f"@{SID}", "--turn", "0"),
    ("search", "clear", f"@{SID}"),
    ("search", "PASSED", f"@{SID}", "--no-truncate"),
    ("search", "", f"@{SID}", "--siblings"),
    ("list",),
    ("list", "--max-count", "0"),  # uncapped: each row laid out (and checked) on its own
])
def test_text_output_shows_controls_as_escapes(cli, loud: Path, argv) -> None:
    result = cli("--claude-home", str(loud), *argv)
    assert result.code == 0, result.stderr
    assert _raw_controls(result.stdout) == set()
    assert r"\x1b" in result.stdout


def test_a_listing_spread_over_the_pool_still_escapes_the_row_that_needs_it(
        cli, tmp_path: Path) -> None:
    """Enough sessions for the worker pool: the rows are laid out there, and the one
    holding controls is escaped however the others came out."""
    home = ClaudeHome(tmp_path / "claude")
    for i in range(60):
        sid = f"21212121-0015-4000-8000-{i:012d}"
        s = Session(sid, cwd="/w")
        s.add(user(PROMPT if i == 37 else f"plain prompt {i}"))
        s.add(assistant(text("done")))
        home.session("/w", sid, s)
    result = cli("--claude-home", str(home.root), "list", "--max-count", "0")
    assert result.code == 0, result.stderr
    assert _raw_controls(result.stdout) == set()
    assert r"clear \x1b[2J\x1b]0;pwned\x07 then OVERWRITE" in result.stdout
    assert result.stdout.count("SESSION  ") == 60


def test_rows_encoded_in_the_workers_are_the_bytes_the_text_writer_gives(
        cli, tmp_path: Path, monkeypatch) -> None:
    """On a plain UTF-8 stdout a listing's rows leave the workers as bytes: the same bytes
    the text writer makes of them (controls escaped, a lone surrogate spelled out, emoji
    and the row glyphs as UTF-8)."""
    home = ClaudeHome(tmp_path / "claude")
    prompts = [PROMPT, "a cut emoji \ud83d here", "emoji 🚀 and ✓ and ü", "plain"]
    for i in range(60):
        sid = f"21212121-0015-4000-8000-{i:012d}"
        s = Session(sid, cwd=f"/w/{i % 3}")
        s.add(user(prompts[i % len(prompts)]))
        s.add(assistant(text(f"done {prompts[(i + 1) % len(prompts)]}")))
        home.session(f"/w/{i % 3}", sid, s)
    argv = ("--claude-home", str(home.root), "list", "--max-count", "0")
    encoded = cli(*argv)
    assert encoded.code == 0, encoded.stderr
    monkeypatch.setattr("pysift.cli.options.plain_utf8", lambda stream: False)
    written = cli(*argv)
    assert written.code == 0, written.stderr
    assert encoded.stdout_bytes == written.stdout_bytes
    assert rb"a cut emoji \ud83d here" in encoded.stdout_bytes
    assert "🚀".encode() in encoded.stdout_bytes


def test_the_escapes_name_each_control(cli, loud: Path) -> None:
    shown = cli("--claude-home", str(loud), "show", f"@{SID}", "--line", "1").stdout
    # (a typed prompt is whitespace-normalized: its carriage return became a space)
    assert r"clear \x1b[2J\x1b]0;pwned\x07 then OVERWRITE and \x9b31m C1" in shown
    result = cli("--claude-home", str(loud), "show", f"@{SID}", "--line", "3").stdout
    assert r"\x1b[32mPASSED\x1b[0m 3 tests\x1b[K" in result


def test_json_and_raw_stay_byte_faithful(cli, loud: Path) -> None:
    as_json = cli("--claude-home", str(loud), "show", f"@{SID}", "--line", "1", "--format",
                  "json")
    assert as_json.json_rows("record")[0]["text"] == PROMPT.replace("\r", " ")
    raw = cli("--claude-home", str(loud), "show", f"@{SID}", "--line", "1", "--raw")
    line = (loud / "projects" / "-w" / f"{SID}.jsonl").read_bytes().split(b"\n")[0]
    assert raw.stdout_bytes == line + b"\n"
    searched = cli("--claude-home", str(loud), "search", "PASSED", f"@{SID}", "-t",
                   "agent.tool.result", "--raw")
    assert orjson.loads(searched.stdout_bytes)["message"]["content"][0]["content"] == OUTPUT


def test_stderr_quotes_back_without_obeying(cli, loud: Path) -> None:
    """A pattern (or a path) holding a control character is echoed by the diagnosis."""
    result = cli("--claude-home", str(loud), "search", "nowhere\x1b\\[2J", f"@{SID}", "-t",
                 "agent.message")
    assert result.code == 0
    assert _raw_controls(result.stderr) == set()
    assert r'"nowhere\x1b\[2J" is genuinely absent' in result.stderr


@given(st.text())
def test_prop_visible_leaves_no_control_but_newline_and_tab(value: str) -> None:
    from pysift.output.terminal import visible

    shown = visible(value)
    assert _raw_controls(shown) == set()
    if not _raw_controls(value):
        assert shown == value  # text without controls is never touched


# -- item 16: colour like ripgrep, only where asked ---------------------------------------------

def test_color_always_paints_ids_labels_lines_and_matches(cli, loud: Path) -> None:
    result = cli("--claude-home", str(loud), "search", "then", f"@{SID}", "--color",
                 "always")
    out = result.stdout
    assert "\x1b[1;31mthen\x1b[0m" in out       # the match, bold red
    assert "\x1b[32mL1\x1b[0m" in out           # the line number, green
    assert "\x1b[36m◂ user.message\x1b[0m" in out  # the label zone
    assert "\x1b[1m21212121·t0\x1b[0m" in out    # the exchange's id token
    # the transcript's own escapes are still shown, never passed through
    assert "\x1b[2J" not in out and r"\x1b[2J" in out
    plain = SGR.sub("", out)
    assert plain == cli("--claude-home", str(loud), "search", "then", f"@{SID}").stdout


@pytest.mark.parametrize("argv", [("search", "then", "--format", "json"),
                                  ("search", "then", "--raw"), ("search", "then", "-c"),
                                  ("list", "--format", "json"), ("stats", "--format", "json")])
def test_json_raw_and_counts_are_never_coloured(cli, loud: Path, argv) -> None:
    coloured = cli("--claude-home", str(loud), "--color", "always", *argv)
    plain = cli("--claude-home", str(loud), "--color", "never", *argv)
    assert coloured.stdout_bytes == plain.stdout_bytes


def test_colour_never_reaches_a_pipe_or_a_file_by_default(cli, loud: Path) -> None:
    for argv in (("search", "then"), ("show", f"@{SID}", "--turn", "0"), ("list",),
                 ("stats",)):
        result = cli("--claude-home", str(loud), *argv)
        assert "\x1b[" not in result.stdout, argv


def _on_a_terminal(*args: str, **env: str) -> str:
    """Run pysift with stdout on a pseudo-terminal; what it wrote there."""
    import pty

    leader, follower = pty.openpty()
    environ = {k: v for k, v in os.environ.items()
               if k not in ("NO_COLOR", "CLAUDE_CONFIG_DIR", "CLAUDE_CODE_SESSION_ID")}
    environ.update({"PYTHONPATH": str(REPO / "src"), "TERM": "xterm-256color", **env})
    try:
        done = subprocess.run([sys.executable, "-m", "pysift", *args], stdout=follower,
                              stderr=subprocess.PIPE, env=environ, timeout=60, check=False)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
    assert done.returncode == 0, done.stderr
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.e2e
def test_auto_colours_a_terminal_unless_no_color_or_a_dumb_one(loud: Path) -> None:
    args = ("--claude-home", str(loud), "search", "then", f"@{SID}")
    assert "\x1b[1;31mthen" in _on_a_terminal(*args)
    assert "\x1b[" not in _on_a_terminal(*args, NO_COLOR="1")
    assert "\x1b[" not in _on_a_terminal(*args, TERM="dumb")
    assert "\x1b[" not in _on_a_terminal(*args, "--color", "never")
    assert "\x1b[1;31mthen" in _on_a_terminal(*args, "--color", "always", NO_COLOR="1")


def test_a_bad_color_value_is_a_usage_error_with_the_nearest(cli) -> None:
    result = cli("list", "--color", "allways")
    assert result.code == 2
    assert "--color 'allways' is not one of never, auto, always (did you mean `always`?)" \
        in result.stderr


def test_stats_text_numbers_have_thousands_separators(cli, tmp_path: Path) -> None:
    from builders import usage

    home = ClaudeHome(tmp_path / "claude")
    s = Session(SID, cwd="/w")
    s.add(user("count"))
    s.add(assistant(text("ok"), usage=usage(input_tokens=1234, output_tokens=56789,
                                              cache_read=1234567, cache_write=9000)))
    home.session("/w", SID, s)
    out = cli("--claude-home", str(home.root), "stats").stdout
    assert "in 1,234 · out 56,789 · cache-read 1,234,567 · cache-write 9,000" in out
    as_json = cli("--claude-home", str(home.root), "stats", "--format", "json")
    assert as_json.json_rows("session")[0]["tokens"]["claude-opus-4-6"]["cache_read"] \
        == 1234567


# -- item 17: the small ones ---------------------------------------------------------------------

def test_line_zero_says_lines_are_one_based(cli, loud: Path) -> None:
    result = cli("--claude-home", str(loud), "show", f"@{SID}", "--line", "0")
    assert result.code == 2
    assert "lines are 1-based" in result.stderr


def test_a_mistyped_selector_gets_a_did_you_mean(cli, loud: Path) -> None:
    result = cli("--claude-home", str(loud), "search", "x", "-t", "usr")
    assert result.code == 2
    assert "'usr' is not a label selector (did you mean `user`?)" in result.stderr
    axis = cli("--claude-home", str(loud), "search", "x", "--count-by", "lable")
    assert "(did you mean `label`?)" in axis.stderr


def test_dash_e_takes_a_pattern_that_starts_with_a_dash(cli, tmp_path: Path) -> None:
    home = ClaudeHome(tmp_path / "claude")
    s = Session(SID, cwd="/w")
    s.add(user("run it with --no-verify please"))
    s.add(assistant(text("ok")))
    home.session("/w", SID, s)
    found = cli("--claude-home", str(home.root), "search", "-e", "--no-verify", f"@{SID}",
                "-c")
    assert found.code == 0 and found.stdout == "1\n"
    # with -e every positional is a target
    again = cli("--claude-home", str(home.root), "search", f"@{SID}", "-e", "--no-verify",
                "-c")
    assert again.stdout == "1\n"


@pytest.mark.parametrize("flag", ["--since", "--until"])
@pytest.mark.parametrize("value", ["yesterday", "2026-13-01-and-a-very-long-typed-value"])
def test_a_bad_when_is_one_short_line_and_help_has_every_form(cli, flag, value) -> None:
    result = cli("stats", flag, value)
    assert result.code == 2
    (line,) = result.stderr.splitlines()
    assert len(line) < 200
    assert "every form in --help" in line
    helped = " ".join(cli("stats", "--help").stdout.split())
    for form in ("2026-06-07T14:00:00Z", "2026-06-07 14:00:05", "2mo", "1y", "now"):
        assert form in helped
