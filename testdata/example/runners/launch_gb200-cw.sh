#!/usr/bin/env bash
# Second gb200 cluster: the same label fans out here too.
set -euo pipefail

git clone --depth 1 https://github.com/NVIDIA/srt-slurm.git srt-slurm
cd srt-slurm
cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/vllm" recipes/vllm

cat > srtslurm.yaml <<EOF
default_time_limit: "2:00:00"
EOF

CONFIG_PATH="${CONFIG_FILE%%:*}"
# Replace the recipe's health check with this cluster's own.
sed -i '/^health_check:/,/^[^ ]/{ /^health_check:/d; /^  /d; }' "$CONFIG_PATH"
printf '\nhealth_check:\n  max_attempts: 360\n  interval_seconds: 10\n' >> "$CONFIG_PATH"

srtctl apply -f "$CONFIG_FILE"
