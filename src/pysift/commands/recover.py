"""``pysift recover``: rebuild a file's content from the transcripts (SPEC §6.7).

Five modes over one replay: restore (the default: the whole final file as raw bytes, or a
loud error when the sessions did not see all of it), ``--salvage`` (the final state's
known lines, numbered, gaps explicit), ``--patches`` (full-context diffs per segment,
never across a boundary), ``--at WHEN`` (the state at a point) and ``--coverage``. Batch
mode (``--files-from`` + ``--out-dir``) rebuilds many files in one pass over the scope.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from pysift.commands import recover_view as rv
from pysift.commands.scope import ScopeArgs, scope_banner, scope_header
from pysift.core import replay as rp
from pysift.core.grammar.ranges import RangeSpec
from pysift.core.resolve import Scope
from pysift.core.timez import text_ts, ts_pair
from pysift.disk import writeout
from pysift.disk.home import user_named_path
from pysift.engines.recover.history import (
    LATEST,
    At,
    Disclosure,
    GroupHistory,
    Window,
    cutoff_of,
    disclose,
    latest_stamp,
)
from pysift.engines.recover.run import FileHistory, ScopeScan
from pysift.engines.recover.run import run as scan_scope
from pysift.engines.recover.target import Target, is_absolute
from pysift.errors import TargetError, UsageError
from pysift.model.env import Env
from pysift.model.fastdata import dataclass
from pysift.output.report import Report
from pysift.output.terminal import verbatim

MODES = ("restore", "salvage", "patches", "at", "coverage", "list-backups")
MANIFEST_CAP = 16 << 20
REPORT_NAME = "recovery-report.tsv"
REPORT_COLUMNS = ("status", "known_lines", "total_lines", "boundaries", "bash_file",
                  "bash_opaque", "target", "written_to")
NEIGHBOURS_SHOWN = 5
FOOTER = "(reconstruction is partial: unknown lines are explicit, never fabricated)"
CAVEAT = ("recovery cannot promise a match with the disk: a change made outside the "
          "Read/Write/Edit stream (a formatter, a git hook, git itself, an editor, a shell "
          "command) may leave no trace in the transcript, and pysift does not hunt for one")


@dataclass(frozen=True, kw_only=True)
class RecoverOptions:
    scope: ScopeArgs = field(default_factory=ScopeArgs)  # targets, window (--turn,
    # --since, --until: the events replayed), subagents, --sessions-from, format
    file: str | None = None
    files_from: str | None = None
    out: str | None = None
    out_dir: str | None = None
    force: bool = False
    mode: str = "restore"
    at: At | None = None
    file_lines: RangeSpec | None = None
    progress: Callable[[str], None] | None = field(default=None, compare=False)


def run(opts: RecoverOptions, env: Env) -> Report:
    if opts.mode not in MODES:
        raise UsageError(f"unknown recover mode {opts.mode!r}")
    if opts.mode == "list-backups":
        from pysift.commands import recover_backups

        return recover_backups.run(opts, env)
    if opts.files_from is not None:
        return _run_batch(opts, env)
    if opts.out_dir is not None:
        raise UsageError("--out-dir goes with --files-from MANIFEST (batch mode); for one file "
                         "use --out PATH")
    if opts.file is None:
        raise UsageError("recover needs --file PATH (an absolute path, a path suffix such as "
                         "src/app.py, or @plan), or --files-from MANIFEST --out-dir DIR for "
                         "many files")
    if not opts.file.strip():
        raise UsageError("--file is empty; pass the path of the file to recover (or @plan)")
    out = _checked_out(opts, env)
    scope = opts.scope.resolve(env)
    report = Report(command="recover")
    report.take_scope(scope)
    file_value = _file_value(opts.file, scope, env, report)
    target = Target.of(file_value)
    scan = scan_scope(scope.transcripts, [target], _window(opts),
                      merge=opts.mode != "patches")
    report.unread_each(scan.warnings)
    history = scan.files[0]
    _check_ambiguous(history)
    report.header = scope_header(scope)
    if history.excluded:
        report.note(f"note: the --turn/--since/--until window left out {history.excluded} "
                    f"integrity-relevant event(s) of {target.given} (boundaries the replay "
                    f"inside the window does not see)")
    if any(g.merged for g in history.groups) and opts.mode != "patches":
        report.note("note: the transcripts of a session that touched the file are replayed as "
                    "one stream; its `line` numbers (and --at @line:) count that stream's "
                    "events, source_line names each event's real jsonl line")
    ctx = _Ctx(opts, env, scope, target, history, scan, out)
    if opts.mode == "restore":
        return _restore(ctx, report)
    if opts.mode == "coverage":
        if opts.out is not None:
            report.note("note: --out is ignored in --coverage mode (a scoping summary has no "
                        "artifact to write); use --patches, --at or --salvage to write a file")
        return _coverage(ctx, report)
    if opts.mode == "patches":
        return _patches(ctx, report)
    return _snapshots(ctx, report)


# -- inputs ------------------------------------------------------------------------------------


def _window(opts: RecoverOptions) -> Window:
    """The events replayed: ``--turn``, ``--since``, ``--until``."""
    return Window(turns=opts.scope.turns, since=opts.scope.since, until=opts.scope.until)


def _checked_out(opts: RecoverOptions, env: Env) -> Path | None:
    if opts.out is None or opts.mode == "coverage":
        return None
    if not opts.out.strip():
        raise UsageError("--out is empty; pass the path of the file to write")
    out = user_named_path(opts.out, env.cwd, env.environ)
    writeout.refuse_under_home(out, env.claude_home, "--out")
    writeout.check_new_file(out, force=opts.force, flag="--out")
    return out


def _file_value(value: str, scope: Scope | None, env: Env, report: Report) -> str:
    """The path to look for: ``@plan`` resolved through the session's plan binding (the
    caller resolved ``scope`` for it); a ``./``/``../`` path joined to the cwd; anything
    else as given."""
    if value == "@plan":
        assert scope is not None, "@plan is resolved through the scope"
        from pysift.engines.plans import InlinePlans, bindings_of, choose_plan

        inline: list[InlinePlans] = []
        bindings, warnings = bindings_of(scope.transcripts, env, inline)
        report.unread_each(warnings)
        chosen = choose_plan(bindings, inline)
        if isinstance(chosen, str):
            raise TargetError(f"--file @plan: {chosen}")
        t = chosen.transcript
        named = chosen.recorded_file or chosen.plan_file
        parts = named.replace("\\", "/").rstrip("/").split("/")
        suffix = "/".join(parts[-2:])
        report.note(f"note: @plan resolved to {chosen.plan_file} (bound to session "
                    f"{t.session_id}{', subagent' if t.is_subagent else ''}); its history is "
                    f"looked up by `{suffix}`, the plan's own name: the records may name it "
                    f"under the Claude home of the machine that wrote them")
        return suffix
    if value.startswith(("./", "../")) or value in (".", ".."):
        return os.path.normpath(env.cwd / value)
    if value.startswith("~/"):
        home = env.environ.get("HOME")
        if home:
            return home + value[1:]
    return value


def _check_ambiguous(history: FileHistory) -> None:
    if history.target.absolute or len(history.identities) < 2:
        return
    names = sorted(history.identities)
    shown = ", ".join(names[:NEIGHBOURS_SHOWN])
    more = f" and {len(names) - NEIGHBOURS_SHOWN} more" if len(names) > NEIGHBOURS_SHOWN else ""
    raise UsageError(f"--file {history.target.given} names {len(names)} different files in "
                     f"scope ({shown}{more}); pass the one you mean as an absolute path")


@dataclass
class _Ctx:
    opts: RecoverOptions
    env: Env
    scope: Scope
    target: Target
    history: FileHistory
    scan: ScopeScan
    out: Path | None

    @property
    def file(self) -> str:
        return self.target.given

    @property
    def tz(self) -> Any:
        return self.env.tz


# -- restore -----------------------------------------------------------------------------------


@dataclass
class _Candidate:
    group: GroupHistory
    replay: rp.Replay
    view: rv.View
    disclosure: Disclosure
    latest: str | None

    def rank(self) -> tuple[float, int]:
        from pysift.core.timez import parse_ts

        instant = parse_ts(self.latest)
        return (instant.timestamp() if instant else float("-inf"), self.view.known_count)


def _candidates(ctx: _Ctx, at: At | None) -> list[_Candidate]:
    out = []
    for group in ctx.history.groups:
        cutoff = cutoff_of(at or LATEST, group.events)
        rep = rp.replay(group.events, cutoff)
        replayed = [e for e in group.events if cutoff is None or e.line <= cutoff]
        latest = latest_stamp(replayed)
        out.append(_Candidate(group, rep, rv.view(rep.buffer, ctx.opts.file_lines),
                              disclose(group, cutoff, ctx.target.base), latest))
    return out


@dataclass
class RestoreResult:
    """The restore answer: the raw final content for stdout (None when it went to
    ``--out``, or when the file could not be rebuilt whole: then stdout stays empty)."""

    file: str
    restored: bool = False
    content: str | None = None

    def summary(self) -> dict[str, Any]:
        return {"sessions": 1 if self.restored else 0, "file": self.file, "mode": "restore"}

    def render_text(self, out: TextIO) -> None:
        if self.content is not None:
            verbatim(out, self.content)


def _restore(ctx: _Ctx, report: Report) -> Report:
    file = ctx.file
    candidates = _candidates(ctx, None)
    live = [c for c in candidates if not c.replay.buffer.is_empty]
    report.answer(RestoreResult(file))
    report.exit_code = 1
    if ctx.scan.skipped_lines:
        report.note(f"note: {ctx.scan.skipped_lines} malformed line(s) skipped")
    if not live:
        reason = "invalidated" if candidates else "no-history"
        report.rows = [{"kind": "restore", "file": file, "complete": False, "reason": reason}]
        if candidates:
            report.note(_nothing_survives(file, candidates))
        else:
            report.note(f"error: {_no_history(ctx)}")
        return report
    best = max(live, key=lambda c: c.rank())
    later = later_touches(best, candidates)
    if any(c.replay.hard or c.replay.holes for c in later):
        report.rows = [{"kind": "restore", "file": file, "complete": False,
                        "reason": "invalidated"}]
        report.notes.extend(_superseded(ctx, best, later))
        return report
    if len(candidates) > 1:
        report.notes.extend(_not_used(ctx, best, candidates, later))
    buf = best.replay.buffer
    v = best.view
    whole = buf.complete if ctx.opts.file_lines is None else (
        buf.total is not None and bool(v.intervals) and not v.gaps())
    counts = _restore_counts(best, ctx.tz, later)
    if ctx.opts.file_lines is not None and not v.intervals:
        # the asked lines lie past every line the replay places: past the file's end when
        # its length is known, else past what was seen of it
        report.rows = [{"kind": "restore", "file": file, "complete": False, "reason": "partial",
                        "lines": 0, "total_lines": v.total, **counts}]
        report.notes.extend(_beyond_the_end(ctx, best))
        return report
    if not whole:
        report.rows = [{"kind": "restore", "file": file, "complete": False, "reason": "partial",
                        "lines": v.known_count, "total_lines": v.total, **counts}]
        report.notes.extend(_partial_diagnostic(ctx, best))
        return report
    content = rv.restored_bytes(buf, ctx.opts.file_lines)
    row: dict[str, Any] = {"kind": "restore", "file": file, "complete": True,
                           "lines": v.known_count, **counts}
    if ctx.out is not None:
        writeout.write_file(ctx.out, content.encode("utf-8", "surrogateescape"),
                            force=ctx.opts.force)
        row.update({"path": str(ctx.out), "wrote": True})
        head = f"(recovered {file} → {ctx.out}, {v.known_count} lines"
        report.answer(RestoreResult(file, restored=True))
    else:
        row["content"] = content
        head = f"(recovered {file}: {v.known_count} lines"
        report.answer(RestoreResult(file, restored=True, content=content))
    report.rows = [row]
    report.exit_code = 0
    report.notes.extend(_restore_status(ctx, best, head, later))
    return report


def _beyond_the_end(ctx: _Ctx, c: _Candidate) -> list[str]:
    v = c.view
    asked = f"--file-lines {ctx.opts.file_lines}"
    if v.total is not None:
        return [f"error: {asked} lies beyond the end of {ctx.file}: the file has {v.total} "
                f"line(s) in its latest state here, so there is nothing in that range to "
                f"restore"]
    whole = rv.view(c.replay.buffer)
    return [f"error: cannot restore {asked} of {ctx.file}: the session saw "
            f"{rv.fmt_ranges(whole.covered())} of it and never its length, so those lines "
            f"were never seen (or lie past its end); --salvage prints the known lines"]


def _nothing_survives(file: str, candidates: list[_Candidate]) -> str:
    """Why the events in scope leave no line of the file: the boundaries that dropped what
    was known and the edits that could not be placed, or, when neither happened, that no
    event ever showed its content (only Bash commands changing it, failed calls...)."""
    kinds = sorted({b.cause for c in candidates for b in c.replay.boundaries if b.hard})
    holes = sum(len(c.replay.holes) for c in candidates)
    if holes:
        unread = [_unreadable_text(h, c.group) for c in candidates for h in c.replay.holes
                  if _is_unreadable(h)]
        kinds.append(f"{holes} edit(s) that could not be placed"
                     + (f": {'; '.join(unread)}" if unread else ""))
    if kinds:
        return (f"error: the transcripts in scope hold events for {file}, but no line of it "
                f"survives the replay (invalidated at: {', '.join(kinds)}); inspect the trail "
                f"with --patches, --coverage, or --at @line:<N> before the first boundary")
    bash = [(b, c.group) for c in candidates for b in c.replay.boundaries
            if b.cause in rp.HEURISTIC_CAUSES]
    if bash:
        b, group = bash[0]
        seen = (f"only {len(bash)} Bash command(s) that change it (the first at "
                f"{rv.location(b.source_line or b.line, b.source_session, group)}: "
                f"{b.detail.split(' (the replay')[0]})")
    else:
        seen = "only calls that kept none of its text (failed, blanked or unchanged reads)"
    return (f"error: the transcripts in scope hold events for {file}, but none of them shows "
            f"its content: {seen}, never a Read, Write or Edit that kept its lines, so there is "
            f"nothing to restore; --coverage lists the events")


def _is_unreadable(hole: rp.Hole) -> bool:
    """Whether a hole is a write call the replay could not read (not an edit it could not
    place)."""
    op = hole.event.op
    return isinstance(op.op if isinstance(op, rp.Unanswered) else op, rp.Unreadable)


def _unreadable_text(hole: rp.Hole, group: Any) -> str:
    e = hole.event
    return (f"{rv.location(e.source_line or e.line, e.source_session, group)} {hole.reason} "
            f"(the call did not error, so it may have changed any line)")


def later_touches(best: Any, candidates: list[Any]) -> list[Any]:
    """The session groups that touched the file AFTER the chosen version and keep no line
    of it (each item has ``replay`` and ``rank()``): an outside change they saw or an edit
    they could not place (``hard``/``holes``) means the chosen version is not the file's
    latest; only heuristic touches (a ``rm``, a shell command) leave it the best known."""
    after = best.rank()[0]
    return [c for c in candidates if c.replay.buffer.is_empty and c.rank()[0] > after
            and (c.replay.boundaries or c.replay.holes)]


def _not_used(ctx: _Ctx, best: _Candidate, candidates: list[_Candidate],
              later: list[_Candidate]) -> list[str]:
    """The other session groups in scope that touched the file, latest first, each with
    its last touch and what its events leave, and that they were not replayed: restore
    rebuilds one group's version (decided, twenty-sixth session: an older session whose
    events left no line, or any session beside a second version, went unnamed)."""
    others = sorted((c for c in candidates if c is not best), key=lambda c: c.rank(),
                    reverse=True)
    lines = [f"note: {len(others)} other session(s) in scope also touched {ctx.file}; "
             f"restoring the freshest (session {best.group.session_id}, last touched "
             f"{text_ts(best.latest, ctx.tz)}); the other sessions' events were not replayed "
             f"into it:"]
    for c in others:
        counted = (" (listed below: it touched the file after this version)"
                   if any(c is x for x in later) else "")
        lines.append(f"note:   session {c.group.session_id} (last touched "
                     f"{text_ts(c.latest, ctx.tz)}): {_leaves(c)}{counted}")
    return lines


def _leaves(c: _Candidate) -> str:
    """What one session group's events leave of the file, in a few words."""
    buf = c.replay.buffer
    if not buf.is_empty:
        return (f"a {'complete' if buf.complete else 'partial'} version, "
                f"{c.view.known_count} line(s) known")
    causes = sorted({b.cause for b in c.replay.boundaries if b.hard})
    if c.replay.holes:
        causes.append(f"{len(c.replay.holes)} edit(s) that could not be placed")
    if causes:
        return f"no line survives (invalidated at: {', '.join(causes)})"
    if c.replay.boundaries:
        return "no line of its content, only Bash commands that may change it"
    return "no line of its content (calls that kept none of its text)"


def _superseded(ctx: _Ctx, best: _Candidate, later: list[_Candidate]) -> list[str]:
    last = max(later, key=lambda c: c.rank())
    causes = sorted({b.cause for c in later for b in c.replay.boundaries if b.hard})
    if any(c.replay.holes for c in later):
        causes.append("an edit that could not be placed")
    target = _shell_word(ctx.file)
    version = "complete" if best.replay.buffer.complete else "partial"
    return [(f"error: cannot restore {ctx.file}: its latest history is in session "
             f"{last.group.session_id} (last touched {text_ts(last.latest, ctx.tz)}), where it "
             f"changed in a way the transcripts do not show ({', '.join(causes)}), so no line "
             f"of its current state is known"),
            (f"session {best.group.session_id} holds an older {version} version (last touched "
             f"{text_ts(best.latest, ctx.tz)}): restore that version explicitly with "
             f"`pysift recover @{best.group.parent_session_id} --file {target}`; inspect the "
             f"later change with `pysift recover @{last.group.parent_session_id} --file "
             f"{target} --coverage`"),
            f"note: {CAVEAT}"]


def _extent(v: rv.View) -> int:
    return max((hi for _, hi in v.intervals), default=0)


def _restore_counts(c: _Candidate, tz: Any, later: list[_Candidate]) -> dict[str, Any]:
    return {"boundaries": [rv.boundary_json(b, g.group, tz) for g in (c, *later)
                           for b in g.replay.boundaries],
            "bash_events": c.replay.counts.bash + sum(g.replay.counts.bash for g in later),
            "opaque_commands": c.disclosure.opaque_classes,
            "powershell_commands": c.disclosure.powershell,
            "suggested_search": c.disclosure.suggested}


def _restore_status(ctx: _Ctx, c: _Candidate, head: str, later: list[_Candidate]) -> list[str]:
    boundaries = c.replay.boundaries
    if not boundaries and c.disclosure.clean and not later:
        return [(f"{head}, complete; no bash mutation of this file and no opaque "
                 f"mutating-class command detected in the window)")]
    out = [f"{head}, complete from the tool stream; NOT verified against disk)"]
    if boundaries:
        if all(b.cause in _ANNOTATIONS for b in boundaries):
            out.append(f"  {len(boundaries)} point(s) in the window were disclosed as "
                       f"annotations:")
        else:
            out.append(f"  {len(boundaries)} change(s) in the window were disclosed as "
                       f"boundaries, not replayed:")
        out.extend(rv.boundary_text(b, c.group, ctx.tz) for b in boundaries)
    for g in later:
        out.append(f"  session {g.group.session_id} touched the file after this version "
                   f"(and kept none of its lines):")
        out.extend(rv.boundary_text(b, g.group, ctx.tz) for b in g.replay.boundaries)
    return out + _window_tail(c, "  ")


#: soft boundaries that replay their event (an applied edit, a write confirmed landed)
_ANNOTATIONS = frozenset({rp.STALE_RECOVERED, rp.RESULT_MISSING})


def _shell_word(text: str) -> str:
    if text and all(ch.isalnum() or ch in "@%+=:,./-_" for ch in text):
        return text
    return "'" + text.replace("'", "'\\''") + "'"


def _partial_diagnostic(ctx: _Ctx, c: _Candidate) -> list[str]:
    v = c.view
    total = v.total or _extent(v)
    missing = rv.fmt_ranges(v.gaps())
    if v.total is None:  # the length was never seen: whatever follows is unknown too
        last = _extent(v)
        missing = f"{missing} [{last + 1}..?]" if v.gaps() else f"[{last + 1}..?]"
        seen = f"{v.known_count} line(s) of a file whose length it never saw"
    else:
        seen = f"{v.known_count} of {total} line(s)"
    out = [(f"error: cannot restore {ctx.file} whole: the session saw {seen} "
            f"({rv.fmt_ranges(v.covered())}), MISSING {missing}; --salvage prints the known "
            f"lines with the gaps explicit, --coverage scopes what is recoverable")]
    changes = [b for b in c.replay.boundaries if b.cause in (
        rp.MODIFIED_SINCE_READ, rp.EXTERNAL_EDIT, rp.HINT_MODIFIED, rp.EXTERNAL_WRITE,
        rp.READ_DISAGREEMENT, rp.ORIGINAL_FILE_DISAGREEMENT, rp.STALE_RECOVERED)]
    if changes:
        out.append(f"the file changed outside the Read/Write/Edit stream at {len(changes)} "
                   f"point(s), so the latest state cannot include what was known before:")
        out.extend(rv.boundary_text(b, c.group, ctx.tz, indent="  ", cause=True)
                   for b in changes)
        first = min(changes, key=lambda b: b.line)
        before = first.line - 1
        pre = rp.replay(c.group.events, before)
        pre_view = rv.view(pre.buffer, ctx.opts.file_lines)
        if pre_view.known_count > v.known_count:
            target = _shell_word(ctx.file)
            session = f"@{c.group.parent_session_id}"
            since = f" --since {first.ts}" if first.ts else ""
            dump = f"pysift recover {session} --file {target} --at @line:{before}"
            changes_cmd = f"pysift recover {session} --file {target} --patches{since}"
            if pre.buffer.complete:
                out.append(f"before the first change the file was COMPLETE ({pre_view.known_count} "
                           f"lines, as of {text_ts(first.ts, ctx.tz)}): dump that version with "
                           f"`{dump}`, then the changes since with `{changes_cmd}`, and "
                           f"reconcile by hand")
            else:
                out.append(f"before the first change MORE survives ({pre_view.known_count}/"
                           f"{pre_view.total or _extent(pre_view)} lines, against "
                           f"{v.known_count}/{total} at the latest): dump it with `{dump}` "
                           f"(numbered, gaps explicit), then the changes since with "
                           f"`{changes_cmd}`, and reconcile by hand")
    unconfirmed = [b for b in c.replay.boundaries if b.cause == rp.UNCONFIRMED_WRITE]
    if unconfirmed:
        out.append(f"{len(unconfirmed)} tool write(s) of the file have no result in the "
                   f"transcript and nothing shows whether they landed:")
        out.extend(rv.boundary_text(b, c.group, ctx.tz, indent="  ", cause=True)
                   for b in unconfirmed)
    unplaced = [b for b in c.replay.boundaries if b.cause == rp.BASH_APPEND_UNPLACED]
    if unplaced:
        out.append(f"{len(unplaced)} bash append(s) of known bytes landed on a file that did "
                   f"not end with a newline, so its last line and its length are unknown "
                   f"from there:")
        out.extend(rv.boundary_text(b, c.group, ctx.tz, indent="  ", cause=True)
                   for b in unplaced)
    unread = [h for h in c.replay.holes if _is_unreadable(h)]
    if unread:
        out.append(f"{len(unread)} write call(s) that did not error could not be read, so "
                   f"every line known before them is unknown:")
        out.extend(f"  {_unreadable_text(h, c.group)}" for h in unread)
    if not (changes or unconfirmed) and len(c.replay.holes) > len(unread):
        out.append(f"{len(c.replay.holes) - len(unread)} edit(s) could not be placed in what "
                   f"the session saw (un-anchorable: their old text fell in unknown lines)")
    elif not (changes or unconfirmed or unread or unplaced):
        out.append("the session only saw part of the file, so it cannot be rebuilt whole here")
    caveat = CAVEAT
    bash = [b for b in c.replay.boundaries if b.cause == rp.BASH_MUTATION]
    if bash:
        caveat += (f"; in fact {len(bash)} bash command(s) in this window touched the file "
                   f"(first at {rv.location(bash[0].source_line, bash[0].source_session, c.group)}"
                   f"): treat the result as suspect")
    out.append(f"note: {caveat}")
    return out + _window_tail(c, "")


def _window_tail(c: _Candidate, indent: str) -> list[str]:
    """The restore status's last lines: the opaque commands of the window, and the
    search that shows them."""
    out = []
    note = c.disclosure.note()
    if note:
        out.append(f"{indent}also in this window: {note}")
    if c.disclosure.suggested:
        out.append(f"{indent}inspect the window: {c.disclosure.suggested}")
    return out


def _no_history(ctx: _Ctx) -> str:
    text = (f"no recoverable history for {ctx.file} in this scope: it was never Read, Written "
            f"or Edited here")
    if _window(ctx.opts).active:
        text += " inside the --turn/--since/--until window"
    text += "; widen the scope (more sessions or transcripts) or check the path"
    others = sorted(ctx.history.neighbours - ctx.history.identities)
    if others:
        shown = ", ".join(others[:NEIGHBOURS_SHOWN])
        more = f" and {len(others) - NEIGHBOURS_SHOWN} more" if len(others) > NEIGHBOURS_SHOWN \
            else ""
        text += f" (files with the same name that were: {shown}{more})"
    return text


# -- coverage ----------------------------------------------------------------------------------


def _coverage(ctx: _Ctx, report: Report) -> Report:
    rows = []
    blocks = []
    for c in _candidates(ctx, None):
        rep, v = c.replay, c.view
        rows.append({
            "kind": "coverage", **c.group.trio, "file": ctx.file,
            "recoverable_lines": v.known_count, "seen_total_lines": v.total,
            "covered_ranges": [[a, b] for a, b in v.covered()],
            "fragments": rep.fragments, "hard_boundaries": rep.hard,
            "soft_boundaries": rep.soft, "events": rep.counts.as_json(),
            "boundaries": [rv.boundary_json(b, c.group, ctx.tz) for b in rep.boundaries],
            "opaque_commands": c.disclosure.opaque_classes,
            "powershell_commands": c.disclosure.powershell,
            "suggested_search": c.disclosure.suggested})
        blocks.append((c.group, _coverage_text(ctx, c)))
    return _finish(ctx, report, "coverage", rows, blocks, "in range")


def _coverage_text(ctx: _Ctx, c: _Candidate) -> list[str]:
    rep, v = c.replay, c.view
    if v.total is None:
        share = f"{v.known_count}/? lines (the file's length was never seen)"
    else:
        pct = v.known_count * 100 // v.total if v.total else 100
        share = f"{v.known_count}/{v.total} lines ({pct}%)"
    out = [f"  file: {ctx.file}",
           f"  recoverable: {share}  fragments: {rep.fragments}",
           f"  covered line ranges: {rv.fmt_ranges(v.covered())}",
           f"  events: {rv.fmt_counts(rep.counts)}"]
    if ctx.opts.file_lines is not None and not v.intervals:
        out.insert(2, f"  --file-lines {ctx.opts.file_lines} lies past "
                      + (f"the file's {v.total} line(s)" if v.total is not None else
                         "every line seen (the file's length was never seen)"))
    if rep.boundaries:
        out.append(f"  integrity boundaries: {len(rep.boundaries)} ({rep.hard} hard · "
                   f"{rep.soft} soft)")
        out.extend(rv.boundary_text(b, c.group, ctx.tz) for b in rep.boundaries)
    else:
        out.append("  integrity boundaries: (none)")
    if rep.counts.edit_unanchorable:
        out.append(f"  un-anchorable edits (coverage holes): {rep.counts.edit_unanchorable}")
    out.extend(rv.disclosure_lines(c.disclosure, c.group, ctx.tz, search=bool(rep.boundaries)))
    return out


# -- at / salvage --------------------------------------------------------------------------------


def _snapshots(ctx: _Ctx, report: Report) -> Report:
    at = ctx.opts.at if ctx.opts.mode == "at" else LATEST
    assert at is not None
    rows = []
    blocks = []
    blob: list[str] = []
    for c in _candidates(ctx, at):
        v = c.view
        if not v.known and v.total is None:
            continue
        cutoff = cutoff_of(at, c.group.events)
        rows.append({
            "kind": "snapshot", **c.group.trio, "file": ctx.file, "line": cutoff,
            "lines": [{"n": n, "text": text, "set_at_line": set_at} for n, text, set_at in v.known],
            "gaps": [[a, b] for a, b in v.gaps()], "seen_total_lines": v.total,
            "boundaries": [rv.boundary_json(b, c.group, ctx.tz) for b in c.replay.boundaries],
            "opaque_commands": c.disclosure.opaque_classes,
            "powershell_commands": c.disclosure.powershell,
            "suggested_search": c.disclosure.suggested})
        block = [f"  file: {ctx.file}"]
        if cutoff is not None:
            where = "event" if c.group.merged else "jsonl line"
            block.append(f"  as of: {where} {cutoff}")
        block.extend(f"  {line}" for line in rv.snapshot_body(v, clip_lines=True))
        rep = c.replay
        if rep.boundaries:
            block.append(f"  integrity boundaries: {len(rep.boundaries)} ({rep.hard} hard · "
                         f"{rep.soft} soft)")
            block.extend(rv.boundary_text(b, c.group, ctx.tz) for b in rep.boundaries)
        block.extend(rv.disclosure_lines(c.disclosure, c.group, ctx.tz,
                                         search=bool(rep.boundaries)))
        blocks.append((c.group, block))
        blob.append("\n".join(rv.snapshot_body(v, clip_lines=False)) + "\n")
    empty = "at the latest state" if at.kind == "latest" else f"as of {at.text}"
    wrote = _write_artifact(ctx, report, "".join(blob), "partial snapshot")
    return _finish(ctx, report, ctx.opts.mode, rows, blocks, empty, wrote)


# -- patches -------------------------------------------------------------------------------------


def _patches(ctx: _Ctx, report: Report) -> Report:
    rows: list[dict[str, Any]] = []
    blocks = []
    blob: list[str] = []
    for c in _candidates(ctx, None):
        rep = c.replay
        if not rep.segments and not rep.boundaries:
            continue
        block = [f"  file: {ctx.file}"]
        # in the order the replay met them: a boundary after the segments opened before
        # it, so one that opens a segment precedes it even on the same line
        items: list[tuple[int, int, Any]] = [(s.index, 0, s) for s in rep.segments]
        items += [(b.after_segment, 1, b) for b in rep.boundaries]
        items.sort(key=lambda item: (item[0], item[1]))
        for _, kind, item in items:
            if kind == 1:
                rows.append({"kind": "boundary", **c.group.trio,
                             **rv.boundary_json(item, c.group, ctx.tz)})
                block.append(rv.boundary_text(item, c.group, ctx.tz, indent="  ").replace(
                    "  ⚠ ", "  ⚠ INTEGRITY BOUNDARY  ", 1).replace(
                    "  ~ ", "  ~ INTEGRITY BOUNDARY  ", 1))
                continue
            seg = item
            diff = rv.unified_diff(rv.diff_lines(seg.start, ctx.opts.file_lines),
                                   rv.diff_lines(seg.end, ctx.opts.file_lines))
            blob.append(diff)
            rows.append({"kind": "segment", **c.group.trio, "segment_index": seg.index,
                         "line": seg.first.line, "line_start": seg.first.line,
                         "line_end": seg.last.line, "turn_start": seg.first.turn,
                         "turn_end": seg.last.turn, **ts_pair("ts", seg.first.ts, ctx.tz),
                         "pre_state_known": seg.pre_state_known,
                         "anchor_source": seg.anchor_source, "unified_diff": diff})
            if seg.anchor_source:
                pre = f"pre-state: {seg.anchor_source} anchor"
            elif seg.pre_state_known:
                pre = "pre-state: known"
            else:
                pre = "pre-state PARTIALLY UNKNOWN after boundary"
            block.append(f"  ─ SEGMENT {seg.index}  L{seg.first.line}..L{seg.last.line}  turns "
                         f"{seg.first.turn}..{seg.last.turn}  {text_ts(seg.first.ts, ctx.tz)}.."
                         f"{text_ts(seg.last.ts, ctx.tz)}  ({pre}) ─")
            block.extend(f"  {line}" for line in diff.splitlines()) if diff else \
                block.append("  (no change in this segment)")
        block.extend(rv.disclosure_lines(c.disclosure, c.group, ctx.tz,
                                         search=bool(rep.boundaries)))
        blocks.append((c.group, block))
    wrote = _write_artifact(ctx, report, "".join(blob), "concatenated patches")
    return _finish(ctx, report, "patches", rows, blocks, "in range", wrote)


# -- shared ends -----------------------------------------------------------------------------------


def _write_artifact(ctx: _Ctx, report: Report, blob: str, what: str) -> str | None:
    if ctx.out is None:
        return None
    if not blob:
        report.note(f"note: nothing reconstructed in range; --out file {ctx.out} left untouched")
        return None
    writeout.write_file(ctx.out, blob.encode("utf-8", "surrogateescape"), force=ctx.opts.force)
    return f"(wrote {what} to {ctx.out})"


@dataclass
class SessionsResult:
    """The answer of --coverage, --at, --salvage and --patches: one text block per
    session group that holds the file (the rows carry the same figures)."""

    file: str
    mode: str
    blocks: list[tuple[GroupHistory, list[str]]]
    empty: str  # "in range" | "at the latest state" | "as of <when>"
    skipped_lines: int
    banner: str | None = None
    wrote: str | None = None  # "(wrote … to <path>)"

    def summary(self) -> dict[str, Any]:
        return {"sessions": len(self.blocks), "file": self.file, "mode": self.mode,
                "skipped_lines": self.skipped_lines}

    def render_text(self, out: TextIO) -> None:
        if self.banner:
            out.write(self.banner + "\n\n")
        for i, (group, block) in enumerate(self.blocks):
            if i:
                out.write("\n")
            out.write(_session_line(group) + "\n")
            out.writelines(line + "\n" for line in block)
        if not self.blocks:
            out.write(f"no recoverable history for {self.file} {self.empty}\n")
        if self.wrote:
            out.write(f"\n{self.wrote}\n")
        out.write(f"\nmode={self.mode}  {FOOTER}\n")
        if self.skipped_lines:
            out.write(f"({self.skipped_lines} malformed line(s) skipped)\n")


def _finish(ctx: _Ctx, report: Report, mode: str, rows: list[dict[str, Any]],
            blocks: list[tuple[GroupHistory, list[str]]], empty: str,
            wrote: str | None = None) -> Report:
    report.rows = rows
    report.answer(SessionsResult(ctx.file, mode, blocks, empty, ctx.scan.skipped_lines,
                                 banner=scope_banner(ctx.scope), wrote=wrote))
    return report


def _session_line(group: GroupHistory) -> str:
    if group.is_subagent:
        return f"SUBAGENT {group.session_id}  ·  parent SESSION {group.parent_session_id}"
    return f"SESSION {group.session_id}"


# -- batch -----------------------------------------------------------------------------------------


@dataclass
class _Outcome:
    target: str
    status: str  # complete | partial | invalidated | no-history | skipped-exists
    known: int = 0
    total: int | None = 0  # None: the file's length was never seen
    boundaries: int = 0
    bash_file: int = 0
    bash_opaque: int = 0
    written: Path | None = None


def read_manifest(path: str, env: Env) -> list[str]:
    """The absolute paths a ``--files-from`` manifest lists (one per line; blank lines and
    ``#`` comments skipped; duplicates dropped)."""
    if not path.strip():
        raise UsageError("--files-from is empty; pass the manifest file listing the paths")
    source = user_named_path(path, env.cwd, env.environ)
    try:
        with open(source, "rb") as handle:
            raw = handle.read(MANIFEST_CAP + 1)
    except OSError as exc:
        raise UsageError(f"cannot read the --files-from manifest {source}: "
                         f"{exc.strerror or exc}") from None
    if len(raw) > MANIFEST_CAP:
        raise UsageError(f"the --files-from manifest {source} is over 16 MiB; split it")
    text = raw.decode("utf-8", "surrogateescape")
    out: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        entry = line.strip()
        if not entry or entry.startswith("#"):
            continue
        if not is_absolute(entry):
            raise UsageError(f"--files-from {source}:{number}: {entry!r} is not an absolute "
                             f"path; list each file by its absolute path, one per line")
        writeout.mirror_relative(entry)  # refuses a `..` component now, before any work
        if entry not in out:
            out.append(entry)
    if not out:
        raise UsageError(f"the --files-from manifest {source} lists no file")
    return out


def _run_batch(opts: RecoverOptions, env: Env) -> Report:
    if opts.file is not None:
        raise UsageError("--files-from (batch) and --file (one file) are exclusive; pick one")
    if opts.out_dir is None:
        raise UsageError("--files-from needs --out-dir DIR (where the recovered files are "
                         "written)")
    if opts.out is not None:
        raise UsageError("--out is for one file; batch mode writes under --out-dir")
    if opts.mode not in ("restore", "at"):
        raise UsageError(f"--files-from rebuilds files (their final state, or --at a point); "
                         f"--{opts.mode} is a single-file view: use --file")
    if not opts.out_dir.strip():
        raise UsageError("--out-dir is empty; pass the directory to write into")
    paths = read_manifest(opts.files_from or "", env)
    out_dir = user_named_path(opts.out_dir, env.cwd, env.environ)
    writeout.refuse_under_home(out_dir, env.claude_home, "--out-dir")
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"--out-dir {out_dir} exists and is not a directory")
    if os.path.islink(out_dir):
        out_dir = Path(os.path.realpath(out_dir))
    destinations = {p: writeout.mirror_path(out_dir, p) for p in paths}  # refuses escapes
    scope = opts.scope.resolve(env)
    report = Report(command="recover")
    report.take_scope(scope)
    report.header = scope_header(scope)
    say = opts.progress
    if say:
        say(f"recover --files-from: {len(paths)} file(s), scanning "
            f"{len(scope.transcripts)} transcript(s) once…")
    targets = [Target.of(p) for p in paths]
    scan = scan_scope(scope.transcripts, targets, _window(opts),
                      progress=(lambda done, total: say(f"scanned {done}/{total} transcripts"))
                      if say else None,
                      turns=opts.at is not None and opts.at.kind == "turn",
                      lines=opts.at is not None and opts.at.kind == "line")
    report.unread_each(scan.warnings)
    at = opts.at or LATEST
    plans = []
    for i, history in enumerate(scan.files):
        plans.append(_rebuild(history, destinations[paths[i]], at, opts.force))
        if say and (i + 1) % 50 == 0:
            say(f"rebuilt {i + 1}/{len(paths)} files")
    _check_room(out_dir, plans)  # before anything is written
    os.makedirs(out_dir, exist_ok=True)
    outcomes = []
    for outcome, data in plans:
        if data is not None and outcome.written is not None:
            writeout.make_parents(out_dir, outcome.written)
            writeout.write_file(outcome.written, data, force=opts.force)
        outcomes.append(outcome)
    report_path = _write_report(out_dir, outcomes, opts.force)
    report.rows = [{"kind": "file", "file": o.target, "status": o.status,
                    "known_lines": o.known, "total_lines": o.total, "boundaries": o.boundaries,
                    "bash_file": o.bash_file, "bash_opaque": o.bash_opaque,
                    "written_to": str(o.written) if o.written else None} for o in outcomes]
    report.answer(BatchResult(outcomes, report_path, scan.skipped_lines))
    return report


@dataclass
class BatchResult:
    """The batch answer: one outcome per manifest path, and where the report went."""

    outcomes: list[_Outcome]
    report_path: Path
    skipped_lines: int

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)

    @property
    def flagged(self) -> int:
        return sum(1 for o in self.outcomes if o.boundaries + o.bash_file + o.bash_opaque)

    def summary(self) -> dict[str, Any]:
        return {"mode": "batch", "files": len(self.outcomes), "complete": self.count("complete"),
                "partial": self.count("partial"), "invalidated": self.count("invalidated"),
                "no_history": self.count("no-history"), "skipped": self.count("skipped-exists"),
                "flagged": self.flagged, "report": str(self.report_path),
                "skipped_lines": self.skipped_lines}

    def render_text(self, out: TextIO) -> None:
        partial, flagged = self.count("partial"), self.flagged
        out.write(f"recovered {len(self.outcomes)} file(s): {self.count('complete')} complete · "
                  f"{partial} partial · {self.count('invalidated')} invalidated · "
                  f"{self.count('no-history')} no-history · {self.count('skipped-exists')} "
                  f"skipped (already present)\n")
        if partial:
            out.write(f"{partial} partial file(s) were written beside their place as "
                      f"<name>.partial (known lines numbered, gaps explicit), never as the file "
                      f"itself\n")
        if flagged:
            out.write(f"{flagged} file(s) had integrity boundaries or unparsed mutating commands "
                      f"in their window (boundaries/bash_file/bash_opaque columns): complete "
                      f"means complete from the tool stream, not verified against disk\n")
        out.write(f"report: {self.report_path}\n")
        if self.skipped_lines:
            out.write(f"({self.skipped_lines} malformed line(s) skipped)\n")


@dataclass
class _Version:
    """One session group's replay in batch mode (what ``later_touches`` reads)."""

    group: GroupHistory
    replay: rp.Replay
    cutoff: int | None
    instant: float

    def rank(self) -> tuple[float, int]:
        return (self.instant, len(self.replay.buffer.cells))


def _rebuild(history: FileHistory, dest: Path, at: At, force: bool
             ) -> tuple[_Outcome, bytes | None]:
    """The file's outcome and the bytes to write at ``outcome.written`` (None: nothing to
    write); nothing is written here."""
    target = history.target.given
    from pysift.core.timez import parse_ts

    versions = []
    for group in history.groups:
        cutoff = cutoff_of(at, group.events)
        rep = rp.replay(group.events, cutoff)
        if not rep.events:
            continue
        replayed = [e for e in group.events if cutoff is None or e.line <= cutoff]
        latest = max((i for e in replayed if (i := parse_ts(e.ts)) is not None), default=None)
        versions.append(_Version(group, rep, cutoff,
                                 latest.timestamp() if latest else float("-inf")))
    live = [v for v in versions if not v.replay.buffer.is_empty]
    if not live:
        return _Outcome(target, "invalidated" if versions else "no-history"), None
    best = max(live, key=lambda v: v.rank())
    later = later_touches(best, versions)
    if any(v.replay.hard or v.replay.holes for v in later):
        return _Outcome(target, "invalidated"), None  # a later session saw it change
    rep = best.replay
    disclosure = disclose(best.group, best.cutoff, history.target.base)
    v = rv.view(rep.buffer)
    outcome = _Outcome(target, "complete" if rep.buffer.complete else "partial", v.known_count,
                       v.total,
                       len(rep.boundaries) + sum(len(x.replay.boundaries) for x in later),
                       rep.counts.bash + sum(x.replay.counts.bash for x in later),
                       len(disclosure.opaque))
    if outcome.status == "complete":
        data = rep.buffer.content()
    else:
        dest = dest.with_name(dest.name + ".partial")
        data = "\n".join(rv.snapshot_body(v, clip_lines=False)) + "\n"
    if os.path.lexists(dest) and not force and not os.path.isdir(dest):
        outcome.status = "skipped-exists"
        return outcome, None
    outcome.written = dest
    return outcome, data.encode("utf-8", "surrogateescape")


def _check_room(out_dir: Path, plans: list[tuple[_Outcome, bytes | None]]) -> None:
    """Refuse, before anything is written, a batch whose files cannot all be written: a
    file where another listed file needs a directory (``/a`` and ``/a/b.py`` both
    recovered), or an existing directory or non-directory in the way."""
    needs: dict[Path, str] = {}  # a directory the batch creates -> a target that needs it
    for outcome, data in plans:
        if data is None or outcome.written is None:
            continue
        for parent in outcome.written.relative_to(out_dir).parents:
            if parent != Path("."):
                needs.setdefault(out_dir / parent, outcome.target)
    for outcome, data in plans:
        if data is None or outcome.written is None:
            continue
        dest = outcome.written
        if dest in needs:
            raise UsageError(f"{outcome.target} and {needs[dest]} cannot both be recovered "
                             f"under {out_dir}: {dest} would be the first file and a directory "
                             f"of the second; recover them with separate --out-dir runs "
                             f"(nothing was written)")
        if os.path.isdir(dest):
            raise UsageError(f"{dest} is a directory: {outcome.target} cannot be written "
                             f"there; move it or choose another --out-dir (nothing was written)")
    for directory, target in needs.items():
        if os.path.lexists(directory) and not os.path.isdir(directory):
            raise UsageError(f"{directory} exists and is not a directory: {target} cannot be "
                             f"written under it; move it or choose another --out-dir (nothing "
                             f"was written)")


def _write_report(out_dir: Path, outcomes: list[_Outcome], force: bool) -> Path:
    rows = ["\t".join(REPORT_COLUMNS)]
    for o in outcomes:
        total = "?" if o.total is None else o.total
        rows.append("\t".join(str(v) for v in (o.status, o.known, total, o.boundaries,
                                                o.bash_file, o.bash_opaque, o.target,
                                                o.written or "")))
    path = out_dir / REPORT_NAME
    if os.path.lexists(path) and not force:  # an earlier run's report is kept
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        path = out_dir / f"recovery-report-{stamp}.tsv"
    writeout.write_file(path, ("\n".join(rows) + "\n").encode("utf-8", "surrogateescape"),
                        force=True)
    return path
