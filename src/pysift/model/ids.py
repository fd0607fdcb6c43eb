"""Shape predicates for the ids pysift prints and re-accepts (wire-format §0.2).

Three id families live on disk:

- a top-level session uuid (``8-4-4-4-12`` hex), the basename of ``<enc>/<uuid>.jsonl``;
- a built-in or workflow subagent id: the bare hex of ``agent-<hex>.jsonl`` (Claude Code
  mints ``a`` + 16 hex today; older builds wrote ``a`` + 6 hex);
- a NAMED subagent id ``a<Name>-<hex>``: a teammate (``aVSRepro-68a2a1661c9390c1``, the name
  may carry dashes: ``aP1-engine-9cf2f06d6235ca64``) or a harness lane such as
  ``acompact-ff065a`` / ``aprompt_suggestion-d7b8fc``.

The predicates are pure string checks. They decide how an ``@`` token is ROUTED, not
whether the id exists: existence is the resolver's job, and it always fails loud.

Hex is accepted in either case (a pasted id may be upper-cased); Claude Code writes lower
case, so callers that match against disk lower-case pure-hex ids first.
"""

from __future__ import annotations

import re

UUID_GROUPS = (8, 4, 4, 4, 12)
UUID_LENGTH = 36
DASH_POSITIONS = frozenset({8, 13, 18, 23})
PREFIX_MIN = 4
PREFIX_MAX = 11
BARE_AGENT_MIN = 12
AGENT_STEM_PREFIX = "agent-"

_UUID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")
_HEX = re.compile(r"[0-9A-Fa-f]+")
# a<Name>-<hex>: the name starts with a letter/digit/underscore (never a dash, so a
# drive-encoded dir like ``a--Users-x`` can never read as one) and may carry dashes.
_NAMED_AGENT = re.compile(r"a[A-Za-z0-9_][A-Za-z0-9_-]*-[0-9a-f]{6,}")


def is_hex(s: str) -> bool:
    """True for a non-empty run of hex digits (either case)."""
    return _HEX.fullmatch(s) is not None


def is_uuid(s: str) -> bool:
    """True for a canonical ``8-4-4-4-12`` hex uuid: a top-level session id."""
    return _UUID.fullmatch(s) is not None


def is_uuid_layout_prefix(s: str) -> bool:
    """True for a literal prefix of the ``8-4-4-4-12`` layout (dash exactly at 8/13/18/23).

    Covers the collision-lengthened header tokens ``search`` prints (``13d9645a-3a5b``);
    the full 36-char uuid itself is not a prefix.
    """
    if not 0 < len(s) < UUID_LENGTH:
        return False
    for i, ch in enumerate(s):
        if i in DASH_POSITIONS:
            if ch != "-":
                return False
        elif ch not in "0123456789abcdefABCDEF":
            return False
    return True


def is_uuid_prefix(s: str) -> bool:
    """True for a session-id prefix token.

    Either a short dashless hex run (4-11 chars: longer than a typo, shorter than an agent
    hex) or a layout prefix that reaches past the first dash (9-35 chars, e.g. the
    ``13d9645a-3a5b`` header token). Resolution matches it against the UNION of session
    uuids and agent ids, so a short legacy agent id (``a45c98b``) resolves too.
    """
    if PREFIX_MIN <= len(s) <= PREFIX_MAX and is_hex(s):
        return True
    return len(s) > UUID_GROUPS[0] and is_uuid_layout_prefix(s)


def is_bare_agent_hex(s: str) -> bool:
    """True for a dashless hex run long enough (>= 12) to be routed as an agent id."""
    return len(s) >= BARE_AGENT_MIN and is_hex(s)


def is_named_agent_id(s: str) -> bool:
    """True for the ``a<Name>-<hex>`` form (teammates and named harness lanes)."""
    if is_uuid(s) or is_uuid_layout_prefix(s):
        return False
    return _NAMED_AGENT.fullmatch(s) is not None


def is_agent_id(s: str) -> bool:
    """True for an id routed as an ``@<agent-id>``: a bare hex (>= 12) or the named form.

    A 4-11 hex run is deliberately NOT an agent id here: it is a prefix token, and the
    resolver's exact-match-first rule still lands it on a short legacy agent id.
    """
    return is_bare_agent_hex(s) or is_named_agent_id(s)


def is_session_ref(s: str) -> bool:
    """True for any id a user may hand over (what ``--sessions-from`` accepts)."""
    return is_uuid(s) or is_uuid_prefix(s) or is_agent_id(s)


def agent_id_from_stem(stem: str) -> str | None:
    """The canonical agent id of an ``agent-<id>`` filename stem, or None for another stem.

    Every surface prints the id without the ``agent-`` prefix, so a file mutation or a hit
    joins back to the ``agents`` node id.
    """
    if stem.startswith(AGENT_STEM_PREFIX) and len(stem) > len(AGENT_STEM_PREFIX):
        return stem[len(AGENT_STEM_PREFIX) :]
    return None
