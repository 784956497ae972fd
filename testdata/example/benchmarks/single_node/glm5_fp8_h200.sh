#!/usr/bin/env bash
# SGLang behind its router. The entry declares sglang-router 0.1.4, which has no /readiness
# (BL304: it arrived in 0.1.6): the barrier waits out its whole timeout on every run.
set -euo pipefail
source "$(dirname "$0")/../benchmark_lib.sh"

check_env_vars MODEL

wait_or_die() { # $1: the server pid to watch; the rest: the command that blocks
    local watch=$1
    shift
    "$@" &
    local cmd=$!
    while kill -0 "$cmd" 2>/dev/null; do
        kill -0 "$watch" 2>/dev/null || { kill "$cmd"; return 1; }
        sleep 5
    done
    wait "$cmd"
}

python3 -m sglang.launch_server --model-path "$MODEL" --tp 8 --port 30001 &
SERVER_PID=$!
trap 'kill "$SERVER_PID"' EXIT

ROUTER_CMD="python3 -m sglang_router.launch_router --port 30000 --worker-urls http://127.0.0.1:30001"
setsid bash -c "exec $ROUTER_CMD" &

HEALTH_CMD="python3 /workspace/utils/sync.py barrier --node-ports 30000 --health-endpoint /readiness"
wait_or_die "$SERVER_PID" bash -c "$HEALTH_CMD"
# Near miss: the worker's own health route.
curl -sf http://127.0.0.1:30001/health
