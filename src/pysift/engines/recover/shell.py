"""Shell calls in the recover replay (SPEC §6.7, the v0.9.4 Bash content anchors): what a
Bash call tells about a file, read through the lexical parser ``core.shell``.

- WRITE anchors: a write whose content the command text fixes (a quoted-delimiter heredoc
  into ``cat``/``tee``, a literal ``echo``/``printf`` that bash and zsh print alike, ``:``,
  ``truncate -s 0``), only when it is its command's one literal write and that command
  certainly runs exactly once when the string ends with status 0 (``clean``: not on the
  right of an ``||``, nor of an ``&&`` a later list can hide, not in an ``if``/loop/
  ``case``/function body, not after an ``exit``), nothing else in the string touches that
  path or names a pattern that may match it (``exclusive``), and its result says it ran:
  not an error, and for a compound string an empty stderr and no interruption (only the
  last command owns the exit code; a failing cat/tee/echo always writes stderr). A ``>``
  write replaces the file; a ``>>`` append is placed by the replay only onto a complete
  newline-terminated file. An admitted anchor replaces the command's own heuristic
  mutation row; a write that is no anchor stays that heuristic ``bash_mutation``.
- READ anchors: a one-command string ``cat F`` / ``head -n N F`` / ``sed -n 'A,Bp' F``
  whose result echo is complete (stdout recorded, empty stderr, not interrupted, not
  persisted elsewhere, not cut at 30,000 characters). Claude Code trims the end of a
  shell's output and strips the whitespace-only lines that open and close it, so the last
  printed line counts only when stdout ends with a newline (the window is the whole file
  only then, when it reached the end), and the first printed line is line ``start`` only
  when the window printed every line it asked for (``head -n N`` showing N lines) or that
  line is blank; otherwise the window floats and the replay places it only where it
  already knows that first line.
- Everything else the parser says changes the file is a HEURISTIC ``bash_mutation``
  (``extract`` adds the calls that never name it: a directory holding it, an operand left
  unresolved as a pattern that may match it, ``sed -i … *.txt``), but for a ``find``
  started at the file itself whose expression cannot match it: GNU find tests a start
  point that is a file as any other path (``find ./a.py -name '*.pyc' -delete`` leaves
  it alone), and a recovered target is a file.
- A write whose target stays ``unresolved`` (``$VAR``, a cwd the reading cannot know) is
  never an anchor: only its heuristic mutation counts.
- Opaque: mutating-class markers (formatters, interpreters, package managers, archive
  tools, worktree-rewriting git), a file named relative to an unknown shell directory
  (``cwd-unknown:<verb>``: after ``cd a || cd b``, ``[ -d x ] && cd x``...) and every
  PowerShell call, counted per window.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from pysift.core import replay as rp
from pysift.core import shell
from pysift.model.fastdata import dataclass

POWERSHELL = "powershell"
_SOURCES = {"heredoc": rp.SOURCE_BASH_HEREDOC}


def opaque_markers(block: dict[str, Any]) -> list[str]:
    """The window-accounting markers of one shell ``tool_use`` block."""
    name = block.get("name")
    tool_input = block.get("input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if not isinstance(command, str):
        return []
    if name == shell.POWERSHELL_TOOL:
        return [POWERSHELL]
    if name == shell.BASH_TOOL:
        return [m.path for m in shell.opaque_markers(command)]
    return []


@dataclass(frozen=True)
class Touch:
    """One thing a Bash call does to one path: ``kind`` is ``write`` (an anchor candidate),
    ``read`` or ``mutation``; ``path`` is the resolved path (or the verbatim operand)."""

    kind: str
    path: str
    verbatim: str
    command: int
    write: shell.ContentWrite | None = None
    read: shell.ContentRead | None = None
    mutation: shell.Mutation | None = None


def touches(command: str, cwd: str | None) -> list[Touch]:
    """Everything ``command`` (a Bash tool_use's command, run from the record's ``cwd``)
    writes, reads or changes with a named path."""
    out: list[Touch] = []
    for w in shell.content_writes(command, cwd):
        out.append(Touch("write", w.path, w.verbatim, w.command, write=w))
    for r in shell.content_reads(command, cwd):
        out.append(Touch("read", r.path, r.verbatim, 0, read=r))
    for m in shell.mutations(command, cwd):
        if not m.marker:
            out.append(Touch("mutation", m.path, m.verbatim, m.command, mutation=m))
    return out


@dataclass(frozen=True)
class Outcome:
    """What a Bash result says about how its command ran."""

    present: bool
    is_error: bool
    stdout: str | None  # None when not recorded (no structured echo)
    stderr: str | None
    interrupted: bool
    persisted: bool


def outcome(block: dict[str, Any] | None, echo: object) -> Outcome:
    if block is None:
        return Outcome(False, False, None, None, False, False)
    is_error = block.get("is_error") is True
    if isinstance(echo, dict) and "stdout" in echo:
        stdout = echo.get("stdout")
        stderr = echo.get("stderr")
        return Outcome(True, is_error, stdout if isinstance(stdout, str) else None,
                       stderr if isinstance(stderr, str) else None,
                       echo.get("interrupted") is True,
                       bool(echo.get("persistedOutputPath")))
    return Outcome(True, is_error, None, None, False, False)


def _compound(command: str) -> bool:
    return shell.parse(command).compound


def events(command: str, picked: list[Touch], result: Outcome) -> Iterator[tuple[Touch, rp.Op]]:
    """The replay ops of the touches of one file by one Bash call, in command order: an
    admitted anchor, else the heuristic mutation boundary."""
    compound = _compound(command)
    ran_clean = result.present and not result.is_error and (
        not compound or (result.stderr == "" and not result.interrupted))
    anchored: set[int] = set()
    ops: list[tuple[int, int, Touch, rp.Op]] = []
    for t in picked:
        if t.kind == "write" and t.write is not None:
            w = t.write
            if (w.content is None or not w.clean or not w.exclusive or not ran_clean
                    or w.resolution == shell.UNRESOLVED):
                continue  # an unresolved target is no anchor: where it went is unknown
            anchored.add(t.command)
            if w.mode == "append":
                ops.append((t.command, 0, t, rp.BashAppend(w.content)))
            else:
                source = _SOURCES.get(w.source, rp.SOURCE_BASH_WRITE)
                ops.append((t.command, 0, t, rp.Snapshot(rp.split_content(w.content), source)))
        elif t.kind == "read" and t.read is not None:
            op = _read_op(t.read, result)
            if op is not None:
                ops.append((t.command, 1, t, op))
    for t in picked:
        if t.kind == "mutation" and t.mutation is not None and t.command not in anchored:
            m = t.mutation
            if m.reach is not None and not shell.may_reach(m, m.path):
                continue  # a find started at the file whose tests cannot match it
            ops.append((t.command, 2, t, rp.BashMutation(m.verb, m.path, m.resolution or
                                                         shell.UNRESOLVED)))
    ops.sort(key=lambda item: (item[0], item[1]))
    for _, _, t, op in ops:
        yield t, op


#: the notes Claude Code puts after a shell output it cut: at 30,000 characters (older
#: versions, in the recorded stdout itself) and at its accumulator's ceiling
_CUT_OUTPUT = re.compile(r"\n\n\.\.\. \[\d+ lines truncated\] \.\.\.$"
                         r"|\n\.\.\. \[output truncated - \d+KB removed\]$")


def _read_op(read: shell.ContentRead, result: Outcome) -> rp.Op | None:
    """A read anchor from a complete result echo (see the module docstring)."""
    if (not result.present or result.is_error or result.stdout is None or result.stderr
            or result.interrupted or result.persisted):
        return None
    text = result.stdout
    cut = _CUT_OUTPUT.search(text)
    if cut is not None:
        text = text[:cut.start()]  # what is left ends inside a line: dropped below
    lines = text.split("\n")
    untrimmed = text.endswith("\n") and cut is None
    if untrimmed:
        lines = lines[:-1]  # the newline ends the last printed line
    elif lines:
        lines = lines[:-1]  # the last line may have lost trailing blanks: not asserted
    if read.end is not None and read.source != "head":
        wanted = read.end - read.start + 1
        if len(lines) > wanted:
            return None  # more than the window printed: not the file we think
    # Claude Code strips the whitespace-only lines that open (and close) a shell's output,
    # so the first printed line is line `start` only when nothing was stripped before it:
    # proven when the window printed every line it asked for, or when that first line is
    # itself blank (it would have been stripped); else the replay must see it agree with
    # a line it already holds (a "floating" window)
    printed = len(lines) + (0 if untrimmed else 1)
    asked = None if read.end is None else read.end - read.start + 1
    exact = (asked is not None and printed == asked and cut is None) or bool(
        lines and not lines[0].strip())
    reached_end = read.end is None or (read.source == "head" and len(lines) < read.end)
    if untrimmed and reached_end and read.start == 1 and exact:
        return rp.Snapshot((*lines, ""), rp.SOURCE_BASH_CAT)
    if not lines:
        return None
    if read.end is not None and read.source == "head" and len(lines) > read.end:
        return None
    return rp.Window(read.start, tuple(lines), None, rp.SOURCE_BASH_CAT, floating=not exact)
