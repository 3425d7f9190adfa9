# One call on an H100 with the build of 38f4255 (scripts/pack_device.sh ci): gpulab sanitize of the weighted ladder, the weighted GPU tests, Python (its tests, the CMake package, the peers against torch and CuPy, the call costs), the fuzz runs
export GPULAB_BIN=build/ci-device
build/ci-device/gpulab sanitize weighted_histogram --md sanitize_weighted.md > sanitize_weighted.txt
FUZZ_CALLS=20000 CPP_FUZZ_CALLS=4000 GPU_TESTS="HistogramWeighted.*" bash scripts/device_run.sh tests python fuzz
