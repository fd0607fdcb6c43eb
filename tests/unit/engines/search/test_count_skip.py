"""``-c``/``-l``: a candidate in an exchange that already holds a hit is decoded (the
malformed count stays exact) but neither classified nor matched."""

from __future__ import annotations

from pathlib import Path

import builders as b
from pysift.core.grammar.selectors import parse_filter
from pysift.core.matcher import compile_pattern
from pysift.disk.layout import top_level_transcript
from pysift.engines.search import scan as scan_mod
from pysift.engines.search.exchanges import count_exchanges
from pysift.engines.search.plan import SearchPlan

SID = "9d9d9d9d-1111-4222-8333-944444444444"


def _write(tmp_path: Path, records: list, tail: bytes = b"") -> Path:
    session = b.Session(SID, cwd="/w/p")
    for record in records:
        session.add(record)
    path = tmp_path / "projects" / "-w-p" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b.to_jsonl(session.records) + tail)
    return path


def _scan(path: Path, pattern: str, light: bool, monkeypatch) -> tuple[int, int, int]:  # type: ignore[no-untyped-def]
    """(exchanges, malformed lines, how many records had units matched)."""
    calls = []
    real = scan_mod._Scanner.matched_units

    def counting(self, rec, units):  # type: ignore[no-untyped-def]
        calls.append(rec.uuid)
        return real(self, rec, units)

    monkeypatch.setattr(scan_mod._Scanner, "matched_units", counting)
    matcher = compile_pattern(pattern)
    plan = SearchPlan(pattern=pattern, matcher=matcher, labels=parse_filter(), light=light)
    found = scan_mod.scan_file(top_level_transcript(path), 0, plan)
    return count_exchanges(found), found.malformed, len(set(calls))


def test_a_counted_exchange_is_not_matched_again(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    path = _write(tmp_path, [
        b.user("find kestrel"),
        b.assistant(b.text("kestrel one")),
        b.assistant(b.text("kestrel two")),
        b.assistant(b.text("kestrel three")),
        b.user("next: kestrel again"),
        b.assistant(b.text("kestrel four")),
    ], tail=b'{"type":"assistant","message":{"content":"kestrel torn\n')
    exchanges, malformed, matched = _scan(path, "kestrel", True, monkeypatch)
    assert (exchanges, malformed) == (2, 1)
    assert matched == 2  # one record per turn; the rest of each turn decoded only
    full_exchanges, full_malformed, full_matched = _scan(path, "kestrel", False, monkeypatch)
    assert (full_exchanges, full_malformed) == (2, 1)
    assert full_matched == 6  # rows: every candidate is matched


def test_a_draft_is_an_exchange_of_its_own(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    session = b.Session(SID, cwd="/w/p")
    first = session.add(b.user("kestrel draft"))
    session.add(b.user("kestrel sent"), parent=first["parentUuid"])
    session.add(b.assistant(b.text("kestrel reply")))
    path = tmp_path / "projects" / "-w-p" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b.to_jsonl(session.records))
    exchanges, _, matched = _scan(path, "kestrel", True, monkeypatch)
    assert exchanges == 2  # the superseded draft and the turn of the sent message
    assert matched == 2


def _user_count(path: Path, cached: scan_mod.Cached | None, monkeypatch  # type: ignore[no-untyped-def]
                ) -> tuple[scan_mod.FileScan, int]:
    """``search '' -t user -c`` over one file: the scan, and how many times a record was
    classified (the walk's facts and the count's verdicts both go through ``classify``)."""
    from pysift.core import classify

    calls = []
    real = classify.classify

    def counting(rec, ctx, **kw):  # type: ignore[no-untyped-def]
        calls.append(rec.uuid)
        return real(rec, ctx, **kw)

    monkeypatch.setattr(classify, "classify", counting)
    plan = SearchPlan(pattern="", matcher=compile_pattern(""), labels=parse_filter(["user"]),
                      light=True)
    found = scan_mod.scan_file(top_level_transcript(path), 0, plan, cached=cached)
    monkeypatch.setattr(classify, "classify", real)
    return found, len(calls)


def test_a_user_line_count_classifies_each_record_at_most_once(tmp_path: Path, monkeypatch  # type: ignore[no-untyped-def]
                                                               ) -> None:
    """``-t user -c``: with no cache, a user record in an exchange already counted is not
    classified (decoded only); filling the cache, every user record is classified once for
    its kept facts and the count goes by them; the answers are the same."""
    path = _write(tmp_path, [
        b.user("first"),
        b.interrupt(),
        b.meta_user("<local-command-stdout>ok</local-command-stdout>"),
        b.assistant(b.text("reply")),
        b.user("second"),
        b.interrupt(),
        b.assistant(b.text("reply")),
    ], tail=b'{"type":"user","message":{"content":"torn\n')
    plain, plain_calls = _user_count(path, None, monkeypatch)
    assert (count_exchanges(plain), plain.malformed) == (2, 1)
    assert plain_calls == 2  # the two openers; the rest of each turn is decoded only
    kept, kept_calls = _user_count(path, scan_mod.Cached(), monkeypatch)
    assert (count_exchanges(kept), kept.malformed) == (2, 1)
    assert kept.facts is not None and kept.facts.users is not None
    assert kept_calls == 5  # each of the five user records once, for its facts
    assert [u.kind for u in kept.facts.users] == [1, 1, 1, 1, 1, 0]
    again, again_calls = _user_count(path, scan_mod.Cached(facts=kept.facts), monkeypatch)
    assert (count_exchanges(again), again.malformed, again_calls) == (2, 1, 0)


def test_a_candidate_in_a_counted_exchange_is_only_validated(tmp_path: Path, monkeypatch  # type: ignore[no-untyped-def]
                                                             ) -> None:
    """``-c``: after the first hit of a turn, its other candidates are not decoded into
    records; a framed line broken inside, a torn line and a valid line there are told
    apart exactly as the decoder tells them (two malformed, one record)."""
    session = b.Session(SID, cwd="/w/p")
    for record in (b.user("find kestrel"), b.assistant(b.text("kestrel one")),
                   b.assistant(b.text("kestrel two")), b.user("next: kestrel again")):
        session.add(record)
    lines: list = list(session.records)
    lines[2:2] = [b'{"type":"assistant","message":{"content":"kestrel broken",}}\n',
                  b'{"type":"assistant","message":{"content":"kestrel torn\n']
    path = tmp_path / "projects" / "-w-p" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b.to_jsonl(lines))
    decoded = []
    real = scan_mod.decode

    def counting(line, number, tally=None):  # type: ignore[no-untyped-def]
        decoded.append(line)
        return real(line, number, tally)

    monkeypatch.setattr(scan_mod, "decode", counting)
    exchanges, malformed, matched = _scan(path, "kestrel", True, monkeypatch)
    assert (exchanges, malformed, matched) == (2, 2, 2)
    assert len(decoded) == 2  # the two openers, each the first hit of its turn
    decoded.clear()
    assert _scan(path, "kestrel", False, monkeypatch)[:2] == (2, 2)  # rows: every one decoded
    assert len(decoded) == 6
