"""Interpreter write idioms: what a ``python -c``/``node -e``/``ruby -e`` script or a
``python3 - <<'PY'`` heredoc writes, read from the script TEXT.

Only provable targets are named: a string literal handed straight to a writer
(``open('out.md', 'w')``, ``Path('x').write_text(...)``, ``fs.writeFileSync('x', ...)``,
``File.write('x', ...)``, ``df.to_csv('x.csv')``), or a name bound exactly once, at the
head of a line, to a bare string literal (or ``Path('lit')``) and never rebound or used
as a loop variable. Any other writer call (a computed path, a join, an f-string, argv)
makes the script OPAQUE: it writes, but what it writes cannot be said. An ``open`` whose
mode is absent or holds no write letter is a read and counts for nothing.
"""

from __future__ import annotations

import re

from pysift.model.fastdata import dataclass

_LANGS = {"python": "python", "python2": "python", "python3": "python", "py": "python",
          "node": "node", "nodejs": "node", "ruby": "ruby"}
_VERSIONED_PYTHON = re.compile(r"python[23](?:\.\d+)?")

# (needle, how the target is found)
_OPEN = "open"          # open(TARGET, MODE): a write only when MODE is a write mode
_RECEIVER = "receiver"  # TARGET.write_text(...)
_FIRST = "first"        # writer(TARGET, ...)
_SITES = (
    ("open(", _OPEN),
    (".write_text(", _RECEIVER),
    (".write_bytes(", _RECEIVER),
    ("writeFileSync(", _FIRST),
    ("appendFileSync(", _FIRST),
    ("writeFile(", _FIRST),
    ("appendFile(", _FIRST),
    ("File.write(", _FIRST),
    (".to_csv(", _FIRST),
    (".to_excel(", _FIRST),
    (".to_parquet(", _FIRST),
    (".savefig(", _FIRST),
)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def interpreter_language(name: str) -> str | None:
    """``python``/``node``/``ruby`` for an interpreter program name (``python3.12``,
    ``/usr/bin/node``, ``python.exe`` included), else None."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    if base.lower().endswith(".exe"):
        base = base[:-4]
    if _VERSIONED_PYTHON.fullmatch(base):
        return "python"
    return _LANGS.get(base)


@dataclass(frozen=True, slots=True)
class ScriptWrites:
    targets: tuple[str, ...]  # provable targets, as written in the script
    opaque: bool              # a write whose target cannot be said


def script_writes(source: str) -> ScriptWrites:
    """The write targets of one interpreter script (never raises)."""
    targets: list[str] = []
    opaque = False
    if not any(needle in source for needle, _ in _SITES):
        return ScriptWrites((), False)
    lines = source.split("\n")
    for line in lines:
        for needle, kind in _SITES:
            start = 0
            while True:
                at = line.find(needle, start)
                if at < 0:
                    break
                start = at + len(needle)
                if kind == _OPEN and at > 0 and (line[at - 1].isalnum() or line[at - 1] in "_."):
                    if not line[:at].endswith(("io.", "codecs.")):
                        continue  # reopen(, os.open( ... not the builtin
                verdict = _site(line, at, needle, kind, lines)
                if verdict is None:
                    continue
                if verdict == "":
                    opaque = True
                elif verdict not in targets:
                    targets.append(verdict)
    return ScriptWrites(tuple(targets), opaque)


def _site(line: str, at: int, needle: str, kind: str, lines: list[str]) -> str | None:
    """The target of one call site: a path, ``""`` for opaque, None for not a write."""
    args_at = at + len(needle)
    if kind == _OPEN:
        first, rest = _argument(line, args_at)
        if first is None:
            return ""
        mode = None
        if rest is not None:
            second, _ = _argument(line, rest)
            if second is not None:
                mode = _string_literal(second)
                if mode is None and second.startswith("mode="):
                    mode = _string_literal(second[5:].strip())
        if mode is None or not any(ch in mode for ch in "wax+"):
            return None
        return _literal(first, lines) or ""
    if kind == _RECEIVER:
        receiver = _receiver(line, at)
        return (_literal(receiver, lines) or "") if receiver else ""
    first, _ = _argument(line, args_at)
    if first is None:
        return ""
    return _literal(first, lines) or ""


def _argument(line: str, i: int) -> tuple[str | None, int | None]:
    """The argument starting at ``i`` (up to an unnested ``,`` or ``)``) and where the
    next one starts (None after the last); (None, None) when the list does not close on
    this line."""
    depth = 0
    quote = ""
    j = i
    n = len(line)
    while j < n:
        c = line[j]
        if quote:
            if c == "\\":
                j += 2
                continue
            if c == quote:
                quote = ""
        elif c in "'\"`":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return line[i:j].strip(), None
            depth -= 1
        elif c == "," and depth == 0:
            return line[i:j].strip(), j + 1
        j += 1
    return None, None


def _receiver(line: str, dot: int) -> str | None:
    """The expression just before ``.write_text(`` at ``dot`` (a name, a call chain)."""
    depth = 0
    j = dot
    while j > 0:
        c = line[j - 1]
        if c == ")":
            depth += 1
        elif c == "(":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and not (c.isalnum() or c in "_.'\""):
            break
        j -= 1
    text = line[j:dot].strip()
    return text or None


def _string_literal(expr: str) -> str | None:
    if len(expr) >= 2 and expr[0] in "'\"" and expr[-1] == expr[0]:
        inner = expr[1:-1]
        if inner and expr[0] not in inner and "\\" not in inner:
            return inner
    return None


def _path_literal(expr: str) -> str | None:
    """``Path('x')`` / ``pathlib.Path("x")``."""
    open_at = expr.find("(")
    if open_at < 0 or not expr.endswith(")") or not expr[:open_at].endswith("Path"):
        return None
    return _string_literal(expr[open_at + 1:-1].strip())


def _literal(expr: str, lines: list[str]) -> str | None:
    lit = _string_literal(expr) or _path_literal(expr)
    if lit is not None:
        return lit
    if _IDENT.match(expr):
        return _one_hop(expr, lines)
    return None


def _one_hop(name: str, lines: list[str]) -> str | None:
    """The literal ``name`` is bound to: exactly one binding, at the head of a line, to a
    bare string literal or ``Path('lit')``; never a loop variable."""
    bound: str | None = None
    for line in lines:
        text = line.strip()
        if text.startswith("for ") or text.startswith("for("):
            head = re.split(r"\bin\b|\bof\b|:", text[4:], maxsplit=1)[0]
            if re.search(rf"\b{re.escape(name)}\b", head):
                return None
        for keyword in ("const ", "let ", "var "):
            if text.startswith(keyword):
                text = text[len(keyword):].lstrip()
                break
        if not text.startswith(name):
            continue
        rest = text[len(name):].lstrip()
        if not rest.startswith("=") or rest.startswith("=="):
            if re.match(r"(?:\+|-|\*|/|\|)=|,|\s*:", rest) or rest.startswith(("+=", ":=")):
                return None  # augmented or tuple assignment: not a constant
            continue
        rhs = rest[1:].strip().rstrip(";").strip()
        if bound is not None:
            return None
        lit = _string_literal(rhs) or _path_literal(rhs)
        if lit is None:
            return None
        bound = lit
    return bound
