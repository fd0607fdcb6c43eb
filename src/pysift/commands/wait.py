"""``pysift wait``: block until a session stops, asks, or does what you wait for (csift §6.14).

Options in, Report out: the loop itself is ``live.watch``; the readiness line reaches
stderr through the ``on_ready`` callback the CLI passes (this layer prints nothing). The
JSON form is ONE ``{"kind":"wait",…}`` object, no envelope; the exit status is 0 when a
condition fired and 124 when the timeout passed (the report is printed either way).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from datetime import datetime
from typing import Any, TextIO

from pysift.commands.scope import ScopeArgs
from pysift.commands.status import render_background, render_last
from pysift.errors import ExitCode, UsageError
from pysift.live import watch
from pysift.live.background import Lens, report_json
from pysift.live.conditions import Condition, parse
from pysift.live.last import LastMessages, last_json
from pysift.live.session import LiveSession, resolve_target
from pysift.live.verdict import evidence_json
from pysift.model.env import Env
from pysift.model.fastdata import dataclass
from pysift.output.report import Report

NO_TIMEOUT = ("wait needs --timeout SECONDS: a background task can be built never to "
              "return (a dev server, a watcher), so an unbounded wait on `stop` may never "
              "end; pick a bound and read the report when it passes (exit 124)")


@dataclass(frozen=True, kw_only=True)
class WaitOptions:
    # the targets must name exactly one session; subagents: watch its lanes too
    scope: ScopeArgs = field(default_factory=ScopeArgs)
    until: tuple[str, ...] = ()
    timeout_s: float | None = None
    interval_ms: int | None = None
    lens: Lens = field(default_factory=Lens)
    watch: bool = True  # wake on file changes (False: the timer alone)
    on_ready: Callable[[str], None] = lambda _line: None  # the readiness line (stderr)


def parse_conditions(values: tuple[str, ...]) -> list[Condition]:
    if not values:
        raise UsageError("wait needs at least one --until CONDITION (stop | hitl | auq | "
                         "notification[:RE] | tool:NAME[:RE] | write:PATH_RE[:LINE_RE] | "
                         "verdict:V)")
    return [parse(v) for v in values]


def run(opts: WaitOptions, env: Env) -> Report:
    conditions = parse_conditions(opts.until)
    if opts.timeout_s is None:
        raise UsageError(NO_TIMEOUT)
    if opts.timeout_s <= 0:
        raise UsageError(f"--timeout must be a positive number of seconds (got "
                         f"{opts.timeout_s:g})")
    if opts.interval_ms is not None and opts.interval_ms <= 0:
        raise UsageError(f"--interval must be a positive number of milliseconds (got "
                         f"{opts.interval_ms})")
    report = Report(command="wait")
    target = resolve_target(list(opts.scope.targets), env, "wait", report.take_scope)
    if target.is_subagent and any(c.kind == "notification" for c in conditions):
        # its tasks' pulses land in the session's main transcript, which the lane's wait
        # reads for their state, not as events: the wait could only time out
        raise UsageError(
            f"--until notification never fires on a subagent target "
            f"(@{target.transcript.session_id}): task notifications land in its session's "
            f"main transcript; wait on the session instead (@{target.owner_id})")
    session = LiveSession(target, env, subagents=opts.scope.subagents, lens=opts.lens,
                          robust=True)
    outcome = watch.run(session, conditions, timeout_s=opts.timeout_s,
                        interval_s=opts.interval_ms / 1000 if opts.interval_ms else None,
                        clock=env.clock, on_ready=opts.on_ready, watch=opts.watch)
    now = env.now()
    result = WaitResult(target.transcript.session_id, outcome, now, env)
    report.bare_json = wait_object(outcome, now, env)
    report.answer(result)
    if outcome.fired == watch.TIMEOUT:
        report.exit_code = int(ExitCode.TIMEOUT)
    return report


@dataclass(frozen=True)
class WaitResult:
    """How the wait ended and the session's state then: what the report states (JSON is
    the one ``wait`` object, so the envelope summary is not written)."""

    ident: str
    outcome: watch.WaitOutcome
    now: datetime
    env: Env

    def summary(self) -> dict[str, Any]:
        return {"fired": self.outcome.fired, "verdict": self.outcome.assessment.verdict}

    def render_text(self, out: TextIO) -> None:
        render_text(out, self.ident, self.outcome, self.now, self.env)


def wait_object(outcome: watch.WaitOutcome, now: datetime, env: Env) -> dict[str, Any]:
    a = outcome.assessment
    return {
        "kind": "wait",
        "fired": outcome.fired,
        "verdict": a.verdict,
        "waited_secs": int(outcome.waited_s),
        "at_exit": a.tail_state,
        "activity": outcome.activity.to_json(),
        "evidence": evidence_json(a.evidence),
        "background": report_json(a.surfaces.background, now, env.tz),
        "last": last_json(a.last or LastMessages(), env.tz),
        "notes": outcome.notes + a.notes + a.surfaces.background.notes,
    }


def render_text(out: TextIO, ident: str, outcome: watch.WaitOutcome, now: datetime,
                env: Env) -> None:
    a = outcome.assessment
    w = out.write
    w(f"fired    {outcome.fired}\n")
    w(f"verdict  {a.verdict}\n")
    w(f"waited   {int(outcome.waited_s)}s\n")
    w(f"at exit  {a.tail_state}\n")
    w(f"activity {outcome.activity.words()}\n")
    for row in a.evidence:
        w(f"  {row.surface:<9} {row.value}\n")
    render_background(out, a.surfaces.background, now, env)
    render_last(out, ident, a.last, env)
    for note in outcome.notes + a.notes + a.surfaces.background.notes:
        w(f"  note: {note}\n")
