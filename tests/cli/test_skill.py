"""``pysift skill``: a SKILL.md whose every command and flag exists in the built CLI."""

from __future__ import annotations

import re
import shlex

import pytest
import typer

from pysift.cli.app import app, register

FENCE = re.compile(r"```[a-z]*\n(.*?)```", re.S)
SPAN = re.compile(r"`([^`\n]+)`")
LONG_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


@pytest.fixture(scope="module")
def tree():
    register()
    root = typer.main.get_command(app)
    flags = {name: {o for p in cmd.params for o in (*p.opts, *getattr(p, "secondary_opts", ()))
                    if getattr(p, "param_type_name", "") == "option"} | {"-h", "--help"}
             for name, cmd in root.commands.items()}
    root_flags = {o for p in root.params for o in (*p.opts, *p.secondary_opts)} | {"--help"}
    return root, flags, root_flags


@pytest.fixture(scope="module")
def skill() -> str:
    from clirun import run_cli

    result = run_cli("skill")
    assert result.code == 0, result.stderr
    return result.stdout


def _snippets(text: str) -> list[str]:
    blocks = FENCE.findall(text)
    rest = FENCE.sub("", text)
    lines = [ln for block in blocks for ln in block.splitlines()]
    return lines + SPAN.findall(rest)


def _invocations(snippet: str) -> list[list[str]]:
    """Each ``pysift …`` command line in a snippet, as tokens (pipes and $( ) split)."""
    out = []
    code = snippet.split(" #", 1)[0]
    for part in re.split(r"\||\$\(|;|&&", code):
        part = part.strip()
        if not part.startswith("pysift "):
            continue
        try:
            tokens = shlex.split(part.rstrip(")"))
        except ValueError:
            tokens = part.split()
        out.append(tokens[1:])
    return out


def test_frontmatter_names_the_skill_and_says_when(skill):
    assert skill.startswith("---\nname: pysift\ndescription: ")
    head, _, body = skill[4:].partition("\n---\n")
    assert "Claude Code session transcripts" in head
    assert body.lstrip().startswith("# pysift")
    for section in ("## When to reach for it", "## The envelope law", "## jq recipes",
                    "## Refetching", "## Exit codes", "## What is heuristic",
                    "## Command reference"):
        assert section in body, section


def test_the_envelope_law_names_both_counts(skill):
    """An agent reading the skill learns that a summary counts malformed lines and the
    files that could not be read (issue 21: an answer about part of the scope says so)."""
    law = skill.split("## The envelope law", 1)[1].split("\n## ", 1)[0]
    assert "`skipped_lines`" in law and "`unreadable`" in law


def test_every_command_and_flag_the_skill_names_exists(skill, tree):
    _root, flags, root_flags = tree
    checked = 0
    for snippet in _snippets(skill):
        for tokens in _invocations(snippet):
            while tokens and tokens[0] in root_flags:
                tokens = tokens[2:] if tokens[0] == "--claude-home" else tokens[1:]
            if not tokens or tokens[0].startswith("<"):
                continue
            command = tokens[0]
            assert command in flags, f"`pysift {command}` is not a built command: {snippet}"
            for token in tokens[1:]:
                if not token.startswith("-") or re.match(r"^-\d|^-k|^-$|^-[a-z]\.", token):
                    continue
                flag = token.split("=", 1)[0]
                assert flag in flags[command] | root_flags, f"{command} has no {flag}: {snippet}"
                checked += 1
    assert checked > 15
    every = set().union(*flags.values()) | root_flags
    for flag in LONG_FLAG.findall(skill):
        assert flag in every, f"no command takes {flag}"


def test_the_reference_covers_every_registered_command(skill, tree):
    root, _, _ = tree
    for name in root.commands:
        assert f"### pysift {name}\n" in skill, name
    assert "### pysift archive" in skill and "--lock-timeout" in skill


def test_the_prose_says_when_to_reach_for_every_command(skill, tree):
    """The reference lists every command; the prose an agent reads first must name each
    one too (a command added without a "when to reach for it" line is one no agent uses)."""
    root, _, _ = tree
    prose = skill.partition("## Command reference")[0]
    when = prose.partition("## When to reach for it")[2].partition("\n## ")[0]
    for name in root.commands:
        if name != "skill":
            assert f"`pysift {name} " in when or f"`pysift {name}`" in when, name


def test_a_flag_the_cli_lacks_would_fail_the_check(tree):
    _, flags, root_flags = tree
    (tokens,) = _invocations("pysift search x --no-such-flag")
    assert "--no-such-flag" not in flags[tokens[0]] | root_flags


def test_help_says_where_to_put_it(cli):
    result = cli("skill", "--help")
    assert "pysift skill > ~/.claude/skills/pysift/SKILL.md" in result.stdout
