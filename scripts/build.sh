#!/usr/bin/env bash
# Installs the dependencies, then configures and builds Tessera.
#   scripts/build.sh [BUILD_DIR [CMAKE_ARG...]]
# BUILD_DIR defaults to ./build (relative paths are taken from the
# repository root); extra arguments go to the CMake configure step.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

build_dir=${1:-build}
shift || true

bash scripts/deps.sh
cmake -S . -B "$build_dir" "$@"
cmake --build "$build_dir" -j"$(nproc)"
