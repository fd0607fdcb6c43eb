"""``pysift wait``: parse the flags, run commands.wait, emit (exit 124 on timeout)."""


from typing import Annotated

import typer

from pysift.cli.app import app
from pysift.cli.emit import emit, say
from pysift.cli.options import scope_args
from pysift.cli.params import (
    BackgroundSince,
    Format,
    IgnoreBackground,
    Subagents,
    Targets,
    complete_condition,
    whole_number,
)
from pysift.cli.status import build_lens

WAIT_HELP = """Block until a session condition fires, then report. Watches exactly one
session (its main transcript, its subagent lanes, its elicitation sidecar, its registry
row) and ends at the FIRST of the --until conditions to fire (OR), or at --timeout.

\b
Conditions (closed grammar; an unknown head is an error naming the set):
  stop                     the verdict becomes idle-eot or stale-dead (a true stop;
                           idle-background-open never satisfies it: use the lens)
  hitl                     the verdict becomes waiting-hitl
  verdict:V                the verdict becomes V (one of the seven of `pysift status`)
  auq                      a pending ask lands in the elicitation sidecar, or an
                           AskUserQuestion call lands in a watched lane
  notification[:RE]        a <task-notification> lands in the MAIN transcript (a user
                           record, a queue enqueue line or a queued_command
                           attachment); a session target only
  tool:NAME[:RE]           a call of tool NAME lands in any watched lane (RE: its input
                           as compact JSON)
  write:PATH_RE[:LINE_RE]  a Write/Edit/MultiEdit/NotebookEdit on a matching path (and a
                           written line matching LINE_RE)

RE are search's dialect, matched case-sensitively ((?i) for caseless); the first `:`
after the head's own ends the first pattern, except a Windows drive letter's in a write
path (write:C:/src/.*:TODO is PATH_RE C:/src/.*, LINE_RE TODO).

BASELINE: every watched file's length is taken at the start; only complete lines appended
after it are events, so history never fires one (history is search's job). stop, hitl
and verdict:V are states, judged at the start and after every read: a session already
stopped fires stop at once. After the baseline a readiness line goes to stderr
(`pysift: watching N file(s) from byte offsets; …`): start your own trigger after it and
the race is gone. Lanes and a sidecar born after the start join with a zero baseline.
wait wakes on file changes (a watcher) and on a timer (200 ms while records land, up to
2 s when quiet; --interval pins it); nothing runs between wakes.

--timeout is REQUIRED: a background task can be built never to return (a dev server).
Exit 0 when a condition fired, 124 when the timeout passed (the report is printed either
way, JSON with "fired":"timeout"), anything else is an error. The report: the verdict,
the main lane's state at exit, a census of what landed after the baseline, the evidence,
the open background tasks and the last messages (as `pysift status` prints them).

HOW TO WAIT: run `pysift status` first and read its background rows; pick the lens
(--background-since now: only tasks launched from now on count; --ignore-background RE
for services known never to return); always bound it; on 124 read the report."""

WAIT_EPILOG = """\b
EXAMPLES
  pysift wait @3f6c1e2a --until stop --timeout 600
  pysift wait @3f6c1e2a --until stop --until hitl --timeout 1800 --background-since now
  pysift wait @main --until 'tool:Bash:pytest' --timeout 120
  pysift wait @3f6c1e2a --until 'write:src/.*\\.py:TODO' --timeout 300
  pysift wait @3f6c1e2a --until notification:failed --timeout 900 --format json
  pysift wait @3f6c1e2a --until verdict:waiting-children --timeout 60; echo "exit $?"

\b
JSON (--format json): ONE object, no header or summary
  {"kind":"wait","fired":"<the condition as given>|timeout","verdict","waited_secs",
   "at_exit":"<main lane's state in words>",
   "activity":{"records","lanes","tools":{"<name>":N},"thinking","agent_messages",
               "user_prompts","notifications"},
   "evidence":[{"surface","value","age_secs"}],
   "background":{... as pysift status ...},"last":{"user","agent"},"notes":[..]}"""


def _seconds(value: str, flag: str) -> float:
    from pysift.errors import UsageError

    try:
        seconds = float(value)
    except ValueError:
        raise UsageError(f"{flag} takes a number of seconds (got {value!r})") from None
    if not seconds > 0 or seconds == float("inf"):
        raise UsageError(f"{flag} must be a positive number of seconds (got {value!r})")
    return seconds


@app.command("wait", help=WAIT_HELP, epilog=WAIT_EPILOG)
def wait_cmd(
    ctx: typer.Context,
    targets: Targets = None,
    until: Annotated[list[str] | None, typer.Option(
        "--until", metavar="COND", autocompletion=complete_condition,
        help="A condition to wait for (repeatable: the first to fire wins).")] = None,
    timeout: Annotated[str | None, typer.Option(
        "--timeout", metavar="S",
        help="Give up after S seconds (required; exit 124).")] = None,
    interval: Annotated[int | None, typer.Option(
        "--interval", metavar="MS", parser=whole_number,
        help="Pin the poll interval (default: 200 ms while records land, up to 2 s).")] = None,
    background_since: BackgroundSince = None,
    ignore_background: IgnoreBackground = None,
    subagents: Subagents = True,
    fmt: Format = "text",
) -> None:
    scope, env = scope_args(ctx, targets=targets, subagents=subagents, fmt=fmt)
    from pysift.commands.wait import WaitOptions, parse_conditions, run

    parse_conditions(tuple(until or ()))  # a bad condition is refused before anything else
    opts = WaitOptions(
        scope=scope,
        until=tuple(until or ()),
        timeout_s=_seconds(timeout, "--timeout") if timeout is not None else None,
        interval_ms=interval,
        lens=build_lens(env, background_since, ignore_background),
        on_ready=lambda line: say(f"pysift: {line}"),
    )
    emit(run(opts, env), fmt)
