"""The search engine's entry: ``run(transcripts, plan)`` fans the per-file scan out over
the scope and merges the answers deterministically; the ``SearchResult`` it returns
answers every question a search mode asks of a run (the ordered exchanges, the owning
sessions, the verbatim lines, the census, the zero-match label probe), so the command
only assembles a report from it."""

from __future__ import annotations

from collections import Counter
from dataclasses import field
from typing import TYPE_CHECKING

from pysift.core.grammar.selectors import LabelFilter
from pysift.core.timez import parse_ts
from pysift.disk import fanout
from pysift.disk.gcpause import paused_gc
from pysift.disk.layout import Transcript, persisted_output_count, persisted_outputs
from pysift.engines.search.facts import FACET, SCHEMA, FileFacts
from pysift.engines.search.kept import KeptCounter, kept_count_applies, sidecar_share
from pysift.engines.search.plan import SearchPlan
from pysift.model import labels as L
from pysift.model.fastdata import dataclass
from pysift.model.ids import is_uuid

if TYPE_CHECKING:
    # a search without a hit never needs these: imported where a hit is handled
    from pysift.disk.cache import Facet, Probe, Store
    from pysift.disk.lines import Buffer
    from pysift.engines.search.exchanges import Exchange
    from pysift.engines.search.scan import Cached, Hit
    from pysift.engines.search.unseen import Unseen

# Below this many transcripts the files are scanned in-process, each free to use every
# core for its turn grouping; from it on they are spread over the cores.
FANOUT_MIN_FILES = 8


def _chronological(ts: str | None) -> tuple[bool, float]:
    """An exchange's place in the timeline by its started_utc: undated last."""
    instant = parse_ts(ts)
    return (instant is None, instant.timestamp() if instant else 0.0)


@dataclass
class FileOutcome:
    """A worker's answer for one transcript (small, picklable)."""

    transcript: Transcript
    index: int
    exchanges: list[Exchange] = field(default_factory=list)
    counted: int = 0  # -c / -l: the file's exchanges cross back as their number only
    hits: list[Hit] = field(default_factory=list)  # census / raw modes keep bare hits
    malformed: int = 0
    collapsed_drafts: int = 0  # superseded drafts that matched, hidden by the selection
    sidecar_used: bool = False
    persisted_failures: list[str] = field(default_factory=list)
    error: str | None = None
    sidecar_error: str | None = None  # read the transcript, not its sidecar: not definitive
    pending: int = 0  # sidecar records merged (a zero asks what their rendering left out)
    # a file without hits: the starts of the lines its needle pass found (a zero match
    # asks which of them hold the pattern in records the run did not read)
    candidates: list[int] = field(default_factory=list)
    facts: object = None  # new or extended cache facts of the transcript, for the parent
    stamp: object = None
    #: ``--raw``: each exchange's started_utc by ``exchange_key`` (lines go by exchange)
    exchange_ts: dict[tuple[str, int], str | None] = field(default_factory=dict)


@dataclass(frozen=True)
class LabelProbe:
    """The zero-match probe: with the label filter lifted, how many records the pattern
    matches, and per leaf how many of them carry it."""

    by_label: dict[str, int]
    records: int

    def ranked(self) -> list[tuple[str, int]]:
        """Leaves by count descending, then in taxonomy order."""
        return sorted(self.by_label.items(), key=lambda kv: (-kv[1], L.ALL.index(kv[0])))


@dataclass(frozen=True)
class Census:
    """``--count-by``: records per key of one axis, ordered (turns in turn order, every
    other axis by count descending, ties by key)."""

    axis: str
    counts: list[tuple[str, int]]
    matched_records: int
    excluded_records: int  # matched records that have no key on this axis
    # records counted under more than one key (each key once): the keys' counts then add
    # up to more than the records they cover
    multi_key_records: int = 0


class SearchResult:
    """Every file's outcome, in scope order, and the run's plan and scope, so that what a
    mode asks after the run (a zero's label probe) re-reads the same transcripts."""

    def __init__(self, outcomes: list[FileOutcome], plan: SearchPlan,
                 transcripts: list[Transcript]) -> None:
        self.outcomes = outcomes
        self.plan = plan
        self.transcripts = transcripts
        self._probes: dict[bool, LabelProbe] = {}
        self._unseen: list[Unseen] | None = None
        self._persisted_unseen: list[str] | None = None

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
    def collapsed_drafts(self) -> int:
        """Superseded drafts the pattern matched that the label selection hides."""
        return sum(o.collapsed_drafts for o in self.outcomes)

    @property
    def sidecar_used(self) -> bool:
        return any(o.sidecar_used for o in self.outcomes)

    @property
    def unread(self) -> int:
        """Transcripts, sidecars and (``--resolve-persisted``) persisted outputs that exist
        but could not be read: what they hold was not searched."""
        return sum(bool(o.error) + bool(o.sidecar_error) + len(o.persisted_failures)
                   for o in self.outcomes)

    def ordered_exchanges(self) -> list[Exchange]:
        """Chronological by turn start across files; undated last; stable file/turn order."""
        base = sorted(self.exchanges, key=lambda e: (e.file_index,
                                                     (e.hits[0].line or 0) if e.hits else 0))
        return sorted(base, key=lambda ex: _chronological(ex.ts))

    def owners(self) -> list[str]:
        """``-l``: every session owning an exchange, sorted, each named so that
        ``--sessions-from`` reads it back (``owner_ref``)."""
        return sorted({owner_ref(o.transcript) for o in self.outcomes
                       if o.counted or o.exchanges})

    def raw_lines(self) -> list[tuple[list[bytes], int]]:
        """``--raw``: the matched records' verbatim lines, each once, grouped by exchange
        (line order within one) in the rendered run's order (``ordered_exchanges``:
        chronological by started_utc, undated last, then file and first line), so
        ``--max-count`` keeps the same exchanges as without ``--raw`` (csift caps the
        exchange list and prints its lines); beside each exchange's lines, how many of its
        matched records have no physical line (sidecar records). An exchange of sidecar
        records only is one with no line: left out, it made ``--max-count N`` keep other
        exchanges than the rendered run, and say nothing of the ones it dropped."""
        from pysift.engines.search.scan import exchange_key

        groups: list[tuple[str | None, int, int, list[bytes], int]] = []
        for o in self.outcomes:
            seen: set[int] = set()
            by_key: dict[tuple[str, int], list[bytes]] = {}
            pending: dict[tuple[str, int], int] = {}
            first: dict[tuple[str, int], int] = {}
            for h in sorted(o.hits, key=lambda h: (h.line is None, h.line or 0)):
                key = exchange_key(h)
                by_key.setdefault(key, [])
                first.setdefault(key, h.line or 0)  # ordered_exchanges' key: hits[0].line
                if h.line is None:
                    pending[key] = pending.get(key, 0) + 1
                    continue
                if h.line in seen or h.raw is None:
                    continue
                seen.add(h.line)
                by_key[key].append(h.raw)
            groups.extend((o.exchange_ts.get(key), o.index, first[key], lines,
                           pending.get(key, 0)) for key, lines in by_key.items())

        groups.sort(key=lambda g: (g[1], g[2]))
        groups.sort(key=lambda g: _chronological(g[0]))
        return [(g[3], g[4]) for g in groups]

    def census(self, axis: str, allowed: frozenset[str]) -> Census:
        """``--count-by axis`` over the matched records (``allowed``: the leaves the
        user's selection accepts, which the label axis counts)."""
        records: dict[tuple[int, int | None, str | None], list[Hit]] = {}
        owner: dict[tuple[int, int | None, str | None], Transcript] = {}
        for o in self.outcomes:
            for h in o.hits:
                key = (o.index, h.line, h.uuid)
                records.setdefault(key, []).append(h)
                owner[key] = o.transcript
        counts: Counter[str] = Counter()
        excluded = several = 0
        multi = len(self.transcripts) > 1
        for key, hits in records.items():
            keys = _census_keys(axis, hits, owner[key], multi, allowed)
            if not keys:
                excluded += 1
            elif len(keys) > 1:
                several += 1
            for k in keys:
                counts[k] += 1
        if axis == "turn":
            ordered = sorted(counts.items(), key=lambda kv: _turn_sort(kv[0]))
        else:  # count-descending, ties by key on every axis, label too (csift's code)
            ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        return Census(axis, ordered, len(records), excluded, several)

    def label_probe(self, *, open_gates: bool = False) -> LabelProbe:
        """The zero-match probe (``label_probe``), each variant paid at most once a run:
        the gated one answers both the absence line and the label diagnosis."""
        if open_gates not in self._probes:
            self._probes[open_gates] = label_probe(self.transcripts, self.plan,
                                                   open_gates=open_gates)
        return self._probes[open_gates]

    def unseen(self) -> list[Unseen]:
        """After a zero match: the candidate lines holding the pattern in records the run
        did not read (``unseen``), the first ``UNSEEN_LIMIT`` in scope order; empty for a
        run with matches or without a pattern."""
        if self._unseen is None:
            found: list[Unseen] = []
            zero = not (self.exchange_count or self.hits)
            if zero and not self.plan.matcher.is_empty and self.plan.matcher.needles is None:
                # a pattern no literal is required by had no needle pass, so no candidate
                # lines: the pattern itself finds them in the raw bytes (it called every
                # zero definitive, a queued or attached text included)
                from pysift.engines.search.unseen import needleless_unseen

                found = needleless_unseen(self.transcripts, self.plan)
            elif zero and not self.plan.label_scan and any(
                    o.candidates for o in self.outcomes):  # (no candidate: nothing to read)
                from pysift.engines.search.unseen import UNSEEN_LIMIT, unseen_records

                for o in self.outcomes:
                    if o.candidates and len(found) < UNSEEN_LIMIT:
                        found += unseen_records(o.transcript, o.candidates, self.plan,
                                                UNSEEN_LIMIT - len(found))
            if zero and not self.plan.matcher.is_empty and any(o.pending for o in self.outcomes):
                # the sidecar's pending records the run merged: read, but rendered as their
                # tool_use alone (the text beside the question is in no view)
                from pysift.engines.search.unseen import UNSEEN_LIMIT, sidecar_unseen

                for o in self.outcomes:
                    if o.pending and len(found) < UNSEEN_LIMIT:
                        found += sidecar_unseen(o.transcript, self.plan,
                                                UNSEEN_LIMIT - len(found))
            self._unseen = found
        return self._unseen

    def persisted_unseen(self) -> list[str]:
        """After a zero match without ``--resolve-persisted``: the persisted tool outputs
        of the sessions in scope that hold the pattern (``unseen.persisted_unseen``)."""
        if self._persisted_unseen is None:
            self._persisted_unseen = []
            zero = not (self.exchange_count or self.hits)
            if (zero and not self.plan.matcher.is_empty and not self.plan.resolve_persisted
                    and self.plan.wants_carriers
                    and next(persisted_outputs(self.transcripts), None) is not None):
                from pysift.engines.search.persisted import persisted_unseen

                pending = frozenset(str(o.transcript.path) for o in self.outcomes
                                    if o.pending)
                self._persisted_unseen = persisted_unseen(self.transcripts, self.plan,
                                                          with_pending=pending)
        return self._persisted_unseen

    def persisted_outputs(self) -> int:
        """Tool outputs of the sessions in scope persisted outside their transcripts."""
        return persisted_output_count(self.transcripts)


@dataclass(frozen=True)
class _Job:
    """What every file's scan shares (held once per process, never pickled): the plan,
    the cores one scan may use, the cache's facet (its loaded shards: a forked worker
    inherits them)."""

    plan: SearchPlan
    cores: int
    facet: Facet | None = None
    # the probes the parent took already (a count's first pass), by scope index
    probes: dict[int, Probe] | None = None


def _work(job: _Job, item: tuple[int, Transcript]) -> FileOutcome | None:
    """One file's outcome; None when it has nothing to say (no hit, nothing skipped, no
    error), and otherwise without its ``Transcript``, which the parent already holds:
    most files of a wide search have nothing, and unpickling thousands of outcomes with
    their paths cost the parent ~20 ms."""
    index, transcript = item
    plan = job.plan
    probe = None
    if job.facet is not None:
        taken = job.probes.get(index) if job.probes is not None else None
        probe = job.facet.probe(transcript.path) if taken is None else taken
    from pysift.engines.search import scan as scan_mod  # (a warm count never needs it)

    cached = _cached(probe)
    fs = scan_mod.scan_file(transcript, index, plan, cores=job.cores, cached=cached)
    keep = fs.facts is not None and fs.facts.changed and fs.stamp is not None
    if not (fs.hits or fs.malformed or fs.collapsed_drafts or fs.sidecar_used
            or fs.persisted_failures or fs.error or fs.sidecar_error or fs.spans or keep
            or fs.pending):
        return None
    out = FileOutcome(transcript=None, index=index, malformed=fs.skipped_lines(),  # type: ignore[arg-type]
                      collapsed_drafts=fs.collapsed_drafts, sidecar_used=fs.sidecar_used, persisted_failures=fs.persisted_failures,
                      error=fs.error, sidecar_error=fs.sidecar_error, pending=len(fs.pending))
    if keep:
        out.facts, out.stamp = fs.facts.dump(), fs.stamp  # type: ignore[union-attr]
    if not fs.hits:
        out.candidates = [start for start, _ in fs.spans]
        return out
    if plan.keep_hits:
        out.hits = fs.hits
        if plan.want_raw and fs.buf is not None:
            from pysift.engines.search.exchanges import exchange_stamps

            out.exchange_ts = exchange_stamps(fs, fs.buf)
        return out
    from pysift.engines.search.exchanges import assemble, count_exchanges

    if plan.light:  # -c / -l count exchanges and name owners: a number crosses back
        out.counted = count_exchanges(fs)
        return out
    from pysift.core import classify
    from pysift.core.pairing import PlanIndex

    buf = fs.buf
    assert buf is not None  # a file with hits was read
    seed_uuid, seed_line = fs.seed  # read by the scan that found the hits
    ctx = classify.ClassifyContext(owner_id=transcript.session_id,
                                   is_subagent=transcript.is_subagent,
                                   parent_id=transcript.parent_session_id,
                                   seed_uuid=seed_uuid, seed_line=seed_line,
                                   plan_index=PlanIndex(buf), **plan.link_fields(transcript))
    out.exchanges = assemble(fs, buf, siblings=plan.siblings, ctx=ctx)
    out.malformed = fs.skipped_lines()  # and the lines the stitch found broken
    for ex in out.exchanges:
        ex.transcript = None  # type: ignore[assignment]  # the parent puts it back
    return out


def _load_readers() -> None:
    """Import what reading a candidate line takes (the classifier, pairing, the turn map,
    the exchanges), in the parent: forked workers share it instead of each importing it
    (~30 ms of CPU per process)."""
    import pysift.core.classify
    import pysift.core.pairing
    import pysift.core.turns
    import pysift.engines.search.exchanges  # noqa: F401


_DECLINED = object()


def _count_kept(kept: KeptCounter, facet: Facet, items: list[tuple[int, Transcript]],
                answers: list[FileOutcome | int | None]
                ) -> tuple[list[tuple[int, Transcript]], dict[int, Probe]]:
    """A count's first pass, in this process: every unchanged file the cache's kept
    tuples settle is answered (``answers``: an int for a bare count, None for nothing);
    the others are left for the scan, with their probes. In-process: ~20 us a file (the
    probe is most of it), which a fork, the readers loaded for the workers (~25 ms) and
    the copy-on-write of the shards would not pay back."""
    rest: list[tuple[int, Transcript]] = []
    probes: dict[int, Probe] = {}
    for item in items:
        index, transcript = item
        probe = facet.probe(transcript.path)
        if probe.hit:
            answer = _kept_count(kept, index, transcript, probe.facts)
            if answer is not _DECLINED:
                answers[index] = answer  # type: ignore[call-overload]
                continue
        probes[index] = probe
        rest.append(item)
    return rest, probes


def _kept_count(kept: KeptCounter, index: int, transcript: Transcript, raw: object
                ) -> object:
    """The answer for an unchanged file counted from its kept tuples (``kept``), or
    ``_DECLINED``: they do not settle it (the scan then decides, as
    ``scan._count_from_facts`` does)."""
    counted = kept.count(raw, transcript.is_subagent)
    if counted is None:
        return _DECLINED
    exchanges, collapsed, malformed = counted
    share = sidecar_share(transcript)
    if share is None:
        return _DECLINED
    skipped, error = share
    malformed += skipped
    if not (malformed or collapsed or error):
        return exchanges or None
    return FileOutcome(transcript=None, index=index, counted=exchanges,  # type: ignore[arg-type]
                       malformed=malformed, collapsed_drafts=collapsed, sidecar_error=error)


def _cached(probe: Probe | None) -> Cached | None:
    """What the cache holds of a transcript as the file is now (``probe``: its probe;
    None: no cache)."""
    if probe is None:
        return None
    from pysift.engines.search.scan import Cached

    if probe.hit:
        return Cached(facts=FileFacts.load(probe.facts))
    return Cached(grown=probe if probe.state == "grown" else None)


def _size(transcript: Transcript) -> int:
    try:
        return transcript.path.stat().st_size
    except OSError:
        return 0


def _weight(facet: Facet | None, transcript: Transcript) -> int:
    """A file's place in the pool's queue (heaviest first): its cached size when the
    cache holds it (a warm run then stats no file for its order: 2,428 stats were ~12 ms),
    else its size now. Only the order of the work depends on it, never an answer."""
    size = facet.cached_size(transcript.path) if facet is not None else None
    return _size(transcript) if size is None else size


def run(transcripts: list[Transcript], plan: SearchPlan, *, workers: int | None = None,
        cache: Store | None = None) -> SearchResult:
    """Scan every transcript under ``plan`` and keep scope order: many files are spread
    over the cores (heaviest first), a few are scanned in-process, each free to use every
    core for its turn grouping. ``cache``: what each transcript's bytes alone say (the
    shape census, the turn openers, the user lines a count goes by) is taken from it
    while the file is unchanged, and kept for the next run (``search.facts``)."""
    items = list(enumerate(transcripts))
    facet = cache.facet(FACET, SCHEMA) if cache is not None else None
    if facet is not None:
        facet.preload(t.path for t in transcripts)  # loaded once, before any fork
    answers: list[FileOutcome | int | None] = [None] * len(items)
    rest, probes = items, None
    if facet is not None and kept_count_applies(plan):
        rest, probes = _count_kept(KeptCounter(plan), facet, items, answers)
    if rest:  # the scan, loaded once before any fork (a warm count has no file for it)
        import pysift.engines.search.scan  # noqa: F401
    spread = fanout.processes(len(rest), FANOUT_MIN_FILES, workers)
    job = _Job(plan, cores=fanout.cpu_workers() if spread == 1 else 1, facet=facet,
               probes=probes)
    if spread > 1 and plan.label_scan:
        _load_readers()  # every file with a selected line reads it: loaded once, before the fork
    # (the queue's order, heaviest first, matters only to a batch spread over the cores)
    weights = [_weight(facet, t) for _, t in rest] if spread > 1 else None
    # each file's records die with its scan (reference counting frees them): the cycle
    # collector, set off by their containers, would walk them for nothing
    with paused_gc():
        found = fanout.map_ordered(_work, rest, shared=job, workers=workers,
                                   min_items=FANOUT_MIN_FILES, weights=weights)
    for (index, _), answer in zip(rest, found):
        answers[index] = answer
    outcomes: list[FileOutcome] = []
    for (index, transcript), given in zip(items, answers):
        if given is None:
            answer = FileOutcome(transcript=transcript, index=index)
        elif isinstance(given, int):  # a bare count (``_kept_count``)
            answer = FileOutcome(transcript=transcript, index=index, counted=given)
        else:
            answer = given
            answer.transcript = transcript
            for ex in answer.exchanges:
                ex.transcript = transcript
            if facet is not None and answer.facts is not None:
                facet.put(transcript.path, answer.stamp, answer.facts)  # type: ignore[arg-type]
            answer.facts = answer.stamp = None
        outcomes.append(answer)
    if facet is not None:
        facet.flush()
    return SearchResult(outcomes, plan, list(transcripts))


# -- what the modes ask of a run ----------------------------------------------------------


def owner_ref(t: Transcript) -> str:
    """How ``-l`` names the session owning ``t`` so that ``--sessions-from`` reads it back:
    its uuid, else the owning transcript's path (a file named ``small.jsonl`` has no id
    the @-grammar takes), else the id itself (a self-rooted legacy agent's agent id)."""
    owner = t.parent_session_id
    if is_uuid(owner):
        return str(owner)
    if not t.is_subagent:
        return str(t.path)
    top = t.project_dir / f"{owner}.jsonl"
    return str(top) if top.is_file() else str(owner)


def label_probe(transcripts: list[Transcript], plan: SearchPlan, *, open_gates: bool = False
                ) -> LabelProbe:
    """With the label filter lifted: the records the pattern matches, and per leaf how many
    of them carry it (a record under each leaf whose OWN view the pattern matches, as
    ``--count-by label`` counts: the number ``-t <leaf>`` would bring back; a two-leaf
    record counted under both named the leaf just searched, fixed twenty-second
    session). ``open_gates`` also opens every gated leaf, attachments and hook context
    included."""
    from pysift.core.grammar.selectors import parse_filter

    unfiltered = LabelFilter(allowed=frozenset(L.ALL)) if open_gates else parse_filter((), ())
    probe_plan = SearchPlan(pattern=plan.pattern, matcher=plan.matcher, labels=unfiltered,
                            since=plan.since, until=plan.until, turns=plan.turns,
                            attachments=plan.attachments or open_gates,
                            additional_context=plan.additional_context or open_gates,
                            gates=L.GATED if open_gates else plan.gates, keep_hits=True,
                            leaf_views=True)
    result = run(transcripts, probe_plan)
    per_record: dict[tuple[int, int | None, str | None], set[str]] = {}
    for o in result.outcomes:
        for h in o.hits:
            leaves = per_record.setdefault((o.index, h.line, h.uuid), set())
            leaves.add(h.label)
            leaves.update(x for x in h.labels if x in unfiltered.allowed)
    counts: Counter[str] = Counter()
    for leaves in per_record.values():
        for leaf in leaves:
            counts[leaf] += 1
    return LabelProbe(dict(counts), len(per_record))


def turn_reach(transcripts: list[Transcript], need: int) -> tuple[int, Transcript | None]:
    """The most turns a transcript of ``transcripts`` has, and that transcript, looking
    no further once one has more than ``need`` (an explicit ``--turn`` must name a turn
    SOME transcript has; the first long enough settles it). A transcript that cannot be
    read is passed over (the scope already warned)."""
    from pysift.core.turns import build_turn_map
    from pysift.disk.mapped import try_open_buffer

    best, owner = 0, None
    for t in transcripts:
        buf = try_open_buffer(t.path)
        if buf is None:
            continue
        count = build_turn_map(buf, cores=fanout.cpu_workers(),
                               subagent=t.is_subagent).turn_count
        if count == 0 and _holds_pending(t, buf):
            count = 1  # no record, yet its sidecar's pending records stand in a t0
        if owner is None or count > best:
            best, owner = count, t
        if best > need:
            break
    return best, owner


def _holds_pending(transcript: Transcript, buf: Buffer) -> bool:
    """Whether ``transcript``'s elicitation sidecar holds a pending record the merge
    keeps (asked only of a transcript with no record: they are then its t0)."""
    from pysift.core.sidecar import read_sidecar
    from pysift.disk.layout import sidecar_of

    path = sidecar_of(transcript)
    return path is not None and bool(read_sidecar(path, buf).pending)


def _turn_sort(key: str) -> tuple[str, int]:
    ident, _, turn = key.rpartition("t")
    try:
        return ident, int(turn)
    except ValueError:
        return ident, 0


def _census_keys(axis: str, hits: list[Hit], transcript: Transcript, multi: bool,
                 allowed: frozenset[str]) -> list[str]:
    first = hits[0]
    if axis == "label":
        # a leaf's count is how many records `-t <leaf>` would surface: the scan kept, per
        # record, the selected leaves whose own view matched (``SearchPlan.leaf_views``)
        leaves = {h.label for h in hits} | {x for h in hits for x in h.labels if x in allowed}
        return sorted(leaves, key=L.ALL.index)
    # a record holding several tool blocks (parallel calls, a carrier answering several of
    # them, a provider's assistant record with its server tool's result) counts once under
    # EVERY distinct key its hits carry, as the label axis does: a pending call, an orphan,
    # an error or a tool name is never hidden behind a sibling block's key
    if axis == "tool":
        return sorted({h.unit.tool_name for h in hits if h.unit.tool_name})
    if axis == "turn":
        if first.turn is None or first.draft:
            return []
        return [f"{transcript.session_id}·t{first.turn}" if multi else f"t{first.turn}"]
    if axis == "session":
        return [transcript.session_id]
    if axis == "pairing":  # every tool hit has a state (one without an id too: §7)
        return sorted({h.pairing for h in hits if h.pairing})
    if axis == "model":
        return [first.model] if first.model else []
    if axis == "attachment":
        return [first.attachment_type] if first.attachment_type else []
    if axis == "version":
        return [first.version] if first.version else []
    if axis == "result":
        return sorted({"error" if h.unit.is_error else "ok"
                       for h in hits if L.AGENT_TOOL_RESULT in h.labels})
    return []
