"""engines.listing: a session's quick-identity tuple from the two ends of its file
(SPEC §6.1), on builder-made transcripts."""

from __future__ import annotations

from pathlib import Path

from builders import ClaudeHome, assistant, rejection, stable_uuid, tool_use, user
from pysift.disk.layout import top_level_transcript
from pysift.engines.listing import summarize


def _summary(tmp_path: Path, *records):  # type: ignore[no-untyped-def]
    home = ClaudeHome(tmp_path / "claude")
    path = home.session("/home/ada/src/x", stable_uuid(str(len(records))), *records)
    return summarize(top_level_transcript(path))


def test_a_one_prompt_session_has_that_prompt_first_and_last(tmp_path: Path) -> None:
    s = _summary(tmp_path, user("port the parser\n\nto rust"), assistant("done"))
    assert s.first_user is not None and s.last_user is not None
    assert s.first_user.text == s.last_user.text == "port the parser to rust"
    assert s.first_user.ts == s.last_user.ts
    assert s.last_agent is not None and s.last_agent.text == "done"
    assert s.last_ts and s.version_last  # the tail envelope is filled either way


def test_a_line_both_ends_ask_about_is_decoded_once(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A two-line session: the first line is the envelope and the first prompt, the last
    the tail's envelope and the last answer; each is decoded once, and the row is the
    row the separate decodes made."""
    from pysift.engines import listing_read

    decoded: list[bytes] = []
    real = listing_read.decode

    def counting(line, *rest):  # type: ignore[no-untyped-def]
        decoded.append(bytes(line))
        return real(line, *rest)

    monkeypatch.setattr(listing_read, "decode", counting)
    s = _summary(tmp_path, user("port the parser"), assistant("done"))
    assert len(decoded) == len(set(decoded)) == 2
    assert s.first_user is not None and s.first_user.text == "port the parser"
    assert s.last_agent is not None and s.last_agent.text == "done"
    assert s.cwd and s.first_ts and s.last_ts and s.version_first and s.version_last


def test_an_agent_reply_whose_content_is_a_string_is_the_last_agent_message(
        tmp_path: Path) -> None:
    """``message.content`` may be a string (csift §3.4): search reads it as
    ``agent.message``, and the listing skipped it for an older block reply (or none)."""
    newest = assistant("newer reply, as a string")
    newest["message"]["content"] = "newer reply, as a string"
    s = _summary(tmp_path, user("go"), assistant("older block reply"), newest)
    assert s.last_agent is not None and s.last_agent.text == "newer reply, as a string"
    blank = assistant("x")
    blank["message"]["content"] = "  "
    s = _summary(tmp_path, user("go"), assistant("older block reply"), blank,
                 assistant(tool_use("Write", {"file_path": "/w/a.md", "content": "# notes"})))
    assert s.last_agent is not None and s.last_agent.text == "older block reply"


def test_the_last_human_message_is_the_newest_one(tmp_path: Path) -> None:
    s = _summary(tmp_path, user("first ask"), assistant("ok"), user("second ask"),
                 assistant("ok again"))
    assert (s.first_user.text, s.last_user.text) == ("first ask", "second ask")  # type: ignore[union-attr]


def test_a_rejection_with_an_instruction_is_the_last_human_message(tmp_path: Path) -> None:
    """Its carrier is judged by the first tool_result key of the line, so an echo holding
    another user/tool_result pair further on does not make it look plain."""
    echo = {"pad": "x" * 400,
            "echo": {"type": "user", "content": [{"type": "tool_result", "content": "y"}]}}
    s = _summary(
        tmp_path,
        user("first human message"),
        assistant(tool_use("Edit", {"file_path": "a.py"}, id="toolu_edit")),
        rejection("toolu_edit", "please use tabs instead", tool_use_result=echo),
    )
    assert s.last_user is not None
    assert s.last_user.text.endswith("please use tabs instead")


def test_an_opener_search_files_under_the_harness_is_nobodys_message(tmp_path: Path) -> None:
    """A resume's continuation written without isMeta opens a turn (csift's genuine-user
    rule) but search labels it harness.schedule.continuation: it is not the human's."""
    s = _summary(tmp_path, user("why is the build red?"), assistant("looking"),
                 user("Continue from where you left off."), assistant("ok, continuing"))
    assert s.last_user is not None and s.last_user.text == "why is the build red?"


# -- the envelope past the first and last lines -------------------------------------------

from datetime import UTC, datetime  # noqa: E402

from builders import Session, compact_boundary  # noqa: E402

SID = stable_uuid("envelope")
JAN, MAR = datetime(2026, 1, 5, 10, 0, tzinfo=UTC), datetime(2026, 3, 5, 10, 0, tzinfo=UTC)


def _untimed(count: int, kind: str = "summary") -> list[bytes]:
    """Records with no timestamp, version or branch (as summaries and last-prompt are)."""
    return [f'{{"type":"{kind}","summary":"s{i}","leafUuid":"l{i}"}}\n'.encode()
            for i in range(count)]


def _drifting() -> Session:
    """A prompt in January on 2.0.1/main, the reply in March on 2.0.2/dev."""
    s = Session(SID, cwd="/home/ada/src/x", version="2.0.1", git_branch="main", start=JAN)
    s.add(user("deep head prompt"))
    s.at(MAR)
    s.version, s.git_branch = "2.0.2", "dev"
    s.add(assistant("reply"))
    return s


def _listed(tmp_path: Path, *records):  # type: ignore[no-untyped-def]
    home = ClaudeHome(tmp_path / "claude")
    return summarize(top_level_transcript(home.session("/home/ada/src/x", SID, *records)))


def test_a_file_opening_with_many_untimed_records_keeps_its_first_timestamp(
        tmp_path: Path) -> None:
    """Past the first 64 lines the first timestamp was lost, so the activity span shrank
    to the reply's and `--until` before it dropped the session."""
    s = _listed(tmp_path, *_untimed(80), _drifting())
    assert s.first_ts == "2026-01-05T10:00:00.000Z"
    assert (s.version_first, s.branch_first) == ("2.0.1", "main")
    assert s.first_user is not None and s.first_user.text == "deep head prompt"


def test_a_file_ending_with_many_untimed_records_keeps_its_newest_envelope(
        tmp_path: Path) -> None:
    """The newest timestamp, version and branch are the reply's, not the older prompt's."""
    s = _listed(tmp_path, _drifting(), *_untimed(70, "last-prompt"))
    assert s.last_ts == "2026-03-05T10:00:00.000Z"
    assert (s.version_last, s.branch_last) == ("2.0.2", "dev")
    assert (s.version_first, s.branch_first) == ("2.0.1", "main")


def test_the_newest_branch_is_found_below_branchless_last_records(tmp_path: Path) -> None:
    """The last records carry a timestamp and a version but no branch: the branch is the
    newest one above them, not the last human message's."""
    s = Session(SID, cwd="/home/ada/src/x", git_branch="main", start=JAN)
    s.add(user("switch branches"))
    s.git_branch = "dev"
    s.add(assistant("switched"))
    s.git_branch = None
    for i in range(3):
        s.add(assistant(f"still working {i}"))
    summary = _listed(tmp_path, s)
    assert (summary.branch_first, summary.branch_last) == ("main", "dev")


def test_a_branchless_session_has_no_branch(tmp_path: Path) -> None:
    s = Session(SID, cwd="/home/ada/src/x", git_branch="", start=JAN)
    s.add(user("not a repo"))
    s.add(assistant("fine"))
    summary = _listed(tmp_path, *_untimed(70), s, *_untimed(70, "last-prompt"))
    assert summary.branch_first is None and summary.branch_last is None
    assert summary.first_ts and summary.last_ts and summary.version_last


def test_the_clone_probe_reads_past_the_first_lines(tmp_path: Path) -> None:
    """A clone is a file whose first TIMESTAMPED record is a compact boundary, however
    many untimed records stand before it."""
    s = Session(SID, cwd="/home/ada/src/x", start=JAN)
    boundary = s.add(compact_boundary(150_000))
    s.add(user("go on"))
    summary = _listed(tmp_path, *_untimed(70), s)
    assert summary.is_clone and summary.clone_boundary_uuid == boundary["uuid"]


# -- what the two ends read: malformed lines and unreadable instants -----------------------------


def test_a_torn_last_line_counts_in_a_session_without_a_human_message(tmp_path: Path) -> None:
    """The head used to claim the whole file when it found no human message, so the
    tail counted nothing it read: the torn last line went unreported."""
    s = Session(SID, cwd="/home/ada/src/x", start=JAN)
    s.add(assistant("a session the human never typed into"))
    summary = _listed(tmp_path, s, b'{"parentUuid": "x", "type": "assis')
    assert summary.skipped_lines == 1
    assert summary.last_agent is not None


def test_a_malformed_line_both_ends_read_counts_once(tmp_path: Path) -> None:
    """The head's walk over user lines and the tail's last lines both decode it."""
    s = Session(SID, cwd="/home/ada/src/x", start=JAN)
    s.add(assistant("no human here"))
    summary = _listed(tmp_path, s, b'{"type":"user","message":{"role":"us\n')
    assert summary.skipped_lines == 1


def test_the_span_ends_on_the_last_readable_timestamp(tmp_path: Path) -> None:
    """Trimmed records whose timestamp names no instant do not end the span: it used to
    close on them, fall back to the first instant, and drop the session from a window
    its readable records fall in."""
    s = _drifting()
    trimmed = Session(SID, cwd="/home/ada/src/x", start=MAR)
    trimmed.add(assistant("trimmed reply"))
    for record in trimmed.records:
        record["timestamp"] = "[trimmed for fixture]"
    summary = _listed(tmp_path, s, trimmed)
    assert summary.first_ts == "2026-01-05T10:00:00.000Z"
    assert summary.last_ts == "2026-03-05T10:00:00.000Z"


def test_the_span_opens_on_the_first_readable_timestamp(tmp_path: Path) -> None:
    head = Session(SID, cwd="/home/ada/src/x", start=JAN)
    head.add(user("no instant here"))
    for record in head.records:
        record["timestamp"] = "garbage"
    summary = _listed(tmp_path, head, _drifting())
    assert summary.first_ts == "2026-01-05T10:00:00.000Z"


# -- rows from the cache, through the pool (issue 22: the warm listing) --------------------


def _many(tmp_path: Path, count: int = 60) -> tuple[ClaudeHome, list]:  # type: ignore[type-arg]
    from pysift.disk.layout import Unreadable, iter_project_dirs, project_transcripts

    home = ClaudeHome(tmp_path / "claude")
    for k in range(count):
        home.session(f"/home/ada/src/p{k % 3}", stable_uuid(f"s{k}"),
                     user(f"ask number {k}\n\nplease"), assistant(f"answer {k}"),
                     user(f"and then {k}"), assistant(f"done {k}"))
    unread = Unreadable()
    found = [t for d in iter_project_dirs(home.projects, unread=unread)
             for t in project_transcripts(d, subagents=True, unread=unread)]
    return home, found


def _rows(summaries) -> list[tuple]:  # type: ignore[no-untyped-def, type-arg]
    def said(s):  # type: ignore[no-untyped-def]
        return None if s is None else (s.text, s.ts, s.label, s.from_, s.to)
    return [(s.transcript.path, s.cwd, s.version_first, s.version_last, s.branch_first,
             s.branch_last, said(s.first_user), said(s.last_user), said(s.last_agent),
             s.first_ts, s.last_ts, s.skipped_lines, s.is_clone, s.clone_boundary_uuid,
             s.view) for s in summaries]


def _store(root: Path):  # type: ignore[no-untyped-def]
    import time

    from pysift.disk.cache import CacheSettings, Store

    return Store(CacheSettings(root, True, settle_s=0.0), time.time() + 1)


def test_a_warm_listing_through_the_pool_reads_no_transcript(tmp_path: Path, monkeypatch
                                                              ) -> None:  # type: ignore[no-untyped-def]
    """Every row of an unchanged home comes from the cache in the forked workers too (the
    shards are loaded before the fork); the rows are those of an uncached run. A row laid
    out in a worker comes back as its view and the fields read after the layout."""
    import pickle

    from pysift.engines import listing

    def prepare(s) -> None:  # type: ignore[no-untyped-def]
        s.view = [(repr(_rows([s])[0][1:-1]), None)]  # the whole row, laid out

    def laid_out(summaries) -> list[tuple]:  # type: ignore[no-untyped-def, type-arg]
        return [(s.transcript.path, s.view, s.skipped_lines, s.error, s.sidecar_error,
                 s.first_ts, s.last_ts) for s in summaries]

    _, found = _many(tmp_path)
    cold = listing.run(found, prepare=prepare, workers=1)
    pooled = listing.run(found, prepare=prepare, workers=2)
    assert laid_out(pooled) == laid_out(cold)
    crossed = pickle.loads(pickle.dumps(cold[0]))  # as a worker's row crosses the pool
    crossed.transcript = cold[0].transcript
    assert laid_out([crossed]) == laid_out(cold[:1]) and crossed.first_user is None
    filled = listing.run(found, prepare=prepare, workers=2, cache=_store(tmp_path / "c"))
    assert laid_out(filled) == laid_out(cold)

    def no_read(*_args, **_kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("a transcript was read on a warm run")

    monkeypatch.setattr(listing, "summarize", no_read)
    warm = listing.run(found, prepare=prepare, workers=2, cache=_store(tmp_path / "c"))
    assert laid_out(warm) == laid_out(cold)  # made here, in-process: kept as laid out too
    assert all(s.first_user is None and s.cwd is None for s in warm + cold)


def test_a_warm_listing_reads_again_what_changed_and_only_that(tmp_path: Path, monkeypatch
                                                                ) -> None:  # type: ignore[no-untyped-def]
    """Through the pool: a grown transcript is read from its cached head on, a rewritten
    one whole, a new one whole; every other row is a hit. The rows equal an uncached run's."""
    from builders import to_line
    from pysift.engines import listing

    home, found = _many(tmp_path)
    listing.run(found, workers=2, cache=_store(tmp_path / "c"))
    grown, rewritten = found[5].path, found[17].path
    with open(grown, "ab") as fh:
        fh.write(to_line(user("a late ask")))
    data = rewritten.read_bytes()
    rewritten.write_bytes(data.replace(b"and then", b"AND THEN"))
    home.session("/home/ada/src/p0", stable_uuid("new"), user("a new session"))
    from pysift.disk.layout import Unreadable, iter_project_dirs, project_transcripts

    unread = Unreadable()
    found = [t for d in iter_project_dirs(home.projects, unread=unread)
             for t in project_transcripts(d, subagents=True, unread=unread)]
    read: list[str] = []
    real = listing.summarize

    def counted(transcript, grown=None, **kwargs):  # type: ignore[no-untyped-def]
        read.append(f"{transcript.path.name}:{'grown' if grown is not None else 'whole'}")
        return real(transcript, grown, **kwargs)

    monkeypatch.setattr(listing, "summarize", counted)
    warm = listing.run(found, workers=1, cache=_store(tmp_path / "c"))
    monkeypatch.setattr(listing, "summarize", real)
    cold = listing.run(found, workers=1)
    assert _rows(warm) == _rows(cold)
    new = next(t.path.name for t in found if t.session_id == stable_uuid("new"))
    assert sorted(read) == sorted([f"{grown.name}:grown", f"{rewritten.name}:whole",
                                   f"{new}:whole"])


def test_a_big_warm_scope_laid_out_goes_through_the_pool_hits_and_all(tmp_path: Path,
                                                                     monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """From ``HIT_POOL_MIN`` transcripts on, a listing laid out in the workers probes and
    makes every row there, one project dir at a time: the rows equal an uncached run's,
    a hit reads no transcript (in the worker either), and what changed is read again and
    kept for the next run."""
    from builders import to_line
    from pysift.engines import listing

    def prepare(s) -> None:  # type: ignore[no-untyped-def]
        s.view = (repr(_rows([s])[0][1:-1]), ())

    def laid_out(summaries) -> list[tuple]:  # type: ignore[no-untyped-def, type-arg]
        return [(s.transcript.path, s.view, s.skipped_lines, s.error, s.sidecar_error,
                 s.first_ts, s.last_ts) for s in summaries]

    monkeypatch.setattr(listing, "HIT_POOL_MIN", 10)
    _, found = _many(tmp_path)
    groups = listing._by_project(found)
    assert len(groups) == 3 and [i for g in groups for i in g] == list(range(len(found)))
    assert all(len({found[i].project_dir for i in g}) == 1 for g in groups)
    small = listing._by_project(found, most=7)  # one big project still spreads
    assert [i for g in small for i in g] == list(range(len(found)))
    assert max(len(g) for g in small) == 7 and len(small) == 9
    cold = listing.run(found, prepare=prepare, workers=1)
    filled = listing.run(found, prepare=prepare, workers=2, cache=_store(tmp_path / "c"))
    assert laid_out(filled) == laid_out(cold)
    real = listing.summarize

    def no_read(*_args, **_kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("a transcript was read on a warm run")

    monkeypatch.setattr(listing, "summarize", no_read)
    warm = listing.run(found, prepare=prepare, workers=2, cache=_store(tmp_path / "c"))
    assert laid_out(warm) == laid_out(cold)
    monkeypatch.setattr(listing, "summarize", real)
    with open(found[4].path, "ab") as fh:  # grown: read again in the worker, kept
        fh.write(to_line(user("a late ask")))
    changed = listing.run(found, prepare=prepare, workers=2, cache=_store(tmp_path / "c"))
    assert laid_out(changed) == laid_out(listing.run(found, prepare=prepare, workers=1))
    monkeypatch.setattr(listing, "summarize", no_read)
    again = listing.run(found, prepare=prepare, workers=2, cache=_store(tmp_path / "c"))
    assert laid_out(again) == laid_out(changed)


def test_a_row_from_the_cache_has_every_field_a_made_row_has(tmp_path: Path) -> None:
    """``from_facts`` and a laid-out row's unpickling set the fields one by one: the same
    fields as the dataclass's, the facts' values where the facts have them."""
    import pickle

    from pysift.core.cleanup import file_times
    from pysift.engines import listing
    from pysift.engines.listing import SessionSummary, from_facts

    _, found = _many(tmp_path, count=3)
    for transcript in found:
        made = summarize(transcript)
        kept = from_facts(transcript, made.facts)
        assert kept is not None
        assert list(kept.__dict__) == list(SessionSummary.__dataclass_fields__)
        assert made.file_times == file_times(transcript.path.stat())  # this run's, not a fact
        made.facts = made.stamp = made.file_times = None
        assert kept == made and _rows([kept]) == _rows([made])
        made.view = ("row", ())
        made.transcript = None  # type: ignore[assignment]
        crossed = pickle.loads(pickle.dumps(made))
        # every field reads: the laid-out ones as made, the others as their defaults
        blank = SessionSummary(transcript=None)  # type: ignore[arg-type]
        for name in SessionSummary.__dataclass_fields__:
            if name not in listing._LAID_OUT and name != "transcript":
                assert getattr(crossed, name) == getattr(blank, name), name
        assert (crossed.view, crossed.first_ts, crossed.last_ts, crossed.first_user) == (
            ("row", ()), made.first_ts, made.last_ts, None)
    assert from_facts(found[0], ("x",)) is None
    facts = summarize(found[0]).facts
    bad = list(facts)  # type: ignore[arg-type]
    bad[6] = (None, None, ("text", 5, None, None, None), None, None)  # a said's ts not a str
    assert from_facts(found[0], tuple(bad)) is None


# -- a session no human spoke in: its inbound messages stand in ---------------------------

def test_an_inbound_protocol_message_stands_in_for_the_human(tmp_path: Path) -> None:
    """A teammate lane woken only by the lead's shutdown request (a `<teammate-message>`
    whose body is a protocol object: search files it under agent.communication.signal)
    showed `first ◂ —` and `last ◂ —`, as if nothing had reached it (18 real teammate
    lanes); the request is its inbound message, labelled with its direction."""
    from builders import teammate_message

    request = ('{"type":"shutdown_request","requestId":"shutdown-1@lane","from":"team-lead",'
               '"reason":"all tasks done"}')
    s = _summary(tmp_path, teammate_message("team-lead", request),
                 assistant(tool_use("SendMessage", {"type": "shutdown_response",
                                                    "request_id": "shutdown-1@lane",
                                                    "approve": True})))
    assert s.first_user is not None and s.last_user is not None
    assert s.first_user.label == "agent.communication.signal"
    assert (s.first_user.from_, s.first_user.to) == ("team-lead", "self")
    assert "shutdown_request" in s.first_user.text
