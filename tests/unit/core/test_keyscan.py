"""The one-pass key scan gives the lines and carrier verdicts of the find-based walk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pysift.core import decode
from pysift.core.keyscan import proved_user_lines, user_lines
from pysift.core.rawjson import iter_key_lines, layouts, type_needles
from pysift.core.turns import is_plain_carrier
from unit.core.test_turns import carrier_blocks, carrier_of, compact, human, result_block, spaced


def find_walk(buf: bytes, lo: int = 0, hi: int | None = None) -> list[tuple[int, int, bool]]:
    """The reference: the ``find`` loops on the file's user key, ``is_plain_carrier``."""
    found = layouts(buf)
    users, results = type_needles(buf, "user", found), type_needles(buf, "tool_result", found)
    return [(s, e, is_plain_carrier(buf, s, e, users, results))
            for s, e in iter_key_lines(buf, users, lo, hi, search=buf.find)]


def agree(buf: bytes) -> int:
    got = list(user_lines(buf))
    assert got == find_walk(buf)
    assert list(user_lines(buf, carriers=False)) == [line for line in got if not line[2]]
    assert walked_behind_the_proof(buf) == (got, decode.unframed_lines(buf))
    return len(got)


def walked_behind_the_proof(buf: bytes, lo: int = 0, span: int | None = None
                            ) -> tuple[list[tuple[int, int, bool]], list[int]]:
    """``proved_user_lines`` with spans of ``span`` bytes (small ones cut the lines of a
    small buffer into many spans), and the unframed lines it collected; each span size
    must give the same answer."""
    answers = set()
    for size in ((span,) if span is not None else (1, 97, 4096, 1 << 20)):
        unframed: list[int] = []
        with patch.object(decode, "_PROOF_MIN_BYTES", 0), \
                patch.object(decode, "_PROOF_SPAN", size):
            lines = list(proved_user_lines(buf, None, lo, unframed))
        answers.add((tuple(lines), tuple(unframed)))
    assert len(answers) == 1
    lines, unframed = answers.pop()
    return list(lines), list(unframed)


def _transcripts(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.jsonl"))


def test_the_scan_agrees_with_the_find_walk_on_the_demo_home(demo_home) -> None:  # type: ignore[no-untyped-def]
    lines = sum(agree(p.read_bytes()) for p in _transcripts(demo_home / "projects"))
    assert lines >= 150  # the demo home's user lines: a sweep over nothing must not pass


@pytest.mark.real
def test_the_scan_agrees_with_the_find_walk_on_the_real_corpus(real_home) -> None:  # type: ignore[no-untyped-def]
    lines = sum(agree(p.read_bytes()) for p in _transcripts(real_home / "projects"))
    assert lines >= 3_900


def key_confusion_rows() -> list[dict[str, Any]]:
    """Records whose keys a byte walk could take for a user record's or a carrier's: a
    ``subtype`` of "user", a nested user object, an assistant's tool_result block, a
    progress record wrapping a carrier, a rejection in a carrier's second block, a prompt
    quoting both keys in prose (5 user lines; the plain carriers are t3+t4 and t5)."""
    return [
        {"type": "system", "subtype": "user", "content": "x"},
        {"message": {"role": "user", "content": [result_block("t1", "o")]}, "type": "user"},
        {"type": "assistant", "message": {"content": [result_block("s1", "page")]}},
        {"type": "progress", "data": {"message": carrier_of(result_block("t2", "o"))}},
        carrier_of(result_block("t3", "o"), result_block("t4", "want to proceed? no")),
        human("u1", None, 'says "type":"user" and "type":"tool_result" in prose'),
        carrier_of(result_block("t5", "fine")),
    ]


def test_subtype_and_nested_keys_are_told_apart() -> None:
    """`"subtype":"user"` is no type key; a nested user object's key is one (the verdict
    then says whether it is the record's own); keys before the user key on its line
    belong to it; an assistant line's tool_result key belongs to no user line."""
    rows = key_confusion_rows()
    for serialize in (compact, spaced):
        buf = serialize(rows)
        assert agree(buf) == 5
        assert [c for _, _, c in user_lines(buf)] == [False, False, False, False, True]


def test_a_range_scan_and_a_torn_last_line() -> None:
    rows = [human("u1", None, "a"), carrier_of(result_block("t1", "o")), human("u2", "a", "b")]
    buf = compact(rows) + compact([carrier_of(result_block("t2", "o"))])[:60]
    assert agree(buf) == 4
    mid = buf.index(b"\n") + 1
    end = buf.index(b"\n", mid) + 1
    assert list(user_lines(buf, None, mid, end)) == find_walk(buf, mid, end)
    assert list(user_lines(buf, None, end)) == find_walk(buf, end)


def test_a_file_in_both_layouts() -> None:
    rows = [human("u1", None, "a"), carrier_of(result_block("t1", "o"))]
    buf = compact(rows) + spaced(rows) + compact(rows) + spaced(rows)
    assert layouts(buf) == (False, True)  # read off the first and the last record
    assert agree(buf) == 8
    assert agree(compact(rows) + spaced(rows) + compact(rows)) == 4  # one layout: the walk


_noise = st.sampled_from(['"type":"user"', '"subtype":"user"', 'ype":"tool_result"',
                          '"type": "tool_result"', "answer", "\\n", "{", "[", "y"])


@st.composite
def rows(draw) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    out: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["human", "carrier", "assistant", "progress", "late"]))
        blocks = draw(st.lists(carrier_blocks(), min_size=1, max_size=3))
        text = "".join(draw(st.lists(_noise, max_size=4)))
        if kind == "human":
            out.append(human("u", None, text or "hi"))
        elif kind == "carrier":
            out.append({**carrier_of(*blocks), "cwd": text})
        elif kind == "assistant":
            out.append({"type": "assistant", "message": {"content": [
                {"type": "tool_use", "id": "t", "name": "X", "input": carrier_of(*blocks)},
                *blocks]}})
        elif kind == "progress":
            out.append({"type": "progress", "data": {"message": carrier_of(*blocks)}})
        else:
            out.append(dict(sorted({"cwd": text, **carrier_of(*blocks)}.items())))
    return out


@settings(max_examples=150, deadline=None)
@given(rows(), st.sampled_from([compact, spaced, "mixed"]), st.integers(0, 40))
def test_prop_the_scan_is_the_find_walk(records, serialize, cut) -> None:  # type: ignore[no-untyped-def]
    if serialize == "mixed":
        buf = b"".join((compact if i % 2 else spaced)([r]) for i, r in enumerate(records))
    else:
        buf = serialize(records)
    buf = buf[:len(buf) - cut] if cut < len(buf) else buf  # a torn last line
    agree(buf)


def test_a_key_after_an_open_bracket_is_not_the_records_own() -> None:
    """Junk that opens an array (no object) before the user key: not a top-level key, so
    not a plain carrier (the line is decoded, and counted if malformed), as the find walk
    says; a line whose brace comes after a stray byte is read from that brace."""
    block = b'"content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]'
    for line, carrier in ((b'{"a":["type":"user",' + block + b'}', False),
                          (b'{["type":"user",' + block + b'}', False),
                          (b'x{"type":"user",' + block + b'}', True),
                          (b'{"type":"user",' + block + b'}', True)):
        buf = line + b"\n" + line + b"\n"
        assert agree(buf) == 2
        assert [found for _, _, found in user_lines(buf)] == [carrier] * 2, line


def test_no_stray_type_key_in_json_text() -> None:
    """A quote inside a JSON string is escaped: prose can never spell a raw key."""
    line = json.dumps(human("u1", None, '"type":"user"'), separators=(",", ":")).encode()
    assert line.count(b'"type":"user"') == 1


_soup = st.sampled_from([b"{", b"}", b"[", b'"type":"user"', b'"type": "user"',
                         b'"type":"tool_result"', b'"type": "tool_result"', b'"content":[',
                         b'"content": [', b"answer", b"want to proceed", b"\n", b'"', b"x",
                         b'"subtype":"user"', b'":"'])


@settings(max_examples=300, deadline=None)
@given(st.lists(_soup, max_size=40), st.data())
def test_prop_torn_and_junk_bytes_walk_as_the_find_walk(parts, data) -> None:  # type: ignore[no-untyped-def]
    """Junk lines (a torn write, keys glued to each other, a key with no object around
    it) give the same lines and verdicts too, over the whole buffer and between any two
    line boundaries."""
    buf = b"".join(parts)
    agree(buf)
    bounds = [0, *(i + 1 for i, byte in enumerate(buf) if byte == 0x0A), len(buf)]
    lo, hi = sorted((data.draw(st.sampled_from(bounds)), data.draw(st.sampled_from(bounds))))
    assert list(user_lines(buf, None, lo, hi)) == find_walk(buf, lo, hi)
    assert walked_behind_the_proof(buf, lo) == (find_walk(buf, lo),
                                                decode.unframed_lines(buf, lo))
