#!/usr/bin/env bash
# Multi-node launcher at the repository root, as the first launchers were.
set -euo pipefail

git clone --depth 1 https://github.com/NVIDIA/srt-slurm.git srt-slurm
cd srt-slurm
LOCAL_RECIPES_DIR="$GITHUB_WORKSPACE/benchmarks/multi_node/srt_slurm_recipes"
cp -r "$LOCAL_RECIPES_DIR"/* recipes/

CONFIG_PATH="${CONFIG_FILE%%:*}"
# Cap every recipe's load window at 2 hours.
sed -i 's/^  max_attempts: [0-9]*/  max_attempts: 720/' "$CONFIG_PATH"

srtctl apply -f "$CONFIG_FILE"
