#!/usr/bin/env bash
# Near miss for BL001: valid bash that tree-sitter-bash cannot parse as written (its grammar has
# no `<>` redirection); benchlint reads `<>` as `>`, and `bash -n` accepts the file anyway.
wait_for_tcp() {
    local host="$1" port="$2"
    until (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; do
        sleep 2
    done
}
