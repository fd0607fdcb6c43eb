"""``pysift files``: which files a session (and its subagents) changed, and when (SPEC
§6.6).

Rows are per transcript: a subagent's changes stay under its own id, branded with its
parent session (the default scope spans subagents). ``--by`` picks the detail: a
per-directory rollup (``summary``, the default, and ``dir``), one row per file, or the
chronological ``timeline``. Edit-before-Read boundaries follow in every mode. The path
filters and the turn/time windows are applied before any rollup, to boundaries too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from functools import lru_cache
from typing import Any, TextIO

from pysift.commands.scope import ScopeArgs, scope_banner, scope_header
from pysift.core.grammar.pathfilter import PathFilter, compile_glob, compile_path_regex
from pysift.core.timez import text_stamper, ts_pair
from pysift.disk.layout import Transcript
from pysift.engines import files as engine
from pysift.engines.files import Boundary, Group, Mutation, TranscriptFiles
from pysift.engines.stats import Window
from pysift.errors import UsageError
from pysift.model.env import Env
from pysift.model.fastdata import dataclass
from pysift.output.fields import id_trio
from pysift.output.report import Report
from pysift.output.terminal import paint, wants_colour

ROW_KINDS = {"summary": "bucket", "dir": "dir", "file": "file", "timeline": "mutation"}
DETAIL_LABELS = {"summary": "summary", "dir": "by-dir", "file": "by-file",
                 "timeline": "timeline"}
BOUNDARY_HEADING = ("── Edit-before-Read boundaries ({n}) — changed outside the tool stream "
                    "(a formatter, git, an editor); check with recover --coverage ──")
HEURISTIC_CAVEAT = ("(Bash mutations are heuristic: read from the command text, never "
                    "observed on disk.)")
EMPTY = "no file mutations found"


@dataclass(frozen=True, kw_only=True)
class FilesOptions:
    scope: ScopeArgs = field(default_factory=ScopeArgs)  # targets, span, the windows
    by: str = "summary"
    regex: str | None = None
    glob: str | None = None


def path_filter(opts: FilesOptions) -> PathFilter:
    """The compiled ``--regex``/``--glob`` (a usage error when either is invalid, or empty:
    an empty glob matches no path and an empty regex every path, so a script's unset
    variable would answer a question nobody asked)."""
    for flag, value in (("--regex", opts.regex), ("--glob", opts.glob)):
        if value == "":
            raise UsageError(f"{flag} is empty; give a pattern matched against the full path "
                             "(e.g. --regex '\\.py$' or --glob '**/src/**'), or leave the "
                             "flag out to keep every path")
    return PathFilter(
        regex=compile_path_regex(opts.regex) if opts.regex is not None else None,
        glob=compile_glob(opts.glob) if opts.glob is not None else None,
        regex_text=opts.regex, glob_text=opts.glob)


def run(opts: FilesOptions, env: Env) -> Report:
    paths = path_filter(opts)
    args = opts.scope
    scope = args.resolve(env)
    plan = engine.FilesPlan(by=opts.by, paths=paths, window=Window(
        since=args.since, until=args.until, turns=args.turns))
    found = engine.run(scope.transcripts, plan)
    report = Report(command="files")
    report.take_scope(scope)
    for transcript in found:
        if transcript.error:
            report.unread(f"warning: skipped: {transcript.error}")
    result = FilesResult(
        by=opts.by, env=env, banner=scope_banner(scope), window=_window(args),
        found=sorted((f for f in found if f.mutations),
                     key=lambda f: f.transcript.session_id),
        boundaries=sorted(((f.transcript, b) for f in found for b in f.boundaries),
                          key=lambda tb: (tb[0].session_id, tb[1].line or 0)),
        skipped_lines=sum(f.skipped_lines for f in found))
    powershell = sum(len(f.powershell) for f in found)
    if powershell:
        report.note(f"note: {powershell} PowerShell call(s) in the window were not read: "
                    "pysift reads Bash commands only, so a file a PowerShell command changed "
                    "is not listed (read them with `pysift search 'PowerShell' -t "
                    "agent.tool.use` on the same targets)")
    report.header = scope_header(scope)
    report.row_builder = result.json_rows
    report.answer(result)
    return report


def _window(args: ScopeArgs) -> str:
    """The footer's window: ``turn=SPEC``, ``time-window`` or ``all turns``."""
    if args.turns is not None:
        return f"turn={args.turns.format()}"
    if args.windowed:
        return "time-window"
    return "all turns"


@dataclass
class FilesResult:
    """The one answer both writers read: transcripts with rows (sorted by id), the
    boundaries, and the totals the JSON summary and the text footer both state."""

    by: str
    env: Env
    banner: str | None
    window: str
    found: list[TranscriptFiles]
    boundaries: list[tuple[Transcript, Boundary]] = field(default_factory=list)
    skipped_lines: int = 0

    @property
    def mutation_count(self) -> int:
        return sum(len(t.mutations) for t in self.found)

    @property
    def distinct_files(self) -> int:
        return engine.distinct_files(self.found)

    @property
    def sessions(self) -> int:
        owners = {t.transcript.parent_session_id for t in self.found if t.mutations}
        owners |= {t.parent_session_id for t, _ in self.boundaries}
        return len(owners)

    def summary(self) -> dict[str, Any]:
        return {
            "sessions": self.sessions,
            "distinct_files": self.distinct_files,
            "total_mutations": self.mutation_count,
            "edit_before_read_boundaries": len(self.boundaries),
            "skipped_lines": self.skipped_lines,
            "detail_level": self.by,
        }

    def json_rows(self) -> list[dict[str, Any]]:
        return json_rows(self, self.env)

    def render_text(self, out: TextIO) -> None:
        render_text(out, self)


# -- JSON -----------------------------------------------------------------------------------------


Stamp = Callable[..., Any]


def _cached(fn: Callable[..., Any], env: Env) -> Stamp:
    """``fn(*args, tz=env.tz)`` memoized for one output: a file's first and last touch
    are often one instant, and a rollup renders thousands of them."""
    return lru_cache(maxsize=None)(lambda *args: fn(*args, env.tz))


def _trio(t: Transcript) -> dict[str, Any]:
    return id_trio(t.session_id, t.is_subagent, t.parent_session_id)


def group_row(kind: str, t: Transcript, g: Group, local: Stamp) -> dict[str, Any]:
    return {
        "kind": kind,
        **_trio(t),
        "path": g.path,
        **{op: g.counts[op] for op in engine.OPS},
        "total": g.total,
        "distinct_files": g.distinct_files,
        **local("first", g.first_ts),
        **local("last", g.last_ts),
    }


def mutation_row(t: Transcript, m: Mutation, local: Stamp) -> dict[str, Any]:
    return {
        "kind": "mutation",
        **_trio(t),
        "path": m.path,
        "op": m.op,
        **local("ts", m.ts),
        "turn_index": m.turn,
        "line": m.line,
        "is_create": m.is_create,
        "heuristic": m.heuristic,
        "resolution": m.resolution,
        "detail": m.detail,
        "path_verbatim": m.path_verbatim,
        "command_errored": m.command_errored,
    }


def boundary_row(t: Transcript, b: Boundary, local: Stamp) -> dict[str, Any]:
    return {
        "kind": "boundary",
        **_trio(t),
        "path": b.path,
        "line": b.line,
        "turn_index": b.turn,
        "cause": b.cause,
        **local("ts", b.ts),
    }


def json_rows(view: FilesResult, env: Env) -> list[dict[str, Any]]:
    local = _cached(ts_pair, env)
    rows: list[dict[str, Any]] = []
    for found in view.found:
        t = found.transcript
        if view.by == "timeline":
            rows.extend(mutation_row(t, m, local) for m in engine.timeline(found.mutations))
        else:
            kind = ROW_KINDS[view.by]
            rows.extend(group_row(kind, t, g, local)
                        for g in engine.groups(found.mutations, view.by))
    rows.extend(boundary_row(t, b, local) for t, b in view.boundaries)
    return rows


# -- text -----------------------------------------------------------------------------------------


def _heading(out: TextIO, t: Transcript) -> None:
    if t.is_subagent:
        out.write("SUBAGENT ")
        paint(out, t.session_id, "id")
        out.write("  ·  parent SESSION ")
        paint(out, t.parent_session_id, "id")
    else:
        out.write("SESSION ")
        paint(out, t.session_id, "id")
    out.write("\n")


def _turn(turn: int | None) -> str:
    return "-" if turn is None else str(turn)


def _timeline_line(out: TextIO, m: Mutation, stamp: Stamp) -> None:
    label = engine.OP_LABELS[m.op] + (" (heuristic)" if m.heuristic else "")
    errored = " (command errored)" if m.command_errored else ""
    detail = f"  ({m.detail})" if m.detail else ""
    out.write("  ")
    paint(out, f"L{m.line}", "line")
    out.write(f"  {stamp(m.ts)}  turn {_turn(m.turn)}  {label}  ")
    paint(out, m.path, "path")
    out.write(f"{errored}{detail}\n")


def _body(out: TextIO, found: TranscriptFiles, by: str, stamp: Stamp) -> None:
    if by == "timeline":
        for m in engine.timeline(found.mutations):
            _timeline_line(out, m, stamp)
        return
    groups = engine.groups(found.mutations, by)
    if not wants_colour(out):  # nothing to paint: the transcript's groups in one write
        out.write("".join([f"  {g.path}{_group_tail(g, by, stamp)}" for g in groups]))
        return
    for g in groups:
        out.write("  ")
        paint(out, g.path, "path")
        out.write(_group_tail(g, by, stamp))


def _group_tail(g: Group, by: str, stamp: Stamp) -> str:
    """What follows a group's path: its counts, and (by dir or file) its first and last
    instant (a file changed once, the common case, has one instant: stamped once)."""
    if by == "summary":
        return f": {g.ops_label()}\n"
    files = f"  ·  {g.distinct_files} file(s)" if by == "dir" else ""
    first = stamp(g.first_ts)
    last = first if g.last_ts == g.first_ts else stamp(g.last_ts)
    return f"\n    {g.ops_label()}{files}\n    first  {first}\n    last   {last}\n"


def render_text(out: TextIO, view: FilesResult) -> None:
    w = out.write
    stamp = text_stamper(view.env.tz)
    if view.banner:
        w(view.banner + "\n\n")
    if not view.found and not view.boundaries:
        w(EMPTY + "\n")
    for i, found in enumerate(view.found):
        if i:
            w("\n")
        _heading(out, found.transcript)
        _body(out, found, view.by, stamp)
    if view.boundaries:
        w("\n" + BOUNDARY_HEADING.format(n=len(view.boundaries)) + "\n")
        for t, b in view.boundaries:
            owner = (f"  ·  subagent {t.session_id} (parent {t.parent_session_id})"
                     if t.is_subagent else "")
            w(f"  ⚠ {b.path}  ·  L{b.line}  ·  turn {_turn(b.turn)}  ·  "
              f"{stamp(b.ts)}  ·  {b.cause}{owner}\n")
    w("\n")
    w(f"{view.distinct_files} distinct file(s)  ·  {view.mutation_count} mutation(s)  ·  "
      f"{len(view.boundaries)} Edit-before-Read boundary(ies)  ·  "
      f"detail={DETAIL_LABELS[view.by]}  ·  {view.window}\n")
    w(HEURISTIC_CAVEAT + "\n")
    if view.skipped_lines:
        w(f"({view.skipped_lines} malformed line(s) skipped)\n")
