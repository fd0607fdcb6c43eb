"""core.rawjson: a file's JSON layout is read off its first and last RECORDS, whatever
stray lines stand at its ends."""

from __future__ import annotations

import json

import pytest

from pysift.core.rawjson import layouts

RECORDS = [{"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hi"}},
           {"type": "assistant", "uuid": "a1", "message": {"role": "assistant", "content": []}}]


def _file(lines: list[str], final_newline: bool = True) -> bytes:
    return ("\n".join(lines) + ("\n" if final_newline else "")).encode()


@pytest.mark.parametrize("head", [[], ["<<<<<<< HEAD"], ["", "   "], ['{"typ']])
@pytest.mark.parametrize("tail", [[], ["   "], ["", ""], ["=======", ">>>>>>> other"]])
@pytest.mark.parametrize("final_newline", [True, False])
def test_stray_lines_at_either_end_do_not_hide_the_layout(head, tail, final_newline) -> None:
    spaced = [json.dumps(r) for r in RECORDS]
    compact = [json.dumps(r, separators=(",", ":")) for r in RECORDS]
    assert layouts(_file(head + spaced + tail, final_newline)) == (True,)
    assert layouts(_file(head + compact + tail, final_newline)) == (False,)


def test_a_file_appended_to_in_the_other_layout_has_both() -> None:
    lines = [json.dumps(RECORDS[0], separators=(",", ":")), json.dumps(RECORDS[1])]
    assert layouts(_file(lines)) == (False, True)


def test_a_file_without_records_defaults_to_compact() -> None:
    assert layouts(b"") == (False,)
    assert layouts(_file(["garbage", "", "more garbage"])) == (False,)


def test_at_top_level_tells_a_records_own_key_from_a_nested_one() -> None:
    from pysift.core.rawjson import at_top_level

    key = b'"type":"user"'
    cases = {
        b'{"a":1,"type":"user"}': True,
        b'  {"cwd":"/w/[x]{y}","t":["}",{"b":"]"}],"type":"user"}': True,  # brackets in strings
        b'{"m":"\\"{[","type":"user"}': True,  # an escaped quote before a bracket
        b'{"m":{"type":"user"}}': False,
        b'{"m":[{"type":"user"}]}': False,
        b'{"m":[{}],"x":{"y":[1,{"z":"w"}]},"type":"user"}': True,
        b'"type":"user"': False,  # no object at all
    }
    for line, own in cases.items():
        assert at_top_level(line, 0, line.index(key)) is own, line
