"""Pre-parse argv normalization, pure and unit-tested.

Two things click cannot do on its own:
- ``--claude-home DIR``, ``--color WHEN`` and ``--no-cache`` are global and may stand anywhere on the
  command line; they are moved in front of the subcommand so the root callback sees them.
- A pre-encoded project dir (``-Users-ada-src-orbit``, ``C--Users-x`` is fine already)
  starts with ``-`` and would be read as an option; such tokens are moved behind a ``--``
  so they reach the command as positionals, in their original order. A short one
  (``-tmp``, ``-srv``: the cwd was ``/tmp``) is shaped like a flag cluster (``-t mp``); it
  is a dir when the projects root holds it (``is_project_dir``, the one file-system
  question asked here) and it is not made of boolean short flags only (``-ci``).
"""


import re
from collections.abc import Callable, Sequence

from pysift.errors import UsageError

# Options (any subcommand) that consume the next token as their value.
VALUE_OPTIONS = frozenset(
    {
        "--claude-home", "--since", "--until", "--turn", "--line", "--uuid", "--max-count",
        "--format", "--sessions-from", "-t", "--label", "-T", "--label-not", "--count-by",
        "--block", "--sha256", "--out", "--out-dir", "--id", "--timeout", "--interval",
        "--file", "--files-from", "--at", "--slice", "--slices", "--budget", "--glob",
        "--by", "--order-by", "--shape", "--agent", "--reverse", "-e", "--regexp",
        "--color", "--agent-type", "--lock-timeout", "--regex", "--file-lines",
        "--background-since", "--ignore-background", "--agent-msgs", "--max-compactions",
        "--profile", "--round-trip-fraction", "--window",
    }
)
# Global options (root callback), moved in front of the subcommand wherever they stand.
GLOBAL_OPTIONS = ("--claude-home", "--color")

# (a trailing slash, as tab completion adds it, makes the token a relative path: it still
# must not be read as an option cluster, `-home-ada/` as `-h -o -m …`)
_ENCODED_DIR = re.compile(r"^-[A-Za-z0-9][A-Za-z0-9-]+/*$")
_SHORT_CLUSTER = re.compile(r"^-[a-z]{1,3}$")
_BOOLEAN_SHORT_FLAGS = frozenset("cilh")  # -c -i -l -h: a cluster of these is never a dir


def looks_like_encoded_dir(token: str) -> bool:
    """A single-dash token shaped like an encoded project dir, not a flag or a number."""
    if token.startswith("--") or not _ENCODED_DIR.match(token):
        return False
    if _SHORT_CLUSTER.match(token):  # -c, -ci, -l: flag clusters
        return False
    return not token[1:].isdigit()  # -3: a from-end range value, not a dir


def home_flag(argv: Sequence[str]) -> str | None:
    """The ``--claude-home`` value on the line (the last one given), if any."""
    found = None
    for i, tok in enumerate(argv):
        if tok == "--":
            break
        if tok == "--claude-home" and i + 1 < len(argv):
            found = argv[i + 1]
        elif tok.startswith("--claude-home="):
            found = tok.split("=", 1)[1]
    return found


def _is_short_dir(token: str, is_project_dir: Callable[[str], bool] | None) -> bool:
    return (is_project_dir is not None and _SHORT_CLUSTER.match(token) is not None
            and not set(token[1:]) <= _BOOLEAN_SHORT_FLAGS and is_project_dir(token))


_GLOBAL_NEEDS = {
    "--claude-home": "the Claude config dir (the one holding projects/)",
    "--color": "never, auto or always",
}


def globals_end(args: Sequence[str]) -> int:
    """Where the global options that ``normalize`` put in front end (the command word's
    index)."""
    at = 0
    while at + 1 < len(args) and args[at] in GLOBAL_OPTIONS:
        at += 2
    if args[at:at + 1] == ["--no-cache"]:  # the one global flag: after the valued ones
        at += 1
    return at


def _put_global(front: dict[str, list[str]], repeated: dict[str, list[str]], name: str,
                value: str) -> None:
    if name in front:
        repeated.setdefault(name, [front[name][1]]).append(value)
    else:
        front[name] = [name, value]


def normalize(argv: Sequence[str], is_project_dir: Callable[[str], bool] | None = None
              ) -> list[str]:
    args = list(argv)
    front: dict[str, list[str]] = {}  # each global once (a second is refused, below)
    repeated: dict[str, list[str]] = {}
    no_cache: list[str] = []
    rest: list[str] = []
    encoded: list[str] = []
    i = 0
    while i < len(args):
        tok = args[i]
        if tok == "--":
            rest.extend(args[i:])
            break
        if tok in GLOBAL_OPTIONS:
            if i + 1 >= len(args):
                raise UsageError(f"{tok} needs a value: {_GLOBAL_NEEDS[tok]}; see "
                                 "`pysift --help`")
            _put_global(front, repeated, tok, args[i + 1])
            i += 2
            continue
        name, eq, value = tok.partition("=")
        if eq and name in GLOBAL_OPTIONS:
            _put_global(front, repeated, name, value)
            i += 1
            continue
        if tok == "--no-cache":
            no_cache = [tok]
            i += 1
            continue
        if tok in VALUE_OPTIONS and i + 1 < len(args):
            rest.extend((tok, args[i + 1]))
            i += 2
            continue
        if looks_like_encoded_dir(tok) or _is_short_dir(tok, is_project_dir):
            encoded.append(tok)
        else:
            rest.append(tok)
        i += 1
    for name, values in repeated.items():  # the last one was read silently: another home
        raise UsageError(f"{name} given {len(values)} times ({', '.join(values)}); it takes "
                         "one value, pass one (see `pysift --help`)")
    if encoded:
        if "--" in rest:
            cut = rest.index("--") + 1
            rest[cut:cut] = encoded
        else:
            rest += ["--", *encoded]
    home = [tok for name in GLOBAL_OPTIONS if name in front for tok in front[name]]
    return home + no_cache + rest
