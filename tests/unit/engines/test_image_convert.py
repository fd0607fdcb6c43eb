"""engines/image_convert: a conversion keeps what the target format can hold (SPEC §11b)."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from pysift.engines.image_convert import ImageUnreadable, convert, inspect


def _encoded(im: Image.Image, fmt: str, **save: object) -> bytes:
    out = io.BytesIO()
    im.save(out, format=fmt, **save)
    return out.getvalue()


def _keyed(mode: str) -> bytes:
    """A PNG whose transparency is a tRNS colour key (no alpha channel): the left half
    is the key colour, so those pixels are see-through."""
    key = (250, 2, 3) if mode == "RGB" else 77
    other = (10, 200, 30) if mode == "RGB" else 180
    im = Image.new(mode, (8, 4), other)
    im.paste(key, (0, 0, 4, 4))
    return _encoded(im, "PNG", transparency=key)


def _rgba(data: bytes, xy: tuple[int, int]) -> tuple[int, ...]:
    with Image.open(io.BytesIO(data)) as im:
        return tuple(im.convert("RGBA").getpixel(xy))  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ["RGB", "L"])
def test_a_colour_keyed_png_keeps_its_transparency_in_every_target(mode: str) -> None:
    # an RGB or L PNG with a tRNS key: to GIF it failed ("Pillow cannot convert it to GIF
    # (TypeError …)", nothing written, exit 1); to WebP the key colour came out opaque,
    # and to JPEG it did too, without the "transparency flattened" note
    data = _keyed(mode)
    info = inspect(data)
    for target in ("PNG", "GIF", "WEBP"):
        out, _ = convert(data, target, info)
        assert _rgba(out, (1, 1))[3] == 0, target
        assert _rgba(out, (6, 1))[3] == 255, target
    jpeg, notes = convert(data, "JPEG", info)
    assert "transparency flattened onto white" in notes
    assert _rgba(jpeg, (1, 1))[:3] == pytest.approx((255, 255, 255), abs=3)


def test_an_opaque_image_converts_without_a_flattening_note() -> None:
    data = _encoded(Image.new("RGB", (8, 4), (10, 200, 30)), "PNG")
    out, notes = convert(data, "JPEG", inspect(data))
    assert notes == ["lossy re-encode (jpeg quality 90)"]
    assert _rgba(out, (1, 1))[3] == 255


def test_bytes_that_are_no_image_are_refused() -> None:
    with pytest.raises(ImageUnreadable):
        inspect(b"not an image")


def _grey16() -> bytes:
    im = Image.new("I;16", (4, 1))
    im.putdata([0, 1000, 30000, 65535])
    return _encoded(im, "PNG")


@pytest.mark.parametrize("target", ["JPEG", "WEBP", "GIF", "PNG"])
def test_a_16_bit_grey_png_is_scaled_not_clipped_to_white(target: str) -> None:
    # Pillow's conversion to RGB clips every 16-bit value above 255: the converted file
    # was a white page (a 30000 of 65535 came out 255)
    data = _grey16()
    out, notes = convert(data, target, inspect(data))
    assert "16-bit grey scaled to 8 bits" in notes
    with Image.open(io.BytesIO(out)) as im:
        grey = [im.convert("L").getpixel((x, 0)) for x in range(4)]
    assert grey[0] <= 8 and grey[3] >= 247
    assert grey[2] == pytest.approx(30000 / 256, abs=10)


@pytest.mark.parametrize("target", ["PNG", "WEBP", "GIF"])
def test_a_jpeg_with_an_exif_orientation_converts_as_it_is_shown(target: str) -> None:
    # a phone photo is stored sideways with an EXIF Orientation (6: turn 90° clockwise to
    # show); the converted file kept the stored pixels and dropped the tag, so it came
    # out sideways
    stored = Image.new("RGB", (40, 20), (200, 0, 0))
    stored.paste((0, 0, 200), (0, 0, 10, 20))  # blue on the stored left edge
    exif = Image.Exif()
    exif[0x0112] = 6
    data = _encoded(stored, "JPEG", exif=exif.tobytes(), quality=95)
    out, notes = convert(data, target, inspect(data))
    assert "EXIF orientation applied" in notes
    with Image.open(io.BytesIO(out)) as im:
        assert im.size == (20, 40)
        assert im.getexif().get(0x0112) in (None, 1)
        top = im.convert("RGB").getpixel((10, 2))
    assert top[2] > 150 and top[0] < 80  # the stored left edge is on top once shown
