"""``show --branch-points``: where the parentUuid chain forks (a draft re-sent, a retry).

A fork parent is a record uuid that two or more conversation records (user, assistant,
system) name as their ``parentUuid``. Tool-result carriers, isMeta records and compaction
summaries never count as children (csift v0.8.1): parallel tool calls hang their results
off one assistant record, which would otherwise read as a fork in most sessions. Ranked by
the widest time gap between its children (unknown gaps last), so the most deliberate
re-sends come first.
"""

from __future__ import annotations

from typing import Any, TextIO

from pysift.core.decode import decode, is_blank
from pysift.core.timez import parse_ts, text_ts, ts_pair
from pysift.disk.lines import iter_spans
from pysift.engines.fetch import TranscriptView
from pysift.model.env import Env
from pysift.model.record import Record
from pysift.output.fields import target_ref
from pysift.output.report import Report

_CONVERSATION = ("user", "assistant", "system")


def run_branch_points(view: TranscriptView, env: Env) -> Report:
    buf = view.buf
    line_of_uuid: dict[str, int] = {}
    children: dict[str, list[dict[str, Any]]] = {}
    conversation = 0
    for number, (s, e) in enumerate(iter_spans(buf), start=1):
        raw = buf[s:e]
        if is_blank(raw) or b'"parentUuid"' not in raw:
            if not is_blank(raw) and not raw.lstrip().startswith(b"{"):
                view.tally.malformed += 1
            continue
        rec = decode(raw, number, view.tally)
        if rec is None or rec.type not in _CONVERSATION or not rec.uuid:
            continue
        conversation += 1
        line_of_uuid.setdefault(rec.uuid, number)
        if rec.parent_uuid and not _never_a_child(rec):
            children.setdefault(rec.parent_uuid, []).append(
                {"line": number, "uuid": rec.uuid, "record_type": rec.type, "ts": rec.timestamp})
    forks = []
    for parent, kids in children.items():
        if len(kids) < 2:
            continue
        stamps = [parse_ts(k["ts"]) for k in kids]
        gap = None
        if all(stamps):
            gap = int((max(stamps) - min(stamps)).total_seconds())  # type: ignore[type-var]
        forks.append((parent, kids, gap))
    forks.sort(key=lambda f: (f[2] is None, -(f[2] or 0), line_of_uuid.get(f[0], 0)))
    t = view.transcript
    report = Report(command="show")
    report.header = {"mode": "branch-points", "session_id": t.session_id,
                     "is_subagent": t.is_subagent, "parent_session_id": t.parent_session_id}
    report.rows = [
        {"kind": "branch-point", "uuid": parent, "line": line_of_uuid.get(parent),
         "children": [{"line": k["line"], "uuid": k["uuid"], "record_type": k["record_type"],
                       **ts_pair("ts", k["ts"], env.tz)} for k in kids],
         "widest_gap_seconds": gap}
        for parent, kids, gap in forks
    ]
    report.summary = {"branch_points": len(forks), "conversation_records": conversation,
                      "skipped_lines": view.tally.malformed}
    report.text = lambda out: _render(out, view, forks, line_of_uuid, conversation, env)
    return report


def _never_a_child(rec: Record) -> bool:
    """A record that hangs off its parent by mechanics, not by a re-send or a retry."""
    return (rec.is_meta or rec.is_compact_summary
            or (rec.is_user_record and bool(rec.blocks_of("tool_result"))))


def _gap_text(gap: int | None) -> str:
    if gap is None:
        return "unknown (missing timestamps)"
    h, rem = divmod(gap, 3600)
    m, s = divmod(rem, 60)
    return f"{h}h{m:02d}m{s:02d}s"


def _render(out: TextIO, view: TranscriptView, forks, line_of_uuid, conversation: int,
            env: Env) -> None:
    w = out.write
    t = view.transcript
    w(f"BRANCH POINTS  {t.session_id}\n")
    w(f"{conversation} conversation record(s) · {len(forks)} branch point(s) "
      "(a uuid named as parentUuid by 2+ records)\n")
    if not forks:
        w("no forks: the parentUuid chain never branches\n")
        return
    for i, (parent, kids, gap) in enumerate(forks, start=1):
        line = line_of_uuid.get(parent)
        where = f"L{line}" if line else "(parent line not located)"
        w(f"  #{i}  uuid {parent}  {where}  children {len(kids)} · widest gap {_gap_text(gap)}\n")
        for k in kids:
            w(f"      L{k['line']}  {text_ts(k['ts'], env.tz)}  {k['record_type']}\n")
        w(f"      ↳ pysift show {target_ref(t.session_id, t.path)} --line {kids[-1]['line']}\n")
    w("ranked widest gap first (unknown gaps last)\n")
