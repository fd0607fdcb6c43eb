"""``pysift image`` through the real argv path: the listing, --id addressing, --out
extraction with conversion, and every refusal (one line, non-zero exit, nothing written)."""

from __future__ import annotations

import base64
import io
import random
from pathlib import Path

import pytest
from PIL import Image

from builders import (
    ClaudeHome,
    Session,
    assistant,
    attachment,
    image,
    image_url,
    text,
    tool_result,
    tool_use,
    user,
    user_blocks,
    user_with_images,
)

S1 = "5e55e55e-0000-4000-8000-000000000001"
S2 = "5e55e55e-0000-4000-8000-000000000002"
AGENT = "a1b2c3d4e5f60718"
CWD = "/w/shots"


def encoded(im: Image.Image, fmt: str, **save: object) -> bytes:
    out = io.BytesIO()
    im.save(out, format=fmt, **save)
    return out.getvalue()


def noise(seed: int, size: tuple[int, int] = (24, 16), mode: str = "RGB") -> Image.Image:
    bands = len(mode)
    return Image.frombytes(mode, size, random.Random(seed).randbytes(size[0] * size[1] * bands))


PNG1 = encoded(noise(1), "PNG")
PNG2 = encoded(noise(2, mode="RGBA"), "PNG")
JPEG3 = encoded(noise(3), "JPEG", quality=95)
SHOT = encoded(noise(4, (8, 6)), "PNG")
SUB_PNG = encoded(noise(5), "PNG")


def animated_gif() -> bytes:
    frames = [Image.new("RGB", (6, 4), colour) for colour in ((255, 0, 0), (0, 255, 0),
                                                              (0, 0, 255))]
    return encoded(frames[0], "GIF", save_all=True, append_images=frames[1:], duration=500,
                   loop=0)


def raw_image(data: bytes | str, media_type: str = "image/png") -> dict:
    payload = data if isinstance(data, str) else base64.b64encode(data).decode()
    return {"type": "image", "source": {"type": "base64", "media_type": media_type,
                                        "data": payload}}


@pytest.fixture
def home(tmp_path: Path) -> ClaudeHome:
    h = ClaudeHome(tmp_path / "claude")
    s = Session(S1, cwd=CWD)
    s.add(user_with_images("[Image #1] the login page is broken", image(PNG1)))  # L1 t0
    s.add(assistant("I see it"))
    s.add(user_with_images("[Image #1] is better, compare [Image #2]", image(PNG2),
                           image(JPEG3, "image/jpeg")))  # L3 t1
    s.add(assistant(tool_use("Screenshot", {}, id="t1")))
    s.add(tool_result("t1", [text("captured"), image(SHOT)]))  # L5, nested
    s.add(user_with_images("again [Image #2]", image(JPEG3, "image/jpeg")))  # L6 t2
    s.add(user_blocks(image_url("https://example.test/a.png"), "and this one"))  # L7 t3
    main = h.session(CWD, S1, s)
    h.subagent(main, AGENT, user_with_images("[Image #1] check this", image(SUB_PNG)))
    return h


def run(cli, home: ClaudeHome, *args: str):  # type: ignore[no-untyped-def]
    return cli("--claude-home", str(home.root), "image", *args)


# -- listing -----------------------------------------------------------------------------------


def test_help_has_examples_and_the_json_schema(cli) -> None:
    result = cli("image", "--help")
    assert result.code == 0
    for needle in ("EXAMPLES", "--id L6812i2 --out /tmp/shot.jpg", '"kind":"image"',
                   '"kind":"extract"', '"source_media_type"', "repeats_folded",
                   "WITHOUT the #", "--force"):
        assert needle in result.stdout, needle


def test_text_listing(cli, home: ClaudeHome) -> None:
    result = run(cli, home, f"@{S1}", "--no-subagents")
    assert result.code == 0, result.stderr
    kb = len(PNG1) // 1024
    assert result.stdout.splitlines() == [
        f"#1    L1i1  image/png ~{kb} KB  2026-10-05 20:00:00 AEDT(UTC+11)",
        f"#1    L3i1  image/png ~{len(PNG2) // 1024} KB  2026-10-05 20:00:10 AEDT(UTC+11)",
        f"L5i1  image/png ~{len(SHOT)} B  2026-10-05 20:00:20 AEDT(UTC+11)",
        f"#2    L6i1  image/jpeg ~{len(JPEG3) // 1024} KB  2026-10-05 20:00:25 AEDT(UTC+11)",
        "L7i1  url https://example.test/a.png  2026-10-05 20:00:30 AEDT(UTC+11)",
        "5 image(s) · 1 transcript(s) · 1 re-sent cop(ies) folded into their latest "
        "occurrence (--id reaches each)",
    ]
    assert result.stderr == ""


def test_spanning_listing_names_each_rows_transcript(cli, home: ClaudeHome) -> None:
    result = run(cli, home, f"@{S1}")
    lines = result.stdout.splitlines()
    assert lines[0].endswith(f"SESSION {S1}")
    assert any(line.startswith("#1    L1i1") and line.endswith(f"SUBAGENT {AGENT} · parent {S1}")
               for line in lines)
    assert lines[-1].startswith("6 image(s) · 2 transcript(s)")


def test_json_listing(cli, home: ClaudeHome) -> None:
    result = run(cli, home, f"@{S1}", "--no-subagents", "--format", "json")
    assert result.header() == {"kind": "header", "command": "image"}
    rows = result.json_rows("image")
    assert [r["id"] for r in rows] == ["L1i1", "L3i1", "L5i1", "L6i1", "L7i1"]
    first = rows[0]
    assert first == {
        "kind": "image", "handle": "#1", "seq": 1, "id": "L1i1", "line": 1, "img_index": 1,
        "session_id": S1, "is_subagent": False, "parent_session_id": S1,
        "source_kind": "base64", "media_type": "image/png",
        "b64_len": len(base64.b64encode(PNG1)), "est_bytes": len(PNG1), "url": None,
        "record_uuid": first["record_uuid"], "ts_utc": "2026-10-05T09:00:00.000Z",
        "ts_local": "2026-10-05T20:00:00+11:00"}
    assert (rows[2]["handle"], rows[2]["seq"]) == ("L5i1", None)
    assert (rows[4]["source_kind"], rows[4]["url"], rows[4]["b64_len"]) == (
        "url", "https://example.test/a.png", 0)
    assert result.summary() == {"kind": "summary", "images": 5, "transcripts": 1,
                                "skipped_lines": 0, "repeats_folded": 1, "unreadable": 0}


def test_a_marker_mismatch_is_said(cli, tmp_path: Path) -> None:
    h = ClaudeHome(tmp_path / "c")
    h.session(CWD, S2, user_with_images("[Image #4] vs [Image #5]", image(PNG1)))
    result = run(cli, h)
    assert result.stdout.startswith("L1i1  image/png")
    assert "no #N handle for the images of L1 of 5e55e55e (2 marker(s), 1 image(s))" \
        in result.stderr


def test_empty_listing(cli, tmp_path: Path) -> None:
    h = ClaudeHome(tmp_path / "c")
    h.session(CWD, S2, user("no pictures"))
    result = run(cli, h)
    assert (result.code, result.stdout) == (0, "no images found\n")


# -- addressing --------------------------------------------------------------------------------


def test_id_by_handle_and_locator(cli, home: ClaudeHome) -> None:
    result = run(cli, home, f"@{S1}", "--no-subagents", "--id", "2", "--id", "L5i1,L3i1",
                 "--format", "json")
    assert result.code == 0, result.stderr
    assert [r["id"] for r in result.json_rows("image")] == ["L6i1", "L5i1", "L3i1"]


def test_an_ambiguous_handle_lists_every_occurrence(cli, home: ClaudeHome) -> None:
    result = run(cli, home, f"@{S1}", "--no-subagents", "--id", "1")
    assert result.code == 1 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines[0].startswith("pysift: error: --id 1 is ambiguous: #1 names 2 different "
                               "images in this transcript")
    assert lines[1].startswith("  #1  L1i1  t0  2026-10-05 20:00:00 AEDT(UTC+11)  uuid ")
    assert lines[1].endswith('"…[Image #1] the login page is broken…"')
    assert lines[2].startswith("  #1  L3i1  t1  2026-10-05 20:00:10 AEDT(UTC+11)  uuid ")
    assert "[Image #1] is better, compare [Image #2]" in lines[2]


@pytest.mark.parametrize("narrow", [["--since", "2026-10-05T09:00:05Z"], ["--turn", "1.."],
                                    ["--until", "2026-10-05T09:00:02Z"]])
def test_narrowing_resolves_a_reused_handle(cli, home: ClaudeHome, narrow: list[str]) -> None:
    result = run(cli, home, f"@{S1}", "--no-subagents", "--id", "1", *narrow, "--format",
                 "json")
    assert result.code == 0, result.stderr
    [row] = result.json_rows("image")
    assert row["id"] == ("L1i1" if narrow[0] == "--until" else "L3i1")


def test_uuid_narrows(cli, home: ClaudeHome) -> None:
    listing = run(cli, home, f"@{S1}", "--no-subagents", "--format", "json")
    uuid = listing.json_rows("image")[1]["record_uuid"]
    result = run(cli, home, f"@{S1}", "--uuid", uuid[:10], "--format", "json")
    assert [r["id"] for r in result.json_rows("image")] == ["L3i1", "L3i2"]


def test_turn_window_lists_those_turns(cli, home: ClaudeHome) -> None:
    result = run(cli, home, f"@{S1}", "--no-subagents", "--turn", "1..2", "--format", "json")
    assert [r["id"] for r in result.json_rows("image")] == ["L3i1", "L5i1", "L6i1"]
    beyond = run(cli, home, f"@{S1}", "--no-subagents", "--turn", "9")
    assert beyond.code == 0 and "the transcript has 4 turn(s) (t0..t3); no t9" in beyond.stderr


@pytest.mark.parametrize(("args", "code", "message"), [
    (["--id", "#1"], 2, "drop the '#' and pass the bare number (`--id 1`)"),
    (["--id", "9"], 1, "--id matched no image: #9 (handles present: #1 #2; 2 unnumbered"),
    (["--id", "L2i1"], 1, "--id matched no image: L2i1"),
    (["--id", "nope"], 2, "neither a handle number"),
    (["--uuid", ""], 2, "--uuid is empty"),
    # a second value silently replaced the first (click keeps the last value)
    (["--uuid", "a", "--uuid", "b"], 2, "--uuid: given 2 times (a, b)"),
    (["--out", "/tmp/a", "--out", "/tmp/b.png"], 2, "--out: given 2 times"),
])
def test_address_refusals(cli, home: ClaudeHome, args: list[str], code: int,
                          message: str) -> None:
    result = run(cli, home, f"@{S1}", "--no-subagents", *args)
    assert (result.code, result.stdout) == (code, "")
    assert message in result.stderr
    assert len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize("flag", [["--id", "1"], ["--turn", "0"]])
def test_id_and_turn_need_one_transcript(cli, home: ClaudeHome, flag: list[str]) -> None:
    result = run(cli, home, f"@{S1}", *flag)
    assert result.code == 2
    assert "per transcript" in result.stderr and "2 transcripts in scope carry images" \
        in result.stderr


def test_a_subagent_is_addressed_by_its_own_id(cli, home: ClaudeHome) -> None:
    result = run(cli, home, f"@{AGENT}", "--id", "1", "--format", "json")
    assert result.code == 0, result.stderr
    [row] = result.json_rows("image")
    assert (row["session_id"], row["is_subagent"], row["parent_session_id"]) == (AGENT, True, S1)


# -- extraction --------------------------------------------------------------------------------


def test_extract_to_a_directory_writes_the_source_bytes(cli, home: ClaudeHome,
                                                        tmp_path: Path) -> None:
    out = tmp_path / "out" / "imgs"
    result = run(cli, home, f"@{S1}", "--no-subagents", "--out", str(out))
    assert result.code == 0, result.stderr
    names = sorted(p.name for p in out.iterdir())
    assert names == ["5e55e55e-L5i1.png", "5e55e55e-img1-L1i1.png", "5e55e55e-img1-L3i1.png",
                     "5e55e55e-img2-L6i1.jpg"]
    assert (out / "5e55e55e-img1-L1i1.png").read_bytes() == PNG1
    assert (out / "5e55e55e-img2-L6i1.jpg").read_bytes() == JPEG3
    assert (out / "5e55e55e-L5i1.png").read_bytes() == SHOT
    assert "L7i1 is a URL image (https://example.test/a.png); not extracted" in result.stderr
    assert result.stdout.splitlines()[-1] == (f"extracted 4 image(s) to {out} · 1 url image(s) "
                                              "skipped")
    assert f"wrote {out}/5e55e55e-img2-L6i1.jpg  (#2 image/jpeg, " in result.stdout


def test_extract_json_rows(cli, home: ClaudeHome, tmp_path: Path) -> None:
    result = run(cli, home, f"@{S1}", "--no-subagents", "--id", "L1i1", "--out",
                 str(tmp_path / "d"), "--format", "json")
    assert result.header() == {"kind": "header", "command": "image"}
    [row] = result.json_rows("extract")
    assert row == {"kind": "extract", "handle": "#1", "seq": 1, "id": "L1i1",
                   "path": str(tmp_path / "d" / "5e55e55e-img1-L1i1.png"), "bytes": len(PNG1),
                   "media_type": "image/png", "source_media_type": "image/png",
                   "converted": False, "notes": [], "session_id": S1, "is_subagent": False,
                   "parent_session_id": S1}
    assert result.summary() == {"kind": "summary", "extracted": 1, "url_skipped": 0,
                                "no_bytes_skipped": 0, "failed": 0,
                                "skipped_lines": 0, "unreadable": 0}


def _pixels(data: bytes) -> bytes:
    with Image.open(io.BytesIO(data)) as im:
        return im.convert("RGBA").tobytes()


@pytest.mark.parametrize(("name", "fmt", "note"), [
    ("shot.jpg", "JPEG", "lossy re-encode (jpeg quality 90)"),
    ("shot.JPEG", "JPEG", "lossy re-encode (jpeg quality 90)"),
    ("shot.webp", "WEBP", "lossy re-encode (webp quality 90)"),
    ("shot.gif", "GIF", "dithered to a 256-colour palette"),
])
def test_a_file_path_converts(cli, home: ClaudeHome, tmp_path: Path, name: str, fmt: str,
                              note: str) -> None:
    target = tmp_path / name
    result = run(cli, home, f"@{S1}", "--no-subagents", "--id", "L1i1", "--out", str(target))
    assert result.code == 0, result.stderr
    with Image.open(target) as im:
        assert (im.format, im.size) == (fmt, (24, 16))
        if fmt == "GIF":
            assert im.mode == "P" and len(im.getcolors(256) or []) <= 256
    assert note in result.stdout
    assert f"(#1 image/png→{Image.MIME[fmt]}" in result.stdout


def test_png_output_is_lossless(cli, home: ClaudeHome, tmp_path: Path) -> None:
    target = tmp_path / "photo.png"
    result = run(cli, home, f"@{S1}", "--no-subagents", "--id", "2", "--out", str(target),
                 "--format", "json")
    assert result.code == 0, result.stderr
    [row] = result.json_rows("extract")
    assert (row["converted"], row["media_type"], row["source_media_type"]) == (
        True, "image/png", "image/jpeg")
    assert _pixels(target.read_bytes()) == _pixels(JPEG3)


def test_the_same_format_writes_the_original_bytes(cli, home: ClaudeHome,
                                                   tmp_path: Path) -> None:
    target = tmp_path / "same.png"
    result = run(cli, home, f"@{S1}", "--no-subagents", "--id", "L3i1", "--out", str(target))
    assert result.code == 0 and target.read_bytes() == PNG2


def test_an_animated_gif_keeps_its_first_frame_with_a_warning(cli, tmp_path: Path) -> None:
    h = ClaudeHome(tmp_path / "c")
    gif = animated_gif()
    h.session(CWD, S2, user_with_images("[Image #1] spinner", image(gif, "image/gif")))
    still = tmp_path / "still.png"
    result = run(cli, h, "--id", "1", "--out", str(still))
    assert result.code == 0, result.stderr
    assert "animated GIF (3 frames, 1.5s) — extracted the first frame only" in result.stdout
    assert _pixels(still.read_bytes()) == bytes((255, 0, 0, 255)) * 24
    kept = tmp_path / "kept.gif"
    assert run(cli, h, "--id", "1", "--out", str(kept)).code == 0
    assert kept.read_bytes() == gif  # same format: unchanged, still animated


def test_an_existing_file_needs_force(cli, home: ClaudeHome, tmp_path: Path) -> None:
    target = tmp_path / "taken.png"
    target.write_bytes(b"mine")
    result = run(cli, home, f"@{S1}", "--no-subagents", "--id", "L1i1", "--out", str(target))
    assert result.code == 2 and "exists; pass --force" in result.stderr
    assert target.read_bytes() == b"mine"
    forced = run(cli, home, f"@{S1}", "--no-subagents", "--id", "L1i1", "--out", str(target),
                 "--force")
    assert forced.code == 0 and target.read_bytes() == PNG1


def test_a_taken_name_in_the_directory_stops_before_any_write(cli, home: ClaudeHome,
                                                              tmp_path: Path) -> None:
    out = tmp_path / "d"
    out.mkdir()
    (out / "5e55e55e-L5i1.png").write_bytes(b"mine")
    result = run(cli, home, f"@{S1}", "--no-subagents", "--out", str(out))
    assert result.code == 2 and "5e55e55e-L5i1.png exists" in result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["5e55e55e-L5i1.png"]


@pytest.mark.parametrize(("payload", "media", "reason"), [
    ("iVBORw0KGgo[trimmed]", "image/png", "does not decode"),
    (base64.b64encode(PNG1)[:-2].decode(), "image/png", "does not decode"),
    (base64.b64encode(b"this is no image at all").decode(), "image/png",
     "Pillow cannot read it"),
    (base64.b64encode(PNG1[: len(PNG1) // 2]).decode(), "image/png", "Pillow cannot"),
])
@pytest.mark.parametrize("target", ["file.png", "file.jpg", "dir"])
def test_a_damaged_image_is_said_and_nothing_is_written(cli, tmp_path: Path, payload: str,
                                                        media: str, reason: str,
                                                        target: str) -> None:
    h = ClaudeHome(tmp_path / "c")
    h.session(CWD, S2, user_with_images("[Image #1] broken", raw_image(payload, media)))
    out = tmp_path / "o"
    out.mkdir()
    result = run(cli, h, "--out", str(out / target))
    assert result.code == 1
    [line] = result.stderr.splitlines()
    assert line.startswith("pysift: error: L1i1 (") and reason in line
    assert "nothing written for it" in line
    assert [p.name for p in out.rglob("*") if p.is_file()] == []


def test_one_damaged_image_does_not_stop_the_others(cli, tmp_path: Path) -> None:
    h = ClaudeHome(tmp_path / "c")
    h.session(CWD, S2, user_with_images("[Image #1] [Image #2]", raw_image("!!!!"),
                                        image(PNG1)))
    out = tmp_path / "o"
    result = run(cli, h, "--out", str(out))
    assert result.code == 1 and "L1i1" in result.stderr
    assert [p.name for p in out.iterdir()] == ["5e55e55e-img2-L1i2.png"]
    assert "extracted 1 image(s)" in result.stdout
    assert "1 image(s) not written (the errors above say why)" in result.stdout
    counted = run(cli, h, "--out", str(tmp_path / "again"), "--format", "json")
    assert counted.code == 1
    assert (counted.summary()["extracted"], counted.summary()["failed"]) == (1, 1)


def test_pillows_reason_names_no_in_memory_object(cli, tmp_path: Path) -> None:
    h = ClaudeHome(tmp_path / "c")
    h.session(CWD, S2, user_with_images("[Image #1] x", raw_image(
        base64.b64encode(b"this is no image at all").decode(), "image/png")))
    result = run(cli, h, "--out", str(tmp_path / "o"))
    assert "cannot identify image file)" in result.stderr
    assert "object at 0x" not in result.stderr


def test_the_declared_media_type_is_checked_against_the_bytes(cli, tmp_path: Path) -> None:
    h = ClaudeHome(tmp_path / "c")
    h.session(CWD, S2, user_with_images("[Image #1] x", image(JPEG3, "image/png")))
    result = run(cli, h, "--out", str(tmp_path / "o"))
    assert result.code == 0
    assert "the record says image/png but the bytes are JPEG" in result.stdout
    assert "(#1 image/jpeg, " in result.stdout  # written unchanged: no conversion arrow


def test_a_mislabelled_image_is_reported_as_the_bytes_written(cli, tmp_path: Path) -> None:
    h = ClaudeHome(tmp_path / "c")
    h.session(CWD, S2, user_with_images("[Image #1] x", image(JPEG3, "image/png")))
    kept = run(cli, h, "--out", str(tmp_path / "o"), "--format", "json").json_rows()[1]
    assert (kept["media_type"], kept["source_media_type"], kept["converted"]) == (
        "image/jpeg", "image/png", False)
    assert kept["path"].endswith(".png")  # the file name follows the record (csift)
    made = run(cli, h, "--out", str(tmp_path / "a.png"))
    assert "(#1 image/jpeg→image/png, " in made.stdout  # converted from what the bytes are
    same = run(cli, h, "--out", str(tmp_path / "b.jpg"), "--format", "json").json_rows()[1]
    assert (same["media_type"], same["converted"]) == ("image/jpeg", False)
    assert (tmp_path / "b.jpg").read_bytes() == JPEG3


@pytest.mark.parametrize(("out", "extra", "message"), [
    ("shot.bmp", [], ".bmp is not an image format pysift writes"),
    ("two.png", [], "names one file, but 5 images are selected"),
    ("", [], "--out is empty"),
])
def test_out_refusals(cli, home: ClaudeHome, tmp_path: Path, out: str, extra: list[str],
                      message: str) -> None:
    target = str(tmp_path / out) if out else ""
    result = run(cli, home, f"@{S1}", "--no-subagents", "--out", target, *extra)
    assert result.code == 2 and message in result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert not out or not (tmp_path / out).exists()


def test_never_writes_under_the_claude_home(cli, home: ClaudeHome) -> None:
    result = run(cli, home, f"@{S1}", "--no-subagents", "--out", str(home.root / "x"))
    assert result.code == 2 and "never writes to" in result.stderr
    assert not (home.root / "x").exists()


def test_a_url_image_to_a_file_is_an_error(cli, home: ClaudeHome, tmp_path: Path) -> None:
    result = run(cli, home, f"@{S1}", "--no-subagents", "--id", "L7i1", "--out",
                 str(tmp_path / "u.png"))
    assert result.code == 1 and "no inline bytes" in result.stderr
    assert not (tmp_path / "u.png").exists()


def test_a_source_without_bytes_is_listed_and_never_written(cli, tmp_path: Path) -> None:
    h = ClaudeHome(tmp_path / "c")
    hollow = {"type": "image", "source": {"type": "base64", "media_type": "image/png"}}
    h.session(CWD, S2, user_with_images("[Image #1] [Image #2]", hollow, image(PNG1)))
    listing = run(cli, h)
    assert listing.stdout.splitlines()[0].startswith(
        "#1    L1i1  image/png (base64: no inline bytes)  ")
    out = tmp_path / "o"
    result = run(cli, h, "--out", str(out))
    assert result.code == 0
    assert "L1i1 is a base64 image with no inline bytes; not extracted" in result.stderr
    assert [p.name for p in out.iterdir()] == ["5e55e55e-img2-L1i2.png"]
    assert "extracted 1 image(s) to " in result.stdout
    assert result.stdout.rstrip().endswith("· 1 image(s) without inline bytes skipped")
    counted = run(cli, h, "--out", str(tmp_path / "o2"), "--format", "json")
    assert counted.json_rows()[-1]["no_bytes_skipped"] == 1
    one = run(cli, h, "--id", "1", "--out", str(tmp_path / "one.png"))
    assert one.code == 1
    assert one.stderr.splitlines() == [
        f"pysift: error: L1i1 is a base64 image with no inline bytes; nothing to write to "
        f"{tmp_path / 'one.png'}"]


def test_a_trailing_slash_names_a_directory(cli, home: ClaudeHome, tmp_path: Path) -> None:
    # `--out shots.v2/` is a directory whatever its name holds; it was refused as an
    # unknown extension `.v2/`
    out = tmp_path / "shots.v2"
    result = run(cli, home, f"@{S1}", "--no-subagents", "--id", "L1i1", "--out", f"{out}/")
    assert result.code == 0, result.stderr
    assert [p.name for p in out.iterdir()] == ["5e55e55e-img1-L1i1.png"]
    (tmp_path / "plain").write_bytes(b"mine")
    taken = run(cli, home, f"@{S1}", "--no-subagents", "--out", f"{tmp_path / 'plain'}/")
    assert taken.code == 2 and "exists and is not a directory" in taken.stderr


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_transcripts_sharing_a_short_id_get_a_file_each(cli, tmp_path: Path,
                                                        force: list[str]) -> None:
    # S1 and S2 agree on their first 8 characters, and each carries an image at L1i1: both
    # were named 5e55e55e-img1-L1i1.png, so the second failed ("appeared meanwhile", exit 1)
    # or, under --force, silently replaced the first while the footer said 2 were written
    h = ClaudeHome(tmp_path / "c")
    h.session(CWD, S1, user_with_images("[Image #1] one", image(PNG1)))
    h.session(CWD, S2, user_with_images("[Image #1] two", image(SHOT)))
    out = tmp_path / "o"
    result = run(cli, h, "--out", str(out), *force)
    assert result.code == 0, result.stderr
    assert (out / f"{S1}-img1-L1i1.png").read_bytes() == PNG1
    assert (out / f"{S2}-img1-L1i1.png").read_bytes() == SHOT
    assert len(list(out.iterdir())) == 2


def test_out_expands_a_quoted_tilde_as_the_shell_would(cli, home: ClaudeHome, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """``--out '~/shots'`` (or ``--out=~/shots``: the shell leaves both alone) writes under
    the user's home, never into a directory named ``~`` of the current one."""
    me, here = tmp_path / "me", tmp_path / "here"
    me.mkdir()
    here.mkdir()
    monkeypatch.setenv("HOME", str(me))
    monkeypatch.chdir(here)
    result = run(cli, home, f"@{S1}", "--no-subagents", "--id", "L1i1", "--out=~/shots/a.png")
    assert result.code == 0, result.stderr
    assert (me / "shots" / "a.png").read_bytes() == PNG1
    assert not (here / "~").exists()


# -- a prompt typed while the agent worked (a queued_command attachment) -----------------------


def _queued(words: str, *images: dict) -> dict:
    """A prompt typed while the agent worked and folded into the running turn, as Claude
    Code writes it: a ``queued_command`` attachment whose ``prompt`` is the block list (no
    user record carries it)."""
    return attachment("queued_command", {"prompt": [text(words), *images],
                                         "commandMode": "prompt"})


def _queued_home(tmp_path: Path, *later: dict) -> ClaudeHome:
    h = ClaudeHome(tmp_path / "c")
    s = Session(S2, cwd=CWD)
    s.add(user("fix the login page"))  # L1
    s.add(assistant(tool_use("Bash", {"command": "ls"}, id="b1")))  # L2
    s.add(_queued("[Image #1] it looks like this now", image(PNG1)))  # L3
    s.add(tool_result("b1", "a.txt"))  # L4
    s.add(assistant("I see the screenshot"))  # L5
    for record in later:
        s.add(record)
    h.session(CWD, S2, s)
    return h


def test_an_image_pasted_while_the_agent_worked_is_listed(cli, tmp_path: Path) -> None:
    # the image rides only the queued_command attachment: the listing said "no images
    # found", a silent omission of an image the model was shown
    h = _queued_home(tmp_path)
    result = run(cli, h, "--format", "json")
    assert result.code == 0, result.stderr
    [row] = result.json_rows("image")
    assert (row["handle"], row["seq"], row["id"], row["line"], row["img_index"]) == (
        "#1", 1, "L3i1", 3, 1)
    assert (row["source_kind"], row["media_type"], row["est_bytes"]) == (
        "base64", "image/png", len(PNG1))
    assert row["ts_utc"] == "2026-10-05T09:00:10.000Z"
    text_out = run(cli, h)
    assert text_out.stdout.splitlines()[0].startswith("#1    L3i1  image/png ~")


def test_an_image_pasted_while_the_agent_worked_is_extracted(cli, tmp_path: Path) -> None:
    h = _queued_home(tmp_path)
    out = tmp_path / "o"
    result = run(cli, h, "--id", "1", "--out", str(out))
    assert result.code == 0, result.stderr
    assert (out / "5e55e55e-img1-L3i1.png").read_bytes() == PNG1
    converted = run(cli, h, "--id", "L3i1", "--out", str(tmp_path / "shot.jpg"))
    assert converted.code == 0, converted.stderr
    with Image.open(tmp_path / "shot.jpg") as im:
        assert (im.format, im.size) == ("JPEG", (24, 16))


def test_a_queued_image_sent_again_later_is_listed_once(cli, tmp_path: Path) -> None:
    # the fold rule as for any re-sent image: one row, at the latest occurrence; the
    # attachment's occurrence is still reached by its locator
    h = _queued_home(tmp_path, user_with_images("[Image #1] again", image(PNG1)))  # L6
    result = run(cli, h, "--format", "json")
    assert [r["id"] for r in result.json_rows("image")] == ["L6i1"]
    assert result.summary()["repeats_folded"] == 1
    extracted = run(cli, h, "--id", "L3i1", "--out", str(tmp_path / "o"))
    assert extracted.code == 0, extracted.stderr
    assert (tmp_path / "o" / "5e55e55e-img1-L3i1.png").read_bytes() == PNG1


def test_a_reused_handle_names_the_queued_prompts_words(cli, tmp_path: Path) -> None:
    h = _queued_home(tmp_path, user_with_images("[Image #1] another one", image(SHOT)))
    result = run(cli, h, "--id", "1")
    assert result.code == 1
    lines = result.stderr.splitlines()
    assert lines[1].startswith("  #1  L3i1  t0  ")
    assert lines[1].endswith('"…[Image #1] it looks like this now…"')
