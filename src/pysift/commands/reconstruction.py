"""The reconstruction ``pysift verbatim`` prints (csift §6.8): the engine run, the stderr
notes, the JSON header and rows and the text view, read off one result object; a
``--slice`` chunk of it for a hook."""

from __future__ import annotations

from datetime import tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from pysift.core.resolve import Scope
from pysift.core.timez import ts_pair
from pysift.disk.layout import Transcript
from pysift.engines.verbatim import run as engine
from pysift.engines.verbatim.document import counts, document, entries, uses_sidecar
from pysift.engines.verbatim.fleet import newest_whole
from pysift.engines.verbatim.geometry import BOTH, PENDING, header_block, reach, render_body
from pysift.engines.verbatim.model import PROFILES, Richness, TurnSlice, TurnUnit
from pysift.engines.verbatim.plan import SessionPlan, min_render_chars
from pysift.engines.verbatim.richness import Collapsed
from pysift.engines.verbatim.run import Reconstruction, Request, Window
from pysift.engines.verbatim.scan import SessionScan
from pysift.engines.verbatim.slices import pick, slice_windows
from pysift.model.env import Env
from pysift.model.fastdata import dataclass
from pysift.output.fields import id_trio, target_ref
from pysift.output.report import Report
from pysift.output.terminal import verbatim

if TYPE_CHECKING:
    from pysift.commands.verbatim import VerbatimOptions

AUTOMATION_KINDS = ("background-command", "agent", "workflow", "monitor", "task")


def richness(opts: VerbatimOptions) -> Richness:
    """``--agent-msgs`` with the run threshold and richness bounds of ``--profile``."""
    threshold, rich_min, declaration_max = PROFILES.get(opts.profile or "", (6, 280, 200))
    return Richness(mode=opts.agent_msgs, run_threshold=threshold, rich_min_chars=rich_min,
                    declaration_max_chars=declaration_max)


def reconstruct(opts: VerbatimOptions, scope: Scope, env: Env) -> Report:
    args = opts.scope
    out_target = _checked_out(opts, env)  # refused before the work, not after it
    report = Report(command="verbatim")
    report.take_scope(scope)
    window = Window(turns=args.turns, since=args.since, until=args.until)
    cfg = richness(opts)
    found = engine.run(scope.transcripts, Request(
        window=window, budget=opts.budget, fraction=opts.fraction,
        max_compactions=opts.max_compactions, richness=cfg, tz=env.tz, slices=opts.slices,
        width=opts.window))
    for scan in found.unreadable:
        report.unread(f"warning: skipped: {scan.error}")
    sliced = opts.slice is not None or opts.slices is not None
    _notes(report, found.scans, window, quiet=sliced)
    skipped = sum(s.skipped_lines for s in found.scans)
    if found.chunks is not None:
        _fleet_notes(report, found.plans, opts, cfg, env.tz)
        chunks = found.chunks
        text = "".join(chunks) if opts.slice is None else pick(chunks, opts.slice, opts.slices)
        if not text:
            report.note(_nothing_printed(opts, len(chunks)))
        report.answer(SliceResult(text, skipped))
        return report
    if opts.slice is not None:
        for t, need in _skipped(found.plans, opts, cfg, env):  # no header to say it in
            report.note(f"note: {target_ref(t.session_id, t.path)}: skipped — its first "
                        f"round-trip needs ≥ {need} chars; raise --budget (now {opts.budget})")
        _budget_notes(report, found.plans, opts)
        chunks = slice_windows(document(found.plans, cfg, env.tz), opts.window)
        text = pick(chunks, opts.slice, None)
        if not text:
            report.note(_nothing_printed(opts, len(chunks)))
        report.answer(SliceResult(text, skipped))
        return report
    written = None
    if out_target is not None:
        from pysift.core.blocks import text_bytes
        from pysift.disk import writeout

        writeout.write_file(out_target, text_bytes(document(found.plans, cfg, env.tz)),
                            force=opts.force)
        written = out_target
    result = VerbatimResult(found, opts, cfg, env, skipped, written)
    report.header = result.header()
    report.row_builder = result.rows
    report.answer(result)
    return report


def _checked_out(opts: VerbatimOptions, env: Env) -> Path | None:
    """``--out`` as the file to write, after the refusals (under the Claude home, a
    directory, an existing file without --force, a missing directory)."""
    if opts.out is None:
        return None
    from pysift.disk import writeout
    from pysift.disk.home import user_named_path

    out = user_named_path(opts.out, env.cwd, env.environ)
    writeout.refuse_under_home(out, env.claude_home, "--out", what="the reconstruction")
    writeout.check_new_file(out, force=opts.force, flag="--out")
    return out


@dataclass(frozen=True)
class SliceResult:
    """One chunk of the document (``--slice``), or the fixed fleet's whole document
    (``--slices`` alone): text only, so a hook's stdout is the chunk and nothing else.

    The chunk is the document's own text (what ``--out`` writes) wherever stdout is not
    a terminal: a SessionStart hook's stdout goes into the model's context, where an
    escaped ``\\x1b`` would be four characters the transcript never held (and could push
    a window past the hook's cap); at a terminal it is shown, never obeyed (SPEC §13)."""

    text: str | None
    skipped: int

    def summary(self) -> dict[str, Any]:
        return {"skipped_lines": self.skipped}

    def render_text(self, out: TextIO) -> None:
        if self.text:
            verbatim(out, self.text)


@dataclass(frozen=True)
class VerbatimResult:
    """The reconstruction as planned: what the JSON header, rows and summary and the text
    (header blocks, document, footer) all state."""

    found: Reconstruction
    opts: VerbatimOptions
    cfg: Richness
    env: Env
    skipped: int  # malformed lines of the transcripts read
    written: Path | None  # the --out file the document went to

    def header(self) -> dict[str, Any]:
        return _header(self.found.scans, self.found.plans, self.opts, self.cfg)

    def rows(self) -> list[dict[str, Any]]:
        return _rows(self.found.plans, self.cfg, self.env)

    def summary(self) -> dict[str, Any]:
        return {"skipped_lines": self.skipped}

    def render_text(self, out: TextIO) -> None:
        _render_text(out, self)


def _notes(report: Report, scans: list[SessionScan], window: Window, *, quiet: bool) -> None:
    for scan in scans:
        t = scan.transcript
        ref = target_ref(t.session_id, t.path)
        if scan.sidecar_error:
            report.note(f"warning: {scan.sidecar_error}; its pending questions are not in the "
                        "reconstruction")
        unread = [c for c in scan.compactions if not c.summary_read]
        if unread:
            where = ", ".join(f"L{c.line}" for c in unread)
            report.note(f"note: {ref}: the summary of the compaction at {where} could not be "
                        "read (torn, malformed or missing); its boundary is still shown and "
                        "counted, and nothing is deduplicated against it")
        if window.active and scan.turns and not window.admit(scan.turns):
            report.note(f"note: {ref}: the window (--turn/--since/--until) admits none of its "
                        f"{len(scan.turns)} turn(s)")
        if quiet and scan.skipped_lines:  # a chunk has no trailer to say it in
            report.note(f"note: {ref}: {scan.skipped_lines} malformed line(s) skipped")
        if not quiet and not scan.compactions:
            report.note(f"note: {ref} has no compaction — nothing was clipped; for plain "
                        f"reading use `pysift show {ref} --turn <N|A..B|-k..>` (full records, "
                        "no budget)")


def _skipped(plans: list[SessionPlan], opts: VerbatimOptions, cfg: Richness, env: Env
             ) -> list[tuple[Transcript, int]]:
    """The top-level sessions the budget renders nothing of, with the least budget that
    renders each (their header line in text; a stderr note under ``--slice``)."""
    out = []
    for plan in plans:
        t = plan.scan.transcript
        if plan.selected or t.is_subagent:
            continue
        need = min_render_chars(plan.scan, plan.turns, opts.budget, cfg, env.tz)
        if need is not None:
            out.append((t, need))
    return out


def _budget_notes(report: Report, plans: list[SessionPlan], opts: VerbatimOptions) -> None:
    """What ``--budget`` left out of a ``--slice`` document, per session it renders: the
    text view's header counts the units it holds; a chunk has no header, and the turns
    the budget did not reach were absent from the chunks without a word."""
    for plan in plans:
        if not plan.selected:
            continue  # skipped: named with the budget it needs
        shown = [t for t in plan.turns if t.user is not None or t.agents]
        halves = sum(1 for sel in plan.selected
                     if sel.sides != BOTH and sel.turn.is_round_trip)
        if len(plan.selected) == len(shown) and not halves:
            continue
        t = plan.scan.transcript
        whole = len(plan.selected) - halves
        out = len(shown) - len(plan.selected)
        said = f"prints {whole} of its {len(shown)} turns"
        if halves:
            said += f" and one side of {halves} more"
        if out:
            said += f"; {out} did not fit and are left out"
        report.note(f"note: {target_ref(t.session_id, t.path)}: --budget {opts.budget} {said}")


def _nothing_printed(opts: VerbatimOptions, chunks: int) -> str:
    """Why a ``--slice``/``--slices`` run printed nothing: a hook's empty stdout is what
    a slice past the end prints (csift §6.8), and what a wrong N or a fleet too narrow
    for any turn prints too; stderr tells them apart."""
    n, k = opts.slice, opts.slices
    if k is None:
        if not chunks:
            return f"note: --slice {n} printed nothing: the document is empty"
        return (f"note: --slice {n} printed nothing: the document has {chunks} slice(s) of "
                f"--window {opts.window}")
    if n is not None and n > k:
        return (f"note: --slice {n} printed nothing: it is past the fleet of --slices {k} "
                "(slices are 1..K)")
    if not chunks:
        return "note: nothing printed: the fleet holds no turn"
    return (f"note: --slice {n} printed nothing: the fleet's turns fill {chunks} of its {k} "
            "slices (slice 1 the oldest)")


def _fleet_notes(report: Report, plans: list[SessionPlan], opts: VerbatimOptions,
                 cfg: Richness, tz: tzinfo | None) -> None:
    """What the fixed fleet left out: the slices print no chrome (a hook's stdout is the
    slice), so the turns older than the newest that fill the K windows are named on
    stderr, per session, with their count and line span; a session none of whose turns
    fit is named with the window its newest turn takes whole."""
    for plan in plans:
        kept = {id(sel.turn) for sel in plan.selected}
        dropped = [t for t in plan.turns if id(t) not in kept]
        if not dropped:
            continue
        t = plan.scan.transcript
        ref = target_ref(t.session_id, t.path)
        lines = [x for turn in dropped for x in (turn.first_line, turn.content_line)
                 if 0 < x < PENDING]
        span = f" (L{min(lines)}–L{max(lines)})" if lines else ""
        total = len(plan.turns)
        fleet = f"--slices {opts.slices} × --window {opts.window}"
        if not plan.selected:
            need = newest_whole(plan, cfg, tz, titled=len(plans) > 1)
            if need <= opts.window:  # it fits a window: newer transcripts filled the fleet
                report.note(f"note: {ref}: {fleet} hold none of its {total} turns{span}: "
                            "the newer turns of the other transcripts in scope fill the "
                            f"fleet (its newest takes {need} characters)")
                continue
            report.note(f"note: {ref}: {fleet} hold none of its {total} turns{span}: the "
                        f"newest alone takes {need} characters (--window {need} holds it "
                        "whole)")
            continue
        report.note(f"note: {ref}: {fleet} hold the newest {len(plan.selected)} of its "
                    f"{total} turns; {len(dropped)} older turn(s){span} did not fit and are "
                    "left out")


# -- JSON --------------------------------------------------------------------------------------


def _header(scans: list[SessionScan], plans: list[SessionPlan], opts: VerbatimOptions,
            cfg: Richness) -> dict[str, Any]:
    rendered = [p for p in plans if p.selected]
    users = assistants = 0
    for p in rendered:
        u, a = counts(p, cfg)
        users += u
        assistants += a
    top = sum(1 for s in scans if not s.transcript.is_subagent)
    zeros = dict.fromkeys(AUTOMATION_KINDS, 0)
    return {
        "sessions_in_scope": len(scans),
        "sessions_rendered": len(rendered),
        "top_level_sessions": top,
        "subagent_sessions": len(scans) - top,
        "budget_chars": opts.budget,
        "budget_is_per_session": True,
        "max_total_chars": opts.budget * max(1, len(rendered)),
        "round_trip_fraction": opts.fraction,
        "chars_used": sum(p.chars_used for p in plans),
        "boundaries_spanned": sum(p.spanned for p in plans),
        "boundaries_total": sum(len(s.compactions) for s in scans),
        "selected_user": users,
        "selected_assistant": assistants,
        # a <task-notification> never opens a turn (port decisions), so no turn of the
        # reconstruction is an automation trigger; the fixed key set is kept
        "automation_triggers": 0,
        "automation_by_kind": dict(zeros),
        "automation_in_scope_by_kind": dict(zeros),
        "with_elicitation_sidecar": any(uses_sidecar(p) for p in plans),
    }


def _rows(plans: list[SessionPlan], cfg: Richness, env: Env) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for plan in plans:
        t = plan.scan.transcript
        trio = id_trio(t.session_id, t.is_subagent, t.parent_session_id)
        ref = target_ref(t.session_id, t.path)
        lines = sorted(c.line for c in plan.scan.compactions)
        for compaction, entry in entries(plan, cfg):
            if compaction is not None:
                rows.append({"kind": "compaction_boundary", "line": compaction.line,
                             "summary_chars": compaction.summary_chars})
                continue
            assert entry is not None
            sel, item = entry
            if isinstance(item, TurnUnit):
                rows.append(_unit_row(item, sel.turn, trio, lines, env))
            else:
                rows.append(_collapsed_row(item, sel.turn, trio, lines, ref))
    return rows


def _unit_row(unit: TurnUnit, turn: TurnSlice, trio: dict[str, Any], lines: list[int],
              env: Env) -> dict[str, Any]:
    body = render_body(unit)
    row: dict[str, Any] = {
        "kind": "turn",
        **trio,
        "turn_index": turn.turn_number,
        "line": unit.line,
        "source": unit.source,
        "role": unit.role,
        **ts_pair("ts", unit.ts, env.tz),
        "tool_calls": turn.tool_calls,
        "full_chars": unit.full_chars,
        "rendered_chars": body.rendered_chars,
        "truncated": body.truncated,
        "elided_chars": body.elided_chars,
        "elided_lines": body.elided_lines,
        "also_in_summary": unit.also_in_summary,
        "compactions_before": reach(lines, unit.line if unit.line is not None else PENDING),
        "text": unit.text,
        "image_ids": list(unit.image_ids),
        "is_automation": False,
    }
    if unit.inbound is not None:
        row.update(is_inbound_comm=True, comm_label=unit.inbound.label,
                   comm_from=unit.inbound.sender, comm_to="self")
    return row


def _collapsed_row(run: Collapsed, turn: TurnSlice, trio: dict[str, Any],
                   positions: list[int], ref: str) -> dict[str, Any]:
    lines = (f"{run.first_line}" if run.first_line == run.last_line
             else f"{run.first_line}..{run.last_line}")
    return {
        "kind": "collapsed_agents",
        **trio,
        "turn_index": turn.turn_number,
        "agent_messages": run.messages,
        "tool_calls": run.tool_calls,
        "failed": run.failed,
        "first_line": run.first_line,
        "last_line": run.last_line,
        "compactions_before": reach(positions, run.first_line),
        "refetch": f"pysift show {ref} --line {lines}",
    }


# -- text --------------------------------------------------------------------------------------


def _render_text(out: TextIO, result: VerbatimResult) -> None:
    scans, plans = result.found.scans, result.found.plans
    opts, cfg, env, written = result.opts, result.cfg, result.env, result.written
    w = out.write
    rendered = [p for p in plans if p.selected]
    skips = [f"SESSION {t.session_id}  skipped — its first round-trip needs ≥ {need} chars; "
             f"raise --budget (now {opts.budget})" for t, need in _skipped(plans, opts, cfg, env)]
    if len(scans) > 1 or skips:
        top = sum(1 for s in scans if not s.transcript.is_subagent)
        n = len(scans)
        w(f"scope  {n} {'session' if n == 1 else 'sessions'} in scope ({top} top-level + "
          f"{n - top} subagent) · {len(rendered)} rendered within budget · budget "
          f"{opts.budget} chars is PER session → up to {opts.budget * max(1, len(rendered))} "
          "chars total\n\n")
    for line in skips:
        w(line + "\n")
    if skips:
        w("\n")
    for index, plan in enumerate(rendered):
        if index:
            w("\n")
        users, assistants = counts(plan, cfg)
        newest = plan.newest
        dedup = (plan.dedup_demoted, newest.line) if plan.dedup_demoted and newest else None
        for line in header_block(plan.scan.transcript, budget=opts.budget,
                                 fraction=opts.fraction, spanned=plan.spanned,
                                 total=len(plan.scan.compactions), users=users,
                                 assistants=assistants, turns=len(plan.selected),
                                 used=plan.chars_used, dedup=dedup,
                                 sidecar=uses_sidecar(plan)):
            w(line + "\n")
        if written is None:
            w(document([plan], cfg, env.tz))
    if not rendered and not skips:
        w("no turns selected (empty session set or budget too small)\n")
    if result.skipped:
        w(f"\n({result.skipped} malformed line(s) skipped)\n")
    if written is not None:
        w(f"\n(wrote full reconstruction to {written})\n")

