"""``pysift list``: which session is this? One quick-identity row per transcript (§6.1)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO, cast

from pysift.commands.notice import cleanup_notice
from pysift.commands.scope import ScopeArgs, scope_banner, scope_header
from pysift.core.cap import cap
from pysift.core.cleanup import Notice
from pysift.core.resolve import Scope
from pysift.core.sidecar import unread_warning
from pysift.core.timez import iso_stamper, parse_ts, text_stamper
from pysift.disk.layout import KIND_LEGACY, Transcript
from pysift.engines.listing import Said, SessionSummary, activity_span, rank_key
from pysift.model.env import Env
from pysift.model.fastdata import dataclass
from pysift.output.fields import id_trio
from pysift.output.report import Report
from pysift.output.surrogates import register_text_errors
from pysift.output.terminal import (
    Segment,
    segments_out,
    shows_as_is,
    utf8_as_is,
    visible,
    wants_colour,
    write_encoded,
    write_shown,
)

LIST_CAP_DEFAULT = 50


@dataclass(frozen=True, kw_only=True)
class ListOptions:
    # max_count: None = the default policy (50 unscoped), 0 = uncapped; since/until keep
    # the sessions whose activity span reaches into the window; format: what the caller
    # prints (rows are laid out for it in the workers)
    scope: ScopeArgs = field(default_factory=ScopeArgs)
    # the text rows leave the workers as the UTF-8 bytes of what a plain (unpainted) UTF-8
    # stream would be given (``encoded_row``), and the parent writes them as they are: it
    # no longer decodes 2 MB of rows off the pool and encodes them again for the stream,
    # alone, while the other core waits (~8 ms of a listing of corpus B). The caller says
    # so when its stream is such a one (``cli.options.plain_utf8``)
    encoded_rows: bool = False


def run(opts: ListOptions, env: Env) -> Report:
    args = opts.scope
    scope = args.resolve(env)
    limit = args.max_count
    if limit is None and not scope.scoped:
        limit = LIST_CAP_DEFAULT
    # Uncapped, every row is printed: lay each one out in the worker that read it (the
    # parent would otherwise format thousands of rows alone after the pool is done).
    prepare = None if limit else _preparer(args.format, env, opts.encoded_rows,
                                           args.windowed)
    from pysift.disk.cache_place import open_store
    from pysift.engines import listing as engine

    transcripts = listing_order(scope.transcripts)
    # (``wait`` False: a listing holds no lock or other descriptor its workers inherit,
    # so the rows are taken without waiting for the workers to finish leaving)
    summaries = engine.run(transcripts, prepare=prepare,
                           cache=open_store(env.cache, env.now().timestamp()), wait=False)
    known = [s.file_times for s in summaries]
    report = Report(command="list", header=scope_header(scope))
    report.take_scope(scope)
    unreadable = [s for s in summaries if s.error]
    for s in unreadable:
        report.unread(f"warning: skipped: {s.error}")
    summaries = [s for s in summaries if not s.error]
    if args.windowed:
        summaries = [s for s in summaries if _in_window(s, args.since, args.until)]
    for s in summaries:  # of the sessions listed (the window may drop some)
        if s.sidecar_error:
            report.unread(unread_warning(s.sidecar_error))
    # the most recently active, shown in the order the uncapped listing has them (each
    # session, then its subagents)
    shown, over = cap(summaries, limit, newest=rank_key)
    notice = cleanup_notice(report, transcripts, env, known)
    result = ListResult(scope, shown, len(over), limit, env, notice)
    report.row_builder = lambda: [s.view if isinstance(s.view, dict) else session_row(s, env)
                                  for s in shown]
    report.answer(result)
    return report


def listing_order(transcripts: list[Transcript]) -> list[Transcript]:
    """The scope (path order) in the listing's order: each session followed by its
    subagents, the old-layout ``agent-*.jsonl`` files that name it included (they lie
    beside the sessions and sorted among them by name), after its ``subagents/`` ones, by
    name. An old-layout agent whose session is not in the scope stays where its name puts
    it."""
    tops = {(t.project_dir, t.session_id) for t in transcripts if not t.is_subagent}
    legacy: dict[tuple[Path, str | None], list[Transcript]] = {}
    moved: set[int] = set()
    for t in transcripts:
        if t.kind == KIND_LEGACY and (t.project_dir, t.parent_session_id) in tops:
            legacy.setdefault((t.project_dir, t.parent_session_id), []).append(t)
            moved.add(id(t))
    if not legacy:
        return transcripts
    out: list[Transcript] = []
    block: tuple[Path, str | None] | None = None  # the session whose rows are being laid
    for t in transcripts:
        if id(t) in moved:
            continue
        key = (t.project_dir, t.parent_session_id if t.is_subagent else t.session_id)
        if key != block:
            out += legacy.pop(block, []) if block is not None else []
            block = key
        out.append(t)
    if block is not None:
        out += legacy.pop(block, [])
    return out


@dataclass(frozen=True)
class ListResult:
    """The sessions listed (window and cap applied) and what the cap dropped."""

    scope: Scope
    sessions: list[SessionSummary]
    dropped: int
    limit: int | None  # the cap in force (the footer names it)
    env: Env
    notice: Notice | None = None  # sessions in scope near Claude Code's cleanup, unarchived

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "sessions": len(self.sessions),
            "skipped_lines": sum(s.skipped_lines for s in self.sessions),
            "dropped_by_cap": self.dropped,
        }
        if self.notice is not None:
            out["cleanup_notice"] = self.notice.summary()
        return out

    def render_text(self, out: TextIO) -> None:
        render_text(out, self)


def _preparer(view: str, env: Env, encoded: bool = False,
              windowed: bool = False) -> Callable[[SessionSummary], None]:
    def prepare(s: SessionSummary) -> None:
        if not s.error:
            if windowed:  # a laid-out row keeps only its span: widen it while it can be
                s.first_ts, s.last_ts = activity_span(s)
            if view == "json":
                s.view = session_row(s, env)
            elif encoded:  # (its bytes are tested for controls, not its text)
                s.view = encoded_row(row_block(s, env, check=False))
            else:
                s.view = row_block(s, env)
    return prepare


def encoded_row(row: TextRow) -> bytes:
    """A text row as the bytes a plain UTF-8 stream gets from the text writer: its
    controls escaped (``terminal.visible``), a path's undecodable byte as itself and any
    other lone surrogate spelled out (``surrogates.register_text_errors``, the handler
    ``cli.emit`` sets on stdout)."""
    text = row[0]
    data = utf8_as_is(text)
    if data is None:  # a control to escape, or a lone surrogate to spell out
        data = visible(text).encode("utf-8", register_text_errors())
    return data


def _in_window(s: SessionSummary, since: datetime | None, until: datetime | None) -> bool:
    """Keep a session whose activity span (``activity_span``: earliest to latest instant
    read, not file order) intersects the window."""
    first_ts, last_ts = activity_span(s)
    first, last = parse_ts(first_ts), parse_ts(last_ts)
    if first is None or last is None:
        return False
    if since is not None and last < since:
        return False
    return not (until is not None and first > until)


def _said(said: Said | None, env: Env) -> dict[str, Any] | None:
    if said is None:
        return None
    utc = said.ts if isinstance(said.ts, str) else None  # ``ts_pair``, its local value spliced
    return {"excerpt": said_text(said), "ts_utc": utc, "ts_local": _stampers(env)[1](utc)}


def said_text(said: Said) -> str:
    """The preview; an inbound message no human sent opens with its label and direction
    (as a search hit's label zone, without the glyph), so it never reads as the human's."""
    if said.label is None:
        return said.text
    return f"{said_zone(said)}  {said.text}"


def said_zone(said: Said) -> str:
    # (the hit line's module, imported by the few rows an inbound message stands in for)
    from pysift.output.hitline import label_zone

    return label_zone(said.label or "", from_=said.from_, to=said.to).split(" ", 1)[1]


def session_row(s: SessionSummary, env: Env) -> dict[str, Any]:
    t = s.transcript
    return {
        "kind": "session",
        **id_trio(t.session_id, t.is_subagent, t.parent_session_id),
        "path": str(t.path),
        "cwd": s.cwd,
        "version": s.version_last,
        "version_first": s.version_first,
        "version_last": s.version_last,
        "git_branch": s.branch_last,
        "git_branch_first": s.branch_first,
        "git_branch_last": s.branch_last,
        "first_user": _said(s.first_user, env),
        "last_user": _said(s.last_user, env),
        "last_agent": _said(s.last_agent, env),
        "skipped_lines": s.skipped_lines,
        "sidecar_present": s.sidecar_present,
        "pending_elicitations": list(s.pending),
        "with_elicitation_sidecar": bool(s.pending),
        "is_clone": s.is_clone,
        "clone_of": s.clone_of,
        "clone_boundary_uuid": s.clone_boundary_uuid,
    }


def _drift(first: str | None, last: str | None) -> str | None:
    if first and last and first != last:
        return f"{first}->{last}"
    return last or first


def render_text(out: TextIO, result: ListResult) -> None:
    w = out.write
    summaries, dropped, env = result.sessions, result.dropped, result.env
    banner = scope_banner(result.scope)
    if banner:
        w(banner + "\n\n")
    if not summaries:
        w("no sessions found\n")
    views = [s.view for s in summaries]
    if any(isinstance(view, bytes) for view in views):  # laid out for a plain UTF-8 stream
        rows = [view if isinstance(view, bytes)
                else encoded_row(view if isinstance(view, tuple) else row_block(s, env))
                for s, view in zip(summaries, views)]
        # written a few dozen rows at a time, never joined whole: a buffer of megabytes
        # is fresh memory the system maps page by page (corpus B's 2 MB of rows cost ~10
        # ms to join here, a piece ~0.2: its memory is the last piece's, reused)
        for at in range(0, len(rows), _ROWS_PER_WRITE):
            piece = rows[at:at + _ROWS_PER_WRITE]
            write_encoded(out, b"\n".join([b"", *piece] if at else piece))
    else:
        _write_rows(out, [view if isinstance(view, tuple) else row_block(s, env)
                          for s, view in zip(summaries, views)])
    if dropped:
        target = "" if result.scope.scoped else ", or name a target"  # one is named already
        w(f"\n… (+{dropped} more session(s) not shown — kept the {result.limit} most recently "
          f"active; --max-count 0 lists all{target})\n")
    if result.notice is not None:
        w(f"\n{result.notice.line()}\n")


_ROWS_PER_WRITE = 64  # ~60 KB of rows of ~900 bytes: under the C library's mmap threshold


def _write_rows(out: TextIO, rows: list[TextRow]) -> None:
    """The rows of the text view, painted on a stream that paints."""
    if wants_colour(out):
        for i, row in enumerate(rows):
            if i:
                out.write("\n")
            segments_out(out, row_segments(row))
    else:  # nothing to paint: the rows in one write (``visible`` runs once, over it all,
        # unless every row was found free of controls where it was laid out)
        joined = "\n".join([row[0] for row in rows])
        if all(row[2] for row in rows):
            write_shown(out, joined)
        else:
            out.write(joined)


_Stampers = tuple[Callable[[str | None], str], Callable[[str | None], str | None]]
_STAMPERS: list[tuple[Env, _Stampers]] = []  # the last run's, by its Env


def _stampers(env: Env) -> _Stampers:
    """``text_ts`` and ``local_iso`` in the run's zone, the same ones for every row of the
    run (they render a row's stamps once per hour of the clock: ``timez.text_stamper``,
    ``timez.iso_stamper``)."""
    if not _STAMPERS or _STAMPERS[0][0] is not env:
        _STAMPERS[:] = [(env, (text_stamper(env.tz), iso_stamper(env.tz)))]
    return _STAMPERS[0][1]


_SAID_LABELS = (("  first ◂  ", "  first ◂  —\n"), ("  last ◂   ", "  last ◂   —\n"),
                ("  last ▸   ", "  last ▸   —\n"))
_PARENT = "  ·  parent SESSION "
_CWD = "\n  cwd      "
_UNDER = "\n           "  # a message's text (or its label) under its stamp

# A row of the text view: its text, the spans of it that are painted (``start, end,
# role``, flat), and whether the text holds no control character (``terminal.
# shows_as_is``); laid out in the worker, the text is all a plain stream is given
TextRow = tuple[str, tuple[int | str, ...], bool]


def row_block(s: SessionSummary, env: Env, *, check: bool = True) -> TextRow:
    """One session's lines of the text view (rows are separated by a blank line): the
    row's text and its painted spans (ids, the cwd, the stamps, the labels), for a
    painting stream (``row_segments``). ``check`` False: the text is not tested for
    controls (its third part says False), ``encoded_row`` tests its bytes instead."""
    t = s.transcript
    sid = t.session_id
    if t.is_subagent:
        parent = t.parent_session_id
        text = f"SUBAGENT  {sid}{_PARENT}{parent}"
        at = 10 + len(sid) + len(_PARENT)
        marks: list[int | str] = [10, 10 + len(sid), "id", at, at + len(parent), "id"]
    else:
        text = f"SESSION  {sid}"
        marks = [9, len(text), "id"]
    extras = []
    branch = _drift(s.branch_first, s.branch_last)
    if branch:
        extras.append(f"branch {branch}")
    version = _drift(s.version_first, s.version_last)
    if version:
        extras.append(f"CC {version}")
    tail = f"   ({', '.join(extras)})" if extras else ""
    cwd = s.cwd
    if cwd:
        at = len(text) + len(_CWD)
        text += f"{_CWD}{cwd}{tail}\n"
        marks += (at, at + len(cwd), "path")
    else:
        text += f"{_CWD}<unknown cwd>{tail}\n"
    if s.is_clone:
        if s.clone_of:
            text += (f"  clone    forked from SESSION {s.clone_of} at compaction boundary "
                     f"{s.clone_boundary_uuid}\n")
        else:
            text += (f"  clone    forked at compaction boundary {s.clone_boundary_uuid} "
                     "(origin not in this project dir)\n")
    stamp = _stampers(env)[0]
    for (label, missing), said in zip(_SAID_LABELS, (s.first_user, s.last_user, s.last_agent)):
        if said is None:
            text += missing
            continue
        # a message without a stamp is still a message: "—" reads as "none" on this line
        when = stamp(said.ts) if said.ts is not None else "(no timestamp)"
        at = len(text) + len(label)
        marks += (at, at + len(when), "when")
        if said.label is not None:
            zone = said_zone(said)
            at += len(when) + len(_UNDER)
            marks += (at, at + len(zone), "label")
            text += f"{label}{when}{_UNDER}{zone}  {said.text}\n"
        else:
            text += f"{label}{when}{_UNDER}{said.text}\n"
    if s.pending:
        text += "  pending  with elicitation sidecar\n"
        for line in s.pending:
            text += f"           ⏳ {line}\n"
    if s.skipped_lines:
        text += (f"  note     {s.skipped_lines} malformed line(s) skipped (among the head/tail "
                 "lines read — full census: pysift stats)\n")
    return text, tuple(marks), check and shows_as_is(text)


def row_segments(row: TextRow) -> list[Segment]:
    """A row's text as segments (``output.terminal``): plain text between its painted
    spans."""
    text, marks, _ = row
    out: list[Segment] = []
    at = 0
    for k in range(0, len(marks), 3):
        start, end, role = cast(tuple[int, int, str], marks[k:k + 3])
        out += ((text[at:start], None), (text[start:end], role))
        at = end
    out.append((text[at:], None))
    return out
