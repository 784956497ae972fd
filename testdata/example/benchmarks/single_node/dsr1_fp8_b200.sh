#!/usr/bin/env bash
source "$(dirname "$0")/../benchmark_lib.sh"

check_env_vars MODEL_PATH TP CONC

# Near misses for BL101: PORT comes from benchmark_lib.sh, MODEL_PATH is validated above.
export PORT="$PORT"
export MODEL_PATH="$MODEL_PATH"

vllm serve "$MODEL_PATH" --port "$PORT" --tensor-parallel-size "$TP" &
wait_for_server
