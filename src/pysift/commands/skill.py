"""``pysift skill``: a SKILL.md for Claude Code, so an agent knows when and how to use
pysift (SPEC §15).

The prose (when to reach for pysift, the envelope law, jq recipes, exit codes, what is
heuristic) is written here; the command reference is generated from the registered
command tree the CLI hands over, so it never names a command or flag that is not built.
pysift prints the file; where it goes is the user's call (it never writes under
``~/.claude``).
"""

from __future__ import annotations

from collections.abc import Sequence

from pysift.model.fastdata import dataclass
from pysift.output.report import Report


@dataclass(frozen=True)
class OptionDoc:
    names: tuple[str, ...]  # every spelling: ("-t", "--label"), ("--subagents", "--no-subagents")
    metavar: str | None
    help: str


@dataclass(frozen=True)
class CommandDoc:
    name: str
    usage: str  # "pysift search [OPTIONS] PATTERN [TARGET]..."
    summary: str  # the help's first paragraph
    options: tuple[OptionDoc, ...]
    json_schema: str | None  # the JSON block of the help's epilog, as written there


@dataclass(frozen=True)
class SkillOptions:
    commands: tuple[CommandDoc, ...]
    root_options: tuple[OptionDoc, ...]
    version: str


def run(opts: SkillOptions) -> Report:
    report = Report(command="skill")
    text = render(opts)
    report.text = lambda out: out.write(text)
    return report


FRONTMATTER = """---
name: pysift
description: Search, list, read and count Claude Code session transcripts (~/.claude/projects/**/*.jsonl) with the pysift CLI. Use it to find what was said, decided, run or written in earlier sessions (this project's or any), to fetch exact records and turns, to count tokens, turns and tool calls, to see the subagents a session spawned and the files it changed, to rebuild a file from what the sessions saw, to get a session's images back, to tell whether a session is still working and wait until it stops, to find the plan file bound to a session, to restore the turns a compaction clipped, to learn your own session id, and to archive sessions before Claude Code's cleanup deletes them. Prefer it to grep/jq over raw JSONL.
---
"""

WHEN = """# pysift: ripgrep for Claude Code transcripts

## When to reach for it

- "What did we decide / try / run about X?" in this or an earlier session:
  `pysift search X --format json` (all projects) or `pysift search X .` (this project).
- "Which session was that?": `pysift list` (each session with its first and last human
  messages, in path order; with no target the 50 most recently active) or
  `pysift search X -l` (the session ids only).
- Read exactly what happened: `pysift show @<uuid> --turn -1` (the last turn),
  `pysift show @<uuid> --line 120..140`, or the `refetch` command a hit carries.
- Counts (tokens per model, turns, tool calls, compactions): `pysift stats @<uuid>`.
- Which plan file a session is bound to: `pysift plan @<uuid>`.
- The subagents a session spawned, their state and what they returned:
  `pysift agents @<uuid> --returned-message`.
- Which files a session changed, and when: `pysift files @<uuid> --by file` (Bash rows
  are read from the command text: heuristic).
- A file's content rebuilt from what the sessions read and wrote:
  `pysift recover @<uuid> --file src/app.py --coverage` first, then without
  `--coverage` (raw bytes on stdout, or an error naming the lines no session saw).
- The images a session carries, written back as files:
  `pysift image @<uuid>`, then one by its #N (from one transcript):
  `pysift image @<uuid> --no-subagents --id 3 --out /tmp/shot.png`.
- After a compaction, the turns its summary clipped, word for word: `pysift verbatim
  @<uuid> --budget 12000`; what the compacted history touched (files, commands, errors,
  spans `show --block` resolves): `pysift verbatim @<uuid> --fold-index`.
- Is a session still working, blocked on a human, or done: `pysift status @<uuid>`.
  Block until it stops or asks (exit 124 at the timeout; read `pysift wait --help`):
  `pysift wait @<uuid> --until stop --until hitl --timeout 600`.
- Your own session id and transcript: `pysift whoami` (a subagent: `pysift whoami
  @trap:<YourOwnMarker1739>`, see `pysift whoami --help`).
- Keep sessions beyond Claude Code's cleanup (30 days by default):
  `pysift archive ~/claude-archive`, then search it with
  `pysift --claude-home ~/claude-archive search X`.
- Repeated questions are answered from a cache of per-transcript facts that never changes
  an answer (off with `--no-cache`); `pysift cache info` says where it is and how big.

Do not grep the JSONL yourself: pysift knows the record types, turn numbering, subagent
layout, persisted tool outputs and the elicitation sidecar, and says what it could not read.

## Targets

No target means every session of every project. A target is `.` or a path (that
project's sessions), `@<uuid>` or a 4-11 hex-char prefix `@3f6c1e2a`, `@main` (the calling
session, from $CLAUDE_CODE_SESSION_ID), `@<agent-id>` (a subagent and its descendants), or
a `*.jsonl` file. Several targets are a union. `--sessions-from -` reads ids from stdin,
so stages chain: `pysift search deadline -l | pysift stats --sessions-from -`.
`--claude-home DIR` (anywhere on the line) reads another Claude home, an archive included.

## The envelope law (--format json)

Every command's JSON is NDJSON: one `{"kind":"header",...}` line first, then rows each
tagged by `kind`, then one `{"kind":"summary",...}` line last, always (also for zero
rows), with one exception: `pysift wait` prints ONE `{"kind":"wait",...}` object, no
header or summary. Keys are sorted. Select rows by kind, never by position:

```bash
pysift search epoch --format json | jq -c 'select(.kind=="exchange")'
pysift search epoch --format json | jq 'select(.kind=="summary")'
```

Rows that name a transcript carry the id trio `session_id`, `is_subagent`,
`parent_session_id`. Every instant is a pair `<name>_utc` (verbatim from the transcript)
and `<name>_local`. A cap never drops silently: `dropped_by_cap` says how many, and text
excerpts end in `… (+N chars)`. Malformed lines are counted in `skipped_lines`, and
every summary's `unreadable` counts the files pysift could not read (each named on
stderr): an answer with `unreadable` above 0 is about what could be read.

## jq recipes

```bash
# the hits' text, one per line
pysift search 'rate limit' --format json | jq -r 'select(.kind=="exchange").hits[].excerpt'
# the session ids holding a match (text mode is already one id per line)
pysift search 'rate limit' -l
# whether a search found nothing, and whether that absence is definitive
pysift search 'rate limit' --format json | jq 'select(.kind=="summary") | {matched, definitive_absence}'
# tokens per model over this project's sessions
pysift stats . --format json | jq 'select(.kind=="summary").tokens'
# the most recently active session of this project, its first human message
pysift list . --format json | jq -rs 'map(select(.kind=="session" and (.is_subagent|not))) | max_by([.last_agent.ts_utc // "", .last_user.ts_utc // ""] | max) | [.session_id, .first_user.excerpt] | @tsv'
# what a scope holds, per label
pysift search '' @<uuid> --count-by label --format json | jq -r 'select(.kind=="census") | "\\(.records)\\t\\(.key)"'
# the plan file bound to a session
pysift plan @<uuid> --format json | jq -r 'select(.kind=="plan").plan_file'
```

## Refetching

Every search hit carries `refetch`, a ready-to-run command such as
`pysift show @<uuid> --line 7` that prints that record in full (text excerpts are
clipped at ~400 characters; `--no-truncate` prints whole records in place). A record can
also be fetched by `--uuid`, a turn by `--turn N` (0-based, numbered as search's `·tN`),
a block by its durable id with `show --block r:<tool_use_id>` (and verified with
`--sha256`). `--raw` prints the verbatim JSONL lines.

## Exit codes

- 0: success, including a search that found nothing (the zero is diagnosed on stderr,
  and JSON `definitive_absence` says whether it is definitive).
- 1: a pysift error (an unreadable or unknown target, an ambiguous prefix, an archive
  that could not complete); the one stderr line says what to do next.
- 2: a usage error (a bad flag, value, regex or selector).
- 124: `pysift wait` reached `--timeout` before a condition fired (the report is printed).

Notes and warnings go to stderr prefixed `pysift: `; stdout carries data only.

## What is heuristic

- Labels (`-t user.message`, `agent.tool.use`, ...) classify records by Claude Code's
  record shapes; a shape newer than pysift carries no label and is never a hit.
  `pysift search '' @<uuid> --count-by label` shows what a scope holds.
- Turns open on a human message, an answered AskUserQuestion, a tool rejection with
  typed text, or an inbound peer message; a prompt re-sent edited makes the first one a
  superseded draft (`user.unsent`, no turn number).
- `list`'s first human message is the first one typed (a superseded draft included).
- Plan binding: the latest `plan_mode` attachment, else the first valid slug joined with
  `plansDirectory` from the settings; never guessed from paths.
- `whoami` with no target reads the environment, which names the TOP-LEVEL session even
  inside a subagent; `@trap:<marker>` finds a subagent's own transcript.
- A search without `--resolve-persisted` reads a persisted tool output only up to its
  preview; the zero-match note says how many outputs it did not search.
- `files` rows from Bash are read from the command text, never seen on disk; `recover`
  counts an edit it cannot anchor and never guesses it; `status` says NOT RETURNED IS
  NOT PROOF OF RUNNING (a UI stop leaves no marker).
- The cleanup notice under `list`/`stats` dates a session by its file's modification time,
  as Claude Code's cleanup does; set PYSIFT_ARCHIVE to the archive dir so pysift can tell
  archived sessions apart.
"""


def render(opts: SkillOptions) -> str:
    parts = [FRONTMATTER, "\n", WHEN, "\n", _reference(opts)]
    return "".join(parts)


def _reference(opts: SkillOptions) -> str:
    out: list[str] = [f"## Command reference (pysift {opts.version})\n\n"]
    out.append("Options every command takes, anywhere on the line:\n\n")
    out.extend(_option_lines(opts.root_options))
    out.append("\n")
    for command in opts.commands:
        out.append(f"### pysift {command.name}\n\n{command.summary}\n\n")
        out.append(f"```\n{command.usage}\n```\n\n")
        out.extend(_option_lines(command.options))
        if command.json_schema:
            out.append(f"\nJSON rows:\n\n```\n{command.json_schema}\n```\n")
        out.append("\n")
    out.append("Every command's full help, with examples: `pysift <command> --help`.\n")
    return "".join(out)


def _option_lines(options: Sequence[OptionDoc]) -> list[str]:
    lines = []
    for option in options:
        spelled = ", ".join(f"`{n}`" for n in option.names)
        meta = f" {option.metavar}" if option.metavar else ""
        lines.append(f"- {spelled}{meta}: {option.help}\n")
    return lines
