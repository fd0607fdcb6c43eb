"""``pysift verbatim --fold-index``: seed-index v2 records per compaction, every span
resolving and verifying through ``show --block``."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import (
    ClaudeHome,
    Session,
    assistant,
    compact_boundary,
    compact_summary,
    to_line,
    tool_result,
    tool_use,
    torn,
    user,
)
from compacted import CWD, SID, build
from pysift.core.blocks import block_code


@pytest.fixture
def home(tmp_path: Path) -> ClaudeHome:
    return build(tmp_path / "claude")[0]


def records(result) -> list[dict]:  # type: ignore[no-untyped-def, type-arg]
    return [orjson.loads(line) for line in result.stdout_bytes.splitlines()]


def index(cli, home: ClaudeHome, target: str = f"@{SID}"):  # type: ignore[no-untyped-def]
    return cli("--claude-home", str(home.root), "verbatim", target, "--fold-index")


def assert_spans_verify(cli, root: Path, target: str, recs: list[dict]) -> int:  # type: ignore[type-arg]
    """Every span of every record resolves with show --block and its sha256 verifies; its
    size and line count are those of the text show prints."""
    checked = 0
    seen: dict[str, dict] = {}  # type: ignore[type-arg]
    for rec in recs:
        for span in rec["spans"]:
            if span["blockId"] in seen:
                assert seen[span["blockId"]] == span  # a later record repeats it unchanged
                continue
            seen[span["blockId"]] = span
            shown = cli("--claude-home", str(root), "show", target, "--block",
                        span["blockId"], "--sha256", span["sha256"], "--format", "json")
            assert shown.code == 0, (span, shown.stderr)
            [block] = shown.json_rows("block")
            data = block["text"].encode()
            assert span["log"]["bytes"] == len(data)
            assert span["log"]["lines"] == (data.count(b"\n") + (0 if data.endswith(b"\n")
                                                                  else 1) if data else 0)
            assert span["code"] == block_code(span["blockId"])
            assert shown.summary()["sha256_verified"] is True
            checked += 1
    return checked


def test_one_record_per_compaction(cli, home: ClaudeHome) -> None:
    result = index(cli, home)
    assert result.code == 0, result.stderr
    assert result.stderr == ""
    first, second = records(result)
    for seq, rec in enumerate((first, second), start=1):
        assert (rec["v"], rec["kind"], rec["harness"], rec["trigger"]) == (
            2, "fold-index", "pysift", "compact")
        assert rec["session"] == SID and rec["seq"] == seq
        assert rec["usage"]["contextWindow"] is None and rec["usage"]["fraction"] is None
    assert first["usage"]["tokens"] == 151000 and second["usage"]["tokens"] == 162000
    assert first["at"] == "2026-10-05T09:10:50.000Z"


def test_a_record_holds_all_history_before_its_boundary(cli, home: ClaudeHome) -> None:
    first, second = records(index(cli, home))
    assert first["userMessages"] == [
        {"turn": 0, "firstLine": "fix the epoch parse in tle.py"},
        {"turn": 1, "firstLine": "now speed up the pass finder"}]
    assert [u["turn"] for u in second["userMessages"]] == [0, 1, 2, 3]
    assert second["userMessages"][3]["firstLine"] == "trace 000: pass at epoch 24000.5 rejected"
    assert first["commands"] == ["pytest -q tests/test_passes.py", "python -m orbit.bench"]
    assert second["commands"] == first["commands"]
    # tool-input paths relative to the session's cwd, output paths from the harvest
    assert first["files"][:2] == ["src/orbit/tle.py", "tests/test_passes.py"]
    assert "src/orbit/cache.py" in second["files"]
    assert first["errors"] == ["FAILED tests/test_passes.py::test_iss - AssertionError: late"]
    assert "AssertionError" in first["identifiers"] and "ISS_PASS_0000" in first["identifiers"]
    ids = [s["blockId"] for s in first["spans"]]
    assert ids[1:2] == ["r:toolu_r1"] and "r:toolu_b1" in ids
    assert [s["blockId"] for s in second["spans"][:len(ids)]] == ids  # a prefix of the next
    persisted = next(s for s in first["spans"] if s["blockId"] == "r:toolu_b2")
    assert persisted["fullOutputPath"] == f"{CWD}/.claude/out/toolu_b2.txt"
    assert persisted["tool"] == "Bash" and persisted["turn"] == 1
    assert all(s["turn"] in (0, 1) for s in first["spans"])


def test_every_span_resolves_and_verifies_through_show(cli, home: ClaudeHome) -> None:
    assert assert_spans_verify(cli, home.root, f"@{SID}", records(index(cli, home))) == 9


def test_the_same_input_gives_identical_bytes(cli, home: ClaudeHome) -> None:
    assert index(cli, home).stdout_bytes == index(cli, home).stdout_bytes


def test_a_split_scan_gives_the_same_records(cli, home: ClaudeHome,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from pysift.seedindex import extract

    whole = index(cli, home).stdout_bytes
    monkeypatch.setattr(extract, "SPLIT_BYTES", 1)  # two processes, one half each
    monkeypatch.setattr(extract.fanout, "cpu_workers", lambda: 2)
    halves = _spy_halves(monkeypatch, extract.fanout)
    assert index(cli, home).stdout_bytes == whole
    assert halves == [2]


def test_a_scan_in_many_pieces_gives_the_same_records(cli, home: ClaudeHome,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces taken from a queue by two processes (more than two of them): the same
    bytes as one process reading the whole file."""
    from pysift.seedindex import extract

    whole = index(cli, home).stdout_bytes
    monkeypatch.setattr(extract, "SPLIT_BYTES", 1)
    monkeypatch.setattr(extract, "PIECE_BYTES", 1)  # as many pieces as MAX_PIECES allows
    monkeypatch.setattr(extract.fanout, "cpu_workers", lambda: 2)
    pieces = _spy_halves(monkeypatch, extract.fanout)
    assert index(cli, home).stdout_bytes == whole
    assert pieces == [extract.MAX_PIECES]


def test_many_transcripts_spread_over_processes_give_the_same_records(
        cli, home: ClaudeHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past FANOUT_MIN_FILES the transcripts are indexed in forked workers and their
    records come back pickled (an orjson.Fragment in a record could not be)."""
    from pysift.seedindex import extract

    source = next(home.root.glob(f"projects/*/{SID}.jsonl"))
    sids = [SID] + [f"5e5e5e5e-1111-4222-8333-{n:012d}" for n in range(extract.FANOUT_MIN_FILES)]
    for sid in sids[1:]:
        (source.parent / f"{sid}.jsonl").write_bytes(source.read_bytes())
    listed = tmp_path / "sessions.txt"
    listed.write_text("".join(f"@{sid}\n" for sid in sids))
    monkeypatch.setattr(extract.fanout, "cpu_workers", lambda: 2)
    args = ("--claude-home", str(home.root), "verbatim", "--sessions-from", str(listed),
            "--fold-index")
    spread = cli(*args)
    assert spread.code == 0, spread.stderr
    monkeypatch.setattr(extract, "FANOUT_MIN_FILES", len(sids) + 1)  # one after another
    serial = cli(*args)
    assert spread.stdout_bytes == serial.stdout_bytes
    recs = records(spread)
    assert len(recs) == 2 * len(sids) and {r["session"] for r in recs} == set(sids)


def _spy_halves(monkeypatch: pytest.MonkeyPatch, fanout) -> list[int]:  # type: ignore[no-untyped-def]
    """The number of parts each ``in_halves`` spread its scan over (a split really ran)."""
    spread: list[int] = []
    real = fanout.map_ordered

    def spy(fn, items, **kwargs):  # type: ignore[no-untyped-def]
        if fn is fanout._half:
            spread.append(len(items))
        return real(fn, items, **kwargs)

    monkeypatch.setattr(fanout, "map_ordered", spy)
    return spread


def test_no_compaction_prints_nothing(cli, tmp_path: Path) -> None:
    h = ClaudeHome(tmp_path / "c")
    s = Session("11111111-1111-4111-8111-111111111111", cwd="/w/p")
    s.add(user("hello"))
    s.add(assistant("hi"))
    h.session("/w/p", s.session_id, s)
    result = cli("--claude-home", str(h.root), "verbatim", f"@{s.session_id}", "--fold-index")
    assert (result.code, result.stdout) == (0, "")
    assert f"@{s.session_id} has no compaction — its fold index is empty" in result.stderr


def test_a_torn_boundary_still_makes_a_record(cli, tmp_path: Path) -> None:
    h = ClaudeHome(tmp_path / "c")
    s = Session("22222222-2222-4222-8222-222222222222", cwd="/w/p")
    s.add(user("one"))
    s.add(assistant("a"))
    boundary = s.stamp(compact_boundary(9000))
    path = h.project_dir("/w/p") / f"{s.session_id}.jsonl"
    h.raw_lines(path, [*(to_line(r) for r in s.records), torn(boundary, 0.8) + b"\n"])
    result = cli("--claude-home", str(h.root), "verbatim", f"@{s.session_id}", "--fold-index")
    [rec] = records(result)
    assert (rec["seq"], rec["at"], rec["usage"]["tokens"]) == (1, None, None)
    assert [u["firstLine"] for u in rec["userMessages"]] == ["one"]
    assert "1 malformed line(s) skipped" in result.stderr


def test_a_compaction_summary_without_a_boundary_record_folds_at_the_summary(
        cli, tmp_path: Path) -> None:
    """Claude Code 1.0.x compacted without a ``compact_boundary`` record: the summary
    (``isCompactSummary``, a new thread root) is the only trace. Its fold index said "no
    compaction" while stats counted one; the summary is the fold point now (twenty-third
    session), with no token count to give."""
    h = ClaudeHome(tmp_path / "c")
    s = Session("33333333-3333-4333-8333-333333333333", cwd="/w/p", version="1.0.90")
    s.add(user("run the build"))
    s.add(assistant(tool_use("Bash", {"command": "make"}, id="toolu_m1")))
    s.add(tool_result("toolu_m1", "make: *** [all] Error 2", is_error=True))
    s.add(assistant("The build fails in all."))
    summary = s.add(compact_summary("Summary:\n- \"run the build\"\n"), parent=None)
    s.add(user("retry"))
    s.add(assistant("Retrying."))
    h.session("/w/p", s.session_id, s)
    result = cli("--claude-home", str(h.root), "verbatim", f"@{s.session_id}", "--fold-index")
    assert result.code == 0, result.stderr
    assert "has no compaction" not in result.stderr
    [rec] = records(result)
    assert (rec["seq"], rec["at"], rec["usage"]["tokens"]) == (1, summary["timestamp"], None)
    assert rec["userMessages"] == [{"turn": 0, "firstLine": "run the build"}]
    assert rec["commands"] == ["make"]
    assert rec["errors"] == ["make: *** [all] Error 2"]
    assert rec["spans"][0]["blockId"] == "r:toolu_m1"


def test_a_summary_after_its_boundary_makes_no_second_record(cli, home: ClaudeHome) -> None:
    """A current compaction writes both records: one fold each, at the boundary."""
    assert [r["usage"]["tokens"] for r in records(index(cli, home))] == [151000, 162000]


def test_the_scan_split_matches_for_verbatim_too(cli, home: ClaudeHome,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from pysift.engines.verbatim import scan

    args = ("--claude-home", str(home.root), "verbatim", f"@{SID}", "--format", "json")
    whole = cli(*args).stdout_bytes
    monkeypatch.setattr(scan, "SPLIT_BYTES", 1)
    monkeypatch.setattr(scan.fanout, "cpu_workers", lambda: 2)
    halves = _spy_halves(monkeypatch, scan.fanout)
    assert cli(*args).stdout_bytes == whole
    assert halves == [2]


def test_thinking_blocks_count_in_the_part_numbers(cli, tmp_path: Path) -> None:
    """Parts are numbered over every block of a message, thinking blocks (read off their
    bytes) included: a text after two thinking records of one message is p2."""
    from builders import assistant_split, compact_summary, thinking

    h = ClaudeHome(tmp_path / "c")
    s = Session("33333333-3333-4333-8333-333333333333", cwd="/w/p")
    s.add(user("go"))
    s.add(assistant_split(thinking("first"), thinking("second"), "the answer", msg_id="msg_T"))
    s.add(compact_boundary(5000))
    s.add(compact_summary("s"))
    h.session("/w/p", s.session_id, s)
    [rec] = records(cli("--claude-home", str(h.root), "verbatim", f"@{s.session_id}",
                        "--fold-index"))
    assert [x["blockId"] for x in rec["spans"]] == ["a:msg_T:p2"]
    assert assert_spans_verify(cli, h.root, f"@{s.session_id}", [rec]) == 1


def _harvest_session(tmp_path: Path, errors: int, names: int) -> tuple[ClaudeHome, str, Path]:
    """Two Bash outputs before a boundary: an old one naming ``OLD_ONLY_TOKEN`` and a newer
    one of ``errors`` distinct error lines, the first ``names`` naming an identifier each."""
    from builders import tool_result, tool_use

    h = ClaudeHome(tmp_path / "c")
    s = Session("44444444-4444-4444-8444-444444444444", cwd="/w/p")
    s.add(user("run the suite"))
    s.add(assistant(tool_use("Bash", {"command": "make old"}, id="toolu_old")))
    s.add(tool_result("toolu_old", "error: OLD_ONLY_TOKEN broke"))
    s.add(assistant(tool_use("Bash", {"command": "make all"}, id="toolu_all")))
    lines = [f"error: case {n:03d}" + (f" in unit_{n:03d}" if n < names else "")
             for n in range(errors)]
    s.add(tool_result("toolu_all", "\n".join(lines)))
    s.add(compact_boundary(120000))
    s.add(user("continue"))
    h.session("/w/p", s.session_id, s)
    return h, s.session_id, h.project_dir("/w/p") / f"{s.session_id}.jsonl"


def test_the_caps_keep_the_newest_and_count_what_they_drop(cli, tmp_path: Path) -> None:
    h, sid, _ = _harvest_session(tmp_path, errors=205, names=70)
    [rec] = records(cli("--claude-home", str(h.root), "verbatim", f"@{sid}", "--fold-index"))
    assert len(rec["errors"]) == 200
    # the 6 oldest dropped, the old output's line among them
    assert rec["errors"][0] == "error: case 005 in unit_005"
    assert rec["errors"][-1] == "error: case 204"
    assert "error: OLD_ONLY_TOKEN broke" not in rec["errors"]
    # the large output's tokens first, the newest of them kept
    assert rec["identifiers"] == [f"unit_{n:03d}" for n in range(69, 5, -1)]
    assert rec["dropped"] == {"errors": 6, "identifiers": 71 - 64}


def test_every_output_before_the_boundary_is_harvested_the_recent_ones_first(
        cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Errors come from every output of the folded history (the newest kept by the cap);
    identifiers from the outputs just before the boundary first, then older ones while
    the cap leaves room, and the count of the rest is what the cap dropped."""
    from pysift.seedindex import extract

    h, sid, path = _harvest_session(tmp_path, errors=3, names=1)
    args = ("--claude-home", str(h.root), "verbatim", f"@{sid}", "--fold-index")
    [whole] = records(cli(*args))
    assert whole["errors"][0] == "error: OLD_ONLY_TOKEN broke"
    assert set(whole["identifiers"]) == {"OLD_ONLY_TOKEN", "unit_000"}
    data = path.read_bytes()
    newer = data.rindex(b"\n", 0, data.index(b'"tool_use_id":"toolu_all"')) + 1
    monkeypatch.setattr(extract, "HARVEST_BYTES", data.index(b"compact_boundary") - newer)
    [near] = records(cli(*args))
    assert near["errors"] == whole["errors"] == [
        "error: OLD_ONLY_TOKEN broke", "error: case 000 in unit_000", "error: case 001",
        "error: case 002"]
    assert near["identifiers"] == ["unit_000", "OLD_ONLY_TOKEN"]  # the recent one first
    assert near["dropped"] == {"errors": 0, "identifiers": 0}
    assert [s["blockId"] for s in near["spans"]] == [s["blockId"] for s in whole["spans"]]
    assert near["commands"] == ["make old", "make all"]


def test_an_old_output_past_the_cap_is_counted_as_dropped(
        cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The recent outputs fill the identifier cap: an older output's token is left out
    and counted, never silently."""
    from pysift.seedindex import extract

    h, sid, path = _harvest_session(tmp_path, errors=70, names=70)
    data = path.read_bytes()
    newer = data.rindex(b"\n", 0, data.index(b'"tool_use_id":"toolu_all"')) + 1
    monkeypatch.setattr(extract, "HARVEST_BYTES", data.index(b"compact_boundary") - newer)
    [rec] = records(cli("--claude-home", str(h.root), "verbatim", f"@{sid}", "--fold-index"))
    assert "OLD_ONLY_TOKEN" not in rec["identifiers"] and len(rec["identifiers"]) == 64
    assert rec["dropped"]["identifiers"] == 71 - 64
    assert rec["errors"][0] == "error: OLD_ONLY_TOKEN broke"  # errors: all history


def _straddling_session(tmp_path: Path) -> tuple[Path, str]:
    """A session whose records exercise every merge of split facts: a message written over
    several records (parts numbered across them, then continued after a compaction), a
    result echoed in ``toolUseResult`` and repeated later (its first span kept), a tool
    whose call and result sit on either side of any cut, paths and commands used twice."""
    from builders import assistant_split, compact_summary, thinking, tool_result, tool_use

    h = ClaudeHome(tmp_path / "c")
    s = Session("55555555-5555-4555-8555-555555555555", cwd="/w/p")
    s.add(user("go"))
    s.add(assistant_split(thinking("hm"), "first words",
                          tool_use("Bash", {"command": "make"}, id="toolu_a"),
                          "second words", msg_id="msg_S"))
    s.add(tool_result("toolu_a", "error: unit_one broke", tool_use_result={"stdout": "x"}))
    s.add(assistant(tool_use("Read", {"file_path": "/w/p/src/a.py"}, id="toolu_b")))
    s.add(tool_result("toolu_b", "see src/b.py", tool_use_result={"file": "a"}))
    s.add(compact_boundary(1000))
    s.add(compact_summary("s"))
    s.add(user("again"))
    s.add(tool_result("toolu_a", "error: unit_one broke", tool_use_result={"stdout": "x"}))
    s.add(assistant_split("more words", tool_use("Bash", {"command": "make"}, id="toolu_c"),
                          msg_id="msg_S"))
    s.add(tool_result("toolu_c", "ok", tool_use_result={"stdout": "ok"}))
    s.add(assistant(tool_use("Read", {"file_path": "/w/p/src/a.py"}, id="toolu_d")))
    s.add(compact_boundary(2000))
    path = h.session("/w/p", s.session_id, s)
    return path, s.session_id


def test_every_cut_of_the_file_gives_the_same_records(tmp_path: Path) -> None:
    """The facts of two ranges, cut at any line, assemble into the records of one range."""
    from pysift.commands.fold_index import FoldIndexResult
    from pysift.disk.layout import read_first_cwd, transcript_from_path
    from pysift.disk.mapped import open_buffer
    from pysift.seedindex import extract

    path, _ = _straddling_session(tmp_path)
    buf, cwd = open_buffer(path), read_first_cwd(path)
    transcript = transcript_from_path(path)

    def lines(ranges):  # type: ignore[no-untyped-def]
        return FoldIndexResult([extract.assemble(transcript, buf, ranges)]).lines()

    whole = lines([extract.scan_range(buf, 0, len(buf), cwd, subagent=False)])
    _first, second = [orjson.loads(line) for line in whole]
    assert [s["blockId"] for s in second["spans"]] == [
        "a:msg_S:p1", "a:msg_S:p3", "r:toolu_a", "r:toolu_b", "a:msg_S:p4", "r:toolu_c"]
    assert [s["tool"] for s in second["spans"]] == [None, None, "Bash", "Read", None, "Bash"]
    assert second["files"] == ["src/a.py", "src/b.py"] and second["commands"] == ["make"]
    cuts = [i + 1 for i, byte in enumerate(buf) if byte == 0x0A][:-1]
    assert len(cuts) > 10
    for cut in cuts:
        ranges = [extract.scan_range(buf, 0, cut, cwd, subagent=False),
                  extract.scan_range(buf, cut, len(buf), cwd, subagent=False)]
        assert lines(ranges) == whole, cut


def test_a_torn_boundary_read_as_a_user_line_still_harvests_its_window(cli, tmp_path: Path
                                                                        ) -> None:
    """The key pass leaves a user record's line at its first key; a line that reads as one
    by its bytes but does not decode, and names a boundary, is a torn compaction whose
    harvest window the pass must still know."""
    from builders import tool_result, tool_use

    h = ClaudeHome(tmp_path / "c")
    s = Session("66666666-6666-4666-8666-666666666666", cwd="/w/p")
    s.add(user("build it"))
    s.add(assistant(tool_use("Bash", {"command": "make"}, id="toolu_m")))
    s.add(tool_result("toolu_m", "error: unit_two broke", tool_use_result={"stdout": "x"}))
    path = h.project_dir("/w/p") / f"{s.session_id}.jsonl"
    broken = b'{"type":"user","subtype":"compact_boundary","compactMetadata":{"preTokens":}}'
    h.raw_lines(path, [*(to_line(r) for r in s.records), broken + b"\n"])
    result = cli("--claude-home", str(h.root), "verbatim", f"@{s.session_id}", "--fold-index")
    [rec] = records(result)
    assert (rec["seq"], rec["at"]) == (1, None)
    assert rec["errors"] == ["error: unit_two broke"]
    assert "unit_two" in rec["identifiers"]


def _opener_session(tmp_path: Path) -> tuple[ClaudeHome, str]:
    """Every kind of user-side record before a boundary: a typed prompt, a rejection with
    a typed reason (current and legacy wording), a click-only rejection, an answered
    AskUserQuestion of two questions, an inbound peer message, then a prompt."""
    from builders import auq_answer, auq_use, rejection, teammate_message, tool_use

    h = ClaudeHome(tmp_path / "c")
    s = Session("77777777-7777-4777-8777-777777777777", cwd="/w/p")
    s.add(user("plan the parser"))
    s.add(assistant(tool_use("Edit", {"file_path": "/w/p/a.py", "old_string": "x",
                                      "new_string": "y"}, id="toolu_e1")))
    s.add(rejection("toolu_e1", "\n  keep the old parser  \nand say why"))
    s.add(assistant(tool_use("Edit", {"file_path": "/w/p/b.py", "old_string": "x",
                                      "new_string": "y"}, id="toolu_e2")))
    s.add(rejection("toolu_e2", "你能否识别到和客户沟通的各种文件信息", legacy=True))
    s.add(assistant(tool_use("Edit", {"file_path": "/w/p/c.py", "old_string": "x",
                                      "new_string": "y"}, id="toolu_e3")))
    s.add(rejection("toolu_e3"))  # clicked reject, typed nothing: no message
    questions = [{"question": "Which store?", "options": ["sqlite", "files"]},
                 {"question": "Keep the cache?", "options": ["yes", "no"]}]
    s.add(assistant(auq_use(questions, id="toolu_q1")))
    s.add(auq_answer("toolu_q1", {"Which store?": "files", "Keep the cache?": "no, drop it"}))
    s.add(teammate_message("reviewer", "looks fine to me"))
    s.add(user("ship it"))
    s.add(assistant("done"))
    s.add(compact_boundary(9000))
    h.session("/w/p", s.session_id, s)
    return h, s.session_id


def test_a_rejection_reason_and_an_answer_are_user_messages(cli, tmp_path: Path) -> None:
    """Every record that opens a turn as the human (a typed prompt, a rejection's typed
    reason, an AskUserQuestion answer) is a user message, under the turn verbatim gives it;
    a click-only rejection and a peer message are not the human's words."""
    h, sid = _opener_session(tmp_path)
    [rec] = records(cli("--claude-home", str(h.root), "verbatim", f"@{sid}", "--fold-index"))
    assert rec["userMessages"] == [
        {"turn": 0, "firstLine": "plan the parser"},
        {"turn": 1, "firstLine": "keep the old parser"},
        {"turn": 2, "firstLine": "你能否识别到和客户沟通的各种文件信息"},
        {"turn": 3, "firstLine": "A1: files A2: no, drop it"},
        {"turn": 5, "firstLine": "ship it"}]
    shown = cli("--claude-home", str(h.root), "verbatim", f"@{sid}", "--budget", "100000")
    assert shown.code == 0, shown.stderr
    for line in ("keep the old parser and say why", "你能否识别到和客户沟通的各种文件信息",
                 "A1: files", "ship it"):
        assert line in shown.stdout


def _paths_session(tmp_path: Path) -> tuple[ClaudeHome, str, Path]:
    """Paths in an old output (far before the second boundary), a Windows cwd whose
    drive letter a tool input spells in the other case, a browser's user agent."""
    from builders import tool_result, tool_use

    h = ClaudeHome(tmp_path / "c")
    s = Session("88888888-8888-4888-8888-888888888888", cwd="D:\\Work")
    s.add(user("look around"))
    s.add(assistant(tool_use("Read", {"file_path": "d:\\Work\\launch.js"}, id="toolu_r1")))
    s.add(tool_result("toolu_r1", "loads vendor/early_only.js"))
    s.add(assistant(tool_use("Write", {"file_path": "D:/Work/notes/todo.md",
                                       "content": "x"}, id="toolu_w1")))
    s.add(tool_result("toolu_w1", "ok"))
    s.add(assistant(tool_use("Read", {"file_path": "C:\\Other\\x.txt"}, id="toolu_r2")))
    s.add(tool_result("toolu_r2", "Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 "
                                  "Chrome/147.0.0.0 Safari/537.36 from lib/python3.11/x.py"))
    s.add(compact_boundary(1000))
    s.add(user("more"))
    s.add(assistant(tool_use("Bash", {"command": "ls"}, id="toolu_b1")))
    s.add(tool_result("toolu_b1", "src/late.js\n" + "filler line\n" * 200))
    s.add(compact_boundary(2000))
    path = h.session("D:\\Work", s.session_id, s)
    return h, s.session_id, path


def test_windows_paths_are_made_relative_and_versions_are_no_files(cli, tmp_path: Path) -> None:
    h, sid, _ = _paths_session(tmp_path)
    first, _second = records(cli("--claude-home", str(h.root), "verbatim", f"@{sid}",
                                 "--fold-index"))
    assert first["files"] == ["launch.js", "vendor/early_only.js", "notes/todo.md",
                              "C:\\Other\\x.txt", "lib/python3.11/x.py"]


def test_a_later_record_keeps_the_paths_of_every_earlier_output(
        cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A record re-extracts all history: the path tokens of an output outside the harvest
    window stay in ``files`` (the window only ranks identifiers)."""
    from pysift.seedindex import extract

    h, sid, path = _paths_session(tmp_path)
    data = path.read_bytes()
    second_boundary = data.rindex(b"compact_boundary")
    late = data.rindex(b"\n", 0, data.index(b'"tool_use_id":"toolu_b1"')) + 1
    monkeypatch.setattr(extract, "HARVEST_BYTES", second_boundary - late)
    first, second = records(cli("--claude-home", str(h.root), "verbatim", f"@{sid}",
                                "--fold-index"))
    assert second["files"][:len(first["files"])] == first["files"]
    assert second["files"][len(first["files"]):] == ["src/late.js"]
    assert "vendor/early_only.js" in second["files"]
    again = cli("--claude-home", str(h.root), "verbatim", f"@{sid}", "--fold-index")
    assert again.stdout_bytes == cli("--claude-home", str(h.root), "verbatim", f"@{sid}",
                                     "--fold-index").stdout_bytes


def test_the_words_typed_after_an_ide_notice_are_the_user_message(cli, tmp_path: Path
                                                                 ) -> None:
    """An IDE extension puts the open file or the selected lines in a text block before
    the typed words: the typed words are the message; a notice alone is listed as it is."""
    from builders import text, user_blocks

    h = ClaudeHome(tmp_path / "c")
    s = Session("88888888-8888-4888-8888-888888888888", cwd="/w/p")
    s.add(user_blocks(text("<ide_opened_file>The user opened the file /w/p/a.py in the IDE."
                           "</ide_opened_file>"), text("rename load_config everywhere")))
    s.add(assistant("ok"))
    s.add(user_blocks(text("<ide_selection>The user selected the lines 1 to 2 from /w/p/a.py:"
                           "\ndef f():\n    pass\n</ide_selection>"), text("\n\nwhy empty?")))
    s.add(assistant("ok"))
    s.add(user_blocks(text("<ide_opened_file>The user opened the file /w/p/b.py in the IDE."
                           "</ide_opened_file>")))
    s.add(assistant("ok"))
    s.add(compact_boundary(100))
    h.session("/w/p", s.session_id, s)
    [rec] = records(cli("--claude-home", str(h.root), "verbatim", f"@{s.session_id}",
                        "--fold-index"))
    assert rec["userMessages"] == [
        {"turn": 0, "firstLine": "rename load_config everywhere"},
        {"turn": 1, "firstLine": "why empty?"},
        {"turn": 2, "firstLine": "<ide_opened_file>The user opened the file /w/p/b.py in the "
                                 "IDE.</ide_opened_file>"}]


def test_a_slash_command_a_queued_prompt_and_a_replayed_prompt(cli, tmp_path: Path) -> None:
    """A slash command with arguments is listed as typed; a prompt typed while the agent
    worked is listed once under the running turn (the text of an enqueue whose entry was
    removed, or a ``queued_command`` attachment; an enqueue sent as a turn of its own is
    that turn's opener, and a task notification on the queue is no prompt); a prompt a
    compaction re-anchor copied is listed once."""
    from builders import attachment, queue_op, slash_command

    h = ClaudeHome(tmp_path / "c")
    s = Session("99999999-9999-4999-8999-999999999999", cwd="/w/p")
    first = s.add(user("first prompt"))
    s.add(assistant("working"))
    s.add(queue_op("enqueue", "also check the docs"))
    s.add(queue_op("remove"))
    s.add(queue_op("enqueue"))
    s.add(queue_op("remove"))
    s.add(attachment("queued_command", {"prompt": [{"type": "text", "text": "and the tests"}],
                                        "commandMode": "prompt"}))
    s.add(queue_op("enqueue", "<task-notification>\n<task-id>b1</task-id>\n"
                              "<status>completed</status>\n</task-notification>"))
    s.add(queue_op("remove"))
    s.add(queue_op("enqueue", "sent on its own"))
    s.add(queue_op("dequeue"))
    s.add(user("sent on its own"))
    s.add(assistant("done"))
    s.add(slash_command("review", "check the auth module"))
    s.add(assistant("reviewed"))
    s.add(compact_boundary(100))
    s.adopt([first])  # the re-anchor's copy: same uuid, same parent
    s.add(user("after the fold"))
    s.add(compact_boundary(200))
    h.session("/w/p", s.session_id, s)
    one, two = records(cli("--claude-home", str(h.root), "verbatim", f"@{s.session_id}",
                           "--fold-index"))
    said = [(m["turn"], m["firstLine"]) for m in one["userMessages"]]
    assert said == [(0, "first prompt"), (0, "also check the docs"), (0, "and the tests"),
                    (1, "sent on its own"), (1, "/review check the auth module")]
    assert [m["firstLine"] for m in two["userMessages"]] == [*(t for _, t in said),
                                                             "after the fold"]
