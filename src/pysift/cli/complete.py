"""Shell completion (bash, zsh, fish) through typer: subcommands and flags come from the
command tree; these callbacks add the values (SPEC §16).

``@`` targets complete from the sessions of the resolved Claude home (``--claude-home``
on the line, else ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``): the shortest unambiguous
prefix of each session's uuid (8 hex characters at least), described by its first human
message, newest sessions first. Nothing here runs outside a completion request.
"""


import os
import shlex
import sys
from pathlib import Path
from typing import Any

#: at most this many sessions are offered (the newest): a shell lists them all
MAX_SESSIONS = 60
#: a session's description reads at most its first bytes
HEAD_BYTES = 256 * 1024
DESCRIPTION_CHARS = 70
PREFIX_MIN = 8


def formats(incomplete: str) -> list[tuple[str, str]]:
    choices = [("text", "for a reader"), ("json", "NDJSON: header, kind-tagged rows, summary")]
    return [c for c in choices if c[0].startswith(incomplete)]


def count_axes(incomplete: str) -> list[str]:
    from pysift.commands.search import COUNT_BY_AXES

    return [axis for axis in COUNT_BY_AXES if axis.startswith(incomplete)]


def labels(incomplete: str) -> list[str]:
    """Label selectors: the 34 leaves and every prefix of them (``user``, ``agent.tool``),
    completed after the last comma of a list (``user,agent.m`` -> ``user,agent.message``)."""
    from pysift.model.labels import ALL

    head, _, last = incomplete.rpartition(",")
    lead = f"{head}," if head else ""
    paths: set[str] = set()
    for leaf in ALL:
        parts = leaf.split(".")
        paths.update(".".join(parts[:n]) for n in range(1, len(parts) + 1))
    return [lead + p for p in sorted(paths) if p.startswith(last)]


def conditions(incomplete: str) -> list[str]:
    """``wait --until`` conditions: the bare heads, the heads that take a pattern with
    their colon, and ``verdict:`` with each verdict."""
    from pysift.live.verdict import VERDICTS

    heads = ["stop", "hitl", "auq", "notification", "notification:", "tool:", "write:",
             *(f"verdict:{verdict}" for verdict in VERDICTS)]
    return [head for head in heads if head.startswith(incomplete)]


def targets(ctx: Any, incomplete: str) -> list[tuple[str, str]]:
    """``@`` session targets of the resolved home; nothing for other words (the shell
    then completes paths). Every value starts with the word as typed (shells drop the
    others)."""
    if not incomplete.startswith("@"):
        return []
    home = _home(ctx)
    if home is None:
        return []
    typed = incomplete[1:]
    out: list[tuple[str, str]] = []
    if "main".startswith(typed):
        out.append(("@main", "the calling session ($CLAUDE_CODE_SESSION_ID)"))
    req = request()
    # bash shows no descriptions: its answer reads no transcript at all
    out.extend(session_targets(home, typed, describe=req is None or req.shell != "bash"))
    return out


def session_targets(home: Path, typed: str, *, describe: bool = True
                    ) -> list[tuple[str, str]]:
    """``(@id, first human message)`` of the sessions whose uuid starts with ``typed``
    (case and dashes aside), newest first, at most ``MAX_SESSIONS``; the id is the
    shortest unique prefix, or the whole uuid, whichever starts with ``typed``."""
    wanted = typed.lower().replace("-", "")
    from pysift.model.ids import is_uuid

    sessions: list[tuple[float, str, Path]] = []
    all_ids: list[str] = []
    try:
        projects = list(os.scandir(home / "projects"))
    except OSError:
        return []
    for project in projects:
        try:
            if not project.is_dir():
                continue
            entries = list(os.scandir(project.path))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if not name.endswith(".jsonl") or not is_uuid(name[:-6]):
                continue
            sid = name[:-6].lower()
            all_ids.append(sid)
            if not sid.replace("-", "").startswith(wanted):
                continue
            try:
                mtime = entry.stat().st_mtime
            except OSError:
                continue
            sessions.append((mtime, sid, Path(entry.path)))
    sessions.sort(reverse=True)
    out = []
    for _, sid, path in sessions[:MAX_SESSIONS]:
        value = next((v for v in (_short(sid, all_ids), sid) if v.startswith(typed)), typed)
        out.append((f"@{value}", _describe(_first_message(path)) if describe else ""))
    return out


def _first_message(path: Path) -> str | None:
    from pysift.disk.layout import top_level_transcript
    from pysift.engines.listing import first_human_message

    return first_human_message(top_level_transcript(path), HEAD_BYTES)


def _short(sid: str, all_ids: list[str]) -> str:
    """The shortest prefix (8 characters at least, whole dash groups past 11) that names
    ``sid`` alone; the full uuid when no shorter one does."""
    for n in (PREFIX_MIN, 11):
        head = sid[:n]
        if sum(1 for other in all_ids if other.startswith(head)) == 1:
            return head
    return sid


def _describe(said: str | None) -> str:
    if not said:
        return "(no human message)"
    text = " ".join(said.split())
    return text if len(text) <= DESCRIPTION_CHARS else text[: DESCRIPTION_CHARS - 1] + "…"


# -- the request: what the shell is completing ---------------------------------------------


class Request:
    """What the shell asks: ``shell`` (bash | zsh | fish | powershell, from
    ``_PYSIFT_COMPLETE=complete_<shell>``), the command line's ``words`` ("pysift" first),
    and ``current``, the index of the word being completed (``len(words)`` past the last).
    A plain class: ``dataclasses`` costs a completion ~10 ms of imports."""

    __slots__ = ("current", "shell", "words")

    def __init__(self, shell: str, words: list[str], current: int) -> None:
        self.shell, self.words, self.current = shell, words, current

    @property
    def incomplete(self) -> str:
        return self.words[self.current] if self.current < len(self.words) else ""

    def command(self, known: Any) -> str | None:
        """The command the completed word belongs to, when its name is typed whole."""
        at = 1
        while at < len(self.words) and self.words[at].startswith("-"):
            at += 2 if self.words[at] == "--claude-home" else 1
        if at < len(self.words) and at < self.current and self.words[at] in known:
            return self.words[at]
        return None


def request(environ: Any = None) -> Request | None:
    """The completion request the environment carries (typer's scripts set it)."""
    env = os.environ if environ is None else environ
    shell = env.get("_PYSIFT_COMPLETE", "").removeprefix("complete_")
    if shell == "bash" and "COMP_WORDS" in env:
        try:
            return Request(shell, shlex.split(env["COMP_WORDS"]), int(env.get("COMP_CWORD",
                                                                               "-1")))
        except ValueError:
            return None
    line = env.get("_TYPER_COMPLETE_ARGS", "")
    try:
        words = shlex.split(line)
    except ValueError:
        return None
    current = len(words) if (not line or line[-1:].isspace()) else len(words) - 1
    return Request(shell, words, current)


#: commands whose positional arguments are transcript targets
TARGET_COMMANDS = frozenset({"list", "search", "show", "stats", "plan", "archive", "agents",
                             "files", "recover", "verbatim", "image", "status", "wait"})


def answer_targets_fast() -> int | None:
    """Answer an ``@`` target completion without loading the CLI framework (the ~50 ms of
    typer a keystroke would pay): the exit status when answered here, None to let typer
    answer (any other word, an option's value, a shell without a format here)."""
    req = request()
    if req is None or req.shell not in ("bash", "zsh", "fish"):
        return None
    word = req.incomplete
    before = req.words[req.current - 1] if 0 < req.current <= len(req.words) else ""
    if not word.startswith("@") or before.startswith("-") or \
            req.command(TARGET_COMMANDS) is None:
        return None
    home = _home(None)
    found = targets(None, word) if home is not None else []
    if req.shell == "fish" and os.environ.get("_TYPER_COMPLETE_FISH_ACTION") == "is-args":
        return 0 if found else 1
    sys.stdout.write(_formatted(req.shell, found))
    return 0


def _formatted(shell: str, found: list[tuple[str, str]]) -> str:
    """typer's own output per shell (its scripts read it back)."""
    if shell == "bash":
        return "".join(f"{value}\n" for value, _ in found)
    if shell == "fish":
        return "".join(f"{value}\t{' '.join(help.split())}\n" for value, help in found)

    def escape(text: str) -> str:
        return (text.replace('"', '""').replace("'", "''").replace("$", "\\$")
                .replace("`", "\\`").replace(":", r"\\:"))

    if not found:
        return "_files\n"
    items = "\n".join(f'"{escape(value)}":"{escape(help)}"' for value, help in found)
    return f"_arguments '*: :(({items}))'\n"


def _home(ctx: Any) -> Path | None:
    """The home the line names (``--claude-home`` before the command, or anywhere in the
    words the shell passed), else the environment's."""
    from pysift.disk.home import current_dir, resolve_home, user_home

    flag = ctx.find_root().params.get("claude_home") if ctx is not None else None
    if flag is None:
        flag = _home_in_words()
    try:
        home = resolve_home(flag, os.environ, user_home())
        return home if home.is_absolute() else current_dir() / home
    except Exception:  # noqa: BLE001 - an empty flag while typing (or no cwd): nothing to offer
        return None


def _home_in_words() -> str | None:
    """``--claude-home DIR`` anywhere among the words being completed (bash and zsh pass
    them in COMP_WORDS, fish in _TYPER_COMPLETE_ARGS)."""
    req = request()
    words = req.words if req is not None else []
    for i, word in enumerate(words):
        if word == "--claude-home" and i + 1 < len(words):
            return os.path.expanduser(words[i + 1])
        if word.startswith("--claude-home="):
            return os.path.expanduser(word.split("=", 1)[1])
    return None
