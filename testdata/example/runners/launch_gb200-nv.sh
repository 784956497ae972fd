#!/usr/bin/env bash
# Multi-node launcher: srt-slurm with Dynamo recipes.
set -euo pipefail

: "${HEAD_NODE:?HEAD_NODE must name the head node}"
export HEAD_NODE="$HEAD_NODE"
export DECODE_NODES="$DECODE_NODES"

ROUTER_PORT=$ROUTER_PORT
export ROUTER_PORT

# Warm the model cache on the head node; the remote shell starts without set -e.
ssh "$HEAD_NODE" bash -s <<'REMOTE'
exec 7>/tmp/model-cache.lock
flock -w 900 7
rm -rf /tmp/model-cache/partial
REMOTE

git clone --depth 1 https://github.com/NVIDIA/srt-slurm.git srt-slurm
cd srt-slurm
# Overlay this repository's recipes; glm5 lives under another name upstream.
cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/vllm" recipes/vllm
cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/sglang/glm5" recipes/sglang/glm-5

cat > srtslurm.yaml <<EOF
default_account: benchmark
default_partition: gb200
default_time_limit: "4:00:00"
EOF

CONFIG_PATH="${CONFIG_FILE%%:*}"
sed -i "s/^name:.*/name: \"${RUNNER_NAME}\"/" "$CONFIG_PATH"
# Cap every recipe's load window at 2 hours.
sed -i 's/^  max_attempts: [0-9]*/  max_attempts: 720/' "$CONFIG_PATH"

srtctl apply -f "$CONFIG_FILE"
