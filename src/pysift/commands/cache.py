"""``pysift cache info|clear``: what the cache of per-transcript facts holds, and emptying
it (SPEC §12a). The cache itself is ``disk.cache``; this reads and deletes its files only."""

from __future__ import annotations

from typing import Any, TextIO

from pysift.disk import cache as cache_mod
from pysift.errors import UsageError
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
    if opts.action == "clear":
        if settings.why_off is not None and "Claude home" in settings.why_off:
            raise UsageError(f"cache clear: {settings.why_off}; set PYSIFT_CACHE_DIR or "
                             "XDG_CACHE_HOME elsewhere")
        files, size = cache_mod.clear(settings.root)
        report.answer(Cleared(str(settings.root), files, size))
        return report
    found = cache_mod.usage(settings.root)
    report.rows = [{"kind": "facet", "name": name, "shards": shards, "entries": entries,
                    "bytes": size}
                   for name, (shards, entries, size) in sorted(found.facets.items())]
    report.answer(Info(str(settings.root), settings.enabled, settings.why_off, found))
    return report


def _home(env: Env):  # type: ignore[no-untyped-def]
    from pathlib import Path

    home = env.environ.get("HOME")
    return Path(home) if home else Path.home()


@dataclass(frozen=True)
class Info:
    root: str
    enabled: bool
    why_off: str | None
    usage: cache_mod.CacheUsage

    def summary(self) -> dict[str, Any]:
        return {"root": self.root, "enabled": self.enabled, "why_off": self.why_off,
                "facets": len(self.usage.facets),
                "entries": sum(e for _, e, _ in self.usage.facets.values()),
                "bytes": self.usage.total_bytes}

    def render_text(self, out: TextIO) -> None:
        state = "on" if self.enabled else f"off ({self.why_off})"
        out.write(f"cache: {self.root}\n")
        out.write(f"state: {state}\n")
        if not self.usage.facets:
            out.write("empty\n")
            return
        for name, (shards, entries, size) in sorted(self.usage.facets.items()):
            out.write(f"{name}: {entries} transcripts in {shards} shards, "
                      f"{_size(size)}\n")
        total = self.usage.total_bytes
        out.write(f"total: {_size(total)}\n")


@dataclass(frozen=True)
class Cleared:
    root: str
    files: int
    bytes: int

    def summary(self) -> dict[str, Any]:
        return {"root": self.root, "removed_files": self.files, "removed_bytes": self.bytes}

    def render_text(self, out: TextIO) -> None:
        out.write(f"cache: {self.root}\n")
        out.write(f"removed {self.files} shard files ({_size(self.bytes)})\n")


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1 << 20:
        return f"{n / 1024:.1f} KiB"
    return f"{n / (1 << 20):.1f} MiB"
