#!/usr/bin/env bash
# Near misses for BL103 and BL105: the cleanup lives in a function the EXIT trap names, the one
# exit before the trap is taken only when the server is already gone, and the default has its dash.
set -euo pipefail
source "$(dirname "$0")/../benchmark_lib.sh"

check_env_vars MODEL_PATH TP
RESULT_DIR="${RESULT_DIR:-/workspace/results}"

vllm serve "$MODEL_PATH" --port "$PORT" --tensor-parallel-size "$TP" &
SERVER_PID=$!
sleep 5
if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "the server died at start-up" >&2
    exit 1
fi
cleanup() { kill "$SERVER_PID" 2>/dev/null || true; }
trap cleanup EXIT
curl -sf --retry 60 --retry-delay 10 "http://0.0.0.0:${PORT}/health"
mkdir -p "$RESULT_DIR"
