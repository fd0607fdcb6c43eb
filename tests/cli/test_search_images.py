"""search hits show the image ids of their records (#N when Claude Code numbered the image,
else L<line>i<n>), on the record's first hit, and the id feeds ``pysift image --id``."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import (
    ClaudeHome,
    Session,
    assistant,
    image,
    text,
    tiny_png,
    tool_result,
    tool_use,
    user_blocks,
    user_with_images,
)

S1 = "5e55e55e-0000-4000-8000-0000000000a1"
CWD = "/w/search-images"


@pytest.fixture
def home(tmp_path: Path) -> ClaudeHome:
    h = ClaudeHome(tmp_path / "claude")
    s = Session(S1, cwd=CWD)
    s.add(user_with_images("[Image #4] the chart is clipped", image(tiny_png(3, 3))))  # L1
    s.add(assistant("the chart needs a margin"))  # L2
    s.add(assistant(tool_use("Screenshot", {}, id="t1")))  # L3
    s.add(tool_result("t1", [text("chart captured"), image(tiny_png(2, 2))]))  # L4
    s.add(user_blocks(image(tiny_png(5, 5)), "chart again, no marker"))  # L5
    h.session(CWD, S1, s)
    return h


def search(cli, home: ClaudeHome, *args: str):  # type: ignore[no-untyped-def]
    return cli("--claude-home", str(home.root), "search", *args)


def test_hits_carry_handles_or_locators(cli, home: ClaudeHome) -> None:
    result = search(cli, home, "chart", "--format", "json")
    assert result.code == 0, result.stderr
    ids = {h["line"]: h["image_ids"] for ex in result.json_rows("exchange") for h in ex["hits"]}
    assert ids == {1: ["#4"], 2: [], 4: ["L4i1"], 5: ["L5i1"]}


def test_text_suffix_hint_and_note(cli, home: ClaudeHome) -> None:
    result = search(cli, home, "chart")
    lines = result.stdout.splitlines()
    first = next(i for i, line in enumerate(lines) if "L1  " in line)
    assert lines[first].endswith("  [1 image(s): #4]")
    assert lines[first + 1] == (f"      ↳ read the image(s): pysift image @{S1} --no-subagents "
                                "--id 4 --out DIR  (decodes to a file you can Read)")
    assert result.stdout.count("↳ read the image(s)") == 1  # once per run
    assert any(line.endswith("[1 image(s): L4i1]") for line in lines)
    assert lines[-1].startswith("note: image annotations above are extractable")


def test_the_hinted_command_extracts_the_image(cli, home: ClaudeHome, tmp_path: Path) -> None:
    out = tmp_path / "imgs"
    result = cli("--claude-home", str(home.root), "image", f"@{S1}", "--no-subagents", "--id",
                 "4", "--out", str(out))
    assert result.code == 0, result.stderr
    assert (out / "5e55e55e-img4-L1i1.png").read_bytes() == tiny_png(3, 3)


def test_siblings_carry_their_records_ids(cli, home: ClaudeHome) -> None:
    result = search(cli, home, "margin", "--siblings", "--format", "json")
    [ex] = result.json_rows("exchange")
    assert [h["image_ids"] for h in ex["hits"]] == [[]]
    sibling_ids = {s["line"]: s["image_ids"] for s in ex["siblings"]}
    assert sibling_ids[1] == ["#4"]


def test_no_images_no_hint(cli, home: ClaudeHome) -> None:
    result = search(cli, home, "margin")
    assert "image" not in result.stdout


def test_a_records_ids_ride_its_first_hit_only(cli, tmp_path: Path) -> None:
    h = ClaudeHome(tmp_path / "c")
    s = Session(S1, cwd=CWD)
    s.add(user_blocks("take two shots"))
    s.add(assistant(tool_use("Shot", {}, id="ta"), tool_use("Shot", {}, id="tb")))
    shot = image(tiny_png(2, 2))
    s.add(user_blocks({"type": "tool_result", "tool_use_id": "ta", "content": [text("shot a"), shot]},
                      {"type": "tool_result", "tool_use_id": "tb", "content": [text("shot b"), shot]}))
    h.session(CWD, S1, s)
    result = search(cli, h, "shot [ab]", "--format", "json")
    hits = [hit for ex in result.json_rows("exchange") for hit in ex["hits"]]
    assert [(hit["line"], hit["image_ids"]) for hit in hits] == [(3, ["L3i1", "L3i2"]), (3, [])]
