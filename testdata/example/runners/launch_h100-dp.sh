#!/usr/bin/env bash
# A multi-node DP-attention job: the entrypoint runs on every node, the health check and the
# benchmark client talk to the head node only (BL302 in the entrypoint names this file).
set -euo pipefail

head_node=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n1)
node_count="${NODE_COUNT:-2}"

srun --nodes="$node_count" --ntasks-per-node=1 --container-image="$IMAGE" \
    bash benchmarks/multi_node/dp_attention_serve.sh &

until curl -sf "http://${head_node}:${PORT}/health"; do sleep 10; done
python3 utils/bench_serving.py --base-url "http://${head_node}:${PORT}"
