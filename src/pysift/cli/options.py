"""What the options every scoped command spells alike mean once read: the Env they are
read against, the format check, ``--sessions-from`` reading, the ``--since``/``--until``
window, and ``scope_args``, which turns them into one ``commands.scope.ScopeArgs``.

No typer here: both the typer tree and ``cli.fastpath`` (which reads the plain lines of
the hot commands without loading the framework) call it. A bad value is still click's
usage error (``BadParameter``), imported only when one is raised.
"""

from __future__ import annotations

import os
import sys
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # the command layer is imported when a command runs, not at start-up
    from pysift.commands.scope import ScopeArgs
    from pysift.core.grammar.ranges import RangeSpec
    from pysift.model.env import Env


class RootContext(Protocol):
    """What the options read of the command's context: the root's ``obj``, the global
    options (``--claude-home``, ``--color``, ``--no-cache``) as the root callback stored
    them. A typer context is one; ``cli.fastpath.FastContext`` is the other."""

    def find_root(self) -> Any: ...


# The global options of a run that has no click context (``cli.fastpath``), for
# ``wants_colour``: set for the run and cleared after it.
fast_root: dict[str, Any] | None = None


def bad_parameter(message: str, param_hint: str | None = None) -> Exception:
    """click's usage error for a bad option value, ``param_hint`` naming the option (typer
    loaded only now: the error path)."""
    import typer

    return typer.BadParameter(message, param_hint=param_hint)


FORMATS = ("text", "json")


COLOR_WHEN = ("never", "auto", "always")


def pattern_and_targets(positional: str | None, targets: list[str] | None,
                        regexp: str | None) -> tuple[str, list[str]]:
    """The pattern and the targets of a command taking ``[PATTERN] [TARGET]...`` and
    ``-e PATTERN``: with ``-e`` the first positional is a target too."""
    rest = list(targets or [])
    if regexp is None:
        return positional or "", rest
    return regexp, ([positional] if positional else []) + rest


def build_env(ctx: RootContext) -> Env:
    from pysift.disk.cache_place import settings_from
    from pysift.disk.gcpause import start_up_done
    from pysift.disk.layout import resolve_home
    from pysift.model.env import Env

    root = ctx.find_root()
    obj = root.obj or {}
    flag = obj.get("claude_home")
    environ = dict(os.environ)
    from pysift.disk.home import current_dir, user_home

    cwd = current_dir(environ)
    user = user_home(environ)
    if not environ.get("HOME"):
        # what the commands read as ``~`` (a quoted ``~/…`` target, a plan path): the home
        # the password database names, as for the Claude home, never ``~`` left unexpanded
        environ["HOME"] = str(user)
    home = resolve_home(flag, environ, user)
    home = home if home.is_absolute() else cwd / home  # rows print whole paths
    cache = settings_from(environ, user, home, bool(obj.get("no_cache")))
    start_up_done()
    return Env(claude_home=home, environ=environ, cwd=cwd, cache=cache, tz=_zone_of(environ))


def _zone_of(environ: dict[str, str]) -> tzinfo | None:
    """The zone times are read and shown in: the system's (None), or UTC, said once on
    stderr, when ``TZ`` names no zone (the C library would show UTC under a made-up name)."""
    if not environ.get("TZ"):
        return None  # (the common case pays no import)
    from pysift.core.timez import unknown_zone

    bad = unknown_zone(environ)
    if bad is None:
        return None
    from datetime import UTC

    from pysift.cli.emit import say

    say(f"pysift: note: TZ={bad!r} names no time zone this system knows, so times are read "
        "and shown in UTC; set TZ to a zone name such as 'America/New_York', or unset it")
    return UTC


def check_format(fmt: str) -> str:
    return one_of(fmt, FORMATS, "--format")


def one_of(value: str, choices: tuple[str, ...], flag: str) -> str:
    """``value`` when it is one of ``choices``, else the usage error listing them with the
    nearest (``'tre' is not one of summary, dir, file, timeline``)."""
    if value not in choices:
        from pysift.core.suggest import did_you_mean

        raise bad_parameter(f"'{value}' is not one of {', '.join(choices)}"
                            f"{did_you_mean(value, choices)}", flag)
    return value


def check_color(when: str) -> str:
    """``--color`` as given: never, auto (the default) or always."""
    if when not in COLOR_WHEN:
        from pysift.core.suggest import did_you_mean
        from pysift.errors import UsageError

        raise UsageError(f"--color '{when}' is not one of never, auto, always"
                         f"{did_you_mean(when, COLOR_WHEN)}")
    return when


def plain_utf8(stream: object) -> bool:
    """Whether text for ``stream`` can be handed over as UTF-8 bytes made ahead of it
    (``commands.list_.encoded_row``): it paints nothing (``wants_colour``), encodes as
    UTF-8 and has the bytes layer under it (a ``TextIOWrapper``)."""
    if wants_colour(stream) or getattr(stream, "buffer", None) is None:
        return False
    import codecs

    try:
        return codecs.lookup(getattr(stream, "encoding", None) or "").name == "utf-8"
    except LookupError:
        return False


def wants_colour(stream: object, environ: dict[str, str] | None = None) -> bool:
    """Whether text output to ``stream`` is coloured: ``--color always``/``never`` as
    given; ``auto`` when the stream is a terminal, ``NO_COLOR`` is unset or empty
    (no-color.org) and ``TERM`` is not ``dumb``."""
    env = os.environ if environ is None else environ
    when = _root_option("color") or "auto"
    if when != "auto":
        return when == "always"
    if env.get("NO_COLOR") or env.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (OSError, ValueError):
        return False


def _root_option(name: str) -> str | None:
    """A global option's value: the fast path's, else the running command's root context
    (None outside both: a command run in-process by a test). No click context can exist
    while click is not loaded, so it is not loaded to ask."""
    obj = fast_root
    if obj is None and ("click" in sys.modules or "typer._click" in sys.modules):
        try:  # a typer that ships its own click: none in the pinned range (typer<0.21)
            from typer._click import get_current_context  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            from click import get_current_context
        ctx = get_current_context(silent=True)
        root = ctx.find_root() if ctx is not None else None
        obj = root.obj if root is not None else None
    return obj.get(name) if isinstance(obj, dict) else None


def read_sessions_from(values: list[str] | None) -> tuple[str, ...] | None:
    """The ids named by every ``--sessions-from FILE|-`` (None when the flag is absent):
    the lists are a union, as targets are (stdin is read once, however often named)."""
    if not values:
        return None
    from pysift.core.resolve import SESSIONS_FROM_CAP
    from pysift.core.resolve import read_sessions_from as parse

    # capped: a stdin that never ends (`yes |`) is refused past the cap, not read forever
    stdin_text = sys.stdin.read(SESSIONS_FROM_CAP + 1) if "-" in values else None
    ids: list[str] = []
    for value in dict.fromkeys(values):
        ids.extend(parse(value, stdin_text if value == "-" else None))
    return tuple(ids)


def integer(text: str) -> int | None:
    """``text`` as an integer when it is an optional sign and ASCII digits, nothing else
    (None otherwise). Python's ``int`` (click's integer type) also takes ``1_0`` as 10,
    `` 3`` and ``٣`` as 3, and ``str.isdigit`` passes ``³``, which ``int`` refuses."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    return int(text) if digits.isascii() and digits.isdigit() else None


def check_max_count(value: int | None) -> None:
    """``--max-count`` is 0 (uncapped) or a positive cap on list, show and stats."""
    if value is not None and value < 0:
        raise bad_parameter("must be 0 (uncapped) or a positive count", "--max-count")


def parse_window(since: str | None, until: str | None, env: Env
                 ) -> tuple[datetime | None, datetime | None]:
    """``--since``/``--until`` as UTC instants against the Env's clock and zone (None when
    absent); a value that is no WHEN is a usage error naming its flag."""
    if since is None and until is None:
        return None, None  # the WHEN grammar (and dateutil, ~20 ms) only when asked
    from pysift.core.grammar.when import parse_when

    now = env.now()
    start = parse_when(since, now, env.tz, flag="--since") if since is not None else None
    end = parse_when(until, now, env.tz, flag="--until") if until is not None else None
    if start is not None and end is not None and start > end:
        from pysift.errors import UsageError

        fine = start.replace(microsecond=0) == end.replace(microsecond=0)

        def instant(text: str, at: datetime) -> str:  # fractions only where they differ
            fraction = f".{at.microsecond:06d}".rstrip("0") if fine else ""
            return f"`{text}` ({at.strftime('%Y-%m-%dT%H:%M:%S')}{fraction}Z)"

        assert since is not None  # both parsed above
        assert until is not None
        raise UsageError(f"the time window is reversed: --since {instant(since, start)} is "
                         f"later than --until {instant(until, end)}; a window runs from "
                         "--since to --until, so swap the two values")
    return start, end


def _turns(turn: str | None) -> RangeSpec | None:
    """``--turn``'s range (the grammar imported only when one is given)."""
    if turn is None:
        return None
    from pysift.core.grammar.ranges import parse_range

    return parse_range(turn, flag="--turn")


def scope_args(ctx: RootContext, *, targets: list[str] | None, subagents: bool = True,
               sessions_from: list[str] | None = None, fmt: str = "text",
               max_count: int | None = None, signed_max_count: bool = False,
               since: str | None = None, until: str | None = None,
               turn: str | None = None) -> tuple[ScopeArgs, Env]:
    """The shared options of a scoped command, checked and parsed in one order for every
    command (the format, the cap, the window, the turn range, then the id lists, which
    may read stdin), and the Env they were read against. ``signed_max_count``: a
    negative ``--max-count`` keeps the latest (search); elsewhere it is a usage error."""
    from pysift.commands.scope import ScopeArgs

    check_format(fmt)
    if not signed_max_count:
        check_max_count(max_count)
    env = build_env(ctx)
    start, end = parse_window(since, until, env)
    return ScopeArgs(
        targets=tuple(targets or ()), subagents=subagents,
        format=fmt, max_count=max_count, since=start, until=end,
        since_text=since, until_text=until,
        turns=_turns(turn),
        sessions_from=read_sessions_from(sessions_from),
    ), env
