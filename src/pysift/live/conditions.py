"""``wait --until``: the closed condition grammar and what fires each condition.

Conditions (repeatable, OR: the first that fires ends the wait):

- ``stop``: the verdict is ``idle-eot`` or ``stale-dead`` (a true stop;
  ``idle-background-open`` never is one);
- ``hitl``: the verdict is ``waiting-hitl``;
- ``verdict:V``: the verdict is V (one of the seven);
- ``auq``: a pending ask lands in the elicitation sidecar, or a native AskUserQuestion
  call lands in a watched lane;
- ``notification[:RE]``: a ``<task-notification>`` lands in the MAIN transcript (a user
  record, a queue enqueue line or a ``queued_command`` attachment), RE matched against its
  one-line label or its raw text;
- ``tool:NAME[:RE]``: a call of tool NAME (exact) lands in any watched lane, RE matched
  against its input as compact JSON;
- ``write:PATH_RE[:LINE_RE]``: a Write/Edit/MultiEdit/NotebookEdit call on a path
  matching PATH_RE lands, and (with LINE_RE) a line of what it writes matches LINE_RE.

The first three are STATE conditions: judged at the start and after every read, so a
session already stopped fires ``stop`` at once. The others are EVENT conditions: only
records appended after the baseline fire them (history is ``search``'s job).

A pattern is written in search's dialect but matched case-sensitively, as csift's were
(``(?i)`` makes it caseless). The first ``:`` after a head's own ``:`` ends the first
pattern (``tool:Bash:a:b`` is tool Bash, RE ``a:b``), except a Windows drive letter's in a
``write:`` path followed by a separator (``write:C:/src/.*:TODO``: PATH_RE ``C:/src/.*``).
"""

from __future__ import annotations

import re
from typing import Any

from pysift.core import classify
from pysift.disk.jsonline import compact_json
from pysift.errors import UsageError
from pysift.live import verdict as V
from pysift.live.background import delivered_pulses
from pysift.live.session import NewRecord
from pysift.model.fastdata import dataclass
from pysift.model.record import block_name

HEADS = ("stop", "hitl", "auq", "notification[:RE]", "tool:NAME[:RE]",
         "write:PATH_RE[:LINE_RE]", "verdict:V")
WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
STATE_KINDS = frozenset({"stop", "hitl", "verdict"})


def compile_exact(pattern: str, what: str) -> Any:
    """A case-sensitive matcher in search's dialect (a bad pattern is a usage error
    naming where it came from)."""
    from pysift.core.matcher import compile_pattern

    source = pattern
    if source.startswith("(?x)"):
        source = "(?x)(?-i)" + source[len("(?x)"):]
    else:
        source = "(?-i)" + source
    try:
        return compile_pattern(source)
    except UsageError as exc:
        why = str(exc).removesuffix(f": {source}")  # the prefix above is ours: not shown
        raise UsageError(f"{what}: bad regex `{pattern}`: {why}") from None


@dataclass(frozen=True)
class Condition:
    text: str  # as given (what ``fired`` names)
    kind: str  # stop | hitl | verdict | auq | notification | tool | write
    name: str | None = None  # tool:NAME
    verdict: str | None = None  # verdict:V
    first: Any = None  # notification RE, tool RE, write PATH_RE
    second: Any = None  # write LINE_RE

    @property
    def is_state(self) -> bool:
        return self.kind in STATE_KINDS


def parse(text: str) -> Condition:
    """One ``--until`` value; an unknown head is an error naming the set."""
    head, sep, rest = text.partition(":")
    if text in ("stop", "hitl", "auq"):
        return Condition(text, text)
    if head == "notification":
        if sep and not rest:
            raise UsageError("--until notification: an empty regex after `notification:`; "
                             "write `notification` alone for any notification")
        return Condition(text, "notification",
                         first=compile_exact(rest, "--until notification") if sep else None)
    if head == "tool" and sep:
        name, sep2, pattern = rest.partition(":")
        if not name:
            raise UsageError("--until tool: needs a tool NAME (`tool:NAME[:RE]`, e.g. "
                             "`tool:Bash:pytest`)")
        return Condition(text, "tool", name=name,
                         first=compile_exact(pattern, "--until tool") if sep2 else None)
    if head == "write" and sep:
        path_re, sep2, line_re = _split_path(rest)
        if not path_re:
            raise UsageError("--until write: needs a path regex (`write:PATH_RE[:LINE_RE]`, "
                             "e.g. `write:src/.*\\.py`)")
        return Condition(text, "write", first=compile_exact(path_re, "--until write"),
                         second=compile_exact(line_re, "--until write") if sep2 else None)
    if head == "verdict" and sep:
        if rest not in V.VERDICTS:
            raise UsageError(f"--until verdict: unknown verdict `{rest}` (one of "
                             f"{' | '.join(V.VERDICTS)})")
        return Condition(text, "verdict", verdict=rest)
    raise UsageError(f"--until: unknown condition `{text}`; the conditions are "
                     f"{' | '.join(HEADS)}")


#: a Windows drive letter ending a would-be PATH_RE (``C``, ``^C``, ``(?i)c``): its colon
#: is the path's, not the grammar's, when a separator follows it
_DRIVE = re.compile(r"(?:^|[^\w])[A-Za-z]$")


def _split_path(rest: str) -> tuple[str, str, str]:
    """``PATH_RE[:LINE_RE]``: the first ``:`` splits, except a drive letter's
    (``write:C:\\src\\.*:TODO`` is PATH_RE ``C:\\src\\.*``, LINE_RE ``TODO``)."""
    path_re, sep, line_re = rest.partition(":")
    if sep and line_re[:1] in ("\\", "/") and _DRIVE.search(path_re):
        tail, sep, line_re = line_re.partition(":")
        path_re = f"{path_re}:{tail}"
    return path_re, sep, line_re


def state_fires(cond: Condition, verdict: str) -> bool:
    if cond.kind == "stop":
        return verdict in (V.IDLE_EOT, V.STALE_DEAD)
    if cond.kind == "hitl":
        return verdict == V.WAITING_HITL
    if cond.kind == "verdict":
        return verdict == cond.verdict
    return False


def event_fires(cond: Condition, new: NewRecord) -> bool:
    """Whether a record that landed after the baseline fires an event condition."""
    rec = new.rec
    if cond.kind == "auq":
        if new.is_sidecar:
            return rec.raw.get("csiftPhase") == "pending"
        return any(b.get("name") == "AskUserQuestion" for b in rec.blocks_of("tool_use")) \
            and rec.type == "assistant"
    if new.is_sidecar:
        return False
    if cond.kind == "notification":
        if not new.is_main:
            return False
        for section in delivered_pulses(rec):
            if cond.first is None:
                return True
            if cond.first.matches(classify.notification_label(section)) or \
                    cond.first.matches(section):
                return True
        return False
    if rec.type != "assistant":
        return False
    for block in rec.blocks_of("tool_use"):
        name = block_name(block)
        raw_input = block.get("input")
        payload = raw_input if isinstance(raw_input, dict) else {}
        if cond.kind == "tool" and name == cond.name:
            if cond.first is None or cond.first.matches(compact_json(payload)):
                return True
        elif cond.kind == "write" and name in WRITE_TOOLS:
            path = payload.get("file_path") or payload.get("notebook_path")
            if not isinstance(path, str) or not cond.first.matches(path):
                continue
            if cond.second is None or any(cond.second.matches(line)
                                          for line in _written_lines(payload)):
                return True
    return False


def _written_lines(payload: dict[str, Any]) -> list[str]:
    """The lines a write call puts into its file (Write content, Edit new_string, every
    MultiEdit edit's new_string, NotebookEdit new_source)."""
    texts = [payload.get(k) for k in ("content", "new_string", "new_source")]
    edits = payload.get("edits")
    if isinstance(edits, list):
        texts.extend(e.get("new_string") for e in edits if isinstance(e, dict))
    return [line for t in texts if isinstance(t, str) for line in t.splitlines()]
