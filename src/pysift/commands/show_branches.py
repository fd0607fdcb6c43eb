"""``show --branch-points``: where the parentUuid chain forks (a draft re-sent, a retry).

The forks come from ``engines.fetch.branch_points`` (a fork parent is a record uuid that
two or more conversation records name as their ``parentUuid``), ranked by the widest
time gap between its children (unknown gaps last), so the most deliberate re-sends come
first; this module lays them out.
"""

from __future__ import annotations

from typing import TextIO

from pysift.core.timez import text_ts, ts_pair
from pysift.disk.layout import Transcript
from pysift.engines.fetch import BranchPoints, Fork, TranscriptView, branch_points
from pysift.model.env import Env
from pysift.model.fastdata import dataclass
from pysift.output.fields import target_ref
from pysift.output.report import Report, Row
from pysift.output.terminal import paint


def run_branch_points(view: TranscriptView, env: Env) -> Report:
    found = branch_points(view)
    t = view.transcript
    report = Report(command="show")
    report.header = {"mode": "branch-points", "session_id": t.session_id,
                     "is_subagent": t.is_subagent, "parent_session_id": t.parent_session_id}
    report.rows = [fork_row(f, env) for f in found.forks]
    report.answer(BranchResult(t, found, view.tally.malformed, env))
    return report


@dataclass(frozen=True)
class BranchResult:
    transcript: Transcript
    found: BranchPoints
    malformed: int
    env: Env

    def summary(self) -> Row:
        return {"branch_points": len(self.found.forks),
                "conversation_records": self.found.conversation_records,
                "skipped_lines": self.malformed}

    def render_text(self, out: TextIO) -> None:
        _render(out, self)


def fork_row(f: Fork, env: Env) -> Row:
    return {"kind": "branch-point", "uuid": f.uuid, "line": f.line,
            "children": [{"line": k.line, "uuid": k.uuid, "record_type": k.record_type,
                          **ts_pair("ts", k.ts, env.tz)} for k in f.children],
            "widest_gap_seconds": f.widest_gap_seconds}


def _gap_text(gap: int | None) -> str:
    if gap is None:
        return "unknown (missing timestamps)"
    h, rem = divmod(gap, 3600)
    m, s = divmod(rem, 60)
    return f"{h}h{m:02d}m{s:02d}s"


def _render(out: TextIO, result: BranchResult) -> None:
    w = out.write
    t, found, env = result.transcript, result.found, result.env
    forks = found.forks
    w("BRANCH POINTS  ")
    paint(out, t.session_id, "id")
    w("\n")
    w(f"{found.conversation_records} conversation record(s) · {len(forks)} branch point(s) "
      "(a uuid named as parentUuid by 2+ records)\n")
    if not forks:
        w("no forks: the parentUuid chain never branches\n")
        return
    for i, f in enumerate(forks, start=1):
        where = f"L{f.line}" if f.line else "(parent line not located)"
        w(f"  #{i}  uuid ")
        paint(out, f.uuid, "id")
        w("  ")
        paint(out, where, "line")
        w(f"  children {len(f.children)} · widest gap {_gap_text(f.widest_gap_seconds)}\n")
        for k in f.children:
            w("      ")
            paint(out, f"L{k.line}", "line")
            w(f"  {text_ts(k.ts, env.tz)}  {k.record_type}\n")
        w(f"      ↳ pysift show {target_ref(t.session_id, t.path)} --line "
          f"{f.children[-1].line}\n")
    w("ranked widest gap first (unknown gaps last)\n")
