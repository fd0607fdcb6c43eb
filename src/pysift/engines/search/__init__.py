"""The search engine: candidate lines by whole-buffer needle search, hits, exchanges."""
