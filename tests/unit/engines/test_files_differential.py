"""The files engine against an independent full decode, on generated transcripts.

The engine reads a transcript by byte needles and decodes only candidate lines; the
oracle here decodes every line with the stdlib and applies SPEC §10a's rules directly:
a Write/Edit/MultiEdit/NotebookEdit call of a record's own message is a row unless a
result with ``is_error`` answers its id (anywhere in the file); ``toolUseResult.type ==
"create"`` on the record holding its first result makes it a create; a ``File has been
modified since read`` error is a boundary on the file its call named; every non-blank
line that is not ``{...}``-framed is one skipped line. The transcripts mix what real
files hold and what a careful reader must still see through: results before their
calls, several calls and results per record, results in assistant records, calls nested
in ``progress`` records (not the record's own), ids missing or not strings, paths
missing, both JSON layouts, CRLF, blank and indented lines, torn lines, and a last line
without its newline.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builders import tool_result, tool_use
from pysift.disk.layout import transcript_from_path
from pysift.engines import files as engine

MODIFIED = "File has been modified since read, either by the user or by a linter."
OPS = {"Write": "write", "Edit": "edit", "MultiEdit": "multi_edit", "NotebookEdit": "notebook_edit"}
IDS = ["t1", "t2", "t3", "t4", "t5"]
PATHS = ["/w/a.py", "/w/b c.md", "C:\\w\\n.ipynb", "rel/x.txt", ""]

ids = st.one_of(st.sampled_from(IDS), st.none(), st.just(7))


@st.composite
def call(draw: Any) -> dict[str, Any]:
    name = draw(st.sampled_from([*OPS, "Read", "Bash"]))
    key = "notebook_path" if name == "NotebookEdit" and draw(st.booleans()) else "file_path"
    payload: dict[str, Any] = {}
    if name == "Bash":
        payload["command"] = draw(st.sampled_from(["ls -la", "git status", "pytest -q"]))
    elif draw(st.integers(0, 5)):
        payload[key] = draw(st.sampled_from(PATHS))
    block = tool_use(name, payload, id="x")
    ident = draw(ids)
    if ident is None:
        del block["id"]
    else:
        block["id"] = ident
    return block


@st.composite
def result_block(draw: Any) -> dict[str, Any]:
    ident = draw(ids)
    text = draw(st.sampled_from(["ok", MODIFIED, "Error: no such file"]))
    block = tool_result(ident if isinstance(ident, str) else "zz", text,
                        is_error=draw(st.booleans()))["message"]["content"][0]
    if ident is None or not isinstance(ident, str):
        block["tool_use_id"] = ident
    return block


@st.composite
def record(draw: Any) -> dict[str, Any]:
    shape = draw(st.sampled_from(["calls", "results", "mixed", "progress", "text"]))
    if shape == "text":
        return {"type": "user", "message": {"role": "user", "content": "go on"}}
    if shape == "progress":  # a subagent's call copied in: not this record's own
        return {"type": "progress", "data": {"message": {"type": "assistant", "message": {
            "role": "assistant", "content": [draw(call())]}}}}
    blocks: list[dict[str, Any]] = []
    if shape in ("calls", "mixed"):
        blocks += draw(st.lists(call(), min_size=1, max_size=3))
    if shape in ("results", "mixed"):
        blocks += draw(st.lists(result_block(), min_size=1, max_size=2))
    rtype = "assistant" if shape != "results" else "user"
    out: dict[str, Any] = {"type": rtype, "message": {"role": rtype, "content": blocks}}
    if shape != "calls" and draw(st.booleans()):
        out["toolUseResult"] = {"type": draw(st.sampled_from(["create", "update"])),
                                "filePath": draw(st.sampled_from(PATHS))}
    out["timestamp"] = "2026-10-05T09:00:00.000Z"
    return out


@st.composite
def transcript(draw: Any) -> bytes:
    spaced = draw(st.booleans())
    lines: list[bytes] = []
    for rec in draw(st.lists(record(), max_size=12)):
        text = json.dumps(rec) if spaced else json.dumps(rec, separators=(",", ":"))
        line = text.encode()
        look = draw(st.sampled_from(["plain", "plain", "plain", "indent", "trail", "crlf",
                                     "torn", "blank_after", "garbage_after"]))
        if look == "indent":
            line = b"  " + line
        elif look == "trail":
            line += b" \t"
        elif look == "crlf":
            line += b"\r"
        elif look == "torn":
            line = line[:draw(st.integers(1, len(line) - 1))].rstrip(b"} ")  # cut mid-write
        lines.append(line)
        if look == "blank_after":
            lines.append(b"   ")
        elif look == "garbage_after":
            lines.append(b"<<<<<<< HEAD")
    data = b"\n".join(lines)
    return data if draw(st.booleans()) or not data else data + b"\n"


def oracle(data: bytes) -> tuple[list[tuple[int, str, str, bool]], list[tuple[int, str]], int]:
    """(line, path, op, is_create) rows, (line, path) boundaries, skipped lines."""
    skipped = 0
    records: list[tuple[int, dict[str, Any]]] = []
    for number, raw in enumerate(data.split(b"\n"), 1):
        stripped = raw.strip()
        if not stripped:
            continue
        if not (stripped.startswith(b"{") and stripped.endswith(b"}")):
            skipped += 1
            continue
        obj = json.loads(stripped)
        records.append((number, obj))
    failed: set[str] = set()
    creates: dict[str, str] = {}
    errors: list[tuple[int, str]] = []
    for number, obj in records:
        content = (obj.get("message") or {}).get("content")
        if not isinstance(content, list):
            continue
        results = [b for b in content if b.get("type") == "tool_result"
                   and isinstance(b.get("tool_use_id"), str)]
        for b in results:
            if b.get("is_error") is True:
                failed.add(b["tool_use_id"])
                if "modified since read" in b["content"]:
                    errors.append((number, b["tool_use_id"]))
        echo = obj.get("toolUseResult")
        if results and isinstance(echo, dict) and echo.get("type") == "create":
            creates[results[0]["tool_use_id"]] = echo.get("filePath") or ""
    rows: list[tuple[int, str, str, bool]] = []
    first_path: dict[str, str] = {}
    for number, obj in records:
        content = (obj.get("message") or {}).get("content")
        for b in content if isinstance(content, list) else ():
            if b.get("type") != "tool_use" or b.get("name") not in OPS:
                continue
            ident = b.get("id") if isinstance(b.get("id"), str) else None
            args = b["input"]
            path = (args.get("notebook_path") if b["name"] == "NotebookEdit" else None) \
                or args.get("file_path") or ""
            if ident is not None and path:
                first_path.setdefault(ident, path)
            if ident in failed:
                continue
            created = ident in creates
            if not path and created:
                path = creates[ident]
            if path:
                rows.append((number, path, OPS[b["name"]], created))
    bounds = [(number, first_path[ident]) for number, ident in errors if ident in first_path]
    return rows, bounds, skipped


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=transcript())
def test_engine_agrees_with_a_full_decode(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "projects" / "-w" / "22222222-2222-4222-8222-222222222222.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    found = engine.transcript_mutations(transcript_from_path(path))
    rows, bounds, skipped = oracle(data)
    got = [(m.line, m.path, m.op, m.is_create) for m in found.mutations if not m.heuristic]
    assert sorted(got) == sorted(rows)
    assert sorted((b.line, b.path) for b in found.boundaries) == sorted(bounds)
    assert found.skipped_lines == skipped
