# The calls of this record: one lease of nvidia-h100-x4 that came as four H200s, 2026-11-27 15:44-15:53,
# the build of e818648 carried as build/ptx75-device.tar.xz (`cmake --preset ptx75`: device code as
# compute_75 PTX alone, JIT-compiled by the H200), each part alone on one of the four GPUs beside the
# other families' parts (build/e62.sh at the time: CUDA_VISIBLE_DEVICES, a JIT cache a GPU, the
# tests after the suite on the same GPU). The suites whose code moved since 1303b81 (the histogram's
# entry/dispatch/kernels split, sgemm_device.cuh's) are the tests' filter; every suite at 1303b81:
# (the earlier record 2026-11-27-h200-as-sm75-1303b81 in docs/results/README.md)
export CUDA_CACHE_MAXSIZE=4294967296 GPULAB_TREAT_AS=sm_75 GPULAB_BIN=build/ptx75-device
GPU_TESTS='*Histogram*:*Sgemm*' bash scripts/device_run.sh tests   # GPU 2, after sanitize80
