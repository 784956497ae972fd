#!/usr/bin/env bash
# Near misses for BL102: every lock that can time out is checked.
set -uo pipefail

export MODEL="$MODEL"
export IMAGE="$IMAGE"

SQUASH_FILE="/shared/containers/h200.sqsh"
LOCK_FILE="${SQUASH_FILE}.lock"

JOB_ID=$(salloc --partition=h200 --gres=gpu:8 --no-shell 2>&1 | grep -oP '[0-9]+$')
trap 'scancel "$JOB_ID"' EXIT

srun --jobid="$JOB_ID" bash -c "
    exec 9>\"$LOCK_FILE\"
    flock -w 600 9 || { echo 'Failed to acquire lock for $SQUASH_FILE'; exit 1; }
    enroot import -o \"$SQUASH_FILE\" docker://$IMAGE
"

srun --jobid="$JOB_ID" bash -ec "
    exec 9>\"$LOCK_FILE\"
    flock -w 600 9
    enroot import -o \"$SQUASH_FILE\" docker://$IMAGE
"

srun --jobid="$JOB_ID" bash -c "
    set -e
    exec 9>\"$LOCK_FILE\"
    flock --timeout 600 9
    enroot import -o \"$SQUASH_FILE\" docker://$IMAGE
"

exec 8>"/tmp/h200-cw.lock"
if ! flock -n 8; then
    echo "another job holds the runner" >&2
    exit 1
fi

flock -w 30 8
status=$?
if [ "$status" -ne 0 ]; then
    exit "$status"
fi

# A blocking lock waits until it holds the lock; an unlock is not an acquisition.
flock 8
flock -u 8

# BL107: the trap runs when the script ends, after run_bench has returned and `job` is gone.
run_bench() {
    local job
    job=$(sbatch --parsable bench.sbatch)
    cancel() { scancel "$job"; }
    trap cancel EXIT
    squeue -j "$job"
}
run_bench

srun --jobid="$JOB_ID" --container-image="$IMAGE" --container-mounts="$GITHUB_WORKSPACE:/workspace/" \
    bash "benchmarks/single_node/${MODEL_PREFIX}_${PRECISION}_h200.sh"
