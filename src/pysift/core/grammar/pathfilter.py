"""``--regex`` / ``--glob`` over full paths (``files``): compiled once at the CLI edge.

``--regex`` is the search dialect (Rust ``regex`` syntax, linear time, ``core.matcher``)
matched ANYWHERE in the path, case-sensitive as csift's ``Regex::new`` is (no smart
case: a path filter names bytes, not prose); a leading ``(?i)`` makes it caseless.

``--glob`` follows the ``globset`` crate's defaults: the glob must match the WHOLE path;
``*`` and ``?`` match any character including ``/`` (``*.md`` keeps every Markdown file at
any depth); ``**`` as a whole path component also matches zero components (``a/**/b``
keeps ``a/b``); ``[abc]``, ``[a-z]``, ``[!abc]`` / ``[^abc]`` are classes; ``{a,b}`` is an
alternation (not nested); ``\\`` escapes the next character. An unclosed ``[`` or ``{``,
a nested ``{``, a reversed range or a trailing ``\\`` is refused. A Windows path (a drive
letter or a UNC share, as Claude Code on Windows records it) is matched with its ``\\``
read as ``/``, as globset matches a path on Windows, so ``**/src/**`` keeps
``D:\\proj\\src\\a.rs``; a POSIX path keeps its backslashes (a name may hold one).

Both are ANDed: a path is kept when it satisfies every filter given.
"""

from __future__ import annotations

import re
from typing import Any

from pysift.disk.layout import is_windows_rooted
from pysift.errors import UsageError
from pysift.model.fastdata import dataclass

REGEX_HINT = ("a Rust-syntax regex matched anywhere in the full path, e.g. '\\.rs$' or "
              "'/docs/'")
GLOB_HINT = ("a glob matched against the full path: * and ? cross '/', ** spans "
             "directories, [a-z] classes, {a,b} alternatives, e.g. '**/src/**' or '*.md'")

_LEADING_FLAGS = re.compile(r"\(\?([A-Za-z]*)(?:-[A-Za-z]*)?\)")


@dataclass(frozen=True)
class PathFilter:
    """The compiled path filters (either may be None)."""

    regex: Any = None
    glob: re.Pattern[str] | None = None
    regex_text: str | None = None
    glob_text: str | None = None

    @property
    def active(self) -> bool:
        return self.regex is not None or self.glob is not None

    def keeps(self, path: str) -> bool:
        if self.regex is not None and not self.regex.matches(path):
            return False
        if self.glob is None:
            return True
        if self.glob.fullmatch(path) is not None:
            return True  # (a pattern spelling the path's own backslashes, escaped)
        # globset's reading of a Windows path: its backslashes are separators
        return ("\\" in path and is_windows_rooted(path)
                and self.glob.fullmatch(path.replace("\\", "/")) is not None)


def compile_path_regex(pattern: str) -> Any:
    """A ``core.matcher.Matcher`` for a case-sensitive path regex (UsageError when
    invalid, the pattern checked as typed so an error's offset is the user's)."""
    from pysift.core.matcher import compile_pattern

    lead = _LEADING_FLAGS.match(pattern)
    if lead is not None and "i" in lead.group(1):
        source = pattern
    elif lead is not None:
        source = pattern[:lead.end()] + "(?-i)" + pattern[lead.end():]
    else:
        source = "(?-i)" + pattern
    try:
        compile_pattern(pattern)
        return compile_pattern(source)
    except UsageError as exc:
        detail = str(exc).removeprefix("invalid regex: ")
        raise UsageError(f"invalid --regex {pattern!r}: {detail}; write {REGEX_HINT}") from None


def compile_glob(pattern: str) -> re.Pattern[str]:
    """The glob as an anchored Python regex (UsageError when invalid)."""
    try:
        return re.compile(_glob_source(pattern), re.DOTALL)
    except _GlobError as exc:
        raise UsageError(f"invalid --glob {pattern!r}: {exc}; write {GLOB_HINT}") from None


class _GlobError(ValueError):
    pass


def _glob_source(pattern: str) -> str:
    out: list[str] = []
    i = 0
    n = len(pattern)
    in_alt = False
    while i < n:
        c = pattern[i]
        if c == "\\":
            if i + 1 >= n:
                raise _GlobError("a trailing backslash escapes nothing")
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        if c == "*":
            if pattern.startswith("**", i):
                j = i + 2
                while j < n and pattern[j] == "*":
                    j += 1
                before = i == 0 or pattern[i - 1] == "/"
                after = j == n or pattern[j] == "/"
                if before and after:
                    if j < n:  # `**/`: any leading directories, or none
                        out.append("(?:.*/)?")
                        i = j + 1
                    else:  # a trailing `**`
                        out.append(".*")
                        i = j
                    continue
                out.append(".*")
                i = j
                continue
            out.append(".*")
            i += 1
            continue
        if c == "?":
            out.append(".")
            i += 1
            continue
        if c == "[":
            i = _glob_class(pattern, i, out)
            continue
        if c == "{":
            if in_alt:
                raise _GlobError("alternatives {a,b} cannot nest")
            in_alt = True
            out.append("(?:")
            i += 1
            continue
        if c == "}" and in_alt:
            in_alt = False
            out.append(")")
            i += 1
            continue
        if c == "," and in_alt:
            out.append("|")
            i += 1
            continue
        out.append(re.escape(c))
        i += 1
    if in_alt:
        raise _GlobError("unclosed alternatives '{'")
    return "".join(out) + r"\Z"


def _glob_class(pattern: str, i: int, out: list[str]) -> int:
    n = len(pattern)
    j = i + 1
    negate = False
    if j < n and pattern[j] in "!^":
        negate = True
        j += 1
    members: list[str] = []
    first = True
    while j < n and (pattern[j] != "]" or first):
        c = pattern[j]
        first = False
        if j + 2 < n and pattern[j + 1] == "-" and pattern[j + 2] != "]":
            lo, hi = c, pattern[j + 2]
            if lo > hi:
                raise _GlobError(f"reversed range {lo}-{hi} in a class")
            members.append(f"{re.escape(lo)}-{re.escape(hi)}")
            j += 3
            continue
        members.append(re.escape(c))
        j += 1
    if j >= n:
        raise _GlobError("unclosed class '['")
    out.append(("[^" if negate else "[") + "".join(members) + "]")
    return j + 1
