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

Which commands run is followed too (``_Flow``): every way the string can have run so far
is kept as a shell state and the status its last command left (ok or failed). A command
after ``&&`` runs in the ok ones, after ``||`` in the failed ones; an ``if`` body in the
ones whose condition held, the ``else`` in the others, a loop body and a ``case`` arm
beside the ways that skip them; ``exit``/``return`` end a way. A command's cwd is the one
all the ways that run it agree on, else unknown: ``cd a || cd b; touch f`` and ``[ -d x ]
&& cd x; touch f`` leave ``f`` unresolved, ``cd x && touch f`` is in ``x``. A ``cd``
is presumed to succeed (SPEC §4.9's inference) unless its failure is taken up: a failed
``cd`` continues only into an ``||`` or an ``if``/``while`` test; at the end of its
and-or list (``;``, newline) the failure is dropped while a way where it succeeded
remains, so ``cd x; touch f`` stays in ``x`` while ``cd x || true; touch f`` is unknown.
A loop whose text holds a ``cd`` starts from an unknown cwd (a second pass begins where
the first ended).

The same flow says which commands CERTAINLY run, exactly once, when the whole string ends
with status 0 (``Command.certain``, what recover asks before it replays a write): a
top-level command in no ``if``/loop/``case`` body, no ``{ }`` group (a function body is
one), after no ``exit``/``return``/``exec``, not in a list sent to the background, and
either reached by every way (a ``cd`` presumed to succeed, unless its stderr is
redirected) or joined by ``&&`` to the end of the string (the final status 0 then proves
it ran).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import field

from pysift.core.shell.lexer import MAX_DEPTH, Lexer, Redirect, Token, Word, tokenize
from pysift.core.shell.paths import SPAWN, UNKNOWN_CWD, Cwd
from pysift.core.shell.refusal import Refusal, reading
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
    bodies); ``certain``: it runs, exactly once, whenever the string as a whole ends with
    status 0 (see the module docstring)."""

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
    certain: bool = False

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
    does not make the script incomplete: bash runs it to the end of the text).

    ``refusal``: the shell's parser refuses the string (a syntax error, ``refusal``):
    the command line holding the error, and every one after it, never ran, so
    ``commands`` are only those of the complete lines before it (bash ran them; zsh,
    which parses the whole string first, did not), none ``certain`` (the string cannot
    have ended with status 0). A refused one-line command has no commands at all."""

    source: str
    commands: tuple[Command, ...]
    complete: bool
    problems: tuple[str, ...]
    refusal: Refusal | None = None

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
    keywords: list[str] = field(default_factory=list)  # head keywords stepped over
    defines: bool = False  # ``name()``: the head of a function definition

    def empty(self) -> bool:
        return not (self.words or self.assignments or self.redirects)


# One item of the flat reading: a command draft (or a draft holding only head keywords:
# ``fi``, ``done``...), a subshell opening (with the operator before it) or its closing.
_OPEN = "("
_CLOSE = ")"
_CLOSE_BACKGROUND = ")&"  # a subshell closed and sent to the background: ``( ... ) &``
_Item = _Draft | tuple[str, str] | str


def _drafts(tokens: list[Token], src: str, zsh_braces: bool = False) -> list[_Item]:
    """The drafts and subshell marks of ``tokens``. ``zsh_braces``: a ``}`` word after
    a command's first word, inside a ``{`` group, ends the command and closes the group
    (zsh's reading of ``{ rm a }``, kept where bash refuses the string: refusal.reading)."""
    items: list[_Item] = []
    depth = 0
    connector = ""
    draft = _Draft(0)
    braces = [0]  # `{` groups open, per subshell level

    def finish(end: int) -> None:
        nonlocal draft
        if not draft.empty() or draft.keywords:
            draft.end = end
            draft.connector = connector
            draft.subshell = depth
            items.append(draft)
        draft = _Draft(end)

    for tok in tokens:
        if tok.kind == "word":
            word = tok.word
            assert word is not None
            if (zsh_braces and draft.words and word.raw == "}" and braces[-1]
                    and not word.quoted):
                finish(tok.start)  # `{ rm a }`: as `{ rm a; }`
                connector = ";"
            if draft.empty():
                draft.start = tok.start
            if not draft.words and not word.quoted and word.raw in _HEAD_KEYWORDS:
                draft.keywords.append(word.raw)
                if word.raw == "{":
                    braces[-1] += 1
                elif word.raw == "}" and braces[-1]:
                    braces[-1] -= 1
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
                    draft.defines = True
                    continue
                finish(tok.start)
                items.append((_OPEN, connector))
                braces.append(0)
                depth += 1
                connector = ""
                continue
            if op == ")":
                finish(tok.start)
                if depth:
                    items.append(_CLOSE)
                    braces.pop()
                    depth -= 1
                continue
            if op in ("|", "|&"):
                draft.piped = True
                finish(tok.start)
                connector = op
                continue
            if op == "&":
                draft.background = True
                if draft.empty() and not draft.keywords and items and items[-1] == _CLOSE:
                    items[-1] = _CLOSE_BACKGROUND
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


_CD_NAMES = frozenset(("cd", "pushd", "popd", "chdir"))
# Operators that end an and-or list (``""``: the first command of a string or a subshell).
_LIST_ENDS = frozenset(("", ";", "\n", "&", ";;", ";&", ";;&"))
_CASE_ARM_ENDS = frozenset((";;", ";&", ";;&"))
_MAX_WAYS = 32  # more distinct ways than this: the cwd is unknown

# The status a way's last command left: ok, failed, or a ``cd`` that failed (kept apart:
# it is dropped at the end of its and-or list unless taken up, see the module docstring).
_OK, _FAIL, _CD_FAIL = 0, 1, 2
_Way = tuple[_CwdState, int]


def _key(way: _Way) -> tuple[object, ...]:
    state, status = way
    return (state.cur, state.prev, tuple(state.stack), status)


def _dedupe(ways: list[_Way]) -> list[_Way]:
    seen: dict[tuple[object, ...], _Way] = {}
    for way in ways:
        seen.setdefault(_key(way), way)
    out = list(seen.values())
    if len(out) > _MAX_WAYS:
        return [(_CwdState(UNKNOWN_CWD), _OK), (_CwdState(UNKNOWN_CWD), _FAIL)]
    return out


def _unknown(way: _Way) -> _Way:
    state = way[0].copy()
    state.cur, state.prev = UNKNOWN_CWD, None
    return state, way[1]


@dataclass(slots=True)
class _Frame:
    """An open ``if`` / loop / ``case``: the ways that entered it, the ways waiting for
    the next branch (an ``if`` whose test failed), and the ways that left it."""

    kind: str
    entry: list[_Way]
    pending: list[_Way] = field(default_factory=list)
    exits: list[_Way] = field(default_factory=list)


def _loop_has_cd(items: list[_Item], start: int) -> bool:
    """Whether the loop opened at ``items[start]`` holds a ``cd`` of its own shell (up to
    its ``done``; subshells, pipelines and background jobs excluded)."""
    nesting = 0
    parens = 0
    for item in items[start:]:
        if isinstance(item, tuple):
            parens += 1
            continue
        if isinstance(item, str):
            parens -= 1
            if parens < 0:
                return False
            continue
        for keyword in item.keywords:
            if keyword == "do":
                nesting += 1
            elif keyword == "done":
                nesting -= 1
                if nesting <= 0:
                    return False
        words = item.words
        if (parens == 0 and words and words[0].literal and words[0].value in _CD_NAMES
                and not item.piped and not item.background):
            return True
    return False


# Keywords after which a ``;`` or a newline does not end an and-or list the way a plain
# command's does: a test's status decides ``then``/``do``, and a body's last status is its
# compound's (``cd a; fi && …`` takes a failed ``cd`` up)
_NO_LIST_END = frozenset({"then", "do", "fi", "done", "esac", "else", "elif"})


class _Flow:
    """The ways one command string (or subshell, or substitution) can have run so far."""

    def __init__(self, start: _CwdState) -> None:
        self.ways: list[_Way] = [(start, _OK)]
        self.frames: list[_Frame] = []
        self.saved: list[tuple[list[_Way], list[_Way], list[_Frame]]] = []
        self.pipe: tuple[list[_Way], list[_Way]] | None = None

    # -- where a command runs ------------------------------------------------------------
    def split(self, connector: str) -> tuple[list[_Way], list[_Way]]:
        """(the ways that run a command after ``connector``, the ways that skip it)."""
        if connector in ("|", "|&") and self.pipe is not None:
            return self.pipe
        if connector == "&&":
            return ([w for w in self.ways if w[1] == _OK],
                    [w for w in self.ways if w[1] != _OK])
        if connector == "||":
            return ([w for w in self.ways if w[1] != _OK],
                    [w for w in self.ways if w[1] == _OK])
        return list(self.ways), []

    def prune(self, ways: list[_Way]) -> list[_Way]:
        """The end of an and-or list: a failed ``cd`` nobody took up is presumed not to
        have happened, while some way where things went on remains. (Not at the end of
        an ``if``/loop/``case`` body: the compound's status is its body's last one, and
        an ``&&`` or ``||`` after ``fi`` takes a failed ``cd`` up.)"""
        kept = [w for w in ways if w[1] != _CD_FAIL]
        return kept if kept else ways

    @staticmethod
    def cwd(ran: list[_Way], fallback: list[_Way]) -> _CwdState:
        """The shell state a command runs in: the one cwd every way running it agrees on,
        else an unknown one."""
        ways = ran or fallback
        if not ways:  # text no way reaches (a test that always fails)
            return _CwdState(UNKNOWN_CWD)
        first = ways[0][0]
        if all(w[0].cur == first.cur for w in ways[1:]):
            return first.copy()
        state = first.copy()
        state.cur, state.prev = UNKNOWN_CWD, None
        return state

    # -- compound syntax -----------------------------------------------------------------
    def begin(self, draft: _Draft, items: list[_Item], at: int) -> None:
        """Before a draft: the end of the previous list, a ``case`` arm, its keywords."""
        connector = draft.connector
        top = self.frames[-1] if self.frames else None
        if connector in _CASE_ARM_ENDS and top is not None and top.kind == "case":
            top.exits += self.ways
            self.ways = list(top.entry)
        first = draft.keywords[0] if draft.keywords else ""
        if connector in _LIST_ENDS and first not in _NO_LIST_END:
            self.ways = self.prune(self.ways)
        for keyword in draft.keywords:
            self.keyword(keyword, items, at)

    def keyword(self, keyword: str, items: list[_Item], at: int) -> None:
        top = self.frames[-1] if self.frames else None
        if keyword == "if":
            self.frames.append(_Frame("if", list(self.ways)))
        elif keyword in ("while", "until"):
            self.open_loop(items, at)
        elif top is None:
            return
        elif keyword == "then" and top.kind == "if":
            taken = [w for w in self.ways if w[1] == _OK]
            top.pending = [(w[0], _FAIL) for w in self.ways if w[1] != _OK]
            self.ways = taken
        elif keyword in ("elif", "else") and top.kind == "if":
            top.exits += self.ways
            self.ways, top.pending = top.pending, []
        elif keyword == "fi" and top.kind == "if":
            self.frames.pop()
            self.ways = _dedupe(top.exits + self.ways + [(w[0], _OK) for w in top.pending])
        elif keyword == "do" and top.kind == "loop":
            top.exits += [(w[0], _OK) for w in self.ways]  # no pass, or the test failed
            self.ways = [(w[0], _OK) for w in self.ways]
        elif keyword == "done" and top.kind == "loop":
            self.frames.pop()
            self.ways = _dedupe(top.exits + self.ways)
        elif keyword == "esac" and top.kind == "case":
            self.frames.pop()
            self.ways = _dedupe(top.exits + self.ways + top.entry)

    def open_loop(self, items: list[_Item], at: int) -> None:
        if _loop_has_cd(items, at):
            self.ways = _dedupe([_unknown(w) for w in self.ways])
        self.frames.append(_Frame("loop", list(self.ways)))

    # -- a command's outcome ---------------------------------------------------------------
    def run(self, draft: _Draft, ran: list[_Way], skipped: list[_Way], items: list[_Item],
            at: int) -> None:
        """The ways after ``draft`` ran in ``ran``."""
        words = draft.words
        name = words[0].value if words and words[0].literal else None
        negated = "!" in draft.keywords
        after: list[_Way] = []
        for state, _ in ran:
            if draft.background:
                after.append((state, _OK))
            elif draft.piped or (not words and draft.redirects):
                after += [(state, _OK), (state, _FAIL)]
            elif not words:
                after.append((state, _OK))
            elif name in _CD_NAMES:
                moved = state.copy()
                moved.apply(tuple(words))
                after += [(moved, _OK), (state, _CD_FAIL)]
            elif name in ("exit", "return"):
                continue
            elif name in ("true", ":", "for", "select", "case"):
                after.append((state, _OK))
            elif name == "false":
                after.append((state, _FAIL))
            else:
                after += [(state, _OK), (state, _FAIL)]
        if negated:
            after = [(s, _FAIL if status == _OK else _OK) for s, status in after]
        if not after and not skipped:  # every way ended (dead text after exit): keep going
            after = [(w[0], _OK) for w in ran]
        self.ways = _dedupe(skipped + after)
        self.pipe = (ran, skipped) if draft.piped else None
        if name in ("for", "select") and not draft.piped:
            self.open_loop(items, at)
        elif name == "case" and not draft.piped:
            self.frames.append(_Frame("case", list(self.ways)))

    # -- subshells -------------------------------------------------------------------------
    def open(self, connector: str) -> None:
        ran, skipped = self.split(connector)
        self.saved.append((ran, skipped, self.frames))
        self.frames = []
        self.ways = [(w[0].copy(), _OK) for w in (ran or self.ways)]
        self.pipe = None

    def close(self) -> None:
        if not self.saved:
            return
        ran, skipped, self.frames = self.saved.pop()
        self.ways = _dedupe(skipped + [(w[0], s) for w in ran for s in (_OK, _FAIL)])
        self.pipe = (ran, skipped)


#: programs after which the rest of the string may not run (an ``exit`` or ``return`` ends
#: the shell or the sourced text, ``exec`` replaces it or moves its output elsewhere)
_ENDS_SHELL = frozenset(("exit", "return", "exec", "logout"))
#: operators after a command that keep its and-or list going to the end of the string
#: while a final status 0 still proves the command ran (``a && b && c``, ``a && b | c``)
_PROVING = frozenset(("&&", "|", "|&"))


def _stderr_redirected(redirects: list[Redirect]) -> bool:
    return any(r.fd == 2 or r.op in ("&>", "&>>", ">&") for r in redirects)


class _Certainty:
    """Which commands of one string certainly run, exactly once, when the whole string
    ends with status 0 (see the module docstring); read alongside ``_Flow``."""

    def __init__(self, items: list[_Item], top: bool) -> None:
        self.items = items
        self.top = top  # the string itself, not a substitution's text
        self.level = 0  # subshells open around the current item
        self.braces = 0  # ``{ }`` groups open (a function body is one)
        self.nest = 0  # ``if``/loop/``case`` bodies open, read off the text alone (a piped
        # loop opens no frame of the flow, whose ``done`` would close an outer one)
        self.ended = False  # an exit/return/exec was met
        self.quiet_cd = False  # a cd whose failure would print nothing was met

    def open(self) -> None:
        self.level += 1

    def close(self) -> None:
        self.level = max(0, self.level - 1)

    def group(self, draft: _Draft) -> bool:
        """Count the ``{ }`` groups and ``if``/loop/``case`` bodies ``draft`` opens or
        closes; True when it closes one (its redirections are then the compound's)."""
        closing = False
        for keyword in draft.keywords:
            if keyword == "{":
                self.braces += 1
            elif keyword == "}" and self.braces:
                self.braces -= 1
                closing = True
            elif keyword in ("if", "while", "until"):
                self.nest += 1
            elif keyword in ("fi", "done", "esac") and self.nest:
                self.nest -= 1
                closing = True
        if draft.words and draft.words[0].raw == "function":  # `function f { ...`
            opened = sum(1 for w in draft.words if w.raw == "{")
            self.braces = max(0, self.braces + opened - sum(1 for w in draft.words
                                                           if w.raw == "}"))
        return closing

    def certain(self, draft: _Draft, at: int, skipped: list[_Way], in_frame: bool,
                closing: bool) -> bool:
        if (not self.top or self.level or draft.piped or draft.background or draft.defines
                or self.ended or self.braces or self.nest or closing or in_frame
                or "coproc" in draft.keywords
                or (draft.words and draft.words[0].raw == "function")):
            return False
        if self._backgrounded(at):
            return False
        if all(status == _CD_FAIL for _, status in skipped) and not (
                skipped and self.quiet_cd):
            # every way runs it (a cd presumed to succeed: its failure prints to stderr,
            # which a compound anchor demands empty)
            return True
        return draft.connector == "&&" and self._proven(at)

    def ran(self, draft: _Draft) -> None:
        words = draft.words
        name = words[0].value if words and words[0].literal else None
        if name in ("for", "select", "case"):
            self.nest += 1  # its body (or arms) up to `done`/`esac`
        if self.level:
            return
        if name in _ENDS_SHELL:
            self.ended = True
        elif name in _CD_NAMES and _stderr_redirected(draft.redirects):
            self.quiet_cd = True

    def _rest(self, at: int) -> Iterator[_Item | None]:
        """The items after ``at`` at this level (None for a subshell closing back to it)."""
        level = 0
        for item in self.items[at + 1:]:
            if isinstance(item, tuple):
                if level == 0:
                    yield item
                level += 1
            elif isinstance(item, str):
                level -= 1
                if level < 0:
                    return
                if level == 0:
                    yield None if item == _CLOSE else item
            elif level == 0:
                yield item

    def _backgrounded(self, at: int) -> bool:
        """Whether the rest of the command's and-or list is sent to the background
        (``a && b &`` backgrounds ``a`` too)."""
        for item in self._rest(at):
            if item == _CLOSE_BACKGROUND:
                return True
            if isinstance(item, _Draft):
                if item.connector in _LIST_ENDS:
                    return False
                if item.background:
                    return True
            elif isinstance(item, tuple) and item[1] in _LIST_ENDS:
                return False
        return False

    def _proven(self, at: int) -> bool:
        """Whether everything after the command is joined to it by ``&&`` (or a pipe
        after one) up to the end of the string: a final status 0 proves it ran."""
        for item in self._rest(at):
            if isinstance(item, tuple):
                if item[1] not in _PROVING:
                    return False
            elif isinstance(item, _Draft):
                if item.connector not in _PROVING or item.keywords or item.background:
                    return False
            elif item == _CLOSE_BACKGROUND:
                return False
        return True


class _Builder:
    def __init__(self, src: str, refused: bool = False, zsh_braces: bool = False) -> None:
        self.src = src
        self.commands: list[Command] = []
        self.problems: list[str] = []
        self.refused = refused  # the string ends refused: nothing in it is certain
        self.zsh_braces = zsh_braces  # read a mid-line `}` as zsh does (_drafts)

    def read(self, src: str, state: _CwdState, substitution: int, depth: int,
             tokens: list[Token] | None = None) -> None:
        if tokens is None:
            tokens, problems = tokenize(src, depth)
            self.problems.extend(problems)
        items = _drafts(tokens, src, self.zsh_braces)
        flow = _Flow(state)
        sure = _Certainty(items, substitution == 0)
        for at, item in enumerate(items):
            if isinstance(item, tuple):
                flow.open(item[1])
                sure.open()
                continue
            if isinstance(item, str):
                flow.close()
                sure.close()
                continue
            flow.begin(item, items, at)
            closing = sure.group(item)
            if item.empty():
                continue  # only keywords (`fi`, `done`...): no command
            ran, skipped = flow.split(item.connector)
            certain = (sure.certain(item, at, skipped, bool(flow.frames), closing)
                       and not self.refused)
            here = flow.cwd(ran, flow.ways)
            inner = [s for w in (*item.words, *item.assignments) for s in w.inner]
            inner += [s for r in item.redirects if r.target is not None for s in r.target.inner]
            if depth + 1 < MAX_DEPTH:
                for sub in inner:
                    self.read(sub, here.copy(), substitution + 1, depth + 1)
            words = tuple(item.words)
            self.commands.append(Command(
                index=len(self.commands), words=words, assignments=tuple(item.assignments),
                redirects=tuple(item.redirects), connector=item.connector,
                piped=item.piped, background=item.background, subshell=item.subshell,
                substitution=substitution, cwd=here.cur,
                text=src[item.start:item.end].strip(), certain=certain,
            ))
            flow.run(item, ran, skipped, items, at)
            sure.ran(item)


def parse(source: str, start: Cwd = SPAWN) -> Script:
    """Read ``source`` into its simple commands (never raises). A string the shell
    refuses (``refusal``) is read only up to the command line holding the error; one
    bash refuses only for a ``}`` word closing a group as zsh reads it (``{ rm a }``)
    is read as zsh reads it (``refusal.reading``)."""
    if not isinstance(source, str):
        return Script("", (), False, ("not a string",))
    lexer = Lexer(source)
    tokens, _, _ = lexer.tokens()
    refusal, zsh_braces = reading(tokens, lexer.refusals, source)
    if refusal is None:
        builder = _Builder(source, zsh_braces=zsh_braces)
        builder.problems.extend(lexer.problems)
        text, given = source, tokens
    else:
        builder = _Builder(source, refused=True)
        text, given = source[:refusal.cut], None
    try:
        builder.read(text, _CwdState(start), 0, 0, given)
    except RecursionError:  # pragma: no cover - MAX_DEPTH bounds the recursion
        builder.problems.append("nested too deep to read")
    blocking = tuple(p for p in builder.problems if not p.startswith("here-document delimited"))
    problems = tuple(builder.problems)
    if refusal is not None:
        problems += (f"the shell refuses it: {refusal.reason}",)
    return Script(source, tuple(builder.commands), not blocking, problems, refusal)
