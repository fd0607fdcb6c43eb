"""The positional TARGET grammar shared by every multi-target command (SPEC §2.3, §6.2).

A token is one of:

========================  =================  ==========================================
spelling                  kind               meaning
========================  =================  ==========================================
``@<uuid>``               ``uuid``           one top-level session
``@<4-11 hex>`` / layout  ``uuid_prefix``    the UNIQUE session or agent id it prefixes
``@<agent-id>``           ``agent``          a subagent (bare hex >= 12, or a<Name>-<hex>)
``@main``                 ``main``           the calling top-level session (env)
``@trap:<marker>``        ``trap``           the calling SUBAGENT, found by its marker
``@-Users-…`` ``@C--…``   ``encoded_dir``    a project dir by its encoded name
``@--server-…``           ``encoded_dir``    a UNC-encoded project dir (``@`` form only)
``-Users-…`` ``C--…``     ``encoded_dir``    bare encoded dir (a ``C--`` one may be a path)
``x.jsonl``               ``jsonl``          one transcript file (absolutized)
anything else             ``path``           a real cwd, encoded via §2.1
========================  =================  ==========================================

Parsing is strict and fails loud: an ``@`` token of no known shape is an error naming the
grammar (never a fall-through to a cwd-relative path, which would turn an id typo into a
filesystem hunt), and a bare id is an error pointing at the ``@`` spelling.
"""

from __future__ import annotations

import os
import re
from enum import StrEnum
from itertools import pairwise
from pathlib import Path

from pysift.errors import TargetError
from pysift.model.fastdata import dataclass
from pysift.model.ids import (
    is_bare_agent_hex,
    is_hex,
    is_named_agent_id,
    is_session_ref,
    is_uuid,
    is_uuid_prefix,
)

PREFIX_MIN = 4
MARKER_DIGITS = 4
TRIVIAL_MAX_STEP = 2  # all-equal (0), consecutive (1), simple odd/even (2), either direction


class TargetKind(StrEnum):
    UUID = "uuid"
    UUID_PREFIX = "uuid_prefix"
    MAIN = "main"
    TRAP = "trap"
    AGENT = "agent"
    ENCODED_DIR = "encoded_dir"
    PATH = "path"
    JSONL = "jsonl"


@dataclass(frozen=True)
class TargetToken:
    """One parsed target.

    ``value`` is what the resolver matches: the id (pure hex lower-cased, since Claude Code
    writes lower case), the trap marker, the encoded dir name, the path text as given
    (``path``) or the absolute file path (``jsonl``). ``may_be_path`` marks a bare
    drive-shaped token (``C--Users-x``) that falls back to a real relative path when no
    project dir carries that name.
    """

    kind: TargetKind
    value: str
    raw: str
    may_be_path: bool = False

    @property
    def is_id(self) -> bool:
        """True for the id kinds ``--sessions-from`` may carry."""
        return self.kind in (TargetKind.UUID, TargetKind.UUID_PREFIX, TargetKind.AGENT)


# -- encoded dir shapes ---------------------------------------------------------------------------

_UNIX_ENCODED = re.compile(r"-[A-Za-z0-9-]*")
_DRIVE_ENCODED = re.compile(r"[A-Za-z]--[A-Za-z0-9-]*")


def is_unix_encoded(token: str) -> bool:
    """``-Users-…`` (a Unix cwd's leading ``/``) and ``--server-…`` (a UNC ``\\\\``)."""
    return _UNIX_ENCODED.fullmatch(token) is not None


def is_drive_encoded(token: str) -> bool:
    """``C--Users-x``: a Windows drive cwd (the letter passes, ``:\\`` is two dashes)."""
    return _DRIVE_ENCODED.fullmatch(token) is not None


# -- @trap marker grammar -------------------------------------------------------------------------

# The literal printed in the docs next to ``pysift``: quoting the docs self-matches it and
# every agent that copies it collides, so it can never name one transcript.
RESERVED_TRAP_MARKERS = frozenset({"JollyShinyBrook4283"})

_MARKER_WORDS = re.compile(r"(?:[A-Z][a-z]{2,}){3}")

TRAP_GUIDANCE = (
    "@trap needs a marker you INVENT one-shot, right now, by hand: EXACTLY 3 imaginative, "
    "context-independent CamelCase words (each 1 uppercase + >=2 lowercase) + 4 non-trivial "
    "digits. The shape looks like `JollyShinyBrook4283`, but that literal is the RESERVED doc "
    "example and is itself refused: pick your OWN. Put it VERBATIM in this pysift command "
    "(no shell variable / concatenation), and never generate it with a script. Rejected: not "
    "exactly 3 words, single-letter or ALLCAPS words, missing or !=4 trailing digits, trivial "
    "digits (1111 / 1234 / 9876 / 1357 / 2468 ...), or the reserved doc example."
)


def is_trivial_digits(digits: str) -> bool:
    """True for four digits in a constant step of -2..2: ``0000 1234 9876 1357 2468 8642``."""
    values = [int(d) for d in digits]
    steps = {b - a for a, b in pairwise(values)}
    return len(steps) == 1 and abs(steps.pop()) <= TRIVIAL_MAX_STEP


def validate_trap_marker(marker: str) -> str:
    """Return the marker when it obeys the ENFORCED grammar (SPEC §6.3a), else raise.

    The strictness is the point: a hand-invented literary token is the path of least
    resistance, and scripted or boilerplate markers (which collide into ambiguity) fail at
    the source.
    """
    if marker in RESERVED_TRAP_MARKERS:
        raise TargetError(
            f"@trap: marker `{marker}` is the RESERVED documentation example (the docs print "
            f"it next to `pysift`, so it self-matches and collides); invent your own. "
            f"{TRAP_GUIDANCE}"
        )
    if not marker:
        raise TargetError(f"@trap: the marker is empty (malformed). {TRAP_GUIDANCE}")
    digits, words = marker[-MARKER_DIGITS:], marker[:-MARKER_DIGITS]
    if (
        not marker.isascii()
        or len(digits) != MARKER_DIGITS
        or not digits.isdigit()
        or (words and words[-1].isdigit())
    ):
        raise TargetError(
            f"@trap: marker `{marker}` is malformed: it must END with exactly 4 digits. "
            f"{TRAP_GUIDANCE}"
        )
    if _MARKER_WORDS.fullmatch(words) is None:
        raise TargetError(
            f"@trap: marker `{marker}` is malformed: it must be EXACTLY 3 CamelCase words "
            f"(each: 1 uppercase + >=2 lowercase) before the 4 digits. {TRAP_GUIDANCE}"
        )
    if is_trivial_digits(digits):
        raise TargetError(
            f"@trap: marker `{marker}` is malformed: its 4 digits `{digits}` are a trivial "
            f"run; pick non-sequential random digits. {TRAP_GUIDANCE}"
        )
    return marker


# -- the parser -----------------------------------------------------------------------------------

AT_GRAMMAR = (
    "expected `@<uuid>` | `@<uuid-prefix>` (4-11 dashless leading hex) | `@<agent-id>` (what "
    "`pysift list` prints on SUBAGENT rows) | `@main` | `@trap:<marker>` | `@-Users-…` / `@C--Users-…` / "
    "`@--server-…` (an encoded project dir); a project PATH is targeted without `@`"
)


def _parse_at(token: str, ident: str) -> TargetToken:  # noqa: PLR0911 - one return per arm
    if ident == "main":
        return TargetToken(TargetKind.MAIN, "main", token)
    if ident.startswith("trap:"):
        marker = validate_trap_marker(ident[len("trap:") :].strip())
        return TargetToken(TargetKind.TRAP, marker, token)
    if is_uuid(ident):
        return TargetToken(TargetKind.UUID, ident.lower(), token)
    if is_bare_agent_hex(ident):
        return TargetToken(TargetKind.AGENT, ident.lower(), token)
    if is_uuid_prefix(ident):
        return TargetToken(TargetKind.UUID_PREFIX, ident.lower(), token)
    if is_named_agent_id(ident):
        return TargetToken(TargetKind.AGENT, ident, token)
    if is_unix_encoded(ident) or is_drive_encoded(ident):
        return TargetToken(TargetKind.ENCODED_DIR, ident, token)
    if ident and len(ident) < PREFIX_MIN and is_hex(ident):
        raise TargetError(
            f"`@{ident}` is too short for a session-uuid prefix — needs 4-11 leading "
            f"(dashless) hex chars; add more characters (`pysift list` shows the full uuids)"
        )
    raise TargetError(f"`{token}` is not a recognized @-target — {AT_GRAMMAR}")


def _absolute(text: str, cwd: Path, home: Path | None) -> Path:
    """Lexically absolute (no symlink resolution, so the path still joins the scan's)."""
    if home is not None and (text == "~" or text.startswith("~/")):
        text = os.fspath(home) + text[1:]
    path = Path(text)
    if not path.is_absolute():
        path = cwd / path
    return Path(os.path.normpath(path))


def parse_target(token: str, *, cwd: Path | None = None, home: Path | None = None) -> TargetToken:
    """Parse one positional target token; raise ``TargetError`` with the fix on a bad one.

    ``cwd`` anchors a relative ``*.jsonl`` (and the bare-id existence check); ``home``
    expands a leading ``~``. Both default to "leave as is" apart from ``cwd``, which falls
    back to the process cwd only when the caller passes none.
    """
    if token.startswith("@"):
        return _parse_at(token, token[1:])
    if not token.strip():
        raise TargetError(
            "an empty target was given; pass a project path, an encoded dir, "
            "`@<uuid>`, or a `*.jsonl` transcript"
        )
    base = cwd if cwd is not None else Path.cwd()
    if token.endswith(".jsonl"):
        return TargetToken(TargetKind.JSONL, os.fspath(_absolute(token, base, home)), token)
    if token.startswith("--"):
        raise TargetError(
            f"`{token}` looks like a mistyped flag (a bare `--…` target is reserved for that "
            f"check); to target a UNC-encoded project dir write `@{token}`"
        )
    if is_unix_encoded(token):
        return TargetToken(TargetKind.ENCODED_DIR, token, token)
    if is_drive_encoded(token):
        return TargetToken(TargetKind.ENCODED_DIR, token, token, may_be_path=True)
    if is_session_ref(token) and not _absolute(token, base, home).exists():
        raise TargetError(
            f"'{token}' looks like a session/agent id, not a project path — did you mean "
            f"'@{token}'? (ids are targeted with an `@` prefix: `@<uuid>` | `@<uuid-prefix>` "
            f"| `@<agent-id>`)"
        )
    return TargetToken(TargetKind.PATH, token, token)
