# One call on the GPU machine, with a build of 7fee4d5 plus the working tree's change to
# src/sgemm/sgemm_wgmma.cu that was then committed, unchanged, as 8ad627f (the log's header says
# 7fee4d5d1b76-dirty): the kernels of 8ad627f.
tar xJf build/device.tar.xz -C build && build/device/tests/gpulab_gpu_tests --gtest_filter='SgemmLibrary.*' --gtest_brief=1
for s in 1024 5000x3000x700; do build/device/gpulab run sgemm -s $s --variant 13; done
build/device/gpulab bench sgemm -s 1024,4097,5000x3000x700,8192 --variants 11,13,14,17,vendor --no-cpu --no-ceilings --md sgemm_tensor.md
FUZZ_CALLS=20000 GPULAB_BIN=build/device bash scripts/device_run.sh notests fuzz
