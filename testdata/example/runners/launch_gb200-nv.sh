#!/usr/bin/env bash
# Multi-node launcher: srt-slurm with a Dynamo recipe.
set -euo pipefail

: "${HEAD_NODE:?HEAD_NODE must name the head node}"
export HEAD_NODE="$HEAD_NODE"
export DECODE_NODES="$DECODE_NODES"

ROUTER_PORT=$ROUTER_PORT
export ROUTER_PORT

RECIPE="${CONFIG_FILE%%:*}"
cp -rT benchmarks/multi_node/srt-slurm-recipes srt-slurm/recipes

# Warm the model cache on the head node; the remote shell starts without set -e.
ssh "$HEAD_NODE" bash -s <<'REMOTE'
exec 7>/tmp/model-cache.lock
flock -w 900 7
rm -rf /tmp/model-cache/partial
REMOTE

srtctl apply -f "srt-slurm/$RECIPE"
