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

# The oldest GPUs CUDA 13 supports (sm_75: T4, RTX 20xx): the library and the CLI must compile for
# them too (clusters, TF32 mma and cp.async are guarded by the target's compute capability).
cmake -S . -B build/sm75 -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=75 -DGPULAB_BUILD_TESTS=OFF > /dev/null
cmake --build build/sm75 --target gpulab gpulab_nccl gpulab_exe > build/sm75.log 2>&1 || { tail -30 build/sm75.log; echo "the build for sm_75 failed" >&2; exit 1; }
echo "the library and the CLI built for sm_75 too"

# The CMake package: install it, then build a project of its own against it (find_package(gpulab)).
rm -rf build/install build/consumer
cmake --install build/release --prefix build/install > /dev/null
cmake -S examples/consumer -B build/consumer -G Ninja -DCMAKE_PREFIX_PATH="$PWD/build/install" > /dev/null
cmake --build build/consumer
for example in gpulab_consumer gpulab_consumer_nccl; do
  rc=0; "build/consumer/$example" || rc=$?   # 0 with a GPU; 3 (no CUDA device) without
  [ $rc -eq 0 ] || [ $rc -eq 3 ] || { echo "the consumer example $example failed (exit code $rc)" >&2; exit 1; }
  echo "consumer example $example built against the installed package (exit code $rc)"
done

# What scripts/device_run.sh needs when build/release travels to a GPU machine: build/device.tar.xz
# (`run` with carry ["build/device.tar.xz"] and GPULAB_BIN=build/device bash scripts/device_run.sh).
bash scripts/pack_device.sh release

# Python: `pip install .` into a virtual environment, then pytest (the GPU tests skip without a GPU;
# the pages' tests run gpulab report/compare with this environment's matplotlib and open the pages
# in headless Chromium).
[ -x build/venv/bin/python ] || python3 -m venv build/venv
build/venv/bin/python -m pip install -q --disable-pip-version-check pytest numpy matplotlib
build/venv/bin/python -m pip install -q --disable-pip-version-check .
build/venv/bin/python -m pytest -q -rs python/tests
