"""The typed-prompt shortcut: ``is_unmarked`` may only say True where the ladder finds nothing.

A prompt with no ``<``, no ``[``, no marker at its head and none of the anywhere-phrases
is settled without walking the marker ladder. These tests hold that shortcut to the
ladder it skips: the verdict with the shortcut equals the verdict without it, on texts
built from every marker the classifier knows, cut, padded and mixed with prose.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pysift.core import classify as C
from pysift.core.classify import ClassifyContext, markers, sections
from pysift.model import labels as L
from pysift.model.record import Record

# The modules of the classifier package, and every string constant they define (a marker
# added to any of them is drawn here too), plus the composite notices the ladder recognises.
PACKAGE: list[ModuleType] = [C] + [importlib.import_module(f"{C.__name__}.{info.name}")
                                   for info in pkgutil.iter_modules(C.__path__)]


def _string_constants(module: ModuleType) -> Iterator[str]:
    for name, value in vars(module).items():
        if not name.isupper():
            continue
        items = value if isinstance(value, tuple | frozenset) else (value,)
        yield from (item for item in items if isinstance(item, str) and item)


_CONSTANTS = {text for module in PACKAGE for text in _string_constants(module)}
MARKERS = sorted(_CONSTANTS) + [
    C.INTERRUPT_USER, C.INTERRUPT_TOOL, C.LOCAL_COMMAND_STDOUT, C.LOCAL_COMMAND_CAVEAT,
    C.COMMAND_NAME_OPEN, C.COMMAND_MESSAGE_OPEN, C.COMMAND_ARGS_OPEN, C.CONTINUATION_MARKER,
    C.WAKEUP_SENTINEL, C.WAKEUP_LOOP_CHECK, C.WAKEUP_TIMER, C.STOP_HOOK_FEEDBACK,
    C.EDIT_RETRY, C.LOOP_TICK, C.LOOP_CHECK_DRIVER, C.IMAGE_SOURCE, C.AGENTS_STOPPED,
    C.TASK_NOTIFICATION_OPEN, C.TASK_NOTIFICATION_CLOSE, C.TEAMMATE_OPEN, C.TEAMMATE_CLOSE,
    C.AGENT_MESSAGE_OPEN, C.AGENT_MESSAGE_CLOSE, *C.PEER_MESSAGE_PREAMBLES,
    'Background agent "x" was stopped by the user', "3 background agents were stopped by the user: a",
    "1 background agent was stopped by the user", "<summary>done</summary>",
]
PROSE = ["fix the build", "why does it fail?", "café ✓ 日本語", "the user said", "timer",
         "autonomous", "Continue", "Stop hook", "0", "42 tests", "\n", "  ", "\t", ">", "]"]

fragment = st.one_of(
    st.sampled_from(MARKERS),
    st.sampled_from(MARKERS).flatmap(lambda m: st.integers(1, len(m)).map(lambda k: m[:k])),
    st.sampled_from(MARKERS).flatmap(lambda m: st.integers(0, len(m) - 1).map(lambda k: m[k:])),
    st.sampled_from(PROSE),
    st.text(max_size=12),
)
texts = st.lists(fragment, max_size=6).map("".join) | st.builds(
    lambda pad, body: pad + body, st.sampled_from(["", " ", "\n\n", " " * 200]),
    st.lists(fragment, max_size=4).map("".join))


def _user(content: Any, **envelope: Any) -> Record:
    return Record({"type": "user", "uuid": "u1", "parentUuid": "p",
                   "message": {"role": "user", "content": content}, **envelope}, 7)


def _ladder_verdicts(text: str) -> tuple[bool, bool, bool, bool]:
    return (markers.is_synthetic_marker(text), sections.is_peer_message(text),
            sections.has_notification(text),
            bool(sections.sections_of(text, ClassifyContext())))


def _without_shortcut(fn, *args):  # type: ignore[no-untyped-def]
    """``fn(*args)`` with ``is_unmarked`` never vouching for a text: the full ladder (in
    every module of the package that took the shortcut by name)."""
    shortcut = markers.is_unmarked
    users = [m for m in PACKAGE if vars(m).get("is_unmarked") is shortcut]
    assert len(users) >= 3  # markers itself, the opener rules, the ladder
    for module in users:
        module.is_unmarked = lambda _text: False  # type: ignore[attr-defined]
    try:
        return fn(*args)
    finally:
        for module in users:
            module.is_unmarked = shortcut  # type: ignore[attr-defined]


@settings(max_examples=600, deadline=None)
@given(texts)
def test_an_unmarked_text_trips_no_rung_of_the_ladder(text: str) -> None:
    if C.is_unmarked(text):
        assert _ladder_verdicts(text) == (False, False, False, False)


@settings(max_examples=400, deadline=None)
@given(texts, st.booleans(), st.sampled_from([None, "u1", "other"]))
def test_classify_with_the_shortcut_equals_the_ladder(text: str, meta: bool, seed: str | None
                                                      ) -> None:
    rec = _user(text, **({"isMeta": True} if meta else {}))
    ctx = ClassifyContext(is_subagent=seed is not None, seed_uuid=seed)
    assert C.classify(rec, ctx) == _without_shortcut(C.classify, _user(text, **(
        {"isMeta": True} if meta else {})), ctx)
    fast, slow = (_user(text, **({"isMeta": True} if meta else {})) for _ in range(2))
    assert C.opens_turn(fast, subagent=False) == _without_shortcut(
        lambda r: C.opens_turn(r, subagent=False), slow)


@pytest.mark.parametrize("text", [
    "[Request interrupted by user]", "<command-name>/clear</command-name>",
    "   Continue from where you left off.", "# Autonomous loop tick", "Stop hook feedback: x",
    "2 background agents were stopped by the user: a, b", "please You're being invoked on a timer",
    "x The last Edit failed because the target file was modified y", "do Run the autonomous check",
])
def test_each_marker_kind_is_left_to_the_ladder(text: str) -> None:
    assert not C.is_unmarked(text)
    assert not C.is_unmarked("\n" + " " * 300 + text)  # past the head window too


@pytest.mark.parametrize("marker", markers._MARKED_HEADS)
def test_a_head_marker_behind_a_long_indent_still_classifies_as_the_ladder_says(
        marker: str) -> None:
    text = " " * 300 + marker + " and more"
    assert C.classify(_user(text)) == _without_shortcut(C.classify, _user(text),
                                                        ClassifyContext())


def test_a_plain_prompt_takes_the_shortcut_and_keeps_its_leaf() -> None:
    assert C.is_unmarked("refactor the parser, then run the tests")
    assert C.classify(_user("refactor the parser")) == [L.USER_MESSAGE]
    assert C.classify(_user("a reminder", isMeta=True)) == []
    seed_ctx = ClassifyContext(is_subagent=True, seed_uuid="u1")
    assert C.classify(_user("survey the repo"), seed_ctx) == [L.AGENT_COMM_INBOX]


def test_a_compaction_summary_or_sidecar_marker_never_takes_the_shortcut() -> None:
    assert C.classify(_user("summary of the session", isCompactSummary=True)) == [
        L.HARNESS_COMPACTION_SUMMARY]
    marker = _user("q", csift=C.ELICITATION_MARKER, csiftPhase="resolved")
    assert markers.unmarked_user_body(marker) is None


envelopes = st.fixed_dictionaries({}, optional={
    "isMeta": st.booleans(), "isSidechain": st.booleans(), "isCompactSummary": st.booleans(),
    "csift": st.sampled_from([C.ELICITATION_MARKER, "other"])})


blocks = st.one_of(
    texts.map(lambda t: {"type": "text", "text": t}),
    st.just({"type": "image", "source": {"type": "base64", "data": "AA=="}}),
    st.builds(lambda t, err: {"type": "tool_result", "tool_use_id": "t1", "content": t,
                              "is_error": err}, texts, st.booleans()),
    st.sampled_from([{"type": "text", "text": 5}, {"type": "text"}, 3, "x", None]),
)
contents = st.one_of(texts, st.lists(blocks, max_size=3))


@settings(max_examples=600, deadline=None)
@given(contents, envelopes, st.sampled_from(["user", "assistant", None]),
       st.sampled_from([None, "u1", "other"]), st.booleans())
def test_human_message_of_a_typed_prompt_is_what_the_rules_say(
        content: Any, envelope: dict[str, Any], role: str | None, seed: str | None,
        subagent: bool) -> None:
    """The typed-prompt shortcuts of ``human_message`` (a string body, a list of text
    blocks) give the verdict and the words the opener and label rules give, whatever the
    envelope (meta, sidechain, summary, sidecar marker), the role, the blocks (images,
    tool results, junk) and the file's kind."""
    from pysift.core.classify import messages

    def rec() -> Record:
        text = content
        message = {"content": text} if role is None else {"role": role, "content": text}
        return Record({"type": "user", "uuid": "u1", "parentUuid": "p", "message": message,
                       **envelope}, 7)

    ctx = ClassifyContext(is_subagent=subagent, seed_uuid=seed)
    assert C.human_message(rec(), ctx) == messages._by_the_rules(rec(), ctx)
    assert C.human_message(rec()) == messages._by_the_rules(rec())


def test_human_message_shortcut_matches_the_rules_on_every_real_user_record(
        real_home: Any) -> None:
    """Every user record of the real corpus, in its file's kind: the shortcut and the rules
    agree (the shortcut fired on most of them)."""
    from pysift.core.classify import messages
    from pysift.core.decode import decode

    fired = seen = 0
    for path in sorted((real_home / "projects").rglob("*.jsonl")):
        ctx = ClassifyContext(is_subagent="subagents" in path.parts
                              or path.name.startswith("agent-"))
        for line in path.read_bytes().splitlines():
            if b'"user"' not in line:
                continue
            fast, slow = decode(line, None), decode(line, None)
            if fast is None or slow is None or not fast.is_user_record:
                continue
            seen += 1
            fired += markers.unmarked_user_body(decode(line, None) or fast) is not None
            assert C.human_message(fast, ctx) == messages._by_the_rules(slow, ctx), path
    assert seen > 1000 and fired > 100
