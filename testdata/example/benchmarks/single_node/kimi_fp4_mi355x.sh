#!/usr/bin/env bash
# An entrypoint that trusts its caller: MODEL_PATH and TP reach vllm unchecked. Its first JSON
# default gains a stray `}` whenever the workflow sets SPEC_CONFIG; the second is quoted.
source "$(dirname "$0")/../benchmark_lib.sh"
SPEC_CONFIG="${SPEC_CONFIG:-{\"method\": \"mtp\", \"num_speculative_tokens\": 1}}"
COMPILE_CONFIG="${COMPILE_CONFIG:-"{\"level\": 3}"}"

vllm serve "$MODEL_PATH" --port "$PORT" --tensor-parallel-size "$TP" \
    --speculative-config "$SPEC_CONFIG" --compilation-config "$COMPILE_CONFIG" &
wait_for_server
