#!/usr/bin/env bash
# Builds the release preset and runs the main job: the ceilings and every ladder (`gpulab suite`),
# writing results/suite.{json,csv,md}. Without a GPU it says "no CUDA device" and exits with 3.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
cmake --preset release >/dev/null
cmake --build --preset release
mkdir -p results
exec build/release/gpulab suite --json results/suite.json --csv results/suite.csv --md results/suite.md "$@"
