# One call on an H200 with the build of 7065a2d carried (build/ci-device.tar.xz); the call script was kept beside the build:
build/ci-device/tests/gpulab_gpu_tests --gtest_filter='*AtaxLadder*:Atax.*'
for round in 1 2; do gpulab bench atax -s 512x768,1664x1792,1024x1024,8960x17920,12288x1024,1024x12288,5000x32000,16384x9800 --variants 3,4,5,6,vendor --json atax_$round.json --md atax_$round.md; done
gpulab profile atax -s 8960x17920,5000x32000 --variants 5,6 --json profile_atax.json --md profile_atax.md
gpulab sanitize atax --md sanitize_atax.md
