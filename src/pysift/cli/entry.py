"""The console-script entry point: answers ``--version`` before the CLI framework loads.

Everything else goes to ``cli.app.main``; building typer's command tree costs ~15 ms that
a version probe (a hook's liveness check) should not pay.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if len(args) == 1 and args[0] in ("--version", "-V"):
        from pysift import __version__

        sys.stdout.write(f"pysift {__version__}\n")
        sys.exit(0)
    from pysift.cli.app import main as app_main

    app_main(args)
