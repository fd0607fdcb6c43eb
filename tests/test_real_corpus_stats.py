"""Every real transcript's token totals, as ``stats`` counts them, equal a naive count that
decodes every line with the standard library (skipped when the corpus is absent).

``stats`` reads assistant lines through msgspec structs and most other lines off the
bytes; the naive count reads everything the slow, obvious way: one count per API message
(``message.id``), the highest value of each usage field across its records, a record
without an id counted alone, keyed by model. The same scan collects the turn openers,
which must be the ones ``turns.build_turn_map`` finds.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clirun import run_cli
from conftest import DEMO_HOME
from pysift.core.turns import build_turn_map
from pysift.disk.layout import Transcript, transcript_from_path
from pysift.engines.stats import Window, scan_range, stats_of, turn_map_of

FIELDS = ("input_tokens", "output_tokens", "cache_read_input_tokens",
          "cache_creation_input_tokens")


def _naive_tokens(path: Path) -> tuple[dict[str, list[int]], int]:
    totals: dict[str, list[int]] = {}
    peaks: dict[tuple[str, str], list[int]] = {}
    assistants = 0
    for raw in path.read_bytes().split(b"\n"):
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(obj, dict) or obj.get("type") != "assistant":
            continue
        assistants += 1
        message = obj.get("message") if isinstance(obj.get("message"), dict) else {}
        usage = message.get("usage")
        if not isinstance(usage, dict):
            continue
        model = message.get("model")
        model = model if isinstance(model, str) and model else "(unknown)"
        values = [v if type(v) is int else 0 for v in map(usage.get, FIELDS)]  # noqa: E721
        mid = message.get("id")
        if isinstance(mid, str) and mid:
            peak = peaks.setdefault((model, mid), [0, 0, 0, 0])
            peak[:] = [max(a, b) for a, b in zip(peak, values, strict=True)]
        else:
            row = totals.setdefault(model, [0, 0, 0, 0])
            row[:] = [a + b for a, b in zip(row, values, strict=True)]
    for (model, _), peak in peaks.items():
        row = totals.setdefault(model, [0, 0, 0, 0])
        row[:] = [a + b for a, b in zip(row, peak, strict=True)]
    return totals, assistants


@pytest.mark.real
def test_every_real_transcript_counts_the_tokens_a_naive_decode_counts(real_home: Path) -> None:
    paths = sorted((real_home / "projects").rglob("*.jsonl"))
    assert paths
    with_tokens = 0
    for path in paths:
        row = stats_of(Transcript(path, path.stem, False, path.stem, None, path.parent), Window())
        assert row.error is None, (path, row.error)
        got = {model: [s.input, s.output, s.cache_read, s.cache_creation]
               for model, s in row.tokens.items()}
        want, assistants = _naive_tokens(path)
        assert (got, row.assistant_records) == (want, assistants), path
        with_tokens += bool(want)
    assert with_tokens >= 10  # the corpus has real usage to compare, not empty rows


def _same_turn_maps(paths: list[Path]) -> None:
    for path in paths:
        buf = path.read_bytes()
        scan = scan_range(buf)
        for subagent in (False, True):  # (a main transcript's sidechain records open none)
            built = build_turn_map(buf, subagent=subagent)
            scanned = turn_map_of(scan, buf, subagent=subagent)
            assert (scanned.opener_offsets, scanned.draft_offsets, scanned.replay_offsets,
                    scanned.has_records) == (built.opener_offsets, built.draft_offsets,
                                             built.replay_offsets, built.has_records), path


def test_the_scan_finds_the_turn_map_s_openers_in_the_demo_home() -> None:
    """stats collects the turn openers in its one scan; they must be the turn map's."""
    paths = sorted((DEMO_HOME / "projects").rglob("*.jsonl"))
    assert paths
    _same_turn_maps(paths)


@pytest.mark.real
def test_the_scan_finds_the_turn_map_s_openers_in_every_real_transcript(
        real_home: Path) -> None:
    _same_turn_maps(sorted((real_home / "projects").rglob("*.jsonl")))


def _command_agrees_with_the_naive_count(home: Path, cache: Path) -> int:
    """``stats --format json`` over the whole home, without the cache, then twice through
    it (filled, then read back): every session row's tokens and assistant records equal
    the naive decode of its file."""
    want = {}
    for path in sorted((home / "projects").rglob("*.jsonl")):
        t = transcript_from_path(path)
        key = (t.session_id, t.is_subagent, t.parent_session_id)
        assert key not in want, path
        want[key] = _naive_tokens(path)
    env = {"PYSIFT_CACHE_DIR": str(cache), "PYSIFT_CACHE_SETTLE_MS": "0"}
    runs = [run_cli("--claude-home", str(home), "--no-cache", "stats", "--format", "json")]
    with pytest.MonkeyPatch.context() as mp:
        for name, value in env.items():
            mp.setenv(name, value)
        mp.delenv("PYSIFT_NO_CACHE", raising=False)
        runs += [run_cli("--claude-home", str(home), "stats", "--format", "json")
                 for _ in range(2)]
    assert any(cache.rglob("*.marshal"))  # the last run read rows the one before kept
    with_tokens = 0
    for run in runs:
        assert run.code == 0, run.stderr
        rows = run.json_rows("session")
        assert rows and len(rows) == len(runs[0].json_rows("session"))
        for row in rows:
            key = (row["session_id"], row["is_subagent"], row["parent_session_id"])
            tokens, assistants = want[key]
            got = {model: [t["input"], t["output"], t["cache_read"], t["cache_creation"]]
                   for model, t in row["tokens"].items()}
            assert (got, row["assistant_records"]) == (tokens, assistants), key
            with_tokens += bool(tokens)
    return with_tokens


def test_the_command_counts_the_demo_home_s_tokens_as_a_naive_decode(tmp_path: Path) -> None:
    assert _command_agrees_with_the_naive_count(DEMO_HOME, tmp_path / "cache")


@pytest.mark.real
def test_the_command_counts_every_real_session_s_tokens_as_a_naive_decode(
        real_home: Path, tmp_path: Path) -> None:
    assert _command_agrees_with_the_naive_count(real_home, tmp_path / "cache") >= 30
