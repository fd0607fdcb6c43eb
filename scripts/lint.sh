#!/usr/bin/env bash
# Lint and types, as .ci/run runs them (rules and their reasons: pyproject.toml
# [tool.ruff.lint], [tool.mypy]). Needs the dev extra: pip install -e '.[test,dev]'.
# `ruff format --check` is not run yet: the tree has not been through the formatter.
set -euo pipefail
cd "$(dirname "$0")/.."
ruff check src tests
mypy
