"""Which directory is the Claude home (SPEC §2): ``--claude-home``, ``$CLAUDE_CONFIG_DIR``,
``~/.claude``. Kept apart from ``layout`` (and its imports) so a shell completion can find
the home without loading the transcript machinery; ``layout`` re-exports both names."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from pysift.errors import UsageError

CLAUDE_CONFIG_DIR = "CLAUDE_CONFIG_DIR"

#: ``pysift archive``'s own dir in its DEST, and the manifest in it: a home holding the
#: manifest IS an archive (its plans, its cleanup notice and status read it as one)
ARCHIVE_STATE_DIR = ".pysift"
ARCHIVE_MANIFEST_NAME = "archive.json"
ARCHIVE_MANIFEST = Path(ARCHIVE_STATE_DIR) / ARCHIVE_MANIFEST_NAME


def user_home(environ: Mapping[str, str] | None = None) -> Path:
    """The user's home: a non-empty ``$HOME``, else the password database's entry (an
    empty ``HOME`` made Python's ``Path.home()`` answer ``/``, and pysift read
    ``/.claude``), as csift's home lookup does."""
    env = os.environ if environ is None else environ
    home = env.get("HOME")
    if home:
        return Path(home)
    try:
        import pwd

        return Path(pwd.getpwuid(os.getuid()).pw_dir)
    except (ImportError, KeyError):  # no password database entry (or no such module)
        return Path.home()


def current_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The current directory; when it was removed after the shell entered it (a deleted
    worktree), the shell's own ``$PWD``, the path ``.`` and relative paths mean there (its
    project dir still holds its sessions). Raises ``UsageError`` when neither is known:
    every command failed with a false "cannot write the output" error."""
    try:
        return Path.cwd()
    except FileNotFoundError:
        env = os.environ if environ is None else environ
        shell = env.get("PWD", "")
        if os.path.isabs(shell):
            return Path(shell)
        raise UsageError("the current directory no longer exists (it was removed after the "
                         "shell entered it); cd to an existing directory and rerun") from None


def user_named_path(value: str | os.PathLike[str], cwd: Path,
                    environ: Mapping[str, str] | None = None) -> Path:
    """A path the user named on the command line (``--out``, ``--out-dir``, a manifest, an
    archive's DEST) as the absolute path it means: a leading ``~`` expanded as the shell
    would have (a quoted ``'~/x'`` or ``--out=~/x`` reaches pysift unexpanded), then joined
    to ``cwd`` when relative. Every such path is spelled the way targets and
    ``--claude-home`` already are, so ``--out ~/x`` never writes a dir named ``~``."""
    path = expand_user(os.fspath(value), user_home(environ))
    return path if path.is_absolute() else cwd / path


def expand_user(value: str, user_home: Path) -> Path:
    """Expand a leading ``~`` against ``user_home`` (the caller's notion of home).

    Only ``~`` and ``~/…`` are expanded; ``~other`` is left literal (looking up another
    user's home would mean reading the password database, which the caller did not ask for).
    """
    if value == "~":
        return user_home
    if value.startswith(("~/", "~" + os.sep)):
        return user_home / value[2:]
    return Path(value)


def resolve_home(flag: str | None, environ: Mapping[str, str], user_home: Path) -> Path:
    """The Claude config dir: ``--claude-home``, then ``$CLAUDE_CONFIG_DIR``, then ``~/.claude``.

    An empty ``CLAUDE_CONFIG_DIR`` counts as unset (Claude Code's ``??`` would take it as a
    real value; an empty string names no directory, so we fall through). An empty
    ``--claude-home`` is a usage error rather than a silent fall-back: the caller asked for
    a specific home and got none.
    """
    if flag is not None:
        if not flag.strip():
            raise UsageError(
                "--claude-home is empty; pass the Claude config dir (the one holding "
                "projects/), or drop the flag to use $CLAUDE_CONFIG_DIR or ~/.claude"
            )
        return expand_user(flag, user_home)
    configured = environ.get(CLAUDE_CONFIG_DIR, "")
    if configured.strip():
        return expand_user(configured, user_home)
    return user_home / ".claude"
