"""The search engine never drops a record whose rendered text matches (SPEC §7d, §7f).

End to end through ``scan_file``: whole-buffer candidate search (needles, fabrication
markers, label markers), the carrier skip, decoding and classification. For random
transcripts of every record kind, a literal cut from any unit's rendered text must find
that record, whichever JSON layout wrote the file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import builders as b
from pysift.core import classify
from pysift.core.decode import decode
from pysift.core.grammar.selectors import parse_filter
from pysift.core.matcher import compile_pattern, escape_literal
from pysift.disk.layout import top_level_transcript
from pysift.engines.search.plan import SearchPlan
from pysift.engines.search.scan import scan_file

SID = "9d9d9d9d-1111-4222-8333-944444444444"
words = st.text(alphabet=st.sampled_from(list("abcXYZ019 _-:,.\"\\/é漢\n\t")), min_size=1,
                max_size=30)


# raw number spellings the renderer re-spells (SPEC §7): written into a line in place of
# a "@@nN@@" string by with_raw_numbers, as no json.dumps writes them
raw_numbers = st.one_of(
    st.sampled_from(["0.000001", "1E-6", "1e5", "1.50", "-0", "123456789012345678901",
                     "0.1234567890123456789", "7"]),
    st.from_regex(r"-?(0|[1-9][0-9]{0,20})(\.0{0,6}[0-9]{1,19})?([eE][+-]?0?[0-9]{1,2})?",
                  fullmatch=True),
)
_NUMBER_SLOT = re.compile(r'"@@n(\d+)@@"')


def with_raw_numbers(line: str, spellings: list[str]) -> str:
    return _NUMBER_SLOT.sub(lambda m: spellings[int(m.group(1))], line)


@st.composite
def transcripts(draw) -> list[dict]:
    records: list[dict] = [b.user(draw(words))]
    spellings: list[str] = []

    def number() -> str:  # a slot for a raw spelling, kept in the drawn records
        spellings.append(draw(raw_numbers))
        return f"@@n{len(spellings) - 1}@@"

    for n in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["text", "tool", "auq", "reject", "notify", "think",
                                     "numbers"]))
        tid = f"toolu_{n:04d}"
        if kind == "text":
            records += [b.assistant(draw(words)), b.user(draw(words))]
        elif kind == "think":
            records.append(b.assistant(b.thinking(draw(words))))
        elif kind == "tool":
            records += [b.assistant(b.tool_use("Bash", {"command": draw(words), "n": n,
                                                        "x": [number()]}, id=tid)),
                        b.tool_result(tid, draw(words))]
        elif kind == "numbers":  # every render that dumps a JSON number
            q = [{"question": draw(words), "header": "Rate",
                  "options": [{"label": "tiny", "description": ""}], "multiSelect": False}]
            records += [b.assistant(b.tool_use("Tune", {"rate": number()}, id=tid)),
                        b.tool_result(tid, draw(st.sampled_from([number(), {"v": number()}]))),
                        b.assistant(b.auq_use(q, id=tid + "q")),
                        b.auq_answer(tid + "q", {q[0]["question"]: number()}, questions=q)]
        elif kind == "auq":
            q = [{"question": draw(words), "header": draw(words)[:12],
                  "options": [{"label": draw(words), "description": ""}], "multiSelect": False}]
            records += [b.assistant(b.auq_use(q, id=tid)),
                        b.auq_answer(tid, {q[0]["question"]: draw(words)}, questions=q)]
        elif kind == "reject":
            records += [b.assistant(b.tool_use("Edit", {"file_path": "/x"}, id=tid)),
                        b.rejection(tid, draw(words), legacy=draw(st.booleans()))]
        else:
            records.append(b.task_notification(f"bg{n}", "completed", draw(words)))
    return records, spellings


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(transcripts(), st.data(), st.sampled_from([(",", ":"), (", ", ": ")]))
def test_prop_a_literal_from_any_rendered_unit_finds_its_record(tmp_path: Path, drawn,
                                                                 data, seps) -> None:
    records, spellings = drawn
    session = b.Session(SID, cwd="/w/p")
    stamped = [session.stamp(r) for r in records]
    path = tmp_path / "projects" / "-w-p" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [with_raw_numbers(json.dumps(r, separators=seps,
                                         ensure_ascii=data.draw(st.booleans())), spellings)
             for r in stamped]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    # pick a unit from the classifier's own view of one record, and a literal inside it
    index = data.draw(st.integers(0, len(lines) - 1))
    rec = decode(lines[index].encode(), index + 1)
    assert rec is not None
    units = classify.units(rec, classify.ClassifyContext(owner_id=SID, parent_id=SID))
    if not units:
        return
    unit = data.draw(st.sampled_from(units))
    unit_text = unit.text
    if not unit_text.strip():
        return
    numbers = [m.span() for m in re.finditer(r"-?[0-9][0-9.eE+-]*", unit_text)]
    if numbers and data.draw(st.booleans(), label="around a number"):
        first, last = data.draw(st.sampled_from(numbers), label="number")
        start = data.draw(st.integers(max(0, first - 2), last - 1))
        end = data.draw(st.integers(start + 1, min(len(unit_text), last + 2)))
    else:
        start = data.draw(st.integers(0, len(unit_text) - 1))
        end = data.draw(st.integers(start + 1, len(unit_text)))
    literal = unit_text[start:end]
    if not literal.strip():
        return
    if data.draw(st.booleans(), label="caseless"):
        # the same literal in another case, searched with -i: the needle and every
        # fabrication it can overlap must then be found in any case
        matcher = compile_pattern(escape_literal(literal.swapcase()), ignore_case=True)
        if matcher.search(unit_text) is None:  # e.g. ß swapcases to SS, no simple fold
            return
    else:
        matcher = compile_pattern(escape_literal(literal))
    selections = [parse_filter()]
    if unit.label.startswith("user."):
        selections.append(parse_filter(["user"]))  # tool_result carriers skipped unread
    for labels in selections:
        plan = SearchPlan(pattern=matcher.pattern, matcher=matcher, labels=labels)
        found = scan_file(top_level_transcript(path), 0, plan)
        assert any(h.uuid == rec.uuid for h in found.hits), (labels.include, literal,
                                                              lines[index])


def test_a_caseless_search_finds_the_fabricated_question_header(tmp_path: Path) -> None:
    """An AUQ answer renders as `[AskUserQuestion · 1 question] …`; its raw line says
    `User has answered your questions`. `-i userquestion` must still find it."""
    q = [{"question": "Ship where?", "header": "Publish",
          "options": [{"label": "PyPI", "description": ""}], "multiSelect": False}]
    session = b.Session(SID, cwd="/w/p")
    records = [b.user("release it"), b.assistant(b.auq_use(q, id="toolu_q")),
               b.auq_answer("toolu_q", {"Ship where?": "PyPI"}, questions=q)]
    path = tmp_path / "projects" / "-w-p" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(session.stamp(r)) + "\n" for r in records))
    for pattern in ("userquestion", "erquest", "ASKUSER"):
        matcher = compile_pattern(escape_literal(pattern), ignore_case=True)
        plan = SearchPlan(pattern=matcher.pattern, matcher=matcher, labels=parse_filter())
        found = scan_file(top_level_transcript(path), 0, plan)
        assert any(h.label == "user.answer" for h in found.hits), pattern


def test_a_label_scan_keeps_an_answer_written_before_its_block_type_key(tmp_path: Path) -> None:
    """Some writers put a block's ``content`` before its ``type``; the carrier skip of a
    pure ``-t user`` scan must still see the answer there (the window of is_plain_carrier
    reaches before the key), or the answer and its turn would silently vanish."""
    q = [{"question": "Ship where?", "header": "Publish",
          "options": [{"label": "PyPI", "description": ""}], "multiSelect": False}]
    session = b.Session(SID, cwd="/w/p")
    records = [session.stamp(r) for r in (
        b.user("release it"), b.assistant(b.auq_use(q, id="toolu_q")),
        b.auq_answer("toolu_q", {"Ship where?": "PyPI"}, questions=q))]
    answer = records[-1]
    answer.pop("toolUseResult", None)  # the marker in the content is all that is left
    block = answer["message"]["content"][0]
    answer["message"]["content"][0] = {"content": block["content"],
                                       "tool_use_id": block["tool_use_id"],
                                       "type": "tool_result"}
    ordered = {k: answer[k] for k in answer if k not in ("message", "uuid", "timestamp")}
    ordered.update(type="user", message=answer["message"], uuid=answer["uuid"],
                   timestamp=answer["timestamp"])
    records[-1] = ordered
    path = tmp_path / "projects" / "-w-p" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
    line = path.read_bytes().splitlines()[-1]
    assert line.index(b"answered") < line.index(b'"tool_result"') < line.index(b"answered") + 256
    plan = SearchPlan(pattern="", matcher=compile_pattern(""), labels=parse_filter(["user"]))
    found = scan_file(top_level_transcript(path), 0, plan)
    assert [h.label for h in found.hits] == ["user.message", "user.answer"]


def _look_it_up(tmp_path: Path, session: b.Session, reply: dict) -> tuple[list[dict], Path]:
    """A prompt and ``reply`` stamped for ``session``, and the (created) dir's file path."""
    records = [session.stamp(r) for r in (b.user("look it up"), reply)]
    path = tmp_path / "projects" / "-w-p" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    return records, path


def test_an_assistant_record_holding_a_server_tool_result_is_no_carrier(tmp_path: Path) -> None:
    """Some providers write a server tool's result inside the assistant message. That
    record's text is agent.message: a needle search and a pure filter must both see it
    (only a user record's tool_result carrier may be skipped unread)."""
    session = b.Session(SID, cwd="/w/p")
    reply = b.assistant("找到了 the page says yes",
                        {"type": "server_tool_use", "id": "srv_1", "name": "webReader",
                         "input": {"url": "https://example.com"}},
                        {"type": "tool_result", "tool_use_id": "srv_1", "content": "page"})
    records, path = _look_it_up(tmp_path, session, reply)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                    encoding="utf-8")
    labels = parse_filter(["agent.message"])
    for pattern in ("找到了", ""):
        matcher = compile_pattern(escape_literal(pattern)) if pattern else compile_pattern("")
        plan = SearchPlan(pattern=pattern, matcher=matcher, labels=labels)
        found = scan_file(top_level_transcript(path), 0, plan)
        assert [h.label for h in found.hits] == ["agent.message"], pattern


def test_a_nested_user_key_does_not_make_an_assistant_record_a_carrier(tmp_path: Path) -> None:
    """The same record with a ``{"type":"user"}`` object in a tool_use input before its
    server tool_result block: only the record's OWN type key makes a carrier, so neither
    the needle scan nor a label scan reaching user lines may skip it."""
    session = b.Session(SID, cwd="/w/p")
    reply = b.assistant("找到了 the page says yes",
                        b.tool_use("Relay", {"msg": {"type": "user", "text": "hi"}}, id="t1"),
                        {"type": "server_tool_use", "id": "srv_1", "name": "webReader",
                         "input": {"url": "https://example.com"}},
                        {"type": "tool_result", "tool_use_id": "srv_1", "content": "page"})
    records, path = _look_it_up(tmp_path, session, reply)
    for separators in ((",", ":"), (", ", ": ")):
        path.write_text("".join(json.dumps(r, ensure_ascii=False, separators=separators)
                                + "\n" for r in records), encoding="utf-8")
        for selection, want in ((["agent.message"], ["agent.message"]),
                                (["agent.message,user.message"],
                                 ["user.message", "agent.message"])):
            for pattern in ("找到了", "", "page says"):
                matcher = compile_pattern(escape_literal(pattern) if pattern else "")
                plan = SearchPlan(pattern=pattern, matcher=matcher,
                                  labels=parse_filter(selection))
                found = scan_file(top_level_transcript(path), 0, plan)
                expected = want if not pattern else ["agent.message"]
                assert [h.label for h in found.hits] == expected, (selection, pattern)
