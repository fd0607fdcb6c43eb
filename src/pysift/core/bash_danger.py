"""Would Claude Code hold this Bash command for a human "yes"? (csift §6.5, frozen lanes.)

Claude Code asks the human before it runs one kind of shell command even when
permissions are bypassed: a ``rm`` / ``rmdir`` whose operand starts with a bare shell
variable followed by a slash (``rm -rf "$DIR/"*``, ``rmdir ${D}/``), because an empty
variable turns it into a removal at the filesystem root. The check is lexical: the
variable is never resolved, so ``X=/tmp/x; rm -rf $X/*`` is held too. A subagent lane
frozen on such a call is almost certainly waiting for that approval
(``escalation-blocked``); any other frozen call is ``awaiting-execution``.

This module follows the harness's own procedure step for step (csift ported it from the
Claude Code binary): drop line continuations and backtick substitutions, peel leading
``(``/``{``, remove ``$(…)`` and ``(…)`` groups innermost-first until nothing changes,
turn a lone ``&`` into ``;``, split into clauses on ``;``, ``|``, newlines and ``&&``,
and look at each clause that starts with ``rm``/``rmdir`` (after ``VAR=value``
assignments and a path prefix). Its operands are walked left to right: flags, single-
quoted words and redirections (with the target of a bare redirection operator) are
passed over; the first ``$VAR/`` or ``${VAR}/`` operand whose slash is followed by
``*``, ``$``, ``/``, a quote or nothing makes the command dangerous. The harness isolates
statements with a bash parser; here a clause may open with ``do``/``then``/``else``/
``if``/``while``/``until``/``time`` or ``!``, which are peeled first, the same
approximation csift makes.
"""

from __future__ import annotations

import re

__all__ = ["dangerous_rm_target", "is_dangerous_rm"]

_RM_WORD = re.compile(r"\brm(?:dir)?\b")
_CONTINUATION = re.compile(r"\\\r?\n")
_BACKTICKS = re.compile(r"`[^`]*`")
_DOLLAR_GROUP = re.compile(r"\$\([^()]*\)")
_PLAIN_GROUP = re.compile(r"(?<!\$)\([^()]*\)")
_LONE_AMPERSAND = re.compile(r"(?<![<>&])&(?![<>&])")
_CLAUSE_BREAK = re.compile(r"[;|\n\r]|&&")
#: the clause head: assignments, an optional backslash, an optional directory, the verb
_REMOVAL_HEAD = re.compile(
    r"^(?:[A-Za-z_][A-Za-z0-9_]*\+?=\S*\s+)*\\?(?:[^\s=]*/)?(rm|rmdir)(?:\s|$)")
#: an operand naming a path under a bare (possibly empty) variable
_VARIABLE_ROOT = re.compile(
    r"""^"?\$(?:\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)"?/(?:\*|\$|/|["']|$)""")
_REDIRECTION = re.compile(r"^[\d&]*[<>]")
_BARE_REDIRECTION = re.compile(r"^(?:[0-9]+|&)?(?:>>?[|&]?|<<?<?|<>)$")
_LEADING_WORDS = ("do", "then", "else", "elif", "if", "while", "until", "time")


def is_dangerous_rm(command: str) -> bool:
    """True when Claude Code would hold ``command`` for approval (see the module doc)."""
    return dangerous_rm_target(command) is not None


def dangerous_rm_target(command: str) -> str | None:
    """The operand that makes ``command`` a held removal, or None."""
    if "$" not in command or _RM_WORD.search(command) is None:
        return None
    text = _BACKTICKS.sub(" ", _CONTINUATION.sub(" ", command)).lstrip()
    while text[:1] in ("(", "{"):
        text = text[1:].lstrip()
    while True:
        stripped = _PLAIN_GROUP.sub(" ", _DOLLAR_GROUP.sub(" ", text))
        if stripped == text:
            break
        text = stripped
    text = _LONE_AMPERSAND.sub(";", text)
    for clause in _CLAUSE_BREAK.split(text):
        head = _REMOVAL_HEAD.match(_peel_leading_words(clause.lstrip()))
        if head is None:
            continue
        target = _held_operand(head.string[head.end():].split())
        if target is not None:
            return target
    return None


def _peel_leading_words(clause: str) -> str:
    """A clause without the reserved words (and ``!``) that may stand before its command."""
    while True:
        if clause.startswith("!"):
            clause = clause[1:].lstrip()
            continue
        for word in _LEADING_WORDS:
            rest = clause[len(word):]
            if clause.startswith(word) and (not rest or rest[0].isspace()):
                clause = rest.lstrip()
                break
        else:
            return clause


def _held_operand(words: list[str]) -> str | None:
    at = 0
    while at < len(words):
        word = words[at].rstrip(")]}")
        at += 1
        if not word or word[0] in "-'":
            continue
        if _REDIRECTION.match(word):
            if _BARE_REDIRECTION.match(word):
                at += 1  # the redirection's own target is no operand of rm
            continue
        if _VARIABLE_ROOT.match(word):
            return word
    return None
