"""Where the shell's own parser refuses a command string, and which lines ran before.

A command bash cannot parse changes no file: the shell reports a syntax error and runs
nothing of the command line holding it. bash reads a ``-c`` string (and ``eval``'s, the
way Claude Code runs a Bash call) one complete command line at a time, running each
before it reads the next, so the lines before the one holding the error did run: a
line counts as complete at a newline outside every open construct (a group, a
subshell, an ``if``/loop/``case``, an ``&&``/``||``/``|`` still waiting for its right
side). ``reading`` answers with the offset of the first line that did not run, or None.

Only what is certainly a syntax error in bash is refused, leaving out what zsh (the
other shell Claude Code runs commands in) is known to take; zsh parses the whole string
first, so there nothing ran: the rows of the earlier lines are kept, flagged by the
errored result, as a partly run chain is. The lexical refusals come from the lexer (an unterminated quote, ``$(``,
``<(``, backtick, ``${``, ``$'``; a redirection without its word); the structural ones
are read here off the top-level tokens: a ``{``, ``(``, ``if``, loop or ``case`` never
closed, an ``&&``/``||``/``|`` with nothing after it, a closer nothing opened (``)``,
``}``, ``fi``, ``done``, ``esac``, ``then``, ``do``, ``else``, ``elif``), an operator
where a command must stand (``; x``, ``&& && x``), a ``;;`` outside a ``case``, a
``then``/``do``/``else`` out of its place, and any of these inside a ``$( )`` or ``<( )``
body (bash parses those with their line; a backtick's body only when it runs). Anything
this flat reading does not model (a ``function`` keyword, ``for ((``, ``coproc``, zsh's
short forms, an empty body, a word after a compound command, ``(``
after a word other than ``name()``, a ``case`` pattern of two words, a word glued to a
process substitution, ``[[ ]]``'s own grammar, a ``case`` inside a substitution the lexer
may close early) claims nothing: a construct wrongly refused would drop the rows of a
command that ran. A table of shapes and random strings of pieces are held to ``bash -n``
(tests/unit/core/shell/test_refusal.py).

zsh's closing brace is read, not left unknown: a ``}`` word after a command's first word
closes a ``{`` group in zsh (``{ rm a }``) and is an argument in bash, whose group then
never closes. A string bash refuses so is walked again as zsh reads it; when that walk
takes it, no refusal is claimed and ``syntax`` reads it as zsh (``rm a``, never a file
named ``}``, wrong under both shells); when bash parses the string (``{ echo }; }``)
its reading stands.
"""

from __future__ import annotations

from pysift.core.shell.lexer import MAX_DEPTH, Lexer, Token
from pysift.model.fastdata import dataclass

_CLOSERS = {"}": "{", "fi": "if", "done": "loop", "esac": "case"}
_IF_MIDDLE = frozenset(("then", "else", "elif"))
_LOOPS = frozenset(("while", "until", "for", "select"))
# Words that end the reading as unknown: constructs this reading does not model.
_UNMODELLED = frozenset(("function", "coproc", "repeat", "foreach", "always"))
_LIST_OPS = frozenset((";", "&"))
_CHAIN_OPS = frozenset(("&&", "||", "|", "|&"))
_ARM_ENDS = frozenset((";;", ";&", ";;&"))
# What a function's body may start with in bash (a compound command).
_COMPOUND = frozenset(("{", "(", "if", "while", "until", "for", "select", "case", "[["))


@dataclass(frozen=True, slots=True)
class Refusal:
    """``at``: where the refused construct opens (or the offending token); ``cut``: the
    offset of the first command line that did not run (every line before it ran in
    bash); ``reason``: what the shell refuses."""

    at: int
    cut: int
    reason: str


class _Unknown(Exception):
    """The reading met a construct it does not model: no structural refusal is claimed
    (the line starts met before it stand)."""


def reading(tokens: list[Token], lexical: list[tuple[int, str]],
            source: str = "}") -> tuple[Refusal | None, bool]:
    """The refusal of a command string (its top-level ``tokens``, the lexer's
    ``lexical`` refusals), or None when the shell parses it (or the reading cannot
    tell). Past a construct the reading does not model, line starts are unknown: a
    lexical refusal then cuts at the last line start met before it (the lines between
    may have run in bash; their rows are dropped with the refused one).

    And whether the string is to be read as zsh reads it: a
    ``}`` word inside a ``{`` group closing the group (``{ rm a }``). bash takes that
    ``}`` for an argument and the group for never closed, so it refuses the string
    and ran nothing of it: the only shell that can have run it is zsh, whose reading
    is then the one kept (never a file named ``}``, wrong under both). Where bash
    parses the string (``{ echo }; }``), its reading stands: the ``}`` is an
    argument; where the zsh walk meets what it does not model (``{ if a; then b }``,
    ``{ a } }``), zsh is not known to take the string and bash's refusal stands.
    ``source``: the text (without a ``}`` the zsh walk is skipped)."""
    lines = [0]
    try:
        structural = _walk(tokens, lines)
    except _Unknown:
        structural = None
    if structural is not None and not lexical and "}" in source:
        # The two walks differ only from the first `}` word inside a group: a zsh walk
        # that does not refuse has met one (zsh parses the whole string first, so its
        # line starts do not matter).
        try:
            taken = _walk(tokens, [0], zsh_braces=True) is None
        except _Unknown:
            taken = False  # zsh is not known to take it: bash's refusal stands
        if taken:
            return None, True
    found = [*lexical, *([structural] if structural is not None else [])]
    if not found:
        return None, False
    at, reason = min(found)
    cut = max(start for start in lines if start <= at)
    return Refusal(at, cut, reason), False


def _raw(tok: Token) -> str:
    """A word token's text as typed; "" for any other token."""
    return tok.word.raw if tok.kind == "word" and tok.word is not None else ""


def _walk(tokens: list[Token], lines: list[int], depth: int = 0,
          zsh_braces: bool = False) -> tuple[int, str] | None:
    """The first structural error met, as ``(offset, reason)``; ``lines`` gets the
    offset where each complete top-level command line starts. A ``$( )``/``<( )``
    body is read the same way (bash parses it with its line; a backtick's body only
    when it runs). ``zsh_braces``: a ``}`` word after a command's first word closes
    the innermost ``{`` group, as zsh reads it; otherwise it is an argument, as bash
    reads it."""
    stack: list[tuple[str, int]] = []  # (frame, offset it opened at)
    # per frame: whether its current body holds a command yet (bash refuses `{ }`,
    # `then fi`; zsh takes some: an empty one is not modelled)
    filled: list[bool] = []
    # per frame: where an if or a loop stands (its test, or past then/do/else)
    phase: list[str] = []

    def started() -> None:
        if filled:
            filled[-1] = True

    def need_filled() -> None:
        if filled and not filled[-1]:
            raise _Unknown
    case_state: list[str] = []  # per open ``case``: head, pattern, body
    at_command = True  # a command may (or must) start here
    waiting: tuple[int, str] | None = None  # an && / || / | still without its right side
    words = 0  # words of the current simple command
    bare = False  # a `!` or `time` began the command: a command even alone (`a && time`)
    line_end = False  # a top-level newline just ended a line
    previous = ""  # the last operator met where a command was expected
    body = False  # a function's body must come next (a compound command, in bash)
    closed = False  # a compound command just closed: only redirections, operators follow
    glued = -1  # where the last word token ended
    pattern_word = False  # a case pattern holds a word since its last `|`
    pattern_open = False  # a case pattern was begun (a `(` or a word), not yet closed
    n = len(tokens)
    k = 0
    while k < n:
        tok = tokens[k]
        k += 1
        if line_end:
            lines.append(tok.start)
            line_end = False
        if body and not (tok.kind == "op" and tok.op in ("\n", "(")):
            word = tok.word
            if tok.kind != "word" or word is None or word.quoted or not (
                    word.raw in _COMPOUND or word.raw.startswith("((")):
                raise _Unknown  # `f() cat`: zsh takes a simple command, bash refuses it
        if tok.kind != "op" or tok.op != "\n":
            body = False
        if closed and tok.kind == "word" and not (
                zsh_braces and _raw(tok) == "}" and stack and stack[-1][0] == "{"):
            raise _Unknown  # `[[ -f a ]] cat`, `{ a; } b`: a word after a compound
        if tok.kind != "redir":
            closed = False
        if tok.kind == "word":
            end = tok.start + len(tok.word.raw) if tok.word is not None else -1
            if tok.start == glued or (k < n and tokens[k].kind == "word"
                                      and tokens[k].start == end):
                raise _Unknown  # `done<(x)`: one word to bash, two to the lexer
            glued = end
        in_case = bool(stack) and stack[-1][0] == "case"
        if tok.kind == "op":
            op = tok.op
            if op == "\n":
                if in_case and case_state[-1] != "body":
                    continue
                if not stack and waiting is None:
                    line_end = True
                at_command, words, bare = True, 0, False
                continue
            if in_case and case_state[-1] == "pattern":
                if op == "|" and pattern_word:
                    pattern_word = False
                    continue
                if op == "(" and not pattern_open:
                    pattern_open = True
                    continue
                if op == ")" and pattern_word:
                    case_state[-1] = "body"
                    at_command, words, pattern_word, pattern_open = True, 0, False, False
                    bare = False
                    continue
                raise _Unknown
            if op in _ARM_ENDS:
                if in_case and case_state[-1] == "body":
                    case_state[-1] = "pattern"
                    at_command, words, waiting, bare = True, 0, None, False
                    continue
                return (tok.start, f"{op!r} outside a case")
            if op in _LIST_OPS or op in _CHAIN_OPS:
                if at_command and waiting is None and not words and not bare:
                    if previous == "&":
                        raise _Unknown  # `a & ;`: zsh reads some of these
                    if previous or op in _CHAIN_OPS or not stack:
                        return (tok.start, f"{op!r} where a command must stand")
                    raise _Unknown
                if at_command and waiting is not None:
                    return (tok.start, f"{op!r} after {waiting[1]!r}")
                waiting = (tok.start, op) if op in _CHAIN_OPS else None
                previous = op
                at_command, words, bare = True, 0, False
                continue
            if op == "(":
                if at_command and not words:
                    started()
                    stack.append(("(", tok.start))
                    filled.append(False)
                    phase.append("")
                    waiting, previous = None, "("
                    continue
                if words == 1 and k < n and tokens[k].kind == "op" and tokens[k].op == ")":
                    k += 1  # `name()`: a function definition; its body follows
                    at_command, words, previous = True, 0, "()"
                    waiting, body = (tok.start, "()"), True
                    continue
                raise _Unknown  # `rm (a|b)`: zsh's alternation, bash's error
            if op == ")":
                if stack and stack[-1][0] == "(":
                    if at_command and previous in ("&&", "||", "|", "|&"):
                        return (tok.start, f"')' after {previous!r}")
                    need_filled()
                    stack.pop()
                    filled.pop()
                    phase.pop()
                    at_command, words, previous, closed = False, 1, "", True
                    continue
                return (tok.start, "')' that nothing opened")
            raise _Unknown
        if tok.kind == "redir":
            if stack and stack[-1][0] == "case" and case_state[-1] != "body":
                raise _Unknown
            if not words:
                started()
            at_command, words, waiting, previous = False, words + 1, None, ""
            continue
        word = tok.word
        if word is None:
            raise _Unknown
        raw = word.raw
        if "$(" in raw or "<(" in raw or ">(" in raw:
            if "case" in raw:
                raise _Unknown  # a pattern's `)` may have closed the substitution early
            if "`" not in raw and depth < MAX_DEPTH:
                for inner in word.inner:  # (an unmodelled body leaves the line unknown)
                    wrong = _walk(Lexer(inner).tokens()[0], [0], depth + 1, zsh_braces)
                    if wrong is not None:
                        return (tok.start, f"{wrong[1]} in a substitution")
        if in_case and case_state[-1] == "head":
            if raw == "in":
                case_state[-1] = "pattern"
            continue
        if in_case and case_state[-1] == "pattern":
            if raw == "esac" and not pattern_open:
                stack.pop()
                filled.pop()
                phase.pop()
                case_state.pop()
                at_command, words, previous, closed = False, 1, "", True
                continue
            if pattern_word:
                raise _Unknown  # `a b)`: two words where bash wants one
            pattern_word = pattern_open = True
            continue  # a pattern word
        if at_command and not words and not word.quoted:
            if raw == "[[" or raw.startswith("(("):
                started()
            if raw == "[[":  # a test: its ( ) && || are its own, up to the ]] word
                while k < n and _raw(tokens[k]) != "]]":
                    part = _raw(tokens[k])
                    if (tokens[k].kind == "op" and tokens[k].op == "\n") or (
                            "]]" in part or "[[" in part):
                        raise _Unknown  # (`[[ a ]]b`: bash's own test grammar decides)
                    k += 1
                if k >= n:
                    raise _Unknown
                k += 1
                at_command, words, waiting, previous, closed = False, 1, None, "", True
                continue
            if raw in _UNMODELLED:
                raise _Unknown
            if raw.startswith("(("):  # an arithmetic command, one word
                at_command, words, waiting, previous, closed = False, 1, None, "", True
                continue
            if raw in ("{", "if") or raw in _LOOPS or raw == "case":
                frame = "loop" if raw in _LOOPS else raw
                started()
                stack.append((frame, tok.start))
                filled.append(raw in ("for", "select", "case"))  # a header, no condition
                phase.append("test" if frame in ("if", "loop") else "")
                waiting, previous = None, raw
                if raw == "case":
                    case_state.append("head")
                    at_command = False
                elif raw in ("for", "select"):
                    if k < n and _raw(tokens[k]).startswith("(("):
                        raise _Unknown  # `for ((...))`
                    at_command, words = False, 1
                continue
            if raw in _CLOSERS:
                opener = _CLOSERS[raw]
                if not stack or stack[-1][0] != opener:
                    return (tok.start, f"{raw!r} that nothing opened")
                if waiting is not None:
                    return (tok.start, f"{raw!r} after {waiting[1]!r}")
                if opener != "case":
                    need_filled()
                if phase[-1] == "test":  # `if a; fi`, `while a; done`
                    return (tok.start, f"{raw!r} before {'then' if opener == 'if' else 'do'}")
                stack.pop()
                filled.pop()
                phase.pop()
                if opener == "case":
                    case_state.pop()
                at_command, words, previous, closed = False, 1, "", True
                continue
            if waiting is not None and (raw in _IF_MIDDLE or raw == "do"):
                return (tok.start, f"{raw!r} after {waiting[1]!r}")
            if raw in _IF_MIDDLE:
                if not stack or stack[-1][0] != "if":
                    return (tok.start, f"{raw!r} outside an if")
                need_filled()
                wanted = "test" if raw == "then" else "body"
                if phase[-1] != wanted:  # `then` twice, `else` before `then`, after `else`
                    return (tok.start, f"{raw!r} out of place in an if")
                phase[-1] = {"then": "body", "elif": "test", "else": "else"}[raw]
                filled[-1] = False
                waiting, previous = None, raw
                continue
            if raw == "do":
                if not stack or stack[-1][0] != "loop":
                    return (tok.start, "'do' outside a loop")
                need_filled()
                if phase[-1] != "test":
                    return (tok.start, "'do' twice in a loop")
                phase[-1] = "body"
                filled[-1] = False
                waiting, previous = None, raw
                continue
            if raw in ("!", "time"):
                started()
                waiting, bare = None, True
                continue
        # (in bash's reading a `}` word here is an argument, as any other word)
        if zsh_braces and raw == "}" and any(frame == "{" for frame, _ in stack):
            if stack[-1][0] != "{":
                raise _Unknown  # `{ if a; then b }`: not modelled
            stack.pop()  # `{ rm a }`: zsh closes the group here
            filled.pop()
            phase.pop()
            at_command, words, previous, closed = False, 1, "", True
            continue
        if not words:
            started()
        at_command, words, waiting, previous = False, words + 1, None, ""
    if waiting is not None:
        return (waiting[0], f"nothing after {waiting[1]!r}")
    if stack:
        frame, opened = stack[0]
        return (opened, f"{'loop' if frame == 'loop' else repr(frame)} never closed")
    return None
