#!/usr/bin/env bash
# Builds Tessera into ./build and runs every CTest suite.
#   scripts/test.sh [CTEST_ARG...]     e.g. scripts/test.sh -L unit
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

bash scripts/build.sh build
ctest --test-dir build --output-on-failure -j2 "$@"
