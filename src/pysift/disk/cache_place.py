"""Where the cache lives and whether a run uses it (``disk.cache`` keeps the store).

A module of its own: every run reads its settings (``cli.options.build_env``), and a run
with the cache off (``--no-cache``, ``PYSIFT_NO_CACHE``) then never imports the store,
its hashes and its shard format (~2 ms of a start-up that is serial before a pool).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from pysift.disk.home import expand_user
from pysift.model.fastdata import dataclass

if TYPE_CHECKING:
    from pysift.disk.cache import Store

DEFAULT_SETTLE_S = 2.0
LAYOUT = 1  # the namespace's layout (its dir's name): a new one starts a cache of its own
NAMESPACE = f"pysift-cache-v{LAYOUT}"


# -- where, and whether ---------------------------------------------------------------------


def _flag_on(value: str | None) -> bool:
    return value is not None and value.strip().lower() not in ("", "0", "false", "no", "off")


def cache_root(environ: Mapping[str, str], home: Path) -> Path:
    """Where the cache lives (whether or not it is usable)."""
    explicit = environ.get("PYSIFT_CACHE_DIR")
    if explicit:
        return expand_user(explicit, home)  # ``home``: the caller's, never a raw HOME
    xdg = environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "pysift"
    return home / ".cache" / "pysift"


def claude_homes(environ: Mapping[str, str], home: Path, in_use: Path | None) -> list[Path]:
    """Every Claude home the cache must stay out of."""
    found = [home / ".claude"]
    if environ.get("CLAUDE_CONFIG_DIR"):
        found.append(expand_user(environ["CLAUDE_CONFIG_DIR"], home))
    if in_use is not None:
        found.append(in_use)
    return found


def _real(path: Path) -> Path:
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError):
        return path.absolute()


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def namespace(root: Path) -> Path:
    """The one dir under ``root`` that pysift keeps its files in."""
    return root / NAMESPACE


def _looks_like_claude_home(path: Path) -> bool:
    """``path`` holds ``projects/`` with a project dir holding a ``.jsonl``: a Claude
    home, or a copy of one (never a cache's place). A missing ``projects/`` costs one
    failed ``scandir``."""
    try:
        with os.scandir(path / "projects") as projects:
            for entry in projects:
                try:
                    if not entry.is_dir():
                        continue
                    with os.scandir(entry.path) as inner:
                        if any(e.name.endswith(".jsonl") for e in inner):
                            return True
                except OSError:
                    continue
    except OSError:
        return False
    return False


@dataclass(frozen=True)
class CacheSettings:
    """Whether the cache is on and where (taken once from the Env by the CLI)."""

    root: Path
    enabled: bool
    why_off: str | None = None  # when not enabled: the reason, for ``pysift cache info``
    settle_s: float = DEFAULT_SETTLE_S
    # the location's own refusal, whatever the flags say (not absolute; under, holding or
    # looking like a Claude home): neither used nor cleared
    refused: str | None = None

    @property
    def dir(self) -> Path:
        """The namespace: the one dir pysift keeps its files in."""
        return namespace(self.root)


def _refusal(environ: Mapping[str, str], home: Path, claude_home: Path | None,
             root: Path) -> str | None:
    """Why ``root`` can never be the cache's location (None: it can)."""
    if not root.is_absolute():
        return f"{root} is not an absolute path"
    real = _real(root)
    real_ns = _real(namespace(root))  # a namespace that is a link into a home
    claudes = claude_homes(environ, home, claude_home)
    for claude in claudes:
        real_claude = _real(claude)
        if (_inside(real, real_claude) or _inside(root, claude.absolute())
                or _inside(real_ns, real_claude)):
            return f"{root} is under the Claude home {claude} (pysift never writes there)"
    for claude in claudes:
        if _inside(_real(claude), real) or _inside(claude.absolute(), root):
            return (f"{root} holds the Claude home {claude} (pysift keeps its cache "
                    "apart from it)")
    if _looks_like_claude_home(root):
        return (f"{root} looks like a Claude home (projects/ with transcripts; pysift "
                "keeps its cache apart from it)")
    return None


def settings_from(environ: Mapping[str, str], home: Path, claude_home: Path | None,
                  no_cache_flag: bool = False) -> CacheSettings:
    root = cache_root(environ, home)
    settle = DEFAULT_SETTLE_S
    raw_settle = environ.get("PYSIFT_CACHE_SETTLE_MS")
    if raw_settle:
        try:
            settle = max(0.0, float(raw_settle) / 1000)
        except ValueError:
            pass
    refused = _refusal(environ, home, claude_home, root)
    if no_cache_flag:
        return CacheSettings(root, False, "--no-cache", settle, refused)
    if _flag_on(environ.get("PYSIFT_NO_CACHE")):
        return CacheSettings(root, False, "PYSIFT_NO_CACHE is set", settle, refused)
    if refused is not None:
        return CacheSettings(root, False, refused, settle, refused)
    return CacheSettings(root, True, None, settle)


def open_store(settings: CacheSettings | None, now: float | None = None) -> Store | None:
    """The run's store, or None when the cache is off (nothing is created here: a store
    whose dir cannot be made simply never finds or keeps anything). The store's module
    is imported only for a run that uses it."""
    if settings is None or not settings.enabled:
        return None
    import time

    from pysift.disk.cache import Store

    return Store(settings, time.time() if now is None else now)
