# One call on an H200 with the build of 15a1ba8 carried (build/ci-device.tar.xz); the call script was kept beside the build:
build/ci-device/tests/gpulab_gpu_tests --gtest_filter='HistogramWeighted.*:Report*'
gpulab ceilings --in-flight --json ceilings_in_flight.json --md ceilings_in_flight.md
gpulab bench weighted_histogram -n 2^26 -m 256,328,329 -t float64 --variants 2,5,library --json weighted_float64.json --md weighted_float64.md
python3 src/histogram/peers_weighted.py --n 2^26 --bins 256,328 --json peers_weighted_histogram.json
pip install --target $PYROOT -Ccmake.source-dir=python -Ccmake.define.CMAKE_PREFIX_PATH=build/ci-device/prefix . && PYTHONPATH=$PYROOT python3 -m pytest python/tests -k weighted
ncu --set full --page raw --csv --clock-control none -k regex:read_stream --launch-count 1 gpulab ceilings > ncu_full_read.csv
ncu --set full --page raw --csv --clock-control none --nvtx --nvtx-include 'regex:gpulab@case [0-9]+ rung [0-9]+/' gpulab profile atax -s 8960x17920 --variants 4,5 --ncu-target > ncu_full_atax.csv
ncu (the same) gpulab profile scan -n 2^28 -t int32 --variants library --ncu-target > ncu_full_scan.csv
ncu (the same) gpulab profile conv -s 7680x4320 --variants library --ncu-target > ncu_full_conv.csv
