#!/usr/bin/env bash
# Shared helpers for the benchmark entrypoints.

export PORT="${PORT:-8888}"

check_env_vars() {
    local missing=0
    for name in "$@"; do
        if [[ -z "${!name:-}" ]]; then
            echo "error: $name is not set" >&2
            missing=1
        fi
    done
    return "$missing"
}

wait_for_server() {
    local url="http://0.0.0.0:${PORT}/health"
    until curl -sf "$url" >/dev/null; do
        sleep 5
    done
}
