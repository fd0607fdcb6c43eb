"""Which plan file is BOUND to a transcript (SPEC §6.7.1), and the ``@plan`` sigil.

Two binding laws, in precedence order, never a path heuristic:

1. ``plan_mode``: Claude Code writes an attachment record on entering Plan Mode,
   ``{"type":"attachment","attachment":{"type":"plan_mode","planFilePath":…}}``. Its
   ``planFilePath`` IS the bound plan (every such record in a transcript names the same
   file; the latest wins, as only ``planExists`` flips). A session may Edit or Write
   other sessions' plan files as ordinary tool calls; those never bind.
2. ``slug-only``: with no ``plan_mode`` record, Claude Code binds the FIRST record carrying
   a VALID ``slug`` (lowercase alphanumeric head, alphanumeric/dash tail, at most 120
   chars) to ``<plans-dir>/<slug>.md``. A forked clone (attachments stripped, slug records
   kept) gets its plan re-injected this way. The plans dir is ``plansDirectory`` from the
   MERGED settings (user ``<claude-home>/settings.json``, then project
   ``<root>/.claude/settings.json``, then local ``<root>/.claude/settings.local.json``;
   later scopes win), resolved against the project root = the transcript's FIRST recorded
   ``cwd`` and accepted only when it stays inside that root; else ``<claude-home>/plans``.
   A subagent inherits its parent's slug (the slug names the PARENT's plan), so the slug
   law binds top-level transcripts only; a subagent binds through its own ``plan_mode``.

The plan name is minted at Plan-Mode entry and the ``.md`` lands only when content is
first written, so a binding whose file is absent (``plan_exists`` False) is a real state,
not an error.
"""

from __future__ import annotations

import ntpath
import os
import posixpath
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pysift.core.decode import Tally, decode, unframed_lines
from pysift.core.settings import read_scopes, settings_files
from pysift.disk.home import ARCHIVE_MANIFEST
from pysift.disk.layout import Transcript, is_windows_rooted, windows_identity
from pysift.disk.lines import Buffer, count_in, line_end, line_start
from pysift.disk.mapped import open_buffer, read_regular
from pysift.errors import SourceError
from pysift.model.env import Env
from pysift.model.fastdata import dataclass
from pysift.model.record import Record, block_name

if TYPE_CHECKING:
    from pysift.core.resolve import Scope

PLAN_SIGIL = "@plan"
BINDING_PLAN_MODE = "plan_mode"
BINDING_SLUG_ONLY = "slug-only"
PLANS_DIR_NAME = "plans"
ARCHIVE_PLAN_COPIES = "plan_copies"  # its plans/<name> -> the file copied (archive writes)
SETTINGS_KEY = "plansDirectory"
SLUG_MAX = 120
MUTATION_TOOLS = {"Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path",
                  "NotebookEdit": "notebook_path"}

_SLUG = re.compile(r"[a-z0-9][a-z0-9-]*")
_PLAN_MODE = b"plan_mode"
_SLUG_KEY = b'"slug"'
_EXIT_PLAN_MODE = b'"ExitPlanMode"'
_CWD_KEY = b'"cwd"'
_MUTATION_KEYS = (b'"file_path"', b'"notebook_path"')


def slug_is_valid(slug: object) -> bool:
    """Claude Code's rule: ``[a-z0-9][a-z0-9-]*``, at most 120 characters."""
    return isinstance(slug, str) and len(slug) <= SLUG_MAX and _SLUG.fullmatch(slug) is not None


@dataclass(frozen=True)
class PlanBinding:
    """The plan bound to one transcript and where the binding was read."""

    transcript: Transcript
    plan_file: str
    plan_exists: bool
    line: int
    slug: str | None
    binding_source: str  # BINDING_PLAN_MODE | BINDING_SLUG_ONLY
    minted_at_compaction: bool = False
    notes: tuple[str, ...] = ()
    recorded_file: str | None = None  # the path the record names, when plan_file relocated it

    @property
    def names(self) -> tuple[str, ...]:
        """Every path this binding answers to: the plan file, and the recorded path it was
        relocated from (an edit or a `--reverse` names the file as the records do)."""
        return (self.plan_file,) if self.recorded_file is None else \
            (self.plan_file, self.recorded_file)

    @property
    def sort_key(self) -> tuple[bool, str]:
        """Top-level first, then by id (the order rows are emitted in)."""
        return self.transcript.is_subagent, self.transcript.session_id


# -- reading candidate lines -----------------------------------------------------------------


class _LineNumbers:
    """1-based line numbers for increasing offsets; each byte is counted once."""

    __slots__ = ("_buf", "_line", "_pos")

    def __init__(self, buf: Buffer) -> None:
        self._buf, self._pos, self._line = buf, 0, 1

    def at(self, offset: int) -> int:
        if offset < self._pos:
            self._pos, self._line = 0, 1
        self._line += count_in(self._buf, b"\n", self._pos, offset)
        self._pos = offset
        return self._line


def candidate_lines(buf: Buffer, needles: Sequence[bytes], tally: Tally | None = None,
                    parsed: set[int] | None = None) -> Iterable[Record]:
    """Decoded records of the lines holding any of ``needles``, in file order.

    The needles are found by whole-buffer searches, so a transcript with none of them is
    never split into lines; malformed candidates count in ``tally``, and ``parsed``
    (when given) collects the start of every line decoded. One needle is found lazily,
    a line at a time: a caller that stops at the first good record (the first cwd, the
    first valid slug) does not search the rest of the file.
    """
    if len(needles) == 1:
        yield from _lazy_candidates(buf, needles[0], tally, parsed)
        return
    starts: set[int] = set()
    for needle in needles:
        pos = buf.find(needle)
        while pos >= 0:
            starts.add(line_start(buf, pos))
            pos = buf.find(needle, line_end(buf, pos) + 1)
    numbers = _LineNumbers(buf)
    if parsed is not None:
        parsed.update(starts)
    for start in sorted(starts):
        rec = decode(buf[start : line_end(buf, start)], numbers.at(start), tally)
        if rec is not None:
            yield rec


def _lazy_candidates(buf: Buffer, needle: bytes, tally: Tally | None,
                     parsed: set[int] | None) -> Iterable[Record]:
    numbers = _LineNumbers(buf)
    pos = buf.find(needle)
    while pos >= 0:
        start, end = line_start(buf, pos), line_end(buf, pos)
        if parsed is not None:
            parsed.add(start)
        rec = decode(buf[start:end], numbers.at(start), tally)
        if rec is not None:
            yield rec
        pos = buf.find(needle, end + 1)


def _plan_mode_payload(rec: Record) -> dict[str, Any] | None:
    if rec.type != "attachment":
        return None
    payload = rec.raw.get("attachment")
    if not isinstance(payload, dict) or payload.get("type") != BINDING_PLAN_MODE:
        return None
    path = payload.get("planFilePath")
    return payload if isinstance(path, str) and path else None


def first_recorded_cwd(buf: Buffer) -> str | None:
    """The ``cwd`` of the first record carrying one: Claude Code's project root for the
    plans dir (a later record's cwd may have followed a shell ``cd``)."""
    for rec in candidate_lines(buf, (_CWD_KEY,)):
        if rec.cwd:
            return rec.cwd
    return None


# -- the plans directory ---------------------------------------------------------------------


@dataclass
class PlansDir:
    path: Path
    notes: list[str] = field(default_factory=list)
    windows: bool = False  # a configured dir under a root recorded on Windows

    def file(self, name: str) -> str:
        """``name`` inside the dir, joined by the rules of the machine that names it."""
        return ntpath.join(str(self.path), name) if self.windows else str(self.path / name)


def absolute_home(env: Env) -> Path:
    home = env.claude_home
    return home if home.is_absolute() else Path(os.path.normpath(env.cwd / home))


def _is_within(path: str, root: str, sep: str = os.sep) -> bool:
    """Lexical containment (Claude Code also walks symlinks; that leg is not modelled)."""
    if path == root:
        return True
    return path.startswith(root if root.endswith(sep) else root + sep)




def _path_rules(project_root: str):  # type: ignore[no-untyped-def]
    """The path module of the machine that recorded ``project_root``: a transcript written
    on Windows (`d:\\work`, a UNC root) joins and contains with Windows rules, wherever
    pysift reads it."""
    return ntpath if is_windows_rooted(project_root) else os.path


def plans_dir(env: Env, project_root: str | None) -> PlansDir:
    """``plansDirectory`` from the merged settings, contained in the root, else the default."""
    home = absolute_home(env)
    default = home / PLANS_DIR_NAME
    out = PlansDir(default)
    configured: str | None = None
    source: Path | None = None
    for scope in read_scopes(settings_files(home, project_root)):
        settings = scope.path
        if scope.problem is not None:
            out.notes.append(f"note: {scope.problem}; its settings are ignored (the plans "
                             f"dir falls back past it)")
            continue
        value = scope.values.get(SETTINGS_KEY)
        if value is None:
            continue
        if not isinstance(value, str) or not value.strip():
            out.notes.append(f"note: {settings}: {SETTINGS_KEY} is not a non-empty string; "
                             f"ignored")
            continue
        configured, source = value, settings
    if configured is None:
        return out
    if not project_root:
        out.notes.append(f"note: {SETTINGS_KEY} ({source}) cannot be resolved: the transcript "
                         f"records no cwd; using {default}")
        return out
    rules = _path_rules(project_root)
    root = rules.normpath(project_root)
    resolved = rules.normpath(rules.join(root, configured))
    within = (_is_within(resolved.lower(), root.lower(), rules.sep) if rules is ntpath
              else _is_within(resolved, root))  # Windows paths compare without case
    if not within:
        out.notes.append(
            f"note: {SETTINGS_KEY} `{configured}` ({source}) escapes the project root {root}; "
            f"Claude Code refuses it and uses {default}"
        )
        return out
    out.path = Path(resolved)
    out.windows = rules is ntpath
    return out


# -- one transcript --------------------------------------------------------------------------


def _plan_mode_binding(buf: Buffer, transcript: Transcript, env: Env) -> PlanBinding | None:
    """The LATEST valid ``plan_mode`` attachment binds: the file is read backward from its
    end and the first valid one found is it (the earlier ones are never decoded)."""
    end = len(buf)
    while (pos := buf.rfind(_PLAN_MODE, 0, end)) >= 0:
        start = line_start(buf, pos)
        end = start  # the next search looks before this line
        rec = decode(buf[start : line_end(buf, pos)], None)
        payload = _plan_mode_payload(rec) if rec is not None else None
        if rec is None or payload is None:
            continue
        # numbered once, the binding found: a line that only mentions plan_mode (a session
        # discussing Plan Mode has them by the thousand) is never counted up to
        line = _LineNumbers(buf).at(start)
        recorded = payload["planFilePath"]
        plan_file, notes = relocated_plan(recorded, env)
        return PlanBinding(transcript, plan_file, Path(plan_file).is_file(), line,
                           rec.slug, BINDING_PLAN_MODE, notes=notes,
                           recorded_file=recorded if plan_file != recorded else None)
    return None


def relocated_plan(recorded: str, env: Env) -> tuple[str, tuple[str, ...]]:
    """The recorded plan path, or, when it does not exist but the same file name does in
    this Claude home's ``plans/`` dir (a home copied, synced or mounted elsewhere: the
    records keep the old absolute path), that file, with a note saying so; over an
    archive, only when that file is the copy of this plan (``archived_copy``)."""
    if Path(recorded).is_file():
        return recorded, ()
    name = _file_name(recorded)
    parent = recorded.replace("\\", "/").rsplit("/", 2)[-2:-1]
    local = env.claude_home / "plans" / name
    if name and parent == ["plans"] and local.is_file():
        copied = _copy_source(absolute_home(env), name)
        if copied is None or _is_copy_of(recorded, name, *copied):  # no record: as ever
            return str(local), (f"note: the recorded plan path {recorded} does not exist; "
                                f"the same plan file is in this Claude home: {local}",)
        return recorded, (_other_copy_note(recorded, local, copied[0]),)
    return archived_copy(recorded, env) or (recorded, ())


def _file_name(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def _other_copy_note(named: str, copy: Path, source: str) -> str:
    return (f"note: the bound plan path {named} does not exist, and this archive's {copy} "
            f"is not its copy: it was copied from {source}, another plan file of that name")


#: the last manifest read, by path and (size, mtime): every slug binding over an archive
#: checks it, and a corpus-wide scan (``--reverse``) must not parse it once per transcript
_LAST_MANIFEST: list[tuple[str, tuple[int, int], dict[str, Any] | None]] = []


def _archive_manifest(home: Path) -> dict[str, Any] | None:
    """``archive``'s manifest when ``home`` is an archive and it can be read, else None."""
    manifest_path = home / ARCHIVE_MANIFEST
    try:
        st = manifest_path.stat()
    except OSError:
        return None
    stamp = (st.st_size, st.st_mtime_ns)
    if _LAST_MANIFEST and _LAST_MANIFEST[0][:2] == (str(manifest_path), stamp):
        return _LAST_MANIFEST[0][2]
    from pysift.disk import jsonline  # only over an archive

    try:
        loaded = jsonline.loads(read_regular(manifest_path))
    except (OSError, ValueError):  # orjson's JSONDecodeError is a ValueError
        loaded = None
    manifest = loaded if isinstance(loaded, dict) else None
    _LAST_MANIFEST[:] = [(str(manifest_path), stamp, manifest)]
    return manifest


def _copy_source(home: Path, name: str, manifest: dict[str, Any] | None = None
                 ) -> tuple[str, list[str]] | None:
    """Over an archive, the file its ``plans/<name>`` was copied from and the homes the
    archive was made from (``archive`` records both in its manifest); None when ``home``
    is no archive, its manifest cannot be read, or it records no source for the name (an
    archive made before the record was kept: the next run records it)."""
    if manifest is None:
        manifest = _archive_manifest(home)
    if manifest is None:
        return None
    copies, homes = manifest.get(ARCHIVE_PLAN_COPIES), manifest.get("homes")
    source = copies.get(f"{PLANS_DIR_NAME}/{name}") if isinstance(copies, dict) else None
    if not isinstance(source, str):
        return None
    return source, [h for h in homes if isinstance(h, str)] if isinstance(homes, list) else []


def _is_copy_of(named: str, name: str, source: str, homes: list[str]) -> bool:
    """Whether the archive's copy was made from the file ``named`` resolved to when it
    was archived: that path itself, or (a ``plans/`` parent, gone from that home, and not
    itself a home archived from) the same name in the ``plans/`` dir of a home it was
    archived from."""
    if os.path.normpath(source) == os.path.normpath(named):
        return True
    in_homes = [os.path.normpath(os.path.join(h, PLANS_DIR_NAME, name)) for h in homes]
    if os.path.normpath(named) in in_homes:
        # a home archived from names its own plans/<name>: only that file's copy is its
        # copy (two homes archived into one DEST each had one)
        return False
    parent = named.replace("\\", "/").rsplit("/", 2)[-2:-1]
    return parent == [PLANS_DIR_NAME] and os.path.normpath(source) in in_homes


def archived_copy(named: str, env: Env) -> tuple[str, tuple[str, ...]] | None:
    """Over an archive (a home holding ``.pysift/archive.json``), the copy ``archive`` made
    of a bound plan that is not where its binding puts it, with a note; else None.

    ``archive`` keeps every bound plan as ``DEST/plans/<file name>``, wherever it lay (a
    ``plansDirectory`` of the project's, a dir not named ``plans``); once the original was
    deleted, ``plan`` over the archive called the plan missing while the archive held it
    (the relocation above takes only a ``plans/`` parent). The copy is taken only when the
    archive's manifest says it was made from this very file: two bound plans of one name
    share one ``DEST/plans/<name>``, so for the other one the plan stays where it was
    bound (missing), with a note, rather than answered by the other's text."""
    name = _file_name(named)
    home = absolute_home(env)
    copy = home / PLANS_DIR_NAME / name
    if not name or not copy.is_file():
        return None
    copied = _copy_source(home, name)
    if copied is None:
        return None
    if not _is_copy_of(named, name, *copied):
        return named, (_other_copy_note(named, copy, copied[0]),)
    return str(copy), (f"note: the bound plan path {named} does not exist; this archive "
                       f"holds the copy `pysift archive` made of it: {copy}",)


def _archived_binding_file(manifest: dict[str, Any], home: Path, transcript: Transcript,
                           env: Env) -> str | None:
    """The plan file ``archive`` read ``transcript``'s binding to name when it archived it
    (the manifest's ``bindings[<rel>]["plan"]``: ``[law, file]``), or None when it
    recorded none for the transcript (or the transcript lies outside ``home``)."""
    path = transcript.path if transcript.path.is_absolute() else env.cwd / transcript.path
    prefix = os.path.join(os.fspath(home), "")
    full = os.path.normpath(path)
    if not full.startswith(prefix):
        return None
    bindings = manifest.get("bindings")
    entry = bindings.get(full[len(prefix):].replace(os.sep, "/")) \
        if isinstance(bindings, dict) else None
    bound = entry.get("plan") if isinstance(entry, dict) else None
    if isinstance(bound, list) and len(bound) == 2 and isinstance(bound[1], str) and bound[1]:
        return bound[1]
    return None


def _archive_slug_copy(plan_file: str, transcript: Transcript, env: Env
                       ) -> tuple[str, bool, tuple[str, ...]] | None:
    """Over an archive, the slug law lands on the archive's own ``plans/<slug>.md`` (its
    plans dir is the home's, the project's ``plansDirectory`` being gone or never set);
    that file is the copy of ONE bound plan of that name, maybe another session's (a
    project's ``plansDirectory``, another home archived into the same DEST). The same
    ``plan_copies`` check as a gone path's: the copy answers when it was made from the
    file this transcript named when archived (the manifest's binding for it; with none
    recorded, the slug law's file in a home archived from). Else the plan is the file the
    transcript named (its own text, if it is still there) or, unknown, missing; with a
    note, never the other's text. None: no such check applies (answer ``plan_file``)."""
    home = absolute_home(env)
    name = _file_name(plan_file)
    if not same_file(plan_file, str(home / PLANS_DIR_NAME / name)):
        return None
    manifest = _archive_manifest(home)
    copied = _copy_source(home, name, manifest) if manifest is not None else None
    if manifest is None or copied is None:
        return None  # no archive, or no record of the copy's source: as ever
    source, homes = copied
    named = _archived_binding_file(manifest, home, transcript, env)
    if _is_copy_of(named or plan_file, name, source, homes):
        return None
    if named is not None:
        exists = Path(named).is_file()
        return named, exists, (
            f"note: this archive's {plan_file} is not this session's plan: it was copied "
            f"from {source}, another plan file of that name; the session bound {named} "
            f"when it was archived" + ("" if exists else ", which does not exist"),)
    return plan_file, False, (
        f"note: this archive's {plan_file} was copied from {source}, a plan file of that "
        f"name outside the plans/ dir of the homes archived from, and the archive does not "
        f"record which file this session bound, so it is not taken as this session's plan",)


def _slug_binding(buf: Buffer, transcript: Transcript, env: Env) -> PlanBinding | None:
    for rec in candidate_lines(buf, (_SLUG_KEY,)):
        slug = rec.slug
        if not slug_is_valid(slug) or rec.line is None:
            continue
        directory = plans_dir(env, first_recorded_cwd(buf))
        plan_file = directory.file(f"{slug}.md")
        minted = rec.type == "system" and rec.subtype == "compact_boundary"
        notes = tuple(directory.notes)
        other = _archive_slug_copy(plan_file, transcript, env) \
            if Path(plan_file).is_file() else None
        if other is not None:  # the archive's plans/<slug>.md is another plan's copy
            return PlanBinding(transcript, other[0], other[1], rec.line, slug,
                               BINDING_SLUG_ONLY, minted, notes + other[2])
        archived = None if Path(plan_file).is_file() else archived_copy(plan_file, env)
        if archived is not None and archived[0] == plan_file:  # another plan's copy: missing
            notes += archived[1]
        elif archived is not None:  # the law's file is gone; the archive kept it
            return PlanBinding(transcript, archived[0], True, rec.line, slug,
                               BINDING_SLUG_ONLY, minted, notes + archived[1],
                               recorded_file=plan_file)
        return PlanBinding(transcript, plan_file, Path(plan_file).is_file(), rec.line, slug,
                           BINDING_SLUG_ONLY, minted, notes)
    return None


def inherited_slug(transcripts: Iterable[Transcript]) -> str | None:
    """The first valid slug the subagent ``transcripts`` carry (their session's: a subagent
    inherits it), for a note when the session's own transcript is gone; unreadable lanes
    are passed over (the binding reads already warned of them)."""
    for transcript in transcripts:
        try:
            buf = open_buffer(transcript.path)
        except SourceError:
            continue
        for rec in candidate_lines(buf, (_SLUG_KEY,)):
            if slug_is_valid(rec.slug):
                return rec.slug
    return None


def resolve_plan_path(transcript: Transcript, env: Env, buf: Buffer | None = None
                      ) -> PlanBinding | None:
    """The plan bound to ``transcript`` by the two laws above, or None (never a guess).

    This is the ``@plan`` resolution ``recover --file @plan`` uses. Raises
    ``SourceError`` when the transcript cannot be read.
    """
    data = open_buffer(transcript.path) if buf is None else buf
    binding = _plan_mode_binding(data, transcript, env)
    if binding is None and not transcript.is_subagent:
        binding = _slug_binding(data, transcript, env)
    return binding


def bindings_of(transcripts: Iterable[Transcript], env: Env,
                inline: list[InlinePlans] | None = None
                ) -> tuple[list[PlanBinding], list[str]]:
    """Every binding in ``transcripts`` (sorted top-level first, then id) + read warnings.
    ``inline`` (when given) collects the unbound transcripts whose plans live in their
    ExitPlanMode calls."""
    out: list[PlanBinding] = []
    warnings: list[str] = []
    for transcript in transcripts:
        try:
            buf = open_buffer(transcript.path)
            binding = resolve_plan_path(transcript, env, buf)
        except SourceError as exc:
            warnings.append(f"warning: skipped: {exc}")
            continue
        if binding is not None:
            out.append(binding)
        elif inline is not None and (lines := exit_plan_mode_lines(buf)):
            inline.append(InlinePlans(transcript, lines))
    out.sort(key=lambda b: b.sort_key)
    return out, warnings


@dataclass(frozen=True)
class InlinePlans:
    """A transcript that binds no plan file but proposed plans: Claude Code before plan
    files (1.x, early 2.0: no ``plan_mode`` attachment, no ``slug``) kept each plan in its
    ExitPlanMode call's ``input.plan``, so such a session DID enter Plan Mode."""

    transcript: Transcript
    lines: tuple[int, ...]  # the lines of its ExitPlanMode calls


def exit_plan_mode_lines(buf: Buffer) -> tuple[int, ...]:
    """The lines of the assistant records holding an ExitPlanMode call (one whole-buffer
    search for the quoted name; only the lines holding it are decoded)."""
    lines: list[int] = []
    for rec in candidate_lines(buf, (_EXIT_PLAN_MODE,)):
        if rec.type == "assistant" and rec.line is not None and any(
                block_name(b) == "ExitPlanMode" for b in rec.blocks_of("tool_use")):
            lines.append(rec.line)
    return tuple(lines)


def plan_key(path: str) -> str:
    """A plan path as absolute-path identity compares it: lexically normalised (no symlink
    resolution), and a path recorded on Windows (a drive letter, a UNC share) by Windows
    rules wherever pysift runs: either separator, any case (`C:/…/x.md` is `c:\\…\\x.md`)."""
    if is_windows_rooted(path):
        return windows_identity(path)
    return os.path.normpath(path)


def same_file(a: str, b: str) -> bool:
    """Absolute-path identity (``plan_key``)."""
    return plan_key(a) == plan_key(b)


def inline_plans_text(inline: Sequence[InlinePlans], named: int = 5) -> str:
    """What ``plan``'s note and ``@plan``'s error say of sessions whose plans live only in
    their ExitPlanMode calls: the sessions with their calls' lines (the first ``named``,
    then a count) and the ``search`` that prints the plans. One wording for both, so the
    two answers never disagree on where such a plan is."""
    ordered = sorted(inline, key=lambda p: p.transcript.session_id)
    names = [f"@{p.transcript.session_id} ({', '.join(f'L{n}' for n in p.lines)})"
             for p in ordered[:named]]
    more = f" and {len(ordered) - named} more" if len(ordered) > named else ""
    first = ordered[0].transcript.session_id
    return (f"{len(ordered)} session(s) in scope bind no plan file but called "
            f"ExitPlanMode, the plan held in the call itself (Claude Code before plan files): "
            f"{'; '.join(names)}{more}; read the plans with `pysift search ExitPlanMode "
            f"@{first} -t agent.tool.use --no-truncate`")


def choose_plan(bindings: Sequence[PlanBinding], inline: Sequence[InlinePlans] = ()
                ) -> PlanBinding | str:
    """The ONE plan ``@plan`` names in a scope, or the reason there is none.

    The top-level sessions' plans win over subagents'; two different files among the
    chosen band is ambiguity (the caller errors and asks for ``@<uuid>``). With no binding,
    ``inline`` (``bindings_of``'s finding) decides the reason: a session that proposed its
    plans in ExitPlanMode calls DID enter Plan Mode, and "a session has a plan only once it
    entered Plan Mode" sent its user looking for a plan it never had, not to the calls.
    """
    if not bindings and inline:
        return (f"no plan file is bound to the target session(s), so there is no file to "
                f"recover: {inline_plans_text(inline)}")
    if not bindings:
        return ("no plan file is bound to the target session(s): no `plan_mode` attachment "
                "and no slug-carrying record (a session has a plan only once it entered Plan "
                "Mode or was forked from one); to recover an ordinary file pass its path")
    top = [b for b in bindings if not b.transcript.is_subagent]
    pool = top or list(bindings)
    by_key = {plan_key(b.plan_file): os.path.normpath(b.plan_file) for b in pool}
    files = sorted(by_key.values())
    if len(files) > 1:
        return (f"the target spans sessions bound to DIFFERENT plan files ({', '.join(files)}); "
                f"name one session with @<uuid>")
    return pool[0]


# -- --audit -----------------------------------------------------------------------------------


@dataclass
class PlanEdit:
    """Structured mutations one owning session made to a file some session binds."""

    owner: str
    path: str
    mutations: int
    bound_by_owner: bool
    binder: PlanBinding | None


@dataclass
class StructuredEdits:
    # (owning session, plan_key of the path) -> calls; the path as the first call spelled it
    counts: dict[tuple[str, str], int] = field(default_factory=dict)
    skipped_lines: int = 0
    spellings: dict[tuple[str, str], str] = field(default_factory=dict)


def structured_edits(transcripts: Iterable[Transcript]) -> StructuredEdits:
    """Write/Edit/MultiEdit/NotebookEdit calls, counted per (owning session, path).

    Only structured tool calls: a shell-side edit (``sed -i``, a redirect) is outside the
    audit by design. The owner is the top-level session a transcript belongs to. Malformed
    lines: the decoded candidates count as the decoder finds them, every other line by
    the shape check (``unframed_lines``), so ``skipped_lines`` is exact.
    """
    out = StructuredEdits()
    tally = Tally()
    for transcript in transcripts:
        try:
            buf = open_buffer(transcript.path)
        except SourceError:
            continue
        parsed: set[int] = set()
        for rec in candidate_lines(buf, _MUTATION_KEYS, tally, parsed):
            for block in rec.blocks_of("tool_use"):
                key = MUTATION_TOOLS.get(block_name(block) or "")
                tool_input = block.get("input")
                path = tool_input.get(key) if key and isinstance(tool_input, dict) else None
                if isinstance(path, str) and path:
                    ident = (transcript.parent_session_id, plan_key(path))
                    out.counts[ident] = out.counts.get(ident, 0) + 1
                    out.spellings.setdefault(ident, path if is_windows_rooted(path)
                                             else os.path.normpath(path))
        tally.malformed += sum(1 for start in unframed_lines(buf) if start not in parsed)
    out.skipped_lines = tally.malformed
    return out


def join_edits(edits: StructuredEdits, corpus_bindings: Sequence[PlanBinding]) -> list[PlanEdit]:
    """Keep the edited paths that ARE some session's bound plan; mark who binds them."""
    binders: dict[str, list[PlanBinding]] = {}
    for b in corpus_bindings:
        for name in dict.fromkeys(plan_key(name) for name in b.names):
            binders.setdefault(name, []).append(b)
    rows: list[PlanEdit] = []
    for (owner, key), n in sorted(edits.counts.items()):
        bound = binders.get(key)
        path = edits.spellings.get((owner, key), key)
        if not bound:
            continue
        ranked = sorted(bound, key=lambda b: (b.transcript.is_subagent,
                                              b.transcript.parent_session_id))
        by_owner = any(b.transcript.parent_session_id == owner for b in ranked)
        other = next((b for b in ranked if b.transcript.parent_session_id != owner), None)
        rows.append(PlanEdit(owner, path, n, by_owner, other or ranked[0]))
    return rows


# -- --reverse: a plan named under another Claude home ---------------------------------------


@dataclass(frozen=True)
class ForeignPlan:
    """A ``--reverse`` path ``<home>/plans/<slug>.md`` whose home is not the one read (the
    transcripts were copied from it, or a session ran with a configured home): the path an
    approval reports, which the slug law, joining the home read, never spells."""

    home: str  # as the user spelled it (separators collapsed)
    slug: str
    windows: bool  # a Windows path: either separator, any case
    claude_named: bool  # the home's own name is `.claude`, Claude Code's default


def foreign_plan(wanted: str, env: Env) -> ForeignPlan | None:
    """``wanted`` read as ``<home>/plans/<slug>.md`` of another home than ``env``'s, or
    None (another shape, an invalid slug, or the home read itself: the slug law names
    that one already)."""
    windows = is_windows_rooted(wanted)
    rules: Any = ntpath if windows else posixpath
    parent, name = rules.split(rules.normpath(wanted))
    home, plans = rules.split(parent)
    fold: Callable[[str], str] = str.lower if windows else str
    if fold(plans) != PLANS_DIR_NAME or not fold(name).endswith(".md") or not home:
        return None
    slug = fold(name[:-3])  # Windows names one file in any case; slugs are lowercase
    if not slug_is_valid(slug) or same_file(
            wanted, str(absolute_home(env) / PLANS_DIR_NAME / f"{slug}.md")):
        return None
    return ForeignPlan(home, slug, windows, fold(rules.basename(home)) == ".claude")


#: characters that end a path spelled in prose or JSON (a home holding one is not told)
_PATH_STOP = frozenset(" \t\r\n\"'`()<>[]{}|,;=*")


def _strings(value: object) -> Iterable[str]:
    """Every string in a decoded record, keys too (a file-history snapshot keys its
    backups by path)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def recorded_homes(buf: Buffer, transcript: Transcript, plan: ForeignPlan) -> tuple[bool, bool]:
    """Whether ``transcript``'s records name ``plan.home`` as its Claude home, and whether
    they name another (absolute) one: its own plan as ``<home>/plans/<slug>.md`` (the
    Write of the plan, an approval's "saved to", a file-history snapshot) or its own
    transcript as ``<home>/projects/<dir>/<id>.jsonl`` (a compaction summary's pointer).
    Only lines holding ``<slug>.md`` or ``<id>.jsonl`` are decoded; a ``~`` or relative
    spelling names no home."""
    sid = transcript.session_id
    tail = re.compile(r"[\\/]+(?:plans[\\/]+" + re.escape(plan.slug) + r"\.md|projects[\\/]+"
                      r"[^\\/\s\"']+[\\/]+" + re.escape(sid) + r"\.jsonl)",
                      re.IGNORECASE if plan.windows else 0)
    keys = (f"{plan.slug}.md", f"{sid}.jsonl")
    sep = r"\\" if plan.windows else "/"

    def norm(text: str) -> str:
        text = re.sub(r"[\\/]+" if plan.windows else "/+", sep, text)
        return text.lower() if plan.windows else text

    home = norm(plan.home).rstrip(sep) or sep
    names = other = False
    for rec in candidate_lines(buf, tuple(k.encode() for k in keys)):
        for text in _strings(rec.raw):
            if not any(k in text for k in keys):
                continue
            for match in tail.finditer(text):
                prefix = norm(text[: match.start()])
                before = prefix[: len(prefix) - len(home)]
                if prefix.endswith(home) and (not before or before[-1] in _PATH_STOP):
                    names = True
                    continue
                start = len(prefix)
                while start and prefix[start - 1] not in _PATH_STOP:
                    start -= 1
                token = prefix[start:]
                other = other or token.startswith("/") or is_windows_rooted(token + sep)
    return names, other


def foreign_binders(found: Sequence[PlanBinding], plan: ForeignPlan, wanted: str, env: Env
                    ) -> tuple[list[PlanBinding], list[str]]:
    """The slug-law binders of ``wanted`` (``plan``) among ``found``, and notes.

    A candidate binds by the slug law to ``<home read>/plans/<slug>.md`` (no configured
    ``plansDirectory``, no archive copy of another file). It binds ``wanted`` when its
    records name ``plan.home`` as its home; when they name another home its plan was that
    home's file, never this one; when they name none, a home named ``.claude`` is taken as
    the copy's origin (the default home's name) and any other name is not (nothing says
    it was a Claude home at all), with a note naming the session. Over an archive, the
    file its manifest says the binding named when archived is a recorded path too."""
    home = absolute_home(env)
    default = str(home / PLANS_DIR_NAME / f"{plan.slug}.md")
    manifest = _archive_manifest(home)
    hits: list[PlanBinding] = []
    notes: list[str] = []
    for b in found:
        if b.binding_source != BINDING_SLUG_ONLY or b.slug != plan.slug \
                or b.recorded_file is not None or not same_file(b.plan_file, default):
            continue
        named = _archived_binding_file(manifest, home, b.transcript, env) \
            if manifest is not None else None
        if named is not None and same_file(named, wanted):  # the archive's record of it
            hits.append(b)
            continue
        try:
            names, other = recorded_homes(open_buffer(b.transcript.path), b.transcript, plan)
        except SourceError:  # read a moment ago by the binding; gone since
            names = other = False
        if names or (plan.claude_named and not other):
            hits.append(b)
        elif other:
            notes.append(f"note: session {b.transcript.session_id} carries slug `{plan.slug}` "
                         f"but its records place its Claude home elsewhere than {plan.home}, "
                         f"so its plan is not {wanted}")
        else:
            notes.append(f"note: session {b.transcript.session_id} carries slug `{plan.slug}` "
                         f"(its plan here: {default}), but nothing in its records names "
                         f"{plan.home} as its Claude home, so it is not taken as a binder "
                         f"of {wanted}")
    return hits, notes


# -- the entry ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlanQuery:
    """What ``plan`` asks of its scope: the scope's bindings (forward), the binders of one
    plan file (``reverse``: an absolute path) or the audit of plan-file edits (``audit``,
    which joins the edits against the bindings of ``corpus()``, every transcript of the
    home, asked only when the scope holds an edit)."""

    reverse: str | None = None
    audit: bool = False
    corpus: Callable[[], Scope] | None = None


@dataclass
class PlanAnswer:
    bindings: list[PlanBinding]  # sorted top-level first, then by id
    # what could not be read, one warning each: transcripts of the scope (and, for the
    # audit's join, of the home)
    warnings: list[str] = field(default_factory=list)
    edits: list[PlanEdit] = field(default_factory=list)  # audit: edits to bound plan files
    skipped_lines: int = 0  # audit: malformed lines among the edit candidates
    inline: list[InlinePlans] = field(default_factory=list)  # forward: plans in calls only
    notes: list[str] = field(default_factory=list)  # reverse: how another home's path bound


def run(transcripts: list[Transcript], query: PlanQuery, env: Env) -> PlanAnswer:
    """The answer to ``query`` over ``transcripts``; a wide scan (a reverse lookup, the
    audit's corpus join) is spread over the cores."""
    if query.reverse is not None:
        wanted = query.reverse
        found, warnings = corpus_bindings(transcripts, env)
        hits = [b for b in found if any(same_file(name, wanted) for name in b.names)]
        foreign = foreign_plan(wanted, env)
        notes: list[str] = []
        if foreign is not None:  # the path as another home spells it: the slug law too
            more, notes = foreign_binders([b for b in found if b not in hits], foreign,
                                          wanted, env)
            hits = sorted([*hits, *more], key=lambda b: b.sort_key)
            if more:
                notes.insert(0, f"note: {wanted} is not in the Claude home read; "
                                f"{len(more)} session(s) bind it by the slug rule, which "
                                f"names it {more[0].plan_file} here")
        return PlanAnswer(hits, warnings, notes=notes)
    if not query.audit:
        inline: list[InlinePlans] = []
        bindings, warnings = bindings_of(transcripts, env, inline)
        return PlanAnswer(bindings, warnings, inline=inline)
    bindings, warnings = bindings_of(transcripts, env)
    edits = structured_edits(transcripts)
    rows: list[PlanEdit] = []
    if edits.counts and query.corpus is not None:  # the join is what names a plan file
        # a binder the home's walk could not read is a plan file the audit cannot name
        corpus = query.corpus()
        found, unread = corpus_bindings(corpus.transcripts, env)
        rows = join_edits(edits, found)
        for warning in [*corpus.notes, *unread]:
            if warning not in warnings:
                warnings.append(warning)
    return PlanAnswer(bindings, warnings, rows, edits.skipped_lines)


def corpus_bindings(transcripts: list[Transcript], env: Env
                    ) -> tuple[list[PlanBinding], list[str]]:
    """Every binding among many transcripts, spread over the cores, and a warning for
    each transcript that could not be read (it binds nothing anyone can see)."""
    from pysift.disk.fanout import map_ordered

    found = map_ordered(_binding_or_error, transcripts, shared=env)
    bindings = sorted((b for b, _ in found if b is not None), key=lambda b: b.sort_key)
    return bindings, [f"warning: skipped: {error}" for _, error in found if error]


def _binding_or_error(env: Env, transcript: Transcript
                      ) -> tuple[PlanBinding | None, str | None]:
    try:
        return resolve_plan_path(transcript, env), None
    except SourceError as exc:
        return None, str(exc)
