#!/usr/bin/env bash
# Builds Tessera into ./build and runs the main job.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

# ---- The main job: the one place to change what `scripts/run.sh` runs. ----
main_job()
{
    ./build/cli/tessera dtypes
}
# ---------------------------------------------------------------------------

bash scripts/build.sh build
main_job
