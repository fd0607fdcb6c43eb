"""Where an elicitation sidecar's pending record stands in the turn numbering: the latest
turn, or the t0 of a transcript with no record (Claude Code had flushed nothing yet when
the first question of a session went up). search, show and the ``--turn`` window number
it alike."""

from __future__ import annotations

from builders import (
    ClaudeHome,
    Session,
    ai_title,
    assistant,
    auq_use,
    elicitation_pending,
    stable_uuid,
    user,
)

CWD = "/home/ada/src/first-ask"


def _first_ask(home: ClaudeHome, *native: dict, seed: str = "first-ask") -> str:
    """A session whose transcript holds ``native`` (nothing, by default) while its first
    question waits in the sidecar, the text CC will write beside it included."""
    sid = stable_uuid(seed)
    s = Session(sid, cwd=CWD)
    for rec in native:
        s.add(rec)
    path = home.session(CWD, sid, s)
    ask = s.stamp(assistant("Before I scaffold anything, one decision:", auq_use(
        [{"question": "Which database should the service use?",
          "options": ["Postgres", "SQLite"]}], id="toolu_first")), commit=False)
    home.sidecar(path, [elicitation_pending(ask, "toolu_first")])
    return sid


def _run(cli, home: ClaudeHome, *args: str):
    result = cli("--claude-home", str(home.root), *args)
    return result


def test_show_turn_0_of_an_empty_transcript_shows_its_pending_question(cli, home) -> None:
    """search numbered the question ·t0, yet `show --turn 0` said `no such turn(s): t0 —
    the transcript has 0 turn(s)`: the address search tells an agent to use failed."""
    sid = _first_ask(home)
    found = _run(cli, home, "search", "Which database", "--format", "json")
    (exchange,) = found.json_rows("exchange")
    assert exchange["turn_index"] == 0
    for turn in ("0", "-1", "0.."):
        shown = _run(cli, home, "show", f"@{sid}", "--turn", turn, "--format", "json")
        assert shown.code == 0, (turn, shown.stderr)
        (row,) = shown.json_rows("record")
        assert (row["turn_index"], row["source"], row["line"]) == (0, "elicitation-sidecar",
                                                                    None)
        assert shown.summary()["with_elicitation_sidecar"] is True
    text = _run(cli, home, "show", f"@{sid}", "--turn", "0")
    assert "(elicitation sidecar)" in text.stdout and "Which database" in text.stdout
    # the domain is that one turn
    beyond = _run(cli, home, "show", f"@{sid}", "--turn", "1")
    assert beyond.code == 1
    assert "no such turn(s): t1 — the transcript has 1 turn(s) (t0..t0)" in beyond.stderr


def test_show_turn_raw_of_an_empty_transcript_names_the_sidecar(cli, home) -> None:
    """``--raw`` prints transcript lines: a t0 held by the sidecar alone is an error naming
    the sidecar file and the fetch that shows the question, not "0 turn(s)"."""
    sid = _first_ask(home)
    raw = _run(cli, home, "show", f"@{sid}", "--turn", "0", "--raw")
    assert raw.code == 1
    assert "t0 holds only the pending elicitation(s) of the sidecar" in raw.stderr
    assert "elicitations.jsonl" in raw.stderr
    assert f"see them merged with: pysift show @{sid} --turn 0" in raw.stderr


def test_an_empty_transcript_without_a_pending_record_still_has_no_turn(cli, home) -> None:
    sid = stable_uuid("nothing-yet")
    home.session(CWD, sid, Session(sid, cwd=CWD))
    result = _run(cli, home, "show", f"@{sid}", "--turn", "0")
    assert result.code == 1
    assert "the transcript has 0 turn(s) (no turns)" in result.stderr


def test_search_turn_0_of_an_empty_transcript_finds_its_pending_question(cli, home) -> None:
    """The --turn window resolved against the transcript's zero turns: `search --turn 0`
    dropped the question search numbers t0 and called the zero DEFINITIVE (with the
    session as the only target, `no such turn(s): t0`)."""
    sid = _first_ask(home)
    other = stable_uuid("a-busy-session")
    home.session(CWD, other, user("deploy the api"), assistant("Deployed."))
    for scope in ((), (f"@{sid}",)):
        for turn in ("0", "-1"):
            result = _run(cli, home, "search", "Which database", *scope, "--turn", turn,
                          "--format", "json")
            assert result.code == 0, (scope, turn, result.stderr)
            (exchange,) = result.json_rows("exchange")
            assert exchange["turn_index"] == 0
            assert exchange["hits"][0]["source"] == "elicitation-sidecar"
            text = _run(cli, home, "search", "Which database", *scope, "--turn", turn)
            assert f"{sid[:8]}·t0" in text.stdout, (scope, turn)
    assert _run(cli, home, "search", "Which database", f"@{sid}", "--turn", "0",
                "-c").stdout.strip() == "1"
    assert _run(cli, home, "search", "Which database", f"@{sid}", "--turn", "0",
                "-l").stdout.split() == [sid]
    census = _run(cli, home, "search", "Which database", "--turn", "0", "--count-by", "turn",
                  "--format", "json").json_rows("census")
    assert [row["key"] for row in census] == [f"{sid}·t0"]
    beyond = _run(cli, home, "search", "Which database", f"@{sid}", "--turn", "1")
    assert beyond.code == 1
    assert "no such turn(s): t1" in beyond.stderr


def test_the_zero_check_reads_the_pending_t0_of_an_empty_transcript(cli, home) -> None:
    """The text beside the question is read by no selection until CC writes it; under
    `--turn 0` the check resolved the window against zero turns, left the record out and
    said DEFINITIVE."""
    sid = _first_ask(home)
    other = stable_uuid("a-busy-session")
    home.session(CWD, other, user("deploy the api"), assistant("Deployed."))
    result = _run(cli, home, "search", "Before I scaffold", "--turn", "0")
    assert result.code == 0, result.stderr
    assert "NOT a definitive absence" in result.stderr
    assert f"@{sid} elicitation sidecar" in result.stderr
    summary = _run(cli, home, "search", "Before I scaffold", "--turn", "0",
                   "--format", "json").summary()
    assert summary["definitive_absence"] is False


def test_a_transcript_of_records_that_open_no_turn_keeps_its_question_in_t0(
        cli, home) -> None:
    """A transcript holding only a title line has one turn, t0: the question stands there
    for search and show alike."""
    sid = _first_ask(home, ai_title("Pick the database"), seed="titled")
    found = _run(cli, home, "search", "Which database", "--turn", "0", "--format", "json")
    (exchange,) = found.json_rows("exchange")
    assert exchange["turn_index"] == 0
    shown = _run(cli, home, "show", f"@{sid}", "--turn", "0", "--format", "json")
    assert shown.code == 0, shown.stderr
    assert [(r["turn_index"], r["source"]) for r in shown.json_rows("record")] == [
        (0, "elicitation-sidecar")]


def test_a_pending_question_stands_in_the_latest_turn_everywhere(cli, home) -> None:
    """With native turns the question is the latest turn's, for search, show and both
    windows."""
    sid = _first_ask(home, user("scaffold the service"), assistant("On it."),
                     user("with a database"), seed="two-turns")
    found = _run(cli, home, "search", "Which database", "--format", "json")
    (exchange,) = found.json_rows("exchange")
    assert exchange["turn_index"] == 1
    assert _run(cli, home, "search", "Which database", "--turn", "0", "-c").stdout.strip() \
        == "0"
    assert _run(cli, home, "search", "Which database", "--turn", "1", "-c").stdout.strip() \
        == "1"
    shown = _run(cli, home, "show", f"@{sid}", "--turn", "1", "--format", "json")
    assert ("elicitation-sidecar", 1) in {(r["source"], r["turn_index"])
                                          for r in shown.json_rows("record")}
    earlier = _run(cli, home, "show", f"@{sid}", "--turn", "0", "--format", "json")
    assert all(r["source"] != "elicitation-sidecar" for r in earlier.json_rows("record"))


def test_siblings_of_an_empty_transcript_s_t0_include_its_other_pending_records(
        cli, home) -> None:
    """`show --turn 0` prints both open requests of a session with no record yet;
    `--siblings` on the exchange of one left the other out (a turn with no span got no
    siblings at all)."""
    from builders import system

    sid = stable_uuid("two-asks")
    s = Session(sid, cwd=CWD)
    path = home.session(CWD, sid, s)
    ask = s.stamp(assistant(auq_use([{"question": "Which database should the service use?",
                                      "options": ["Postgres", "SQLite"]}], id="toolu_two")),
                  commit=False)
    vault = s.stamp(system("informational", content="The vault server asks for a token",
                           level="info"), commit=False)
    home.sidecar(path, [elicitation_pending(ask, "toolu_two"),
                        elicitation_pending(vault, "mcp-vault-1", "mcp-elicitation")])
    shown = _run(cli, home, "show", f"@{sid}", "--turn", "0", "--format", "json")
    assert len(shown.json_rows("record")) == 2
    result = _run(cli, home, "search", "Which database", "--siblings", "--format", "json")
    (exchange,) = result.json_rows("exchange")
    assert [(h["tool_name"], h["source"]) for h in exchange["siblings"]] == [
        ("mcp-elicitation", "elicitation-sidecar")]
    text = _run(cli, home, "search", "Which database", "--siblings")
    assert "· agent.tool.use mcp-elicitation  (elicitation sidecar)  The vault server" \
        in text.stdout
