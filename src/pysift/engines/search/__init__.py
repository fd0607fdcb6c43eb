"""The search engine: candidate lines by whole-buffer needle search, hits, exchanges.

The entry is ``run(transcripts, plan) -> SearchResult`` (``engines.search.engine``); the
plan (``engines.search.plan``) is everything a per-file scan needs, built once by the
command from its options.
"""

from pysift.engines.search.engine import SearchResult, run

__all__ = ["SearchResult", "run"]
