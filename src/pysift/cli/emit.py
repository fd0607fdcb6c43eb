"""Stream a Report to stdout (text, NDJSON or raw bytes) and its notes to stderr.

Owns the broken-pipe rule: a closed pipe (``| head``) is a graceful end, exit 0. The
exit status leaves as ``SystemExit`` (no typer here: ``cli.fastpath`` runs it too); the
typer tree lets it pass, as it would its own ``Exit``.
"""


import contextlib
import os
import sys

from pysift.output.report import Report

# the last report emitted, held until the process leaves: a run's report holds every
# row it printed (a listing of corpus B: 2,428 rows and their transcripts), and freeing
# them object by object when the command returns was ~5 ms the caller waited for after
# the answer (``entry._leave`` skips the interpreter's teardown for the same reason). One
# report at most: a test's in-process runs free each one at the next.
_HELD: list[Report] = []


def emit(report: Report, fmt: str = "text") -> None:
    _HELD[:] = [report]
    try:
        if report.raw_lines is not None:
            out = sys.stdout.buffer
            for line in report.raw_lines:
                out.write(line)
                out.write(b"\n")
            out.flush()
        elif fmt == "json":
            from pysift.output import envelope

            envelope.write(report, sys.stdout.buffer)
            sys.stdout.buffer.flush()
        elif report.text is not None:
            from pysift.cli.options import wants_colour
            from pysift.output.terminal import HeldTextOut

            _tolerate_surrogates(sys.stdout)
            text_out = HeldTextOut(sys.stdout, colour=wants_colour(sys.stdout))
            # a TextIO by delegation (TextOut.__getattr__ forwards what it does not
            # define to the stream), which a nominal typing.TextIO cannot express
            try:
                report.text(text_out)  # type: ignore[arg-type]
            except BaseException:
                # a render that fails half way: what it wrote still reaches the stream,
                # as before it was held, and its own error is the one raised
                with contextlib.suppress(OSError, ValueError):
                    text_out.release()
                raise
            text_out.flush()  # what it holds, then the stream
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        raise SystemExit(0) from None
    for note in report.notes:
        say(f"pysift: {note}")
    if report.exit_code:
        raise SystemExit(report.exit_code)


def say(line: str) -> None:
    """One line to stderr: a note, a warning or an error.

    Control characters (a pattern, a path or a transcript's text quoted back) are shown
    as escapes, as on stdout (``output.terminal.visible``). A path's undecodable byte goes
    out as itself (as stdout writes it). A stderr nobody
    reads any more (``2>&1 | head -1``, ``2>/dev/full``) changes nothing else: the rest
    of the notes are dropped and the run keeps its status (click turned the broken pipe
    into exit 1, so a search that found nothing "failed").
    """
    from pysift.output.terminal import visible

    stream = sys.stderr
    try:
        _tolerate_surrogates(stream)
        stream.write(f"{visible(line)}\n")
        stream.flush()
    except (OSError, ValueError, AttributeError):
        sys.stderr = open(os.devnull, "w", encoding="utf-8", errors="backslashreplace")  # noqa: SIM115 - stderr for the rest of the run


def _tolerate_surrogates(stream: object) -> None:
    """Let text output carry what UTF-8 cannot encode (SPEC §5): a path's undecodable
    byte goes out as itself, a transcript's lone surrogate as ``\\uXXXX``. Without it a
    strict stdout (a UTF-8 locale other than C) died on such a path mid-listing, and the
    notes on stderr (backslashreplace) printed such a byte as ``\\udcff``."""
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is None:
        return
    from pysift.output.surrogates import register_text_errors

    reconfigure(errors=register_text_errors())
