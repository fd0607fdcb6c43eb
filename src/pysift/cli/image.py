"""``pysift image``: parse the flags, run commands.image, emit.

No typer at import: ``execute`` is what ``cli.fastpath`` runs; ``declare`` puts the command
on the typer tree (``cli.app.register``).
"""


from typing import TYPE_CHECKING

from pysift.cli.emit import emit
from pysift.cli.options import RootContext, bad_parameter, scope_args

if TYPE_CHECKING:  # loaded by declare, the typer side, only
    import typer

IMAGE_HELP = """List the images a session carries and write them back out. A pasted screenshot
(or a tool's screenshot inside a tool result) lives INLINE in the transcript as base64,
so every image the model saw can be had again as a file you can open or Read.

Two ids address an image, and both feed --id:

\b
  #N           the [Image #N] number Claude Code wrote in the prompt, the one
               the model refers to. Typed WITHOUT the # (`--id 32`: an
               unquoted # starts a shell comment). Numbers are per prompt and
               reused, so a #N naming several different images is an error
               listing each occurrence; they can start past #1 and skip
               numbers (an image that never landed here). A record whose
               markers do not pair one-to-one with its images gets no #N
               (said on stderr, never guessed).
  L<line>i<n>  the exact locator: the record's jsonl line and the image's
               place among its images (direct and tool-result images counted
               in order). Unique.

Both are per transcript: --id needs the images in scope to come from ONE
transcript (pin it with @<uuid> --no-subagents, or @<agent-id>). search hits show
them as [k image(s): #3, L88i1].

The listing is in document order (transcripts interleaved by time). An image re-sent
later in the same transcript (the same bytes) is shown once, at its latest
occurrence; two different images sharing a #N are both shown. Sizes are estimated
from the base64 length (nothing is decoded to list). A url image is listed with its
URL; it has no bytes to write.

--out PATH extracts. A path ending in .png .jpg .jpeg .gif .webp is ONE file: exactly
one image must be selected, converted when its format differs (png lossless; jpeg and
webp quality 90; gif dithered into a 256-colour palette; an animated image becomes its
first frame, with a warning) and written unchanged when it matches. Any other path is a
directory (created if needed) that receives every selected image in its source format,
named <session8>[-img<N>]-L<line>i<n>.<ext>. An existing file is never replaced
without --force; nothing is written under the Claude home, and nothing partial: an
image whose base64 does not decode or that Pillow cannot read is said on stderr,
nothing is written for it, and the run exits 1."""

IMAGE_EPILOG = """\b
EXAMPLES
  pysift image @<uuid>                          # every image of a session (deduped)
  pysift image . --format json                  # this project's images, machine-readable
  pysift image @<uuid> --no-subagents --id 32,33 --out /tmp/imgs      # by handle
  pysift image @<uuid> --no-subagents --id L6812i2 --out /tmp/shot.jpg  # one, as JPEG
  pysift image @<uuid> --no-subagents --id 1 --since 1h --out /tmp/imgs  # a reused #1,
                                                # the one of the last hour
  pysift image @<uuid> --no-subagents --turn -3.. --out /tmp/imgs  # the last 3 turns
  pysift image @<uuid> --out /tmp/imgs          # every image, each in its own format

\b
JSON (--format json, one object per line)
  {"kind":"header","command":"image"}
  listing:
  {"kind":"image","handle" ("#N", else the locator),"seq" (N or null),"id" (L<line>i<n>),
   "line","img_index","session_id","is_subagent","parent_session_id","source_kind"
   ("base64"|"url"|…),"media_type","b64_len","est_bytes","url","record_uuid","ts_utc",
   "ts_local"}
  {"kind":"summary","images","transcripts","skipped_lines","repeats_folded"}
  --out:
  {"kind":"extract","handle","seq","id","path","bytes" (as written),"media_type"
   (written),"source_media_type","converted","notes":[...],"session_id","is_subagent",
   "parent_session_id"}
  {"kind":"summary","extracted","url_skipped","no_bytes_skipped" (selected images with
   neither inline bytes nor a URL),"failed" (images not written: damaged, or a file
   appeared at the target; each has its stderr line, exit 1),"skipped_lines"}
  every summary also holds "unreadable": N, the files and dirs that exist but could
   not be read (each named in a stderr warning)

\b
NOTES
  skipped_lines counts every malformed line of the transcripts read (csift's law).
  Exit 1: an --id that names nothing (the error lists the handles present), an
  ambiguous #N (the error lists turn, locator, uuid, time and prompt excerpt of each
  image), an image that cannot be decoded. Exit 2: bad flags, --id/--turn over
  several transcripts, a file --out with several images, an --out that exists."""


def execute(ctx: RootContext, targets: list[str] | None, ids: list[str] | None,
            since: str | None, until: str | None, turn: str | None, uuid: list[str] | None,
            out: list[str] | None, force: bool, subagents: bool,
            sessions_from: list[str] | None, fmt: str) -> None:
    """The command once its options are read (by typer, or by ``cli.fastpath``)."""
    for flag, given in (("--uuid", uuid), ("--out", out)):
        if given is not None and len(given) > 1:  # click kept the last one silently
            raise bad_parameter(f"given {len(given)} times ({', '.join(given)}); "
                                     "pass one", param_hint=flag)
    scope, env = scope_args(ctx, targets=targets, subagents=subagents,
                            sessions_from=sessions_from, fmt=fmt, since=since, until=until,
                            turn=turn)
    from pysift.commands.image import ImageOptions, run

    opts = ImageOptions(scope=scope, ids=tuple(ids or ()), uuid=uuid[0] if uuid else None,
                        out=out[0] if out else None, force=force)
    emit(run(opts, env), fmt)


def declare(app: "typer.Typer") -> None:
    """Register the command on the typer tree (typer is loaded here, not at import)."""
    from typing import Annotated, Optional

    import typer

    from pysift.cli.params import Format, SessionsFrom, Subagents, Targets

    @app.command("image", help=IMAGE_HELP, epilog=IMAGE_EPILOG)
    def image_cmd(
        ctx: typer.Context,
        targets: Targets = None,
        ids: Annotated[Optional[list[str]], typer.Option("--id", metavar="ID",
            help="Address images by #N handle (bare digits: 32) or L<line>i<n> locator; "
                 "repeatable, comma lists. Needs one transcript in scope.")] = None,
        since: Annotated[Optional[str], typer.Option("--since", metavar="WHEN",
            help="Only images whose record is stamped at or after WHEN (ISO, date, 2h, 3d).")]
            = None,
        until: Annotated[Optional[str], typer.Option("--until", metavar="WHEN",
            help="Only images whose record is stamped at or before WHEN.")] = None,
        turn: Annotated[Optional[str], typer.Option("--turn", metavar="RANGE",
            help="Only images of these turns: N, A..B, N.., ..N, -k, -k.. (0-based, numbered "
                 "as search and show number them; one transcript).")] = None,
        uuid: Annotated[Optional[list[str]], typer.Option("--uuid", metavar="PREFIX",
            help="Only images of the record whose uuid starts with PREFIX.")] = None,
        out: Annotated[Optional[list[str]], typer.Option("--out", metavar="PATH",
            help="Extract: a DIR gets every selected image in its own format; a FILE.png|jpg|"
                 "jpeg|gif|webp gets the one selected image, converted if needed.")] = None,
        force: Annotated[bool, typer.Option("--force",
            help="Let --out replace existing files.")] = False,
        subagents: Subagents = True,
        sessions_from: SessionsFrom = None,
        fmt: Format = "text",
    ) -> None:
        execute(ctx, targets, ids, since, until, turn, uuid, out, force, subagents,
                sessions_from, fmt)
