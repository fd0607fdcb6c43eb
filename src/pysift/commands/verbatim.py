"""``pysift verbatim``: give a compacted session back its own words (csift §6.8).

The reconstruction walks back from the end of each transcript across its compaction
boundaries, spends a character budget per session (a round-trip floor, then single
sides, user first) and prints the chosen turns in forward order (``commands.
reconstruction``). ``--slice`` cuts the document into hook-sized windows;
``--fold-index`` prints the seed-index records of the compactions instead
(``commands.fold_index``). Each path imports only its own engine.
"""

from __future__ import annotations

from dataclasses import field
from pathlib import Path

from pysift.commands.scope import ScopeArgs
from pysift.errors import UsageError
from pysift.model.env import Env
from pysift.model.fastdata import dataclass
from pysift.output.report import Report


@dataclass(frozen=True, kw_only=True)
class VerbatimOptions:
    # the targets (required), --subagents (off by default here), the time window and the
    # turn range (ANDed) narrow the turns; max_count unused
    scope: ScopeArgs = field(default_factory=lambda: ScopeArgs(subagents=False))
    budget: int = 40000
    fraction: float = 0.5
    max_compactions: int = 0
    agent_msgs: str = "longest"
    profile: str | None = None
    out: Path | None = None
    force: bool = False
    slice: int | None = None
    window: int = 10000  # --window: the chunk size of --slice/--slices, in characters
    slices: int | None = None
    fold_index: bool = False


def run(opts: VerbatimOptions, env: Env) -> Report:
    args = opts.scope
    if not args.targets and args.sessions_from is None:
        raise UsageError("verbatim reconstructs one conversation: name a target (@<uuid>, "
                         "@main, @<agent-id>, a project path, a *.jsonl file, or "
                         "--sessions-from FILE|-); a bare `pysift verbatim` would spend "
                         "--budget on every session of every project")
    scope = args.resolve(env)
    if opts.fold_index:
        from pysift.commands.fold_index import fold_index_report

        return fold_index_report(scope)
    from pysift.commands.reconstruction import reconstruct

    return reconstruct(opts, scope, env)
