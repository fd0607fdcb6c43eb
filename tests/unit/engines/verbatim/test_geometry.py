"""The printed lines of verbatim and their cost: the role-asymmetric ellipsis, headers,
banners."""

from __future__ import annotations

from datetime import UTC

from hypothesis import given
from hypothesis import strategies as st

from pysift.core.text import one_line
from pysift.engines.verbatim.geometry import (
    Crossings,
    banner_line,
    newline_positions,
    reach,
    render_body,
    unit_header,
)
from pysift.engines.verbatim.model import ASSISTANT, USER, Compaction, Inbound, TurnUnit


def unit(text: str, role: str = USER, raw: str | None = None, **kw) -> TurnUnit:  # type: ignore[no-untyped-def]
    return TurnUnit(line=kw.pop("line", 7), role=role, text=text, raw=raw,
                    ts=kw.pop("ts", "2026-10-05T09:00:00.000Z"), **kw)


def test_a_unit_within_its_cap_prints_whole() -> None:
    body = render_body(unit("u" * 600))
    assert (body.text, body.truncated, body.elided_chars) == ("u" * 600, False, 0)
    assert render_body(unit("a" * 900, ASSISTANT)).text == "a" * 900


def test_user_ellipsis_keeps_360_head_and_240_tail() -> None:
    text = "".join(chr(0x4E00 + i % 200) for i in range(1000))  # CJK: cut on characters
    body = render_body(unit(text))
    assert body.text == f"{text[:360]} … [+400 chars] … {text[-240:]}"
    assert (body.rendered_chars, body.truncated, body.elided_chars, body.elided_lines) == (
        600, True, 400, 0)


def test_assistant_ellipsis_keeps_594_head_and_306_tail() -> None:
    text = "".join(str(i % 10) for i in range(2000))
    body = render_body(unit(text, ASSISTANT))
    assert body.text == f"{text[:594]} … [+1100 chars] … {text[-306:]}"


def test_elided_lines_count_the_newlines_the_cut_removed() -> None:
    raw = "\n".join(f"line {i:03d}" for i in range(200))  # 8 chars + newline each
    text = one_line(raw)
    body = render_body(unit(text, ASSISTANT, raw=raw))
    positions = newline_positions(raw)
    cut_from, cut_to = 594, len(text) - 306
    expected = sum(1 for p in positions if cut_from <= p < cut_to)
    assert body.elided_lines == expected > 0
    assert f", {expected} lines elided] … " in body.text
    # a one-line original names no lines
    flat = "w " * 500
    assert "lines elided" not in render_body(unit(flat.strip())).text


@given(st.text(alphabet=" \n\tab語", max_size=40))
def test_newline_positions_map_into_the_one_line_form(raw: str) -> None:
    """Each newline lands on the index of the space its whitespace run becomes (the end
    of the text for a trailing run, 0 for a leading one)."""
    flat = one_line(raw)
    positions = newline_positions(raw)
    assert len(positions) == raw.count("\n")
    for index, at in zip([i for i, c in enumerate(raw) if c == "\n"], positions, strict=True):
        assert at == len(one_line(raw[:index]))
        assert at == len(flat) or flat[at] == " " or at == 0


def test_a_fixed_cap_replaces_the_role_cap() -> None:
    body = render_body(unit("x" * 5000), cap=4000)
    assert body.rendered_chars == 4000 and body.elided_chars == 1000


def test_unit_header() -> None:
    u = unit("hi", line=120)
    assert unit_header(u, UTC) == "▽ L120  USER  (2026-10-05 09:00:00 UTC(UTC+0))"
    u.also_in_summary = True
    assert unit_header(u, UTC).endswith("(UTC+0))   (also in summary)")
    a = unit("ok", ASSISTANT, line=3, ts=None)
    assert unit_header(a, UTC) == "△ L3  ASSISTANT  (—)"
    side = unit("q?", line=None, source="elicitation-sidecar")
    assert unit_header(side, UTC).startswith("▽ (elicitation sidecar)  USER  (")
    peer = unit("hello", inbound=Inbound("agent.communication.inbox", "lead"))
    assert unit_header(peer, UTC).startswith(
        "▽ L7  agent.communication.inbox  lead ⇨ self  (")


def _compaction(line: int, read: bool = True) -> Compaction:
    return Compaction(line=line, boundary_line=line - 1, summary_line=line if read else None,
                      summary_chars=10 if read else 0, fingerprints=(), summary_read=read)


def test_banner_names_the_summary_or_says_it_is_unreadable() -> None:
    assert banner_line(_compaction(393)) == "══ compaction boundary · summary at L393 ══"
    assert banner_line(_compaction(51, read=False)) == \
        "══ compaction boundary at L51 · summary unreadable ══"


def test_a_document_reaches_across_the_compactions_after_its_oldest_line() -> None:
    cs = Crossings([_compaction(300), _compaction(100), _compaction(200)])
    assert cs.count(150) == 2
    assert cs.count(50) == 3
    assert cs.count(301) == 0
    banner = len(banner_line(_compaction(100))) + 1
    assert cs.cost(150) == 2 * banner
    assert reach([100, 200, 300], 150) == 2 and reach([100, 200, 300], 301) == 0
