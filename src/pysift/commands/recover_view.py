"""How a replayed file reads to a person or a script: numbered lines, gaps, ranges, diffs
and the boundary and window-accounting lines every ``recover`` mode shares.

The replay numbers lines by separator (``"a\\nb\\n"`` has an empty third line, as
Claude Code's Read counts it); a reader numbers them as ``cat -n`` does. So the empty
line after a final newline, once known, is left out of what is shown and counted, and
the restored bytes still end with that newline.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Sequence
from typing import Any

from pysift.core import replay as rp
from pysift.core.grammar.ranges import RangeSpec
from pysift.core.text import clip
from pysift.core.timez import text_ts, ts_pair
from pysift.engines.recover.extract import Opaque
from pysift.engines.recover.history import Disclosure, GroupHistory
from pysift.model.fastdata import dataclass

EXCERPT_CHARS = 400
OPAQUE_ROWS_SHOWN = 5


@dataclass
class View:
    """The known lines of a buffer as a reader numbers them, within ``--file-lines``."""

    known: list[tuple[int, str, int]]  # (line, text, jsonl line that set it)
    total: int | None  # the file's line count, when known
    intervals: list[tuple[int, int]]  # the line ranges looked at

    @property
    def known_count(self) -> int:
        return len(self.known)

    def gaps(self) -> list[tuple[int, int]]:
        numbers = [n for n, _, _ in self.known]
        out: list[tuple[int, int]] = []
        for lo, hi in self.intervals:
            inside = [n for n in numbers if lo <= n <= hi]
            previous = lo - 1
            for n in inside:
                if n > previous + 1:
                    out.append((previous + 1, n - 1))
                previous = n
            if hi > previous:
                out.append((previous + 1, hi))
        return out

    def covered(self) -> list[tuple[int, int]]:
        return rp.spans(n for n, _, _ in self.known)


def phantom(buf: rp.SparseBuffer) -> bool:
    """Whether the buffer knows its file ends with a newline (its last separator line is
    known and empty)."""
    return buf.total is not None and buf.cells.get(buf.total, (None,))[0] == ""


def visible_total(buf: rp.SparseBuffer) -> int | None:
    if buf.total is None:
        return None
    return buf.total - 1 if phantom(buf) else buf.total


def view(buf: rp.SparseBuffer, file_lines: RangeSpec | None = None) -> View:
    total = visible_total(buf)
    extent = total if total is not None else max(buf.cells, default=0)
    if phantom(buf) and buf.total is not None:
        extent = min(extent, buf.total - 1)
    intervals = ([(1, extent)] if extent else []) if file_lines is None else \
        file_lines.intervals(1, extent)
    known = [(n, text, at) for n, (text, at) in sorted(buf.cells.items())
             if any(lo <= n <= hi for lo, hi in intervals)]
    return View(known, total, intervals)


def restored_bytes(buf: rp.SparseBuffer, file_lines: RangeSpec | None = None) -> str:
    """The file (or its ``--file-lines``) as text; only for a complete view."""
    if file_lines is None:
        return buf.content()
    total = buf.total or 0
    out = []
    for lo, hi in view(buf, file_lines).intervals:
        for n in range(lo, hi + 1):
            out.append(buf.cells[n][0] + ("\n" if n < total else ""))
    return "".join(out)


def fmt_ranges(spans: Sequence[tuple[int, int]]) -> str:
    """``[1..40] [52..60]``, or ``(none)``."""
    return " ".join(f"[{a}..{b}]" for a, b in spans) or "(none)"


def fmt_counts(c: rp.Counts) -> str:
    parts = []
    reads = c.read_full + c.read_windowed
    if reads:
        parts.append(f"{reads} read ({c.read_full} full, {c.read_windowed} windowed)")
    if c.edit:
        holes = f" ({c.edit_unanchorable} un-anchorable)" if c.edit_unanchorable else ""
        parts.append(f"{c.edit} edit{holes}")
    for count, label in ((c.write, "write"), (c.bash, "bash (heuristic)"),
                         (c.bash_read_anchor, "bash-read-anchor"),
                         (c.bash_write_anchor, "bash-write-anchor"),
                         (c.external_edit, "external-edit"),
                         (c.history_snapshot, "history-snapshot"),
                         (c.integrity_error, "integrity-error"),
                         (c.stale_hint, "modified-file-hint"),
                         (c.stale_recovered, "stale-recovered")):
        if count:
            parts.append(f"{count} {label}")
    return " · ".join(parts) or "0"


# -- boundaries ------------------------------------------------------------------------------


#: boundaries that see a change without naming what made it
_CHANGE_SEEN = frozenset({rp.EXTERNAL_EDIT, rp.READ_DISAGREEMENT, rp.ORIGINAL_FILE_DISAGREEMENT,
                          rp.EXTERNAL_WRITE})


def boundary_detail(b: rp.Boundary, group: GroupHistory) -> str:
    """The detail, with the formatter-class clue on a change seen without its cause: a
    formatter or interpreter command (a hook's too) that ran before it in the same
    transcript may be what changed the file."""
    if b.cause not in _CHANGE_SEEN:
        return b.detail
    clue = max((o for o in group.opaque if o.session_id == b.source_session
                and o.line <= b.source_line
                and (o.marker.startswith("fmt:") or o.marker.startswith("interp:"))),
               key=lambda o: o.line, default=None)
    if clue is None:
        return b.detail
    return (f"{b.detail}; this can be an external edit, the project's formatter or a hook: a "
            f"formatter-class command ({clue.marker}) ran at L{clue.line} in this window")


def boundary_json(b: rp.Boundary, group: GroupHistory, tz: Any) -> dict[str, Any]:
    return {
        "line": b.line,
        "source_session_id": b.source_session or group.session_id,
        "source_line": b.source_line or b.line,
        "turn_index": b.turn,
        **ts_pair("ts", b.ts, tz),
        "cause": b.cause,
        "confidence": b.confidence,
        "detail": boundary_detail(b, group),
    }


def location(line: int, source: str, group: GroupHistory) -> str:
    """``L<n>``, naming the transcript when it is not the row's own (a merged group)."""
    return f"L{line}" if source in ("", group.session_id) else f"L{line} in {source}"


def boundary_text(b: rp.Boundary, group: GroupHistory, tz: Any, indent: str = "    ", *,
                  cause: bool = False) -> str:
    glyph = "⚠" if b.confidence == rp.AUTHORITATIVE else "~"
    where = location(b.source_line or b.line, b.source_session, group)
    named = f"{b.cause}: " if cause else ""
    return (f"{indent}{glyph} {where}  turn {b.turn}  {text_ts(b.ts, tz)}  "
            f"{named}{boundary_detail(b, group)} ({b.confidence.upper()})")


def opaque_text(o: Opaque, group: GroupHistory, tz: Any) -> str:
    return (f"    · {location(o.line, o.session_id, group)}  turn {o.turn}  "
            f"{text_ts(o.ts, tz)}  {o.marker}")


def disclosure_lines(d: Disclosure, group: GroupHistory, tz: Any, *, search: bool) -> list[str]:
    """The window accounting: opaque command counts and rows (capped with an explicit
    remainder), then the search that inspects the window."""
    out = []
    note = d.note()
    if note is not None:
        out.append(f"  opaque in window: {note}")
        out.extend(opaque_text(o, group, tz) for o in d.opaque[:OPAQUE_ROWS_SHOWN])
        if len(d.opaque) > OPAQUE_ROWS_SHOWN:
            # their lines, each marker named: the search below names the file, and a
            # formatter or `git merge` need not (those rows were reachable from nowhere)
            rest = ", ".join(f"{location(o.line, o.session_id, group)} {o.marker}"
                             for o in d.opaque[OPAQUE_ROWS_SHOWN:])
            out.append(f"    (+{len(d.opaque) - OPAQUE_ROWS_SHOWN} more: {rest})")
    if d.suggested and (note is not None or search):
        out.append(f"  inspect the window: {d.suggested}")
    return out


# -- bodies ------------------------------------------------------------------------------------


def _rows(v: View) -> Iterator[tuple[int, int, str | None]]:
    """The view in file order: ``(n, n, text)`` for a known line, ``(a, b, None)`` for
    the gap ``a..b``."""
    known = {n: text for n, text, _ in v.known}
    gaps = dict(v.gaps())
    for lo, hi in v.intervals:
        n = lo
        while n <= hi:
            if n in gaps:
                yield n, gaps[n], None
                n = gaps[n] + 1
            else:
                yield n, n, known[n]
                n += 1


def _gap(a: int, b: int) -> str:
    return f"??? lines {a}..{b} unknown"


def snapshot_body(v: View, *, clip_lines: bool) -> list[str]:
    """Numbered known lines with explicit ``??? lines A..B unknown`` gaps (and, when the
    file's length was never seen, the lines after the last known one)."""
    if not v.known:
        if v.intervals:
            return [f"{_gap(a, b)} (no content seen in range)" for a, b in v.intervals]
        if v.total:  # a --file-lines range past the end
            return [f"(the lines asked for lie beyond the file's {v.total} line(s))"]
        return ["(no content seen for this file in range)"]
    out = []
    for a, b, text in _rows(v):
        if text is None:
            out.append(_gap(a, b))
        else:
            out.append(f"{a:>5}  {clip(text, EXCERPT_CHARS)[0] if clip_lines else text}")
    if v.total is None and v.known[-1][0] == v.intervals[-1][1]:
        # the view reaches the last known line: what follows it is unknown too
        out.append(f"??? lines {v.known[-1][0] + 1}..? unknown (the file's length was never "
                   f"seen)")
    return out


def diff_lines(buf: rp.SparseBuffer, file_lines: RangeSpec | None) -> list[str]:
    """A buffer as diff input: its known lines, a marker line for each gap."""
    return [_gap(a, b) if text is None else text for a, b, text in _rows(view(buf, file_lines))]


def unified_diff(old: list[str], new: list[str]) -> str:
    """A full-context unified diff (every line of both sides), hunks only; empty when the
    two are equal."""
    if old == new:
        return ""
    rows = list(difflib.unified_diff(old, new, lineterm="", n=max(len(old), len(new))))
    return "".join(row + "\n" for row in rows[2:])
