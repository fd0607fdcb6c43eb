"""``pysift image`` over the real corpus (../shared/corpus/real, skipped when absent):
every image block the transcripts hold, read here independently with the stdlib, is
listed (or folded into a later identical copy in the same transcript), addressable by
its locator, and extracts to a file Pillow opens as the image the block holds."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pytest
from PIL import Image

pytestmark = pytest.mark.real


def blocks_of(home: Path) -> list[dict]:
    """Every image block under ``home``'s projects, found without pysift."""
    found = []
    for path in sorted((home / "projects").rglob("*.jsonl")):
        if path.name == "journal.jsonl":
            continue
        for number, line in enumerate(path.read_bytes().split(b"\n"), start=1):
            if b'"image"' not in line:
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            content = (rec.get("message") or {}).get("content") if isinstance(rec, dict) else None
            body = rec.get("attachment") if isinstance(rec, dict) else None
            if (content is None and isinstance(body, dict)
                    and body.get("type") == "queued_command"):
                content = body.get("prompt")  # a prompt typed while the agent worked
            if not isinstance(content, list):
                continue
            index = 0
            for block in content:
                if not isinstance(block, dict):
                    continue
                items = [(block, False)] if block.get("type") == "image" else [
                    (item, True) for item in (block.get("content") or [])
                    if block.get("type") == "tool_result" and isinstance(item, dict)
                    and item.get("type") == "image"] if isinstance(block.get("content"), list) \
                    else []
                for item, nested in items:
                    index += 1
                    found.append({"path": path, "session": rec.get("sessionId"),
                                  "id": f"L{number}i{index}", "nested": nested,
                                  "queued": isinstance(body, dict) and content is body.get("prompt"),
                                  "data": item["source"].get("data")})
    return found


@pytest.fixture
def homes(real_home: Path) -> list[Path]:
    return [real_home, real_home / "tier2"]


def test_the_corpus_holds_what_the_issue_says(homes: list[Path]) -> None:
    blocks = [b for home in homes for b in blocks_of(home)]
    assert len({b["path"] for b in blocks}) == 11
    assert (sum(not b["nested"] for b in blocks), sum(b["nested"] for b in blocks)) == (14, 2)
    # one rides a queued_command attachment (pasted while the agent worked), sent again
    # four lines on as a user record (tier 2)
    assert sum(b["queued"] for b in blocks) == 1


def test_every_image_is_listed_addressable_and_extracts_as_itself(
        cli, homes: list[Path], tmp_path: Path) -> None:
    for n, home in enumerate(homes):
        blocks = blocks_of(home)
        listing = cli("--claude-home", str(home), "image", "--format", "json")
        assert listing.code == 0, listing.stderr
        rows = listing.json_rows("image")
        listed = {(r["session_id"], r["id"]) for r in rows}
        by_stem = {b["path"].stem: b for b in blocks}
        for block in blocks:
            stem = block["path"].stem
            key = (stem, block["id"])
            if key in listed:
                continue  # else folded: an identical, later copy in the same transcript is
            later = [b for b in blocks if b["path"] == block["path"] and b is not block
                     and b["data"] == block["data"] and (stem, b["id"]) in listed]
            assert later, f"{key} neither listed nor folded into a listed copy"
            assert int(later[0]["id"][1:].split("i")[0]) > int(block["id"][1:].split("i")[0])
        assert listing.summary()["images"] + listing.summary()["repeats_folded"] == len(blocks)
        assert by_stem  # the homes hold images at all

        for block in blocks:  # every occurrence, folded or not, by its exact locator
            target = str(block["path"])
            one = cli("--claude-home", str(home), "image", target, "--id", block["id"],
                      "--format", "json")
            assert one.code == 0, one.stderr
            assert [r["id"] for r in one.json_rows("image")] == [block["id"]]

        out = tmp_path / f"all-{n}"
        extracted = cli("--claude-home", str(home), "image", "--out", str(out), "--format",
                        "json")
        written = {(r["session_id"], r["id"]): Path(r["path"])
                   for r in extracted.json_rows("extract")}
        for block in blocks:
            key = (block["path"].stem, block["id"])
            if key not in listed:
                continue
            try:
                source = base64.b64decode(block["data"], validate=True)
                with Image.open(io.BytesIO(source)) as im:
                    im.load()
                    expected = im.convert("RGBA").tobytes()
            except Exception:  # noqa: BLE001 - a damaged block: said, nothing written
                assert key not in written
                assert f"error: {block['id']} (" in extracted.stderr
                assert extracted.code == 1
                continue
            path = written[key]
            assert path.read_bytes() == source
            with Image.open(path) as im:
                assert im.convert("RGBA").tobytes() == expected


@pytest.mark.parametrize("ext", ["jpg", "webp", "gif", "png"])
def test_a_real_screenshot_converts(cli, real_home: Path, tmp_path: Path, ext: str) -> None:
    session = "762cc180-ae9a-436f-9b2e-d6e7763bbb47"
    target = tmp_path / f"shot.{ext}"
    result = cli("--claude-home", str(real_home), "image", f"@{session}", "--no-subagents",
                 "--id", "3", "--out", str(target))
    assert result.code == 0, result.stderr
    with Image.open(target) as im:
        im.load()
        assert im.size == (1113, 626)
