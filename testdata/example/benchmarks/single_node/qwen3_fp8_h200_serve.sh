#!/usr/bin/env bash
# A single-node entrypoint run through `srun --container-image`: the server it starts in the
# background outlives an early end of the script and keeps the node's GPUs.
set -euo pipefail
source "$(dirname "$0")/../benchmark_lib.sh"

check_env_vars MODEL_PATH TP
# Meant as a default: bash reads an arithmetic offset here.
RESULT_DIR="${RESULT_DIR:/workspace/results}"

vllm serve "$MODEL_PATH" --port "$PORT" --tensor-parallel-size "$TP" &
SERVER_PID=$!
curl -sf --retry 60 --retry-delay 10 "http://0.0.0.0:${PORT}/health"
mkdir -p "$RESULT_DIR"
kill "$SERVER_PID"
