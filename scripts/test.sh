#!/usr/bin/env bash
# Builds the release preset and runs every test. GPU tests skip (and are reported as skipped)
# where no CUDA device is present.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
cmake --preset release >/dev/null
cmake --build --preset release
ctest --preset release -j "$(nproc)"
# The GPU tests are one CTest entry; say how many of them were skipped (none run without a GPU).
grep -ho "GPU tests skipped: no CUDA device ([0-9]* tests skipped)" build/release/Testing/Temporary/LastTest*.log | tail -1 || true
# What scripts/device_run.sh needs when build/release travels to a GPU machine.
# A build of uncommitted changes says so: its results cannot be filed under the commit alone.
{ git rev-parse --short=12 HEAD 2>/dev/null || echo unknown; } | tr -d '\n' > build/release/COMMIT
git diff --quiet HEAD -- 2>/dev/null || printf -- '-dirty' >> build/release/COMMIT
echo >> build/release/COMMIT
mkdir -p build/release/devlibs && cp -L "$(g++ -print-file-name=libgomp.so.1)" build/release/devlibs/ 2>/dev/null || true
# Only what a device run needs (build/release with its object files outgrows the 64 MiB a call may
# carry): `run` with carry ["build/device"] and GPULAB_BIN=build/device bash scripts/device_run.sh.
rm -rf build/device && mkdir -p build/device/tests
cp build/release/gpulab build/release/COMMIT build/device/ && cp -r build/release/devlibs build/device/
cp build/release/tests/gpulab_gpu_tests build/device/tests/
