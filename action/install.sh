#!/usr/bin/env bash
# The Action's install step: benchlint from the action's own checkout (the ref the workflow
# pinned), into a virtual environment of its own, put on PATH for the steps after it.
set -euo pipefail
: "${GITHUB_ACTION_PATH:?set by GitHub: the checkout of this action}"
venv="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/benchlint-venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet "$GITHUB_ACTION_PATH"
echo "$venv/bin" >> "${GITHUB_PATH:?set by GitHub}"
"$venv/bin/benchlint" --version
