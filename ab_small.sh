#!/bin/bash
# A/B of the small multi-GPU calls: the build before the launchers (old) and after (new), same machine.
set -u
export NCCL_NVLS_ENABLE=0
for b in device ci-device; do [ -x build/$b/gpulab ] || tar xJf build/$b.tar.xz -C build; done
nvidia-smi -L
g=$(nvidia-smi -L | wc -l)
mkdir -p $OUT/a
(OUT=$OUT/a GPULAB_BIN=build/ci-device MULTI_TESTS='MultiGpuLaunchers.*:StreamCaptures.*:MultiGpu.*' timeout 300 bash scripts/device_run.sh notests multi-tests > $OUT/a/tests_log.txt 2>&1; echo "tests rc $?"; grep -E "^\[  (FAILED|PASSED) |tests exit code" $OUT/a/tests_log.txt | tail -30)
for round in 1 2; do
for b in device ci-device; do
  for c in "reduce -n 8,2^20 -t float32" "histogram -n 2^20 -m 256" "scan -n 2^20 -t float32 --kind inclusive"; do
    name=$(echo "$c" | cut -d' ' -f1)
    build/$b/gpulab bench $c --gpus $g --placement resident --reps 30 --md $OUT/a/${name}_${b}_$round.md > /dev/null 2>&1; echo "$b $name rc $?"
    grep -E "^\| [124] \||^### " $OUT/a/${name}_${b}_$round.md | cut -c1-200
  done
  grep -E "^\| [0-9]+ B " $OUT/a/reduce_${b}_$round.md
done
done
