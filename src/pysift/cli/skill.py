"""``pysift skill``: print a SKILL.md for Claude Code, its command reference read off the
registered command tree."""


import re
from typing import Any

import typer

from pysift.cli.app import app
from pysift.cli.emit import emit

SKILL_HELP = """Print a SKILL.md that teaches Claude Code when and how to use pysift: when to
reach for it, targets, the envelope law of --format json with jq recipes, refetching,
exit codes, what is heuristic, and a reference of every built command and flag (read off
this pysift's own command tree).

pysift never writes under ~/.claude: redirect the output where Claude Code looks for
skills (a personal skill, or a project's .claude/skills/)."""

SKILL_EPILOG = """\b
EXAMPLES
  mkdir -p ~/.claude/skills/pysift && pysift skill > ~/.claude/skills/pysift/SKILL.md
  mkdir -p .claude/skills/pysift && pysift skill > .claude/skills/pysift/SKILL.md
  pysift skill | less

\b
JSON
  none: the output is the Markdown file itself (YAML frontmatter name/description, then
  the body); --format json is not offered."""

_JSON_BLOCK = re.compile(r"\n(JSON[^\n]*\n(?:  [^\n]*\n?)+)")


@app.command("skill", help=SKILL_HELP, epilog=SKILL_EPILOG)
def skill_cmd(ctx: typer.Context) -> None:
    from pysift import __version__
    from pysift.cli.app import register
    from pysift.commands.skill import SkillOptions, run

    register()
    root = typer.main.get_command(app)
    opts = SkillOptions(commands=tuple(command_docs(root)), root_options=tuple(
        _options(root, ctx.find_root())), version=__version__)
    emit(run(opts), "text")


def command_docs(root: Any) -> list[Any]:
    """One ``CommandDoc`` per registered command, in the tree's order."""
    from pysift.commands.skill import CommandDoc

    docs = []
    for name, command in root.commands.items():
        ctx = typer.Context(command, info_name=name, parent=typer.Context(root,
                                                                           info_name="pysift"))
        usage = " ".join(["pysift", name, *command.collect_usage_pieces(ctx)])
        summary = " ".join((command.help or "").split("\n\n")[0].split())
        docs.append(CommandDoc(name=name, usage=usage, summary=summary,
                               options=tuple(_options(command, ctx)),
                               json_schema=_json_block(command.epilog or "")))
    return docs


def _options(command: Any, ctx: Any) -> list[Any]:
    from pysift.commands.skill import OptionDoc

    out = []
    for param in command.params:
        if getattr(param, "param_type_name", "") != "option" or param.hidden:
            continue
        names = tuple(sorted(param.opts, key=lambda n: n.startswith("--"))) + tuple(
            param.secondary_opts)
        metavar = None if param.is_flag else param.make_metavar(ctx)
        out.append(OptionDoc(names=names, metavar=metavar,
                             help=" ".join((param.help or "").split())))
    return out


def _json_block(epilog: str) -> str | None:
    """The epilog's JSON section (its heading line and the indented lines under it)."""
    found = _JSON_BLOCK.search("\n" + epilog.replace("\b\n", ""))
    if found is None:
        return None
    lines = found.group(1).rstrip("\n").split("\n")
    return "\n".join(line[2:] if line.startswith("  ") else line for line in lines[1:]) or None
