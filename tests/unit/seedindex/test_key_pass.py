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


def test_every_key_of_a_line_that_is_no_user_or_assistant_record_is_read() -> None:
    """A system line is read key by key: its boundary key after a nested user type key
    still marks it (its harvest window ends there)."""
    buf = (b'{"type":"user","message":{"content":"hi"}}\n'
           b'{"type":"system","data":{"type":"user"},"subtype":"compact_boundary"}\n')
    lines, bounds = extract._key_lines(buf, (False,), 0, len(buf), skip=True)
    assert [(kind, thinks) for _, _, _, kind, thinks in lines] == [(b"user", False),
                                                                  (b"system", False)]
    assert bounds == [buf.index(b'{"type":"system"')]
