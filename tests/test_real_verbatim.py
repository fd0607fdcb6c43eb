"""verbatim and the fold index over every compacted transcript of the real corpus
(../shared/corpus/real, skipped when absent): 12 compaction boundaries in 9 transcripts.

Each reconstruction reaches across its boundaries, stays within its budget, and every
``Lnnnnn`` it prints points at the record it quotes; each fold index has one record per
boundary and every span of every record resolves and verifies as ``show --block`` does
(a sample of them through the command itself)."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest

from pysift.core import classify
from pysift.core.blocks import block_sha256, line_count, text_bytes
from pysift.core.text import one_line
from pysift.disk.layout import transcript_from_path
from pysift.engines.fetch import TranscriptView, block_text
from pysift.model.record import Record

pytestmark = pytest.mark.real

BOUNDARY_KEY = re.compile(rb'"subtype":\s*"compact_boundary"')
UNIT = re.compile(r"^[▽△] L(\d+)  (?:USER|ASSISTANT|agent\.communication\.\w+  .+ ⇨ self)  \(")
PLACEHOLDER = re.compile(r"^△ L(\d+)(?:–L(\d+))?  \[\d+ agent messages?, ")


def _compacted(real: Path) -> list[tuple[Path, Path, int]]:
    """(home, transcript, boundaries) of every transcript holding a compaction."""
    out = []
    for home in (real, real / "tier2"):
        for path in sorted((home / "projects").rglob("*.jsonl")):
            n = sum(1 for line in path.read_bytes().split(b"\n") if BOUNDARY_KEY.search(line))
            if n:
                out.append((home, path, n))
    return out


@pytest.fixture(scope="module")
def compacted() -> list[tuple[Path, Path, int]]:
    from conftest import REAL_HOME

    if not (REAL_HOME / "projects").is_dir():
        pytest.skip("the real corpus (../shared/corpus/real) is not present")
    return _compacted(REAL_HOME)


def test_the_corpus_holds_12_boundaries_in_9_transcripts(compacted) -> None:  # type: ignore[no-untyped-def]
    assert len(compacted) == 9
    assert sum(n for _, _, n in compacted) == 12


def _record(path: Path, line: int) -> Record:
    raw = path.read_bytes().split(b"\n")[line - 1]
    return Record(orjson.loads(raw), line)


def _sidechain_prompts(path: Path) -> bool:
    """Whether a main transcript holds a prompt-shaped subagent record (``in_sidechain``)."""
    if transcript_from_path(path).is_subagent:
        return False
    for raw in path.read_bytes().split(b"\n"):
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        rec = Record(obj, None) if isinstance(obj, dict) else None
        if (rec is not None and classify.in_sidechain(rec, subagent=False)
                and classify.could_open_turn(rec)):
            return True
    return False


def _assert_quotes(path: Path, row: dict) -> None:  # type: ignore[type-arg]
    """A unit's text is the record on its line, rendered as verbatim renders it."""
    rec = _record(path, row["line"])
    subagent = transcript_from_path(path).is_subagent
    assert not classify.in_sidechain(rec, subagent=subagent), row  # a subagent's, not the session's
    if row["role"] == "assistant":
        assert rec.type == "assistant", row
        words = "\n".join(b["text"] for b in rec.blocks()
                          if b.get("type") == "text" and b["text"].strip())
        assert row["text"] == one_line(words)
        return
    if row["text"].startswith("[typed while the agent worked · L"):
        assert rec.type in ("queue-operation", "attachment"), row  # a turn without opener
        return
    assert classify.opens_turn(rec, subagent=subagent), row
    # the prompts typed while the agent worked follow the opener, each marked with the
    # line of the queue operation or attachment that carried it
    text, *folded = row["text"].split(" [typed while the agent worked · L")
    for piece in folded:
        carrier = _record(path, int(piece.split("]", 1)[0]))
        assert carrier.type in ("queue-operation", "attachment"), row
    if row.get("is_inbound_comm"):
        assert text in one_line(classify.raw_message_text(rec) or "")
    else:
        assert text == classify.opener_text(rec)


def test_verbatim_of_each(cli, compacted) -> None:  # type: ignore[no-untyped-def]
    for home, path, boundaries in compacted:
        base = ("--claude-home", str(home), "verbatim", str(path))
        result = cli(*base, "--format", "json")
        assert result.code == 0, (path, result.stderr)
        header = result.header()
        assert header["boundaries_total"] == boundaries, path
        turns = result.json_rows("turn")
        assert turns, path
        # it reaches back past each boundary: a record from before it is quoted
        lines = [t["line"] for t in turns if t["line"] is not None]
        banners = [b["line"] for b in result.json_rows("compaction_boundary")]
        assert min(lines) < min(banners), path
        # the default 40,000 characters reach back across every one of them (but in a
        # hand-made fixture whose human prompts carry isSidechain:true, which a main
        # transcript of Claude Code never holds: they are a subagent's there, no turn of it)
        if not _sidechain_prompts(path):
            assert header["boundaries_spanned"] == len(banners) == boundaries, path
        for row in turns:
            _assert_quotes(path, row)
        for budget in (2000, 9000, 40000):
            text = cli(*base, "--budget", str(budget))
            assert text.code == 0
            assert len(text.stdout) <= budget + len("\n(1 malformed line(s) skipped)\n"), (
                path, budget)
            _assert_text_lines_point_at_their_records(path, text.stdout)


def _assert_text_lines_point_at_their_records(path: Path, stdout: str) -> None:
    lines = stdout.split("\n")
    for header, body in zip(lines, lines[1:], strict=False):
        m = UNIT.match(header)
        if m:
            rec = _record(path, int(m.group(1)))
            if body.startswith("[typed while the agent worked · L"):  # no opener before it
                assert rec.type in ("queue-operation", "attachment"), header
                continue
            assert rec.type in ("user", "assistant"), header
            if " … [+" not in body:
                row_role = "assistant" if header.startswith("△") else "user"
                if row_role == "assistant":
                    assert one_line("\n".join(b["text"] for b in rec.blocks()
                                              if b.get("type") == "text")) == body
            continue
        m = PLACEHOLDER.match(header)
        if m:
            for n in filter(None, m.groups()):
                assert _record(path, int(n)).type == "assistant", header


def test_slices_of_each_rebuild_the_document(cli, compacted, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    for index, (home, path, _) in enumerate(compacted):
        base = ("--claude-home", str(home), "verbatim", str(path))
        out = tmp_path / f"doc{index}.md"
        assert cli(*base, "--out", str(out)).code == 0
        pieces = []
        for n in range(1, 40):
            piece = cli(*base, "--window", "3000", "--slice", str(n)).stdout
            if not piece:
                break
            assert len(piece) <= 3000
            pieces.append(piece)
        assert "".join(pieces) == out.read_text(), path
        fleet = [cli(*base, "--window", "9000", "--slices", "4", "--slice", str(n)).stdout
                 for n in range(1, 6)]
        assert fleet[4] == "" and all(len(p) <= 9000 for p in fleet)


def test_fixed_fleets_of_each_hold_the_newest_whole_turns(cli, compacted) -> None:  # type: ignore[no-untyped-def]
    """csift §6.8 fixed fleet: the slices hold the newest turns whole, with no gap (the
    units they print are the tail of what an unbounded budget prints, turn by turn), each
    slice opens on a turn, and a fleet that leaves turns out says so on stderr."""
    unit = re.compile(r"^([▽△]) L(\d+)", re.MULTILINE)
    for home, path, _ in compacted:
        base = ("--claude-home", str(home), "verbatim", str(path))
        every = [(m.group(1), int(m.group(2))) for m in unit.finditer(
            cli(*base, "--budget", "100000000").stdout)]
        for window, k in ((3000, 3), (10000, 2)):
            fleet = (*base, "--window", str(window), "--slices", str(k))
            whole = cli(*fleet)
            printed = [(m.group(1), int(m.group(2))) for m in unit.finditer(whole.stdout)]
            assert printed == every[len(every) - len(printed):], (path, window, k)
            for n in range(1, k + 1):
                piece = cli(*fleet, "--slice", str(n)).stdout
                found = unit.search(piece)
                if found is not None:
                    opens = (found.group(1), int(found.group(2)))
                    assert opens[0] == "▽" or opens == every[0], (path, window, k, n)
            if len(printed) < len(every):
                assert "did not fit and are left out" in whole.stderr, (path, window, k)


def test_fold_index_of_each_verifies(cli, compacted) -> None:  # type: ignore[no-untyped-def]
    total = 0
    for home, path, boundaries in compacted:
        result = cli("--claude-home", str(home), "verbatim", str(path), "--fold-index")
        assert result.code == 0, (path, result.stderr)
        records = [orjson.loads(line) for line in result.stdout_bytes.splitlines()]
        assert [r["seq"] for r in records] == list(range(1, boundaries + 1)), path
        view = TranscriptView(transcript_from_path(path))
        spans = {s["blockId"]: s for r in records for s in r["spans"]}
        for block_id, span in spans.items():
            text = block_text(view, block_id)  # what show --block prints
            data = text_bytes(text)
            assert block_sha256(text) == span["sha256"], (path, block_id)
            assert (len(data), line_count(data)) == (span["log"]["bytes"],
                                                     span["log"]["lines"]), block_id
        # and a sample through the command itself
        for block_id in sorted(spans)[:: max(1, len(spans) // 8)]:
            shown = cli("--claude-home", str(home), "show", str(path), "--block", block_id,
                        "--sha256", spans[block_id]["sha256"])
            assert shown.code == 0, (path, block_id, shown.stderr)
        total += len(spans)
        again = cli("--claude-home", str(home), "verbatim", str(path), "--fold-index")
        assert again.stdout_bytes == result.stdout_bytes  # deterministic
    assert total > 100


def test_a_compaction_claude_code_1_0_wrote_without_a_boundary_folds_at_its_summary(
        cli, compacted) -> None:  # type: ignore[no-untyped-def]
    """e1ffaf02 (Claude Code 1.0.90) compacted once and wrote only the summary record: its
    fold index said "no compaction" while stats counted one (twenty-third session)."""
    from conftest import REAL_HOME

    [path] = (REAL_HOME / "projects").glob("*/e1ffaf02-1289-4b61-ae2e-694bf373993b.jsonl")
    result = cli("--claude-home", str(REAL_HOME), "verbatim", str(path), "--fold-index")
    assert result.code == 0 and "no compaction" not in result.stderr
    [record] = [orjson.loads(line) for line in result.stdout_bytes.splitlines()]
    assert (record["at"], record["usage"]["tokens"]) == ("2025-08-25T15:59:59.467Z", None)
    assert record["userMessages"][0] == {"turn": 0, "firstLine": "load claude.md"}
    view = TranscriptView(transcript_from_path(path))
    for span in record["spans"]:
        assert block_sha256(block_text(view, span["blockId"])) == span["sha256"]
