"""The ``-t/--label`` and ``-T/--label-not`` selector grammar (SPEC §5, §5.4, v0.9.4 ⑦).

Three forms, the same for ``-t`` and ``-T``:
- a bare ROLE (``user``, ``agent``, ``harness``) expands to that role's LLM-visible
  leaves only (never ``user.unsent``, ``harness.compaction.boundary`` or a gated leaf);
- a GLOB ``<prefix>.*`` expands to every leaf under the prefix, visibility ignored;
- any other dotted path (an intermediate class or a full leaf) is a dot-SEGMENT prefix
  and keeps its full set (``-t harness.compaction`` still reaches the boundary).

With no ``-t`` every leaf is eligible except the gated ones (their lines are never
parsed by a default scan). The effective set is include minus exclude; a statically
empty set, an unknown path and the retired flat values are hard errors that list the
valid selectors.
"""

from __future__ import annotations

from collections.abc import Sequence

from pysift.errors import UsageError
from pysift.model import labels as L
from pysift.model.fastdata import dataclass

ROLES = ("user", "agent", "harness")

RETIRED = {
    "thinking": "agent.thinking",
    "tool": "agent.tool (use + result) or agent.tool.use",
    "tool-response": "agent.tool.result",
}


def _is_segment_prefix(prefix: str, label: str) -> bool:
    return label == prefix or label.startswith(prefix + ".")


def valid_selectors() -> list[str]:
    """Every accepted selector path: roles, intermediate classes and leaves."""
    paths: set[str] = set()
    for leaf in L.ALL:
        parts = leaf.split(".")
        for i in range(1, len(parts) + 1):
            paths.add(".".join(parts[:i]))
    return sorted(paths, key=lambda p: (L.ALL.index(next(x for x in L.ALL
                                                           if _is_segment_prefix(p, x))), p))


def _listing() -> str:
    return ", ".join(valid_selectors())


def expand(selector: str) -> frozenset[str]:
    """The leaves one selector reaches. Raises UsageError for an unknown selector."""
    sel = selector.strip()
    if sel in RETIRED:
        raise UsageError(f"'{sel}' is the pre-v0.5 flat spelling, retired — today that is "
                         f"{RETIRED[sel]} (valid selectors: {_listing()})")
    if sel.endswith(".*"):
        prefix = sel[:-2]
        leaves = frozenset(x for x in L.ALL if _is_segment_prefix(prefix, x))
        if not leaves:
            raise UsageError(f"'{sel}' matches no label{_nearest(prefix)}; valid selectors: "
                             f"{_listing()}")
        return leaves
    if sel in ROLES:
        return frozenset(x for x in L.ALL if x.startswith(sel + ".")
                         and x not in L.LLM_INVISIBLE)
    leaves = frozenset(x for x in L.ALL if _is_segment_prefix(sel, x))
    if not leaves:
        raise UsageError(f"'{sel}' is not a label selector{_nearest(sel)}; valid selectors: "
                         f"{_listing()} (a glob like harness.* reaches every leaf under a "
                         "prefix)")
    return leaves


def _nearest(word: str) -> str:
    from pysift.core.suggest import did_you_mean

    return did_you_mean(word, valid_selectors())


@dataclass(frozen=True)
class LabelFilter:
    include: tuple[str, ...] = ()  # the -t selectors as typed
    exclude: tuple[str, ...] = ()  # the -T selectors as typed
    allowed: frozenset[str] = frozenset(L.ALL) - L.GATED

    @property
    def explicit(self) -> bool:
        return bool(self.include)

    @property
    def gates(self) -> frozenset[str]:
        """Gated leaves an explicit -t reached (their lines may be parsed)."""
        return self.allowed & L.GATED if self.include else frozenset()

    def selects(self, label: str) -> bool:
        return label in self.allowed

    def describe(self) -> str:
        return ",".join(self.include) if self.include else "all"


def split_selectors(values: Sequence[str], flag: str) -> list[str]:
    """The selectors of every ``-t``/``-T`` value (comma lists allowed). An empty value,
    or an empty item in a list (``user,``, ``,``), is a usage error naming the flag: it
    was dropped, and an empty ``-t`` then searched every label."""
    out: list[str] = []
    for raw in values:
        items = [item.strip() for item in raw.split(",")]
        if not any(items):
            raise UsageError(f"{flag} `{raw}` names no label; give a selector such as user, "
                             f"agent.tool.use or harness.* (see `pysift search --help`), or "
                             f"drop {flag}")
        if not all(items):
            raise UsageError(f"{flag} `{raw}` has an empty item; join selectors with single "
                             f"commas and no stray comma (user,agent.message)")
        out += items
    return out


def parse_filter(include: Sequence[str] = (), exclude: Sequence[str] = ()) -> LabelFilter:
    inc = split_selectors(include, "-t")
    exc = split_selectors(exclude, "-T")
    base: frozenset[str] = frozenset()
    if inc:
        for sel in inc:
            base |= expand(sel)
    else:
        base = frozenset(L.ALL) - L.GATED
    removed: frozenset[str] = frozenset()
    for sel in exc:
        removed |= expand(sel)
    allowed = base - removed
    if not allowed:
        raise UsageError(
            f"the label selection is empty: {' '.join('-t ' + s for s in inc) or 'all'} minus "
            f"{' '.join('-T ' + s for s in exc)} leaves nothing to search; valid selectors: "
            f"{_listing()}")
    return LabelFilter(tuple(inc), tuple(exc), allowed)
