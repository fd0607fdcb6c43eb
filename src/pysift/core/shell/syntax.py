"""Tokens -> the simple commands of a Bash command string, in the order they run, each
with the shell directory it runs in.

The reading is flat: a command string becomes a sequence of simple commands, each
knowing the operator before it (``;`` ``&&`` ``||`` ``|`` ``&`` newline), whether it sits
in a pipeline or runs in the background, how many subshells ``( ... )`` and
substitutions ``$( ... )`` enclose it, and its shell cwd. Compound syntax is read the
way a lexical pass can: ``if``/``then``/``do``/``{``... at a command's head are stepped
over so ``then rm x`` is the command ``rm x``; ``for``/``case`` headers become harmless
commands of their own.

The cwd follows the shell: a ``cd``/``pushd``/``popd`` moves it for the commands after
it, except inside a subshell, a substitution, a pipeline or a background job (each runs
in a child shell). ``cd -`` goes back, a ``cd`` whose target is not literal (or a bare
``cd``, ``cd ~``) leaves the cwd unknown until a literal absolute ``cd``.
"""

from __future__ import annotations

import re
from dataclasses import field

from pysift.core.shell.lexer import MAX_DEPTH, Redirect, Token, Word, tokenize
from pysift.core.shell.paths import SPAWN, UNKNOWN_CWD, Cwd
from pysift.model.fastdata import dataclass

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")
# Words that open or continue compound syntax at a command's head: stepped over.
_HEAD_KEYWORDS = frozenset(("!", "then", "else", "elif", "do", "if", "while", "until",
                            "{", "}", "fi", "done", "esac", "time", "coproc"))


@dataclass(frozen=True, slots=True)
class Command:
    """One simple command.

    ``index``: its position in ``Script.commands``; ``words``: argv (assignments and
    head keywords removed); ``connector``: the operator before it (``""`` for the first);
    ``piped``/``background``: part of a pipeline / followed by ``&``; ``subshell`` and
    ``substitution``: how many ``( )`` and ``$( )`` (or backtick, ``<( )``) enclose it;
    ``cwd``: the shell directory it runs in; ``text``: its source span (without heredoc
    bodies)."""

    index: int
    words: tuple[Word, ...]
    assignments: tuple[Word, ...]
    redirects: tuple[Redirect, ...]
    connector: str
    piped: bool
    background: bool
    subshell: int
    substitution: int
    cwd: Cwd
    text: str

    @property
    def argv(self) -> tuple[str, ...]:
        return tuple(w.value for w in self.words)

    @property
    def name(self) -> str | None:
        """The program as typed when it is a literal word (``/bin/rm`` stays as is)."""
        if self.words and self.words[0].literal:
            return self.words[0].value
        return None

    @property
    def simple(self) -> bool:
        """Runs in the calling shell with nothing computed: no subshell, substitution,
        pipeline, background, and every word literal."""
        return (not self.subshell and not self.substitution and not self.piped
                and not self.background and all(w.literal for w in self.words))


@dataclass(frozen=True, slots=True)
class Script:
    """A parsed command string. ``complete`` is False when the text could not be read
    cleanly (an unterminated quote or substitution): its operands are then never
    resolved. ``problems`` says what was met (an unterminated heredoc is listed but
    does not make the script incomplete: bash runs it to the end of the text)."""

    source: str
    commands: tuple[Command, ...]
    complete: bool
    problems: tuple[str, ...]

    @property
    def compound(self) -> bool:
        """More than one simple command (a chain, a pipeline, a substitution...)."""
        return len(self.commands) > 1


@dataclass(slots=True)
class _Draft:
    start: int
    words: list[Word] = field(default_factory=list)
    assignments: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    connector: str = ""
    subshell: int = 0
    end: int = 0
    piped: bool = False
    background: bool = False

    def empty(self) -> bool:
        return not (self.words or self.assignments or self.redirects)


# One item of the flat reading: a command draft, or a subshell opening/closing.
_OPEN = "("
_CLOSE = ")"


def _drafts(tokens: list[Token], src: str) -> list[_Draft | str]:
    items: list[_Draft | str] = []
    depth = 0
    connector = ""
    draft = _Draft(0)

    def finish(end: int) -> None:
        nonlocal draft
        if not draft.empty():
            draft.end = end
            draft.connector = connector
            draft.subshell = depth
            items.append(draft)
        draft = _Draft(end)

    for tok in tokens:
        if tok.kind == "word":
            word = tok.word
            assert word is not None
            if draft.empty():
                draft.start = tok.start
            if not draft.words and not word.quoted and word.raw in _HEAD_KEYWORDS:
                continue
            if not draft.words and _ASSIGNMENT.match(word.raw):
                draft.assignments.append(word)
                continue
            draft.words.append(word)
        elif tok.kind == "redir":
            assert tok.redirect is not None
            if draft.empty():
                draft.start = tok.start
            draft.redirects.append(tok.redirect)
        else:
            op = tok.op
            if op == "(":
                if draft.words:  # `name()` of a function definition: not a subshell
                    continue
                finish(tok.start)
                items.append(_OPEN)
                depth += 1
                connector = ""
                continue
            if op == ")":
                finish(tok.start)
                if depth:
                    items.append(_CLOSE)
                    depth -= 1
                continue
            if op in ("|", "|&"):
                draft.piped = True
                finish(tok.start)
                connector = op
                continue
            if op == "&":
                draft.background = True
            finish(tok.start)
            connector = op
    finish(len(src))
    # a command after `|` is in the pipeline too
    prev: _Draft | None = None
    for item in items:
        if isinstance(item, _Draft):
            if item.connector in ("|", "|&") and prev is not None:
                item.piped = True
            prev = item
        else:
            prev = None
    return items


def _cd_target(words: tuple[Word, ...] | list[Word]) -> Word | None:
    """The directory operand of a ``cd``/``pushd`` (its flags skipped)."""
    for word in words[1:]:
        value = word.value
        if value == "--":
            continue
        if value.startswith("-") and value != "-" and word.literal and len(value) <= 3:
            continue
        return word
    return None


class _CwdState:
    def __init__(self, start: Cwd) -> None:
        self.cur = start
        self.prev: Cwd | None = None
        self.stack: list[Cwd] = []

    def copy(self) -> _CwdState:
        other = _CwdState(self.cur)
        other.prev = self.prev
        other.stack = list(self.stack)
        return other

    def move(self, nxt: Cwd) -> None:
        self.prev, self.cur = self.cur, nxt

    def apply(self, words: tuple[Word, ...]) -> None:
        name = words[0].value if words and words[0].literal else None
        if name == "popd":
            self.move(self.stack.pop() if self.stack else UNKNOWN_CWD)
            return
        if name not in ("cd", "pushd", "chdir"):
            return
        target = _cd_target(words)
        if name == "pushd":
            self.stack.append(self.cur)
        if target is None:
            self.move(UNKNOWN_CWD)  # `cd` alone goes to $HOME
            return
        value = target.value
        if value == "-" and target.literal:
            back = self.prev
            if back is None:
                self.move(UNKNOWN_CWD)
            else:
                self.move(Cwd("rel", "") if back.kind == "spawn" else back)
            return
        if not target.literal or not value:
            self.move(UNKNOWN_CWD)
            return
        self.move(self.cur.cd(value))


class _Builder:
    def __init__(self, src: str) -> None:
        self.src = src
        self.commands: list[Command] = []
        self.problems: list[str] = []

    def read(self, src: str, state: _CwdState, substitution: int, depth: int) -> None:
        tokens, problems = tokenize(src, depth)
        self.problems.extend(problems)
        items = _drafts(tokens, src)
        saved: list[_CwdState] = []
        for item in items:
            if item == _OPEN:
                saved.append(state)
                state = state.copy()
                continue
            if item == _CLOSE:
                if saved:
                    state = saved.pop()
                continue
            assert isinstance(item, _Draft)
            here = state.cur
            inner = [s for w in (*item.words, *item.assignments) for s in w.inner]
            inner += [s for r in item.redirects if r.target is not None for s in r.target.inner]
            if depth + 1 < MAX_DEPTH:
                for sub in inner:
                    self.read(sub, state.copy(), substitution + 1, depth + 1)
            words = tuple(item.words)
            self.commands.append(Command(
                index=len(self.commands), words=words, assignments=tuple(item.assignments),
                redirects=tuple(item.redirects), connector=item.connector,
                piped=item.piped, background=item.background, subshell=item.subshell,
                substitution=substitution, cwd=here,
                text=src[item.start:item.end].strip(),
            ))
            if words and not item.piped and not item.background:
                state.apply(words)


def parse(source: str, start: Cwd = SPAWN) -> Script:
    """Read ``source`` into its simple commands (never raises)."""
    if not isinstance(source, str):
        return Script("", (), False, ("not a string",))
    builder = _Builder(source)
    try:
        builder.read(source, _CwdState(start), 0, 0)
    except RecursionError:  # pragma: no cover - MAX_DEPTH bounds the recursion
        builder.problems.append("nested too deep to read")
    blocking = tuple(p for p in builder.problems if not p.startswith("here-document delimited"))
    return Script(source, tuple(builder.commands), not blocking, tuple(builder.problems))
