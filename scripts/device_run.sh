#!/usr/bin/env bash
# One call on a GPU machine: GPU tests, compute-sanitizer on small sizes, and the benchmarks.
#   scripts/device_run.sh [reduce] [histogram] [atax] [suite]      (no argument: all four)
# Writes $OUT/log.txt (everything printed) and $OUT/results.tgz (reports as JSON/Markdown/CSV,
# the GPU tests' JSON, the sanitizer's output): two files, whatever the number of reports.
# Usually the build is made on a machine with the Debian packages (scripts/test.sh, which also
# gathers the binaries in build/device) and travels with the call (GPULAB_BIN=build/device);
# where no build came along, it builds here (needs CMake, Ninja, nvcc and the packages of
# scripts/install-deps.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-device-out}
mkdir -p "$OUT/results"
res="$OUT/results"
bin=${GPULAB_BIN:-build/release}
exec > >(tee "$OUT/log.txt") 2>&1
parts=${*:-reduce histogram atax suite}
want() { [[ " $parts " == *" $1 "* ]]; }
if [ ! -x "$bin/gpulab" ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
  cmake --preset release && cmake --build --preset release || { echo "build failed"; exit 1; }
fi

# The build machine's OpenMP runtime travels with the build in case the GPU machine lacks one.
if ! ldconfig -p | grep -q libgomp.so.1 && [ -d "$bin/devlibs" ]; then
  export LD_LIBRARY_PATH="$PWD/$bin/devlibs:${LD_LIBRARY_PATH:-}"
fi
echo "== $(date -u +%FT%TZ) commit $(cat "$bin/COMMIT" 2>/dev/null || echo unknown), parts: $parts"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
"$bin/gpulab" info

echo "== GPU tests (every problem)"
"$bin/tests/gpulab_gpu_tests" --gtest_output="json:$res/gpu_tests.json" --gtest_brief=1
echo "gpu tests exit code: $?"

echo "== compute-sanitizer (small sizes)"
small='All/ReduceLadder.*_n33_b256_*:All/ReduceLadder.*_n1025_b256_*:All/ReduceLadder.*_n777_b32_*'
small+=':All/ReduceLadder.*_off1:ReduceSum.Int32*:ReduceSum.Refuses*'
small+=':All/HistogramLadder.*_uniform_n1025_*:All/HistogramLadder.*_degenerate_n33_*'
small+=':All/HistogramLadder.*_off1:All/HistogramLadder.*_b32_*:Histogram.*'
small+=':All/AtaxLadder.*_1x1:All/AtaxLadder.*_31x33:All/AtaxLadder.*_1x1000:All/AtaxLadder.*_1000x1'
small+=':All/AtaxLadder.*_513x1025:All/AtaxLadder.*_2000x3:Atax.Refuses*'
{
  for tool in memcheck racecheck; do
    echo "-- $tool"
    compute-sanitizer --tool "$tool" --error-exitcode 99 "$bin/tests/gpulab_gpu_tests" \
      --gtest_filter="$small" --gtest_brief=1
    echo "$tool exit code: $?"
  done
} > "$res/sanitizer.txt" 2>&1
grep -E "exit code|ERROR SUMMARY|PASSED|FAILED" "$res/sanitizer.txt" | tail -12

if want reduce; then
  echo "== seed 003's table: float32, n = 2^24, 64 threads, rungs 1-5"
  "$bin/gpulab" bench reduce --type float32 --n 2^24 --block 64 --variants 1,2,3,4,5,8,vendor \
    --json "$res/seed003.json" --md "$res/seed003.md"
  echo "== seed 000's shape: float64, 1024 threads, n = 2^20, 2^23, 2^25"
  "$bin/gpulab" bench reduce --type float64 --n 2^20,2^23,2^25 --block 1024 --variants 1,2,3,8,vendor --no-cpu
  echo "== the reduction ladder"
  "$bin/gpulab" bench reduce --type all --n 2^20,2^24,2^28 --block 256 \
    --json "$res/reduce.json" --md "$res/reduce.md" --csv "$res/reduce.csv"
fi
if want histogram; then
  for loops in 1 10; do
    echo "== seed 002's table: n = 2^25, m = 8, 1024 threads, LOOPS $loops"
    "$bin/gpulab" bench histogram --n 2^25 --bins 8 --dist uniform --block 1024 --loops "$loops" \
      --json "$res/seed002_loops$loops.json" --md "$res/seed002_loops$loops.md"
  done
  echo "== the histogram ladder: m = 8 ... 2^20, every distribution"
  "$bin/gpulab" bench histogram --n 2^26 --bins 8,256,4096,65536,2^20 --dist all --no-cpu \
    --json "$res/histogram.json" --md "$res/histogram.md" --csv "$res/histogram.csv"
fi
if want atax; then
  ldd "$bin/gpulab" | grep -E "cublas|not found"
  echo "== seed 004's runs through gen / run / check"
  tmp=$(mktemp -d)
  for shape in "512 768" "1664 1792" "1024 1024" "8960 17920" "12288 1024" "1024 12288"; do
    set -- $shape
    echo "-- ${1}x$2"
    "$bin/gpulab" atax gen "$1" "$2" -o "$tmp/a.bin" && "$bin/gpulab" atax run "$tmp/a.bin" -o "$tmp/y.bin" \
      && "$bin/gpulab" atax check "$tmp/a.bin" "$tmp/y.bin"
    echo "gen/run/check ${1}x$2 exit code: $?"
    if [ "$1" = 512 ]; then  # the seed's own kernels, as its program ran them
      "$bin/gpulab" atax run "$tmp/a.bin" --variant 1 -o "$tmp/y1.bin" && "$bin/gpulab" atax check "$tmp/a.bin" "$tmp/y1.bin"
      echo "run --variant 1 / check 512x768 exit code: $?"
    fi
  done
  rm -rf "$tmp"
  echo "== the atax ladder on the seed's shapes"
  "$bin/gpulab" bench atax --json "$res/atax.json" --md "$res/atax.md" --csv "$res/atax.csv"
fi
if want suite; then
  echo "== the main job: gpulab suite (ceilings + every ladder with its defaults)"
  "$bin/gpulab" suite --json "$res/suite.json" > /dev/null && echo "suite exit code: 0" || echo "suite exit code: $?"
fi
tar czf "$OUT/results.tgz" -C "$OUT" results && rm -rf "$res"
echo "== done $(date -u +%FT%TZ)"
