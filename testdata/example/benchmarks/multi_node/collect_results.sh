#!/usr/bin/env bash
# Not valid shell: the `if` is never closed.
for result in results/*.json; do
    if [[ -s "$result" ]]; then
        cp "$result" "$RESULT_DIR/"
done
