"""``pysift cache info|clear``: what the cache of per-transcript facts holds, and emptying
it (SPEC §12a). The cache itself is ``disk.cache``; this reads and deletes its files only."""

from __future__ import annotations

import os
from typing import Any, TextIO

from pysift.disk import cache as cache_mod
from pysift.errors import SiftError, UsageError
from pysift.model.env import Env
from pysift.model.fastdata import dataclass
from pysift.output.report import Report

ACTIONS = ("info", "clear")


@dataclass(frozen=True, kw_only=True)
class CacheOptions:
    action: str  # "info" or "clear"


def run(opts: CacheOptions, env: Env) -> Report:
    if opts.action not in ACTIONS:
        raise UsageError(f"cache: unknown action '{opts.action}': use `pysift cache info` "
                         "or `pysift cache clear`")
    settings = env.cache
    if settings is None:  # an Env built without the CLI: the same rules from its environ
        settings = cache_mod.settings_from(env.environ, _home(env), env.claude_home)
    report = Report(command="cache", header={"action": opts.action})
    # the files of the layout before the namespace: never read nor deleted, named
    old = [] if settings.refused is not None else cache_mod.old_layout(settings.root)
    if opts.action == "clear":
        if settings.refused is not None:
            raise UsageError(f"cache clear: {settings.refused}; set PYSIFT_CACHE_DIR or "
                             "XDG_CACHE_HOME elsewhere")
        namespace = settings.dir
        why = (cache_mod.unwritable(settings)
               if os.path.lexists(namespace) and not cache_mod.owned(namespace) else None)
        if why is not None:  # (an empty dir of that name is pysift's to tag: no refusal)
            raise SiftError(f"cache clear: {why}: nothing removed (pysift deletes only in a "
                            f"dir holding its own {cache_mod.TAG_NAME})")
        report.answer(Cleared(str(settings.root), str(namespace),
                              cache_mod.clear(namespace), [str(p) for p in old]))
        return report
    found = (cache_mod.usage(settings.dir) if settings.refused is None
             else cache_mod.CacheUsage())
    unwritable = cache_mod.unwritable(settings) if settings.enabled else None
    report.rows = [{"kind": "facet", "name": name, "shards": shards, "entries": entries,
                    "bytes": size}
                   for name, (shards, entries, size) in sorted(found.facets.items())]
    report.answer(Info(str(settings.root), str(settings.dir), settings.enabled,
                       settings.why_off, unwritable, found, [str(p) for p in old]))
    return report


def _home(env: Env):  # type: ignore[no-untyped-def]
    from pysift.disk.home import user_home

    return user_home(env.environ)


_OLD_NOTE = ("hold the files of an older pysift cache layout, which pysift no longer reads "
             "or deletes: remove them by hand")


@dataclass(frozen=True)
class Info:
    root: str
    dir: str  # the namespace, where pysift's files are
    enabled: bool
    why_off: str | None
    unwritable: str | None  # on, but nothing can be kept: why
    usage: cache_mod.CacheUsage
    old_layout: list[str]

    def summary(self) -> dict[str, Any]:
        return {"root": self.root, "dir": self.dir, "enabled": self.enabled,
                "why_off": self.why_off,
                "writable": self.enabled and self.unwritable is None,
                "why_unwritable": self.unwritable,
                "facets": len(self.usage.facets),
                "entries": sum(e for _, e, _ in self.usage.facets.values()),
                "bytes": self.usage.total_bytes, "old_layout": self.old_layout}

    def render_text(self, out: TextIO) -> None:
        if not self.enabled:
            state = f"off ({self.why_off})"
        elif self.unwritable is not None:
            state = f"on, but {self.unwritable}: nothing is kept"
        else:
            state = "on"
        out.write(f"cache: {self.dir}\n")
        out.write(f"state: {state}\n")
        if not self.usage.facets:
            out.write("empty\n")
        else:
            for name, (shards, entries, size) in sorted(self.usage.facets.items()):
                # entries, not transcripts: a deleted one's stays until a prune sees it gone
                out.write(f"{name}: {entries} entries in {shards} shards, "
                          f"{_size(size)}\n")
            out.write(f"total: {_size(self.usage.total_bytes)}\n")
        if self.old_layout:
            out.write(f"note: {', '.join(self.old_layout)} {_OLD_NOTE}\n")


@dataclass(frozen=True)
class Cleared:
    root: str
    dir: str
    removed: cache_mod.Removed
    old_layout: list[str]

    def summary(self) -> dict[str, Any]:
        r = self.removed
        return {"root": self.root, "dir": self.dir, "removed_files": r.shards + r.temporary,
                "removed_shards": r.shards, "removed_temp_files": r.temporary,
                "removed_bytes": r.bytes, "old_layout": self.old_layout}

    def render_text(self, out: TextIO) -> None:
        r = self.removed
        out.write(f"cache: {self.dir}\n")
        temps = (f" and {r.temporary} temporary file{'s' if r.temporary != 1 else ''}"
                 if r.temporary else "")
        out.write(f"removed {r.shards} shard file{'s' if r.shards != 1 else ''}{temps} "
                  f"({_size(r.bytes)})\n")
        if self.old_layout:
            out.write(f"note: {', '.join(self.old_layout)} {_OLD_NOTE}\n")


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1 << 20:
        return f"{n / 1024:.1f} KiB"
    return f"{n / (1 << 20):.1f} MiB"
