"""The needle gate's fabrication table stays in step with what the classifier renders.

For every kind of record whose rendered text is partly fabricated, each whitespace-free
substring of the render that is NOT in the raw line must be one the table says a needle
can produce; otherwise a pattern matching it would be dropped by the prefilter.
"""

from __future__ import annotations

import orjson
import pytest

import builders as b
from pysift.core import classify
from pysift.core.decode import decode
from pysift.core.grammar.selectors import parse_filter
from pysift.engines.search.plan import BOUNDARY_FABRICATION, FABRICATIONS, SearchPlan
from pysift.model import labels as L


def _render(record: dict) -> tuple[str, str]:
    line = orjson.dumps(record)
    rec = decode(line, 1)
    assert rec is not None
    ctx = classify.ClassifyContext(owner_id="s", parent_id="s")
    texts = [u.text for u in classify.units(rec, ctx)]
    assert texts, record
    return "\n".join(texts), line.decode()


def _fabricated_substrings(rendered: str, raw: str) -> set[str]:
    out: set[str] = set()
    for token in rendered.split():
        for i in range(len(token)):
            for j in range(i + 3, len(token) + 1):
                piece = token[i:j]
                if piece not in raw:
                    out.add(piece)
    return out


QUESTIONS = [{"question": "Ship where?", "header": "Publish",
              "options": [{"label": "TestPyPI", "description": ""},
                          {"label": "PyPI", "description": ""}], "multiSelect": False}]
CASES = {
    "auq answer": b.auq_answer("toolu_1", {"Ship where?": "TestPyPI"}, questions=QUESTIONS),
    "rejection": b.rejection("toolu_2", "use the staging bucket"),
    "legacy rejection": b.rejection("toolu_3", "no, archive them", legacy=True),
    "task notification": b.task_notification("bg42", "completed", "Background command done",
                                              tool_use_id="toolu_4"),
    "redacted thinking": b.assistant(b.redacted_thinking()),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_fabricated_piece_is_covered_by_its_fabrication(name: str) -> None:
    rendered, raw = _render(CASES[name])
    fabs = [f for f in FABRICATIONS if f.marker.decode() in raw]
    assert fabs, f"{name}: no fabrication marker in its raw line"
    for piece in _fabricated_substrings(rendered, raw):
        assert any(f.can_produce(piece) for f in fabs), (name, piece)


def test_compaction_boundary_render_is_covered() -> None:
    rendered, raw = _render_addressed(b.compact_boundary(150000, post_tokens=9000,
                                                         duration_ms=41000))
    for piece in _fabricated_substrings(rendered, raw):
        assert BOUNDARY_FABRICATION.can_produce(piece), piece


def _render_addressed(record: dict) -> tuple[str, str]:
    line = orjson.dumps(record)
    rec = decode(line, 1)
    assert rec is not None
    ctx = classify.ClassifyContext(owner_id="s", parent_id="s", address_mode=True)
    return "\n".join(u.text for u in classify.units(rec, ctx)), line.decode()


def test_plain_needles_need_no_marker_pass() -> None:
    plan = SearchPlan(pattern="orbit", matcher=None, labels=parse_filter())
    assert plan.synth_markers(("orbit",)) == ()
    assert b"User has answered your question" in plan.synth_markers(("Q1:",))
    assert b"compact_boundary" in plan.synth_markers(("preTokens=",))


def test_a_caseless_needle_overlaps_a_fabrication_in_any_case() -> None:
    """`-i userquestion` gates on `erque…`-like needles; the fabricated
    `[AskUserQuestion · …]` render holds it only in another case."""
    plan = SearchPlan(pattern="x", matcher=None, labels=parse_filter())
    assert b"User has answered your question" in plan.synth_markers(("erquest",),
                                                                    caseless=True)
    assert b"User has answered your question" not in plan.synth_markers(("erquest",))
    assert b"User has answered your question" in plan.synth_markers(("q1:",), caseless=True)


def test_gated_leaves_and_persisted_outputs_always_add_their_marker() -> None:
    plan = SearchPlan(pattern="x", matcher=None, labels=parse_filter(["harness.meta"]),
                      gates=frozenset({L.HARNESS_META_TURN_DURATION}), resolve_persisted=True)
    markers = plan.synth_markers(("orbit",))
    assert b"turn_duration" in markers and b"<persisted-output>" in markers


# -- the promise that matters most: no line whose rendered text matches is dropped ----------

import json  # noqa: E402
import re  # noqa: E402

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from pysift.core.matcher import compile_pattern, escape_literal  # noqa: E402
from pysift.engines.search.scan import build_finder  # noqa: E402

scalars = st.one_of(st.integers(-10**6, 10**6), st.booleans(), st.none(),
                    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12))
inputs = st.dictionaries(st.text(alphabet="abcdefghij_", min_size=1, max_size=6),
                         st.one_of(scalars, st.lists(scalars, max_size=3)), min_size=1,
                         max_size=4)
# raw number spellings: what any JSON writer may put in a line, which the render re-spells
# through orjson (`0.000001` -> `1e-6`, `1.50` -> `1.5`, `1e5` -> `100000.0`, `-0` -> `0`)
RAW_NUMBERS = ["0.000001", "1E-6", "1e-06", "1e5", "1.50", "-0", "123456789012345678901",
               "0.1234567890123456789", "2.50e-3", "1.0", "0.5", "100"]
raw_numbers = st.one_of(
    st.sampled_from(RAW_NUMBERS),
    st.from_regex(r"-?(0|[1-9][0-9]{0,20})(\.0{0,6}[0-9]{1,19})?([eE][+-]?0?[0-9]{1,2})?",
                  fullmatch=True),
)
_NUMBER_SLOT = re.compile(r'"@@n(\d+)@@"')


@st.composite
def tool_inputs(draw) -> tuple[dict, list[str]]:
    """An input dict whose number values carry arbitrary raw spellings: each is a
    ``"@@nN@@"`` placeholder string that ``with_raw_numbers`` swaps for its spelling."""
    tool_input = draw(inputs)
    spellings: list[str] = []
    for _ in range(draw(st.integers(0, 3))):
        slot = f"@@n{len(spellings)}@@"
        spellings.append(draw(raw_numbers))
        key = draw(st.text(alphabet="klmnop", min_size=1, max_size=4))
        tool_input[key] = draw(st.sampled_from([slot, [slot], [1, slot], {"v": slot}]))
    return tool_input, spellings


def with_raw_numbers(line: str, spellings: list[str]) -> str:
    return _NUMBER_SLOT.sub(lambda m: spellings[int(m.group(1))], line)


def _slice(data, text: str) -> str:
    """A slice of ``text``, half the time around one of its (rendered) numbers."""
    numbers = [m.span() for m in re.finditer(r"-?[0-9][0-9.eE+-]*", text)]
    if numbers and data.draw(st.booleans(), label="around a number"):
        first, last = data.draw(st.sampled_from(numbers), label="number")
        start = data.draw(st.integers(max(0, first - 2), last - 1))
        end = data.draw(st.integers(start + 1, min(len(text), last + 2)))
        return text[start:end]
    start = data.draw(st.integers(0, max(0, len(text) - 1)))
    end = data.draw(st.integers(start + 1, len(text))) if text else 0
    return text[start:end]


@settings(max_examples=300)
@given(tool_inputs(), st.data(), st.sampled_from([(",", ":"), (", ", ": ")]), st.booleans())
def test_prop_tool_use_render_never_dropped_by_the_needle_gate(drawn, data, seps,
                                                               ascii_only) -> None:
    """A literal cut from a tool_use's render (its input dumped as compact JSON, numbers
    re-spelled) finds the raw line through the finder a search builds: the pattern's
    needles, the fabrication markers and the number pass."""
    tool_input, spellings = drawn
    record = b.assistant(b.tool_use("Bash", tool_input, id="toolu_x"))
    line = with_raw_numbers(json.dumps(record, separators=seps, ensure_ascii=ascii_only),
                            spellings).encode()
    rec = decode(line, 1)
    assert rec is not None
    text = classify.units(rec, classify.ClassifyContext())[0].text
    literal = _slice(data, text)
    if not literal.strip():
        return
    caseless = data.draw(st.booleans(), label="caseless")
    pattern = escape_literal(literal.swapcase() if caseless else literal)
    matcher = compile_pattern(pattern, ignore_case=caseless)
    if matcher.search(text) is None:  # e.g. a swapcase without a simple fold
        return
    if matcher.needles is not None:
        plan = SearchPlan(pattern=pattern, matcher=matcher, labels=parse_filter())
        assert build_finder(plan).candidate_spans(line), (literal, line)
