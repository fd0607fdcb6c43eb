"""A lexical reading of Bash command strings: what a ``Bash`` tool call changed on disk.

Claude Code's Bash results carry no path (SPEC §6.6), so ``files`` and ``recover`` read
the command TEXT. This package is that reading: a tokenizer and a flat parser (quotes,
escapes, ``$( )``, backticks, heredocs with their bodies, ``&&``/``||``/``;``/pipes,
subshells, redirections), the shell cwd through the command (SPEC §4.9), and a table of
what each program changes. It never runs or expands anything, and nothing in it raises.

Stable API (``files`` and ``recover`` build on it; change it only in a commit whose
subject starts with ``bash parser:``)::

    from pysift.core import shell

    shell.mutations(command, record_cwd) -> tuple[Mutation, ...]
        What the command changes. Mutation(path, verbatim, resolution, verb, is_create,
        marker, command, floating, base, reach): ``path`` resolved against ``record_cwd`` (the TOOL_USE record's
        own ``cwd``) through the command's own ``cd``s, ``resolution`` one of
        ``absolute`` / ``cwd-joined`` / ``cd-tracked`` / ``unresolved`` (``$VAR``, ``~``,
        globs, substitutions, an unknown cwd, a command the reader cannot close: the
        operand is kept as the shell sees it, never dropped); a command line the shell's
        parser refuses (``Script.refusal``) changed nothing and gives none; a class marker (``git:<sub>``,
        ``fmt:<tool>``, ``pkg:<manager>``, ``extract:<tool>``, ``interp:<lang>``) has
        ``marker`` True and ``resolution`` None.

    shell.content_writes(command, record_cwd) -> tuple[ContentWrite, ...]
        Every write with a named target (``>``/``>>`` redirections, ``tee``,
        ``truncate``): ContentWrite(path, verbatim, resolution, mode, content, source,
        command, clean, exclusive). ``mode`` is ``truncate`` or ``append``; ``content``
        the exact text written when the command text fixes it (heredoc into cat/tee,
        literal echo/printf, ``:``, ``truncate -s 0``), else None; ``clean``: its command
        runs in the calling shell, all words literal, one write, and certainly runs once
        when the string ends with status 0 (``Command.certain``); ``exclusive``: nothing
        else in the command changes that path or names a pattern that may match it.

    shell.content_reads(command, record_cwd) -> tuple[ContentRead, ...]
        The file window a one-command string prints: ``cat F``, ``head -n N F``,
        ``sed -n 'A,Bp' F``. ContentRead(path, verbatim, resolution, start, end, source);
        ``end`` None = to the end of the file.

    shell.may_name(mutation, path) -> bool
        Whether an operand left ``unresolved`` as a pattern (a glob, ``$VAR``, ``~``, a
        substitution) may change the file at the absolute ``path`` or a directory
        holding it (a superset; a ``floating`` literal operand is not asked).

    shell.may_reach(mutation, path) -> bool
        Whether a change of a directory holding ``path`` may have changed the file: True
        but for a ``find`` whose expression (``Mutation.reach``, read exactly by
        ``findexpr``) runs no changing action on any path on the way to it.

    shell.unquoted(command) -> str
        The text without quotes, backslashes and line continuations (a name spelled in
        pieces, ``'q'.txt``, reads whole), and, when it holds ``$'``, that text again with
        each ANSI-C quote decoded (``$'\\x71'.txt``): what a cheap name test looks in.

    shell.changes_nothing(command) -> bool
        True when ``mutations`` of the command is empty whatever the cwd (cached; a
        scan can pass over such a call's record undecoded).

    shell.opaque_markers(command) -> tuple[Mutation, ...]
        The class markers that rewrite worktree files without naming them (``git:add``
        and ``git:commit`` excluded: index only). PowerShell tool calls are never parsed
        here: a caller counts them by tool name (``POWERSHELL_TOOL``).

    shell.parse(command) -> Script
        The parse itself: Script(source, commands, complete, problems, refusal); a
        string the shell refuses (``refusal``: a syntax error) holds only the commands
        of the complete lines before the one holding it, none ``certain``; each Command has
        ``words`` (Word: raw, value, quoted, dynamic, glob, tilde, literal), assignments,
        ``redirects`` (Redirect: op, fd, target, heredoc with its body), ``connector``,
        ``piped``, ``background``, ``subshell``, ``substitution``, ``cwd`` (a Cwd),
        ``text`` and ``certain`` (it runs, exactly once, whenever the string ends with
        status 0: unconditional, or proven by a final ``&&`` chain).

    shell.resolve(value, literal, cwd, record_cwd) -> (path, resolution)
        The join used above, for callers holding their own operand.

Results are cached per command string; the functions are pure.
"""

from __future__ import annotations

from pysift.core.shell.lexer import Heredoc, Redirect, Word
from pysift.core.shell.paths import (
    ABSOLUTE,
    CD_TRACKED,
    CWD_JOINED,
    RESOLUTIONS,
    UNRESOLVED,
    Cwd,
    is_absolute,
    join,
    resolve,
)
from pysift.core.shell.readings import (
    ContentRead,
    ContentWrite,
    Mutation,
    changes_nothing,
    content_reads,
    content_writes,
    may_name,
    may_reach,
    might_change_files,
    mutations,
    opaque_markers,
    unquoted,
)
from pysift.core.shell.syntax import Command, Script, parse
from pysift.core.shell.verbs import is_marker

BASH_TOOL = "Bash"
POWERSHELL_TOOL = "PowerShell"

__all__ = [
    "ABSOLUTE", "BASH_TOOL", "CD_TRACKED", "CWD_JOINED", "POWERSHELL_TOOL", "RESOLUTIONS",
    "UNRESOLVED", "Command", "ContentRead", "ContentWrite", "Cwd", "Heredoc", "Mutation",
    "Redirect", "Script", "Word", "changes_nothing", "content_reads", "content_writes", "is_absolute",
    "is_marker", "join", "may_name", "may_reach", "might_change_files", "mutations", "opaque_markers",
    "parse", "resolve", "unquoted",
]
