"""Fan the per-file scan out over the scope and merge the results deterministically."""

from __future__ import annotations

from dataclasses import dataclass, field

from pysift.core import classify
from pysift.disk import fanout
from pysift.disk.layout import Transcript
from pysift.engines.search import scan as scan_mod
from pysift.engines.search.exchanges import Exchange, assemble, count_exchanges
from pysift.engines.search.plan import SearchPlan
from pysift.engines.search.scan import Hit


@dataclass
class FileOutcome:
    """A worker's answer for one transcript (small, picklable)."""

    transcript: Transcript
    index: int
    exchanges: list[Exchange] = field(default_factory=list)
    counted: int = 0  # -c / -l: the file's exchanges cross back as their number only
    hits: list[Hit] = field(default_factory=list)  # census / raw modes keep bare hits
    malformed: int = 0
    sidecar_used: bool = False
    persisted_failures: list[str] = field(default_factory=list)
    error: str | None = None
    sidecar_error: str | None = None  # read the transcript, not its sidecar: not definitive


@dataclass
class SearchResult:
    outcomes: list[FileOutcome]

    @property
    def exchanges(self) -> list[Exchange]:
        return [ex for o in self.outcomes for ex in o.exchanges]

    @property
    def exchange_count(self) -> int:
        return sum(len(o.exchanges) + o.counted for o in self.outcomes)

    @property
    def hits(self) -> list[Hit]:
        return [h for o in self.outcomes for h in o.hits]

    @property
    def malformed(self) -> int:
        return sum(o.malformed for o in self.outcomes)

    @property
    def sidecar_used(self) -> bool:
        return any(o.sidecar_used for o in self.outcomes)


@dataclass(frozen=True)
class _Job:
    """What every file's scan shares (held once per process, never pickled): the plan,
    whether bare hits cross back (census / raw) and the cores one scan may use."""

    plan: SearchPlan
    keep_hits: bool
    cores: int


def _work(job: _Job, item: tuple[int, Transcript]) -> FileOutcome | None:
    """One file's outcome; None when it has nothing to say (no hit, nothing skipped, no
    error), and otherwise without its ``Transcript``, which the parent already holds:
    most files of a wide search have nothing, and unpickling thousands of outcomes with
    their paths cost the parent ~20 ms."""
    index, transcript = item
    plan = job.plan
    fs = scan_mod.scan_file(transcript, index, plan, cores=job.cores)
    if not (fs.hits or fs.malformed or fs.sidecar_used or fs.persisted_failures or fs.error
            or fs.sidecar_error):
        return None
    out = FileOutcome(transcript=None, index=index, malformed=fs.malformed,  # type: ignore[arg-type]
                      sidecar_used=fs.sidecar_used, persisted_failures=fs.persisted_failures,
                      error=fs.error, sidecar_error=fs.sidecar_error)
    if not fs.hits:
        return out
    if job.keep_hits:
        out.hits = fs.hits
        return out
    buf = fs.buf
    assert buf is not None  # a file with hits was read
    if plan.light:  # -c / -l count exchanges and name owners: a number crosses back
        out.counted = count_exchanges(fs)
        return out
    seed_uuid, seed_line = fs.seed  # read by the scan that found the hits
    ctx = classify.ClassifyContext(owner_id=transcript.session_id,
                                   is_subagent=transcript.is_subagent,
                                   parent_id=transcript.parent_session_id,
                                   seed_uuid=seed_uuid, seed_line=seed_line)
    out.exchanges = assemble(fs, buf, siblings=plan.siblings, ctx=ctx)
    for ex in out.exchanges:
        ex.transcript = None  # type: ignore[assignment]  # the parent puts it back
    return out


def _size(transcript: Transcript) -> int:
    try:
        return transcript.path.stat().st_size
    except OSError:
        return 0


FANOUT_MIN_FILES = 8


def run_search(plan: SearchPlan, transcripts: list[Transcript], *, keep_hits: bool = False,
               workers: int | None = None) -> SearchResult:
    """Scan every transcript (a fork pool when there are many) and keep input order. A
    scope of a few files is scanned in-process, each file free to use every core for its
    turn grouping."""
    items = list(enumerate(transcripts))
    spread = fanout.processes(len(items), FANOUT_MIN_FILES, workers)
    job = _Job(plan, keep_hits, cores=fanout.cpu_workers() if spread == 1 else 1)
    answers = fanout.map_ordered(_work, items, shared=job, workers=workers,
                                 min_items=FANOUT_MIN_FILES,
                                 weights=[_size(t) for t in transcripts])
    outcomes: list[FileOutcome] = []
    for (index, transcript), answer in zip(items, answers):
        if answer is None:
            answer = FileOutcome(transcript=transcript, index=index)
        else:
            answer.transcript = transcript
            for ex in answer.exchanges:
                ex.transcript = transcript
        outcomes.append(answer)
    return SearchResult(outcomes)
