"""The README says what a new user needs (issue 21 item 18) and stays true: the commands it
calls built are the registered ones, and none of csift's is called unbuilt."""

from __future__ import annotations

import re
from pathlib import Path

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()
CSIFT_COMMANDS = ("list", "search", "show", "stats", "whoami", "plan", "agents", "files",
                  "recover", "verbatim", "image", "status", "wait")


def _named(sentence_start: str) -> list[str]:
    found = re.search(re.escape(sentence_start) + r"(.*?)\.(?:\s|$)", README, re.S)
    assert found, sentence_start
    return re.findall(r"`([a-z]+)`", found.group(1))


def test_the_built_commands_match_the_registry() -> None:
    from pysift.cli.app import COMMAND_MODULES

    built = _named("Built so far")
    assert built == list(COMMAND_MODULES)
    # every csift command is built: the README names none as missing, and says so
    assert set(CSIFT_COMMANDS) <= set(COMMAND_MODULES)
    assert "not built" not in README
    assert "every one\nof csift's thirteen commands" in README


def test_prerequisites_and_examples_a_new_user_can_follow() -> None:
    text = " ".join(README.split())
    assert "Python 3.11 or newer" in text
    assert "jq" in text and "optional" in text
    assert 'export CLAUDE_CONFIG_DIR="$PWD/fixtures/demo-home"' in text
    assert "minutes" in text  # how long the suite takes
    assert "only this project's own workspace has" in text and "skipped" in text
