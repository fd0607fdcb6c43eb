"""Where a shell operand points: the shell cwd through one command, and the join.

Claude Code runs every Bash call in a fresh shell started at the directory it tracks,
and writes that directory on the tool_use record as ``cwd`` (SPEC §4.9). So a command
needs no state from earlier calls: only the ``cd``s inside the command itself move the
shell, and those are read lexically. An operand is then resolved in one of four ways,
never guessed:

``absolute``    typed absolute (``/tmp/x``, ``C:\\x``, ``\\\\server\\share``); used as typed,
                ``.``/``..`` folded.
``cwd-joined``  relative, no ``cd`` before it: joined to the record's own ``cwd``.
``cd-tracked``  relative, after literal ``cd``s in the same command: joined to where
                those ``cd``s lead (an inference: a ``cd`` that failed is not seen).
``unresolved``  the operand or a ``cd`` before it holds ``$VAR``, ``~``, a substitution
                or a glob, or the cwd is unknown: the operand is kept as typed.

All of it is string work in the separator family of the base path, so a Windows
transcript read on Linux joins ``d:\\work`` + ``src/a.py`` as ``D:\\work\\src\\a.py`` (the
drive letter upper-cased: Windows reads it case-blind and Claude Code writes it upper).
"""

from __future__ import annotations

from pysift.model.fastdata import dataclass

ABSOLUTE = "absolute"
CWD_JOINED = "cwd-joined"
CD_TRACKED = "cd-tracked"
UNRESOLVED = "unresolved"
RESOLUTIONS = (ABSOLUTE, CWD_JOINED, CD_TRACKED, UNRESOLVED)


@dataclass(frozen=True, slots=True)
class Cwd:
    """The shell's directory at one point of a command, relative to where it started.

    ``kind``: ``spawn`` (no ``cd`` yet: the record's ``cwd``), ``rel`` (only relative
    literal ``cd``s: ``path`` is relative to the record's ``cwd``; ``""`` = back at the
    start through tracked ``cd``s), ``abs`` (an absolute literal ``cd``: ``path``),
    ``unknown`` (a ``cd`` this reading cannot follow).
    """

    kind: str = "spawn"
    path: str = ""

    def cd(self, target: str) -> Cwd:
        """Where a literal ``cd target`` leads from here."""
        if is_absolute(target):
            return Cwd("abs", target)
        if self.kind == "spawn":
            return Cwd("rel", target)
        if self.kind == "rel":
            return Cwd("rel", f"{self.path}/{target}" if self.path else target)
        if self.kind == "abs":
            return Cwd("abs", join(self.path, target))
        return UNKNOWN_CWD


SPAWN = Cwd()
UNKNOWN_CWD = Cwd("unknown")


def is_absolute(path: str) -> bool:
    """Absolute to the shell: unix-rooted, a drive form (``C:\\``/``C:/``), or UNC."""
    if path.startswith(("/", "\\\\")):
        return True
    return (len(path) >= 3 and path[0].isascii() and path[0].isalpha() and path[1] == ":"
            and path[2] in "/\\")


def windows_family(base: str) -> bool:
    """A drive form (``C:``) or a UNC path: Windows separators and case rules."""
    return base.startswith("\\\\") or (len(base) >= 2 and base[0].isascii()
                                       and base[0].isalpha() and base[1] == ":")


def join(base: str, *parts: str) -> str:
    """``parts`` joined onto the absolute ``base``, ``.`` and ``..`` folded lexically
    (``..`` never climbs above the root), in the base's separator family."""
    windows = windows_family(base)
    sep = "\\" if windows else "/"
    if windows:
        if base.startswith("\\\\"):
            pieces = base[2:].replace("/", "\\").split("\\", 2)
            server = pieces[0] if pieces else ""
            share = pieces[1] if len(pieces) > 1 else ""
            root = f"\\\\{server}\\{share}"
            rest = pieces[2] if len(pieces) > 2 else ""
        else:  # a drive letter is case-blind: one spelling for every row of a file
            root, rest = base[0].upper() + ":", base[2:]
    else:
        root, rest = "", base
    comps: list[str] = []
    for piece in (rest, *parts):
        for comp in piece.replace("\\", "/").split("/") if windows else piece.split("/"):
            if comp in ("", "."):
                continue
            if comp == "..":
                if comps:
                    comps.pop()
                continue
            comps.append(comp)
    return f"{root}{sep}{sep.join(comps)}"


def resolve(value: str, literal: bool, cwd: Cwd, record_cwd: str | None,
            trusted: bool = True) -> tuple[str, str]:
    """``(path, resolution)`` for an operand whose shell value is ``value``.

    ``literal``: the word holds no expansion, glob or leading ``~``; ``cwd``: the shell
    directory at the operand's command; ``record_cwd``: the tool_use record's ``cwd``;
    ``trusted``: False when the command could not be read cleanly (then every operand
    stays as typed)."""
    if not literal or not trusted or not value:
        return value, UNRESOLVED
    if is_absolute(value):  # `.`/`..` folded, a trailing separator dropped
        return join(value), ABSOLUTE
    base = record_cwd if record_cwd and is_absolute(record_cwd) else None
    if cwd.kind == "abs":
        return join(cwd.path, value), CD_TRACKED
    if base is None:
        return value, UNRESOLVED
    if cwd.kind == "spawn":
        return join(base, value), CWD_JOINED
    if cwd.kind == "rel":
        return join(base, cwd.path, value), CD_TRACKED
    return value, UNRESOLVED
