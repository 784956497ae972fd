#!/usr/bin/env bash
# Shared client: waits for the frontend to drain between concurrency levels. Dynamo's frontend
# publishes dynamo_frontend_*; a recipe served by `vllm serve` never does (BL304).
check_env_vars HEAD_NODE PORT
until curl -s "http://$HEAD_NODE:$PORT/metrics" | grep -q '^dynamo_frontend_inflight_requests 0'; do
    sleep 5
done
