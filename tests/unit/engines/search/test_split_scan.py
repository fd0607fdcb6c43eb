"""One big file scanned alone: its needle pass and shape check run per half on two cores,
and give the whole-buffer answers (the same candidate lines, the same torn lines)."""

from __future__ import annotations

from pathlib import Path

import pytest

import builders as b
from pysift.core.grammar.selectors import parse_filter
from pysift.core.matcher import compile_pattern
from pysift.core.prefilter import NeedleSet
from pysift.disk import fanout
from pysift.disk.layout import top_level_transcript
from pysift.engines.search import scan as scan_mod
from pysift.engines.search.plan import SearchPlan

SID = "5a5a5a5a-1111-4222-8333-944444444444"


def _transcript(tmp_path: Path) -> Path:
    session = b.Session(SID, cwd="/w/p")
    for n in range(60):
        session.add(b.user(f"turn {n}: find the kestrel" if n % 7 == 0 else f"turn {n}"))
        session.add(b.assistant(b.text(f"answer {n} about 1e-6 and KESTREL" if n % 5 == 0
                                       else f"answer {n}")))
    body = b.to_jsonl(session.records)
    middle = body.index(b"\n", len(body) // 2) + 1  # a torn line and junk on either side
    return _write(tmp_path, body[:middle] + b'{"type":"user","message":{"content":"kest\n'
                  + b"not json kestrel\n" + body[middle:] + b'{"type":"assistant","kestrel')


def _write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "projects" / "-w-p" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _scan(path: Path, pattern: str, *, ignore_case: bool, light: bool
          ) -> tuple[list[tuple[int, int]], int, int]:
    plan = SearchPlan(pattern=pattern, matcher=compile_pattern(pattern, ignore_case=ignore_case),
                      labels=parse_filter(), light=light)
    found = scan_mod.scan_file(top_level_transcript(path), 0, plan, cores=2)
    return found.spans, found.malformed, len(found.hits)


@pytest.mark.parametrize(("pattern", "ignore_case"), [
    ("kestrel", False), ("kestrel", True), ("1e-6", False), ("ZQXJ-absent-0000", False)])
@pytest.mark.parametrize("light", [True, False])
def test_the_halves_answer_as_the_whole_buffer(tmp_path: Path, monkeypatch, pattern: str,  # type: ignore[no-untyped-def]
                                                ignore_case: bool, light: bool) -> None:
    path = _transcript(tmp_path)
    whole = _scan(path, pattern, ignore_case=ignore_case, light=light)
    halves: list[int] = []
    real = fanout.in_halves

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        parts = real(*args, **kwargs)
        halves.append(len(parts))
        return parts

    monkeypatch.setattr(scan_mod, "SPLIT_BYTES", 1)
    monkeypatch.setattr(fanout, "in_halves", counted)
    split = _scan(path, pattern, ignore_case=ignore_case, light=light)
    assert halves == [2]  # the split ran, on two halves
    assert split == whole
    assert whole[1] == 3  # the torn line, the junk line and the torn last one, once each


def test_a_needle_holding_a_line_break_is_never_split() -> None:
    """Its hit could run from one line into the next, across the halves' seam."""
    assert scan_mod._splits(NeedleSet(["kestrel", "1e-6"], caseless=True))
    assert not scan_mod._splits(NeedleSet(["kestrel", "a\nb"], caseless=False))
    assert not scan_mod._splits(NeedleSet(["a\r"], caseless=False))
