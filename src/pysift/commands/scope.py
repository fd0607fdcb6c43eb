"""What every spanning command shares: the options that name and window its scope
(``ScopeArgs``), and the scope header and banner (wire-format §0.1, §0.7)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pysift.core.resolve import Scope, resolve_scope
from pysift.errors import NotFoundError
from pysift.model.env import Env
from pysift.model.fastdata import dataclass

if TYPE_CHECKING:  # (the range grammar is imported only where a range is read)
    from pysift.core.grammar.ranges import RangeSpec


@dataclass(frozen=True, kw_only=True)
class ScopeArgs:
    """The options a scoped command spells like every other one (csift's shared
    surface), parsed once by ``cli.params.scope_args``. A command reads the ones it has
    and leaves the rest at their defaults (``plan`` has no window, ``list`` no turn)."""

    targets: tuple[str, ...] = ()
    subagents: bool = True  # --subagents/--no-subagents
    sessions_from: tuple[str, ...] | None = None  # None: no --sessions-from (an empty
    # list is a pipeline stage that found nothing: an empty scope, never every session)
    format: str = "text"  # "text" | "json"
    max_count: int | None = None  # as given; each command says what None, 0 and -N mean
    since: datetime | None = None
    until: datetime | None = None
    since_text: str | None = None  # the window as typed (diagnoses quote it back)
    until_text: str | None = None
    turns: RangeSpec | None = None

    @property
    def json(self) -> bool:
        return self.format == "json"

    @property
    def windowed(self) -> bool:
        """A time window is set."""
        return self.since is not None or self.until is not None

    def resolve(self, env: Env) -> Scope:
        """The transcripts the targets and ``--sessions-from`` name (every session of
        every project when neither is given), with what could not be read."""
        return resolve_scope(list(self.targets), env, subagents=self.subagents,
                             sessions_from=list(self.sessions_from)
                             if self.sessions_from is not None else None)


def scope_header(scope: Scope) -> dict[str, Any]:
    # each count is a pass over the scope's transcripts (2,428 over corpus B): taken once
    top, sub = scope.top_level_count, scope.subagent_count
    return {"sessions_in_scope": top + sub, "top_level_sessions": top,
            "subagent_sessions": sub}


def scope_banner(scope: Scope) -> str | None:
    """The text banner, printed only when subagents are in scope."""
    sub = scope.subagent_count
    if not sub:
        return None
    top = scope.top_level_count
    n = top + sub
    noun = "session" if n == 1 else "sessions"
    return f"scope  {n} {noun} in scope ({top} top-level + {sub} subagent)"


def malformed_of(path: Path | str) -> int:
    """A transcript file's malformed lines, all of them (``decode.malformed_in``), for the
    turn-miss error of one transcript; 0 when the file cannot be read now (the reader
    that needed it has said so)."""
    from pysift.core.decode import malformed_in
    from pysift.disk.mapped import open_buffer
    from pysift.errors import SourceError

    try:
        return malformed_in(open_buffer(path))
    except SourceError:
        return 0


def no_such_turns(named: str, count: int, ref: str, *, several: bool = False,
                  malformed: int = 0) -> NotFoundError:
    """The hard error for an explicit ``--turn N`` / ``A..B`` that names no turn (csift's
    exit law, §6.11): show for its transcript, search when no transcript of its scope has
    the turn. ``count``: the transcript's turns (with ``several``: the most any
    transcript in scope has, ``ref`` naming that one). ``malformed``: the transcript's
    malformed lines, named because a torn opener is a turn the count leaves out (a file
    of torn lines read "0 turn(s)", as if empty)."""
    domain = f"t0..t{count - 1}" if count else "no turns"
    where = (f"no transcript in scope has them (the most: {count} turn(s), {domain}, in "
             f"{ref})" if several else f"the transcript has {count} turn(s) ({domain})")
    if malformed:
        where += f" and {malformed:,} malformed line(s), which may hide turns"
    return NotFoundError(f"no such turn(s): {named} — {where}; read the turn numbers off "
                         f"pysift search ... {ref} (the ·tN in each exchange header)")
