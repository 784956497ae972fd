#!/usr/bin/env bash
# An entrypoint that trusts its caller: MODEL_PATH and TP reach vllm unchecked.
source "$(dirname "$0")/../benchmark_lib.sh"

vllm serve "$MODEL_PATH" --port "$PORT" --tensor-parallel-size "$TP" &
wait_for_server
