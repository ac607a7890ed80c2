#!/usr/bin/env bash
# Builds Tessera into ./build and runs the main job.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

# ---- The main job: the one place to change what `scripts/run.sh` runs. ----
# tesserad on a private socket directory, the demo client against it, then
# the administrator's view of the same daemon; the daemon stops at the end.
main_job()
{
    local dir pid
    dir=$(mktemp -d "${TMPDIR:-/tmp}/tessera-run.XXXXXX")
    export TESSERA_SOCKET=$dir/tesserad.sock
    ./build/daemon/tesserad --foreground --socket "$TESSERA_SOCKET" &
    pid=$!
    trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
    for _ in $(seq 300); do
        [[ -S $TESSERA_SOCKET ]] && break
        kill -0 "$pid" 2>/dev/null || { echo "run.sh: tesserad did not start" >&2; exit 1; }
        sleep 0.1
    done
    echo "== demo client =="
    ./build/tessera-demo
    echo
    echo "== tessera devices =="
    ./build/cli/tessera devices
    kill -TERM "$pid"
    wait "$pid"
    trap - EXIT
    rm -rf "$dir"
}
# ---------------------------------------------------------------------------

bash scripts/build.sh build
main_job
