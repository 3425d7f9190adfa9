# The call of this record, on the GPU machine (nvidia-h100-x4: four H100s, NVLink NV18 between every
# pair) with the build of 0758d97 carried (build/ci-device.tar.xz), 2026-11-27 21:15-21:22: on GPU 0
# the weighted histogram's library rung under Nsight Compute (2^26 float32 weights, m = 256), its GPU
# tests and those of multi::sgemm's stages through loopback ranks, its ladder and peers; then the
# sgemm multi-GPU tests over 2 and 4 GPUs, sgemm from one process over 1, 2 and 4 GPUs (C's rows
# sent in stages while the next are computed), weakly scaled, and the errors that end every rank.
tar xJf build/ci-device.tar.xz -C build; mkdir -p $OUT/ncu
timeout 90 ncu --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy \
  --section MemoryWorkloadAnalysis -k regex:weighted_partials -c 1 build/ci-device/gpulab bench weighted_histogram \
  -n 2^26 -m 256 -t float32 -d uniform --variants library --reps 1 --warmup 0 --e2e-reps 1 --no-cpu --no-ceilings \
  > $OUT/ncu/weighted_m256.txt 2>&1
GPU_TESTS='HistogramWeighted.*:MultiGpuLoopback.SgemmInStages*' MULTI_TESTS='MultiGpu.Sgemm*' MULTI_PROBLEMS=sgemm \
  GPULAB_BIN=build/ci-device timeout 480 bash scripts/device_run.sh tests weighted_histogram multi-tests multi multi-weak
