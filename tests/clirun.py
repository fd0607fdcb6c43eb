"""In-process CLI runner: real argv normalization, real exit mapping, separate streams."""

from __future__ import annotations

import io
import sys
from dataclasses import dataclass

import orjson


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str
    stdout_bytes: bytes

    def json_rows(self, kind: str | None = None) -> list[dict]:
        rows = [orjson.loads(line) for line in self.stdout_bytes.splitlines() if line.strip()]
        return [r for r in rows if kind is None or r.get("kind") == kind]

    def summary(self) -> dict:
        rows = self.json_rows()
        assert rows and rows[-1]["kind"] == "summary", self.stdout
        return rows[-1]

    def header(self) -> dict:
        rows = self.json_rows()
        assert rows and rows[0]["kind"] == "header", self.stdout
        return rows[0]


def run_cli(*args: str, stdin: str = "") -> CliResult:
    from pysift.cli.dispatch import main

    out_bytes, err_bytes = io.BytesIO(), io.BytesIO()
    out = io.TextIOWrapper(out_bytes, encoding="utf-8", write_through=True)
    err = io.TextIOWrapper(err_bytes, encoding="utf-8", write_through=True)
    saved = sys.stdout, sys.stderr, sys.stdin
    sys.stdout, sys.stderr, sys.stdin = out, err, io.StringIO(stdin)
    code = 0
    try:
        main(list(args))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        out.flush()
        err.flush()
        sys.stdout, sys.stderr, sys.stdin = saved
    raw = out_bytes.getvalue()
    return CliResult(code, raw.decode("utf-8", "replace"), err_bytes.getvalue().decode(
        "utf-8", "replace"), raw)
