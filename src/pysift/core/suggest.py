"""The did-you-mean of every closed vocabulary a user types (label selectors, census axes,
the colour modes): one function, so every command that refuses a word names the nearest
valid ones the same way."""

from __future__ import annotations

from collections.abc import Iterable


def did_you_mean(word: str, choices: Iterable[str], *, limit: int = 3) -> str:
    """`` (did you mean `user`?)`` (or ``"`a` or `b`"``) for the choices close to ``word``,
    else the empty string. Close: difflib's ratio of 0.6 or more (``usr`` -> ``user``),
    or a choice that ``word`` is a case-insensitive prefix of."""
    import difflib

    pool = list(dict.fromkeys(choices))
    lowered = word.strip().lower()
    if not lowered:
        return ""
    close = difflib.get_close_matches(lowered, pool, n=limit, cutoff=0.6)
    if not close:
        close = [c for c in pool if c.lower().startswith(lowered)][:limit]
    if not close:
        return ""
    return " (did you mean " + " or ".join(f"`{c}`" for c in close) + "?)"
