"""CLI tests: pysift run in-process through the real argv path (tests/clirun.py).

A package so its test modules (test_stats.py, ...) do not clash with the same basenames
under tests/commands and tests/unit.
"""
