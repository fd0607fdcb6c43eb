"""A zero match never calls itself definitive while the pattern's text sits in records the
search did not read: an unclassified ``isMeta`` record (a skill body, a slash-command
expansion), a gated leaf the run did not open (a queued message), an attachment without
``--attachments``. The stderr line counts them, names each (session, line) and how to
read one; JSON ``definitive_absence`` is false. (issue 23)"""

from __future__ import annotations

import json
from pathlib import Path

from builders import ClaudeHome, Session, assistant, meta_user, queue_op, stable_uuid, user

CWD = "/home/ada/src/unseen"


def _home(tmp_path: Path, *records) -> tuple[ClaudeHome, str]:
    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("unseen-" + tmp_path.name)
    s = Session(sid, cwd=CWD)
    for rec in records:
        s.add(rec)
    home.session(CWD, sid, s)
    return home, sid


def _search(cli, home: ClaudeHome, *args: str):
    return cli("--claude-home", str(home.root), "search", *args)


def test_a_skill_body_in_an_unclassified_meta_record_is_no_definitive_absence(
        cli, tmp_path: Path) -> None:
    home, sid = _home(tmp_path, user("set up the image"),
                      meta_user("Base directory for this skill: /skills/docker\n"
                                "Always write a .dockerignore first."),
                      assistant("done"))
    result = _search(cli, home, "dockerignore", "-t", "user.*", "-t", "agent.*",
                     "-t", "harness.*", "--attachments", "--additional-context")
    assert result.code == 0
    assert "DEFINITIVE" not in result.stderr
    assert "NOT a definitive absence" in result.stderr
    assert "1 record(s) this search does not read (unclassified ×1)" in result.stderr
    assert f"@{sid} line 2" in result.stderr
    assert f"pysift show @{sid} --line 2 --raw" in result.stderr
    assert "genuinely absent" not in result.stderr
    summary = _search(cli, home, "dockerignore", "--format", "json").summary()
    assert summary["definitive_absence"] is False
    assert summary["matched"] == 0
    # the line it names holds the text
    shown = cli("--claude-home", str(home.root), "show", f"@{sid}", "--line", "2", "--raw")
    assert b"dockerignore" in shown.stdout.encode()


def test_a_queued_message_behind_its_gate_is_no_definitive_absence(cli, tmp_path: Path) -> None:
    home, sid = _home(tmp_path, user("go"), queue_op("enqueue", "recall the kestrel later"),
                      assistant("ok"))
    result = _search(cli, home, "kestrel", "-c")
    assert result.stdout.strip() == "0"
    assert "user.queued ×1" in result.stderr and f"@{sid} line 2" in result.stderr
    assert _search(cli, home, "kestrel", "--format", "json").summary()[
        "definitive_absence"] is False
    # opened explicitly, the same record is found
    assert _search(cli, home, "kestrel", "-t", "user.queued", "-c").stdout.strip() == "1"


def test_an_attachment_without_the_flag_is_no_definitive_absence(cli, tmp_path: Path) -> None:
    from builders import attachment

    home, sid = _home(tmp_path, user("go"),
                      attachment("hook_success", {"hookName": "SessionStart",
                                                  "content": "warmed the zanzibar cache"}),
                      assistant("ok"))
    result = _search(cli, home, "zanzibar")
    assert "harness.meta.attachment ×1" in result.stderr and f"@{sid} line 2" in result.stderr
    assert "NOT a definitive absence" in result.stderr
    reached = _search(cli, home, "zanzibar", "--attachments", "-c")
    assert reached.stdout.strip() == "1"


def test_text_only_in_a_record_s_envelope_leaves_the_absence_definitive(
        cli, tmp_path: Path) -> None:
    """The cwd is on every line, but no record renders it: still a definitive absence."""
    home, _ = _home(tmp_path, user("go"), meta_user("a caveat"), assistant("ok"))
    result = _search(cli, home, "unseen")
    assert "a DEFINITIVE absence" in result.stderr
    assert _search(cli, home, "unseen", "--format", "json").summary()[
        "definitive_absence"] is True


def test_a_record_outside_the_time_window_is_not_reported(cli, tmp_path: Path) -> None:
    home, _ = _home(tmp_path, user("go", timestamp="2026-01-05T10:00:00.000Z"),
                    meta_user("write a .dockerignore", timestamp="2026-01-05T10:00:01.000Z"),
                    assistant("ok", timestamp="2026-01-06T10:00:00.000Z"))
    result = _search(cli, home, "dockerignore", "--since", "2026-01-06")
    assert "a DEFINITIVE absence" in result.stderr


def test_a_gated_record_an_explicit_selection_left_out_keeps_the_absence_definitive(
        cli, tmp_path: Path) -> None:
    """`-t agent.thinking` did not ask for queued messages: the label probe names the
    gated record, and the zero stays definitive; `-t user.queued` would have read it."""
    home, _ = _home(tmp_path, user("go"), queue_op("enqueue", "recall the kestrel later"),
                    assistant("ok"))
    summary = _search(cli, home, "kestrel", "-t", "agent.thinking", "--format", "json").summary()
    assert summary["definitive_absence"] is True
    assert summary["excluded_by_label"] == {"records": 1, "by_label": {"user.queued": 1}}


def test_the_check_stops_at_its_limit_and_says_so(cli, tmp_path: Path, monkeypatch) -> None:
    """A common word of the attachments is in hundreds of thousands of records: the check
    stops after ``UNSEEN_LIMIT`` and the note says "at least"."""
    from pysift.engines.search import unseen

    monkeypatch.setattr(unseen, "UNSEEN_LIMIT", 2)  # the engine and the note read it there
    home, sid = _home(tmp_path, user("go"), *[queue_op("enqueue", f"kestrel {n}")
                                              for n in range(4)], assistant("ok"))
    result = _search(cli, home, "kestrel")
    assert "at least 2 record(s) (the check stops there)" in result.stderr
    assert "user.queued ×≥2" in result.stderr  # a lower bound, as every count there
    assert f"@{sid} line 2, @{sid} line 3." in result.stderr


def test_past_its_limit_the_remainder_is_a_lower_bound_too(
        cli, tmp_path: Path, monkeypatch) -> None:
    from pysift.engines.search import unseen

    monkeypatch.setattr(unseen, "UNSEEN_LIMIT", 7)
    home, _ = _home(tmp_path, user("go"), *[queue_op("enqueue", f"kestrel {n}")
                                              for n in range(9)], assistant("ok"))
    stopped = _search(cli, home, "kestrel").stderr
    assert "(+2 or more)" in stopped and "user.queued ×≥7" in stopped
    monkeypatch.setattr(unseen, "UNSEEN_LIMIT", 100)
    counted = _search(cli, home, "kestrel").stderr
    assert "(+4 more)" in counted and "user.queued ×9" in counted


def test_an_unclassified_record_counts_under_an_explicit_selection_too(
        cli, tmp_path: Path) -> None:
    """No selection reaches an unclassified ``isMeta`` record, so `-t agent.thinking`
    (which only decodes assistant lines) still has it checked."""
    home, sid = _home(tmp_path, user("go"),
                      meta_user("Base directory for this skill: write a .dockerignore"),
                      assistant("ok"))
    result = _search(cli, home, "dockerignore", "-t", "agent.thinking", "--format", "json")
    assert result.summary()["definitive_absence"] is False  # an isMeta record: unclassified
    assert f"@{sid} line 2" in result.stderr


# -- a record's second view: read under its richest label only ------------------------------


def _answered(tmp_path: Path) -> tuple[ClaudeHome, str]:
    from builders import auq_answer, auq_use

    questions = [{"question": "Which cache?", "options": ["redis", "memcached"]}]
    return _home(tmp_path, user("pick a cache for me"),
                 assistant(auq_use(questions, id="toolu_pick")),
                 auq_answer("toolu_pick", {"Which cache?": "redis"}),
                 assistant("redis it is"))


def test_the_tool_result_text_of_an_answer_is_no_definitive_absence(cli, tmp_path: Path) -> None:
    """An answered question is read as its question and answer (``user.answer``); the
    tool_result it came in (``User has answered your questions: …``) only by a -t naming
    ``agent.tool.result``. The label probe lifts the -t but renders the richest view too,
    so it used to call the zero "genuinely absent"."""
    home, sid = _answered(tmp_path)
    for selection in ((), ("-t", "user"), ("-t", "agent.message")):
        result = _search(cli, home, "User has answered", *selection)
        assert result.code == 0
        assert "NOT a definitive absence" in result.stderr, selection
        assert "(agent.tool.result ×1)" in result.stderr and f"@{sid} line 3" in result.stderr
        assert "a record's second label with a -t naming it" in result.stderr
        assert "genuinely absent" not in result.stderr and "DEFINITIVE" not in result.stderr
        assert _search(cli, home, "User has answered", *selection, "--format", "json"
                       ).summary()["definitive_absence"] is False
    # the label it names finds it; the answer itself is read on the default surface
    assert _search(cli, home, "User has answered", "-t", "agent.tool.result", "-c"
                   ).stdout.strip() == "1"
    assert _search(cli, home, "redis", "-t", "user.answer", "-c").stdout.strip() == "1"


def test_a_slash_command_s_wrapper_text_is_no_definitive_absence(cli, tmp_path: Path) -> None:
    from builders import slash_command

    home, sid = _home(tmp_path, slash_command("worktree-pr", "open the pull request"),
                      assistant("opened"))
    result = _search(cli, home, "<command-message>worktree-pr")
    assert "NOT a definitive absence" in result.stderr
    assert "(harness.command.invocation ×1)" in result.stderr and f"@{sid} line 1" in result.stderr
    assert _search(cli, home, "<command-message>worktree-pr", "-t",
                   "harness.command.invocation", "-c").stdout.strip() == "1"


def test_text_in_no_view_of_the_record_keeps_the_absence_definitive(cli, tmp_path: Path) -> None:
    """The check renders each label's view, not the raw line: the tool_use id that both
    lines of the exchange carry is in no view (the test above can fail)."""
    home, _ = _answered(tmp_path)
    result = _search(cli, home, "toolu_pick")
    assert "a DEFINITIVE absence" in result.stderr
    assert _search(cli, home, "toolu_pick", "--format", "json").summary()[
        "definitive_absence"] is True


def test_a_task_notification_s_unrendered_tags_are_no_definitive_absence(
        cli, tmp_path: Path) -> None:
    """A pulse renders as ``[kind id status] summary``: its output file and usage tags are
    read by no selection, so a pattern only there makes no definitive zero."""
    from livekit import pulse

    note = pulse("b7k2m9x1p", "completed", "Background command done").replace(
        "<summary>", "<output-file>/tmp/claude/tasks/UNIQPATHQQ.output</output-file>\n"
        "<summary>")
    home, sid = _home(tmp_path, user("go"), user(note, origin={"kind": "task-notification"}),
                      assistant("ok"))
    result = _search(cli, home, "UNIQPATHQQ")
    assert "NOT a definitive absence" in result.stderr
    assert "(text its rendering leaves out ×1)" in result.stderr
    assert f"pysift show @{sid} --line 2 --raw" in result.stderr
    assert _search(cli, home, "UNIQPATHQQ", "--format", "json").summary()[
        "definitive_absence"] is False
    # what the pulse renders is found as usual
    assert _search(cli, home, "Background command done", "-c").stdout.strip() == "1"


def test_hook_context_a_selection_names_without_its_flag_is_no_definitive_absence(
        cli, tmp_path: Path) -> None:
    """`-t harness.meta.hook` (or a `-t` reaching it) names the leaf hook context carries,
    but hook context is read only under --additional-context: the zero is no absence (it
    read DEFINITIVE while the record was there, as the attachment case already says)."""
    from builders import attachment

    home, sid = _home(tmp_path, user("go"),
                      attachment("hook_additional_context",
                                 {"content": ["registered the zanzibar session"],
                                  "hookName": "SessionStart", "hookEvent": "SessionStart"}),
                      assistant("ok"))
    for selection in (("-t", "harness.meta.hook"), ("-t", "harness"), ("-t", "harness.meta")):
        result = _search(cli, home, "zanzibar", *selection)
        assert result.code == 0
        assert "DEFINITIVE" not in result.stderr, selection
        assert "harness.meta.hook ×1" in result.stderr and f"@{sid} line 2" in result.stderr
        assert _search(cli, home, "zanzibar", *selection, "--format", "json").summary()[
            "definitive_absence"] is False
        reached = _search(cli, home, "zanzibar", *selection, "--additional-context", "-c")
        assert reached.stdout.strip() == "1"
    # a selection that leaves the leaf out keeps its zero definitive (the probe names it)
    summary = _search(cli, home, "zanzibar", "-t", "agent", "--format", "json").summary()
    assert summary["definitive_absence"] is True


def test_a_pattern_without_a_needle_is_checked_too(cli, tmp_path: Path) -> None:
    """A pattern no literal is required by (no needle pass, so no candidate lines) called
    every zero definitive: here a queued message and a skill body hold it."""
    home, sid = _home(tmp_path, user("go"), queue_op("enqueue", "release v12.40.7 tonight"),
                      meta_user("Base directory for this skill: /skills/rel\nship v3.1.4"),
                      assistant("ok"))
    pattern = r"v\d+\.\d+\.\d"
    result = _search(cli, home, pattern)
    assert result.code == 0
    assert "DEFINITIVE" not in result.stderr
    assert "user.queued ×1" in result.stderr and "unclassified ×1" in result.stderr
    assert f"@{sid} line 2" in result.stderr and f"@{sid} line 3" in result.stderr
    assert _search(cli, home, pattern, "--format", "json").summary()[
        "definitive_absence"] is False
    assert _search(cli, home, pattern, "-t", "user.queued", "-c").stdout.strip() == "1"
    # a selection that leaves user.queued out names only the unclassified record (the
    # label probe names the queued one)
    narrowed = _search(cli, home, pattern, "-t", "agent")
    assert "(unclassified ×1)" in narrowed.stderr and "user.queued ×1" in narrowed.stderr
    assert "this search does not read (unclassified ×1)" in narrowed.stderr
    # text in no record's view (the cwd is on every line) keeps it definitive too
    assert _search(cli, home, r"/home/\w+/src/unseen", "--format", "json").summary()[
        "definitive_absence"] is True


def test_a_sessions_title_line_is_no_definitive_absence(cli, tmp_path: Path) -> None:
    """A session's title lines (``ai-title``, ``custom-title``, 1.0.x's ``summary``) are
    rendered by no view; a search for a title's words said DEFINITIVE (the real corpus
    has about 270 such lines). Their envelope (session id, leaf uuid) stays no text."""
    home, sid = _home(tmp_path, user("go"), assistant("ok"),
                      {"type": "ai-title", "aiTitle": "Chart the kestrel migration",
                       "sessionId": stable_uuid("title-sid")},
                      {"type": "summary", "summary": "Heron count cleanup",
                       "leafUuid": stable_uuid("title-leaf")})
    for pattern, line in (("kestrel migration", 3), ("Heron count", 4)):
        result = _search(cli, home, pattern)
        assert "NOT a definitive absence" in result.stderr, pattern
        assert f"(unclassified ×1): @{sid} line {line}" in result.stderr
        assert _search(cli, home, pattern, "--format", "json").summary()[
            "definitive_absence"] is False
    for envelope in (stable_uuid("title-sid"), stable_uuid("title-leaf")):
        assert "a DEFINITIVE absence" in _search(cli, home, envelope).stderr
    # no selection reads a title, so an explicit one names it too (its zero said
    # DEFINITIVE and the label probe "genuinely absent even without the label filter")
    narrowed = _search(cli, home, "kestrel", "-t", "user.*")
    assert "(unclassified ×1)" in narrowed.stderr and "genuinely absent" not in narrowed.stderr


# -- the elicitation sidecar's pending records --------------------------------------------


def _pending(tmp_path: Path, *blocks, kind: str = "AskUserQuestion",
             native: tuple = ()) -> tuple[ClaudeHome, str]:
    """A session whose open question sits in its elicitation sidecar only, written as the
    hook writes it: the assistant record CC has not flushed yet, with the marker keys."""
    from builders import elicitation_pending

    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("pending-" + tmp_path.name)
    s = Session(sid, cwd=CWD)
    s.add(user("ship the release"))
    for rec in native:
        s.add(rec)
    path = home.session(CWD, sid, s)
    ask = s.stamp(assistant(*blocks), commit=False)
    home.sidecar(path, [elicitation_pending(ask, "toolu_open", kind)])
    return home, sid


def _open_question() -> dict:
    from builders import auq_use

    return auq_use([{"question": "Where should 0.4.0 go?", "options": ["TestPyPI", "PyPI"]}],
                   id="toolu_open")


def test_text_beside_a_pending_question_is_no_definitive_absence(cli, tmp_path: Path) -> None:
    """A pending record is labelled ``agent.tool.use`` and renders its tool_use only: the
    text block CC will write beside it (an ``agent.message``) is read by no selection
    until the question is answered, and the zero check read transcripts, not the sidecar,
    so `search 'Before I push'` called the zero DEFINITIVE (under any selection; with a
    -t the label probe, which renders the same units, said "genuinely absent")."""
    home, sid = _pending(tmp_path, "Before I push, one decision:", _open_question())
    for selection in ((), ("-t", "agent.tool.use"), ("-T", "agent.tool.use"), ("-t", "user"),
                      ("-t", "agent.message")):
        result = _search(cli, home, "Before I push", *selection)
        assert result.code == 0, result.stderr
        assert "DEFINITIVE" not in result.stderr, selection
        assert "genuinely absent" not in result.stderr, selection
        assert "NOT a definitive absence" in result.stderr, selection
        assert "(agent.message (elicitation sidecar) ×1)" in result.stderr, selection
        assert f"@{sid} elicitation sidecar" in result.stderr
        assert "elicitations.jsonl" in result.stderr  # where to read it: no line to show
        summary = _search(cli, home, "Before I push", *selection, "--format", "json").summary()
        assert summary["definitive_absence"] is False, selection
        assert summary["matched"] == 0
    # -c says it too
    counted = _search(cli, home, "Before I push", "-c")
    assert counted.stdout.strip() == "0" and "NOT a definitive absence" in counted.stderr


def test_a_pending_question_s_own_text_keeps_the_usual_diagnosis(cli, tmp_path: Path) -> None:
    """What the merged record renders is read by the run (a match) or, under a -t/-T that
    leaves agent.tool.use out, named by the label probe: the zero stays definitive."""
    home, _ = _pending(tmp_path, "Before I push, one decision:", _open_question())
    assert _search(cli, home, "Where should 0.4.0", "-c").stdout.strip() == "1"
    summary = _search(cli, home, "Where should 0.4.0", "-T", "agent.tool.use",
                      "--format", "json").summary()
    assert summary["definitive_absence"] is True
    assert summary["excluded_by_label"] == {"records": 1, "by_label": {"agent.tool.use": 1}}
    # text in no view of the pending record (its message id, its model) stays no text
    assert "a DEFINITIVE absence" in _search(cli, home, "toolu_open").stderr


def test_a_pending_record_outside_the_window_is_not_reported(cli, tmp_path: Path) -> None:
    home, _ = _pending(tmp_path, "Before I push, one decision:", _open_question())
    result = _search(cli, home, "Before I push", "--until", "2000-01-01")
    assert "a DEFINITIVE absence" in result.stderr
    # a --turn window that leaves out the latest turn (where a pending record stands)
    home2, _ = _pending(tmp_path / "turns", "Before I push, one decision:", _open_question(),
                        native=(assistant("ok"), user("and then?"), assistant("sure")))
    assert "a DEFINITIVE absence" in _search(cli, home2, "Before I push", "--turn", "0").stderr
    assert "NOT a definitive absence" in _search(cli, home2, "Before I push",
                                                 "--turn", "1").stderr


def test_a_pending_question_with_a_needle_less_pattern_is_checked_too(
        cli, tmp_path: Path) -> None:
    home, sid = _pending(tmp_path, "Release v12.40.7 first?", _open_question())
    result = _search(cli, home, r"v\d+\.\d+\.\d")
    assert "NOT a definitive absence" in result.stderr
    assert f"@{sid} elicitation sidecar" in result.stderr


def _pending_mcp(tmp_path: Path) -> tuple[ClaudeHome, str]:
    """A session an MCP server is asking something: the hook wrote the system record CC
    has no native form for, its message as ``content`` and the rest of the request
    beside it (the server, the form it wants filled)."""
    from builders import elicitation_pending, system

    home = ClaudeHome(tmp_path / "claude")
    sid = stable_uuid("mcp-" + tmp_path.name)
    s = Session(sid, cwd=CWD)
    s.add(user("refund order 8812"))
    s.add(assistant("Asking the billing server."))
    path = home.session(CWD, sid, s)
    ask = s.stamp(system("informational", content="Approve the refund?", level="info",
                         mcpServerName="billing-gateway",
                         requestedSchema={"type": "object", "properties": {"amount": {
                             "type": "number", "title": "Refund amount",
                             "description": "in euros, VAT included"}}}), commit=False)
    home.sidecar(path, [elicitation_pending(ask, "mcp-refund-1", "mcp-elicitation")])
    return home, sid


def test_an_mcp_request_s_form_beside_its_message_is_no_definitive_absence(
        cli, tmp_path: Path) -> None:
    """The merge renders an MCP elicitation's ``content`` (its message) as csift does;
    the server's name and the requested form's titles and descriptions are read by no
    selection, so `search 'Refund amount'` said DEFINITIVE while the session sat waiting
    on exactly that form."""
    home, sid = _pending_mcp(tmp_path)
    assert _search(cli, home, "Approve the refund", "-c").stdout.strip() == "1"
    for pattern in ("Refund amount", "VAT included", "billing-gateway"):
        for selection in ((), ("-t", "agent.tool.use")):
            result = _search(cli, home, pattern, *selection)
            assert result.code == 0, result.stderr
            assert "NOT a definitive absence" in result.stderr, (pattern, selection)
            assert f"@{sid} elicitation sidecar" in result.stderr
            assert "elicitations.jsonl" in result.stderr
            summary = _search(cli, home, pattern, *selection, "--format", "json").summary()
            assert summary["definitive_absence"] is False, (pattern, selection)
            assert summary["matched"] == 0
    # the marker keys the hook adds are no text of the request
    assert "a DEFINITIVE absence" in _search(cli, home, "mcp-refund-1").stderr


# -- strings no view renders as they read -------------------------------------------------


def test_a_quoted_shell_command_is_no_definitive_absence(cli, tmp_path: Path) -> None:
    """A tool call's input renders as JSON, so the commit message's quote reads `\\"`
    there: `search 'git commit -m "Fix kestrel'` found nothing and said DEFINITIVE while
    the session ran that command (the real corpus holds such calls). No selection's
    rendering holds the text as it reads, so the zero says so under any selection, and
    names the spelling that finds it."""
    from builders import tool_use

    home, sid = _home(tmp_path, user("commit it"),
                      assistant(tool_use("Bash", {"command": 'git commit -m "Fix kestrel drift"'})),
                      assistant("committed"))
    pattern = 'git commit -m "Fix kestrel'
    for selection in ((), ("-t", "agent.tool.use"), ("-t", "user.message")):
        result = _search(cli, home, pattern, *selection)
        assert result.code == 0
        assert "DEFINITIVE" not in result.stderr and "genuinely absent" not in result.stderr
        assert "(text its rendering spells escaped ×1)" in result.stderr, selection
        assert f"@{sid} line 2" in result.stderr and '(\\\\" and \\\\n in the pattern)' in (
            result.stderr)
        assert _search(cli, home, pattern, *selection, "--format", "json").summary()[
            "definitive_absence"] is False
    # the spelling it names finds the call
    assert _search(cli, home, r'git commit -m \\"Fix kestrel', "-c").stdout.strip() == "1"


def test_text_only_in_a_tool_s_result_echo_is_no_definitive_absence(
        cli, tmp_path: Path) -> None:
    """The carrier's ``toolUseResult`` echo (here the whole stdout, of which the model was
    shown a shortened result) is rendered by no view: a pattern only there is no absence.
    The ids beside it stay no text."""
    from builders import bash_result, tool_result, tool_use

    call = tool_use("Bash", {"command": "make census"}, id="toolu_census")
    home, sid = _home(tmp_path, user("count them"), assistant(call),
                      tool_result("toolu_census", "[output shortened]",
                                  tool_use_result=bash_result("3 kestrels, 2 herons")),
                      assistant("done"))
    result = _search(cli, home, "kestrels")
    assert "NOT a definitive absence" in result.stderr
    assert f"(text its rendering leaves out ×1): @{sid} line 3" in result.stderr
    assert _search(cli, home, "kestrels", "--format", "json").summary()[
        "definitive_absence"] is False
    assert "a DEFINITIVE absence" in _search(cli, home, "toolu_census").stderr
    # no selection's rendering holds it: a -t leaving the carrier out names it too (the
    # label probe, which renders the same views, said "genuinely absent")
    narrowed = _search(cli, home, "kestrels", "-t", "user.message")
    assert "(text its rendering leaves out ×1)" in narrowed.stderr
    assert "genuinely absent" not in narrowed.stderr and "DEFINITIVE" not in narrowed.stderr


def test_a_pattern_without_a_needle_finds_text_its_line_spells_escaped(
        cli, tmp_path: Path) -> None:
    """The needle-less check searched the pattern in the lines' raw bytes, where a line
    break reads `\\n` and a writer may spell `é` as `\\u00e9`: a queued release note
    across two lines, and a skill body in such a writer's line, made a DEFINITIVE zero."""
    from builders import to_line

    skill = meta_user("Base directory for this skill: /skills/rel\nship v3.1 café")
    home, sid = _home(tmp_path, user("go"), queue_op("enqueue", "release v12.40\n2031 tonight"),
                      assistant("ok"))
    path = next(home.root.rglob(f"{sid}.jsonl"))
    escaped = json.dumps(json.loads(to_line(skill)), ensure_ascii=True, separators=(",", ":"))
    assert "\\u00e9" in escaped
    path.write_bytes(path.read_bytes() + escaped.encode() + b"\n")
    for pattern, why, line in ((r"v\d+\.\d+\s\d{4}", "user.queued", 2),
                               (r"v\d\.\d\s[a-z]af\w", "unclassified", 4)):
        result = _search(cli, home, pattern)
        assert "DEFINITIVE" not in result.stderr, pattern
        assert f"({why} ×1): @{sid} line {line}" in result.stderr
        assert _search(cli, home, pattern, "--format", "json").summary()[
            "definitive_absence"] is False
