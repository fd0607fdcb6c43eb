"""Check and convert one extracted image with Pillow (the only module importing it).

Imported by ``image --out`` alone: listing and start-up never load Pillow.

- ``inspect(data)`` opens the bytes and decodes every frame, so a damaged image is
  refused (``ImageUnreadable``) before anything is written; it names the real format.
- ``convert(data, target)`` re-encodes to ``png`` (lossless), ``jpeg`` or ``webp``
  (quality 90), or ``gif`` (Floyd-Steinberg dithered into a 256-colour adaptive palette,
  binary transparency kept); an animated source becomes its first frame, with a note
  naming the frame count and total duration. Notes say what a conversion lost.
"""

from __future__ import annotations

import io
import re
import warnings

from pysift.model.fastdata import dataclass

#: output formats by file extension (lowercase, without the dot)
TARGETS = {"png": "PNG", "jpg": "JPEG", "jpeg": "JPEG", "gif": "GIF", "webp": "WEBP"}
MEDIA_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif",
               "WEBP": "image/webp", "BMP": "image/bmp", "TIFF": "image/tiff"}
QUALITY = 90


class ImageUnreadable(Exception):
    """Bytes Pillow cannot read as an image, or cannot encode to the target."""


@dataclass(frozen=True, slots=True)
class Inspected:
    format: str | None  # Pillow's name of the real format ("PNG", "JPEG", …)
    frames: int
    duration_ms: int  # summed frame durations (0 for a still)
    width: int
    height: int

    @property
    def media_type(self) -> str | None:
        return MEDIA_TYPES.get(self.format or "")


def _open(data: bytes):  # type: ignore[no-untyped-def]
    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            return Image.open(io.BytesIO(data))
    except Exception as exc:  # noqa: BLE001 - Pillow raises many kinds; all mean "unreadable"
        raise ImageUnreadable(f"Pillow cannot read it as an image ({_reason(exc)})") from None


def _reason(exc: BaseException) -> str:
    """Pillow's reason, without the repr of the in-memory file it was given (``cannot
    identify image file <_io.BytesIO object at 0x…>`` names no file a user has)."""
    text = _OBJECT_REPR.sub("", str(exc)).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


_OBJECT_REPR = re.compile(r"\s*<[\w.]+ object at 0x[0-9a-fA-F]+>")


def inspect(data: bytes) -> Inspected:
    """The image's real format, size and frames; every frame is decoded, so truncated or
    corrupt data raises ``ImageUnreadable``."""
    im = _open(data)
    try:
        frames = getattr(im, "n_frames", 1) or 1
        duration = 0
        for frame in range(frames):
            if frame:
                im.seek(frame)
            im.load()
            duration += int(im.info.get("duration", 0) or 0)
        return Inspected(format=im.format, frames=frames,
                         duration_ms=duration if frames > 1 else 0,
                         width=im.width, height=im.height)
    except ImageUnreadable:
        raise
    except Exception as exc:  # noqa: BLE001
        raise ImageUnreadable(f"Pillow cannot decode it ({_reason(exc)}); the image data is "
                              "damaged or cut short") from None
    finally:
        im.close()


def _first_frame_note(info: Inspected) -> str | None:
    if info.frames <= 1:
        return None
    seconds = info.duration_ms / 1000
    return (f"animated {info.format or 'image'} ({info.frames} frames, {seconds:.1f}s) — "
            "extracted the first frame only")


def convert(data: bytes, target: str, info: Inspected) -> tuple[bytes, list[str]]:
    """``data`` re-encoded as ``target`` (a ``TARGETS`` value), and the notes on what the
    conversion did."""
    from PIL import Image

    notes: list[str] = []
    first = _first_frame_note(info)
    if first is not None:
        notes.append(first)
    im = _open(data)
    try:
        im.seek(0)
        im.load()
        frame = _eight_bit(_upright(im, notes), notes)
        # an alpha channel, or a transparency key (a palette index; a tRNS colour of an
        # RGB or L PNG): converting to RGBA applies the key. An RGB PNG's key was once left
        # in ``info``: to GIF it failed (a colour tuple as the palette index), to WebP and
        # JPEG the see-through pixels came out opaque in the key colour, unsaid
        has_alpha = (frame.mode in ("RGBA", "LA", "PA", "RGBa", "La")
                     or "transparency" in frame.info)
        source = frame.convert("RGBA" if has_alpha else "RGB")
        out = io.BytesIO()
        if target == "PNG":
            source.save(out, format="PNG")
        elif target == "JPEG":
            if has_alpha and source.getchannel("A").getextrema()[0] < 255:
                white = Image.new("RGB", source.size, (255, 255, 255))
                white.paste(source, mask=source.getchannel("A"))
                flat = white
                notes.append("transparency flattened onto white")
            else:
                flat = source.convert("RGB")
            flat.save(out, format="JPEG", quality=QUALITY)
            notes.append(f"lossy re-encode (jpeg quality {QUALITY})")
        elif target == "WEBP":
            source.save(out, format="WEBP", quality=QUALITY)
            notes.append(f"lossy re-encode (webp quality {QUALITY})")
        elif target == "GIF":
            _save_gif(source, has_alpha, out)
            notes.append("dithered to a 256-colour palette")
        else:  # pragma: no cover - callers pass TARGETS values
            raise ImageUnreadable(f"no encoder for {target}")
        return out.getvalue(), notes
    except ImageUnreadable:
        raise
    except Exception as exc:  # noqa: BLE001
        raise ImageUnreadable(f"Pillow cannot convert it to {target} ({_reason(exc)})") from None
    finally:
        im.close()


_ORIENTATION = 0x0112  # the EXIF tag


def _upright(im, notes: list[str]):  # type: ignore[no-untyped-def]
    """The image as viewers show it: an EXIF orientation (a phone photo stored sideways)
    applied to the pixels, with a note. The converted file carries no such tag, so it came
    out sideways. An image without one is returned as it is."""
    from PIL import ImageOps

    try:
        orientation = im.getexif().get(_ORIENTATION)
    except Exception:  # noqa: BLE001 - a damaged EXIF block: the pixels as stored
        return im
    if orientation not in (2, 3, 4, 5, 6, 7, 8):
        return im
    notes.append("EXIF orientation applied")
    return ImageOps.exif_transpose(im)


def _eight_bit(im, notes: list[str]):  # type: ignore[no-untyped-def]
    """A 16-bit grey image (``I;16``; ``I`` from a PNG) scaled to 8-bit grey, with a note:
    Pillow's own conversion to RGB clips every value above 255 to white, so a 16-bit
    grey PNG came out as a white page. Any other image is returned as it is."""
    if not (im.mode.startswith("I;16") or (im.mode == "I" and im.format == "PNG")):
        return im
    grey = im.convert("I").point(lambda v: v / 256).convert("L")
    notes.append("16-bit grey scaled to 8 bits")
    if "transparency" in im.info:
        notes.append("its 16-bit transparency key is not kept")
    return grey


def _save_gif(source, has_alpha: bool, out: io.BytesIO) -> None:  # type: ignore[no-untyped-def]
    """An adaptive palette (255 colours and a transparent index when the source has
    see-through pixels, else 256), the image dithered into it (Floyd-Steinberg)."""
    from PIL import Image

    alpha = source.getchannel("A") if has_alpha else None
    clear = alpha is not None and alpha.getextrema()[0] < 128
    rgb = source.convert("RGB")
    palette = rgb.quantize(colors=255 if clear else 256, method=Image.Quantize.MEDIANCUT)
    indexed = rgb.quantize(palette=palette, dither=Image.Dither.FLOYDSTEINBERG)
    if clear and alpha is not None:
        mask = alpha.point(lambda a: 255 if a < 128 else 0)
        indexed.paste(255, mask=mask)
        indexed.save(out, format="GIF", transparency=255)
    else:
        indexed.save(out, format="GIF")
