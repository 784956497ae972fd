#!/usr/bin/env bash
source "$(dirname "$0")/../benchmark_lib.sh"

check_env_vars MODEL_PATH TP CONC

# Near misses for BL101: PORT comes from benchmark_lib.sh, MODEL_PATH is validated above.
# BL303: --max-seq-len-to-capture left vLLM after 0.10.2; the entry's image is v0.11.0.
export PORT="$PORT"
export MODEL_PATH="$MODEL_PATH"

vllm serve "$MODEL_PATH" --port "$PORT" --tensor-parallel-size "$TP" --max-seq-len-to-capture 8192 &
wait_for_server
