#!/usr/bin/env bash
# Native multi-node data parallelism: every node runs an API server for its own ranks.
check_env_vars MODEL START_RANK HEAD_NODE

vllm serve "$MODEL" --data-parallel-size 16 --data-parallel-size-local 8 \
    --data-parallel-start-rank "$START_RANK" --data-parallel-address "$HEAD_NODE" \
    --data-parallel-hybrid-lb --port 8000
