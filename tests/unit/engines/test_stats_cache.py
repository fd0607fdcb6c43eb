"""The stats facets of the cache: an unchanged transcript's row comes from the figures kept
of it, exactly as counted (a windowed run: from its kept per-record facts, summed under the
run's own window); a changed, grown or oddly kept one is counted again."""

from __future__ import annotations

import marshal
from datetime import UTC, datetime
from pathlib import Path

import pytest

from builders import (
    Session,
    assistant,
    garbage_line,
    thinking,
    to_jsonl,
    tool_result,
    tool_use,
    usage,
    user,
)
from pysift.core.grammar.ranges import parse_range
from pysift.disk import cache as C
from pysift.disk.layout import transcript_from_path
from pysift.engines import stats as engine
from pysift.engines.stats import SessionStats, Window

SID = "22222222-2222-4222-8222-222222222222"


def _home(tmp_path: Path) -> Path:
    s = Session(SID, cwd="/w/proj")
    records = [
        s.add(user("count the kestrel passes")),
        s.add(assistant(thinking("looking"), msg_id="msg_1", usage=usage(5, 10))),
        s.add(assistant(tool_use("Read", {"file_path": "a.py"}, id="t1"), msg_id="msg_1",
                        usage=usage(5, 40))),
        s.add(tool_result("t1", "1\timport kestrel")),
        s.add(user("and the rest?")),
        s.add(assistant("all of them", msg_id="msg_2", usage=usage(7, 3))),
    ]
    path = tmp_path / "claude" / "projects" / "-w-proj" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(to_jsonl([*records, garbage_line("<<< torn")]))
    return path


def _store(tmp_path: Path) -> C.Store:
    settings = C.settings_from({"PYSIFT_CACHE_DIR": str(tmp_path / "cache"),
                                "PYSIFT_CACHE_SETTLE_MS": "0"}, Path("/home/ada"),
                               Path("/home/ada/.claude"))
    store = C.open_store(settings)
    assert store is not None
    return store


def _figures(row: SessionStats) -> tuple[object, ...]:
    return row.dump()


def _no_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_a: object, **_k: object) -> None:
        raise AssertionError("the transcript was scanned")

    monkeypatch.setattr(engine, "scan_range", refuse)


def test_an_unchanged_transcript_is_answered_from_its_kept_row(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _home(tmp_path)
    t = transcript_from_path(path)
    cold = engine.run([t], Window(), cache=_store(tmp_path))[0]
    assert cold.stamp is None  # the stamp went into the cache, not into the answer
    assert cold.skipped_lines == 1 and cold.tokens  # the row counts something
    _no_scan(monkeypatch)
    warm = engine.run([t], Window(), cache=_store(tmp_path))[0]
    assert warm.transcript is t
    assert _figures(warm) == _figures(cold)


def test_a_grown_transcript_is_counted_again(tmp_path: Path) -> None:
    path = _home(tmp_path)
    t = transcript_from_path(path)
    engine.run([t], Window(), cache=_store(tmp_path))
    with path.open("ab") as fh:
        fh.write(to_jsonl([assistant("more", msg_id="msg_3", usage=usage(1, 1))]))
    warm = engine.run([t], Window(), cache=_store(tmp_path))[0]
    plain = engine.run([t], Window())[0]
    assert _figures(warm) == _figures(plain)
    assert warm.assistant_records == 4


@pytest.mark.parametrize("window", [
    Window(turns=parse_range("1..")),
    Window(since=datetime(2026, 1, 1, tzinfo=UTC)),
    Window(until=datetime(2000, 1, 1, tzinfo=UTC), turns=parse_range("0")),
])
def test_a_windowed_run_sums_the_kept_records_under_its_own_window(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, window: Window) -> None:
    path = _home(tmp_path)
    t = transcript_from_path(path)
    plain = engine.run([t], window)[0]
    engine.run([t], window, cache=_store(tmp_path))  # keeps the records, not a row
    assert {p.parent.name for p in (tmp_path / "cache").rglob("*.marshal")} == {
        engine.RECORDS_FACET}
    with monkeypatch.context() as mp:
        _no_scan(mp)
        got = engine.run([t], window, cache=_store(tmp_path))[0]
        whole = engine.run([t], Window(turns=parse_range("0..")), cache=_store(tmp_path))[0]
    assert _figures(got) == _figures(plain)
    assert whole.assistant_records == 3  # another window over the same kept records
    engine.run([t], Window(), cache=_store(tmp_path))
    got = engine.run([t], Window(turns=parse_range("1..")), cache=_store(tmp_path))[0]
    assert got.assistant_records == 1  # the window's count, not the kept whole-file row


@pytest.mark.parametrize("bad", [
    ("not", "records"),
    (1, {}, 0, [(1, None, "yes")], [], [], [], [], True),
    (1, {}, 0, [], [(1, None, "m", None, (1, 2, 3), (), 0, 0)], [], [], [], True),
    (1, {}, 0, [], [(1, None, "m", None, None, ("Read", 5), 0, 0)], [], [], [], True),
    (1, {}, 0, [], [], ["1"], [], [], True),
    (1, {}, 0, [], [], [], [], [], 1),
])
def test_kept_records_of_another_shape_are_counted_again(tmp_path: Path, bad: tuple) -> None:
    path = _home(tmp_path)
    t = transcript_from_path(path)
    window = Window(turns=parse_range("0.."))
    plain = engine.run([t], window)[0]
    engine.run([t], window, cache=_store(tmp_path))
    shard = next((C.namespace(tmp_path / "cache") / engine.RECORDS_FACET).glob("*.marshal"))
    data = marshal.loads(shard.read_bytes())
    stamp, _ = data["entries"][str(path)]
    data["entries"][str(path)] = (stamp, bad)
    shard.write_bytes(marshal.dumps(data))
    assert engine.scan_from_records(bad) is None
    got = engine.run([t], window, cache=_store(tmp_path))[0]
    assert _figures(got) == _figures(plain)


@pytest.mark.parametrize("bad", [
    ("not", "a", "row"),
    (1, {}, 0, 0, 0, 0, 0, None, None, {"m": (1, 2, 3)}, {}, 0, {}, 0),
    (1, {"user": "1"}, 0, 0, 0, 0, 0, None, None, {}, {}, 0, {}, 0),
    (1, {}, 0, 0, 0, 0, 0, 5, None, {}, {}, 0, {}, 0),
    (True, {}, 0, 0, 0, 0, 0, None, None, {}, {}, 0, {}, 0),
])
def test_kept_figures_of_another_shape_are_counted_again(tmp_path: Path, bad: tuple) -> None:
    path = _home(tmp_path)
    t = transcript_from_path(path)
    plain = engine.run([t], Window())[0]
    engine.run([t], Window(), cache=_store(tmp_path))
    shard = next((C.namespace(tmp_path / "cache") / engine.FACET).glob("*.marshal"))
    data = marshal.loads(shard.read_bytes())
    stamp, _ = data["entries"][str(path)]
    data["entries"][str(path)] = (stamp, bad)
    shard.write_bytes(marshal.dumps(data))
    assert SessionStats.load(t, bad) is None
    got = engine.run([t], Window(), cache=_store(tmp_path))[0]
    assert _figures(got) == _figures(plain)


def test_kept_records_keep_the_superseded_drafts(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A prompt sent again from the same parent supersedes the first (a draft, in no
    turn): a turn window read from the kept records leaves the draft out as a scan does."""
    s = Session(SID, cwd="/w/proj")
    first = s.add(user("count the kestrel passes"))
    records = [first, s.add(assistant("on it", msg_id="msg_1", usage=usage(1, 2)))]
    parent = s.last_uuid
    records.append(s.add(user("and the rest?")))
    records.append(s.add(user("and the rest, all of them?"), parent=parent))
    records.append(s.add(assistant("all", msg_id="msg_2", usage=usage(3, 4))))
    path = tmp_path / "claude" / "projects" / "-w-proj" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(to_jsonl(records))
    t = transcript_from_path(path)
    window = Window(turns=parse_range("0.."))
    plain = engine.run([t], window)[0]
    assert plain.user_records == 2  # the draft is in no turn
    engine.run([t], window, cache=_store(tmp_path))
    _no_scan(monkeypatch)
    assert _figures(engine.run([t], window, cache=_store(tmp_path))[0]) == _figures(plain)
