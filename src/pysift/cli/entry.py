"""The console-script entry point: answers ``--version`` before the CLI framework loads.

Everything else goes to ``cli.dispatch.main``; building typer's command tree costs ~15 ms that
a version probe (a hook's liveness check) should not pay. The process then leaves without
interpreter teardown (see ``_leave``).
"""


import os
import sys


def main(argv: list[str] | None = None) -> None:
    from pysift.cli.deferred import defer
    from pysift.disk.gcpause import hold_start_up

    defer()  # before anything imports ``dataclasses`` (cli.deferred)

    hold_start_up()  # back on once the options are read (cli.options.build_env)
    args = sys.argv[1:] if argv is None else argv
    if sys.stderr is None:  # started with stderr closed (`2>&-`)
        _quiet_stderr()
    if sys.stdout is None:  # started with stdout closed (`>&-`): nothing could be printed
        if sys.stderr is not None:
            sys.stderr.write("pysift: error: standard output is closed; redirect it to a file "
                             "or /dev/null instead of closing it\n")
        os._exit(1)
    if os.environ.get("_PYSIFT_COMPLETE"):  # a shell completing an @ target: no typer
        from pysift.cli.complete import answer_targets_fast

        status = answer_targets_fast()
        if status is not None:
            _leave(status)
    if len(args) == 1 and args[0] in ("--version", "-V"):
        from pysift import __version__

        sys.stdout.write(f"pysift {__version__}\n")
        _leave(0)
    from pysift.cli.dispatch import main as dispatch_main

    try:
        dispatch_main(args)
    except SystemExit as exc:
        _leave(_exit_status(exc.code))
    _leave(0)


def _quiet_stderr() -> None:
    """Send notes and errors to /dev/null: the answer still goes out and the status still
    says how the run went. Every writer assumed a stream (a successful run died in
    ``_leave``'s flush with exit 1, an error's message write lost its status), and the
    null device takes fd 2, which a file the run opens would otherwise get."""
    sys.stderr = open(os.devnull, "w", encoding="utf-8", errors="backslashreplace")  # noqa: SIM115 - stderr for the rest of the run


def _say(line: str) -> None:
    try:
        sys.stderr.write(line)
    except (OSError, ValueError, AttributeError):
        pass


def _exit_status(code: object) -> int:
    """``SystemExit.code`` as the interpreter maps it (a message goes to stderr, status 1)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    _say(f"{code}\n")
    return 1


def _leave(status: int) -> None:
    """Flush both streams and exit without tearing the interpreter down.

    Everything pysift writes goes through stdout/stderr (files it is asked to write are
    closed by their ``with`` blocks), so nothing is left unflushed. Teardown would free
    every object a wide search built, ~10 ms that the caller waits for after the answer.
    A reader that closed the pipe early (``| head``) is a graceful end: status 0.
    """
    try:
        sys.stdout.flush()
    except (BrokenPipeError, ValueError):
        status = 0
    except OSError as exc:  # the buffered answer did not fit (a full disk, /dev/full)
        from pysift.cli.dispatch import os_error_line

        _say(f"pysift: error: {os_error_line(exc)}\n")
        status = 1
    try:
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):
        pass
    os._exit(status)
