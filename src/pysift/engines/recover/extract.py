"""One transcript -> the replay events of every asked-for file it touches (SPEC §6.7).

Cost shape: a transcript is first gated (single file: one whole-buffer search for the
file's basename, then, when it is absent, one for the Bash tool name, reading only the
commands that hold a quote or a backslash: ``'q'.txt`` and ``$'\\x71'.txt`` name the file
too; a transcript with neither holds no event for it). Then ONE structural pass
over the whole buffer (the Rust regex crate, a literal prefilter at memory speed) finds
every JSON string a file event can name its path in: ``file_path`` / ``notebook_path``
(tool inputs), ``filePath`` (tool result echoes), ``filename`` (attachments), ``command``
(shell calls) and ``staleReadFileStateHint``, plus the keys of file-history
``trackedFileBackups``. Only the lines whose string names an asked-for file (its basename,
or its gate needle inside a command, quoting dropped) are decoded. A tool call's result line, which may
not repeat the path (an error, a gutter-only Read), is found by its ``tool_use_id``. The
turn map is built only for a transcript that yielded events.

Batch mode (many files) skips the basename gate and runs the same structural pass on
every transcript, so the corpus is read once however many files are asked for; each
decoded record serves every file it names.

A transcript with no event of a file whose session holds events elsewhere (a subagent
that never spells it) is read once more for its window account alone
(``account_transcript``): its opaque commands and the Bash calls that may change the
file without naming it. Only those sessions' transcripts are read so, never the scope.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import field
from functools import lru_cache
from typing import Any

import orjson

from pysift.core import replay as rp
from pysift.core.classify import result_text
from pysift.core.decode import Tally, decode, unframed_lines
from pysift.core.shell.readings import unquoted
from pysift.core.turns import TurnMap, build_turn_map
from pysift.disk.jsonline import compact_json, spelled
from pysift.disk.layout import Transcript
from pysift.disk.lines import Buffer, LineCounter, find_in, line_end, line_start, simd_search
from pysift.disk.mapped import open_buffer
from pysift.engines.recover.target import Target, basename, normalise, resolve
from pysift.engines.recover.target import is_absolute as _absolute
from pysift.errors import SourceError
from pysift.model.fastdata import dataclass
from pysift.model.record import Record, block_name

FILE_TOOLS = frozenset({"Read", "Write", "Edit", "MultiEdit", "NotebookEdit"})
#: the input key naming a file tool's file
_PATH_KEY = {"NotebookEdit": "notebook_path"}
SHELL_TOOLS = ("Bash", "PowerShell")
#: Read's default line limit: a gutter-only read that shows fewer lines reached EOF
READ_DEFAULT_LIMIT = 2000
#: Read truncates longer lines in the text it shows the model
READ_LINE_CHARS = 2000

_FIELD_SOURCE = (rb'"(?:file_path|notebook_path|filePath|filename|command|staleReadFileStateHint)"'
                 rb'[ ]?:[ ]?"')
_BACKUP_SOURCE = rb'\{[ ]?"backupFileName"'
#: the command of a hook run as an older system record prints it ("PostToolUse:Edit
#: [uv run ruff format] completed successfully")
_HOOK_SOURCE = rb'ToolUse:[A-Za-z_]{0,40}(?:\\u001b\[22m)? \[((?:[^\]"\\]|\\.)*)\]'
_PATH_FIELDS = frozenset({b"file_path", b"notebook_path", b"filePath", b"filename"})
_GUTTER = re.compile(r"^ *(\d+)(?:\t|\u2192)(.*)$")
_REMINDER = "<system-reminder>"


@lru_cache(maxsize=1)
def _patterns() -> tuple[Any, Any, Any]:
    return _compiled(_FIELD_SOURCE), _compiled(_BACKUP_SOURCE), _compiled(_HOOK_SOURCE)


# -- results -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Opaque:
    """A shell call whose touched files the lexical layer cannot name (a mutating-class
    marker such as ``fmt:prettier``, or any PowerShell call): window accounting, never an
    event."""

    session_id: str
    line: int
    turn: int
    ts: str | None
    marker: str


@dataclass
class FileScan:
    events: list[rp.Event] = field(default_factory=list)
    identities: set[str] = field(default_factory=set)  # the distinct recorded files matched
    neighbours: set[str] = field(default_factory=set)  # same basename, another file
    # the events are only the window account of a transcript that names no event of the
    # file (a sibling's Bash call that may change it): they join a group, never make one
    account: bool = False


@dataclass
class TranscriptScan:
    transcript: Transcript
    files: dict[int, FileScan] = field(default_factory=dict)
    opaque: list[Opaque] = field(default_factory=list)
    skipped_lines: int = 0
    error: str | None = None
    gated_out: bool = False
    first_cwd: str | None = None
    turn_count: int = 0
    accounted: bool = False  # its opaque commands were collected (``opaque`` is whole)


# -- matching many targets -----------------------------------------------------------------


class TargetIndex:
    """The asked-for files, indexed for the structural pass."""

    def __init__(self, targets: Sequence[Target]) -> None:
        self.targets = list(targets)
        self.by_base: dict[str, list[int]] = {}
        for i, t in enumerate(self.targets):
            self.by_base.setdefault(t.base, []).append(i)
            self.by_base.setdefault(t.base.lower(), [])
            if i not in self.by_base[t.base.lower()]:
                self.by_base[t.base.lower()].append(i)
        self.open_ended = [i for i, t in enumerate(self.targets) if t.needle is None]
        self._automaton: Any = None
        self.pattern: Any = None  # the RE2 target pass, built on first use
        self._raw_bases: set[bytes] | None = None

    def raw_bases(self) -> set[bytes]:
        """The basenames as raw JSON bytes (and case-folded), for an unescaped key."""
        if self._raw_bases is None:
            out: set[bytes] = set()
            for t in self.targets:
                raw = t.base.encode("utf-8", "surrogateescape")
                out |= {raw, raw.lower()}
            self._raw_bases = out
        return self._raw_bases

    def for_path(self, value: str) -> list[int]:
        base = basename(value)
        return self.by_base.get(base) or self.by_base.get(base.lower()) or []

    def in_text(self, text: str) -> list[int]:
        """Targets whose gate needle occurs in ``text`` (a shell command, a hint), plus
        the ones too short to gate on. A command may spell a name in pieces (``'q'.txt``,
        ``q\\.txt``): its text without quoting is looked in too; a Windows name is
        matched without case."""
        found = set(self.open_ended)
        texts = [text]
        if any(c in text for c in "'\"\\"):
            texts.append(unquoted(text))
        if any(t.windows for t in self.targets):
            texts += [t.lower() for t in texts]
        if len(self.targets) <= 8:
            for i, t in enumerate(self.targets):
                needle = t.needle
                if needle is None:
                    continue
                if t.windows:
                    needle = needle.lower()
                if any(needle in one for one in texts):
                    found.add(i)
            return sorted(found)
        if self._automaton is None:
            import ahocorasick

            automaton = ahocorasick.Automaton()
            for i, t in enumerate(self.targets):
                if t.needle is not None:
                    for word in {t.needle, t.needle.lower()} if t.windows else {t.needle}:
                        automaton.add_word(word, automaton.get(word, ()) + (i,))
            automaton.make_automaton()
            self._automaton = automaton
        for one in texts:
            for _, hits in self._automaton.iter(one):
                found.update(hits)
        return sorted(found)


def gate_passes(buf: Buffer, target: Target) -> bool:
    """Whether ``buf`` can hold an event of ``target`` (its basename run is somewhere).

    A plain ASCII needle is one ``find`` over the (mapped) file, which never copies it; a
    needle holding non-ASCII or a character some JSON writers escape gets every spelling
    from the search prefilter; a Windows name is matched without case. A transcript
    without it may still name the file in a shell command that quotes the name in pieces
    (``'q'.txt``, ``q\\.txt``) or spells it through ANSI-C escapes (``$'\\x71'.txt``): its
    Bash commands holding a quote or a backslash are read without their quoting, each
    ``$'...'`` decoded (``quoted_bash_lines``, ``shell.unquoted``)."""
    needle = target.needle
    if needle is None:
        return True
    if needle.isascii() and not target.windows and not any(c in _ESCAPED for c in needle):
        if find_in(buf, needle.encode("ascii")) >= 0:
            return True
    elif _needle_set(needle, target.windows).any_in(buf):
        return True
    wanted = needle.lower() if target.windows else needle

    def names(text: str) -> bool:
        flat = unquoted(text)
        return wanted in (flat.lower() if target.windows else flat)

    return bool(quoted_bash_lines(buf, names, first=True))


_ESCAPED = frozenset("/<>&='+`")


@lru_cache(maxsize=64)
def _needle_set(needle: str, caseless: bool) -> Any:
    from pysift.core.prefilter import NeedleSet

    return NeedleSet([needle], caseless=caseless)


_BASH_NAME = b'"Bash"'
_NAME_KEY_ENDS = (b'"name":', b'"name": ')


def quoted_bash_lines(buf: Buffer, names: Callable[[str], bool], *,
                      first: bool = False) -> list[int]:
    """Line starts of the Bash calls whose command holds a quote or a backslash and whose
    text ``names`` accepts (a name spelled in pieces reads whole once its quoting is
    dropped: neither the gate's ``find`` nor the RE2 pass sees ``'q'.txt``). One SIMD
    search for the tool name, then only those commands are decoded; ``first``: stop at
    the first."""
    out: list[int] = []
    size = len(buf)
    with simd_search(buf) as (find, _):
        at = find(_BASH_NAME, 0, size)
        while at >= 0:
            if buf[max(0, at - 8):at].endswith(_NAME_KEY_ENDS):
                text = _quoted_command(buf, at)
                if text is not None and names(text):
                    out.append(line_start(buf, at))
                    if first:
                        break
            at = find(_BASH_NAME, at + len(_BASH_NAME), size)
    return out


#: Claude Code's own layout: the command right after the tool name
_INPUT_COMMAND = b',"input":{"command":"'


def _quoted_command(buf: Buffer, at: int) -> str | None:
    """The command string of the tool call whose name is at ``at``, when it holds a quote
    or a backslash: the first ``command`` key after the name on its line, else the last
    before it (sorted keys)."""
    follow = at + len(_BASH_NAME)
    if buf[follow:follow + len(_INPUT_COMMAND)] == _INPUT_COMMAND:
        v0 = follow + len(_INPUT_COMMAND)
    else:
        start, stop = line_start(buf, at), line_end(buf, at)
        after = [p for p in (buf.find(k, at, stop) for k in _COMMAND_KEY) if p >= 0]
        key = min(after) if after else max(buf.rfind(k, start, at) for k in _COMMAND_KEY)
        if key < 0:
            return None
        v0 = buf.find(b'"', key + 10) + 1
    v1 = _string_end(buf, v0)
    raw = buf[v0:v1]
    if b"'" not in raw and b'\\"' not in raw and b"\\\\" not in raw:
        return None  # (a raw backslash is a JSON escape: \\" and \\\\ are the shell's)
    return _json_string(raw)


# -- JSON string values off the raw bytes -----------------------------------------------------


def _json_string(raw: bytes) -> str:
    if b"\\" not in raw:
        return raw.decode("utf-8", "surrogateescape")
    try:
        return str(orjson.loads(b'"' + raw + b'"'))
    except orjson.JSONDecodeError:
        import json

        try:
            return str(json.loads('"' + raw.decode("utf-8", "surrogateescape") + '"'))
        except ValueError:
            return raw.decode("utf-8", "replace")


@dataclass(slots=True)
class _Command:
    """A command string met in the structural pass: a shell call's, or a hook's."""

    offset: int  # where its key is (its line holds it)
    end: int  # where its value ends
    text: str
    hook: bool  # a hook's command (an attachment's or a system line's), not a tool input

    def tool(self, buf: Buffer) -> str | None:
        return None if self.hook else _tool_of(buf, self.offset, self.end)


_NAME_KEYS = (b'"name":"', b'"name": "')


def _tool_of(buf: Buffer, at: int, end: int) -> str | None:
    """The tool whose input holds the ``command`` key at ``at`` (its string ending at
    ``end``): the last ``"name"`` key before it on its line (Claude Code writes a block's
    name before its input), else the first right after its input (sorted keys)."""
    start = line_start(buf, at)
    best = max(buf.rfind(key, start, at) for key in _NAME_KEYS)
    if best < 0:
        stop = min(line_end(buf, end), end + 256)
        after = [p for p in (buf.find(key, end, stop) for key in _NAME_KEYS) if p >= 0]
        best = min(after) if after else -1
    if best < 0:
        return None
    first = buf.find(b'"', best + 6) + 1
    name = buf[first:buf.find(b'"', first)]
    return name.decode("ascii", "replace") if name in (b"Bash", b"PowerShell") else None


def _string_end(buf: Buffer, start: int) -> int:
    """The offset of the quote closing the JSON string whose text starts at ``start``."""
    pos = buf.find(b'"', start)
    while pos > start and buf[pos - 1] == 0x5C:  # a backslash: count the run before it
        run = 1
        while pos - run - 1 >= start and buf[pos - run - 1] == 0x5C:
            run += 1
        if run % 2 == 0:
            break
        pos = buf.find(b'"', pos + 1)
    return pos if pos >= 0 else len(buf)


def _key_before(buf: Buffer, brace: int) -> tuple[int, int] | None:
    """The text span of the object key right before ``brace`` (``"key": {``)."""
    pos = brace - 1
    while pos > 0 and buf[pos] in b" \t":
        pos -= 1
    if buf[pos] != 0x3A:  # the colon
        return None
    pos -= 1
    while pos > 0 and buf[pos] in b" \t":
        pos -= 1
    if buf[pos] != 0x22:
        return None
    end = pos
    start = buf.rfind(b'"', 0, end)
    while start > 0 and buf[start - 1] == 0x5C:  # an escaped quote inside the key
        start = buf.rfind(b'"', 0, start)
    return (start + 1, end) if start >= 0 else None


_STRING_BODY = r'(?:[^"\\]|\\.)*?'
_TARGET_KEYS = r'"(?:file_path|notebook_path|filePath|filename|command|staleReadFileStateHint)"[ ]?:[ ]?"'


def _needle_source(needle: str, caseless: bool) -> str:
    """An RE2 source matching ``needle`` inside a raw JSON string, in every spelling a
    writer may give it: a non-ASCII character raw or ``\\uXXXX`` (either hex case), a
    character some writers escape needlessly either way."""
    import re2

    from pysift.core.prefilter import OPTIONAL_ESCAPES

    parts = []
    for char in needle:
        if char in OPTIONAL_ESCAPES:
            parts.append(OPTIONAL_ESCAPES[char].decode("ascii"))
        elif char.isascii():
            parts.append(re2.escape(char))
        else:
            units = char.encode("utf-16-be")
            escaped = "".join("\\\\u" + "".join(f"[{d.lower()}{d.upper()}]" if d.isalpha()
                                                     else d for d in units[k:k + 2].hex())
                              for k in range(0, len(units), 2))
            parts.append(f"(?:{re2.escape(char)}|{escaped})")
    body = "".join(parts)
    return f"(?i:{body})" if caseless else body


def _target_pattern(index: TargetIndex) -> Any:
    """One RE2 pass finding every JSON string a file event can name its path in
    (``file_path``, ``notebook_path``, ``filePath``, ``filename``, ``command``,
    ``staleReadFileStateHint``) whose text holds an asked-for file's gate needle. RE2
    reads a mapped file in place (the Rust crate copies it on every call)."""
    if index.pattern is None:
        import re2

        alts = sorted({_needle_source(t.needle, t.windows) for t in index.targets
                       if t.needle is not None})
        options = re2.Options()
        options.max_mem = 256 << 20
        options.log_errors = False
        index.pattern = re2.compile(
            f"{_TARGET_KEYS}{_STRING_BODY}(?:{'|'.join(alts)})".encode(), options)
    return index.pattern


def _candidates(buf: Buffer, index: TargetIndex) -> set[int]:
    """Line starts whose path strings can name an asked-for file (a superset: the decoded
    record decides). With a target too short to gate on, every path string is looked at."""
    if index.open_ended:
        return _candidates_by_value(buf, index)
    found = {line_start(buf, m.start()) for m in _target_pattern(index).finditer(buf)}
    found.update(quoted_bash_lines(buf, lambda text: bool(index.in_text(text))))
    return found


def _candidates_by_value(buf: Buffer, index: TargetIndex) -> set[int]:
    fields, _, _ = _patterns()
    lines: set[int] = set()
    for m in fields.finditer(buf):
        k0, v0 = m.span()
        key = buf[k0 + 1:buf.find(b'"', k0 + 1)]
        value = _json_string(buf[v0:_string_end(buf, v0)])
        if index.for_path(value) if key in _PATH_FIELDS else index.in_text(value):
            lines.add(line_start(buf, k0))
    return lines


def _backup_lines(buf: Buffer, targets: Sequence[Target]) -> set[int]:
    """Lines of file-history entries (``trackedFileBackups``) keyed by one of ``targets``
    (the files that already have events here): one pass for a key ending with one of
    their basenames right before its ``{"backupFileName"`` object."""
    import re2  # its escape, for bytes

    from pysift.core.prefilter import _json_escaped

    spellings: set[bytes] = set()
    for target in targets:
        spellings.add(target.base.encode("utf-8", "surrogateescape"))
        if not target.base.isascii():
            spellings.add(_json_escaped(target.base).encode("ascii"))
    names = b"|".join(sorted(re2.escape(s) for s in spellings))
    pattern = _compiled(b'(?:' + names + rb')"[ ]?:[ ]?\{[ ]?"backupFileName"')
    return {line_start(buf, m.start()) for m in pattern.finditer(buf)}


_SHELL_NAME = rb'"name"[ ]?:[ ]?"(?:Bash|PowerShell)"'
_COMMAND_KEY = (b'"command":"', b'"command": "')
#: a hook's command is counted only when it can be a formatter run
_FORMATTER_HOOK = (rb'"command"[ ]?:[ ]?"[^"\n]{0,400}?(?i:prettier|black|ruff|rustfmt|gofmt|'
                   rb'goimports|clang-format|dprint|biome|eslint|stylua|shfmt|autopep8|yapf|isort|'
                   rb'swiftformat|ktlint|rubocop|php-cs-fixer|cargo fmt|go fmt|npm run format)')


def _commands(buf: Buffer) -> list[_Command]:
    """The command strings of the window accounting: every Bash and PowerShell call (its
    tool name read off the line, the command right after it, or before it in sorted-key
    JSON), and the hooks that may run a formatter (attachments, older system lines)."""
    out: list[_Command] = []
    seen: set[int] = set()
    for m in _compiled(_SHELL_NAME).finditer(buf):
        at, end = m.span()
        start, stop = line_start(buf, at), line_end(buf, at)
        after = [p for p in (buf.find(k, end, stop) for k in _COMMAND_KEY) if p >= 0]
        before = max(buf.rfind(k, start, at) for k in _COMMAND_KEY)
        key = min(after) if after else before
        if key < 0 or key in seen:
            continue
        seen.add(key)
        v0 = buf.find(b'"', key + 10) + 1
        v1 = _string_end(buf, v0)
        out.append(_Command(key, v1, _json_string(buf[v0:v1]), False))
    for m in _compiled(_FORMATTER_HOOK).finditer(buf):
        key = m.start()
        start = line_start(buf, key)
        if key in seen or buf.find(b'"tool_use"', start, key) >= 0:
            continue
        v0 = buf.find(b'"', key + 10) + 1
        v1 = _string_end(buf, v0)
        out.append(_Command(key, v1, _json_string(buf[v0:v1]), True))
    _, _, hooks = _patterns()
    for m in hooks.finditer(buf):
        v0, v1 = m.span(1)
        out.append(_Command(v0, v1, _json_string(buf[v0:v1]), True))
    return out


@lru_cache(maxsize=256)
def _compiled(source: bytes) -> Any:
    """A Rust regex over ``bytes`` (literal searches at SIMD speed). Its binding copies a
    mapped buffer on every call, so a transcript is copied once before these passes."""
    import rurex

    return rurex.compile(source)


# -- the scan --------------------------------------------------------------------------------


@dataclass
class _Use:
    """A file tool call naming an asked-for file, waiting for its result."""

    name: str
    tool_input: dict[str, Any]
    targets: list[tuple[int, str]]  # (target index, matched identity)
    offset: int = 0  # the call's line
    answered: bool = False


@dataclass
class _BashUse:
    """A Bash call naming an asked-for file: its touches of each target."""

    command: str
    touches: dict[int, list[Any]]  # target index -> [shell.Touch]
    offset: int
    answered: bool = False


@dataclass
class _Line:
    offset: int
    record: Record
    number: int = 0


class _Scanner:
    def __init__(self, transcript: Transcript, buf: Buffer, index: TargetIndex,
                 turns: bool = True, lines: bool = True) -> None:
        self.want_turns = turns
        self.want_lines = lines
        self.t = transcript
        self.buf = buf
        self.index = index
        self.tally = Tally()
        self.tried: set[int] = set()  # the line starts decoded (a malformed one counted)
        self.lines: dict[int, _Line] = {}
        self.uses: dict[str, _Use] = {}
        self.bash: dict[str, _BashUse] = {}
        # (offset, target, op, call): ``call`` is the line start of the tool call the
        # event answers (its stamp and turn time the event), None: the event's own record
        self.raw_events: list[tuple[int, int, rp.Op, int | None]] = []
        self.out = TranscriptScan(transcript)
        self.first_cwd: str | None = None

    # decoding ---------------------------------------------------------------------------
    def _decode(self, starts: set[int]) -> None:
        for start in sorted(starts - self.tried):
            rec = self._decode_at(start)
            if rec is not None:
                self.lines[start] = _Line(start, rec)

    def _decode_at(self, start: int) -> Record | None:
        self.tried.add(start)
        return decode(self.buf[start:line_end(self.buf, start)], None, self.tally)

    def _result_lines(self) -> set[int]:
        """Where the results of the collected calls are: each id's block key, searched
        from the call's own line on (results follow their calls)."""
        found: set[int] = set()
        buf = self.buf
        have = {use_id for ln in self.lines.values()
                for b in ln.record.blocks_of("tool_result")
                if isinstance(use_id := b.get("tool_use_id"), str)}  # an odd id is no key
        for use_id, offset in self._use_offsets.items():
            if use_id in have:
                continue
            ident = spelled(compact_json(use_id))  # orjson refuses a lone surrogate
            for needle in (b'"tool_use_id":' + ident, b'"tool_use_id": ' + ident):
                at = buf.find(needle, offset)
                if at >= 0:
                    found.add(line_start(buf, at))
                    break
        return found

    def run(self) -> TranscriptScan:
        starts = _candidates(self.buf, self.index)
        if not starts:  # no path string names an asked-for file: nothing to replay
            self._count_malformed()
            return self.out
        if not isinstance(self.buf, bytes):
            self.buf = self.buf[:]  # one copy for the Rust-regex passes below
        self._decode(starts)
        self._use_offsets: dict[str, int] = {}
        for ln in list(self.lines.values()):
            self._collect_uses(ln)
        self._decode(self._result_lines())
        named = [self.index.targets[i] for i, scan in self.out.files.items() if scan.identities]
        if named:  # file-history entries matter only beside the file's own events
            self._decode(_backup_lines(self.buf, named))
            # their keys are relative to the session's project root: the cwd of the
            # first record carrying one (a later record's follows the shell's cd)
            from pysift.engines.plans import first_recorded_cwd

            self.first_cwd = first_recorded_cwd(self.buf)
        for start in sorted(self.lines):
            self._events_of(self.lines[start])
        self._unanswered_bash()
        self._unanswered_files()
        if self.raw_events or self.out.files:
            self._finish(_commands(self.buf))
        self._count_malformed()
        return self.out

    def _count_malformed(self) -> None:
        """The malformed-line law: the lines decoded counted themselves; every other line
        gets the shape check (a byte test at each end, no parse)."""
        self.out.skipped_lines = self.tally.malformed + sum(
            1 for start in unframed_lines(self.buf) if start not in self.tried)

    # phase 1: calls --------------------------------------------------------------------
    def _collect_uses(self, ln: _Line) -> None:
        rec = ln.record
        for block in rec.blocks_of("tool_use"):
            name = block_name(block)
            tool_input = block.get("input")
            use_id = block.get("id")
            if name == "Bash" and isinstance(tool_input, dict) and isinstance(use_id, str):
                self._collect_bash(ln, use_id, tool_input, rec.cwd)
                continue
            if name not in FILE_TOOLS or not isinstance(tool_input, dict) or not isinstance(use_id, str):
                continue
            path = tool_input.get(_PATH_KEY.get(name, "file_path"))
            if not isinstance(path, str):
                continue
            matched = self._match(path, rec.cwd)
            if matched:
                self.uses[use_id] = _Use(name, tool_input, matched, ln.offset)
                self._use_offsets[use_id] = ln.offset

    def _collect_bash(self, ln: _Line, use_id: str, tool_input: dict[str, Any],
                      cwd: str | None) -> None:
        command = tool_input.get("command")
        if not isinstance(command, str) or not self.index.in_text(command):
            return
        from pysift.engines.recover import shell

        per_target: dict[int, list[Any]] = {}
        for touch in shell.touches(command, cwd):
            # by the path the shell resolved, never by the operand's spelling: after `cd
            # sub`, `echo x > app.py` writes sub/app.py, not the app.py beside the record's
            # cwd (an operand the shell could not place is its own spelling: ``path``)
            for i, _ in self._match(touch.path, cwd):
                per_target.setdefault(i, []).append(touch)
        if per_target:
            self.bash[use_id] = _BashUse(command, per_target, ln.offset)
            self._use_offsets[use_id] = ln.offset

    def _match(self, path: str, cwd: str | None) -> list[tuple[int, str]]:
        out = []
        for i in self.index.for_path(path):
            identity = self.index.targets[i].matches(path, cwd)
            scan = self.out.files.setdefault(i, FileScan())
            if identity is None:
                scan.neighbours.add(resolve(path, cwd))
                continue
            scan.identities.add(identity)
            out.append((i, identity))
        return out

    # phase 2: events -------------------------------------------------------------------
    def _emit(self, ln: _Line, target: int, op: rp.Op, call: int | None = None) -> None:
        """An event at ``ln``'s line, happening when the call at offset ``call`` was made
        (None: when ``ln``'s own record was written)."""
        self.raw_events.append((ln.offset, target, op, call))

    def _events_of(self, ln: _Line) -> None:
        rec = ln.record
        if rec.type == "attachment":
            self._attachment(ln)
        elif rec.type == "file-history-snapshot":
            self._snapshot_marker(ln)
        tur = rec.tool_use_result
        written: set[int] = set()  # targets a write anchor of this record's call rewrote
        call: int | None = None  # the collected call this record answers
        for block in rec.blocks_of("tool_result"):
            use_id = block.get("tool_use_id")
            if not isinstance(use_id, str):  # an id of another JSON type answers no call
                continue
            use = self.uses.get(use_id)
            if use is not None:
                use.answered = True
                call = use.offset if call is None else call
                self._result(ln, use, block, tur)
            bash = self.bash.get(use_id)
            if bash is not None:
                call = bash.offset if call is None else call
                written |= self._bash_result(ln, bash, block, tur)
        if isinstance(tur, dict):
            hint = tur.get("staleReadFileStateHint")
            if isinstance(hint, str):
                self._hint(ln, hint, written, call)

    def _attachment(self, ln: _Line) -> None:
        att = ln.record.raw.get("attachment")
        if not isinstance(att, dict):
            return
        kind = att.get("type")
        if kind == "edited_text_file":
            path = att.get("filename")
            if isinstance(path, str):
                snippet = att.get("snippet")
                pairs = tuple(_gutter_pairs(snippet)) if isinstance(snippet, str) else ()
                for i, _ in self._match(path, ln.record.cwd):
                    self._emit(ln, i, rp.ExternalEdit(pairs))
            return
        content = att.get("content")
        file_obj = content.get("file") if isinstance(content, dict) else att.get("file")
        if isinstance(file_obj, dict):
            path = file_obj.get("filePath")
            if isinstance(path, str):
                for i, _ in self._match(path, ln.record.cwd):
                    op = read_op(file_obj, rp.SOURCE_FILE_ATTACHMENT)
                    if op is not None:
                        self._emit(ln, i, op)

    def _snapshot_marker(self, ln: _Line) -> None:
        snap = ln.record.raw.get("snapshot")
        tracked = snap.get("trackedFileBackups") if isinstance(snap, dict) else None
        if not isinstance(tracked, dict):
            return
        for path, entry in tracked.items():
            if not isinstance(path, str):
                continue
            version = entry.get("version") if isinstance(entry, dict) else None
            version = version if isinstance(version, int) and not isinstance(version, bool) else None
            present = not isinstance(entry, dict) or entry.get("backupFileName") is not None
            update = ln.record.raw.get("isSnapshotUpdate") is True
            for i, _ in self._match(path, self.first_cwd):
                self._emit(ln, i, rp.HistoryMarker(version, present=present, update=update))

    def _hint(self, ln: _Line, hint: str, written: set[int], call: int | None) -> None:
        """Claude Code's own word that the call changed files it had read. A target that
        the same call rewrote through an admitted write anchor is explained by it. Timed
        by that call when it was collected (it names the file), else by the result."""
        for path in parse_stale_hint(hint):
            for i, identity in self._match(path, ln.record.cwd):
                if i not in written:
                    self._emit(ln, i, rp.StaleHint(identity), call)

    def _bash_result(self, ln: _Line, bash: _BashUse, block: dict[str, Any] | None,
                     tur: object) -> set[int]:
        from pysift.engines.recover import shell

        bash.answered = True
        result = shell.outcome(block, tur)
        written: set[int] = set()
        for i, picked in bash.touches.items():
            for _touch, op in shell.events(bash.command, picked, result):
                self._emit(ln, i, op, bash.offset)
                if isinstance(op, rp.Snapshot | rp.BashAppend):
                    written.add(i)
        return written

    def _unanswered_bash(self) -> None:
        """A Bash call whose result is not in the transcript: its writes are unconfirmed,
        so what it names stays a heuristic boundary, at the call's own line."""
        for bash in self.bash.values():
            if not bash.answered:
                line = self.lines.get(bash.offset)
                if line is not None:
                    self._bash_result(line, bash, None, None)

    def _unanswered_files(self) -> None:
        """A Write/Edit/MultiEdit/NotebookEdit call whose result is not in the transcript (a compaction
        lost it, or the session stopped with the call): what its input would do, at the
        call's own line; the replay reads the file-history versions around it to tell
        whether it landed. A Read without a result changed nothing."""
        for use in self.uses.values():
            if use.answered or use.name == "Read":
                continue
            line = self.lines.get(use.offset)
            op = file_op(use.name, use.tool_input, None, "")
            if line is None or not isinstance(op, rp.Snapshot | rp.Edit | rp.Unreadable):
                continue
            for i, _ in use.targets:
                self._emit(line, i, rp.Unanswered(use.name, op))

    def _result(self, ln: _Line, use: _Use, block: dict[str, Any], tur: object) -> None:
        text = result_text(block)
        if block.get("is_error") is True:
            kind = classify_error(text)
            if kind is not None:
                for i, _ in use.targets:
                    self._emit(ln, i, rp.Integrity(kind, first_line(text)), use.offset)
            return
        echo = tur if isinstance(tur, dict) and _echo_names(tur, use) else None
        op = file_op(use.name, use.tool_input, echo, text)
        if op is not None:
            for i, _ in use.targets:
                self._emit(ln, i, op, use.offset)

    # numbering, turns, the window accounting ----------------------------------------------
    def account(self, files: dict[int, set[str]]) -> TranscriptScan:
        """The window account alone of a transcript that holds no event of the files
        ``files`` names (target -> its absolute paths) but shares a session group with
        one that does: its opaque commands and its Bash calls that may change those files
        without naming them the way the collection reads (``_ancestor_mutations``)."""
        if not isinstance(self.buf, bytes):
            self.buf = self.buf[:]
        self._finish(_commands(self.buf), files)
        for scan in self.out.files.values():
            scan.account = True
        return self.out

    def _finish(self, commands: list[_Command], files: dict[int, set[str]] | None = None
                ) -> None:
        """Number the lines, place the turns, and collect the window accounting: the
        opaque commands of the transcript (read off the command strings: only the lines
        of commands with a marker are decoded) and the Bash calls that change a directory
        holding a file with events here (or one of ``files``, the window account of a
        transcript without events)."""
        from pysift.core import shell as lexer
        from pysift.engines.recover import shell

        buf = self.buf
        opaque: list[tuple[int, str]] = []  # (line start, marker)
        changers: list[_Command] = []
        for c in commands:
            if c.hook:  # a hook counts only as the formatter it runs
                opaque.extend((line_start(buf, c.offset), f"{m.path} (hook)")
                              for m in lexer.opaque_markers(c.text) if m.path.startswith("fmt:"))
                continue
            tool = c.tool(buf)
            if tool == "PowerShell":
                opaque.append((line_start(buf, c.offset), shell.POWERSHELL))
                continue
            if tool is None:
                continue  # a command key of some other tool or record
            opaque.extend((line_start(buf, c.offset), m.path)
                          for m in lexer.opaque_markers(c.text))
            if not lexer.changes_nothing(c.text) and any(
                    not m.marker for m in lexer.mutations(c.text)):
                changers.append(c)
        decoded: dict[int, Record] = {}
        for start in {o for o, _ in opaque} | {line_start(buf, c.offset) for c in changers}:
            known = self.lines.get(start)
            rec = known.record if known is not None else self._decode_at(start)
            if rec is not None:
                decoded[start] = rec
        self._ancestor_mutations([(line_start(buf, c.offset), c.text) for c in changers],
                                 decoded, self._event_files() if files is None else files)
        offsets = sorted({*self.lines, *decoded})
        if self.want_lines:
            counter = LineCounter(buf)
            numbers = {o: counter.line_at(o) for o in offsets}
        else:  # ordered coordinates are enough (batch mode shows no jsonl line)
            numbers = {o: o + 1 for o in offsets}
        # (the turn map's own decodes are not counted: the shape check counts its torn lines)
        turns = (build_turn_map(buf, subagent=self.t.is_subagent)
                 if offsets and self.want_turns else None)
        sid = self.t.session_id
        for offset, target, op, call in sorted(self.raw_events, key=lambda item: item[0]):
            # an event happens when its call was made (its stamp and turn), as ``files``
            # and ``search`` place the call; its line stays the result's, where it is read
            at = offset if call is None else call
            line = numbers[offset]
            event = rp.Event(line, _turn(turns, at), _timestamp(self.lines[at].record), op,
                             sid, line, numbers[at])
            self.out.files.setdefault(target, FileScan()).events.append(event)
        for start, marker in sorted(opaque):
            rec = decoded.get(start)
            if rec is not None:
                self.out.opaque.append(Opaque(sid, numbers[start], _turn(turns, start),
                                              _timestamp(rec), marker))
        self.out.first_cwd = self.first_cwd
        self.out.turn_count = turns.turn_count if turns is not None else 0
        self.out.accounted = True

    def _event_files(self) -> dict[int, set[str]]:
        """The targets with events here -> the absolute paths they name here."""
        files: dict[int, set[str]] = {}
        for _, i, _, _ in self.raw_events:
            if i in files:
                continue
            target = self.index.targets[i]
            found = self.out.files.get(i)
            known = {target.norm} if target.absolute else {
                p for p in (found.identities if found else ()) if _absolute(p)}
            if known:
                files[i] = known
        return files

    def _ancestor_mutations(self, changers: list[tuple[int, str]],
                            decoded: dict[int, Record], files: dict[int, set[str]]) -> None:
        """The Bash calls that may change a file of ``files`` (target -> its absolute
        paths) without naming it the way the call collection reads it, each a heuristic
        boundary of that file at the call's line: a change of a directory holding it
        (``rm -r``, ``mv`` of it, a formatter run over it), an operand left unresolved as
        a pattern that may match it (``sed -i … *.txt``, ``rm "$F"``: ``shell.may_name``),
        and an operand resolving to it in a call the collection passed over."""
        if not files:
            return
        from pysift.core import shell as lexer

        collected: dict[int, dict[int, list[Any]]] = {b.offset: b.touches
                                                      for b in self.bash.values()}
        for offset, command in changers:
            rec = decoded.get(offset)
            if rec is None:
                continue
            mine = collected.get(offset, {})
            for m in lexer.mutations(command, rec.cwd):
                if m.marker or not m.path:
                    continue
                for i, paths in files.items():
                    op = self._unnamed(m, paths, mine.get(i))
                    if op is not None:
                        self.lines.setdefault(offset, _Line(offset, rec))
                        self.raw_events.append((offset, i, op, None))

    @staticmethod
    def _unnamed(m: Any, paths: set[str], touches: list[Any] | None) -> rp.BashMutation | None:
        """The boundary mutation ``m`` puts on a file known by ``paths`` (normalised,
        absolute), unless the call's collected touches of it (``touches``) stand for it."""
        from pysift.core import shell as lexer

        if m.resolution == lexer.UNRESOLVED:
            if m.floating or (touches and any(t.mutation == m for t in touches)):
                return None  # a floating operand is opaque (cwd-unknown:)
            if any(lexer.may_name(m, p) and lexer.may_reach(m, p) for p in paths):
                return rp.BashMutation(m.verb, f"{m.verbatim} (a pattern that may name the "
                                       f"file)", lexer.UNRESOLVED)
            return None
        resolved = normalise(m.path)
        prefix = resolved.rstrip("/") + "/"
        if any(p.startswith(prefix) for p in paths):
            if m.verb in _DIRECTORY_ONLY:
                return None  # it makes or stamps the directory, never what is in it
            if not any(p.startswith(prefix) and lexer.may_reach(m, p) for p in paths):
                return None  # a find whose tests cannot match the file (its name, path)
            return rp.BashMutation(m.verb, f"{m.path} (which holds the file)",
                                   m.resolution or "")
        if touches is None and resolved in paths:
            if m.reach is not None and not lexer.may_reach(m, m.path):
                return None  # a find started at the file whose tests cannot match it
            return rp.BashMutation(m.verb, m.path, m.resolution or "")
        return None


# verbs that, given a directory holding the file, cannot change the file: ``mkdir`` of
# it makes it (the file is not there yet) or does nothing (``-p``) or fails; ``touch``
# of it sets its times only
_DIRECTORY_ONLY = frozenset({"mkdir", "touch"})


def _turn(turns: TurnMap | None, offset: int) -> int:
    if turns is None:
        return 0
    from bisect import bisect_right

    return max(0, bisect_right(turns.opener_offsets, offset) - 1)


def _timestamp(rec: Record) -> str | None:
    if rec.type == "file-history-snapshot":
        snap = rec.raw.get("snapshot")
        ts = snap.get("timestamp") if isinstance(snap, dict) else None
        if isinstance(ts, str) and ts:
            return ts
    return rec.timestamp


def _echo_names(tur: dict[str, Any], use: _Use) -> bool:
    """Whether a record's ``toolUseResult`` describes this call's file."""
    path = use.tool_input.get("file_path")
    file_obj = tur.get("file")
    echoed = file_obj.get("filePath") if isinstance(file_obj, dict) else tur.get("filePath")
    if not isinstance(echoed, str):
        return tur.get("type") == "file_unchanged"
    return echoed == path or basename(echoed) == basename(str(path))


# -- building ops -----------------------------------------------------------------------------


def read_op(file_obj: dict[str, Any], source: str) -> rp.Op | None:
    """A Read echo (``toolUseResult.file``, or a ``file`` attachment's) as a snapshot or a
    window; None when it carries no usable text (a blanked or unchanged echo, a record
    whose counts disagree with its text)."""
    content = file_obj.get("content")
    if not isinstance(content, str):
        return None
    start = _int(file_obj.get("startLine"), 1) or 1
    num = _int(file_obj.get("numLines"), None)
    total = _int(file_obj.get("totalLines"), None)
    truncated = file_obj.get("truncatedByTokenCap") is True
    if content == "":
        if num or total:
            return None  # the harness blanked an old result's text: nothing was kept
        return rp.Snapshot(("",), source) if start == 1 else None  # an empty file
    lines = rp.split_content(content)
    if num is not None and num != len(lines):
        if num == len(lines) - 1 and lines[-1] == "":
            pass  # a writer that counts terminated lines: the text itself is exact
        else:
            return None
    if truncated:
        lines = lines[:-1]  # the last kept line may be cut
        if not lines:
            return None
        return rp.Window(max(1, start), lines, None, source)
    if start == 1 and (total is None or len(lines) >= total) and (num is None or total is None
                                                                    or num >= total):
        return rp.Snapshot(lines, source)
    return rp.Window(max(1, start), lines, total, source)


def file_op(name: str, tool_input: dict[str, Any], echo: dict[str, Any] | None,
            text: str) -> rp.Op | None:
    """The op a successful Read/Write/Edit/MultiEdit/NotebookEdit result stands for. A
    Read that kept no text is None (it changed nothing); a write call that did not error
    but cannot be read is ``Unreadable`` (a hole), never None: it may have changed the
    file."""
    if name == "Read":
        if echo is not None:
            if echo.get("type") == "file_unchanged":
                return None
            file_obj = echo.get("file")
            if isinstance(file_obj, dict) and echo.get("type") in (None, "text"):
                return read_op(file_obj, rp.SOURCE_FULL_READ)
            return None
        return gutter_read(tool_input, text)
    if name == "Write":
        content = echo.get("content") if echo is not None else None
        if not isinstance(content, str):
            content = tool_input.get("content")
        if not isinstance(content, str):
            return rp.Unreadable(name, "its content is not a string")
        return rp.Snapshot(rp.split_content(content), rp.SOURCE_WRITE)
    if name in ("Edit", "MultiEdit"):
        hunks = _hunks(echo.get("structuredPatch")) if echo is not None else ()
        replacements = _replacements(name, tool_input, echo)
        if not replacements and not hunks:
            what = "old and new strings" if name == "Edit" else (
                "edits (a list of objects with string old and new texts)")
            return rp.Unreadable(name, f"no readable {what} and no structuredPatch")
        original = None
        if echo is not None:
            key = "originalFile" if name == "Edit" else "originalFileContents"
            value = echo.get(key, echo.get("originalFile"))
            original = value if isinstance(value, str) else None
        creation = name == "Edit" and replacements and replacements[0].old == ""
        return rp.Edit(() if creation else hunks, replacements, None if creation else original,
                       stale_recovered=echo is not None and echo.get("staleRecovered") is True)
    # NotebookEdit (a cell edit of the notebook's JSON), or a tool this reader does not know
    return rp.Unreadable(name, "a notebook cell edit, which the replay cannot place in the "
                         "file's lines" if name == "NotebookEdit" else "an unknown edit")


def _replacements(name: str, tool_input: dict[str, Any], echo: dict[str, Any] | None
                  ) -> tuple[rp.Replacement, ...]:
    """The string edits of a call: the result's echo when it holds readable ones, else
    the call's input; () when neither does (every edit must be readable: one that is
    not leaves the whole call unreadable)."""
    if name == "Edit":
        if echo is not None and "oldString" in echo:
            old, new = echo.get("oldString"), echo.get("newString")
            if isinstance(old, str) and isinstance(new, str):
                return (_replacement(old, new, echo.get("replaceAll") is True, tool_input,
                                     recorded=True),)
        old, new = tool_input.get("old_string"), tool_input.get("new_string")
        if isinstance(old, str) and isinstance(new, str):
            return (_replacement(old, new, tool_input.get("replace_all") is True, tool_input,
                                 recorded=False),)
        return ()
    if echo is not None:
        recorded = _edit_list(echo.get("edits"), tool_input, recorded=True)
        if recorded:
            return recorded
    return _edit_list(tool_input.get("edits"), tool_input, recorded=False)


def _edit_list(edits: object, tool_input: dict[str, Any], *, recorded: bool
               ) -> tuple[rp.Replacement, ...]:
    """A MultiEdit's ``edits`` as replacements: () unless it is a non-empty list of objects
    each with string ``old_string`` and ``new_string``."""
    if not isinstance(edits, list):
        return ()
    out = []
    for e in edits:
        if not (isinstance(e, dict) and isinstance(e.get("old_string"), str)
                and isinstance(e.get("new_string"), str)):
            return ()
        out.append(_replacement(e["old_string"], e["new_string"], e.get("replace_all") is True,
                                tool_input, recorded=recorded))
    return tuple(out)


_MARKDOWN = re.compile(r"\.(md|mdx)$", re.IGNORECASE)
_LINE_BREAK = re.compile(r"(\r\n|\n|\r)")
#: JavaScript's \s (Python's also holds \x1c-\x1f and \x85, which Claude Code keeps)
_TRAILING_BLANKS = re.compile("[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+$")


def _replacement(old: str, new: str, every: bool, tool_input: dict[str, Any], *,
                 recorded: bool) -> rp.Replacement:
    """One string edit. Known only from the model's input (no result echo), its new text
    may not be what Claude Code wrote: the versions that normalise it strip each line's
    trailing blanks outside markdown files; the replay then keeps only the lines both
    spellings agree on."""
    path = tool_input.get("file_path")
    if recorded or (isinstance(path, str) and _MARKDOWN.search(path)):
        return rp.Replacement(old, new, every)
    stripped = "".join(part if i % 2 else _TRAILING_BLANKS.sub("", part)
                       for i, part in enumerate(_LINE_BREAK.split(new)))
    return rp.Replacement(old, new, every, alt=stripped if stripped != new else None)


def _hunks(value: object) -> tuple[rp.Hunk, ...]:
    if not isinstance(value, list):
        return ()
    out = []
    for h in value:
        if not isinstance(h, dict):
            return ()
        start, old_n, new_n = h.get("oldStart"), h.get("oldLines"), h.get("newLines")
        lines = h.get("lines")
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, old_n, new_n)) \
                or not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
            return ()
        out.append(rp.Hunk(start, old_n, new_n, tuple(lines)))  # type: ignore[arg-type]
    return tuple(out)


def _int(value: object, default: int | None) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _gutter_pairs(text: str) -> Iterator[tuple[int, str]]:
    for raw in text.split("\n"):
        m = _GUTTER.match(raw)
        if m:
            yield int(m.group(1)), m.group(2)


def gutter_read(tool_input: dict[str, Any], text: str) -> rp.Op | None:
    """A Read known only from the ``cat -n`` text the model saw (no structured echo, as
    subagent transcripts record it). The text shows every line of the window, the empty
    last line of a newline-terminated file included, so it is exact. It is the whole file
    only when nothing bounded the read: no offset, fewer lines than the limit (Read's
    default when none was given), nothing but a system reminder after the lines, and no
    line long enough to have been truncated for display."""
    body, _, _ = text.partition(_REMINDER)
    rows = body.split("\n")
    pairs: list[tuple[int, str]] = []
    rest: list[str] = []
    for i, raw in enumerate(rows):
        m = _GUTTER.match(raw)
        if m is None or (pairs and int(m.group(1)) != pairs[-1][0] + 1):
            if pairs:
                rest = rows[i:]
                break
            continue
        pairs.append((int(m.group(1)), m.group(2)))
    if not pairs:
        return None
    start = pairs[0][0]
    lines = tuple(line for _, line in pairs)
    long_at = next((i for i, line in enumerate(lines) if len(line) >= READ_LINE_CHARS), None)
    if long_at is not None:
        return rp.Window(start, lines[:long_at], None) if long_at else None
    offset, limit = tool_input.get("offset"), tool_input.get("limit")
    limit = limit if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0 \
        else READ_DEFAULT_LIMIT
    unbounded = offset in (None, 0, 1) and len(lines) < limit
    clean_tail = not "".join(rest).strip()
    if start == 1 and unbounded and clean_tail:
        return rp.Snapshot(lines, rp.SOURCE_FULL_READ)
    return rp.Window(start, lines, None)


DETAIL_CHARS = 400


def first_line(text: str) -> str:
    """An error result's first line (its tags dropped), the detail of its boundary: at
    most ``DETAIL_CHARS`` characters, a longer one cut with the ``… (+N chars)`` mark."""
    from pysift.core.text import clip

    for line in text.split("\n"):
        line = re.sub(r"</?tool_use_error>", "", line).strip()
        if line:
            return clip(line, DETAIL_CHARS)[0]
    return ""


def classify_error(text: str) -> str | None:
    """The integrity class of an errored Read/Write/Edit result (None: another error)."""
    if "has been modified since read" in text or "File has been modified" in text:
        return rp.MODIFIED_SINCE_READ
    if "has not been read yet" in text:
        return rp.NOT_READ_YET
    if "String to replace not found" in text:
        return rp.STRING_NOT_FOUND
    if "File does not exist" in text:
        return rp.FILE_NOT_EXIST
    return None


_HINT = re.compile(r"^\[This command modified [^:\]]*?read: (.*?)"
                   r"(?:\.\s*Call Read before editing\.)?\]?\s*$", re.DOTALL)


def parse_stale_hint(hint: str) -> list[str]:
    """The paths a ``staleReadFileStateHint`` names (at most five; a truncated ``and N
    more`` remainder names none)."""
    m = _HINT.match(hint.strip())
    if m is None:
        return []
    body = re.sub(r" and \d+ more$", "", m.group(1))
    return [p.strip() for p in body.split(", ") if p.strip()]


def scan_transcript(transcript: Transcript, index: TargetIndex, *, gate: Target | None,
                    turns: bool = True, lines: bool = True) -> TranscriptScan:
    """The events of every target of ``index`` in one transcript. ``gate`` (single-file
    mode) skips a transcript without the file's basename undecoded. Without ``turns``
    every event is in turn 0 (batch mode shows no turn and, unless a turn window or an
    ``@turn`` cutoff asks, needs none: the turn map is a walk of every user line); without
    ``lines`` the events' coordinates are byte offsets, ordered like the jsonl lines but
    no line numbers (batch mode, unless an ``@line`` cutoff asks)."""
    try:
        buf = open_buffer(transcript.path)
    except SourceError as exc:
        return TranscriptScan(transcript, error=str(exc))
    if gate is not None and not gate_passes(buf, gate):
        # never decoded, but its malformed lines are counted (the shape check alone)
        return TranscriptScan(transcript, gated_out=True,
                              skipped_lines=len(unframed_lines(buf)))
    return _Scanner(transcript, buf, index, turns, lines).run()


def account_transcript(transcript: Transcript, index: TargetIndex, files: dict[int, set[str]],
                       *, turns: bool = True, lines: bool = True) -> TranscriptScan:
    """The window account of one transcript of a session group whose other transcripts
    hold events of the files ``files`` names (target -> absolute paths) and it none: its
    opaque commands and the Bash calls that may change those files (a sibling subagent's
    ``sed -i … *.txt`` never spells the file, so the gate passed it over). Its malformed
    lines were counted by the first pass."""
    try:
        buf = open_buffer(transcript.path)
    except SourceError as exc:
        return TranscriptScan(transcript, error=str(exc))
    return _Scanner(transcript, buf, index, turns, lines).account(files)
