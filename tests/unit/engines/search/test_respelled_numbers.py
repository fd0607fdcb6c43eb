"""A number re-spelled by the renderer is found in every spelling its raw line may hold.

Rendering dumps JSON values (a tool_use ``input``, a non-string tool_result content or
AskUserQuestion answer, an attachment payload) with orjson, which writes the shortest
spelling: a raw ``0.000001`` renders as ``1e-6``. The raw line lacks the needle ``1e-6``,
so the needle gate alone never decoded it and ``search 1e-6`` silently missed it while
``show`` printed ``1e-6``. Now a needle that can overlap a number (``exposes_number``)
also takes every line holding a number spelling orjson changes (SPEC §7).
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import builders as b
from pysift.core import classify
from pysift.core.decode import decode
from pysift.core.grammar.selectors import parse_filter
from pysift.core.matcher import compile_pattern, escape_literal
from pysift.core.prefilter import exposes_number
from pysift.disk.layout import top_level_transcript
from pysift.engines.search.plan import BOUNDARY_FABRICATION, SearchPlan
from pysift.engines.search.scan import build_finder, scan_file
from pysift.model import labels as L

SID = "5e5e5e5e-1111-4222-8333-944444444444"


def placeholder(n: int) -> str:
    return f"@@num{n}@@"


def write(tmp_path: Path, records: list[dict], numbers: list[str],
          seps: tuple[str, str] = (",", ":")) -> Path:
    """The transcript with each ``"@@numN@@"`` string value replaced by the raw number
    spelling ``numbers[N]`` (json.dumps would write the float's own spelling)."""
    session = b.Session(SID, cwd="/w/p")
    lines = []
    for record in records:
        line = json.dumps(session.stamp(record), separators=seps)
        for n, spelling in enumerate(numbers):
            line = line.replace(json.dumps(placeholder(n)), spelling)
        lines.append(line)
    path = tmp_path / "projects" / "-w-p" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def hits(path: Path, pattern: str, *, ignore_case: bool = False, literal: bool = True,
         labels: list[str] | None = None, **plan_kw) -> list[str]:
    matcher = compile_pattern(escape_literal(pattern) if literal else pattern,
                              ignore_case=ignore_case)
    plan = SearchPlan(pattern=matcher.pattern, matcher=matcher,
                      labels=parse_filter(labels or []), **plan_kw)
    return [h.label for h in scan_file(top_level_transcript(path), 0, plan).hits]


def tool_call(value: object) -> list[dict]:
    return [b.user("tune it"),
            b.assistant(b.tool_use("Tune", {"rate": value, "name": "adam"}, id="toolu_n"))]


@pytest.mark.parametrize(("raw", "pattern", "caseless"), [
    ("0.000001", "1e-6", False),
    ("0.000001", "rate\":1e-6,", False),  # the compact dump around it
    ("1E-6", "1e-6", False),
    ("1e-06", "1e-6", False),
    ("0.000001", "1E-6", True),  # -i: the needle's E folds onto the rendered e
    ("1e5", "100000.0", False),
    ("1.50", "1.5,", False),  # `,` splits needles: gated on `1.5`, which `1.50` holds
    ("[1.50]", "[1.5]", False),
    ("[-0]", "[0]", False),
    ("123456789012345678901", "1.2345678901234568e+20", False),
    ("0.1234567890123456789", "0.12345678901234568", False),
    ("[2.50,1e2]", "[2.5,", False),
    ("[2.50,1e2]", "100.0]", False),
])
@pytest.mark.parametrize("seps", [(",", ":"), (", ", ": ")])
def test_a_tool_use_number_is_found_as_rendered(tmp_path: Path, raw: str, pattern: str,
                                                caseless: bool, seps) -> None:
    path = write(tmp_path, tool_call(placeholder(0)), [raw], seps)
    raw_text = path.read_text()
    if caseless:
        pattern, raw_text = pattern.lower(), raw_text.lower()
    assert pattern not in raw_text  # only the render holds it
    assert hits(path, pattern, ignore_case=caseless) == ["agent.tool.use"]


def test_a_regex_whose_required_needle_is_numeric_is_found(tmp_path: Path) -> None:
    path = write(tmp_path, tool_call(placeholder(0)), ["0.0000025"])
    assert hits(path, r"rate.:2\.5e-6\b", literal=False) == ["agent.tool.use"]
    assert hits(path, r"2\.5E-\d", literal=False, ignore_case=True) == ["agent.tool.use"]


def test_a_non_string_tool_result_content_is_found_as_rendered(tmp_path: Path) -> None:
    records = [*tool_call(1), b.tool_result("toolu_n", placeholder(0))]
    path = write(tmp_path, records, ["0.000001"])
    assert hits(path, "1e-6") == ["agent.tool.result"]


def test_a_non_string_answer_is_found_as_rendered(tmp_path: Path) -> None:
    q = [{"question": "Which rate?", "header": "Rate",
          "options": [{"label": "tiny", "description": ""}], "multiSelect": False}]
    records = [b.user("tune it"), b.assistant(b.auq_use(q, id="toolu_q")),
               b.auq_answer("toolu_q", {"Which rate?": placeholder(0)}, questions=q)]
    path = write(tmp_path, records, ["1E-6"])
    assert "user.answer" in hits(path, "1e-6")


def test_an_attachment_number_is_found_as_rendered(tmp_path: Path, cli) -> None:
    home = b.ClaudeHome(tmp_path / "claude")
    session = b.Session(SID, cwd="/w/p")
    lines = [json.dumps(session.stamp(r)) for r in (
        b.user("tune it"), b.attachment("budget", {"limit": placeholder(0)}))]
    home.session("/w/p", SID, *(line.replace(json.dumps(placeholder(0)), "1.50e3") + "\n"
                               for line in lines))
    found = cli("--claude-home", str(home.root), "search", "--attachments", "1500.0", "-c")
    assert (found.code, found.stdout.strip()) == (0, "1")


def test_the_cli_counts_the_record_show_prints(tmp_path: Path, cli) -> None:
    home = b.ClaudeHome(tmp_path / "claude")
    session = b.Session(SID, cwd="/w/p")
    lines = [json.dumps(session.stamp(r)) for r in tool_call(placeholder(0))]
    home.session("/w/p", SID, *(line.replace(json.dumps(placeholder(0)), "0.000001") + "\n"
                               for line in lines))
    for args in (["1e-6"], ["-i", "1E-6"], ["1e-6", "-t", "agent.tool.use"]):
        found = cli("--claude-home", str(home.root), "search", *args, "-c")
        assert (found.code, found.stdout.strip()) == (0, "1"), args


# -- which needles take the extra pass -----------------------------------------------------


@pytest.mark.parametrize("needle", [
    "1e-6", "1E-6", "0.5", "100000.0", "1.2345678901234568e+20", "e-6", "-6}", "[1.5",
    "1.5]", "[0]", "8080", "abc[1.5", "1.5}x", "x[2", "7]y",
])
def test_needles_that_can_overlap_a_rendered_number(needle: str) -> None:
    assert exposes_number(needle)


@pytest.mark.parametrize("needle", [
    "ZQXJ-needle-7731", "ZQXJ-absent-0000", "trel", "kestrel", "TodoWrite", "legacy",
    "v1.2.3", "2026-12-01T10", "x1e-6", "1e-6x", "abc-", "...", "---", "e-e", "foo=1",
    "#42", "sha256", "utf-8", "(1.5)", "{1}",
    # number characters that no single rendered number holds: a date, an address, a range
    "2026-12-01", "192.168.1.1", "1.2.3", "10-20", "1e5e5", "1.5e-6.0", "+-1",
])
def test_needles_that_cannot(needle: str) -> None:
    assert not exposes_number(needle)


@pytest.mark.parametrize(("pattern", "caseless", "numbers"), [
    ("ZQXJ-absent-0000", False, False),
    ("ZQXJ-needle-7731", False, False),
    ("kestrel", True, False),
    ("TodoWrite.*legacy|legacy.*TodoWrite", False, False),
    ("1e-6", False, True),
    ("1E-6", True, True),
    (r"[=:]1\.5,", False, True),
])
def test_only_an_exposed_needle_adds_the_number_pass(pattern: str, caseless: bool,
                                                     numbers: bool) -> None:
    """The benchmark needles keep their plain literal passes."""
    matcher = compile_pattern(pattern, ignore_case=caseless)
    plan = SearchPlan(pattern=pattern, matcher=matcher, labels=parse_filter())
    assert build_finder(plan).respelled_numbers is numbers


# -- where renderers put a dumped number ----------------------------------------------------

QUESTIONS = [{"question": "Which rate?", "header": "Rate",
              "options": [{"label": "tiny", "description": ""}], "multiSelect": False}]
SLOT = placeholder(0)
DUMPING_RENDERS = {
    "tool_use input": b.assistant(b.tool_use("Tune", {"a": SLOT, "b": [SLOT, 1, [SLOT]],
                                                      "c": {"d": SLOT}}, id="toolu_n")),
    "bare tool_use input": b.assistant({**b.tool_use("Tune", id="toolu_n"), "input": SLOT}),
    "comm tool_use": b.assistant(b.tool_use("SendMessage", {"to": "x", "message": "hi",
                                                            "n": SLOT}, id="toolu_c")),
    "tool_result number": b.tool_result("toolu_n", SLOT),
    "tool_result object": b.tool_result("toolu_n", {"v": [SLOT, SLOT]}),
    "answer number": b.auq_answer("toolu_q", {"Which rate?": SLOT}, questions=QUESTIONS),
    "answer list": b.auq_answer("toolu_q", {"Which rate?": ["x", SLOT, [SLOT]]},
                                questions=QUESTIONS),
    "attachment": b.attachment("budget", {"v": SLOT, "w": [SLOT]}),
    "system content": b.system("informational", content={"v": SLOT}),
}


@pytest.mark.parametrize("name", sorted(DUMPING_RENDERS))
def test_a_rendered_number_stands_where_exposes_number_looks(name: str) -> None:
    """Every renderer that dumps a JSON number puts it after `[` `:` `,`, whitespace or
    the text's start and before `,` `]` `}`, whitespace or the text's end. A renderer that
    writes one elsewhere (`x={n}`) must widen ``exposes_number`` (or fabricate: the
    compaction boundary's `preTokens=` is glue of its Fabrication)."""
    line = json.dumps(DUMPING_RENDERS[name]).replace(json.dumps(SLOT), "0.000001234")
    rec = decode(line.encode(), 1)
    assert rec is not None
    ctx = classify.ClassifyContext(owner_id="s", parent_id="s",
                                   gates=frozenset({L.HARNESS_META_ATTACHMENT,
                                                    L.HARNESS_META_SYSTEM}))
    texts = [u.text for u in classify.units(rec, ctx)]
    rendered = "1.234e-6"
    found = 0
    for text in texts:
        at = text.find(rendered)
        while at >= 0:
            before = text[at - 1] if at else " "
            after = text[at + len(rendered):at + len(rendered) + 1] or " "
            assert before in "[:," or before.isspace(), (name, text)
            assert after in ",]}" or after.isspace(), (name, text)
            found += 1
            at = text.find(rendered, at + 1)
    assert found, (name, texts)


def test_the_compaction_boundary_number_is_glued_by_its_fabrication() -> None:
    record = b.compact_boundary(150000)
    record["compactMetadata"]["preTokens"] = SLOT
    line = json.dumps(record).replace(json.dumps(SLOT), "1e5")
    rec = decode(line.encode(), 1)
    ctx = classify.ClassifyContext(owner_id="s", parent_id="s", address_mode=True)
    text = "\n".join(u.text for u in classify.units(rec, ctx))
    assert "preTokens=100000.0" in text
    assert BOUNDARY_FABRICATION.can_produce("=100000.0")


@given(st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.integers(-2**63, 2**64 - 1)),
       st.data())
def test_every_piece_of_a_rendered_number_with_a_digit_is_exposed(value: float | int,
                                                                   data: st.DataObject) -> None:
    """A needle that is any digit-holding piece of an orjson-rendered number is exposed."""
    rendered = orjson.dumps(value).decode()
    start = data.draw(st.integers(0, len(rendered) - 1))
    end = data.draw(st.integers(start + 1, len(rendered)))
    piece = rendered[start:end]
    assume(any(c.isdigit() for c in piece))
    assert exposes_number(piece), (rendered, piece)
