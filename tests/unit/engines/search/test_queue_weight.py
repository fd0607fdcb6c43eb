"""A search's queue order on a warm run: the sizes the cache holds, no stat of the file."""

from __future__ import annotations

import time
from pathlib import Path

import builders as b
from pysift.disk import cache as C
from pysift.disk.layout import top_level_transcript
from pysift.disk.mapped import open_buffer_stat
from pysift.engines.search import engine


def test_a_cached_file_is_weighed_by_its_entry_and_another_by_its_size_now(
        tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    project = tmp_path / "claude" / "projects" / "-w-p"
    project.mkdir(parents=True)
    held, fresh = project / f"{b.stable_uuid('a')}.jsonl", project / f"{b.stable_uuid('b')}.jsonl"
    held.write_bytes(b'{"type":"user"}\n')
    fresh.write_bytes(b'{"type":"user"}\n{"type":"assistant"}\n')
    store = C.Store(C.CacheSettings(tmp_path / "c", True, settle_s=0.0), time.time() + 1)
    facet = store.facet("demo", 1)
    buf, st = open_buffer_stat(held)
    facet.put(held, C.stamp_of(st, buf), ("facts",))
    held.write_bytes(b'{"type":"user"}\n' * 3)  # changed since: the weight is the old size

    sized: list[Path] = []
    real = engine._size

    def counted(t):  # type: ignore[no-untyped-def]
        sized.append(t.path)
        return real(t)

    monkeypatch.setattr(engine, "_size", counted)
    t_held, t_fresh = (top_level_transcript(p, project, False) for p in (held, fresh))
    assert engine._weight(facet, t_held) == 16
    assert engine._weight(facet, t_fresh) == fresh.stat().st_size
    assert engine._weight(None, t_held) == 48
    assert sized == [fresh, held]
