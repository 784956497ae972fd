#!/usr/bin/env bash
# Shared client: waits for the frontend to drain between concurrency levels. Dynamo's frontend
# publishes dynamo_frontend_*; a recipe served by `vllm serve` never does (BL304), so for it the
# embedded program below waits on a metric nobody publishes.
check_env_vars HEAD_NODE PORT
python3 - "http://$HEAD_NODE:$PORT/metrics" <<'PY'
import sys, time, urllib.request

while True:
    text = urllib.request.urlopen(sys.argv[1]).read().decode()
    inflight = sum(
        float(line.split()[-1])
        for line in text.splitlines()
        if line.startswith("dynamo_frontend_inflight_requests")
    )
    if inflight == 0:
        break
    time.sleep(5)
PY
