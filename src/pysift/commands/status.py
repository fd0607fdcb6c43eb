"""``pysift status``: is that session still working, blocked on a human, or done? (csift §6.13)

One verdict about NOW, from the three-way join of the harness registry, the transcript
tail and the owner process (``live/``), with the evidence each surface gave and every
degradation stated. Point-in-time and deliberately not reproducible: the one departure,
with ``wait``, from the forensic contract every other command keeps.
"""

from __future__ import annotations

from dataclasses import field
from datetime import datetime
from typing import Any, TextIO

from pysift.commands.scope import ScopeArgs
from pysift.core.text import excerpt
from pysift.core.timez import text_ts
from pysift.live.background import BackgroundReport, Lens, report_json
from pysift.live.last import LastMessages, last_json
from pysift.live.session import LiveSession, resolve_target
from pysift.live.verdict import Assessment, evidence_json
from pysift.model.env import Env
from pysift.model.fastdata import dataclass
from pysift.output.report import Report
from pysift.output.terminal import paint

PARTIAL_VIEW = ("the last-message excerpts are a partial view of the final state, never a "
                "review of the work (the whole turn: pysift show @{id} --turn -1)")


@dataclass(frozen=True, kw_only=True)
class StatusOptions:
    # the targets must name exactly one session; subagents: read its children
    scope: ScopeArgs = field(default_factory=ScopeArgs)
    lens: Lens = field(default_factory=Lens)


def run(opts: StatusOptions, env: Env) -> Report:
    report = Report(command="status")
    target = resolve_target(list(opts.scope.targets), env, "status", report.take_scope)
    session = LiveSession(target, env, subagents=opts.scope.subagents, lens=opts.lens,
                          robust=False)
    session.load()
    now = env.now()
    result = StatusResult(target.transcript.session_id, session.report(now), now, env)
    report.unreadable += session.unreadable + (result.assessment.tasks.unreadable
                                               if result.assessment.tasks else 0)
    report.header = target.transcript.id_trio()
    report.rows = [verdict_row(result.assessment, now, env)]
    report.answer(result)
    return report


@dataclass(frozen=True)
class StatusResult:
    """The verdict and everything it rests on: what the summary and the text state."""

    ident: str
    assessment: Assessment
    now: datetime
    env: Env

    def summary(self) -> dict[str, Any]:
        return {"verdict": self.assessment.verdict}

    def render_text(self, out: TextIO) -> None:
        render_text(out, self.ident, self.assessment, self.now, self.env)


def verdict_row(a: Assessment, now: datetime, env: Env) -> dict[str, Any]:
    kids = a.surfaces.children
    tasks = a.tasks
    return {
        "kind": "verdict",
        "verdict": a.verdict,
        "evidence": evidence_json(a.evidence),
        "children": [{"session_id": c.session_id, "state": c.state, "detail": c.detail}
                     for c in (kids.live if kids is not None else [])],
        "settled_children": kids.settled if kids is not None else 0,
        "tasks": ([{"id": t.id, "subject": t.subject, "status": t.status,
                    "blocked_by": list(t.blocked_by)} for t in tasks.open]
                  if tasks is not None and tasks.found else None),
        "tasks_completed": tasks.completed if tasks is not None and tasks.found else None,
        "pending": [p.kind for p in a.surfaces.pending],
        "background": report_json(a.surfaces.background, now, env.tz),
        "last": last_json(a.last or LastMessages(), env.tz),
        "tail_state": a.tail_state,
        "notes": a.notes + a.surfaces.background.notes,
    }


def _ago(seconds: int | None) -> str:
    from pysift.core.lanes import seconds_label

    return f"{seconds_label(seconds)} ago" if seconds is not None else "at an unknown time"


def render_text(out: TextIO, ident: str, a: Assessment, now: datetime, env: Env) -> None:
    w = out.write
    w("STATUS  ")
    paint(out, ident, "id")
    w("\n")
    w(f"verdict  {a.verdict}\n\n")
    for row in a.evidence:
        age = f"  ({row.age_s}s ago)" if row.age_s is not None else ""
        w(f"  {row.surface:<9} {row.value}{age}\n")
    kids = a.surfaces.children
    if kids is not None:
        for child in kids.live:
            w(f"  child     {child.session_id}  {child.state}  {child.detail}\n")
        if kids.settled:
            w(f"  child     {kids.settled} settled lane(s) folded (ids: pysift agents @{ident})\n")
    tasks = a.tasks
    if tasks is not None and (tasks.open or tasks.completed):
        for task in tasks.open:
            blocked = (f"  (blocked by #{', #'.join(task.blocked_by)})"
                       if task.blocked_by else "")
            subject, _ = excerpt(task.subject, 200)
            w(f"  task      #{task.id} {task.status}  {subject}{blocked}\n")
        w(f"  tasks     {len(tasks.open)} open ; {tasks.completed} completed\n")
    render_background(out, a.surfaces.background, now, env)
    render_last(out, ident, a.last, env)
    for note in a.notes + a.surfaces.background.notes:
        w(f"  note: {note}\n")


def render_background(out: TextIO, bg: BackgroundReport, now: datetime, env: Env) -> None:
    from pysift.live.tail import age_s

    for task in bg.tasks:
        if not task.is_open:
            continue
        if task.launched:
            launched = f"launched {text_ts(task.launched, env.tz)} ({_ago(age_s(task.launched, now))})"
        else:
            launched = "launched (no timestamp)"
        what = task.description or task.command
        shown = f'  "{excerpt(what, 80)[0]}"' if what else ""
        output = ""
        if task.output_bytes is not None:
            output = f"  output {task.output_bytes} B"
            if task.output_age_s is not None:
                output += f", last write {_ago(task.output_age_s)}"
        ignored = f"  [ignored: {task.ignored_by}]" if task.ignored_by else ""
        lane = "" if _is_uuid(task.lane) else f"  lane {task.lane}"
        out.write(f"  bg        {task.kind:<7} {task.id or task.tool_use_id:<18} {launched}"
                  f"{shown}{output}{ignored}{lane}\n")


def _is_uuid(text: str) -> bool:
    return len(text) == 36 and text.count("-") == 4


def render_last(out: TextIO, ident: str, last: LastMessages | None, env: Env) -> None:
    if last is None or (last.user is None and last.agent is None):
        return
    for glyph, said in (("◂", last.user), ("▸", last.agent)):
        if said is not None:
            out.write(f"  last {glyph}    {text_ts(said.ts, env.tz)}  {said.text}\n")
    out.write(f"  note: {PARTIAL_VIEW.format(id=ident)}\n")
