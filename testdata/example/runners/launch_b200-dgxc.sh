#!/usr/bin/env bash
# Single-node launcher: one B200 node through Slurm and enroot.
set -euo pipefail

export ISL="$ISL"
export OSL="$OSL"
export PORT="$PORT"
export HF_HUB_CACHE="${HF_HUB_CACHE:-/mnt/hf_hub_cache}"

SQUASH_FILE="/shared/containers/$(echo "$IMAGE" | tr '/:' '__').sqsh"
LOCK_FILE="${SQUASH_FILE}.lock"

JOB_ID=$(salloc --partition=b200 --gres=gpu:8 --exclusive --time=180 --no-shell 2>&1 \
    | grep -oP 'Granted job allocation \K[0-9]+')
trap 'scancel "$JOB_ID"' EXIT

# Import the container once per node; concurrent jobs share the squash file.
srun --jobid="$JOB_ID" --job-name="$RUNNER_NAME" bash -c "
    exec 9>\"$LOCK_FILE\"
    flock -w 1800 9
    if ! unsquashfs -l \"$SQUASH_FILE\" > /dev/null 2>&1; then
        rm -f \"$SQUASH_FILE\"
        enroot import -o \"$SQUASH_FILE\" docker://$IMAGE
    fi
"

srun --jobid="$JOB_ID" \
    --container-image="$SQUASH_FILE" \
    --container-mounts="$GITHUB_WORKSPACE:/workspace/" \
    --export=ALL \
    bash "benchmarks/single_node/${EXP_NAME%%_*}_${PRECISION}_b200.sh"
