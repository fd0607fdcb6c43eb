"""The thinking-signature decoder's fast path agrees with the whole-string decode.

``narration_tag`` validates a plain standard-base64 signature in one pass and decodes only
where the protobuf walk reads; ``full_tag`` decodes the whole string. Both must give the
same tag (or None) for every string, valid or not.
"""

from __future__ import annotations

import base64

from hypothesis import given, settings
from hypothesis import strategies as st

from builders import _ld, _varint
from pysift.core.classify.signature import full_tag, narration_tag

# One protobuf field: a varint, a fixed 32/64, or a length-delimited payload (opaque bytes
# or a nested message); the walk's own fields 2, 1 and 8 are drawn often.
_numbers = st.sampled_from([1, 2, 3, 5, 8, 9, 15, 300])
_leaf = st.one_of(
    st.tuples(_numbers, st.integers(0, 2**70)).map(lambda f: _varint(f[0] << 3) + _varint(f[1])),
    st.tuples(_numbers, st.binary(min_size=4, max_size=4)).map(
        lambda f: _varint(f[0] << 3 | 5) + f[1]),
    st.tuples(_numbers, st.binary(min_size=8, max_size=8)).map(
        lambda f: _varint(f[0] << 3 | 1) + f[1]),
    st.tuples(_numbers, st.sampled_from([b"narration", b"thinking", b"summary", b"\xff\xfe",
                                         b""]),).map(lambda f: _ld(*f)),
    st.tuples(_numbers, st.integers(0, 900)).map(lambda f: _ld(f[0], bytes(f[1]))),
)
_message = st.recursive(
    st.lists(_leaf, max_size=4).map(b"".join),
    lambda inner: st.lists(st.one_of(_leaf, st.tuples(_numbers, inner).map(lambda f: _ld(*f))),
                           max_size=4).map(b"".join),
    max_leaves=12,
)


@st.composite
def signatures(draw: st.DrawFn) -> str:
    """A base64 text of a protobuf message, sometimes spoiled the ways real strings are."""
    payload = draw(_message)
    if draw(st.booleans()):  # the path the walk follows, at some depth of filler
        payload = _ld(2, draw(_message) + _ld(1, draw(_message) + _ld(8, b"narration"))) \
            + draw(_message)
    if draw(st.booleans()):
        payload = payload[: draw(st.integers(0, len(payload)))]  # truncated
    text = base64.b64encode(payload).decode()
    edit = draw(st.sampled_from(["none", "strip", "extra", "space", "urlsafe", "bad",
                                 "cut", "pad_inside", "unicode"]))
    if edit == "strip":
        text = text.rstrip("=")
    elif edit == "extra":
        text += "=" * draw(st.integers(1, 3))
    elif edit == "space" and text:
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from([" ", "\n", "\t", "\r\n"])) + text[at:]
    elif edit == "urlsafe":
        text = text.replace("+", "-").replace("/", "_")
    elif edit == "bad" and text:
        at = draw(st.integers(0, len(text) - 1))
        text = text[:at] + draw(st.sampled_from(["!", "-", "_", "*", "é"])) + text[at + 1:]
    elif edit == "cut" and text:
        text = text[: draw(st.integers(0, len(text)))]
    elif edit == "pad_inside" and text:
        at = draw(st.integers(0, len(text)))
        text = text[:at] + "=" + text[at:]
    elif edit == "unicode":
        text += "\u3000"
    return text


@settings(max_examples=600)
@given(signatures())
def test_the_fast_path_gives_the_whole_decode_answer(sig: str) -> None:
    assert narration_tag(sig) == (full_tag(sig) if sig else None)


@settings(max_examples=600)
@given(st.one_of(signatures(), st.text(alphabet="AB+/=-_ \n\u00e9", max_size=12)))
def test_the_quick_alphabet_check_gives_the_same_tag(sig: str) -> None:
    """The fast path (stringzilla's set search for the alphabet) answers as the whole
    decode for every string, padded, spoiled or short."""
    assert narration_tag(sig) == (full_tag(sig) if sig else None)


def test_the_quick_check_sees_padding_only_at_the_end() -> None:
    tagged = base64.b64encode(_ld(2, _ld(1, _ld(8, b"narration")))).decode()
    for sig in (tagged, tagged.rstrip("="), tagged + "=", "=" + tagged, tagged[:4] + "=" +
                tagged[4:], tagged.replace("=", "-"), "", "A", "AB=", "AB==", "A==="):
        assert narration_tag(sig) == (full_tag(sig) if sig else None), sig
    assert narration_tag(tagged) == "narration"
    assert narration_tag(None) is None and narration_tag(7) is None


def test_a_long_signature_keeps_its_tag_past_the_decoded_head() -> None:
    """The head decoded up front is 384 bytes: a tag placed after a long filler is read
    from a window decoded on demand."""
    deep = _ld(2, _ld(5, bytes(2000)) + _ld(1, _ld(9, bytes(700)) + _ld(8, b"narration")))
    sig = base64.b64encode(deep + _varint(3 << 3) + _varint(1)).decode()
    assert narration_tag(sig) == full_tag(sig) == "narration"
    assert narration_tag(sig.rstrip("=")) == "narration"
