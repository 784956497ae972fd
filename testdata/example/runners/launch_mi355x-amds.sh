#!/usr/bin/env bash
# AMD launcher: the allocation is exclusive, so it must be released on every way out.
set -uo pipefail

JOB_ID=$(salloc --partition=mi355x --exclusive --time=240 --no-shell 2>&1 \
    | grep -oP 'Granted job allocation \K[0-9]+')
if [[ -z "$JOB_ID" ]]; then
    echo "salloc failed" >&2
    exit 1
fi

if ! srun --jobid="$JOB_ID" rocm-smi > /dev/null; then
    echo "node is unhealthy" >&2
    exit 1
fi
trap 'scancel "$JOB_ID"' EXIT

srun --jobid="$JOB_ID" bash benchmarks/single_node/kimi_fp4_mi355x.sh
