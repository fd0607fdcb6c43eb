"""pysift: ripgrep for Claude Code session transcripts.

Importing the package must stay cheap: the CLI imports it on every start-up.
"""

__version__ = "0.1.0"
