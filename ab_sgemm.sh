#!/bin/bash
# A/B: multi::sgemm before the launchers and pieces (device = 268b52d) and after (ci-device), one machine.
set -u
export NCCL_NVLS_ENABLE=0
for b in device ci-device; do [ -x build/$b/gpulab ] || tar xJf build/$b.tar.xz -C build; done
nvidia-smi -L; g=$(nvidia-smi -L | wc -l)
mkdir -p $OUT/r
build/ci-device/tests/gpulab_gpu_tests --gtest_filter='MultiGpu.Sgemm*:MultiGpuLoopback.Sgemm*:MultiGpu.PerRank*' --gtest_brief=1 2>&1 | tail -4
for round in 1 2; do for b in device ci-device; do
  build/$b/gpulab bench sgemm -s 4096,8192,16384 --gpus $g --placement resident --reps 5 --md $OUT/r/sgemm_${b}_$round.md > /dev/null 2>&1; echo "$b sgemm rc $?"
  grep -E "^\| [124] \||^### " $OUT/r/sgemm_${b}_$round.md | cut -c1-150
done; done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
