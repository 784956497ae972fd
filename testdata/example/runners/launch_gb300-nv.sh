#!/usr/bin/env bash
# gb300 launcher: the wall time depends on the framework and the scenario.
set -euo pipefail

git clone --depth 1 https://github.com/NVIDIA/srt-slurm.git srt-slurm
cd srt-slurm
cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/trtllm" recipes/trtllm

if [[ $FRAMEWORK == "dynamo-trt" && $IS_AGENTIC == "1" ]]; then
    SRT_DEFAULT_TIME_LIMIT="8:00:00"
else
    SRT_DEFAULT_TIME_LIMIT="4:00:00"
fi
cat > srtslurm.yaml <<EOF
default_time_limit: "${SRT_DEFAULT_TIME_LIMIT}"
EOF

CONFIG_PATH="${CONFIG_FILE%%:*}"
# Near miss for BL201: only recipes without a health check get one.
if ! grep -q '^health_check:' "$CONFIG_PATH"; then
    printf 'health_check:\n  max_attempts: 720\n  interval_seconds: 10\n' >> "$CONFIG_PATH"
fi

srtctl apply -f "$CONFIG_FILE"
