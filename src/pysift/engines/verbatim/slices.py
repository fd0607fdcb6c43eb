"""Cutting the document into hook-sized windows (``--window``, ``--slice``, ``--slices``).

A Claude Code ``SessionStart`` hook injects at most 10,000 characters of
``additionalContext``, so a longer reconstruction is fanned over several hooks, each
printing one slice. Windows count characters (code points: what the cap counts, so CJK
prose is not charged three times as bytes would be).
"""

from __future__ import annotations


def slice_windows(text: str, window: int) -> list[str]:
    """Pack the lines of ``text`` greedily into chunks of at most ``window`` characters.

    A line longer than the window alone is cut on character boundaries into full
    windows, its remainder starting the next chunk. Deterministic, no chunk over the
    window, and the chunks joined in order are ``text`` exactly.
    """
    window = max(1, window)
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    for line in _lines(text):
        n = len(line)
        if n > window:
            if current:
                chunks.append("".join(current))
                current, size = [], 0
            full = n - n % window
            chunks.extend(line[i:i + window] for i in range(0, full, window))
            rest = line[full:]
            if rest:
                current, size = [rest], len(rest)
            continue
        if size + n > window and current:
            chunks.append("".join(current))
            current, size = [], 0
        current.append(line)
        size += n
    if current:
        chunks.append("".join(current))
    return chunks


def _lines(text: str) -> list[str]:
    """The lines of ``text``, each with its ``\\n`` (only a newline ends a line here;
    ``str.splitlines`` also breaks at other characters)."""
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def pick(chunks: list[str], index: int, fleet: int | None) -> str | None:
    """Slice ``index`` (1-based) of ``chunks``; with a fixed fleet of ``fleet`` slices
    the newest ``fleet`` chunks are numbered 1..fleet (oldest first). None when out of
    range."""
    if index < 1:
        return None
    if fleet is not None:
        if index > fleet:
            return None
        position = max(0, len(chunks) - fleet) + index - 1
    else:
        position = index - 1
    return chunks[position] if position < len(chunks) else None
