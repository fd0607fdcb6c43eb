"""The three readings callers ask of a Bash command: what it changes (``mutations``),
what it writes with known content (``content_writes``), what it prints of a file
(``content_reads``), plus the mutating commands it cannot name files for
(``opaque_markers``).

Parsing is cached per command string (transcripts repeat their commands: a session
runs the same test line dozens of times), and a command holding none of the programs
or the ``>`` this layer reads is answered without a parse.
"""

from __future__ import annotations

import fnmatch
import re
from functools import lru_cache

from pysift.core.shell import findexpr
from pysift.core.shell.lexer import Word, ansi_c, brace_end, brace_parts, brace_spans
from pysift.core.shell.paths import (
    UNKNOWN_CWD,
    UNRESOLVED,
    Cwd,
    is_absolute,
    join,
    resolve,
    windows_family,
)
from pysift.core.shell.syntax import Command, Script, parse
from pysift.core.shell.verbs import GIT_INDEX_ONLY, Reading, program, read_command
from pysift.model.fastdata import dataclass

# Every program ``verbs`` reads, and the output flags: a command with none of these
# (quotes and backslashes dropped, so ``r'm'`` still says rm) and no ``>`` changes nothing
# this layer can see.
_TRIGGERS = re.compile(
    r">|rm|unlink|find|mkdir|touch|tee|cp|mv|install|ln|rsync|sed|perl|truncate|git|curl|wget|dd|zip"
    r"|tar|unzip|7z|patch|cargo|rustfmt|prettier|black|ruff|eslint|gofmt|clang-format"
    r"|dprint|npm|pnpm|yarn|bun|pip|poetry|uv|py|node|ruby|--out|--log|--junit"
    r"|--report-path|parallel")
_DROP_QUOTING = str.maketrans("", "", "'\"\\")


def unquoted(source: str) -> str:
    """``source`` without its quote characters, backslashes and line continuations: a
    name the command spells in pieces (``'q'.txt``, ``q\\.txt``) reads whole again. A
    command holding ``$'`` also gets, after a newline, its text with every ``$'...'``
    quote decoded (``$'\\x71'.txt``, ``$'q\\056txt'``), then its quoting dropped: a
    superset for a name test (no name holds a newline)."""
    flat = source.replace("\\\n", "").translate(_DROP_QUOTING)
    if "$'" not in source:
        return flat
    return flat + "\n" + ansi_c_decoded(source).replace("\\\n", "").translate(_DROP_QUOTING)


def ansi_c_decoded(source: str) -> str:
    """``source`` with each ``$'...'`` quote replaced by its value (bash's reading, its
    certainty aside), wherever it stands: a name test's spelling, never a parse."""
    out: list[str] = []
    at = 0
    while (start := source.find("$'", at)) >= 0:
        out.append(source[at:start])
        value, at, _, _ = ansi_c(source, start + 2)
        out.append(value)
    out.append(source[at:])
    return "".join(out)


def might_change_files(source: str) -> bool:
    """Cheap necessity test: False only when no reading can come out of ``source``."""
    return _TRIGGERS.search(unquoted(source)) is not None


@lru_cache(maxsize=8192)
def parse_cached(source: str) -> Script:
    """``syntax.parse`` memoized on the command string."""
    return parse(source)


@lru_cache(maxsize=8192)
def _readings(source: str) -> tuple[Script, tuple[tuple[Reading, Command], ...]]:
    if not might_change_files(source):
        return _EMPTY_SCRIPT, ()
    script = parse_cached(source)
    found: list[tuple[Reading, Command]] = []
    for command in script.commands:
        for reading in read_command(command):
            found.append((reading, command))
    return script, tuple(found)


_EMPTY_SCRIPT = Script("", (), True, ())


def changes_nothing(source: str) -> bool:
    """True when ``mutations(source, cwd)`` is empty for every cwd (memoized: a scan asks
    it of every Bash call, most of them ``ls``, ``git status``, a test run)."""
    return not _readings(source)[1]


@dataclass(frozen=True, slots=True)
class Mutation:
    """One file (or class of files) a command changes.

    ``path``: the resolved path, the operand as the shell sees it when it cannot be
    resolved, or the class marker (``git:checkout``, ``fmt:prettier``, ``pkg:npm``,
    ``extract:tar``, ``interp:python``); ``verbatim``: the operand as the shell sees it
    (quotes removed, ``$VAR`` kept); ``resolution``: ``absolute`` / ``cwd-joined`` /
    ``cd-tracked`` / ``unresolved``, None for a marker; ``verb``: what changed it (``rm``,
    ``>``, ``>>``, ``mv``, ``mv-from``, ``sed-i``, ``interp-write``, ``git``, ``fmt``...);
    ``is_create``: the verb makes a new file (a guess: the shell text cannot say);
    ``command``: the index of its command in ``Script.commands``; ``floating``: a literal
    relative operand left ``unresolved`` only because the directory it is read from is
    unknown (a ``cd`` that may not have run, a non-literal ``cd`` or ``git -C``): it names
    ``verbatim`` under SOME directory, so it may be any file whose path ends so;
    ``base``: the absolute directory a relative operand of the command is read from, when
    the reading knows it (what ``may_name`` anchors a relative pattern to); ``reach``: a
    ``find`` row's expression, read exactly (``findexpr``), which ``may_reach`` asks."""

    path: str
    verbatim: str
    resolution: str | None
    verb: str
    is_create: bool
    marker: bool
    command: int
    floating: bool = False
    base: str | None = None
    reach: tuple[object, ...] | None = None


def _resolve(word: Word, command: Command, record_cwd: str | None, trusted: bool
             ) -> tuple[str, str]:
    return resolve(word.value, word.literal, command.cwd, record_cwd, trusted)


def _program_cwd(command: Command, chdir: tuple[Word, ...]) -> Cwd:
    """The directory a program reads its operands from: the shell's, moved by the
    program's own ``-C`` directories (``git -C``), each from the one before."""
    cwd = command.cwd
    for word in chdir:
        if not word.literal:
            return UNKNOWN_CWD
        if word.value:  # `git -C ""` stays where it is
            cwd = cwd.cd(word.value)
    return cwd


def mutations(source: str, record_cwd: str | None = None) -> tuple[Mutation, ...]:
    """What the Bash command ``source`` changes, each operand resolved against the
    tool_use record's ``cwd`` (never raises; a command the reader cannot close gives its
    operands ``unresolved``, never drops them; a line the shell refuses changed nothing:
    ``parse`` leaves it out)."""
    if not isinstance(source, str):
        return ()
    script, found = _readings(source)
    out: list[Mutation] = []
    for reading, command in found:
        if reading.marker is not None:
            out.append(Mutation(reading.marker, reading.marker, None, reading.verb,
                                reading.is_create, True, command.index))
            continue
        word = reading.word
        assert word is not None
        cwd = _program_cwd(command, reading.chdir) if reading.chdir else command.cwd
        path, how = resolve(word.value, word.literal, cwd, record_cwd, script.complete)
        floating = (how == UNRESOLVED and cwd.kind == UNKNOWN_CWD.kind and word.literal
                    and bool(word.value) and not is_absolute(word.value) and script.complete)
        base = _base_dir(cwd, record_cwd) if how == UNRESOLVED and not floating else None
        out.append(Mutation(path, word.value, how, reading.verb, reading.is_create, False,
                            command.index, floating, base, reading.reach))
    return tuple(out)


def _base_dir(cwd: Cwd, record_cwd: str | None) -> str | None:
    """The absolute directory ``cwd`` stands for, when the reading knows it."""
    start = record_cwd if record_cwd and is_absolute(record_cwd) else None
    if cwd.kind == "abs":
        return join(cwd.path)
    if start is None or cwd.kind not in ("spawn", "rel"):
        return None
    return join(start, cwd.path) if cwd.kind == "rel" and cwd.path else start


def may_name(m: Mutation, path: str) -> bool:
    """Whether ``m``, an operand the reading could not pin to one file (a glob, a
    ``$VAR``, a leading ``~``, a substitution, a command it could not read whole), may
    change the file at the absolute ``path``: the file itself or a directory holding it
    (``rm -r "$D"``). A superset: each expansion stands for any text, each glob for any
    name, a quoted ``*`` too; a relative operand is anchored to the command's directory
    when the reading knows it (``base``), else it may sit anywhere; its ``.`` and ``..``
    are folded as the shell reads them (``_fold``: ``./*.py`` anywhere, ``../$F`` above
    the base), and what stands before an expansion that may hold a ``..`` of its own is
    not trusted (``_climbs``: ``sub/$D`` may be any file). A literal relative operand under an unknown directory (``floating``) is
    not asked here: it is opaque."""
    if m.marker or m.resolution != UNRESOLVED or m.floating or not m.verbatim:
        return False
    windows = windows_family(path)
    value = m.verbatim
    anchored = None
    within = ""  # what may stand before the pattern in its first component
    if is_absolute(value):
        anchored = value
    elif m.base is not None and not value.startswith(("$", "~", "`")):
        anchored = m.base + ("\\" if windows_family(m.base) else "/") + value
    # a `\` is a separator only where the file's path is a Windows one: on POSIX it is
    # a character of the name (``rm "$D"'a\b'`` had been read as ``a/b``)
    def slashed(text: str) -> str:
        return text.replace("\\", "/") if windows else text

    if anchored is not None and _climbs(slashed(anchored)) is None:
        text = join(anchored)  # `.`/`..` folded
        free = False
    else:
        folded = _fold(slashed(anchored if anchored is not None else value))
        if folded is None:
            return True  # a `/` inside an expansion: no component can be told apart
        text, free = folded
        at = _climbs(text)
        if at is not None:  # it may hold `..`: what stands before it may be climbed out of
            # (cut inside a component, its head stays: ``2{a$X,b}`` may be ``2bx``)
            within = "[^/]*" if at and text[at - 1:at] != "/" else ""
            text, free = text[at:], True
        free = free or anchored is None
    if windows:
        text, path = text.replace("\\", "/"), path.replace("\\", "/")
    regex = _pattern_regex(text)
    if free:
        regex = "(?:.*/)?" + within + regex
    flags = re.IGNORECASE | re.DOTALL if windows else re.DOTALL
    return re.fullmatch(regex + "(?:/.*)?", path, flags) is not None


def may_reach(m: Mutation, path: str) -> bool:
    """Whether ``m``, a change of a directory holding the absolute ``path`` (or of a
    pattern that may name one), may have changed the file: always, except for a ``find``
    whose expression was read exactly (``reach``) and certainly runs no changing action
    at any path it visits on the way to the file (``find . -name '*.pyc' -delete`` and
    ``src/app.py``). The start point is ``m``'s own path when it was resolved; otherwise
    every directory above the file may be visited, and ``-path`` is not known."""
    if m.reach is None:
        return True
    rel: list[str] | None = None
    if m.resolution != UNRESOLVED and m.resolution is not None:
        windows = windows_family(path)
        start = m.path.replace("\\", "/").rstrip("/") if windows else m.path.rstrip("/")
        target = path.replace("\\", "/") if windows else path
        if windows:
            start, target = start.lower(), target.lower()
        if target == start or not start:
            rel = [] if target == start else [p for p in target.split("/") if p]
        elif target.startswith(start + "/"):
            rel = [p for p in target[len(start) + 1:].split("/") if p]
        else:
            return True  # not under the start point: not this question
        if windows:  # the components as written, case kept
            rel = [p for p in path.replace("\\", "/").split("/") if p][-len(rel):] if rel else []
    return findexpr.may_change(m.reach, m.verbatim if rel is not None else None, rel, path)


def _fold(text: str) -> tuple[str, bool] | None:
    """``text`` (a pattern, ``/``-separated) with its ``.`` components and empty ones
    dropped and each ``..`` folded into the component before it, and whether what is left
    hangs from an unknown directory: a ``..`` after an expansion or a brace (which may
    hold several components: ``$D/..`` is any directory) or above a relative start
    (``../$F`` from an unknown place). None when a ``/`` stands inside an expansion or a
    brace (``${F//a/b}``, ``{a,b/c}``): its components cannot be told apart."""
    if any("/" in text[start:end] for start, end in brace_spans(text)):
        return None  # (``a{b}/c,d}`` too: bash reads its first ``}`` as a literal one)
    quote = text.find("$'")
    while quote >= 0:  # an ANSI-C quote the reading left undecoded (``$'a/\q'``)
        end = ansi_c(text, quote + 2)[1]
        if "/" in text[quote:end]:
            return None
        quote = text.find("$'", end)
    depth = 0
    tick = False
    for at, char in enumerate(text):
        if char == "`":
            tick = not tick
        elif (char == "$" and text[at + 1:at + 2] in ("{", "(")) or (
                char == "{" and text[at - 1:at] != "$" and "}" in text[at + 1:]):  # a brace
            depth += 1
        elif char in "})" and depth:
            depth -= 1
        elif char == "/" and (depth or tick):
            return None
    root = "//" if text.startswith("//") else "/" if text.startswith("/") else ""
    out: list[str] = []
    free = False
    for comp in text.split("/"):
        if comp in ("", "."):
            continue
        if comp == "..":
            if out and not any(c in out[-1] for c in "$`{"):
                if not (len(out) == 1 and not root and out[0].endswith(":")):  # a drive
                    out.pop()
            elif out or not root:
                out, free, root = [], True, ""
            continue
        out.append(comp)
    return root + "/".join(out), free



def _climbs(text: str) -> int | None:
    """Where the last piece of ``text`` (a ``/``-separated pattern) that may hold a ``..``
    of its own starts, or None: an expansion or substitution (``sub/$F`` is ``..`` when
    F is), a leading ``~`` word (``~-`` is any directory), a brace whose body holds a
    ``/`` or a ``..`` (``{a,../b}``); or where what follows a glob component that may
    match ``..`` starts (``.*``: bash before 5.2). What stands before it may be undone,
    so only the rest anchors the pattern."""
    last: int | None = 0 if text.startswith("~") else None
    i, size = 0, len(text)
    braces = brace_spans(text)
    if _stray_brace(text, braces):  # which braces pair is unknown: all of them as one piece
        first = min(at for at, char in enumerate(text) if char == "{" and text[at - 1:at] != "$")
        braces.append((first, text.rfind("}") + 1))

    def cut(at: int) -> int:  # an expansion inside a brace: the brace is the piece
        return min([at] + [start for start, end in braces if start < at < end])

    while i < size:
        char = text[i]
        end = i
        if char == "$" and text[i + 1:i + 2] in ("{", "("):
            end = _group_end(text, i + 1) - 1  # the whole expansion: a `$` inside is its own
            last = cut(i)
        elif char == "`":
            end = text.find("`", i + 1)
            end = size if end < 0 else end
            last = cut(i)
        elif char == "$" and text[i + 1:i + 2] == "'":  # an ANSI-C quote left undecoded
            last = cut(i)
            end = ansi_c(text, i + 2)[1] - 1  # (a `$` inside it is a character of it)
        elif char == "$":
            last = cut(i)
            while text[end + 1:end + 2] == "$":  # a run of them is one piece (``$$``, a
                end += 1  # quoted `$` before an expansion: ``_pattern_regex``)
        elif char == "{" and (close := brace_end(text, i)) > 0 and (
                "/" in text[i + 1:close] or ".." in text[i + 1:close]):
            # with no `/` of its own (else ``_fold`` gave up), a brace makes a `..` only
            # as a whole component: that component may be gone, so what follows anchors
            after = text.find("/", close)
            last = max(last or 0, size + 1 if after < 0 else after + 1)
        i = end + 1
    start = 0
    for comp in text.split("/"):
        start += len(comp) + 1
        if comp[:1] == "." and any(c in comp for c in "*?[") and fnmatch.fnmatchcase("..", comp):
            last = max(last or 0, start)  # the glob may be `..`: only what follows anchors
        elif any(c in comp for c in "$`{") and re.fullmatch(_pattern_regex(comp), "..",
                                                           re.DOTALL):
            # so may an expansion or a brace (``$B..`` with B empty, ``..{1,}``)
            last = max(last or 0, start)
    return last


def _pattern_regex(text: str) -> str:
    """A regex for every path ``text`` (a shell operand after quote removal, its
    expansions and undecidable ``$'...'`` quotes as typed) can stand for."""
    out: list[str] = []
    i, size = 0, len(text)
    loose = _stray_brace(text, brace_spans(text))
    while i < size:
        char = text[i]
        nxt = text[i + 1:i + 2]
        if loose and char == "{" and (last := text.rfind("}")) > i:
            # a quoted or escaped brace among them (``{*,\{x}``, ``{a,'}'b}``): which
            # braces bash pairs cannot be told once the quotes are gone
            out.append(".*")
            i = last + 1
            if "$" in text[:i]:  # (a ``$NAME`` in them may take what follows into it)
                i = _name_reach(text, i, loose)
        elif char == "$" and nxt == "'":  # an ANSI-C quote the reading could not decode
            _, end, _, _ = ansi_c(text, i + 2)
            out.append(".*")
            i = end
        elif char == "$" and nxt in ("{", "("):
            out.append(".*")
            i = _group_end(text, i + 1)
        elif char == "$" and nxt == "$":
            # ``$$`` is the shell's pid, and a `$` may have been quoted (``'$'$X``): a
            # run of them, with the name or the ``{...}``/``(...)`` its last may open, is
            # any text
            j = i
            while j < size and text[j] == "$":
                j += 1
            if j < size and text[j] in "{(":
                j = _group_end(text, j)
            else:
                j = _name_reach(text, j, loose)
            out.append(".*")
            i = j
        elif char == "$" and nxt and (nxt.isalnum() or nxt in "_@*#?$!-"):
            j = i + 2
            if nxt.isalpha() or nxt == "_":
                j = _name_reach(text, j, loose)  # (``$X{a,b}`` is ``$Xa`` and ``$Xb``)
            out.append(".*")
            i = j
        elif char == "`":
            end = text.find("`", i + 1)
            out.append(".*")
            i = size if end < 0 else end + 1
        elif char == "~" and i == 0:  # the tilde-prefix up to the first `/`: `~-` too
            out.append(".*")
            i = text.find("/") if "/" in text else size
        elif char == "*":
            double = nxt == "*"
            out.append(".*" if double else "[^/]*")
            i += 2 if double else 1
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[" and (end := text.find("]", i + 2)) > 0:
            out.append("[^/]")
            i = end + 1
        elif char == "{" and (end := brace_end(text, i)) > 0:
            out.append(_brace_regex(text[i + 1:end]))
            tail = _NAME_AT_END.search(text, i + 1, end + 1) is not None
            i = end + 1
            if tail and (reach := _name_reach(text, i, loose)) > i:
                # an alternative ending in a ``$NAME`` takes what follows the brace into the
                # name (``b{,$X}a`` is ``b`` and ``b$Xa``): what it may take is any text
                out.append(".*")
                i = reach
        else:
            out.append(re.escape(char))
            i += 1
    return "".join(out)


def _group_end(text: str, at: int) -> int:
    """Where the ``{...}`` or ``(...)`` opened at ``at`` ends (after its close, nested
    ones counted), or the end of ``text`` when it never closes."""
    opening = text[at]
    closing = "}" if opening == "{" else ")"
    depth = 0
    for j in range(at, len(text)):
        depth += (text[j] == opening) - (text[j] == closing)
        if depth == 0:
            return j + 1
    return len(text)


#: a ``$NAME`` (or a bare ``$``) ending one of a brace's alternatives: its ``,`` or ``}``
#: follows (searched in the body and its closing brace)
_NAME_AT_END = re.compile(r"\$[A-Za-z0-9_]*(?=[,}])")


def _name_reach(text: str, at: int, loose: bool) -> int:
    """Where what a ``$NAME`` ending at ``at`` may take into its name ends: the name
    characters after it, and the brace expansions among them, whose alternatives may begin
    with such characters and may be made of them only (``$X{a,b}c`` is ``$Xac`` and
    ``$Xbc``); ``loose`` (``_stray_brace``): which braces pair is unknown, a ``{`` reaches
    to the last ``}``."""
    size = len(text)
    while at < size:
        if text[at] == "{" and loose and (last := text.rfind("}")) > at:
            at = last + 1
        elif text[at] == "{" and (end := brace_end(text, at)) > 0:
            at = end + 1
        elif text[at].isalnum() or text[at] == "_":
            at += 1
        else:
            break
    return at


def _stray_brace(text: str, spans: list[tuple[int, int]]) -> bool:
    """Whether ``text`` (its brace expansions: ``spans``) holds a ``{`` or ``}`` that
    neither a brace expansion nor a ``${...}`` accounts for, by a brace expansion or by a
    comma or ``..`` after a ``{`` and before a ``}``: one that was quoted or escaped,
    which may have closed or opened another brace than the one its bare spelling pairs."""
    if not spans:  # none as typed, but a quoted brace may have hidden one
        opened = [at for at, char in enumerate(text) if char == "{" and text[at - 1:at] != "$"]
        return bool(opened) and any(c in text[opened[0]:] for c in (",", "..")) and (
            "}" in text[opened[0]:])
    owned = {at for start, end in spans for at in (start, end - 1)}
    depth = 0
    for at, char in enumerate(text):
        if char == "{" and text[at - 1:at] == "$":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        elif char in "{}" and at not in owned:
            return True
    return False


#: Past this many alternatives (or this long a regex), a brace stands for any text.
_BRACE_PARTS_MAX = 16
_BRACE_REGEX_MAX = 4096
_BRACE_DEPTH_MAX = 32


def _nesting(body: str) -> int:
    """How deep the braces of ``body`` nest."""
    deepest = depth = 0
    for char in body:
        if char == "{":
            depth += 1
            deepest = max(deepest, depth)
        elif char == "}" and depth:
            depth -= 1
    return deepest


@lru_cache(maxsize=1024)
def _brace_regex(body: str) -> str:
    """A regex for every text the brace ``{body}`` can stand for: each alternative, and
    since the quotes are gone (``{a,'b,c'}``, ``'{a,b}'``), each run of neighbouring
    alternatives with its commas and the brace as typed. A sequence (``{1..9}``), a body
    holding a ``..`` (an alternative may climb: ``_climbs`` anchors past it) or an
    outsized brace stands for any text. (``.*`` had stood for every brace: ``rm
    {a,b}.txt`` named every ``.txt`` file, and ``{a,{b,c}}.txt`` none of its own.)
    Cached: a nested brace comes back in every run that holds it and in the brace as
    typed (each level of nesting had cost three times the one inside it)."""
    if len(body) > _BRACE_REGEX_MAX or _nesting(body) > _BRACE_DEPTH_MAX:
        return ".*"  # (each level is read through the ones around it: 400 had crashed)
    parts = brace_parts(body)
    if len(parts) == 1 or ".." in body or len(parts) > _BRACE_PARTS_MAX:
        return ".*"
    runs = {",".join(parts[a:b]) for a in range(len(parts)) for b in range(a + 1, len(parts) + 1)}
    alternatives = sorted({_pattern_regex(run) for run in runs})
    alternatives.append(re.escape("{") + _pattern_regex(body) + re.escape("}"))
    regex = "(?:" + "|".join(alternatives) + ")"
    return ".*" if len(regex) > _BRACE_REGEX_MAX else regex


#: the head of the opaque entry a floating mutation gives (``cwd-unknown:rm``)
CWD_UNKNOWN = "cwd-unknown:"


def opaque_markers(source: str) -> tuple[Mutation, ...]:
    """The mutating-class markers of a command that rewrite worktree files they do not
    name (``fmt:``, ``interp:``, ``pkg:``, ``extract:``, ``git:`` except the index-only
    ``git:add``/``git:commit``), and one ``cwd-unknown:<verb>`` entry per floating
    mutation (a file named relative to a directory the reading cannot know, such as
    after ``cd a || cd b``): what a reconstruction cannot replay or place and must
    disclose."""
    out: list[Mutation] = []
    for m in mutations(source, _PROBE_CWD):
        if m.marker:
            if m.path not in _INDEX_ONLY:
                out.append(m)
        elif m.floating:
            marker = CWD_UNKNOWN + m.verb
            out.append(Mutation(marker, m.verbatim, None, m.verb, m.is_create, True,
                                m.command))
    return tuple(out)


# Any absolute cwd: a floating operand is one the cwd of the record cannot place.
_PROBE_CWD = "/"


_INDEX_ONLY = frozenset(f"git:{sub}" for sub in GIT_INDEX_ONLY)


# -- content-bearing writes and reads (recover's anchors) -----------------------------------


@dataclass(frozen=True, slots=True)
class ContentWrite:
    """A write whose target the command names: a ``>``/``>>`` redirection, a ``tee``
    operand, a ``truncate``.

    ``mode``: ``truncate`` (the file is replaced) or ``append``; ``content``: the exact
    text written when the command text fixes it (a quoted-delimiter heredoc into ``cat``
    or ``tee``, or an unquoted one with no ``$``/backtick/backslash; ``echo`` of literal
    words, without ``-e``; ``printf`` of one literal format holding no ``%`` or ``\\``;
    ``:`` / ``true``; ``truncate -s 0``), else None; ``source``: ``heredoc``, ``echo``,
    ``printf``, ``colon``, ``truncate``, ``tee`` or ``redirect``; ``clean``: its command
    runs in the calling shell with every word literal and this as its only write, and
    certainly runs exactly once when the string ends with status 0 (``Command.certain``:
    never on the right of an ``||``, in an ``if``/loop/``case``/function body or after an
    ``exit``); and ``exclusive``: nothing else in the whole command string changes the
    same path, nor names a pattern (a glob, a ``$VAR``) that may match it."""

    path: str
    verbatim: str
    resolution: str
    mode: str
    content: str | None
    source: str
    command: int
    clean: bool
    exclusive: bool


def _echo_output(args: list[Word]) -> str | None:
    """What ``echo`` prints, when bash and zsh print the same (a record never says which
    shell ran: Claude Code runs the user's, zsh on a Mac). zsh's echo expands backslash
    escapes unless given ``-E``, drops a lone ``-`` first operand and expands a word
    opening with ``=`` to a program's path; any of those is not a fixed text."""
    newline = True
    literal_escapes = False
    rest = list(args)
    while rest and rest[0].literal and rest[0].value.startswith("-") and len(rest[0].value) > 1 \
            and set(rest[0].value[1:]) <= set("neE"):
        flags = rest[0].value[1:]
        if "e" in flags:
            return None
        if "n" in flags:
            newline = False
        if "E" in flags:
            literal_escapes = True
        rest.pop(0)
    if not all(w.literal for w in rest):
        return None
    if rest and (rest[0].value == "-" or any(w.raw.startswith("=") and w.raw != "=" for w in rest)):
        return None
    text = " ".join(w.value for w in rest)
    if "\\" in text and not literal_escapes:
        return None
    return text + "\n" if newline else text


def _printf_output(args: list[Word]) -> str | None:
    if len(args) != 1 or not args[0].literal:
        return None
    fmt = args[0].value
    return None if "%" in fmt or "\\" in fmt else fmt


def _stdin_heredoc(command: Command) -> str | None:
    """The text a command's single heredoc feeds it when that text is fixed."""
    docs = [r.heredoc for r in command.redirects if r.heredoc is not None]
    if len(docs) != 1 or any(r.op in {"<<<", "<"} for r in command.redirects):
        return None
    doc = docs[0]
    if not doc.terminated:
        return None
    if not doc.quoted and any(ch in doc.body for ch in "$`\\"):
        return None
    return doc.body


def _write_content(command: Command, name: str | None, args: list[Word]) -> tuple[str | None, str]:
    """(content, source) a write redirection of ``command`` receives on stdout."""
    if name == "cat" and (not args or [w.value for w in args] == ["-"]):
        body = _stdin_heredoc(command)
        return body, "heredoc"
    if any(r.heredoc is not None for r in command.redirects):
        return None, "redirect"
    if name == "echo":
        return _echo_output(args), "echo"
    if name == "printf":
        return _printf_output(args), "printf"
    if name in (":", "true") and not args:
        return "", "colon"
    return None, "redirect"


def content_writes(source: str, record_cwd: str | None = None) -> tuple[ContentWrite, ...]:
    """Every named write of ``source`` with its mode and, when the text fixes it, the
    content written (never raises)."""
    if not isinstance(source, str):
        return ()
    script = parse_cached(source)
    changed = mutations(source, record_cwd)
    counts: dict[str, int] = {}
    for m in changed:
        if not m.marker:
            counts[m.path] = counts.get(m.path, 0) + 1
    patterns = [m for m in changed if m.resolution == UNRESOLVED and not m.floating
                and not m.marker]

    def alone(path: str, how: str) -> bool:
        """Nothing else in the string changes ``path``, nor may (a glob, a ``$VAR``)."""
        if counts.get(path, 0) > 1:
            return False
        return how == UNRESOLVED or not any(may_name(m, path) for m in patterns)
    out: list[ContentWrite] = []
    for command in script.commands:
        name, args = program(command.words)
        writes = [r for r in command.redirects if r.writes_file and r.target is not None
                  and r.target.value]
        simple = command.simple and not command.assignments and command.certain
        for redirect in writes:
            target = redirect.target
            assert target is not None
            path, how = _resolve(target, command, record_cwd, script.complete)
            content, kind = (None, "redirect")
            if redirect.fd in (None, 1) and redirect.op in (">", ">>", ">|"):
                content, kind = _write_content(command, name, args)
            out.append(ContentWrite(
                path, target.value, how, "append" if redirect.appends else "truncate",
                content, kind, command.index, simple and len(writes) == 1,
                alone(path, how)))
        if name == "tee":
            values = [w.value for w in args]
            append = "-a" in values or "--append" in values
            operands = [w for w in args if not w.value.startswith("-")]
            body = _stdin_heredoc(command) if len(operands) == 1 else None
            for word in operands:
                path, how = _resolve(word, command, record_cwd, script.complete)
                out.append(ContentWrite(
                    path, word.value, how, "append" if append else "truncate", body, "tee",
                    command.index, simple and not writes and len(operands) == 1,
                    alone(path, how)))
        if name == "truncate":
            values = [w.value for w in args]
            zero = (values[:2] in (["-s", "0"], ["--size", "0"])
                    or values[:1] in (["-s0"], ["--size=0"]))
            operands = [w for w in args[2 if values[:1] in (["-s"], ["--size"]) else 1:]
                        if not w.value.startswith("-")] if zero else []
            for word in operands:
                path, how = _resolve(word, command, record_cwd, script.complete)
                out.append(ContentWrite(
                    path, word.value, how, "truncate", "" if len(operands) == 1 else None,
                    "truncate", command.index, simple and not writes and len(operands) == 1,
                    alone(path, how)))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class ContentRead:
    """A command whose stdout is a window of one file: ``cat F`` (the whole file),
    ``head -n N F`` (lines 1..N), ``sed -n 'A,Bp' F`` (lines A..B; ``A,$p`` to the end:
    ``end`` None). Given only when the command string is that one simple command (the
    stdout of a chain cannot be attributed to one file)."""

    path: str
    verbatim: str
    resolution: str
    start: int
    end: int | None
    source: str


_SED_WINDOW = re.compile(r"([0-9]+)(?:,([0-9]+|\$))?p")


def content_reads(source: str, record_cwd: str | None = None) -> tuple[ContentRead, ...]:
    """The file window ``source`` prints, when it is one (never raises)."""
    if not isinstance(source, str):
        return ()
    script = parse_cached(source)
    if len(script.commands) != 1 or not script.complete or script.refusal is not None:
        return ()
    command = script.commands[0]
    if not command.simple or command.redirects or command.assignments:
        return ()
    values = list(command.argv)
    window: tuple[int, int | None] | None = None
    operand: Word | None = None
    kind = values[0] if values else ""
    if kind == "cat" and len(values) == 2 and not values[1].startswith("-"):
        window, operand = (1, None), command.words[1]
    elif kind == "head":
        count: str | None = None
        if len(values) == 4 and values[1] == "-n":
            count, operand = values[2], command.words[3]
        elif len(values) == 3 and values[1].startswith("-"):
            count = values[1][2:] if values[1].startswith("-n") else values[1][1:]
            operand = command.words[2]
        if count is not None and count.isascii() and count.isdigit() and int(count) >= 1:
            window = (1, int(count))
    elif kind == "sed" and len(values) == 4 and values[1] == "-n":
        match = _SED_WINDOW.fullmatch(values[2])
        if match:
            first = int(match.group(1))
            last = match.group(2)
            end = first if last is None else (None if last == "$" else int(last))
            if first >= 1 and (end is None or end >= first):
                window, operand = (first, end), command.words[3]
    if window is None or operand is None or operand.value.startswith("-"):
        return ()
    path, how = _resolve(operand, command, record_cwd, True)
    if how == UNRESOLVED:
        return ()
    return (ContentRead(path, operand.value, how, window[0], window[1], kind),)
