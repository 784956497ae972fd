#!/usr/bin/env bash
# Started on every node by runners/launch_h100-dp.sh. In the DP-attention arm each node runs
# its own API server (hybrid LB); only the head node's gets requests.
if [[ "${DP_ATTENTION:-false}" == true ]]; then
    uv run vllm serve "$MODEL" --data-parallel-size "$DP" --data-parallel-hybrid-lb --port "$PORT"
else
    vllm serve "$MODEL" --tensor-parallel-size 8 --port "$PORT"
fi
