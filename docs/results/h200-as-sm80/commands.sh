# The calls of this record (`nvidia-h100-x2`, which came as two H200s), the build of 1303b81 carried as
# build/ptx80-device.tar.xz (`cmake --preset ptx80`: device code as compute_80 PTX alone, JIT-compiled by the H200),
# each part on one of the two GPUs beside the others (CUDA_VISIBLE_DEVICES), the JIT's cache kept between calls:
export CUDA_CACHE_MAXSIZE=4294967296 CUDA_CACHE_PATH=$PWD/build/jit80 GPULAB_TREAT_AS=sm_80 GPULAB_BIN=build/ptx80-device
GPU_TESTS='Histogram.*:SgemmLibrary.*:Fuzz.*:Ladders.*' bash scripts/device_run.sh tests  # the suites changed since the full run at 4690309
bash scripts/device_run.sh notests python
