# The calls of this record, each on the GPU machine with the build of 7fee4d5 carried (scripts/test.sh's build/device.tar.xz)
GPU_TESTS='Sgemm*:KnownWrong*' SANITIZER_TOOLS='memcheck initcheck' SANITIZER_TESTS='SgemmLibrary.TensorCorePrecisionKeeps*:SgemmLibrary.TensorCorePrecisionsPropagate*:SgemmLibrary.AlphaZero*' FUZZ_CALLS=100000 GPULAB_BIN=build/device bash scripts/device_run.sh tests sanitize-tests fuzz
build/device/gpulab bench sgemm -s 1024,4097,5000x3000x700,8192 --variants 13,14,17,vendor --no-cpu --no-ceilings --json sgemm_tensor.json --md sgemm_tensor.md
GPU_TESTS='*SgemmLadder*' GPULAB_BIN=build/device bash scripts/device_run.sh python
