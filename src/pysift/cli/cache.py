"""``pysift cache info|clear``: parse the action, run commands.cache, emit."""


from typing import Annotated

import typer

from pysift.cli.app import app
from pysift.cli.emit import emit
from pysift.cli.options import build_env, check_format

CACHE_HELP = """Show (info) or empty (clear) the cache of per-transcript facts that makes a
repeated list or search faster. The cache never changes an answer: a transcript's entry
is used only while the file has the same device, inode, size, mtime, ctime and first
4 KiB it had when the facts were taken (a file that only grew is extended from where the
last scan stopped); anything else is read afresh. It keeps only what a transcript's own
bytes say (no sidecar, lineage or query), in files of mode 0600.

Where: the dir pysift-cache-v1 in $PYSIFT_CACHE_DIR, else in $XDG_CACHE_HOME/pysift,
else in ~/.cache/pysift; never under a Claude home, nor in a location that holds one or
looks like one (projects/ with transcripts): such a location means no cache. pysift
reads and deletes only in that dir, only when it holds pysift's CACHEDIR.TAG, and only
the files it names there (shards, its temporary files). Off for one run with --no-cache,
or with PYSIFT_NO_CACHE=1. A cache dir that cannot be written (read-only, full) silently
means no cache (info says so). Entries of deleted transcripts are dropped when their
shard is next written; once a day, shards of vanished project dirs go, and the oldest
above 256 MiB."""

CACHE_EPILOG = """\b
EXAMPLES
  pysift cache info                          # where it is, on or off, how big
  pysift cache info --format json | jq '.bytes // empty'
  pysift cache clear                         # delete every cached fact
  PYSIFT_CACHE_DIR=/tmp/pysift-cache pysift list   # use another dir
  pysift --no-cache search -t user -c ''     # one run without the cache

\b
JSON (--format json, one object per line)
  {"kind":"header","command":"cache","action":"info"|"clear"}
  info:  {"kind":"facet","name","shards","entries","bytes"}   one per command's facts
         {"kind":"summary","root","dir","enabled","why_off","writable","why_unwritable",
          "facets","entries","bytes","old_layout","unreadable"}
  clear: {"kind":"summary","root","dir","removed_files","removed_shards",
          "removed_temp_files","removed_bytes","old_layout","unreadable"}
  (dir: the one dir pysift keeps its files in; old_layout: dirs of an older layout,
  never read nor deleted)

\b
EXIT
  0; 1 for clear on a pysift-cache-v1 dir that is not pysift's (nothing is removed);
  2 for an action other than info or clear, or clear on a location under, holding or
  looking like a Claude home."""


@app.command("cache", help=CACHE_HELP, epilog=CACHE_EPILOG)
def cache_cmd(
    ctx: typer.Context,
    action: Annotated[str, typer.Argument(metavar="info|clear", show_default=False)],
    fmt: Annotated[str, typer.Option("--format", metavar="text|json",
                                     help="Output format.")] = "text",
) -> None:
    check_format(fmt)
    env = build_env(ctx)
    from pysift.commands.cache import CacheOptions, run

    emit(run(CacheOptions(action=action), env), fmt)
