#!/usr/bin/env bash
# The Action's run step: benchlint --format sarif over the inputs, with a text report in the
# log; the exit code is an output, so the upload step runs before the job fails on findings.
set -uo pipefail
: "${GITHUB_OUTPUT:?set by GitHub}"
sarif="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/benchlint.sarif"
read -r -a paths <<< "${INPUT_PATHS:-.}"
read -r -a extra <<< "${INPUT_ARGS:-}"
options=()
if [[ -n "${INPUT_BASELINE:-}" ]]; then
  options+=(--baseline "$INPUT_BASELINE")
fi
benchlint "${paths[@]}" "${options[@]}" "${extra[@]}" --format sarif --output "$sarif"
code=$?
if [[ $code -le 1 ]]; then
  # the same findings, readable in the log
  benchlint "${paths[@]}" "${options[@]}" "${extra[@]}" --format text --color always || true
  echo "sarif=$sarif" >> "$GITHUB_OUTPUT"
fi
echo "exit-code=$code" >> "$GITHUB_OUTPUT"
exit 0
