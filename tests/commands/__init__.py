"""Command tests: commands.<verb>.run(opts, env) -> Report, without the CLI.

A package so its test modules do not clash with the same basenames elsewhere.
"""
