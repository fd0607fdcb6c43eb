"""``pysift image --out``: write the selected images (SPEC §6.9).

The path's extension decides. A path with an image extension (png, jpg, jpeg, gif,
webp) is ONE file: the single selected image, converted when its real format differs (the
same format writes the original bytes unchanged, so an animated GIF stays animated). Any
other path is a directory (created if missing): every selected image under
``<session-short>[-img<N>]-L<line>i<n>.<ext>``, in its source format. A path with some
other extension that is not an existing directory is refused (a typo of a format must not
become a directory).

Nothing is written over an existing file without ``force``, nothing under the Claude
home, and nothing partial (``disk.writeout``). Every image is decoded and checked with
Pillow before it is written: a payload that does not decode, or bytes Pillow cannot read,
is said on stderr with nothing written for it, and the run exits 1.
"""

from __future__ import annotations

import os
from dataclasses import field
from pathlib import Path
from typing import Any, TextIO

from pysift.commands.image import Selection, human_size, malformed_note
from pysift.disk.home import user_named_path
from pysift.disk.writeout import TargetExistsError, write_new
from pysift.engines import images as engine
from pysift.engines.image_convert import ImageUnreadable, convert, inspect
from pysift.engines.images import ImageRow, PayloadError
from pysift.errors import NotFoundError, SiftError, UsageError
from pysift.model.env import Env
from pysift.model.fastdata import dataclass
from pysift.output.fields import id_trio
from pysift.output.report import Report

#: extensions that make --out one file, and the Pillow format each names
FILE_TARGETS = {"png": "PNG", "jpg": "JPEG", "jpeg": "JPEG", "gif": "GIF", "webp": "WEBP"}
_EXT_OF_FORMAT = {"PNG": "png", "JPEG": "jpg", "GIF": "gif", "WEBP": "webp"}
_MEDIA_OF_FORMAT = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif",
                    "WEBP": "image/webp"}


@dataclass(frozen=True, slots=True)
class OutPlan:
    path: Path
    target: str | None  # Pillow format for a file target, None for a directory
    force: bool


@dataclass(slots=True)
class Written:
    row: ImageRow
    path: Path
    size: int
    media_type: str | None
    converted: bool
    notes: list[str] = field(default_factory=list)
    #: the media type of the bytes read (what Pillow found, else the record's claim)
    read_as: str | None = None


def _home_dirs(env: Env) -> list[Path]:
    dirs = [env.claude_home]
    config = env.environ.get("CLAUDE_CONFIG_DIR")
    if config:
        dirs.append(Path(config))
    home = env.environ.get("HOME")
    if home:
        dirs.append(Path(home) / ".claude")
    return dirs


def _under(path: Path, root: Path) -> bool:
    try:
        return path.is_relative_to(root.resolve())
    except OSError:
        return False


def plan_output(out: str, env: Env, *, force: bool) -> OutPlan:
    """Check ``--out`` before any transcript is read: its kind, its place, its target."""
    if not out.strip():
        raise UsageError("--out is empty; give a directory (each image under its own name) "
                         "or a file path ending in .png, .jpg, .jpeg, .gif or .webp")
    path = user_named_path(out, env.cwd, env.environ)
    resolved = path.resolve()
    for root in _home_dirs(env):
        if _under(resolved, root):
            raise UsageError(f"--out {out} lies under the Claude home {root}, which pysift "
                             "never writes to; choose a path outside it")
    suffix = path.suffix[1:].lower()
    if path.is_dir() or out.endswith(("/", os.sep)):  # a trailing separator names a dir
        if os.path.lexists(path) and not path.is_dir():
            raise UsageError(f"--out {out} exists and is not a directory")
        return OutPlan(path, None, force)
    if suffix in FILE_TARGETS:
        if os.path.lexists(path) and not force:
            raise UsageError(f"--out {out} exists; pass --force to replace it, or choose "
                             "another name")
        if os.path.lexists(path) and not path.is_file():
            raise UsageError(f"--out {out} exists and is not a regular file")
        return OutPlan(path, FILE_TARGETS[suffix], force)
    if suffix:
        raise UsageError(
            f"--out {out}: .{path.suffix[1:]} is not an image format pysift writes (png, jpg, "
            "jpeg, gif, webp); give one of those for a single file, or a directory (an "
            "existing one, or a path without an extension) for every selected image")
    if os.path.lexists(path):
        raise UsageError(f"--out {out} exists and is not a directory; give a directory, or a "
                         "file path ending in .png, .jpg, .jpeg, .gif or .webp")
    return OutPlan(path, None, force)


def file_name(row: ImageRow, ext: str, short: int | None = 8) -> str:
    numbered = f"-img{row.seq}" if row.seq is not None else ""
    return f"{row.transcript.session_id[:short]}{numbered}-{row.id}.{ext}"


def file_names(rows: list[ImageRow]) -> list[str]:
    """Each row's name in a directory target, one file per image: a name two transcripts
    would share (their ids agree on the first 8 characters; one session copied into two
    project dirs) takes the full id, and then a ``-<n>`` count if it must."""
    names = [file_name(r, r.extension) for r in rows]
    clashing = {n for n in names if names.count(n) > 1}
    names = [file_name(r, r.extension, None) if n in clashing else n
             for r, n in zip(rows, names)]
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            stem, dot, ext = name.rpartition(".")
            name = f"{stem}-{seen[name]}{dot}{ext}"
        out.append(name)
    return out


def _prepare(row: ImageRow, target: str | None
             ) -> tuple[bytes, str | None, str | None, bool, list[str]]:
    """The bytes to write for ``row`` (decoded, checked, converted for a file target), the
    media type of the bytes read and of the bytes written, whether it was converted, and
    the notes.

    The media types are the bytes' own, found by decoding them, where the record's claim
    disagrees (decided: a mislabelled JPEG written unchanged is reported as `image/jpeg`,
    since a caller acts on the row's `media_type`); the record's claim stays in
    `source_media_type` and, for a directory, in the file name (csift's naming)."""
    raw = engine.decode_base64(engine.payload_text(row))
    info = inspect(raw)
    notes: list[str] = []
    declared = (row.media_type or "").lower().replace("image/jpg", "image/jpeg")
    if info.media_type is not None and declared and declared != info.media_type:
        notes.append(f"the record says {row.media_type} but the bytes are {info.format}")
    read_as = info.media_type or row.media_type
    if target is None or target == info.format:
        return raw, read_as, read_as, False, notes
    data, converted_notes = convert(raw, target, info)
    return data, read_as, _MEDIA_OF_FORMAT[target], True, notes + converted_notes


def extract(plan: OutPlan, sel: Selection, report: Report, env: Env) -> None:
    rows = sel.rows
    if plan.target is not None and len(rows) != 1:
        if not rows:
            raise NotFoundError(f"--out {plan.path} names one file, but no image is selected "
                                "(the scope carries none after the filters)")
        raise UsageError(f"--out {plan.path} names one file, but {len(rows)} images are "
                         "selected; give a directory to extract them all, or narrow --id to "
                         "one image")
    inline = [r for r in rows if r.has_bytes]
    skipped_url = [r for r in rows if r.source_kind == "url"]
    skipped_hollow = [r for r in rows if not r.has_bytes and r.source_kind != "url"]
    for r in rows:
        if not r.has_bytes and plan.target is None:
            what = f"a URL image ({r.url or 'no url'})" if r.source_kind == "url" else (
                f"a {r.source_kind or 'source-less'} image with no inline bytes")
            report.note(f"note: {r.id} is {what}; not extracted")
    if plan.target is not None and not inline:
        row = rows[0]
        what = f"a URL image ({row.url or 'no url'})" if row.source_kind == "url" else (
            f"a {row.source_kind or 'source-less'} image")
        raise NotFoundError(f"{row.id} is {what} with no inline bytes; nothing to write to "
                            f"{plan.path}")
    targets = ([(inline[0], plan.path)] if plan.target else
               [(r, plan.path / name) for r, name in zip(inline, file_names(inline))])
    if not plan.force:
        taken = [p for _, p in targets if os.path.lexists(p)]
        if taken:
            more = f" (and {len(taken) - 1} more)" if len(taken) > 1 else ""
            raise UsageError(f"{taken[0]} exists{more}; pass --force to replace, or choose "
                             "another --out")
    written: list[Written] = []
    failed = 0
    for row, path in targets:
        try:
            data, read_as, media, converted, notes = _prepare(row, plan.target)
        except (PayloadError, ImageUnreadable) as exc:
            failed += 1
            report.note(f"error: {row.id} ({row.transcript.session_id}): {exc}; nothing "
                        "written for it")
            continue
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_new(path, data, force=plan.force)
        except TargetExistsError:
            failed += 1
            report.note(f"error: {path} appeared meanwhile; not replaced (pass --force)")
            continue
        except OSError as exc:
            raise SiftError(f"cannot write {path}: {exc.strerror or exc}; check that its "
                            f"directory is writable ({len(written)} image(s) written before "
                            "it, each whole)") from None
        written.append(Written(row, path, len(data), media, converted, notes, read_as))
    if failed:
        report.exit_code = 1
    report.rows = [extract_row(w) for w in written]
    report.answer(ExtractResult(plan, written, len(skipped_url), sel.skipped_lines,
                                len(skipped_hollow), failed))


@dataclass(frozen=True)
class ExtractResult:
    """What was written: the summary and the text footer state the same figures."""

    plan: OutPlan
    written: list[Written]
    url_skipped: int
    skipped_lines: int
    #: selected images with neither inline bytes nor a URL (a `file` source, no source, an
    #: empty payload): pysift's own key, since csift counted URL images only
    no_bytes_skipped: int = 0
    #: selected images that could not be written (damaged bytes, a file appearing at the
    #: target meanwhile): each has its stderr line, and the run exits 1; pysift's own key
    failed: int = 0

    def summary(self) -> dict[str, Any]:
        return {"extracted": len(self.written), "url_skipped": self.url_skipped,
                "no_bytes_skipped": self.no_bytes_skipped, "failed": self.failed,
                "skipped_lines": self.skipped_lines}

    def render_text(self, out: TextIO) -> None:
        render_extract(out, self.plan, self.written, self.url_skipped, self.skipped_lines,
                       self.no_bytes_skipped, self.failed)


def extract_row(w: Written) -> dict[str, Any]:
    t = w.row.transcript
    return {
        "kind": "extract",
        "handle": w.row.handle,
        "seq": w.row.seq,
        "id": w.row.id,
        "path": str(w.path),
        "bytes": w.size,
        "media_type": w.media_type,
        "source_media_type": w.row.media_type,
        "converted": w.converted,
        "notes": w.notes,
        **id_trio(t.session_id, t.is_subagent, t.parent_session_id),
    }


def render_extract(out: TextIO, plan: OutPlan, written: list[Written], url_skipped: int,
                   skipped_lines: int, no_bytes_skipped: int = 0, failed: int = 0) -> None:
    w = out.write
    for item in written:
        kind = item.media_type or "?"
        if item.converted:
            kind = f"{item.read_as or '?'}→{kind}"
        notes = f"  — {'; '.join(item.notes)}" if item.notes else ""
        w(f"wrote {item.path}  ({item.row.handle} {kind}, {human_size(item.size)}){notes}\n")
    footer = f"extracted {len(written)} image(s)"
    if plan.target is None:
        footer += f" to {plan.path}"
    if url_skipped:
        footer += f" · {url_skipped} url image(s) skipped"
    if no_bytes_skipped:
        footer += f" · {no_bytes_skipped} image(s) without inline bytes skipped"
    if failed:
        footer += f" · {failed} image(s) not written (the errors above say why)"
    if skipped_lines:
        footer += f" · ({malformed_note(skipped_lines)})"
    w(footer + "\n")
