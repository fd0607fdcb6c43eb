"""engines.search.exchanges: an exchange stitches records only, and what the stitch parses
is counted by the malformed-line law (SPEC §4, §7 ``record_uuids``, ``skipped_lines``)."""

from __future__ import annotations

from pathlib import Path

import builders as b

SID = "5e5e5e5e-1111-4222-8333-944444444444"
TOOL = "toolu_01stitchstitchstitch01"


def _turn() -> tuple[b.Session, list[bytes]]:
    """A prompt, three assistant records (text, text, a Write call), its result, and a
    second prompt: the lines as Claude Code writes them."""
    s = b.Session(SID, cwd="/w/p")
    s.add(b.user("hello there"))
    s.add(b.assistant(b.text("GOOD reply one")))
    s.add(b.assistant(b.text("BAD reply marker")))
    s.add(b.assistant(b.tool_use("Write", {"file_path": "/w/p/b.txt", "content": "x"},
                                 id=TOOL)))
    s.add(b.tool_result(TOOL, "written"))
    s.add(b.user("second prompt"))
    return s, [b.to_line(r) for r in s.records]


def _home(tmp_path: Path, lines: list[bytes]) -> Path:
    path = tmp_path / "claude" / "projects" / "-w-p" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"".join(lines))
    return tmp_path / "claude"


def _invalid_utf8(line: bytes, word: bytes) -> bytes:
    """The line with an invalid UTF-8 byte inside a string: framed, broken inside."""
    return line.replace(word, word + b"\xff", 1)


def _search(cli, home: Path, *args: str):  # type: ignore[no-untyped-def]
    result = cli("--claude-home", str(home), "search", *args, "--format", "json")
    assert result.code == 0, result.stderr
    return result


def _every_uuid_resolves(cli, home: Path, uuids: list[str]) -> None:  # type: ignore[no-untyped-def]
    for uuid in uuids:
        shown = cli("--claude-home", str(home), "show", f"@{SID}", "--uuid", uuid,
                    "--format", "json")
        assert shown.code == 0 and shown.json_rows("record"), (uuid, shown.stderr)


def test_a_torn_assistant_line_is_no_stitched_record(cli, tmp_path: Path) -> None:
    """``record_uuids`` read each assistant line's last uuid off its bytes: a torn line's
    uuid was listed, and ``show --uuid`` then said there is no such record."""
    s, lines = _turn()
    lines[2] = lines[2].rstrip(b"\n")[:-8] + b"\n"  # cut after its type and uuid keys
    assert b'"type":"assistant"' in lines[2] and s.records[2]["uuid"].encode() in lines[2]
    home = _home(tmp_path, lines)
    result = _search(cli, home, "hello")
    (ex,) = result.json_rows("exchange")
    assert s.records[2]["uuid"] not in ex["record_uuids"]
    assert ex["record_uuids"] == [s.records[i]["uuid"] for i in (0, 1, 3)]
    assert result.summary()["skipped_lines"] == 1
    _every_uuid_resolves(cli, home, ex["record_uuids"])


def test_a_framed_line_broken_inside_that_the_stitch_parses_is_counted(cli,
                                                                      tmp_path: Path) -> None:
    """Invalid UTF-8 inside two assistant lines no needle picks: the stitch listed both
    uuids and the summary said ``skipped_lines: 0`` where ``stats`` and ``show`` say 2."""
    s, lines = _turn()
    lines[2] = _invalid_utf8(lines[2], b"BAD")
    lines[3] = _invalid_utf8(lines[3], b"b.txt")
    home = _home(tmp_path, lines)
    result = _search(cli, home, "hello")
    (ex,) = result.json_rows("exchange")
    assert ex["record_uuids"] == [s.records[i]["uuid"] for i in (0, 1)]
    assert result.summary()["skipped_lines"] == 2
    stats = cli("--claude-home", str(home), "stats", "--format", "json").summary()
    assert stats["skipped_lines"] == 2
    _every_uuid_resolves(cli, home, ex["record_uuids"])


def test_a_line_the_needles_and_the_stitch_both_read_is_counted_once(cli,
                                                                    tmp_path: Path) -> None:
    _, lines = _turn()
    lines[2] = _invalid_utf8(lines[2], b"BAD").replace(b"marker", b"hello")
    home = _home(tmp_path, lines)
    assert _search(cli, home, "hello").summary()["skipped_lines"] == 1


def test_a_tool_call_whose_result_line_is_broken_is_pending(cli, tmp_path: Path) -> None:
    """A partner is a record: a call whose only result line does not decode has no result
    in this transcript (it said ``paired``, and its partner's uuid resolved nowhere)."""
    s, lines = _turn()
    lines[4] = _invalid_utf8(lines[4], b"written")
    home = _home(tmp_path, lines)
    result = _search(cli, home, "", "-t", "agent.tool.use")
    (ex,) = result.json_rows("exchange")
    (hit,) = ex["hits"]
    assert hit["pairing"] == "pending"
    assert ex["record_uuids"] == [s.records[3]["uuid"]]
    assert result.summary()["skipped_lines"] == 1


def test_siblings_count_the_broken_lines_of_the_turn(cli, tmp_path: Path) -> None:
    _, lines = _turn()
    lines[2] = _invalid_utf8(lines[2], b"BAD")
    home = _home(tmp_path, lines)
    result = _search(cli, home, "second", "--siblings")
    assert result.summary()["skipped_lines"] == 0  # t1 holds no broken line
    result = _search(cli, home, "GOOD", "-t", "agent.message", "--siblings")
    (ex,) = result.json_rows("exchange")
    assert result.summary()["skipped_lines"] == 1
    assert all(sib["line"] != 3 for sib in ex["siblings"])


def _openerless(*stamps: str) -> list[bytes]:
    """A transcript opening on assistant records (turn 0 has no opener), one per stamp."""
    s = b.Session(SID, cwd="/w/p")
    for n, ts in enumerate(stamps):
        s.add(b.assistant(b.text(f"STAMPED reply {n}"), timestamp=ts))
    return [b.to_line(r) for r in s.records]


def test_an_exchange_without_an_opener_starts_at_its_earliest_hits_instant(
        cli, tmp_path: Path) -> None:
    """Without an opener an exchange starts at its earliest hit, by the instant its stamp
    names: ``12:00+05:00`` is 07:00Z, before ``08:00Z``; a millisecond-less stamp is that
    second's .000; a stamp naming no instant (``[trimmed]``, no offset) is never the
    earliest."""
    cases = [(("2026-03-08T08:00:00.000Z", "2026-03-08T12:00:00.000+05:00"),
              "2026-03-08T12:00:00.000+05:00"),
             (("2026-03-08T08:00:00.500Z", "2026-03-08T08:00:00Z"), "2026-03-08T08:00:00Z"),
             (("2026-03-08T08:00:00.000Z", "2026-03-08T07:00:00.000", "-"),
              "2026-03-08T08:00:00.000Z")]
    for n, (stamps, started) in enumerate(cases):
        home = _home(tmp_path / str(n), _openerless(*stamps))
        [row] = _search(cli, home, "STAMPED").json_rows("exchange")
        assert row["ts_utc"] == started, stamps
