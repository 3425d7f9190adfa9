# One call on an H200 with the build of 5f8954c carried (build/ci-device.tar.xz); the call script was kept beside the build:
build/ci-device/tests/gpulab_gpu_tests --gtest_filter='*AtaxLadder*:Atax.*:Ladders.*:*Multi*Atax*'
for round in 1 2; do gpulab bench atax -s 512x768,1664x1792,1024x1024,8960x17920,12288x1024,1024x12288,5000x32000,16384x9800 --variants 4,5,6,library,vendor --json atax_$round.json --md atax_$round.md; done
gpulab sanitize atax --md sanitize_atax.md
pip install --target $PYROOT -Ccmake.source-dir=python -Ccmake.define.CMAKE_PREFIX_PATH=build/ci-device/prefix . && PYTHONPATH=$PYROOT python3 -m pytest python/tests -k atax
