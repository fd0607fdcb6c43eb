"""A record's images and their ids: the #N handle zipped from [Image #N] markers, the
L<line>i<n> locator over direct and tool-result images."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from builders import (
    assistant,
    attachment,
    image,
    image_url,
    text,
    tiny_png,
    tool_result,
    tool_use,
    user,
    user_blocks,
    user_with_images,
)
from pysift.core.image_handles import (
    handle,
    image_ids,
    locator,
    parse_markers,
    record_images,
)
from pysift.model.record import Record


def rec(body: dict, line: int | None = 7) -> Record:
    return Record(body, line)


def test_markers_pair_with_images_in_order() -> None:
    r = rec(user_with_images("compare [Image #2] with [Image #3]",
                             image(tiny_png(2, 2)), image(tiny_png(3, 3), "image/jpeg")))
    found = record_images(r)
    assert [(i.index, i.seq, i.nested) for i in found.images] == [(1, 2, False), (2, 3, False)]
    assert found.numbered and not found.mismatch
    assert found.images[1].source is not None
    assert found.images[1].source["media_type"] == "image/jpeg"  # read, never assumed
    assert image_ids(r, 7) == ["#2", "#3"]


def test_a_count_mismatch_assigns_no_handle() -> None:
    r = rec(user_with_images("only [Image #9] is named", image(), image(tiny_png(5, 5))))
    found = record_images(r)
    assert [i.seq for i in found.images] == [None, None]
    assert found.mismatch and not found.numbered
    assert image_ids(r, 41) == ["L41i1", "L41i2"]


def test_more_markers_than_images_is_a_mismatch_too() -> None:
    r = rec(user_with_images("[Image #1] and [Image #2]", image()))
    assert record_images(r).mismatch
    assert image_ids(r, 3) == ["L3i1"]


def test_an_image_without_markers_is_unnumbered_not_a_mismatch() -> None:
    r = rec(user_blocks(image(), "what is wrong here?"))
    found = record_images(r)
    assert not found.mismatch and not found.numbered
    assert image_ids(r, 12) == ["L12i1"]


def test_markers_read_across_text_blocks_in_order() -> None:
    r = rec(user_blocks("first [Image #4]", image(), image(tiny_png(2, 2)), "then [Image #5]"))
    assert [i.seq for i in record_images(r).images] == [4, 5]


def test_images_nested_in_a_tool_result_are_counted_in_document_order() -> None:
    shot = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                        "data": "aGk="}}
    body = tool_result("t1", [text("took a screenshot"), shot, shot])
    r = rec(body, 90)
    found = record_images(r)
    assert [(i.index, i.nested, i.block_index) for i in found.images] == [(1, True, 0),
                                                                          (2, True, 0)]
    assert image_ids(r, 90) == ["L90i1", "L90i2"]


def test_direct_and_nested_images_share_one_ordinal() -> None:
    shot = image(tiny_png(6, 6))
    body = user_blocks(image(), {"type": "tool_result", "tool_use_id": "t1",
                                 "content": [shot]}, image(tiny_png(2, 2)))
    found = record_images(rec(body))
    assert [(i.index, i.nested, i.block_index) for i in found.images] == [
        (1, False, 0), (2, True, 1), (3, False, 2)]


def test_a_marker_inside_a_tool_result_is_not_a_prompt_marker() -> None:
    body = tool_result("t1", [text("the page shows [Image #1]"), image()])
    assert image_ids(rec(body, 5), 5) == ["L5i1"]


def test_a_record_without_a_line_gives_only_its_handles() -> None:
    numbered = rec(user_with_images("[Image #1]", image()), None)
    assert image_ids(numbered, None) == ["#1"]
    unnumbered = rec(user_blocks(image()), None)
    assert image_ids(unnumbered, None) == []


def test_records_without_images() -> None:
    assert image_ids(rec(user("just text [Image #1]")), 1) == []
    assert record_images(rec(user("x"))).images == ()
    assert image_ids(rec(assistant(tool_use("Read", {"file_path": "a"}))), 2) == []


def test_odd_blocks_never_raise() -> None:
    body = user_blocks("[Image #1]")
    body["message"]["content"] += [{"type": "image"}, {"type": "image", "source": "x"}, 7,
                                   {"type": "tool_result", "content": "str"},
                                   {"type": "tool_result", "content": [1, {"type": "image"}]}]
    found = record_images(rec(body))
    assert [(i.index, i.source) for i in found.images] == [(1, None), (2, None), (3, None)]
    assert found.mismatch


def test_url_images_are_images_too() -> None:
    r = rec(user_with_images("[Image #1]", image_url("https://example.test/a.png")))
    found = record_images(r)
    assert found.images[0].seq == 1
    assert found.images[0].source == {"type": "url", "url": "https://example.test/a.png"}


def test_marker_grammar() -> None:
    assert parse_markers("[Image #1] [Image #22][Image #0]") == [1, 22, 0]
    assert parse_markers("[Image #] [Image 3] [image #4] [Image #5 ] [Image #x]") == []
    assert locator(6812, 2) == "L6812i2"
    assert handle(32) == "#32"


@given(n_images=st.integers(0, 5), markers=st.lists(st.integers(1, 40), max_size=6),
       text_first=st.booleans())
def test_zip_rule(n_images: int, markers: list[int], text_first: bool) -> None:
    prompt = text(" ".join(f"see [Image #{m}]" for m in markers) or "no markers")
    images = [image(tiny_png(i + 1, 1)) for i in range(n_images)]
    body = user_blocks(*([prompt, *images] if text_first else [*images, prompt]))
    found = record_images(rec(body, 3))
    assert [i.index for i in found.images] == list(range(1, n_images + 1))
    paired = n_images > 0 and len(markers) == n_images
    assert found.numbered == paired
    assert found.mismatch == (n_images > 0 and bool(markers) and not paired)
    expected = ([f"#{m}" for m in markers] if paired
                else [f"L3i{i}" for i in range(1, n_images + 1)])
    assert image_ids(rec(body, 3), 3) == expected


def test_a_queued_prompts_images_are_the_records() -> None:
    """A prompt typed while the agent worked is a ``queued_command`` attachment whose
    ``prompt`` holds the blocks: its images and markers are read as a user record's."""
    r = rec(attachment("queued_command", {"prompt": [text("see [Image #3]"),
                                                     image(tiny_png(2, 2))]}))
    found = record_images(r)
    assert [(i.index, i.seq, i.nested) for i in found.images] == [(1, 3, False)]
    assert image_ids(r, 9) == ["#3"]


@pytest.mark.parametrize(("body", "count"), [
    (attachment("queued_command", {"prompt": "see [Image #1]"}), 0),
    (attachment("queued_command", {"prompt": None}), 0),
    (attachment("queued_command", {"prompt": [7, None, "x", {"type": "image"}]}), 1),
    (attachment("queued_command"), 0),
    (attachment("hook_additional_context", {"prompt": [image(tiny_png(2, 2))]}), 0),
    ({"type": "attachment", "attachment": [image(tiny_png(2, 2))]}, 0),
])
def test_other_attachment_shapes_never_crash(body: dict, count: int) -> None:
    """Only a queued_command's prompt list is read (a source-less image still counts)."""
    assert len(record_images(rec(body)).images) == count
