"""The ONE range-token grammar shared by every range flag.

`show --line` / `--turn`, the per-command `--turn` window and `recover --file-lines` all
take the same tokens, so a reader learns the grammar once:

    N       one value                       3
    A..B    inclusive closed range          3..9
    N..     from N to the end               40..
    ..N     from the start to N             ..5
    ..      everything                      ..
    -k      the k-th from the end           -1   (the last)
    -k..    the last k                      -3..
    a,b     a union of any of the above     3,7..9   (show --line repeats/comma-joins)

A token is parsed once, at the CLI edge, into a `RangeSpec`; engines resolve it against a
concrete inclusive domain `[lo, hi]` (turns are 0-based: lo=0; lines are 1-based: lo=1).

Two spellings are refused with a message that teaches the right one, because both used
to be accepted somewhere and silently meant something else: the dash form `5-9` and a
reversed closed range `9..3`. A reversal that depends on the domain (`5..-2` on a short
transcript) cannot be judged at parse time; it resolves to nothing.

Explicit forms (`N`, `A..B`) are ADDRESSES: naming a value the domain does not hold is
the caller's hard error (`missing`). The other forms CLAMP to the domain, so a tail peek
such as `--turn -9..` on a two-turn session still works.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pysift.errors import UsageError
from pysift.model.fastdata import dataclass

__all__ = ["RangeItem", "RangeSpec", "describe_items", "format_range", "parse_range"]

FORMS_HINT = (
    "write N, A..B, N.. (to the end), ..N (from the start), .. (everything), "
    "-k (the k-th from the end) or -k.. (the last k); join several with commas"
)

_ENDPOINT = re.compile(r"(-?)([0-9]+)")
_DASH_RANGE = re.compile(r"([0-9]+)\s*-\s*([0-9]+)")


@dataclass(frozen=True)
class RangeItem:
    """One comma-separated piece of a range token, unresolved.

    An endpoint is ``None`` when open (``N..`` has ``end=None``), a plain index when its
    ``*_from_end`` flag is False, or ``k >= 1`` counting from the end when it is True
    (``-1`` is the last value). A single value ``N`` is ``start == end == N``.
    """

    start: int | None
    end: int | None
    start_from_end: bool = False
    end_from_end: bool = False

    def __post_init__(self) -> None:
        for value, from_end in ((self.start, self.start_from_end), (self.end, self.end_from_end)):
            if value is None:
                if from_end:
                    raise ValueError("an open endpoint cannot count from the end")
            elif value < (1 if from_end else 0):
                raise ValueError(f"invalid range endpoint {value} (from_end={from_end})")

    @property
    def is_single(self) -> bool:
        """True for `N` and `-k`: one endpoint written once."""
        return (
            self.start is not None
            and self.start == self.end
            and self.start_from_end == self.end_from_end
        )

    @property
    def is_open(self) -> bool:
        """True for the clamping forms (`N..`, `..N`, `..`, `-k`, `-k..`, `3..-1`).

        False only for explicit `N` / `A..B`, the forms that address fixed values.
        """
        return self.start is None or self.end is None or self.start_from_end or self.end_from_end

    def bounds(self, lo: int, hi: int) -> tuple[int, int] | None:
        """The inclusive sub-interval of the domain `[lo, hi]` this item covers, or None.

        From-end values count back from `hi`; a from-end start before `lo` clamps (so
        `-100..` of 5 values is all 5), while a single `-k` past the start covers nothing.
        """
        if hi < lo:
            return None
        first = lo if self.start is None else _concrete(self.start, self.start_from_end, hi)
        last = hi if self.end is None else _concrete(self.end, self.end_from_end, hi)
        first, last = max(first, lo), min(last, hi)
        return (first, last) if first <= last else None

    def format(self, prefix: str = "") -> str:
        """The canonical token; `prefix` (e.g. "t" for turns) goes before plain indices."""
        if self.is_single:
            return _format_endpoint(self.start, self.start_from_end, prefix)
        start = _format_endpoint(self.start, self.start_from_end, prefix)
        end = _format_endpoint(self.end, self.end_from_end, prefix)
        return f"{start}..{end}"

    def __str__(self) -> str:
        return self.format()


@dataclass(frozen=True)
class RangeSpec:
    """A parsed range token: the union of its items."""

    items: tuple[RangeItem, ...]

    @property
    def is_open(self) -> bool:
        """True when every item clamps (no explicit `N` / `A..B` address among them)."""
        return bool(self.items) and all(item.is_open for item in self.items)

    def intervals(self, lo: int, hi: int) -> list[tuple[int, int]]:
        """Disjoint, sorted, merged inclusive intervals inside `[lo, hi]`.

        Prefer this over `resolve` when the domain is large (every line of a big file):
        it never materialises the values.
        """
        spans = sorted(b for item in self.items if (b := item.bounds(lo, hi)) is not None)
        merged: list[tuple[int, int]] = []
        for first, last in spans:
            if merged and first <= merged[-1][1] + 1:
                if last > merged[-1][1]:
                    merged[-1] = (merged[-1][0], last)
            else:
                merged.append((first, last))
        return merged

    def resolve(self, lo: int, hi: int) -> list[int]:
        """The concrete values inside the inclusive domain `[lo, hi]`.

        Sorted, without duplicates, clamped to the domain; an empty domain (`hi < lo`)
        gives []. Explicit values outside the domain are simply absent: ask `missing`
        for them.
        """
        values: list[int] = []
        for first, last in self.intervals(lo, hi):
            values.extend(range(first, last + 1))
        return values

    def contains(self, value: int, lo: int, hi: int) -> bool:
        """Whether `value` is one of `resolve(lo, hi)`, without building the list."""
        return any(first <= value <= last for first, last in self.intervals(lo, hi))

    def missing(self, lo: int, hi: int) -> tuple[RangeItem, ...]:
        """The explicit items (`N`, `A..B`) that name nothing inside `[lo, hi]`.

        These are address misses: `show` turns them into a hard error such as
        ``no such turn(s): t99 — the transcript has 2 turn(s) (t0..t1)`` (render them with
        `describe_items`). A closed range that overlaps the domain only partly is not a
        miss; it clamps. Items, not values, are returned so that `--line 5..99999999`
        never expands into millions of integers.
        """
        return tuple(
            item for item in self.items if not item.is_open and item.bounds(lo, hi) is None
        )

    def format(self) -> str:
        return format_range(self)

    def __str__(self) -> str:
        return format_range(self)


def parse_range(text: str, *, flag: str | None = None, one_based: bool = False) -> RangeSpec:
    """Parse a range token (comma lists allowed) into a `RangeSpec`.

    `flag` (e.g. "--turn") prefixes error messages. Raises `UsageError` for an empty
    token, the dash form (`5-9`), a reversed explicit range (`9..3`, `-1..-3`), `-0`,
    or anything outside the grammar; every message says what to write instead.
    ``one_based`` (lines): an item naming only `0` (`0`, `0..0`) is refused too, saying
    the values start at 1 (it read as an address past the end, exit 1); `0..4` still
    clamps to `1..4`.
    """
    pieces = [piece.strip() for piece in text.split(",")]
    items = tuple(_parse_item(piece, flag) for piece in pieces if piece)
    if not items:
        raise UsageError(_message(flag, f"empty range `{text}`; {FORMS_HINT}"))
    if one_based:
        for item in items:
            if item.end == 0 and not item.end_from_end:
                raise UsageError(_message(flag, f"`{item.format()}` names line 0, but lines "
                                                "are 1-based (the first line is 1); write 1 "
                                                "or a range from 1"))
    return RangeSpec(items)


def format_range(spec: RangeSpec) -> str:
    """The canonical text of `spec`; `parse_range(format_range(s)) == s`."""
    return ",".join(item.format() for item in spec.items)


def describe_items(items: Iterable[RangeItem], prefix: str = "") -> str:
    """Items as a reader-facing list, e.g. ``t99, t4..t7`` with prefix "t"."""
    return ", ".join(item.format(prefix) for item in items)


def _parse_item(piece: str, flag: str | None) -> RangeItem:
    if ".." in piece:
        left, right = piece.split("..", 1)
        start, start_from_end = _parse_endpoint(left.strip(), piece, flag)
        end, end_from_end = _parse_endpoint(right.strip(), piece, flag)
        item = RangeItem(start, end, start_from_end, end_from_end)
        _reject_static_reversal(item, piece, flag)
        return item
    value, from_end = _parse_endpoint(piece, piece, flag)
    if value is None:  # pragma: no cover - the caller skips empty pieces
        raise UsageError(_message(flag, f"empty range item; {FORMS_HINT}"))
    return RangeItem(value, value, from_end, from_end)


def _parse_endpoint(token: str, piece: str, flag: str | None) -> tuple[int | None, bool]:
    if not token:
        return None, False
    match = _ENDPOINT.fullmatch(token)
    if match is None:
        raise UsageError(_message(flag, _bad_piece_hint(piece)))
    sign, digits = match.groups()
    try:
        value = int(digits)
    except ValueError:  # more digits than int() accepts
        raise UsageError(_message(flag, f"`{piece}` is too large to be an index")) from None
    if sign and value == 0:
        raise UsageError(
            _message(flag, f"`{piece}`: -0 is not a position; -1 is the last, -k.. the last k")
        )
    return value, bool(sign)


def _bad_piece_hint(piece: str) -> str:
    dash = _DASH_RANGE.fullmatch(piece)
    if dash is not None:
        low, high = sorted((int(dash.group(1)), int(dash.group(2))))
        return f"`{piece}` is not a range; write {low}..{high} (a leading -k counts from the end)"
    return f"`{piece}` is not a range token; {FORMS_HINT}"


def _reject_static_reversal(item: RangeItem, piece: str, flag: str | None) -> None:
    """Refuse a reversal visible without the domain: `9..3` or `-1..-3`."""
    if item.start is None or item.end is None or item.start_from_end != item.end_from_end:
        return
    reversed_ = item.end < item.start if not item.start_from_end else item.end > item.start
    if reversed_:
        fixed = RangeItem(item.end, item.start, item.end_from_end, item.start_from_end)
        raise UsageError(
            _message(flag, f"`{piece}` is reversed (a range runs from start to end); write {fixed}")
        )


def _concrete(value: int, from_end: bool, hi: int) -> int:
    return hi - value + 1 if from_end else value


def _format_endpoint(value: int | None, from_end: bool, prefix: str) -> str:
    if value is None:
        return ""
    return f"-{value}" if from_end else f"{prefix}{value}"


def _message(flag: str | None, text: str) -> str:
    return f"{flag}: {text}" if flag else text
