"""Everything a per-file scan needs, derived once from the options.

The plan is the ``shared`` object of the scan's process pool (``disk.fanout``): a forked
worker inherits it, so compiled regexes (not picklable) reach the workers for free, and
each worker receives only its transcripts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pysift.core.grammar.ranges import RangeSpec
from pysift.core.grammar.selectors import LabelFilter
from pysift.core.timez import parse_ts
from pysift.model import labels as L
from pysift.model.fastdata import dataclass

if TYPE_CHECKING:  # RE2 and the prefilter load only when a search runs
    from pysift.core.matcher import Matcher
    from pysift.core.prefilter import NeedleSet
    from pysift.core.spawnlinks import LinkBook
    from pysift.disk.layout import Transcript

# Leaves whose units ride on ANY tool_result carrier line: only these need every carrier
# decoded. The 98% of user records that are carriers are skipped unparsed otherwise; the
# carriers that open turns (AUQ answers, typed rejections) carry a synthesized-text
# marker and are kept by it.
CARRIER_LEAVES = frozenset({L.AGENT_TOOL_RESULT, L.AGENT_COMM_INBOX})

# Byte markers of the lines a leaf can live on (a necessary condition, spacing-safe:
# the quoted value appears verbatim whatever the JSON spacing around the colon).
_USER_LINE = b'"user"'
_ASSISTANT_LINE = b'"assistant"'
_SYSTEM_LINE = b'"system"'
_TOOL_RESULT_LINE = b'"tool_result"'
LEAF_LINE_MARKERS: dict[str, tuple[bytes, ...]] = {
    L.USER_MESSAGE: (_USER_LINE,),
    L.USER_ANSWER: (_USER_LINE,),
    L.USER_REJECTION: (_USER_LINE,),
    L.USER_UNSENT: (_USER_LINE,),
    L.USER_QUEUED: (b'"queue-operation"',),
    L.AGENT_MESSAGE: (_ASSISTANT_LINE,),
    L.AGENT_THINKING: (_ASSISTANT_LINE,),
    L.AGENT_THINKING_NARRATION: (_ASSISTANT_LINE,),
    L.AGENT_TOOL_USE: (_ASSISTANT_LINE,),
    # a carrier, or an assistant record holding a provider's server-side tool_result
    L.AGENT_TOOL_RESULT: (_USER_LINE, _TOOL_RESULT_LINE),
    L.AGENT_COMM_INBOX: (_USER_LINE,),
    L.AGENT_COMM_SENT: (_ASSISTANT_LINE,),
    L.AGENT_COMM_SIGNAL: (_ASSISTANT_LINE, _USER_LINE),
    L.HARNESS_COMPACTION_BOUNDARY: (b"compact_boundary",),
    L.HARNESS_META_TURN_DURATION: (b"turn_duration",),
    L.HARNESS_META_AWAY_SUMMARY: (b"away_summary",),
    L.HARNESS_META_STOP_HOOKS: (b"stop_hook_summary",),
    L.HARNESS_META_SNAPSHOT: (b'"file-history-',),
    L.HARNESS_META_SYSTEM: (_SYSTEM_LINE,),
    L.HARNESS_META_ATTACHMENT: (b'"attachment"',),
}
for _leaf in L.ALL:
    LEAF_LINE_MARKERS.setdefault(_leaf, (_USER_LINE,))  # every other harness leaf is a user line

@dataclass(frozen=True)
class Fabrication:
    """What the renderer writes for one kind of record that is NOT in its raw line.

    ``glue``: characters that join a fabricated piece to verbatim text with no whitespace
    between them (``Q1 (Publish):``). ``tokens``: whitespace-free pieces written on their
    own. ``numbered``: prefixes of numbered tokens (``Q1``, ``A2:``).
    """

    marker: bytes  # a byte string every such raw line carries
    glue: str = ""
    tokens: tuple[str, ...] = ()
    numbered: str = ""

    def can_produce(self, needle: str, caseless: bool = False) -> bool:
        """Whether ``needle`` can occur in the rendered text without occurring in the raw
        line. Needles hold no whitespace, so such an occurrence must overlap a fabricated
        piece: either it holds a glue character or it lies inside a fabricated token
        (``caseless``: in any case, as a caseless needle matches ``[AskUserQuestion``
        with ``ask``)."""
        if any(c in needle for c in self.glue):
            return True
        if caseless:
            needle = needle.lower()
            if any(needle in token.lower() for token in self.tokens):
                return True
            head = needle[:1].upper()
        else:
            if any(needle in token for token in self.tokens):
                return True
            head = needle[:1]
        if self.numbered and head and head in self.numbered \
                and needle[1:].rstrip(":").isdigit():
            return True
        return False


# A typed rejection's line. Its render ends with the ExitPlanMode plan's ``[plan: <path>]``
# pointer, read off ANOTHER line of the file (the call's or a plan_mode attachment's
# ``planFilePath``), so a needle can match there that its own line lacks: when a line
# the needles found holds that key, the rejection lines join the candidates
# (``SearchPlan.pointer_lines``).
REJECTION_MARKER = b"want to proceed"
PLAN_PATH_KEY = b'"planFilePath"'
_NOTIFICATION_SLUGS = ("background-command", "workflow", "monitor", "subagent", "task",
                       "completed]", "failed]", "killed]", "orphan", "reconciliation:")
# Kept in step with core.classify's renderers (a test renders each kind and checks that
# every piece missing from the raw line is covered here).
FABRICATIONS: tuple[Fabrication, ...] = (
    *(Fabrication(m, glue="[]():|·", tokens=("[AskUserQuestion", "AskUserQuestion]",
                                             "questions]", "question]", "options:", "note:"),
                  numbered="QA")
      for m in (b"User has answered your question", b"Your questions have been answered",
                b"The user answered:")),
    Fabrication(REJECTION_MARKER, glue="[]:", tokens=("[plan:",)),
    Fabrication(b"<task-notification>", glue="[](),:", tokens=_NOTIFICATION_SLUGS),
    Fabrication(b"stopped by the user", glue="[]", tokens=("[subagent", "stopped]")),
    Fabrication(b'"redacted_thinking"', glue="[]", tokens=("[redacted", "thinking]")),
)
BOUNDARY_FABRICATION = Fabrication(
    b"compact_boundary", glue="[]:=",
    tokens=("[compaction", "boundary:", "trigger=", "preTokens=", "postTokens=",
            "durationMs=", "[logicalParent="))


GATED_SYNTH: dict[str, bytes] = {
    L.HARNESS_COMPACTION_BOUNDARY: b"compact_boundary",
    L.HARNESS_META_TURN_DURATION: b"turn_duration",
    L.HARNESS_META_STOP_HOOKS: b"stop_hook_summary",
    L.HARNESS_META_SNAPSHOT: b'"file-history-',
    L.HARNESS_META_SYSTEM: b'"subtype"',
    L.USER_QUEUED: b'"queue-operation"',
}
PERSISTED_MARKER = b"<persisted-output>"


@dataclass
class SearchPlan:
    pattern: str
    matcher: Matcher
    labels: LabelFilter
    since: datetime | None = None
    until: datetime | None = None
    turns: RangeSpec | None = None
    attachments: bool = False
    additional_context: bool = False
    resolve_persisted: bool = False
    want_raw: bool = False
    siblings: bool = False
    gates: frozenset[str] = field(default_factory=frozenset)
    light: bool = False  # -c / -l: exchanges are counted, never rendered
    keep_hits: bool = False  # census / raw / the label probe: bare hits cross back
    # `--count-by label`: a record counts under each selected leaf whose OWN view the
    # pattern matches (what `-t <leaf>` surfaces), not under every leaf of its richest
    # view's match
    leaf_views: bool = False
    # built once per plan (and per forked worker); init=False: a replace()d plan rebuilds
    _finder: NeedleSet | None = field(default=None, init=False, repr=False, compare=False)
    _finder_built: bool = field(default=False, init=False, repr=False, compare=False)
    _line_markers: tuple[bytes, ...] | None = field(default=None, init=False, repr=False,
                                                    compare=False)
    # the sessions' spawn links this process met (``core.spawnlinks``), read lazily
    _links: LinkBook | None = field(default=None, init=False, repr=False, compare=False)

    def finder(self, build: Callable[[SearchPlan], NeedleSet]) -> NeedleSet:
        """The candidate-line needle set, built once per plan (and per forked worker)."""
        if not self._finder_built or self._finder is None:
            self._finder = build(self)
            self._finder_built = True
        return self._finder

    def link_fields(self, transcript: Transcript, *, returns: bool = False
                    ) -> dict[str, Any]:
        """The ``ClassifyContext`` fields a transcript's session's side files fill (SPEC
        §4), each read at its first lookup and only when the answer can show it: the
        names and a nested lane's issuer when hits are printed (``-c``/``-l``, a census,
        ``--raw`` and the label probe print no direction), the spawn index then too or
        when the selection takes ``agent.communication.inbox`` (a return's label then
        decides a count). ``returns``: the spawn index whatever the selection (the zero
        match's unseen check weighs every label a record carries)."""
        directions = not (self.light or self.keep_hits)
        returns = returns or directions or self.labels.selects(L.AGENT_COMM_INBOX)
        if not returns:
            return {}
        if self._links is None:
            from pysift.core.spawnlinks import LinkBook

            self._links = LinkBook()
        return self._links.context_fields(transcript, returns=returns, directions=directions)

    def in_window_ts(self, ts: str | None) -> bool:
        """Whether a record stamped ``ts`` falls in the ``--since``/``--until`` window (an
        undated record is outside any window)."""
        if self.since is None and self.until is None:
            return True
        when = parse_ts(ts)
        if when is None:
            return False
        if self.since is not None and when < self.since:
            return False
        return not (self.until is not None and when > self.until)

    @property
    def label_scan(self) -> bool:
        """Candidates come from the label markers (a pure filter, or a pattern no literal
        is required by), not from the pattern's needles."""
        needles = getattr(self.matcher, "needles", None)
        return bool(getattr(self.matcher, "is_empty", True)) or needles is None

    @property
    def pointer_lines(self) -> bool:
        """A rejection's ``[plan: <path>]`` pointer can hold the needle: the path stands in
        this file's bytes (the ExitPlanMode call or a plan_mode attachment, under
        ``PLAN_PATH_KEY``), so when a line the needles found holds that key, the
        rejection lines join the candidates."""
        return L.USER_REJECTION in self.labels.allowed

    @property
    def wants_carriers(self) -> bool:
        return bool(self.labels.allowed & CARRIER_LEAVES)

    def walks_user_lines(self) -> bool:
        """The label scan's candidates are the user lines minus the plain carriers (``-t
        user`` and its kin): the key scan's lines, which the cache keeps."""
        return self.line_markers() == (_USER_LINE,) and not self.wants_carriers

    def counts_user_lines(self) -> bool:
        """``-c``/``-l`` with no pattern over user lines: a count the kept facts answer."""
        return (self.light and self.label_scan and self.matcher.is_empty
                and not self.resolve_persisted and self.walks_user_lines())

    def line_markers(self) -> tuple[bytes, ...]:
        """Byte markers any candidate line must carry, for the selected leaves (asked
        once per file: computed once per plan)."""
        if self._line_markers is None:
            self._line_markers = self._compute_line_markers()
        return self._line_markers

    def _compute_line_markers(self) -> tuple[bytes, ...]:
        found: list[bytes] = []
        for leaf in sorted(self.labels.allowed):
            if leaf in L.GATED and leaf not in self.gates:
                continue
            for marker in LEAF_LINE_MARKERS[leaf]:
                if marker not in found:
                    found.append(marker)
        if self.additional_context and b"hook_additional_context" not in found:
            found.append(b"hook_additional_context")
        if _TOOL_RESULT_LINE in found and _USER_LINE in found and _ASSISTANT_LINE in found:
            found.remove(_TOOL_RESULT_LINE)  # every line it could add is already reached
        return tuple(found)

    def synth_markers(self, needles: tuple[str, ...] | None = None,
                      caseless: bool = False) -> tuple[bytes, ...]:
        """Markers of the lines whose rendered text may match although the raw bytes hold
        no needle: a fabrication a needle can overlap, every selected gated leaf (their
        renders are mostly fabricated), resolved persisted outputs (text from another
        file). ``needles`` None = every marker (a needle-less scan); ``caseless``: the
        needles match in any case."""
        def wanted(fab: Fabrication) -> bool:
            return needles is None or any(fab.can_produce(n, caseless) for n in needles)

        markers = [fab.marker for fab in FABRICATIONS if wanted(fab)]
        if L.HARNESS_COMPACTION_BOUNDARY in self.labels.allowed and wanted(
                BOUNDARY_FABRICATION):
            markers.append(BOUNDARY_FABRICATION.marker)
        for leaf in sorted(self.gates):
            if leaf in GATED_SYNTH and GATED_SYNTH[leaf] not in markers:
                markers.append(GATED_SYNTH[leaf])
        if self.resolve_persisted:
            markers.append(PERSISTED_MARKER)
        return tuple(dict.fromkeys(markers))
