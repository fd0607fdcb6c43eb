"""The fold index's key pass: RE2 matches from a key's ``y`` on, and the bytes before a
match say which key it is (a field merely ending in ``type`` is none)."""

from __future__ import annotations

import pytest

from pysift.seedindex import extract


@pytest.mark.parametrize(("line", "what"), [
    (b'{"type":"user","message":{}}', extract._RECORD),
    (b'{"message":{},"type":"assistant"}', extract._RECORD),
    (b'{"content":[{"type":"thinking","thinking":"x"}]}', extract._THINKS),
    (b'{"type": "thinking"}', extract._THINKS),
    (b'{"type":"system","subtype":"compact_boundary"}', extract._BOUNDS),
    (b'{"subtype": "compact_boundary"}', extract._BOUNDS),
    (b'{"type":"queue-operation","operation":"enqueue"}', extract._RECORD),
    (b'{"attachment":{"type":"queued_command"},"type":"attachment"}', extract._RECORD),
    (b'{"prototype":"user"}', 0),
    (b'{"type":"compact_boundary"}', 0),
    (b'{"subtype":"user"}', 0),
    (b'ype":"user"', 0),  # nothing before the match at the start of the buffer
])
def test_a_match_is_a_key_only_with_its_own_name(line: bytes, what: int) -> None:
    layouts = (False, True)
    found = [extract._what(line, *span) for span in _matches(line, layouts)]
    assert (max(found) if found else 0) == what


def _matches(buf: bytes, layouts: tuple[bool, ...]) -> list[tuple[int, int]]:
    from re2 import _re2

    match = extract._pattern(layouts)._regexp.Match
    out, at = [], 0
    while True:
        start, stop = match(_re2.RE2.Anchor.UNANCHORED, buf, at, len(buf))[0]
        if start < 0:
            return out
        out.append((start, stop))
        at = stop


def test_a_line_that_is_no_user_or_assistant_record_is_found_by_any_key() -> None:
    """A system line whose first key match is a nested user type key is still found (and
    decoded as the boundary it is), and so is a queued prompt's attachment line."""
    buf = (b'{"type":"user","message":{"content":"hi"}}\n'
           b'{"type":"system","data":{"type":"user"},"subtype":"compact_boundary"}\n'
           b'{"type":"attachment","attachment":{"type":"file"}}\n'
           b'{"type":"attachment","attachment":{"type":"queued_command","prompt":"x"}}\n')
    lines = extract._key_lines(buf, (False,), 0, len(buf))
    assert [(kind, thinks) for _, _, _, kind, thinks in lines] == [
        (b"user", False), (b"system", False), (b"attachment", False)]
    assert lines[2][0] == buf.index(b'{"type":"attachment","attachment":{"type":"queued')
