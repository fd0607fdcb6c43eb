"""``pysift recover`` over hand-built transcripts: the five modes, the boundaries as the
transcripts carry them, the Bash anchors, --file forms, --out, batch mode, bad input."""

from __future__ import annotations

import os
import shlex
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from builders import (
    ClaudeHome,
    Session,
    assistant,
    attachment,
    bash_result,
    compact_boundary,
    edit_echo,
    file_history_snapshot,
    gutter,
    read_echo,
    tool_result,
    tool_use,
    user,
    write_result,
)

S1 = "11111111-1111-4111-8111-111111111111"
S2 = "22222222-2222-4222-8222-222222222222"
CWD = "/w/proj"
F = "/w/proj/src/app.py"
V1 = "import os\n\n\ndef main():\n    print('v1')\n\n\nif __name__ == '__main__':\n    main()\n"


class Story:
    """A session told as its tool calls and their results."""

    def __init__(self, sid: str = S1, cwd: str = CWD, **kw: Any) -> None:
        self.s = Session(sid, cwd=cwd, **kw)
        self.n = 0
        self.s.add(user("fix the app"))

    def _call(self, name: str, tool_input: dict[str, Any], content: Any, *, is_error: bool = False,
              echo: Any = None, **extra: Any) -> None:
        self.n += 1
        tid = f"toolu_{self.n:04d}"
        self.s.add(assistant(tool_use(name, tool_input, id=tid)))
        self.s.add(tool_result(tid, content, is_error=is_error, tool_use_result=echo, **extra))

    def prompt(self, text: str) -> Story:
        self.s.add(user(text))
        return self

    def read(self, path: str, content: str, offset: int = 1, limit: int | None = None, *,
             echo: bool = True) -> Story:
        args: dict[str, Any] = {"file_path": path}
        if offset != 1:
            args["offset"] = offset
        if limit is not None:
            args["limit"] = limit
        self._call("Read", args, gutter(content, offset, limit),
                   echo=read_echo(path, content, offset, limit) if echo else None)
        return self

    def write(self, path: str, content: str, original: str | None = None, *,
              echo: bool = True) -> Story:
        self._call("Write", {"file_path": path, "content": content},
                   f"File created successfully at: {path}",
                   echo=write_result(path, content, original=original) if echo else None)
        return self

    def edit(self, path: str, old: str, new: str, original: str | None, *, echo: bool = True,
             replace_all: bool = False, **extra: Any) -> Story:
        args = {"file_path": path, "old_string": old, "new_string": new}
        if replace_all:
            args["replace_all"] = True
        result = edit_echo(path, old, new, original, replace_all=replace_all, **extra) \
            if echo and original is not None else None
        self._call("Edit", args, f"The file {path} has been updated successfully.", echo=result)
        return self

    def unanswered(self, name: str, tool_input: dict[str, Any]) -> Story:
        """A call whose result the transcript lost (a compaction, a stopped session)."""
        self.n += 1
        self.s.add(assistant(tool_use(name, tool_input, id=f"toolu_{self.n:04d}")))
        return self

    def fail(self, name: str, tool_input: dict[str, Any], text: str) -> Story:
        self._call(name, tool_input, f"<tool_use_error>{text}</tool_use_error>", is_error=True)
        return self

    def bash(self, command: str, stdout: str = "", stderr: str = "", *, is_error: bool = False,
             interrupted: bool = False, **echo: Any) -> Story:
        self._call("Bash", {"command": command, "description": "run"}, stdout or "(no output)",
                   is_error=is_error,
                   echo=bash_result(stdout, stderr, interrupted=interrupted, **echo))
        return self

    def add(self, *records: Any) -> Story:
        self.s.add(*records)
        return self


def run(cli, home: ClaudeHome, *args: str) -> Any:
    return cli("--claude-home", str(home.root), "recover", *args)


def save(home: ClaudeHome, story: Story, sid: str = S1) -> Path:
    return home.session(CWD, sid, story.s)


# -- restore ------------------------------------------------------------------------------------


@pytest.mark.parametrize("content", [V1, V1.rstrip("\n"), "one line", "x\r\ny\r\n", ""])
def test_restore_a_full_read_byte_for_byte(cli, home: ClaudeHome, content: str) -> None:
    save(home, Story().read(F, content))
    result = run(cli, home, "--file", F)
    assert result.code == 0, result.stderr
    assert result.stdout_bytes == content.encode()
    assert "complete; no bash mutation of this file" in result.stderr


def test_restore_write_then_edits(cli, home: ClaudeHome) -> None:
    v2 = V1.replace("v1", "v2")
    v3 = v2.replace("import os\n", "import os\nimport sys\n")
    save(home, Story().write(F, V1).edit(F, "v1", "v2", V1).edit(F, "import os\n",
                                                                 "import os\nimport sys\n", v2))
    result = run(cli, home, "--file", F, "--format", "json")
    assert result.code == 0
    [row] = result.json_rows("restore")
    assert row["complete"] is True and row["content"] == v3 and row["lines"] == 10
    assert row["boundaries"] == [] and row["suggested_search"].startswith("pysift search 'app\\.py'")
    assert result.summary() == {"kind": "summary", "sessions": 1, "file": F, "mode": "restore",
                                "unreadable": 0}


def test_restore_partial_is_a_loud_error(cli, home: ClaudeHome, tmp_path: Path) -> None:
    save(home, Story().read(F, V1, 1, 4))
    out = tmp_path / "app.py"
    result = run(cli, home, "--file", F, "--out", str(out))
    assert result.code == 1 and result.stdout == "" and not out.exists()
    assert "cannot restore /w/proj/src/app.py whole: the session saw 4 of 10 line(s) ([1..4]), " \
           "MISSING [5..10]" in result.stderr
    assert "--salvage" in result.stderr and "does not hunt" in result.stderr
    as_json = run(cli, home, "--file", F, "--format", "json")
    assert as_json.code == 1
    [row] = as_json.json_rows("restore")
    assert (row["complete"], row["reason"], row["lines"], row["total_lines"]) == \
        (False, "partial", 4, 10)
    assert as_json.summary()["sessions"] == 0


def test_a_length_never_seen_is_no_total(cli, home: ClaudeHome, tmp_path: Path) -> None:
    # a windowed Read known only from its `cat -n` text: lines 1..4, the length unknown.
    # restore's JSON and the batch report had said total_lines 4 (the last line seen), a
    # length the session never saw, while the text said `MISSING [5..?]`
    save(home, Story().read(F, V1, 1, 4, echo=False))
    as_json = run(cli, home, "--file", F, "--format", "json")
    assert as_json.code == 1
    [row] = as_json.json_rows("restore")
    assert (row["reason"], row["lines"], row["total_lines"]) == ("partial", 4, None)
    assert "MISSING [5..?]" in run(cli, home, "--file", F).stderr
    manifest = tmp_path / "lost.txt"
    manifest.write_text(f"{F}\n")
    out_dir = tmp_path / "restore"
    batch = run(cli, home, "--files-from", str(manifest), "--out-dir", str(out_dir),
                "--format", "json")
    [file_row] = batch.json_rows("file")
    assert (file_row["status"], file_row["known_lines"], file_row["total_lines"]) == \
        ("partial", 4, None)
    report = (out_dir / "recovery-report.tsv").read_text().splitlines()
    assert report[1].startswith(f"partial\t4\t?\t0\t0\t0\t{F}\t")


def test_restore_no_history_and_invalidated(cli, home: ClaudeHome) -> None:
    save(home, Story().read(F, V1).fail("Edit", {"file_path": F, "old_string": "a",
                                                 "new_string": "b"},
                                        "File has been modified since read, either by the user "
                                        "or by a linter. Read it again before attempting to "
                                        "write it."))
    result = run(cli, home, "--file", F, "--format", "json")
    assert result.code == 1
    assert result.json_rows("restore")[0]["reason"] == "invalidated"
    assert "modified_since_read" in result.stderr
    missing = run(cli, home, "--file", "/w/proj/src/other.py", "--format", "json")
    assert missing.code == 1 and missing.json_rows("restore")[0]["reason"] == "no-history"


def test_restore_recipe_before_the_first_change(cli, home: ClaudeHome) -> None:
    story = Story().read(F, V1).bash("npm run format")
    story.fail("Edit", {"file_path": F, "old_string": "v1", "new_string": "v2"},
               "File has been modified since read, either by the user or by a linter.")
    story.read(F, V1, 1, 3)
    save(home, story)
    result = run(cli, home, "--file", F)
    assert result.code == 1
    assert "before the first change the file was COMPLETE (9 lines" in result.stderr
    assert f"pysift recover @{S1} --file {F} --at @line:" in result.stderr
    assert "fmt:npm-script" in result.stderr


def test_restore_never_passes_an_older_session_off_as_current(cli, home: ClaudeHome) -> None:
    later = datetime(2026, 10, 7, 9, 0, tzinfo=UTC)
    save(home, Story(S1).write(F, V1), S1)
    newer = Story(S2, start=later).read(F, V1)  # the newer session saw the file change
    newer.fail("Edit", {"file_path": F, "old_string": "v1", "new_string": "v2"},
               "File has been modified since read, either by the user or by a linter.")
    save(home, newer, S2)
    result = run(cli, home, "--file", F, "--format", "json")
    assert result.code == 1 and result.json_rows("restore")[0]["reason"] == "invalidated"
    assert f"session {S2}" in result.stderr and f"pysift recover @{S1} --file {F}" in result.stderr
    assert run(cli, home, f"@{S1}", "--file", F).stdout == V1  # the older version, asked for


def test_restore_names_a_later_sessions_bash_touch(cli, home: ClaudeHome) -> None:
    later = datetime(2026, 10, 7, 9, 0, tzinfo=UTC)
    save(home, Story(S1).write(F, V1), S1)
    save(home, Story(S2, start=later).bash(f"rm {F}"), S2)  # the loss the user recovers from
    result = run(cli, home, "--file", F, "--format", "json")
    assert result.code == 0 and result.json_rows("restore")[0]["content"] == V1
    [b] = result.json_rows("restore")[0]["boundaries"]
    assert b["cause"] == "bash_mutation" and b["source_session_id"] == S2
    text = run(cli, home, "--file", F)
    assert "NOT verified against disk" in text.stderr and S2 in text.stderr


def test_restore_names_every_other_session_it_did_not_use(cli, home: ClaudeHome) -> None:
    """An older session whose events left no line of the file (the file changed under
    it) went unnamed, and a second version was only counted: restore now names each other
    session that touched the file, with what its events leave, as not used."""
    s3 = "33333333-3333-4333-8333-333333333333"
    story = Story(S1).read(F, V1)
    story.fail("Edit", {"file_path": F, "old_string": "v1", "new_string": "v2"},
               "File has been modified since read, either by the user or by a linter.")
    save(home, story, S1)
    save(home, Story(S2, start=datetime(2026, 10, 6, 9, 0, tzinfo=UTC)).write(F, "old\n"), S2)
    save(home, Story(s3, start=datetime(2026, 10, 7, 9, 0, tzinfo=UTC)).write(F, V1), s3)
    result = run(cli, home, "--file", F)
    assert result.code == 0 and result.stdout == V1
    notes = [line for line in result.stderr.splitlines() if "note:" in line]
    assert notes[0].endswith(f"note: 2 other session(s) in scope also touched {F}; restoring "
                             f"the freshest (session {s3}, last touched 2026-10-07 20:00:05 "
                             f"AEDT(UTC+11)); the other sessions' events were not replayed into it:")
    assert notes[1].endswith(f"note:   session {S2} (last touched 2026-10-06 20:00:05 "
                             f"AEDT(UTC+11)): a complete version, 1 line(s) known")
    assert notes[2].endswith(f"note:   session {S1} (last touched 2026-10-05 20:00:15 "
                             f"AEDT(UTC+11)): no line survives (invalidated at: "
                             f"modified_since_read)")


# -- boundaries -----------------------------------------------------------------------------------


def coverage(cli, home: ClaudeHome, *args: str) -> dict[str, Any]:
    result = run(cli, home, "--file", F, "--coverage", "--format", "json", *args)
    assert result.code == 0, result.stderr
    [row] = result.json_rows("coverage")
    return row


def test_original_file_disagreement(cli, home: ClaudeHome) -> None:
    formatted = V1.replace("'v1'", '"v1"')
    save(home, Story().read(F, V1).edit(F, "main()\n", "run()\n", formatted))
    row = coverage(cli, home)
    [b] = row["boundaries"]
    assert (b["cause"], b["confidence"], row["fragments"], row["soft_boundaries"]) == \
        ("original_file_disagreement", "authoritative", 1, 1)
    restored = run(cli, home, "--file", F)
    assert restored.stdout == formatted.replace("main()\n", "run()\n", 1)
    assert "NOT verified against disk" in restored.stderr


def test_stale_recovered_and_hint(cli, home: ClaudeHome) -> None:
    story = Story().read(F, V1).edit(F, "v1", "v2", V1, staleRecovered=True)
    story.bash("make fmt", staleReadFileStateHint=(
        "[This command modified 1 file you've previously read: src/app.py. Call Read before "
        "editing.]".replace("1 file", "1 file(s)")))
    save(home, story)
    row = coverage(cli, home)
    causes = [b["cause"] for b in row["boundaries"]]
    assert causes == ["stale_recovered", "hint_modified"]
    assert (row["hard_boundaries"], row["soft_boundaries"], row["fragments"]) == (1, 1, 2)
    assert row["events"]["stale_hint"] == 1 and row["events"]["stale_recovered"] == 1
    assert row["recoverable_lines"] == 0


def test_external_edit_names_the_formatter_clue(cli, home: ClaudeHome) -> None:
    story = Story().read(F, V1).bash("npm run format")
    story.add(attachment("edited_text_file", {"filename": F,
                                              "snippet": "1\timport os\n2\timport re"}))
    save(home, story)
    row = coverage(cli, home)
    [b] = row["boundaries"]
    assert b["cause"] == "external_edit" and "fmt:npm-script" in b["detail"]
    assert row["covered_ranges"] == [[1, 2]] and row["opaque_commands"] == 1


def test_file_history_jump_without_a_tool_write(cli, home: ClaudeHome) -> None:
    story = Story().read(F, V1)
    story.add(file_history_snapshot(backups={"src/app.py": 1}))
    story.prompt("I changed it in my editor")
    story.add(file_history_snapshot(backups={"src/app.py": 2}))
    save(home, story)
    row = coverage(cli, home)
    assert [b["cause"] for b in row["boundaries"]] == ["external_write"]
    assert row["events"]["history_snapshot"] == 2


def test_file_history_keys_are_relative_to_the_project_root_after_a_cd(
        cli, home: ClaudeHome) -> None:
    """Claude Code keys its file-history backups relative to the session's project root
    (the first recorded cwd); the records that name the file carry the cwd a shell `cd`
    moved to, and resolving the keys against that missed every backup (no external
    write could be seen) and named a file no record names."""
    story = Story()
    moved = {"cwd": CWD + "/src"}
    story.add(assistant(tool_use("Read", {"file_path": F}, id="toolu_r"), **moved))
    story.add(tool_result("toolu_r", V1, tool_use_result={
        "type": "text", "file": {"filePath": F, "content": V1, "numLines": V1.count("\n"),
                                 "startLine": 1, "totalLines": V1.count("\n")}}, **moved))
    story.add(file_history_snapshot(backups={"src/app.py": 1}))
    story.prompt("I changed it in my editor")
    story.add(file_history_snapshot(backups={"src/app.py": 2}))
    save(home, story)
    row = coverage(cli, home)
    assert row["events"]["history_snapshot"] == 2
    assert [b["cause"] for b in row["boundaries"]] == ["external_write"]


def _backup(version: int, *, present: bool = True, update: bool = False) -> dict[str, Any]:
    record = file_history_snapshot(backups={F: version}, is_update=update)
    if not present:  # the file did not exist when Claude Code backed it up
        record["snapshot"]["trackedFileBackups"][F]["backupFileName"] = None
    return record


def test_a_write_whose_result_was_lost_replays_when_file_history_shows_it_landed(
        cli, home: ClaudeHome) -> None:
    # the real shape (a compaction right after the call lost its result): a pre-edit
    # backup naming no file, the Write, the compaction, the next prompt's backup v2
    story = Story().add(_backup(1, present=False, update=True))
    story.unanswered("Write", {"file_path": F, "content": V1})
    story.add(compact_boundary(171128)).prompt("go on").add(_backup(2))
    save(home, story)
    row = coverage(cli, home)
    [b] = row["boundaries"]
    assert (b["cause"], b["confidence"], row["hard_boundaries"], row["fragments"]) == \
        ("result_missing", "authoritative", 0, 1)
    assert "v1 at L" in b["detail"] and "it landed" in b["detail"]
    assert row["recoverable_lines"] == 9 and row["events"]["write"] == 1
    restored = run(cli, home, "--file", F)
    assert restored.code == 0 and restored.stdout == V1
    assert "external_write" not in restored.stderr and "annotations" in restored.stderr
    # files lists the same write: the two commands tell one story
    files = cli("--claude-home", str(home.root), "files", "--by", "timeline", "--format", "json")
    assert [(m["op"], m["path"]) for m in files.json_rows("mutation")] == [("write", F)]


def test_a_write_whose_result_was_lost_is_never_asserted_unconfirmed(
        cli, home: ClaudeHome) -> None:
    v2 = V1.replace("'v1'", "'v2'")
    save(home, Story().read(F, V1).unanswered("Write", {"file_path": F, "content": v2}))
    row = coverage(cli, home)
    [b] = row["boundaries"]
    assert (b["cause"], row["hard_boundaries"]) == ("unconfirmed_write", 1)
    assert "no file-history version" in b["detail"]
    # the file is V1 or v2: only the lines both hold are known
    assert row["covered_ranges"] == [[1, 4], [6, 9]]
    restored = run(cli, home, "--file", F)
    assert restored.code == 1 and restored.stdout == ""
    assert "no result in the transcript and nothing shows whether they landed" in restored.stderr


def test_a_write_whose_result_was_lost_and_file_history_shows_no_change(
        cli, home: ClaudeHome) -> None:
    story = Story().read(F, V1).add(_backup(3, update=True))
    story.unanswered("Write", {"file_path": F, "content": "other\n"})
    # a pre-edit backup written after the call still shows the state before it: not read
    story.add(_backup(3, update=True)).prompt("go on").add(_backup(3))
    save(home, story)
    row = coverage(cli, home)
    [b] = row["boundaries"]
    assert b["cause"] == "result_missing" and "not replayed" in b["detail"]
    assert run(cli, home, "--file", F).stdout == V1


def test_unanchorable_edit_is_counted_never_asserted(cli, home: ClaudeHome) -> None:
    story = Story().read(F, V1, 1, 3).edit(F, "    print('v1')", "    print('v2')", V1)
    save(home, story)
    row = coverage(cli, home)
    assert row["events"]["edit_unanchorable"] == 1
    salvage = run(cli, home, "--file", F, "--salvage", "--format", "json")
    texts = [x["text"] for x in salvage.json_rows("snapshot")[0]["lines"]]
    assert "    print('v2')" not in texts and texts == ["import os", "", ""]


# -- the other modes --------------------------------------------------------------------------------


def test_salvage_and_at(cli, home: ClaudeHome) -> None:
    save(home, Story().read(F, V1, 1, 2).read(F, V1, 5, 2).edit(F, "v1", "v2", V1))
    result = run(cli, home, "--file", F, "--salvage")
    assert result.code == 0
    assert "    1  import os\n" in result.stdout
    assert "??? lines 3..4 unknown" in result.stdout and "??? lines 7..10 unknown" in result.stdout
    assert "    5      print('v2')" in result.stdout
    early = run(cli, home, "--file", F, "--at", "@line:4", "--format", "json")
    [snap] = early.json_rows("snapshot")
    assert snap["line"] == 4 and [x["n"] for x in snap["lines"]] == [1, 2]
    assert snap["gaps"] == [[3, 10]] and snap["seen_total_lines"] == 10  # Read's count
    latest = run(cli, home, "--file", F, "--at", "@latest", "--format", "json")
    assert latest.json_rows("snapshot")[0]["lines"][-1] == {"n": 6, "text": "", "set_at_line": 5}


def test_patches_never_span_a_boundary(cli, home: ClaudeHome) -> None:
    v2 = V1.replace("v1", "v2")
    story = Story().write(F, V1).edit(F, "v1", "v2", V1)
    story.fail("Edit", {"file_path": F, "old_string": "x", "new_string": "y"},
               "File has been modified since read")
    story.read(F, v2).edit(F, "import os", "import sys", v2)
    save(home, story)
    result = run(cli, home, "--file", F, "--patches", "--format", "json")
    kinds = [r["kind"] for r in result.json_rows()[1:-1]]
    assert kinds == ["segment", "boundary", "segment"]
    first, boundary, second = result.json_rows()[1:-1]
    assert first["anchor_source"] == "write" and "+    print('v2')" in first["unified_diff"]
    assert boundary["cause"] == "modified_since_read"
    assert second["anchor_source"] == "full-read"
    assert second["unified_diff"].count("\n-") == 1 and "+import sys" in second["unified_diff"]
    text = run(cli, home, "--file", F, "--patches")
    assert "⚠ INTEGRITY BOUNDARY" in text.stdout and "─ SEGMENT 2" in text.stdout


def test_coverage_text(cli, home: ClaudeHome) -> None:
    save(home, Story().read(F, V1, 1, 4).bash("cd src && sed -i s/v1/v2/ app.py"))
    result = run(cli, home, "--file", F, "--coverage")
    assert result.code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == f"SESSION {S1}"
    assert "  recoverable: 4/10 lines (40%)  fragments: 1" in lines
    assert "  covered line ranges: [1..4]" in lines
    assert any(line.startswith("    ~ L") and "bash `sed-i` on /w/proj/src/app.py [cd-tracked]"
               in line and line.endswith("(HEURISTIC)") for line in lines)
    assert lines[-1].startswith("mode=coverage")


def test_file_lines(cli, home: ClaudeHome) -> None:
    save(home, Story().read(F, V1))
    result = run(cli, home, "--file", F, "--file-lines", "4..5")
    assert result.stdout == "def main():\n    print('v1')\n"
    row = coverage(cli, home, "--file-lines", "-2..")
    assert row["covered_ranges"] == [[8, 9]]  # cat -n numbering: V1 has 9 lines


def test_windows_leave_events_out_and_say_so(cli, home: ClaudeHome) -> None:
    story = Story().read(F, V1)
    story.fail("Edit", {"file_path": F, "old_string": "x", "new_string": "y"},
               "File has been modified since read")
    story.prompt("again").read(F, V1, 1, 2)
    save(home, story)
    result = run(cli, home, "--file", F, "--coverage", "--turn", "0")
    assert "left out 0" not in result.stderr
    late = run(cli, home, "--file", F, "--coverage", "--turn", "1", "--format", "json")
    assert late.json_rows("coverage")[0]["covered_ranges"] == [[1, 2]]
    # the rejected Edit was called at 09:00:15 (its error came at :20): an event is its call's
    early = run(cli, home, "--file", F, "--coverage", "--until", "2026-10-05T09:00:14Z",
                "--format", "json")
    assert "left out 1 integrity-relevant event" in early.stderr
    assert early.json_rows("coverage")[0]["boundaries"] == []
    at_call = run(cli, home, "--file", F, "--coverage", "--until", "2026-10-05T09:00:15Z",
                  "--format", "json")
    [b] = at_call.json_rows("coverage")[0]["boundaries"]
    assert (b["cause"], b["ts_utc"]) == ("modified_since_read", "2026-10-05T09:00:15.000Z")


# -- --file forms -------------------------------------------------------------------------------------


def test_suffix_match_and_ambiguity(cli, home: ClaudeHome) -> None:
    save(home, Story().read(F, V1))
    assert run(cli, home, "--file", "src/app.py").stdout == V1
    assert run(cli, home, "--file", "app.py").stdout == V1
    assert run(cli, home, "--file", "pp.py").code == 1  # no component match
    save(home, Story(S2).read("/w/other/app.py", "x\n"), S2)
    ambiguous = run(cli, home, "--file", "app.py")
    assert ambiguous.code == 2 and "names 2 different files" in ambiguous.stderr
    assert "/w/other/app.py" in ambiguous.stderr
    hint = run(cli, home, "--file", "/elsewhere/app.py")
    assert hint.code == 1 and "files with the same name that were" in hint.stderr


def test_file_at_plan(cli, home: ClaudeHome) -> None:
    plan = str(home.root / "plans" / "nested-prancing-popcorn.md")
    story = Story()
    story.add(attachment("plan_mode", {"isSubAgent": False, "planFilePath": plan,
                                       "planExists": False}))
    story.write(plan, "# Plan\n\n1. read\n").edit(plan, "1. read\n", "1. read\n2. fix\n",
                                                   "# Plan\n\n1. read\n")
    save(home, story)
    result = run(cli, home, f"@{S1}", "--file", "@plan")
    assert result.code == 0 and result.stdout == "# Plan\n\n1. read\n2. fix\n"
    assert f"@plan resolved to {plan}" in result.stderr
    save(home, Story(S2).read("/w/x.py", "x"), S2)
    none = run(cli, home, f"@{S2}", "--file", "@plan")
    assert none.code == 1 and "no plan file is bound" in none.stderr


def test_file_at_plan_names_the_exit_plan_mode_calls_that_hold_the_plans(cli, home: ClaudeHome
                                                                        ) -> None:
    """Claude Code 1.x/early 2.0 kept each plan inside its ExitPlanMode call (no plan file,
    no slug): `--file @plan` said "a session has a plan only once it entered Plan Mode",
    false for a session that proposed plans (real f852ad25, cb2e607c, b25638d7). The error
    names the calls' lines and the search that prints them, as `pysift plan` does."""
    story = Story()
    story.s.add(assistant(tool_use("ExitPlanMode", {"plan": "## Plan A"}, id="toolu_plan_a")))
    story.s.add(tool_result("toolu_plan_a", "User rejected the plan", is_error=True))
    story.s.add(assistant(tool_use("ExitPlanMode", {"plan": "## Plan B"}, id="toolu_plan_b")))
    save(home, story)
    result = run(cli, home, f"@{S1}", "--file", "@plan")
    assert result.code == 1 and "no plan file is bound" in result.stderr
    assert "entered Plan Mode" not in result.stderr
    assert f"@{S1} (L2, L4)" in result.stderr
    assert f"pysift search ExitPlanMode @{S1} -t agent.tool.use --no-truncate" in result.stderr


# -- Bash anchors -------------------------------------------------------------------------------------


def test_bash_heredoc_write_anchor(cli, home: ClaudeHome) -> None:
    save(home, Story().bash(f"cat > {F} << 'EOF'\n{V1}EOF"))
    result = run(cli, home, "--file", F)
    assert result.code == 0 and result.stdout == V1
    row = coverage(cli, home)
    assert row["events"]["bash_write_anchor"] == 1 and row["boundaries"] == []


def test_compound_write_needs_a_clean_result(cli, home: ClaudeHome) -> None:
    save(home, Story().bash(f"cat > {F} << 'EOF'\n{V1}EOF\npython {F}", stdout="v1\n"))
    assert run(cli, home, "--file", F).stdout == V1
    save(home, Story().bash(f"cat > {F} << 'EOF'\n{V1}EOF\npython {F}", stderr="Traceback"))
    row = coverage(cli, home)
    assert row["events"]["bash_write_anchor"] == 0
    assert [b["cause"] for b in row["boundaries"]] == ["bash_mutation"]


@pytest.mark.parametrize("half", [f'echo v2 > {F} "oops', f"echo v2 > {F} <( cat x",
                                  f"{{ echo v2 > {F}", f"echo v2 > {F} &&"])
def test_a_command_the_shell_refused_is_no_event(cli, home: ClaudeHome, half: str) -> None:
    """bash refuses the line before running any of it: the file is as the Write left
    it, with no Bash event or boundary (it had been a `bash_mutation` boundary)."""
    save(home, Story().write(F, V1).bash(half, stderr="bash: syntax error", is_error=True))
    result = run(cli, home, "--file", F)
    assert result.code == 0 and result.stdout == V1
    assert "complete; no bash mutation of this file" in result.stderr
    row = coverage(cli, home)
    assert row["boundaries"] == [] and row["events"]["bash_write_anchor"] == 0


def test_second_touch_refuses_the_anchor(cli, home: ClaudeHome) -> None:
    save(home, Story().bash(f"echo hi > {F} && sed -i s/hi/ho/ {F}"))
    row = coverage(cli, home)
    assert row["events"]["bash_write_anchor"] == 0 and len(row["boundaries"]) == 2


def test_bash_append_and_truncate(cli, home: ClaudeHome) -> None:
    save(home, Story().read(F, V1).bash(f"echo 'main()' >> {F}"))
    assert run(cli, home, "--file", F).stdout == V1 + "main()\n"
    save(home, Story().read(F, V1).bash(f"truncate -s 0 {F}"))
    emptied = run(cli, home, "--file", F)
    assert emptied.code == 0 and emptied.stdout == ""
    save(home, Story().read(F, V1, 1, 2).bash(f"printf 'x' >> {F}"))
    row = coverage(cli, home)
    assert [b["cause"] for b in row["boundaries"]] == ["bash_append_unplaced"]


def test_bash_read_anchors(cli, home: ClaudeHome) -> None:
    # Claude Code records a shell's stdout with its end trimmed and the blank lines that
    # open or close it stripped: the last printed line is never asserted, and the first
    # is line 1 only when the window printed every line it asked for
    save(home, Story().bash(f"head -n 4 {F}", stdout="import os\n\n\ndef main():"))
    assert coverage(cli, home)["covered_ranges"] == [[1, 3]]
    save(home, Story().bash(f"cat {F}", stdout=V1.rstrip("\n")))
    assert coverage(cli, home)["covered_ranges"] == []  # where it begins is not proven
    save(home, Story().read(F, V1, 1, 2).bash(f"cat {F}", stdout=V1.rstrip("\n")))
    trimmed = coverage(cli, home)  # line 1 known: the printed lines are placed
    assert trimmed["covered_ranges"] == [[1, 8]] and trimmed["seen_total_lines"] == 10
    assert trimmed["events"]["bash_read_anchor"] == 1


def test_bash_read_anchor_never_shifts_lines(cli, home: ClaudeHome) -> None:
    content = "\n\n#!/bin/sh\necho hi\nexit 0\n"  # two blank lines Claude Code strips
    save(home, Story().bash(f"cat {F}", stdout="#!/bin/sh\necho hi\nexit 0"))
    salvage = run(cli, home, "--file", F, "--salvage", "--format", "json")
    assert salvage.json_rows("snapshot") == []
    save(home, Story().bash(f"sed -n '2,4p' {F}", stdout="#!/bin/sh\necho hi"))
    assert coverage(cli, home)["covered_ranges"] == []
    save(home, Story().bash(f"head -n 4 {F}", stdout="\n\n#!/bin/sh\necho hi"))  # unstripped
    lines = run(cli, home, "--file", F, "--salvage", "--format", "json").json_rows("snapshot")
    assert [(x["n"], x["text"]) for x in lines[0]["lines"]] == \
        [(1, ""), (2, ""), (3, "#!/bin/sh")] == [(n, t) for n, t in
                                                 enumerate(content.split("\n")[:3], 1)]


def test_bash_read_anchor_of_a_cut_output(cli, home: ClaudeHome) -> None:
    body = "".join(f"row {i:05d} " + "x" * 80 + "\n" for i in range(1000))
    stdout = body[:30000] + "\n\n... [672 lines truncated] ..."  # the recorded shape
    save(home, Story().read(F, body, 1, 1).bash(f"cat {F}", stdout=stdout))
    rows = run(cli, home, "--file", F, "--salvage", "--format", "json").json_rows("snapshot")
    shown = {x["n"]: x["text"] for x in rows[0]["lines"]}
    truth = dict(enumerate(body.split("\n"), 1))
    assert shown and all(truth[n] == text for n, text in shown.items())
    assert max(shown) == body[:30000].count("\n")  # the cut line is not asserted


def test_hint_explained_by_the_calls_own_write(cli, home: ClaudeHome) -> None:
    save(home, Story().read(F, V1).bash(
        f"cat > {F} << 'EOF'\nnew\nEOF", staleReadFileStateHint=(
            "[This command modified 1 file(s) you've previously read: src/app.py. Call Read "
            "before editing.]")))
    row = coverage(cli, home)
    assert row["boundaries"] == [] and row["events"]["stale_hint"] == 0
    assert run(cli, home, "--file", F).stdout == "new\n"


def test_powershell_and_opaque_commands_are_counted(cli, home: ClaudeHome) -> None:
    story = Story().read(F, V1).bash("npm install && black .")
    story._call("PowerShell", {"command": "Set-Content app.py x"}, "")
    save(home, story)
    row = coverage(cli, home)
    assert row["opaque_commands"] == 1 and row["powershell_commands"] == 1
    [b] = row["boundaries"]  # black over the directory holding the file
    assert b["cause"] == "bash_mutation" and "/w/proj (which holds the file)" in b["detail"]
    result = run(cli, home, "--file", F)
    assert "also in this window: 1 mutating-class command(s) whose file set is not in the " \
           "command text (pkg:npm) and 1 PowerShell command(s), never parsed" in result.stderr


# -- subagents, gutter reads, merged streams ----------------------------------------------------------


def test_subagent_gutter_reads_and_input_edits(cli, home: ClaudeHome) -> None:
    main = save(home, Story().read(F, V1))
    agent = Story(S1, agent_id="a1b2c3d4e5f6a7b8c")
    agent.read(F, V1, echo=False).edit(F, "v1", "v2", None, echo=False)
    home.subagent(main, "a1b2c3d4e5f6a7b8c", agent.s)
    result = run(cli, home, "--file", F, "--format", "json")
    assert result.json_rows("restore")[0]["content"] == V1.replace("v1", "v2")
    assert "replayed as one stream" in result.stderr
    cov = run(cli, home, "--file", F, "--coverage", "--format", "json")
    [row] = cov.json_rows("coverage")
    assert row["session_id"] == S1 and row["events"]["read_full"] == 2
    alone = run(cli, home, f"@{S1}", "--no-subagents", "--file", F)
    assert alone.stdout == V1


def test_an_edit_known_from_its_input_only_never_asserts_trailing_blanks(
        cli, home: ClaudeHome) -> None:
    # Claude Code (2.x) strips the new text's trailing blanks outside markdown before it
    # writes; the model's input still carries them: that line is not asserted either way
    story = Story().read(F, V1).edit(F, "    print('v1')\n", "    print('v2')  \n    x = 1\n",
                                     None, echo=False)
    save(home, story)
    rows = run(cli, home, "--file", F, "--salvage", "--format", "json").json_rows("snapshot")
    shown = {x["n"]: x["text"] for x in rows[0]["lines"]}
    assert 5 not in shown and shown[6] == "    x = 1" and shown[4] == "def main():"
    assert run(cli, home, "--file", F).code == 1
    notes = "/w/proj/NOTES.md"
    save(home, Story().read(notes, "a\nb\n").edit(notes, "b\n", "b  \n", None, echo=False))
    assert run(cli, home, "--file", notes).stdout == "a\nb  \n"  # markdown keeps them


# -- --out ---------------------------------------------------------------------------------------------


def test_out_never_over_an_existing_file(cli, home: ClaudeHome, tmp_path: Path) -> None:
    save(home, Story().read(F, V1))
    out = tmp_path / "app.py"
    result = run(cli, home, "--file", F, "--out", str(out), "--format", "json")
    assert result.code == 0 and out.read_text() == V1
    row = result.json_rows("restore")[0]
    assert row["wrote"] is True and row["path"] == str(out) and "content" not in row
    again = run(cli, home, "--file", F, "--out", str(out))
    assert again.code == 2 and "already exists" in again.stderr
    out.write_text("mine")
    forced = run(cli, home, "--file", F, "--out", str(out), "--force")
    assert forced.code == 0 and out.read_text() == V1 and forced.stdout == ""
    inside = run(cli, home, "--file", F, "--out", str(home.root / "x.py"))
    assert inside.code == 2 and "inside the Claude home" in inside.stderr
    assert not (home.root / "x.py").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_out_and_out_dir_expand_a_quoted_tilde(cli, home: ClaudeHome, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A quoted ``~/…`` (``--out '~/x'``, ``--out=~/x``) names the user's home, as the
    shell would have spelled it, for --out, --out-dir and --files-from alike."""
    save(home, Story().read(F, V1))
    me, here = tmp_path / "me", tmp_path / "here"
    me.mkdir()
    here.mkdir()
    monkeypatch.setenv("HOME", str(me))
    monkeypatch.chdir(here)
    result = run(cli, home, "--file", F, "--out=~/app.py")
    assert result.code == 0, result.stderr
    assert (me / "app.py").read_text() == V1
    (me / "m.txt").write_text(F + "\n")
    batch = run(cli, home, "--files-from", "~/m.txt", "--out-dir", "~/tree")
    assert batch.code == 0, batch.stderr
    assert [p.read_text() for p in (me / "tree").rglob("app.py")] == [V1]
    assert not (here / "~").exists()


def test_out_for_snapshots_and_patches(cli, home: ClaudeHome, tmp_path: Path) -> None:
    save(home, Story().read(F, V1, 1, 2))
    out = tmp_path / "snap.txt"
    result = run(cli, home, "--file", F, "--salvage", "--out", str(out))
    assert result.code == 0 and f"(wrote partial snapshot to {out})" in result.stdout
    assert out.read_text() == "    1  import os\n    2  \n??? lines 3..10 unknown\n"


# -- bad input -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("args, message", [
    ((), "recover needs --file"),
    (("--file", F, "--salvage", "--patches"), "--salvage and --patches are different modes"),
    (("--files-from", "m.txt"), "--files-from needs --out-dir"),
    (("--file", F, "--files-from", "m.txt", "--out-dir", "o"), "exclusive"),
    (("--file", F, "--at", "@line:x"), "@line:N needs a whole number"),
    (("--file", F, "--at", "@soon"), "is no --at form"),
    (("--file", ""), "--file is empty"),
    (("--out-dir", "o", "--file", F), "--out-dir goes with --files-from"),
])
def test_usage_errors(cli, home: ClaudeHome, args: tuple[str, ...], message: str) -> None:
    save(home, Story().read(F, V1))
    result = run(cli, home, *args)
    assert result.code == 2 and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


# -- batch ---------------------------------------------------------------------------------------------

G = "/w/proj/src/lib.py"


def test_batch(cli, home: ClaudeHome, tmp_path: Path) -> None:
    save(home, Story().read(F, V1).read(G, "a\nb\nc\n", 1, 2))
    manifest = tmp_path / "lost.txt"
    manifest.write_text(f"# lost in the checkout\n{F}\n\n{G}\n/w/proj/gone.py\n{F}\n")
    out_dir = tmp_path / "restore"
    result = run(cli, home, "--files-from", str(manifest), "--out-dir", str(out_dir))
    assert result.code == 0, result.stderr
    assert (out_dir / "w/proj/src/app.py").read_text() == V1
    assert not (out_dir / "w/proj/src/lib.py").exists()
    assert (out_dir / "w/proj/src/lib.py.partial").read_text() == \
        "    1  a\n    2  b\n??? lines 3..4 unknown\n"  # Read counts 4 for a\nb\nc\n
    report = (out_dir / "recovery-report.tsv").read_text().splitlines()
    assert report[0] == "status\tknown_lines\ttotal_lines\tboundaries\tbash_file\tbash_opaque\t" \
                        "target\twritten_to"
    assert report[1].startswith(f"complete\t9\t9\t0\t0\t0\t{F}\t")
    assert report[2].startswith(f"partial\t2\t4\t0\t0\t0\t{G}\t")
    assert report[3] == "no-history\t0\t0\t0\t0\t0\t/w/proj/gone.py\t"
    assert "1 complete · 1 partial · 0 invalidated · 1 no-history" in result.stdout
    again = run(cli, home, "--files-from", str(manifest), "--out-dir", str(out_dir),
                "--format", "json")
    statuses = [r["status"] for r in again.json_rows("file")]
    assert statuses == ["skipped-exists", "skipped-exists", "no-history"]
    assert again.summary()["report"].startswith(str(out_dir / "recovery-report-"))


def test_batch_never_writes_an_older_session_as_current(cli, home: ClaudeHome,
                                                       tmp_path: Path) -> None:
    later = datetime(2026, 10, 7, 9, 0, tzinfo=UTC)
    save(home, Story(S1).write(F, V1).write(G, "a\n"), S1)
    newer = Story(S2, start=later).read(F, V1).bash(f"rm {G}")
    newer.fail("Edit", {"file_path": F, "old_string": "v1", "new_string": "v2"},
               "File has been modified since read, either by the user or by a linter.")
    save(home, newer, S2)
    manifest = tmp_path / "lost.txt"
    manifest.write_text(f"{F}\n{G}\n")
    out_dir = tmp_path / "restore"
    result = run(cli, home, "--files-from", str(manifest), "--out-dir", str(out_dir),
                 "--format", "json")
    rows = {r["file"]: r for r in result.json_rows("file")}
    assert rows[F]["status"] == "invalidated" and rows[F]["written_to"] is None
    assert not (out_dir / "w/proj/src/app.py").exists()
    assert rows[G]["status"] == "complete" and rows[G]["boundaries"] == 1  # the later rm
    assert result.summary()["flagged"] == 1


@pytest.mark.parametrize("line, message", [
    ("src/app.py", "is not an absolute path"),
    ("/w/proj/../etc/passwd", "has a `..` component"),
])
def test_batch_manifest_errors_write_nothing(cli, home: ClaudeHome, tmp_path: Path, line: str,
                                             message: str) -> None:
    save(home, Story().read(F, V1))
    manifest = tmp_path / "m.txt"
    manifest.write_text(f"{F}\n{line}\n")
    out_dir = tmp_path / "restore"
    result = run(cli, home, "--files-from", str(manifest), "--out-dir", str(out_dir))
    assert result.code == 2 and message in result.stderr and not out_dir.exists()


def test_batch_refuses_a_symlink_escape(cli, home: ClaudeHome, tmp_path: Path) -> None:
    save(home, Story().read(F, V1))
    manifest = tmp_path / "m.txt"
    manifest.write_text(f"{F}\n")
    out_dir = tmp_path / "restore"
    (out_dir / "w").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, out_dir / "w" / "proj")
    result = run(cli, home, "--files-from", str(manifest), "--out-dir", str(out_dir))
    assert result.code == 2 and "symbolic link" in result.stderr
    assert list(outside.iterdir()) == [] and not (out_dir / "recovery-report.tsv").exists()


@pytest.mark.parametrize("order", [1, -1])
def test_batch_a_file_where_another_needs_a_directory_writes_nothing(
        cli, home: ClaudeHome, tmp_path: Path, order: int) -> None:
    # the session wrote /w/proj/build as a file and, later, /w/proj/build/out.py: both
    # cannot exist under one --out-dir; the batch used to stop half-way with no report
    build, inner = "/w/proj/build", "/w/proj/build/out.py"
    save(home, Story().write(build, "x\n").write(inner, "y\n"))
    manifest = tmp_path / "m.txt"
    manifest.write_text("\n".join([build, inner][::order]) + "\n")
    out_dir = tmp_path / "restore"
    result = run(cli, home, "--files-from", str(manifest), "--out-dir", str(out_dir))
    assert result.code == 2 and not out_dir.exists()
    assert f"{build} and {inner}" in result.stderr or f"{inner} and {build}" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_batch_a_listed_directory_without_history_does_not_block_its_files(
        cli, home: ClaudeHome, tmp_path: Path) -> None:
    save(home, Story().read(F, V1))
    manifest = tmp_path / "m.txt"
    manifest.write_text(f"/w/proj/src\n{F}\n")  # as `find` lists a tree
    out_dir = tmp_path / "restore"
    result = run(cli, home, "--files-from", str(manifest), "--out-dir", str(out_dir))
    assert result.code == 0 and (out_dir / F.lstrip("/")).read_text() == V1


def test_batch_an_existing_file_in_the_way_writes_nothing(cli, home: ClaudeHome,
                                                         tmp_path: Path) -> None:
    save(home, Story().read(F, V1).write(G, "g\n"))
    manifest = tmp_path / "m.txt"
    manifest.write_text(f"{G}\n{F}\n")
    out_dir = tmp_path / "restore"
    (out_dir / "w/proj").mkdir(parents=True)
    (out_dir / "w/proj/src").write_text("mine\n")  # F needs a directory there
    result = run(cli, home, "--files-from", str(manifest), "--out-dir", str(out_dir))
    assert result.code == 2 and "exists and is not a directory" in result.stderr
    assert sorted(p.name for p in out_dir.rglob("*")) == ["proj", "src", "w"]
    (out_dir / "w/proj/src").unlink()
    (out_dir / F.lstrip("/")).mkdir(parents=True)  # a directory where F goes
    again = run(cli, home, "--files-from", str(manifest), "--out-dir", str(out_dir), "--force")
    assert again.code == 2 and "is a directory" in again.stderr
    assert not (out_dir / "recovery-report.tsv").exists()


def test_help_has_examples_and_schema(cli) -> None:
    result = cli("recover", "--help")
    assert result.code == 0
    for needle in ("EXAMPLES", "--files-from lost.txt --out-dir", '"kind":"restore"',
                   '"kind":"coverage"', '"kind":"snapshot"', '"kind":"segment"',
                   '"cause","confidence"', "--dry-run", "@plan", "fragments = hard + 1"):
        assert needle in result.stdout, needle


def test_batch_progress_goes_to_the_callback(home: ClaudeHome, tmp_path: Path) -> None:
    from pysift.commands.recover import RecoverOptions, run
    from pysift.model.env import Env

    save(home, Story().read(F, V1))
    manifest = tmp_path / "m.txt"
    manifest.write_text(f"{F}\n")
    said: list[str] = []
    env = Env(claude_home=home.root, environ={}, cwd=tmp_path)
    report = run(RecoverOptions(files_from=str(manifest), out_dir=str(tmp_path / "o"),
                                progress=said.append), env)
    assert report.rows[0]["status"] == "complete"
    assert said[0] == "recover --files-from: 1 file(s), scanning 1 transcript(s) once…"
    assert said[-1].startswith("scanned 1/1 transcripts")


def test_file_at_plan_recorded_under_another_home(cli, home: ClaudeHome) -> None:
    """A slug-bound plan resolves under THIS home's plans/, while the records name it
    under the home of the machine that wrote them: @plan finds it by its own name."""
    elsewhere = "/home/someone/.claude/plans/humble-doodling-wolf.md"
    story = Story(slug="humble-doodling-wolf").write(elsewhere, "# Plan\n")
    save(home, story)
    result = run(cli, home, f"@{S1}", "--file", "@plan")
    assert result.code == 0 and result.stdout == "# Plan\n"
    assert "looked up by `plans/humble-doodling-wolf.md`" in result.stderr


def test_file_at_plan_refuses_two_plans(cli, home: ClaudeHome) -> None:
    for sid, name in ((S1, "one-plan-here"), (S2, "two-plan-there")):
        story = Story(sid)
        story.add(attachment("plan_mode", {"isSubAgent": False, "planExists": False,
                                           "planFilePath": f"/h/.claude/plans/{name}.md"}))
        save(home, story, sid)
    result = run(cli, home, "--file", "@plan")
    assert result.code == 1 and "DIFFERENT plan files" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_batch_restores_an_empty_file(cli, home: ClaudeHome, tmp_path: Path) -> None:
    save(home, Story().write(F, ""))
    manifest = tmp_path / "m.txt"
    manifest.write_text(f"{F}\n")
    result = run(cli, home, "--files-from", str(manifest), "--out-dir", str(tmp_path / "o"),
                 "--format", "json")
    [row] = result.json_rows("file")
    assert row["status"] == "complete" and (tmp_path / "o/w/proj/src/app.py").read_text() == ""


# -- where a Bash operand points: git -C and a cd that may not have run -----------------------


def _coverage_of(cli, home: ClaudeHome, path: str) -> dict[str, Any]:
    result = run(cli, home, "--file", path, "--coverage", "--format", "json")
    assert result.code == 0, result.stderr
    [row] = result.json_rows("coverage")
    return row


def test_git_dash_c_checkout_is_a_boundary_of_the_file_it_names(cli, home: ClaudeHome) -> None:
    other = "/w/proj/other/r.txt"
    save(home, Story().write(other, "v1\nline2\n").bash("git -C other checkout -- r.txt"))
    result = run(cli, home, "--file", other)
    assert result.code == 0
    assert "no bash mutation of this file" not in result.stderr
    assert "NOT verified against disk" in result.stderr
    [b] = _coverage_of(cli, home, other)["boundaries"]
    assert b["cause"] == "bash_mutation" and other in b["detail"]


def test_a_file_named_after_a_conditional_cd_is_disclosed(cli, home: ClaudeHome) -> None:
    q = "/w/proj/sub3/q.txt"
    save(home, Story().write(q, "q1\n").bash("cd sub3 || cd sub4; rm q.txt"))
    result = run(cli, home, "--file", q)
    assert result.code == 0 and result.stdout == "q1\n"
    assert "no bash mutation of this file" not in result.stderr
    assert "cwd-unknown:rm" in result.stderr
    assert _coverage_of(cli, home, q)["opaque_commands"] == 1


def test_an_unresolved_write_is_no_anchor(cli, home: ClaudeHome) -> None:
    # the write went to a/app.py or b/app.py, never provably to the file asked for
    rel = "/w/proj/app.py"
    save(home, Story().write(rel, "old\n").bash("cd a || cd b; echo new > app.py"))
    row = _coverage_of(cli, home, rel)
    assert row["events"]["bash_write_anchor"] == 0
    assert run(cli, home, "--file", rel).stdout == "old\n"


def test_a_write_after_a_cd_is_of_the_file_in_that_dir(cli, home: ClaudeHome) -> None:
    """After `cd sub`, `echo new > app.py` writes sub/app.py: the app.py beside the
    record's cwd keeps its content (its typed spelling, joined to that cwd, had matched
    it and installed "new" as a complete restore)."""
    rel = "/w/proj/app.py"
    for command in ("cd sub && echo new > app.py", "cd sub; echo new > app.py",
                    "cd /w/other && echo new > app.py"):
        save(home, Story().write(rel, "old\n").bash(command))
        row = _coverage_of(cli, home, rel)
        assert row["events"]["bash_write_anchor"] == 0, command
        assert run(cli, home, "--file", rel).stdout == "old\n", command
    moved = "/w/proj/sub/app.py"
    save(home, Story().write(moved, "old\n").bash("cd sub && echo new > app.py"))
    assert run(cli, home, "--file", moved).stdout == "new\n"


# -- what a Bash call certainly did (the review of the twenty-first session) ----------------------


@pytest.mark.parametrize("command", [
    f"test -f {F} || cat > {F} <<'EOF'\nport=80\nEOF",
    f"true || echo q > {F}",
    f"if [ -f {F} ]; then :; else echo x > {F}; fi",
    f"case x in y) echo z > {F};; esac",
    f"while false; do echo y > {F}; done",
    f"until true; do echo y > {F}; done",
    f"f() {{ echo x > {F}; }}; echo done",
    f"exit 0; echo hi > {F}",
    f"[ -e nothere ] && echo z > {F}; true",
])
def test_a_write_that_may_not_have_run_is_a_boundary_never_replayed(
        cli, home: ClaudeHome, command: str) -> None:
    save(home, Story().write(F, "port=8080\n").bash(command))
    result = run(cli, home, "--file", F)
    assert result.code == 0 and result.stdout == "port=8080\n"
    assert "no bash mutation of this file" not in result.stderr
    assert "NOT verified against disk" in result.stderr
    row = coverage(cli, home)
    assert row["events"]["bash_write_anchor"] == 0
    assert [b["cause"] for b in row["boundaries"]] == ["bash_mutation"]


def test_an_append_in_a_loop_is_never_placed_once(cli, home: ClaudeHome) -> None:
    save(home, Story().write(F, "start\n").bash(f"for i in 1 2 3; do echo tick >> {F}; done"))
    result = run(cli, home, "--file", F)
    assert result.stdout == "start\n" and "no bash mutation of this file" not in result.stderr
    assert coverage(cli, home)["events"]["bash_write_anchor"] == 0


def test_a_write_a_final_and_chain_proves_is_still_an_anchor(cli, home: ClaudeHome) -> None:
    save(home, Story().write(F, "old\n").bash(f"grep -q old {F} && echo new > {F}"))
    result = run(cli, home, "--file", F)
    assert result.stdout == "new\n" and "complete; no bash mutation" in result.stderr


def test_an_echo_zsh_would_print_otherwise_is_no_anchor(cli, home: ClaudeHome) -> None:
    save(home, Story().write(F, "old\n").bash(f"echo 'a\\tb' > {F}"))
    result = run(cli, home, "--file", F)
    assert result.stdout == "old\n" and "NOT verified against disk" in result.stderr
    save(home, Story().write(F, "old\n").bash(f"echo -E 'a\\tb' > {F}"))
    assert run(cli, home, "--file", F).stdout == "a\\tb\n"


def test_an_edit_past_the_known_end_refuses_the_restore(cli, home: ClaudeHome) -> None:
    story = Story().write(F, "a\nb\n")
    story._call("Edit", {"file_path": F, "old_string": "d", "new_string": "D"},
                f"The file {F} has been updated successfully.",
                echo={"filePath": F, "oldString": "d", "newString": "D", "originalFile": None,
                      "structuredPatch": [{"oldStart": 4, "oldLines": 2, "newStart": 4,
                                           "newLines": 2, "lines": [" c", "-d", "+D"]}],
                      "userModified": False, "replaceAll": False})
    save(home, story)
    result = run(cli, home, "--file", F)
    assert result.code == 1 and result.stdout == ""
    assert "MISSING [3..?]" in result.stderr
    row = coverage(cli, home)
    assert row["seen_total_lines"] is None and row["events"]["edit_unanchorable"] == 1
    salvage = run(cli, home, "--file", F, "--salvage")
    assert "??? lines 3..? unknown (the file's length was never seen)" in salvage.stdout


def test_a_glob_that_may_match_the_file_is_a_boundary(cli, home: ClaudeHome) -> None:
    save(home, Story().write(F, "start\n").bash("cd src && sed -i 's/start/changed/' *.py"))
    result = run(cli, home, "--file", F)
    assert "no bash mutation of this file" not in result.stderr
    [b] = coverage(cli, home)["boundaries"]
    assert b["cause"] == "bash_mutation" and "*.py (a pattern that may name the file)" in b["detail"]
    for other in ("cd src && sed -i s/a/b/ *.md", "sed -i s/a/b/ *.py", 'rm -f "$TMP/x.log"'):
        save(home, Story().write(F, "start\n").bash(other))  # cannot name src/app.py
        assert "complete; no bash mutation" in run(cli, home, "--file", F).stderr, other
    save(home, Story().write(F, "start\n").bash('rm -rf "$BUILD_DIR"'))
    assert "no bash mutation of this file" not in run(cli, home, "--file", F).stderr


def test_a_name_quoted_in_pieces_reaches_the_parser(cli, home: ClaudeHome) -> None:
    save(home, Story().write(F, "start\n").bash("echo hi > src/'app'.py"))
    result = run(cli, home, "--file", F)
    assert result.stdout == "hi\n" and coverage(cli, home)["events"]["bash_write_anchor"] == 1
    save(home, Story().write(F, "start\n").bash('sed -i s/start/x/ src/"app".py'))
    assert [b["cause"] for b in coverage(cli, home)["boundaries"]] == ["bash_mutation"]


def test_a_transcript_naming_the_file_only_in_pieces_is_read(cli, home: ClaudeHome) -> None:
    later = datetime(2026, 10, 7, 9, 0, tzinfo=UTC)
    save(home, Story(S1).write(F, "start\n"), S1)
    save(home, Story(S2, start=later).bash("cat > src/ap\\p.py <<'EOF'\nlater\nEOF"), S2)
    result = run(cli, home, "--file", F)
    assert result.code == 0 and result.stdout == "later\n"
    assert f"restoring the freshest (session {S2}" in result.stderr


@pytest.mark.parametrize("name", ["$'\\x71'.txt", "$'q\\056txt'", "$'\\161.txt'",
                                  "$'\\u0071'.txt"])
def test_a_transcript_naming_the_file_only_through_ansi_c_escapes_is_read(
        cli, home: ClaudeHome, name: str) -> None:
    q = "/w/proj/q.txt"
    later = datetime(2026, 10, 7, 9, 0, tzinfo=UTC)
    save(home, Story(S1).write(q, "old\n"), S1)
    save(home, Story(S2, start=later).bash(f"printf new > {name}"), S2)
    result = run(cli, home, "--file", q)
    assert result.code == 0 and result.stdout == "new"
    assert f"restoring the freshest (session {S2}" in result.stderr


def test_an_ansi_c_name_the_shells_may_read_apart_is_a_boundary(cli, home: ClaudeHome) -> None:
    save(home, Story().write(F, "start\n").bash("cd src && sed -i s/a/b/ app$'\\cA'.py"))
    result = run(cli, home, "--file", F)
    assert result.stdout == "start\n" and "no bash mutation of this file" not in result.stderr
    [b] = coverage(cli, home)["boundaries"]
    assert b["cause"] == "bash_mutation" and "a pattern that may name the file" in b["detail"]


@pytest.mark.parametrize("spelled", ["src/'app'.py", "src/$'\\x61'pp.py"])
def test_batch_reads_a_name_quoted_in_pieces(cli, home: ClaudeHome, tmp_path: Path,
                                             spelled: str) -> None:
    save(home, Story().write(F, "start\n").bash(f"echo hi > {spelled}"))
    manifest = tmp_path / "m.txt"
    manifest.write_text(f"{F}\n")
    result = run(cli, home, "--files-from", str(manifest), "--out-dir", str(tmp_path / "o"),
                 "--format", "json")
    [row] = result.json_rows("file")
    assert row["status"] == "complete" and (tmp_path / "o/w/proj/src/app.py").read_text() == "hi\n"


def test_a_file_only_bash_touched_says_no_content_was_seen(cli, home: ClaudeHome) -> None:
    save(home, Story().bash(f"touch {F}"))
    result = run(cli, home, "--file", F)
    assert result.code == 1
    assert "un-anchorable" not in result.stderr
    assert "none of them shows its content: only 1 Bash command(s) that change it (the " \
           f"first at L3: bash `touch` on {F} [absolute])" in result.stderr


def test_file_lines_past_the_end_say_so(cli, home: ClaudeHome) -> None:
    save(home, Story().write(F, "port=8080\n"))
    result = run(cli, home, "--file", F, "--file-lines", "5..9")
    assert result.code == 1
    assert f"--file-lines 5..9 lies beyond the end of {F}: the file has 1 line(s)" \
        in result.stderr
    assert "MISSING (none)" not in result.stderr
    salvage = run(cli, home, "--file", F, "--file-lines", "5..9", "--salvage")
    assert "(the lines asked for lie beyond the file's 1 line(s))" in salvage.stdout
    assert "??? lines" not in salvage.stdout


# -- a write call recover cannot read --------------------------------------------------------

HELLO = "hello\nworld\n"
UNREADABLE_CALLS = [
    ("MultiEdit", {"file_path": F, "edits": '[{"old_string": "world", "new_string": "there"}]'},
     "no readable edits"),
    ("MultiEdit", {"file_path": F, "edits": [{"old_string": "world"}]}, "no readable edits"),
    ("Edit", {"file_path": F, "old_string": "world"}, "no readable old and new strings"),
    ("NotebookEdit", {"notebook_path": F, "cell_id": "c1", "new_source": "x"},
     "a notebook cell edit"),
    ("Write", {"file_path": F, "content": ["hello"]}, "its content is not a string"),
]


@pytest.mark.parametrize(("name", "tool_input", "why"), UNREADABLE_CALLS)
def test_an_unreadable_write_call_is_a_hole_and_restore_refuses(
        cli, home: ClaudeHome, name: str, tool_input: dict[str, Any], why: str) -> None:
    story = Story().write(F, HELLO)
    story._call(name, tool_input, "Applied 1 edit")  # not an error, no toolUseResult
    save(home, story)
    result = run(cli, home, "--file", F)
    assert result.code == 1 and result.stdout == ""
    assert "1 edit(s) that could not be placed" in result.stderr
    assert f"L5 {name}: {why}" in result.stderr and "complete" not in result.stderr
    row = coverage(cli, home)
    assert row["events"]["edit_unanchorable"] == 1 and row["recoverable_lines"] == 0
    assert row["covered_ranges"] == [] and row["seen_total_lines"] is None
    text = run(cli, home, "--file", F, "--coverage")
    assert "  un-anchorable edits (coverage holes): 1" in text.stdout.splitlines()


def test_a_read_after_an_unreadable_edit_anchors_the_file_again(cli, home: ClaudeHome) -> None:
    story = Story().write(F, HELLO)
    story._call("MultiEdit", {"file_path": F, "edits": "world -> there"}, "Applied 1 edit")
    save(home, story.read(F, "hello\nthere\n"))
    result = run(cli, home, "--file", F)
    assert result.code == 0 and result.stdout == "hello\nthere\n"


def test_a_partial_file_names_the_unreadable_call(cli, home: ClaudeHome) -> None:
    story = Story().write(F, V1)
    story._call("MultiEdit", {"file_path": F, "edits": None}, "Applied 1 edit")
    save(home, story.read(F, V1, 1, 3))
    result = run(cli, home, "--file", F)
    assert result.code == 1
    assert "1 write call(s) that did not error could not be read" in result.stderr
    assert "  L5 MultiEdit: no readable edits" in result.stderr
    assert "the session only saw part of the file" not in result.stderr


def test_a_partial_file_names_the_append_it_could_not_place(cli, home: ClaudeHome) -> None:
    # the session wrote the whole file (no final newline), then a bash `>>` made its end
    # unknown; restore had said "the session only saw part of the file" and named no cause
    save(home, Story().write(F, "one\ntwo").bash("echo three >> src/app.py"))
    result = run(cli, home, "--file", F)
    assert result.code == 1
    assert "MISSING [2..?]" in result.stderr
    assert "1 bash append(s) of known bytes landed on a file that did not end with a newline" \
        in result.stderr
    assert "bash_append_unplaced" in result.stderr
    assert "the session only saw part of the file" not in result.stderr


@pytest.mark.parametrize(("command", "named"), [
    # `find … -exec sed -i … {} +` over the directory holding the file
    ("find . -name '*.py' -exec sed -i 's/v1/v2/' {} +",
     "bash `find` on /w/proj (which holds the file)"),
    # the script of `bash -c '…'`
    ("sudo bash -c 'sed -i s/v1/v2/ src/app.py'", "bash `sed-i` on /w/proj/src/app.py"),
    # what find's -exec program changes besides the path find hands it
    ("find . -name '*.py' -exec sh -c 'sed -i s/v1/v2/ \"$1\"' _ {} \\;",
     "bash `sed-i` on $1 (a pattern that may name the file)"),
    ("find /tmp/new -name '*.py' -exec cp {} src/ \\;",
     "bash `cp` on /w/proj/src (which holds the file)"),
    # a `./` pattern in a directory the reading cannot know, a `..` above the cwd
    ("cd \"$SRC\" && sed -i s/v1/v2/ ./*.py",
     "bash `sed-i` on ./*.py (a pattern that may name the file)"),
    ("cd src/sub && sed -i s/v1/v2/ ../$F",
     "bash `sed-i` on ../$F (a pattern that may name the file)"),
    # the files xargs hands its program (no text names them)
    ("git ls-files -z '*.py' | xargs -0 sed -i 's/v1/v2/'",
     "bash `sed-i` on ${xargs_input} (a pattern that may name the file)"),
    ("grep -rl v1 . | xargs -I{} perl -pi -e 's/v1/v2/' {}",
     "bash `perl-i` on ${xargs_input} (a pattern that may name the file)"),
    # the commands GNU parallel runs: literal items, items read at run time, commands read
    # at run time (files under the cwd)
    ("parallel sed -i s/v1/v2/ ::: src/app.py README.md", "bash `sed-i` on /w/proj/src/app.py"),
    ("git ls-files '*.py' | parallel -j4 'sed -i s/v1/v2/ {}'",
     "bash `sed-i` on ${parallel_input} (a pattern that may name the file)"),
    ("parallel -j4 < jobs.txt", "bash `parallel` on /w/proj (which holds the file)"),
])
def test_a_command_that_may_rewrite_the_file_is_no_clean_window(
        cli, home: ClaudeHome, command: str, named: str) -> None:
    """Each was read as changing nothing, or nothing of this file, so restore called the
    window clean ("no bash mutation of this file") after a command that may have
    rewritten the file."""
    save(home, Story().write(F, V1).bash(command))
    result = run(cli, home, "--file", F)
    assert result.code == 0 and result.stdout == V1
    assert "complete from the tool stream; NOT verified against disk" in result.stderr
    assert named in result.stderr


@pytest.mark.parametrize("command", [
    "find . -name '*.pyc' -delete",
    "find . -type d -name __pycache__ -exec rm -rf {} +",
    "find src -path '*/tests/*' -delete",
    "find \"$OUT\" -name '*.o' -delete",
    # GNU find applies its tests to a start point that is a file: `find ./src/app.py
    # -name '*.pyc' -delete` leaves app.py alone, yet restore had called the file changed
    "find ./src/app.py -name '*.pyc' -delete",
    "find src/app.py -type d -exec rm -rf {} +",
    "find /w/proj/src/app.py ! -name app.py -delete",
    # the file spelled otherwise: quoted, escaped, through `..`, from a cd
    "find ./src/ap'p'.py -name '*.pyc' -delete",
    "find ./src/$'\\x61pp.py' -name '*.pyc' -delete",
    "find src/../src/app.py -name '*.pyc' -delete",
    "cd src && find app.py -name '*.pyc' -delete",
])
def test_a_find_whose_tests_cannot_match_the_file_leaves_the_window_clean(
        cli, home: ClaudeHome, command: str) -> None:
    """find's name and path tests are read: a `find . -name '*.pyc' -delete` after the
    session wrote src/app.py had made restore call every file under `.` maybe changed."""
    save(home, Story().write(F, V1).bash(command))
    result = run(cli, home, "--file", F)
    assert result.code == 0 and result.stdout == V1
    assert "complete; no bash mutation of this file" in result.stderr


@pytest.mark.parametrize("command", [
    "find ./src/app.py -name '*.py' -delete",
    "find src/app.py -type f -exec rm {} +",
    "find src/app.py -newer stamp -delete",
])
def test_a_find_started_at_the_file_that_may_match_it_changes_it(
        cli, home: ClaudeHome, command: str) -> None:
    save(home, Story().write(F, V1).bash(command))
    result = run(cli, home, "--file", F)
    assert result.code == 0 and result.stdout == V1
    assert "no bash mutation of this file" not in result.stderr
    assert "bash `find` on /w/proj/src/app.py" in result.stderr


def test_an_unreadable_call_without_a_result_is_unconfirmed(cli, home: ClaudeHome) -> None:
    story = Story().write(F, HELLO).unanswered("MultiEdit", {"file_path": F, "edits": "x"})
    save(home, story)
    row = coverage(cli, home)
    assert [b["cause"] for b in row["boundaries"]] == ["unconfirmed_write"]
    assert row["recoverable_lines"] == 0


def test_patches_a_boundary_opening_a_segment_comes_before_it(cli, home: ClaudeHome) -> None:
    story = Story().read(F, V1).edit(F, "v1", "v2", V1)
    story.add(attachment("edited_text_file", {"filename": F,
                                              "snippet": "1\timport os\n2\timport re"}))
    save(home, story.edit(F, "import re", "import sys", None, echo=False))
    result = run(cli, home, "--file", F, "--patches", "--format", "json")
    rows = result.json_rows()[1:-1]
    assert [r["kind"] for r in rows] == ["segment", "boundary", "segment"]
    assert rows[1]["cause"] == "external_edit" and rows[1]["line"] == rows[2]["line_start"]
    lines = run(cli, home, "--file", F, "--patches").stdout.splitlines()
    boundary = next(i for i, line in enumerate(lines) if "INTEGRITY BOUNDARY" in line)
    assert lines[boundary + 1].startswith("  ─ SEGMENT 2")


# -- the window runs through every transcript of the session (twenty-second session) -------------

AGENT = "a1b2c3d4e5f6a7b8c"
LATER = datetime(2026, 10, 7, 9, 0, tzinfo=UTC)


def _with_agent(home: ClaudeHome, main: Story, agent_command: str | None = None, *,
                agent: Story | None = None) -> None:
    path = save(home, main)
    if agent is None:
        agent = Story(S1, agent_id=AGENT, start=LATER).bash(agent_command or "true")
    home.subagent(path, AGENT, agent.s)


@pytest.mark.parametrize("command", ["cd src && sed -i 's/start/x/' *.py", 'rm -rf "$BUILD"'])
def test_a_subagents_call_that_may_change_the_file_is_a_boundary(cli, home: ClaudeHome,
                                                                  command: str) -> None:
    _with_agent(home, Story().write(F, "start\n"), command)
    result = run(cli, home, "--file", F)
    assert result.code == 0 and result.stdout == "start\n"
    assert "no bash mutation of this file" not in result.stderr
    assert "NOT verified against disk" in result.stderr
    [b] = coverage(cli, home)["boundaries"]
    assert b["cause"] == "bash_mutation" and b["source_session_id"] == AGENT
    assert "a pattern that may name the file" in b["detail"]
    alone = run(cli, home, f"@{S1}", "--no-subagents", "--file", F)  # out of scope
    assert "complete; no bash mutation" in alone.stderr


def test_a_subagents_call_that_cannot_name_the_file_leaves_the_window_clean(
        cli, home: ClaudeHome) -> None:
    _with_agent(home, Story().write(F, "start\n"), "cd src && sed -i 's/a/b/' *.md")
    result = run(cli, home, "--file", F)
    assert result.stdout == "start\n" and "complete; no bash mutation" in result.stderr
    assert "replayed as one stream" not in result.stderr  # no event: the group is one stream


def test_the_main_transcripts_call_is_a_boundary_of_a_subagents_file(cli, home: ClaudeHome) -> None:
    agent = Story(S1, agent_id=AGENT).write(F, "start\n")
    _with_agent(home, Story(start=LATER).bash('rm -rf "$OUT"'), agent=agent)
    [b] = coverage(cli, home)["boundaries"]
    assert b["cause"] == "bash_mutation" and b["source_session_id"] == S1


def test_a_subagents_opaque_command_is_in_the_window(cli, home: ClaudeHome) -> None:
    _with_agent(home, Story().write(F, "start\n").read(F, "start\n"), "ruff format")
    result = run(cli, home, "--file", F)
    assert result.stdout == "start\n" and "no opaque mutating-class command" not in result.stderr
    assert "fmt:ruff" in result.stderr
    row = coverage(cli, home)
    assert row["opaque_commands"] == 1 and row["boundaries"] == []
    early = Story(S1, agent_id=AGENT).bash("ruff format")  # before the first event
    _with_agent(home, Story(start=LATER).write(F, "start\n"), agent=early)
    assert "complete; no bash mutation" in run(cli, home, "--file", F).stderr


def test_batch_reads_the_window_of_every_transcript_of_the_session(
        cli, home: ClaudeHome, tmp_path: Path) -> None:
    _with_agent(home, Story().write(F, "start\n"), "cd src && sed -i 's/start/x/' *.py")
    manifest = tmp_path / "m.txt"
    manifest.write_text(f"{F}\n")
    result = run(cli, home, "--files-from", str(manifest), "--out-dir", str(tmp_path / "o"),
                 "--format", "json")
    [row] = result.json_rows("file")
    assert row["status"] == "complete" and row["boundaries"] == 1 and row["bash_file"] == 1
    assert result.summary()["flagged"] == 1


def test_a_session_that_never_touched_the_file_makes_no_history_of_it(cli, home: ClaudeHome) -> None:
    _with_agent(home, Story().bash("cd src && sed -i 's/a/b/' *.py"), "rm -rf src")
    result = run(cli, home, "--file", F, "--format", "json")
    assert result.code == 1 and result.json_rows("restore")[0]["reason"] == "no-history"


def test_making_or_stamping_a_directory_holding_the_file_is_no_boundary(
        cli, home: ClaudeHome) -> None:
    """``mkdir -p`` of the file's own directory (Claude Code's habit before a Write) and
    ``touch`` of it leave the file as it was; removing the directory does not."""
    save(home, Story().read(F, V1).bash("mkdir -p /w/proj/src && touch /w/proj"))
    row = coverage(cli, home)
    assert row["boundaries"] == []
    assert run(cli, home, "--file", F).stdout == V1
    save(home, Story().read(F, V1).bash("rm -rf /w/proj/src"))
    [b] = coverage(cli, home)["boundaries"]
    assert b["cause"] == "bash_mutation" and "/w/proj/src (which holds the file)" in b["detail"]


def test_opaque_rows_past_the_shown_five_are_named_by_line_and_marker(
        cli, home: ClaudeHome) -> None:
    """The search the coverage suggests names the file; `git merge` or `cargo fmt` need
    not, so every row past the five shown is named where it stands."""
    story = Story().read(F, V1)
    for command in ("git pull", "npm install", "git checkout main", "git reset --hard",
                    "pip install x", "git merge dev", "git stash pop", "cargo fmt"):
        story = story.bash(command)
    save(home, story)
    out = run(cli, home, "--file", F, "--coverage").stdout
    rows = [line for line in out.splitlines() if line.startswith("    · ")]
    [rest] = [line for line in out.splitlines() if line.startswith("    (+")]
    assert len(rows) == 5
    named = rest.removeprefix("    (+3 more: ").removesuffix(")").split(", ")
    assert [n.split(" ", 1)[1] for n in named] == ["git:merge", "git:stash", "fmt:cargo"]
    assert all(n.startswith("L") and n.split(" ")[0][1:].isdigit() for n in named)


# -- when an event happened: by instant, never by its stamp's spelling (twenty-second session) ---

A_OLD, A_NEW, B_ONLY = "A-old\n", "A-new\n", "B\n"


def _call_at(story: Story, name: str, tool_input: dict[str, Any], content: str, echo: Any,
             call_ts: str, result_ts: str | None = None, *, is_error: bool = False) -> Story:
    """A tool call and its result carrying the stamps given (any spelling)."""
    story.n += 1
    tid = f"toolu_{story.n:04d}"
    story.s.add(assistant(tool_use(name, tool_input, id=tid), timestamp=call_ts))
    story.s.add(tool_result(tid, content, is_error=is_error, tool_use_result=echo,
                            timestamp=result_ts or call_ts))
    return story


def _write_at(story: Story, path: str, content: str, call_ts: str,
              result_ts: str | None = None) -> Story:
    """A Write whose call and result carry the stamps given (any spelling)."""
    return _call_at(story, "Write", {"file_path": path, "content": content},
                    f"File created successfully at: {path}", write_result(path, content),
                    call_ts, result_ts)


@pytest.mark.parametrize(("a_old", "a_new", "b"), [
    ("2026-03-08T12:00:00.000+05:00", "2026-03-08T10:00:00.000Z", "2026-03-08T09:00:00.000Z"),
    ("[trimmed]", "2026-03-08T10:00:00.000Z", "2026-03-08T09:00:00.000Z"),
    ("2026-03-08T10:00:00Z", "2026-03-08T10:00:00.900Z", "2026-03-08T10:00:00.500Z"),
])
def test_restore_takes_the_freshest_version_by_instant(cli, home: ClaudeHome, a_old: str,
                                                       a_new: str, b: str) -> None:
    save(home, _write_at(_write_at(Story(S1), F, A_OLD, a_old), F, A_NEW, a_new), S1)
    save(home, _write_at(Story(S2), F, B_ONLY, b), S2)
    result = run(cli, home, "--file", F)
    assert result.code == 0 and result.stdout == A_NEW, result.stderr
    assert f"restoring the freshest (session {S1}" in result.stderr


def test_a_stamp_naming_no_instant_is_never_the_freshest(cli, home: ClaudeHome) -> None:
    save(home, _write_at(Story(S1), F, A_NEW, "[trimmed]"), S1)
    save(home, _write_at(Story(S2), F, B_ONLY, "2026-03-08T09:00:00.000Z"), S2)
    result = run(cli, home, "--file", F)
    assert result.code == 0 and result.stdout == B_ONLY, result.stderr
    assert f"restoring the freshest (session {S2}" in result.stderr


# -- an event happens when its call is made (twenty-second session) ------------------------------

CALL, RESULT, BETWEEN = "2026-03-08T07:00:00.000Z", "2026-03-08T07:00:01.000Z", \
    "2026-03-08T07:00:00.500Z"


def test_a_window_ending_between_a_call_and_its_result_holds_the_call(cli, home: ClaudeHome
                                                                       ) -> None:
    """``files`` and ``recover`` place a write at its call: a window ending between the call
    and its result holds it for both (recover read the result's stamp and called the file
    never written inside the window)."""
    save(home, _write_at(Story(), F, V1, CALL, RESULT))
    listed = cli("--claude-home", str(home.root), "files", f"@{S1}", "--by", "timeline",
                 "--until", BETWEEN, "--format", "json")
    assert [m["op"] for m in listed.json_rows("mutation")] == ["write"]
    restored = run(cli, home, f"@{S1}", "--file", F, "--until", BETWEEN)
    assert restored.code == 0 and restored.stdout == V1, restored.stderr
    at = run(cli, home, f"@{S1}", "--file", F, "--at", BETWEEN, "--format", "json")
    [snap] = at.json_rows("snapshot")
    assert len(snap["lines"]) == 9
    after = run(cli, home, f"@{S1}", "--file", F, "--since", BETWEEN, "--format", "json")
    assert after.code == 1 and after.json_rows("restore")[0]["reason"] == "no-history"


def test_the_suggested_search_lists_the_first_call(cli, home: ClaudeHome) -> None:
    story = _call_at(Story(), "Read", {"file_path": F}, gutter(V1), read_echo(F, V1),
                     CALL, RESULT)
    _call_at(story, "Edit", {"file_path": F, "old_string": "v1", "new_string": "v2"},
             f"The file {F} has been updated successfully.", edit_echo(F, "v1", "v2", V1),
             "2026-03-08T07:05:00.000Z", "2026-03-08T07:05:02.000Z")
    save(home, story)
    row = coverage(cli, home)
    search = row["suggested_search"]
    assert f"--since {CALL} --until 2026-03-08T07:05:00.000Z" in search
    args = shlex.split(search)
    assert args[:2] == ["pysift", "search"]
    found = cli("--claude-home", str(home.root), *args[1:], "--format", "json")
    calls = [h for ex in found.json_rows("exchange") for h in ex["hits"]]
    assert [h["line"] for h in calls] == [2, 4]  # the Read's call and the Edit's


def test_a_boundary_is_timed_by_its_call(cli, home: ClaudeHome) -> None:
    story = _call_at(Story(), "Read", {"file_path": F}, gutter(V1), read_echo(F, V1),
                     CALL, RESULT)
    _call_at(story, "Edit", {"file_path": F, "old_string": "v1", "new_string": "v2"},
             "<tool_use_error>File has been modified since read, either by the user or by a "
             "linter. Read it again before attempting to write it.</tool_use_error>", None,
             "2026-03-08T07:05:00.000Z", "2026-03-08T07:05:02.000Z", is_error=True)
    save(home, story)
    [b] = coverage(cli, home)["boundaries"]
    assert (b["cause"], b["ts_utc"], b["source_line"]) == (
        "modified_since_read", "2026-03-08T07:05:00.000Z", 5)  # the result's line, the call's time
    assert run(cli, home, "--file", F, "--coverage", "--format", "json",
               "--until", "2026-03-08T07:05:01.000Z").json_rows("coverage")[0]["boundaries"]


def test_an_opaque_command_issued_before_the_first_result_is_in_the_window(
        cli, home: ClaudeHome) -> None:
    """The window opens at the first event's call: a formatter called right after the Read
    (the same assistant message) may run after it read the file."""
    story = Story()
    story.s.add(assistant(tool_use("Read", {"file_path": F}, id="toolu_r"), timestamp=CALL))
    story.s.add(assistant(tool_use("Bash", {"command": "ruff format"}, id="toolu_b"),
                          timestamp=CALL))
    story.s.add(tool_result("toolu_r", gutter(V1), tool_use_result=read_echo(F, V1),
                            timestamp=RESULT))
    story.s.add(tool_result("toolu_b", "1 file reformatted", tool_use_result=bash_result(
        "1 file reformatted"), timestamp=RESULT))
    save(home, story)
    row = coverage(cli, home)
    assert row["opaque_commands"] == 1
    restored = run(cli, home, "--file", F)
    assert restored.stdout == V1 and "fmt:ruff" in restored.stderr
