"""A compacted session for the verbatim and fold-index tests: six turns across two
compactions, tool calls and a failed result, a long paste, a persisted output, and a
live turn the newest summary already quotes."""

from __future__ import annotations

from pathlib import Path

from builders import (
    ClaudeHome,
    Session,
    assistant,
    assistant_split,
    compact_boundary,
    compact_summary,
    persisted_output,
    text,
    tool_result,
    tool_use,
    user,
)

SID = "5e5e5e5e-1111-4222-8333-444455556666"
CWD = "/w/orbit"
PASTE = "\n".join(f"trace {i:03d}: pass at epoch 24{i:03d}.5 rejected" for i in range(60))
LONG_REPLY = ("The pass finder now scans at 60 s steps and bisects each rise and set to "
              "the second. ") * 20
BIG_OUTPUT = "\n".join(f"row {i}: ISS_PASS_{i:04d} elevation {i % 90} deg" for i in range(400))


def compacted_session() -> Session:
    s = Session(SID, cwd=CWD)
    # t0
    s.add(user("fix the epoch parse in tle.py"))
    s.add(assistant_split(text("Let me look."),
                          tool_use("Read", {"file_path": f"{CWD}/src/orbit/tle.py"}, id="toolu_r1")))
    s.add(tool_result("toolu_r1", "1\timport math\n2\tdef parse_epoch(s):"))
    s.add(assistant("Found it: day-of-year is 1-based; fixed in `parse_epoch` (tle.py:42)."))
    # t1
    s.add(user("now speed up the pass finder"))
    s.add(assistant(tool_use("Bash", {"command": "pytest -q tests/test_passes.py"}, id="toolu_b1")))
    s.add(tool_result("toolu_b1", "FAILED tests/test_passes.py::test_iss - AssertionError: late",
                      is_error=True))
    s.add(assistant(tool_use("Bash", {"command": "python -m orbit.bench"}, id="toolu_b2")))
    s.add(tool_result("toolu_b2", persisted_output(f"{CWD}/.claude/out/toolu_b2.txt", BIG_OUTPUT)))
    s.add(assistant("The coarse scan missed short passes; switched to 60 s steps with bisection."))
    s.wait(600)
    s.add(compact_boundary(151000, "auto", post_tokens=9800, duration_ms=40000))
    s.add(compact_summary(
        "Summary:\n1. Primary Request and Intent:\n   Fix ISS passes.\n"
        "6. All user messages:\n- \"fix the epoch parse in tle.py\"\n"
        "- \"now speed up the pass finder\"\n"
        "9. Optional Next Step:\n   \"The coarse scan missed short passes\"\n"))
    # t2
    s.add(user("cache propagated states"))
    s.add(assistant(tool_use("Write", {"file_path": f"{CWD}/src/orbit/cache.py",
                                       "content": "CACHE = {}\n"}, id="toolu_w1")))
    s.add(tool_result("toolu_w1", "File created successfully at: /w/orbit/src/orbit/cache.py"))
    s.add(assistant("Added an LRU in cache.py."))
    # t3: a long paste and a long reply (both ellipsized at the role caps)
    s.add(user(PASTE))
    s.add(assistant(LONG_REPLY))
    s.wait(600)
    s.add(compact_boundary(162000, "manual"))
    s.add(compact_summary(
        "Summary:\n6. All user messages:\n- \"cache propagated states\"\n"
        "- \"release 0.4.0 once the tests pass\"\n"))
    # t4: quoted by the newest summary (also in summary, demoted)
    s.add(user("release 0.4.0 once the tests pass"))
    s.add(assistant("Tagged v0.4.0 at 5d8a2e1."))
    # t5
    s.add(user("thanks"))
    s.add(assistant("You're welcome."))
    return s


def build(root: Path) -> tuple[ClaudeHome, Path]:
    home = ClaudeHome(root)
    path = home.session(CWD, SID, compacted_session())
    return home, path


def session_of_turns(turns: list[tuple[str | None, list[str], int, bool]], *,
                     failed_third: bool = False) -> Session:
    """A session from ``(prompt, replies, tool calls, compacted after)`` per turn (the
    property tests' draw): a turn without a prompt continues the one before (the first
    opens with "start"); ``failed_third``: a turn's third tool call errors."""
    s = Session("99999999-9999-4999-8999-999999999999", cwd="/w/p")
    for index, (prompt, replies, calls, compacted) in enumerate(turns):
        if prompt is not None or index == 0:
            s.add(user(prompt or "start"))
        for k in range(calls):
            tid = f"toolu_{index}_{k}"
            s.add(assistant(tool_use("Bash", {"command": f"run {k}"}, id=tid)))
            s.add(tool_result(tid, "out", is_error=failed_third and k == 2))
        for reply in replies:
            s.add(assistant(reply))
        if compacted:
            s.add(compact_boundary(1000 * (index + 1)))
            s.add(compact_summary(f"- \"{(prompt or '')[:40]}\""))
    return s
