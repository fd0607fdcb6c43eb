"""The image engine: payloads cut out by offset, rows in document order, repeats folded,
--id parsing and resolution."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from builders import (
    ClaudeHome,
    Session,
    assistant,
    image,
    image_url,
    text,
    tiny_png,
    tool_result,
    tool_use,
    user_blocks,
    user_with_images,
)
from pysift.core.resolve import resolve_scope
from pysift.engines import images as engine
from pysift.errors import UsageError
from pysift.model.env import Env

SID = "5e55e55e-0000-4000-8000-000000000001"
CWD = "/w/shots"


def big_png(seed: int) -> bytes:
    """A noisy PNG, large enough that its base64 is cut out of the line."""
    import io
    import random

    from PIL import Image

    im = Image.frombytes("RGB", (24, 16), random.Random(seed).randbytes(24 * 16 * 3))
    out = io.BytesIO()
    im.save(out, format="PNG")
    assert len(out.getvalue()) > engine.CUT_MIN_BYTES
    return out.getvalue()


def scan_home(home: ClaudeHome) -> list[engine.ImageRow]:
    scope = resolve_scope([], Env(claude_home=home.root))
    found = engine.run(scope.transcripts)
    assert all(f.error is None for f in found)
    return engine.chronological([f.rows for f in found])


# -- cutting payloads --------------------------------------------------------------------------


def test_a_long_data_value_is_cut_and_its_span_is_the_payload() -> None:
    payload = "A" * 300 + "=="
    line = json.dumps({"type": "user", "message": {"content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                     "data": payload}}]}}, separators=(",", ":")).encode()
    cut, spans = engine.cut_payloads(line, 0, len(line))
    assert len(spans) == 1 and line[spans[0][0]:spans[0][1]] == payload.encode()
    assert payload.encode() not in cut
    assert json.loads(cut)["message"]["content"][0]["source"]["media_type"] == "image/png"


def test_spaced_layout_short_values_and_escapes_are_handled() -> None:
    long_escaped = "ab\\/" * 100  # a writer that spells / as \/: left whole
    obj = {"data": "short", "x": {"data": "B" * 400}, "metadata": "C" * 400}
    raw = json.dumps(obj).replace('"x": {"data": "', '"x": {"data":  "').encode()
    raw = raw[:-1] + b', "y": {"data": "' + long_escaped.encode() + b'"}}'
    cut, spans = engine.cut_payloads(raw, 0, len(raw))
    assert [raw[a:b] for a, b in spans] == [b"B" * 400]  # only the plain long data value
    decoded = json.loads(cut)
    assert decoded["data"] == "short" and decoded["metadata"] == "C" * 400
    assert decoded["y"]["data"] == long_escaped.replace("\\/", "/")


def test_a_quoted_data_key_inside_a_string_is_not_a_key() -> None:
    obj = {"text": 'say "data": "' + "D" * 400 + '" please', "n": 1}
    raw = json.dumps(obj).encode()
    cut, spans = engine.cut_payloads(raw, 0, len(raw))
    assert spans == [] and json.loads(cut) == obj


@given(st.text(alphabet='ab"\\:{}, data', max_size=60), st.integers(0, 600))
def test_cutting_never_changes_what_is_not_cut(prefix: str, n: int) -> None:
    obj = {"s": prefix, "data": "Q" * n, "t": {"data": prefix}}
    raw = json.dumps(obj, separators=(",", ":")).encode()
    cut, spans = engine.cut_payloads(raw, 0, len(raw))
    decoded = json.loads(cut)
    assert decoded["s"] == prefix and decoded["t"] == {"data": prefix}
    if n >= engine.CUT_MIN_BYTES:
        assert [raw[a:b] for a, b in spans] == [b"Q" * n]
    else:
        assert decoded["data"] == "Q" * n


# -- rows --------------------------------------------------------------------------------------


@pytest.fixture
def shots(tmp_path: Path) -> ClaudeHome:
    home = ClaudeHome(tmp_path / "claude")
    s = Session(SID, cwd=CWD)
    s.add(user_with_images("[Image #1] the login page", image(big_png(1))))
    s.add(assistant("I see it"))
    s.add(user_with_images("[Image #1] is better, compare [Image #2]", image(big_png(2)),
                           image(big_png(3), "image/jpeg")))
    s.add(assistant(tool_use("Screenshot", {}, id="t1")))
    s.add(tool_result("t1", [text("captured"), image(tiny_png(2, 2))]))
    s.add(user_with_images("again [Image #2]", image(big_png(3), "image/jpeg")))
    s.add(user_blocks(image_url("https://example.test/a.png"), "and this one"))
    home.session(CWD, SID, s)
    return home


def test_rows_in_document_order_with_handles_locators_and_sizes(shots: ClaudeHome) -> None:
    rows = scan_home(shots)
    assert [(r.handle, r.id, r.nested) for r in rows] == [
        ("#1", "L1i1", False), ("#1", "L3i1", False), ("#2", "L3i2", False),
        ("L5i1", "L5i1", True), ("#2", "L6i1", False), ("L7i1", "L7i1", False)]
    assert [r.media_type for r in rows[:3]] == ["image/png", "image/png", "image/jpeg"]
    for row, png in zip(rows[:3], (big_png(1), big_png(2), big_png(3))):
        assert row.est_bytes == len(png)  # estimated from the base64 length alone
        assert row.b64_len == len(base64.b64encode(png))
        assert row.payload_span is not None  # cut: never decoded to list
    assert rows[3].payload_span is None and rows[3].est_bytes == len(tiny_png(2, 2))
    url = rows[5]
    assert (url.source_kind, url.url, url.b64_len, url.has_bytes) == (
        "url", "https://example.test/a.png", 0, False)
    assert rows[2].fingerprint == rows[4].fingerprint != rows[1].fingerprint


def test_fold_keeps_the_latest_copy_and_both_images_of_a_reused_handle(
        shots: ClaudeHome) -> None:
    rows = scan_home(shots)
    kept, folded = engine.fold_repeats(rows)
    assert folded == 1
    assert [r.id for r in kept] == ["L1i1", "L3i1", "L5i1", "L6i1", "L7i1"]
    assert [r.handle for r in kept if r.handle == "#1"] == ["#1", "#1"]  # two different #1


def test_payload_read_back_from_offsets_decodes_to_the_image(shots: ClaudeHome) -> None:
    rows = scan_home(shots)
    assert engine.decode_base64(engine.payload_text(rows[1])) == big_png(2)
    assert engine.decode_base64(engine.payload_text(rows[3])) == tiny_png(2, 2)
    with pytest.raises(engine.PayloadError, match="no inline bytes"):
        engine.payload_text(rows[5])


def test_decode_refuses_damaged_base64() -> None:
    good = base64.b64encode(tiny_png())
    assert engine.decode_base64(good[:20] + b"\n" + good[20:]) == tiny_png()
    for bad in (good[:-3], good[:10] + b"!" + good[11:], b"[trimmed for fixture]"):
        with pytest.raises(engine.PayloadError, match="does not decode"):
            engine.decode_base64(bad)


def test_a_torn_image_line_is_counted_malformed(tmp_path: Path) -> None:
    home = ClaudeHome(tmp_path / "claude")
    s = Session(SID, cwd=CWD)
    s.add(user_with_images("[Image #1] ok", image(big_png(1))))
    s.add(user_with_images("[Image #2] torn", image(big_png(2))))
    path = home.session(CWD, SID, s)
    data = path.read_bytes().rstrip(b"\n")
    path.write_bytes(data[:-200] + b"\n")
    scope = resolve_scope([], Env(claude_home=home.root))
    [found] = engine.run(scope.transcripts)
    assert [r.id for r in found.rows] == ["L1i1"] and found.skipped_lines == 1


def test_estimated_bytes() -> None:
    for payload in (b"", b"a", b"ab", b"abc", b"abcd", tiny_png()):
        text_ = base64.b64encode(payload)
        padding = len(text_) - len(text_.rstrip(b"="))
        assert engine.estimated_bytes(len(text_), padding) == len(payload)
    assert engine.estimated_bytes(2, 2) == 0


# -- ids ---------------------------------------------------------------------------------------


def test_parse_ids_forms() -> None:
    parsed = engine.parse_ids(["32,33", "L6812i2", " l7i1 ,", "6812i3"])
    assert [(p.seq, p.line, p.index) for p in parsed] == [
        (32, None, None), (33, None, None), (None, 6812, 2), (None, 7, 1), (None, 6812, 3)]


@pytest.mark.parametrize(("value", "message"), [
    ("#32", "drop the '#'"), ("L12", "neither a handle number"), ("x", "neither"),
    ("", "--id is empty"), (" , ", "--id is empty"), ("L0i1", "count from 1"),
    ("٣", "neither")])
def test_parse_ids_refusals(value: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        engine.parse_ids([value])


def test_resolve_by_handle_locator_ambiguity_and_miss(shots: ClaudeHome) -> None:
    rows = scan_home(shots)
    sel = engine.resolve_ids(engine.parse_ids(["2", "L5i1", "L3i2"]), rows)
    assert [r.id for r in sel.selected] == ["L6i1", "L5i1", "L3i2"]  # #2: its latest copy
    assert not sel.ambiguous and not sel.missing
    amb = engine.resolve_ids(engine.parse_ids(["1", "1"]), rows)
    assert len(amb.ambiguous) == 1
    assert [r.id for r in amb.ambiguous[0].occurrences] == ["L1i1", "L3i1"]
    miss = engine.resolve_ids(engine.parse_ids(["9", "L2i1"]), rows)
    assert miss.missing == ["#9", "L2i1"]
    message = engine.miss_message(miss.missing, rows, "the scope")
    assert "#9, L2i1" in message and "handles present: #1 #2" in message
    assert "2 unnumbered image(s)" in message


def test_miss_message_on_an_empty_scope() -> None:
    assert "carries no image at all" in engine.miss_message(["#1"], [], "the scope")


def test_excerpt_centres_on_the_marker(shots: ClaudeHome) -> None:
    rows = scan_home(shots)
    buf, _ = engine.turn_map_of(rows[1].transcript)
    excerpt = engine.excerpt_around(engine.record_of(buf, rows[1]), 1, radius=6)
    assert excerpt == "[Image #1] is be"


def test_transcripts_interleave_by_time_each_in_document_order(shots: ClaudeHome) -> None:
    from dataclasses import replace

    rows = scan_home(shots)[:4]
    other = replace(rows[0].transcript, path=rows[0].transcript.path.with_name("other.jsonl"))
    a = [replace(rows[0], ts_utc="2026-10-05T09:00:00Z"),
         replace(rows[1], ts_utc=None),  # undated: stays after its dated neighbour
         replace(rows[2], ts_utc="2026-10-05T08:00:00Z")]  # time runs back: order kept
    b = [replace(rows[3], transcript=other, ts_utc="2026-10-05T09:30:00Z"),
         replace(rows[3], transcript=other, ts_utc="2026-10-05T08:30:00Z", index=2)]
    merged = engine.chronological([a, b, []])
    assert [(r.transcript.path.name, r.id) for r in merged] == [
        (a[0].transcript.path.name, "L1i1"), (a[0].transcript.path.name, "L3i1"),
        (a[0].transcript.path.name, "L3i2"), ("other.jsonl", "L5i1"), ("other.jsonl", "L5i2")]
    assert engine.chronological([[replace(rows[0], ts_utc=None)], b])[-1].ts_utc is None
