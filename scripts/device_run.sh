#!/usr/bin/env bash
# One call on a GPU machine: GPU tests, compute-sanitizer on small sizes, and the benchmarks,
# everything written to $OUT (at most 8 files). Usually the build is made on a machine with the
# Debian packages (scripts/test.sh) and build/release travels with the call; where no build came
# along, it builds here (needs CMake, Ninja, nvcc and the packages of scripts/install-deps.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-device-out}
mkdir -p "$OUT"
bin=build/release
log="$OUT/log.txt"
exec > >(tee "$log") 2>&1
if [ ! -x "$bin/gpulab" ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
  cmake --preset release && cmake --build --preset release || { echo "build failed"; exit 1; }
fi

# The build machine's OpenMP runtime travels with the build in case the GPU machine lacks one.
if ! ldconfig -p | grep -q libgomp.so.1 && [ -d "$bin/devlibs" ]; then
  export LD_LIBRARY_PATH="$PWD/$bin/devlibs:${LD_LIBRARY_PATH:-}"
fi
echo "== $(date -u +%FT%TZ) commit $(cat "$bin/COMMIT" 2>/dev/null || echo unknown)"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
"$bin/gpulab" info

echo "== GPU tests"
"$bin/tests/gpulab_gpu_tests" --gtest_output="json:$OUT/gpu_tests.json" --gtest_brief=1
echo "gpu tests exit code: $?"

echo "== compute-sanitizer (small sizes)"
small='All/ReduceLadder.*_n33_b256_*:All/ReduceLadder.*_n1025_b256_*:All/ReduceLadder.*_n777_b32_*:All/ReduceLadder.*_off1:ReduceSum.Int32*:ReduceSum.Refuses*'
{
  for tool in memcheck racecheck; do
    echo "-- $tool"
    compute-sanitizer --tool "$tool" --error-exitcode 99 "$bin/tests/gpulab_gpu_tests" \
      --gtest_filter="$small" --gtest_brief=1
    echo "$tool exit code: $?"
  done
} > "$OUT/sanitizer.txt" 2>&1
grep -E "exit code|ERROR SUMMARY|PASSED|FAILED" "$OUT/sanitizer.txt" | tail -12

echo "== seed 003's table: float32, n = 2^24, 64 threads, rungs 1-5"
"$bin/gpulab" bench reduce --type float32 --n 2^24 --block 64 --variants 1,2,3,4,5,8,vendor \
  --json "$OUT/seed003.json" --md "$OUT/seed003.md"
echo "== seed 000's shape: float64, 1024 threads, n = 2^20, 2^23, 2^25"
"$bin/gpulab" bench reduce --type float64 --n 2^20,2^23,2^25 --block 1024 --variants 1,2,3,8,vendor --no-cpu
echo "== the full ladder"
"$bin/gpulab" bench reduce --type all --n 2^20,2^24,2^28 --block 256 \
  --json "$OUT/reduce.json" --md "$OUT/reduce.md" --csv "$OUT/reduce.csv"
echo "== the main job: gpulab suite (ceilings + every ladder with its defaults)"
"$bin/gpulab" suite > /dev/null && echo "suite exit code: 0" || echo "suite exit code: $?"
echo "== done $(date -u +%FT%TZ)"
