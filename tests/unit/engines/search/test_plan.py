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

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from pysift.core.matcher import compile_pattern, escape_literal  # noqa: E402

scalars = st.one_of(st.integers(-10**6, 10**6), st.booleans(), st.none(),
                    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12))
inputs = st.dictionaries(st.text(alphabet="abcdefghij_", min_size=1, max_size=6),
                         st.one_of(scalars, st.lists(scalars, max_size=3)), min_size=1,
                         max_size=4)


@settings(max_examples=300)
@given(inputs, st.data(), st.sampled_from([(",", ":"), (", ", ": ")]), st.booleans())
def test_prop_tool_use_render_never_dropped_by_the_needle_gate(tool_input, data, seps,
                                                               ascii_only) -> None:
    record = b.assistant(b.tool_use("Bash", tool_input, id="toolu_x"))
    line = json.dumps(record, separators=seps, ensure_ascii=ascii_only).encode()
    rec = decode(line, 1)
    assert rec is not None
    text = classify.units(rec, classify.ClassifyContext())[0].text
    start = data.draw(st.integers(0, max(0, len(text) - 1)))
    end = data.draw(st.integers(start + 1, len(text))) if text else 0
    literal = text[start:end]
    if not literal.strip():
        return
    matcher = compile_pattern(escape_literal(literal))
    assert matcher.search(text) is not None
    if matcher.needles is not None:
        assert matcher.needles.candidate_spans(line), (literal, line)
