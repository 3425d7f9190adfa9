# The calls of this record (`nvidia-h100-x2`, which came as two H200s), the build of 1303b81 carried as
# build/ptx75-device.tar.xz (`cmake --preset ptx75`: device code as compute_75 PTX alone, JIT-compiled by the H200),
# each part on one of the two GPUs beside the others (CUDA_VISIBLE_DEVICES), the JIT's cache kept between calls:
export CUDA_CACHE_MAXSIZE=4294967296 CUDA_CACHE_PATH=$PWD/build/jit75 GPULAB_TREAT_AS=sm_75 GPULAB_BIN=build/ptx75-device
bash scripts/device_run.sh tests
bash scripts/device_run.sh notests python
bash scripts/device_run.sh notests suite
bash scripts/device_run.sh notests sanitize
