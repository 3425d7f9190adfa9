# One call on an H200 with the build of be5c925 carried (build/ci-device.tar.xz); the call script was kept beside the build:
build/ci-device/tests/gpulab_gpu_tests --gtest_filter='*AtaxLadder*:Atax.*:Ladders.*:*Multi*Atax*'
gpulab ceilings --in-flight --json ceilings_in_flight.json --md ceilings_in_flight.md
