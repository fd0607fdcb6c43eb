"""``pysift plan``: LOCATE the plan file bound to a session (SPEC §6.7.1).

Forward (default): each transcript in scope with its bound plan. ``--reverse FILE``: which
sessions bind that plan file. ``--audit``: the scope's structured edits to files that
SOME session binds as its plan, warning when the editing session does not bind it (only
the bound plan is re-injected in full after a compaction).
"""

from __future__ import annotations

import os
from dataclasses import field, replace
from pathlib import Path
from typing import Any, TextIO

from pysift.commands.scope import ScopeArgs
from pysift.core.resolve import find_session_file, require_calling_session, resolve_scope
from pysift.disk.layout import Transcript, Unreadable, is_windows_rooted
from pysift.engines.plans import (
    BINDING_SLUG_ONLY,
    InlinePlans,
    PlanBinding,
    PlanEdit,
    PlanQuery,
)
from pysift.errors import UsageError
from pysift.model.env import Env
from pysift.model.fastdata import dataclass
from pysift.output.fields import id_trio
from pysift.output.report import Report
from pysift.output.terminal import paint

NO_PLAN_NOTE = ("note: no plan file is bound to the resolved session(s): no `plan_mode` "
                "attachment and no slug-carrying record (the session never entered Plan Mode)")


#: the sessions an inline-plans note names before it counts the rest
INLINE_NAMED = 5


def _no_plan_note(transcripts: list[Transcript], inline: list[InlinePlans], env: Env) -> str:
    """Why nothing binds. Subagents alone: their records carry the parent's slug, which
    binds nothing, so "never entered Plan Mode" would be false; so would it be for a
    session that proposed its plans in ExitPlanMode calls (the inline note says so)."""
    if inline:
        return NO_PLAN_NOTE.removesuffix(" (the session never entered Plan Mode)")
    if not transcripts or not all(t.is_subagent for t in transcripts):
        return NO_PLAN_NOTE
    parents = sorted({t.parent_session_id for t in transcripts})
    if find_session_file(parents[0], env, unread=Unreadable()) is None:
        # "pysift plan @<parent>" would send the user back to this same answer
        from pysift.engines.plans import absolute_home, inherited_slug

        slug = inherited_slug(t for t in transcripts if t.parent_session_id == parents[0])
        hint = (f"; its subagents carry its slug `{slug}`, so by Claude Code's slug rule its "
                f"plan, if it made one, is {slug}.md in its plans dir (by default "
                f"{absolute_home(env) / 'plans'})" if slug else "")
        return (f"note: no plan file is bound to the resolved subagent(s), and their session "
                f"{parents[0]} has no transcript of its own on disk (only its subagents'): a "
                f"session's plan is bound by its own records, so it cannot be named here"
                f"{hint}")
    return (f"note: no plan file is bound to the resolved subagent(s): a subagent's records "
            f"carry its parent session's slug, which binds no plan of its own; the plan is "
            f"the parent's: pysift plan @{parents[0]}")


def _inline_note(inline: list[InlinePlans]) -> str:
    """The sessions whose plans are only in their ExitPlanMode calls (Claude Code before
    plan files): they bind no file, so they are no rows, yet they did plan."""
    from pysift.engines.plans import inline_plans_text

    return f"note: {inline_plans_text(inline, INLINE_NAMED)}"


@dataclass(frozen=True, kw_only=True)
class PlanOptions:
    scope: ScopeArgs = field(default_factory=ScopeArgs)  # no target: the calling session
    reverse: str | None = None
    audit: bool = False


def run(opts: PlanOptions, env: Env) -> Report:
    if opts.reverse is not None and opts.audit:
        raise UsageError("--reverse and --audit are separate questions; pick one")
    if opts.reverse is not None and not opts.reverse.strip():
        # an empty path joined to the cwd named the cwd, and no session binds a directory
        raise UsageError("--reverse is empty; pass the plan file to look up (e.g. "
                         "~/.claude/plans/<slug>.md, as `pysift plan` prints it)")
    if opts.reverse is not None:
        return _run_reverse(opts, env)
    args = opts.scope
    if not args.targets and args.sessions_from is None:
        # the calling session as whoami finds it: the encoded $PWD dir first, so an id
        # that two project dirs hold names one transcript, not both
        session_id = require_calling_session(env, "plan (no target)")
        # (a dir this lookup cannot read is noted again by the scope resolved below)
        calling = find_session_file(session_id, env, unread=Unreadable())
        args = replace(args, targets=(str(calling) if calling is not None
                                      else f"@{session_id}",))
    scope = args.resolve(env)
    report = Report(command="plan")
    report.take_scope(scope)
    if opts.audit:
        return _run_audit(report, scope.transcripts, env)
    from pysift.engines import plans as engine

    answer = engine.run(scope.transcripts, PlanQuery(), env)
    bindings = answer.bindings
    report.unread_each(answer.warnings)
    _add_binding_notes(report, bindings)
    if not bindings:
        report.note(_no_plan_note(scope.transcripts, answer.inline, env))
    if answer.inline:
        report.note(_inline_note(answer.inline))
    report.rows = [plan_row(b) for b in bindings]
    report.answer(PlanResult(bindings))
    return report


@dataclass(frozen=True)
class PlanResult:
    """Forward (``wanted`` None): the scope's bindings. ``--reverse``: the sessions that
    bind ``wanted``."""

    bindings: list[PlanBinding]
    wanted: str | None = None

    def summary(self) -> dict[str, Any]:
        return {"plans": len(self.bindings)}

    def render_text(self, out: TextIO) -> None:
        if self.wanted is None:
            render_forward(out, self.bindings)
        else:
            render_reverse(out, self.wanted, self.bindings)


def _add_binding_notes(report: Report, bindings: list[PlanBinding]) -> None:
    for b in bindings:
        for note in b.notes:
            if note not in report.notes:
                report.note(note)


def plan_row(b: PlanBinding) -> dict[str, Any]:
    t = b.transcript
    return {
        "kind": "plan",
        **id_trio(t.session_id, t.is_subagent, t.parent_session_id),
        "line": b.line,
        "plan_file": b.plan_file,
        "plan_exists": b.plan_exists,
        "slug": b.slug,
        "binding_source": b.binding_source,
        "minted_at_compaction": b.minted_at_compaction,
    }


def _exists(b: PlanBinding) -> str:
    return "exists" if b.plan_exists else "missing"


def _slug_only_line(b: PlanBinding) -> str:
    text = ("binding  slug only — no plan_mode attachment; Claude Code binds the first "
            "slug-carrying record")
    if b.minted_at_compaction:
        text += (" (the slug was MINTED at a compaction boundary — Plan Mode never ran; "
                 "Claude Code still injects or rebuilds this file)")
    return text


def render_forward(out: TextIO, bindings: list[PlanBinding]) -> None:
    w = out.write
    for i, b in enumerate(bindings):
        t = b.transcript
        if i:
            w("\n")
        w("session  ")
        paint(out, t.session_id, "id")
        w(f"{'  (subagent)' if t.is_subagent else ''}\n")
        w("plan     ")
        paint(out, b.plan_file, "path")
        w(f"  [{_exists(b)}]\n")
        if b.slug:
            w(f"slug     {b.slug}\n")
        if b.binding_source == BINDING_SLUG_ONLY:
            w(_slug_only_line(b) + "\n")
        if t.is_subagent:
            w("parent   ")
            paint(out, t.parent_session_id, "id")
            w("\n")
        w("line     ")
        paint(out, f"L{b.line}", "line")
        w("\n")


# -- --reverse -----------------------------------------------------------------------------------




def _absolute(value: str, env: Env) -> str:
    """The plan file as an absolute path (``~`` expanded, relative joined to the cwd).

    A Windows-absolute spelling stays as given: transcripts recorded on Windows carry such
    paths, and joining one to a POSIX cwd would name nothing.
    """
    home = env.environ.get("HOME", "")
    if home and (value == "~" or value.startswith("~/")):
        value = home + value[1:]
    if is_windows_rooted(value):
        return value
    path = Path(value)
    return os.path.normpath(path if path.is_absolute() else env.cwd / path)


def _run_reverse(opts: PlanOptions, env: Env) -> Report:
    wanted = _absolute(opts.reverse or "", env)
    scope = opts.scope.resolve(env)
    report = Report(command="plan")
    report.take_scope(scope)
    from pysift.engines import plans as engine

    answer = engine.run(scope.transcripts, PlanQuery(reverse=wanted), env)
    hits = answer.bindings
    report.unread_each(answer.warnings)
    for note in answer.notes:
        report.note(note)
    if not hits:
        report.note(f"note: {wanted} is bound to no session in scope (no plan_mode attachment "
                    f"or slug names it); narrow or widen the scope with a project PATH target")
    report.rows = [plan_row(b) for b in hits]
    report.answer(PlanResult(hits, wanted))
    return report


def render_reverse(out: TextIO, wanted: str, hits: list[PlanBinding]) -> None:
    if not hits:  # the stderr note says so; stdout stays empty (wire-format §9)
        return
    w = out.write
    w("plan     ")
    paint(out, wanted, "path")
    w("\n")
    for b in hits:
        t = b.transcript
        w("session  ")
        paint(out, t.session_id, "id")
        w(f"{'  (subagent)' if t.is_subagent else ''}\n")
        if t.is_subagent:
            w(f"parent   {t.parent_session_id}\n")
        if b.slug:
            w(f"slug     {b.slug}\n")
        source = "" if b.binding_source != BINDING_SLUG_ONLY else "  (slug only)"
        w(f"bound at jsonl L{b.line}{source}\n")


# -- --audit -------------------------------------------------------------------------------------


def _run_audit(report: Report, transcripts: list[Transcript], env: Env) -> Report:
    from pysift.engines import plans as engine

    report.header = {"mode": "audit"}
    answer = engine.run(transcripts, PlanQuery(
        audit=True, corpus=lambda: resolve_scope([], env, subagents=True)), env)
    bindings, rows = answer.bindings, answer.edits
    report.unread_each(answer.warnings)
    _add_binding_notes(report, bindings)
    owners = {t.parent_session_id for t in transcripts}
    report.rows = [binding_row(b) for b in bindings] + [edit_row(r) for r in rows]
    report.answer(AuditResult(bindings, rows, len(owners) > 1, answer.skipped_lines))
    return report


@dataclass(frozen=True)
class AuditResult:
    bindings: list[PlanBinding]
    edits: list[PlanEdit]
    many_owners: bool  # the scope spans several sessions: each edit names its owner
    skipped_lines: int

    def summary(self) -> dict[str, Any]:
        return {"bindings": len(self.bindings), "plan_files_touched": len(self.edits),
                "warnings": sum(1 for r in self.edits if not r.bound_by_owner),
                "skipped_lines": self.skipped_lines}

    def render_text(self, out: TextIO) -> None:
        render_audit(out, self)


def binding_row(b: PlanBinding) -> dict[str, Any]:
    return {**plan_row(b), "kind": "binding"}


def edit_row(r: PlanEdit) -> dict[str, Any]:
    return {
        "kind": "plan-edit",
        "owner_session_id": r.owner,
        "path": r.path,
        "mutations": r.mutations,
        "bound_by_owner": r.bound_by_owner,
        "binder_session_id": r.binder.transcript.parent_session_id if r.binder else None,
        "binder_line": r.binder.line if r.binder else None,
    }


def render_audit(out: TextIO, result: AuditResult) -> None:
    bindings, rows, skipped = result.bindings, result.edits, result.skipped_lines
    w = out.write
    w("PLAN AUDIT\n")
    if not bindings:
        w("binds    none (no plan binding in the resolved scope)\n")
    for b in bindings:
        slug = f", slug {b.slug}" if b.slug else ""
        source = ", slug only" if b.binding_source == BINDING_SLUG_ONLY else ""
        w("binds    ")
        paint(out, b.transcript.session_id, "id")
        w(" -> ")
        paint(out, b.plan_file, "path")
        w(f"  [{_exists(b)}]  (L{b.line}{slug}{source})\n")
    if not rows:
        w("edits    none: no structured Write/Edit/MultiEdit/NotebookEdit in scope touches any "
          "session's bound plan file (bash-side edits are outside this audit)\n")
    for r in rows:
        owner = f" by {r.owner}" if result.many_owners else ""
        verdict = ("bound by this session" if r.bound_by_owner
                   else "NOT bound by the mutating session")
        w("edits    ")
        paint(out, r.path, "path")
        w(f"  {r.mutations} mutation(s){owner}  [{verdict}]\n")
    for r in rows:
        if not r.bound_by_owner and r.binder is not None:
            w(f"warning: {r.mutations} mutation(s) to {r.path} by session {r.owner}, which does "
              f"NOT bind it (bound by {r.binder.transcript.parent_session_id}, "
              f"L{r.binder.line}). Only the BOUND plan is re-injected in full after a "
              f"compaction.\n")
    if rows and all(r.bound_by_owner for r in rows):
        w("ok: every audited plan-file edit targets the mutating session's own plan\n")
    if skipped:
        w(f"({skipped} malformed line(s) skipped)\n")
