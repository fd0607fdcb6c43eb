"""A session's spawn links for the classifier (``core.spawnlinks``): what each meta says,
read once and only when asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import ClaudeHome, Session, assistant, tool_result, tool_use, user
from pysift.core import spawnlinks
from pysift.core.spawnlinks import LazyMap, LinkBook, SessionLinks
from pysift.disk.layout import Unreadable, subagent_transcripts, top_level_transcript

SID = "0c7d2e10-5c4a-4f8e-9d21-6a0f1e2b3c4d"
CWD = "/home/ada/src/links"


def _home(tmp_path: Path) -> tuple[ClaudeHome, Path]:
    h = ClaudeHome(tmp_path / "claude")
    main = Session(SID, cwd=CWD)
    main.add(user("go"))
    main.add(assistant(tool_use("Task", {"subagent_type": "Explore", "prompt": "a"}, id="t1")))
    main.add(tool_result("t1", "done"))
    return h, h.session(CWD, SID, main)


def _lanes(path: Path) -> dict[str, object]:
    return {t.session_id: t for t in subagent_transcripts(path, unread=Unreadable())}


def test_children_and_names_from_the_metas(tmp_path: Path) -> None:
    h, path = _home(tmp_path)
    h.subagent(path, "a1", user("a"), meta={"agentType": "Explore", "toolUseId": "t1"})
    # a /fork clone whose meta copies the call: the original lane keeps it, whatever the
    # order the listing gives
    h.subagent(path, "a0", user("a"), meta={"agentType": "fork", "isFork": True,
                                            "toolUseId": "t1"})
    h.subagent(path, "avega-01", user("qa"), meta={"name": "vega"})
    h.subagent(path, "atwin-01", user("x"), meta={"name": "twin"})
    h.subagent(path, "atwin-02", user("y"), meta={"name": "twin"})  # two lanes: no join
    h.subagent(path, "a2", user("b"))  # no meta at all
    (path.with_suffix("") / "subagents" / "agent-a3.jsonl").write_bytes(b"")
    (path.with_suffix("") / "subagents" / "agent-a3.meta.json").write_text("{not json")
    links = SessionLinks(path)
    assert links.children() == {"t1": "a1"}
    assert links.names() == {"vega": "avega-01"}


def test_a_session_without_a_dir_is_never_listed(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    _h, path = _home(tmp_path)

    def listed(*_a: object, **_k: object) -> list[object]:
        raise AssertionError("listed")

    monkeypatch.setattr(spawnlinks, "subagent_transcripts", listed)
    main = top_level_transcript(path, has_session_dir=False)
    fields = LinkBook().context_fields(main)
    assert fields["spawn_index"].get("t1") is None
    assert len(fields["spawn_names"]) == 0
    assert "issuer" not in fields  # a main transcript has no seed


def test_lazy_map_loads_once_at_its_first_lookup() -> None:
    loads: list[int] = []

    def load() -> dict[str, str]:
        loads.append(1)
        return {"k": "v"}

    lazy = LazyMap(load)
    assert loads == []
    assert lazy.get("k") == "v" and lazy["k"] == "v" and "k" in lazy and list(lazy) == ["k"]
    assert loads == [1]


def test_the_issuer_declared_or_called_by_the_session_skips_the_join(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    h, path = _home(tmp_path)
    h.subagent(path, "a1", user("a"),
               assistant(tool_use("Task", {"subagent_type": "Explore", "prompt": "b"}, id="t2")),
               meta={"toolUseId": "t1"})
    h.subagent(path, "a2", user("b"), meta={"toolUseId": "t2", "parentAgentId": "a1"})
    h.subagent(path, "a3", user("b"), meta={"toolUseId": "t2"})
    lanes = _lanes(path)
    links = SessionLinks(path)
    scanned: list[Path] = []
    from pysift.core import topology

    real = topology.scan_transcript

    def counting(p: Path, lane: object, **kw: bool) -> object:
        scanned.append(p)
        return real(p, lane, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(topology, "scan_transcript", counting)
    assert links.issuer(lanes["a2"]) == "a1"  # type: ignore[arg-type]  # declared
    assert links.issuer(lanes["a1"]) is None  # type: ignore[arg-type]  # a main call
    assert scanned == []
    assert links.issuer(lanes["a3"]) == "a1"  # type: ignore[arg-type]  # the join
    assert len(scanned) == 4  # the main transcript and the three lanes, once
    assert links.issuer(lanes["a3"]) == "a1"  # type: ignore[arg-type]
    assert len(scanned) == 4
