"""The stats scan's one parse per line (simdjson types and validates every line) against
the per-line byte probe it replaced (``scan_by_probe``) and against a naive decode of
every line: the same census, the same malformed count, the same facts, line for line."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from builders import (
    Session,
    assistant,
    assistant_split,
    attachment,
    compact_summary,
    file_history_snapshot,
    garbage_line,
    interrupt,
    queue_op,
    thinking,
    tool_result,
    tool_use,
    torn,
    usage,
    user,
)
from pysift.core.decode import decode
from pysift.engines.stats import FileScan, scan_by_probe, scan_range

SID = "22222222-2222-4222-8222-222222222222"


def naive(data: bytes) -> tuple[dict[str, int], int, list[tuple[int, str | None]]]:
    """The law line by line: every non-blank line decoded; a line that does not decode to
    an object is malformed, any other is counted under its top-level type; and each user
    record's own timestamp."""
    types: dict[str, int] = {}
    malformed = 0
    stamps: list[tuple[int, str | None]] = []
    for number, line in enumerate(data.split(b"\n"), 1):
        if not line.strip():
            continue
        rec = decode(line, number)
        if rec is None:
            malformed += 1
            continue
        kind = rec.raw.get("type")
        name = kind if isinstance(kind, str) else "(untyped)"
        types[name] = types.get(name, 0) + 1
        if name == "user":
            stamps.append((number, rec.timestamp))
    return types, malformed, stamps


def facts(scan: FileScan) -> tuple[object, ...]:
    return (scan.lines, scan.line_types, scan.skipped_lines, [tuple(u) for u in scan.users],
            [tuple(a) for a in scan.assistants], scan.openers)


def compact(record: dict[str, Any]) -> bytes:
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode()


# Lines of every shape the scan meets, each a function of a session (records chain) and
# an index. ``odd`` shapes: the byte probe and simdjson must agree on them too.
def _shapes(s: Session, i: int, kind: str) -> bytes:
    if kind == "user":
        return compact(s.add(user(f"u{i} {{brace}} \"type\":\"assistant\"")))
    if kind == "result":
        return compact(s.add(tool_result("toolu_1", f"out {i} \u2192 ok")))
    if kind == "interrupt":
        return compact(s.add(interrupt()))
    if kind == "summary":
        return compact(s.add(compact_summary("what happened")))
    if kind == "assistant":
        return compact(s.add(assistant(f"a{i}", usage=usage(3, 5))))
    if kind == "split":
        s.add(assistant_split(thinking("hm"), tool_use("Read", {"p": i})))
        return b"\n".join(compact(r) for r in s.records[-2:])
    if kind == "attachment":
        return compact(s.add(attachment("hook_success", {"stdout": "}{\"type\":\"user\""})))
    if kind == "fhs":
        return compact(s.stamp(file_history_snapshot(backups={"/a": i})))
    if kind == "queue":
        return compact(s.stamp(queue_op("enqueue", "x")))
    if kind == "progress":
        return compact({"type": "progress", "data": {"message": {"type": "assistant"}}})
    if kind == "nested-only":
        return compact({"data": {"type": "user"}, "x": 1})
    if kind == "untyped":
        return compact({"type": 7, "data": {"type": "user"}})
    if kind == "empty-type":
        return b'{"type":"","data":{"type":"user"}}'
    if kind == "escaped-type":
        return b'{"type":"us\\u0065r","timestamp":"2026-01-05T10:00:00.000Z","message":{}}'
    if kind == "spaced":
        return json.dumps(s.stamp(user("sp"), commit=False)).encode()
    if kind == "spaced-assistant":
        return json.dumps(s.stamp(assistant("sp"), commit=False)).encode()
    if kind == "odd-stamp":
        return compact({"type": "user", "timestamp": "2026-01-05T10:00:00.000Z\u00e9",
                        "message": {"role": "user", "content": "x"}})
    if kind == "odd-stamp-last":  # proven off the bytes: read with replacement characters
        return compact({"type": "user", "message": {"role": "user", "content": "x"},
                        "timestamp": "2026-01-05T10:00:00.000Z\u00e9"})
    if kind == "escaped-stamp":
        return b'{"type":"user","timestamp":"2026-01-05T10:00:00.000\\u005a","message":{}}'
    if kind == "number-stamp":
        return b'{"type":"user","timestamp":5,"message":{"role":"user","content":"x"}}'
    if kind == "torn":
        return torn(s.stamp(user("cut"), commit=False))
    if kind == "garbage":
        return garbage_line().rstrip(b"\n")
    if kind == "blank":
        return b""
    if kind == "spaces":
        return b"   \t"
    if kind == "padded":
        return b"  " + compact(s.stamp(queue_op("enqueue", "p"), commit=False)) + b" "
    if kind == "crlf":
        return compact(s.stamp(queue_op("enqueue", "c"), commit=False)) + b"\r"
    if kind == "broken-inside":
        return b'{"type":"system","x":[1,}'
    if kind == "broken-user":
        return b'{"type":"user","timestamp":"2026-01-05T10:00:00.000Z","message":{"a":tru}}'
    if kind == "bad-utf8":
        return b'{"type":"system","x":"\xff"}'
    if kind == "bad-utf8-user":
        return b'{"type":"user","timestamp":"2026-01-05T10:00:00.000Z","x":"\xc0\x80"}'
    if kind == "huge-number":
        return b'{"type":"system","x":1e400}'
    if kind == "big-int":
        return b'{"type":"system","x":123456789012345678901234567890}'
    if kind == "surrogate":
        return b'{"type":"system","x":"\\ud800"}'
    if kind == "array":
        return b'[{"type":"user"}]'
    if kind == "string":
        return b'"{\\"type\\":\\"user\\"}"'
    if kind == "two-objects":
        return b'{"type":"user"} {"type":"system"}'
    if kind == "nan":
        return b'{"type":"system","x":NaN}'
    # a UTF-8 byte order mark before the object: simdjson skips it, the decoder refuses it
    if kind == "bom-system":
        return _BOM + b'{"type":"system","subtype":"x"}'
    if kind == "bom-mode":
        return _BOM + compact({"type": "permission-mode", "permissionMode": "default"})
    if kind == "bom-user":
        return _BOM + compact(s.stamp(user("bom"), commit=False))
    if kind == "bom-assistant":
        return _BOM + compact(s.stamp(assistant("bom"), commit=False))
    if kind == "bom-padded":
        return _BOM + b' {"type":"system"}'
    # nested as deep as orjson reads (1024 levels, the record's own object counted), and
    # one level deeper, with and without a lone surrogate escape (the stdlib's reading)
    if kind.startswith("deep-"):
        _, depth, leaf = kind.split("-")
        inner = int(depth) - 1
        value = b'"\\ud800"' if leaf == "s" else b"1"
        return b'{"type":"system","x":' + b"[" * inner + value + b"]" * inner + b"}"
    raise AssertionError(kind)


_BOM = b"\xef\xbb\xbf"


_KINDS = ["user", "result", "interrupt", "summary", "assistant", "split", "attachment", "fhs",
          "queue", "progress", "nested-only", "untyped", "empty-type", "escaped-type",
          "spaced", "spaced-assistant", "odd-stamp", "odd-stamp-last", "escaped-stamp", "number-stamp", "torn",
          "garbage", "blank", "spaces", "padded", "crlf", "broken-inside", "broken-user",
          "bad-utf8", "bad-utf8-user", "huge-number", "big-int", "surrogate", "array",
          "string", "two-objects", "nan", "bom-system", "bom-mode", "bom-user",
          "bom-assistant", "bom-padded", "deep-1024-n", "deep-1025-n", "deep-1024-s",
          "deep-1025-s", "deep-1030-s"]


def _buffer(kinds: list[str], trailing_newline: bool) -> bytes:
    s = Session(SID, cwd="/w/proj")
    data = b"\n".join(_shapes(s, i, kind) for i, kind in enumerate(kinds))
    return data + b"\n" if trailing_newline and data else data


@settings(max_examples=300)
@given(st.lists(st.sampled_from(_KINDS), max_size=30), st.booleans())
def test_one_parse_per_line_equals_the_byte_probe(kinds: list[str], trailing: bool) -> None:
    data = _buffer(kinds, trailing)
    assert facts(scan_range(data)) == facts(scan_by_probe(data))


@settings(max_examples=300)
@given(st.lists(st.sampled_from(_KINDS), max_size=30), st.booleans())
def test_census_and_malformed_count_equal_a_decode_of_every_line(kinds: list[str],
                                                                 trailing: bool) -> None:
    data = _buffer(kinds, trailing)
    types, malformed, stamps = naive(data)
    scan = scan_range(data)
    assert scan.line_types == types
    assert scan.skipped_lines == malformed
    assert scan.lines == (data.count(b"\n") + (not data.endswith(b"\n")) if data else 0)
    # a user record's own timestamp (a raw non-ASCII one proven off the bytes reads as
    # one replacement character per byte, as it always did: the probe test holds those)
    assert [u.line for u in scan.users] == [n for n, _ in stamps]
    assert [u.ts for u in scan.users if u.ts is None or u.ts.isascii()] == [
        ts for _, ts in stamps if ts is None or ts.isascii()]


def test_every_odd_line_alone() -> None:
    for kind in _KINDS:
        for data in (_buffer([kind], True), _buffer([kind, "user", kind], False)):
            assert facts(scan_range(data)) == facts(scan_by_probe(data)), kind
            types, malformed, _ = naive(data)
            scan = scan_range(data)
            assert (scan.line_types, scan.skipped_lines) == (types, malformed), kind


def test_a_range_of_the_buffer_counts_its_own_lines() -> None:
    data = _buffer(["user", "split", "garbage", "attachment", "crlf", "torn", "user"], True)
    cut = data.index(b"\n", len(data) // 2) + 1
    first = data.count(b"\n", 0, cut) + 1
    for lo, hi, number in ((0, cut, 1), (cut, len(data), first)):
        assert facts(scan_range(data, lo, hi, number)) == facts(
            scan_by_probe(data, lo, hi, number))


@settings(max_examples=60)
@given(st.lists(st.sampled_from(_KINDS), max_size=20), st.booleans(), st.data())
def test_a_mapped_buffer_and_any_range_count_as_bytes_do(tmp_path_factory, kinds: list[str],  # type: ignore[no-untyped-def]
                                                          trailing: bool, data: st.DataObject
                                                          ) -> None:
    """The lines come from the buffer's own line reader (``io.BytesIO`` over bytes, an
    mmap's ``readline``): the same facts for a mapped file, for a range starting at any
    line, and for a range whose end falls inside a line (that line ends there)."""
    import mmap

    raw = _buffer(kinds, trailing)
    if not raw:
        return
    path = tmp_path_factory.mktemp("m") / "t.jsonl"
    path.write_bytes(raw)
    starts = [0] + [i + 1 for i, c in enumerate(raw) if c == 0x0A and i + 1 < len(raw)]
    lo = data.draw(st.sampled_from(starts))
    hi = data.draw(st.integers(lo, len(raw)))
    first = raw.count(b"\n", 0, lo) + 1
    with path.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        for buf in (raw, mapped):
            assert facts(scan_range(buf)) == facts(scan_by_probe(raw))
            assert facts(scan_range(buf, lo, hi, first)) == facts(
                scan_by_probe(raw, lo, hi, first))


def test_only_user_lines_and_refused_lines_reach_the_byte_probe(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The parse is not silently bypassed (a parser still holding the last line's document
    refuses the next one, which the settler would then count exactly, and slowly)."""
    from pysift.engines import stats

    settled: list[int] = []
    make = stats._line_settler

    def counting(buf, out):  # type: ignore[no-untyped-def]
        settle, tally = make(buf, out)

        def wrapped(pos: int, end: int, line: int, validated: bool, ts: str | None) -> None:
            settled.append(line)
            settle(pos, end, line, validated, ts)

        return wrapped, tally

    monkeypatch.setattr(stats, "_line_settler", counting)
    kinds = ["user", "split", "attachment", "fhs", "queue", "progress", "assistant", "user",
             "garbage", "torn", "result"]
    data = _buffer(kinds, True)
    scan = scan_range(data)
    users = [u.line for u in scan.users]
    refused = [n for n, line in enumerate(data.split(b"\n"), 1)
               if line and decode(line, n) is None]
    assert len(refused) == 2
    assert settled == sorted(users + refused)
