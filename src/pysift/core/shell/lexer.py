"""The Bash lexer: one command string -> words, operators and redirections.

A lexical reading, not a shell: nothing is expanded, nothing runs. What it knows is
where a word begins and ends (quotes, backslashes, ``$(...)``, backticks, ``${...}``),
which bytes are operators (``&&`` ``||`` ``;`` ``|`` ``&`` ``(`` ``)`` newline), which are
redirections (``>`` ``>>`` ``2>`` ``&>`` ``<<EOF``...), and where a heredoc's body lies
(the lines after the command line that opened it, up to the delimiter line).

Every word keeps the text the shell would hand the program after quote removal
(``value``) with its dynamic pieces kept as typed (``$OUT``, ``$(date)``), plus what
kind of word it is: ``dynamic`` (an expansion the shell performs at run time),
``glob`` (an unquoted ``*``/``?``/``[...]`` or brace expansion), ``tilde`` (a leading
unquoted ``~``). A word with none of the three is ``literal``: its value is exactly
what the program receives.

Nothing here raises: an unterminated quote or substitution ends at the end of the text
and is recorded in ``problems``; the caller decides what that means. What the shell's
own parser refuses (an unterminated quote or substitution, a redirection without its
word) is also noted in ``refusals`` with the offset of the construct, so a caller can
tell which command lines ran before bash met the error (``refusal``).
"""

from __future__ import annotations

import re
from dataclasses import field
from functools import lru_cache

from pysift.model.fastdata import dataclass

# Nesting deeper than this ($( $( $( ...))) is read as opaque text, never recursed into.
MAX_DEPTH = 12

_META = frozenset(" \t\n;&|<>()")
_DIGITS = frozenset("0123456789")
_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME_CHARS = _NAME_START | frozenset("0123456789")
_SPECIAL_PARAMS = frozenset("@*#?$!-0123456789")
#: the ``$'...'`` escapes bash and zsh read alike
_ANSI_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b",
                 "E": "\x1b", "f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_HEX = frozenset("0123456789abcdefABCDEF")
_OCTAL = frozenset("01234567")


@dataclass(frozen=True, slots=True)
class Word:
    """One shell word.

    ``raw`` is the word as typed; ``value`` what the program receives after quote removal,
    with expansions kept verbatim as typed; ``quoted`` says some of it was quoted or
    escaped; ``dynamic``/``glob``/``tilde`` say the shell rewrites it at run time;
    ``inner`` holds the source of each ``$(...)``, backtick or ``<(...)``/``>(...)``
    it carries (commands that run too).
    """

    raw: str
    value: str
    quoted: bool = False
    dynamic: bool = False
    glob: bool = False
    tilde: bool = False
    inner: tuple[str, ...] = ()

    @property
    def literal(self) -> bool:
        """True when ``value`` is exactly what the program receives."""
        return not (self.dynamic or self.glob or self.tilde)


@dataclass(slots=True)
class Heredoc:
    """A here-document: ``body`` is the text fed to the command's stdin (every body line
    with its newline, leading tabs removed for ``<<-``). ``quoted`` = the delimiter was
    quoted, so the shell takes the body verbatim; otherwise ``$``, backticks and
    backslashes in it are expanded. ``terminated`` is False when the text ended before
    the delimiter line (bash then feeds everything to the end)."""

    delimiter: str
    quoted: bool
    strip_tabs: bool
    body: str = ""
    terminated: bool = False


@dataclass(frozen=True, slots=True)
class Redirect:
    """One redirection: ``op`` is the operator without its fd (``>``, ``>>``, ``>|``, ``<``,
    ``<>``, ``&>``, ``&>>``, ``>&``, ``<&``, ``<<``, ``<<-``, ``<<<``), ``fd`` the explicit
    descriptor number typed before it, ``target`` the word after it (for a heredoc: the
    delimiter word), ``heredoc`` the here-document when ``op`` is ``<<``/``<<-``."""

    op: str
    fd: int | None
    target: Word | None
    heredoc: Heredoc | None = None

    @property
    def writes_file(self) -> bool:
        """True when the redirection opens its target for writing (``/dev/...`` sinks,
        fd duplications such as ``2>&1`` and closes ``>&-`` excluded)."""
        target = self.target
        if target is None or self.op not in _WRITE_OPS:
            return False
        value = target.value
        if self.op == ">&" and ((value.isascii() and value.isdigit()) or value == "-" or value.endswith("-")):
            return False
        return not is_device(value)

    @property
    def appends(self) -> bool:
        return self.op in (">>", "&>>")


_WRITE_OPS = frozenset((">", ">>", ">|", "&>", "&>>", ">&"))


def is_device(path: str) -> bool:
    """``/dev/null``, ``/dev/stderr`` and the rest of ``/dev``: never a file a command
    changed (also the Windows ``NUL`` sink the Git Bash tool accepts)."""
    return path.startswith("/dev/") or path == "/dev" or path.upper() == "NUL"


@dataclass(frozen=True, slots=True)
class Token:
    """``kind`` is ``word`` (``word`` set), ``op`` (``op`` set) or ``redir`` (``redirect``)."""

    kind: str
    start: int
    word: Word | None = None
    op: str = ""
    redirect: Redirect | None = None


@dataclass(slots=True)
class _Part:
    """A word under construction."""

    value: list[str] = field(default_factory=list)
    bare: list[str] = field(default_factory=list)  # unescaped, unquoted characters
    quoted: bool = False
    dynamic: bool = False
    glob: bool = False
    tilde: bool = False
    inner: list[str] = field(default_factory=list)


def ansi_c(src: str, i: int) -> tuple[str, int, bool, bool]:
    """The body of a ``$'...'`` quote whose text starts at ``src[i]`` (after the opening
    quote): its value, where the text after the closing quote starts, whether the value
    is certain, whether the quote was closed.

    The escapes bash decodes: ``\\a \\b \\e \\E \\f \\n \\r \\t \\v \\\\ \\' \\" \\?``, ``\\xHH``
    (one or two hex digits), ``\\NNN`` (one to three octal digits, a byte: bash and zsh
    drop the ninth bit), ``\\uHHHH``/``\\UHHHHHHHH`` (one to four/eight hex digits) and
    ``\\cX`` (a control character). The value is certain when bash and zsh give the same
    bytes whatever the locale and those bytes are a file name: not for ``\\cX`` or an
    escape bash keeps and zsh drops (``\\q``, ``\\x`` or ``\\u`` without a digit, ``\\x{``),
    a NUL (bash ends the word there, zsh keeps it), a ``\\u``/``\\U`` character past
    ASCII (written in the locale's encoding, or refused), or bytes that are not UTF-8.
    The value given then is bash's reading in a UTF-8 locale."""
    out: list[str] = []
    pending = bytearray()  # the bytes of \\x and octal escapes, decoded together
    certain = True
    n = len(src)

    def flush() -> None:
        nonlocal certain
        if pending:
            try:
                out.append(pending.decode("utf-8"))
            except UnicodeDecodeError:
                certain = False
                out.append(pending.decode("utf-8", "surrogateescape"))
            pending.clear()

    while i < n:
        c = src[i]
        if c == "'":
            flush()
            value = "".join(out)
            return value, i + 1, certain and "\0" not in value, True
        if c != "\\" or i + 1 >= n:
            flush()
            out.append(c)
            i += 1
            continue
        e = src[i + 1]
        i += 2
        if e in _ANSI_ESCAPES:
            pending.append(ord(_ANSI_ESCAPES[e]))
        elif e in _OCTAL:
            j = i
            while j < n and j < i + 2 and src[j] in _OCTAL:
                j += 1
            pending.append(int(e + src[i:j], 8) & 0xFF)
            i = j
        elif e == "x" and i < n and src[i] in _HEX:
            j = i + 1 if i + 1 < n and src[i + 1] in _HEX else i
            pending.append(int(src[i:j + 1], 16))
            i = j + 1
        elif e in "uU" and i < n and src[i] in _HEX:
            j = i
            while j < n and j < i + (4 if e == "u" else 8) and src[j] in _HEX:
                j += 1
            code = int(src[i:j], 16)
            flush()
            if code > 0x7F:
                certain = False
            valid = code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF
            out.append(chr(code) if valid else src[i - 2:j])
            i = j
        elif e == "c" and i < n and src[i] != "'":
            certain = False  # zsh prints \\cX as "cX"
            x = src[i]
            i += 2 if x == "\\" and src.startswith("\\", i + 1) else 1
            pending.append(0x7F if x == "?" else ord(x.upper()) & 0x1F if x.isascii() else 0x3F)
        else:
            certain = False  # bash keeps the backslash, zsh drops it
            flush()
            out.append("\\" + e)
    flush()
    value = "".join(out)
    return value, n, certain and "\0" not in value, False


class Lexer:
    """Tokenizes ``src``. ``tokens()`` reads the whole text; a nested lexer (for a
    ``$(...)`` or a ``<(...)``) stops at the unmatched ``)`` that closes it."""

    def __init__(self, src: str, depth: int = 0) -> None:
        self.src = src
        self.n = len(src)
        self.depth = depth
        self.problems: list[str] = []
        # (offset, problem) of each construct the shell's parser refuses: where it opens
        self.refusals: list[tuple[int, str]] = []
        self._pending: list[Heredoc] = []

    def _refuse(self, at: int, problem: str) -> None:
        """A problem the shell refuses too (a syntax error), opened at ``at``."""
        self.problems.append(problem)
        self.refusals.append((at, problem))

    # -- the token loop ----------------------------------------------------------------

    def tokens(self, start: int = 0, nested: bool = False) -> tuple[list[Token], int, bool]:
        """Tokens from ``start``; for a nested read, also where the closing ``)`` ends and
        whether it was found."""
        src, n = self.src, self.n
        out: list[Token] = []
        i = start
        parens = 0  # plain ( ) opened inside a nested read
        command_start = True
        in_test = False  # between `[[` and `]]`: < and > compare, they do not redirect
        while i < n:
            c = src[i]
            if c in {" ", "\t", "\r"}:
                i += 1
                continue
            if c == "\\" and src.startswith("\n", i + 1):
                i += 2
                continue
            if c == "\n":
                out.append(Token("op", i, op="\n"))
                i = self._heredoc_bodies(i + 1)
                command_start = True
                continue
            if c == "#":
                nl = src.find("\n", i)
                i = n if nl < 0 else nl
                continue
            if c == ")":
                if nested and parens == 0:
                    return out, i + 1, True
                parens = max(0, parens - 1)
                out.append(Token("op", i, op=")"))
                i += 1
                command_start = False
                continue
            if command_start and c == "(" and src.startswith("((", i):
                end = _matching_double_paren(src, i + 2)
                raw = src[i:end]
                out.append(Token("word", i, word=Word(raw, raw, dynamic=True)))
                i = end
                command_start = False
                continue
            if c == "(":
                if nested:
                    parens += 1
                out.append(Token("op", i, op="("))
                i += 1
                command_start = True
                continue
            if c in ";&|" and not src.startswith("&>", i):
                op = _operator_at(src, i)
                out.append(Token("op", i, op=op))
                i += len(op)
                command_start = True
                continue
            if (c in "<>" or c in _DIGITS or c == "&") and not in_test:
                redir = self._redirect_at(i)
                if redir is not None:
                    token, i = redir
                    out.append(token)
                    continue
            word, i = self._word(i, in_test)
            if word is None:  # a lone metacharacter the word reader refused: step over it
                i += 1
                continue
            if command_start and word.raw == "[[":
                in_test = True
            elif in_test and word.raw == "]]":
                in_test = False
            out.append(Token("word", i - len(word.raw), word=word))
            command_start = word.raw in _LEADING_KEYWORDS
        if nested:
            self._refuse(max(0, start - 2), "unterminated $( ... )")
        if self._pending:
            self._heredoc_bodies(n)
        return out, n, not nested

    # -- heredocs ----------------------------------------------------------------------

    def _heredoc_bodies(self, i: int) -> int:
        """Read the bodies of the heredocs opened on the line that just ended, in order;
        return where the next command line starts."""
        src, n = self.src, self.n
        while self._pending:
            doc = self._pending.pop(0)
            lines: list[str] = []
            while i < n:
                nl = src.find("\n", i)
                end = n if nl < 0 else nl
                line = src[i:end]
                i = n if nl < 0 else nl + 1
                check = line.lstrip("\t") if doc.strip_tabs else line
                if check.rstrip("\r") == doc.delimiter:
                    doc.terminated = True
                    break
                lines.append(check)
                if nl < 0:
                    break
            doc.body = "".join(line + "\n" for line in lines)
            if not doc.terminated:
                self.problems.append(f"here-document delimited by end of text (wanted {doc.delimiter!r})")
        return i

    # -- redirections ------------------------------------------------------------------

    def _redirect_at(self, i: int) -> tuple[Token, int] | None:
        src, n = self.src, self.n
        start = i
        fd: int | None = None
        j = i
        while j < n and src[j] in _DIGITS:
            j += 1
        if j > i:
            if j >= n or src[j] not in "<>" or j - i > 4:
                return None
            fd = int(src[i:j])
            i = j
        op = _redirect_op_at(src, i)
        if op is None:
            return None
        if op in ("<(", ">("):
            return None  # a process substitution is a word
        i += len(op)
        while i < n and src[i] in " \t":
            i += 1
        if op in ("<<", "<<-"):
            word, i = self._word(i, False)
            doc = None
            if word is not None:
                doc = Heredoc(delimiter=word.value, quoted=word.quoted,
                              strip_tabs=op == "<<-")
                self._pending.append(doc)
            else:
                self._refuse(start, "here-document without a delimiter")
            return Token("redir", start, redirect=Redirect(op, fd, word, doc)), i
        word, i = self._word(i, False)
        if word is None:
            self._refuse(start, f"redirection {op!r} without a target")
        return Token("redir", start, redirect=Redirect(op, fd, word)), i

    # -- words -------------------------------------------------------------------------

    def _word(self, i: int, in_test: bool) -> tuple[Word | None, int]:
        src, n = self.src, self.n
        start = i
        part = _Part()
        value, bare = part.value, part.bare
        while i < n:
            c = src[i]
            if c in _META:
                if in_test and c in "<>":
                    value.append(c)
                    bare.append(c)
                    i += 1
                    continue
                if c in "<>" and src.startswith("(", i + 1) and i == start:
                    end = self._nested(i + 2, part)
                    value.append(src[i:end])
                    part.dynamic = True
                    i = end
                    continue
                if c == "(" and value and value[-1].endswith("=") and _assignment_head("".join(value)):
                    end = _matching_paren(src, i + 1)
                    value.append(src[i:end])
                    part.dynamic = True
                    i = end
                    continue
                break
            if c == "\\":
                if i + 1 >= n:
                    value.append("\\")
                    i += 1
                    continue
                nxt = src[i + 1]
                i += 2
                if nxt == "\n":
                    continue
                value.append(nxt)
                part.quoted = True
                continue
            if c == "'":
                end = src.find("'", i + 1)
                part.quoted = True
                if end < 0:
                    self._refuse(i, "unterminated single quote")
                    value.append(src[i + 1:])
                    i = n
                    continue
                value.append(src[i + 1:end])
                i = end + 1
                continue
            if c == '"':
                i = self._double_quoted(i + 1, part)
                continue
            if c == "$":
                i = self._dollar(i, part, in_double=False)
                continue
            if c == "`":
                i = self._backtick(i, part)
                continue
            if c == "~" and i == start:
                part.tilde = True
            value.append(c)
            bare.append(c)
            i += 1
        if i == start:
            return None, i
        raw = src[start:i]
        bare_text = "".join(bare)
        glob = part.glob or any(ch in bare_text for ch in "*?[") or (
            "{" in bare_text and bool(brace_spans(bare_text)))
        return Word(raw, "".join(value), part.quoted, part.dynamic, glob, part.tilde,
                    tuple(part.inner)), i

    def _double_quoted(self, i: int, part: _Part) -> int:
        src, n = self.src, self.n
        opened = i - 1
        part.quoted = True
        value = part.value
        while i < n:
            c = src[i]
            if c == '"':
                return i + 1
            if c == "\\" and i + 1 < n:
                nxt = src[i + 1]
                if nxt == "\n":
                    i += 2
                    continue
                if nxt in '$`"\\':
                    value.append(nxt)
                    i += 2
                    continue
                value.append(c)
                i += 1
                continue
            if c == "$":
                i = self._dollar(i, part, in_double=True)
                continue
            if c == "`":
                i = self._backtick(i, part)
                continue
            value.append(c)
            i += 1
        self._refuse(opened, "unterminated double quote")
        return n

    def _dollar(self, i: int, part: _Part, in_double: bool) -> int:
        """An expansion at ``src[i] == '$'``; kept verbatim in the value."""
        src, n = self.src, self.n
        nxt = src[i + 1] if i + 1 < n else ""
        value = part.value
        if nxt == "'" and not in_double:
            return self._ansi_c(i + 2, part)
        if nxt == '"' and not in_double:
            return self._double_quoted(i + 2, part)
        if nxt == "(":
            if src.startswith("((", i + 1):
                end = _matching_double_paren(src, i + 3)
            else:
                end = self._nested(i + 2, part)
            value.append(src[i:end])
            part.dynamic = True
            return end
        if nxt == "{":
            end = _matching_brace(src, i + 2)
            if end > n:
                self._refuse(i, "unterminated ${ ... }")
                end = n
            value.append(src[i:end])
            part.dynamic = True
            return end
        if nxt and nxt in _NAME_START:
            j = i + 2
            while j < n and src[j] in _NAME_CHARS:
                j += 1
            value.append(src[i:j])
            part.dynamic = True
            return j
        if nxt and nxt in _SPECIAL_PARAMS:
            value.append(src[i:i + 2])
            part.dynamic = True
            return i + 2
        value.append("$")
        if not in_double:
            part.bare.append("$")
        return i + 1

    def _ansi_c(self, i: int, part: _Part) -> int:
        """``$'...'``: decoded as bash and zsh decode it (``ansi_c``), no expansion. A
        quote whose value the two shells (or the locale) may spell differently keeps its
        text as typed and makes the word ``dynamic``: the reading cannot know its value."""
        value, end, certain, closed = ansi_c(self.src, i)
        part.quoted = True
        if not closed:
            self._refuse(i - 2, "unterminated $' quote")
        if certain:
            part.value.append(value)
        else:
            part.value.append(self.src[i - 2:end])
            part.dynamic = True
        return end

    def _backtick(self, i: int, part: _Part) -> int:
        src, n = self.src, self.n
        j = i + 1
        inner: list[str] = []
        while j < n:
            c = src[j]
            if c == "\\" and j + 1 < n and src[j + 1] in "`$\\":
                inner.append(src[j + 1])
                j += 2
                continue
            if c == "`":
                break
            inner.append(c)
            j += 1
        if j >= n:
            self._refuse(i, "unterminated backtick")
            end = n
        else:
            end = j + 1
        part.value.append(src[i:end])
        part.dynamic = True
        part.inner.append("".join(inner))
        return end

    def _nested(self, i: int, part: _Part) -> int:
        """The body of a ``$(`` or ``<(``/``>(`` starting at ``i``; returns the index after
        the closing ``)``. The body is lexed like a script (so a quote or a heredoc in it
        cannot close it early) and kept in ``part.inner``."""
        if self.depth >= MAX_DEPTH:
            end = _matching_paren(self.src, i)
            part.inner.append(self.src[i:max(i, end - 1)])
            self.problems.append("substitutions nested too deep to read")
            return end
        sub = Lexer(self.src, self.depth + 1)
        _, end, closed = sub.tokens(i, nested=True)
        self.problems.extend(sub.problems)
        self.refusals.extend(sub.refusals)
        part.inner.append(self.src[i:end - 1] if closed else self.src[i:end])
        return end


_LEADING_KEYWORDS = frozenset(("!", "time", "then", "else", "elif", "do", "if", "while",
                               "until", "{", "sudo", "env", "exec", "command", "builtin",
                               "nohup"))


def _assignment_head(text: str) -> bool:
    name = text[:-1]
    if name.endswith("+"):
        name = name[:-1]
    return bool(name) and name[0] in _NAME_START and all(ch in _NAME_CHARS for ch in name)


def _operator_at(src: str, i: int) -> str:
    for op in (";;&", ";;", ";&", "&&", "||", "|&"):
        if src.startswith(op, i):
            return op
    return src[i]


_REDIRECT_OPS = ("&>>", "&>", "<<<", "<<-", "<<", "<>", "<&", "<(", ">>", ">|", ">&",
                 ">(", "<", ">")


def _redirect_op_at(src: str, i: int) -> str | None:
    for op in _REDIRECT_OPS:
        if src.startswith(op, i):
            return op
    return None


def _skip_quoted(src: str, i: int) -> int:
    """Index after the quoted string opening at ``src[i]`` (a quote character)."""
    q = src[i]
    j = i + 1
    n = len(src)
    while j < n:
        c = src[j]
        if c == "\\" and q == '"':
            j += 2
            continue
        if c == q:
            return j + 1
        j += 1
    return n


def _matching(src: str, i: int, opener: str, closer: str) -> int:
    """Index after the ``closer`` matching an ``opener`` just before ``i`` (quotes and
    backslashes respected, nesting counted); -1 when it never closes."""
    depth = 0
    n = len(src)
    j = i
    while j < n:
        c = src[j]
        if c in "'\"":
            j = _skip_quoted(src, j)
            continue
        if c == "\\":
            j += 2
            continue
        if c == opener:
            depth += 1
        elif c == closer:
            if depth == 0:
                return j + 1
            depth -= 1
        j += 1
    return -1


def _matching_paren(src: str, i: int) -> int:
    """Index after the ``)`` closing a ``(`` opened just before ``i``; the end of the text
    when it never closes."""
    end = _matching(src, i, "(", ")")
    return len(src) if end < 0 else end


def _matching_double_paren(src: str, i: int) -> int:
    """Index after the ``))`` closing an arithmetic ``((`` opened just before ``i``."""
    depth = 0
    n = len(src)
    j = i
    while j < n:
        c = src[j]
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                return j + 2 if src.startswith("))", j) else j + 1
            depth -= 1
        j += 1
    return n


def _matching_brace(src: str, i: int) -> int:
    """Index after the ``}`` closing a ``${`` opened just before ``i``; past the end of
    the text (``len + 1``) when it never closes. As bash reads it: the first ``}`` closes
    (a bare ``{`` opens nothing: ``${s//{/x}``, ``${a{b}`` end at their first ``}``),
    while a ``${`` inside nests; quotes and backslashes hide what they hold."""
    n = len(src)
    depth = 0
    j = i
    while j < n:
        c = src[j]
        if c in "'\"":
            j = _skip_quoted(src, j)
            continue
        if c == "\\":
            j += 2
            continue
        if c == "`":  # a backtick or a $( ) inside runs to its own end
            close = src.find("`", j + 1)
            j = n if close < 0 else close + 1
            continue
        if c in "$<>" and src.startswith("(", j + 1):  # (bash reads <( ) there too)
            j = _matching_paren(src, j + 2)
            continue
        if c == "$" and src.startswith("{", j + 1):
            depth += 1
            j += 2
            continue
        if c == "}":
            if depth == 0:
                return j + 1
            depth -= 1
        j += 1
    return n + 1


# -- brace expansion, as bash reads it ------------------------------------------------


def brace_end(text: str, at: int) -> int:
    """Where the brace expansion opened at ``at`` closes, as bash reads it, or -1 (none:
    the ``{`` is a literal one). A ``}`` that would close a body with no comma of its own
    and no sequence (``{a}``, ``{}``) is a literal one, and the search goes on (``a{b}c,d}``
    is ``ab}c`` and ``ad``); nested braces, ``${...}`` among them, close first."""
    return _brace_closes(text).get(at, -1)


@lru_cache(maxsize=64)
def _brace_closes(text: str) -> dict[int, int]:
    """``brace_end`` of every ``{`` of ``text``, read in two passes over it: a word with
    many braces is asked about each of them (by the lexer, and again by the readings),
    and a search from each ``{`` to its close had made 2,000 unclosed ``{a,`` take a
    second.

    What one opener's search meets is the text after it at its own level: a nested
    brace is passed over whole, to the ``}`` that balances it (whatever came before it,
    so one pairing of the whole text serves every opener), and one that nothing
    balances ends the search (no ``}`` after it can close). So the first ``}``, ``,``
    and ``{`` of that walk from each position, gathered from the end backwards, answer
    every opener: it closes at the first ``}`` when a comma of its own comes before it,
    or when its body is a sequence; past that literal ``}``, at the first ``}`` after
    its next comma."""
    pair: dict[int, int] = {}
    stack: list[int] = []
    for j, char in enumerate(text):
        if char == "{":
            stack.append(j)
        elif char == "}" and stack:
            pair[stack.pop()] = j
    size = len(text)
    close, comma, inner = [-1] * (size + 1), [-1] * (size + 1), [-1] * (size + 1)
    for j in range(size - 1, -1, -1):
        char = text[j]
        if char == "{":
            inner[j] = j
            if j in pair:  # the walk goes on past the brace it balances
                close[j], comma[j] = close[pair[j] + 1], comma[pair[j] + 1]
            continue  # (none: nothing after it closes; -1 stays)
        close[j], comma[j], inner[j] = close[j + 1], comma[j + 1], inner[j + 1]
        if char == "}":
            close[j] = j
        elif char == ",":
            comma[j] = j
    ends: dict[int, int] = {}
    for at in stack + list(pair):
        first = close[at + 1]
        if first < 0:
            continue
        own = comma[at + 1]
        if 0 <= own < first or (not 0 <= inner[at + 1] < first
                                and _SEQUENCE.fullmatch(text, at + 1, first)):
            ends[at] = first
            continue
        own = comma[first + 1]  # past the literal ``}``: its next comma, then a ``}``
        if own >= 0 and close[own + 1] >= 0:
            ends[at] = close[own + 1]
    return ends


#: A brace sequence's body (``{1..9}``, ``{a..e}``, ``{01..10..2}``; bash takes a sign on each
#: number: ``{+1..3}`` is 1 2 3).
_SEQUENCE = re.compile(r"[-+]?[0-9]+\.\.[-+]?[0-9]+(?:\.\.[-+]?[0-9]+)?|[A-Za-z]\.\.[A-Za-z](?:\.\.[-+]?[0-9]+)?")


def brace_spans(text: str) -> list[tuple[int, int]]:
    """The ``[start, end)`` of every brace expansion in ``text`` (``brace_end``)."""
    spans: list[tuple[int, int]] = []
    if "," not in text and ".." not in text:
        return spans  # (no body can hold a comma or a sequence)
    for at, char in enumerate(text):
        if char == "{" and text[at - 1:at] != "$" and (end := brace_end(text, at)) > 0:
            spans.append((at, end + 1))
    return spans


def brace_parts(body: str) -> list[str]:
    """A brace body cut at its own commas (not those of a brace nested in it)."""
    parts: list[str] = []
    depth = last = 0
    for j, char in enumerate(body):
        if char == "{":
            depth += 1
        elif char == "}":
            depth = max(0, depth - 1)
        elif char == "," and not depth:
            parts.append(body[last:j])
            last = j + 1
    parts.append(body[last:])
    return parts


def tokenize(src: str, depth: int = 0) -> tuple[list[Token], list[str]]:
    """All tokens of ``src`` and the problems met (unterminated quotes, substitutions,
    heredocs)."""
    lexer = Lexer(src, depth)
    tokens, _, _ = lexer.tokens()
    return tokens, lexer.problems
