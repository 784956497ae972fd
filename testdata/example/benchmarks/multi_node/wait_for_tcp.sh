#!/usr/bin/env bash
# Near miss for BL001: valid bash that tree-sitter-bash cannot parse (a subshell in `until`
# with a redirection); `bash -n` accepts it, so benchlint does not report it.
wait_for_tcp() {
    local host="$1" port="$2"
    until (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; do
        sleep 2
    done
}
