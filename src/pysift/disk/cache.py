"""A per-transcript cache of facts that do not depend on the query, validated by the file.

A cache may make an answer faster, never different. Each command keeps ITS OWN facts
about a transcript (a "facet": list's row facts, search's user lines and turn openers,
stats' usage) under its own name; what a facet may hold is what the command would
compute from that transcript's bytes alone, whatever the flags: nothing from another
file (clone lineage, sidecars, ``.meta.json``, persisted outputs) and nothing the query
decides (time zone, window, label gates, output layout).

Where: ``$PYSIFT_CACHE_DIR``, else ``$XDG_CACHE_HOME/pysift``, else ``~/.cache/pysift``
(the root); never under a Claude home (the one in use, ``$CLAUDE_CONFIG_DIR``,
``~/.claude``), never a root holding one or looking like one (``projects/`` with
transcripts): such a location means no cache, and ``cache clear`` refuses it. Off with
``--no-cache`` or ``PYSIFT_NO_CACHE=1``.

Layout: everything pysift keeps is in ONE dir of its own, ``<root>/pysift-cache-v<LAYOUT>``
(the namespace), which holds pysift's ``CACHEDIR.TAG`` (the Cache Directory Tagging
signature, naming pysift and the layout), ``.pruned``, and ``<facet>/<shard>.marshal``,
one shard per project dir (16 hex digits: a hash of its path) holding a header (format,
rule set) and ``{transcript path: (stamp, facts)}``. pysift reads, prunes and clears only
a namespace that is provably its own (a real dir, not a link, holding that tag byte for
byte and no ``projects/``), and deletes there only the names it makes: a shard
(``<16 hex>.marshal``) or a temporary file (``.<16 hex>.marshal.<pid>.tmp``) in a facet
dir, the facet dir once empty, ``.pruned``. Nothing else under the root is ever looked
at or touched (the files of the older layout, ``<root>/<facet>/*.marshal``, are left
where they are: ``cache info`` names them). Files are written mode 0600 (they hold
previews of prompts) in 0700 dirs, by an atomic rename of a temporary file; ``marshal``
only, never pickle (a shard holds tuples, lists, dicts, strings, bytes, numbers and
None; anything else read back is ignored). A read-only, full or otherwise unusable dir
silently means no cache: every write failure is swallowed (``cache info`` says it).

Validity of one transcript's entry (``Facet.probe``):

- HIT: the same (device, inode, size, mtime_ns, ctime_ns) as when the facts were taken
  (a rewrite that restores the mtime still moves the ctime), the same CRC-32 of the
  first ``HEAD_BYTES`` bytes (read again on every probe), the same rule set (pysift version,
  facet schema, the source of the package, Python's marshal version: ``rules()``).
- GROWN: same device and inode, a larger size, the same head hash and the same last
  scanned line (``Stamp.tail_start..scanned``, the last line that ended with a newline
  when the facts were taken): the facet extends its facts from ``scanned``, a torn last
  line being read again from its start (``Facet.grown_ok`` checks the bytes). A facet
  that reads the file's JSON layout checks that it did not change.
- Anything else: a MISS; the facts are computed again and replace the entry.

An entry is stored only when the file's mtime and ctime are at least ``settle`` seconds
older than the start of the run (default 2 s, ``PYSIFT_CACHE_SETTLE_MS`` for tests): a
timestamp only moves at the file system's granularity, so a file written in the same
tick as it was read could change again without its stamp moving (git's "racily clean"
entries). A live transcript is thus recomputed until it rests.

Pruning: when a shard is written, entries whose transcript is gone are dropped; once a
day the shards of project dirs that are gone are deleted, and the oldest shards while
the cache holds more than ``MAX_BYTES`` (in pysift's own namespace only, as above).

API (for a command's engine; the command opens the store from its Env):

    store = open_store(env)                    # None when the cache is off or unusable
    facet = store.facet("list", schema=1)      # a command's facts, its own shards
    probe = facet.probe(path)                  # HIT: probe.facts; GROWN: probe.old; MISS
    stamp = stamp_of(fd_stat, buf)             # taken where the bytes are read
    facet.put(path, stamp, facts)              # facts: marshal-able, query-independent
    facet.flush()                              # atomic writes of the shards it changed

A forked worker may probe (the loaded shards are inherited); only the parent puts and
flushes (workers send their facts back with their results).
"""

from __future__ import annotations

import marshal
import os
import stat as stat_mod
import sys
import time
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING
from zlib import crc32

from pysift.model.fastdata import dataclass

try:  # the builtin BLAKE2 (hashlib's OpenSSL import costs tens of ms at start-up)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python without the builtin module
    from hashlib import blake2b

from pysift import __version__
from pysift.disk import cache_place as _place
from pysift.disk.gcpause import paused_gc

if TYPE_CHECKING:
    from pysift.disk.lines import Buffer

FORMAT = 2  # the shard file format (header and entry shape; 2: the stamps' hashes are CRC-32)
HEAD_BYTES = 4096
MAX_BYTES = 256 << 20  # above this, the oldest shards go
PRUNE_EVERY_S = 24 * 3600
_PRUNE_MARK = ".pruned"

# where the cache lives and whether it is on (``disk.cache_place``, which every run reads;
# the store is imported only by a run that uses it), named here too
LAYOUT = _place.LAYOUT
CacheSettings = _place.CacheSettings
cache_root = _place.cache_root
claude_homes = _place.claude_homes
namespace = _place.namespace
settings_from = _place.settings_from
open_store = _place.open_store
TAG_NAME = "CACHEDIR.TAG"
#: the tag that proves a namespace pysift's (https://bford.info/cachedir/: backup tools
#: skip a dir holding it); compared byte for byte
TAG = (b"Signature: 8a477f597d28d172789f06886806bc55\n"
       b"# This file is a cache directory tag created by pysift (cache layout "
       + str(LAYOUT).encode() + b").\n"
       b"# pysift keeps per-transcript facts here; `pysift cache clear` empties it.\n")
#: the facet dirs of the layout before the namespace (``<root>/<facet>/*.marshal``):
#: never read nor deleted, only named by ``cache info``
OLD_LAYOUT_FACETS = ("list", "search", "stats", "stats-records")
_HEX = frozenset("0123456789abcdef")

HIT, GROWN, MISS = "hit", "grown", "miss"


def _digest(data: bytes) -> bytes:
    return blake2b(data, digest_size=16).digest()


def _stamp_hash(data: bytes) -> bytes:
    """The hash a stamp keeps of the head (and of the last scanned line): CRC-32, 1.8 us
    for 4 KiB against BLAKE2b's 7.5 (it is paid on every probe). It only has to tell a
    rewrite that kept the size, the inode and both timestamps to the nanosecond: a
    checksum does, with odds of 2**-32 that a changed head goes unseen."""
    return crc32(data).to_bytes(4, "little")


@dataclass(frozen=True, slots=True)
class Stamp:
    """What a transcript looked like when its facts were taken."""

    dev: int
    ino: int
    size: int
    mtime_ns: int
    ctime_ns: int
    head_len: int  # min(size, HEAD_BYTES)
    head_hash: bytes
    scanned: int  # the end (after its newline) of the last complete line; 0: none
    tail_start: int  # where that line starts
    tail_hash: bytes

    def as_tuple(self) -> tuple[object, ...]:
        return (self.dev, self.ino, self.size, self.mtime_ns, self.ctime_ns, self.head_len,
                self.head_hash, self.scanned, self.tail_start, self.tail_hash)

    @classmethod
    def from_tuple(cls, raw: object) -> Stamp | None:
        if not isinstance(raw, tuple) or len(raw) != 10:
            return None
        ints = (raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[7], raw[8])
        if not all(type(x) is int for x in ints):
            return None
        if type(raw[6]) is not bytes or type(raw[9]) is not bytes:
            return None
        return cls(*raw)


def stamp_of(st: os.stat_result, buf: Buffer) -> Stamp | None:
    """The stamp of the bytes ``buf`` read from a file whose ``fstat`` (taken before the
    read, on the same descriptor) is ``st``; None when they disagree on the size (the
    file changed during the read: nothing is stored)."""
    size = len(buf)
    if size != st.st_size:
        return None
    head = bytes(buf[:HEAD_BYTES])
    scanned = buf.rfind(b"\n") + 1 if size else 0
    tail_start = buf.rfind(b"\n", 0, scanned - 1) + 1 if scanned else 0
    tail = bytes(buf[tail_start:scanned])
    return Stamp(st.st_dev, st.st_ino, size, st.st_mtime_ns, st.st_ctime_ns, len(head),
                 _stamp_hash(head), scanned, tail_start, _stamp_hash(tail))


@dataclass(slots=True)
class Probe:
    """A transcript's entry, judged: ``state`` HIT (``facts`` usable as they are), GROWN
    (``old`` facts and ``stamp`` to extend from, once ``Facet.grown_ok`` agrees) or MISS."""

    state: str
    facts: object = None
    stamp: Stamp | None = None

    @property
    def hit(self) -> bool:
        return self.state == HIT


_MISS = Probe(MISS)
_PROBE_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def rules(facet: str, schema: int) -> str:
    """The rule set a facet's facts were computed under: pysift's version, the facet's
    schema, the package's source (each module's name, size and mtime: a checkout that
    changed any code does not trust facts an older code computed), Python's marshal."""
    return f"{facet}/{schema}/{__version__}/{_source_digest()}/{sys.version_info[:2]}/" \
           f"{marshal.version}"


_SOURCE_DIGEST: list[str] = []


def _source_digest() -> str:
    if _SOURCE_DIGEST:
        return _SOURCE_DIGEST[0]
    root = Path(__file__).resolve().parent.parent
    parts: list[str] = []

    def walk(directory: str) -> None:
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if entry.name != "__pycache__":
                    walk(entry.path)
            elif entry.name.endswith(".py"):
                try:
                    st = entry.stat()
                except OSError:
                    continue
                parts.append(f"{entry.path[len(str(root)):]}:{st.st_size}:{st.st_mtime_ns}")

    walk(str(root))
    _SOURCE_DIGEST.append(_digest("\n".join(parts).encode()).hex())
    return _SOURCE_DIGEST[0]


# -- the store ------------------------------------------------------------------------------


class Store:
    """The cache of one run: its root, and the facets opened so far."""

    def __init__(self, settings: CacheSettings, now: float) -> None:
        self.root = settings.root
        self.dir = settings.dir  # the namespace: every file of the store is under it
        self.settle_s = settings.settle_s
        self.started = now  # the run's start (seconds since the epoch): see ``settle``
        # the system clock when the store opened (``started`` may be a caller's fixed
        # instant), less a second: a file's mtime comes from the kernel's coarse clock,
        # which runs a few milliseconds behind ``time.time()``. A shard with a later mtime
        # was written by this run, or just before it (``maybe_prune``)
        self.opened = time.time() - 1.0
        self._facets: dict[str, Facet] = {}
        # what this process's probes found on disk this run, by path: a later question
        # about the same file in the same run (the cleanup notice's mtime) asks no
        # system call (``commands.notice.probed_times``)
        self.seen: dict[str, os.stat_result] = {}
        self._owned: bool | None = None  # the namespace is pysift's (asked once a run)
        self._ready: bool | None = None  # ... and made so, for the writes of this run

    def owned(self) -> bool:
        """Whether the namespace is provably pysift's (read nothing from one that is not)."""
        if self._owned is None:
            self._owned = owned(self.dir)
        return self._owned

    def ready(self) -> bool:
        """The namespace made (with its tag) where it is missing: whether this run may
        write there."""
        if self._ready is None:
            self._ready = self._owned = _make_namespace(self.dir)
        return self._ready

    def facet(self, name: str, schema: int) -> Facet:
        found = self._facets.get(name)
        if found is None:
            found = self._facets[name] = Facet(self, name, schema)
        return found

    def flush(self) -> None:
        for facet in self._facets.values():
            facet.flush()


def shard_name(project_dir: Path | str) -> str:
    return _digest(os.fsencode(os.path.abspath(project_dir))).hex()[:16] + ".marshal"


class Facet:
    """One command's facts, sharded by project dir, loaded on first use per shard."""

    def __init__(self, store: Store, name: str, schema: int) -> None:
        self.store = store
        self.name = name
        self.dir = store.dir / name
        self.rules = rules(name, schema)
        self.seen = store.seen
        self._shards: dict[str, dict[str, tuple[object, object]]] = {}
        self._projects: dict[str, str] = {}
        self._dirty: set[str] = set()

    # -- reading ----------------------------------------------------------------------------
    def _shard(self, path: Path | str) -> tuple[str, dict[str, tuple[object, object]]]:
        text = os.fspath(path)
        project = text.rpartition(os.sep)[0]  # the parent dir, as a key of this run's memo
        name = self._projects.get(project)
        if name is None:
            name = self._projects[project] = shard_name(_project_of(text))
        entries = self._shards.get(name)
        if entries is None:
            entries = self._shards[name] = self._load(name)
        return name, entries

    def _load(self, name: str) -> dict[str, tuple[object, object]]:
        if not self.store.owned():
            return {}
        try:  # read whole, then decoded: marshal.load on a file object reads it in pieces
            fd = os.open(self.dir / name, os.O_RDONLY)
            try:
                chunks = []
                while chunk := os.read(fd, 1 << 20):
                    chunks.append(chunk)
            finally:
                os.close(fd)
            with paused_gc():  # a shard is all containers, all kept: nothing to collect
                data = marshal.loads(b"".join(chunks))
        except Exception:  # noqa: BLE001 - unreadable or corrupt: no cache, never a failure
            return {}
        if (not isinstance(data, dict) or data.get("format") != FORMAT
                or data.get("rules") != self.rules or not isinstance(data.get("entries"), dict)):
            return {}
        return data["entries"]  # type: ignore[no-any-return]

    def preload(self, paths) -> None:  # type: ignore[no-untyped-def]
        """Load the shards of ``paths`` now (before a fork: each worker then inherits
        them instead of reading them again). Each parent dir is looked at once (a
        transcript's shard is its parent's: 2,428 paths of corpus B sit in 476 dirs)."""
        seen = self._projects
        for path in paths:
            text = os.fspath(path)
            if text.rpartition(os.sep)[0] not in seen:
                self._shard(text)

    def cached_size(self, path: Path | str) -> int | None:
        """The size ``path`` had when its entry was taken (None: no entry), read without
        touching the file: a weight for ordering work, never a fact about the file now."""
        text = os.fspath(path)
        entry = self._shard(text)[1].get(text)
        if type(entry) is tuple and len(entry) == 2 and type(entry[0]) is tuple \
                and len(entry[0]) == 10 and type(entry[0][2]) is int:
            return entry[0][2]
        return None

    def probe(self, path: Path | str) -> Probe:
        """Judge ``path``'s entry against the file as it is now (one open, fstat, read of
        the head; nothing when there is no entry). A HIT costs four system calls and one
        hash of the head: no Python file object, no stamp object."""
        text = os.fspath(path)
        _, entries = self._shard(text)
        entry = entries.get(text)
        if type(entry) is not tuple or len(entry) != 2:
            return _MISS
        raw = entry[0]
        if type(raw) is not tuple or len(raw) != 10:
            return _MISS
        try:
            fd = os.open(text, _PROBE_FLAGS)
        except OSError:
            return _MISS
        try:
            st = self.seen[text] = os.fstat(fd)
            if (st.st_ino != raw[1] or st.st_dev != raw[0]
                    or not stat_mod.S_ISREG(st.st_mode)):
                return _MISS
            if (st.st_size == raw[2] and st.st_mtime_ns == raw[3]
                    and st.st_ctime_ns == raw[4]):
                head_len = raw[5]
                if type(head_len) is not int or not 0 <= head_len <= HEAD_BYTES:
                    return _MISS  # a damaged entry: never a read of its size
                head = os.pread(fd, head_len, 0) if head_len else b""
                if len(head) == head_len and _stamp_hash(head) == raw[6]:
                    return Probe(HIT, entry[1])
                return _MISS
            if type(raw[2]) is int and st.st_size > raw[2]:
                stamp = Stamp.from_tuple(raw)
                return _MISS if stamp is None else Probe(GROWN, entry[1], stamp)
            return _MISS
        except OSError:
            return _MISS
        finally:
            os.close(fd)

    @staticmethod
    def grown_ok(stamp: Stamp, buf: bytes | object) -> bool:
        """Whether ``buf`` (the grown file's bytes) still starts with the bytes the facts
        were taken from: the same head and the same last scanned line."""
        size = len(buf)  # type: ignore[arg-type]
        if size <= stamp.size:
            return False
        if _stamp_hash(bytes(buf[:stamp.head_len])) != stamp.head_hash:  # type: ignore[index]
            return False
        if stamp.scanned == 0:
            return True
        if buf[stamp.scanned - 1:stamp.scanned] != b"\n":  # type: ignore[index]
            return False
        return _stamp_hash(bytes(buf[stamp.tail_start:stamp.scanned])) == stamp.tail_hash  # type: ignore[index]

    # -- writing ----------------------------------------------------------------------------
    def settled(self, stamp: Stamp) -> bool:
        """Whether the file rested long enough before this run to be stored (see the
        module's note on racy stamps)."""
        limit = (self.store.started - self.store.settle_s) * 1e9
        return stamp.mtime_ns < limit and stamp.ctime_ns < limit

    def put(self, path: Path, stamp: Stamp | None, facts: object) -> None:
        if stamp is None or not self.settled(stamp):
            return
        name, entries = self._shard(path)
        entries[str(path)] = (stamp.as_tuple(), facts)
        self._dirty.add(name)

    def flush(self) -> None:
        """Write the shards changed this run (entries of vanished transcripts dropped);
        silently nothing when the dir cannot be written."""
        if not self._dirty:
            return
        try:
            if not self.store.ready():
                raise OSError("the namespace is not pysift's")
            _ensure_dir(self.dir)
        except OSError:
            self._dirty.clear()
            return
        for name in sorted(self._dirty):
            entries = {path: entry for path, entry in self._shards.get(name, {}).items()
                       if os.path.exists(path)}
            payload = {"format": FORMAT, "rules": self.rules, "entries": entries}
            try:
                _write_atomic(self.dir / name, marshal.dumps(payload))
            except (OSError, ValueError):
                pass
        self._dirty.clear()
        maybe_prune(self.store.dir, written_since=self.store.opened)


def _project_of(text: str) -> str:
    """The project dir a transcript path belongs to (``projects/<dir>/...``): the shard
    key. Read off the string (the paths come from a walk, already normal): a ``Path``
    parse per parent dir cost ~15 us, 476 of them for corpus B's 2,428 transcripts."""
    parts = text.split(os.sep)
    for i in range(len(parts) - 2, 0, -1):
        if parts[i - 1] == "projects":
            return os.sep.join(parts[:i + 1]) or os.sep
    return os.path.dirname(text) or os.curdir


def _ensure_dir(directory: Path) -> None:
    """A facet's dir in the namespace (made already), 0700 where it is made."""
    try:
        os.mkdir(directory, 0o700)
    except FileExistsError:
        return
    os.chmod(directory, 0o700)  # mkdir's mode is masked by the umask


def _is_regular(path: Path) -> bool:
    try:
        return stat_mod.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def owned(namespace: Path) -> bool:
    """Whether ``namespace`` is provably pysift's: a dir (not a link) holding pysift's
    tag as a regular file, byte for byte, and nothing that looks like a Claude home."""
    try:
        if not stat_mod.S_ISDIR(os.lstat(namespace).st_mode):
            return False
        fd = os.open(namespace / TAG_NAME, _PROBE_FLAGS | getattr(os, "O_NOFOLLOW", 0))
        try:
            if not stat_mod.S_ISREG(os.fstat(fd).st_mode):
                return False
            tag = os.read(fd, len(TAG) + 1)
        finally:
            os.close(fd)
    except OSError:
        return False
    return tag == TAG and not os.path.lexists(namespace / "projects")


def _make_namespace(namespace: Path) -> bool:
    """The namespace, made 0700 with its tag (and the root above it, 0700, where it is
    made) when it is missing, or tagged when it is an empty dir (a run that stopped
    between the two); whether it is pysift's now."""
    try:
        root = namespace.parent
        if not os.path.lexists(root):
            os.makedirs(root, mode=0o700, exist_ok=True)
            os.chmod(root, 0o700)  # makedirs' mode is masked by the umask
        try:
            os.mkdir(namespace, 0o700)
            os.chmod(namespace, 0o700)
        except FileExistsError:
            if owned(namespace):
                return True
            if (not stat_mod.S_ISDIR(os.lstat(namespace).st_mode)
                    or os.listdir(namespace)):
                return False  # not pysift's: nothing is written there
        _write_atomic(namespace / TAG_NAME, TAG)
    except OSError:
        return False
    return owned(namespace)


def _write_atomic(target: Path, data: bytes) -> None:
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_TRUNC, 0o600)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# -- housekeeping ---------------------------------------------------------------------------
# Every function here reads or deletes only inside a namespace ``owned`` says is pysift's,
# and deletes only the names pysift makes there.


def _is_facet_name(name: str) -> bool:
    """A facet dir's name as pysift makes them (``list``, ``stats-records``)."""
    return 0 < len(name) <= 32 and name[0].isascii() and name[0].islower() and all(
        c.isascii() and (c.islower() or c.isdigit() or c == "-") for c in name)


def is_shard_name(name: str) -> bool:
    """``<16 hex digits>.marshal``: a shard's name (``shard_name``)."""
    return len(name) == 24 and name.endswith(".marshal") and _HEX.issuperset(name[:16])


def is_temp_name(name: str) -> bool:
    """``.<shard name>.<pid>.tmp``: a shard being written (``_write_atomic``)."""
    if not (name.startswith(".") and name.endswith(".tmp")):
        return False
    shard, _, pid = name[1:-4].rpartition(".")
    return is_shard_name(shard) and pid.isdigit() and pid.isascii()


@dataclass
class CacheUsage:
    """What ``pysift cache info`` reports."""

    facets: dict[str, tuple[int, int, int]] = field(default_factory=dict)  # shards, entries, bytes

    @property
    def total_bytes(self) -> int:
        return sum(b for _, _, b in self.facets.values())


def _own_files(namespace: Path) -> list[tuple[str, os.DirEntry[str]]]:
    """The regular files pysift makes in a facet dir of ``namespace`` (shards and
    temporary files, by name), with their facet; nothing when the namespace is not
    provably pysift's."""
    found: list[tuple[str, os.DirEntry[str]]] = []
    if not owned(namespace):
        return found
    try:
        facets = [e for e in os.scandir(namespace)
                  if _is_facet_name(e.name) and e.is_dir(follow_symlinks=False)]
    except OSError:
        return found
    for facet in facets:
        try:
            for entry in os.scandir(facet.path):
                if ((is_shard_name(entry.name) or is_temp_name(entry.name))
                        and entry.is_file(follow_symlinks=False)):
                    found.append((facet.name, entry))
        except OSError:
            continue
    return found


def usage(namespace: Path) -> CacheUsage:
    out = CacheUsage()
    for facet, entry in _own_files(namespace):
        if not is_shard_name(entry.name):
            continue
        shards, entries, size = out.facets.get(facet, (0, 0, 0))
        try:
            size += entry.stat(follow_symlinks=False).st_size
            with open(entry.path, "rb") as fh:
                data = marshal.load(fh)
            count = len(data.get("entries", {})) if isinstance(data, dict) else 0
        except (OSError, EOFError, ValueError, TypeError):
            count = 0
        out.facets[facet] = (shards + 1, entries + count, size)
    return out


@dataclass(frozen=True)
class Removed:
    """What ``clear`` removed: shards, temporary files, their bytes, facet dirs."""

    shards: int = 0
    temporary: int = 0
    bytes: int = 0
    dirs: int = 0


def clear(namespace: Path) -> Removed:
    """Delete every shard and temporary file pysift made in its namespace, the facet
    dirs they leave empty and the prune mark; nothing when the namespace is not provably
    pysift's (the namespace itself and its tag stay: an empty cache)."""
    shards = temporary = size = dirs = 0
    facets: set[str] = set()
    for facet, entry in _own_files(namespace):
        facets.add(facet)
        try:
            length = entry.stat(follow_symlinks=False).st_size
            os.unlink(entry.path)
        except OSError:
            continue
        size += length
        if is_shard_name(entry.name):
            shards += 1
        else:
            temporary += 1
    if owned(namespace):
        try:
            facets.update(e.name for e in os.scandir(namespace)
                          if _is_facet_name(e.name) and e.is_dir(follow_symlinks=False))
        except OSError:
            pass
        for facet in sorted(facets):
            try:
                os.rmdir(namespace / facet)  # only once empty: anything else there stays
                dirs += 1
            except OSError:
                pass
        if _is_regular(namespace / _PRUNE_MARK):
            try:
                os.unlink(namespace / _PRUNE_MARK)
            except OSError:
                pass
    return Removed(shards, temporary, size, dirs)


def unwritable(settings: CacheSettings) -> str | None:
    """Why a cache that is on keeps nothing at its location (None: it can keep): a file
    in the way, a dir that cannot be written, a namespace that is not pysift's. What a
    write would meet, asked without writing (``os.access``: root writes through modes)."""
    namespace = settings.dir
    probe = namespace
    while not os.path.lexists(probe):
        if probe.parent == probe:
            break
        probe = probe.parent
    try:
        is_dir = stat_mod.S_ISDIR(os.stat(probe).st_mode)
    except OSError:
        return f"{probe} cannot be read"
    if not is_dir:
        return f"{probe} is not a directory"
    if probe == namespace:
        if os.path.islink(namespace):
            return f"{namespace} is a link, not pysift's own dir"
        if not owned(namespace):
            try:
                empty = not os.listdir(namespace)
            except OSError:
                return f"{namespace} cannot be read"
            if not empty:
                return f"{namespace} is not pysift's (it holds no pysift {TAG_NAME})"
    if not os.access(probe, os.W_OK | os.X_OK):
        return f"{probe} cannot be written"
    return None


def old_layout(root: Path) -> list[Path]:
    """The facet dirs of the layout before the namespace (``<root>/list`` …) that still
    hold shards: pysift no longer reads or deletes them; ``cache info`` names them."""
    found = []
    for name in OLD_LAYOUT_FACETS:
        try:
            with os.scandir(root / name) as entries:
                if any(is_shard_name(e.name) for e in entries):
                    found.append(root / name)
        except OSError:
            continue
    return found


def maybe_prune(namespace: Path, now: float | None = None, force: bool = False,
                written_since: float | None = None) -> None:
    """Once a day: delete the shards whose project dir is gone, then the oldest shards
    while the cache holds more than MAX_BYTES. Only pysift's own shards, in its own
    namespace. Failures are silent.

    ``written_since``: about the calling run's start (seconds since the epoch). A shard
    written since then was just made from transcripts that exist, so it is counted without
    being read (one of a project removed meanwhile goes at the next prune): the first run
    over a home (no prune mark yet) had re-read every shard it had just written, 0.15 s of
    the parent's time at the end of a cold search over corpus B."""
    if not owned(namespace):
        return
    now = time.time() if now is None else now
    mark = namespace / _PRUNE_MARK
    try:
        if not force and now - os.lstat(mark).st_mtime < PRUNE_EVERY_S:
            return
    except OSError:
        pass
    try:
        if os.path.lexists(mark) and not _is_regular(mark):
            return
        fd = os.open(mark, os.O_WRONLY | os.O_CREAT | os.O_TRUNC
                     | getattr(os, "O_NOFOLLOW", 0), 0o600)
        os.close(fd)
        os.utime(mark, (now, now))
    except OSError:
        return
    kept: list[tuple[float, int, str]] = []
    for _, entry in _own_files(namespace):
        if not is_shard_name(entry.name):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            if written_since is not None and st.st_mtime >= written_since:
                alive = True
            else:
                with open(entry.path, "rb") as fh:
                    data = marshal.load(fh)
                entries = data.get("entries", {}) if isinstance(data, dict) else {}
                alive = (any(os.path.exists(p) for p in entries) if isinstance(entries, dict)
                         else False)
        except (OSError, EOFError, ValueError, TypeError):
            alive, st = False, None
        if not alive:
            try:
                os.unlink(entry.path)
            except OSError:
                pass
            continue
        if st is not None:
            kept.append((st.st_mtime, st.st_size, entry.path))
    total = sum(size for _, size, _ in kept)
    for _, size, path in sorted(kept):
        if total <= MAX_BYTES:
            break
        try:
            os.unlink(path)
            total -= size
        except OSError:
            pass
