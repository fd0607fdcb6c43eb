"""How a run goes from argv to its exit status, with or without the typer tree.

``main`` normalizes the line (``cli.argv``), then runs a plain line of a hot command
through ``cli.fastpath`` (no typer loaded: ~50 ms of every run) and every other line
through the typer tree (``cli.app``); both map an exception to its exit status and its
one stderr line here, the same way.
"""


import errno
import os
import sys
from typing import Any

from pysift.cli import argv as argv_mod
from pysift.cli.emit import say

# The built commands in SPEC order, each with the module that declares it on the tree
# (``cli.app.register``). A command that is not built is not registered.
COMMAND_MODULES = {"list": "list_", "search": "search", "show": "show", "stats": "stats",
                   "agents": "agents", "whoami": "whoami", "files": "files",
                   "recover": "recover", "plan": "plan", "verbatim": "verbatim",
                   "image": "image", "status": "status", "wait": "wait",
                   # beyond csift's thirteen (no SPEC order to keep): after them
                   "archive": "archive", "skill": "skill",
                   "cache": "cache"}  # housekeeping, after the commands that read transcripts

COMPLETE_VAR = "_PYSIFT_COMPLETE"


def invoked_command(args: list[str]) -> str | None:
    """The built command a normalized argv runs, if its first word names one."""
    at = argv_mod.globals_end(args)
    word = args[at] if at < len(args) else None
    return word if word in COMMAND_MODULES else None


def main(argv: list[str] | None = None) -> None:
    """The console entry (after ``cli.entry``'s version probe): the fast path when it reads
    the line, else the typer tree."""
    raw = sys.argv[1:] if argv is None else argv
    if os.environ.get(COMPLETE_VAR):  # a shell completing: the whole tree answers
        from pysift.cli.app import main as tree_main

        tree_main(raw)
    args = prepared(raw)
    from pysift.cli.fastpath import plan

    fast = plan(args)
    if fast is None:
        from pysift.cli.app import run_tree

        run_tree(args)
    else:
        run_fast(fast)


def prepared(raw: list[str]) -> list[str]:
    """``prepare(raw)``, or the run ends there with the typed error's line and status."""
    from pysift.errors import SiftError

    try:
        return prepare(raw)
    except SiftError as exc:
        report_error(exc)
        sys.exit(int(exc.exit_code))


def prepare(raw: list[str]) -> list[str]:
    """The normalized argv (``cli.argv.normalize``), refused when it names no command."""
    args = argv_mod.normalize(raw, project_dir_probe(raw))
    check_command_given(args)
    return args


def run_fast(fast: Any) -> None:
    """Run a line ``cli.fastpath.plan`` read, mapping what it raises as typer's ``_main``
    and ``cli.app.run_tree`` map what escapes a command on the tree: a usage error named
    after the command, an interrupt or an end of input 130, click's own exits, a closed
    pipe 1 (click's rule), a typed error its own status."""
    from pysift.errors import ExitCode, SiftError

    try:
        fast.run()
    except SiftError as exc:
        report_error(exc)
        sys.exit(int(exc.exit_code))
    except KeyboardInterrupt:
        sys.exit(ExitCode.INTERRUPTED)
    except EOFError:  # typer: a blank line, then click's Abort
        sys.stderr.write("\n")
        sys.exit(ExitCode.INTERRUPTED)
    except OSError as exc:
        import errno

        if exc.errno == errno.EPIPE:  # click's rule for a pipe closed under a command
            _pacify_streams()
            sys.exit(1)
        report_os_error(exc)
        sys.exit(int(ExitCode.ERROR))
    except Exception as exc:
        click = _click_exceptions()
        if click is None:
            raise
        if isinstance(exc, click.Exit):
            sys.exit(exc.exit_code)
        if isinstance(exc, click.Abort):
            sys.exit(ExitCode.INTERRUPTED)
        if not isinstance(exc, click.ClickException):
            raise
        report_usage(exc, f"pysift {fast.command}")
        sys.exit(exc.exit_code)
    sys.exit(0)


def _click_exceptions() -> Any:
    """click's exceptions module when click is loaded (none of its exceptions can exist
    otherwise), else None."""
    for name in ("typer._click.exceptions", "click.exceptions"):
        module = sys.modules.get(name)
        if module is not None:
            return module
    return None


def _pacify_streams() -> None:
    """What click does to the streams on a closed pipe: later flushes that fail on it are
    ignored, what is buffered still tried."""
    try:  # a typer that ships its own click: none in the pinned range (typer<0.21)
        from typer._click.utils import PacifyFlushWrapper  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        from click.utils import PacifyFlushWrapper  # type: ignore[no-redef, unused-ignore]
    sys.stdout = PacifyFlushWrapper(sys.stdout)
    sys.stderr = PacifyFlushWrapper(sys.stderr)


def check_command_given(args: list[str]) -> None:
    """A line naming no command at all (``pysift``, ``pysift --claude-home DIR``) is ONE
    usage line saying so; click printed the whole help flattened into the error line, or
    "Missing command." An empty ``--claude-home`` on such a line is the error named."""
    at = argv_mod.globals_end(args)
    valued = at - 1 if args[at - 1:at] == ["--no-cache"] else at
    given = dict(zip(args[0:valued:2], args[1:valued:2]))
    home = given.get("--claude-home")
    rest = args[at:]
    if rest not in ([], ["--"]):
        return
    if home is not None:
        from pysift.disk.home import user_home
        from pysift.disk.layout import resolve_home

        resolve_home(home, {}, user_home())  # raises for an empty value
    from pysift.errors import UsageError

    raise UsageError(f"missing command; run `pysift --help` to see the commands "
                     f"({', '.join(COMMAND_MODULES)})")


def project_dir_probe(raw: list[str]):  # type: ignore[no-untyped-def]
    """Whether a short ``-xyz`` token names a project dir of the Claude home on the line."""
    def is_project_dir(token: str) -> bool:
        from pysift.disk.home import user_home
        from pysift.disk.layout import resolve_home
        from pysift.errors import SiftError

        try:
            home = resolve_home(argv_mod.home_flag(raw), os.environ, user_home())
            return (home / "projects" / token).is_dir()
        except (OSError, SiftError):
            return False
    return is_project_dir


def report_usage(exc: Exception, path: str = "pysift") -> None:
    """click's usage errors as ONE line (what is wrong, where the help is), like ours.
    ``path``: the command's, when the error carries no click context (``cli.fastpath``)."""
    ctx = getattr(exc, "ctx", None)
    if ctx is not None:
        path = ctx.command_path
    import re

    sentences: list[str] = []
    for sentence in re.split(r"(?<=[.?!])\s+", exc.format_message().replace("\n", " ")):  # type: ignore[attr-defined]
        sentence = sentence.strip()
        if sentence and sentence not in sentences:  # typer and click both suggest names
            sentences.append(sentence)
    say(f"pysift: error: {' '.join(sentences)} (see `{path} --help`)")


def report_error(exc: BaseException) -> None:
    """ONE line: the message, then any cause it does not already state, in brackets."""
    line = str(exc)
    cause = exc.__cause__
    while cause is not None:
        told = str(cause)
        reason = getattr(cause, "strerror", None) or told
        if told and told not in line and reason not in line:
            line += f" ({told})"
        cause = cause.__cause__
    say(f"pysift: error: {line}")
    maybe_traceback(exc)


def os_error_line(exc: OSError) -> str:
    """What failed and what to do, for an OSError no typed error caught: a path that
    cannot be read (a permission, a vanished dir), the output that cannot be written (a
    full disk, a closed stream), else a system call that failed where no file is named:
    said as such (any such error had been called a full output, a live pid's unreadable
    start time among them)."""
    reason = exc.strerror or str(exc)
    if exc.filename is not None:
        return (f"cannot read {exc.filename}: {reason}; check that it exists and is readable "
                "by this user (pysift only reads the Claude home)")
    if exc.errno in _OUTPUT_ERRNOS:
        return f"cannot write the output: {reason}; check where stdout goes (a full disk?)"
    return (f"a system call failed: {reason}; rerun with PYSIFT_TRACEBACK=1 to see where, "
            "and report it")


#: what a write of the output fails with (a full disk or quota, a file too big, a device
#: error, a reader gone)
_OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EPIPE})


def report_os_error(exc: OSError) -> None:
    say(f"pysift: error: {os_error_line(exc)}")
    maybe_traceback(exc)


def maybe_traceback(exc: BaseException) -> None:
    """The full traceback too, when PYSIFT_TRACEBACK asks for it (debugging pysift)."""
    if os.environ.get("PYSIFT_TRACEBACK"):
        import traceback

        traceback.print_exception(exc)


def quiet_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass
