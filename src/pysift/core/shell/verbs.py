"""The mutation reading of one simple command: which operands it changes on disk.

Table-driven by program name (after ``sudo``/``env``/``nohup``/``timeout``... prefixes
and a path prefix are peeled: ``/bin/rm`` is ``rm``). Each reading is an operand WORD
with a verb, or a CLASS MARKER: a pseudo-path naming what kind of command rewrote files
it does not name (``git:<sub>``, ``fmt:<tool>``, ``pkg:<manager>``, ``extract:<tool>``,
``interp:<lang>``). Dry runs (``--check``, ``--dry-run``, ``git clean -n``...) change
nothing and read as nothing; read-only programs read as nothing. ``xargs PROGRAM`` reads
as PROGRAM given the items it reads as one operand no text names (``${xargs_input}``),
GNU ``parallel``'s template as a script run once per literal item, or given
``${parallel_input}``;
``find … -delete``/``-exec`` as its start directories, carrying its expression
(``findexpr``) for ``may_reach``, plus what the ``-exec`` program changes besides ``{}``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pysift.core.shell import findexpr
from pysift.core.shell.interp import interpreter_language, script_writes
from pysift.core.shell.lexer import Word, is_device
from pysift.core.shell.syntax import Command
from pysift.model.fastdata import dataclass

MARKER_HEADS = ("git:", "fmt:", "interp:", "pkg:", "extract:")

# Verbs whose target is (heuristically) a new file.
CREATING_VERBS = frozenset((
    "mkdir", "touch", "tee", ">", "cp", "mv", "install", "ln", "rsync", "curl", "wget",
    "dd", "zip", "tar", "flag-output", "interp-write", "git-mv",
))


def is_marker(path: str) -> bool:
    """A class-marker pseudo-path, never a file: not resolved, not joined."""
    return path.startswith(MARKER_HEADS)


@dataclass(frozen=True, slots=True)
class Reading:
    """One thing a command changes: ``word`` (an operand) or ``marker`` (a class marker),
    the ``verb`` that changes it, and whether the verb makes a new file. ``chdir``: the
    directories the program itself moves to before reading ``word`` (``git -C a -C b``:
    each relative to the one before, the first to the shell's cwd). ``reach``: a ``find``
    reading's expression (``findexpr``), which files under ``word`` it may change."""

    verb: str
    word: Word | None = None
    marker: str | None = None
    chdir: tuple[Word, ...] = ()
    reach: tuple[object, ...] | None = None

    @property
    def is_create(self) -> bool:
        return self.verb in CREATING_VERBS


def program(words: Sequence[Word]) -> tuple[str | None, list[Word]]:
    """The program a command runs (basename, ``.exe`` dropped) and its arguments, with
    launcher prefixes peeled (``sudo -u x``, ``env -i A=1``, ``nohup``, ``time -p``,
    ``timeout 5``, ``nice -n 5``, ``command``, ``exec``, ``builtin``, ``stdbuf -oL``)."""
    i = 0
    n = len(words)
    while i < n:
        word = words[i]
        if not word.literal:
            return None, []
        name = _basename(word.value)
        if name in ("sudo", "doas"):
            i += 1
            while i < n and words[i].value.startswith("-"):
                flag = words[i].value
                i += 2 if flag in ("-u", "-g", "-C", "-h", "-p", "-U", "-r", "-t") else 1
            continue
        if name == "env":
            i += 1
            while i < n:
                value = words[i].value
                if value in ("-u", "--unset", "-C", "--chdir", "-S"):
                    i += 2
                elif value.startswith("-") or ("=" in value and not value.startswith("=")):
                    i += 1
                else:
                    break
            continue
        if name in ("nohup", "command", "builtin", "exec", "caffeinate"):
            i += 1
            while i < n and words[i].value.startswith("-"):
                i += 1
            continue
        if name == "time":
            i += 1
            while i < n and words[i].value in ("-p", "-v", "--portability"):
                i += 1
            continue
        if name == "timeout":
            i += 1
            while i < n and words[i].value.startswith("-"):
                i += 2 if words[i].value in ("-s", "-k", "--signal", "--kill-after") else 1
            i += 1  # the duration
            continue
        if name == "nice":
            i += 1
            while i < n and words[i].value.startswith("-"):
                i += 2 if words[i].value == "-n" else 1
            continue
        if name == "stdbuf":
            i += 1
            while i < n and words[i].value.startswith("-"):
                i += 1
            continue
        return name, list(words[i + 1:])
    return None, []


def _basename(value: str) -> str:
    base = value.replace("\\", "/").rsplit("/", 1)[-1]
    return base[:-4] if base.lower().endswith(".exe") else base


def _operands(args: Iterable[Word], value_flags: tuple[str, ...] = ()) -> list[Word]:
    """Positional operands: flags dropped (with the value of each flag in
    ``value_flags``, spaced or ``--flag=value``); after ``--`` every word is one."""
    out: list[Word] = []
    it = iter(args)
    ended = False
    for word in it:
        value = word.value
        if ended:
            out.append(word)
            continue
        if value == "--":
            ended = True
            continue
        if value.startswith("-") and value != "-":
            if value in value_flags:
                next(it, None)
            continue
        out.append(word)
    return out


def _flag_value(args: Sequence[Word], *names: str) -> Word | None:
    """The value of the first of ``names`` among ``args`` (spaced or ``--long=value``)."""
    for i, word in enumerate(args):
        value = word.value
        if value in names:
            return args[i + 1] if i + 1 < len(args) else None
        for name in names:
            if name.startswith("--") and value.startswith(name + "="):
                return Word(word.raw, value[len(name) + 1:], word.quoted, word.dynamic,
                            word.glob, False, word.inner)
    return None


def _has(args: Sequence[Word], *flags: str) -> bool:
    return any(w.value in flags for w in args)


def _suffix(word: Word, offset: int) -> Word:
    """The word's value from ``offset`` on, as a word of its own (``of=/x`` -> ``/x``)."""
    return Word(word.raw, word.value[offset:], word.quoted, word.dynamic, word.glob,
                word.value[offset:offset + 1] == "~" and not word.quoted, word.inner)


# -- per-program readings ----------------------------------------------------------------


def _each(verb: str, words: Iterable[Word]) -> list[Reading]:
    return [Reading(verb, word=w) for w in words if w.value]


def _rm(name: str, args: list[Word]) -> list[Reading]:
    return _each("rm" if name != "rmdir" else "rmdir", _operands(args))


def _mkdir(args: list[Word]) -> list[Reading]:
    return _each("mkdir", _operands(args, ("-m", "--mode", "--context", "-Z")))


def _touch(args: list[Word]) -> list[Reading]:
    return _each("touch", _operands(args, ("-d", "--date", "-r", "--reference", "-t")))


def _tee(args: list[Word]) -> list[Reading]:
    verb = "tee-a" if _has(args, "-a", "--append") else "tee"
    return _each(verb, (w for w in _operands(args, ("--output-error",)) if not is_device(w.value)))


def _is_remote(value: str) -> bool:
    head = value.replace("\\", "/").split("/", 1)[0]
    if ":" not in head:
        return False
    host = head.split(":", 1)[0]
    return len(host) != 1 or not host.isalpha()


def _copy_like(verb: str, args: list[Word]) -> list[Reading]:
    """``cp``/``mv``/``install``/``ln``: the destination (``-t DIR`` or the last operand);
    ``mv`` also reports each source it removes (``mv-from``)."""
    value_flags: tuple[str, ...] = ("-t", "--target-directory", "-S", "--suffix")
    if verb == "install":
        value_flags += ("-m", "--mode", "-o", "--owner", "-g", "--group")
        if _has(args, "-d", "--directory"):
            return _each("mkdir", _operands(args, value_flags))
    target = _flag_value(args, "-t", "--target-directory")
    operands = _operands(args, value_flags)
    if target is not None:
        dest, sources = target, operands
    elif verb == "ln" and len(operands) == 1:
        # `ln -s /a/b` makes `b` in the current directory
        only = operands[0]
        base = only.value.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
        return [Reading("ln", word=Word(base, base, only.quoted, only.dynamic, only.glob))] \
            if base else []
    elif len(operands) >= 2:
        dest, sources = operands[-1], operands[:-1]
    else:
        return []
    out = [Reading(verb, word=dest)] if dest.value else []
    if verb == "mv":
        out += _each("mv-from", sources)
    return out


def _rsync(args: list[Word]) -> list[Reading]:
    operands = _operands(args, ("-e", "--rsh", "-f", "--filter", "--exclude", "--include",
                                "--files-from", "--exclude-from", "--include-from",
                                "--port", "-T", "--temp-dir", "--log-file", "--chmod",
                                "--backup-dir", "--suffix"))
    if len(operands) < 2 or _is_remote(operands[-1].value):
        return []
    return [Reading("rsync", word=operands[-1])]


def _sed(args: list[Word]) -> list[Reading]:
    if not any(w.value.startswith("-i") or w.value.startswith("--in-place")
               or (w.value.startswith("-") and not w.value.startswith("--")
                   and "i" in w.value[1:] and w.value[1:].isalpha())
               for w in args):
        return []
    script_flags = ("-e", "--expression", "-f", "--file", "-l", "--line-length")
    explicit = any(w.value in ("-e", "--expression", "-f", "--file")
                   or w.value.startswith(("--expression=", "--file=")) for w in args)
    files: list[Word] = []
    seen_script = explicit
    skip_next = False
    for i, word in enumerate(args):
        if skip_next:
            skip_next = False
            continue
        value = word.value
        if value in script_flags:
            skip_next = True
            continue
        if value.startswith("-") and value != "-":
            # BSD `-i ''`: the empty word after -i is the backup suffix
            if value == "-i" and i + 1 < len(args) and args[i + 1].value == "" \
                    and args[i + 1].quoted:
                skip_next = True
            continue
        if not seen_script:
            seen_script = True
            continue
        files.append(word)
    return _each("sed-i", files)


def _perl(args: list[Word]) -> list[Reading]:
    """``perl -i`` with a ``-e``/``-E`` program: the operands after the switches. Switches
    are read as perl bundles them (``-pi -e``, ``-i -pe``, ``-i.bak -pe``, ``-0777 -pi
    -e``): ``-i`` takes the rest of its word as the backup suffix, ``-e`` the rest or the
    next word as the program; a program given as a file (no ``-e``) leaves the operands
    unknown (the first may be the script)."""
    in_place = inline = False
    files: list[Word] = []
    skip = ended = False
    for word in args:
        if skip:
            skip = False
            continue
        value = word.value
        if ended or not value.startswith("-") or value == "-":
            if not inline:
                return []
            files.append(word)
            continue
        if value == "--":
            ended = True
            continue
        at = 1
        while at < len(value):
            switch = value[at]
            rest = value[at + 1:]
            if switch == "i":
                in_place = True
                break
            if switch in "eE":
                inline = True
                skip = not rest
                break
            if switch in "IMm":
                skip = not rest
                break
            if switch in "FxCdD":
                break
            at += 1
            if switch in "0l":
                while at < len(value) and value[at] in "0123456789abcdefABCDEFx":
                    at += 1
    return _each("perl-i", files) if in_place and inline else []


def _truncate(args: list[Word]) -> list[Reading]:
    return _each("truncate", _operands(args, ("-s", "--size", "-r", "--reference")))


GIT_MUTATING = frozenset(("add", "commit", "checkout", "reset", "rm", "mv", "restore",
                          "stash", "merge", "rebase", "apply", "clean", "switch", "pull",
                          "cherry-pick", "revert", "am"))
# Subcommands that touch only the index/history, never a worktree file.
GIT_INDEX_ONLY = frozenset(("add", "commit"))


def _git(args: list[Word]) -> list[Reading]:
    """Git's worktree-changing subcommands. ``-C <dir>`` is git's own working directory
    for the command (several compose): the paths it names are read from there."""
    i, chdir = _git_globals(args)
    readings = _git_readings(args, i)
    if not chdir:
        return readings
    return [Reading(r.verb, r.word, r.marker, chdir, r.reach) if r.word is not None else r
            for r in readings]


def _git_globals(args: list[Word]) -> tuple[int, tuple[Word, ...]]:
    """Where git's subcommand word is (after its global options), and the ``-C`` values
    met on the way."""
    i = 0
    chdir: list[Word] = []
    while i < len(args):
        value = args[i].value
        if value in ("-C", "-c", "--git-dir", "--work-tree", "--namespace"):
            if value == "-C" and i + 1 < len(args):
                chdir.append(args[i + 1])
            i += 2
            continue
        if value.startswith("-"):
            i += 1
            continue
        break
    return i, tuple(chdir)


def _git_readings(args: list[Word], i: int) -> list[Reading]:
    """The readings of the subcommand at ``args[i]`` (``_git_globals``)."""
    if i >= len(args) or not args[i].literal:
        return []
    sub = args[i].value
    rest = args[i + 1:]
    if sub not in GIT_MUTATING:
        return []
    if sub == "apply" and _has(rest, "--check", "--stat", "--numstat", "--summary"):
        return []
    if (sub == "clean" and _has(rest, "-n", "--dry-run")) or (
            sub == "clean" and any(w.value.startswith("-") and not w.value.startswith("--")
                                   and "n" in w.value for w in rest)):
        return []
    if sub == "stash" and rest and rest[0].value in ("list", "show"):
        return []
    if sub in ("commit", "merge", "rebase", "pull", "revert", "cherry-pick", "am") and \
            _has(rest, "--dry-run", "--abort"):
        return []
    paths = _git_paths(sub, rest)
    if paths:
        return paths
    return [Reading("git", marker=f"git:{sub}")]


def _git_paths(sub: str, rest: list[Word]) -> list[Reading]:
    """The worktree files a path-naming git subcommand changes (rm/mv/restore, and
    ``checkout ... -- paths``); empty when it names none (the caller then marks it)."""
    if sub == "rm":
        if _has(rest, "--cached", "-n", "--dry-run"):
            return []
        return _each("git-rm", _operands(rest, ()))
    if sub == "mv":
        if _has(rest, "-n", "--dry-run"):
            return []
        operands = _operands(rest, ())
        if len(operands) < 2:
            return []
        return [Reading("git-mv", word=operands[-1])] + _each("git-mv-from", operands[:-1])
    if sub == "restore":
        staged_only = _has(rest, "--staged", "-S") and not _has(rest, "--worktree", "-W")
        if staged_only:
            return []
        return _each("git-restore", _operands(rest, ("-s", "--source")))
    if sub == "checkout":
        values = [w.value for w in rest]
        if "--" not in values:
            return []
        return _each("git-checkout", rest[values.index("--") + 1:])
    return []


def _curl(args: list[Word]) -> list[Reading]:
    out: list[Reading] = []
    for i, word in enumerate(args):
        if word.value == "-o" and i + 1 < len(args):
            out.append(Reading("curl", word=args[i + 1]))
    return out


def _wget(args: list[Word]) -> list[Reading]:
    target = _flag_value(args, "-O", "--output-document")
    if target is None or target.value == "-":
        return []
    return [Reading("wget", word=target)]


def _dd(args: list[Word]) -> list[Reading]:
    return [Reading("dd", word=_suffix(w, 3)) for w in args
            if w.value.startswith("of=") and len(w.value) > 3 and not is_device(w.value[3:])]


def _zip(args: list[Word]) -> list[Reading]:
    operands = _operands(args, ("-x", "-i", "-b", "-n", "-t", "-tt", "-P", "-Z"))
    return [Reading("zip", word=operands[0])] if operands else []


def _tar(args: list[Word]) -> list[Reading]:
    create = extract = False
    archive: Word | None = None
    want_file = False
    for n, word in enumerate(args):
        value = word.value
        if want_file:
            archive = word
            want_file = False
            continue
        if value in ("--create", "-c"):
            create = True
        elif value in ("--extract", "--get", "-x"):
            extract = True
        elif value.startswith("--file="):
            archive = _suffix(word, 7)
        elif value in ("--file", "-f"):
            want_file = True
        elif value.startswith("--"):
            continue
        elif ((value.startswith("-") or n == 0) and value.isascii() and value.strip("-").isalpha()) \
                or (value.startswith("-") and "f" in value):
            bundle = value.lstrip("-")
            fpos = bundle.find("f")
            flags = bundle if fpos < 0 else bundle[:fpos]
            create = create or "c" in flags
            extract = extract or "x" in flags
            if fpos >= 0:
                tail = bundle[fpos + 1:]
                if tail:
                    archive = _suffix(word, len(value) - len(tail))
                else:
                    want_file = True
    out: list[Reading] = []
    if create and archive is not None and archive.value not in ("-", ""):
        out.append(Reading("tar", word=archive))
    if extract:
        out.append(Reading("extract", marker="extract:tar"))
    return out


def _marker(kind: str, tool: str) -> list[Reading]:
    return [Reading(kind, marker=f"{kind}:{tool}")]


def _fmt_operands(tool: str, args: list[Word], value_flags: tuple[str, ...] = ()) -> list[Reading]:
    named = _each("fmt", _operands(args, value_flags))
    return named or _marker("fmt", tool)


def _node_runner(name: str, args: list[Word]) -> list[Reading]:
    sub = args[0].value if args else ""
    if sub == "run" and len(args) > 1 and ("format" in args[1].value or "fix" in args[1].value):
        return _marker("fmt", "npm-script")
    if sub in ("install", "i", "ci", "update", "up", "upgrade", "add", "remove", "rm",
               "uninstall", "un"):
        return _marker("pkg", name)
    if sub == "audit" and len(args) > 1 and args[1].value == "fix":
        return _marker("pkg", name)
    if sub in ("exec", "dlx", "x") and len(args) > 1:
        return _class(args[1].value, args[2:])
    return []


#: project-environment launchers whose ``run`` sub-command starts another program
_RUN_LAUNCHERS = frozenset({"uv", "poetry", "pdm", "hatch", "rye", "pipenv"})


def _class(name: str, args: list[Word]) -> list[Reading]:
    """Formatters, package managers and extractors (class markers, or the files a
    formatter is told to rewrite)."""
    name = _basename(name)
    if name in ("npx", "bunx", "uvx", "pipx"):
        rest = [w for w in args if not w.value.startswith("-")]
        if not rest:
            return []
        at = args.index(rest[0])
        return _class(rest[0].value, args[at + 1:])
    if name in _RUN_LAUNCHERS and args and args[0].value == "run":
        # `uv run ruff format`, `poetry run black .`: the tool the project env runs
        rest = [w for w in args[1:] if not w.value.startswith("-")]
        if rest:
            at = args.index(rest[0])
            found = _class(rest[0].value, args[at + 1:])
            if found:
                return found
    if name == "cargo":
        sub = args[0].value if args else ""
        if sub == "fmt" and not _has(args, "--check"):
            return _marker("fmt", "cargo")
        if sub in ("add", "update", "remove", "rm"):
            return _marker("pkg", "cargo")
        return []
    if name == "rustfmt":
        return [] if _has(args, "--check") else _fmt_operands("rustfmt", args, ("--edition", "--config-path", "--config"))
    if name == "prettier":
        return _fmt_operands("prettier", args, ("--config", "--ignore-path", "--parser", "--plugin")) \
            if _has(args, "--write", "-w") else []
    if name == "black":
        return [] if _has(args, "--check", "--diff") else _fmt_operands("black", args, ("-l", "--line-length", "--config", "-t", "--target-version", "--exclude", "--include"))
    if name == "ruff":
        sub = args[0].value if args else ""
        rest = args[1:] if sub in ("format", "check") else args
        writes = sub == "format" or _has(rest, "--fix")
        if not writes or _has(rest, "--check", "--diff"):
            return []
        return _fmt_operands("ruff", rest, ("--config", "--select", "--ignore", "--exclude", "--line-length", "--target-version"))
    if name == "eslint":
        return _fmt_operands("eslint", args, ("-c", "--config", "--ext", "--rule", "--ignore-pattern", "-f", "--format", "-o", "--output-file")) \
            if _has(args, "--fix") else []
    if name == "gofmt":
        return _fmt_operands("gofmt", args) if _has(args, "-w") else []
    if name == "clang-format":
        return _fmt_operands("clang-format", args, ("--style",)) if _has(args, "-i") else []
    if name == "dprint":
        return _marker("fmt", "dprint") if args and args[0].value == "fmt" else []
    if name in ("npm", "pnpm", "yarn", "bun"):
        return _node_runner(name, args)
    if name in ("pip", "pip3"):
        return _marker("pkg", "pip") if args and args[0].value in ("install", "uninstall") else []
    if name == "poetry":
        return _marker("pkg", "poetry") if args and args[0].value in (
            "install", "add", "update", "lock", "remove") else []
    if name == "uv":
        sub = args[0].value if args else ""
        if sub == "pip" and len(args) > 1 and args[1].value in ("install", "uninstall", "sync"):
            return _marker("pkg", "uv")
        return _marker("pkg", "uv") if sub in ("sync", "add", "lock", "remove") else []
    if name == "unzip":
        return [] if _has(args, "-l", "-t", "-v", "-Z") else _marker("extract", "unzip")
    if name in ("7z", "7za", "7zz"):
        return _marker("extract", "7z") if args and args[0].value in ("x", "e") else []
    if name == "patch":
        return [] if _has(args, "--dry-run") else _marker("extract", "patch")
    return []


# Output-path flags any program may take (a test runner's report, a tool's log).
OUTPUT_FLAGS = ("--output", "--out-file", "--outfile", "--out", "--logfile", "--log-file",
                "--junit-xml", "--junitxml", "--report-path")
# Values such a flag takes that are a render mode, not a file.
FORMAT_WORDS = frozenset(("json", "yaml", "yml", "wide", "table", "text", "name", "jsonpath",
                          "go-template", "gotemplate", "template", "csv", "tsv", "summary",
                          "none", "raw", "pretty", "html", "xml", "md", "markdown", "plain"))


def _flag_outputs(args: list[Word]) -> list[Reading]:
    out: list[Reading] = []
    for i, word in enumerate(args):
        value = word.value
        target: Word | None = None
        if value in OUTPUT_FLAGS and i + 1 < len(args) and not args[i + 1].value.startswith("-"):
            target = args[i + 1]
        else:
            for flag in OUTPUT_FLAGS:
                if value.startswith(flag + "="):
                    target = _suffix(word, len(flag) + 1)
                    break
        if target is None or not target.value or target.value == "-":
            continue
        if "/" not in target.value and "." not in target.value and target.value in FORMAT_WORDS:
            continue
        if is_device(target.value):
            continue
        out.append(Reading("flag-output", word=target))
    return out


def _interpreter(lang: str, args: list[Word], command: Command) -> list[Reading]:
    if lang == "python":
        flags = [w.value for w in args]
        if "-m" in flags:
            module = flags[flags.index("-m") + 1] if flags.index("-m") + 1 < len(flags) else ""
            if module == "pip":
                at = flags.index("-m") + 2
                return _marker("pkg", "pip") if at < len(flags) and flags[at] in (
                    "install", "uninstall") else []
            return _class(module, args[flags.index("-m") + 2:])
    sources: list[str] = []
    for i, word in enumerate(args):
        if word.value in ("-c", "-e", "--eval", "-p", "--print") and i + 1 < len(args):
            sources.append(args[i + 1].value)
            break
    for redirect in command.redirects:
        if redirect.heredoc is not None:
            sources.append(redirect.heredoc.body)
        elif redirect.op == "<<<" and redirect.target is not None:
            sources.append(redirect.target.value)
    out: list[Reading] = []
    opaque = False
    for source in sources:
        found = script_writes(source)
        opaque = opaque or found.opaque
        for target in found.targets:
            out.append(Reading("interp-write", word=Word(target, target)))
    if opaque:
        out += _marker("interp", lang)
    return out


_SIMPLE = {"rm": _rm, "rmdir": _rm, "unlink": _rm}

#: programs that, given the files ``find`` hands them, change those files
_FIND_CHANGERS = frozenset({"rm", "rmdir", "unlink", "mv", "cp", "truncate", "shred", "install",
                            "ln", "dd"})


#: the path ``find`` hands an ``-exec`` program in place of ``{}``: an expansion to the
#: parser, so an operand holding it is never joined to a directory
FIND_PATH = "${find_path}"
_FIND_WORD = Word(FIND_PATH, FIND_PATH, dynamic=True)


def _find(args: list[Word], command: Command) -> list[Reading]:
    """``find DIR… -delete`` or ``-exec``/``-execdir``/``-ok`` a changing program (``rm``,
    ``sed -i``, a formatter...): which files it reaches is decided at run time, so the
    reading is each start directory (``.`` when none is given), as for ``rm -r DIR``,
    carrying the expression (``reach``, ``findexpr``) when it can be read exactly: what
    ``may_reach`` asks of a file under the directory. What an ``-exec`` program changes
    besides the path it is given is read too (``-exec cp {} /bak/ \\;`` changes
    ``/bak``, ``-exec sh -c 'rm "$1"' _ {} \\;`` a pattern), and so is the file
    ``-fprint``/``-fprint0``/``-fls``/``-fprintf`` write."""
    i = 0
    while i < len(args) and (args[i].value in ("-H", "-L", "-P", "-D")
                             or args[i].value.startswith("-O")):
        i += 2 if args[i].value == "-D" else 1
    starts: list[Word] = []
    while i < len(args) and not args[i].value.startswith("-") \
            and args[i].value not in ("(", "!", ")", ","):
        starts.append(args[i])
        i += 1
    expression = args[i:]

    def exec_kind(inner: Sequence[Word]) -> str:
        return _find_exec(inner, command)[0]

    changes = False
    others: list[Reading] = []
    while i < len(args):
        value = args[i].value
        if value == "-delete":
            changes = True
        elif value in ("-exec", "-execdir", "-ok", "-okdir"):
            inner: list[Word] = []
            i += 1
            while i < len(args) and args[i].value not in (";", "+"):
                inner.append(args[i])
                i += 1
            kind, besides = _find_exec(inner, command)
            changes = changes or kind != "none"
            others += besides
        elif value in ("-fprint", "-fprint0", "-fls", "-fprintf") and i + 1 < len(args):
            i += 1
            if args[i].value and not is_device(args[i].value):
                others.append(Reading("flag-output", word=args[i]))
            i += value == "-fprintf"  # its format
        i += 1
    if not changes:
        return others
    reach = findexpr.parse(expression, exec_kind)
    if any(w.value == "-files0-from" for w in expression):
        starts = [_FIND_WORD]  # its start points are read from a file: any path
    return [Reading("find", word=w, reach=reach) for w in starts or [Word(".", ".")]
            if w.value] + others


def _find_exec(inner: Sequence[Word], command: Command) -> tuple[str, list[Reading]]:
    """What an ``-exec`` program does to the path ``find`` hands it (``findexpr.ExecKind``):
    ``change`` it (``rm {}``, ``sed -i … {}``, a formatter, or a program of
    ``_FIND_CHANGERS``), ``derive`` another path from it (``cp {} {}.bak``: a file the
    tests need not match), or ``none``; and the readings of everything else it changes
    (a destination, a derived path as a pattern: ``{}`` is an expansion to the parser)."""
    words = [w if "{}" not in w.value else
             Word(w.raw.replace("{}", FIND_PATH), w.value.replace("{}", FIND_PATH), w.quoted,
                  True, w.glob, w.tilde, w.inner) for w in inner]
    name, _ = program(words)
    if name is None:
        return "none", []
    kind = "change" if name in _FIND_CHANGERS else "none"
    besides: list[Reading] = []
    for reading in _program_readings(words, command):
        value = reading.word.value if reading.word is not None else ""
        if value.removeprefix("./") == FIND_PATH:
            kind = "change"
            continue
        if FIND_PATH in value and kind != "derive":
            kind = "derive"
        besides.append(reading)
    return kind, besides


_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})


def _shell_string(args: list[Word]) -> Word | None:
    """The command string of ``bash -c 'SCRIPT'`` (``-c`` alone or in a bundle: ``-ec``,
    ``-lc``), or None when the shell runs a script file or reads stdin."""
    skip = False
    for i, word in enumerate(args):
        value = word.value
        if skip:
            skip = False
            continue
        if value in ("-o", "+o", "-O", "+O"):
            skip = True
            continue
        if value.startswith("--"):
            if value == "--":
                return None
            continue
        if not value.startswith(("-", "+")) or len(value) < 2:
            return None
        if value[0] == "-" and "c" in value[1:] and value[1:].isalpha():
            return next((w for w in args[i + 1:] if not w.value.startswith("-")), None)
    return None


def _shell_c(args: list[Word]) -> list[Reading]:
    """What ``bash -c 'SCRIPT'`` (``sh``, ``zsh``...) changes: the readings of the script's
    own commands, each read from the directory the script's ``cd``s reach (an unknown one
    leaves its relative operands unplaced, never joined to the wrong directory). An
    expansion in the string (``bash -c "rm $F"``) stays an expansion in the script, so its
    operand is a pattern; a string that is one variable (``bash -c "$CMD"``) reads as
    nothing, as a variable command does."""
    script = _shell_string(args)
    if script is None or script.glob or script.tilde or not script.value.strip():
        return []
    return _script_readings(script.value)


def _script_readings(text: str) -> list[Reading]:
    """The readings of the commands of the script ``text`` a program hands a shell of its
    own, each moved to the directory the script's ``cd``s reach (``_shell_c``)."""
    from pysift.core.shell.syntax import parse

    out: list[Reading] = []
    for inner in parse(text).commands:
        cwd = inner.cwd
        if cwd.kind == "unknown":
            moved: tuple[Word, ...] = (Word("$PWD", "$PWD", dynamic=True),)
        else:
            moved = (Word(cwd.path, cwd.path),) if cwd.kind != "spawn" and cwd.path else ()
        for reading in read_command(inner):
            out.append(reading if reading.word is None else
                       Reading(reading.verb, reading.word, None, moved + reading.chdir,
                               reading.reach))
    return out


def read_command(command: Command) -> list[Reading]:
    """Everything one simple command changes: its write redirections first, then what
    its program changes."""
    out: list[Reading] = []
    for redirect in command.redirects:
        if redirect.writes_file and redirect.target is not None and redirect.target.value:
            out.append(Reading(">>" if redirect.appends else ">", word=redirect.target))
    return out + _program_readings(command.words, command)


def _program_readings(words: Sequence[Word], command: Command) -> list[Reading]:
    """What the program ``words`` run changes (``command`` is the simple command they
    stand in: its redirections feed an interpreter's heredoc)."""
    out: list[Reading] = []
    name, args = program(words)
    if name is None:
        return out
    if name == "xargs":
        return _xargs(args, command)  # the program it runs reads its own flags
    if name == "parallel":
        return _parallel(args)
    if name in _SIMPLE:
        out += _SIMPLE[name](name, args)
    elif name == "mkdir":
        out += _mkdir(args)
    elif name == "touch":
        out += _touch(args)
    elif name == "tee":
        out += _tee(args)
    elif name in ("cp", "mv", "install", "ln"):
        out += _copy_like(name, args)
    elif name == "rsync":
        out += _rsync(args)
    elif name == "sed":
        out += _sed(args)
    elif name == "perl":
        out += _perl(args)
    elif name == "truncate":
        out += _truncate(args)
    elif name == "find":
        out += _find(args, command)
    elif name in _SHELLS:
        out += _shell_c(args)
    elif name == "git":
        out += _git(args)
    elif name == "curl":
        out += _curl(args)
    elif name == "wget":
        out += _wget(args)
    elif name == "dd":
        out += _dd(args)
    elif name == "zip":
        out += _zip(args)
    elif name == "tar":
        out += _tar(args)
    else:
        lang = interpreter_language(name)
        if lang is not None:
            out += _interpreter(lang, args, command)
        else:
            out += _class(name, args)
    out += _flag_outputs(args)
    return out


#: the operand ``xargs`` hands its program, read from its input at run time: an expansion
#: to the parser (``may_name``: any text, any directory), so its rows are ``unresolved``
XARGS_INPUT = "${xargs_input}"
_XARGS_WORD = Word(XARGS_INPUT, XARGS_INPUT, dynamic=True)
#: xargs's short options (GNU's and BSD's) that take a value, spaced or attached, and
#: those whose value is optional and only attached (GNU's ``-i[R]``, ``-l[N]``, ``-e[E]``)
_XARGS_VALUED = frozenset("IJLnPsdaERS")
_XARGS_OPTIONAL = frozenset("ile")
_XARGS_LONG_VALUED = frozenset(("--max-args", "--max-procs", "--max-chars", "--delimiter",
                                "--arg-file", "--process-slot-var"))


def _xargs(args: list[Word], command: Command) -> list[Reading]:
    """What ``xargs PROGRAM ARGS…`` changes: PROGRAM's reading with the items xargs reads
    (from stdin or ``-a FILE``) as an operand no text names: appended after ARGS, or put
    where ``-I R`` / ``-i`` / ``--replace`` names them (every occurrence of R in each
    argument) or ``-J R`` (the argument R). ``find . -name '*.pyc' | xargs rm`` is thus an
    ``rm`` of a pattern that may name any file, as ``rm "$F"`` is; a program whose name
    comes from the input reads as nothing, as a variable command does."""
    replace: str | None = None
    whole: str | None = None
    i = 0
    while i < len(args):
        value = args[i].value
        if value == "--":
            i += 1
            break
        if value.startswith("--"):
            name, eq, attached = value.partition("=")
            if name in _XARGS_LONG_VALUED and not eq:
                i += 1
            elif name == "--replace":
                replace = attached if eq else "{}"
            i += 1
            continue
        if not value.startswith("-") or value == "-":
            break
        step = 1
        for at, flag in enumerate(value[1:], 1):
            rest = value[at + 1:]
            if flag in _XARGS_VALUED:
                given = rest
                if not rest:
                    step = 2
                    given = args[i + 1].value if i + 1 < len(args) else ""
                if flag == "I":
                    replace = given
                elif flag == "J":
                    whole = given
                break
            if flag in _XARGS_OPTIONAL:
                if flag == "i":
                    replace = rest or "{}"
                break
        i += step
    inner = list(args[i:])
    if not inner:
        return []  # xargs alone runs echo
    if replace:
        words = [_with_input(w, replace) for w in inner]
        if words == inner:
            return _program_readings(inner, command)  # R named nowhere: the args as typed
    elif whole is not None and any(w.value == whole for w in inner):
        at = next(n for n, w in enumerate(inner) if w.value == whole)
        words = [*inner[:at], _XARGS_WORD, *inner[at + 1:]]
    else:
        words = [*inner, _XARGS_WORD]
    return _program_readings(words, command)


def _with_input(word: Word, replace: str) -> Word:
    """``word`` with every ``replace`` in it standing for xargs's input (``-I R``)."""
    if replace not in word.value:
        return word
    return Word(word.raw.replace(replace, XARGS_INPUT), word.value.replace(replace, XARGS_INPUT),
                word.quoted, True, word.glob, word.tilde, word.inner)


#: an item GNU ``parallel`` reads at run time (stdin, ``::::``/``-a`` FILE), or one the
#: command line holds as a pattern: an expansion to the parser, as ``${xargs_input}``
PARALLEL_INPUT = "${parallel_input}"
#: GNU parallel's options that take a value, spaced (``-j 4``) or attached (``-j4``,
#: ``--jobs=4``); any other option not in ``_PARALLEL_FLAGS`` leaves the line unread
_PARALLEL_VALUED = frozenset((
    "-j", "-P", "--jobs", "--max-procs", "-S", "--sshlogin", "--sshloginfile", "--slf",
    "-C", "--colsep", "-d", "--delimiter", "-E", "--eof", "--joblog", "--results", "--res",
    "--tmpdir", "--tempdir", "-n", "--max-args", "-N", "-L", "--max-lines", "--halt",
    "--halt-on-error", "--timeout", "--delay", "--retries", "--env", "--tag-string",
    "--tagstring", "--load", "--memfree", "--nice", "--limit", "--termseq", "--ssh",
    "--block", "--block-size", "--blocksize", "--header", "--sshdelay", "-s", "--max-chars",
    "--id", "--semaphore-timeout", "--st", "--ctag-string", "--ctagstring", "--memsuspend",
))
_PARALLEL_FLAGS = frozenset((
    "-k", "--keep-order", "-v", "--verbose", "-u", "--ungroup", "--line-buffer", "--lb",
    "--group", "-0", "--null", "--eta", "--bar", "--progress", "--will-cite", "--no-notice",
    "--citation", "--tag", "--ctag", "--shuf", "--plain", "--files", "--compress", "--fg",
    "--bg", "--sem", "--semaphore", "-t", "--joblog-append", "-r", "--no-run-if-empty",
    "--resume", "--resume-failed", "--quote", "-q", "--xargs", "-X", "-m", "--pipe",
    "--pipepart", "--keep", "--silent", "--tty", "--color", "--colour",
))
#: the replacement strings whose value this reading computes from one literal item
_PARALLEL_RPL = re.compile(r"\{(?:1)?(\.|/|//|/\.)?\}")
_PARALLEL_ANY = re.compile(r"\{=.*?=\}|\{[0-9]*(?:\.|/|//|/\.)?\}|\{[#%]\}", re.DOTALL)
#: how many literal items are substituted one by one before they are read as one pattern
_PARALLEL_ITEMS = 64


def _parallel(args: list[Word]) -> list[Reading]:
    """What GNU ``parallel [OPTIONS] COMMAND ARGS… ::: ITEMS`` changes. parallel joins
    COMMAND and ARGS with spaces into a template its shell runs once per item, the item
    (quoted) where a replacement string stands (``{}``, ``{.}`` without its extension,
    ``{/}`` its basename, ``{//}`` its directory, ``{/.}``; the ``-I`` string) or appended
    when none does. Literal ``:::`` items of one source are put in one by one (at most
    ``_PARALLEL_ITEMS``) and the commands read as ``bash -c`` reads its script; items read
    at run time (stdin, ``::::``/``-a`` FILE), a glob or expansion among them, several
    sources, a ``{= perl =}`` string, each stand as ``${parallel_input}`` (a pattern that
    may name any file). A run whose commands come from its input (no COMMAND), or an
    option this table does not know, is read as changing files under the cwd (``.``);
    ``--dry-run`` changes nothing."""
    unread = [Reading("parallel", word=Word(".", "."))]
    replace = "{}"
    quote = runtime = False  # runtime: an item source read at run time
    i = 0
    while i < len(args):
        value = args[i].value
        if not value.startswith("-") or value in ("-", ":::", "::::", ":::+", "::::+"):
            break
        name, eq, _ = value.partition("=")
        if value in ("--dry-run", "--dryrun"):
            return []
        if value in ("-I", "--replace") or value.startswith("-I"):
            attached = value[2:] if value.startswith("-I") else ""
            replace = attached or (args[i + 1].value if i + 1 < len(args) else "")
            i += 1 if attached else 2
            if not replace:
                return unread
            continue
        if value in ("-a", "--arg-file"):
            i += 2
            runtime = True
            continue
        if name == "--arg-file" or (value.startswith("-a") and not value.startswith("--")):
            i += 1  # `--arg-file=F`, `-aF`
            runtime = True
            continue
        if value in ("-q", "--quote"):
            quote = True
        if value in ("-m", "--xargs") or name in ("-C", "--colsep") or value.startswith("-C"):
            runtime = True  # several items in one `{}`, or columns in `{1}`: not one item
        if value in _PARALLEL_FLAGS:
            i += 1
            continue
        if name in _PARALLEL_VALUED and eq:
            i += 1
            continue
        if value in _PARALLEL_VALUED:
            i += 2
            continue
        short = value[:2]
        if not value.startswith("--") and short in _PARALLEL_VALUED:
            i += 1  # `-j4`: the value attached
            continue
        return unread
    template: list[Word] = []
    while i < len(args) and args[i].value not in (":::", "::::", ":::+", "::::+", "--"):
        template.append(args[i])
        i += 1
    groups: list[list[Word] | None] = []  # None: a source read at run time
    while i < len(args):
        head = args[i].value
        i += 1
        items: list[Word] = []
        while i < len(args) and args[i].value not in (":::", "::::", ":::+", "::::+"):
            items.append(args[i])
            i += 1
        if head.startswith("::::"):
            groups.extend(None for _ in items)
        else:
            groups.append(items)
    if runtime:
        groups.insert(0, None)
    one = groups[0] if len(groups) == 1 else None
    literal = one is not None and 0 < len(one) <= _PARALLEL_ITEMS and all(w.literal for w in one)
    if not template:  # each item is a command
        return [r for w in one or () for r in _script_readings(w.value)] if literal else unread
    text = " ".join(_sh_quote(w.value) if quote else w.value for w in template)
    if replace != "{}":
        text = text.replace(replace, "{}")
    if _PARALLEL_ANY.search(text) is None:
        text += " {}"
    if literal and all(_PARALLEL_RPL.fullmatch(m.group()) for m in _PARALLEL_ANY.finditer(text)):
        return [r for w in one or () for r in _script_readings(_with_item(text, w.value))]
    return _script_readings(_PARALLEL_ANY.sub(lambda _: PARALLEL_INPUT, text))


def _with_item(text: str, item: str) -> str:
    """The template ``text`` with ``item`` (quoted) under each replacement string."""
    return _PARALLEL_RPL.sub(lambda m: _sh_quote(_rpl(item, m.group(1))), text)


def _rpl(item: str, how: str | None) -> str:
    """One item under a replacement string (GNU parallel's own definitions)."""
    if how in ("/", "/."):
        item = item.rsplit("/", 1)[-1]
    elif how == "//":
        return item.rsplit("/", 1)[0] if "/" in item else "."
    if how in (".", "/."):
        item = re.sub(r"\.[^/.]*$", "", item)
    return item


def _sh_quote(text: str) -> str:
    """``text`` as one shell word, as parallel quotes an item."""
    if text and re.fullmatch(r"[A-Za-z0-9_./@%+=:,-]+", text):
        return text
    return "'" + text.replace("'", "'\\''") + "'"
