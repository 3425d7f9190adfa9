#!/usr/bin/env bash
# Builds the ci preset (everything for the oldest family CUDA 13 supports, sm_75, and for Hopper,
# sm_90, which the GPU machines have: the release preset's five families take longer) and runs
# every test. GPU tests skip (and are reported as skipped) where no CUDA device is present.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
architectures="75-real;90"  # the ci preset's
cmake --preset ci >/dev/null
cmake --build --preset ci
ctest --preset ci -j "$(nproc)"
# The GPU tests are one CTest entry; say how many of them were skipped (none run without a GPU).
grep -ho "GPU tests skipped: no CUDA device ([0-9]* tests skipped)" build/ci/Testing/Temporary/LastTest*.log | tail -1 || true

# The CMake package: install it, then build a project of its own against it (find_package(gpulab)).
rm -rf build/install build/consumer
cmake --install build/ci --prefix build/install > /dev/null
cmake -S examples/consumer -B build/consumer -G Ninja -DCMAKE_PREFIX_PATH="$PWD/build/install" > /dev/null
cmake --build build/consumer
for example in gpulab_consumer gpulab_consumer_nccl; do
  rc=0; "build/consumer/$example" || rc=$?   # 0 with a GPU; 3 (no CUDA device) without
  [ $rc -eq 0 ] || [ $rc -eq 3 ] || { echo "the consumer example $example failed (exit code $rc)" >&2; exit 1; }
  echo "consumer example $example built against the installed package (exit code $rc)"
done

# What scripts/device_run.sh needs when the build travels to a GPU machine: build/ci-device.tar.xz
# (`run` with carry ["build/ci-device.tar.xz"] and GPULAB_BIN=build/ci-device bash scripts/device_run.sh).
# Everything is ~60 MB, past a call's 64 MiB with the tree: a call carries a part of it
# (`pack_device.sh ci tests`, `ci python` or `ci cli`).
bash scripts/pack_device.sh ci

# Python: `pip install .` into a virtual environment, then pytest (the GPU tests skip without a GPU;
# the pages' tests run gpulab report/compare with this environment's matplotlib and open the pages
# in headless Chromium).
[ -x build/venv/bin/python ] || python3 -m venv build/venv
build/venv/bin/python -m pip install -q --disable-pip-version-check pytest numpy matplotlib
build/venv/bin/python -m pip install -q --disable-pip-version-check -Ccmake.define.CMAKE_CUDA_ARCHITECTURES="$architectures" .
build/venv/bin/python -m pytest -q -rs python/tests
