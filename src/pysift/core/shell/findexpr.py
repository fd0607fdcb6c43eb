"""``find``'s expression, read so far as it can be read exactly: which files under a start
directory a ``find … -delete`` / ``-exec rm {} +`` may have changed.

``find DIR -name '*.pyc' -delete`` changes the files its tests match, not every file
under DIR. This module parses the expression after the start points into a tree and
evaluates it, for one file, in three values (true, false, unknown) over every path
``find`` visits on the way to the file (the start point, each directory under it, the
file itself: an ``-exec rm -rf {} +`` that matches a directory removes what it holds).
The file may have been changed unless, at every such path, a changing action is
certainly not reached. Only tests whose answer the path alone fixes are read:
``-name``/``-iname`` and ``-path``/``-wholename``/``-ipath``/``-iwholename`` of a literal
pattern (``*``, ``?``, ``\\x``; a bracket expression only rules a name out), ``-type``,
``-true``/``-false``, the operators (``!``, ``-not``, ``-a``, ``-o``, ``,``, parentheses).
Every other test (times, sizes, ``-regex``, ``-newer``, a pattern the shell may expand)
is unknown, and a primary the table does not know leaves the whole expression unread
(then every file under the start point may have changed, as before). Never raises.

The tree is nested tuples (hashable, so a ``Mutation`` can carry it):
``("and", a, b)``, ``("or", a, b)``, ``(",", a, b)``, ``("not", a)``,
``("name", pattern, icase)``, ``("path", pattern, icase)``, ``("type", letters)``,
``("const", value)`` (a test or action whose value is fixed or unknown, None),
``("change",)`` (an action that changes the path it is given; its status unknown).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from pysift.core.shell.lexer import Word
from pysift.core.shell.paths import windows_family

Tri = bool | None
Node = tuple[Any, ...]

#: primaries whose one argument this reading does not test (their value is unknown)
_UNKNOWN_1 = frozenset((
    "-regex", "-iregex", "-xtype", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin",
    "-newer", "-anewer", "-cnewer", "-size", "-perm", "-user", "-group", "-uid", "-gid",
    "-links", "-inum", "-samefile", "-fstype", "-lname", "-ilname", "-used", "-context",
    "-Btime", "-Bmin", "-Bnewer", "-flags",
))
#: tests without an argument whose value is unknown
_UNKNOWN_0 = frozenset((
    "-empty", "-readable", "-writable", "-executable", "-nouser", "-nogroup",
))
#: options and actions without an argument that are always true and change nothing
_TRUE_0 = frozenset((
    "-print", "-print0", "-ls", "-prune", "-quit", "-depth", "-d", "-xdev", "-mount",
    "-follow", "-noleaf", "-ignore_readdir_race", "-noignore_readdir_race", "-daystart",
    "-warn", "-nowarn", "-true", "-x", "-s", "-E",
))
#: options and actions with one argument that are always true (``-fprint FILE`` writes
#: FILE, read by the caller)
_TRUE_1 = frozenset((
    "-maxdepth", "-mindepth", "-regextype", "-printf", "-fprint", "-fprint0", "-fls",
    "-files0-from",
))
_EXECS = frozenset(("-exec", "-execdir", "-ok", "-okdir"))
_NAMES = {"-name": False, "-iname": True}
_PATHS = {"-path": False, "-wholename": False, "-ipath": True, "-iwholename": True}

#: what an ``-exec`` does to the path it is given: ``change`` it, ``derive`` a path from it
#: that the tests need not match (``cp {} {}.bak``: the expression cannot be used), or
#: ``none``
ExecKind = Callable[[Sequence[Word]], str]


class _Unread(Exception):
    """The expression holds something this reading cannot place."""


def parse(args: Sequence[Word], exec_kind: ExecKind) -> Node | None:
    """The tree of ``find``'s expression ``args`` (what follows the start points), or None
    when it cannot be read exactly."""
    try:
        parser = _Parser(list(args), exec_kind)
        if not parser.words:
            return ("const", True)
        node = parser.comma()
        if parser.at < len(parser.words):
            return None
        return node
    except _Unread:
        return None


class _Parser:
    def __init__(self, words: list[Word], exec_kind: ExecKind) -> None:
        self.words = words
        self.at = 0
        self.exec_kind = exec_kind

    def _peek(self) -> str | None:
        return self.words[self.at].value if self.at < len(self.words) else None

    def comma(self) -> Node:
        node = self.disjunction()
        while self._peek() == ",":
            self.at += 1
            node = (",", node, self.disjunction())
        return node

    def disjunction(self) -> Node:
        node = self.conjunction()
        while self._peek() in ("-o", "-or"):
            self.at += 1
            node = ("or", node, self.conjunction())
        return node

    def conjunction(self) -> Node:
        node = self.unary()
        while (nxt := self._peek()) is not None and nxt not in ("-o", "-or", ",", ")"):
            if nxt in ("-a", "-and"):
                self.at += 1
            node = ("and", node, self.unary())
        return node

    def unary(self) -> Node:
        nxt = self._peek()
        if nxt in ("!", "-not"):
            self.at += 1
            return ("not", self.unary())
        if nxt == "(":
            self.at += 1
            node = self.comma()
            if self._peek() != ")":
                raise _Unread
            self.at += 1
            return node
        return self.primary()

    def _arg(self) -> Word:
        if self.at >= len(self.words):
            raise _Unread
        word = self.words[self.at]
        self.at += 1
        return word

    def primary(self) -> Node:
        word = self._arg()
        value = word.value
        if not word.literal:
            raise _Unread
        if value in _NAMES or value in _PATHS:
            pattern = self._arg()
            if not pattern.literal:  # the shell may expand it first: unknown
                return ("const", None)
            kind = "name" if value in _NAMES else "path"
            return (kind, pattern.value, _NAMES.get(value, _PATHS.get(value, False)))
        if value == "-type":
            letters = self._arg()
            if not letters.literal:
                return ("const", None)
            return ("type", letters.value.replace(",", ""))
        if value == "-false":
            return ("const", False)
        if value == "-delete":
            return ("change",)
        if value in _EXECS:
            inner: list[Word] = []
            while self.at < len(self.words) and self.words[self.at].value not in (";", "+"):
                inner.append(self.words[self.at])
                self.at += 1
            if self.at >= len(self.words):
                raise _Unread  # no `;` or `+`: find refuses it
            self.at += 1
            kind = self.exec_kind(inner)
            if kind == "derive":
                raise _Unread
            return ("change",) if kind == "change" else ("const", None)
        if value == "-fprintf":
            self._arg()
            self._arg()
            return ("const", True)
        if value in _TRUE_0:
            return ("const", True)
        if value in _UNKNOWN_0:
            return ("const", None)
        if value in _TRUE_1:
            self._arg()
            return ("const", True)
        if value in _UNKNOWN_1 or (value.startswith("-newer") and len(value) == 8):
            self._arg()
            return ("const", None)
        raise _Unread


# -- evaluation ------------------------------------------------------------------------------


def may_change(tree: Node, start: str | None, rel: Sequence[str] | None, path: str) -> bool:
    """Whether ``find`` with the expression ``tree`` may change the file at ``path``.

    ``start``: the start point as typed (None when unknown); ``rel``: the components from
    the start point down to the file (None when the start point is unknown: then every
    directory above the file is taken as visited, and ``.`` and ``..`` as the start's
    name, and no ``-path`` test is known). A start typed with a trailing ``/`` is read
    both ways finds print it (GNU ``src/x``, BSD ``src//x``)."""
    windows = windows_family(path)
    visits: list[tuple[str | None, str | None, bool]] = []
    if rel is None:
        parts = [p for p in path.replace("\\", "/").split("/") if p]
        visits = [(name, None, n == len(parts) - 1) for n, name in enumerate(parts)]
        visits += [(".", None, False), ("..", None, False)]
    else:
        typed = start or ""
        known = "\\" not in typed
        stem = typed.rstrip("/")
        if not stem:
            prefixes, names = ([typed], [typed[:1]])
        elif stem == typed:
            prefixes, names = [typed + "/"], [stem.rsplit("/", 1)[-1]]
        else:  # GNU and BSD print and name a start typed with a trailing `/` apart
            prefixes = [stem + "/", typed, typed + "/"]
            names = [stem.rsplit("/", 1)[-1], stem.rsplit("/", 1)[-1] + typed[len(stem):]]
        visits += [(name if known else None, typed, not rel) for name in names]
        for prefix in prefixes:
            for depth in range(1, len(rel) + 1):
                printed = prefix + "/".join(rel[:depth]) if known else None
                visits.append((rel[depth - 1], printed, depth == len(rel)))
    return any(_evaluate(tree, name, printed, target, windows)[1]
               for name, printed, target in visits)


def _evaluate(node: Node, name: str | None, printed: str | None, target: bool,
              windows: bool) -> tuple[Tri, bool]:
    """(the node's value, whether a changing action may run) at one visited path."""
    kind = node[0]
    if kind in ("and", "or"):
        left, left_changes = _evaluate(node[1], name, printed, target, windows)
        if (kind == "and" and left is False) or (kind == "or" and left is True):
            return left, left_changes
        right, right_changes = _evaluate(node[2], name, printed, target, windows)
        if kind == "and":
            value: Tri = False if right is False else (True if left and right else None)
        else:
            value = True if right is True else (False if left is False and right is False
                                                else None)
        return value, left_changes or right_changes
    if kind == ",":
        _, left_changes = _evaluate(node[1], name, printed, target, windows)
        right, right_changes = _evaluate(node[2], name, printed, target, windows)
        return right, left_changes or right_changes
    if kind == "not":
        inner, changes = _evaluate(node[1], name, printed, target, windows)
        return (None if inner is None else not inner), changes
    if kind == "change":
        return None, True
    if kind == "const":
        value = node[1]
        return (value if value is None or isinstance(value, bool) else None), False
    if kind == "type":
        letters = set(str(node[1]))
        # the file is a regular file or a link to one; a directory on the way to it is a
        # directory or a link to one
        possible = {"f", "l"} if target else {"d", "l"}
        return (None if letters & possible else False), False
    if kind == "name":
        return _match(str(node[1]), name, bool(node[2]) or windows), False
    if kind == "path":
        return _match(str(node[1]), printed, bool(node[2]) or windows), False
    return None, False


def _match(pattern: str, text: str | None, icase: bool) -> Tri:
    """fnmatch without flags (what ``-name`` and ``-path`` use): True, False, or None when
    the answer depends on what this reading cannot know (the locale, a bracket)."""
    if text is None:
        return None
    if icase:
        if not (pattern.isascii() and text.isascii()):
            return None
        pattern, text = pattern.lower(), text.lower()
    regex, exact = _translate(pattern)
    if regex is None:
        return None
    if ("?" in pattern or "[" in pattern) and not text.isascii():
        return None  # `?` is a byte in the C locale, a character in UTF-8
    if re.fullmatch(regex, text, re.DOTALL) is None:
        return False
    return True if exact else None


def _translate(pattern: str) -> tuple[str | None, bool]:
    """A regex for the pattern and whether it is exact (a bracket becomes any one
    character: a superset), or None when the pattern cannot be read."""
    out: list[str] = []
    exact = True
    i, size = 0, len(pattern)
    while i < size:
        char = pattern[i]
        if char == "*":
            out.append(".*")
        elif char == "?":
            out.append(".")
        elif char == "\\":
            if i + 1 >= size:
                return None, False
            i += 1
            out.append(re.escape(pattern[i]))
        elif char == "[":
            j = i + 1
            if j < size and pattern[j] in "!^":
                j += 1
            if j < size and pattern[j] == "]":
                j += 1
            end = pattern.find("]", j)
            if end < 0:
                out.append(re.escape(char))  # no closing bracket: a literal `[`
            elif "[" in pattern[i + 1:end] or "\\" in pattern[i + 1:end]:
                return None, False  # a class like [[:alpha:]] or an escape inside
            else:
                out.append(".")
                exact = False
                i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out), exact

