"""``pysift whoami``: which session (and which lane) is calling (SPEC §6.3, §6.3a)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TextIO

from pysift.core.grammar.targets import TargetKind, parse_target
from pysift.core.resolve import (
    MAIN_LANE_NOTE,
    calling_session_id,
    projects_root,
    unread_note,
)
from pysift.engines.whoami import Identity, WhoamiAnswer, whoami_from_env, whoami_from_trap
from pysift.errors import TargetError
from pysift.model.env import Env
from pysift.model.fastdata import dataclass
from pysift.output.report import Report
from pysift.output.terminal import paint

LANE_UNKNOWN = (
    "unknown from the environment alone: CLAUDE_CODE_SESSION_ID names the TOP-LEVEL "
    "session in every lane, subagents included; a subagent proves its own lane with "
    "`pysift whoami @trap:<marker>` (a marker you invent)"
)


@dataclass(frozen=True, kw_only=True)
class WhoamiOptions:
    token: str | None = None  # None, "@main" or "@trap:<marker>"


NO_VARIABLE = (
    "whoami: your session id was not found: neither CLAUDE_CODE_SESSION_ID nor "
    "CODEX_COMPANION_SESSION_ID is set (an old Claude Code build, or not running inside "
    "Claude Code). pysift will not guess from file mtimes: the most-recent-mtime transcript is often "
    "ANOTHER live session. Find yours by searching for a unique line you wrote recently, "
    "`pysift search '<that exact text>' -l`, then pass the printed @<uuid> to list, stats "
    "or show."
)


def run(opts: WhoamiOptions, env: Env) -> Report:
    kind, marker = _self_token(opts.token, env)
    if calling_session_id(env.environ) is None:
        raise TargetError(NO_VARIABLE)
    report = Report(command="whoami")
    if kind is TargetKind.TRAP:
        answer = whoami_from_trap(marker or "", env)
        report.notes.extend(answer.notes or ())
    else:
        # the id IS the answer (§6.3): a transcript not found is said on the path line
        # and in a note, exit 0 (it read as a failure, exit 1)
        answer = whoami_from_env(env)
        report.note(MAIN_LANE_NOTE if kind is TargetKind.MAIN else _env_lane_note(answer))
        report.note(_resolution_note(answer, env))
    for path, reason in answer.unreadable or ():
        report.unread(unread_note(path, reason))
    report.rows = [identity_row(i) for i in answer.identities]
    report.answer(WhoamiResult(answer, env))
    return report


@dataclass(frozen=True)
class WhoamiResult:
    answer: WhoamiAnswer
    env: Env

    def summary(self) -> dict[str, Any]:
        return {"identities": len(self.answer.identities)}

    def render_text(self, out: TextIO) -> None:
        render_text(out, self.answer, self.env)


def _self_token(token: str | None, env: Env) -> tuple[TargetKind | None, str | None]:
    """Only ``@main`` and ``@trap:<marker>`` may follow ``whoami``; anything else is refused."""
    if token is None:
        return None, None
    home = env.environ.get("HOME")
    parsed = parse_target(token, cwd=env.cwd, home=Path(home) if home else None)
    if parsed.kind in (TargetKind.MAIN, TargetKind.TRAP):
        return parsed.kind, parsed.value
    raise TargetError(
        f"whoami takes no target but `@main` or `@trap:<marker>` (got `{token}`): it names "
        f"the CALLING session; to inspect another session use `pysift list {token}`"
    )


def _env_lane_note(answer: WhoamiAnswer) -> str:
    return (
        f"note: whoami resolved the TOP-LEVEL session from ${answer.source} (Claude Code puts "
        f"the top-level id in every lane's environment). If you are a subagent this is NOT "
        f"your transcript: a first-try `pysift whoami @trap:<marker>` hit names yours."
    )


def _resolution_note(answer: WhoamiAnswer, env: Env) -> str:
    identity = answer.identities[0]
    if identity.path is None:
        unread = (f"; {len(answer.unreadable)} dir(s) or file(s) could not be read (warnings "
                  "below), the transcript may be there" if answer.unreadable else "")
        return (f"note: the calling session {identity.session_id} has no transcript under "
                f"{projects_root(env)} (looked in the project dir of {env.cwd}, then in every "
                f"project dir{unread}): a session that has not written its first record yet, "
                f"or another home; check --claude-home / $CLAUDE_CONFIG_DIR")
    if answer.found_in_cwd_project:
        return f"note: ${answer.source} -> found in the project dir of the current cwd ({env.cwd})"
    others = answer.other_copies or []
    copies = (f"; {len(others)} other copy(ies) of it: {', '.join(map(str, others))} (the "
              f"most recently written is shown)" if others else "")
    return (f"note: ${answer.source} -> not in the project dir of the current cwd ({env.cwd}); "
            f"found by scanning every project dir{copies}")


def identity_row(i: Identity) -> dict[str, Any]:
    return {
        "kind": "identity",
        "session_id": i.session_id,
        "is_subagent": i.is_subagent,
        "parent_session_id": i.parent_session_id,
        "depth": i.depth,
        "path": str(i.path) if i.path is not None else None,
    }


def _path_text(i: Identity, env: Env) -> str:
    if i.path is not None:
        return str(i.path)
    return f"<not found under {projects_root(env)} (checked the cwd's project dir, then all)>"


def render_text(out: TextIO, answer: WhoamiAnswer, env: Env) -> None:
    w = out.write
    ids = answer.identities
    if answer.source != "@trap":
        w("session  ")
        paint(out, ids[0].session_id, "id")
        w(f"\nlane     {LANE_UNKNOWN}\n")
        _write_path(out, ids[0], env)
        return
    last = len(ids) - 1
    for i in ids:
        noun = "subagent" if i.is_subagent else "session"
        if i.depth == 0:
            lane = ("the top-level lane: the MAIN transcript carries the marker"
                    if not i.is_subagent else f"@trap:{answer.marker}")
            tail = f"<- you ({lane})"
        elif i.depth == last and not i.is_subagent:
            tail = f"^ top-level root (depth {i.depth})"
        else:
            tail = f"^ parent subagent (depth {i.depth})"
        w(f"{noun:<8} ")
        paint(out, i.session_id, "id")
        w(f"  {tail}\n")
    _write_path(out, ids[0], env)


def _write_path(out: TextIO, i: Identity, env: Env) -> None:
    out.write("path     ")
    if i.path is not None:
        paint(out, str(i.path), "path")
    else:
        out.write(_path_text(i, env))
    out.write("\n")
