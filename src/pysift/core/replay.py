"""The recover replay (SPEC §6.7): a file's events, in transcript order, into what the
session saw of it.

The model is the file "in the LLM's eyes": a SPARSE map from file line number to the
line's text. A line absent from the map is an explicit gap, unknown, and nothing here ever
invents one. Lines are numbered the way Claude Code's Read numbers them, by separator:
``content.split("\\n")``, so a file ending with a newline has a last, empty line
(``"a\\nb\\n"`` is ``["a", "b", ""]``, three lines, and ``"\\n".join`` gives the bytes
back). Read's ``totalLines`` counts the same way, and its ``file.content`` (and the
``cat -n`` text the model sees) holds that empty last line, so every source of content
agrees on the numbering and a restore is byte-exact, final newline or not.

Events:

- ``Snapshot``: the whole file (a full Read, a Write, a full ``file`` attachment, a
  deterministic Bash write or read). Resets the map.
- ``Window``: lines ``start..`` of a windowed Read; spliced, never padded.
- ``Edit``: an Edit/MultiEdit that did NOT error, applied by ``structuredPatch`` position
  (its hunks are Claude Code's own diff against the disk), else by string replacement.
  ``originalFile`` (the disk content the harness edited) is compared with the map first.
- ``Integrity``: a harness error on an Edit/Write of the file.
- ``Unreadable``: a Write/Edit/MultiEdit/NotebookEdit call that did not error, recorded in
  a shape the replay cannot read (edits that are not a list of string pairs, a content
  that is not a string, a notebook cell edit): an un-anchorable hole over the whole file.
- ``Unanswered``: a Write/Edit call whose result the transcript lost; replayed from its
  input only when the file-history versions around it show it landed (``landing``).
- ``ExternalEdit``, ``StaleHint``, ``BashMutation``, ``BashAppend``, ``HistoryMarker``:
  the other signals of §6.7's table.

Anti-fabrication guards: an edit whose old region is not wholly known, whose patch
context disagrees with the map, or (string fallback) whose old text cannot be located in
what is known, is an UN-ANCHORABLE hole: counted, and the lines it may have touched
become gaps (never a guessed line).

Integrity boundaries, in confidence order: ``modified_since_read`` (a harness error),
``hint_modified`` (Claude Code's ``staleReadFileStateHint``), ``original_file_disagreement``,
``external_edit`` (``edited_text_file``), ``external_write`` (a file-history version jump
no tool write explains), ``read_disagreement`` (a Read showing lines or a length the
replay did not have), ``unconfirmed_write`` (a Write/Edit call with no result that
file-history does not show landing or not), ``stale_recovered`` and ``result_missing``
(annotations), then the heuristic ``bash_mutation`` and ``bash_append_unplaced``. HARD (invalidating) kinds clear the map: every line known before
them is suspect, so only content re-read or re-written after survives into the final
state. ``fragments = hard + 1``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import field, replace

from pysift.model.fastdata import dataclass

# -- vocabulary --------------------------------------------------------------------------

SOURCE_WRITE = "write"
SOURCE_FULL_READ = "full-read"
SOURCE_FILE_ATTACHMENT = "file-attachment"
SOURCE_BASH_CAT = "bash-cat"
SOURCE_BASH_HEREDOC = "bash-heredoc"
SOURCE_BASH_WRITE = "bash-write"
#: anchors that CHANGE the file (a segment they open shows them as a diff)
WRITE_SOURCES = frozenset({SOURCE_WRITE, SOURCE_BASH_HEREDOC, SOURCE_BASH_WRITE})
BASH_SOURCES = frozenset({SOURCE_BASH_CAT, SOURCE_BASH_HEREDOC, SOURCE_BASH_WRITE})

MODIFIED_SINCE_READ = "modified_since_read"
HINT_MODIFIED = "hint_modified"
ORIGINAL_FILE_DISAGREEMENT = "original_file_disagreement"
EXTERNAL_EDIT = "external_edit"
EXTERNAL_WRITE = "external_write"
STALE_RECOVERED = "stale_recovered"
BASH_MUTATION = "bash_mutation"
BASH_APPEND_UNPLACED = "bash_append_unplaced"
READ_DISAGREEMENT = "read_disagreement"
#: a Write/Edit call with no result in the transcript: file-history shows whether it landed
#: (an annotation: replayed from its input, or not replayed) ...
RESULT_MISSING = "result_missing"
#: ... or nothing does (only the lines it would leave as they were stay known)
UNCONFIRMED_WRITE = "unconfirmed_write"
#: the invalidating kinds: what was known before them is dropped, and each adds a fragment
HARD_CAUSES = frozenset({MODIFIED_SINCE_READ, EXTERNAL_EDIT, HINT_MODIFIED, EXTERNAL_WRITE,
                         READ_DISAGREEMENT, UNCONFIRMED_WRITE})
HEURISTIC_CAUSES = frozenset({BASH_MUTATION, BASH_APPEND_UNPLACED})
AUTHORITATIVE = "authoritative"
HEURISTIC = "heuristic"

NOT_READ_YET = "not_read_yet"
STRING_NOT_FOUND = "string_not_found"
FILE_NOT_EXIST = "file_does_not_exist"


# -- events --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Snapshot:
    lines: tuple[str, ...]
    source: str


@dataclass(frozen=True, slots=True)
class Window:
    start: int
    lines: tuple[str, ...]
    total: int | None  # the file's line count as the reader saw it; None when unknown
    source: str = SOURCE_FULL_READ  # the read family it came from (counting only)
    #: a shell output whose opening blank lines Claude Code may have stripped: ``start``
    #: holds only when the replay already knows that line as the first one shown
    floating: bool = False


@dataclass(frozen=True, slots=True)
class Hunk:
    """One ``structuredPatch`` hunk: ``old_start``/``old_lines`` and its ``lines`` with
    their `` ``/``-``/``+``/``\\`` prefixes, as Claude Code records them."""

    old_start: int
    old_lines: int
    new_lines: int
    lines: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Replacement:
    old: str
    new: str
    replace_all: bool = False
    #: another new text Claude Code may have written instead (an input it normalises in
    #: some versions): the lines where the two results differ are unknown
    alt: str | None = None


@dataclass(frozen=True, slots=True)
class Edit:
    hunks: tuple[Hunk, ...]  # empty: no structured patch, use ``replacements``
    replacements: tuple[Replacement, ...]
    original: str | None = None  # originalFile: the disk content the edit was applied to
    stale_recovered: bool = False


@dataclass(frozen=True, slots=True)
class Integrity:
    kind: str  # MODIFIED_SINCE_READ | NOT_READ_YET | STRING_NOT_FOUND | FILE_NOT_EXIST
    text: str


@dataclass(frozen=True, slots=True)
class ExternalEdit:
    snippet: tuple[tuple[int, str], ...]  # (file line, text); empty = the degraded form


@dataclass(frozen=True, slots=True)
class StaleHint:
    path: str


@dataclass(frozen=True, slots=True)
class BashMutation:
    verb: str
    path: str
    resolution: str


@dataclass(frozen=True, slots=True)
class BashAppend:
    text: str


@dataclass(frozen=True, slots=True)
class HistoryMarker:
    version: int | None
    content: str | None = None  # a verified backup's bytes, when the store had them
    present: bool = True  # False: the backup names no file (the file did not exist then)
    #: an ``isSnapshotUpdate`` record: a backup taken before a tool edit (it may be written
    #: after the call it precedes), not the per-prompt snapshot taken once a turn ended
    update: bool = False


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A Write/Edit/MultiEdit/NotebookEdit call that did not error, so it may have changed
    the file, recorded in a shape the replay cannot read (an ``edits`` that is no list of
    objects with string old and new texts, a Write ``content`` that is no string, a
    notebook cell edit). Which lines it touched is unknown, so all of them are: an
    un-anchorable hole, never a silently dropped change."""

    tool: str
    reason: str


@dataclass(frozen=True, slots=True)
class Unanswered:
    """A Write/Edit/MultiEdit call whose result the transcript does not hold (lost at a
    compaction, or the session stopped with it): ``op`` is what it does, read from its
    input. Whether it landed is read off the file-history versions around it
    (``landing``); it is replayed only when they show it did."""

    tool: str
    op: Snapshot | Edit | Unreadable


Op = (Snapshot | Window | Edit | Unreadable | Integrity | ExternalEdit | StaleHint
      | BashMutation | BashAppend | HistoryMarker | Unanswered)


@dataclass(frozen=True, slots=True)
class Event:
    """One event of one file's history. ``line`` is the replay coordinate (the jsonl line,
    or the position in a merged stream); ``source_session``/``source_line`` name the real
    transcript line it was read from. An event read off a tool call's result happens when
    the call was made: ``ts`` and ``turn`` are the call's, and ``call_line`` is the call's
    real jsonl line (a source coordinate, like ``source_line``: the event's own line when
    it answers no call; 0: not known)."""

    line: int
    turn: int
    ts: str | None
    op: Op
    source_session: str = ""
    source_line: int = 0
    call_line: int = 0


def split_content(content: str) -> tuple[str, ...]:
    """Lines by separator: ``"a\\nb\\n"`` -> ``("a", "b", "")``; ``""`` -> ``("",)``."""
    return tuple(content.split("\n"))


# -- the sparse buffer ---------------------------------------------------------------------


@dataclass(slots=True)
class SparseBuffer:
    """Known file lines (``cells[n] = (text, line that set it)``) and the file's line count
    when some source said it (``total``)."""

    cells: dict[int, tuple[str, int]] = field(default_factory=dict)
    total: int | None = None

    def copy(self) -> SparseBuffer:
        return SparseBuffer(dict(self.cells), self.total)

    def reset(self, lines: Sequence[str], at: int) -> None:
        self.cells = {n: (text, at) for n, text in enumerate(lines, 1)}
        self.total = len(lines)

    def clear(self) -> None:
        self.cells = {}
        self.total = None

    @property
    def is_empty(self) -> bool:
        return not self.cells

    def known(self) -> list[tuple[int, str]]:
        return [(n, self.cells[n][0]) for n in sorted(self.cells)]

    def extent(self) -> int:
        """The line count the reconstruction answers for: ``total`` when known, else the
        highest known line."""
        if self.total is not None:
            return self.total
        return max(self.cells, default=0)

    @property
    def complete(self) -> bool:
        return self.total is not None and self.total > 0 and all(
            n in self.cells for n in range(1, self.total + 1))

    def content(self) -> str:
        """The file's bytes (decoded); only meaningful when ``complete``."""
        return "\n".join(self.cells[n][0] for n in range(1, self.extent() + 1))

    def runs(self) -> list[tuple[int, int]]:
        """Maximal runs of known lines, as inclusive ``(first, last)``."""
        return spans(sorted(self.cells))

    def shift_from(self, first: int, delta: int) -> None:
        """Move every known line at or after ``first`` by ``delta``."""
        if not delta:
            return
        moved = {(n + delta if n >= first else n): cell for n, cell in self.cells.items()}
        self.cells = moved


def spans(numbers: Iterable[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for n in numbers:
        if out and out[-1][1] + 1 == n:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


def gaps(known: Sequence[int], extent: int) -> list[tuple[int, int]]:
    """The unknown ranges of ``1..extent`` given the sorted known line numbers."""
    out: list[tuple[int, int]] = []
    previous = 0
    for n in known:
        if n > previous + 1:
            out.append((previous + 1, n - 1))
        previous = n
    if extent > previous:
        out.append((previous + 1, extent))
    return out


# -- applying edits ------------------------------------------------------------------------

_NO_NEWLINE = "\\"


def _hunk_rows(hunk: Hunk) -> list[tuple[str, str]]:
    """The hunk as ``(op, text)`` rows (``=`` context, ``-`` removed, ``+`` added) in the
    separator model: a side WITH a final newline is followed by an empty last line the
    hunk never lists, so a change of that state removes or adds that line."""
    rows: list[tuple[str, str]] = []
    old_noeol = new_noeol = False
    previous = ""
    for raw in hunk.lines:
        tag, text = raw[:1], raw[1:]
        if tag == _NO_NEWLINE:
            old_noeol = old_noeol or previous in (" ", "-")
            new_noeol = new_noeol or previous in (" ", "+")
            continue
        if tag in (" ", "-", "+"):
            rows.append(("=" if tag == " " else tag, text))
            previous = tag
    if old_noeol != new_noeol:
        rows.append(("-", "") if new_noeol else ("+", ""))
    return rows


class _Unanchorable(Exception):
    """An edit the buffer cannot place. ``scope`` says what survives it: ``gap`` (the
    hunk positions are Claude Code's: only the edited region becomes unknown), ``locate``
    (the change happened somewhere in the unknown lines: see ``_straddle_cut``) or
    ``clear`` (the map contradicts the disk: nothing known survives)."""

    def __init__(self, reason: str, scope: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.scope = scope


GAP, LOCATE, CLEAR = "gap", "locate", "clear"


def _apply_hunks(buf: SparseBuffer, hunks: Sequence[Hunk], at: int) -> int:
    """Apply structured-patch hunks in order; returns the net line delta.

    A hunk is anchored when every line it removes is known and at least one of its old
    lines is known (the alignment is then seen, not assumed); a known old line that
    differs from the hunk's is a disagreement (``clear``). An unanchored hunk is a hole:
    its removed and added lines become unknown, its known context lines move to their new
    places, and, since the positions are Claude Code's own, every line after it shifts
    exactly (``gap``, raised once all hunks are placed)."""
    delta = 0
    failure: str | None = None
    for hunk in hunks:
        rows = _hunk_rows(hunk)
        start = max(1, hunk.old_start + delta)
        cells = buf.cells
        old_pos = start
        seen_old = False
        removed_known = True
        for op, text in rows:
            if op == "+":
                continue
            cell = cells.get(old_pos)
            if cell is not None:
                if cell[0] != text:
                    raise _Unanchorable("patch context disagrees with the replayed lines", CLEAR)
                seen_old = True
            elif op == "-":
                removed_known = False
            old_pos += 1
        old_len = old_pos - start
        if not any(op != "+" for op, _ in rows):  # a pure insertion: look at its neighbours
            seen_old = (start - 1) in cells or start in cells or (
                start == 1 and buf.total in (None, 0))
        # a hunk reaching past the length the map holds: the file was longer on disk than
        # the replay knows, so its end (and its length) are unknown from here on
        ending = buf.total
        beyond = ending is not None and start + max(old_len, 1) - 1 > ending
        anchored = removed_known and seen_old and not beyond
        if not anchored and failure is None:
            failure = ("hunk past the known end of the file" if beyond else
                       "neighbourhood not known" if old_len == 0 else "old region not known")
        if beyond and ending is not None:
            for n in [n for n in cells if n >= ending]:  # the old last line is not the last
                del cells[n]
            buf.total = None
        placed: dict[int, tuple[str, int]] = {}
        old_pos, new_pos = start, start
        for op, text in rows:
            if op == "=":
                if old_pos in cells:
                    placed[new_pos] = cells[old_pos]
                old_pos += 1
                new_pos += 1
            elif op == "-":
                old_pos += 1
            else:
                if anchored:
                    placed[new_pos] = (text, at)
                new_pos += 1
        step = (new_pos - start) - old_len
        for n in range(start, start + old_len):
            cells.pop(n, None)
        buf.shift_from(start + old_len, step)
        buf.cells.update(placed)
        if buf.total is not None:
            buf.total += step
        delta += step
    if failure is not None:
        raise _Unanchorable(failure, GAP)
    return delta


def _occurrences(text: str, needle: str) -> list[int]:
    out = []
    pos = text.find(needle)
    while pos >= 0:
        out.append(pos)
        pos = text.find(needle, pos + len(needle))
    return out


def _apply_replacements(buf: SparseBuffer, replacements: Sequence[Replacement], at: int) -> None:
    """String-replace fallback (no structured patch). On a complete buffer, Claude Code's
    own rule (the old text occurs exactly once, or every occurrence with replace_all). On
    a partial one, the old text must occur exactly once inside ONE known run (a unique
    text on disk that the known lines hold is that occurrence); anything else cannot be
    placed."""
    for rep in replacements:
        if not rep.old:
            # Claude Code takes an empty old text only to create a file (or fill an empty
            # one): the file is now exactly the new text
            buf.reset(split_content(rep.new), at)
            continue
        if buf.complete:
            text = buf.content()
            found = _occurrences(text, rep.old)
            if not found or (len(found) > 1 and not rep.replace_all):
                raise _Unanchorable("old text not found once in the replayed file", CLEAR)
            text = text.replace(rep.old, rep.new) if rep.replace_all else \
                text.replace(rep.old, rep.new, 1)
            buf.reset(split_content(text), at)
            continue
        if rep.replace_all:
            raise _Unanchorable("replace_all over a partly known file", LOCATE)
        hits: list[tuple[int, int, int]] = []  # (run first, run last, offset)
        for first, last in buf.runs():
            run_text = "\n".join(buf.cells[n][0] for n in range(first, last + 1))
            hits.extend((first, last, pos) for pos in _occurrences(run_text, rep.old))
        if len(hits) > 1:  # unique on disk, twice in what we hold: the map is wrong
            raise _Unanchorable("old text found more than once in the known lines", CLEAR)
        if not hits:
            raise _Unanchorable("old text not located in the known lines", LOCATE)
        first, last, pos = hits[0]
        run_text = "\n".join(buf.cells[n][0] for n in range(first, last + 1))
        if first > 1 and _overlaps_from_before(run_text, rep.old, pos):
            # Claude Code counts occurrences left to right without overlap: one that begins
            # in the unknown lines before this run and overlaps the one seen here would be
            # the one it replaced (the one seen is then not counted)
            raise _Unanchorable("old text may begin in the unknown lines before the known run",
                                LOCATE)
        new_text = run_text[:pos] + rep.new + run_text[pos + len(rep.old):]
        new_lines = new_text.split("\n")
        step = len(new_lines) - (last - first + 1)
        for n in range(first, last + 1):
            del buf.cells[n]
        buf.shift_from(last + 1, step)
        for offset, line in enumerate(new_lines):
            buf.cells[first + offset] = (line, at)
        if buf.total is not None:
            buf.total += step


def _keep_agreeing(trial: SparseBuffer, before: SparseBuffer,
                   replacements: Sequence[Replacement], at: int) -> None:
    """Apply the other spelling of the new texts to ``before`` and keep in ``trial`` only
    the lines both results agree on (the spellings differ within lines, never in their
    count); an edit that places one way and not the other cannot be placed."""
    other = before.copy()
    _apply_replacements(other, [Replacement(r.old, r.new if r.alt is None else r.alt,
                                            r.replace_all) for r in replacements], at)
    if other.total != trial.total:
        raise _Unanchorable("the two spellings of the new text disagree on the length", LOCATE)
    trial.cells = {n: cell for n, cell in trial.cells.items()
                   if other.cells.get(n, (None,))[0] == cell[0]}


def _overlaps_from_before(run_text: str, old: str, pos: int) -> bool:
    """Whether an occurrence of ``old`` beginning before a known run (whose first line
    follows unknown ones) can reach past ``pos``, where the run holds one: the part of
    ``old`` after one of its newlines would then open the run (or the run would be all
    of it) and run on beyond ``pos``."""
    at = old.find("\n")
    while at >= 0:
        tail = old[at + 1:]
        common = min(len(tail), len(run_text))
        if len(tail) > pos and tail[:common] == run_text[:common]:
            return True
        at = old.find("\n", at + 1)
    return False


def _straddle_cut(buf: SparseBuffer, olds: Sequence[str]) -> None:
    """After an edit that could not be located in the known lines: it happened in the
    unknown ones (or across their edge), so only the run from line 1 keeps its place, and
    only up to the first point where one of the old texts could begin (an occurrence, or
    a tail of the run that is a prefix of it and runs on into the unknown lines, at the
    latest the run's end, which the old text can join to the next line). Every other
    known line may have moved."""
    runs = buf.runs()
    if not runs or runs[0][0] != 1:
        buf.cells = {}
        return
    first, last = runs[0]
    lines = [buf.cells[n][0] for n in range(first, last + 1)]
    text = "\n".join(lines)
    cut = len(text)  # the old text may begin right at the run's end (its last line's end)
    for old in olds:
        at = text.find(old) if old else -1
        if at >= 0:
            cut = min(cut, at)
        for size in range(min(len(old) - 1, len(text)), 0, -1):
            if text.endswith(old[:size]):
                cut = min(cut, len(text) - size)
                break
    kept = text[:cut].count("\n")
    buf.cells = {n: buf.cells[n] for n in range(1, kept + 1)}


# -- boundaries, segments, the replay -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Boundary:
    line: int
    turn: int
    ts: str | None
    cause: str
    detail: str
    source_session: str = ""
    source_line: int = 0
    #: the segments opened before it (``--patches`` shows it after segment ``after_segment``
    #: and before the next: a boundary that splits the stream comes before the segment it
    #: opens, an annotation of an edit after the segment holding that edit)
    after_segment: int = 0

    @property
    def confidence(self) -> str:
        return HEURISTIC if self.cause in HEURISTIC_CAUSES else AUTHORITATIVE

    @property
    def hard(self) -> bool:
        return self.cause in HARD_CAUSES


@dataclass
class Counts:
    read_full: int = 0
    read_windowed: int = 0
    edit: int = 0
    edit_unanchorable: int = 0
    write: int = 0
    bash: int = 0
    bash_read_anchor: int = 0
    bash_write_anchor: int = 0
    external_edit: int = 0
    history_snapshot: int = 0
    integrity_error: int = 0
    stale_hint: int = 0
    stale_recovered: int = 0

    def as_json(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass
class Segment:
    index: int
    first: Event
    last: Event
    start: SparseBuffer
    end: SparseBuffer
    pre_state_known: bool
    anchor_source: str | None


@dataclass
class Hole:
    """An un-anchorable edit."""

    event: Event
    reason: str


@dataclass
class Replay:
    buffer: SparseBuffer
    boundaries: list[Boundary]
    segments: list[Segment]
    counts: Counts
    holes: list[Hole]
    events: int  # how many events were replayed (after the cutoff)

    @property
    def hard(self) -> int:
        return sum(1 for b in self.boundaries if b.hard)

    @property
    def soft(self) -> int:
        return len(self.boundaries) - self.hard

    @property
    def fragments(self) -> int:
        return self.hard + 1


def _disagrees(buf: SparseBuffer, original: Sequence[str]) -> bool:
    if buf.is_empty:
        return False
    if buf.total is not None and buf.total != len(original):
        return True
    size = len(original)
    return any(n > size or original[n - 1] != text for n, (text, _) in buf.cells.items())


class _Replayer:
    def __init__(self) -> None:
        self.buf = SparseBuffer()
        self.boundaries: list[Boundary] = []
        self.segments: list[Segment] = []
        self.counts = Counts()
        self.holes: list[Hole] = []
        self.seg_first: Event | None = None
        self.seg_last: Event | None = None
        self.seg_start = SparseBuffer()
        self.seg_changed = False  # an edit or write happened in the open segment
        self.pre_known = True
        self.anchor: str | None = None
        self.last_version: int | None = None
        self.last_present = True
        self.wrote_since_marker = False

    # segments -------------------------------------------------------------------------
    def _touch(self, event: Event, *, start: SparseBuffer | None = None,
               change: bool = False) -> None:
        if self.seg_first is None:
            self.seg_first = event
            self.seg_start = start if start is not None else self.buf.copy()
            self.seg_changed = False
        self.seg_last = event
        self.seg_changed = self.seg_changed or change

    def _observed(self) -> None:
        """A read before any change in the segment tells what the file was at its start:
        the segment's pre-state learns it (the read is not shown as an addition)."""
        if self.seg_first is not None and not self.seg_changed:
            self.seg_start = self.buf.copy()

    def _close(self) -> None:
        if self.seg_first is not None and self.seg_last is not None:
            self.segments.append(Segment(len(self.segments) + 1, self.seg_first, self.seg_last,
                                         self.seg_start, self.buf.copy(), self.pre_known,
                                         self.anchor))
        self.seg_first = self.seg_last = None

    def _boundary(self, event: Event, cause: str, detail: str, *, invalidate: bool,
                  split: bool = True) -> None:
        if split:
            self._close()
            self.pre_known = False
            self.anchor = None
        opened = len(self.segments) + (self.seg_first is not None)
        self.boundaries.append(Boundary(event.line, event.turn, event.ts, cause, detail,
                                        event.source_session, event.source_line, opened))
        if invalidate:
            self.buf.clear()

    # events ---------------------------------------------------------------------------
    def apply(self, event: Event) -> None:
        op = event.op
        handler = getattr(self, "_" + type(op).__name__.lower())
        handler(event, op)

    def _snapshot(self, event: Event, op: Snapshot) -> None:
        if op.source in WRITE_SOURCES:
            self.wrote_since_marker = True
            if op.source == SOURCE_WRITE:
                self.counts.write += 1
            else:
                self.counts.bash_write_anchor += 1
        elif op.source == SOURCE_BASH_CAT:
            self.counts.bash_read_anchor += 1
        else:
            self.counts.read_full += 1
        writes = op.source in WRITE_SOURCES
        if not writes and _disagrees(self.buf, op.lines):
            self._boundary(event, READ_DISAGREEMENT,
                           "a full read shows the file differing from the replay (it changed "
                           "outside the tool stream); the replay continues from the read",
                           invalidate=True)
        before = self.buf.copy()
        opened = self.seg_first is None
        self.buf.reset(op.lines, event.line)
        if opened:
            self.pre_known = True
            self.anchor = op.source
            self._touch(event, start=before if writes else self.buf.copy(), change=writes)
        else:
            self._touch(event, change=writes)
            if not writes:
                self._observed()

    def _window(self, event: Event, op: Window) -> None:
        if op.floating and not (op.lines and op.start in self.buf.cells
                                and self.buf.cells[op.start][0] == op.lines[0]):
            return  # where the shown lines begin is not proven: nothing placed
        if op.source == SOURCE_BASH_CAT:
            self.counts.bash_read_anchor += 1
        else:
            self.counts.read_windowed += 1
        buf = self.buf
        end = op.start + len(op.lines) - 1
        stale = op.total is not None and buf.total is not None and op.total != buf.total
        stale = stale or any(buf.cells[n][0] != text for n, text in
                             enumerate(op.lines, op.start) if n in buf.cells)
        if stale:
            # the file is not what the map says any more: lines outside this window may
            # have moved, so only the window itself is known now
            self._boundary(event, READ_DISAGREEMENT,
                           "a read shows the file differing from the replay (it changed "
                           "outside the tool stream); only what is read again counts",
                           invalidate=True)
            buf = self.buf
        self._touch(event)
        for n, text in enumerate(op.lines, op.start):
            buf.cells[n] = (text, event.line)
        if op.total is not None:
            buf.total = op.total
        elif buf.total is not None and end > buf.total:
            buf.total = None
        self._observed()

    def _edit(self, event: Event, op: Edit) -> None:
        self.counts.edit += 1
        self.wrote_since_marker = True
        if op.original is not None:
            original = split_content(op.original)
            if _disagrees(self.buf, original):
                self._boundary(event, ORIGINAL_FILE_DISAGREEMENT,
                               "the edit's originalFile disagrees with the replayed file "
                               "(it changed outside the tool stream); the replay continues "
                               "from the harness's own copy of the file", invalidate=False)
                self.buf.reset(original, event.line)
                self.pre_known = True
                self._touch(event)
        self._touch(event, change=True)
        trial = self.buf.copy()
        try:
            if op.hunks:
                _apply_hunks(trial, op.hunks, event.line)
            else:
                _apply_replacements(trial, op.replacements, event.line)
                if any(r.alt is not None for r in op.replacements):
                    _keep_agreeing(trial, self.buf, op.replacements, event.line)
        except _Unanchorable as hole:
            self.counts.edit_unanchorable += 1
            self.holes.append(Hole(event, hole.reason))
            if hole.scope == GAP:
                self.buf = trial  # positions are Claude Code's: the region is a gap now
            elif hole.scope == CLEAR:
                self.buf.clear()  # the map is out of step with the disk somewhere
            else:
                _straddle_cut(self.buf, [r.old for r in op.replacements])
                step = sum(r.new.count("\n") - r.old.count("\n") for r in op.replacements)
                if self.buf.total is not None and not any(r.replace_all for r in op.replacements):
                    self.buf.total += step
                else:
                    self.buf.total = None
        else:
            self.buf = trial
        if op.stale_recovered:
            self.counts.stale_recovered += 1
            self._boundary(event, STALE_RECOVERED,
                           "the edit applied, but the file had changed on disk since the "
                           "last read (changes outside this stream exist)",
                           invalidate=False, split=False)

    def _unreadable(self, event: Event, op: Unreadable) -> None:
        """A change the replay cannot read: every line and the length become unknown (a
        hole: counted, listed), and the segment shows the change."""
        if op.tool == "Write":
            self.counts.write += 1
        else:
            self.counts.edit += 1
        self.counts.edit_unanchorable += 1
        self.wrote_since_marker = True
        self.holes.append(Hole(event, f"{op.tool}: {op.reason}"))
        self._touch(event, change=True)
        self.buf.clear()

    def _integrity(self, event: Event, op: Integrity) -> None:
        self.counts.integrity_error += 1
        if op.kind == MODIFIED_SINCE_READ:
            self._boundary(event, MODIFIED_SINCE_READ, op.text or "File has been modified "
                           "since read", invalidate=True)

    def _externaledit(self, event: Event, op: ExternalEdit) -> None:
        self.counts.external_edit += 1
        self.wrote_since_marker = True
        if op.snippet:
            detail = "edited_text_file attachment (the file changed outside the tool stream)"
        else:
            detail = ("edited_text_file attachment (the file changed outside the tool stream; "
                      "no snippet: the change exceeded the attachment budget)")
        self._boundary(event, EXTERNAL_EDIT, detail, invalidate=True)
        for n, text in op.snippet:
            self.buf.cells[n] = (text, event.line)
        if op.snippet:
            self._touch(event)

    def _stalehint(self, event: Event, op: StaleHint) -> None:
        self.counts.stale_hint += 1
        self.wrote_since_marker = True
        self._boundary(event, HINT_MODIFIED,
                       f"Claude Code reported {op.path} modified by this shell command "
                       f"(staleReadFileStateHint)", invalidate=True)

    def _bashmutation(self, event: Event, op: BashMutation) -> None:
        self.counts.bash += 1
        self.wrote_since_marker = True
        self._boundary(event, BASH_MUTATION,
                       f"bash `{op.verb}` on {op.path} [{op.resolution}] (the replay across "
                       f"this point may not match the disk)", invalidate=False)

    def _bashappend(self, event: Event, op: BashAppend) -> None:
        self.wrote_since_marker = True
        buf = self.buf
        empty = buf.complete and buf.total == 1 and buf.cells[1][0] == ""
        terminated = buf.complete and buf.cells[buf.total or 0][0] == ""
        if not (empty or terminated):
            self.counts.bash += 1
            state = "not newline-terminated" if buf.complete else "not complete"
            self._boundary(event, BASH_APPEND_UNPLACED,
                           f"bash append with known bytes, but the replayed file is {state} "
                           f"here, so how they joined its end is unknown (its last line and "
                           f"its length are unknown from here on)", invalidate=False)
            # the bytes went after the file's last line: that line (when it had no final
            # newline) and the length changed; every line before the last is untouched.
            # With no length seen, the highest known line may be the last one.
            last = buf.total if buf.total is not None else max(buf.cells, default=0)
            buf.cells.pop(last, None)
            buf.total = None
            return
        self.counts.bash_write_anchor += 1
        self._touch(event, change=True)
        kept = dict(buf.cells)
        buf.reset(split_content(buf.content() + op.text), event.line)
        for n, cell in kept.items():  # lines before the append keep their provenance
            if n < len(kept) and buf.cells.get(n, ("",))[0] == cell[0]:
                buf.cells[n] = cell

    def _historymarker(self, event: Event, op: HistoryMarker) -> None:
        """Claude Code backs a tracked file up per prompt (and before each tool edit) and
        bumps ``version`` only when the bytes changed. A bump that no write of the file
        since the previous bump explains is a write outside the tool stream; a lower
        version is a counter restart (a new generation), never a write."""
        self.counts.history_snapshot += 1
        previous = self.last_version
        was_present, self.last_present = self.last_present, op.present
        if op.version is not None:
            self.last_version = op.version
        if op.content is not None:
            lines = split_content(op.content)
            if _disagrees(self.buf, lines):
                self._boundary(event, EXTERNAL_WRITE,
                               f"the replayed file disagrees with Claude Code's own file-history "
                               f"backup v{op.version} (a write with no tool record); the replay "
                               f"continues from that backup", invalidate=True)
                self.buf.reset(lines, event.line)
                self.pre_known = True
                self._touch(event)
        if previous is None or op.version is None or op.version == previous:
            return
        absent_both = not op.present and not was_present  # no file then, none now
        if op.version > previous and not self.wrote_since_marker and op.content is None \
                and not absent_both:
            self._boundary(event, EXTERNAL_WRITE,
                           f"file-history version went v{previous} -> v{op.version} with no "
                           f"tool write of this file since the previous version (a write "
                           f"outside the tool stream; its bytes are not available)",
                           invalidate=True)
        self.wrote_since_marker = False

    def unanswered(self, event: Event, op: Unanswered, landed: bool | None,
                   evidence: str) -> None:
        """A call with no result. Landed: replayed from its input, annotated. Not landed:
        annotated only. Unknown: the file is either as before or as the call leaves it,
        so only the lines both agree on stay known (a hard boundary)."""
        what = f"the {op.tool} call has no result in the transcript"
        if landed:
            if isinstance(op.op, Snapshot):
                self._snapshot(event, op.op)
            elif isinstance(op.op, Unreadable):
                self._unreadable(event, op.op)
            else:
                self._edit(event, op.op)
            self._boundary(event, RESULT_MISSING, f"{what}; {evidence}; replayed from the "
                           f"call's input", invalidate=False, split=False)
            return
        if landed is False:
            self._boundary(event, RESULT_MISSING, f"{what}; {evidence}; not replayed",
                           invalidate=False, split=False)
            return
        self.wrote_since_marker = True  # a later version rise may be this call's
        before = self.buf.copy()
        after = self.buf.copy()
        try:
            if isinstance(op.op, Snapshot):
                after.reset(op.op.lines, event.line)
            elif isinstance(op.op, Unreadable):
                after.clear()  # what it would leave is unknown: nothing agrees
            elif op.op.hunks:
                _apply_hunks(after, op.op.hunks, event.line)
            else:
                _apply_replacements(after, op.op.replacements, event.line)
                if any(r.alt is not None for r in op.op.replacements):
                    _keep_agreeing(after, before, op.op.replacements, event.line)
        except _Unanchorable:
            after.clear()
        self._boundary(event, UNCONFIRMED_WRITE,
                       f"{what} and nothing shows whether it landed ({evidence}); only the "
                       f"lines it would leave as they were stay known", invalidate=True)
        self.buf.cells = {n: cell for n, cell in before.cells.items()
                          if after.cells.get(n, (None,))[0] == cell[0]}
        self.buf.total = before.total if before.total == after.total else None

    def finish(self, events: int) -> Replay:
        self._close()
        return Replay(self.buf, self.boundaries, self.segments, self.counts, self.holes, events)


def replay(events: Sequence[Event], cutoff: int | None = None) -> Replay:
    """Replay ``events`` (in order) up to and including coordinate ``cutoff``. A call
    without a result is judged on the whole history (a version after the cutoff still
    tells whether it landed before it)."""
    player = _Replayer()
    count = 0
    for i, event in enumerate(events):
        if cutoff is not None and event.line > cutoff:
            break
        if isinstance(event.op, Unanswered):
            player.unanswered(event, event.op, *landing(events, i))
        else:
            player.apply(event)
        count += 1
    return player.finish(count)


def _changes_file(op: Op) -> bool:
    """Whether an event is (or may be) a write of the file."""
    if isinstance(op, Snapshot):
        return op.source in WRITE_SOURCES
    return isinstance(op, Edit | Unreadable | ExternalEdit | StaleHint | BashMutation
                      | BashAppend | Unanswered)


def landing(events: Sequence[Event], index: int) -> tuple[bool | None, str]:
    """Whether the result-less call at ``events[index]`` landed, and the evidence:
    Claude Code bumps a tracked file's file-history version only when its bytes changed.
    The versions compared are the last one recorded before the call and the first
    per-prompt snapshot after it (a pre-edit backup written after the call may still show
    the state before it). A rise (or the file appearing) with no other write of the file
    between says it landed (True); the same version and presence says the bytes did not
    change, so it did not land or wrote what was there (False); anything else, or no
    version on either side, leaves it unknown (None)."""
    def version(k: int, *, prompt: bool) -> tuple[int, HistoryMarker] | None:
        op = events[k].op
        if isinstance(op, HistoryMarker) and op.version is not None \
                and not (prompt and op.update):
            return k, op
        return None

    found_old = next((m for k in range(index - 1, -1, -1)
                      if (m := version(k, prompt=False)) is not None), None)
    found_new = next((m for k in range(index + 1, len(events))
                      if (m := version(k, prompt=True)) is not None), None)
    if found_old is None or found_new is None:
        return None, "no file-history version of the file was recorded on both sides of it"
    (before, old), (after, new) = found_old, found_new
    old_v, new_v = old.version or 0, new.version or 0
    span = (f"v{old_v} at L{events[before].source_line or events[before].line} -> v{new_v} "
            f"at L{events[after].source_line or events[after].line}")
    if any(_changes_file(events[k].op) for k in range(before + 1, after) if k != index):
        return None, f"file-history {span}, with another write of the file in between"
    if new_v > old_v and new.present:
        how = "the file appeared" if not old.present else "the bytes changed"
        return True, (f"file-history {span} ({how}) with no other write of the file in "
                      f"between: it landed")
    if new_v == old_v and new.present == old.present:
        return False, (f"file-history {span}: the bytes did not change, so it did not land "
                       f"(or wrote what was there)")
    return None, f"file-history {span} (a new generation or the file gone) proves nothing"


def restamp(event: Event, line: int) -> Event:
    """``event`` at replay coordinate ``line`` (a merged stream), its source kept."""
    return replace(event, line=line)
