# The calls of this record: one lease of nvidia-h100-x4 that came as four H200s, 2026-11-27 15:44-15:53,
# the build of e818648 carried as build/ptx86-device.tar.xz (`cmake --preset ptx86`: device code as
# compute_86 PTX alone, JIT-compiled by the H200), each part alone on one of the four GPUs beside the
# other families' parts (build/e62.sh at the time: CUDA_VISIBLE_DEVICES, a JIT cache a GPU, the
# tests after the suite on the same GPU). The suites whose code moved since 1303b81 (the histogram's
# entry/dispatch/kernels split, sgemm_device.cuh's) are the tests' filter; every suite at 1303b81:
# (the earlier record 2026-11-27-h200-as-sm86-1303b81 in docs/results/README.md)
export CUDA_CACHE_MAXSIZE=4294967296 GPULAB_TREAT_AS=sm_86 GPULAB_BIN=build/ptx86-device
bash scripts/device_run.sh notests suite      # GPU 1
bash scripts/device_run.sh notests sanitize   # GPU 3, at the same time
GPU_TESTS='*Histogram*:*Sgemm*' bash scripts/device_run.sh tests   # after the suite, on its GPU
